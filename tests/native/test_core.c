/* Native tests of the core: the published figures on the TPU captures (read in place from
 * ../shared), and the public counting functions against the JSON on every case input.
 *
 * The printer-era samples, StableHLO forms, error positions and the GELU / softmax facts are
 * case folders (tests/cases/<case>/{input.*, expect}, run by test_cases.c and
 * tests/node/cases.test.mjs).
 *
 * Where expected values come from:
 *  - TPU captures: the course's published x-ray figures ("21 lines in -> 31 lines decided ·
 *    3 fusion ops · 3 carry bf16[1024,1024]") and DESIGN.md's hand-checked facts (GELU: no
 *    intermediate crosses a kernel, the f32[256,2048] GELU is kept off memory; softmax:
 *    bf16[1024]).
 *  - case inputs: counted by hand from the text (tests/cases/README.md). */
#define _DEFAULT_SOURCE
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "testutil.h"

typedef struct {
  char *text;
  size_t len;
  hs_doc *doc;
} parsed;

static int parse_capture(parsed *p, const char *name) {
  const char *dir = tu_captures();
  if (!dir) return 0;
  char path[2048];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  p->text = tu_read(path, &p->len);
  assert_non_null(p->text);
  hs_error err;
  p->doc = hs_parse(p->text, p->len, &err);
  if (!p->doc) fail_msg("%s:%u:%u: %s", name, err.line, err.col, err.message);
  return 1;
}

static void done(parsed *p) {
  hs_doc_free(p->doc);
  free(p->text);
}

#define NEED_CAPTURES() TU_SKIP_UNLESS(tu_captures(), "captures/tpu-v6e")

static void attention_census(const char *file, int warnings) {
  parsed p;
  parse_capture(&p, file);
  hs_census c;
  assert_int_equal(hs_fusion_census(p.doc, &c), 0);
  assert_int_equal(c.fusion_computations, 3);
  assert_int_equal(c.fusion_ops, 3);
  assert_int_equal(c.fusion_ops_nested, 2);
  assert_int_equal(hs_doc_warning_count(p.doc), warnings);
  json_t *f = tu_json(hs_fusions_json(p.doc, NULL));
  json_t *fs = json_object_get(f, "fusions");
  assert_int_equal(json_array_size(fs), 3);
  /* the one top-level fusion is the kOutput, the two nested ones kLoop bitcast fusions */
  int top = 0, loops = 0;
  size_t i;
  json_t *x;
  json_array_foreach(fs, i, x) {
    const char *kind = json_string_value(json_object_get(x, "kind"));
    if (!json_is_true(json_object_get(x, "nested"))) {
      top++;
      assert_string_equal(kind, "kOutput");
      assert_string_equal(json_string_value(json_object_get(x, "type")), "bf16[1024,1024]");
      assert_int_equal(json_integer_value(json_object_get(x, "memory_space")), 1);
    } else {
      loops += strcmp(kind, "kLoop") == 0;
      json_t *ops = json_object_get(x, "ops");
      assert_int_equal(json_array_size(ops), 1);
      assert_string_equal(json_string_value(json_array_get(ops, 0)), "bitcast");
    }
  }
  assert_int_equal(top, 1);
  assert_int_equal(loops, 2);
  json_decref(f);
  json_t *s = tu_json(hs_spills_json(p.doc, NULL));
  json_t *big = tu_path(s, "big");
  assert_string_equal(json_string_value(json_object_get(big, "type")), "bf16[1024,1024]");
  assert_int_equal(json_integer_value(json_object_get(big, "bytes")), 2097152);
  assert_int_equal(json_integer_value(json_object_get(big, "memory_space")), 1);
  assert_int_equal(json_array_size(json_object_get(s, "carriers")), 3);
  assert_int_equal(json_integer_value(json_object_get(s, "spill_bytes")), 0); /* on chip: no spill */
  json_array_foreach(json_object_get(s, "carriers"), i, x) assert_false(json_is_true(json_object_get(x, "spill")));
  json_decref(s);
  done(&p);
}

