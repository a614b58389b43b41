/* The op models.  Shapes come as the store's compact JSON texts; each model
 * reads the inputs at the positions of its op's signature (TraceLens's
 * get_param_details of the same op).  Every product is checked: a shape
 * whose counts overflow int64 is no real tensor, and gives no model. */
#include "model/perf_model.h"
#include <string.h>
#include <strings.h>

#define PM_MAXIN 32  /* inputs read (ops with more keep the first ones) */
#define PM_MAXDIM 8  /* dimensions of one input */

typedef struct pm_in {
  int ndims;                 /* -1: not a flat list of integers (a tensor list, null, ...) */
  int64_t d[PM_MAXDIM];
} pm_in;

typedef struct pm_str {
  const char *s;
  size_t n;                  /* raw bytes between the quotes; s NULL for a non-string */
} pm_str;

typedef struct pm_args {
  pm_in in[PM_MAXIN];
  int nin;
  pm_str type[PM_MAXIN];
  int ntype;
  pm_str conc[PM_MAXIN];
  int nconc;
} pm_args;

const char *pm_dtype_name(int d) {
  static const char *const N[PD__COUNT] = {NULL, "fp64", "fp32", "tf32", "fp16", "bf16", "fp8"};
  return d > 0 && d < PD__COUNT ? N[d] : NULL;
}

const char *pm_model_name(int m) {
  switch (m) {
    case OM_MM: case OM_ADDMM: case OM_SCALED_MM: return "gemm";
    case OM_BMM: case OM_BADDBMM: return "bmm";
    case OM_GROUPED_MM: return "grouped_gemm";
    case OM_SDPA_FLASH: case OM_SDPA_EFF: case OM_FLASH_FWD: return "sdpa_fwd";
    case OM_SDPA_FLASH_BWD: case OM_SDPA_EFF_BWD: case OM_SDPA_CUDNN_BWD: case OM_FLASH_BWD: return "sdpa_bwd";
    case OM_CONV: return "conv_fwd";
    case OM_CONV_BWD: return "conv_bwd";
    case OM_UNARY: return "unary";
    case OM_BINARY: return "binary";
    default: return NULL;
  }
}

/* ---- parsing the compact texts (valid JSON: the store checked them) ---- */

/* One integer at *p; advances.  0 unless it is a plain integer. */
static int parse_int(const char **p, const char *e, int64_t *v) {
  const char *q = *p;
  int neg = q < e && *q == '-';
  if (neg) q++;
  if (q >= e || *q < '0' || *q > '9') return 0;
  uint64_t x = 0;
  while (q < e && *q >= '0' && *q <= '9') {
    if (x > (uint64_t)INT64_MAX / 10) return 0;
    x = x * 10 + (uint64_t)(*q++ - '0');
    if (x > (uint64_t)INT64_MAX) return 0;
  }
  if (q < e && (*q == '.' || *q == 'e' || *q == 'E')) return 0;
  *v = neg ? -(int64_t)x : (int64_t)x;
  *p = q;
  return 1;
}

/* Skip one JSON value of compact text at *p (no blanks). */
static void skip_value(const char **p, const char *e) {
  const char *q = *p;
  int depth = 0, in_str = 0, esc = 0;
  for (; q < e; q++) {
    char c = *q;
    if (in_str) {
      if (esc) esc = 0;
      else if (c == '\\') esc = 1;
      else if (c == '"') {
        in_str = 0;
        if (!depth) { q++; break; }
      }
      continue;
    }
    if (c == '"') in_str = 1;
    else if (c == '[' || c == '{') depth++;
    else if (c == ']' || c == '}') {
      if (!depth) break;
      if (--depth == 0) { q++; break; }
    } else if (c == ',' && !depth) break;
  }
  *p = q;
}

