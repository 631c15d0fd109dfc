/* Helpers for building result JSON with jansson (only json.c and xray.c include this). */
#ifndef HS_JSONOUT_H
#define HS_JSONOUT_H
#include <jansson.h>

#include "internal.h"

/* A JSON string from arbitrary bytes: invalid UTF-8 becomes U+FFFD, never a NULL. */
json_t *hs_json_bytes(const char *s, size_t n);
json_t *hs_json_slice(const hs_doc *d, hs_slice s);
json_t *hs_json_type(const hs_type *t); /* HLO form, or null */
/* [{"code","line","column","message"}] of a document's or a profile's warnings. */
json_t *hs_warnings_json(const hs_warning *ws, uint32_t n);
/* Serialises and frees `root`; NULL on allocation failure. */
char *hs_json_finish(json_t *root, size_t *len);
/* "2,097,152" */
void hs_fmt_bytes(uint64_t b, char *buf, size_t cap);
const char *hs_mem_space_words(int ms);
/* null, or {"line","inside","entry"} when the text was cut (stage.c) */
json_t *hs_partial_json(const hs_doc *d);
void hs_spills_explain(const hs_doc *d, const hs_spill_info *s, char *buf, size_t cap);
#endif
