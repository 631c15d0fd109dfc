/* hs_diff_driver CORPUS: reads every text of a corpus file written by tests/differential/corpus.mjs
 * (records "\x1e<id> <byte length>\n<text>") and prints one JSON line per text: its id, and either
 * the error (hs_error_json) or the counts (hs_summary_json with the fusion census added).
 * One process for the whole corpus keeps the differential test fast. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hloscope.h"
#include "slurp.h"

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: hs_diff_driver CORPUS\n");
    return 1;
  }
  size_t size;
  char *buf = hs_slurp(argv[1], &size);
  if (!buf) return 1;
  long n = (long)size;
  size_t pos = 0;
  while (pos < (size_t)n) {
    if (buf[pos] != '\x1e') {
      fprintf(stderr, "corpus: bad record at byte %zu\n", pos);
      return 1;
    }
    char *nl = memchr(buf + pos, '\n', (size_t)n - pos);
    char *sp = memchr(buf + pos, ' ', (size_t)n - pos);
    if (!nl || !sp || sp > nl) {
      fprintf(stderr, "corpus: bad header at byte %zu\n", pos);
      return 1;
    }
    *sp = 0;
    const char *id = buf + pos + 1;
    size_t len = strtoull(sp + 1, NULL, 10);
    size_t start = (size_t)(nl - buf) + 1;
    if (start + len > (size_t)n) {
      fprintf(stderr, "corpus: record %s runs past the end\n", id);
      return 1;
    }
    /* a private copy, so that the reader cannot see the next record */
    char *text = malloc(len + 1);
    memcpy(text, buf + start, len);
    text[len] = 0;
    hs_error err;
    memset(&err, 0, sizeof err);
    hs_doc *d = hs_parse(text, len, &err);
    if (!d) {
      char *e = hs_error_json(&err, NULL);
      printf("{\"id\":\"%s\",\"error\":%s}\n", id, e ? e : "null");
      hs_free(e);
    } else {
      hs_census c;
      memset(&c, 0, sizeof c);
      hs_fusion_census(d, &c);
      char *s = hs_summary_json(d, NULL);
      printf("{\"id\":\"%s\",\"summary\":%s,\"fusion_ops\":%zu,\"fusion_computations\":%zu}\n", id, s ? s : "null",
             c.fusion_ops, c.fusion_computations);
      hs_free(s);
      hs_doc_free(d);
    }
    free(text);
    pos = start + len;
  }
  free(buf);
  return 0;
}
