/* libFuzzer target for one reader, chosen at compile time (tests/fuzz/run.sh builds one binary per
 * reader, see READERS there):
 *   -DHS_FUZZ_HLO, -DHS_FUZZ_STABLEHLO, -DHS_FUZZ_JAXPR  a text reader through hs_parse;
 *   -DHS_FUZZ_DECISIONS  hs_decisions_json over a jaxpr, StableHLO or HLO document;
 *   -DHS_FUZZ_PROFILE    hs_profile_parse (xplane protobuf, trace JSON);
 *   -DHS_FUZZ_TIMELINE   hs_profile_timeline_json over a profile;
 *   -DHS_FUZZ_MEMORY, -DHS_FUZZ_BUFFERS  hs_memory_json (OOM messages; buffer assignments and
 *                        memory-usage reports);
 *   -DHS_FUZZ_LAYOUT     hs_layout_json (one HLO type with its layout);
 *   -DHS_FUZZ_LLVM       hs_llvm_parse and hs_llvm_json.
 * Input the reader would refuse as another format is read again after HS_FUZZ_PREFIX (the text
 * that makes the reader take it), so that every input reaches the reader under test
 * (fuzz_parse.c lets the detector choose). fuzz_dumpset.c covers dump folders.
 *
 * -DHS_FUZZ_LEAN (the long run, `run.sh --long`): the reader and its central result only, not
 * every result kind, so that 10M executions under ASan fit in well under an hour on one core.
 * Without it (`--ci`, `--runs`, SECONDS) every result kind is asked of a document that parses.
 * A new reader adds one line to READERS in run.sh and its branch here (tests/fuzz/README.md). */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "hloscope.h"

#if defined(HS_FUZZ_HLO)
#define HS_FUZZ_READER HS_FORMAT_HLO
#define HS_FUZZ_PREFIX "HloModule fuzz\n"
#elif defined(HS_FUZZ_STABLEHLO)
#define HS_FUZZ_READER HS_FORMAT_STABLEHLO
#define HS_FUZZ_PREFIX "module @fuzz {\n"
#elif defined(HS_FUZZ_JAXPR)
#define HS_FUZZ_READER HS_FORMAT_JAXPR
#define HS_FUZZ_PREFIX "{ lambda "
#elif defined(HS_FUZZ_MEMORY)
#define HS_FUZZ_PREFIX "RESOURCE_EXHAUSTED: Ran out of memory in memory space hbm. "
#elif defined(HS_FUZZ_BUFFERS)
#define HS_FUZZ_PREFIX "BufferAssignment:\n"
#elif defined(HS_FUZZ_LLVM)
#define HS_FUZZ_PREFIX "; ModuleID = 'fuzz'\n"
#elif !defined(HS_FUZZ_PROFILE) && !defined(HS_FUZZ_TIMELINE) && !defined(HS_FUZZ_LAYOUT) && !defined(HS_FUZZ_DECISIONS)
#error "define one of the HS_FUZZ_<READER> flags listed at the top of fuzz_reader.c"
#endif

#if defined(HS_FUZZ_PREFIX) || defined(HS_FUZZ_DECISIONS)
/* prefix + data in a fresh buffer (NULL when out of memory) */
static char *prefixed(const char *prefix, const uint8_t *data, size_t size, size_t *len) {
  size_t n = strlen(prefix);
  char *owned = malloc(n + size ? n + size : 1); /* exact size: ASan sees a read past the end */
  if (!owned) return NULL;
  memcpy(owned, prefix, n);
  if (size) memcpy(owned + n, data, size);
  *len = n + size;
  return owned;
}
#endif

