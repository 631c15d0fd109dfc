/* The text of the models beside the document: profiles and the timeline, memory texts, LLVM IR,
 * dump folders (passes and passes --compare) and the compile diff. */
#include <stdlib.h>
#include <string.h>

#include "text/text.h"

#define I hs_tx_int
#define S hs_tx_str

void hs_text_profile(hs_out *o, json_t *j, const hs_text_input *in) {
  const char *path = in->path ? in->path : "-";
  json_t *dev = json_object_get(j, "device");
  hs_outf(o, "%s: %s profile", path, S(j, "format"));
  if (json_is_object(dev)) hs_outf(o, ", counting %s / %s\n", S(dev, "plane"), S(dev, "line"));
  else hs_outf(o, ", no device events to count\n");
  json_t *ops = json_object_get(j, "ops");
  size_t n = json_array_size(ops), i;
  json_t *x;
  if (n) {
    hs_outf(o, "\ntop ops (of %zu) by self time:\n", n);
    hs_outf(o, "  %-40s %8s %13s %13s %13s  %-30s %s\n", "name", "count", "total", "self", "per run", "program", "category");
    json_array_foreach(ops, i, x) {
      if (i >= 25) break;
      char t[32], s[32], r[32], prog[64];
      hs_tx_ps((unsigned long long)I(x, "total_ps"), t, sizeof t);
      hs_tx_ps((unsigned long long)I(x, "self_ps"), s, sizeof s);
      hs_tx_ps((unsigned long long)I(x, "per_run_ps"), r, sizeof r);
      snprintf(prog, sizeof prog, "%.40s (%.20s)", S(x, "module"), S(x, "program_id"));
      hs_outf(o, "  %-40.40s %8lld %13s %13s %13s  %-30.30s %s\n", S(x, "name"), I(x, "occurrences"), t, s, r, prog,
              S(x, "category"));
    }
    json_array_foreach(json_object_get(j, "unattributed"), i, x) {
      char t[32];
      hs_tx_ps((unsigned long long)I(x, "total_ps"), t, sizeof t);
      hs_outf(o, "  %-40.40s %8lld %13s  (no HLO op: the kernel has no hlo_op)\n", S(x, "name"), I(x, "occurrences"), t);
    }
  }
  json_t *progs = json_object_get(j, "programs");
  if (json_array_size(progs)) {
    hs_outf(o, "\nprograms:\n");
    json_array_foreach(progs, i, x) {
      char e[32];
      hs_tx_ps((unsigned long long)I(x, "envelope_ps"), e, sizeof e);
      hs_outf(o, "  %-40.40s id %-21s %5lld runs, envelope %s, %lld device%s\n", S(x, "name"), S(x, "program_id"),
              I(x, "runs"), e, I(x, "device_count"), I(x, "device_count") == 1 ? "" : "s");
    }
  }
  hs_outf(o, "\nplanes:\n");
  json_array_foreach(json_object_get(j, "planes"), i, x) {
    json_t *ls = json_object_get(x, "lines");
    hs_outf(o, "  %s (%zu lines)\n", S(x, "name"), json_array_size(ls));
    size_t k;
    json_t *l;
    json_array_foreach(ls, k, l) {
      if (k >= 12) {
        hs_outf(o, "    ... %zu more lines\n", json_array_size(ls) - k);
        break;
      }
      hs_outf(o, "    %-48.48s %lld events\n", S(l, "name"), I(l, "events"));
    }
  }
  json_t *mods = json_object_get(j, "hlo_modules");
  if (json_array_size(mods)) {
    hs_outf(o, "\nHLO modules in /host:metadata:");
    json_array_foreach(mods, i, x) hs_outf(o, "%s %s", i ? "," : "", json_string_value(x));
    hs_outf(o, "\n");
  }
  hs_tx_warnings(o, json_object_get(j, "warnings"), path);
}

