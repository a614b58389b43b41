/* Query resolution shared by every public query: a caller's fsdpa_query
 * (absolute window, step, device, stream) becomes a relative window and a
 * selection (ctx.h, qwin). */
#include "ctx.h"
#include "util/abi.h"
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

/* Defaults for a caller of any release: at most the caller's `size` bytes
 * are written (see fsdpa.h, versioned structs). */
void fsdpa_query_init_sized(fsdpa_query *q, size_t size) {
  if (!q || size < sizeof(size_t)) return;
  fsdpa_query d;
  memset(&d, 0, sizeof d);
  d.size = sizeof d;
  memcpy(q, &d, size < sizeof d ? size : sizeof d);
  q->size = size;
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

fsdpa_status ctx_resolve_query(fsdpa_ctx *c, const fsdpa_query *qq, qwin *w) {
  w->t0 = INT64_MIN;
  w->t1 = INT64_MAX;
  w->device = w->stream = FSDPA_ABSENT;
  if (!qq) return FSDPA_OK;
  fsdpa_query q;
  fsdpa_query_init(&q);
  if (!ABI_IN(fsdpa_query, &q, qq)) return ctx_fail(c, FSDPA_EINVAL, "fsdpa_query.size");
  int64_t base = ctx_base(c);
  if (q.fields & FSDPA_QUERY_STEP) {
    if (q.step < 0 || (uint64_t)q.step >= c->st.steps.len)
      return ctx_fail(c, FSDPA_EINVAL, "query step %lld out of range (%zu steps)", (long long)q.step,
                      c->st.steps.len);
    fsdpa_step s;
    ctx_step_public(c, (size_t)q.step, &s);
    w->t0 = s.start_ns - base;
    w->t1 = s.start_ns + s.dur_ns - base;
  }
  if ((q.fields & FSDPA_QUERY_T0) && rel_bound(q.t0_ns, base) > w->t0) w->t0 = rel_bound(q.t0_ns, base);
  if ((q.fields & FSDPA_QUERY_T1) && rel_bound(q.t1_ns, base) < w->t1) w->t1 = rel_bound(q.t1_ns, base);
  /* an end before the start is an empty window: analyses count ops between
   * the two bounds and must never see a negative range */
  if (w->t1 < w->t0) w->t1 = w->t0;
  if (q.fields & FSDPA_QUERY_DEVICE) w->device = q.device;
  if (q.fields & FSDPA_QUERY_STREAM) w->stream = q.stream;
  return FSDPA_OK;
}
