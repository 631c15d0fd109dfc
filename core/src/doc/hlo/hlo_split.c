/* The HLO reader's entry (hs_parse_hlo_text): the whole text in one reader, or, a long text of
 * several modules in a native build with threads, in two at once. The text is cut at an
 * "HloModule" line a little past its middle; a second thread counts the lines before that line
 * and reads from it to the end into a document of its own (its lines numbered after those);
 * this thread reads the text before it; then the second document is appended to the first
 * (doc_append.c). XLA's modules share nothing but the source files their metadata names, so two
 * readers make what one makes, and in about 0.6 of the time on two cores (issue 37: a 59 MB
 * dump's end to end). Where the first part does not end cleanly at the cut (a computation, a
 * comment or a statement left open there, an error) or either part fails, the text is read
 * again in one reader: what it says is then the one reader's, errors included. */
#define _GNU_SOURCE /* memmem */
#include "doc/hlo/hlo_reader.h"

#include <stdlib.h>
#include <string.h>
#if HS_THREADS
#include <pthread.h>
#include <unistd.h>
#endif

/* Texts shorter than this are read in one reader (tests build with 1: every text of several
 * modules is then read in two). */
#ifndef HS_HLO_SPLIT_MIN
#define HS_HLO_SPLIT_MIN (8u << 20)
#endif

static int read_whole(hs_doc *d, hs_error *err) {
  reader *r = hlo_reader_new(d, err, 0, d->len);
  if (!r) {
    hs_doc_error(err, HS_E_NOMEM, d, 0, "out of memory while parsing");
    return HS_E_NOMEM;
  }
  int rc = hlo_reserve(r, 0, d->len) ? hlo_read(r) : hlo_oom(r);
  if (!rc) rc = hlo_finish_text(r);
  if (!rc) rc = hlo_finish_doc(d, r->first_ref_line, err);
  hlo_reader_free(r);
  return rc;
}

/* Where the second part starts: an "HloModule" line at the start of a line, the first past a
 * little more than half the text (the second thread counts the lines before it first: about 3 ms
 * a 30 MB part), else the last before that; 0 for none in the text's middle three quarters. */
static size_t next_module(const char *t, size_t len, size_t from, size_t hi) {
  while (from < hi) {
    const char *m = memmem(t + from, len - from, "\nHloModule", 10);
    if (!m || (size_t)(m - t) + 1 >= hi) return 0;
    size_t s = (size_t)(m - t) + 1;
    if (s + 9 >= len || !is_name_char(t[s + 9])) return s; /* "HloModuleX" is not the keyword */
    from = s;
  }
  return 0;
}

static size_t split_at(const hs_doc *d) {
  const char *t = d->text;
  size_t len = d->len, want = len / 2 + len / 64, lo = len / 8, hi = len - len / 8;
  size_t s = next_module(t, len, want, hi), best = 0;
  if (s) return s;
  for (size_t from = lo; (s = next_module(t, len, from, want)) != 0; from = s) best = s;
  return best;
}

/* The second part's reader and what it tells the first: its document, and, once both are read,
 * whether they are appended (go 1: the second thread then moves its share of the rows). */
typedef struct {
  hs_doc *d;
  hs_error err;
  size_t start;
  int rc;
  uint32_t lines0, first_ref_line;
  hs_doc *a; /* the first part's document, and the plan of the append: set with go */
  hs_append ap;
#if HS_THREADS
  pthread_mutex_t mu;
  pthread_cond_t cv;
  bool threaded; /* read_second runs in its own thread (else before the first part) */
  int read, go;  /* read: the second part is read; go: 1 move your share, -1 stop */
#endif
} second_part;

static void *read_second(void *arg) {
  second_part *b = arg;
  hs_doc *d = b->d;
  b->lines0 = d->n_lines = (uint32_t)hs_count_byte(d->text, b->start, '\n');
  reader *r = hlo_reader_new(d, &b->err, b->start, d->len);
  if (r) {
    r->small_pages = true;
    b->rc = hlo_reserve(r, b->start, d->len) ? hlo_read(r) : hlo_oom(r);
    if (!b->rc) b->rc = hlo_finish_text(r);
    b->first_ref_line = r->first_ref_line;
    hlo_reader_free(r);
    hs_doc_seal(d); /* before the first part's reader ends: what neither needs is not held at once */
  } else {
    b->rc = HS_E_NOMEM;
  }
#if HS_THREADS
  if (!b->threaded) return NULL;
  pthread_mutex_lock(&b->mu);
  b->read = 1;
  pthread_cond_signal(&b->cv);
  while (!b->go) pthread_cond_wait(&b->cv, &b->mu);
  int go = b->go;
  pthread_mutex_unlock(&b->mu);
  if (go > 0) hs_doc_append_rows(b->a, d, &b->ap, 0, 2); /* the first half of every array's rows */
#endif
  return NULL;
}

