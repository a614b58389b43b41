/* A JSON document as a tree (jdoc.h). */
#include "util/jdoc.h"
#include "util/jsonr.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define JDC_MAX_DEPTH 128

typedef struct jp {
  jdoc *d;
  jr r;
  size_t strs_used;
  int oom;
} jp;

static uint32_t new_node(jp *p, uint8_t type) {
  jdoc *d = p->d;
  if (d->n == d->cap) {
    size_t nc = d->cap ? d->cap * 2 : 256;
    if (nc > UINT32_MAX) {
      p->oom = 1;
      return 0;
    }
    jdc_node *nv = fa_realloc(d->a, d->v, d->cap * sizeof *nv, nc * sizeof *nv);
    if (!nv) {
      p->oom = 1;
      return 0;
    }
    d->v = nv;
    d->cap = nc;
  }
  jdc_node *x = &d->v[d->n];
  memset(x, 0, sizeof *x);
  x->type = type;
  return (uint32_t)d->n++;
}

/* A raw string decoded into the arena (sized from the input: a decoded
 * string and its NUL never take more than its quoted form). */
static const char *decode(jp *p, const char *raw, size_t n, size_t *len) {
  char *o = p->d->strs + p->strs_used;
  *len = jr_unescape(raw, n, o);
  o[*len] = 0;
  p->strs_used += *len + 1;
  return o;
}

static int value(jp *p, uint32_t *out, int depth);

static int children(jp *p, uint32_t self, int is_obj, int depth) {
  size_t i = 0;
  uint32_t last = 0;
  const char *k = NULL;
  size_t kn = 0;
  for (;;) {
    int more = is_obj ? jr_obj_next(&p->r, &i, &k, &kn) : jr_arr_next(&p->r, &i);
    if (!more) break;
    const char *key = NULL;
    size_t key_len = 0;
    if (is_obj) key = decode(p, k, kn, &key_len);
    uint32_t c;
    if (!value(p, &c, depth + 1)) return 0;
    p->d->v[c].key = key;
    p->d->v[c].key_len = key_len;
    if (last) p->d->v[last].next = c;
    else p->d->v[self].first = c;
    last = c;
    p->d->v[self].n++;
  }
  return jr_ok(&p->r);
}

static int value(jp *p, uint32_t *out, int depth) {
  if (depth > JDC_MAX_DEPTH) return jr_fail(&p->r, "nesting too deep");
  int c = jr_peek(&p->r);
  uint32_t x;
  switch (c) {
    case '{':
    case '[': {
      const char *b = p->r.p;
      x = new_node(p, c == '{' ? JDC_OBJ : JDC_ARR);
      if (p->oom) return jr_fail(&p->r, "out of memory");
      if (!(c == '{' ? jr_obj_begin(&p->r) : jr_arr_begin(&p->r))) return 0;
      *out = x;
      if (!children(p, x, c == '{', depth)) return 0;
      p->d->v[x].raw = b;
      p->d->v[x].raw_len = (size_t)(p->r.p - b);
      return 1;
    }
    case '"': {
      const char *raw;
      size_t n;
      if (!jr_str(&p->r, &raw, &n)) return 0;
      x = new_node(p, JDC_STR);
      if (p->oom) return jr_fail(&p->r, "out of memory");
      p->d->v[x].s = decode(p, raw, n, &p->d->v[x].len);
      p->d->v[x].raw = raw - 1;
      p->d->v[x].raw_len = n + 2;
      *out = x;
      return 1;
    }
    case -1: return jr_fail(&p->r, "unexpected end");
    default: {
      const char *b, *e;
      if (!jr_skip(&p->r, &b, &e)) return 0;
      uint8_t t = *b == 't' ? JDC_TRUE : *b == 'f' ? JDC_FALSE : *b == 'n' ? JDC_NULL : JDC_NUM;
      x = new_node(p, t);
      if (p->oom) return jr_fail(&p->r, "out of memory");
      p->d->v[x].raw = b;
      p->d->v[x].raw_len = (size_t)(e - b);
      if (t == JDC_NUM) {
        p->d->v[x].s = b;
        p->d->v[x].len = (size_t)(e - b);
      }
      *out = x;
      return 1;
    }
  }
}

