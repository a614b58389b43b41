/* Files and the terminal for the commands (cli_io.h). */
#include "cli_io.h"
#include "cli_opts.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

int cli_is_stdout(const char *path) { return !path || !strcmp(path, "-"); }

static int cannot_write(const char *path, int err) {
  fprintf(stderr, "%s: %s: cannot write: %s\n", cli_prog, path, strerror(err));
  return EXIT_IO;
}

/* the directory a new file `path` would go into must exist and take files */
static int check_parent(const char *path) {
  const char *slash = strrchr(path, '/');
  char *dir = slash ? strndup(path, slash == path ? 1 : (size_t)(slash - path)) : strdup(".");
  if (!dir) return cannot_write(path, ENOMEM);
  struct stat st;
  int err = 0;
  if (stat(dir, &st)) err = errno;
  else if (!S_ISDIR(st.st_mode)) err = ENOTDIR;
  else if (access(dir, W_OK | X_OK)) err = errno;
  free(dir);
  return err ? cannot_write(path, err) : 0;
}

int cli_check_output(const char *path) {
  if (cli_is_stdout(path)) return 0;
  struct stat st;
  if (stat(path, &st) == 0) {
    if (S_ISDIR(st.st_mode)) return cannot_write(path, EISDIR);
    if (access(path, W_OK)) return cannot_write(path, errno);
    return 0;
  }
  if (errno != ENOENT) return cannot_write(path, errno);
  return check_parent(path);
}

/* mkdir -p: every missing directory of `dir`, parents first */
static int make_dirs(const char *dir) {
  char *p = strdup(dir);
  if (!p) return ENOMEM;
  int err = 0;
  for (char *s = p + 1; !err; s++) {
    int end = !*s;
    if (*s != '/' && !end) continue;
    char c = *s;
    *s = 0;
    if (mkdir(p, 0777) && errno != EEXIST) err = errno;
    *s = c;
    if (end) break;
  }
  free(p);
  return err;
}

int cli_check_output_dir(const char *dir) {
  struct stat st;
  int err = 0;
  if (stat(dir, &st) && errno == ENOENT) err = make_dirs(dir);
  if (!err && stat(dir, &st)) err = errno;
  else if (!err && !S_ISDIR(st.st_mode)) err = ENOTDIR;
  else if (!err && access(dir, W_OK | X_OK)) err = errno;
  return err ? cannot_write(dir, err) : 0;
}

int cli_write_output(const char *path, const char *data, size_t len) {
  int to_stdout = cli_is_stdout(path);
  FILE *out = to_stdout ? stdout : fopen(path, "wb");
  if (!out) return cannot_write(path, errno);
  int bad = fwrite(data, 1, len, out) != len;
  int err = errno;
  if (to_stdout ? fflush(out) != 0 : fclose(out) != 0) bad = 1, err = errno;
  if (bad) {
    fprintf(stderr, "%s: %s: write error: %s\n", cli_prog, to_stdout ? "standard output" : path, strerror(err));
    return EXIT_IO;
  }
  return 0;
}

char *cli_slurp(const char *path, size_t *len) {
  FILE *f = strcmp(path, "-") == 0 ? stdin : fopen(path, "rb");
  if (!f) return NULL;
  size_t cap = 1 << 16, n = 0, r;
  char *buf = malloc(cap);
  while (buf && (r = fread(buf + n, 1, cap - n, f)) > 0) {
    n += r;
    if (n == cap) {
      char *nb = realloc(buf, cap * 2);
      if (!nb) {
        free(buf);
        buf = NULL;
        errno = ENOMEM;
        break;
      }
      buf = nb;
      cap *= 2;
    }
  }
  if (buf && ferror(f)) {
    int err = errno;
    free(buf);
    buf = NULL;
    errno = err ? err : EIO;
  }
  if (f != stdin) fclose(f);
  *len = n;
  return buf;
}

int cli_term_width(int to_stdout) {
  long w = 0;
  const char *cols = getenv("COLUMNS");
  if (cols && *cols) {
    char *end = NULL;
    errno = 0;
    long v = strtol(cols, &end, 10);
    if (!errno && !*end && v > 0) w = v;
  }
  struct winsize ws;
  if (!w && to_stdout && isatty(STDOUT_FILENO) && ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0)
    w = ws.ws_col;
  if (!w) w = 100;
  return w < 40 ? 40 : w > 1000 ? 1000 : (int)w;
}

int cli_gzip_isize(const char *path, uint64_t *isize) {
  FILE *f = fopen(path, "rb");
  if (!f) return 0;
  unsigned char magic[2], t[4];
  int ok = fread(magic, 1, 2, f) == 2 && magic[0] == 0x1f && magic[1] == 0x8b && fseeko(f, -4, SEEK_END) == 0 &&
           fread(t, 1, 4, f) == 4;
  fclose(f);
  if (ok) *isize = (uint64_t)t[0] | (uint64_t)t[1] << 8 | (uint64_t)t[2] << 16 | (uint64_t)t[3] << 24;
  return ok;
}

const char *cli_status_text(fsdpa_status st) {
  switch (st) {
    case FSDPA_OK: return "success";
    case FSDPA_ENOMEM: return "out of memory";
    case FSDPA_EINVAL: return "invalid argument";
    case FSDPA_EPARSE: return "malformed input";
    case FSDPA_ENOTTRACE: return "not a Kineto trace";
    case FSDPA_ETRUNCATED: return "the input ends inside the document";
    case FSDPA_ELIMIT: return "a limit was reached";
    case FSDPA_ESTATE: return "the input already failed";
    case FSDPA_EBUFS: return "buffer too small";
    case FSDPA_EIO: return "read error";
  }
  return "unknown error";
}

void cli_trace_failed(const char *path, const fsdpa_ctx *ctx, fsdpa_status st, const char *max_memory) {
  const char *m = ctx ? fsdpa_errmsg(ctx) : "";
  if (m && *m) fprintf(stderr, "%s: %s\n", cli_prog, m);
  else fprintf(stderr, "%s: %s: %s\n", cli_prog, path, cli_status_text(st));
  if (st == FSDPA_ELIMIT && max_memory)
    fprintf(stderr, "%s: %s: the trace needs more memory than --max-memory %s allows\n", cli_prog, path, max_memory);
}
