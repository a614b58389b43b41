/* First-use calls: what the launching thread pays once, the first time the
 * program does something, and never again in a steady state.  A kernel
 * name's first launch loads its module (the CUDA context on the very first
 * one, lazy module loading after that: CUDA_MODULE_LOADING=LAZY is the
 * default since CUDA 11.7) and lasts milliseconds instead of microseconds;
 * an allocation call (cudaMalloc, hipMalloc, cudaHostAlloc ...) is the
 * caching allocator filling its pool.  The GPU idle inside them is set-up
 * cost: a trace that holds nothing but a first pass (no iterations), or a
 * warm-up iteration, shows it instead of the program's pace. */
#include "analysis/launch_gaps/launch_gaps_impl.h"
#include "events/classify.h"
#include "util/sort.h"
#include <string.h>

#define U32_LESS(x, y) (*(x) < *(y))
FA_SORT_DEFINE(sort_u32, uint32_t, U32_LESS)
#define I64_LESS(x, y) (*(x) < *(y))
FA_SORT_DEFINE(sort_i64, int64_t, I64_LESS)

void lg_first_use_free(fsdpa_ctx *c, lg_first_use *fu) {
  if (!fu) return;
  fa_free(&c->alloc, fu->launch_ts, fu->cap_l * sizeof *fu->launch_ts);
  fa_free(&c->alloc, fu->alloc_ts, fu->cap_a * sizeof *fu->alloc_ts);
  fa_free(&c->alloc, fu->u, fu->cap_u * sizeof *fu->u);
  fa_free(&c->alloc, fu->au, fu->cap_au * sizeof *fu->au);
  fa_free(&c->alloc, fu, sizeof *fu);
}

/* A call of the device allocator: what allocator-thrash counts. */
static int device_alloc_call(uint32_t info) {
  return (info & (NC_MALLOC | NC_FREE | NC_VMM)) && !(info & NC_PINNED);
}

fsdpa_status lg_first_use_build(fsdpa_ctx *c, const store_views *v, lg_first_use **out) {
  *out = NULL;
  const store *s = &c->st;
  fa_alloc *a = &c->alloc;
  lg_first_use *fu = fa_calloc(a, sizeof *fu);
  size_t nn = s->name_info.len ? s->name_info.len : 1;
  uint32_t *first = fa_malloc(a, nn * sizeof *first);  /* per kernel name: st.rt index of its first launch */
  size_t nr = 0, nalloc = 0;
  fsdpa_status st = FSDPA_OK;
  if (!fu || !first) goto oom;
  memset(first, 0xff, nn * sizeof *first);
  for (size_t i = 0; i < s->gpu.len; i++) {
    const ev_rec *r = STORE_REC(&s->gpu, i);
    if (r->kind != RK_KERNEL || r->name >= nn) continue;
    uint32_t ri = store_runtime_for_corr(v, r->corr);
    if (ri == UINT32_MAX) continue;
    uint32_t *f = &first[r->name];
    /* the earliest launch call; ties by record, so the choice is fixed */
    if (*f == UINT32_MAX || STORE_REC(&s->rt, ri)->ts < STORE_REC(&s->rt, *f)->ts ||
        (STORE_REC(&s->rt, ri)->ts == STORE_REC(&s->rt, *f)->ts && ri < *f))
      *f = ri;
  }
  int64_t slow = c->params[P_FIRST_USE_LAUNCH_NS];
  for (size_t k = 0; k < nn; k++)
    if (first[k] != UINT32_MAX) {
      const ev_rec *rt = STORE_REC(&s->rt, first[k]);
      if (rt->end - rt->ts >= slow) first[nr++] = first[k];
    }
  /* one launch call can be the first of several names (a graph launch) */
  sort_u32(first, nr);
  size_t nl = 0;
  for (size_t k = 0; k < nr; k++)
    if (!nl || first[k] != first[nl - 1]) first[nl++] = first[k];
  size_t ndev = 0;
  for (size_t i = 0; i < s->rt.len; i++) {
    uint32_t info = store_name_info(s, STORE_REC(&s->rt, i)->name);
    nalloc += (info & NC_MALLOC) != 0;
    ndev += device_alloc_call(info);
  }
  fu->cap_l = nl ? nl : 1;
  fu->cap_a = nalloc ? nalloc : 1;
  fu->cap_u = nl + nalloc ? nl + nalloc : 1;
  fu->launch_ts = fa_malloc(a, fu->cap_l * sizeof *fu->launch_ts);
  fu->alloc_ts = fa_malloc(a, fu->cap_a * sizeof *fu->alloc_ts);
  fu->u = fa_malloc(a, fu->cap_u * sizeof *fu->u);
  fu->cap_au = ndev ? ndev : 1;
  fu->au = fa_malloc(a, fu->cap_au * sizeof *fu->au);
  if (!fu->launch_ts || !fu->alloc_ts || !fu->u || !fu->au) goto oom;
  for (size_t k = 0; k < nl; k++) {
    const ev_rec *rt = STORE_REC(&s->rt, first[k]);
    fu->launch_ts[fu->nlaunch++] = rt->ts;
    fu->u[fu->nu++] = (iv){rt->ts, rt->end};
  }
  for (size_t i = 0; i < s->rt.len && fu->nalloc < nalloc; i++) {
    const ev_rec *rt = STORE_REC(&s->rt, i);
    if (!(store_name_info(s, rt->name) & NC_MALLOC)) continue;
    fu->alloc_ts[fu->nalloc++] = rt->ts;
    fu->u[fu->nu++] = (iv){rt->ts, rt->end};
  }
  for (size_t i = 0; i < s->rt.len && fu->nau < ndev; i++) {
    const ev_rec *rt = STORE_REC(&s->rt, i);
    if (device_alloc_call(store_name_info(s, rt->name))) fu->au[fu->nau++] = (iv){rt->ts, rt->end};
  }
  fu->nau = iv_union(fu->au, fu->nau);
  sort_i64(fu->launch_ts, fu->nlaunch);
  sort_i64(fu->alloc_ts, fu->nalloc);
  fu->nu = iv_union(fu->u, fu->nu);
  fa_free(a, first, nn * sizeof *first);
  *out = fu;
  return FSDPA_OK;
oom:
  st = ctx_fail(c, fa_fail_status(a), "out of memory (first-use calls)");
  if (first) fa_free(a, first, nn * sizeof *first);
  lg_first_use_free(c, fu);
  return st;
}

/* Values of a sorted array in [t0, t1). */
static uint64_t count_in(const int64_t *a, size_t n, int64_t t0, int64_t t1) {
  size_t lo = 0, hi = n;
  while (lo < hi) {
    size_t m = lo + (hi - lo) / 2;
    if (a[m] < t0) lo = m + 1;
    else hi = m;
  }
  size_t b = lo;
  hi = n;
  while (lo < hi) {
    size_t m = lo + (hi - lo) / 2;
    if (a[m] < t1) lo = m + 1;
    else hi = m;
  }
  return (uint64_t)(lo - b);
}

void lg_first_use_count(const lg_first_use *fu, int64_t t0, int64_t t1, uint64_t *launches, uint64_t *allocs) {
  *launches = count_in(fu->launch_ts, fu->nlaunch, t0, t1);
  *allocs = count_in(fu->alloc_ts, fu->nalloc, t0, t1);
}
