/* The HLO reader's typed values (hlo_reader.h): what XLA's parser refuses in the attributes
 * most often written by hand, each checked where hlo_attr.c's attribute loop meets it (braced
 * integer lists, slices, windows, padding, directions, the module's aliasing, a result's
 * accuracy, a custom-call's api_version). Cold: read only when such an attribute is written. */
#include "doc/hlo/hlo_reader.h"

#include <stdio.h>

/* What each of HLO_CHECKS asks of its value */
enum { CHECK_INT_LIST, CHECK_INT_LISTS, CHECK_INT, CHECK_DIRECTION, CHECK_SLICE, CHECK_PADDING, CHECK_WINDOW, CHECK_ALIAS,
       CHECK_DONOR, CHECK_ACCURACY, CHECK_API_VERSION };

/* ---- typed values: what XLA's parser refuses in the attributes most often written by hand ----- */

/* An integer at p ("-?[0-9]+", XLA's kInt): its end, or p when there is none. */
static size_t int_end(const char *t, size_t p, size_t e) {
  size_t q = p < e && t[p] == '-' ? p + 1 : p;
  size_t d = q;
  while (q < e && is_digit(t[q])) q++;
  return q > d ? q : p;
}

/* A braced list from its '{' at s to its '}' at e - 1, of items (item reads one at p and returns
 * its end, or p) with a ',' between two, spaces and comments anywhere: NOWHERE when it reads,
 * else where it went wrong. */
typedef size_t (*item_fn)(reader *r, size_t p, size_t e);
static size_t braced_list_bad(reader *r, size_t s, size_t e, item_fn item) {
  const char *t = r->t;
  if (e - s < 2 || t[s] != '{' || t[e - 1] != '}') return s;
  e--;
  size_t p = skip_ws(r, s + 1);
  if (p >= e) return p == e ? NOWHERE : e;
  for (;;) {
    size_t q = item(r, p, e);
    if (q == p) return p;
    p = skip_ws(r, q);
    if (p == e) return NOWHERE;
    if (p > e || t[p] != ',') return p > e ? e : p;
    p = skip_ws(r, p + 1);
  }
}

static size_t int_item(reader *r, size_t p, size_t e) { return int_end(r->t, p, e); }

/* An integer or a braced list of them (collective-permute's slice_sizes={{128,32},{64,32}}; a
 * gather's are flat) */
static size_t int_or_list_item(reader *r, size_t p, size_t e) {
  const char *t = r->t;
  if (t[p] != '{') return int_end(t, p, e);
  size_t q = p + 1;
  while (q < e && t[q] != '}' && t[q] != '{') q++;
  if (q >= e || t[q] != '}') return p;
  return braced_list_bad(r, p, q + 1, int_item) == NOWHERE ? q + 1 : p;
}

/* "[0:128]", "[0:128:2]": a slice's range */
static size_t range_item(reader *r, size_t p, size_t e) {
  const char *t = r->t;
  if (t[p] != '[') return p;
  size_t q = skip_ws(r, p + 1);
  for (int k = 0; k < 3; k++) {
    size_t x = int_end(t, q, e);
    if (x == q) return p;
    q = skip_ws(r, x);
    if (q < e && t[q] == ']' && k >= 1) return q + 1;
    if (q >= e || t[q] != ':' || k == 2) return p;
    q = skip_ws(r, q + 1);
  }
  return p;
}

/* XLA's one-token forms: "3x3" (kDxD; one number is an int), "0_1x2_3" and "0_1_1" (kPad). */
static bool dims_token(const char *t, size_t s, size_t e) {
  for (size_t p = s;;) {
    size_t q = int_end(t, p, e);
    if (q == p || t[p] == '-') return false;
    if (q == e) return true;
    if (t[q] != 'x') return false;
    p = q + 1;
  }
}
static bool pad_token(const char *t, size_t s, size_t e, int parts) {
  for (size_t p = s;;) {
    for (int k = 0; k < parts; k++) { /* low_high, or low_high_interior (a pad's padding=) */
      size_t q = int_end(t, p, e);
      if (q == p) return false;
      p = q;
      if (k >= 1 && (p == e || t[p] == 'x')) break;
      if (p >= e || t[p] != '_' || k == parts - 1) return false;
      p++;
    }
    if (p == e) return true;
    p++; /* 'x' */
  }
}

