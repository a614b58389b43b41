/* The aggregation engine over the runtime-call attribution of the model
 * floor: which blocking calls a window selects, their per-API and per-step
 * rows, and the evaluation the report section and the findings share. */
#include "analysis/sync/sync_impl.h"
#include "events/classify.h"
#include <stdlib.h>
#include <string.h>

void sa_select(const sc_set *s, const qwin *w, uint8_t *sel) {
  for (size_t i = 0; i < s->n; i++) {
    const sc_call *k = &s->v[i];
    sel[i] = sc_is_blocking(k) && k->ts >= w->t0 && k->ts < w->t1 &&
             (w->device == FSDPA_ABSENT || k->device == w->device) &&
             (w->stream == FSDPA_ABSENT || k->stream == w->stream);
  }
}

typedef struct key2 {
  uint32_t a, b;
  size_t i;
} key2;
static int cmp_key2(const void *pa, const void *pb) {
  const key2 *x = pa, *y = pb;
  if (x->a != y->a) return x->a < y->a ? -1 : 1;
  if (x->b != y->b) return x->b < y->b ? -1 : 1;
  return x->i < y->i ? -1 : x->i > y->i;
}

static int cmp_api(const void *pa, const void *pb) {
  const sa_api *a = pa, *b = pb;
  if (a->total != b->total) return a->total > b->total ? -1 : 1;
  return a->name < b->name ? -1 : a->name > b->name;
}

/* Selected calls as (k1, k2, index) keys sorted, so groups are runs; by
 * step, k1 is idx[i] (the call's step when idx is NULL). */
static key2 *sorted_keys(fsdpa_ctx *c, const sc_set *s, const uint8_t *sel, int by_step, const int32_t *idx,
                         size_t *n) {
  size_t m = 0;
  for (size_t i = 0; i < s->n; i++) m += sel[i] != 0;
  *n = m;
  if (!m) return NULL;
  key2 *k = fa_malloc(&c->alloc, m * sizeof(key2));
  if (!k) return NULL;
  m = 0;
  for (size_t i = 0; i < s->n; i++) {
    if (!sel[i]) continue;
    const sc_call *x = &s->v[i];
    k[m++] = (key2){by_step ? (uint32_t)(idx ? idx[i] : x->step) : x->name, x->track, i};
  }
  qsort(k, m, sizeof *k, cmp_key2);
  return k;
}

fsdpa_status sa_apis(fsdpa_ctx *c, const sc_set *s, const uint8_t *sel, sa_api **rows, size_t *nrows) {
  fa_alloc *a = &c->alloc;
  *rows = NULL;
  *nrows = 0;
  size_t m;
  key2 *k = sorted_keys(c, s, sel, 0, NULL, &m);
  if (m && !k) return fa_fail_status(a);
  if (!m) return FSDPA_OK;
  size_t napi = 0;
  for (size_t j = 0; j < m; j++) napi += !j || k[j].a != k[j - 1].a;
  sa_api *r = fa_calloc(a, napi * sizeof(sa_api));
  uint8_t *one = fa_calloc(a, s->n);
  if (!r || !one) {
    fa_free(a, r, napi * sizeof(sa_api));
    fa_free(a, one, s->n);
    fa_free(a, k, m * sizeof(key2));
    return fa_fail_status(a);
  }
  size_t ri = 0, j = 0;
  fsdpa_status st = FSDPA_OK;
  while (j < m) {
    size_t e = j;
    while (e < m && k[e].a == k[j].a) e++;
    sa_api *x = &r[ri++];
    x->name = k[j].a;
    x->worst = k[j].i;
    for (size_t q = j; q < e; q++) {
      const sc_call *cl = &s->v[k[q].i];
      int64_t d = cl->end - cl->ts;
      x->count++;
      x->total += d;
      if (d > x->max) {
        x->max = d;
        x->worst = k[q].i;
      }
      x->in_steps += cl->step >= 0;
      x->threads += q == j || k[q].b != k[q - 1].b;
      x->idle_during += cl->idle_during;
      if (cl->idle_after != FSDPA_ABSENT) {
        x->idle_after += cl->idle_after;
        x->idle_after_calls++;
      }
      one[k[q].i] = 1;
    }
    if (!st) st = sc_idle_cost(c, s, one, &x->idle_cost);
    for (size_t q = j; q < e; q++) one[k[q].i] = 0;
    j = e;
  }
  fa_free(a, one, s->n);
  fa_free(a, k, m * sizeof(key2));
  if (st) {
    fa_free(a, r, napi * sizeof(sa_api));
    return st;
  }
  qsort(r, napi, sizeof *r, cmp_api);
  /* equal totals: order by name text so the output does not depend on intern order */
  for (size_t i = 1; i < napi; i++)
    for (size_t q = i; q > 0 && r[q].total == r[q - 1].total &&
                       strcmp(store_name(&c->st, r[q].name), store_name(&c->st, r[q - 1].name)) < 0;
         q--) {
      sa_api t = r[q];
      r[q] = r[q - 1];
      r[q - 1] = t;
    }
  *rows = r;
  *nrows = napi;
  return FSDPA_OK;
}