void hs_text_timeline(hs_out *o, json_t *j, const hs_text_input *in) {
  const char *path = in->path ? in->path : "-";
  size_t i;
  json_t *x;
  char a[32], b[32];
  json_array_foreach(json_object_get(j, "programs"), i, x) {
    hs_tx_ps((unsigned long long)I(x, "per_run_ps"), a, sizeof a);
    hs_outf(o, "program %s (id %s): %lld runs, %s per run\n", S(x, "name"), S(x, "program_id"), I(x, "runs"), a);
    if (json_is_string(json_object_get(x, "sentence"))) hs_outf(o, "  %s\n", S(x, "sentence"));
  }
  hs_outf(o, "\n  %-12s %6s %7s %-10s %-9s %-32s %s\n", "per run", "share", "count", "kind", "by", "op", "program");
  json_array_foreach(json_object_get(j, "rows"), i, x) {
    hs_tx_ps((unsigned long long)I(x, "per_run_ps"), a, sizeof a);
    hs_outf(o, "  %-12s %5.1f%% %7lld %-10s %-9s %-32s %s (%s)\n", a, 100.0 * json_number_value(json_object_get(x, "share")),
            I(x, "occurrences"), S(x, "kind"), S(x, "written_by"), S(x, "name"), S(x, "module"), S(x, "program_id"));
    if (json_is_string(json_object_get(x, "per_run_note"))) hs_outf(o, "               %s\n", S(x, "per_run_note"));
    json_t *h = json_object_get(x, "hlo");
    if (json_is_object(h)) hs_outf(o, "               line %lld: %.100s\n", I(h, "line"), S(h, "text"));
  }
  json_t *as = json_object_get(j, "async");
  if (json_array_size(as)) hs_outf(o, "\nasync pairs (per run):\n");
  json_array_foreach(as, i, x) {
    hs_tx_ps((unsigned long long)I(x, "hidden_ps"), b, sizeof b);
    hs_outf(o, "  %s -> %s: %s (hidden %s)\n", S(x, "start"), S(x, "done"), S(x, "sentence"), b);
  }
  json_t *hosts = json_object_get(j, "hosts");
  if (json_array_size(hosts) > 1) {
    hs_outf(o, "\nhosts (per run):\n");
    json_array_foreach(hosts, i, x) {
      hs_tx_ps((unsigned long long)I(x, "compute_ps"), a, sizeof a);
      hs_tx_ps((unsigned long long)I(x, "waited_ps"), b, sizeof b);
      char pid[24] = "-";
      if (json_is_integer(json_object_get(x, "pid"))) snprintf(pid, sizeof pid, "%lld", I(x, "pid"));
      hs_outf(o, "  %-32s %-12s pid %-8s compute %-12s waited %-12s%s\n", S(x, "file"), S(x, "host"), pid, a, b,
              json_is_true(json_object_get(x, "slowest")) ? " slowest" : "");
    }
  }
  hs_outf(o, "\n%s\n", S(j, "reading"));
  hs_tx_warnings(o, json_object_get(j, "warnings"), path);
}

void hs_text_memory(hs_out *o, json_t *j, const hs_text_input *in) {
  char a[32];
  hs_outf(o, "%s (%s)\n", S(j, "kind"), S(j, "backend"));
  static const char *keys[] = {"requested_bytes", "used_bytes", "capacity_bytes", "exceeded_bytes"};
  for (int i = 0; i < 4; i++) {
    json_t *v = json_object_get(j, keys[i]);
    if (!json_is_integer(v)) continue;
    hs_tx_bytes(json_integer_value(v), a, sizeof a);
    hs_outf(o, "  %-16s %14lld  %s\n", keys[i], (long long)json_integer_value(v), a);
  }
  const char *k;
  json_t *v;
  json_object_foreach(json_object_get(j, "totals"), k, v) {
    hs_tx_bytes(json_integer_value(v), a, sizeof a);
    hs_outf(o, "  total %-30s %14lld  %s\n", k, (long long)json_integer_value(v), a);
  }
  size_t i;
  json_t *al;
  json_array_foreach(json_object_get(j, "allocations"), i, al) {
    if (i == 20) {
      hs_outf(o, "  ... %zu more\n", json_array_size(json_object_get(j, "allocations")) - 20);
      break;
    }
    hs_tx_bytes(I(al, "bytes"), a, sizeof a);
    hs_outf(o, "%4lld. %12s  %-12s %s  %s  %s\n", I(al, "rank"), a, S(al, "kind"), S(al, "shape"), S(al, "label"),
            S(al, "source"));
  }
  hs_outf(o, "%s\n", S(j, "explanation"));
  hs_tx_warnings(o, json_object_get(j, "warnings"), NULL);
}