/* window={size=3x3 stride=2x2 pad=1_1x1_1 lhs_dilate=1x1 rhs_dilate=1x1 rhs_reversal=0x1} */
static size_t window_bad(reader *r, size_t s, size_t e) {
  const char *t = r->t;
  if (e - s < 2 || t[s] != '{' || t[e - 1] != '}') return s;
  size_t p = s + 1;
  e--;
  for (;;) {
    p = skip_ws(r, p);
    if (p == e) return NOWHERE;
    if (p > e) return e;
    size_t ks = p;
    while (p < e && ((t[p] >= 'a' && t[p] <= 'z') || t[p] == '_')) p++;
    size_t kl = p - ks;
    if (p >= e || t[p] != '=') return ks;
    bool pad = kl == 3 && memcmp(t + ks, "pad", 3) == 0;
    if (!pad && !((kl == 4 && memcmp(t + ks, "size", 4) == 0) || (kl == 6 && memcmp(t + ks, "stride", 6) == 0) ||
                  (kl == 10 && (memcmp(t + ks, "lhs_dilate", 10) == 0 || memcmp(t + ks, "rhs_dilate", 10) == 0)) ||
                  (kl == 12 && memcmp(t + ks, "rhs_reversal", 12) == 0)))
      return ks;
    size_t vs = ++p;
    while (p < e && !is_space(t[p]) && t[p] != '/') p++;
    if (!(pad ? pad_token(t, vs, p, 2) : dims_token(t, vs, p))) return vs; /* a window's pad: low_high only */
  }
}

/* ---- the module's aliasing, an instruction's result accuracy ------------------------------------ */

/* [s, s + n) is the word w, in any case */
static bool word_nocase(const char *s, size_t n, const char *w) {
  size_t k = 0;
  for (; k < n && w[k]; k++) {
    char c = s[k] >= 'a' && s[k] <= 'z' ? (char)(s[k] - 32) : s[k];
    char d = w[k] >= 'a' && w[k] <= 'z' ? (char)(w[k] - 32) : w[k];
    if (c != d) return false;
  }
  return k == n && !w[k];
}

/* The next token at p (spaces and comments skipped), or e */
static size_t next_tok(reader *r, size_t p, size_t e) {
  p = skip_ws(r, p);
  return p < e ? p : e;
}

/* A shape index at p: "{}", "{0}", "{1, 0}": its end, or NOWHERE with *bad where it goes wrong */
static size_t shape_index_end(reader *r, size_t p, size_t e, size_t *bad) {
  const char *t = r->t;
  p = next_tok(r, p, e);
  if (p >= e || t[p] != '{') return *bad = p, NOWHERE;
  p = next_tok(r, p + 1, e);
  if (p < e && t[p] == '}') return p + 1;
  for (;;) {
    size_t q = int_end(t, p, e);
    if (q == p || t[p] == '-') return *bad = p, NOWHERE;
    p = next_tok(r, q, e);
    if (p < e && t[p] == '}') return p + 1;
    if (p >= e || t[p] != ',') return *bad = p, NOWHERE;
    p = next_tok(r, p + 1, e);
  }
}

/* "(param, {index})" or, aliasing, "(param, {index}, may-alias)" at p: its end, or NOWHERE */
static size_t param_index_end(reader *r, size_t p, size_t e, bool kind, size_t *bad) {
  const char *t = r->t;
  if (p >= e || t[p] != '(') return *bad = p, NOWHERE;
  p = next_tok(r, p + 1, e);
  size_t q = int_end(t, p, e);
  if (q == p || t[p] == '-') return *bad = p, NOWHERE;
  p = next_tok(r, q, e);
  if (p >= e || t[p] != ',') return *bad = p, NOWHERE;
  p = shape_index_end(r, p + 1, e, bad);
  if (p == NOWHERE) return NOWHERE;
  p = next_tok(r, p, e);
  if (kind && p < e && t[p] == ',') {
    size_t w = next_tok(r, p + 1, e);
    p = w;
    while (p < e && (is_name_char(t[p]))) p++;
    if (!word_nocase(t + w, p - w, "may-alias") && !word_nocase(t + w, p - w, "must-alias"))
      return *bad = w, NOWHERE;
    p = next_tok(r, p, e);
  }
  if (p >= e || t[p] != ')') return *bad = p, NOWHERE;
  return p + 1;
}