int jdc_parse(fa_alloc *a, const char *s, size_t n, jdoc *d, char *msg, size_t msg_len) {
  memset(d, 0, sizeof *d);
  d->a = a;
  if (msg && msg_len) msg[0] = 0;
  d->strs_cap = n + 1;
  d->strs = fa_malloc(a, d->strs_cap);
  if (!d->strs) return fa_fail_status(a);
  jp p;
  memset(&p, 0, sizeof p);
  p.d = d;
  jr_init(&p.r, s, n);
  uint32_t root = 0;
  int ok = value(&p, &root, 0) && jr_end(&p.r);
  if (p.oom) return fa_fail_status(a);
  if (!ok) {
    d->err_off = p.r.err_off;
    snprintf(d->err, sizeof d->err, "%s", p.r.msg);
    if (msg && msg_len) snprintf(msg, msg_len, "%s at byte %zu", p.r.msg, p.r.err_off);
    return FSDPA_EPARSE;
  }
  return FSDPA_OK;
}

void jdc_free(jdoc *d) {
  if (!d->a) return;
  fa_free(d->a, d->v, d->cap * sizeof *d->v);
  fa_free(d->a, d->strs, d->strs_cap);
  memset(d, 0, sizeof *d);
}

const jdc_node *jdc_first(const jdoc *d, const jdc_node *x) {
  return x && (x->type == JDC_ARR || x->type == JDC_OBJ) && x->first ? &d->v[x->first] : NULL;
}

const jdc_node *jdc_next(const jdoc *d, const jdc_node *c) { return c && c->next ? &d->v[c->next] : NULL; }

const jdc_node *jdc_get(const jdoc *d, const jdc_node *o, const char *key) {
  if (!o || o->type != JDC_OBJ) return NULL;
  size_t kn = strlen(key);
  for (const jdc_node *c = jdc_first(d, o); c; c = jdc_next(d, c))
    if (c->key_len == kn && !memcmp(c->key, key, kn)) return c;
  return NULL;
}

const jdc_node *jdc_path(const jdoc *d, const jdc_node *o, const char *path) {
  char part[128];
  while (o && *path) {
    size_t k = strcspn(path, ".");
    if (k >= sizeof part) return NULL;
    memcpy(part, path, k);
    part[k] = 0;
    o = jdc_get(d, o, part);
    path += k + (path[k] == '.');
  }
  return o;
}

const jdc_node *jdc_at(const jdoc *d, const jdc_node *a, size_t i) {
  const jdc_node *c = a && a->type == JDC_ARR ? jdc_first(d, a) : NULL;
  while (c && i--) c = jdc_next(d, c);
  return c;
}

int jdc_to_i64(const jdc_node *x, int64_t *v) {
  if (!x || x->type != JDC_NUM) return 0;
  const char *p = x->s, *e = x->s + x->len;
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
int jdc_to_f64(const jdc_node *x, double *v) {
  if (!x || x->type != JDC_NUM) return 0;
  const char *p = x->s, *e = x->s + x->len;
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

int64_t jdc_i64(const jdc_node *x, int64_t absent) {
  int64_t v;
  return jdc_to_i64(x, &v) ? v : absent;
}

double jdc_f64(const jdc_node *x, double absent) {
  double v;
  return jdc_to_f64(x, &v) ? v : absent;
}

size_t jdc_str_copy(const jdc_node *x, char *out, size_t cap) {
  if (!cap) return 0;
  out[0] = 0;
  if (!x || x->type != JDC_STR) return 0;
  size_t n = x->len;
  if (n > cap - 1) {
    /* not inside a UTF-8 sequence: back to the start of the one cut */
    n = cap - 1;
    while (n > 0 && ((unsigned char)x->s[n] & 0xC0) == 0x80) n--;
  }
  memcpy(out, x->s, n);
  out[n] = 0;
  return n;
}

const char *jdc_str(const jdc_node *x, const char *absent) { return x && x->type == JDC_STR ? x->s : absent; }

int jdc_str_is(const jdc_node *x, const char *lit) {
  return x && x->type == JDC_STR && x->len == strlen(lit) && !memcmp(x->s, lit, x->len);
}

void jdc_write(const jdoc *d, const jdc_node *x, jsonw *w) {
  switch (x->type) {
    case JDC_NULL: jw_null(w); return;
    case JDC_TRUE: jw_bool(w, 1); return;
    case JDC_FALSE: jw_bool(w, 0); return;
    case JDC_NUM: jw_raw(w, x->s, x->len); return;
    case JDC_STR: jw_strn(w, x->s, x->len); return;
    default: break;
  }
  if (x->type == JDC_OBJ) jw_obj(w);
  else jw_arr(w);
  for (const jdc_node *c = jdc_first(d, x); c; c = jdc_next(d, c)) {
    if (x->type == JDC_OBJ) jw_key(w, c->key);
    jdc_write(d, c, w);
  }
  if (x->type == JDC_OBJ) jw_obj_end(w);
  else jw_arr_end(w);
}
