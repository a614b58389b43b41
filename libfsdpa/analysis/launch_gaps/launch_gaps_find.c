/* Findings of the launch-gaps analysis: `launch-overhead` and
 * `gpu-starvation` (report contract), judged on steady-state steps: the
 * first of three or more ProfilerSteps is warm-up (allocator, autotuning,
 * lazy init) and would make every trace look starved. */
#include "analysis/launch_gaps/launch_gaps.h"
#include "analysis/launch_gaps/launch_gaps_impl.h"
#include "util/fmt.h"
#include <stdio.h>
#include <string.h>

typedef struct steady {
  step_rec *s;        /* sorted steps */
  size_t n, cap;      /* steps, allocation */
  size_t first;       /* first steady step */
  int64_t t0, t1;     /* steady range (relative); whole trace without steps */
} steady;

static fsdpa_status steady_get(fsdpa_ctx *c, steady *y) {
  memset(y, 0, sizeof *y);
  y->t0 = INT64_MIN;
  y->t1 = INT64_MAX;
  y->cap = c->st.steps.len;
  if (!y->cap) return FSDPA_OK;
  y->s = fa_malloc(&c->alloc, y->cap * sizeof *y->s);
  if (!y->s) return ctx_fail(c, fa_fail_status(&c->alloc), "out of memory (launch gaps findings)");
  y->n = ctx_sorted_steps(c, y->s, y->cap);
  y->first = y->n >= 3 ? 1 : 0;
  y->t0 = y->s[y->first].ts;
  y->t1 = y->s[y->first].end;
  for (size_t i = y->first; i < y->n; i++)
    if (y->s[i].end > y->t1) y->t1 = y->s[i].end;
  return FSDPA_OK;
}

static void fmt_scope(char *b, size_t n, const steady *y) {
  if (!y->n) snprintf(b, n, "the whole trace (no ProfilerStep ranges)");
  else if (y->n - y->first == 1)
    fmt_step(b, n, y->s[y->first].number);
  else
    snprintf(b, n, "steady-state steps #%lld-#%lld%s", (long long)y->s[y->first].number,
             (long long)y->s[y->n - 1].number, y->first ? " (first step excluded as warm-up)" : "");
}

static double share(int64_t part, int64_t whole) {
  return whole > 0 ? (double)part / (double)whole : -1.0;
}

/* findings.min_cost_ppm: drop findings that cost too small a share of the span. */
static int too_cheap(fsdpa_ctx *c, const store_views *v, int64_t cost) {
  int64_t ppm = c->params[P_FINDING_MIN_COST_PPM];
  if (ppm <= 0 || !v->nall) return 0;
  int64_t span = v->all_busy[v->nall - 1].e - v->all_busy[0].s;
  return (double)cost * 1e6 < (double)ppm * (double)span;
}

static fsdpa_status add(findings *f, fsdpa_ctx *c, const char *id, int sev, int64_t rank,
                        int64_t step, int64_t cost, const char *title, const char *detail,
                        const char *advice, sbuf *ev, const lg_top *ranges) {
  if (ev->failed) return (fsdpa_status)ev->failed;
  finding *x = findings_add(f, id, sev, rank, step, cost, title, detail, advice, ev->p);
  if (!x) return f->failed ? (fsdpa_status)f->failed : FSDPA_ENOMEM;
  for (int i = 0; i < ranges->n; i++)
    finding_add_range(x, ctx_abs(c, ranges->r[i].s), ctx_abs(c, ranges->r[i].e));
  return FSDPA_OK;
}

