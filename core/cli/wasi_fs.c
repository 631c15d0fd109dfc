/* Files for the WASI build of the CLI (wasm/gen/hloscope-cli.wasm, run by Python in wasmtime),
 * compiled into that target only. Emscripten 3.1.6's standalone libc opens no file (its weak
 * __syscall_open says EPERM to anything but /dev/std*) and imports env.__syscall_* for stat and
 * getdents; these strong definitions replace them with WASI calls against the host's "/"
 * preopen, so the CLI's sources keep their fopen/stat/opendir unchanged. read, write, lseek and close
 * are WASI calls in that libc already.
 *
 * WASI has no working directory: the host passes its own in HLOSCOPE_WASI_CWD (absolute), and a
 * relative path is resolved against it, so the CLI prints paths as they were given. Symbolic
 * links are resolved here, component by component, so that a path reaches path_open free of
 * links: wasmtime follows no link whose target is absolute and reads no such target
 * (path_readlink says EPERM: an escape from the preopen, in its model, though with "/" preopened
 * as "/" every target is inside). The host names those it can see in HLOSCOPE_WASI_LINKS, one
 * "LINK\tTARGET" a line (LINK with its folders' links resolved): the links on the way to each
 * argument and to the working directory. An absolute link met deeper, inside a folder the CLI
 * walks, cannot be read. */
#define _GNU_SOURCE /* PATH_MAX, DT_* */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <wasi/api.h>

#define MAX_LINKS 40

static int root_fd = -2; /* -2: not looked for yet; -1: no "/" preopen */
static char cwd[PATH_MAX] = "/";

static void init(void) {
  if (root_fd != -2) return;
  root_fd = -1;
  for (__wasi_fd_t fd = 3; fd < 64; fd++) {
    __wasi_prestat_t ps;
    if (__wasi_fd_prestat_get(fd, &ps) != __WASI_ERRNO_SUCCESS) break;
    if (ps.pr_type != __WASI_PREOPENTYPE_DIR || ps.u.dir.pr_name_len != 1) continue;
    char name[2] = {0};
    if (__wasi_fd_prestat_dir_name(fd, (uint8_t *)name, 1) == __WASI_ERRNO_SUCCESS && name[0] == '/') {
      root_fd = (int)fd;
      break;
    }
  }
  const char *w = getenv("HLOSCOPE_WASI_CWD");
  if (w && w[0] == '/' && strlen(w) < sizeof cwd) strcpy(cwd, w);
}

/* The target of the absolute link at "/" + rel that the host named (HLOSCOPE_WASI_LINKS). */
static int host_link(const char *rel, char *target, size_t cap) {
  const char *l = getenv("HLOSCOPE_WASI_LINKS");
  size_t rl = strlen(rel);
  while (l && *l) {
    const char *end = strchr(l, '\n');
    if (!end) end = l + strlen(l);
    const char *tab = memchr(l, '\t', (size_t)(end - l));
    if (tab && l[0] == '/' && (size_t)(tab - l - 1) == rl && memcmp(l + 1, rel, rl) == 0 && (size_t)(end - tab - 1) < cap) {
      memcpy(target, tab + 1, (size_t)(end - tab - 1));
      target[end - tab - 1] = 0;
      return 1;
    }
    l = *end ? end + 1 : end;
  }
  return 0;
}

static __wasi_errno_t lstat_rel(const char *rel, __wasi_filestat_t *st) {
  return __wasi_path_filestat_get((__wasi_fd_t)root_fd, 0, *rel ? rel : ".", *rel ? strlen(rel) : 1, st);
}

/* `path` as a path relative to the "/" preopen ("" is the root itself), with "." and ".." and
 * every symbolic link resolved, the last component's link only when follow_last. 0 or an errno;
 * a last component that does not exist is not an error (open with O_CREAT, or its ENOENT). */