void hs_text_llvm(hs_out *o, json_t *j, const hs_text_input *in) {
  const char *path = in->path ? in->path : "-";
  size_t i, k;
  json_t *f, *x;
  hs_outf(o, "%s: %zu functions\n", path, json_array_size(json_object_get(j, "functions")));
  json_array_foreach(json_object_get(j, "functions"), i, f) {
    json_t *hlo = json_object_get(f, "hlo");
    hs_outf(o, "\n@%s%s%s  (%zu params)\n", S(f, "name"), json_is_string(hlo) ? "  <- HLO " : "",
            json_is_string(hlo) ? json_string_value(hlo) : "", json_array_size(json_object_get(f, "params")));
    json_array_foreach(json_object_get(f, "loops"), k, x) {
      json_t *tc = json_object_get(x, "trip_count");
      if (json_is_integer(tc))
        hs_outf(o, "  loop at depth %lld, header %%%s: trip count %lld\n", I(x, "depth"), S(x, "header"),
                (long long)json_integer_value(tc));
      else
        hs_outf(o, "  loop at depth %lld, header %%%s: trip count not constant\n", I(x, "depth"), S(x, "header"));
    }
    hs_outf(o, "  loads %lld, stores %lld; vector types:", I(json_object_get(f, "loads"), "count"),
            I(json_object_get(f, "stores"), "count"));
    json_array_foreach(json_object_get(f, "vector_widths"), k, x) hs_outf(o, " %s", json_string_value(x));
    hs_outf(o, "%s\n", json_array_size(json_object_get(f, "vector_widths")) ? "" : " none");
    const char *key;
    hs_outf(o, "  ops:");
    json_object_foreach(json_object_get(f, "ops"), key, x) hs_outf(o, " %s %lld", key, (long long)json_integer_value(x));
    hs_outf(o, "\n  calls:");
    json_object_foreach(json_object_get(f, "calls"), key, x) hs_outf(o, " %s %lld", key, (long long)json_integer_value(x));
    hs_outf(o, "\n");
  }
  json_array_foreach(json_object_get(j, "dropped"), i, f) {
    json_t *sh = json_object_get(f, "shapes"), *fu = json_object_get(f, "fusion"), *nm = json_object_get(f, "names");
    hs_outf(o, "\ndropped between HLO %s and @%s:\n", S(f, "hlo"), S(f, "function"));
    hs_outf(o,
            "  shapes and dtypes: %zu operand(s) and a %s result became untyped pointers (%lld parameters, %lld loaded "
            "from memory) and index arithmetic (%lld getelementptr)\n",
            json_array_size(json_object_get(sh, "hlo_operands")),
            json_is_string(json_object_get(sh, "hlo_result")) ? json_string_value(json_object_get(sh, "hlo_result")) : "?",
            I(sh, "llvm_pointer_params"), I(sh, "llvm_pointer_loads"), I(sh, "llvm_getelementptr"));
    hs_outf(o, "  layouts: ");
    json_array_foreach(json_object_get(json_object_get(f, "layouts"), "hlo_layouts"), k, x) hs_outf(o, "%s ", json_string_value(x));
    hs_outf(o, "became index arithmetic over");
    json_array_foreach(json_object_get(json_object_get(f, "layouts"), "llvm_array_types"), k, x) hs_outf(o, " %s", json_string_value(x));
    hs_outf(o, "\n  fusion boundary: %s (%lld instructions) became function @%s\n",
            json_is_string(json_object_get(fu, "hlo_body")) ? json_string_value(json_object_get(fu, "hlo_body")) : "(no fused body)",
            I(fu, "hlo_body_instructions"), S(fu, "llvm_function"));
    hs_outf(o, "  names: %zu HLO names became %lld numbered values (%lld named)\n", json_array_size(json_object_get(nm, "hlo_names")),
            I(nm, "llvm_numbered"), I(nm, "llvm_named"));
  }
  hs_tx_warnings(o, json_object_get(j, "warnings"), path);
}