/* input_output_alias={ {0}: (0, {0}, may-alias), {1}: 1 } and buffer_donor={ (0, {0}), (0, {1}) }
 * (hlo_parser.cc ParseAliasing, ParseBufferDonor): where XLA's parser goes wrong, or NOWHERE */
static size_t aliasing_bad(reader *r, size_t s, size_t e, bool donor) {
  const char *t = r->t;
  size_t bad = s;
  if (t[s] != '{' || t[e - 1] != '}') return s;
  e--;
  size_t p = next_tok(r, s + 1, e);
  while (p < e) {
    if (!donor) {
      p = shape_index_end(r, p, e, &bad);
      if (p == NOWHERE) return bad;
      p = next_tok(r, p, e);
      if (p >= e || t[p] != ':') return p;
      p = next_tok(r, p + 1, e);
      if (p < e && is_digit(t[p])) p = int_end(t, p, e); /* "{1}: 1" */
      else if ((p = param_index_end(r, p, e, true, &bad)) == NOWHERE) return bad;
    } else if ((p = param_index_end(r, p, e, false, &bad)) == NOWHERE) {
      return bad;
    }
    p = next_tok(r, p, e);
    if (p >= e) break;
    if (t[p] != ',') return p;
    p = next_tok(r, p + 1, e);
  }
  return NOWHERE;
}

/* result_accuracy={mode=highest} or {tolerance={atol=1e-5,rtol=0,ulps=1}}: where XLA's parser goes
 * wrong, or NOWHERE (asked of jaxlib: tests/cases/hlo-check-accuracy-*) */
static size_t accuracy_bad(reader *r, size_t s, size_t e) {
  const char *t = r->t;
  if (t[s] != '{' || t[e - 1] != '}') return s;
  size_t p = next_tok(r, s + 1, e - 1);
  if (e - 1 - p >= 5 && memcmp(t + p, "mode=", 5) == 0) {
    size_t w = p + 5, q = w;
    while (q < e && is_name_char(t[q])) q++;
    if (!word_nocase(t + w, q - w, "highest") && !word_nocase(t + w, q - w, "default")) return w;
    return next_tok(r, q, e - 1) == e - 1 ? NOWHERE : q;
  }
  if (e - 1 - p < 11 || memcmp(t + p, "tolerance={", 11) != 0) return p;
  p = next_tok(r, p + 11, e - 1);
  while (p < e - 1 && t[p] != '}') {
    size_t k = p;
    while (p < e && t[p] >= 'a' && t[p] <= 'z') p++;
    if (!((p - k == 4 && (memcmp(t + k, "atol", 4) == 0 || memcmp(t + k, "rtol", 4) == 0 || memcmp(t + k, "ulps", 4) == 0)) && t[p] == '='))
      return k;
    size_t v = ++p;
    while (p < e && (is_digit(t[p]) || t[p] == '.' || t[p] == 'e' || t[p] == 'E' || t[p] == '-' || t[p] == '+')) p++;
    if (p == v || !hlo_literal_word(t, v, p)) return v;
    p = next_tok(r, p, e - 1);
    if (p < e - 1 && t[p] == ',') p = next_tok(r, p + 1, e - 1);
  }
  if (p >= e - 1) return p;
  return next_tok(r, p + 1, e - 1) == e - 1 ? NOWHERE : p + 1;
}

/* The attributes whose values are only checked (XLA's parser refuses them otherwise), in their own
 * table, looked at only when an attribute is not one of HLO_ATTRS; looked up in order, so the
 * commonest come first (counted over the bench's kinds: dimensions, the dot's contracting
 * dimensions, slice, direction, channel_id). */
