/* hloscope: the command-line interface. Uses only the public header.
 *
 *   hloscope summary FILE        hloscope fusions FILE      hloscope spills FILE
 *   hloscope computations FILE   hloscope xray LEFT RIGHT   (--json for JSON; FILE may be -)
 *   hloscope profile PROFILE...  (.xplane.pb, .trace.json, either gzipped, several, or a log folder)
 *   hloscope layout 'TYPE'       hloscope layouts FILE      hloscope memory FILE
 *   hloscope timeline PROFILE... [--hlo DUMP] [--stablehlo DUMP] [--program NAME|ID]
 *   hloscope decisions FILE      upcasts, downcasts, broadcasts, remat marks, transposes, layout copies
 *
 *   hloscope diff [--fail-on LIST] A B   what changed between two compiles, by meaning
 *
 * Exit status: 0 on success, 2 on a parse error (file:line:col: message on stderr), 1 on
 * other failures (a file that cannot be read, bad usage), 3 when a `diff --fail-on` condition
 * holds. */
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <zlib.h>

#include "cli.h"
#include "hloscope.h"


/* The usage text, from the core's command table: each row's usage, then its help beside it
 * (from column 22; a usage too long for that ends its line and the help starts the next). */
static void usage(FILE *f) {
  fprintf(f, "usage: hloscope <command> [--json] FILE...\n\n");
  for (size_t i = 0; i < hs_command_count(); i++) {
    const hs_command *c = hs_command_at(i);
    size_t n = strlen(c->usage);
    if (n <= 18) fprintf(f, "  %-20s", c->usage);
    else if (n <= 40) fprintf(f, "  %s  ", c->usage);
    else fprintf(f, "  %s\n%22s", c->usage, "");
    for (const char *h = c->help; *h; h++) {
      fputc(*h, f);
      if (*h == '\n') fprintf(f, "%22s", "");
    }
    fputc('\n', f);
  }
  fprintf(f, "\n"
             "FILE may be - for standard input. --json prints the JSON the JS API returns.\n"
             "Get the inputs from jax: jax.jit(f).lower(x).as_text() (StableHLO) and\n"
             "jax.jit(f).lower(x).compile().as_text() (optimized HLO).\n");
}

static char *read_all(const char *path, size_t *len) {
  FILE *f = strcmp(path, "-") == 0 ? stdin : fopen(path, "rb");
  if (!f) return NULL;
  size_t cap = 1 << 16, n = 0;
  char *buf = malloc(cap);
  while (buf) {
    size_t k = fread(buf + n, 1, cap - n, f);
    n += k;
    if (n < cap) break;
    char *nb = realloc(buf, cap * 2);
    if (!nb) {
      free(buf);
      buf = NULL;
      break;
    }
    buf = nb;
    cap *= 2;
  }
  int bad = ferror(f);
  if (f != stdin) fclose(f);
  if (bad) {
    free(buf);
    return NULL;
  }
  *len = n;
  return buf;
}

char *hs_cli_read_all(const char *path, size_t *len) { return read_all(path, len); }

int hs_cli_ends_with(const char *s, const char *suf) {
  size_t n = strlen(s), k = strlen(suf);
  return n >= k && strcmp(s + n - k, suf) == 0;
}

