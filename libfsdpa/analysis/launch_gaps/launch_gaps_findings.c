/* Findings of the launch-gaps analysis: `launch-overhead` and
 * `gpu-starvation` (report contract; `queued-idle-unexplained` in
 * launch_gaps_findings_queued.c), judged on the steady state
 * (lg_steady_get: ProfilerStep or inferred iterations, the first of two or
 * more left out as warm-up), severity by the cost's share of it, none on a
 * sampled trace.  Each finding is decided first (whether it fires, its
 * severity, cost, numbers and evidence ranges, into a small struct) and then
 * worded from that struct alone (title, detail, advice, evidence). */
#include "analysis/launch_gaps/launch_gaps.h"
#include "analysis/launch_gaps/launch_gaps_impl.h"
#include "events/classify.h"
#include "model/dataloader_calls.h"
#include "model/iterations.h"
#include "model/workload.h"
#include "util/fmt.h"
#include <stdio.h>
#include <string.h>

typedef lg_steady steady;

int64_t lg_steady_step(const lg_steady *y) {
  return (y->n && y->n - y->first == 1) ? y->s[y->first].number : FSDPA_ABSENT;
}

double lg_share(int64_t part, int64_t whole) {
  return whole > 0 ? (double)part / (double)whole : -1.0;
}

int lg_too_cheap(fsdpa_ctx *c, const store_views *v, int64_t cost) {
  int64_t ppm = c->params[P_FINDING_MIN_COST_PPM];
  if (ppm <= 0 || !v->nall) return 0;
  int64_t span = v->all_busy[v->nall - 1].e - v->all_busy[0].s;
  return (double)cost * 1e6 < (double)ppm * (double)span;
}

int lg_sev_by_share(const fsdpa_ctx *c, int64_t cost, int64_t judged) {
  if (judged <= 0) return SEV_INFO;
  double ppm = (double)cost * 1e6 / (double)judged;
  return ppm >= (double)c->params[P_SEVERITY_CRITICAL_PPM]  ? SEV_CRITICAL
         : ppm >= (double)c->params[P_SEVERITY_WARNING_PPM] ? SEV_WARNING
                                                             : SEV_INFO;
}

/* ---- launch-overhead: decision ---- */

typedef struct overhead {
  int fires;
  int sev;
  int64_t step;             /* the one steady step, or FSDPA_ABSENT */
  int64_t cost_ns;          /* launch-bound GPU idle: g.gpu_small_launch_ns */
  double idle_share;        /* cost_ns / g.gpu_window_ns */
  int64_t short_kernel_ns;  /* launch.short_kernel_ns */
  uint64_t kernels, short_kernels;
  fsdpa_launch_gaps g;      /* steady range, all streams */
  fsdpa_launch_latency l;   /* same range */
  lg_top ranges;            /* the heaviest stretches of launch-bound gaps */
} overhead;

/* g, x: gaps over the steady range, all streams. */
static fsdpa_status overhead_decide(fsdpa_ctx *c, const store_views *v, const steady *y,
                                    const fsdpa_launch_gaps *g, const lg_extra *x, overhead *d) {
  const int64_t *P = c->params;
  memset(d, 0, sizeof *d);
  /* many kernels, mostly short, and the GPU idling on their launches */
  if ((int64_t)x->kernels < P[P_LAUNCH_MIN_KERNELS] || x->kernels == 0) return FSDPA_OK;
  if ((double)x->short_kernels * 1e6 < (double)P[P_LAUNCH_MIN_SHARE_PPM] * (double)x->kernels)
    return FSDPA_OK;
  if (g->gpu_window_ns <= 0 || (double)g->gpu_small_launch_ns * 1e6 <
                                   (double)P[P_LAUNCH_MIN_IDLE_SHARE_PPM] * (double)g->gpu_window_ns)
    return FSDPA_OK;
  int64_t cost = g->gpu_small_launch_ns;
  if (lg_too_cheap(c, v, cost)) return FSDPA_OK;
  qwin q = {y->t0, y->t1, FSDPA_ABSENT, FSDPA_ABSENT};
  fsdpa_status st = lg_latency(c, v, &q, &d->l);
  if (st) return st;
  d->fires = 1;
  d->cost_ns = cost;
  d->idle_share = lg_share(cost, g->gpu_window_ns);
  d->sev = lg_sev_by_share(c, cost, g->gpu_window_ns);
  d->step = lg_steady_step(y);
  d->short_kernel_ns = P[P_LAUNCH_SHORT_KERNEL_NS];
  d->kernels = x->kernels;
  d->short_kernels = x->short_kernels;
  d->g = *g;
  d->ranges = x->launch_runs;
  return FSDPA_OK;
}

/* ---- gpu-starvation: decision ---- */

/* One starving range of a device: the steady range or one steady step. */
typedef struct starve_one {
  int64_t step;         /* FSDPA_ABSENT: the steady range of several steps or no steps */
  int sev;
  int64_t cost_ns;      /* host-bound GPU idle (the graph's host_not_launched + host_blocked), less first use */
  int64_t host_ns;      /* host-bound GPU idle: host_not_launched + host_blocked of k */
  double host_share;    /* host_ns of the GPU's idle */
  fsdpa_launch_gaps g;  /* that range, the device's streams */
  lg_top ranges;        /* its longest host-wait gaps */
  qwin q;               /* that range (relative), the device */
  dg_causes k;          /* its device-level idle by cause */
  int main_cause;       /* the largest of k.ns (DG_C_*; ties: the earlier) */
  uint64_t kernels;     /* kernels starting in that range */
  double cost_share;    /* cost_ns / the steady range's GPU window (the judged time) */
  int64_t dl_ns;        /* of the host-bound idle, inside DataLoader __next__ */
  int dl_main;          /* dl_ns is at least starvation.explained_min_ppm of it: the DataLoader is the cause */
  int explained;        /* dl_main and dataloader-stall is in the report: named as the cause */
  int64_t explained_ppm;/* dl_ns / gpu_host_wait_ns, ppm */
  int64_t al_ns;        /* of the host-bound idle, inside device allocator calls */
  int al_main;          /* al_ns is at least starvation.explained_min_ppm of it, and more than dl_ns */
  int al_explained;     /* al_main and allocator-thrash is in the report: named as the cause */
  int64_t al_ppm;       /* al_ns / gpu_host_wait_ns, ppm */
  int64_t sy_ns;        /* the replay without the range's blocking calls saves this (ABSENT: not computed) */
  int sy_main;          /* sy_ns is at least starvation.explained_min_ppm of the host-bound idle, and no
                         * allocator or DataLoader cause: the thread lost its lead in those calls */
  int sy_explained;     /* sy_main and cpu-sync-stall is in the report: named as the cause */
  int first_use;        /* no steady state is judged (no iterations): first-use idle counted apart */
  int64_t fu_host_ns;   /* of the host-bound idle, inside first-use calls (first_use only) */
  int64_t fu_idle_ns;   /* of all the idle, inside them */
  uint64_t fu_launches, fu_allocs;  /* first-use calls of the range */
  int fu_main;          /* fu_host_ns is at least starvation.explained_min_ppm of the host-bound idle */
} starve_one;

