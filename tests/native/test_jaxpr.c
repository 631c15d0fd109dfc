#define _DEFAULT_SOURCE
/* The jaxpr document (doc/jaxpr.c) against jax's own record of every fixture's jaxpr
 * (jaxpr_eqns.json, read from jax's Jaxpr objects by fixtures/capture/jaxpr_eqns.py, never from
 * the text): each jaxpr jax holds is one computation whose instructions are its equations, with
 * their primitives and output types, in order; each equation sits on the line where its text
 * begins. Then the corrections over the old line heuristic (any line with " = " was an
 * equation), pinned on the fixtures where it was wrong, and cut or garbled jaxprs: a partial
 * document with a warning, never a failure. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#define TU_WITH_DIRENT
#include "testutil.h"

static json_t *kind_json(const hs_doc *d, char *(*fn)(const hs_doc *, size_t *)) {
  json_t *j = tu_json(fn(d, NULL));
  assert_non_null(j);
  return j;
}

/* "f32[64,256]" from an aval of the record; NULL when it has no HLO element type or a symbolic
 * dimension (not compared). */
static char *aval_type(json_t *a, char *buf, size_t cap) {
  const char *hlo = json_string_value(json_object_get(a, "hlo"));
  json_t *shape = json_object_get(a, "shape");
  if (!hlo || !json_is_array(shape)) return NULL;
  size_t n = (size_t)snprintf(buf, cap, "%s[", hlo), i;
  json_t *x;
  json_array_foreach(shape, i, x) {
    if (!json_is_integer(x)) return NULL;
    n += (size_t)snprintf(buf + n, cap - n, "%s%lld", i ? "," : "", (long long)json_integer_value(x));
  }
  snprintf(buf + n, cap - n, "]");
  return buf;
}

/* An equation as "prim:type" (type "?" when the record cannot say it). */
static void eqn_sig(json_t *e, char *buf, size_t cap) {
  json_t *outs = json_object_get(e, "out");
  char one[256], all[2048];
  size_t n = 0, i;
  json_t *a;
  bool known = json_array_size(outs) > 0;
  if (json_array_size(outs) > 1) n += (size_t)snprintf(all + n, sizeof all - n, "(");
  json_array_foreach(outs, i, a) {
    const char *t = aval_type(a, one, sizeof one);
    if (!t) known = false;
    if (n < sizeof all) n += (size_t)snprintf(all + n, sizeof all - n, "%s%s", i ? ", " : "", t ? t : "?");
  }
  if (json_array_size(outs) > 1 && n < sizeof all) snprintf(all + n, sizeof all - n, ")");
  snprintf(buf, cap, "%s:%s", json_string_value(json_object_get(e, "primitive")), known ? all : "?");
}

static int by_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* One string per jaxpr: its equations' signatures, joined. */
static char *join_sigs(char **sigs, size_t n) {
  size_t len = 1;
  for (size_t i = 0; i < n; i++) len += strlen(sigs[i]) + 1;
  char *s = malloc(len);
  assert_non_null(s);
  s[0] = 0;
  for (size_t i = 0; i < n; i++) {
    strcat(s, sigs[i]);
    strcat(s, ";");
  }
  return s;
}

/* The line `line` (1-based) of text contains word as a whole token. */
static bool line_has(const char *text, unsigned line, const char *word) {
  const char *p = text;
  for (unsigned k = 1; k < line && p; k++) {
    p = strchr(p, '\n');
    if (p) p++;
  }
  if (!p) return false;
  const char *nl = strchr(p, '\n');
  size_t n = nl ? (size_t)(nl - p) : strlen(p), w = strlen(word);
  for (size_t i = 0; i + w <= n; i++)
    if (memcmp(p + i, word, w) == 0 && (i == 0 || p[i - 1] == ' ' || p[i - 1] == '{') &&
        (i + w == n || p[i + w] == ' ' || p[i + w] == '[' || p[i + w] == ':'))
      return true;
  return false;
}

typedef struct {
  size_t checked, eqns;
} walk_ctx;