static void test_attention_trimmed(void **state) {
  (void)state;
  NEED_CAPTURES();
  /* trimmed: one summarising warning about the missing frame tables, not one per line */
  attention_census("jit_naive_attention.after_optimizations.trimmed.txt", 1);
  parsed p;
  parse_capture(&p, "jit_naive_attention.after_optimizations.trimmed.txt");
  json_t *s = tu_json(hs_summary_json(p.doc, NULL));
  assert_int_equal(json_integer_value(json_object_get(s, "lines")), 31);
  json_t *w = tu_path(s, "warnings/0");
  assert_string_equal(json_string_value(json_object_get(w, "code")), "HS_W_FRAME_TABLES_MISSING");
  json_decref(s);
  done(&p);
}

/* An instruction refers to a stack frame once, however its metadata is read: the second one's
 * metadata is one XLA refuses ("bad" has no value), read a second time to say where. */
static void test_frame_refs_once(void **state) {
  (void)state;
  const char *t = "HloModule m\n\nENTRY e {\n  a = f32[] parameter(0), metadata={stack_frame_id=1}\n"
                  "  ROOT b = f32[] negate(a), metadata={stack_frame_id=2 bad}\n}\n";
  hs_error err;
  hs_doc *d = hs_parse(t, strlen(t), &err);
  assert_non_null(d);
  json_t *s = tu_json(hs_summary_json(d, NULL));
  hs_doc_free(d);
  size_t i;
  json_t *w;
  int seen = 0;
  json_array_foreach(json_object_get(s, "warnings"), i, w) {
    if (strcmp(json_string_value(json_object_get(w, "code")), "HS_W_FRAME_TABLES_MISSING") != 0) continue;
    assert_non_null(strstr(json_string_value(json_object_get(w, "message")), "2 instructions refer to stack frames"));
    seen++;
  }
  assert_int_equal(seen, 1);
  json_decref(s);
}

static void test_attention_frame_tables(void **state) {
  (void)state;
  NEED_CAPTURES();
  attention_census("jit_naive_attention.after_optimizations.with_frame_tables.txt", 0);
}

static void test_attention_xray(void **state) {
  (void)state;
  NEED_CAPTURES();
  parsed l, r;
  parse_capture(&l, "jit_naive_attention.stablehlo.mlir");
  parse_capture(&r, "jit_naive_attention.after_optimizations.trimmed.txt");
  json_t *x = tu_json(hs_xray_json(l.doc, r.doc, NULL));
  json_t *s = json_object_get(x, "summary");
  assert_int_equal(json_integer_value(json_object_get(s, "lines_in")), 21);
  assert_int_equal(json_integer_value(json_object_get(s, "lines_out")), 31);
  assert_int_equal(json_integer_value(json_object_get(s, "fusion_ops")), 3);
  assert_int_equal(json_integer_value(json_object_get(s, "carry")), 3);
  assert_string_equal(json_string_value(json_object_get(s, "stat")),
                      "21 lines in -> 31 lines decided \xC2\xB7 3 fusion ops \xC2\xB7 3 carry bf16[1024,1024]");
  /* one explanation for every line on both sides */
  assert_int_equal(json_array_size(json_object_get(x, "left")), 21);
  assert_int_equal(json_array_size(json_object_get(x, "right")), 31);
  const char *sides[] = {"left", "right"};
  for (int k = 0; k < 2; k++) {
    size_t i;
    json_t *line;
    json_array_foreach(json_object_get(x, sides[k]), i, line) {
      assert_true(strlen(json_string_value(json_object_get(line, "note"))) > 5);
    }
  }
  /* the fusion ops that carry T: exactly the kOutput fusion (line 28) */
  size_t i;
  json_t *line;
  int fusion_carriers = 0;
  json_array_foreach(json_object_get(x, "right"), i, line) {
    if (strcmp(json_string_value(json_object_get(line, "class")), "fusion") == 0 &&
        json_is_true(json_object_get(line, "carries"))) {
      fusion_carriers++;
      assert_int_equal(json_integer_value(json_object_get(line, "line")), 28);
    }
  }
  assert_int_equal(fusion_carriers, 1);
  json_decref(x);
  done(&l);
  done(&r);
}

