/* A memory report joined to an optimized HLO given as text, one policy for every host: the HLO is
 * read with hs_parse (the same errors as any dump); when it does not parse, the report is read all
 * the same, not joined, with a warning that says where the HLO failed. */
#include <stdio.h>
#include <string.h>

#include "api/api.h"

char *hs_memory_read_json(const char *text, size_t len, const char *name, const char *hlo, size_t hlo_len, hs_error *err,
                          size_t *out_len) {
  hs_doc *d = NULL;
  char why[512] = "";
  if (hlo && !hs_is_blank(hlo, hlo_len)) {
    hs_error perr;
    d = hs_parse(hlo, hlo_len, &perr);
    if (!d) {
      if (perr.code == HS_E_NOMEM) {
        if (err) *err = perr;
        return NULL;
      }
      snprintf(why, sizeof why,
               "the optimized HLO given to join does not parse at line %u, column %u (%s: %s): the report is read, its "
               "allocations are not joined to instructions",
               perr.line, perr.col, hs_code_name(perr.code), perr.message);
    }
  }
  char *out = hs_mem_read(text, len, name, d, why[0] ? why : NULL, err, out_len);
  hs_doc_free(d);
  return out;
}
