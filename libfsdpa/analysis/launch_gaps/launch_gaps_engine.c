/* The gap engine: gaps of each stream's busy union and of the union of the
 * selected streams, their idle category, histogram and percentiles.  The
 * views already hold every stream's ops sorted by start and its busy union,
 * so a window costs two binary searches per stream plus the gaps inside it. */
#include "analysis/launch_gaps/launch_gaps_impl.h"
#include "events/classify.h"
#include "model/dataloader_calls.h"
#include <string.h>

void lg_gap_range(const iv *u, size_t n, int64_t t0, int64_t t1, size_t *k0, size_t *k1) {
  *k0 = *k1 = 0;
  if (n < 2 || t0 >= t1) return;
  size_t lo = 1, hi = n;  /* first i >= 1 with u[i].s > t0 */
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (u[mid].s > t0) hi = mid;
    else lo = mid + 1;
  }
  size_t a = lo - 1, b = n - 1;  /* first k >= a with u[k].e >= t1 */
  lo = a;
  hi = b;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (u[mid].e >= t1) hi = mid;
    else lo = mid + 1;
  }
  *k0 = a;
  *k1 = lo;
}

/* The ops that close a gap, summarised. */
typedef struct closers {
  int n, linked, after, returned;
} closers;

static void closer_add(const fsdpa_ctx *c, const store_views *v, const ev_rec *r, int64_t g0,
                       closers *k) {
  k->n++;
  uint32_t ri = store_runtime_for_corr(v, r->corr);
  if (ri == UINT32_MAX) return;
  const ev_rec *rt = STORE_REC(&c->st.rt, ri);
  k->linked++;
  if (rt->ts > g0) k->after++;
  if (rt->end > g0) k->returned++;
}

/* Advance *j to the first op starting at or after g1 and add the non-empty
 * ops starting exactly at g1. */
static void closers_on(const fsdpa_ctx *c, const store_views *v, const gpu_stream_view *sv,
                       size_t *j, int64_t g0, int64_t g1, closers *k) {
  size_t i = *j;
  while (i < sv->nops && STORE_REC(&c->st.gpu, sv->ops[i])->ts < g1) i++;
  *j = i;
  for (; i < sv->nops; i++) {
    const ev_rec *r = STORE_REC(&c->st.gpu, sv->ops[i]);
    if (r->ts != g1) break;
    if (r->end > r->ts) closer_add(c, v, r, g0, k);
  }
}

enum { CAT_HOST, CAT_KERNEL, CAT_OTHER };

static int category(const closers *k, int64_t len, int64_t kw) {
  if (k->n && k->linked == k->n && k->after == k->n) return CAT_HOST;
  return len < kw ? CAT_KERNEL : CAT_OTHER;
}
static int launch_bound(const closers *k) { return k->n && k->linked == k->n && k->returned == k->n; }

static int64_t clip_len(int64_t g0, int64_t g1, const qwin *w) {
  int64_t a = g0 > w->t0 ? g0 : w->t0, b = g1 < w->t1 ? g1 : w->t1;
  return b > a ? b - a : 0;
}

/* Where the gaps of one scan are added: per-stream sums (histogram and the
 * lengths for percentiles) and/or the gpu_* sums of the union (and the worst
 * ranges).  A single selected stream is its own union: one scan feeds both. */
typedef struct sink {
  fsdpa_launch_gaps *o;
  int stream_sums, gpu_sums;
  int64_t *lens;
  size_t *nl;
  lg_extra *x;
  const lg_first_use *fu;   /* first-use calls */
  const iv *dl;             /* union of the DataLoader __next__ ranges */
  size_t ndl;
} sink;

typedef struct run {
  int on;
  int64_t s, e, idle;
} run;