static void test_every_capture_parses(void **state) {
  (void)state;
  NEED_CAPTURES();
  const char *files[] = {
      "jit_gelu_mlp.after_optimizations.trimmed.txt",        "jit_gelu_mlp.after_optimizations.with_frame_tables.txt",
      "jit_gelu_mlp.stablehlo.mlir",                         "jit_naive_attention.after_optimizations.trimmed.txt",
      "jit_naive_attention.after_optimizations.with_frame_tables.txt", "jit_naive_attention.stablehlo.mlir",
      "jit_row_softmax.after_optimizations.trimmed.txt",     "jit_row_softmax.after_optimizations.with_frame_tables.txt",
      "jit_row_softmax.stablehlo.mlir"};
  for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
    parsed p;
    parse_capture(&p, files[i]);
    /* the three with frame tables and the StableHLO parse with no warnings; trimmed with one */
    size_t want = strstr(files[i], "trimmed") ? 1 : 0;
    if (hs_doc_warning_count(p.doc) != want) fail_msg("%s: %zu warnings", files[i], hs_doc_warning_count(p.doc));
    done(&p);
  }
}

/* ---- the C accessors over the case inputs -------------------------------------------------
 * The printer-era samples, the StableHLO forms and the error inputs are case folders now
 * (tests/cases, one ctest each). Here the public counting functions must agree with the JSON
 * those cases check, on every case input that parses. */
static void accessors_agree(const char *dir, void *ctx) {
  size_t *n = ctx;
  char path[4096];
  const char *names[] = {"input.txt", "input.mlir"};
  for (int k = 0; k < 2; k++) {
    snprintf(path, sizeof path, "%s/%s", dir, names[k]);
    size_t len;
    char *text = tu_read(path, &len);
    if (!text) continue;
    hs_doc *d = hs_parse(text, len, NULL);
    if (d) {
      json_t *s = tu_json(hs_summary_json(d, NULL));
      assert_int_equal(hs_doc_line_count(d), json_integer_value(tu_path(s, "lines")));
      assert_int_equal(hs_doc_computation_count(d), json_integer_value(tu_path(s, "computations")));
      assert_int_equal(hs_doc_instruction_count(d), json_integer_value(tu_path(s, "instructions")));
      assert_int_equal(hs_doc_warning_count(d), json_array_size(tu_path(s, "warnings")));
      assert_string_equal(hs_format_name(hs_doc_format(d)), json_string_value(tu_path(s, "format")));
      hs_census c;
      if (hs_fusion_census(d, &c) == 0) {
        json_t *f = tu_json(hs_fusions_json(d, NULL));
        assert_int_equal(c.fusion_computations, json_integer_value(tu_path(f, "fusion_computations")));
        assert_int_equal(c.fusion_ops, json_integer_value(tu_path(f, "fusion_ops")));
        assert_int_equal(c.fusion_ops_nested, json_integer_value(tu_path(f, "fusion_ops_nested")));
        /* a bounded list: its first rows are the full list's, and it says how many there are */
        size_t all = json_array_size(tu_path(f, "fusions"));
        assert_int_equal(all, c.fusion_ops);
        json_t *b = tu_json(hs_fusions_json_rows(d, 3, NULL));
        assert_int_equal(all, json_integer_value(tu_path(b, "fusions_total")));
        assert_int_equal(all < 3 ? all : 3, json_array_size(tu_path(b, "fusions")));
        for (size_t r = 0; r < json_array_size(tu_path(b, "fusions")); r++)
          assert_true(json_equal(json_array_get(tu_path(b, "fusions"), r), json_array_get(tu_path(f, "fusions"), r)));
        assert_null(json_object_get(f, "fusions_total"));
        json_decref(b);
        json_decref(f);
      }
      json_decref(s);
      hs_doc_free(d);
      (*n)++;
    }
    free(text);
  }
}

static void test_accessors_agree_with_json(void **state) {
  (void)state;
  char root[1024];
  snprintf(root, sizeof root, "%s/tests/cases", HS_SOURCE_DIR);
  struct dirent **cases = NULL;
  int nc = scandir(root, &cases, NULL, alphasort);
  assert_true(nc > 0);
  size_t docs = 0;
  for (int i = 0; i < nc; i++) {
    if (cases[i]->d_name[0] != '.') {
      char dir[2048];
      snprintf(dir, sizeof dir, "%s/%s", root, cases[i]->d_name);
      accessors_agree(dir, &docs);
    }
    free(cases[i]);
  }
  free(cases);
  assert_true(docs >= 7);
}

