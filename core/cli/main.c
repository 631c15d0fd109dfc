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
#if defined(__linux__) && !defined(_DEFAULT_SOURCE)
#define _DEFAULT_SOURCE 1 /* mmap's MAP_POPULATE (map_input) */
#endif
#include <errno.h>
#include <jansson.h>
#if defined(__GLIBC__)
#include <malloc.h>
#endif
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
  const char *text;
  size_t len;
  hs_doc *doc;
  size_t mapped; /* text is the file mapped (its length), not malloc'd (0) */
} input;

/* A big regular file is mapped, not read: read() copied it from the page cache into memory that
 * was faulted in a page at a time, which took a third of `summary` on 60 MB, more than the
 * parse's half of it. The mapping is read-only (the core only reads its input) and is filled in
 * one call (MAP_POPULATE). A file cut short by another program while it is read would stop the
 * process (SIGBUS): small files, stdin and hosts without mmap are read as before. */
#if defined(__linux__) && !defined(__wasi__) && !defined(__EMSCRIPTEN__)
#define HS_CLI_MMAP 1
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>
#endif

static int map_input(input *in, const char *path) {
#ifdef HS_CLI_MMAP
  if (strcmp(path, "-") == 0) return 0;
  int fd = open(path, O_RDONLY);
  if (fd < 0) return 0;
  struct stat st;
  void *m = MAP_FAILED;
  if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size >= (1 << 20) && (uint64_t)st.st_size < SIZE_MAX / 2)
    m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
  close(fd);
  if (m == MAP_FAILED) return 0;
  in->text = m;
  in->len = in->mapped = (size_t)st.st_size;
  return 1;
#else
  (void)in;
  (void)path;
  return 0;
#endif
}

static void free_text(input *in) {
#ifdef HS_CLI_MMAP
  if (in->mapped) {
    munmap((void *)in->text, in->mapped);
    in->text = NULL;
    in->mapped = 0;
    return;
  }
#endif
  free((void *)in->text);
  in->text = NULL;
}

static int read_input(input *in, const char *path) {
  in->path = path;
  if (map_input(in, path)) return 0;
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
  free_text(in);
}

/* Prints a result: its JSON as is, or the core's text of it (hs_text, by the command table's
 * result kind). Frees `out`; 1 when it was NULL (out of memory). */
int hs_cli_emit(char *out, size_t n, int json, const char *kind, const hs_text_input *tin) {
  if (!out) {
    fprintf(stderr, "hloscope: out of memory\n");
    return 1;
  }
  if (json) {
    fwrite(out, 1, n, stdout);
    fputc('\n', stdout);
  } else {
    size_t tl = 0;
    char *t = hs_text(kind, out, n, tin, &tl);
    if (!t) {
      fprintf(stderr, "hloscope: out of memory\n");
      hs_free(out);
      return 1;
    }
    fwrite(t, 1, tl, stdout);
    hs_free(t);
  }
  hs_free(out);
  return 0;
}

/* The inputs as named, for the text's headers and warnings. */
static hs_text_input named(const char *path, const char *path_b) {
  hs_text_input t;
  memset(&t, 0, sizeof t);
  t.path = path;
  t.path_b = path_b;
  return t;
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
  hs_text_input tin = named(path, NULL);
  return hs_cli_emit(out, n, json, "timeline", &tin);
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
  hs_text_input tin = named(path, NULL);
  return hs_cli_emit(out, n, json, "profile", &tin);
}