#define HLO_CHECKS(X)\
  X("dimensions", CHECK_INT_LIST, 0)                                  \
  X("lhs_contracting_dims", CHECK_INT_LIST, 0)                        \
  X("rhs_contracting_dims", CHECK_INT_LIST, 0)                        \
  X("slice", CHECK_SLICE, 0)                                          \
  X("direction", CHECK_DIRECTION, 0)                                  \
  X("channel_id", CHECK_INT, 0)                                       \
  X("lhs_batch_dims", CHECK_INT_LIST, 0)                              \
  X("rhs_batch_dims", CHECK_INT_LIST, 0)                              \
  X("offset_dims", CHECK_INT_LIST, 0)                                 \
  X("collapsed_slice_dims", CHECK_INT_LIST, 0)                        \
  X("start_index_map", CHECK_INT_LIST, 0)                             \
  X("slice_sizes", CHECK_INT_LISTS, 0)                                \
  X("dynamic_slice_sizes", CHECK_INT_LIST, 0)                         \
  X("update_window_dims", CHECK_INT_LIST, 0)                          \
  X("inserted_window_dims", CHECK_INT_LIST, 0)                        \
  X("scatter_dims_to_operand_dims", CHECK_INT_LIST, 0)                \
  X("index", CHECK_INT, 0)                                            \
  X("iota_dimension", CHECK_INT, 0)                                   \
  X("index_vector_dim", CHECK_INT, 0)                                 \
  X("feature_index", CHECK_INT, 0)                                    \
  X("padding", CHECK_PADDING, 0)                                      \
  X("window", CHECK_WINDOW, 0)                                        \
  X("result_accuracy", CHECK_ACCURACY, 0)                             \
  X("api_version", CHECK_API_VERSION, 0)                              \
  X("input_output_alias", CHECK_ALIAS, 0)                             \
  X("buffer_donor", CHECK_DONOR, 0)

static const struct {
  const char *key;
  uint8_t len;
  uint8_t action; /* CHECK_* */
} CHECKS[] = {
#define C_(lit, action, call) {lit, sizeof(lit) - 1, action},
    HLO_CHECKS(C_)
#undef C_
};
#define L_(lit, action, call) | 1ull << (sizeof(lit) - 1)
const uint64_t HLO_CHECK_LENGTHS = 0 HLO_CHECKS(L_);
#undef L_

/* A value XLA's parser refuses: a warning at bad (the key and the value up to it, and what XLA
 * expects there). True (it is no error of memory). */
bool hlo_bad_value(reader *r, size_t ks, size_t vs, size_t ve, size_t bad, const char *expects) {
  char fmt[200];
  snprintf(fmt, sizeof fmt, "%%.*s: XLA's parser refuses this value (%s)", expects);
  size_t e = ve; /* the key and its value, on its first line, up to 60 bytes */
  for (size_t q = vs; q < e; q++)
    if (r->t[q] == '\n') e = q;
  if (e < bad + 1 && bad < ve) e = bad + 1;
  if (e - ks > 60) e = ks + 60;
  hlo_warn_at(r, bad, fmt, r->t + ks, e - ks);
  return true;
}

/* A value of one of HLO_CHECKS [vs, ve) (key at ks, ke): a warning where XLA's parser would refuse
 * it. Out of line: most attributes are not looked at here. */