void hs_text_passes(hs_out *o, json_t *j, const hs_text_input *in) {
  size_t i, k;
  json_t *m, *x;
  json_array_foreach(json_object_get(j, "modules"), i, m) {
    json_t *steps = json_object_get(m, "steps"), *pipes = json_object_get(m, "pipelines");
    int has_target = json_is_string(json_object_get(m, "target"));
    hs_outf(o, "module %04lld %s (%s%s%s%s)", I(m, "id"), S(m, "name"), S(m, "backend"), has_target ? " " : "",
            has_target ? S(m, "target") : "", json_is_true(json_object_get(m, "backend_inferred")) ? ", inferred from the folder" : "");
    if (!json_array_size(steps)) {
      hs_outf(o, ": no pass steps\n");
      continue;
    }
    hs_outf(o, ": %zu steps over %zu pipelines", json_array_size(steps), json_array_size(pipes));
    if (json_is_integer(json_object_get(m, "watershed"))) hs_outf(o, ", layout watershed at step %lld", I(m, "watershed"));
    if (json_is_integer(json_object_get(m, "first_fusion"))) hs_outf(o, ", first fusion at step %lld", I(m, "first_fusion"));
    hs_outf(o, "\n  pipelines:\n");
    json_array_foreach(pipes, k, x) {
      hs_outf(o, "    %-44s %3lld steps, %2lld run%s, %zu passes\n", S(x, "name"), I(x, "steps"), I(x, "runs"),
              I(x, "runs") == 1 ? " " : "s", json_array_size(json_object_get(x, "passes")));
    }
    hs_outf(o, "  steps:\n");
    json_array_foreach(steps, k, x) {
      json_t *c = json_object_get(x, "counts");
      hs_outf(o, "    %04lld %-40.40s after %-32.32s before %-32.32s", I(x, "n"), S(x, "pipeline"), S(x, "after"), S(x, "before"));
      if (json_is_object(c)) hs_outf(o, " %5lld instr %4lld fusions", I(c, "instructions"), I(c, "fusion_ops"));
      if (I(x, "run") > 1) hs_outf(o, " (run %lld)", I(x, "run"));
      hs_outf(o, "\n");
      json_t *d = json_object_get(x, "diff");
      if (json_is_object(d)) hs_outf(o, "         %s\n", S(d, "sentence"));
    }
  }
  /* files by kind, in the order each kind first appears */
  json_t *kinds = json_object();
  json_array_foreach(json_object_get(j, "files"), i, x) {
    const char *kn = S(x, "kind");
    json_object_set_new(kinds, kn, json_integer(I(kinds, kn) + 1));
  }
  hs_outf(o, "files: %zu\n", json_array_size(json_object_get(j, "files")));
  const char *kk;
  json_object_foreach(kinds, kk, x) hs_outf(o, "  %-48s %lld\n", kk, json_integer_value(x));
  json_decref(kinds);
  json_array_foreach(json_object_get(j, "warnings"), i, x) hs_outf(o, "warning: %s\n", S(x, "message"));
}

void hs_text_passes_compare(hs_out *o, json_t *j, const hs_text_input *in) {
  json_t *a = json_object_get(j, "a"), *b = json_object_get(j, "b");
  hs_outf(o, "A: %s (%lld steps, %lld passes)\nB: %s (%lld steps, %lld passes)\n", S(a, "label"), I(a, "steps"), I(a, "passes"),
          S(b, "label"), I(b, "steps"), I(b, "passes"));
  size_t i, k;
  json_t *p, *x;
  json_array_foreach(json_object_get(j, "notes"), i, x) hs_outf(o, "note: %s\n", json_string_value(x));
  json_array_foreach(json_object_get(j, "pipelines"), i, p) {
    hs_outf(o, "pipeline %s\n", S(p, "name"));
    static const char *keys[3] = {"both", "only_a", "only_b"};
    static const char *words[3] = {"both", "only A", "only B"};
    for (int w = 0; w < 3; w++) {
      json_t *arr = json_object_get(p, keys[w]);
      if (!json_array_size(arr)) continue;
      hs_outf(o, "  %-7s", words[w]);
      json_array_foreach(arr, k, x) hs_outf(o, " %s", json_string_value(x));
      hs_outf(o, "\n");
    }
  }
}

static void names(hs_out *o, json_t *arr) {
  size_t i;
  json_t *x;
  json_array_foreach(arr, i, x) hs_outf(o, "%s%s", i ? ", " : "", json_string_value(x));
  if (!json_array_size(arr)) hs_outf(o, "-");
}

/* A compile fact's value as the diff's text says it: a string as is, other JSON serialised, "-"
 * where the side lacks it. */
static void env_value(hs_out *o, json_t *v) {
  if (json_is_string(v)) {
    hs_outf(o, "%s", json_string_value(v));
    return;
  }
  char *x = !v || json_is_null(v) ? NULL : json_dumps(v, JSON_ENCODE_ANY);
  hs_outf(o, "%s", x ? x : "-");
  free(x);
}