/* g, x: gaps over the steady range, all streams. */
static fsdpa_status launch_overhead(fsdpa_ctx *c, const store_views *v, const steady *y,
                                    int64_t rank, findings *f, const fsdpa_launch_gaps *gp,
                                    const lg_extra *xp) {
  const fsdpa_launch_gaps g = *gp;
  const lg_extra x = *xp;
  const int64_t *P = c->params;
  /* many kernels, mostly short, and the GPU idling on their launches */
  if ((int64_t)x.kernels < P[P_LAUNCH_MIN_KERNELS] || x.kernels == 0) return FSDPA_OK;
  if ((double)x.short_kernels * 1e6 < (double)P[P_LAUNCH_MIN_SHARE_PPM] * (double)x.kernels)
    return FSDPA_OK;
  if (g.gpu_window_ns <= 0 || (double)g.gpu_small_launch_ns * 1e6 <
                                  (double)P[P_LAUNCH_MIN_IDLE_SHARE_PPM] * (double)g.gpu_window_ns)
    return FSDPA_OK;
  int64_t cost = g.gpu_small_launch_ns;
  if (too_cheap(c, v, cost)) return FSDPA_OK;
  qwin q = {y->t0, y->t1, FSDPA_ABSENT, FSDPA_ABSENT};
  fsdpa_launch_latency l;
  fsdpa_status st = lg_latency(c, v, &q, &l);
  if (st) return st;
  double idle_share = share(cost, g.gpu_window_ns);
  char scope[160], t_short[32], t_small[32], t_cost[32], t_win[32], t_p50[32], t_lat[32];
  fmt_scope(scope, sizeof scope, y);
  fmt_dur(t_short, sizeof t_short, P[P_LAUNCH_SHORT_KERNEL_NS]);
  fmt_dur(t_small, sizeof t_small, g.small_gap_threshold_ns);
  fmt_dur(t_cost, sizeof t_cost, cost);
  fmt_dur(t_win, sizeof t_win, g.gpu_window_ns);
  fmt_dur(t_p50, sizeof t_p50, g.p50_ns == FSDPA_ABSENT ? 0 : g.p50_ns);
  fmt_dur(t_lat, sizeof t_lat, l.p50_ns == FSDPA_ABSENT ? 0 : l.p50_ns);
  char title[256], detail[1024];
  snprintf(title, sizeof title,
           "Launch overhead: %llu kernels, %.0f%% shorter than %s, GPU idle %.0f%% between them",
           (unsigned long long)x.kernels, 100.0 * (double)x.short_kernels / (double)x.kernels,
           t_short, 100.0 * idle_share);
  snprintf(detail, sizeof detail,
           "In %s %llu kernels ran and %llu (%.1f%%) were shorter than %s; %.1f%% of the linked "
           "kernels ran shorter than their own launch call. The GPU sat idle %s of %s (%.1f%%) in "
           "%llu stream gaps of at most %s whose next op's launch call had not returned when the "
           "stream went idle (median gap %s, median launch latency %s): the CPU's per-kernel "
           "launch cost, not GPU work, sets the pace.",
           scope, (unsigned long long)x.kernels, (unsigned long long)x.short_kernels,
           100.0 * (double)x.short_kernels / (double)x.kernels, t_short,
           l.short_kernel_share < 0 ? 0.0 : 100.0 * l.short_kernel_share, t_cost, t_win,
           100.0 * idle_share, (unsigned long long)g.small_launch_gaps, t_small, t_p50, t_lat);
  const char *advice =
      "Launch fewer, larger kernels: torch.compile fuses chains of pointwise ops into a few "
      "kernels; CUDA graphs (torch.compile mode=\"reduce-overhead\", torch.cuda.CUDAGraph) replay "
      "many kernels with one launch; fused optimizers (foreach/fused=True) and larger per-op "
      "tensors (batch size) amortise the launch cost.";
  sbuf b;
  sb_init(&b, &c->alloc);
  jsonw w;
  jw_init(&w, &b, 0);
  jw_obj(&w);
  jw_ki64(&w, "window_start_ns", y->n ? ctx_abs(c, y->t0) : FSDPA_ABSENT);
  jw_ki64(&w, "window_end_ns", y->n ? ctx_abs(c, y->t1) : FSDPA_ABSENT);
  jw_ku64(&w, "kernels", x.kernels);
  jw_ku64(&w, "short_kernels", x.short_kernels);
  jw_ki64(&w, "short_kernel_threshold_ns", P[P_LAUNCH_SHORT_KERNEL_NS]);
  jw_ku64(&w, "kernels_shorter_than_launch", l.kernels_shorter_than_launch);
  jw_kratio(&w, "kernels_shorter_than_launch_share", l.short_kernel_share);
  jw_ku64(&w, "small_launch_gaps", g.small_launch_gaps);
  jw_ki64(&w, "small_gap_threshold_ns", g.small_gap_threshold_ns);
  jw_ki64(&w, "gpu_small_launch_ns", cost);
  jw_ki64(&w, "gpu_window_ns", g.gpu_window_ns);
  jw_kratio(&w, "idle_share", idle_share);
  jw_kratio(&w, "utilization", g.utilization);
  jw_ki64(&w, "gap_p50_ns", g.p50_ns);
  jw_ki64(&w, "launch_latency_p50_ns", l.p50_ns);
  jw_obj_end(&w);
  /* critical when launch-bound idle is at least half the GPU's time */
  int sev = idle_share >= 0.5 ? SEV_CRITICAL : SEV_WARNING;
  int64_t step = (y->n && y->n - y->first == 1) ? y->s[y->first].number : FSDPA_ABSENT;
  st = add(f, c, "launch-overhead", sev, rank, step, cost, title, detail, advice, &b,
           &x.launch_runs);
  sb_free(&b);
  return st;
}