static void parse_dims(const char *s, size_t n, pm_args *a) {
  const char *p = s, *e = s + n;
  a->nin = 0;
  if (p >= e || *p != '[') return;
  p++;
  while (p < e && *p != ']' && a->nin < PM_MAXIN) {
    pm_in *x = &a->in[a->nin++];
    x->ndims = -1;
    if (*p == '[') {
      const char *q = p + 1;
      int k = 0, ok = 1;
      while (q < e && *q != ']') {
        int64_t v;
        if (k >= PM_MAXDIM || !parse_int(&q, e, &v) || v < 0) {
          ok = 0;
          break;
        }
        x->d[k++] = v;
        if (q < e && *q == ',') q++;
      }
      if (ok && q < e && *q == ']') {
        x->ndims = k;
        p = q + 1;
      } else {
        skip_value(&p, e);
      }
    } else {
      skip_value(&p, e);
    }
    if (p < e && *p == ',') p++;
  }
}

static int parse_strs(const char *s, size_t n, pm_str *out) {
  const char *p = s, *e = s + n;
  int k = 0;
  if (p >= e || *p != '[') return 0;
  p++;
  while (p < e && *p != ']' && k < PM_MAXIN) {
    pm_str *x = &out[k++];
    x->s = NULL;
    x->n = 0;
    if (*p == '"') {
      const char *b = p + 1;
      skip_value(&p, e);
      x->s = b;
      x->n = (size_t)(p - 1 - b);
    } else {
      skip_value(&p, e);
    }
    if (p < e && *p == ',') p++;
  }
  return k;
}

static void parse_args(const shape_parts *sp, pm_args *a) {
  memset(a, 0, sizeof *a);
  parse_dims(sp->dims, sp->dims_n, a);
  a->ntype = parse_strs(sp->types, sp->types_n, a->type);
  a->nconc = parse_strs(sp->concrete, sp->concrete_n, a->conc);
}

/* ---- helpers ---- */

static int str_is(const pm_str *x, const char *lit) {
  size_t n = strlen(lit);
  return x->s && x->n == n && strncasecmp(x->s, lit, n) == 0;
}

/* TraceLens's name2bpe, lower-cased names; 0 unknown. */
static int64_t bpe(const pm_args *a, int i) {
  if (i >= a->ntype || !a->type[i].s) return 0;
  const pm_str *t = &a->type[i];
  if (str_is(t, "double") || str_is(t, "long int")) return 8;
  if (str_is(t, "float") || str_is(t, "scalar") || str_is(t, "int")) return 4;
  if (str_is(t, "c10::half") || str_is(t, "c10::bfloat16") || str_is(t, "short int")) return 2;
  if (t->n >= 15 && strncasecmp(t->s, "c10::float8_", 12) == 0) return 1;
  return 0;
}

static int dtype_of(const pm_args *a, int i) {
  if (i >= a->ntype || !a->type[i].s) return PD_NONE;
  const pm_str *t = &a->type[i];
  if (str_is(t, "c10::bfloat16")) return PD_BF16;
  if (str_is(t, "c10::half")) return PD_FP16;
  if (str_is(t, "float")) return PD_FP32;
  if (str_is(t, "double")) return PD_FP64;
  if (t->n >= 12 && strncasecmp(t->s, "c10::float8_", 12) == 0) return PD_FP8;
  return PD_NONE;
}

/* An input with exactly `nd` dimensions (nd < 0: any flat list). */
static const pm_in *in_nd(const pm_args *a, int i, int nd) {
  if (i >= a->nin || a->in[i].ndims < 0) return NULL;
  return nd < 0 || a->in[i].ndims == nd ? &a->in[i] : NULL;
}

/* Checked arithmetic: any overflow poisons the result (*ok = 0). */
static int64_t mul(int64_t x, int64_t y, int *ok) {
  int64_t r;
  if (__builtin_mul_overflow(x, y, &r)) {
    *ok = 0;
    return 0;
  }
  return r;
}
static int64_t add(int64_t x, int64_t y, int *ok) {
  int64_t r;
  if (__builtin_add_overflow(x, y, &r)) {
    *ok = 0;
    return 0;
  }
  return r;
}
static int64_t prod(const int64_t *d, int n, int *ok) {
  int64_t r = 1;
  for (int i = 0; i < n; i++) r = mul(r, d[i], ok);
  return r;
}

