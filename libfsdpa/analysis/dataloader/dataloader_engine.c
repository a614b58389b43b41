/* GPU idle inside DataLoader __next__: the definitions are in
 * docs/report-contract.md ("DataLoader"). */
#include "analysis/dataloader/dataloader_impl.h"
#include "events/classify_workload.h"
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

/* Whether a name is a DataLoader __next__, decided once per name (the
 * classification is a string match; traces repeat few names many times). */
static int is_next(const store *s, uint8_t *memo, uint32_t name) {
  if (name >= s->name_info.len) return 0;
  if (memo[name] == 0xff)
    memo[name] = classify_iteration_mark(store_name(s, name), intern_len(&s->names, name)) == IT_DATALOADER;
  return memo[name];
}

fsdpa_status dl_compute(fsdpa_ctx *c, dl_result *r) {
  memset(r, 0, sizeof *r);
  const store *s = &c->st;
  fa_alloc *a = &c->alloc;
  size_t nn = s->name_info.len ? s->name_info.len : 1;
  uint8_t *memo = fa_malloc(a, nn);
  if (!memo) return fa_fail_status(a);
  memset(memo, 0xff, nn);
  size_t ncalls = 0;
  for (size_t i = 0; i < s->cpu.len; i++) {
    const ev_rec *e = STORE_REC(&s->cpu, i);
    if (is_next(s, memo, e->name)) {
      ncalls++;
      r->total_ns += e->end - e->ts;
    }
  }
  r->calls = ncalls;
  const store_views *v = ctx_views(c);
  if (!v) {
    fa_free(a, memo, nn);
    return fa_fail_status(a);
  }
  if (!ncalls || !v->nall) {
    fa_free(a, memo, nn);
    return FSDPA_OK;
  }
  iterations it;
  fsdpa_status st = iterations_build(c, &it);
  if (st) {
    fa_free(a, memo, nn);
    return st;
  }
  size_t nw = it.n >= 2 ? it.n - 1 : 1, nb = v->nall;
  iv *win = fa_malloc(a, nw * sizeof *win), *idle = fa_malloc(a, (nb + 1) * sizeof *idle);
  iv *idle_w = fa_malloc(a, (nb + 1 + nw) * sizeof *idle_w), *dl = fa_malloc(a, ncalls * sizeof *dl);
  iv *span_w = fa_malloc(a, (1 + nw) * sizeof *span_w);
  dl_call *calls = fa_malloc(a, ncalls * sizeof *calls);
  if (!win || !idle || !idle_w || !dl || !span_w || !calls) {
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
  size_t k = 0;
  for (size_t i = 0; i < s->cpu.len && k < ncalls; i++) {
    const ev_rec *e = STORE_REC(&s->cpu, i);
    if (!is_next(s, memo, e->name)) continue;
    dl[k] = (iv){e->ts, e->end};
    calls[k] = (dl_call){e->ts, e->end, iv_len_in(idle_w, niw, e->ts, e->end)};
    top_insert(r, &calls[k]);
    k++;
  }
  size_t nd = iv_union(dl, k);
  r->cost_ns = iv_intersect_len(idle_w, niw, dl, nd);
out:
  fa_free(a, calls, ncalls * sizeof *calls);
  fa_free(a, span_w, (1 + (it.n >= 2 ? it.n - 1 : 1)) * sizeof *span_w);
  fa_free(a, dl, ncalls * sizeof *dl);
  fa_free(a, idle_w, (nb + 1 + (it.n >= 2 ? it.n - 1 : 1)) * sizeof *idle_w);
  fa_free(a, idle, (nb + 1) * sizeof *idle);
  fa_free(a, win, (it.n >= 2 ? it.n - 1 : 1) * sizeof *win);
  iterations_free(&it);
  fa_free(a, memo, nn);
  return st;
}
