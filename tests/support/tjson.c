#include "tjson.h"
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fsdpa/fsdpa.h>
#include "util/jsonr.h"

int tj_valid(const char *json, size_t len) {
  jr r;
  const char *b, *e;
  jr_init(&r, json, len);
  return jr_skip(&r, &b, &e) && jr_end(&r);
}

/* A raw JSON string token [b, e) (quotes included) equals s. */
static int raw_str_is(const char *b, const char *e, const char *s, size_t sn) {
  if (e - b < 2 || *b != '"') return 0;
  size_t n = (size_t)(e - b) - 2;
  char *u = malloc(n + 1);
  if (!u) return 0;
  size_t un = jr_unescape(b + 1, n, u);
  int eq = un == sn && !memcmp(u, s, sn);
  free(u);
  return eq;
}

/* Descend one segment from the value at r (positioned at it). */
static int step(jr *r, const char *seg, size_t sl, const char **vb, const char **ve) {
  int c = jr_peek(r);
  if (c == '{') {
    jr_obj_begin(r);
    size_t i = 0;
    const char *k;
    size_t kn;
    while (jr_obj_next(r, &i, &k, &kn)) {
      char *u = malloc(kn + 1);
      size_t un = u ? jr_unescape(k, kn, u) : 0;
      int hit = u && un == sl && !memcmp(u, seg, sl);
      free(u);
      if (hit) return jr_skip(r, vb, ve);
      const char *b, *e;
      if (!jr_skip(r, &b, &e)) return 0;
    }
    return 0;
  }
  if (c != '[') return 0;
  jr_arr_begin(r);
  size_t i = 0;
  if (sl > 2 && seg[0] == '[' && seg[sl - 1] == ']') {
    const char *eq = memchr(seg, '=', sl);
    if (!eq) return 0;
    const char *key = seg + 1, *val = eq + 1;
    size_t kl = (size_t)(eq - key), vl = (size_t)(seg + sl - 1 - val);
    while (jr_arr_next(r, &i)) {
      const char *b, *e;
      if (!jr_skip(r, &b, &e)) return 0;
      jr sub;
      jr_init(&sub, b, (size_t)(e - b));
      char kz[64];
      if (kl >= sizeof kz) return 0;
      memcpy(kz, key, kl);
      kz[kl] = 0;
      const char *fb, *fe;
      if (step(&sub, kz, kl, &fb, &fe) &&
          (raw_str_is(fb, fe, val, vl) || ((size_t)(fe - fb) == vl && !memcmp(fb, val, vl)))) {
        *vb = b;
        *ve = e;
        return 1;
      }
    }
    return 0;
  }
  char *end;
  long idx = strtol(seg, &end, 10);
  if (end != seg + sl || idx < 0) return 0;
  while (jr_arr_next(r, &i)) {
    const char *b, *e;
    if (!jr_skip(r, &b, &e)) return 0;
    if (i - 1 == (size_t)idx) {
      *vb = b;
      *ve = e;
      return 1;
    }
  }
  return 0;
}

int tj_find(const char *json, const char *path, const char **vb, const char **ve) {
  size_t n = strlen(json);
  if (!tj_valid(json, n)) return 0;
  const char *b = json, *e = json + n;
  const char *p = path;
  while (*p) {
    const char *dot = p;
    /* a [key=value] segment may hold dots */
    if (*p == '[') dot = strchr(p, ']') ? strchr(p, ']') + 1 : p + strlen(p);
    else while (*dot && *dot != '.') dot++;
    size_t sl = (size_t)(dot - p);
    jr r;
    jr_init(&r, b, (size_t)(e - b));
    if (!step(&r, p, sl, &b, &e)) return 0;
    p = *dot == '.' ? dot + 1 : dot;
  }
  *vb = b;
  *ve = e;
  return 1;
}

int tj_has(const char *json, const char *path) {
  const char *b, *e;
  return tj_find(json, path, &b, &e);
}

int tj_is_null(const char *json, const char *path) {
  const char *b, *e;
  return tj_find(json, path, &b, &e) && e - b == 4 && !memcmp(b, "null", 4);
}

int tj_bool(const char *json, const char *path) {
  const char *b, *e;
  ck_assert_msg(tj_find(json, path, &b, &e), "JSON path %s: missing", path);
  if (e - b == 4 && !memcmp(b, "true", 4)) return 1;
  ck_assert_msg(e - b == 5 && !memcmp(b, "false", 5), "JSON path %s: not a boolean: %.*s", path, (int)(e - b), b);
  return 0;
}

int64_t tj_i64(const char *json, const char *path) {
  const char *b, *e;
  ck_assert_msg(tj_find(json, path, &b, &e), "JSON path %s: missing", path);
  jr r;
  jr_init(&r, b, (size_t)(e - b));
  int64_t v = 0;
  ck_assert_msg(jr_i64(&r, &v, FSDPA_ABSENT), "JSON path %s: not an integer: %.*s", path, (int)(e - b), b);
  return v;
}

double tj_num(const char *json, const char *path) {
  const char *b, *e;
  ck_assert_msg(tj_find(json, path, &b, &e), "JSON path %s: missing", path);
  char *end;
  char buf[64];
  size_t n = (size_t)(e - b) < sizeof buf - 1 ? (size_t)(e - b) : sizeof buf - 1;
  memcpy(buf, b, n);
  buf[n] = 0;
  double v = strtod(buf, &end);
  ck_assert_msg(end != buf && !*end, "JSON path %s: not a number: %s", path, buf);
  return v;
}

char *tj_str(const char *json, const char *path) {
  const char *b, *e;
  ck_assert_msg(tj_find(json, path, &b, &e), "JSON path %s: missing", path);
  ck_assert_msg(e - b >= 2 && *b == '"', "JSON path %s: not a string", path);
  size_t n = (size_t)(e - b) - 2;
  char *u = malloc(n + 1);
  ck_assert_ptr_nonnull(u);
  u[jr_unescape(b + 1, n, u)] = 0;
  return u;
}

int tj_str_is(const char *json, const char *path, const char *s) {
  const char *b, *e;
  return tj_find(json, path, &b, &e) && raw_str_is(b, e, s, strlen(s));
}

size_t tj_count(const char *json, const char *path) {
  const char *b, *e;
  ck_assert_msg(tj_find(json, path, &b, &e), "JSON path %s: missing", path);
  jr r;
  jr_init(&r, b, (size_t)(e - b));
  size_t i = 0;
  int c = jr_peek(&r);
  if (c == '[') {
    jr_arr_begin(&r);
    while (jr_arr_next(&r, &i)) {
      const char *x, *y;
      if (!jr_skip(&r, &x, &y)) break;
    }
  } else {
    ck_assert_msg(c == '{', "JSON path %s: not an array or object", path);
    jr_obj_begin(&r);
    const char *k;
    size_t kn;
    while (jr_obj_next(&r, &i, &k, &kn)) {
      const char *x, *y;
      if (!jr_skip(&r, &x, &y)) break;
    }
  }
  return i;
}

int tj_index(const char *json, const char *path, const char *key, const char *s) {
  size_t n = tj_count(json, path);
  for (size_t i = 0; i < n; i++) {
    char p[512];
    if (key) snprintf(p, sizeof p, "%s.%zu.%s", path, i, key);
    else snprintf(p, sizeof p, "%s.%zu", path, i);
    if (tj_str_is(json, p, s)) return (int)i;
  }
  return -1;
}
