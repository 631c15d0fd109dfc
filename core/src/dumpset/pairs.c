/* Which files of a dump folder go together, read off their names alone (the hosts list a
 * folder's names, ask here, then read only the files named back):
 *   - the optimized HLO of a memory text: module_X.<...>after_optimizations-buffer-assignment.txt
 *     (or -buffer-assignment-values.txt, -memory-usage-report.txt) -> module_X.<...>after_optimizations.txt;
 *   - the optimized HLO of a .ll: the *after_optimizations.txt whose "module_NNNN." the .ll's name
 *     shares (or any, when the .ll names no module);
 *   - the three levels of one module (HLO, LLVM IR before and after LLVM's optimizer), for the
 *     levels view.
 * Names come as one text, one name a line (a path keeps its folders; its base name is matched). */
#include <stdio.h>
#include <stdlib.h>

#include "dumpset/dumpset.h"

typedef struct {
  const char *s; /* the whole name (a path) */
  size_t n;
  const char *base; /* its last component */
  size_t bn;
  uint32_t index; /* its line */
} name_t;

/* The names of a listing, one a line (blank lines skipped, a "\r" before "\n" dropped); their
 * count, or -1 on allocation failure. */
static long split(const char *text, size_t len, name_t **out) {
  *out = NULL;
  size_t cap = 0, n = 0;
  uint32_t line = 0;
  for (size_t p = 0; text && p < len; line++) {
    const char *e = memchr(text + p, '\n', len - p);
    size_t end = e ? (size_t)(e - text) : len, z = end;
    if (z > p && text[z - 1] == '\r') z--;
    if (z > p) {
      if (n == cap) {
        cap = cap ? cap * 2 : 64;
        name_t *nn = realloc(*out, cap * sizeof *nn);
        if (!nn) {
          free(*out);
          *out = NULL;
          return -1;
        }
        *out = nn;
      }
      name_t *nm = &(*out)[n++];
      nm->s = text + p;
      nm->n = z - p;
      size_t b = z;
      while (b > p && text[b - 1] != '/' && text[b - 1] != '\\') b--;
      nm->base = text + b;
      nm->bn = z - b;
      nm->index = line;
    }
    p = end + 1;
  }
  return (long)n;
}

static bool ends(const char *s, size_t n, const char *suf) {
  size_t k = strlen(suf);
  return n >= k && memcmp(s + n - k, suf, k) == 0;
}

static bool contains(const char *s, size_t n, const char *t, size_t tn) {
  if (!tn) return true;
  for (size_t i = 0; i + tn <= n; i++)
    if (memcmp(s + i, t, tn) == 0) return true;
  return false;
}

/* Byte order of two names, shorter first on a common prefix (strcmp's). */
static int order(const name_t *a, const name_t *b) {
  size_t k = a->n < b->n ? a->n : b->n;
  int c = memcmp(a->s, b->s, k);
  return c ? c : a->n < b->n ? -1 : a->n > b->n;
}

long hs_dumpset_sibling_hlo(const char *names, size_t len, const char *report, size_t report_len) {
  static const char *const suffixes[] = {"-buffer-assignment-values.txt", "-buffer-assignment.txt", "-memory-usage-report.txt"};
  if (!report) return -1;
  size_t b = report_len;
  while (b > 0 && report[b - 1] != '/' && report[b - 1] != '\\') b--;
  const char *base = report + b;
  size_t bn = report_len - b;
  size_t stem = 0;
  for (int i = 0; i < 3 && !stem; i++)
    if (bn > strlen(suffixes[i]) && ends(base, bn, suffixes[i])) stem = bn - strlen(suffixes[i]);
  if (!stem) return -1;
  name_t *list;
  long n = split(names, len, &list);
  long found = -1;
  for (long i = 0; i < n && found < 0; i++)
    if (list[i].bn == stem + 4 && memcmp(list[i].base, base, stem) == 0 && memcmp(list[i].base + stem, ".txt", 4) == 0)
      found = list[i].index;
  free(list);
  return n < 0 ? HS_E_NOMEM : found;
}

/* "module_0001." anywhere in a base name (dumps copied with a prefix too); its length, or 0. */
static size_t module_token(const char *s, size_t n, const char **at) {
  for (size_t i = 0; i + 7 < n; i++) {
    if (memcmp(s + i, "module_", 7) != 0) continue;
    size_t k = i + 7;
    while (k < n && s[k] >= '0' && s[k] <= '9') k++;
    if (k > i + 7 && k < n && s[k] == '.') {
      *at = s + i;
      return k + 1 - i;
    }
  }
  return 0;
}

static bool is_optimized_hlo(const name_t *f) { return ends(f->base, f->bn, "after_optimizations.txt"); }

/* The first (in byte order) optimized HLO of the module `tok` (any, when tn is 0); its position
 * in list, or -1; *count: how many match. */
static long hlo_of(const name_t *list, long n, const char *tok, size_t tn, uint32_t *count) {
  long best = -1;
  uint32_t c = 0;
  for (long i = 0; i < n; i++) {
    if (!is_optimized_hlo(&list[i]) || !contains(list[i].base, list[i].bn, tok, tn)) continue;
    c++;
    if (best < 0 || order(&list[i], &list[best]) < 0) best = i;
  }
  if (count) *count = c;
  return best;
}

