/* The HLO reader in two parts (core/src/doc/hlo/hlo_split.c, doc_append.c) makes the document
 * one reader makes: texts of several modules (the committed fixtures' dumps one after another,
 * each case of tests/cases between two of them, and the shared GPU and TPU captures when they
 * are there) read whole and cut at their "HloModule" lines, every array and warning compared.
 * A cut the split reader refuses (the part before it does not end cleanly) is read whole: that
 * is compared too (it must say what one reader says). */
#define _DEFAULT_SOURCE
#define TU_WITH_DIRENT
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "doc/doc.h"
#include "testutil.h"

/* ---- comparing two documents of the same text ------------------------------------------- */
static int failures;
#define SAME(what, x, y)                                                                                  \
  do {                                                                                                    \
    if ((x) != (y)) {                                                                                     \
      if (failures++ < 20) printf("  differs at cut %zu: %s (%lld, %lld)\n", cut, what, (long long)(x), (long long)(y)); \
      return false;                                                                                       \
    }                                                                                                     \
  } while (0)

static bool same_type(const hs_type *x, const hs_type *y) {
  if (!x || !y) return x == y;
  if (x->kind != y->kind || x->elem != y->elem || x->mem_space != y->mem_space || x->n != y->n) return false;
  for (uint32_t i = 0; i < x->n; i++) {
    if (x->kind == HS_T_TUPLE && !same_type(x->elems[i], y->elems[i])) return false;
    if (x->kind == HS_T_ARRAY && (x->dims[i] != y->dims[i] || (x->dyn ? x->dyn[i] : 0) != (y->dyn ? y->dyn[i] : 0))) return false;
  }
  return true;
}

/* the same bytes (a made name's slice differs in where its bytes are) */
static bool same_slice(const hs_doc *a, hs_slice x, const hs_doc *b, hs_slice y) {
  return x.len == y.len && (hs_slice_synth(a, x) == hs_slice_synth(b, y)) && (hs_slice_synth(a, x) || x.off == y.off) &&
         memcmp(hs_sp(a, x), hs_sp(b, y), x.len) == 0;
}
#define SAME_SLICE(what, x, y) SAME(what, same_slice(a, (x), b, (y)), true)