/* A computation of n instructions in an entry %main, instruction i on line 7 + i: %v.i = add(%v.(i-1),
 * %v.(i/2)), but for %v.2, whose second operand names %v.(n-1), defined further down; %v.3, whose
 * names %o1, an instruction of another computation (XLA refuses it); and two names twice in
 * %main (XLA refuses each): instruction n-3 is named %v.1 again, n-2 is named %v.(n-4) again. So
 * %v.(n-3) and %v.(n-2) are never defined, and the operands naming them name nothing. */
static char *scope_text(int n, size_t *len) {
  size_t cap = (size_t)n * 64 + 256, at = 0;
  char *t = malloc(cap);
  assert_non_null(t);
  at += (size_t)snprintf(t + at, cap - at,
                         "HloModule m\n%%other (x: f32[]) -> f32[] {\n  %%x = f32[] parameter(0)\n  ROOT %%o1 = f32[] negate(%%x)\n}\n"
                         "ENTRY %%main (a: f32[]) -> f32[] {\n  %%v.0 = f32[] parameter(0)\n");
  for (int i = 1; i < n; i++) {
    int name = i == n - 3 ? 1 : i == n - 2 ? n - 4 : i;
    char second[32];
    if (i == 2) snprintf(second, sizeof second, "v.%d", n - 1);
    else if (i == 3) snprintf(second, sizeof second, "o1");
    else snprintf(second, sizeof second, "v.%d", i / 2);
    at += (size_t)snprintf(t + at, cap - at, "  %s%%v.%d = f32[] add(%%v.%d, %%%s)\n", i == n - 1 ? "ROOT " : "", name, i - 1, second);
  }
  at += (size_t)snprintf(t + at, cap - at, "}\n");
  *len = at;
  return t;
}

/* The reader keeps a computation's first 8192 names in a small table and looks operands up as it
 * reads them; past that it takes the rest at the computation's close, in batches (hlo_scope.c).
 * Both ways give the same reading: the same duplicates at the same lines and columns, the same
 * operands that name nothing, the forward name resolved. */
static void test_names_small_and_big_computation(void **state) {
  (void)state;
  const int sizes[] = {100, 20000};
  for (int k = 0; k < 2; k++) {
    int n = sizes[k];
    size_t len;
    char *t = scope_text(n, &len);
    hs_error err;
    hs_doc *d = hs_parse(t, len, &err);
    if (!d) fail_msg("n=%d: %u:%u: %s", n, err.line, err.col, err.message);
    json_t *j = tu_json(hs_summary_json(d, NULL));
    assert_non_null(j);
    assert_int_equal(json_array_size(tu_path(j, "warnings")), 4);
    char want[160];
    /* the duplicates: line, column of the name (after '%'), and the first definition's line */
    const int again[2] = {n - 3, n - 2}, first[2] = {1, n - 4};
    for (int w = 0; w < 2; w++) {
      char path[64];
      snprintf(path, sizeof path, "warnings/%d/line", w);
      assert_int_equal(json_integer_value(tu_path(j, path)), 7 + again[w]);
      snprintf(path, sizeof path, "warnings/%d/column", w);
      assert_int_equal(json_integer_value(tu_path(j, path)), 4);
      snprintf(path, sizeof path, "warnings/%d/message", w);
      snprintf(want, sizeof want, "is defined twice in computation main (lines %d and %d)", 7 + first[w], 7 + again[w]);
      assert_non_null(strstr(json_string_value(tu_path(j, path)), want));
    }
    /* %v.(n-1), named (line 9) before it is defined, resolves, with the warning XLA's parser gives
       cause for (it reads a computation in order); then %o1 (line 10), %v.(n-3) and %v.(n-2): three
       operands that name nothing */
    snprintf(want, sizeof want, "v.%d: an operand defined after the instruction that uses it", n - 1);
    assert_non_null(strstr(json_string_value(tu_path(j, "warnings/2/message")), want));
    assert_int_equal(json_integer_value(tu_path(j, "warnings/2/line")), 9);
    assert_int_equal(json_integer_value(tu_path(j, "warnings/2/column")), 27);
    assert_string_equal(json_string_value(tu_path(j, "warnings/3/code")), "HS_W_UNRESOLVED_OPERAND");
    assert_int_equal(json_integer_value(tu_path(j, "warnings/3/line")), 10);
    assert_non_null(strstr(json_string_value(tu_path(j, "warnings/3/message")), "3 operands name no instruction"));
    json_decref(j);
    hs_doc_free(d);
    free(t);
  }
}