enum { STARVE_WORST = 3 };

typedef struct starvation {
  int64_t device;
  int whole;                    /* the steady range starves as a whole (one finding) */
  uint64_t starving_steps, steady_steps;
  int64_t max_density_ppm;      /* starvation.max_density_ppm */
  int64_t min_host_share_ppm;   /* starvation.min_host_share_ppm */
  int64_t judged_ns;            /* GPU window of the steady range: the severity's denominator */
  int64_t warmup_idle_ns;       /* the device's GPU idle in the warm-up iteration, left out; ABSENT without */
  int64_t warmup_fu_idle_ns;    /* of it, inside first-use calls */
  int n;                        /* findings that fire, costliest first */
  starve_one one[STARVE_WORST];
} starvation;

/* Host-bound idle explains most of the idle, and the GPU is busy less than
 * the density threshold or, with judged > 0, the host-bound idle is itself a
 * warning-sized share of the judged time (a GPU 60 % busy that waits on its
 * host 40 % of the time starves as much as the 40 % says).  Host-bound is
 * what the dependency graph gives the host (host_not_launched +
 * host_blocked), not HTA's host-wait category: an op launched a few us into
 * a gap and then queued behind a stream wait makes the whole gap host-wait
 * for HTA, but the GPU was not waiting for its host. */
static int64_t host_bound(const dg_causes *k) { return k->ns[DG_C_NOT_LAUNCHED] + k->ns[DG_C_BLOCKED]; }
static int starving(fsdpa_ctx *c, const fsdpa_launch_gaps *g, const dg_causes *k, int64_t judged) {
  const int64_t *P = c->params;
  int64_t host = host_bound(k);
  if (g->utilization < 0 || g->gpu_idle_ns <= 0) return 0;
  if ((double)host * 1e6 < (double)P[P_STARVATION_HOST_SHARE_PPM] * (double)g->gpu_idle_ns) return 0;
  return g->utilization * 1e6 < (double)P[P_STARVATION_DENSITY_PPM] ||
         (judged > 0 && (double)host * 1e6 >= (double)P[P_SEVERITY_WARNING_PPM] * (double)judged);
}

/* Cost, share and severity of a starving range; 0 when too cheap to report.
 * Severity by the cost's share of the judged time; at most info with fewer
 * than starvation.min_kernels kernels in the range: a snippet of a handful
 * of kernels (a demo, one first forward) shows no steady state to rank. */
static int starve_judge(fsdpa_ctx *c, const store_views *v, int64_t judged, int dl_stall, int al_thrash,
                        int sync_stall, starve_one *o) {
  int64_t host = o->g.gpu_host_wait_ns, min_ppm = c->params[P_STARVATION_EXPLAINED_PPM];
  o->host_ns = host_bound(&o->k);
  /* the host inside cudaMalloc / cudaFree (or their backends' calls) for
   * most of it: the allocator is the root cause, named when allocator-thrash
   * is in the report; in a first pass those calls are the cache filling,
   * first-use cost below */
  if (o->first_use) o->al_ns = 0;
  o->al_ppm = host > 0 ? (int64_t)((double)o->al_ns * 1e6 / (double)host) : 0;
  o->al_main = o->al_ns > o->dl_ns && (double)o->al_ns * 1e6 >= (double)min_ppm * (double)host;
  o->al_explained = o->al_main && al_thrash;
  /* the DataLoader holding most of the host-bound idle is its root cause;
   * dataloader-stall is named only when it is in the report (its own
   * thresholds may keep it out) */
  o->explained_ppm = host > 0 ? (int64_t)((double)o->dl_ns * 1e6 / (double)host) : 0;
  o->dl_main = !o->al_main && o->dl_ns > 0 && (double)o->dl_ns * 1e6 >= (double)min_ppm * (double)host;
  o->explained = o->dl_main && dl_stall;
  /* the launching thread blocked in synchronizing calls while the GPU
   * worked, and lost the lead that would have covered the idle after them:
   * the replay without those calls removes most of it */
  o->sy_main = !o->al_main && !o->dl_main && o->sy_ns != FSDPA_ABSENT && o->sy_ns > 0 &&
               (double)o->sy_ns * 1e6 >= (double)min_ppm * (double)o->host_ns;
  o->sy_explained = o->sy_main && sync_stall;
  if (!o->first_use) o->fu_host_ns = o->fu_idle_ns = 0;
  o->fu_main = o->fu_host_ns > 0 && (double)o->fu_host_ns * 1e6 >= (double)min_ppm * (double)host;
  /* first-use cost is paid once: what is left is the starvation to judge */
  int64_t cost = o->host_ns - o->fu_host_ns;
  if (cost < 0) cost = 0;
  if (lg_too_cheap(c, v, cost)) return 0;
  o->cost_ns = cost;
  o->host_share = lg_share(o->host_ns, o->g.gpu_idle_ns);
  o->cost_share = lg_share(cost, judged);
  o->sev = lg_sev_by_share(c, cost, judged);
  if ((int64_t)o->kernels < c->params[P_STARVATION_MIN_KERNELS]) o->sev = SEV_INFO;
  return 1;
}

/* The idle causes of a starving range: the wording blames the CPU's launch
 * rate only for the part the host had not launched yet. */
/* Marks the blocking calls (the dependency graph's) of the context: the
 * what-if of a thread that never blocks.  Caller frees z (st.rt.len). */
static fsdpa_status blocking_calls(fsdpa_ctx *c, uint8_t **z) {
  size_t n = c->st.rt.len;
  *z = NULL;
  if (!n) return FSDPA_OK;
  depgraph g;
  fsdpa_status st = dg_get(c, &g);
  if (st) return st;
  *z = fa_calloc(&c->alloc, n);
  if (*z)
    for (size_t i = 0; i < g.nblk; i++)
      if (g.blk[i].rt < n) (*z)[g.blk[i].rt] = 1;
  dg_free(c, &g);
  return *z ? FSDPA_OK : fa_fail_status(&c->alloc);
}