static void check_fixture(const char *dir, void *vctx) {
  walk_ctx *w = vctx;
  char path[4096];
  size_t len = 0, olen = 0;
  snprintf(path, sizeof path, "%s/jaxpr_eqns.json", dir);
  char *orc_text = tu_read(path, &olen);
  if (!orc_text) return;
  json_t *orc = tu_json(orc_text);
  assert_non_null(orc);
  snprintf(path, sizeof path, "%s/jaxpr.txt", dir);
  char *text = tu_read(path, &len);
  if (!text) fail_msg("%s: a record without its jaxpr", dir);
  hs_error err;
  hs_doc *d = hs_parse(text, len, &err);
  if (!d) fail_msg("%s: %s", path, err.message);
  assert_int_equal(hs_doc_format(d), HS_FORMAT_JAXPR);

  /* jax's jaxprs, each as the string of its equations */
  json_t *eqns = json_object_get(orc, "eqns");
  size_t ne = json_array_size(eqns), nb = 0, i;
  json_t *e;
  json_array_foreach(eqns, i, e) {
    size_t b = (size_t)json_integer_value(json_object_get(e, "body"));
    if (b + 1 > nb) nb = b + 1;
  }
  char **jax = calloc(nb + 1, sizeof *jax);
  char **sigs = calloc(ne + 1, sizeof *sigs);
  assert_true(jax && sigs);
  for (size_t b = 0; b < nb; b++) {
    size_t n = 0;
    json_array_foreach(eqns, i, e) {
      if ((size_t)json_integer_value(json_object_get(e, "body")) != b) continue;
      char s[2300];
      eqn_sig(e, s, sizeof s);
      sigs[n++] = strdup(s);
    }
    jax[b] = join_sigs(sigs, n);
    for (size_t k = 0; k < n; k++) free(sigs[k]);
  }

  /* the document's computations, the same way; a type the record cannot say is not compared */
  json_t *cj = kind_json(d, hs_computations_json);
  json_t *comps = tu_path(cj, "modules/0/computations");
  assert_int_equal(json_array_size(tu_path(cj, "modules")), 1);
  size_t nc = json_array_size(comps), c;
  json_t *co;
  char **ours = calloc(nc + 1, sizeof *ours);
  assert_non_null(ours);
  size_t total = 0, entries = 0;
  json_array_foreach(comps, c, co) {
    json_t *ins = json_object_get(co, "instructions");
    size_t n = 0, k;
    json_t *in;
    entries += strcmp(json_string_value(json_object_get(co, "role")), "entry") == 0;
    json_array_foreach(ins, k, in) {
      char s[2300];
      const char *op = json_string_value(json_object_get(in, "opcode"));
      const char *ty = json_string_value(json_object_get(in, "type"));
      snprintf(s, sizeof s, "%s:%s", op, ty ? ty : "?");
      sigs[n++] = strdup(s);
      /* at the line where the equation begins: its primitive, and its first output, are there */
      unsigned line = (unsigned)json_integer_value(json_object_get(in, "line"));
      if (!line_has(text, line, op)) fail_msg("%s: line %u does not hold %s", path, line, op);
      const char *nm = json_string_value(json_object_get(in, "name"));
      if (nm && *nm && !line_has(text, line, nm)) fail_msg("%s: line %u does not hold %s", path, line, nm);
    }
    total += n;
    ours[c] = join_sigs(sigs, n);
    for (size_t q = 0; q < n; q++) free(sigs[q]);
  }
  assert_int_equal(entries, 1);
  /* the record's "?" types match any of ours: put ours in the record's place where it says "?" */
  if (nc != nb || total != ne)
    fail_msg("%s: %zu equations in %zu computations, jax has %zu in %zu jaxprs", path, total, nc, ne, nb);
  for (size_t b = 0; b < nb; b++) {
    if (!strstr(jax[b], ":?")) continue;
    for (size_t k = 0; k < nc; k++) { /* the computation with the same primitives */
      char *a = jax[b], *o = ours[k];
      bool same = true;
      while (*a && *o && same) {
        size_t pa = strcspn(a, ":"), po = strcspn(o, ":");
        same = pa == po && memcmp(a, o, pa) == 0;
        a += strcspn(a, ";") + (a[strcspn(a, ";")] ? 1 : 0);
        o += strcspn(o, ";") + (o[strcspn(o, ";")] ? 1 : 0);
      }
      if (same && !*a && !*o) {
        free(jax[b]);
        jax[b] = strdup(ours[k]);
        break;
      }
    }
  }
  qsort(jax, nb, sizeof *jax, by_str);
  qsort(ours, nc, sizeof *ours, by_str);
  for (size_t b = 0; b < nb; b++)
    if (strcmp(jax[b], ours[b]) != 0) fail_msg("%s: a jaxpr differs:\n  jax:  %s\n  ours: %s", path, jax[b], ours[b]);

  json_t *sj = kind_json(d, hs_summary_json);
  assert_int_equal(json_integer_value(json_object_get(sj, "instructions")), ne);
  assert_int_equal(json_integer_value(json_object_get(sj, "computations")), nb);
  assert_int_equal(json_array_size(json_object_get(sj, "warnings")), 0);
  json_decref(sj);
  for (size_t b = 0; b < nb; b++) free(jax[b]);
  for (size_t k = 0; k < nc; k++) free(ours[k]);
  free(jax);
  free(ours);
  free(sigs);
  json_decref(cj);
  json_decref(orc);
  hs_doc_free(d);
  free(text);
  w->checked++;
  w->eqns += ne;
}

