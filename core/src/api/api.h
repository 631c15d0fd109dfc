/* api: the layer above every model. It names every reader (the format registry: detection over
 * every format, hs_parse), every result kind and every command (commands.c), and hands the lists
 * to the hosts (hs_registry_json). Not installed; only core/src/api includes it. It may include
 * every folder's header; no folder includes it.
 */
#ifndef HS_API_H
#define HS_API_H

#include "analyses/analyses.h"
#include "dumpset/dumpset.h"
#include "llvm/llvm.h"
#include "memory/memory.h"
#include "profile/profile.h"

/* Each format's detect and parse functions are declared by its folder's header; these two are
 * the registry's own: the detector that never matches (UNKNOWN) and the parse of a format
 * whose reader builds another model (hs_parse then says where to read it). */
int hs_detect_none(const char *text, size_t len, size_t first);
int hs_parse_not_document(hs_doc *d, hs_error *err);

/* The command table as JSON (the registry's "commands"). */
json_t *hs_commands_json(void);
#endif