static int starving(fsdpa_ctx *c, const fsdpa_launch_gaps *g) {
  const int64_t *P = c->params;
  return g->utilization >= 0 && g->gpu_idle_ns > 0 &&
         g->utilization * 1e6 < (double)P[P_STARVATION_DENSITY_PPM] &&
         (double)g->gpu_host_wait_ns * 1e6 >= (double)P[P_STARVATION_HOST_SHARE_PPM] * (double)g->gpu_idle_ns;
}

static fsdpa_status starvation_one(fsdpa_ctx *c, const store_views *v, int64_t rank, findings *f,
                                   int64_t device, int64_t step, const char *scope,
                                   const fsdpa_launch_gaps *g, const lg_extra *x,
                                   uint64_t starving_steps, uint64_t steady_steps) {
  int64_t cost = g->gpu_host_wait_ns;
  if (too_cheap(c, v, cost)) return FSDPA_OK;
  double host_share = share(g->gpu_host_wait_ns, g->gpu_idle_ns);
  char t_busy[32], t_win[32], t_idle[32], t_host[32], t_kw[32], t_oth[32];
  fmt_dur(t_busy, sizeof t_busy, g->busy_ns);
  fmt_dur(t_win, sizeof t_win, g->gpu_window_ns);
  fmt_dur(t_idle, sizeof t_idle, g->gpu_idle_ns);
  fmt_dur(t_host, sizeof t_host, g->gpu_host_wait_ns);
  fmt_dur(t_kw, sizeof t_kw, g->gpu_kernel_wait_ns);
  fmt_dur(t_oth, sizeof t_oth, g->gpu_other_ns);
  char title[256], detail[1024];
  snprintf(title, sizeof title,
           "GPU starved: device %lld busy %.0f%% of the time, %.0f%% of its idle time waiting on "
           "the CPU",
           (long long)device, 100.0 * g->utilization, 100.0 * host_share);
  snprintf(detail, sizeof detail,
           "In %s device %lld ran GPU work %s of %s (%.1f%%). Of %s idle, %s (%.1f%%) were "
           "host-bound gaps: the launch call of the next GPU op started only after the GPU had "
           "gone idle, so the CPU did not feed the GPU fast enough (kernel wait %s, other %s).",
           scope, (long long)device, t_busy, t_win, 100.0 * g->utilization, t_idle, t_host,
           100.0 * host_share, t_kw, t_oth);
  const char *advice =
      "Look at what the CPU does in the ranges below: data loading (more DataLoader workers, "
      "pin_memory, prefetching), Python overhead between ops, host-side syncs (.item(), "
      "printing, logging). Fewer launches help too: torch.compile, CUDA graphs, larger batches.";
  sbuf b;
  sb_init(&b, &c->alloc);
  jsonw w;
  jw_init(&w, &b, 0);
  jw_obj(&w);
  jw_ki64(&w, "device", device);
  jw_kratio(&w, "utilization", g->utilization);
  jw_kratio(&w, "density", g->density);
  jw_ki64(&w, "busy_ns", g->busy_ns);
  jw_ki64(&w, "gpu_window_ns", g->gpu_window_ns);
  jw_ki64(&w, "gpu_idle_ns", g->gpu_idle_ns);
  jw_ki64(&w, "gpu_host_wait_ns", g->gpu_host_wait_ns);
  jw_ki64(&w, "gpu_kernel_wait_ns", g->gpu_kernel_wait_ns);
  jw_ki64(&w, "gpu_other_ns", g->gpu_other_ns);
  jw_kratio(&w, "host_share", host_share);
  jw_ki64(&w, "max_density_ppm", c->params[P_STARVATION_DENSITY_PPM]);
  jw_ki64(&w, "min_host_share_ppm", c->params[P_STARVATION_HOST_SHARE_PPM]);
  jw_ku64(&w, "starving_steps", starving_steps);
  jw_ku64(&w, "steady_steps", steady_steps);
  jw_obj_end(&w);
  /* critical below half the density threshold */
  int sev = g->utilization * 2e6 < (double)c->params[P_STARVATION_DENSITY_PPM] ? SEV_CRITICAL
                                                                               : SEV_WARNING;
  fsdpa_status st = add(f, c, "gpu-starvation", sev, rank, step, cost, title, detail, advice, &b,
                        &x->host_gaps);
  sb_free(&b);
  return st;
}