static int conc_true(const pm_args *a, int i) { return i < a->nconc && str_is(&a->conc[i], "true"); }

/* ---- GEMMs ---- */

/* GEMM.flops_func / bytes_func, times a batch. */
static void gemm(int64_t b, int64_t m, int64_t n, int64_t k, int bias, int64_t be, int64_t be_out, pm_call *o) {
  int ok = 1;
  int64_t f = mul(mul(mul(2, m, &ok), n, &ok), k, &ok);
  if (bias) f = add(f, mul(m, n, &ok), &ok);
  f = mul(f, b, &ok);
  if (!ok) return;
  o->flops = f;
  if (be > 0 && be_out > 0) {
    int64_t y = add(add(mul(mul(m, k, &ok), be, &ok), mul(mul(k, n, &ok), be, &ok), &ok),
                    mul(mul(m, n, &ok), be_out, &ok), &ok);
    if (bias) y = add(y, mul(n, be, &ok), &ok);
    y = mul(y, b, &ok);
    if (ok) o->bytes = y;
  }
}

static void model_gemm(int model, const pm_args *a, pm_call *o) {
  int ia = model == OM_ADDMM || model == OM_BADDBMM ? 1 : 0;
  int nd = model == OM_BMM || model == OM_BADDBMM ? 3 : 2;
  const pm_in *A = in_nd(a, ia, nd), *B = in_nd(a, ia + 1, nd);
  if (!A || !B) return;
  int64_t b = nd == 3 ? A->d[0] : 1, m = A->d[nd - 2], k = A->d[nd - 1], n = B->d[nd - 1];
  int bias = model == OM_ADDMM || model == OM_BADDBMM || (model == OM_SCALED_MM && a->nin == 3);
  int64_t be = bpe(a, ia), be_out = be;
  if (model == OM_SCALED_MM) be_out = be == 1 ? 2 : (be == 2 || be == 4) ? be : 0;
  o->model = model;
  o->dtype = dtype_of(a, ia);
  o->min_dim = m < n ? (m < k ? m : k) : (n < k ? n : k);
  gemm(b, m, n, k, bias, be, be_out, o);
  if (o->flops == FSDPA_ABSENT) o->model = OM_NONE;
}

/* X[M,K] · W[G,K,N] (or [G,N,K]), [G,M,K] · [G,K,N], or [M,K] · [K,N] with
 * K grouped by offsets (an output per group). */
static void model_grouped(const pm_args *a, pm_call *o) {
  const pm_in *X = in_nd(a, 0, -1), *W = in_nd(a, 1, -1);
  if (!X || !W) return;
  int ok = 1;
  int64_t g = 1, m, k, n, outs = 1, wmat;
  if (X->ndims == 2 && W->ndims == 3) {
    m = X->d[0];
    k = X->d[1];
    g = W->d[0];
    if (W->d[1] == k) n = W->d[2];
    else if (W->d[2] == k) n = W->d[1];
    else return;
    wmat = g;
  } else if (X->ndims == 3 && W->ndims == 3 && X->d[0] == W->d[0] && X->d[2] == W->d[1]) {
    g = X->d[0];
    m = mul(g, X->d[1], &ok);
    k = X->d[2];
    n = W->d[2];
    wmat = g;
  } else if (X->ndims == 2 && W->ndims == 2 && X->d[1] == W->d[0]) {
    m = X->d[0];
    k = X->d[1];
    n = W->d[1];
    const pm_in *offs = in_nd(a, 2, 1);
    outs = offs ? offs->d[0] : 1;
    wmat = 1;
  } else {
    return;
  }
  int64_t f = mul(mul(mul(2, m, &ok), k, &ok), n, &ok);
  if (!ok) return;
  o->model = OM_GROUPED_MM;
  o->dtype = dtype_of(a, 0);
  o->flops = f;
  o->min_dim = n < k ? n : k;
  int64_t be = bpe(a, 0), be_out = be == 1 ? 2 : be;
  if (be > 0) {
    int64_t y = add(add(mul(mul(m, k, &ok), be, &ok), mul(mul(mul(wmat, k, &ok), n, &ok), be, &ok), &ok),
                    mul(mul(mul(outs, m, &ok), n, &ok), be_out, &ok), &ok);
    if (ok) o->bytes = y;
  }
}