/* An operand naming the instruction just before it is taken without a lookup, past the small
 * table too; when that instruction's name was defined before, the operand names the first
 * definition (as XLA's parser would), in a small and in a big computation alike: here the
 * convert reads the bf16 h, not the s32 one written just before it. */
static void test_operand_names_first_of_twice(void **state) {
  (void)state;
  const int sizes[] = {100, 20000};
  for (int k = 0; k < 2; k++) {
    int n = sizes[k];
    size_t cap = (size_t)n * 48 + 512, at = 0;
    char *t = malloc(cap);
    assert_non_null(t);
    at += (size_t)snprintf(t + at, cap - at, "HloModule m\n\nENTRY %%main (p: f32[]) -> f32[] {\n  %%p = f32[] parameter(0)\n"
                                             "  %%h = bf16[] convert(%%p)\n");
    for (int i = 0; i < n; i++) at += (size_t)snprintf(t + at, cap - at, "  %%a.%d = f32[] add(%%p, %%p)\n", i);
    at += (size_t)snprintf(t + at, cap - at, "  %%h = s32[] constant(1)\n  %%c = f32[] convert(%%h)\n  ROOT %%r = f32[] add(%%c, %%p)\n}\n");
    hs_error err;
    hs_doc *d = hs_parse(t, at, &err);
    if (!d) fail_msg("n=%d: %u:%u: %s", n, err.line, err.col, err.message);
    json_t *j = tu_json(hs_decisions_json(d, NULL));
    assert_non_null(j);
    assert_string_equal(json_string_value(tu_path(j, "decisions/1/name")), "c");
    assert_string_equal(json_string_value(tu_path(j, "decisions/1/from")), "bf16");
    assert_int_equal(json_integer_value(tu_path(j, "decisions/1/line")), n + 7);
    assert_non_null(strstr(json_string_value(tu_path(j, "warnings/0/message")), "instruction h is defined twice"));
    json_decref(j);
    hs_doc_free(d);
    free(t);
  }
}

/* An instruction's HLO side is kept in 8 bytes (doc.h); what does not fit goes to a side table:
 * an op_name 70,000 bytes after the instruction's name (a long attribute before the metadata)
 * and a source line past 2^20. The remat decision reads the op_name, and its source is printed:
 * both must come back whole, and a text cut inside that metadata keeps the op_name read. The
 * expected values are the text's own. */
/* head, n bytes of fill, tail: a text too big to write out (malloc'd) */
static char *padded(const char *head, char fill, size_t n, const char *tail) {
  size_t hn = strlen(head), tn = strlen(tail);
  char *t = malloc(hn + n + tn + 1);
  assert_non_null(t);
  memcpy(t, head, hn);
  memset(t + hn, fill, n);
  memcpy(t + hn + n, tail, tn + 1);
  return t;
}

