/* Public queries over the track structure: steps, streams, GPU density. */
#include "ctx.h"
#include "events/classify.h"
#include <stdlib.h>
#include <string.h>

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
