/* GPU idle inside DataLoader __next__: the definitions are in
 * docs/report-contract.md ("DataLoader"). */
#include "analysis/dataloader/dataloader_impl.h"
#include "model/dataloader_calls.h"
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
 * for its finding.  The numbers are the model's (gpu-starvation reads them
 * too); the room adds the calls that hold most of the idle. */
static fsdpa_status dl_build(fsdpa_ctx *c, void *obj, const void *arg) {
  (void)arg;
  dl_result *r = obj;
  memset(r, 0, sizeof *r);
  const dl_calls *dc;
  const dl_idle *di;
  fsdpa_status st = dl_calls_get(c, &dc);
  if (!st) st = dl_idle_get(c, &di);
  if (st) return st;
  r->calls = dc->n;
  r->total_ns = dc->total_ns;
  r->window = di->window;
  r->t0 = di->t0;
  r->t1 = di->t1;
  r->window_ns = di->window_ns;
  r->idle_ns = di->idle_ns;
  r->cost_ns = di->cost_ns;
  r->stall = di->stall;
  if (!r->window_ns) return FSDPA_OK;
  for (size_t k = 0; k < dc->n && k < di->n; k++) {
    dl_call x = {dc->calls[k].s, dc->calls[k].e, di->call_idle[k]};
    top_insert(r, &x);
  }
  return FSDPA_OK;
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