#if defined(__GNUC__) || defined(__clang__)
__attribute__((noinline))
#endif
void hlo_check_value(reader *r, bool module, size_t ks, size_t ke, size_t vs, size_t ve) {
  const char *t = r->t;
  size_t kl = ke - ks;
  int action = -1;
  for (size_t i = 0; i < sizeof CHECKS / sizeof CHECKS[0] && action < 0; i++)
    if (CHECKS[i].len == kl && CHECKS[i].key[0] == t[ks] && hs_bytes_eq(CHECKS[i].key, t + ks, kl)) action = CHECKS[i].action;
  if (module != (action == CHECK_ALIAS || action == CHECK_DONOR)) return; /* the module's attributes, and the instructions' */
  switch (action) {
    case CHECK_ALIAS:
    case CHECK_DONOR: {
      size_t bad = aliasing_bad(r, vs, ve, action == CHECK_DONOR);
      if (bad != NOWHERE)
        hlo_bad_value(r, ks, vs, ve, bad, action == CHECK_DONOR ? "expects { (parameter, {shape index}), ... }, as buffer_donor={ (0, {0}), (1, {}) }"
                                                            : "expects { {output index}: (parameter, {shape index}), ... }, as "
                                                              "input_output_alias={ {0}: (0, {}, may-alias) }");
      break;
    }
    case CHECK_ACCURACY: {
      size_t bad = accuracy_bad(r, vs, ve);
      if (bad != NOWHERE) hlo_bad_value(r, ks, vs, ve, bad, "expects {mode=highest}, {mode=default} or {tolerance={atol=1e-5,rtol=0,ulps=1}}");
      break;
    }
    case CHECK_API_VERSION: {
      static const char *const V[] = {"API_VERSION_ORIGINAL", "API_VERSION_STATUS_RETURNING", "API_VERSION_STATUS_RETURNING_UNIFIED", "API_VERSION_TYPED_FFI"};
      bool ok = false;
      for (int k = 0; k < 4; k++) ok |= word_nocase(t + vs, ve - vs, V[k]);
      if (!ok) hlo_bad_value(r, ks, vs, ve, vs, "a custom-call's api_version is API_VERSION_ORIGINAL, API_VERSION_STATUS_RETURNING, API_VERSION_STATUS_RETURNING_UNIFIED or API_VERSION_TYPED_FFI");
      break;
    }
    case CHECK_INT_LIST: {
      if (ve - vs >= 2 && t[vs] == '{' && t[ve - 1] == '}') { /* most are "{0,1}": digits and commas up to '}' */
        size_t p = vs + 1;
        while (t[p] != '}' && is_digit(t[p])) {
          while (is_digit(t[p])) p++;
          if (t[p] == ',' && is_digit(t[p + 1])) p++;
        }
        if (p == ve - 1) break;
      }
      size_t bad = braced_list_bad(r, vs, ve, int_item);
      if (bad != NOWHERE) hlo_bad_value(r, ks, vs, ve, bad, "expects integers in braces, as dimensions={0,1}");
      break;
    }
    case CHECK_INT_LISTS: {
      size_t bad = braced_list_bad(r, vs, ve, int_or_list_item);
      if (bad != NOWHERE) hlo_bad_value(r, ks, vs, ve, bad, "expects integers in braces, as slice_sizes={1,8}, or lists of them, as {{128,32},{64,32}}");
      break;
    }
    case CHECK_INT:
      if (int_end(t, vs, ve) != ve) hlo_bad_value(r, ks, vs, ve, vs, "expects an integer");
      break;
    case CHECK_DIRECTION: {
      size_t n = ve - vs;
      static const char D[] = "EQNEGEGTLELT";
      bool ok = false;
      for (int k = 0; k < 6 && n == 2; k++) ok |= memcmp(t + vs, D + 2 * k, 2) == 0;
      if (!ok) hlo_bad_value(r, ks, vs, ve, vs, "a comparison direction is EQ, NE, GE, GT, LE or LT");
      break;
    }
    case CHECK_SLICE: {
      size_t bad = braced_list_bad(r, vs, ve, range_item);
      if (bad != NOWHERE) hlo_bad_value(r, ks, vs, ve, bad, "expects ranges in braces, as slice={[0:8], [0:128:2]}");
      break;
    }
    case CHECK_PADDING:
      if (!pad_token(t, vs, ve, 3)) hlo_bad_value(r, ks, vs, ve, vs, "expects low_high padding per dimension, as padding=0_1x2_3 (or 0_1_1 with interior)");
      break;
    case CHECK_WINDOW: {
      size_t bad = window_bad(r, vs, ve);
      if (bad != NOWHERE) hlo_bad_value(r, ks, vs, ve, bad, "expects {size=3x3 stride=1x1 pad=1_1x1_1 lhs_dilate=1x1 rhs_dilate=1x1 rhs_reversal=0x0}");
      break;
    }
    default: break;
  }
}
