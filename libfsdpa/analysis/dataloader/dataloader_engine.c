/* GPU idle inside DataLoader __next__: the definitions are in
 * docs/report-contract.md ("DataLoader"). */
#include "analysis/dataloader/dataloader_impl.h"
#include "model/dataloader_calls.h"
#include "model/iterations.h"
#include <string.h>

static void top_insert(dl_result *r, const dl_call *k) {
  int i = r->ntop < FINDING_MAX_RANGES ? r->ntop++ : FINDING_MAX_RANGES;
  if (i == FINDING_MAX_RANGES) {
    if (k->idle_ns <= r->top[FINDING_MAX_RANGES - 1].idle_ns) return;
    i = FINDING_MAX_RANGES - 1;
  }
  while (i > 0 && (r->top[i - 1].idle_ns < k->idle_ns ||
                   (r->top[i - 1].idle_ns == k->idle_ns && r->top[i - 1].s > k->s))) {
    r->top[i] = r->top[i - 1];
    i--;
  }
  r->top[i] = *k;
}

/* Computed once per context state: the report asks for its JSON section and
 * for its finding. */
static fsdpa_status dl_build(fsdpa_ctx *c, void *obj, const void *arg) {
  (void)arg;
  dl_result *r = obj;
  memset(r, 0, sizeof *r);
  fa_alloc *a = &c->alloc;
  const dl_calls *dc;
  fsdpa_status st = dl_calls_get(c, &dc);
  if (st) return st;
  size_t ncalls = dc->n;
  r->calls = ncalls;
  r->total_ns = dc->total_ns;
  const store_views *v = ctx_views(c);
  if (!v) return fa_fail_status(a);
  if (!ncalls || !v->nall) return FSDPA_OK;
  iterations it;
  if ((st = iterations_build(c, &it))) return st;
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
    r->window = DL_AFTER_FIRST_ITERATION;
  } else {
    win[0] = span;
    nw = 1;
    r->window = DL_WHOLE_TRACE;
  }
  size_t ni = iv_gaps(v->all_busy, nb, span.s, span.e, idle);
  size_t niw = iv_intersect(idle, ni, win, nw, idle_w);
  size_t nsw = iv_intersect(&span, 1, win, nw, span_w);
  r->window_ns = iv_total(span_w, nsw);
  r->idle_ns = iv_total(idle_w, niw);
  for (size_t k = 0; k < ncalls; k++) {
    dl_call x = {dc->calls[k].s, dc->calls[k].e, iv_len_in(idle_w, niw, dc->calls[k].s, dc->calls[k].e)};
    top_insert(r, &x);
  }
  r->cost_ns = iv_intersect_len(idle_w, niw, dc->u, dc->nu);
out:
  fa_free(a, span_w, (1 + nw0) * sizeof *span_w);
  fa_free(a, idle_w, (nb + 1 + nw0) * sizeof *idle_w);
  fa_free(a, idle, (nb + 1) * sizeof *idle);
  fa_free(a, win, nw0 * sizeof *win);
  iterations_free(&it);
  return st;
}

static void dl_free(fsdpa_ctx *c, void *obj) { fa_free(&c->alloc, obj, sizeof(dl_result)); }

fsdpa_status dl_compute(fsdpa_ctx *c, dl_result *r) {
  const void *k = NULL;
  fsdpa_status st = ctx_cache_obtain(c, CACHE_DATALOADER, sizeof *r, dl_build, NULL, dl_free, &k);
  if (st) {
    memset(r, 0, sizeof *r);
    return ctx_fail(c, st, "out of memory (dataloader)");
  }
  *r = *(const dl_result *)k;
  return FSDPA_OK;
}