static int resolve(const char *path, char *out, size_t cap, int follow_last) {
  init();
  if (root_fd < 0) return __WASI_ERRNO_NOTCAPABLE; /* the host preopened no "/" */
  if (!*path) return ENOENT;
  static char rest[2 * PATH_MAX + 2], next[2 * PATH_MAX + 2], target[PATH_MAX];
  size_t pl = strlen(path);
  if (pl >= PATH_MAX) return ENAMETOOLONG;
  if (path[0] == '/') memcpy(rest, path, pl + 1);
  else snprintf(rest, sizeof rest, "%s/%s", cwd, path);
  size_t n = 0; /* out's length */
  out[0] = 0;
  int links = 0;
  char *p = rest;
  while (*p) {
    while (*p == '/') p++;
    if (!*p) break;
    char *end = strchr(p, '/');
    size_t len = end ? (size_t)(end - p) : strlen(p);
    int last = 1;
    for (char *q = p + len; *q; q++)
      if (*q != '/') { last = 0; break; }
    if (len == 1 && p[0] == '.') { p += len; continue; }
    if (len == 2 && p[0] == '.' && p[1] == '.') {
      while (n > 0 && out[n - 1] != '/') n--;
      if (n > 0) n--;
      out[n] = 0;
      p += len;
      continue;
    }
    size_t before = n;
    if (n + (n ? 1 : 0) + len + 1 > cap) return ENAMETOOLONG;
    if (n) out[n++] = '/';
    memcpy(out + n, p, len);
    n += len;
    out[n] = 0;
    p += len;
    __wasi_filestat_t st;
    __wasi_errno_t e = lstat_rel(out, &st);
    if (e != __WASI_ERRNO_SUCCESS) return last && e == __WASI_ERRNO_NOENT ? 0 : e;
    if (st.filetype != __WASI_FILETYPE_SYMBOLIC_LINK || (last && !follow_last)) continue;
    if (++links > MAX_LINKS) return ELOOP;
    __wasi_size_t used = 0;
    e = __wasi_path_readlink((__wasi_fd_t)root_fd, out, n, (uint8_t *)target, sizeof target - 1, &used);
    if (e == __WASI_ERRNO_SUCCESS) target[used] = 0;
    else if (!host_link(out, target, sizeof target)) return e;
    /* the link's target, then what was left of the path */
    snprintf(next, sizeof next, "%s/%s", target, p);
    memcpy(rest, next, strlen(next) + 1);
    p = rest;
    if (target[0] == '/') n = 0;
    else n = before;
    out[n] = 0;
  }
  return 0;
}

static void fill_stat(const __wasi_filestat_t *w, struct stat *st) {
  memset(st, 0, sizeof *st);
  st->st_dev = (dev_t)w->dev;
  st->st_ino = (ino_t)w->ino;
  st->st_nlink = (nlink_t)w->nlink;
  st->st_size = (off_t)w->size;
  switch (w->filetype) {
    case __WASI_FILETYPE_DIRECTORY: st->st_mode = S_IFDIR | 0755; break;
    case __WASI_FILETYPE_REGULAR_FILE: st->st_mode = S_IFREG | 0644; break;
    case __WASI_FILETYPE_SYMBOLIC_LINK: st->st_mode = S_IFLNK | 0777; break;
    case __WASI_FILETYPE_CHARACTER_DEVICE: st->st_mode = S_IFCHR | 0644; break;
    case __WASI_FILETYPE_BLOCK_DEVICE: st->st_mode = S_IFBLK | 0644; break;
    default: st->st_mode = S_IFIFO | 0644; break;
  }
  st->st_blksize = 4096;
  st->st_blocks = (blkcnt_t)((w->size + 511) / 512);
  st->st_atim.tv_sec = (time_t)(w->atim / 1000000000u);
  st->st_atim.tv_nsec = (long)(w->atim % 1000000000u);
  st->st_mtim.tv_sec = (time_t)(w->mtim / 1000000000u);
  st->st_mtim.tv_nsec = (long)(w->mtim % 1000000000u);
  st->st_ctim.tv_sec = (time_t)(w->ctim / 1000000000u);
  st->st_ctim.tv_nsec = (long)(w->ctim % 1000000000u);
}

long __syscall_open(long path_, long flags, ...) {
  const char *path = (const char *)path_;
  if (!strcmp(path, "/dev/stdin")) return 0;
  if (!strcmp(path, "/dev/stdout")) return 1;
  if (!strcmp(path, "/dev/stderr")) return 2;
  static char rel[PATH_MAX];
  int e = resolve(path, rel, sizeof rel, !(flags & O_NOFOLLOW));
  if (e) return -e;
  __wasi_oflags_t of = 0;
  if (flags & O_CREAT) of |= __WASI_OFLAGS_CREAT;
  if (flags & O_EXCL) of |= __WASI_OFLAGS_EXCL;
  if (flags & O_TRUNC) of |= __WASI_OFLAGS_TRUNC;
  if (flags & O_DIRECTORY) of |= __WASI_OFLAGS_DIRECTORY;
  __wasi_rights_t read = __WASI_RIGHTS_FD_READ | __WASI_RIGHTS_FD_SEEK | __WASI_RIGHTS_FD_TELL |
                         __WASI_RIGHTS_FD_FILESTAT_GET | __WASI_RIGHTS_FD_READDIR | __WASI_RIGHTS_FD_ADVISE;
  __wasi_rights_t write = __WASI_RIGHTS_FD_WRITE | __WASI_RIGHTS_FD_SEEK | __WASI_RIGHTS_FD_TELL |
                          __WASI_RIGHTS_FD_FILESTAT_GET | __WASI_RIGHTS_FD_FILESTAT_SET_SIZE |
                          __WASI_RIGHTS_FD_DATASYNC | __WASI_RIGHTS_FD_SYNC | __WASI_RIGHTS_FD_ALLOCATE;
  int acc = (int)(flags & O_ACCMODE);
  __wasi_rights_t rights = acc == O_RDONLY ? read : acc == O_WRONLY ? write : (read | write);
  __wasi_fdflags_t fdf = (flags & O_APPEND) ? __WASI_FDFLAGS_APPEND : 0;
  __wasi_fd_t fd;
  __wasi_errno_t w = __wasi_path_open((__wasi_fd_t)root_fd, 0, *rel ? rel : ".", *rel ? strlen(rel) : 1, of, rights,
                                      rights, fdf, &fd);
  return w == __WASI_ERRNO_SUCCESS ? (long)fd : -(long)w;
}