static void gap_add(const sink *k, const qwin *w, const iv *u, size_t i, const closers *cl,
                    run *rn) {
  fsdpa_launch_gaps *o = k->o;
  int64_t g0 = u[i].e, g1 = u[i + 1].s, len = g1 - g0;
  int64_t in = clip_len(g0, g1, w);
  int cat = category(cl, len, o->kernel_wait_threshold_ns);
  int small = launch_bound(cl) && len <= o->small_gap_threshold_ns;
  if (k->stream_sums) {
    o->gaps++;
    o->idle_ns += in;
    if (cat == CAT_HOST) { o->host_wait_ns += in; o->host_wait_gaps++; }
    else if (cat == CAT_KERNEL) { o->kernel_wait_ns += in; o->kernel_wait_gaps++; }
    else { o->other_ns += in; o->other_gaps++; }
    if (!cl->linked) { o->unlinked_gaps++; o->unlinked_ns += in; }
    if (small) { o->small_launch_gaps++; o->small_launch_ns += in; }
    int b = lg_bin(len);
    o->counts[b]++;
    o->bin_idle_ns[b] += in;
    k->lens[(*k->nl)++] = len;
  }
  if (!k->gpu_sums) return;
  o->gpu_gaps++;
  o->gpu_idle_ns += in;
  if (cat == CAT_HOST) o->gpu_host_wait_ns += in;
  else if (cat == CAT_KERNEL) o->gpu_kernel_wait_ns += in;
  else o->gpu_other_ns += in;
  if (small) o->gpu_small_launch_ns += in;
  lg_extra *x = k->x;
  if (!x) return;
  if (in > 0) {
    int64_t a = g0 > w->t0 ? g0 : w->t0, b = g1 < w->t1 ? g1 : w->t1;
    int64_t fu = k->fu ? iv_len_in(k->fu->u, k->fu->nu, a, b) : 0;
    x->idle_first_use_ns += fu;
    if (cat == CAT_HOST) {
      x->host_first_use_ns += fu;
      x->host_in_dataloader_ns += iv_len_in(k->dl, k->ndl, a, b);
      if (k->fu) x->host_in_allocator_ns += iv_len_in(k->fu->au, k->fu->nau, a, b);
      lg_top_add(&x->host_gaps, a, b, in);
    }
  }
  if (small) {  /* a stretch of launch-bound gaps, busy intervals around them included */
    if (!rn->on) {
      rn->on = 1;
      rn->s = u[i].s > w->t0 ? u[i].s : w->t0;
      rn->idle = 0;
    }
    rn->idle += in;
    rn->e = u[i + 1].e < w->t1 ? u[i + 1].e : w->t1;
  } else if (rn->on) {
    lg_top_add(&x->launch_runs, rn->s, rn->e, rn->idle);
    rn->on = 0;
  }
}

/* Gaps of the union u (of the streams sel) inside the window; closing ops
 * are found with one cursor per stream, all moving forward only. */
static void scan(const fsdpa_ctx *c, const store_views *v, const qwin *w, const iv *u, size_t n,
                 const gpu_stream_view *const *sel, size_t nsel, size_t *cur, const sink *k) {
  size_t k0, k1;
  lg_gap_range(u, n, w->t0, w->t1, &k0, &k1);
  if (k0 >= k1) return;
  for (size_t s = 0; s < nsel; s++) cur[s] = lg_first_op_from(&c->st, sel[s], u[k0 + 1].s);
  run rn = {0, 0, 0, 0};
  for (size_t i = k0; i < k1; i++) {
    closers cl = {0, 0, 0, 0};
    for (size_t s = 0; s < nsel; s++) closers_on(c, v, sel[s], &cur[s], u[i].e, u[i + 1].s, &cl);
    gap_add(k, w, u, i, &cl, &rn);
  }
  if (k->x && rn.on) lg_top_add(&k->x->launch_runs, rn.s, rn.e, rn.idle);
}

static void count_kernels(const fsdpa_ctx *c, const gpu_stream_view *sv, const qwin *w,
                          lg_extra *x) {
  int64_t short_ns = c->params[P_LAUNCH_SHORT_KERNEL_NS];
  for (size_t i = lg_first_op_from(&c->st, sv, w->t0); i < sv->nops; i++) {
    const ev_rec *r = STORE_REC(&c->st.gpu, sv->ops[i]);
    if (r->ts >= w->t1) break;
    if (r->kind != RK_KERNEL) continue;
    x->kernels++;
    if (r->end - r->ts < short_ns) x->short_kernels++;
  }
}