/* ---- attention ---- */

typedef struct sdpa_cfg {
  int64_t b, nq, hq, nkv, hkv, dqk, dv;
} sdpa_cfg;

/* extract_sdpa_cfg: q, k, v 4-D at iq..iq+2, layout [B,H,N,d] (bnhd = 0) or
 * [B,N,H,d] (bnhd = 1). */
static int sdpa_shapes(const pm_args *a, int iq, int bnhd, sdpa_cfg *c) {
  const pm_in *q = in_nd(a, iq, 4), *k = in_nd(a, iq + 1, 4), *v = in_nd(a, iq + 2, 4);
  if (!q || !k || !v) return 0;
  int ih = bnhd ? 2 : 1, in = bnhd ? 1 : 2;
  if (q->d[0] != k->d[0] || q->d[0] != v->d[0] || k->d[ih] != v->d[ih] || k->d[in] != v->d[in] ||
      q->d[3] != k->d[3] || k->d[ih] == 0)
    return 0;
  c->b = q->d[0];
  c->hq = q->d[ih];
  c->nq = q->d[in];
  c->dqk = q->d[3];
  c->hkv = k->d[ih];
  c->nkv = k->d[in];
  c->dv = v->d[3];
  return 1;
}

/* SDPA.flops_func and bytes_func; a causal mask halves (N_Q = N_KV only). */
static void sdpa_fwd(const pm_args *a, int iq, int bnhd, int icausal, pm_call *o, int model) {
  sdpa_cfg c;
  if (!sdpa_shapes(a, iq, bnhd, &c)) return;
  int causal = conc_true(a, icausal);
  if (causal && c.nq != c.nkv) return;
  int ok = 1;
  int64_t bh = mul(c.b, c.hq, &ok), nn = mul(c.nq, c.nkv, &ok);
  int64_t f = add(mul(mul(mul(bh, 2, &ok), nn, &ok), c.dqk, &ok), mul(mul(mul(bh, 2, &ok), nn, &ok), c.dv, &ok), &ok);
  if (!ok) return;
  o->model = model;
  o->dtype = dtype_of(a, iq);
  o->flops = causal ? f / 2 : f;
  int64_t be = bpe(a, iq);
  if (be > 0) {
    int64_t el = add(add(mul(mul(mul(c.b, c.nq, &ok), c.hq, &ok), c.dqk, &ok), mul(mul(mul(c.b, c.nkv, &ok), c.hkv, &ok), c.dqk, &ok), &ok),
                     add(mul(mul(mul(c.b, c.nkv, &ok), c.hkv, &ok), c.dv, &ok), mul(mul(mul(c.b, c.nq, &ok), c.hq, &ok), c.dv, &ok), &ok), &ok);
    el = mul(el, be, &ok);
    if (ok) o->bytes = el;
  }
}