static long stat_path(const char *path, struct stat *st, int follow) {
  static char rel[PATH_MAX];
  int e = resolve(path, rel, sizeof rel, follow);
  if (e) return -e;
  __wasi_filestat_t w;
  __wasi_errno_t r = lstat_rel(rel, &w);
  if (r != __WASI_ERRNO_SUCCESS) return -(long)r;
  fill_stat(&w, st);
  return 0;
}

long __syscall_stat64(long path, long buf) { return stat_path((const char *)path, (struct stat *)buf, 1); }

long __syscall_lstat64(long path, long buf) { return stat_path((const char *)path, (struct stat *)buf, 0); }

long __syscall_fstat64(long fd, long buf) {
  __wasi_filestat_t w;
  __wasi_errno_t r = __wasi_fd_filestat_get((__wasi_fd_t)fd, &w);
  if (r != __WASI_ERRNO_SUCCESS) return -(long)r;
  fill_stat(&w, (struct stat *)buf);
  return 0;
}

long __syscall_fstatat64(long dirfd, long path, long buf, long flags) {
  const char *p = (const char *)path;
  if ((flags & AT_EMPTY_PATH) && !*p) return __syscall_fstat64(dirfd, buf);
  if (dirfd != AT_FDCWD && p[0] != '/') return -ENOSYS; /* the CLI names every file by its path */
  return stat_path(p, (struct stat *)buf, !(flags & AT_SYMLINK_NOFOLLOW));
}

long __syscall_readlink(long path, long buf, long size) {
  static char rel[PATH_MAX];
  int e = resolve((const char *)path, rel, sizeof rel, 0);
  if (e) return -e;
  __wasi_size_t used = 0;
  __wasi_errno_t r = __wasi_path_readlink((__wasi_fd_t)root_fd, rel, strlen(rel), (uint8_t *)buf, (__wasi_size_t)size, &used);
  return r == __WASI_ERRNO_SUCCESS ? (long)used : -(long)r;
}

long __syscall_getcwd(long buf, long size) {
  init();
  size_t n = strlen(cwd) + 1;
  if ((size_t)size < n) return -ERANGE;
  memcpy((char *)buf, cwd, n);
  return (long)n;
}

/* readdir: each open directory's next WASI cookie, by descriptor. close() and fclose() pass the
 * descriptor through musl's weak __aio_close first: this definition forgets its cookie there,
 * so a descriptor number opened again starts at the beginning. */
#define MAX_DIR_FD 256
static __wasi_dircookie_t cookies[MAX_DIR_FD];

int __aio_close(int fd) {
  if (fd >= 0 && fd < MAX_DIR_FD) cookies[fd] = __WASI_DIRCOOKIE_START;
  return fd;
}

long __syscall_getdents64(long fd, long dirp, long count) {
  if (fd < 0 || fd >= MAX_DIR_FD) return -EBADF;
  static uint8_t raw[8192];
  __wasi_size_t used = 0;
  __wasi_errno_t r = __wasi_fd_readdir((__wasi_fd_t)fd, raw, sizeof raw, cookies[fd], &used);
  if (r != __WASI_ERRNO_SUCCESS) return -(long)r;
  char *out = (char *)dirp;
  size_t wrote = 0, at = 0;
  while (at + sizeof(__wasi_dirent_t) <= used) {
    __wasi_dirent_t d;
    memcpy(&d, raw + at, sizeof d);
    if (at + sizeof d + d.d_namlen > used) break; /* cut off: read again from this entry's cookie */
    size_t nl = d.d_namlen < 255 ? d.d_namlen : 255;
    size_t reclen = (offsetof(struct dirent, d_name) + nl + 1 + 7) & ~(size_t)7;
    if (wrote + reclen > (size_t)count) break;
    struct dirent *de = (struct dirent *)(out + wrote);
    de->d_ino = (ino_t)d.d_ino;
    de->d_off = (off_t)d.d_next;
    de->d_reclen = (unsigned short)reclen;
    de->d_type = d.d_type == __WASI_FILETYPE_DIRECTORY ? DT_DIR
                 : d.d_type == __WASI_FILETYPE_REGULAR_FILE ? DT_REG
                 : d.d_type == __WASI_FILETYPE_SYMBOLIC_LINK ? DT_LNK
                 : DT_UNKNOWN;
    memcpy(de->d_name, raw + at + sizeof d, nl);
    de->d_name[nl] = 0;
    wrote += reclen;
    at += sizeof d + d.d_namlen;
    cookies[fd] = d.d_next;
  }
  if (wrote == 0 && used == sizeof raw) return -EINVAL;
  return (long)wrote;
}

/* Emscripten's standalone memory growth tells its JS glue that memory grew (an env import); a
 * WASI host has no glue to tell, so the module imports nothing but wasi_snapshot_preview1. */
void emscripten_notify_memory_growth(size_t memory_index) { (void)memory_index; }
