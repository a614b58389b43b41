/* DataLoader __next__ ranges, collected once per context state
 * (model/dataloader_calls.h). */
#include "model/dataloader_calls.h"
#include "events/classify_workload.h"
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
  fa_free(&c->alloc, d->calls, (d->n ? d->n : 1) * sizeof *d->calls);
  fa_free(&c->alloc, d->u, (d->n ? d->n : 1) * sizeof *d->u);
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
  d->u = fa_malloc(a, cap * sizeof *d->u);
  if (!d->calls || !d->u) {
    fa_free(a, d->calls, cap * sizeof *d->calls);
    fa_free(a, d->u, cap * sizeof *d->u);
    fa_free(a, memo, nn);
    memset(d, 0, sizeof *d);
    return fa_fail_status(a);
  }
  for (size_t i = 0; i < s->cpu.len && d->n < n; i++) {
    const ev_rec *e = STORE_REC(&s->cpu, i);
    if (!is_next(s, memo, e->name)) continue;
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