/* The text in two parts, s the second's start: 0 with d filled, or 1 when it must be read in one
 * reader (d untouched; a second try for an error of memory too). */
static int read_split(hs_doc *d, hs_error *err, size_t s) {
  if (!s || s >= d->len || d->text[s - 1] != '\n') return 1;
  hs_doc *a = hs_doc_new(d->text, d->len, d->format);
  second_part b = {.d = hs_doc_new(d->text, d->len, d->format), .start = s};
  if (!a || !b.d) {
    free(a);
    free(b.d);
    return 1;
  }
  bool started = false;
#if HS_THREADS
  pthread_t th;
  pthread_attr_t attr;
  if (pthread_mutex_init(&b.mu, NULL) == 0) {
    if (pthread_cond_init(&b.cv, NULL) == 0) {
      if (pthread_attr_init(&attr) == 0) {
        (void)pthread_attr_setstacksize(&attr, (size_t)8 << 20); /* the main thread's (recursion depth: MAX_NESTING) */
        b.threaded = true;
        started = pthread_create(&th, &attr, read_second, &b) == 0;
        if (!started) b.threaded = false; /* no thread reads it then */
        pthread_attr_destroy(&attr);
      }
      if (!started) pthread_cond_destroy(&b.cv);
    }
    if (!started) pthread_mutex_destroy(&b.mu);
  }
#endif
  if (!started) (void)read_second(&b); /* one after the other: the same document */
  hs_error aerr = {0};
  uint32_t first_ref_line = 0;
  reader *r = hlo_reader_new(a, &aerr, 0, s);
  if (r) r->small_pages = true;
  /* reserved for the whole text: the second part's rows are appended to these */
  int rc = !r ? HS_E_NOMEM : hlo_reserve(r, 0, d->len) ? hlo_read(r) : hlo_oom(r);
  bool clean = r && !rc && !r->cut && r->comp < 0 && r->open_comment == NOWHERE;
  if (clean) rc = hlo_end_part(r);
  if (r) first_ref_line = r->first_ref_line;
  hlo_reader_free(r);
#if HS_THREADS
  if (started) {
    pthread_mutex_lock(&b.mu);
    while (!b.read) pthread_cond_wait(&b.cv, &b.mu);
    pthread_mutex_unlock(&b.mu);
  }
#endif
  bool ok = clean && !rc && !b.rc && a->n_lines == b.lines0 && hs_doc_append_begin(a, b.d, &b.ap) == 0;
  b.a = a;
#if HS_THREADS
  if (started) { /* the rows moved by both threads, half each */
    pthread_mutex_lock(&b.mu);
    b.go = ok ? 1 : -1;
    pthread_cond_signal(&b.cv);
    pthread_mutex_unlock(&b.mu);
    if (ok) hs_doc_append_rows(a, b.d, &b.ap, 1, 2);
    pthread_join(th, NULL);
    pthread_cond_destroy(&b.cv);
    pthread_mutex_destroy(&b.mu);
  }
#endif
  if (ok && !started) hs_doc_append_rows(a, b.d, &b.ap, 0, 1);
  rc = ok ? hs_doc_append_end(a, b.d, &b.ap) : 1;
  hs_doc_free(b.d);
  if (rc) {
    hs_doc_free(a);
    return 1;
  }
  *d = *a; /* the same text; every array, the arena and the warnings now d's */
  free(a);
  return hlo_finish_doc(d, first_ref_line ? first_ref_line : b.first_ref_line, err);
}

int hs_parse_hlo_text_at(hs_doc *d, hs_error *err, size_t s) {
  hs_error local;
  return read_split(d, err ? err : &local, s);
}

int hs_parse_hlo_text(hs_doc *d, hs_error *err) {
  hs_error local;
  if (!err) err = &local;
#if HS_THREADS
  size_t s = d->len >= HS_HLO_SPLIT_MIN ? split_at(d) : 0;
  if (s && sysconf(_SC_NPROCESSORS_ONLN) > 1) {
    int rc = read_split(d, err, s);
    if (rc != 1) return rc;
  }
#else
  (void)split_at;
#endif
  return read_whole(d, err);
}
