/* Runs one case folder of tests/cases (README.md there says the format): parses input.* and
 * checks each line of `expect`. One ctest per folder. Exit 0 pass, 1 fail, 77 skipped (the
 * input lives in ../shared, which is absent). */
#define _DEFAULT_SOURCE
#include <dirent.h>
#include <stdbool.h>

#include "testutil.h"

static int failures;

static void failf(const char *expect_path, int line_no, const char *fmt, const char *a, const char *b) {
  fprintf(stderr, "%s:%d: ", expect_path, line_no);
  fprintf(stderr, fmt, a, b);
  fputc('\n', stderr);
  failures++;
}

static int kind_of(const char *name) {
  for (int k = 0; k < HS_KIND_COUNT; k++)
    if (strcmp(hs_kind_name(k), name) == 0) return k;
  return -1;
}

/* "KIND PATH = JSON" or "KIND PATH >= NUMBER" against the parsed document. */
static void check_value(hs_doc *d, json_t *results[], const char *ep, int ln, char *line) {
  char kind[64], path[512], op[4];
  int used = 0;
  if (sscanf(line, "%63s %511s %3s %n", kind, path, op, &used) != 3 || !used) {
    failf(ep, ln, "cannot read this line: %s%s", line, "");
    return;
  }
  const char *want_text = line + used;
  int k = kind_of(kind);
  if (k < 0) {
    failf(ep, ln, "unknown result kind %s%s", kind, "");
    return;
  }
  if (!d) {
    failf(ep, ln, "the input did not parse, so %s %s cannot be checked", kind, path);
    return;
  }
  if (!results[k]) results[k] = tu_json(hs_kind_json(d, k, NULL));
  bool length = false;
  size_t pl = strlen(path);
  if (pl >= 1 && path[pl - 1] == '#' && (pl == 1 || path[pl - 2] == '/')) {
    length = true;
    path[pl >= 2 ? pl - 2 : 0] = 0;
  }
  json_t *got = tu_path(results[k], path);
  json_t *own = NULL;
  if (got && length) got = own = json_is_array(got) ? json_integer((json_int_t)json_array_size(got)) : NULL;
  json_error_t je;
  json_t *want = json_loads(want_text, JSON_DECODE_ANY, &je);
  char *gs = got ? json_dumps(got, JSON_ENCODE_ANY | JSON_COMPACT) : NULL;
  if (!want) {
    failf(ep, ln, "the expected value is not JSON: %s%s", want_text, "");
  } else if (!got) {
    failf(ep, ln, "%s: no such value in the result%s", path, "");
  } else if (strcmp(op, "=") == 0) {
    bool same = json_equal(got, want) ||
                (json_is_number(got) && json_is_number(want) && json_number_value(got) == json_number_value(want));
    if (!same) failf(ep, ln, "got %s, expected %s", gs, want_text);
  } else if (strcmp(op, ">=") == 0) {
    if (!json_is_number(got) || !json_is_number(want) || json_number_value(got) < json_number_value(want))
      failf(ep, ln, "got %s, expected at least %s", gs ? gs : "?", want_text);
  } else {
    failf(ep, ln, "unknown comparison %s%s", op, "");
  }
  free(gs);
  json_decref(want);
  json_decref(own);
}

/* "error LINE COL CODE [TEXT]": '*' for a position that is not checked. */
static void check_error(hs_doc *d, const hs_error *err, const char *ep, int ln, const char *line) {
  char l[16], c[16], code[64];
  int used = 0;
  if (sscanf(line, "error %15s %15s %63s %n", l, c, code, &used) < 3) {
    failf(ep, ln, "cannot read this line: %s%s", line, "");
    return;
  }
  const char *text = used ? line + used : "";
  if (d) {
    failf(ep, ln, "the input parsed, expected the error %s%s", code, "");
    return;
  }
  char got[64];
  snprintf(got, sizeof got, "%s", hs_code_name(err->code));
  if (strcmp(got, code) != 0) failf(ep, ln, "error code %s, expected %s", got, code);
  char num[32];
  snprintf(num, sizeof num, "%u", err->line);
  if (strcmp(l, "*") != 0 && strcmp(l, num) != 0) failf(ep, ln, "error at line %s, expected %s", num, l);
  snprintf(num, sizeof num, "%u", err->col);
  if (strcmp(c, "*") != 0 && strcmp(c, num) != 0) failf(ep, ln, "error at column %s, expected %s", num, c);
  if (*text && !strstr(err->message, text)) failf(ep, ln, "error message \"%s\" lacks \"%s\"", err->message, text);
}

/* The text of input.* in dir (input.shared: the file under ../shared it names). */
static char *read_input(const char *dir, size_t *len, bool *skipped) {
  DIR *dd = opendir(dir);
  if (!dd) return NULL;
  char name[512] = "";
  struct dirent *e;
  while ((e = readdir(dd)))
    if (strncmp(e->d_name, "input.", 6) == 0) snprintf(name, sizeof name, "%s", e->d_name);
  closedir(dd);
  if (!*name) return NULL;
  char path[4096];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  char *t = tu_read(path, len);
  if (!t || strcmp(name, "input.shared") != 0) return t;
  t[strcspn(t, "\r\n")] = 0;
  char shared[4096];
  if (!tu_shared(shared, sizeof shared, t)) {
    tu_say_shared_absent(t);
    *skipped = true;
    free(t);
    return NULL;
  }
  free(t);
  return tu_read(shared, len);
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: test_cases tests/cases/<case>\n");
    return 2;
  }
  const char *dir = argv[1];
  size_t len = 0;
  bool skipped = false;
  char *text = read_input(dir, &len, &skipped);
  if (skipped) return 77;
  if (!text) {
    fprintf(stderr, "%s: no readable input.* file\n", dir);
    return 1;
  }
  char ep[4096];
  snprintf(ep, sizeof ep, "%s/expect", dir);
  size_t elen;
  char *expect = tu_read(ep, &elen);
  if (!expect) {
    fprintf(stderr, "%s: missing\n", ep);
    free(text);
    return 1;
  }
  hs_error err;
  hs_doc *d = hs_parse(text, len, &err);
  json_t *results[HS_KIND_COUNT] = {0};
  int ln = 0, checks = 0;
  bool error_expected = false;
  for (char *line = expect; line && *line;) {
    char *nl = strchr(line, '\n');
    if (nl) *nl = 0;
    ln++;
    size_t n = strlen(line);
    while (n && (line[n - 1] == '\r' || line[n - 1] == ' ')) line[--n] = 0;
    if (n && line[0] != '#') {
      checks++;
      if (strncmp(line, "error ", 6) == 0) {
        error_expected = true;
        check_error(d, &err, ep, ln, line);
      }
      else check_value(d, results, ep, ln, line);
    }
    line = nl ? nl + 1 : NULL;
  }
  if (!checks) failf(ep, 0, "no checks in %s%s", ep, "");
  if (!d && !failures && !error_expected) failf(ep, 0, "the input did not parse: %s%s", err.message, "");
  for (int k = 0; k < HS_KIND_COUNT; k++) json_decref(results[k]);
  hs_doc_free(d);
  free(expect);
  free(text);
  printf("%s: %d checks, %d failed\n", dir, checks, failures);
  return failures ? 1 : 0;
}