int hs_cli_is_dir(const char *p) {
  struct stat st;
  return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

int hs_cli_is_archive_name(const char *p) {
  static const char *const ends[] = {".tar.gz", ".tgz", ".tar", ".zip"};
  for (size_t k = 0; k < sizeof ends / sizeof *ends; k++)
    if (hs_cli_ends_with(p, ends[k])) return 1;
  return 0;
}

typedef struct {
  const char *path;
  char *text;
  size_t len;
  hs_doc *doc;
} input;

static int read_input(input *in, const char *path) {
  in->path = path;
  in->text = read_all(path, &in->len);
  if (!in->text) {
    fprintf(stderr, "hloscope: cannot read %s: %s\n", path, strerror(errno));
    return 1;
  }
  return 0;
}

static int parse_input(input *in) {
  hs_error err;
  in->doc = hs_parse(in->text, in->len, &err);
  if (!in->doc) {
    fprintf(stderr, "%s:%u:%u: %s: %s\n", in->path, err.line, err.col, hs_code_name(err.code), err.message);
    return err.code == HS_E_NOMEM ? 1 : 2;
  }
  return 0;
}

static int open_input(input *in, const char *path) {
  int rc = read_input(in, path);
  return rc ? rc : parse_input(in);
}

/* The x-ray's left side may be a blank file: then the right side is x-rayed alone. */
static int open_left(input *in, const char *path) {
  int rc = read_input(in, path);
  if (rc || hs_is_blank(in->text, in->len)) return rc;
  return parse_input(in);
}

static void close_input(input *in) {
  hs_doc_free(in->doc);
  free(in->text);
}

static long long geti(json_t *o, const char *k) { return json_integer_value(json_object_get(o, k)); }
static const char *gets(json_t *o, const char *k) {
  const char *s = json_string_value(json_object_get(o, k));
  return s ? s : "-";
}

static void print_warnings(json_t *w, const char *path) {
  size_t i;
  json_t *x;
  json_array_foreach(w, i, x) {
    printf("warning: %s:%lld:%lld: %s\n", path, geti(x, "line"), geti(x, "column"), gets(x, "message"));
  }
}

static void human_summary(json_t *j, const char *path) {
  printf("%s: %s", path, gets(j, "format"));
  if (json_is_string(json_object_get(j, "module"))) printf(" module %s", gets(j, "module"));
  printf("\n  %lld lines, %lld modules, %lld computations, %lld instructions\n", geti(j, "lines"), geti(j, "modules"),
         geti(j, "computations"), geti(j, "instructions"));
  print_warnings(json_object_get(j, "warnings"), path);
}

static void human_fusions(json_t *j) {
  printf("%lld fused computations, %lld fusion ops (%lld top-level, %lld nested)\n", geti(j, "fusion_computations"),
         geti(j, "fusion_ops"), geti(j, "fusion_ops_top_level"), geti(j, "fusion_ops_nested"));
  size_t i;
  json_t *f;
  json_array_foreach(json_object_get(j, "fusions"), i, f) {
    printf("  line %-5lld %s%-24s %-8s -> %s", geti(f, "line"), json_is_true(json_object_get(f, "nested")) ? "  " : "",
           gets(f, "name"), gets(f, "kind"), gets(f, "calls"));
    printf("  %s S(%lld)\n", gets(f, "type"), geti(f, "memory_space"));
    size_t k;
    json_t *op;
    printf("             holds:");
    json_array_foreach(json_object_get(f, "ops"), k, op) printf("%s %s", k ? " \xC2\xB7" : "", json_string_value(op));
    printf("\n");
  }
}

static void human_spills(json_t *j) {
  json_t *b = json_object_get(j, "big");
  if (json_is_object(b))
    printf("big intermediate: %s (%lld bytes) in memory space %lld, %s at line %lld\n", gets(b, "type"),
           geti(b, "bytes"), geti(b, "memory_space"), gets(b, "name"), geti(b, "line"));
  else
    printf("big intermediate: none\n");
  size_t i;
  json_t *c;
  json_array_foreach(json_object_get(j, "carriers"), i, c) {
    printf("  carried at line %-5lld %-24s S(%lld)%s\n", geti(c, "line"), gets(c, "name"), geti(c, "memory_space"),
           json_is_true(json_object_get(c, "spill")) ? "  SPILL" : "");
  }
  json_t *h = json_object_get(j, "hbm_bytes");
  printf("spill bytes: %lld; estimated HBM traffic: %lld read, %lld written\n", geti(j, "spill_bytes"), geti(h, "read"),
         geti(h, "written"));
  printf("%s\n", gets(j, "explanation"));
}

static void human_computations(json_t *j) {
  size_t m, c, i;
  json_t *mo, *co, *in;
  json_array_foreach(json_object_get(j, "modules"), m, mo) {
    printf("module %s\n", gets(mo, "name"));
    json_array_foreach(json_object_get(mo, "computations"), c, co) {
      json_t *ins = json_object_get(co, "instructions");
      printf("  %-8s %s (%zu instructions) -> %s\n", gets(co, "role"), gets(co, "name"), json_array_size(ins),
             gets(co, "result"));
      json_array_foreach(ins, i, in) printf("    %-5lld %-28s %-20s %s\n", geti(in, "line"), gets(in, "name"),
                                            gets(in, "opcode"), gets(in, "type"));
    }
  }
}

static void human_decisions(json_t *j) {
  size_t i;
  json_t *x;
  json_array_foreach(json_object_get(j, "decisions"), i, x) {
    printf("line %-5lld %-11s %-16s %s\n", geti(x, "line"), gets(x, "kind"), gets(x, "name"), gets(x, "detail"));
    const char *path = gets(x, "path");
    int has_src = json_is_string(json_object_get(x, "source"));
    if (has_src || *path)
      printf("           %s%s%s%s\n", *path ? "in " : "", path, has_src ? (*path ? "  at " : "at ") : "",
             has_src ? gets(x, "source") : "");
  }
  if (!json_array_size(json_object_get(j, "decisions"))) printf("no decisions found\n");
  json_array_foreach(json_object_get(j, "warnings"), i, x) {
    printf("warning: %lld:%lld: %s\n", geti(x, "line"), geti(x, "column"), gets(x, "message"));
  }
}

static void human_overlap(json_t *j) {
  size_t i, k;
  json_t *t, *x;
  json_t *ts = json_object_get(j, "transfers");
  printf("%s\n", gets(j, "explanation"));
  json_array_foreach(ts, i, t) {
    printf("line %-5lld %-18s %s -> %s in %s, %lld bytes", geti(t, "line"), gets(t, "kind"), gets(t, "start"),
           json_is_string(json_object_get(t, "done")) ? gets(t, "done") : "(no done)", gets(t, "computation"),
           geti(t, "bytes"));
    if (json_is_integer(json_object_get(t, "trip_count"))) printf(" per iteration (%lld iterations)", geti(t, "trip_count"));
    json_t *ov = json_object_get(t, "overlapped");
    if (json_is_true(json_object_get(t, "sync"))) printf("\n           sync: nothing overlaps it\n");
    else if (!json_is_string(json_object_get(t, "done"))) printf("\n           its done is not in the text\n");
    else if (!json_is_array(ov)) printf("\n           not scheduled: what overlaps it is not known\n");
    else if (!json_array_size(ov)) printf("\n           overlaps no kernel\n");
    else {
      printf("\n           in flight while:");
      json_array_foreach(ov, k, x) printf("%s %s", k ? "," : "", json_string_value(x));
      printf("\n");
    }
  }
}

static void fmt_ps(unsigned long long ps, char *buf, size_t cap) {
  if (ps >= 1000000000000ULL) snprintf(buf, cap, "%.3f s", ps / 1e12);
  else if (ps >= 1000000000ULL) snprintf(buf, cap, "%.3f ms", ps / 1e9);
  else if (ps >= 1000000ULL) snprintf(buf, cap, "%.3f us", ps / 1e6);
  else snprintf(buf, cap, "%.3f ns", ps / 1e3);
}

static void human_profile(json_t *j, const char *path) {
  json_t *dev = json_object_get(j, "device");
  printf("%s: %s profile", path, gets(j, "format"));
  if (json_is_object(dev)) printf(", counting %s / %s\n", gets(dev, "plane"), gets(dev, "line"));
  else printf(", no device events to count\n");
  json_t *ops = json_object_get(j, "ops");
  size_t n = json_array_size(ops), i;
  json_t *x;
  if (n) {
    printf("\ntop ops (of %zu) by self time:\n", n);
    printf("  %-40s %8s %13s %13s %13s  %-30s %s\n", "name", "count", "total", "self", "per run", "program", "category");
    json_array_foreach(ops, i, x) {
      if (i >= 25) break;
      char t[32], s[32], r[32], prog[64];
      fmt_ps((unsigned long long)geti(x, "total_ps"), t, sizeof t);
      fmt_ps((unsigned long long)geti(x, "self_ps"), s, sizeof s);
      fmt_ps((unsigned long long)geti(x, "per_run_ps"), r, sizeof r);
      snprintf(prog, sizeof prog, "%.40s (%.20s)", gets(x, "module"), gets(x, "program_id"));
      printf("  %-40.40s %8lld %13s %13s %13s  %-30.30s %s\n", gets(x, "name"), geti(x, "occurrences"), t, s, r, prog,
             gets(x, "category"));
    }
    json_t *un = json_object_get(j, "unattributed");
    json_array_foreach(un, i, x) {
      char t[32];
      fmt_ps((unsigned long long)geti(x, "total_ps"), t, sizeof t);
      printf("  %-40.40s %8lld %13s  (no HLO op: the kernel has no hlo_op)\n", gets(x, "name"), geti(x, "occurrences"), t);
    }
  }
  json_t *progs = json_object_get(j, "programs");
  if (json_array_size(progs)) {
    printf("\nprograms:\n");
    json_array_foreach(progs, i, x) {
      char e[32];
      fmt_ps((unsigned long long)geti(x, "envelope_ps"), e, sizeof e);
      printf("  %-40.40s id %-21s %5lld runs, envelope %s, %lld device%s\n", gets(x, "name"), gets(x, "program_id"),
             geti(x, "runs"), e, geti(x, "device_count"), geti(x, "device_count") == 1 ? "" : "s");
    }
  }
  printf("\nplanes:\n");
  json_array_foreach(json_object_get(j, "planes"), i, x) {
    json_t *ls = json_object_get(x, "lines");
    printf("  %s (%zu lines)\n", gets(x, "name"), json_array_size(ls));
    size_t k;
    json_t *l;
    json_array_foreach(ls, k, l) {
      if (k >= 12) {
        printf("    ... %zu more lines\n", json_array_size(ls) - k);
        break;
      }
      printf("    %-48.48s %lld events\n", gets(l, "name"), geti(l, "events"));
    }
  }
  json_t *mods = json_object_get(j, "hlo_modules");
  if (json_array_size(mods)) {
    printf("\nHLO modules in /host:metadata:");
    json_array_foreach(mods, i, x) printf("%s %s", i ? "," : "", json_string_value(x));
    printf("\n");
  }
  print_warnings(json_object_get(j, "warnings"), path);
}

static void human_timeline(json_t *j, const char *path) {
  size_t i;
  json_t *x;
  char a[32], b[32];
  json_array_foreach(json_object_get(j, "programs"), i, x) {
    fmt_ps((unsigned long long)geti(x, "per_run_ps"), a, sizeof a);
    printf("program %s (id %s): %lld runs, %s per run\n", gets(x, "name"), gets(x, "program_id"), geti(x, "runs"), a);
    if (json_is_string(json_object_get(x, "sentence"))) printf("  %s\n", gets(x, "sentence"));
  }
  printf("\n  %-12s %6s %7s %-10s %-9s %-32s %s\n", "per run", "share", "count", "kind", "by", "op", "program");
  json_array_foreach(json_object_get(j, "rows"), i, x) {
    fmt_ps((unsigned long long)geti(x, "per_run_ps"), a, sizeof a);
    printf("  %-12s %5.1f%% %7lld %-10s %-9s %-32s %s (%s)\n", a, 100.0 * json_number_value(json_object_get(x, "share")),
           geti(x, "occurrences"), gets(x, "kind"), gets(x, "written_by"), gets(x, "name"), gets(x, "module"),
           gets(x, "program_id"));
    if (json_is_string(json_object_get(x, "per_run_note"))) printf("               %s\n", gets(x, "per_run_note"));
    json_t *h = json_object_get(x, "hlo");
    if (json_is_object(h)) printf("               line %lld: %.100s\n", geti(h, "line"), gets(h, "text"));
  }
  json_t *as = json_object_get(j, "async");
  if (json_array_size(as)) printf("\nasync pairs (per run):\n");
  json_array_foreach(as, i, x) {
    fmt_ps((unsigned long long)geti(x, "hidden_ps"), b, sizeof b);
    printf("  %s -> %s: %s (hidden %s)\n", gets(x, "start"), gets(x, "done"), gets(x, "sentence"), b);
  }
  json_t *hosts = json_object_get(j, "hosts");
  if (json_array_size(hosts) > 1) printf("\nhosts (per run):\n");
  json_array_foreach(hosts, i, x) {
    if (json_array_size(hosts) < 2) break;
    fmt_ps((unsigned long long)geti(x, "compute_ps"), a, sizeof a);
    fmt_ps((unsigned long long)geti(x, "waited_ps"), b, sizeof b);
    char pid[24] = "-";
    if (json_is_integer(json_object_get(x, "pid"))) snprintf(pid, sizeof pid, "%lld", geti(x, "pid"));
    printf("  %-32s %-12s pid %-8s compute %-12s waited %-12s%s\n", gets(x, "file"), gets(x, "host"), pid, a, b,
           json_is_true(json_object_get(x, "slowest")) ? " slowest" : "");
  }
  printf("\n%s\n", gets(j, "reading"));
  print_warnings(json_object_get(j, "warnings"), path);
}

/* Prints a result: its JSON as is, or read back and told by `human`. Frees `out`. */
static int emit(char *out, size_t n, int json, void (*human)(json_t *, const char *), const char *path) {
  if (!out) {
    fprintf(stderr, "hloscope: out of memory\n");
    return 1;
  }
  if (json) {
    fwrite(out, 1, n, stdout);
    fputc('\n', stdout);
  } else {
    json_error_t e;
    json_t *j = json_loadb(out, n, 0, &e);
    human(j, path);
    json_decref(j);
  }
  hs_free(out);
  return 0;
}

/* hloscope timeline PROFILE... [--hlo DUMP] [--stablehlo DUMP] [--program NAME|ID] [--json]
 * (argv[0] is "timeline"; PROFILE: files, or a folder) */
static int cmd_timeline(int argc, char **argv) {
  const char *hlo_path = NULL, *shlo_path = NULL, *program = NULL;
  const char **paths = calloc((size_t)argc + 1, sizeof *paths);
  int n_paths = 0, json = 0;
  if (!paths) return 1;
  for (int i = 1; i < argc; i++) {
    const char **opt = strcmp(argv[i], "--hlo") == 0         ? &hlo_path
                       : strcmp(argv[i], "--stablehlo") == 0 ? &shlo_path
                       : strcmp(argv[i], "--program") == 0   ? &program
                                                             : NULL;
    if (opt && i + 1 < argc) *opt = argv[++i];
    else if (strcmp(argv[i], "--json") == 0) json = 1;
    else if (!opt && argv[i][0] != '-') paths[n_paths++] = argv[i];
    else {
      free(paths);
      usage(stderr);
      return 1;
    }
  }
  if (!n_paths) {
    free(paths);
    usage(stderr);
    return 1;
  }
  const char *path = paths[0];
  int rc = 0;
  hs_profile *p = hs_cli_load_profiles(paths, n_paths, &rc);
  free(paths);
  if (!p) return rc;
  input h = {0}, s = {0};
  if ((hlo_path && (rc = open_input(&h, hlo_path)) != 0) || (shlo_path && (rc = open_input(&s, shlo_path)) != 0)) {
    close_input(&h);
    close_input(&s);
    hs_profile_free(p);
    return rc;
  }
  hs_timeline_options opt = {h.doc, s.doc, program};
  size_t n = 0;
  char *out = hs_profile_timeline_json(p, &opt, &n);
  hs_profile_free(p);
  close_input(&h);
  close_input(&s);
  return emit(out, n, json, human_timeline, path);
}

/* hloscope profile PROFILE... [--json] (argv[0] is "profile"; PROFILE: files, or a folder) */
static int cmd_profile(int argc, char **argv) {
  int json = 0, n_paths = 0;
  const char **paths = calloc((size_t)argc + 1, sizeof *paths);
  if (!paths) return 1;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--json") == 0) json = 1;
    else if (argv[i][0] != '-' || strcmp(argv[i], "-") == 0) paths[n_paths++] = argv[i];
    else n_paths = -argc; /* an unknown option */
  }
  if (n_paths <= 0) {
    free(paths);
    usage(stderr);
    return 1;
  }
  const char *path = paths[0];
  int rc = 0;
  hs_profile *p = hs_cli_load_profiles(paths, n_paths, &rc);
  free(paths);
  if (!p) return rc;
  size_t n = 0;
  char *out = hs_profile_json(p, &n);
  hs_profile_free(p);
  return emit(out, n, json, human_profile, path);
}

