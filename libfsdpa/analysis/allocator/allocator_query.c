/* Public queries of the allocator group (fsdpa.h): argument checks, query
 * resolution and copying the engine's rows out. */
#include "analysis/allocator/allocator_impl.h"
#include "util/abi.h"
#include "util/list.h"
#include <string.h>

static fsdpa_status open_q(fsdpa_ctx *c, const fsdpa_query *q, qwin *w, ar *r) {
  fsdpa_status st = ctx_resolve_query(c, q, w);
  if (st) return st;
  if ((st = ar_open(c, r))) return ctx_fail(c, st, "out of memory building the memory timeline");
  return FSDPA_OK;
}

static fsdpa_status finish(fsdpa_ctx *c, list_build *b, fsdpa_list **out) {
  fsdpa_status st = lb_finish(b, out);
  return st ? ctx_fail(c, st, "out of memory") : FSDPA_OK;
}

fsdpa_status fsdpa_memory_query(fsdpa_ctx *c, const fsdpa_query *q, fsdpa_memory_summary *out) {
  if (!c) return FSDPA_EINVAL;
  ctx_clear(c);
  if (!ABI_OK(fsdpa_memory_summary, out)) return ctx_fail(c, FSDPA_EINVAL, "fsdpa_memory_summary.size");
  qwin w;
  ar r;
  fsdpa_status st = open_q(c, q, &w, &r);
  if (st) return st;
  fsdpa_memory_summary s;
  st = ar_summary(c, &r, &w, &s);
  ar_close(c, &r);
  if (st) return ctx_fail(c, st, "out of memory");
  ABI_OUT(fsdpa_memory_summary, out, &s);
  return FSDPA_OK;
}

fsdpa_status fsdpa_memory_device_list(fsdpa_ctx *c, const fsdpa_query *q, fsdpa_list **out) {
  if (!c) return FSDPA_EINVAL;
  ctx_clear(c);
  if (!out) return ctx_fail(c, FSDPA_EINVAL, "fsdpa_memory_device_list: NULL out");
  *out = NULL;
  qwin w;
  ar r;
  fsdpa_status st = open_q(c, q, &w, &r);
  if (st) return st;
  list_build b;
  lb_init(&b, &c->alloc, FSDPA_LIST_MEMORY_DEVICES);
  for (size_t i = 0; i < r.m.nd; i++) {
    fsdpa_memory_device d;
    ar_device(c, &r, (int32_t)i, w.t0, w.t1, &d);
    lb_push(&b, &d);
  }
  ar_close(c, &r);
  return finish(c, &b, out);
}

fsdpa_status fsdpa_memory_series_list(fsdpa_ctx *c, const fsdpa_query *q, int64_t device, size_t buckets,
                                      fsdpa_list **out) {
  if (!c) return FSDPA_EINVAL;
  ctx_clear(c);
  if (!out) return ctx_fail(c, FSDPA_EINVAL, "fsdpa_memory_series_list: NULL out");
  *out = NULL;
  if (!buckets) return ctx_fail(c, FSDPA_EINVAL, "fsdpa_memory_series_list: buckets must be >= 1");
  qwin w;
  ar r;
  fsdpa_status st = open_q(c, q, &w, &r);
  if (st) return st;
  int32_t di = am_find(&r.m, device);
  am_point *p = di >= 0 ? fa_malloc(&c->alloc, buckets * sizeof(am_point)) : NULL;
  if (di >= 0 && !p) {
    ar_close(c, &r);
    return ctx_fail(c, fa_fail_status(&c->alloc), "out of memory");
  }
  size_t n = di >= 0 ? am_series(c, &r.m, di, w.t0, w.t1, buckets, p) : 0;
  list_build b;
  lb_init(&b, &c->alloc, FSDPA_LIST_MEMORY_POINTS);
  for (size_t i = 0; i < n; i++) {
    fsdpa_memory_point x;
    memset(&x, 0, sizeof x);
    x.size = sizeof x;
    x.t0_ns = ctx_abs(c, p[i].t0);
    x.t1_ns = ctx_abs(c, p[i].t1);
    x.events = p[i].events;
    x.allocated_min = p[i].a_min;
    x.allocated_max = p[i].a_max;
    x.allocated_last = p[i].a_last;
    x.reserved_min = p[i].r_min;
    x.reserved_max = p[i].r_max;
    x.reserved_last = p[i].r_last;
    lb_push(&b, &x);
  }
  if (p) fa_free(&c->alloc, p, buckets * sizeof(am_point));
  ar_close(c, &r);
  return finish(c, &b, out);
}

fsdpa_status fsdpa_memory_step_list(fsdpa_ctx *c, const fsdpa_query *q, fsdpa_list **out) {
  if (!c) return FSDPA_EINVAL;
  ctx_clear(c);
  if (!out) return ctx_fail(c, FSDPA_EINVAL, "fsdpa_memory_step_list: NULL out");
  *out = NULL;
  qwin w;
  ar r;
  fsdpa_status st = open_q(c, q, &w, &r);
  if (st) return st;
  int32_t di = am_find(&r.m, w.device);
  list_build b;
  lb_init(&b, &c->alloc, FSDPA_LIST_MEMORY_STEPS);
  for (size_t i = 0; i < r.s.nsteps; i++) {
    if (r.s.steps[i].ts < w.t0 || r.s.steps[i].ts >= w.t1) continue;
    fsdpa_memory_step s;
    if ((st = ar_step(c, &r, i, di, &s))) break;
    lb_push(&b, &s);
  }
  ar_close(c, &r);
  if (st) {
    lb_free(&b);
    return ctx_fail(c, st, "out of memory");
  }
  return finish(c, &b, out);
}
