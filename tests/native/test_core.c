/* Native tests of the core: the published figures on the TPU captures (read in place from
 * ../shared), every printer era of FORMATS.md on small inline dumps, StableHLO forms, errors.
 *
 * Where expected values come from:
 *  - TPU captures: the course's published x-ray figures ("21 lines in -> 31 lines decided ·
 *    3 fusion ops · 3 carry bf16[1024,1024]") and DESIGN.md's hand-checked facts (GELU: no
 *    intermediate crosses a kernel, the f32[256,2048] GELU is kept off memory; softmax:
 *    bf16[1024]).
 *  - inline dumps: counted by hand from the text written beside each assertion. */
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

#define NEED_CAPTURES()                                                                     \
  do {                                                                                      \
    if (!tu_captures()) {                                                                   \
      print_message("SKIPPED: ../shared/captures is absent (other people's data, read in place)\n"); \
      skip();                                                                               \
    }                                                                                       \
  } while (0)

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
  json_t *big = json_object_get(s, "big");
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
  json_t *w = json_array_get(json_object_get(s, "warnings"), 0);
  assert_string_equal(json_string_value(json_object_get(w, "code")), "HS_W_FRAME_TABLES_MISSING");
  json_decref(s);
  done(&p);
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

static void test_gelu_and_softmax(void **state) {
  (void)state;
  NEED_CAPTURES();
  parsed g;
  parse_capture(&g, "jit_gelu_mlp.after_optimizations.with_frame_tables.txt");
  json_t *s = tu_json(hs_spills_json(g.doc, NULL));
  assert_true(json_is_null(json_object_get(s, "big")));
  assert_string_equal(json_string_value(json_object_get(json_object_get(s, "kept_off_memory"), "type")), "f32[256,2048]");
  json_decref(s);
  done(&g);
  parsed m;
  parse_capture(&m, "jit_row_softmax.after_optimizations.trimmed.txt");
  s = tu_json(hs_spills_json(m.doc, NULL));
  assert_string_equal(json_string_value(json_object_get(json_object_get(s, "big"), "type")), "bf16[1024]");
  json_decref(s);
  done(&m);
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

/* ---- printer eras on small inline dumps ---------------------------------------------- */
static hs_doc *parse_ok(const char *text) {
  hs_error err;
  hs_doc *d = hs_parse(text, strlen(text), &err);
  if (!d) fail_msg("%u:%u: %s", err.line, err.col, err.message);
  return d;
}

static json_t *comps_of(hs_doc *d) { return json_object_get(json_array_get(json_object_get(tu_json(hs_computations_json(d, NULL)), "modules"), 0), "computations"); }

static void test_long_form_with_operand_shapes(void **state) {
  (void)state;
  /* to 2022-03: %names, signatures, operand shapes */
  const char *t =
      "HloModule jit_f, entry_computation_layout={(f32[128]{0})->f32[128]{0}}\n"
      "\n"
      "%fused_computation (param_0.1: f32[128]) -> f32[128] {\n"
      "  %param_0.1 = f32[128]{0} parameter(0)\n"
      "  %exponential.0 = f32[128]{0} exponential(f32[128]{0} %param_0.1)\n"
      "  ROOT %tanh.0 = f32[128]{0} tanh(f32[128]{0} %exponential.0)\n"
      "}\n"
      "\n"
      "ENTRY %main.4 (Arg_0.1: f32[128]) -> f32[128] {\n"
      "  %Arg_0.1 = f32[128]{0} parameter(0), metadata={op_name=\"x\"}\n"
      "  ROOT %fusion = f32[128]{0} fusion(f32[128]{0} %Arg_0.1), kind=kLoop, calls=%fused_computation, "
      "metadata={op_type=\"tanh\" op_name=\"jit(f)/tanh\" source_file=\"a.py\" source_line=3}\n"
      "}\n";
  hs_doc *d = parse_ok(t);
  hs_census c;
  hs_fusion_census(d, &c);
  assert_int_equal(c.fusion_computations, 1);
  assert_int_equal(c.fusion_ops, 1);
  assert_int_equal(hs_doc_line_count(d), 12);
  assert_int_equal(hs_doc_warning_count(d), 0);
  json_t *f = tu_json(hs_fusions_json(d, NULL));
  json_t *ops = json_object_get(json_array_get(json_object_get(f, "fusions"), 0), "ops");
  assert_int_equal(json_array_size(ops), 2); /* exponential, tanh: parameters left out */
  assert_string_equal(json_string_value(json_array_get(ops, 0)), "exponential");
  json_decref(f);
  hs_doc_free(d);
}

static void test_short_form_and_comments(void **state) {
  (void)state;
  /* 2022-03 to 2025-02 dumps: no %, no operand shapes, headers "name {", "} // name",
     index comments among operands, tuples, get-tuple-element, a while loop */
  const char *t =
      "HloModule jit_g, is_scheduled=true\n"
      "\n"
      "body {\n"
      "  p = (s32[], f32[4]{0}) parameter(0)\n"
      "  i = s32[] get-tuple-element(p), index=0\n"
      "  one = s32[] constant(1)\n"
      "  i1 = s32[] add(i, one)\n"
      "  x = f32[4]{0} get-tuple-element(p), index=1\n"
      "  y = f32[4]{0} exponential(x)\n"
      "  ROOT t = (s32[], f32[4]{0}) tuple(i1, /*index=1*/y)\n"
      "} // body\n"
      "\n"
      "cond {\n"
      "  p.1 = (s32[], f32[4]{0}) parameter(0)\n"
      "  i.1 = s32[] get-tuple-element(p.1), index=0\n"
      "  n = s32[] constant(10)\n"
      "  ROOT lt = pred[] compare(i.1, n), direction=LT\n"
      "}\n"
      "\n"
      "ENTRY main {\n"
      "  a = f32[4]{0} parameter(0)\n"
      "  z = s32[] constant(0)\n"
      "  t0 = (s32[], f32[4]{0}) tuple(z, a)\n"
      "  w = (s32[], f32[4]{0}) while(t0), condition=cond, body=body\n"
      "  ROOT r = f32[4]{0} get-tuple-element(w), index=1\n"
      "}\n";
  hs_doc *d = parse_ok(t);
  assert_int_equal(hs_doc_computation_count(d), 3);
  assert_int_equal(hs_doc_instruction_count(d), 16);
  assert_int_equal(hs_doc_warning_count(d), 0);
  json_t *j = tu_json(hs_computations_json(d, NULL));
  json_t *comps = json_object_get(json_array_get(json_object_get(j, "modules"), 0), "computations");
  assert_string_equal(json_string_value(json_object_get(json_array_get(comps, 2), "role")), "entry");
  assert_string_equal(json_string_value(json_object_get(json_array_get(comps, 0), "role")), "called");
  json_t *ins = json_object_get(json_array_get(comps, 0), "instructions");
  assert_string_equal(json_string_value(json_object_get(json_array_get(ins, 0), "type")), "(s32[], f32[4])");
  json_decref(j);
  hs_doc_free(d);
}

static void test_new_long_form_layouts_dynamic(void **state) {
  (void)state;
  /* 2025-03 on: %names without operand shapes; tiles and memory spaces; tokens; dynamic dims;
     backend_config as JSON and as an escaped string; execution_thread after '}' */
  const char *t =
      "HloModule jit_h, entry_computation_layout={(bf16[8,128]{1,0:T(8,128)(2,1)})->bf16[8,128]{1,0}}\n"
      "\n"
      "%async_comp (p: f32[<=8,?]) -> f32[<=8,?] {\n"
      "  ROOT %p = f32[<=8,?]{1,0} parameter(0)\n"
      "}, execution_thread=\"host\"\n"
      "\n"
      "ENTRY %main.2 (x: bf16[8,128]) -> bf16[8,128] {\n"
      "  %x = bf16[8,128]{1,0:T(8,128)(2,1)} parameter(0)\n"
      "  %tok = token[] after-all()\n"
      "  %cc = bf16[8,128]{1,0:T(8,128)(2,1)S(1)} custom-call(%x), custom_call_target=\"foo\", "
      "backend_config=\"{\\\"a\\\": \\\"}\\\"}\"\n"
      "  ROOT %c = bf16[8,128]{1,0:T(8,128)(2,1)} copy(%cc), backend_config={\"k\":\"v,}{\",\"n\":[1,2]}\n"
      "}\n";
  hs_doc *d = parse_ok(t);
  assert_int_equal(hs_doc_warning_count(d), 0);
  json_t *j = tu_json(hs_computations_json(d, NULL));
  json_t *comps = json_object_get(json_array_get(json_object_get(j, "modules"), 0), "computations");
  json_t *c0 = json_array_get(comps, 0);
  assert_string_equal(json_string_value(json_object_get(c0, "result")), "f32[<=8,?]");
  json_t *ins = json_object_get(json_array_get(comps, 1), "instructions");
  assert_int_equal(json_array_size(ins), 4);
  assert_string_equal(json_string_value(json_object_get(json_array_get(ins, 1), "type")), "token[]");
  assert_string_equal(json_string_value(json_object_get(json_array_get(ins, 3), "opcode")), "copy");
  json_decref(j);
  hs_doc_free(d);
}

static void test_compact_gte_and_frame_tables(void **state) {
  (void)state;
  /* 2025-12 frame tables; 2026-07 compact get-tuple-element operands (%w#1) */
  const char *t =
      "HloModule jit_k\n"
      "\n"
      "FileNames\n"
      "1 \"a.py\"\n"
      "FunctionNames\n"
      "1 \"f\"\n"
      "FileLocations\n"
      "1 {file_name_id=1 function_name_id=1 line=3 end_line=3 column=1 end_column=9}\n"
      "StackFrames\n"
      "1 {file_location_id=1 parent_frame_id=1}\n"
      "\n"
      "%fc (p0: f32[2]) -> (f32[2], f32[2]) {\n"
      "  %p0 = f32[2]{0} parameter(0)\n"
      "  %e = f32[2]{0} exponential(%p0)\n"
      "  %n = f32[2]{0} negate(%p0)\n"
      "  ROOT %t = (f32[2]{0}, f32[2]{0}) tuple(%e, %n)\n"
      "}\n"
      "\n"
      "ENTRY %main (a: f32[2]) -> f32[2] {\n"
      "  %a = f32[2]{0} parameter(0)\n"
      "  %w = (f32[2]{0}, f32[2]{0}) fusion(%a), kind=kLoop, calls=%fc, metadata={op_name=\"jit(k)/exp\" stack_frame_id=1}\n"
      "  ROOT %m = f32[2]{0} multiply(%w#0, %w#1), metadata={stack_frame_id=1}\n"
      "}\n";
  hs_doc *d = parse_ok(t);
  assert_int_equal(hs_doc_warning_count(d), 0); /* tables present, references in range */
  json_t *s = tu_json(hs_spills_json(d, NULL));
  /* the multi-output fusion's elements cross to the multiply: f32[2], 8 bytes, in HBM */
  assert_string_equal(json_string_value(json_object_get(json_object_get(s, "big"), "type")), "f32[2]");
  assert_int_equal(json_integer_value(json_object_get(s, "spill_bytes")), 16); /* written once, read once */
  json_decref(s);
  hs_doc_free(d);
}

static void test_several_modules(void **state) {
  (void)state;
  const char *t =
      "HloModule a\n\nENTRY %m (x: f32[]) -> f32[] {\n  ROOT %x = f32[] parameter(0)\n}\n\n"
      "HloModule b\n\nENTRY %m (x: f32[]) -> f32[] {\n  %x = f32[] parameter(0)\n  ROOT %y = f32[] negate(%x)\n}\n";
  hs_doc *d = parse_ok(t);
  json_t *s = tu_json(hs_summary_json(d, NULL));
  assert_int_equal(json_integer_value(json_object_get(s, "modules")), 2);
  assert_int_equal(json_integer_value(json_object_get(s, "instructions")), 3);
  json_decref(s);
  hs_doc_free(d);
}

static void test_stablehlo_forms(void **state) {
  (void)state;
  const char *t =
      "module @jit_s attributes {mhlo.num_partitions = 1 : i32} {\n"
      "  func.func public @main(%arg0: tensor<?x4xf32> loc(\"x\"), %arg1: tensor<8x!quant.uniform<i8:f32, 0.5:-1>>) -> "
      "(tensor<?x4xf32> {jax.result_info = \"result\"}) {\n"
      "    %0 = \"stablehlo.scatter\"(%arg0, %arg0) <{indices_are_sorted = false}> ({\n"
      "    ^bb0(%a: tensor<f32>, %b: tensor<f32>):\n"
      "      %s = stablehlo.add %a, %b : tensor<f32>\n"
      "      \"stablehlo.return\"(%s) : (tensor<f32>) -> ()\n"
      "    }) : (tensor<?x4xf32>, tensor<?x4xf32>) -> tensor<?x4xf32> loc(#loc3)\n"
      "    %1:2 = stablehlo.while(%iterArg = %0, %iterArg_0 = %0) : tensor<?x4xf32>, tensor<?x4xf32>\n"
      "    cond {\n"
      "      %c = stablehlo.constant dense<true> : tensor<i1>\n"
      "      stablehlo.return %c : tensor<i1>\n"
      "    } do {\n"
      "      stablehlo.return %iterArg, %iterArg_0 : tensor<?x4xf32>, tensor<?x4xf32>\n"
      "    }\n"
      "    return %1#0 : tensor<?x4xf32>\n"
      "  }\n"
      "}\n"
      "#loc3 = loc(\"jit(s)/scatter\"(#loc1))\n";
  hs_doc *d = parse_ok(t);
  assert_int_equal(hs_doc_format(d), HS_FORMAT_STABLEHLO);
  assert_int_equal(hs_doc_warning_count(d), 0);
  json_t *j = tu_json(hs_computations_json(d, NULL));
  json_t *f = json_array_get(json_object_get(json_array_get(json_object_get(j, "modules"), 0), "computations"), 0);
  assert_string_equal(json_string_value(json_object_get(f, "result")), "f32[?,4]");
  json_t *ins = json_object_get(f, "instructions");
  /* scatter, add, return, while, constant, return, return, return */
  assert_int_equal(json_array_size(ins), 8);
  assert_string_equal(json_string_value(json_object_get(json_array_get(ins, 0), "opcode")), "stablehlo.scatter");
  assert_string_equal(json_string_value(json_object_get(json_array_get(ins, 0), "type")), "f32[?,4]");
  assert_string_equal(json_string_value(json_object_get(json_array_get(ins, 3), "type")), "(f32[?,4], f32[?,4])");
  json_decref(j);
  hs_doc_free(d);
}

static void test_errors_have_positions(void **state) {
  (void)state;
  hs_error err;
  const char *bad = "HloModule m\n\nENTRY %main {\n  %a = f32[2]{0} parameter(0)\n  this is not hlo\n}\n";
  assert_null(hs_parse(bad, strlen(bad), &err));
  assert_int_equal(err.code, HS_E_SYNTAX);
  assert_int_equal(err.line, 5);
  assert_int_equal(err.col, 8); /* at "is": after the name, '=' was expected */
  assert_non_null(strstr(err.message, "expected"));
  assert_null(hs_parse("hello world\n", 12, &err));
  assert_int_equal(err.code, HS_E_FORMAT);
  assert_int_equal(err.line, 1);
  assert_null(hs_parse("  \n\n", 4, &err));
  assert_int_equal(err.code, HS_E_EMPTY);
  assert_null(hs_parse(NULL, 0, NULL)); /* err may be NULL */
  const char *shape = "HloModule m\nENTRY %e {\n  %a = f32[2 parameter(0)\n}\n";
  assert_null(hs_parse(shape, strlen(shape), &err));
  assert_int_equal(err.line, 3);
  assert_non_null(strstr(err.message, "shape"));
}

static void test_truncated_is_partial(void **state) {
  (void)state;
  const char *t = "HloModule m\n\nENTRY %main (a: f32[4]) -> f32[4] {\n  %a = f32[4]{0} parameter(0)\n  %b = f32[4]{0} exp";
  hs_error err;
  hs_doc *d = hs_parse(t, strlen(t), &err);
  assert_non_null(d);
  assert_int_equal(hs_doc_instruction_count(d), 1);
  assert_true(hs_doc_warning_count(d) >= 1);
  hs_doc_free(d);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_attention_trimmed),
      cmocka_unit_test(test_attention_frame_tables),
      cmocka_unit_test(test_attention_xray),
      cmocka_unit_test(test_gelu_and_softmax),
      cmocka_unit_test(test_every_capture_parses),
      cmocka_unit_test(test_long_form_with_operand_shapes),
      cmocka_unit_test(test_short_form_and_comments),
      cmocka_unit_test(test_new_long_form_layouts_dynamic),
      cmocka_unit_test(test_compact_gte_and_frame_tables),
      cmocka_unit_test(test_several_modules),
      cmocka_unit_test(test_stablehlo_forms),
      cmocka_unit_test(test_errors_have_positions),
      cmocka_unit_test(test_truncated_is_partial),
  };
  (void)comps_of;
  return cmocka_run_group_tests(tests, NULL, NULL);
}