static void human_xray(json_t *j, const char *lpath, const char *rpath, const char *ltext, const char *rtext) {
  json_t *s = json_object_get(j, "summary");
  printf("%s\n%s\n", gets(s, "stat"), gets(s, "explanation"));
  const char *paths[2] = {lpath, rpath};
  const char *texts[2] = {ltext, rtext};
  const char *keys[2] = {"left", "right"};
  for (int side = 0; side < 2; side++) {
    printf("\n== %s (%s)\n", paths[side], side ? "what XLA decided" : "what XLA received");
    const char *p = texts[side];
    size_t i;
    json_t *l;
    json_array_foreach(json_object_get(j, keys[side]), i, l) {
      const char *nl = strchr(p, '\n');
      size_t n = nl ? (size_t)(nl - p) : strlen(p);
      const char *cls = gets(l, "class");
      printf("%5lld %-6s %c %.*s%s\n", geti(l, "line"), cls, json_is_true(json_object_get(l, "carries")) ? '_' : ' ',
             (int)(n > 100 ? 100 : n), p, n > 100 ? "..." : "");
      printf("             %s\n", gets(l, "note"));
      p = nl ? nl + 1 : p + n;
    }
  }
}

/* ---- layouts and memory ---------------------------------------------------------------- */
static void human_bytes(long long b, char *buf, size_t cap) {
  static const char *u[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double v = (double)b;
  int k = 0;
  while (v >= 1024 && k < 4) v /= 1024, k++;
  if (k == 0) snprintf(buf, cap, "%lld B", b);
  else snprintf(buf, cap, "%.2f %s", v, u[k]);
}

static int print_result(char *out, size_t n, int json, void (*human)(json_t *)) {
  if (!out) {
    fprintf(stderr, "hloscope: out of memory\n");
    return 1;
  }
  if (json) {
    fwrite(out, 1, n, stdout);
    fputc('\n', stdout);
  } else {
    json_error_t e;
    json_t *j = json_loadb(out, n, 0, &e);
    human(j);
    json_decref(j);
  }
  hs_free(out);
  return 0;
}

static void human_layout(json_t *j) {
  char a[32], b[32], c[32];
  human_bytes(geti(j, "logical_bytes"), a, sizeof a);
  human_bytes(geti(j, "padded_bytes"), b, sizeof b);
  human_bytes(geti(j, "padding_bytes"), c, sizeof c);
  printf("%s\n%s\n", gets(j, "type"), gets(j, "words"));
  printf("logical %s (%lld bytes), laid out %s (%lld bytes): padding %s (%lld bytes)\n", a, geti(j, "logical_bytes"), b,
         geti(j, "padded_bytes"), c, geti(j, "padding_bytes"));
}

static void human_layouts(json_t *j) {
  char a[32], b[32], c[32];
  human_bytes(geti(j, "padding_bytes"), c, sizeof c);
  human_bytes(geti(j, "padded_bytes"), b, sizeof b);
  printf("%lld values, laid out %s, of which padding %s\n", geti(j, "values"), b, c);
  printf("%12s %12s %6s  %-28s %s\n", "padding", "padded", "line", "value", "type");
  size_t i;
  json_t *r;
  json_array_foreach(json_object_get(j, "rows"), i, r) {
    human_bytes(geti(r, "padding_bytes"), a, sizeof a);
    human_bytes(geti(r, "padded_bytes"), b, sizeof b);
    printf("%12s %12s %6lld  %-28s %s\n", a, b, geti(r, "line"), gets(r, "name"), gets(r, "type"));
  }
}

static void human_memory(json_t *j) {
  char a[32];
  printf("%s (%s)\n", gets(j, "kind"), gets(j, "backend"));
  static const char *keys[] = {"requested_bytes", "used_bytes", "capacity_bytes", "exceeded_bytes"};
  for (int i = 0; i < 4; i++) {
    json_t *v = json_object_get(j, keys[i]);
    if (!json_is_integer(v)) continue;
    human_bytes(json_integer_value(v), a, sizeof a);
    printf("  %-16s %14lld  %s\n", keys[i], (long long)json_integer_value(v), a);
  }
  const char *k;
  json_t *v;
  json_object_foreach(json_object_get(j, "totals"), k, v) {
    human_bytes(json_integer_value(v), a, sizeof a);
    printf("  total %-30s %14lld  %s\n", k, (long long)json_integer_value(v), a);
  }
  size_t i;
  json_t *al;
  json_array_foreach(json_object_get(j, "allocations"), i, al) {
    if (i == 20) {
      printf("  ... %zu more\n", json_array_size(json_object_get(j, "allocations")) - 20);
      break;
    }
    human_bytes(geti(al, "bytes"), a, sizeof a);
    printf("%4lld. %12s  %-12s %s  %s  %s\n", geti(al, "rank"), a, gets(al, "kind"), gets(al, "shape"), gets(al, "label"),
           gets(al, "source"));
  }
  printf("%s\n", gets(j, "explanation"));
  json_t *w;
  json_array_foreach(json_object_get(j, "warnings"), i, w) {
    printf("warning: %lld:%lld: %s\n", geti(w, "line"), geti(w, "column"), gets(w, "message"));
  }
}

static int cmd_layout(const char *type, int json) {
  hs_error err;
  size_t n = 0;
  char *out = hs_layout_json(type, strlen(type), &err, &n);
  if (!out && err.code != HS_E_NOMEM) {
    fprintf(stderr, "type:%u:%u: %s: %s\n", err.line, err.col, hs_code_name(err.code), err.message);
    return 2;
  }
  return print_result(out, n, json, human_layout);
}

#include <dirent.h>

/* A folder's names, one a line (what the core's dump-folder queries read); malloc'd, or NULL. */
static char *dir_names(const char *dir, size_t *len) {
  DIR *d = opendir(dir);
  if (!d) return NULL;
  size_t cap = 4096, n = 0;
  char *out = malloc(cap);
  struct dirent *e;
  while (out && (e = readdir(d)) != NULL) {
    size_t k = strlen(e->d_name);
    if (e->d_name[0] == '.' || memchr(e->d_name, '\n', k)) continue;
    while (n + k + 2 > cap) {
      char *nb = realloc(out, cap *= 2);
      if (!nb) {
        free(out);
        out = NULL;
        break;
      }
      out = nb;
    }
    if (!out) break;
    memcpy(out + n, e->d_name, k);
    n += k;
    out[n++] = '\n';
  }
  closedir(d);
  *len = n;
  return out;
}

static char *copy_n(const char *s, size_t n) {
  char *p = malloc(n + 1);
  if (p) {
    memcpy(p, s, n);
    p[n] = 0;
  }
  return p;
}

/* DIR/<line `idx` of names>, malloc'd; NULL when idx < 0. */
static char *path_of_line(const char *dir, const char *names, size_t len, long idx) {
  if (idx < 0) return NULL;
  size_t p = 0;
  for (long i = 0; i < idx && p < len; i++) {
    const char *nl = memchr(names + p, '\n', len - p);
    p = nl ? (size_t)(nl - names) + 1 : len;
  }
  const char *nl = memchr(names + p, '\n', len - p);
  size_t k = nl ? (size_t)(nl - names) - p : len - p;
  char *out = malloc(strlen(dir) + k + 2);
  if (out) sprintf(out, "%s/%.*s", dir, (int)k, names + p);
  return out;
}

/* The optimized HLO beside a dump's report (the core's rule: hs_dumpset_sibling_hlo over the
 * names of the report's folder); malloc'd path, or NULL. */
static char *sibling_hlo(const char *path) {
  const char *slash = strrchr(path, '/');
  char *dir = slash ? copy_n(path, (size_t)(slash - path) + (slash == path)) : copy_n(".", 1);
  size_t len = 0;
  char *names = dir ? dir_names(dir, &len) : NULL;
  char *out = names ? path_of_line(dir, names, len, hs_dumpset_sibling_hlo(names, len, path, strlen(path))) : NULL;
  free(names);
  free(dir);
  return out;
}

static int cmd_memory(const char *path, const char *hlo_path, int json) {
  input in = {0}, hlo = {0};
  int rc = read_input(&in, path);
  if (rc) return rc;
  char *auto_hlo = hlo_path ? NULL : sibling_hlo(path);
  if (hlo_path || auto_hlo) {
    rc = open_input(&hlo, hlo_path ? hlo_path : auto_hlo);
    if (rc && hlo_path) {
      free(in.text);
      close_input(&hlo);
      return rc;
    }
    if (rc) { /* a sibling that does not parse is only not joined */
      close_input(&hlo);
      memset(&hlo, 0, sizeof hlo);
    }
  }
  free(auto_hlo);
  hs_error err;
  size_t n = 0;
  char *out = hs_memory_file_json(in.text, in.len, path, hlo.doc, &err, &n);
  close_input(&hlo);
  if (!out && err.code != HS_E_NOMEM) {
    fprintf(stderr, "%s:%u:%u: %s: %s\n", path, err.line, err.col, hs_code_name(err.code), err.message);
    free(in.text);
    return 2;
  }
  rc = print_result(out, n, json, human_memory);
  free(in.text);
  return rc;
}

/* The after_optimizations HLO for a .ll: DUMP itself when it is a file, else the one in the
 * folder DUMP that the core picks for it (hs_dumpset_hlo_for_ll). Malloc'd path, or NULL. */
static char *find_hlo(const char *dump, const char *ll_path) {
  DIR *dir = opendir(dump);
  if (!dir) return copy_n(dump, strlen(dump));
  closedir(dir);
  const char *base = strrchr(ll_path, '/');
  base = base ? base + 1 : ll_path;
  size_t len = 0;
  char *names = dir_names(dump, &len);
  uint32_t count = 0;
  long idx = names ? hs_dumpset_hlo_for_ll(names, len, ll_path, strlen(ll_path), &count) : -1;
  char *best = count > 1 ? NULL : path_of_line(dump, names, len, idx);
  free(names);
  if (count > 1) fprintf(stderr, "hloscope: %u after_optimizations HLO files in %s match %s: pass one with --hlo FILE\n", count, dump, base);
  else if (!best) fprintf(stderr, "hloscope: no *after_optimizations.txt in %s for %s\n", dump, base);
  return best;
}

static void human_llvm(json_t *j, const char *path) {
  size_t i, k;
  json_t *f, *x;
  printf("%s: %zu functions\n", path, json_array_size(json_object_get(j, "functions")));
  json_array_foreach(json_object_get(j, "functions"), i, f) {
    json_t *hlo = json_object_get(f, "hlo");
    printf("\n@%s%s%s  (%zu params)\n", gets(f, "name"), json_is_string(hlo) ? "  <- HLO " : "",
           json_is_string(hlo) ? json_string_value(hlo) : "", json_array_size(json_object_get(f, "params")));
    json_array_foreach(json_object_get(f, "loops"), k, x) {
      json_t *tc = json_object_get(x, "trip_count");
      if (json_is_integer(tc))
        printf("  loop at depth %lld, header %%%s: trip count %lld\n", geti(x, "depth"), gets(x, "header"),
               (long long)json_integer_value(tc));
      else
        printf("  loop at depth %lld, header %%%s: trip count not constant\n", geti(x, "depth"), gets(x, "header"));
    }
    printf("  loads %lld, stores %lld; vector types:", geti(json_object_get(f, "loads"), "count"),
           geti(json_object_get(f, "stores"), "count"));
    json_array_foreach(json_object_get(f, "vector_widths"), k, x) printf(" %s", json_string_value(x));
    printf("%s\n", json_array_size(json_object_get(f, "vector_widths")) ? "" : " none");
    const char *key;
    printf("  ops:");
    json_object_foreach(json_object_get(f, "ops"), key, x) printf(" %s %lld", key, (long long)json_integer_value(x));
    printf("\n  calls:");
    json_object_foreach(json_object_get(f, "calls"), key, x) printf(" %s %lld", key, (long long)json_integer_value(x));
    printf("\n");
  }
  json_array_foreach(json_object_get(j, "dropped"), i, f) {
    json_t *sh = json_object_get(f, "shapes"), *fu = json_object_get(f, "fusion"), *nm = json_object_get(f, "names");
    printf("\ndropped between HLO %s and @%s:\n", gets(f, "hlo"), gets(f, "function"));
    printf("  shapes and dtypes: %zu operand(s) and a %s result became untyped pointers (%lld parameters, %lld loaded "
           "from memory) and index arithmetic (%lld getelementptr)\n",
           json_array_size(json_object_get(sh, "hlo_operands")),
           json_is_string(json_object_get(sh, "hlo_result")) ? json_string_value(json_object_get(sh, "hlo_result")) : "?",
           geti(sh, "llvm_pointer_params"), geti(sh, "llvm_pointer_loads"), geti(sh, "llvm_getelementptr"));
    printf("  layouts: ");
    json_array_foreach(json_object_get(json_object_get(f, "layouts"), "hlo_layouts"), k, x) printf("%s ", json_string_value(x));
    printf("became index arithmetic over");
    json_array_foreach(json_object_get(json_object_get(f, "layouts"), "llvm_array_types"), k, x) printf(" %s", json_string_value(x));
    printf("\n  fusion boundary: %s (%lld instructions) became function @%s\n",
           json_is_string(json_object_get(fu, "hlo_body")) ? json_string_value(json_object_get(fu, "hlo_body")) : "(no fused body)",
           geti(fu, "hlo_body_instructions"), gets(fu, "llvm_function"));
    printf("  names: %zu HLO names became %lld numbered values (%lld named)\n",
           json_array_size(json_object_get(nm, "hlo_names")), geti(nm, "llvm_numbered"), geti(nm, "llvm_named"));
  }
  print_warnings(json_object_get(j, "warnings"), path);
}

static int cmd_llvm(int argc, char **argv) {
  const char *path = NULL, *dump = NULL;
  int json = 0;
  for (int i = 0; i < argc; i++) {
    if (strcmp(argv[i], "--json") == 0) json = 1;
    else if (strcmp(argv[i], "--hlo") == 0 && i + 1 < argc) dump = argv[++i];
    else if (!path) path = argv[i];
    else {
      usage(stderr);
      return 1;
    }
  }
  if (!path) {
    usage(stderr);
    return 1;
  }
  size_t len = 0, hlen = 0;
  char *text = read_all(path, &len);
  if (!text) {
    fprintf(stderr, "hloscope: cannot read %s: %s\n", path, strerror(errno));
    return 1;
  }
  hs_error err;
  hs_llvm *m = hs_llvm_parse(text, len, &err);
  if (!m) {
    fprintf(stderr, "%s:%u:%u: %s: %s\n", path, err.line, err.col, hs_code_name(err.code), err.message);
    free(text);
    return err.code == HS_E_NOMEM ? 1 : 2;
  }
  char *htext = NULL;
  hs_doc *hlo = NULL;
  int rc = 0;
  if (dump) {
    char *hpath = find_hlo(dump, path);
    htext = hpath ? read_all(hpath, &hlen) : NULL;
    if (!htext) {
      if (hpath) fprintf(stderr, "hloscope: cannot read %s: %s\n", hpath, strerror(errno));
      rc = 1;
    } else if (!(hlo = hs_parse(htext, hlen, &err))) {
      fprintf(stderr, "%s:%u:%u: %s: %s\n", hpath, err.line, err.col, hs_code_name(err.code), err.message);
      rc = 2;
    }
    free(hpath);
  }
  if (!rc) {
    size_t n = 0;
    char *out = hs_llvm_json(m, hlo, &n);
    if (!out) {
      fprintf(stderr, "hloscope: out of memory\n");
      rc = 1;
    } else if (json) {
      fwrite(out, 1, n, stdout);
      fputc('\n', stdout);
    } else {
      json_error_t e;
      json_t *j = json_loadb(out, n, 0, &e);
      human_llvm(j, path);
      json_decref(j);
    }
    hs_free(out);
  }
  hs_doc_free(hlo);
  hs_llvm_free(m);
  free(htext);
  free(text);
  return rc;
}

/* ---- diff -------------------------------------------------------------------------------- */
static void print_names(json_t *arr) {
  size_t i;
  json_t *x;
  json_array_foreach(arr, i, x) printf("%s%s", i ? ", " : "", json_string_value(x));
  if (!json_array_size(arr)) printf("-");
}

static void human_diff(json_t *j, const char *pa, const char *pb) {
  printf("%s\n", gets(j, "verdict"));
  const char *sides[2] = {"a", "b"}, *paths[2] = {pa, pb};
  for (int s = 0; s < 2; s++) {
    json_t *x = json_object_get(j, sides[s]), *h = json_object_get(x, "hbm_bytes");
    printf("\n%s: %s: %lld instructions, %lld fusion ops, %lld fusion computations", s ? "B" : "A", paths[s],
           geti(x, "instructions"), geti(x, "fusion_ops"), geti(x, "fusion_computations"));
    if (json_is_integer(json_object_get(h, "read")))
      printf(", HBM read %lld written %lld bytes", geti(h, "read"), geti(h, "written"));
    if (!json_is_null(json_object_get(x, "partial"))) printf(" (cut short)");
  }
  json_t *m = json_object_get(j, "matched"), *by = json_object_get(m, "by");
  printf("\n\nmatched %lld instructions (structure %lld, op_name %lld, source %lld, name %lld); unmatched: A %lld, B %lld\n",
         geti(m, "instructions"), geti(by, "structure"), geti(by, "op_name"), geti(by, "source"), geti(by, "name"),
         geti(m, "unmatched_a"), geti(m, "unmatched_b"));
  size_t i, same = 0;
  json_t *f;
  json_array_foreach(json_object_get(j, "fusions"), i, f) {
    if (strcmp(gets(f, "change"), "same") == 0) {
      same++;
      continue;
    }
    printf("  %-8s A: ", gets(f, "change"));
    print_names(json_object_get(f, "a"));
    printf("  B: ");
    print_names(json_object_get(f, "b"));
    if (json_array_size(json_object_get(f, "moved"))) {
      printf("\n           moved: ");
      print_names(json_object_get(f, "moved"));
    }
    if (json_array_size(json_object_get(f, "source"))) {
      printf("\n           source: ");
      print_names(json_object_get(f, "source"));
    }
    printf("\n");
  }
  printf("  %zu fusion groups the same\n", same);
  json_array_foreach(json_object_get(j, "materialized"), i, f)
    printf("materialized %s on %s: %s %s (%lld bytes)\n", gets(f, "change"), strcmp(gets(f, "side"), "b") ? "A" : "B",
           gets(f, "value"), gets(f, "shape"), geti(f, "bytes"));
  json_array_foreach(json_object_get(j, "calls"), i, f)
    printf("call %s %s: A %lld, B %lld\n", gets(f, "target"), gets(f, "change"), geti(f, "a"), geti(f, "b"));
  /* what each side was compiled with, where the two differ (a value a side lacks: "-") */
  json_array_foreach(json_object_get(j, "environment"), i, f) {
    json_t *va = json_object_get(f, "a"), *vb = json_object_get(f, "b");
    if (json_equal(va, vb)) continue;
    char *xa = json_is_string(va) || json_is_null(va) || !va ? NULL : json_dumps(va, JSON_ENCODE_ANY);
    char *xb = json_is_string(vb) || json_is_null(vb) || !vb ? NULL : json_dumps(vb, JSON_ENCODE_ANY);
    printf("environment %s: A %s, B %s\n", gets(f, "key"), json_is_string(va) ? json_string_value(va) : xa ? xa : "-",
           json_is_string(vb) ? json_string_value(vb) : xb ? xb : "-");
    free(xa);
    free(xb);
  }
  json_t *t = json_object_get(j, "time");
  if (json_is_object(t)) {
    char x[32], y[32];
    for (int s = 0; s < 2; s++) {
      json_t *v = json_object_get(t, s ? "b_ps" : "a_ps"), *g = json_object_get(t, s ? "b_program" : "a_program");
      if (json_is_integer(v)) {
        fmt_ps((unsigned long long)json_integer_value(v), x, sizeof x);
        printf("time %s: %s per run, %lld runs (%s, program %s)\n", s ? "B" : "A", x, geti(t, s ? "b_runs" : "a_runs"), gets(g, "name"),
               gets(g, "program_id"));
      } else {
        printf("time %s: unknown\n", s ? "B" : "A");
      }
    }
    size_t shown = 0, n_ops = json_array_size(json_object_get(t, "ops"));
    json_array_foreach(json_object_get(t, "ops"), i, f) {
      if (shown++ == 10) {
        printf("  ... %zu more ops\n", n_ops - 10);
        break;
      }
      json_t *va = json_object_get(f, "a_ps"), *vb = json_object_get(f, "b_ps");
      if (json_is_integer(va)) fmt_ps((unsigned long long)json_integer_value(va), x, sizeof x);
      else snprintf(x, sizeof x, "-");
      if (json_is_integer(vb)) fmt_ps((unsigned long long)json_integer_value(vb), y, sizeof y);
      else snprintf(y, sizeof y, "-");
      printf("  A %s %s  B %s %s\n", x, gets(f, "a"), y, gets(f, "b"));
    }
  }
}

/* A side of the diff: an optimized HLO file, or a dump folder or its archive (.tar.gz, .tgz,
 * .tar, .zip), read by the core's dump-folder reader: its modules' *after_optimizations.txt are
 * one text of several modules (the core pairs modules by name), and the set stays for `passes`. */

static int open_side(input *in, hs_dumpset **set, const char *path) {
  *set = NULL;
  DIR *dir = strcmp(path, "-") == 0 ? NULL : opendir(path);
  if (dir) closedir(dir);
  if (!dir && !hs_cli_is_archive_name(path)) return open_input(in, path);
  in->path = path;
  if (!(*set = hs_dumpset_new())) {
    fprintf(stderr, "hloscope: out of memory\n");
    return 1;
  }
  int rc = hs_cli_dumpset_add_path(*set, path);
  if (rc) return rc;
  uint32_t modules = 0;
  in->text = hs_dumpset_optimized_hlo(*set, &in->len, &modules);
  if (!in->text) {
    fprintf(stderr, "hloscope: %s holds no *after_optimizations.txt that reads as HLO (a dump folder of --xla_dump_to)\n", path);
    return 1;
  }
  return parse_input(in);
}

/* hloscope diff [--json] [--fail-on LIST] [--profiles PA PB] A B: exit 3 when a --fail-on condition holds */
static int cmd_diff(int argc, char **argv) {
  const char *paths[2] = {NULL, NULL}, *fail_on = NULL, *profs[2] = {NULL, NULL}, *envs[2] = {NULL, NULL};
  int json = 0, n = 0;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--json") == 0) json = 1;
    else if (strcmp(argv[i], "--fail-on") == 0 && i + 1 < argc) fail_on = argv[++i];
    else if (strcmp(argv[i], "--profiles") == 0 && i + 2 < argc) profs[0] = argv[i + 1], profs[1] = argv[i + 2], i += 2;
    else if (strcmp(argv[i], "--environment") == 0 && i + 2 < argc) envs[0] = argv[i + 1], envs[1] = argv[i + 2], i += 2;
    else if ((argv[i][0] != '-' || strcmp(argv[i], "-") == 0) && n < 2) paths[n++] = argv[i];
    else n = 3;
  }
  if (n != 2) {
    usage(stderr);
    return 1;
  }
  input a = {0}, b = {0};
  hs_dumpset *sets[2] = {NULL, NULL};
  int rc = open_side(&a, &sets[0], paths[0]);
  if (!rc) rc = open_side(&b, &sets[1], paths[1]);
  for (int s = 0; s < 2 && !rc; s++) {
    const input *x = s ? &b : &a;
    if (hs_doc_format(x->doc) != HS_FORMAT_HLO) {
      fprintf(stderr, "hloscope: %s is %s, not HLO: diff compares two optimized HLO modules (compile().as_text())\n", x->path,
              hs_format_name(hs_doc_format(x->doc)));
      rc = 1;
    }
  }
  /* two dump folders: their passes compared, as `passes --compare` gives them */
  hs_diff_extra extra = {0};
  char *passes = NULL;
  if (!rc && sets[0] && sets[1]) {
    hs_error perr;
    passes = hs_dumpset_compare_json(sets[0], sets[1], &perr, &extra.passes_len);
    extra.passes = passes;
  }
  /* a dump folder's debug and compile options, and what a host knows of each compile (a JSON
   * object per side, e.g. hloscope's Python from jax objects): the diff's environment */
  char *env_text[2] = {NULL, NULL}, *dump_env[2] = {NULL, NULL};
  for (int s = 0; s < 2 && !rc; s++) {
    size_t el = 0;
    if (sets[s] && !(dump_env[s] = hs_dumpset_environment_json(sets[s], &el))) rc = 1;
    if (s) extra.env_b = dump_env[s], extra.env_b_len = el;
    else extra.env_a = dump_env[s], extra.env_a_len = el;
  }
  hs_dumpset_free(sets[0]); /* what the diff needs of the folders is read out */
  hs_dumpset_free(sets[1]);
  for (int s = 0; s < 2 && !rc && envs[0]; s++) {
    size_t el = 0;
    if (!(env_text[s] = hs_cli_read_all(envs[s], &el))) {
      fprintf(stderr, "hloscope: cannot read %s (--environment: a JSON object of each side's compile facts)\n", envs[s]);
      rc = 1;
    }
    if (s) extra.host_env_b = env_text[s], extra.host_env_b_len = el;
    else extra.host_env_a = env_text[s], extra.host_env_a_len = el;
  }
  /* a profile of each side's runs: the diff's time */
  hs_profile *pr[2] = {NULL, NULL};
  for (int s = 0; s < 2 && !rc && profs[0]; s++) {
    pr[s] = hs_cli_load_profiles(&profs[s], 1, &rc);
    if (!pr[s] && !rc) rc = 1;
  }
  extra.profile_a = pr[0];
  extra.profile_b = pr[1];
  size_t len = 0;
  char *out = rc ? NULL : hs_diff_json_ex(a.doc, b.doc, &extra, &len);
  for (int s = 0; s < 2; s++) {
    free(env_text[s]);
    hs_free(dump_env[s]);
    hs_profile_free(pr[s]);
  }
  hs_free(passes);
  if (rc) {
    close_input(&a);
    close_input(&b);
    return rc;
  }
  char why[2048] = "";
  int holds = 0;
  if (out && fail_on) {
    holds = hs_diff_fail_on(out, len, fail_on, why, sizeof why);
    if (holds < 0) {
      fprintf(stderr, "hloscope: --fail-on: %s\n", why);
      hs_free(out);
      close_input(&a);
      close_input(&b);
      return 1;
    }
  }
  if (!out) {
    fprintf(stderr, "hloscope: out of memory\n");
    rc = 1;
  } else if (json) {
    fwrite(out, 1, len, stdout);
    fputc('\n', stdout);
  } else {
    json_error_t e;
    json_t *j = json_loadb(out, len, 0, &e);
    human_diff(j, paths[0], paths[1]);
    json_decref(j);
  }
  if (out && holds > 0) {
    json_error_t e;
    json_t *j = json_loadb(out, len, 0, &e);
    fprintf(stderr, "hloscope diff: --fail-on %s: %s\n%s\n", fail_on, why, gets(j, "verdict"));
    json_decref(j);
    rc = 3;
  }
  hs_free(out);
  close_input(&a);
  close_input(&b);
  return rc;
}

