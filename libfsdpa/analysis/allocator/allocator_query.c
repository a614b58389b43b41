/* Public queries of the allocator group (fsdpa.h): argument checks, query
 * resolution and copying the engine's rows out. */
#include "analysis/allocator/allocator_impl.h"
#include <string.h>

static fsdpa_status open_q(fsdpa_ctx *c, const fsdpa_query *q, qwin *w, ar *r) {
  fsdpa_status st = ctx_resolve_query(c, q, w);
  if (st) return st;
  if ((st = ar_open(c, r))) return ctx_fail(c, st, "out of memory building the memory timeline");
  return FSDPA_OK;
}

static fsdpa_status bad_array(fsdpa_ctx *c, const char *what) {
  return ctx_fail(c, FSDPA_EINVAL, "%s: NULL count, or NULL/bad-size array with a capacity", what);
}

fsdpa_status fsdpa_query_memory(fsdpa_ctx *c, const fsdpa_query *q, fsdpa_memory_summary *out) {
  if (!c || !out) return FSDPA_EINVAL;
  ctx_clear(c);
  if (!ctx_struct_ok(out->size, sizeof *out)) return ctx_fail(c, FSDPA_EINVAL, "fsdpa_memory_summary.size");
  qwin w;
  ar r;
  fsdpa_status st = open_q(c, q, &w, &r);
  if (st) return st;
  fsdpa_memory_summary s;
  st = ar_summary(c, &r, &w, &s);
  ar_close(c, &r);
  if (st) return ctx_fail(c, st, "out of memory");
  *out = s;
  return FSDPA_OK;
}

fsdpa_status fsdpa_query_memory_devices(fsdpa_ctx *c, const fsdpa_query *q, fsdpa_memory_device *out,
                                        size_t *inout_n) {
  if (!c) return FSDPA_EINVAL;
  ctx_clear(c);
  sc_out o;
  if (sc_out_init(&o, out, inout_n, sizeof(fsdpa_memory_device)))
    return bad_array(c, "fsdpa_query_memory_devices");
  qwin w;
  ar r;
  fsdpa_status st = open_q(c, q, &w, &r);
  if (st) return st;
  size_t n = r.m.nd;
  for (size_t i = 0; i < n; i++) {
    fsdpa_memory_device d;
    ar_device(c, &r, (int32_t)i, w.t0, w.t1, &d);
    sc_out_put(&o, i, &d);
  }
  ar_close(c, &r);
  *inout_n = n;
  return n > o.cap ? FSDPA_EBUFS : FSDPA_OK;
}

fsdpa_status fsdpa_query_memory_series(fsdpa_ctx *c, const fsdpa_query *q, int64_t device, size_t buckets,
                                       fsdpa_memory_point *out, size_t *inout_n) {
  if (!c) return FSDPA_EINVAL;
  ctx_clear(c);
  sc_out o;
  if (sc_out_init(&o, out, inout_n, sizeof(fsdpa_memory_point)))
    return bad_array(c, "fsdpa_query_memory_series");
  if (!buckets) return ctx_fail(c, FSDPA_EINVAL, "fsdpa_query_memory_series: buckets must be >= 1");
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
    sc_out_put(&o, i, &x);
  }
  if (p) fa_free(&c->alloc, p, buckets * sizeof(am_point));
  ar_close(c, &r);
  *inout_n = n;
  return n > o.cap ? FSDPA_EBUFS : FSDPA_OK;
}

fsdpa_status fsdpa_query_memory_steps(fsdpa_ctx *c, const fsdpa_query *q, fsdpa_memory_step *out,
                                      size_t *inout_n) {
  if (!c) return FSDPA_EINVAL;
  ctx_clear(c);
  sc_out o;
  if (sc_out_init(&o, out, inout_n, sizeof(fsdpa_memory_step))) return bad_array(c, "fsdpa_query_memory_steps");
  qwin w;
  ar r;
  fsdpa_status st = open_q(c, q, &w, &r);
  if (st) return st;
  int32_t di = am_find(&r.m, w.device);
  size_t n = 0;
  for (size_t i = 0; i < r.s.nsteps; i++) {
    if (r.s.steps[i].ts < w.t0 || r.s.steps[i].ts >= w.t1) continue;
    fsdpa_memory_step s;
    if ((st = ar_step(c, &r, i, di, &s))) break;
    sc_out_put(&o, n++, &s);
  }
  ar_close(c, &r);
  if (st) return ctx_fail(c, st, "out of memory");
  *inout_n = n;
  return n > o.cap ? FSDPA_EBUFS : FSDPA_OK;
}
