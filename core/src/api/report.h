/* The report's model, shared by its two files (private to core/src/api): report.c reads the
 * inputs into the overview and the page; redact.c replaces names in the bytes the page carries. */
#ifndef HS_API_REPORT_H
#define HS_API_REPORT_H

#include "api/api.h"

typedef enum { RI_DOC, RI_MEMORY, RI_LLVM, RI_PROFILE, RI_FOLDER, RI_UNKNOWN } ri_kind;

typedef struct {
  char *name; /* as embedded (redacted when asked) */
  char *data;
  size_t len;
  int format; /* hs_format, or -1 for a profile file */
} r_file;

typedef struct {
  ri_kind kind;
  char *label;      /* the name the user gave (a file's base name, a folder's name) */
  size_t first, n;  /* its files in r->files */
  hs_dumpset *set;  /* RI_FOLDER: the folder as read */
  size_t hlo_of;    /* RI_FOLDER: the input that holds its optimized HLO, or SIZE_MAX */
  size_t folder_of; /* an input made from a folder's optimized HLO: the folder, or SIZE_MAX */
} r_input;

struct hs_report {
  r_input *in;
  size_t n_in, cap_in;
  r_file *files;
  size_t n_files, cap_files;
  char *title;
};

/* malloc'd copy of n bytes, NUL-terminated */
char *hs_report_dupn(const char *s, size_t n);

/* The patterns a redaction replaces, each with its same-length placeholder. */
typedef struct hs_redaction hs_redaction;
/* Redacts every file of the report in place (bytes and names; the labels the user gave become
 * "input1"...). Returns the summary said at the top, and the patterns in *out (for what the
 * report reads from its models afterwards: a dump folder's file names and flags). */
json_t *hs_report_redact(hs_report *r, hs_redaction **out);
/* Every pattern replaced in t[0, len) in place; how many. */
size_t hs_redaction_apply(const hs_redaction *x, char *t, size_t len);
void hs_redaction_free(hs_redaction *x);
#endif
