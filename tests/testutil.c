#include "testutil.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

const char *tu_source_root(void) {
  const char *s = getenv("FSDPA_SOURCE_ROOT");
  return s ? s : ".";
}
const char *tu_build_root(void) {
  const char *s = getenv("FSDPA_BUILD_ROOT");
  return s ? s : ".";
}

const char *tu_corpus_dir(void) {
  const char *d = getenv("FSDPA_TRACE_CORPUS");
  if (!d || !*d) d = getenv("FSDPA_DEFAULT_CORPUS");
  struct stat st;
  if (!d || stat(d, &st) != 0 || !S_ISDIR(st.st_mode)) {
    printf("# SKIP corpus tests: trace corpus not found at %s (set FSDPA_TRACE_CORPUS)\n",
           d ? d : "(unset)");
    return NULL;
  }
  return d;
}

char *tu_read_file(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  size_t cap = 1 << 16, n = 0;
  char *buf = malloc(cap);
  size_t r;
  while (buf && (r = fread(buf + n, 1, cap - n, f)) > 0) {
    n += r;
    if (n == cap) {
      char *nb = realloc(buf, cap * 2);
      if (!nb) { free(buf); buf = NULL; break; }
      buf = nb;
      cap *= 2;
    }
  }
  fclose(f);
  if (len) *len = n;
  return buf;
}

char *tu_run(const char *cmd, int *status) {
  FILE *p = popen(cmd, "r");
  if (!p) return NULL;
  size_t cap = 4096, n = 0;
  char *buf = malloc(cap);
  size_t r;
  while (buf && (r = fread(buf + n, 1, cap - n - 1, p)) > 0) {
    n += r;
    if (n + 1 == cap) {
      char *nb = realloc(buf, cap * 2);
      if (!nb) { free(buf); buf = NULL; break; }
      buf = nb;
      cap *= 2;
    }
  }
  int st = pclose(p);
  if (status) *status = st;
  if (buf) buf[n] = 0;
  return buf;
}

char *tu_tracegen(const char *scenario, const char *extra, const char *name) {
  char dir[4096], cmd[8192];
  snprintf(dir, sizeof dir, "%s/tests/gen", tu_build_root());
  mkdir(dir, 0777);
  char *path = malloc(4096);
  if (!path) return NULL;
  snprintf(path, 4096, "%s/%s", dir, name);
  const char *py = getenv("FSDPA_PYTHON");
  snprintf(cmd, sizeof cmd, "'%s' '%s/tools/tracegen/tracegen.py' %s -o '%s' %s >/dev/null",
           py ? py : "python3", tu_source_root(), scenario, path, extra ? extra : "");
  if (system(cmd) != 0) {
    free(path);
    return NULL;
  }
  return path;
}

fsdpa_ctx *tu_feed_chunks(const char *buf, size_t len, size_t chunk, fsdpa_status *st) {
  fsdpa_ctx *c = NULL;
  *st = fsdpa_ctx_new(&c, NULL);
  if (*st) return NULL;
  if (chunk == 0) chunk = len ? len : 1;
  for (size_t off = 0; off < len; off += chunk) {
    size_t n = len - off < chunk ? len - off : chunk;
    *st = fsdpa_feed(c, buf + off, n);
    if (*st) return c;
  }
  *st = fsdpa_finish(c);
  return c;
}

char *tu_report_json(fsdpa_ctx *const *c, size_t n, const char *const *paths, size_t *len) {
  char *out = NULL;
  if (fsdpa_report(c, paths, n, NULL, &out, len) != FSDPA_OK) return NULL;
  return out;
}

char *tu_report(fsdpa_ctx *c, fsdpa_format fmt) {
  fsdpa_report_options o;
  fsdpa_report_options_init(&o);
  o.format = fmt;
  char *out = NULL;
  size_t len = 0;
  const char *path = "trace";
  if (fsdpa_report(&c, &path, 1, &o, &out, &len) != FSDPA_OK) return NULL;
  char *copy = malloc(len + 1);
  if (copy) memcpy(copy, out, len + 1);
  fsdpa_free(out);
  return copy;
}

int tu_json_num(const char *json, const char *key, const char *from, double *out) {
  char pat[256];
  snprintf(pat, sizeof pat, "\"%s\":", key);
  const char *p = strstr(from ? from : json, pat);
  if (!p) return 0;
  p += strlen(pat);
  while (*p == ' ') p++;
  if (!strncmp(p, "null", 4)) return 0;
  char *end;
  double v = strtod(p, &end);
  if (end == p) return 0;
  *out = v;
  return 1;
}