static fsdpa_status starve_causes(fsdpa_ctx *c, const store_views *v, const qwin *q, int sync_stall,
                                  starve_one *o) {
  fsdpa_status st = lg_idle_causes(c, v, q, &o->k);
  if (st) return st;
  o->sy_ns = FSDPA_ABSENT;
  if (sync_stall) {  /* only a cause the report holds is worth the replay */
    uint8_t *z;
    if ((st = blocking_calls(c, &z))) return st;
    dg_mods m;
    memset(&m, 0, sizeof m);
    m.t0 = q->t0;
    m.t1 = q->t1;
    m.rt_zero = z;
    st = dg_saving(c, &m, &o->sy_ns);
    fa_free(&c->alloc, z, c->st.rt.len);
    if (st) return st;
  }
  o->main_cause = DG_C_NOT_LAUNCHED;
  for (int i = 1; i < DG_C__N; i++)
    if (o->k.ns[i] > o->k.ns[o->main_cause]) o->main_cause = i;
  return FSDPA_OK;
}

/* Per device: the steady range as a whole, else the individual steady steps
 * that starve (a data-loading stall in one step), the STARVE_WORST
 * costliest.  all_g, all_x: the steady range over all streams when this is
 * the only device (the same answer).  dl_stall: dataloader-stall fires for
 * the rank (the model's decision, over the same iterations after the first). */
static fsdpa_status starvation_decide(fsdpa_ctx *c, const store_views *v, const steady *y,
                                      int64_t device, const fsdpa_launch_gaps *all_g,
                                      const lg_extra *all_x, int dl_stall, int al_thrash, int sync_stall,
                                      starvation *d) {
  memset(d, 0, sizeof *d);
  d->device = device;
  d->max_density_ppm = c->params[P_STARVATION_DENSITY_PPM];
  d->min_host_share_ppm = c->params[P_STARVATION_HOST_SHARE_PPM];
  qwin q = {y->t0, y->t1, device, FSDPA_ABSENT};
  fsdpa_launch_gaps g;
  lg_extra x;
  fsdpa_status st = FSDPA_OK;
  if (all_g) {
    g = *all_g;
    x = *all_x;
  } else if ((st = lg_gaps(c, v, &q, &g, &x))) {
    return st;
  }
  d->judged_ns = g.gpu_window_ns;
  d->warmup_idle_ns = FSDPA_ABSENT;
  if (y->first) {  /* reported apart, never judged */
    qwin qw = {y->s[0].ts, y->t0, device, FSDPA_ABSENT};
    fsdpa_launch_gaps wg;
    lg_extra wx;
    if ((st = lg_gaps(c, v, &qw, &wg, &wx))) return st;
    d->warmup_idle_ns = wg.gpu_idle_ns;
    d->warmup_fu_idle_ns = wx.idle_first_use_ns;
  }
  uint64_t nsteady = y->n - y->first, nstarve = 0;
  starve_one worst[STARVE_WORST];
  int nw = 0;
  for (size_t i = y->first; i < y->n && nsteady > 1; i++) {
    qwin qs = {y->s[i].ts, y->s[i].end, device, FSDPA_ABSENT};
    starve_one cd;
    memset(&cd, 0, sizeof cd);
    lg_extra cx;
    if ((st = lg_gaps(c, v, &qs, &cd.g, &cx))) return st;
    if (cd.g.utilization < 0 || cd.g.gpu_idle_ns <= 0) continue;
    if ((st = lg_idle_causes(c, v, &qs, &cd.k))) return st;
    if (!starving(c, &cd.g, &cd.k, 0)) continue;  /* a step by its own density only */
    nstarve++;
    cd.step = y->s[i].number;
    cd.dl_ns = cx.host_in_dataloader_ns;
    cd.al_ns = cx.host_in_allocator_ns;
    cd.ranges = cx.host_gaps;
    cd.kernels = cx.kernels;
    cd.q = qs;
    int k;
    if (nw < STARVE_WORST) k = nw++;
    else if (host_bound(&worst[STARVE_WORST - 1].k) >= host_bound(&cd.k)) continue;
    else k = STARVE_WORST - 1;
    worst[k] = cd;
    for (; k > 0 && host_bound(&worst[k - 1].k) < host_bound(&worst[k].k); k--) {
      starve_one t = worst[k];
      worst[k] = worst[k - 1];
      worst[k - 1] = t;
    }
  }
  d->steady_steps = nsteady;
  /* the whole range when dense-starved, or when no single step is and the
   * host-bound share of the whole is large: idle spread over all steps */
  dg_causes gk;
  if ((st = lg_idle_causes(c, v, &q, &gk))) return st;
  if (starving(c, &g, &gk, 0) || (!nstarve && starving(c, &g, &gk, d->judged_ns))) {
    d->whole = 1;
    d->starving_steps = nsteady == 1 ? 1 : nstarve;
    starve_one *o = &d->one[0];
    o->step = lg_steady_step(y);
    o->q = q;
    o->g = g;
    o->ranges = x.host_gaps;
    o->kernels = x.kernels;
    o->dl_ns = x.host_in_dataloader_ns;
    o->al_ns = x.host_in_allocator_ns;
    if (!y->n) {  /* no iterations: the trace is one first pass */
      const lg_first_use *fu;
      lg_first_use *own;
      if ((st = lg_first_use_get(c, v, &fu, &own))) return st;
      o->first_use = 1;
      o->fu_host_ns = x.host_first_use_ns;
      o->fu_idle_ns = x.idle_first_use_ns;
      lg_first_use_count(fu, q.t0, q.t1, &o->fu_launches, &o->fu_allocs);
      lg_first_use_free(c, own);
    }
    if ((st = starve_causes(c, v, &q, sync_stall, o))) return st;
    if (starve_judge(c, v, d->judged_ns, dl_stall, al_thrash, sync_stall, o)) d->n = 1;
    return FSDPA_OK;
  }
  d->starving_steps = nstarve;
  for (int k = 0; k < nw; k++) {
    if ((st = starve_causes(c, v, &worst[k].q, sync_stall, &worst[k]))) return st;
    if (starve_judge(c, v, d->judged_ns, dl_stall, al_thrash, sync_stall, &worst[k])) d->one[d->n++] = worst[k];
  }
  return FSDPA_OK;
}

/* ---- wording ---- */

void lg_fmt_scope(char *b, size_t n, const lg_steady *y) {
  if (!y->n) snprintf(b, n, "the whole trace (no iterations found)");
  else if (y->source == ITS_PROFILER_STEP && y->n - y->first == 1)
    fmt_step(b, n, y->s[y->first].number);
  else if (y->source == ITS_PROFILER_STEP && y->capture)
    snprintf(b, n, "steady-state steps #%lld-#%lld (%zu step%s before excluded: warm-up and %zu CUDA-graph capture%s)",
             (long long)y->s[y->first].number, (long long)y->s[y->n - 1].number, y->first, y->first == 1 ? "" : "s",
             y->capture, y->capture == 1 ? "" : "s");
  else if (y->source == ITS_PROFILER_STEP)
    snprintf(b, n, "steady-state steps #%lld-#%lld%s", (long long)y->s[y->first].number,
             (long long)y->s[y->n - 1].number, y->first ? " (first step excluded as warm-up)" : "");
  else if (y->n - y->first == 1)
    snprintf(b, n, "iteration %zu of %zu (%s)%s", y->n, y->n, lg_steady_source(y),
             y->first ? ", the first left out as warm-up" : "");
  else
    snprintf(b, n, "iterations %zu-%zu of %zu (%s)%s", y->first + 1, y->n, y->n, lg_steady_source(y),
             y->first ? ", the first left out as warm-up" : "");
}