/* SDPA.flops_bwd_func and bytes_bwd_func. */
static void sdpa_bwd(const pm_args *a, int iq, int bnhd, int icausal, int flash, pm_call *o, int model) {
  sdpa_cfg c;
  if (!sdpa_shapes(a, iq, bnhd, &c)) return;
  int causal = conc_true(a, icausal);
  if (causal && c.nq != c.nkv) return;
  int ok = 1;
  int64_t bh2nn = mul(mul(mul(c.b, c.hq, &ok), 2, &ok), mul(c.nq, c.nkv, &ok), &ok);
  int64_t gqa = c.hq / c.hkv - 1;
  int64_t f = flash ? mul(bh2nn, c.dqk, &ok) : 0;
  f = add(f, add(mul(bh2nn, c.dv, &ok), mul(mul(mul(c.b, c.nkv, &ok), c.dv, &ok), gqa, &ok), &ok), &ok); /* V grad */
  f = add(f, mul(bh2nn, c.dv, &ok), &ok);                                                                   /* P grad */
  f = add(f, mul(bh2nn, c.dqk, &ok), &ok);                                                                  /* Q grad */
  f = add(f, add(mul(bh2nn, c.dqk, &ok), mul(mul(mul(c.b, c.nkv, &ok), c.dqk, &ok), gqa, &ok), &ok), &ok); /* K grad */
  if (!ok) return;
  o->model = model;
  o->dtype = dtype_of(a, iq);
  o->flops = causal ? f / 2 : f;
  int64_t be = bpe(a, iq);
  if (be > 0) {
    int64_t q = mul(mul(mul(c.b, c.nq, &ok), c.hq, &ok), c.dqk, &ok);
    int64_t k = mul(mul(mul(c.b, c.nkv, &ok), c.hkv, &ok), c.dqk, &ok);
    int64_t v = mul(mul(mul(c.b, c.nkv, &ok), c.hkv, &ok), c.dv, &ok);
    int64_t og = mul(mul(mul(c.b, c.nq, &ok), c.hq, &ok), c.dv, &ok);
    int64_t el = add(add(mul(2, add(q, add(k, v, &ok), &ok), &ok), og, &ok), 0, &ok);
    el = mul(el, be, &ok);
    if (ok) o->bytes = el;
  }
}

/* ---- convolution ---- */

/* A list argument ("[1, 1]", "(2,)", "2" or "" = the default), broadcast to
 * nd values.  0 if it cannot be read. */
static int conc_list(const pm_args *a, int i, int nd, int64_t dflt, int64_t *out) {
  for (int k = 0; k < nd; k++) out[k] = dflt;
  if (i >= a->nconc || !a->conc[i].s || !a->conc[i].n) return 1;
  const char *p = a->conc[i].s, *e = p + a->conc[i].n;
  int64_t v[PM_MAXDIM];
  int k = 0;
  while (p < e) {
    if (*p == '[' || *p == '(' || *p == ']' || *p == ')' || *p == ',' || *p == ' ') {
      p++;
      continue;
    }
    if (k >= PM_MAXDIM || !parse_int(&p, e, &v[k])) return 0;
    k++;
  }
  if (k == 1) {
    for (int j = 0; j < nd; j++) out[j] = v[0];
  } else if (k == nd) {
    for (int j = 0; j < nd; j++) out[j] = v[j];
  } else if (k) {
    return 0;
  }
  return 1;
}

typedef struct conv_cfg {
  int nd;                    /* spatial dimensions */
  int64_t x[PM_MAXDIM], w[PM_MAXDIM], out[PM_MAXDIM];
  int transposed, bias;
} conv_cfg;