static int cmd_layout(const char *type, int json) {
  hs_error err;
  size_t n = 0;
  char *out = hs_layout_json(type, strlen(type), &err, &n);
  if (!out && err.code != HS_E_NOMEM) {
    fprintf(stderr, "type:%u:%u: %s: %s\n", err.line, err.col, hs_code_name(err.code), err.message);
    return 2;
  }
  return hs_cli_emit(out, n, json, "layout", NULL);
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

/* The report, joined to the optimized HLO (HLO, else the dump's own beside it): an HLO that does not
 * parse is not joined, and the core's warning says where it failed (hs_memory_read_json). */
static int cmd_memory(const char *path, const char *hlo_path, int json) {
  input in = {0}, hlo = {0};
  int rc = read_input(&in, path);
  if (rc) return rc;
  char *auto_hlo = hlo_path ? NULL : sibling_hlo(path);
  if ((hlo_path || auto_hlo) && (rc = read_input(&hlo, hlo_path ? hlo_path : auto_hlo)) != 0 && hlo_path) {
    free(auto_hlo);
    free_text(&in);
    return rc;
  }
  free(auto_hlo);
  hs_error err;
  size_t n = 0;
  char *out = hs_memory_read_json(in.text, in.len, path, hlo.text, hlo.len, &err, &n);
  free_text(&hlo);
  if (!out && err.code != HS_E_NOMEM) {
    fprintf(stderr, "%s:%u:%u: %s: %s\n", path, err.line, err.col, hs_code_name(err.code), err.message);
    free_text(&in);
    return 2;
  }
  rc = hs_cli_emit(out, n, json, "memory", NULL);
  free_text(&in);
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
    hs_text_input tin = named(path, NULL);
    char *out = hs_llvm_json(m, hlo, &n);
    rc = hs_cli_emit(out, n, json, "llvm", &tin);
  }
  hs_doc_free(hlo);
  hs_llvm_free(m);
  free(htext);
  free(text);
  return rc;
}

/* ---- diff -------------------------------------------------------------------------------- */
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
  /* the verdict the --fail-on message repeats, read before the result is printed (and freed) */
  char *verdict = NULL;
  if (out && holds > 0) {
    json_error_t e;
    json_t *j = json_loadb(out, len, 0, &e);
    const char *v = json_string_value(json_object_get(j, "verdict"));
    verdict = v ? copy_n(v, strlen(v)) : NULL;
    json_decref(j);
  }
  hs_text_input tin = named(paths[0], paths[1]);
  rc = hs_cli_emit(out, len, json, "diff", &tin);
  if (holds > 0) {
    fprintf(stderr, "hloscope diff: --fail-on %s: %s\n%s\n", fail_on, why, verdict ? verdict : "-");
    rc = 3;
  }
  free(verdict);
  close_input(&a);
  close_input(&b);
  return rc;
}

/* ---- dispatch: one handler per row of the core's command table -------------------------- */
/* Commands over one document: the row's result kind, its JSON and the core's text of it. */
static int cmd_document(const hs_command *c, const char *path, int json) {
  int kind = 0;
  while (hs_kind_name(kind) && strcmp(hs_kind_name(kind), c->kind) != 0) kind++;
  input a = {0};
  int rc = open_input(&a, path);
  if (!rc) {
    size_t n = 0;
    hs_text_input tin = named(path, NULL);
    char *out = hs_kind_json(a.doc, kind, &n);
    rc = hs_cli_emit(out, n, json, c->kind, &tin);
  }
  close_input(&a);
  return rc;
}

static int cmd_xray(const char *left, const char *right, int json) {
  input a = {0}, b = {0};
  int rc = open_left(&a, left);
  if (!rc) rc = open_input(&b, right);
  if (!rc) {
    size_t n = 0;
    hs_text_input tin = named(left, right);
    tin.text = a.text, tin.len = a.len, tin.text_b = b.text, tin.len_b = b.len;
    char *out = hs_xray_json(a.doc, b.doc, &n);
    rc = hs_cli_emit(out, n, json, "xray", &tin);
  }
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
#if defined(__GLIBC__)
  /* blocks of 1 MB and more (a document's arrays) are each their own mapping, given back when
     freed: glibc would otherwise raise that line to the size of what was freed and serve the next
     document's arrays from a heap it keeps, so a command that reads several files holds the
     memory of those read before (bench/bench_parse.c does the same) */
  mallopt(M_MMAP_THRESHOLD, 1 << 20);
#endif
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
