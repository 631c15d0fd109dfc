/* The registry, the layer above every reader: format detection over every format and the parse
 * entry point (hs_detect_format, hs_parse), result kinds (hs_kind_json), and formats, kinds,
 * commands, error and warning codes, each generated from its one list (HS_FORMAT_MAP,
 * HS_KIND_MAP, HS_ERROR_MAP, HS_WARNING_MAP in hloscope.h; the command table, commands.c),
 * handed to JS as JSON (hs_registry_json, wasm export hsw_registry_json) so that no table is
 * copied into the JavaScript side. */
#include "api/api.h"

/* Each format's detect and parse functions, in HS_FORMAT_MAP order (index = hs_format). */
static const struct {
  const char *name, *label;
  int (*detect)(const char *text, size_t len, size_t first);
  int (*parse)(hs_doc *d, hs_error *err); /* hs_parse_not_document: not read as an hs_doc */
} FORMATS[HS_FORMAT_COUNT] = {
#define HS_FX_(id, name, label, detect_fn, parse_fn) {name, label, detect_fn, parse_fn},
    HS_FORMAT_MAP(HS_FX_)
#undef HS_FX_
};

int hs_detect_none(const char *text, size_t len, size_t first) { return 0; }

/* Where each format without a document is read (CLI command, JS call); a format not listed
 * here gets the generic hint. */
static const struct {
  hs_format format;
  const char *where;
} NOT_DOCUMENT_HINTS[] = {
    {HS_FORMAT_MEMORY, "`hloscope memory FILE` or readMemory(text)"},
    {HS_FORMAT_PASS_LISTING, "`hloscope passes LISTING` or a folder cell"},
    {HS_FORMAT_LLVM, "`hloscope llvm FILE` or readLlvm(text)"},
};

int hs_parse_not_document(hs_doc *d, hs_error *err) {
  const char *where = "its own entry point (see README.md)";
  for (size_t i = 0; i < sizeof NOT_DOCUMENT_HINTS / sizeof NOT_DOCUMENT_HINTS[0]; i++)
    if (NOT_DOCUMENT_HINTS[i].format == d->format) where = NOT_DOCUMENT_HINTS[i].where;
  hs_doc_error(err, HS_E_FORMAT, d, 0,
               "this reads as %s, not as a module of computations and instructions: read it with %s",
               hs_format_label(d->format), where);
  return HS_E_FORMAT;
}

_Static_assert(HS_FORMAT_HLO < HS_FORMAT_MEMORY && HS_FORMAT_STABLEHLO < HS_FORMAT_MEMORY && HS_FORMAT_JAXPR < HS_FORMAT_MEMORY &&
                   HS_FORMAT_MEMORY < HS_FORMAT_PASS_LISTING && HS_FORMAT_PASS_LISTING < HS_FORMAT_LLVM,
               "the document formats come first in HS_FORMAT_MAP");

/* The document formats come first in HS_FORMAT_MAP (doc/ detects among them); the others
 * follow, each a model's own detector. */
hs_format hs_detect_format(const char *text, size_t len) {
  if (!text) return HS_FORMAT_UNKNOWN;
  size_t p = hs_first_meaningful(text, len);
  if (p >= len) return HS_FORMAT_UNKNOWN;
  int best_score = 0;
  hs_format best = hs_doc_detect(text, len, &best_score);
  for (int f = 0; f < HS_FORMAT_COUNT && best_score < 100; f++) {
    if (FORMATS[f].parse != hs_parse_not_document) continue; /* scored by hs_doc_detect */
    int score = FORMATS[f].detect(text, len, p);
    if (score > best_score) { /* certain at 100: no later format can win (ties go to the first) */
      best_score = score;
      best = (hs_format)f;
    }
  }
  return best;
}

