/* Public queries over the track structure: steps, streams, GPU density. */
#include "ctx.h"
#include "events/classify.h"
#include <stdlib.h>
#include <string.h>

/* The store keeps steps sorted by (ts, number), ties in arrival order
 * (store_add), so these are a copy and an index: the report asks for every
 * step by index, and a per-call sort or selection made that cubic. */
size_t ctx_sorted_steps(const fsdpa_ctx *c, step_rec *out, size_t cap) {
  size_t n = c->st.steps.len;
  if (!out) return n;
  if (n > cap) n = cap;
  if (n) memcpy(out, c->st.steps.data, n * sizeof(step_rec));
  return n;
}

size_t fsdpa_step_count(const fsdpa_ctx *c) { return c ? c->st.steps.len : 0; }

fsdpa_status fsdpa_get_step(const fsdpa_ctx *c, size_t i, fsdpa_step *out) {
  if (!c || !out || !ctx_struct_ok(out->size, sizeof *out)) return FSDPA_EINVAL;
  if (i >= c->st.steps.len) return FSDPA_EINVAL;
  const step_rec *r = &((const step_rec *)c->st.steps.data)[i];  /* kept sorted by the store */
  out->size = sizeof *out;
  out->number = r->number;
  out->start_ns = ctx_abs(c, r->ts);
  out->dur_ns = r->end - r->ts;
  return FSDPA_OK;
}

void fsdpa_query_init(fsdpa_query *q) {
  if (!q) return;
  q->size = sizeof *q;
  q->t0_ns = q->t1_ns = q->step = q->device = q->stream = FSDPA_ABSENT;
}

/* A window bound the caller gave (absolute ns, any int64), made relative and
 * clamped to ±1.5 * STORE_MAX_TIME: past every stored time (±2^61), so the
 * window is the same, and a window's length stays inside int64. */
static int64_t rel_bound(int64_t abs, int64_t base) {
  const int64_t lim = STORE_MAX_TIME + STORE_MAX_TIME / 2;
  int64_t r;
  if (__builtin_sub_overflow(abs, base, &r)) r = abs < 0 ? -lim : lim;
  return r > lim ? lim : r < -lim ? -lim : r;
}

fsdpa_status ctx_resolve_query(fsdpa_ctx *c, const fsdpa_query *q, qwin *w) {
  w->t0 = INT64_MIN;
  w->t1 = INT64_MAX;
  w->device = w->stream = FSDPA_ABSENT;
  if (!q) return FSDPA_OK;
  if (!ctx_struct_ok(q->size, sizeof *q)) return ctx_fail(c, FSDPA_EINVAL, "fsdpa_query.size");
  int64_t base = ctx_base(c);
  if (q->step != FSDPA_ABSENT) {
    fsdpa_step s = {sizeof s, 0, 0, 0};
    if (q->step < 0 || fsdpa_get_step(c, (size_t)q->step, &s) != FSDPA_OK)
      return ctx_fail(c, FSDPA_EINVAL, "query step %lld out of range (%zu steps)",
                      (long long)q->step, c->st.steps.len);
    w->t0 = s.start_ns - base;
    w->t1 = s.start_ns + s.dur_ns - base;
  }
  if (q->t0_ns != FSDPA_ABSENT && rel_bound(q->t0_ns, base) > w->t0) w->t0 = rel_bound(q->t0_ns, base);
  if (q->t1_ns != FSDPA_ABSENT && rel_bound(q->t1_ns, base) < w->t1) w->t1 = rel_bound(q->t1_ns, base);
  /* an end before the start is an empty window: analyses count ops between
   * the two bounds and must never see a negative range */
  if (w->t1 < w->t0) w->t1 = w->t0;
  w->device = q->device;
  w->stream = q->stream;
  return FSDPA_OK;
}