/* CONV.get_output_shape. */
static int conv_shapes(const pm_args *a, int ix, int ic, conv_cfg *c) {
  const pm_in *x = in_nd(a, ix, -1), *w = in_nd(a, ix + 1, -1);
  if (!x || !w || x->ndims < 3 || x->ndims > 5 || w->ndims != x->ndims) return 0;
  int nd = x->ndims - 2;
  int64_t stride[PM_MAXDIM], pad[PM_MAXDIM], dil[PM_MAXDIM], opad[PM_MAXDIM];
  if (!conc_list(a, ic, nd, 1, stride) || !conc_list(a, ic + 1, nd, 0, pad) || !conc_list(a, ic + 2, nd, 1, dil) ||
      !conc_list(a, ic + 4, nd, 0, opad))
    return 0;
  c->nd = nd;
  c->transposed = conc_true(a, ic + 3);
  memcpy(c->x, x->d, sizeof c->x);
  memcpy(c->w, w->d, sizeof c->w);
  c->out[0] = x->d[0];
  c->out[1] = c->transposed ? w->d[1] : w->d[0];
  int ok = 1;
  for (int i = 0; i < nd; i++) {
    int64_t in = x->d[2 + i], k = w->d[2 + i], o;
    if (!c->transposed) {
      if (stride[i] <= 0) return 0;
      int64_t num = add(add(in, mul(2, pad[i], &ok), &ok), -add(mul(dil[i], k - 1, &ok), 1, &ok), &ok);
      if (num < 0) return 0;
      o = num / stride[i] + 1;
    } else {
      o = add(add(add(mul(in - 1, stride[i], &ok), -mul(2, pad[i], &ok), &ok), mul(dil[i], k - 1, &ok), &ok),
              add(opad[i], 1, &ok), &ok);
      if (o < 0) return 0;
    }
    c->out[2 + i] = o;
  }
  return ok;
}

/* CONV.flops_func: 2·|w[1:]| per output element (per input element when
 * transposed), plus the bias. */
static int64_t conv_flops(const int64_t *x, const int64_t *w, const int64_t *out, int n, int bias, int transposed, int *ok) {
  int64_t per = mul(2, prod(w + 1, n - 1, ok), ok);
  int64_t f = mul(prod(transposed ? x : out, n, ok), per, ok);
  return bias ? add(f, prod(out, n, ok), ok) : f;
}

/* The transposed view of a shape (CONV.t): its first two dims swapped. */
static void swap01(const int64_t *s, int64_t *t) {
  memcpy(t, s, PM_MAXDIM * sizeof *t);
  t[0] = s[1];
  t[1] = s[0];
}

static void model_conv(const pm_args *a, int bwd, pm_call *o) {
  conv_cfg c;
  int ix = bwd ? 1 : 0, ic = bwd ? 4 : 3;
  if (!conv_shapes(a, ix, ic, &c)) return;
  int n = c.nd + 2, ok = 1;
  const pm_in *b = in_nd(a, bwd ? 3 : 2, -1);
  c.bias = b && b->ndims > 0;
  int64_t f, el;
  int64_t px = prod(c.x, n, &ok), pw = prod(c.w, n, &ok), po = prod(c.out, n, &ok);
  if (!bwd) {
    f = conv_flops(c.x, c.w, c.out, n, c.bias, c.transposed, &ok);
    el = add(add(px, pw, &ok), add(po, c.bias ? c.out[1] : 0, &ok), &ok);
  } else {
    int64_t tx[PM_MAXDIM], tw[PM_MAXDIM], to[PM_MAXDIM];
    swap01(c.x, tx);
    swap01(c.w, tw);
    swap01(c.out, to);
    f = conv_flops(c.out, c.w, c.x, n, 0, !c.transposed, &ok);
    f = add(f, c.transposed ? conv_flops(to, tx, tw, n, 0, 0, &ok) : conv_flops(tx, to, tw, n, 0, 0, &ok), &ok);
    if (c.bias) f = add(f, po, &ok);
    el = mul(2, add(add(po, pw, &ok), px, &ok), &ok);
    if (c.bias) el = add(el, add(po, c.out[1], &ok), &ok);
  }
  if (!ok) return;
  o->model = bwd ? OM_CONV_BWD : OM_CONV;
  o->dtype = dtype_of(a, ix);
  o->flops = f;
  int64_t be = bpe(a, ix);
  if (be > 0) {
    el = mul(el, be, &ok);
    if (ok) o->bytes = el;
  }
}

/* ---- elementwise ---- */