void sa_apis_free(fsdpa_ctx *c, sa_api *rows, size_t n) { fa_free(&c->alloc, rows, n * sizeof(sa_api)); }

fsdpa_status sa_steps(fsdpa_ctx *c, const sc_set *s, const uint8_t *sel, sa_step *rows) {
  return sa_windows(c, s, sel, s->steps, s->nsteps, NULL, rows);
}

fsdpa_status sa_windows(fsdpa_ctx *c, const sc_set *s, const uint8_t *sel, const step_rec *win, size_t nwin,
                        const int32_t *idx, sa_step *rows) {
  fa_alloc *a = &c->alloc;
  for (size_t i = 0; i < nwin; i++) {
    memset(&rows[i], 0, sizeof rows[i]);
    rows[i].worst_track = UINT32_MAX;
  }
  if (!nwin) return FSDPA_OK;
  uint8_t *in = fa_malloc(a, sa_flags_bytes(s));
  if (!in) return fa_fail_status(a);
  for (size_t i = 0; i < s->n; i++) in[i] = sel[i] && (idx ? idx[i] : s->v[i].step) >= 0;
  size_t m;
  key2 *k = sorted_keys(c, s, in, 1, idx, &m);
  if (m && !k) {
    fa_free(a, in, sa_flags_bytes(s));
    return fa_fail_status(a);
  }
  fsdpa_status st = FSDPA_OK;
  size_t j = 0;
  memset(in, 0, sa_flags_bytes(s));
  while (j < m) {
    size_t e = j;
    while (e < m && k[e].a == k[j].a) e++;
    sa_step *x = &rows[k[j].a];
    size_t t = j;
    while (t < e) {  /* runs of one thread inside the step */
      size_t u = t;
      int64_t th = 0;
      while (u < e && k[u].b == k[t].b) {
        const sc_call *cl = &s->v[k[u].i];
        int64_t d = cl->end - cl->ts;
        x->count++;
        x->total += d;
        if (d > x->max) x->max = d;
        th += d;
        in[k[u].i] = 1;
        u++;
      }
      if (th > x->worst_thread || x->worst_track == UINT32_MAX) {
        x->worst_thread = th;
        x->worst_track = k[t].b;
      }
      t = u;
    }
    if (!st) st = sc_idle_cost(c, s, in, &x->idle_cost);
    for (size_t q = j; q < e; q++) in[k[q].i] = 0;
    const step_rec *sr = &win[k[j].a];
    int64_t dur = sr->end - sr->ts;
    /* the share test in double: ns * 1e6 would overflow int64 past ~2.5 h */
    x->flagged = x->worst_thread >= c->params[P_SYNC_STALL_MIN_NS] && dur > 0 &&
                 (double)x->worst_thread * 1e6 >= (double)c->params[P_SYNC_STALL_SHARE_PPM] * (double)dur;
    j = e;
  }
  fa_free(a, k, m * sizeof(key2));
  fa_free(a, in, sa_flags_bytes(s));
  return st;
}

fsdpa_status sync_run_calls(fsdpa_ctx *c, sync_run *r) {
  memset(r, 0, sizeof *r);
  return sc_build(c, SC_BLOCKING_MASK, &r->s);
}

fsdpa_status sync_run_select(fsdpa_ctx *c, sync_run *r, const qwin *w) {
  r->sel = fa_malloc(&c->alloc, sa_flags_bytes(&r->s));
  if (!r->sel) {
    sc_free(c, &r->s);
    return fa_fail_status(&c->alloc);
  }
  sa_select(&r->s, w, r->sel);
  return FSDPA_OK;
}

void sync_run_free(fsdpa_ctx *c, sync_run *r) {
  sa_apis_free(c, r->apis, r->napis);
  fa_free(&c->alloc, r->sel, sa_flags_bytes(&r->s));
  sc_free(c, &r->s);
}

fsdpa_status sync_run_open_all(fsdpa_ctx *c, sync_run *r) {
  fsdpa_status st = sync_run_calls(c, r);
  if (st) return st;
  qwin all = {INT64_MIN, INT64_MAX, FSDPA_ABSENT, FSDPA_ABSENT};
  if ((st = sync_run_select(c, r, &all))) return st;
  if ((st = sa_apis(c, &r->s, r->sel, &r->apis, &r->napis))) sync_run_free(c, r);
  return st;
}