size_t fsdpa_stream_count(const fsdpa_ctx *c) {
  if (!c) return 0;
  const store_views *v = ctx_views((fsdpa_ctx *)c);
  return v ? v->nstreams : 0;
}

fsdpa_status fsdpa_get_stream(const fsdpa_ctx *cc, size_t i, fsdpa_stream_info *out) {
  fsdpa_ctx *c = (fsdpa_ctx *)cc;
  if (!c || !out || !ctx_struct_ok(out->size, sizeof *out)) return FSDPA_EINVAL;
  const store_views *v = ctx_views(c);
  if (!v) return fa_fail_status(&c->alloc);
  if (i >= v->nstreams) return FSDPA_EINVAL;
  const gpu_stream_view *sv = &v->streams[i];
  memset(out, 0, sizeof *out);
  out->size = sizeof *out;
  out->device = sv->device;
  out->stream = sv->stream;
  out->role = (fsdpa_stream_role)sv->role;
  out->kernels = sv->kernels;
  out->comm_kernels = sv->comm_kernels;
  out->memops = sv->memops;
  out->busy_ns = iv_total(sv->busy, sv->nbusy);
  out->first_ns = sv->nbusy ? ctx_abs(c, sv->busy[0].s) : FSDPA_ABSENT;
  out->last_ns = sv->nbusy ? ctx_abs(c, sv->busy[sv->nbusy - 1].e) : FSDPA_ABSENT;
  return FSDPA_OK;
}

static int selected(const gpu_stream_view *sv, const qwin *w) {
  return (w->device == FSDPA_ABSENT || sv->device == w->device) &&
         (w->stream == FSDPA_ABSENT || sv->stream == w->stream);
}

fsdpa_status fsdpa_query_timeline(fsdpa_ctx *c, const fsdpa_query *q, fsdpa_timeline *out) {
  if (!c || !out || !ctx_struct_ok(out->size, sizeof *out)) return FSDPA_EINVAL;
  ctx_clear(c);
  qwin w;
  fsdpa_status st = ctx_resolve_query(c, q, &w);
  if (st) return st;
  const store_views *v = ctx_views(c);
  if (!v) return fa_fail_status(&c->alloc);
  /* union of the selected streams, clipped */
  size_t total = 0;
  uint64_t acts = 0;
  for (size_t i = 0; i < v->nstreams; i++)
    if (selected(&v->streams[i], &w)) total += v->streams[i].nbusy;
  iv *u = total ? fa_malloc(&c->alloc, total * sizeof(iv)) : NULL;
  if (total && !u) return ctx_fail(c, fa_fail_status(&c->alloc), "out of memory");
  size_t m = 0;
  for (size_t i = 0; i < v->nstreams; i++) {
    const gpu_stream_view *sv = &v->streams[i];
    if (!selected(sv, &w)) continue;
    for (size_t j = 0; j < sv->nbusy; j++) {
      iv x = sv->busy[j];
      if (iv_clip1(&x, w.t0, w.t1)) u[m++] = x;
    }
    for (size_t j = 0; j < sv->nops; j++) {
      const ev_rec *r = STORE_REC(&c->st.gpu, sv->ops[j]);
      if (r->end > w.t0 && r->ts < w.t1) acts++;
      else if (r->ts == r->end && r->ts >= w.t0 && r->ts < w.t1) acts++;
    }
  }
  m = iv_union(u, m);
  memset(out, 0, sizeof *out);
  out->size = sizeof *out;
  out->activities = acts;
  if (m) {
    out->span_ns = u[m - 1].e - u[0].s;
    out->busy_ns = iv_total(u, m);
    out->density = out->span_ns > 0 ? (double)out->busy_ns / (double)out->span_ns : -1.0;
  } else {
    out->span_ns = FSDPA_ABSENT;
    out->busy_ns = 0;
    out->density = -1.0;
  }
  fa_free(&c->alloc, u, total * sizeof(iv));
  return FSDPA_OK;
}