fsdpa_status lg_add_finding(findings *f, fsdpa_ctx *c, const char *id, int sev, int64_t rank,
                            int64_t step, int64_t cost, const char *title, const char *detail,
                            const char *advice, sbuf *ev, const lg_top *ranges) {
  if (ev->failed) return (fsdpa_status)ev->failed;
  finding *x = findings_add(f, id, sev, rank, step, cost, title, detail, advice, ev->p);
  if (!x) return f->failed ? (fsdpa_status)f->failed : FSDPA_ENOMEM;
  for (int i = 0; i < ranges->n; i++)
    finding_add_range(x, ctx_abs(c, ranges->r[i].s), ctx_abs(c, ranges->r[i].e));
  return FSDPA_OK;
}

static fsdpa_status overhead_word(fsdpa_ctx *c, const steady *y, int64_t rank, findings *f,
                                  const overhead *d) {
  const fsdpa_launch_gaps *g = &d->g;
  const fsdpa_launch_latency *l = &d->l;
  char scope[160], t_short[32], t_small[32], t_cost[32], t_win[32], t_p50[32], t_lat[32];
  lg_fmt_scope(scope, sizeof scope, y);
  fmt_dur(t_short, sizeof t_short, d->short_kernel_ns);
  fmt_dur(t_small, sizeof t_small, g->small_gap_threshold_ns);
  fmt_dur(t_cost, sizeof t_cost, d->cost_ns);
  fmt_dur(t_win, sizeof t_win, g->gpu_window_ns);
  fmt_dur(t_p50, sizeof t_p50, g->p50_ns == FSDPA_ABSENT ? 0 : g->p50_ns);
  fmt_dur(t_lat, sizeof t_lat, l->p50_ns == FSDPA_ABSENT ? 0 : l->p50_ns);
  char title[256], detail[1024];
  snprintf(title, sizeof title,
           "Launch overhead: %llu kernels, %.0f%% shorter than %s, GPU idle %.0f%% between them",
           (unsigned long long)d->kernels, 100.0 * (double)d->short_kernels / (double)d->kernels,
           t_short, 100.0 * d->idle_share);
  snprintf(detail, sizeof detail,
           "In %s %llu kernels ran and %llu (%.1f%%) were shorter than %s; %.1f%% of the linked "
           "kernels ran shorter than their own launch call. The GPU sat idle %s of %s (%.1f%%) in "
           "%llu stream gaps of at most %s whose next op's launch call had not returned when the "
           "stream went idle (median gap %s, median launch latency %s): the CPU's per-kernel "
           "launch cost, not GPU work, sets the pace.",
           scope, (unsigned long long)d->kernels, (unsigned long long)d->short_kernels,
           100.0 * (double)d->short_kernels / (double)d->kernels, t_short,
           l->short_kernel_share < 0 ? 0.0 : 100.0 * l->short_kernel_share, t_cost, t_win,
           100.0 * d->idle_share, (unsigned long long)g->small_launch_gaps, t_small, t_p50, t_lat);
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
  jw_ku64(&w, "kernels", d->kernels);
  jw_ku64(&w, "short_kernels", d->short_kernels);
  jw_ki64(&w, "short_kernel_threshold_ns", d->short_kernel_ns);
  jw_ku64(&w, "kernels_shorter_than_launch", l->kernels_shorter_than_launch);
  jw_kratio(&w, "kernels_shorter_than_launch_share", l->short_kernel_share);
  jw_ku64(&w, "small_launch_gaps", g->small_launch_gaps);
  jw_ki64(&w, "small_gap_threshold_ns", g->small_gap_threshold_ns);
  jw_ki64(&w, "gpu_small_launch_ns", d->cost_ns);
  jw_ki64(&w, "gpu_window_ns", g->gpu_window_ns);
  jw_kratio(&w, "idle_share", d->idle_share);
  jw_kratio(&w, "utilization", g->utilization);
  jw_ki64(&w, "gap_p50_ns", g->p50_ns);
  jw_ki64(&w, "launch_latency_p50_ns", l->p50_ns);
  {
    /* the launch calls take no time (fewer launches: compiled or graphed) */
    size_t n = c->st.rt.len;
    uint8_t *z = n ? fa_calloc(&c->alloc, n) : NULL;
    if (n && !z) {
      sb_free(&b);
      return fa_fail_status(&c->alloc);
    }
    for (size_t i = 0; i < n; i++) z[i] = (store_name_info(&c->st, STORE_REC(&c->st.rt, i)->name) & NC_LAUNCH) != 0;
    dg_mods m;
    memset(&m, 0, sizeof m);
    m.t0 = y->t0;
    m.t1 = y->t1;
    m.rt_zero = z;
    fsdpa_status sst = dg_saving_evidence(c, &m, "the launch calls take no time", &w);
    fa_free(&c->alloc, z, n);
    if (sst) {
      sb_free(&b);
      return sst;
    }
  }
  jw_obj_end(&w);
  fsdpa_status st = lg_add_finding(f, c, "launch-overhead", d->sev, rank, d->step, d->cost_ns, title, detail,
                        advice, &b, &d->ranges);
  sb_free(&b);
  return st;
}

/* What fixing the starvation would save: its root cause's calls gone (the
 * allocator's calls take no time, the DataLoader's __next__ ranges are cut
 * from their threads), else a host that costs nothing (every thread's CPU
 * time and calls take none; syncs still wait for the GPU). */