/* ---- dispatch: one handler per row of the core's command table -------------------------- */
/* Commands over one document: the row's result kind, and how a person reads it. */
static int cmd_document(const hs_command *c, const char *path, int json) {
  static const struct {
    const char *kind;
    void (*human)(json_t *);
  } HUMAN[] = {{"fusions", human_fusions}, {"spills", human_spills}, {"computations", human_computations},
               {"layouts", human_layouts}, {"decisions", human_decisions}, {"overlap", human_overlap}};
  int kind = 0;
  while (hs_kind_name(kind) && strcmp(hs_kind_name(kind), c->kind) != 0) kind++;
  input a = {0};
  int rc = open_input(&a, path);
  if (rc) {
    close_input(&a);
    return rc;
  }
  size_t n = 0;
  char *out = hs_kind_json(a.doc, kind, &n);
  if (!out) {
    fprintf(stderr, "hloscope: out of memory\n");
    rc = 1;
  } else if (json) {
    fwrite(out, 1, n, stdout);
    fputc('\n', stdout);
  } else {
    json_error_t e;
    json_t *j = json_loadb(out, n, 0, &e);
    if (strcmp(c->kind, "summary") == 0) human_summary(j, path);
    for (size_t i = 0; i < sizeof HUMAN / sizeof HUMAN[0]; i++)
      if (strcmp(HUMAN[i].kind, c->kind) == 0) HUMAN[i].human(j);
    json_decref(j);
  }
  hs_free(out);
  close_input(&a);
  return rc;
}