static bool same_doc(const hs_doc *a, const hs_doc *b, size_t cut) {
  SAME("lines", a->n_lines, b->n_lines);
  SAME("computations", a->n_comps, b->n_comps);
  SAME("instructions", a->n_instrs, b->n_instrs);
  SAME("operands", a->n_operands, b->n_operands);
  SAME("calls", a->n_calls, b->n_calls);
  SAME("modules", a->n_modules, b->n_modules);
  SAME("frames", a->n_frames, b->n_frames);
  SAME("source files", a->n_source_files, b->n_source_files);
  SAME("instr_wide", a->n_instr_wide, b->n_instr_wide);
  SAME("hlo_rare", a->n_hlo_rare, b->n_hlo_rare);
  SAME("hlo_wide", a->n_hlo_wide, b->n_hlo_wide);
  SAME("warnings", a->n_warnings, b->n_warnings);
  for (uint32_t i = 0; i < a->n_lines; i++) {
    SAME("line kind", a->lines[i].kind, b->lines[i].kind);
    SAME("line ref", a->lines[i].ref, b->lines[i].ref);
    SAME("line start", hs_line_off(a, i), hs_line_off(b, i));
  }
  for (uint32_t i = 0; i < a->n_comps; i++) {
    const hs_comp *x = &a->comps[i], *y = &b->comps[i];
    SAME_SLICE("computation name", x->name, y->name);
    SAME("computation result", same_type(x->result, y->result), true);
    SAME("computation line", x->line, y->line);
    SAME("computation end", x->end_line, y->end_line);
    SAME("computation module", x->module, y->module);
    SAME("computation entry", x->is_entry, y->is_entry);
    SAME("computation role", x->role, y->role);
    SAME("computation inner", x->inner, y->inner);
    SAME("computation first", x->first, y->first);
    SAME("computation count", x->count, y->count);
    SAME("computation root", x->root, y->root);
    SAME("computation fused_by", x->fused_by, y->fused_by);
    SAME("computation fusions", x->fusions, y->fusions);
  }
  for (uint32_t i = 0; i < a->n_instrs; i++) {
    const hs_instr *x = &a->instrs[i], *y = &b->instrs[i];
    SAME_SLICE("instruction name", x->name, y->name);
    SAME_SLICE("opcode", hs_opcode(a, x), hs_opcode(b, y));
    SAME("instruction line", x->line, y->line);
    SAME("instruction computation", x->comp, y->comp);
    SAME("made", x->synth, y->synth);
    SAME("root", x->is_root, y->is_root);
    SAME("op_first", x->op_first, y->op_first);
    SAME("type", same_type(x->type, y->type), true);
    SAME("gte index", hs_synth_gte_index(a, x), hs_synth_gte_index(b, y));
    uint32_t fa, fb;
    SAME("call count", hs_calls_of(a, x, &fa), hs_calls_of(b, y, &fb));
    if (hs_call_count(a, x)) SAME("first call", fa, fb);
    hs_hlo_instr ha = hs_hlo_of(a, x), hb = hs_hlo_of(b, y);
    SAME_SLICE("kind", ha.kind, hb.kind);
    SAME_SLICE("custom_call_target", ha.custom_call_target, hb.custom_call_target);
    SAME_SLICE("op_name", ha.op_name, hb.op_name);
    SAME_SLICE("backend_config", ha.backend_config, hb.backend_config);
    SAME("source file", ha.source_file, hb.source_file);
    SAME("source ref", ha.source_ref, hb.source_ref);
  }
  for (uint32_t i = 0; i < a->n_operands; i++) SAME("operand", a->operands[i].target, b->operands[i].target);
  for (uint32_t i = 0; i < a->n_calls; i++) {
    const hs_call *x = &a->calls[i], *y = &b->calls[i];
    SAME_SLICE("call name", x->name, y->name);
    SAME("call target", x->target, y->target);
    SAME("call instruction", x->instr, y->instr);
    SAME("call attr", x->attr, y->attr);
    SAME("call by fusion", x->by_fusion, y->by_fusion);
    SAME("call by call", x->by_call, y->by_call);
  }
  for (uint32_t i = 0; i < a->n_modules; i++) {
    const hs_module *x = &a->modules[i], *y = &b->modules[i];
    SAME_SLICE("module name", x->name, y->name);
    SAME("module line", x->line, y->line);
    SAME("module off", x->off, y->off);
    SAME("module first", x->first_comp, y->first_comp);
    SAME("module count", x->comp_count, y->comp_count);
    SAME("module first call", x->first_call, y->first_call);
    SAME("module entry", x->entry, y->entry);
    SAME("module resolved", x->resolved, y->resolved);
  }
  for (uint32_t i = 0; i < a->n_frames; i++) {
    const hs_frame_row *x = &a->frames[i], *y = &b->frames[i];
    SAME("frame module", x->module, y->module);
    SAME("frame id", x->id, y->id);
    SAME("frame table", x->table, y->table);
    SAME("frame row", memcmp(&x->loc, &y->loc, sizeof x->loc), 0);
  }
  for (uint32_t i = 0; i < a->n_source_files; i++) SAME_SLICE("source file name", a->source_files[i], b->source_files[i]);
  for (uint32_t i = 0; i < a->n_warnings; i++) {
    const hs_warning *x = &a->warnings[i], *y = &b->warnings[i];
    SAME("warning code", x->code, y->code);
    SAME("warning line", x->line, y->line);
    SAME("warning column", x->col, y->col);
    SAME("warning message", strcmp(x->message, y->message), 0);
  }
  SAME("stack frames", a->stack_frames, b->stack_frames);
  SAME("frame refs", a->frame_refs, b->frame_refs);
  SAME("dangling", a->frame_refs_dangling, b->frame_refs_dangling);
  SAME("first dangling", a->first_dangling_line, b->first_dangling_line);
  SAME("fusions counted", a->fusions_counted, b->fusions_counted);
  SAME("unresolved operands", a->unresolved.ops, b->unresolved.ops);
  SAME("unresolved calls", a->unresolved.calls, b->unresolved.calls);
  SAME("first unresolved operand", a->unresolved.first_op_line, b->unresolved.first_op_line);
  SAME("first unresolved call", a->unresolved.first_call_line, b->unresolved.first_call_line);
  return true;
}

/* The text read whole, then cut at its "HloModule" lines (every one when there are few, else
 * about max_cuts spread over the text): the same document, or the same error. Returns the cuts
 * read in two parts. */