static fsdpa_status starve_saving(fsdpa_ctx *c, const starve_one *o, jsonw *w) {
  dg_mods m;
  memset(&m, 0, sizeof m);
  m.t0 = o->q.t0;
  m.t1 = o->q.t1;
  fsdpa_status st;
  if (o->al_main) {
    size_t n = c->st.rt.len;
    uint8_t *z = n ? fa_calloc(&c->alloc, n) : NULL;
    if (n && !z) return fa_fail_status(&c->alloc);
    for (size_t i = 0; i < n; i++) {
      uint32_t info = store_name_info(&c->st, STORE_REC(&c->st.rt, i)->name);
      z[i] = (info & (NC_MALLOC | NC_FREE | NC_VMM)) && !(info & NC_PINNED);
    }
    m.rt_zero = z;
    st = dg_saving_evidence(c, &m, "the device allocator calls take no time", w);
    fa_free(&c->alloc, z, n);
    return st;
  }
  if (o->dl_main) {
    const dl_calls *dl;
    dg_cuts k;
    if ((st = dl_calls_get(c, &dl)) || (st = dg_cuts_build(c, dl->track, dl->calls, dl->n, m.t0, m.t1, &k)))
      return st;
    m.cut = k.cut;
    m.cut_track = k.track;
    m.ncut = k.n;
    st = dg_saving_evidence(c, &m, "the DataLoader __next__ ranges are cut from their threads", w);
    dg_cuts_free(c, &k);
    return st;
  }
  if (o->sy_main) {
    uint8_t *z;
    if ((st = blocking_calls(c, &z))) return st;
    m.rt_zero = z;
    st = dg_saving_evidence(c, &m, "the blocking calls take no time and wait for nothing", w);
    fa_free(&c->alloc, z, c->st.rt.len);
    return st;
  }
  m.cpu_zero = 1;
  return dg_saving_evidence(c, &m, "a host that costs nothing: CPU time between runtime calls and the calls take none; "
                                   "synchronizations still wait for the GPU", w);
}

/* Whether the launching thread replays CUDA/HIP graphs in [t0, t1): then
 * "fewer launches, CUDA graphs" is done, and what is left between replays is
 * the host's own per-step work. */
static int replays_graphs(const fsdpa_ctx *c, int64_t t0, int64_t t1) {
  const store *s = &c->st;
  for (size_t i = 0; i < s->rt.len; i++) {
    const ev_rec *r = STORE_REC(&s->rt, i);
    if (r->ts >= t0 && r->ts < t1 && (store_name_info(s, r->name) & NC_GRAPH_LAUNCH)) return 1;
  }
  return 0;
}