static int cmd_xray(const char *left, const char *right, int json) {
  input a = {0}, b = {0};
  int rc = open_left(&a, left);
  if (!rc) rc = open_input(&b, right);
  if (rc) {
    close_input(&a);
    close_input(&b);
    return rc;
  }
  size_t n = 0;
  char *out = hs_xray_json(a.doc, b.doc, &n);
  if (!out) {
    fprintf(stderr, "hloscope: out of memory\n");
    rc = 1;
  } else if (json) {
    fwrite(out, 1, n, stdout);
    fputc('\n', stdout);
  } else {
    json_error_t e;
    json_t *j = json_loadb(out, n, 0, &e);
    /* the texts need NUL termination for the line walk */
    char *lt = malloc(a.len + 1), *rt = malloc(b.len + 1);
    if (lt && rt) {
      memcpy(lt, a.text, a.len);
      lt[a.len] = 0;
      memcpy(rt, b.text, b.len);
      rt[b.len] = 0;
      human_xray(j, left, right, lt, rt);
    }
    free(lt);
    free(rt);
    json_decref(j);
  }
  hs_free(out);
  close_input(&a);
  close_input(&b);
  return rc;
}

static int cmd_registry(void) {
  size_t n = 0;
  char *r = hs_registry_json(&n);
  if (!r) return 1;
  fwrite(r, 1, n, stdout);
  fputc('\n', stdout);
  hs_free(r);
  return 0;
}