static void test_hlo_side_wide(void **state) {
  (void)state;
  const char *head = "HloModule m\n\nENTRY e {\n  a = f32[4] parameter(0)\n"
                     "  c = f32[4] negate(a), metadata={op_name=\"jit(f)/checkpoint/rematted_computation/neg\" source_file=\"/x/y.py\" source_line=7}\n"
                     "  ROOT b = f32[4] add(c, a), frontend_attributes={k=\"";
  const char *tail = "\"}, metadata={op_name=\"jit(f)/checkpoint/rematted_computation/add\" source_file=\"/x/y.py\" source_line=2000000}\n}\n";
  char *t = padded(head, 'x', 70000, tail);
  const size_t cut = (size_t)(strstr(t, "source_line=2000000") - t);
  for (int pass = 0; pass < 2; pass++) {
    hs_doc *d = hs_parse(t, pass ? cut : strlen(t), NULL);
    assert_non_null(d);
    json_t *j = tu_json(hs_decisions_json(d, NULL));
    hs_doc_free(d);
    size_t i;
    json_t *x;
    int remat = 0;
    json_array_foreach(json_object_get(j, "decisions"), i, x) {
      if (strcmp(json_string_value(json_object_get(x, "kind")), "remat") != 0) continue;
      const char *name = json_string_value(json_object_get(x, "name"));
      const char *src = json_string_value(json_object_get(x, "source"));
      const char *detail = json_string_value(json_object_get(x, "detail"));
      if (strcmp(name, "b") == 0) {
        assert_non_null(strstr(detail, "\"jit(f)/checkpoint/rematted_computation/add\""));
        if (pass) assert_null(src); /* cut before its source_line */
        else assert_string_equal(src, "/x/y.py:2000000");
      } else {
        assert_string_equal(name, "c");
        assert_string_equal(src, "/x/y.py:7");
      }
      remat++;
    }
    assert_int_equal(remat, 2);
    json_decref(j);
  }
  free(t);
}

/* The instruction record keeps an opcode as its place after the name (under 16 MB) and its
 * length (under 255 bytes); one farther or longer is a side row (doc.h: hs_instr.opc). Both come
 * back whole: a fusion 17 MB after its name (a comment between) is counted and makes the text a
 * pass step, a 300-byte opcode is named whole in its warning. */
static void test_instr_wide_opcode(void **state) {
  (void)state;
  const char *head = "HloModule m\n\nfc {\n  p = f32[4] parameter(0)\n  ROOT n = f32[4] negate(p)\n}\n\n"
                     "ENTRY e {\n  a = f32[4] parameter(0)\n  ROOT f = f32[4] /*";
  char *t = padded(head, 'x', (size_t)17 << 20, "*/ fusion(a), kind=kLoop, calls=fc\n}\n");
  hs_doc *d = hs_parse(t, strlen(t), NULL);
  assert_non_null(d);
  hs_census c;
  assert_int_equal(hs_fusion_census(d, &c), 0);
  assert_int_equal(c.fusion_ops, 1);
  json_t *s = tu_json(hs_summary_json(d, NULL));
  assert_string_equal(json_string_value(json_object_get(s, "stage")), "pass_step");
  json_decref(s);
  hs_doc_free(d);
  free(t);

  char op[301], text[512];
  memset(op, 'q', 300);
  op[300] = 0;
  snprintf(text, sizeof text, "HloModule m\n\nENTRY e {\n  a = f32[4] parameter(0)\n  ROOT f = f32[4] %s(a)\n}\n", op);
  d = hs_parse(text, strlen(text), NULL);
  assert_non_null(d);
  s = tu_json(hs_summary_json(d, NULL));
  json_t *w = json_array_get(json_object_get(s, "warnings"), 0);
  assert_non_null(w);
  char want[320];
  snprintf(want, sizeof want, "'%s'", op);
  assert_non_null(strstr(json_string_value(json_object_get(w, "message")), want));
  json_decref(s);
  hs_doc_free(d);
}

static void test_errors_have_positions(void **state) {
  (void)state;
  /* the error inputs are case folders (tests/cases/err-*); this one cannot be a file */
  assert_null(hs_parse(NULL, 0, NULL)); /* err may be NULL */
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_attention_trimmed), cmocka_unit_test(test_frame_refs_once),
      cmocka_unit_test(test_attention_frame_tables),
      cmocka_unit_test(test_attention_xray),
      cmocka_unit_test(test_every_capture_parses),
      cmocka_unit_test(test_accessors_agree_with_json),
      cmocka_unit_test(test_errors_have_positions),
      cmocka_unit_test(test_names_small_and_big_computation),
      cmocka_unit_test(test_operand_names_first_of_twice),
      cmocka_unit_test(test_hlo_side_wide),
      cmocka_unit_test(test_instr_wide_opcode),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