#if defined(HS_FUZZ_PROFILE) || defined(HS_FUZZ_TIMELINE)
static void read_profile(const uint8_t *data, size_t size) {
  hs_profile *prof = hs_profile_parse(data, size, NULL);
  if (!prof) return;
#if defined(HS_FUZZ_PROFILE) || !defined(HS_FUZZ_LEAN)
  hs_free(hs_profile_json(prof, NULL));
#endif
#ifdef HS_FUZZ_TIMELINE
  hs_free(hs_profile_timeline_json(prof, NULL, NULL));
#ifndef HS_FUZZ_LEAN
  hs_timeline_options opt = {NULL, NULL, "1"}; /* one program, by id */
  hs_free(hs_profile_timeline_json(prof, &opt, NULL));
#endif
#endif
  hs_profile_free(prof);
}
#endif

#if defined(HS_FUZZ_MEMORY) || defined(HS_FUZZ_BUFFERS)
static void read_memory(const uint8_t *data, size_t size) {
  hs_error err;
  char *out = hs_memory_json((const char *)data, size, &err, NULL);
  hs_free(out);
  if (!out && err.code == HS_E_FORMAT) { /* not taken as a memory text: read it after the prefix */
    size_t len;
    char *owned = prefixed(HS_FUZZ_PREFIX, data, size, &len);
    if (owned) hs_free(hs_memory_json(owned, len, NULL, NULL));
    free(owned);
  }
}
#endif

#ifdef HS_FUZZ_LLVM
static void read_llvm(const uint8_t *data, size_t size) {
  hs_error err;
  hs_llvm *m = hs_llvm_parse((const char *)data, size, &err);
  char *owned = NULL;
  if (!m && err.code == HS_E_FORMAT) {
    size_t len;
    owned = prefixed(HS_FUZZ_PREFIX, data, size, &len);
    if (owned) m = hs_llvm_parse(owned, len, NULL);
  }
  if (m) {
    (void)hs_llvm_function_count(m);
    hs_free(hs_llvm_json(m, NULL, NULL));
  }
  hs_llvm_free(m);
  free(owned);
}
#endif

#if defined(HS_FUZZ_READER) || defined(HS_FUZZ_DECISIONS)
static void read_doc(const uint8_t *data, size_t size) {
  const char *text = (const char *)data;
  size_t len = size;
  char *owned = NULL;
  hs_format f = hs_detect_format(text, len);
#ifdef HS_FUZZ_READER
  if (f != HS_FUZZ_READER) {
    owned = prefixed(HS_FUZZ_PREFIX, data, size, &len);
#else /* decisions: over a jaxpr, StableHLO or HLO; other input is read as one of them (its first byte picks) */
  if (f != HS_FORMAT_JAXPR && f != HS_FORMAT_STABLEHLO && f != HS_FORMAT_HLO) {
    if (size < 1) return;
    static const char *const prefixes[] = {"{ lambda ", "module @fuzz {\n", "HloModule fuzz\n"};
    owned = prefixed(prefixes[data[0] % 3], data + 1, size - 1, &len);
#endif
    if (!owned) return;
    text = owned;
  }
  hs_error err;
  hs_doc *d = hs_parse(text, len, &err);
  if (d) {
#if defined(HS_FUZZ_DECISIONS)
    hs_free(hs_decisions_json(d, NULL));
#elif defined(HS_FUZZ_LEAN)
    hs_free(hs_summary_json(d, NULL)); /* the reader's census: counts, warnings */
#else
    for (int k = 0; hs_kind_name(k); k++) hs_free(hs_kind_json(d, k, NULL));
    hs_free(hs_xray_json(d, d, NULL));
#endif
    hs_doc_free(d);
  } else {
    hs_free(hs_error_json(&err, NULL));
  }
  free(owned);
}
#endif

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
#if defined(HS_FUZZ_PROFILE) || defined(HS_FUZZ_TIMELINE)
  read_profile(data, size);
#elif defined(HS_FUZZ_MEMORY) || defined(HS_FUZZ_BUFFERS)
  read_memory(data, size);
#elif defined(HS_FUZZ_LAYOUT)
  hs_error err;
  hs_free(hs_layout_json((const char *)data, size, &err, NULL));
#elif defined(HS_FUZZ_LLVM)
  read_llvm(data, size);
#else
  read_doc(data, size);
#endif
  return 0;
}