/* A handler takes the row's positional inputs (args[0..nargs)) after the generic options;
 * a handler with `argv` set reads the whole command line itself (its options take values). */
typedef struct {
  const char *name;
  int (*argv)(int argc, char **argv); /* argv[0] is the command's name */
  int (*args)(const hs_command *c, const char **args, int nargs, int json);
} handler;

static int passes_argv(int argc, char **argv) { return hs_cli_passes(argc - 1, argv + 1); }
static int llvm_argv(int argc, char **argv) { return cmd_llvm(argc - 1, argv + 1); }
static int report_argv(int argc, char **argv) { return hs_cli_report(argc, argv); }
static int document_args(const hs_command *c, const char **a, int n, int json) { return cmd_document(c, a[0], json); }
static int xray_args(const hs_command *c, const char **a, int n, int json) { return cmd_xray(a[0], a[1], json); }
static int layout_args(const hs_command *c, const char **a, int n, int json) { return cmd_layout(a[0], json); }
static int memory_args(const hs_command *c, const char **a, int n, int json) { return cmd_memory(a[0], n > 1 ? a[1] : NULL, json); }
static int version_args(const hs_command *c, const char **a, int n, int json) {
  printf("hloscope %s\n", HS_VERSION);
  return 0;
}
static int registry_args(const hs_command *c, const char **a, int n, int json) { return cmd_registry(); }

