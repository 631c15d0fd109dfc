/* The registry: formats, result kinds, error and warning codes, each generated from its one
 * X-macro list (HS_FORMAT_MAP, HS_KIND_MAP, HS_ERROR_MAP in hloscope.h; HS_WARNING_MAP in
 * internal.h), and handed to JS as JSON (hs_registry_json, wasm export hsw_registry_json) so
 * that no table is copied into the JavaScript side. */
#include "jsonout.h"

static const struct {
  const char *name, *label;
  int (*parse)(hs_doc *d, hs_error *err); /* hs_parse_not_document: not read as an hs_doc */
} FORMATS[HS_FORMAT_COUNT] = {
#define HS_FX_(id, name, label, detect_fn, parse_fn) {name, label, parse_fn},
    HS_FORMAT_MAP(HS_FX_)
#undef HS_FX_
};

const char *hs_format_name(hs_format f) {
  return (unsigned)f < HS_FORMAT_COUNT ? FORMATS[f].name : FORMATS[HS_FORMAT_UNKNOWN].name;
}

const char *hs_format_label(hs_format f) {
  return (unsigned)f < HS_FORMAT_COUNT ? FORMATS[f].label : FORMATS[HS_FORMAT_UNKNOWN].label;
}

static const struct {
  const char *name;
  char *(*json)(const hs_doc *, size_t *);
} KINDS[HS_KIND_COUNT] = {
#define HS_KX_(id, name, json_fn) {name, json_fn},
    HS_KIND_MAP(HS_KX_)
#undef HS_KX_
};

const char *hs_kind_name(int kind) { return kind >= 0 && kind < HS_KIND_COUNT ? KINDS[kind].name : NULL; }

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
