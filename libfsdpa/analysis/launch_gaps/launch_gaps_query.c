/* Public queries of the launch_gaps group (definitions in fsdpa.h). */
#include "analysis/launch_gaps/launch_gaps_impl.h"
#include "util/abi.h"

typedef fsdpa_status (*lg_engine)(fsdpa_ctx *, const store_views *, const qwin *, void *);

/* Resolve the query, run the engine into `ours` (the library's struct),
 * copy the caller's part out. */
static fsdpa_status run(fsdpa_ctx *c, const fsdpa_query *q, void *theirs, void *ours, size_t size, size_t first,
                        const char *what, lg_engine fn) {
  if (!c) return FSDPA_EINVAL;
  ctx_clear(c);
  if (abi_size(theirs) < first) return ctx_fail(c, FSDPA_EINVAL, "%s.size", what);
  qwin w;
  fsdpa_status st = ctx_resolve_query(c, q, &w);
  if (st) return st;
  const store_views *v = ctx_views(c);
  if (!v) return fa_fail_status(&c->alloc);
  memset(ours, 0, size);
  *(size_t *)ours = size;
  st = fn(c, v, &w, ours);
  if (!st) abi_copy_out(theirs, ours, size, first);
  return st;
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

fsdpa_status fsdpa_launch_gaps_query(fsdpa_ctx *c, const fsdpa_query *q, fsdpa_launch_gaps *out) {
  fsdpa_launch_gaps o;
  return run(c, q, out, &o, sizeof o, ABI_FIRST(fsdpa_launch_gaps), "fsdpa_launch_gaps", gaps_fn);
}

fsdpa_status fsdpa_launch_latency_query(fsdpa_ctx *c, const fsdpa_query *q, fsdpa_launch_latency *out) {
  fsdpa_launch_latency o;
  return run(c, q, out, &o, sizeof o, ABI_FIRST(fsdpa_launch_latency), "fsdpa_launch_latency", latency_fn);
}

fsdpa_status fsdpa_launch_queue_query(fsdpa_ctx *c, const fsdpa_query *q, fsdpa_launch_queue *out) {
  fsdpa_launch_queue o;
  return run(c, q, out, &o, sizeof o, ABI_FIRST(fsdpa_launch_queue), "fsdpa_launch_queue", queue_fn);
}
