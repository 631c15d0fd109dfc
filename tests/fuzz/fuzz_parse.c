/* libFuzzer target: any bytes through the parsers (dumps and profiles) and every analysis. Built and run by
 * tests/fuzz/run.sh (clang, -fsanitize=fuzzer,address,undefined), seeded from the fixtures and
 * the shared captures. The first input byte picks how the rest is split into an x-ray pair.
 *
 * -DHS_FUZZ_LEAN (the long run, `run.sh --long parse`): what only this harness reaches, not what
 * the per-reader harnesses (fuzz_reader.c) already run every input through: the detector's
 * choice and its census, and the analyses that join two inputs (the x-ray of the two parts, a
 * memory text joined to a dump, LLVM IR beside its HLO). Without it (`--ci`) every result kind,
 * every reader of the same bytes. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "hloscope.h"

#ifndef HS_FUZZ_LEAN
static void all_results(const hs_doc *d) {
  char *(*fns[])(const hs_doc *, size_t *) = {hs_summary_json, hs_fusions_json, hs_spills_json, hs_computations_json,
                                                 hs_layouts_json, hs_decisions_json};
  for (size_t i = 0; i < sizeof fns / sizeof fns[0]; i++) hs_free(fns[i](d, NULL));
}
#endif

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 1) return 0;
  size_t split = (size_t)data[0] * (size - 1) / 255;
  const char *text = (const char *)data + 1;
  size_t len = size - 1;
  hs_error err;
  hs_doc *whole = hs_parse(text, len, &err);
#ifdef HS_FUZZ_LEAN
  if (whole) hs_free(hs_summary_json(whole, NULL));
  else hs_free(hs_error_json(&err, NULL));
  hs_doc_free(whole);
  hs_doc *a = hs_parse(text, split, NULL);
  hs_doc *b = hs_parse(text + split, len - split, NULL);
  if (a && b) hs_free(hs_xray_json(a, b, NULL));
  if (a) hs_free(hs_memory_join_json(text + split, len - split, a, NULL, NULL));
  hs_llvm *ll = hs_llvm_parse(text, split, NULL);
  if (ll && b) hs_free(hs_llvm_json(ll, b, NULL));
  hs_llvm_free(ll);
  hs_doc_free(a);
  hs_doc_free(b);
  return 0;
#else
  if (whole) {
    all_results(whole);
    hs_free(hs_xray_json(whole, whole, NULL));
    hs_doc_free(whole);
  } else {
    hs_free(hs_error_json(&err, NULL));
  }
  hs_doc *a = hs_parse(text, split, NULL);
  hs_doc *b = hs_parse(text + split, len - split, NULL);
  if (a && b) hs_free(hs_xray_json(a, b, NULL));
  /* the same bytes as a memory text (OOM message, buffer assignment, usage report), joined to
   * the first part when it parses, and the first part as one type with its layout */
  hs_free(hs_memory_json(text, len, NULL, NULL));
  if (a) hs_free(hs_memory_join_json(text + split, len - split, a, NULL, NULL));
  hs_free(hs_layout_json(text, split, NULL, NULL));
  /* the same bytes as LLVM IR (whole, and the first part with the second as its HLO) */
  hs_llvm *ll = hs_llvm_parse(text, len, NULL);
  if (ll) hs_free(hs_llvm_json(ll, NULL, NULL));
  hs_llvm_free(ll);
  ll = hs_llvm_parse(text, split, NULL);
  if (ll) hs_free(hs_llvm_json(ll, b, NULL));
  hs_llvm_free(ll);
  hs_doc_free(a);
  hs_doc_free(b);
  /* the same bytes as a profile (xplane protobuf or trace JSON) */
  hs_profile *prof = hs_profile_parse(text, len, NULL);
  if (prof) hs_free(hs_profile_json(prof, NULL));
  hs_profile_free(prof);
  return 0;
#endif
}