static fsdpa_status starve_word(fsdpa_ctx *c, const steady *y, int64_t rank, findings *f,
                                const starvation *d, const starve_one *o) {
  const fsdpa_launch_gaps *g = &o->g;
  char scope[160];
  if (d->whole) lg_fmt_scope(scope, sizeof scope, y);
  else fmt_step(scope, sizeof scope, o->step);
  char t_busy[32], t_win[32], t_idle[32], t_host[32], t_kw[32], t_oth[32];
  fmt_dur(t_busy, sizeof t_busy, g->busy_ns);
  fmt_dur(t_win, sizeof t_win, g->gpu_window_ns);
  fmt_dur(t_idle, sizeof t_idle, g->gpu_idle_ns);
  fmt_dur(t_host, sizeof t_host, g->gpu_host_wait_ns);
  fmt_dur(t_kw, sizeof t_kw, g->gpu_kernel_wait_ns);
  fmt_dur(t_oth, sizeof t_oth, g->gpu_other_ns);
  const dg_causes *k = &o->k;
  char t_nl[32], t_bl[32], t_sw[32], t_rw[32], t_dp[32], t_un[32], t_hb[32], top[200] = "";
  fmt_dur(t_nl, sizeof t_nl, k->ns[DG_C_NOT_LAUNCHED]);
  fmt_dur(t_bl, sizeof t_bl, k->ns[DG_C_BLOCKED]);
  fmt_dur(t_sw, sizeof t_sw, k->ns[DG_C_STREAM_WAIT]);
  fmt_dur(t_rw, sizeof t_rw, k->ns[DG_C_RANK_WAIT]);
  fmt_dur(t_dp, sizeof t_dp, k->ns[DG_C_DISPATCH]);
  fmt_dur(t_un, sizeof t_un, k->ns[DG_C_UNKNOWN]);
  fmt_dur(t_hb, sizeof t_hb, o->host_ns);
  int64_t top_host_ns = 0;
  int graphs = replays_graphs(c, o->q.t0, o->q.t1);
  for (int i = 0; i < k->ntop; i++)  /* what the main cause mostly was */
    if (k->top[i].cause == o->main_cause && k->top[i].wkind != DG_W_NONE) {
      dg_cause_what(c, &k->top[i], top, sizeof top);
      top_host_ns = k->top[i].wkind == DG_W_NAME ? k->top[i].host_ns : 0;
      break;
    }
  /* host work done in line: one named CPU op or annotation holds most of the
   * not-launched idle, in long gaps (preprocessing before the first kernel),
   * inside instances that launched no GPU work themselves; not the many short
   * gaps of a launch rate that fewer launches would cure, nor the time
   * between the launches of a module's forward (its annotation spans the
   * gaps, but the thread was launching its kernels) */
  int host_work = o->main_cause == DG_C_NOT_LAUNCHED && top_host_ns > 0 && o->ranges.n &&
                  o->ranges.w[0] >= c->params[P_STARVATION_HOST_WORK_GAP_NS] &&
                  (double)top_host_ns * 1e6 >=
                      (double)c->params[P_STARVATION_EXPLAINED_PPM] * (double)k->ns[DG_C_NOT_LAUNCHED];
  double sh = lg_share(k->ns[o->main_cause], k->idle_ns);
  char title[512], detail[3072], why[600], warm[200] = "";
  if (d->warmup_idle_ns != FSDPA_ABSENT) {
    char t_w[32];
    fmt_dur(t_w, sizeof t_w, d->warmup_idle_ns);
    if (d->warmup_fu_idle_ns > 0) {
      char t_f[32];
      fmt_dur(t_f, sizeof t_f, d->warmup_fu_idle_ns);
      snprintf(warm, sizeof warm,
               " The first iteration, left out as warm-up, held %s more GPU idle, %s of it inside first-use calls.",
               t_w, t_f);
    } else {
      snprintf(warm, sizeof warm, " The first iteration, left out as warm-up, held %s more GPU idle.", t_w);
    }
  }
  workload wl;
  fsdpa_status wst = workload_build(c, &wl);
  if (wst) return wst;
  int wl_dataloader = wl.dataloader;
  const char *advice;
  switch (o->main_cause) {
    case DG_C_BLOCKED:
      snprintf(why, sizeof why,
               "Most of it (%.1f%%) the launching thread was blocked inside a runtime call%s%s%s, "
               "not slow at launching",
               100.0 * sh, top[0] ? " (mostly " : "", top, top[0] ? ")" : "");
      advice = "Look at the blocking calls in the ranges below: a first launch of a kernel that "
               "loads its module (warm up before profiling, or CUDA_MODULE_LOADING=EAGER), "
               "synchronous copies (pinned memory with non_blocking=True), cudaFree and "
               "synchronizations (avoid torch.cuda.empty_cache(), .item(), .cpu() in the loop).";
      break;
    case DG_C_STREAM_WAIT:
      snprintf(why, sizeof why,
               "Most of it (%.1f%%) the next op was already queued but waited for an event on "
               "another stream%s%s%s, not for the CPU",
               100.0 * sh, top[0] ? " (mostly " : "", top, top[0] ? ")" : "");
      advice = "Look at the cross-stream dependencies (event record / stream wait) in the ranges "
               "below: the awaited stream's work, or what delays it, is on the critical path; "
               "issue it earlier or wait later.";
      break;
    case DG_C_RANK_WAIT:
      snprintf(why, sizeof why,
               "Most of it (%.1f%%) the work waited for a collective%s%s%s, i.e. for other ranks",
               100.0 * sh, top[0] ? " (mostly " : "", top, top[0] ? ")" : "");
      advice = "Compare the ranks (fsdpa analyze over all of them: straggler-rank): a slower rank "
               "or an unbalanced workload holds the collective; overlap communication with "
               "compute.";
      break;
    case DG_C_DISPATCH:
      snprintf(why, sizeof why,
               "Most of it (%.1f%%) the device itself took to start work that was already queued behind "
               "the op it depended on (gaps of at most %lld ns between dependent ops)",
               100.0 * sh, (long long)c->params[P_IDLE_DISPATCH_MAX_NS]);
      advice = graphs ? "The steps already replay captured graphs (cudaGraphLaunch): the device's own start-up gaps between dependent "
                        "ops shrink only with fewer, larger kernels inside the graph (fusion, larger batches)."
                      : "Fewer, larger kernels shorten the device's own start-up gaps between dependent ops: "
                        "torch.compile fuses chains of small ops; CUDA graphs replay them with less overhead.";
      break;
    case DG_C_UNKNOWN:
      snprintf(why, sizeof why,
               "Most of it (%.1f%%) the next op was queued for reasons the trace does not show",
               100.0 * sh);
      advice = "Profile with CPU ops, runtime calls and cuda_sync events enabled (with_stack, "
               "record_shapes) so that the cause of the queued idle can be seen.";
      break;
    default:
      snprintf(why, sizeof why,
               "Most of it (%.1f%%) the next op had not been launched yet%s%s%s: the CPU did not "
               "feed the GPU fast enough",
               100.0 * sh, top[0] ? " (the launching thread mostly in " : "", top,
               top[0] ? ")" : "");
      /* name the DataLoader only where the trace has one */
      if (host_work) {
        snprintf(why, sizeof why,
                 "Most of it (%.1f%%) the next op had not been launched yet: the launching thread was in %s for "
                 "%.1f%% of that time, host work done in line before the GPU could go on",
                 100.0 * sh, top, 100.0 * lg_share(top_host_ns, k->ns[DG_C_NOT_LAUNCHED]));
        advice = wl_dataloader
                     ? "Do that host work ahead of the GPU instead of in line: in DataLoader worker processes "
                       "(num_workers>0, pin_memory=True) or a background thread that prepares the next input "
                       "while the model runs, or on the GPU; then profile again."
                     : "Do that host work ahead of the GPU instead of in line: in a background thread or worker "
                       "process that prepares the next inputs while the model runs, or on the GPU; then profile "
                       "again.";
        break;
      }
      if (graphs) {
        advice = "The steps already replay captured graphs (cudaGraphLaunch), so launches are not what is left: look at what the "
                 "CPU does between replays in the ranges below (scheduling, sampling, preparing the next inputs, "
                 "host-side syncs such as .item()) and overlap it with the replay: prepare step N+1 while step N "
                 "runs.";
        break;
      }
      advice = wl_dataloader
                   ? "Look at what the CPU does in the ranges below: data loading (more DataLoader "
                     "workers, pin_memory, prefetching), Python overhead between ops, host-side syncs "
                     "(.item(), printing, logging). Fewer launches help too: torch.compile, CUDA "
                     "graphs, larger batches."
                   : "Look at what the CPU does in the ranges below: preparing the next inputs on the "
                     "launching thread, Python overhead between ops, host-side syncs (.item(), "
                     "printing, logging). Fewer launches help too: torch.compile, CUDA graphs, "
                     "larger batches.";
      break;
  }
  /* a known root cause overrides the generic reading of the main cause */
  char t_cause[32], t_left[32], cause_title[160] = "", note[700] = "";
  if (o->al_main) {
    fmt_dur(t_cause, sizeof t_cause, o->al_ns);
    snprintf(why, sizeof why,
             "Of the host-bound idle, %s (%.1f%%) lies inside device allocator calls (cudaMalloc, cudaFree and "
             "their backends' calls): the launching thread was allocating or freeing device memory, so the "
             "allocator is the %s cause of this starvation%s",
             t_cause, 1e-4 * (double)o->al_ppm, o->al_explained ? "root" : "main",
             o->al_explained ? " (see allocator-thrash)" : "");
    advice = o->al_explained
                 ? "The device allocator is the cause (see allocator-thrash, its calls and its advice): stop the "
                   "steady-state allocations first, then profile again to see whether anything else starves the GPU."
                 : "Keep device allocations out of the steady loop: the caching allocator serves them without a "
                   "driver call unless its cache is released (torch.cuda.empty_cache()) or turned off "
                   "(PYTORCH_NO_CUDA_MEMORY_CACHING); reuse buffers instead of allocating new ones. Then profile "
                   "again to see whether anything else starves the GPU.";
    snprintf(cause_title, sizeof cause_title, "%.0f%% of its host-bound idle inside device allocator calls%s",
             1e-4 * (double)o->al_ppm, o->al_explained ? " (see allocator-thrash)" : "");
  } else if (o->explained) {
    fmt_dur(t_cause, sizeof t_cause, o->dl_ns);
    snprintf(why, sizeof why,
             "Of the host-bound idle, %s (%.1f%%) lies inside DataLoader __next__ calls: the launching thread "
             "was fetching the next batch, so the DataLoader is the root cause of this starvation (see "
             "dataloader-stall)",
             t_cause, 1e-4 * (double)o->explained_ppm);
    advice = "The DataLoader is the cause (see dataloader-stall, its ranges and its advice): fix the input "
             "pipeline first, then profile again to see whether anything else starves the GPU.";
    snprintf(cause_title, sizeof cause_title, "%.0f%% of its host-bound idle inside DataLoader __next__ (see dataloader-stall)",
             1e-4 * (double)o->explained_ppm);
  } else if (o->dl_main) {
    /* dataloader-stall stays under its own thresholds: the same fact, and
     * the DataLoader's own advice, without naming a finding the report lacks */
    fmt_dur(t_cause, sizeof t_cause, o->dl_ns);
    snprintf(why, sizeof why,
             "Of the host-bound idle, %s (%.1f%%) lies inside DataLoader __next__ calls: the launching thread "
             "was fetching the next batch, so the DataLoader is the main cause of this starvation",
             t_cause, 1e-4 * (double)o->explained_ppm);
    advice = wl.mode == WM_TRAIN
                 ? "Load and augment batches in worker processes: DataLoader(num_workers=N>0, pin_memory=True, "
                   "persistent_workers=True, prefetch_factor=2 or more), and copy them with "
                   ".to(device, non_blocking=True); move heavy augmentation to the GPU or precompute it. Then "
                   "profile again to see whether anything else starves the GPU."
                 : "Prepare inputs off the thread that launches the model: a DataLoader with num_workers>0 (and "
                   "pin_memory=True), preprocessing on the GPU, or a pipeline that prepares the next batch while "
                   "the model runs. Then profile again to see whether anything else starves the GPU.";
    snprintf(cause_title, sizeof cause_title, "%.0f%% of its host-bound idle inside DataLoader __next__",
             1e-4 * (double)o->explained_ppm);
  } else if (o->sy_main) {
    int64_t sy = o->sy_ns < o->host_ns ? o->sy_ns : o->host_ns;  /* a replay also moves busy time */
    fmt_dur(t_cause, sizeof t_cause, sy);
    snprintf(why, sizeof why,
             "The launching thread blocked in synchronizing calls while the GPU still had work, and lost the lead "
             "that would have covered this idle: a replay of the trace's dependencies without those calls removes "
             "%s of it (%.1f%%), so they are the %s cause of this starvation%s",
             t_cause, 100.0 * lg_share(sy, o->host_ns), o->sy_explained ? "root" : "main",
             o->sy_explained ? " (see cpu-sync-stall)" : "");
    advice = o->sy_explained
                 ? "The blocking calls are the cause (see cpu-sync-stall, its calls and its advice): make them "
                   "non-blocking first, so the host keeps launching ahead of the GPU, then profile again to see "
                   "whether anything else starves the GPU."
                 : "Take host synchronization out of the loop (tensor.item(), .cpu(), copies to pageable memory, "
                   "torch.cuda.synchronize()): the host then keeps launching ahead of the GPU. Then profile again "
                   "to see whether anything else starves the GPU.";
    snprintf(cause_title, sizeof cause_title, "%.0f%% of its host-bound idle follows blocking calls%s",
             100.0 * lg_share(sy, o->host_ns), o->sy_explained ? " (see cpu-sync-stall)" : "");
  } else if (o->fu_host_ns > 0) {
    char t_thr[32];
    fmt_dur(t_cause, sizeof t_cause, o->fu_host_ns);
    fmt_dur(t_left, sizeof t_left, o->cost_ns);
    fmt_dur(t_thr, sizeof t_thr, c->params[P_FIRST_USE_LAUNCH_NS]);
    double fsh = 100.0 * lg_share(o->fu_host_ns, g->gpu_host_wait_ns);
    snprintf(note, sizeof note,
             " Of the host-bound idle, %s (%.1f%%) lies inside first-use calls (%llu first launch%s of a "
             "kernel lasting at least %s: module loading; %llu allocation call%s: the caching allocator "
             "filling): the trace holds no iterations, only a first pass, so that part is set-up cost, not "
             "steady-state starvation, and the severity is judged on the remaining %s.",
             t_cause, fsh, (unsigned long long)o->fu_launches, o->fu_launches == 1 ? "" : "es", t_thr,
             (unsigned long long)o->fu_allocs, o->fu_allocs == 1 ? "" : "s", t_left);
    if (o->fu_main) {
      advice = "Profile after warm-up: run a few iterations before recording, or record with "
               "torch.profiler.schedule(wait=1, warmup=1, active=3) and call prof.step() once per iteration, "
               "so that module loading (CUDA_MODULE_LOADING=EAGER moves it to start-up) and the caching "
               "allocator's first cudaMalloc calls stay out of the profile; then judge the steady state.";
      snprintf(cause_title, sizeof cause_title,
               "%.0f%% of its host-bound idle first-use cost (module loading, allocator filling): profile after warm-up",
               fsh);
    }
  }
  static const char *const short_cause[DG_C__N] = {
      "waiting on the CPU to launch", "with the CPU blocked in a call",
      "waiting for another stream", "waiting for other ranks", "the device starting queued work",
      "of unknown cause"};
  if (cause_title[0])
    snprintf(title, sizeof title, "GPU starved: device %lld busy %.0f%% of the time, %s", (long long)d->device,
             100.0 * g->utilization, cause_title);
  else
    snprintf(title, sizeof title, "GPU starved: device %lld busy %.0f%% of the time, %.0f%% of its idle time %s",
             (long long)d->device, 100.0 * g->utilization, 100.0 * sh, short_cause[o->main_cause]);
  snprintf(detail, sizeof detail,
           "In %s device %lld ran GPU work %s of %s (%.1f%%). Of %s idle, the host held %s (%.1f%%): "
           "the next GPU op was not launched yet or its launching thread was blocked in a call "
           "(the dependency graph's causes: host not launched %s, host blocked %s, stream wait %s, "
           "rank wait %s, dispatch %s, unknown %s; HTA's categories: host wait %s, kernel wait %s, "
           "other %s). %s.%s%s",
           scope, (long long)d->device, t_busy, t_win, 100.0 * g->utilization, t_idle, t_hb,
           100.0 * o->host_share, t_nl, t_bl, t_sw, t_rw, t_dp, t_un, t_host, t_kw, t_oth, why, note, warm);
  sbuf b;
  sb_init(&b, &c->alloc);
  jsonw w;
  jw_init(&w, &b, 0);
  jw_obj(&w);
  jw_ki64(&w, "device", d->device);
  jw_kratio(&w, "utilization", g->utilization);
  jw_kratio(&w, "density", g->density);
  jw_ki64(&w, "busy_ns", g->busy_ns);
  jw_ki64(&w, "gpu_window_ns", g->gpu_window_ns);
  jw_ki64(&w, "gpu_idle_ns", g->gpu_idle_ns);
  jw_ki64(&w, "gpu_host_wait_ns", g->gpu_host_wait_ns);
  jw_ki64(&w, "gpu_kernel_wait_ns", g->gpu_kernel_wait_ns);
  jw_ki64(&w, "gpu_other_ns", g->gpu_other_ns);
  jw_kratio(&w, "host_share", o->host_share);
  jw_ki64(&w, "max_density_ppm", d->max_density_ppm);
  jw_ki64(&w, "min_host_share_ppm", d->min_host_share_ppm);
  jw_ku64(&w, "starving_steps", d->starving_steps);
  jw_ku64(&w, "steady_steps", d->steady_steps);
  jw_ki64(&w, "host_not_launched_ns", k->ns[DG_C_NOT_LAUNCHED]);
  jw_ki64(&w, "host_blocked_ns", k->ns[DG_C_BLOCKED]);
  jw_ki64(&w, "stream_wait_ns", k->ns[DG_C_STREAM_WAIT]);
  jw_ki64(&w, "rank_wait_ns", k->ns[DG_C_RANK_WAIT]);
  jw_ki64(&w, "dispatch_ns", k->ns[DG_C_DISPATCH]);
  jw_ki64(&w, "unknown_ns", k->ns[DG_C_UNKNOWN]);
  jw_ki64(&w, "host_bound_ns", o->host_ns);
  jw_kstr(&w, "main_cause", dg_cause_names[o->main_cause]);
  jw_ki64(&w, "judged_window_ns", d->judged_ns);
  jw_kratio(&w, "cost_share", o->cost_share);
  jw_ku64(&w, "kernels", o->kernels);
  jw_ki64(&w, "min_kernels", c->params[P_STARVATION_MIN_KERNELS]);
  jw_ki64(&w, "warmup_gpu_idle_ns", d->warmup_idle_ns);
  jw_ki64(&w, "warmup_first_use_idle_ns", d->warmup_idle_ns == FSDPA_ABSENT ? FSDPA_ABSENT : d->warmup_fu_idle_ns);
  jw_ki64(&w, "host_wait_in_dataloader_ns", o->dl_ns);
  jw_ki64(&w, "host_wait_in_allocator_ns", o->al_ns);
  if (o->al_explained) {
    jw_kstr(&w, "explained_by", "allocator-thrash");
    jw_ki64(&w, "explained_ns", o->al_ns);
    jw_ki64(&w, "explained_ppm", o->al_ppm);
  } else if (o->explained) {
    jw_kstr(&w, "explained_by", "dataloader-stall");
    jw_ki64(&w, "explained_ns", o->dl_ns);
    jw_ki64(&w, "explained_ppm", o->explained_ppm);
  } else if (o->sy_explained) {
    jw_kstr(&w, "explained_by", "cpu-sync-stall");
    jw_ki64(&w, "explained_ns", o->sy_ns < o->host_ns ? o->sy_ns : o->host_ns);
    jw_ki64(&w, "explained_ppm", (int64_t)(1e6 * lg_share(o->sy_ns < o->host_ns ? o->sy_ns : o->host_ns, o->host_ns)));
  }
  jw_ki64(&w, "host_bound_after_blocking_ns", o->sy_ns);
  jw_ki64(&w, "first_use_host_wait_ns", o->first_use ? o->fu_host_ns : FSDPA_ABSENT);
  jw_ki64(&w, "first_use_idle_ns", o->first_use ? o->fu_idle_ns : FSDPA_ABSENT);
  jw_ki64(&w, "first_use_launches", o->first_use ? (int64_t)o->fu_launches : FSDPA_ABSENT);
  jw_ki64(&w, "first_use_alloc_calls", o->first_use ? (int64_t)o->fu_allocs : FSDPA_ABSENT);
  jw_ki64(&w, "first_use_launch_threshold_ns", c->params[P_FIRST_USE_LAUNCH_NS]);
  fsdpa_status sst = starve_saving(c, o, &w);
  if (sst) {
    sb_free(&b);
    return sst;
  }
  jw_obj_end(&w);
  fsdpa_status st = lg_add_finding(f, c, "gpu-starvation", o->sev, rank, o->step, o->cost_ns, title, detail,
                        advice, &b, &o->ranges);
  sb_free(&b);
  return st;
}