static const handler HANDLERS[] = {
    {"summary", NULL, document_args},      {"fusions", NULL, document_args}, {"spills", NULL, document_args},
    {"computations", NULL, document_args}, {"layouts", NULL, document_args}, {"decisions", NULL, document_args},
    {"overlap", NULL, document_args},
    {"xray", NULL, xray_args},             {"profile", cmd_profile, NULL},  {"layout", NULL, layout_args},
    {"memory", NULL, memory_args},         {"version", NULL, version_args},  {"registry", NULL, registry_args},
    {"passes", passes_argv, NULL},         {"timeline", cmd_timeline, NULL}, {"llvm", llvm_argv, NULL},
    {"diff", cmd_diff, NULL},              {"report", report_argv, NULL},
};

static const handler *handler_for(const char *name) {
  for (size_t i = 0; i < sizeof HANDLERS / sizeof HANDLERS[0]; i++)
    if (strcmp(HANDLERS[i].name, name) == 0) return &HANDLERS[i];
  return NULL;
}

int main(int argc, char **argv) {
  /* a command that reads its own options (they take values) sees the whole line */
  const handler *h = argc > 1 && hs_command_find(argv[1], NULL) ? handler_for(argv[1]) : NULL;
  if (h && h->argv) return h->argv(argc - 1, argv + 1);
  int json = 0;
  const char *args[4];
  int nargs = 0;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--json") == 0) json = 1;
    else if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "help") == 0) {
      usage(stdout);
      return 0;
    } else if (strcmp(argv[i], "--version") == 0) {
      printf("hloscope %s\n", HS_VERSION);
      return 0;
    } else if (nargs < 4) args[nargs++] = argv[i];
    else {
      usage(stderr);
      return 1;
    }
  }
  if (nargs < 1) {
    usage(stderr);
    return 1;
  }
  const hs_command *c = hs_command_find(args[0], NULL);
  h = c ? handler_for(c->name) : NULL;
  if (!h) {
    fprintf(stderr, "hloscope: unknown command '%s'\n", args[0]);
    usage(stderr);
    return 1;
  }
  /* the row's positional inputs: the required ones, and at most all of them */
  int need = 0, most = 0;
  for (size_t i = 0; i < c->n_inputs; i++)
    if (!c->inputs[i].flag) most++, need += !c->inputs[i].optional;
  if (nargs - 1 < need || nargs - 1 > most) {
    usage(stderr);
    return 1;
  }
  return h->args(c, args + 1, nargs - 1, json);
}