static void diff_time(hs_out *o, json_t *t) {
  char x[32], y[32];
  for (int s = 0; s < 2; s++) {
    json_t *v = json_object_get(t, s ? "b_ps" : "a_ps"), *g = json_object_get(t, s ? "b_program" : "a_program");
    if (json_is_integer(v)) {
      hs_tx_ps((unsigned long long)json_integer_value(v), x, sizeof x);
      hs_outf(o, "time %s: %s per run, %lld runs (%s, program %s)\n", s ? "B" : "A", x, I(t, s ? "b_runs" : "a_runs"),
              S(g, "name"), S(g, "program_id"));
    } else {
      hs_outf(o, "time %s: unknown\n", s ? "B" : "A");
    }
  }
  size_t i, shown = 0, n_ops = json_array_size(json_object_get(t, "ops"));
  json_t *f;
  json_array_foreach(json_object_get(t, "ops"), i, f) {
    if (shown++ == 10) {
      hs_outf(o, "  ... %zu more ops\n", n_ops - 10);
      break;
    }
    json_t *va = json_object_get(f, "a_ps"), *vb = json_object_get(f, "b_ps");
    if (json_is_integer(va)) hs_tx_ps((unsigned long long)json_integer_value(va), x, sizeof x);
    else snprintf(x, sizeof x, "-");
    if (json_is_integer(vb)) hs_tx_ps((unsigned long long)json_integer_value(vb), y, sizeof y);
    else snprintf(y, sizeof y, "-");
    hs_outf(o, "  A %s %s  B %s %s\n", x, S(f, "a"), y, S(f, "b"));
  }
}

void hs_text_diff(hs_out *o, json_t *j, const hs_text_input *in) {
  hs_outf(o, "%s\n", S(j, "verdict"));
  const char *sides[2] = {"a", "b"}, *paths[2] = {in->path ? in->path : "A", in->path_b ? in->path_b : "B"};
  for (int s = 0; s < 2; s++) {
    json_t *x = json_object_get(j, sides[s]), *h = json_object_get(x, "hbm_bytes");
    hs_outf(o, "\n%s: %s: %lld instructions, %lld fusion ops, %lld fusion computations", s ? "B" : "A", paths[s],
            I(x, "instructions"), I(x, "fusion_ops"), I(x, "fusion_computations"));
    if (json_is_integer(json_object_get(h, "read"))) hs_outf(o, ", HBM read %lld written %lld bytes", I(h, "read"), I(h, "written"));
    if (!json_is_null(json_object_get(x, "partial"))) hs_outf(o, " (cut short)");
  }
  json_t *m = json_object_get(j, "matched"), *by = json_object_get(m, "by");
  hs_outf(o, "\n\nmatched %lld instructions (structure %lld, op_name %lld, source %lld, name %lld); unmatched: A %lld, B %lld\n",
          I(m, "instructions"), I(by, "structure"), I(by, "op_name"), I(by, "source"), I(by, "name"), I(m, "unmatched_a"),
          I(m, "unmatched_b"));
  size_t i, same = 0;
  json_t *f;
  json_array_foreach(json_object_get(j, "fusions"), i, f) {
    if (strcmp(S(f, "change"), "same") == 0) {
      same++;
      continue;
    }
    hs_outf(o, "  %-8s A: ", S(f, "change"));
    names(o, json_object_get(f, "a"));
    hs_outf(o, "  B: ");
    names(o, json_object_get(f, "b"));
    if (json_array_size(json_object_get(f, "moved"))) {
      hs_outf(o, "\n           moved: ");
      names(o, json_object_get(f, "moved"));
    }
    if (json_array_size(json_object_get(f, "source"))) {
      hs_outf(o, "\n           source: ");
      names(o, json_object_get(f, "source"));
    }
    hs_outf(o, "\n");
  }
  hs_outf(o, "  %zu fusion groups the same\n", same);
  json_array_foreach(json_object_get(j, "materialized"), i, f)
    hs_outf(o, "materialized %s on %s: %s %s (%lld bytes)\n", S(f, "change"), strcmp(S(f, "side"), "b") ? "A" : "B",
            S(f, "value"), S(f, "shape"), I(f, "bytes"));
  json_array_foreach(json_object_get(j, "calls"), i, f)
    hs_outf(o, "call %s %s: A %lld, B %lld\n", S(f, "target"), S(f, "change"), I(f, "a"), I(f, "b"));
  /* what each side was compiled with, where the two differ */
  json_array_foreach(json_object_get(j, "environment"), i, f) {
    json_t *va = json_object_get(f, "a"), *vb = json_object_get(f, "b");
    if (json_equal(va, vb)) continue;
    hs_outf(o, "environment %s: A ", S(f, "key"));
    env_value(o, va);
    hs_outf(o, ", B ");
    env_value(o, vb);
    hs_outf(o, "\n");
  }
  json_t *t = json_object_get(j, "time");
  if (json_is_object(t)) diff_time(o, t);
}
