/* libFuzzer target for one reader, chosen at compile time (tests/fuzz/run.sh builds one binary per
 * reader): -DHS_FUZZ_HLO, -DHS_FUZZ_STABLEHLO, -DHS_FUZZ_JAXPR (a text reader, with
 * HS_FUZZ_PREFIX, the text that makes hs_parse pick it), or -DHS_FUZZ_PROFILE. Input the format detector already gives to the reader is read as it is; any other input
 * is read after HS_FUZZ_PREFIX, so that every input reaches the reader under test (fuzz_parse.c
 * lets the detector choose). Every result kind is asked of a document that parses.
 * A new reader adds one line to READERS in run.sh (see tests/fuzz/README.md). */
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
#elif !defined(HS_FUZZ_PROFILE)
#error "define one of HS_FUZZ_HLO, HS_FUZZ_STABLEHLO, HS_FUZZ_JAXPR, HS_FUZZ_PROFILE"
#endif

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
#ifdef HS_FUZZ_PROFILE
  hs_profile *prof = hs_profile_parse(data, size, NULL);
  if (prof) hs_free(hs_profile_json(prof, NULL));
  hs_profile_free(prof);
#else
  const char *text = (const char *)data;
  size_t len = size;
  char *owned = NULL;
  if (hs_detect_format(text, len) != HS_FUZZ_READER) {
    static const char prefix[] = HS_FUZZ_PREFIX;
    owned = malloc(sizeof prefix - 1 + size);
    if (!owned) return 0;
    memcpy(owned, prefix, sizeof prefix - 1);
    if (size) memcpy(owned + sizeof prefix - 1, data, size);
    text = owned;
    len = sizeof prefix - 1 + size;
  }
  hs_error err;
  hs_doc *d = hs_parse(text, len, &err);
  if (d) {
    for (int k = 0; hs_kind_name(k); k++) hs_free(hs_kind_json(d, k, NULL));
    hs_free(hs_xray_json(d, d, NULL));
    hs_doc_free(d);
  } else {
    hs_free(hs_error_json(&err, NULL));
  }
  free(owned);
#endif
  return 0;
}