typedef struct cand {
  size_t i;
  fsdpa_launch_gaps g;
  lg_extra x;
} cand;

/* Per device: the steady range as a whole, else the individual steady steps
 * that starve (a data-loading stall in one step), the 3 costliest. */
static fsdpa_status starvation(fsdpa_ctx *c, const store_views *v, const steady *y, int64_t rank,
                               findings *f, int64_t device, const fsdpa_launch_gaps *all_g,
                               const lg_extra *all_x) {
  qwin q = {y->t0, y->t1, device, FSDPA_ABSENT};
  fsdpa_launch_gaps g;
  lg_extra x;
  fsdpa_status st = FSDPA_OK;
  if (all_g) {  /* the only device: same as all streams */
    g = *all_g;
    x = *all_x;
  } else if ((st = lg_gaps(c, v, &q, &g, &x))) {
    return st;
  }
  uint64_t nsteady = y->n - y->first, nstarve = 0;
  enum { WORST = 3 };
  cand worst[WORST];
  int nw = 0;
  for (size_t i = y->first; i < y->n && nsteady > 1; i++) {
    qwin qs = {y->s[i].ts, y->s[i].end, device, FSDPA_ABSENT};
    cand cd;
    if ((st = lg_gaps(c, v, &qs, &cd.g, &cd.x))) return st;
    if (!starving(c, &cd.g)) continue;
    nstarve++;
    cd.i = i;
    int k;
    if (nw < WORST) k = nw++;
    else if (worst[WORST - 1].g.gpu_host_wait_ns >= cd.g.gpu_host_wait_ns) continue;
    else k = WORST - 1;
    worst[k] = cd;
    for (; k > 0 && worst[k - 1].g.gpu_host_wait_ns < worst[k].g.gpu_host_wait_ns; k--) {
      cand t = worst[k];
      worst[k] = worst[k - 1];
      worst[k - 1] = t;
    }
  }
  char scope[160];
  if (starving(c, &g)) {
    fmt_scope(scope, sizeof scope, y);
    int64_t step = (y->n && nsteady == 1) ? y->s[y->first].number : FSDPA_ABSENT;
    if (nsteady == 1) nstarve = 1;
    return starvation_one(c, v, rank, f, device, step, scope, &g, &x, nstarve, nsteady);
  }
  for (int k = 0; k < nw && !st; k++) {
    fmt_step(scope, sizeof scope, y->s[worst[k].i].number);
    st = starvation_one(c, v, rank, f, device, y->s[worst[k].i].number, scope, &worst[k].g,
                        &worst[k].x, nstarve, nsteady);
  }
  return st;
}

fsdpa_status launch_gaps_findings(fsdpa_ctx *c, int64_t rank, findings *f) {
  const store_views *v = ctx_views(c);
  if (!v) return fa_fail_status(&c->alloc);
  if (!v->nstreams) return FSDPA_OK;
  steady y;
  fsdpa_status st = steady_get(c, &y);
  if (st) return st;
  qwin q = {y.t0, y.t1, FSDPA_ABSENT, FSDPA_ABSENT};
  fsdpa_launch_gaps g;
  lg_extra x;
  int one = v->streams[0].device == v->streams[v->nstreams - 1].device;  /* sorted by device */
  if (!(st = lg_gaps(c, v, &q, &g, &x))) st = launch_overhead(c, v, &y, rank, f, &g, &x);
  for (size_t i = 0; i < v->nstreams && !st; i++) {
    if (i && v->streams[i].device == v->streams[i - 1].device) continue;
    st = starvation(c, v, &y, rank, f, v->streams[i].device, one ? &g : NULL, one ? &x : NULL);
  }
  fa_free(&c->alloc, y.s, y.cap * sizeof *y.s);
  return st;
}