fsdpa_status lg_gaps_compute(fsdpa_ctx *c, const store_views *v, const qwin *w, const lg_first_use *fu,
                             fsdpa_launch_gaps *out, lg_extra *x) {
  fsdpa_launch_gaps o;
  memset(&o, 0, sizeof o);
  o.size = sizeof o;
  o.kernel_wait_threshold_ns = c->params[P_KERNEL_WAIT_NS];
  o.small_gap_threshold_ns = c->params[P_LAUNCH_SMALL_GAP_NS];
  o.p50_ns = o.p90_ns = o.p99_ns = o.max_ns = FSDPA_ABSENT;
  o.span_ns = o.gpu_window_ns = FSDPA_ABSENT;
  o.density = o.utilization = -1.0;
  memcpy(o.edges_ns, lg_edges, sizeof o.edges_ns);
  if (x) memset(x, 0, sizeof *x);

  size_t total = 0, nsel = 0;
  for (size_t i = 0; i < v->nstreams; i++) {
    const gpu_stream_view *sv = &v->streams[i];
    if (!lg_selected(sv, w)) continue;
    size_t k0, k1;
    lg_gap_range(sv->busy, sv->nbusy, w->t0, w->t1, &k0, &k1);
    total += k1 - k0;
    nsel++;
  }
  o.streams = nsel;
  int64_t *lens = total ? fa_malloc(&c->alloc, total * sizeof(int64_t)) : NULL;
  const gpu_stream_view **sel = nsel ? fa_malloc(&c->alloc, nsel * sizeof *sel) : NULL;
  size_t *cur = nsel ? fa_malloc(&c->alloc, nsel * sizeof *cur) : NULL;
  lg_union U;
  memset(&U, 0, sizeof U);
  fsdpa_status st = FSDPA_OK;
  if ((total && !lens) || (nsel && (!sel || !cur))) {
    st = ctx_fail(c, fa_fail_status(&c->alloc), "out of memory (launch gaps)");
    goto done;
  }
  size_t nl = 0, ns = 0;
  const dl_calls *dl = NULL;
  if (x && (st = dl_calls_get(c, &dl))) goto done;
  if ((st = lg_union_build(c, v, w, &U))) goto done;
  for (size_t i = 0; i < v->nstreams; i++) {
    const gpu_stream_view *sv = &v->streams[i];
    if (lg_selected(sv, w)) sel[ns++] = sv;
  }
  for (size_t i = 0; i < ns; i++) {
    sink k = {&o, 1, ns == 1, lens, &nl, ns == 1 ? x : NULL, fu, dl ? dl->u : NULL, dl ? dl->nu : 0};
    scan(c, v, w, sel[i]->busy, sel[i]->nbusy, &sel[i], 1, cur, &k);
    if (x) count_kernels(c, sel[i], w, x);
  }
  if (ns > 1) {
    sink k = {&o, 0, 1, NULL, NULL, x, fu, dl ? dl->u : NULL, dl ? dl->nu : 0};
    scan(c, v, w, U.u, U.n, sel, ns, cur, &k);
  }
  if (nl) {
    o.max_ns = lg_max_i64(lens, nl);
    lg_p50_90_99(lens, nl, &o.p50_ns, &o.p90_ns, &o.p99_ns);
  }
  int64_t a, b;
  if (lg_union_span(&U, w->t0, w->t1, &a, &b)) {
    o.span_ns = b - a;
    o.busy_ns = iv_len_in(U.u, U.n, w->t0, w->t1);
    if (o.span_ns > 0) o.density = (double)o.busy_ns / (double)o.span_ns;
  }
  if (U.n) {
    int64_t e0 = U.u[0].s > w->t0 ? U.u[0].s : w->t0;
    int64_t e1 = U.u[U.n - 1].e < w->t1 ? U.u[U.n - 1].e : w->t1;
    o.gpu_window_ns = e1 > e0 ? e1 - e0 : 0;
    if (o.gpu_window_ns > 0) o.utilization = (double)o.busy_ns / (double)o.gpu_window_ns;
  }
  *out = o;
done:
  lg_union_free(c, &U);
  fa_free(&c->alloc, cur, nsel * sizeof *cur);
  fa_free(&c->alloc, sel, nsel * sizeof *sel);
  fa_free(&c->alloc, lens, total * sizeof(int64_t));
  return st;
}