static bool is_cut(const char *t, size_t len, size_t p) { return t[p - 1] == '\n' && len - p > 9 && memcmp(t + p, "HloModule", 9) == 0; }

static size_t check_text(const char *what, const char *t, size_t len, size_t max_cuts) {
  hs_error ew = {0};
  hs_doc *whole = hs_parse_as(t, len, HS_FORMAT_HLO, &ew);
  size_t cuts = 0, split = 0, k = 0;
  for (size_t p = 1; p < len; p++) cuts += is_cut(t, len, p);
  size_t every = cuts > max_cuts ? cuts / max_cuts : 1;
  int before = failures;
  for (size_t cut = 1; cut < len; cut++) {
    if (!is_cut(t, len, cut) || k++ % every) continue;
    hs_error es = {0};
    bool done = false;
    hs_doc *two = hs_parse_hlo_split(t, len, cut, &done, &es);
    if (!done) continue; /* read whole by hs_parse_as: the document above */
    split++;
    if (whole && two) {
      if (!same_doc(whole, two, cut)) printf("  %s: the document differs at cut %zu\n", what, cut);
    } else if (!whole != !two || ew.code != es.code || strcmp(ew.message, es.message) != 0 || ew.line != es.line || ew.col != es.col) {
      if (failures++ < 20)
        printf("  %s: cut %zu: one reader %s, two %s\n", what, cut, whole ? "read it" : ew.message, two ? "read it" : es.message);
    }
    hs_doc_free(two);
  }
  hs_doc_free(whole);
  if (failures > before) printf("%s: %d differences\n", what, failures - before);
  return split;
}

/* ---- texts ---------------------------------------------------------------------------------- */
typedef struct {
  char *s;
  size_t n, cap;
} buf;

static void put(buf *b, const char *s, size_t n) {
  if (b->n + n + 1 > b->cap) {
    b->cap = (b->n + n + 1) * 2;
    b->s = realloc(b->s, b->cap);
    assert_non_null(b->s);
  }
  memcpy(b->s + b->n, s, n);
  b->n += n;
  b->s[b->n] = 0;
}

/* the file's bytes appended when it is an HLO text (starts with "HloModule", blank lines aside), a line break after */
static bool put_file(buf *b, const char *path) {
  size_t n = 0;
  char *s = tu_read(path, &n);
  size_t k = 0;
  while (s && k < n && (s[k] == '\n' || s[k] == ' ')) k++;
  bool hlo = s && n - k > 9 && memcmp(s + k, "HloModule", 9) == 0;
  if (hlo) {
    put(b, s, n);
    if (s[n - 1] != '\n') put(b, "\n", 1);
  }
  free(s);
  return hlo;
}

static void put_before(const char *path, void *ctx) { put_file(ctx, path); }

static void put_fixture(const char *dir, void *ctx) {
  buf *b = ctx;
  char path[2048];
  snprintf(path, sizeof path, "%s/after_optimizations.txt", dir);
  put_file(&b[0], path);
  snprintf(path, sizeof path, "%s/dump", dir);
  tu_each_file(path, "before_optimizations.txt", put_before, &b[1]);
}

/* every committed fixture's optimized module one after another; their unoptimized modules (frame
   tables on jax 0.12) the same */
static void test_fixtures(void **state) {
  (void)state;
  buf b[2] = {{0}, {0}};
  size_t dirs = tu_each_fixture_in("", 0, put_fixture, b);
  assert_true(dirs > 10);
  size_t split = check_text("optimized fixtures", b[0].s, b[0].n, 60) + check_text("unoptimized fixtures", b[1].s, b[1].n, 60);
  printf("fixtures: %zu folders, %zu and %zu bytes, %zu cuts read in two parts\n", dirs, b[0].n, b[1].n, split);
  assert_true(split > 60);
  free(b[0].s);
  free(b[1].s);
  assert_int_equal(failures, 0);
}

/* each case of tests/cases whose input is an HLO text (errors, truncations, odd printers) between
   two fixture modules, and after them (a cut text ends the whole) */
typedef struct {
  buf m;
  size_t texts, split;
} cases_ctx;