/* Every fixture with a record: every jaxpr and equation of jax's is in the document, typed. */
static void test_jaxpr_doc_equals_jax(void **state) {
  (void)state;
  walk_ctx w = {0, 0};
  tu_each_fixture(0, check_fixture, &w);
  print_message("jaxpr: %zu fixtures, %zu equations, equal to jax's record\n", w.checked, w.eqns);
  assert_true(w.checked >= 78);
}

static hs_doc *parse_fixture(const char *ver, const char *id, char **text) {
  char path[1024];
  size_t len = 0;
  snprintf(path, sizeof path, "%s/fixtures/cpu-jax-%s/%s/jaxpr.txt", HS_SOURCE_DIR, ver, id);
  *text = tu_read(path, &len);
  if (!*text) fail_msg("cannot read %s", path);
  hs_error err;
  hs_doc *d = hs_parse(*text, len, &err);
  if (!d) fail_msg("%s: %s", path, err.message);
  return d;
}

/* The instruction of the computations JSON on `line`, or NULL. */
static json_t *instr_on(json_t *cj, unsigned line, const char **comp) {
  size_t c, k;
  json_t *co, *in;
  json_array_foreach(tu_path(cj, "modules/0/computations"), c, co) json_array_foreach(json_object_get(co, "instructions"), k, in) {
    if ((unsigned)json_integer_value(json_object_get(in, "line")) == line) {
      if (comp) *comp = json_string_value(json_object_get(co, "name"));
      return in;
    }
  }
  return NULL;
}

static const char *sget(json_t *o, const char *k) {
  const char *s = json_string_value(json_object_get(o, k));
  return s ? s : "";
}

/* Where the line heuristic was wrong (jax's record above is the oracle for each). */
static void test_jaxpr_corrections(void **state) {
  (void)state;
  char *text;
  const char *comp = NULL;
  /* transformer_step (jax 0.10.2): "let tril = { lambda ..." (line 1) opens a hoisted jaxpr, not
     an equation named "let"; line 20 is a whole hoisted jaxpr whose one equation, w = add u v,
     the heuristic lost (it took "jaxpr" = "{" instead); 1082 equations in 9 jaxprs, not 1085 */
  hs_doc *d = parse_fixture("0.10.2", "transformer_step", &text);
  json_t *cj = kind_json(d, hs_computations_json);
  assert_null(instr_on(cj, 1, NULL));
  json_t *in = instr_on(cj, 20, &comp);
  assert_non_null(in);
  assert_string_equal(sget(in, "name"), "w");
  assert_string_equal(sget(in, "opcode"), "add");
  assert_string_equal(sget(in, "type"), "f32[]");
  assert_string_equal(comp, "jaxpr");
  assert_string_equal(sget(tu_path(cj, "modules/0/computations/0"), "name"), "tril");
  assert_int_equal(hs_doc_instruction_count(d), 1082);
  assert_int_equal(hs_doc_computation_count(d), 9);
  json_decref(cj);
  hs_doc_free(d);
  free(text);
  /* remat (0.10.2): remat2 has two outputs, typed as both; the top level jaxpr is the entry */
  d = parse_fixture("0.10.2", "remat", &text);
  cj = kind_json(d, hs_computations_json);
  in = instr_on(cj, 51, &comp);
  assert_string_equal(sget(in, "opcode"), "remat2");
  assert_string_equal(sget(in, "type"), "(f32[256,512], f32[512,256])");
  assert_string_equal(sget(tu_path(cj, "modules/0/computations/1"), "role"), "entry");
  assert_string_equal(sget(tu_path(cj, "modules/0/computations/0"), "role"), "called");
  json_decref(cj);
  hs_doc_free(d);
  free(text);
  /* causal (0.10.2): i32 and bool are typed (s32, pred), the jit bodies are computations */
  d = parse_fixture("0.10.2", "causal", &text);
  cj = kind_json(d, hs_computations_json);
  in = instr_on(cj, 13, &comp);
  assert_string_equal(sget(in, "opcode"), "iota");
  assert_string_equal(sget(in, "type"), "s32[256,256]");
  assert_string_equal(comp, "jaxpr");
  assert_string_equal(sget(instr_on(cj, 26, NULL), "type"), "pred[256,256]");
  json_decref(cj);
  hs_doc_free(d);
  free(text);
  /* exp: "{ lambda ; a:f32[8]. let b:f32[8] = exp a in (b,) }" on one line: the equation is b */
  d = parse_fixture("0.4.38", "exp", &text);
  cj = kind_json(d, hs_computations_json);
  assert_string_equal(sget(instr_on(cj, 1, NULL), "name"), "b");
  json_decref(cj);
  hs_doc_free(d);
  free(text);
}