static fsdpa_status starvation_word(fsdpa_ctx *c, const steady *y, int64_t rank, findings *f,
                                    const starvation *d) {
  fsdpa_status st = FSDPA_OK;
  for (int k = 0; k < d->n && !st; k++) st = starve_word(c, y, rank, f, d, &d->one[k]);
  return st;
}

/* Both rules of the room, for what they could not judge. */
static void not_judged_both(findings *f, int64_t rank, const char *reason, const char *would) {
  findings_not_judged(f, "gpu-starvation", rank, reason, would);
  findings_not_judged(f, "launch-overhead", rank, reason, would);
}

fsdpa_status launch_gaps_findings(fsdpa_ctx *c, int64_t rank, findings *f) {
  const store_views *v = ctx_views(c);
  if (!v) return fa_fail_status(&c->alloc);
  if (!v->nstreams) {
    if (c->st.xdev.len)
      not_judged_both(f, rank,
                      "the trace has no CUDA/ROCm GPU activity: its devices are of a backend fsdpa does not "
                      "analyze (ranks[].other_devices)",
                      "a trace of CUDA or ROCm GPUs");
    else
      not_judged_both(f, rank, "the trace has no GPU activity (no kernel, memcpy or memset events)",
                      "a trace recorded with ProfilerActivity.CUDA on the GPUs of the job");
    return (fsdpa_status)f->failed;
  }
  trace_sampling smp;
  trace_sampling_get(c, &smp);
  if (smp.sampled) {  /* gaps between the ops kept are not idle */
    not_judged_both(f, rank, SAMPLED_REASON, SAMPLED_WOULD);
    return (fsdpa_status)f->failed;
  }
  steady y;
  fsdpa_status st = lg_steady_get(c, &y);
  if (st) return st;
  qwin q = {y.t0, y.t1, FSDPA_ABSENT, FSDPA_ABSENT};
  fsdpa_launch_gaps g;
  lg_extra x;
  int one = lg_one_device(v);
  /* the rooms of root causes made their findings first (report/rank_part.c) */
  int dl_stall = findings_has(f, "dataloader-stall", rank), al_thrash = findings_has(f, "allocator-thrash", rank),
      sync_stall = findings_has(f, "cpu-sync-stall", rank);
  overhead od;
  if (!(st = lg_gaps(c, v, &q, &g, &x)) && !(st = overhead_decide(c, v, &y, &g, &x, &od)) &&
      od.fires)
    st = overhead_word(c, &y, rank, f, &od);
  for (size_t i = 0; i < v->nstreams && !st; i++) {
    if (i && v->streams[i].device == v->streams[i - 1].device) continue;
    starvation sd;
    st = starvation_decide(c, v, &y, v->streams[i].device, one ? &g : NULL, one ? &x : NULL, dl_stall, al_thrash,
                           sync_stall, &sd);
    if (!st) st = starvation_word(c, &y, rank, f, &sd);
  }
  lg_steady_free(c, &y);
  /* without runtime calls no gap can be told host-bound: silence, not health */
  if (!st && !c->st.rt.len) {
    static const char why[] = "the trace has no CUDA runtime calls (GPU events only), so no gap can be told "
                              "host-bound";
    static const char would[] = "ProfilerActivity.CPU next to ProfilerActivity.CUDA in the profiler's activities";
    if (!findings_has(f, "gpu-starvation", rank)) findings_not_judged(f, "gpu-starvation", rank, why, would);
    if (!findings_has(f, "launch-overhead", rank)) findings_not_judged(f, "launch-overhead", rank, why, would);
    st = (fsdpa_status)f->failed;
  }
  return st;
}
