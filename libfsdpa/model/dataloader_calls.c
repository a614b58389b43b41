/* DataLoader __next__ ranges, collected once per context state
 * (model/dataloader_calls.h). */
#include "model/dataloader_calls.h"
#include "events/classify_workload.h"
#include "model/iterations.h"
#include <string.h>

/* Whether a name is a DataLoader __next__, decided once per name (the
 * classification is a string match; traces repeat few names many times). */
static int is_next(const store *s, uint8_t *memo, uint32_t name) {
  if (name >= s->name_info.len) return 0;
  if (memo[name] == 0xff)
    memo[name] = classify_iteration_mark(store_name(s, name), intern_len(&s->names, name)) == IT_DATALOADER;
  return memo[name];
}

static void calls_free(fsdpa_ctx *c, void *obj) {
  dl_calls *d = obj;
  fa_free(&c->alloc, d->calls, d->cap * sizeof *d->calls);
  fa_free(&c->alloc, d->track, d->cap * sizeof *d->track);
  fa_free(&c->alloc, d->u, d->cap * sizeof *d->u);
  fa_free(&c->alloc, d, sizeof *d);
}

static fsdpa_status calls_build(fsdpa_ctx *c, void *obj, const void *arg) {
  (void)arg;
  dl_calls *d = obj;
  memset(d, 0, sizeof *d);
  const store *s = &c->st;
  fa_alloc *a = &c->alloc;
  size_t nn = s->name_info.len ? s->name_info.len : 1;
  uint8_t *memo = fa_malloc(a, nn);
  if (!memo) return fa_fail_status(a);
  memset(memo, 0xff, nn);
  size_t n = 0;
  for (size_t i = 0; i < s->cpu.len; i++) n += is_next(s, memo, STORE_REC(&s->cpu, i)->name) != 0;
  size_t cap = n ? n : 1;
  d->calls = fa_malloc(a, cap * sizeof *d->calls);
  d->track = fa_malloc(a, cap * sizeof *d->track);
  d->u = fa_malloc(a, cap * sizeof *d->u);
  if (!d->calls || !d->u || !d->track) {
    fa_free(a, d->calls, cap * sizeof *d->calls);
    fa_free(a, d->track, cap * sizeof *d->track);
    fa_free(a, d->u, cap * sizeof *d->u);
    fa_free(a, memo, nn);
    memset(d, 0, sizeof *d);
    return fa_fail_status(a);
  }
  d->cap = cap;
  for (size_t i = 0; i < s->cpu.len && d->n < n; i++) {
    const ev_rec *e = STORE_REC(&s->cpu, i);
    if (!is_next(s, memo, e->name)) continue;
    d->track[d->n] = e->track;
    d->calls[d->n++] = (iv){e->ts, e->end};
    d->total_ns += e->end - e->ts;
  }
  fa_free(a, memo, nn);
  memcpy(d->u, d->calls, d->n * sizeof *d->u);
  d->nu = iv_union(d->u, d->n);
  return FSDPA_OK;
}

fsdpa_status dl_calls_get(fsdpa_ctx *c, const dl_calls **out) {
  const void *k = NULL;
  fsdpa_status st = ctx_cache_obtain(c, CACHE_DL_CALLS, sizeof(dl_calls), calls_build, NULL, calls_free, &k);
  *out = st ? NULL : k;
  return st ? ctx_fail(c, st, "out of memory (DataLoader calls)") : FSDPA_OK;
}

static void idle_free(fsdpa_ctx *c, void *obj) {
  dl_idle *d = obj;
  fa_free(&c->alloc, d->call_idle, (d->n ? d->n : 1) * sizeof *d->call_idle);
  fa_free(&c->alloc, d, sizeof *d);
}

/* dataloader-stall's thresholds, read once here so that gpu-starvation's
 * reference to it and the finding itself never disagree. */
static int stall_fires(const fsdpa_ctx *c, const dl_idle *d) {
  if (!d->cost_ns || !d->idle_ns || !d->window_ns) return 0;
  return (double)d->cost_ns * 1e6 >= (double)c->params[P_DATALOADER_MIN_SHARE_PPM] * (double)d->window_ns &&
         (double)d->cost_ns * 1e6 >= (double)c->params[P_DATALOADER_MIN_IDLE_SHARE_PPM] * (double)d->idle_ns;
}

