/* Launch latency (op start − end of its launch call) and launch-queue depth
 * (ops launched but not yet started), both through the correlation map. */
#include "analysis/launch_gaps/launch_gaps_impl.h"
#include "events/classify.h"
#include "util/satmath.h"
#include <string.h>

fsdpa_status lg_latency(fsdpa_ctx *c, const store_views *v, const qwin *w,
                        fsdpa_launch_latency *out) {
  fsdpa_launch_latency o;
  memset(&o, 0, sizeof o);
  o.size = sizeof o;
  o.min_ns = o.p50_ns = o.p90_ns = o.p99_ns = o.max_ns = o.total_ns = FSDPA_ABSENT;
  o.short_kernel_share = -1.0;
  memcpy(o.edges_ns, lg_edges, sizeof o.edges_ns);
  size_t cap = 0;
  for (size_t i = 0; i < v->nstreams; i++) {
    const gpu_stream_view *sv = &v->streams[i];
    if (!lg_selected(sv, w)) continue;
    cap += lg_first_op_from(&c->st, sv, w->t1) - lg_first_op_from(&c->st, sv, w->t0);
  }
  int64_t *lat = cap ? fa_malloc(&c->alloc, cap * sizeof(int64_t)) : NULL;
  if (cap && !lat) return ctx_fail(c, fa_fail_status(&c->alloc), "out of memory (launch latency)");
  size_t m = 0;
  int64_t total = 0;
  for (size_t i = 0; i < v->nstreams; i++) {
    const gpu_stream_view *sv = &v->streams[i];
    if (!lg_selected(sv, w)) continue;
    size_t j1 = lg_first_op_from(&c->st, sv, w->t1);
    for (size_t j = lg_first_op_from(&c->st, sv, w->t0); j < j1; j++) {
      const ev_rec *r = STORE_REC(&c->st.gpu, sv->ops[j]);
      int kernel = r->kind == RK_KERNEL;
      o.ops++;
      o.kernels += (uint64_t)kernel;
      uint32_t ri = store_runtime_for_corr(v, r->corr);
      if (ri == UINT32_MAX) continue;
      const ev_rec *rt = STORE_REC(&c->st.rt, ri);
      int64_t l = r->ts - rt->end;
      if (l < 0) l = 0;
      lat[m++] = l;
      total = sat_add(total, l);  /* a hostile trace: many latencies near 2^62 */
      o.counts[lg_bin(l)]++;
      if (kernel) {
        o.kernels_linked++;
        if (r->end - r->ts < rt->end - rt->ts) o.kernels_shorter_than_launch++;
      }
    }
  }
  o.linked = m;
  if (m) {
    o.min_ns = lg_min_i64(lat, m);
    o.max_ns = lg_max_i64(lat, m);
    lg_p50_90_99(lat, m, &o.p50_ns, &o.p90_ns, &o.p99_ns);
    o.total_ns = total;
  }
  if (o.kernels_linked)
    o.short_kernel_share = (double)o.kernels_shorter_than_launch / (double)o.kernels_linked;
  fa_free(&c->alloc, lat, cap * sizeof(int64_t));
  *out = o;
  return FSDPA_OK;
}

/* Number of values <= t in a sorted array. */
static size_t upper(const int64_t *a, size_t n, int64_t t) {
  size_t lo = 0, hi = n;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (a[mid] <= t) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/* |union ∩ [x, y)| for increasing, disjoint [x, y): a cursor, not a search. */
static int64_t busy_in(const lg_union *U, size_t *ui, int64_t x, int64_t y) {
  size_t i = *ui;
  while (i < U->n && U->u[i].e <= x) i++;
  *ui = i;
  int64_t t = 0;
  for (; i < U->n && U->u[i].s < y; i++) {
    int64_t s = U->u[i].s > x ? U->u[i].s : x, e = U->u[i].e < y ? U->u[i].e : y;
    if (e > s) t += e - s;
  }
  return t;
}

fsdpa_status lg_queue(fsdpa_ctx *c, const store_views *v, const qwin *w, fsdpa_launch_queue *out) {
  fsdpa_launch_queue o;
  memset(&o, 0, sizeof o);
  o.size = sizeof o;
  o.range_ns = o.max_depth = FSDPA_ABSENT;
  o.mean_depth = -1.0;
  lg_union U;
  fsdpa_status st = lg_union_build(c, v, w, &U);
  if (st) return st;
  int64_t a, b;
  if (!lg_union_span(&U, w->t0, w->t1, &a, &b)) {
    lg_union_free(c, &U);
    *out = o;
    return FSDPA_OK;
  }
  /* Only ops queued at some time in [a, b) matter: start > a, launch < b. */
  size_t cap = 0;
  for (size_t i = 0; i < v->nstreams; i++) {
    const gpu_stream_view *sv = &v->streams[i];
    if (lg_selected(sv, w)) cap += sv->nops - lg_first_op_from(&c->st, sv, a + 1);
  }
  int64_t *L = cap ? fa_malloc(&c->alloc, cap * sizeof(int64_t)) : NULL;
  int64_t *S = cap ? fa_malloc(&c->alloc, cap * sizeof(int64_t)) : NULL;
  if (cap && (!L || !S)) {
    st = ctx_fail(c, fa_fail_status(&c->alloc), "out of memory (launch queue)");
    goto done;
  }
  size_t m = 0;
  for (size_t i = 0; i < v->nstreams; i++) {
    const gpu_stream_view *sv = &v->streams[i];
    if (!lg_selected(sv, w)) continue;
    for (size_t j = lg_first_op_from(&c->st, sv, a + 1); j < sv->nops; j++) {
      const ev_rec *r = STORE_REC(&c->st.gpu, sv->ops[j]);
      uint32_t ri = store_runtime_for_corr(v, r->corr);
      if (ri == UINT32_MAX) continue;
      int64_t l = STORE_REC(&c->st.rt, ri)->ts;
      if (l > r->ts) l = r->ts;  /* clock skew: never count an op as negative */
      if (l >= b) continue;
      L[m] = l;
      S[m] = r->ts;
      m++;
    }
  }
  lg_sort_i64(L, m);
  lg_sort_i64(S, m);
  o.ops = m;
  /* Every S is > a, so the depth at a is the number of launches <= a. */
  size_t p = upper(L, m, a), q = 0;
  int64_t d = (int64_t)p, t = a, maxd = 0;
  size_t ui = 0;  /* first union interval that may end after t */
  int64_t integral = 0;  /* depth·ns: < 2^63 for any real trace (depth 1e4 over 1e14 ns) */
  while (t < b) {
    int64_t next = b;
    if (p < m && L[p] < next) next = L[p];
    if (q < m && S[q] < next) next = S[q];
    int64_t len = next - t;
    integral += d * len;
    if (d > maxd) maxd = d;
    if (d == 0) {
      o.depth0_ns += len;
      o.starved_ns += len - busy_in(&U, &ui, t, next);
    }
    t = next;
    while (p < m && L[p] == t) { d++; p++; }
    while (q < m && S[q] == t) { d--; q++; }
  }
  o.range_ns = b - a;
  o.max_depth = maxd;
  o.mean_depth = (double)integral / (double)(b - a);
done:
  fa_free(&c->alloc, S, cap * sizeof(int64_t));
  fa_free(&c->alloc, L, cap * sizeof(int64_t));
  lg_union_free(c, &U);
  if (!st) *out = o;
  return st;
}
