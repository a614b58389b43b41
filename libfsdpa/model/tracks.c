/* Public queries over the track structure: steps, streams, GPU density. */
#include "model/tracks.h"
#include "events/classify.h"
#include "util/abi.h"
#include "util/list.h"
#include <stdlib.h>
#include <string.h>

void ctx_step_public(const fsdpa_ctx *c, size_t i, fsdpa_step *out) {
  const step_rec *r = &((const step_rec *)c->st.steps.data)[i];  /* kept sorted by the store */
  memset(out, 0, sizeof *out);
  out->size = sizeof *out;
  out->number = r->number;
  out->start_ns = ctx_abs(c, r->ts);
  out->dur_ns = r->end - r->ts;
}

fsdpa_status fsdpa_step_list(fsdpa_ctx *c, fsdpa_list **out) {
  if (!c) return FSDPA_EINVAL;
  ctx_clear(c);
  if (!out) return ctx_fail(c, FSDPA_EINVAL, "fsdpa_step_list: NULL out");
  *out = NULL;
  list_build b;
  lb_init(&b, &c->alloc, FSDPA_LIST_STEPS);
  for (size_t i = 0; i < c->st.steps.len; i++) {
    fsdpa_step s;
    ctx_step_public(c, i, &s);
    lb_push(&b, &s);
  }
  fsdpa_status st = lb_finish(&b, out);
  return st ? ctx_fail(c, st, "out of memory") : FSDPA_OK;
}

fsdpa_status fsdpa_stream_list(fsdpa_ctx *c, fsdpa_list **out) {
  if (!c) return FSDPA_EINVAL;
  ctx_clear(c);
  if (!out) return ctx_fail(c, FSDPA_EINVAL, "fsdpa_stream_list: NULL out");
  *out = NULL;
  const store_views *v = ctx_views(c);
  if (!v) return fa_fail_status(&c->alloc);
  list_build b;
  lb_init(&b, &c->alloc, FSDPA_LIST_STREAMS);
  for (size_t i = 0; i < v->nstreams; i++) {
    const gpu_stream_view *sv = &v->streams[i];
    fsdpa_stream_info o;
    memset(&o, 0, sizeof o);
    o.size = sizeof o;
    o.device = sv->device;
    o.stream = sv->stream;
    o.role = (fsdpa_stream_role)sv->role;
    o.kernels = sv->kernels;
    o.comm_kernels = sv->comm_kernels;
    o.memops = sv->memops;
    o.busy_ns = iv_total(sv->busy, sv->nbusy);
    o.first_ns = sv->nbusy ? ctx_abs(c, sv->busy[0].s) : FSDPA_ABSENT;
    o.last_ns = sv->nbusy ? ctx_abs(c, sv->busy[sv->nbusy - 1].e) : FSDPA_ABSENT;
    lb_push(&b, &o);
  }
  fsdpa_status st = lb_finish(&b, out);
  return st ? ctx_fail(c, st, "out of memory") : FSDPA_OK;
}

fsdpa_status tracks_busy_union(fsdpa_ctx *c, const store_views *v, const qwin *w, iv **u, size_t *n, size_t *cap) {
  size_t total = 0;
  for (size_t i = 0; i < v->nstreams; i++)
    if (qwin_selects(w, &v->streams[i])) total += v->streams[i].nbusy;
  *u = total ? fa_malloc(&c->alloc, total * sizeof **u) : NULL;
  *n = 0;
  *cap = total;
  if (total && !*u) {
    *cap = 0;
    return fa_fail_status(&c->alloc);
  }
  size_t m = 0;
  for (size_t i = 0; i < v->nstreams; i++) {
    const gpu_stream_view *sv = &v->streams[i];
    if (!qwin_selects(w, sv)) continue;
    for (size_t j = 0; j < sv->nbusy; j++) {
      iv x = sv->busy[j];
      if (iv_clip1(&x, w->t0, w->t1)) (*u)[m++] = x;
    }
  }
  *n = iv_union(*u, m);
  return FSDPA_OK;
}

fsdpa_status fsdpa_timeline_query(fsdpa_ctx *c, const fsdpa_query *q, fsdpa_timeline *res) {
  if (!c) return FSDPA_EINVAL;
  ctx_clear(c);
  if (!ABI_OK(fsdpa_timeline, res)) return ctx_fail(c, FSDPA_EINVAL, "fsdpa_timeline.size");
  fsdpa_timeline tl, *out = &tl;
  qwin w;
  fsdpa_status st = ctx_resolve_query(c, q, &w);
  if (st) return st;
  const store_views *v = ctx_views(c);
  if (!v) return fa_fail_status(&c->alloc);
  iv *u;
  size_t m, total;
  st = tracks_busy_union(c, v, &w, &u, &m, &total);
  if (st) return ctx_fail(c, st, "out of memory");
  uint64_t acts = 0;
  for (size_t i = 0; i < v->nstreams; i++) {
    const gpu_stream_view *sv = &v->streams[i];
    if (!qwin_selects(&w, sv)) continue;
    for (size_t j = 0; j < sv->nops; j++) {
      const ev_rec *r = STORE_REC(&c->st.gpu, sv->ops[j]);
      if (r->end > w.t0 && r->ts < w.t1) acts++;
      else if (r->ts == r->end && r->ts >= w.t0 && r->ts < w.t1) acts++;
    }
  }
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
  if (u) fa_free(&c->alloc, u, total * sizeof(iv));
  ABI_OUT(fsdpa_timeline, res, out);
  return FSDPA_OK;
}