/* A cut jaxpr keeps the equations before the cut (none of a half-read one) and says so; garbled
 * text gives what was read and a warning. Every cut of a nested jaxpr parses. */
static void test_jaxpr_bad_input(void **state) {
  (void)state;
  char *text;
  hs_doc *whole = parse_fixture("0.10.2", "remat", &text);
  size_t len = strlen(text);
  /* cut in the middle of the remat2 equation's parameters (line 52) */
  const char *at = strstr(text, "bg:f32[256,512]");
  assert_non_null(at);
  size_t cut = (size_t)(at - text) + 40;
  hs_error err;
  hs_doc *d = hs_parse(text, cut, &err);
  assert_non_null(d);
  assert_int_equal(hs_doc_instruction_count(d), hs_doc_instruction_count(whole) - 1);
  json_t *sj = tu_json(hs_summary_json(d, NULL));
  json_t *w = json_array_get(json_object_get(sj, "warnings"), 0);
  assert_string_equal(sget(w, "code"), "HS_W_TRUNCATED");
  json_decref(sj);
  hs_doc_free(d);
  for (size_t c = 1; c <= len; c += 7) {
    d = hs_parse(text, c, &err);
    if (!d) { /* only a text too short to be a jaxpr at all is refused */
      assert_true(c < 10);
      continue;
    }
    json_decref(tu_json(hs_computations_json(d, NULL)));
    json_decref(tu_json(hs_decisions_json(d, NULL)));
    hs_doc_free(d);
  }
  hs_doc_free(whole);
  free(text);
  const char *garbled[] = {"let let let", "{ lambda ; a:f32[. let", "{ lambda ; a:f32[2]. let\n  b = sin a\n in (b,) }",
                           "{ lambda ; a:f32[2]. let\n  b:f32[2] = sin a\n in (b,) }\ntrailing words"};
  const char *codes[] = {"HS_W_PARTIAL_FORMAT", "HS_W_PARTIAL_FORMAT", "HS_W_PARTIAL_FORMAT", "HS_W_PARTIAL_FORMAT"};
  for (size_t i = 0; i < sizeof garbled / sizeof garbled[0]; i++) {
    d = hs_parse(garbled[i], strlen(garbled[i]), &err);
    assert_non_null(d);
    json_t *s = tu_json(hs_summary_json(d, NULL));
    json_t *w0 = json_array_get(json_object_get(s, "warnings"), 0);
    if (!w0) fail_msg("no warning for %s", garbled[i]);
    assert_string_equal(sget(w0, "code"), codes[i]);
    json_decref(s);
    hs_doc_free(d);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_jaxpr_doc_equals_jax),
      cmocka_unit_test(test_jaxpr_corrections),
      cmocka_unit_test(test_jaxpr_bad_input),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