static void model_unary(const pm_args *a, pm_call *o) {
  const pm_in *x = in_nd(a, 0, -1);
  if (!x) return;
  int ok = 1;
  int64_t n = prod(x->d, x->ndims, &ok);
  const pm_in *y = in_nd(a, 1, -1);
  int64_t bi = bpe(a, 0), bo = y && y->ndims > 0 ? bpe(a, 1) : bi;
  if (!ok) return;
  o->model = OM_UNARY;
  o->flops = n;
  if (bi > 0 && bo > 0) {
    int64_t v = add(mul(n, bi, &ok), mul(n, bo, &ok), &ok);
    if (ok) o->bytes = v;
  }
}

static void model_binary(const pm_args *a, pm_call *o) {
  const pm_in *x = in_nd(a, 0, -1), *y = in_nd(a, 1, -1);
  if (!x || !y) return;
  int nd = x->ndims > y->ndims ? x->ndims : y->ndims, ok = 1;
  int64_t out[PM_MAXDIM];
  for (int i = 0; i < nd; i++) {  /* broadcast, aligned to the right */
    int ix = i - (nd - x->ndims), iy = i - (nd - y->ndims);
    int64_t dx = ix >= 0 ? x->d[ix] : 1, dy = iy >= 0 ? y->d[iy] : 1;
    if (dx != dy && dx != 1 && dy != 1) return;
    out[i] = dx > dy ? dx : dy;
  }
  int64_t n1 = prod(x->d, x->ndims, &ok), n2 = prod(y->d, y->ndims, &ok), no = prod(out, nd, &ok);
  if (!ok) return;
  o->model = OM_BINARY;
  o->flops = no;
  int64_t b1 = bpe(a, 0), b2 = bpe(a, 1), bo = 0;
  const pm_in *z = in_nd(a, 2, -1);
  if (z && z->ndims > 0) bo = bpe(a, 2);
  else if (b1 && b2) bo = x->ndims > 0 && y->ndims > 0 ? (b1 > b2 ? b1 : b2) : b1;
  if (b1 > 0 && b2 > 0 && bo > 0) {
    int64_t v = add(add(mul(n1, b1, &ok), mul(n2, b2, &ok), &ok), mul(no, bo, &ok), &ok);
    if (ok) o->bytes = v;
  }
}

void pm_evaluate(int model, const shape_parts *sp, pm_call *o) {
  o->model = OM_NONE;
  o->dtype = PD_NONE;
  o->flops = o->bytes = o->min_dim = FSDPA_ABSENT;
  if (model == OM_NONE || !sp->dims_n) return;
  pm_args a;
  parse_args(sp, &a);
  switch (model) {
    case OM_MM: case OM_ADDMM: case OM_SCALED_MM: case OM_BMM: case OM_BADDBMM: model_gemm(model, &a, o); break;
    case OM_GROUPED_MM: model_grouped(&a, o); break;
    case OM_SDPA_FLASH: sdpa_fwd(&a, 0, 0, 4, o, model); break;
    case OM_SDPA_EFF: sdpa_fwd(&a, 0, 0, 6, o, model); break;
    case OM_FLASH_FWD: sdpa_fwd(&a, 0, 1, 5, o, model); break;
    case OM_SDPA_FLASH_BWD: sdpa_bwd(&a, 1, 0, 11, 1, o, model); break;
    case OM_SDPA_EFF_BWD: sdpa_bwd(&a, 1, 0, 11, 0, o, model); break;
    case OM_SDPA_CUDNN_BWD: sdpa_bwd(&a, 1, 0, 14, 0, o, model); break;
    case OM_FLASH_BWD: sdpa_bwd(&a, 1, 1, 11, 1, o, model); break;
    case OM_CONV: model_conv(&a, 0, o); break;
    case OM_CONV_BWD: model_conv(&a, 1, o); break;
    case OM_UNARY: model_unary(&a, o); break;
    case OM_BINARY: model_binary(&a, o); break;
    default: break;
  }
  if (o->model == OM_NONE) o->flops = o->bytes = o->min_dim = FSDPA_ABSENT, o->dtype = PD_NONE;
}