static void check_case(const char *dir, void *ctx) {
  cases_ctx *c = ctx;
  static const char *const names[] = {"input.txt", "input.hlo"};
  for (int k = 0; k < 2; k++) {
    buf x = {0}, t = {0};
    char path[8300];
    snprintf(path, sizeof path, "%s/%s", dir, names[k]);
    if (put_file(&x, path)) {
      c->texts++;
      put(&t, c->m.s, c->m.n);
      put(&t, x.s, x.n);
      c->split += check_text(dir, t.s, t.n, 20);
      put(&t, c->m.s, c->m.n);
      c->split += check_text(dir, t.s, t.n, 20);
    }
    free(x.s);
    free(t.s);
  }
}

static void test_cases(void **state) {
  (void)state;
  cases_ctx c = {{0}, 0, 0};
  char path[2048];
  snprintf(path, sizeof path, "%s/fixtures/cpu-jax-0.12.0.1/attention/after_optimizations.txt", HS_SOURCE_DIR);
  assert_true(put_file(&c.m, path));
  snprintf(path, sizeof path, "%s/fixtures/cpu-jax-0.4.38/chain/after_optimizations.txt", HS_SOURCE_DIR);
  assert_true(put_file(&c.m, path));
  snprintf(path, sizeof path, "%s/tests/cases", HS_SOURCE_DIR);
  assert_true(tu_each_file(path, "", check_case, &c) > 20);
  free(c.m.s);
  printf("cases: %zu HLO inputs, %zu cuts read in two parts\n", c.texts, c.split);
  assert_true(c.texts > 20);
  assert_int_equal(failures, 0);
}

/* modules that each warn (a line skipped outside computations: past the 20 listed per code within
   either part or across the cut), name source files (some in both parts, some in one), and refer to
   stack frames no table has (the whole text's one warning, at the first reference) */
static void test_warnings_files(void **state) {
  (void)state;
  buf t = {0};
  char s[1024];
  for (int i = 0; i < 48; i++) {
    int n = snprintf(s, sizeof s,
                     "HloModule m%d\n\nstray text %d\n\nENTRY main.%d {\n"
                     "  p = f32[4]{0} parameter(0), metadata={op_name=\"jit(f)/p\" source_file=\"/src/f%d.py\" source_line=%d}\n"
                     "  n = f32[4]{0} negate(%s), metadata={op_name=\"jit(f)/neg\" source_file=\"/src/g%d.py\" source_line=3}\n"
                     "  ROOT a = f32[4]{0} add(n, p), metadata={op_name=\"jit(f)/add\" stack_frame_id=%d}\n}\n\n",
                     i, i, i, i % 7, i + 1, i % 9 == 4 ? "q" : "p", i < 24 ? i % 3 : 10 + i % 11, i % 5 == 2 ? 7 : 0);
    put(&t, s, (size_t)n);
  }
  hs_error err = {0};
  hs_doc *d = hs_parse_as(t.s, t.n, HS_FORMAT_HLO, &err);
  assert_non_null(d);
  assert_true(d->n_source_files == 21 && d->n_warnings > 20 && d->unresolved.ops == 5);
  assert_true(strstr(d->warnings[d->n_warnings - 1].message, "more warnings like") != NULL);
  hs_doc_free(d);
  size_t split = check_text("warning modules", t.s, t.n, 100);
  assert_int_equal(split, 47);
  free(t.s);
  assert_int_equal(failures, 0);
}

/* the shared GPU and TPU captures' HLO texts (each file that starts with "HloModule") one after another (other people's data, read in place) */
typedef struct {
  buf t;
  size_t files;
} shared_ctx;

static void put_capture(const char *path, void *ctx) {
  shared_ctx *c = ctx;
  if (put_file(&c->t, path)) c->files++;
}

static void put_captures(const char *dir, void *ctx) {
  char d[2048]; /* a captures folder: a short path (the files' paths are made from it) */
  if ((size_t)snprintf(d, sizeof d, "%s", dir) < sizeof d) tu_each_file(d, "", put_capture, ctx);
}

static void test_shared(void **state) {
  (void)state;
  shared_ctx c = {{0}, 0};
  if (tu_each_shared("captures", "", put_captures, &c) < 0) skip();
  size_t split = c.t.n ? check_text("shared captures", c.t.s, c.t.n, 80) : 0;
  printf("shared captures: %zu HLO texts, %zu bytes, %zu cuts read in two parts\n", c.files, c.t.n, split);
  free(c.t.s);
  assert_true(c.files > 3);
  assert_int_equal(failures, 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_fixtures),
      cmocka_unit_test(test_cases),
      cmocka_unit_test(test_warnings_files),
      cmocka_unit_test(test_shared),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