hs_doc *hs_parse(const char *text, size_t len, hs_error *err) {
  if (err) memset(err, 0, sizeof *err);
  if (!text && len) {
    hs_set_error(err, HS_E_ARG, NULL, 0, 0, "text is NULL");
    return NULL;
  }
  if (len > UINT32_MAX) {
    hs_set_error(err, HS_E_TOO_LARGE, NULL, 0, 0, "input of %zu bytes is larger than the 4 GiB hloscope reads", len);
    return NULL;
  }
  hs_format f = hs_detect_format(text, len);
  if (f == HS_FORMAT_UNKNOWN) {
    size_t p = text ? hs_skip_blank(text, len, 0) : 0;
    if (p >= len) {
      hs_set_error(err, HS_E_EMPTY, text, len, 0, "the input is empty: paste an optimized HLO (compile().as_text()) or StableHLO (lower().as_text())");
    } else {
      hs_set_error(err, HS_E_FORMAT, text, len, p,
                   "not a dump hloscope can read: expected 'HloModule' (optimized HLO), 'module @' (StableHLO) "
                   "or '{ lambda' (jaxpr) at the start");
    }
    return NULL;
  }
  if (FORMATS[f].parse == hs_parse_not_document) {
    hs_doc tmp = {0};
    tmp.text = text;
    tmp.len = len;
    tmp.format = f;
    hs_parse_not_document(&tmp, err);
    return NULL;
  }
  return hs_parse_as(text, len, f, err);
}

static const struct {
  const char *name;
  char *(*json)(const hs_doc *, size_t *);
} KINDS[HS_KIND_COUNT] = {
#define HS_KX_(id, name, json_fn) {name, json_fn},
    HS_KIND_MAP(HS_KX_)
#undef HS_KX_
};

char *hs_kind_json(const hs_doc *doc, int kind, size_t *len) {
  if (len) *len = 0;
  return kind >= 0 && kind < HS_KIND_COUNT ? KINDS[kind].json(doc, len) : NULL;
}

char *hs_registry_json(size_t *len) {
  json_t *root = json_object();
  if (!root) return NULL;
  json_object_set_new(root, "version", json_string(HS_VERSION));
  json_t *formats = json_array();
  for (int f = 0; f < HS_FORMAT_COUNT; f++) {
    json_t *o = json_object();
    json_object_set_new(o, "id", json_integer(f));
    json_object_set_new(o, "name", json_string(FORMATS[f].name));
    json_object_set_new(o, "label", json_string(FORMATS[f].label));
    json_object_set_new(o, "document", json_boolean(FORMATS[f].parse != hs_parse_not_document));
    json_array_append_new(formats, o);
  }
  json_object_set_new(root, "formats", formats);
  json_t *kinds = json_array();
  for (int k = 0; k < HS_KIND_COUNT; k++) {
    json_t *o = json_object();
    json_object_set_new(o, "id", json_integer(k));
    json_object_set_new(o, "name", json_string(KINDS[k].name));
    json_array_append_new(kinds, o);
  }
  json_object_set_new(root, "kinds", kinds);
  json_object_set_new(root, "commands", hs_commands_json());
  json_t *codes = json_array();
#define HS_X_(name, value, msg)                                     \
  {                                                                 \
    json_t *o = json_object();                                      \
    json_object_set_new(o, "name", json_string(#name));             \
    json_object_set_new(o, "value", json_integer(value));           \
    json_object_set_new(o, "message", json_string(msg));            \
    json_array_append_new(codes, o);                                \
  }
  HS_ERROR_MAP(HS_X_)
#undef HS_X_
  json_object_set_new(root, "codes", codes);
  json_t *warnings = json_array();
#define HS_WX_(name, value)                                         \
  {                                                                 \
    json_t *o = json_object();                                      \
    json_object_set_new(o, "name", json_string(#name));             \
    json_object_set_new(o, "value", json_integer(value));           \
    json_array_append_new(warnings, o);                             \
  }
  HS_WARNING_MAP(HS_WX_)
#undef HS_WX_
  json_object_set_new(root, "warnings", warnings);
  return hs_json_finish(root, len);
}