long hs_dumpset_hlo_for_ll(const char *names, size_t len, const char *ll, size_t ll_len, uint32_t *count) {
  if (count) *count = 0;
  if (!ll) return -1;
  size_t b = ll_len;
  while (b > 0 && ll[b - 1] != '/' && ll[b - 1] != '\\') b--;
  const char *tok = NULL;
  size_t tn = module_token(ll + b, ll_len - b, &tok);
  name_t *list;
  long n = split(names, len, &list);
  if (n < 0) return HS_E_NOMEM;
  long i = hlo_of(list, n, tok, tn, count);
  long r = i < 0 ? -1 : (long)list[i].index;
  free(list);
  return r;
}

static bool is_level(const name_t *f, const char *which) {
  return ends(f->s, f->n, ".ll") && contains(f->base, f->bn, which, strlen(which));
}

static int by_order(const void *x, const void *y) { return order(*(const name_t *const *)x, *(const name_t *const *)y); }

char *hs_dumpset_levels_json(const char *names, size_t len, size_t *out_len) {
  if (out_len) *out_len = 0;
  name_t *list;
  long n = split(names, len, &list);
  if (n < 0) return NULL;
  /* the modules with .ll files, by name, one with no module_NNNN. last */
  const name_t **ll = malloc((size_t)(n ? n : 1) * sizeof *ll);
  if (!ll) {
    free(list);
    return NULL;
  }
  long nl = 0;
  for (long i = 0; i < n; i++)
    if (is_level(&list[i], "ir-no-opt") || is_level(&list[i], "ir-with-opt")) ll[nl++] = &list[i];
  json_t *root = json_null();
  long best_rank = 99;
  const char *best_tok = NULL;
  size_t best_tn = 0;
  for (long i = 0; i < nl; i++) {
    const char *tok = NULL;
    size_t tn = module_token(ll[i]->base, ll[i]->bn, &tok);
    /* each module once: the first .ll of it */
    bool seen = false;
    for (long j = 0; j < i && !seen; j++) {
      const char *t2 = NULL;
      size_t t2n = module_token(ll[j]->base, ll[j]->bn, &t2);
      seen = t2n == tn && (!tn || memcmp(t2, tok, tn) == 0);
    }
    if (seen) continue;
    bool noopt = false, opt = false;
    for (long j = 0; j < nl; j++) {
      const char *t2 = NULL;
      size_t t2n = module_token(ll[j]->base, ll[j]->bn, &t2);
      if (t2n != tn || (tn && memcmp(t2, tok, tn) != 0)) continue;
      noopt = noopt || is_level(ll[j], "ir-no-opt");
      opt = opt || is_level(ll[j], "ir-with-opt");
    }
    long rank = (hlo_of(list, n, tok, tn, NULL) >= 0 ? 0 : 2) + (noopt && opt ? 0 : 1);
    /* the best rank; on a tie the first module by name, the one with no module number last */
    bool better = rank < best_rank;
    if (!better && rank == best_rank) {
      if (!best_tn) better = tn != 0;
      else if (tn) {
        size_t k = tn < best_tn ? tn : best_tn;
        int c = memcmp(tok, best_tok, k);
        better = c < 0 || (c == 0 && tn < best_tn);
      }
    }
    if (better) {
      best_rank = rank;
      best_tok = tok;
      best_tn = tn;
    }
  }
  if (best_rank < 99) {
    root = json_object();
    json_object_set_new(root, "module", best_tn ? hs_json_bytes(best_tok, best_tn) : json_null());
    long h = hlo_of(list, n, best_tok, best_tn, NULL);
    json_object_set_new(root, "hlo", h >= 0 ? json_integer(list[h].index) : json_null());
    const char *keys[2] = {"no_opt", "with_opt"}, *words[2] = {"ir-no-opt", "ir-with-opt"};
    for (int w = 0; w < 2; w++) {
      const name_t **mine = malloc((size_t)(nl ? nl : 1) * sizeof *mine);
      long k = 0;
      for (long j = 0; mine && j < nl; j++) {
        const char *t2 = NULL;
        size_t t2n = module_token(ll[j]->base, ll[j]->bn, &t2);
        if (t2n == best_tn && (!best_tn || memcmp(t2, best_tok, best_tn) == 0) && is_level(ll[j], words[w])) mine[k++] = ll[j];
      }
      if (k) qsort(mine, (size_t)k, sizeof *mine, by_order);
      json_t *arr = json_array();
      for (long j = 0; j < k; j++) json_array_append_new(arr, json_integer(mine[j]->index));
      json_object_set_new(root, keys[w], arr);
      free(mine);
    }
  }
  free(ll);
  free(list);
  if (json_is_null(root)) { /* no .ll: JSON null */
    char *none = malloc(5);
    if (none) memcpy(none, "null", 5);
    if (none && out_len) *out_len = 4;
    return none;
  }
  return hs_json_finish(root, out_len);
}
