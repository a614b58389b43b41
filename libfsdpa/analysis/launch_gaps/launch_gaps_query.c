/* Public queries of the launch_gaps group (definitions in fsdpa.h). */
#include "analysis/launch_gaps/launch_gaps_impl.h"

typedef fsdpa_status (*lg_engine)(fsdpa_ctx *, const store_views *, const qwin *, void *);

static fsdpa_status run(fsdpa_ctx *c, const fsdpa_query *q, size_t given, size_t need,
                        lg_engine fn, void *out) {
  if (!c || !out || !ctx_struct_ok(given, need)) return FSDPA_EINVAL;
  ctx_clear(c);
  qwin w;
  fsdpa_status st = ctx_resolve_query(c, q, &w);
  if (st) return st;
  const store_views *v = ctx_views(c);
  if (!v) return fa_fail_status(&c->alloc);
  return fn(c, v, &w, out);
}

static fsdpa_status gaps_fn(fsdpa_ctx *c, const store_views *v, const qwin *w, void *out) {
  return lg_gaps(c, v, w, out, NULL);
}
static fsdpa_status latency_fn(fsdpa_ctx *c, const store_views *v, const qwin *w, void *out) {
  return lg_latency(c, v, w, out);
}
static fsdpa_status queue_fn(fsdpa_ctx *c, const store_views *v, const qwin *w, void *out) {
  return lg_queue(c, v, w, out);
}

fsdpa_status fsdpa_query_launch_gaps(fsdpa_ctx *c, const fsdpa_query *q, fsdpa_launch_gaps *out) {
  return run(c, q, out ? out->size : 0, sizeof *out, gaps_fn, out);
}

fsdpa_status fsdpa_query_launch_latency(fsdpa_ctx *c, const fsdpa_query *q,
                                        fsdpa_launch_latency *out) {
  return run(c, q, out ? out->size : 0, sizeof *out, latency_fn, out);
}

fsdpa_status fsdpa_query_launch_queue(fsdpa_ctx *c, const fsdpa_query *q, fsdpa_launch_queue *out) {
  return run(c, q, out ? out->size : 0, sizeof *out, queue_fn, out);
}