/* The judged window's idle and its part inside the calls, into d (whose
 * call_idle has room for every call). */
static fsdpa_status idle_window(fsdpa_ctx *c, const store_views *v, const dl_calls *dc, dl_idle *d) {
  fa_alloc *a = &c->alloc;
  iterations it;
  fsdpa_status st = iterations_build(c, &it);
  if (st) return st;
  size_t nw0 = it.n >= 2 ? it.n - 1 : 1, nw = nw0, nb = v->nall;
  iv *win = fa_malloc(a, nw0 * sizeof *win), *idle = fa_malloc(a, (nb + 1) * sizeof *idle);
  iv *idle_w = fa_malloc(a, (nb + 1 + nw0) * sizeof *idle_w);
  iv *span_w = fa_malloc(a, (1 + nw0) * sizeof *span_w);
  if (!win || !idle || !idle_w || !span_w) {
    st = fa_fail_status(a);
    goto out;
  }
  iv span = {v->all_busy[0].s, v->all_busy[nb - 1].e};
  if (it.n >= 2) {
    for (size_t i = 1; i < it.n; i++) win[i - 1] = (iv){it.r[i].s, it.r[i].e};
    nw = iv_union(win, nw);
    d->window = DL_AFTER_FIRST_ITERATION;
  } else {
    win[0] = span;
    nw = 1;
    d->window = DL_WHOLE_TRACE;
  }
  d->t0 = win[0].s;
  d->t1 = win[nw - 1].e;
  size_t ni = iv_gaps(v->all_busy, nb, span.s, span.e, idle);
  size_t niw = iv_intersect(idle, ni, win, nw, idle_w);
  size_t nsw = iv_intersect(&span, 1, win, nw, span_w);
  d->window_ns = iv_total(span_w, nsw);
  d->idle_ns = iv_total(idle_w, niw);
  for (size_t k = 0; k < dc->n; k++) d->call_idle[k] = iv_len_in(idle_w, niw, dc->calls[k].s, dc->calls[k].e);
  d->cost_ns = iv_intersect_len(idle_w, niw, dc->u, dc->nu);
out:
  fa_free(a, span_w, (1 + nw0) * sizeof *span_w);
  fa_free(a, idle_w, (nb + 1 + nw0) * sizeof *idle_w);
  fa_free(a, idle, (nb + 1) * sizeof *idle);
  fa_free(a, win, nw0 * sizeof *win);
  iterations_free(&it);
  return st;
}

static fsdpa_status idle_build(fsdpa_ctx *c, void *obj, const void *arg) {
  (void)arg;
  dl_idle *d = obj;
  memset(d, 0, sizeof *d);
  fa_alloc *a = &c->alloc;
  const dl_calls *dc;
  fsdpa_status st = dl_calls_get(c, &dc);
  if (st) return st;
  size_t cap = dc->n ? dc->n : 1;
  const store_views *v = ctx_views(c);
  d->call_idle = v ? fa_malloc(a, cap * sizeof *d->call_idle) : NULL;
  if (!d->call_idle) return fa_fail_status(a);
  memset(d->call_idle, 0, cap * sizeof *d->call_idle);
  d->n = dc->n;
  if (dc->n && v->nall && (st = idle_window(c, v, dc, d))) {
    fa_free(a, d->call_idle, cap * sizeof *d->call_idle);
    memset(d, 0, sizeof *d);
    return st;
  }
  d->stall = stall_fires(c, d);
  return FSDPA_OK;
}

fsdpa_status dl_idle_get(fsdpa_ctx *c, const dl_idle **out) {
  const void *k = NULL;
  fsdpa_status st = ctx_cache_obtain(c, CACHE_DL_IDLE, sizeof(dl_idle), idle_build, NULL, idle_free, &k);
  *out = st ? NULL : k;
  return st ? ctx_fail(c, st, "out of memory (DataLoader idle)") : FSDPA_OK;
}
