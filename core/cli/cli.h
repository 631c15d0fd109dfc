/* What the CLI's files share (main.c, passes.c, profiles.c): reading files, inflating gzip and
 * deflate streams, reading dump folders and archives, loading profiles. Private to core/cli. */
#ifndef HS_CLI_H
#define HS_CLI_H
#include <stddef.h>

#include "hloscope.h"

/* main.c: a whole file ("-": stdin), malloc'd; NULL with errno set */
char *hs_cli_read_all(const char *path, size_t *len);
/* main.c: prints a result, its JSON (--json) or the core's text of it (hs_text by result kind,
 * `tin` naming the inputs; may be NULL); frees `out`; 1 when it is NULL (out of memory), else 0. */
int hs_cli_emit(char *out, size_t n, int json, const char *kind, const hs_text_input *tin);
/* main.c: whether s ends with suf; whether p is a folder; whether p names a dump folder's archive
 * (.tar.gz, .tgz, .tar, .zip) */
int hs_cli_ends_with(const char *s, const char *suf);
int hs_cli_is_dir(const char *p);
int hs_cli_is_archive_name(const char *p);
/* passes.c: `hloscope passes ...` */
int hs_cli_passes(int argc, char **argv);
/* passes.c: all of `in` inflated (window as zlib's inflateInit2 takes it: -15 raw deflate,
 * 15 + 32 gzip or zlib); `hint` the expected size or 0. Malloc'd, NULL on damage or no memory. */
char *hs_cli_inflate(const unsigned char *in, size_t n, int window, size_t hint, size_t *out_len);
/* passes.c: a dump folder, its .tar.gz/.tgz/.tar/.zip, or an `ls` listing file into `s`; the set's
 * label is the path's base name. 0, or 1 after saying why on stderr. */
int hs_cli_dumpset_add_path(hs_dumpset *s, const char *path);
/* profiles.c: profile files and log folders read as one; *rc the exit status on NULL */
hs_profile *hs_cli_load_profiles(const char *const *paths, int n, int *rc);
/* profiles.c: the files hs_cli_load_profiles reads (gunzipped, each named by its path), *count
 * of them; NULL with *rc set after saying why on stderr. Free with hs_cli_free_profiles. */
hs_profile_input *hs_cli_read_profiles(const char *const *paths, int n, size_t *count, int *rc);
void hs_cli_free_profiles(hs_profile_input *in, size_t n);
/* profiles.c: a name jax.profiler writes (.xplane.pb, .trace.json[.gz]); a folder that is a profile
 * log folder (it holds plugins/profile/, or a profile file at its top) */
int hs_cli_is_profile_name(const char *name);
int hs_cli_is_profile_folder(const char *dir);
/* report.c: `hloscope report ...` */
int hs_cli_report(int argc, char **argv);
#endif
