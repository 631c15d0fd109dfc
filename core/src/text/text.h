/* text/: what a person reads. One renderer per result kind, over the result's JSON (the same
 * bytes `--json` prints and the JS API returns), as cmark keeps one renderer per output format
 * in the library: the CLI prints what hs_text returns, the wasm hands it to JS (`text()`), and
 * Python runs the CLI. Private to the folder; the public entry is hs_text (hloscope.h). */
#ifndef HS_TEXT_H
#define HS_TEXT_H

#include <jansson.h>
#include <stdarg.h>

#include "base/base.h"
#include "hloscope.h"

/* A growing output: printf-style appends; `failed` once an allocation failed (then the text is
 * dropped and hs_text returns NULL). */
typedef struct {
  char *data;
  size_t len, cap;
  int failed;
} hs_out;

void hs_outf(hs_out *o, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
void hs_outc(hs_out *o, char c);
void hs_outn(hs_out *o, const char *s, size_t n);

/* Reading a result: an integer field (0 when absent), a string field ("-" when absent). */
long long hs_tx_int(json_t *o, const char *k);
const char *hs_tx_str(json_t *o, const char *k);
/* "warning: PATH:LINE:COL: MESSAGE" per entry; without a path "warning: LINE:COL: MESSAGE". */
void hs_tx_warnings(hs_out *o, json_t *w, const char *path);
/* 1.234 ms: picoseconds at the unit that keeps three decimals readable. */
void hs_tx_ps(unsigned long long ps, char *buf, size_t cap);
/* 1.50 KiB (binary units; under 1024 "N B"): memory's hs_mem_human. */
void hs_tx_bytes(long long b, char *buf, size_t cap);

/* The renderers (text_doc.c: one document's analyses and the layouts; text_models.c: profiles,
 * the timeline, memory, LLVM IR, dump folders, the diff). */
void hs_text_summary(hs_out *o, json_t *j, const hs_text_input *in);
void hs_text_fusions(hs_out *o, json_t *j, const hs_text_input *in);
void hs_text_spills(hs_out *o, json_t *j, const hs_text_input *in);
void hs_text_computations(hs_out *o, json_t *j, const hs_text_input *in);
void hs_text_decisions(hs_out *o, json_t *j, const hs_text_input *in);
void hs_text_overlap(hs_out *o, json_t *j, const hs_text_input *in);
void hs_text_xray(hs_out *o, json_t *j, const hs_text_input *in);
void hs_text_layout(hs_out *o, json_t *j, const hs_text_input *in);
void hs_text_layouts(hs_out *o, json_t *j, const hs_text_input *in);
void hs_text_profile(hs_out *o, json_t *j, const hs_text_input *in);
void hs_text_timeline(hs_out *o, json_t *j, const hs_text_input *in);
void hs_text_memory(hs_out *o, json_t *j, const hs_text_input *in);
void hs_text_llvm(hs_out *o, json_t *j, const hs_text_input *in);
void hs_text_passes(hs_out *o, json_t *j, const hs_text_input *in);
void hs_text_passes_compare(hs_out *o, json_t *j, const hs_text_input *in);
void hs_text_diff(hs_out *o, json_t *j, const hs_text_input *in);

#endif
