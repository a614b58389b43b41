#include "util/jdom.h"
#include "util/jsonr.h"
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#define JD_MAX_DEPTH 64

/* A new node's index; 0 on failure (the root, index 0, is added first by
 * jd_parse, which checks len instead). */
static uint32_t add(jd_doc *d) {
  if (d->len == d->cap) {
    size_t cap = d->cap ? d->cap * 2 : 256;
    if (cap > UINT32_MAX) return 0;
    jd_node *n = fa_realloc(d->a, d->n, d->cap * sizeof *n, cap * sizeof *n);
    if (!n) return 0;
    d->n = n;
    d->cap = cap;
  }
  memset(&d->n[d->len], 0, sizeof d->n[0]);
  return (uint32_t)d->len++;
}

/* Parse one value into node `at` (already added).  0 on failure: r->err
 * set for a syntax error, else the allocator failed. */
static int value(jd_doc *d, jr *r, uint32_t at, int depth) {
  if (depth > JD_MAX_DEPTH) return jr_fail(r, "nesting too deep");
  int c = jr_peek(r);
  const char *b, *e;
  size_t i = 0;
  if (c == '{' || c == '[') {
    d->n[at].type = c == '{' ? JD_OBJ : JD_ARR;
    d->n[at].v = r->p;
    uint32_t last = 0;
    const char *k = NULL;
    size_t kn = 0;
    if (c == '{' ? !jr_obj_begin(r) : !jr_arr_begin(r)) return 0;
    while (c == '{' ? jr_obj_next(r, &i, &k, &kn) : jr_arr_next(r, &i)) {
      uint32_t x = add(d);
      if (!x) return 0;
      if (c == '{') {
        if (kn > UINT32_MAX) return jr_fail(r, "key too long");
        d->n[x].key = k;
        d->n[x].key_len = (uint32_t)kn;
      }
      if (!value(d, r, x, depth + 1)) return 0;
      if (last) d->n[last].next = x;
      else d->n[at].child = x;
      last = x;
      d->n[at].n++;
    }
    if (!jr_ok(r)) return 0;
    size_t vl = (size_t)(r->p - d->n[at].v);
    d->n[at].v_len = vl > UINT32_MAX ? UINT32_MAX : (uint32_t)vl;
    return 1;
  }
  if (c == '"') {
    size_t n;
    if (!jr_str(r, &b, &n)) return 0;
    if (n > UINT32_MAX) return jr_fail(r, "string too long");
    d->n[at].type = JD_STR;
    d->n[at].v = b;
    d->n[at].v_len = (uint32_t)n;
    return 1;
  }
  if (!jr_skip(r, &b, &e)) return 0;
  d->n[at].v = b;
  d->n[at].v_len = (uint32_t)(e - b);
  d->n[at].type = *b == 'n' ? JD_NULL : *b == 't' ? JD_TRUE : *b == 'f' ? JD_FALSE : JD_NUM;
  return 1;
}

fsdpa_status jd_parse(jd_doc *d, fa_alloc *a, const char *s, size_t len) {
  memset(d, 0, sizeof *d);
  d->a = a;
  jr r;
  jr_init(&r, s, len);
  add(d);
  if (d->len != 1) return fa_fail_status(a);
  int ok = value(d, &r, 0, 0) && jr_end(&r);
  if (ok) return FSDPA_OK;
  if (!r.err) return fa_fail_status(a);
  d->err_off = r.err_off;
  snprintf(d->msg, sizeof d->msg, "%s", r.msg);
  return FSDPA_EPARSE;
}

void jd_free(jd_doc *d) {
  if (d->n) fa_free(d->a, d->n, d->cap * sizeof *d->n);
  d->n = NULL;
  d->len = d->cap = 0;
}

const jd_node *jd_first(const jd_doc *d, const jd_node *x) {
  return x && (x->type == JD_OBJ || x->type == JD_ARR) && x->child ? &d->n[x->child] : NULL;
}

const jd_node *jd_next(const jd_doc *d, const jd_node *x) { return x && x->next ? &d->n[x->next] : NULL; }

const jd_node *jd_get(const jd_doc *d, const jd_node *x, const char *key) {
  if (!x || x->type != JD_OBJ) return NULL;
  size_t kn = strlen(key);
  for (const jd_node *m = jd_first(d, x); m; m = jd_next(d, m))
    if (m->key_len == kn && !memcmp(m->key, key, kn)) return m;
  return NULL;
}

const jd_node *jd_path(const jd_doc *d, const jd_node *x, ...) {
  va_list ap;
  va_start(ap, x);
  const char *k;
  while (x && (k = va_arg(ap, const char *)) != NULL) x = jd_get(d, x, k);
  va_end(ap);
  return x;
}

int jd_i64(const jd_node *x, int64_t *v) {
  if (!x || x->type != JD_NUM) return 0;
  const char *p = x->v, *e = x->v + x->v_len;
  int neg = p < e && *p == '-';
  p += neg;
  uint64_t m = 0;
  for (; p < e; p++) {
    if (*p < '0' || *p > '9') return 0; /* a fraction or an exponent */
    unsigned dg = (unsigned)(*p - '0');
    if (m > (UINT64_MAX - dg) / 10) return 0;
    m = m * 10 + dg;
  }
  if (neg ? m > (uint64_t)INT64_MAX + 1 : m > (uint64_t)INT64_MAX) return 0;
  *v = neg ? (int64_t)(0 - m) : (int64_t)m;
  return 1;
}

/* Numbers by hand, not strtod(): the library must not depend on the
 * embedding process's LC_NUMERIC.  Digits past the 19th only scale. */
int jd_f64(const jd_node *x, double *v) {
  if (!x || x->type != JD_NUM) return 0;
  const char *p = x->v, *e = x->v + x->v_len;
  int neg = p < e && *p == '-';
  p += neg;
  uint64_t m = 0;
  int digits = 0, exp10 = 0;
  for (; p < e && *p >= '0' && *p <= '9'; p++) {
    if (digits < 19) {
      m = m * 10 + (uint64_t)(*p - '0');
      if (m) digits++;
    } else {
      exp10++;
    }
  }
  if (p < e && *p == '.')
    for (p++; p < e && *p >= '0' && *p <= '9'; p++)
      if (digits < 19) {
        m = m * 10 + (uint64_t)(*p - '0');
        if (m) digits++;
        exp10--;
      }
  if (p < e && (*p == 'e' || *p == 'E')) {
    p++;
    int en = p < e && *p == '-';
    if (p < e && (*p == '-' || *p == '+')) p++;
    int ev = 0;
    for (; p < e && *p >= '0' && *p <= '9'; p++)
      if (ev < 10000) ev = ev * 10 + (*p - '0');
    exp10 += en ? -ev : ev;
  }
  double r = (double)m;
  static const double P[] = {1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16};
  while (exp10 > 0) {
    int k = exp10 > 16 ? 16 : exp10;
    r *= P[k];
    exp10 -= k;
  }
  while (exp10 < 0) {
    int k = -exp10 > 16 ? 16 : -exp10;
    r /= P[k];
    exp10 += k;
  }
  *v = neg ? -r : r;
  return 1;
}

size_t jd_str(const jd_node *x, char *out, size_t cap) {
  if (!cap) return 0;
  out[0] = 0;
  if (!x || x->type != JD_STR) return 0;
  /* raw bytes that fit (decoding never lengthens), not cutting an escape */
  size_t n = x->v_len, lim = cap - 1;
  int cut = n > lim;
  if (cut) {
    size_t i = 0;
    while (i < x->v_len) {
      size_t step = x->v[i] != '\\' ? 1 : x->v[i + 1] == 'u' ? 6 : 2;
      if (i + step > lim) break;
      i += step;
    }
    n = i;
  }
  size_t got = jr_unescape(x->v, n, out);
  if (cut && got) {
    /* drop a UTF-8 sequence the cut left incomplete */
    size_t k = got;
    while (k > 0 && ((unsigned char)out[k - 1] & 0xC0) == 0x80 && got - k < 3) k--;
    unsigned char lead = k ? (unsigned char)out[k - 1] : 0;
    size_t need = lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : lead >= 0xC0 ? 2 : 1;
    if (k && lead >= 0xC0 && got - (k - 1) < need) got = k - 1;
  }
  out[got] = 0;
  return got;
}

int jd_str_is(const jd_node *x, const char *s) {
  size_t n = strlen(s);
  return x && x->type == JD_STR && x->v_len == n && !memcmp(x->v, s, n);
}
