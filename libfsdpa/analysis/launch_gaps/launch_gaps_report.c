/* ranks[].launch_gaps of the report: the whole-trace numbers, then per
 * stream, per device and per step (definitions in fsdpa.h, launch_gaps). */
#include "analysis/launch_gaps/launch_gaps.h"
#include "analysis/launch_gaps/launch_gaps_impl.h"
#include "model/iterations.h"
#include "util/fmt.h"
#include <stdio.h>
#include <string.h>

static void histogram(jsonw *w, const int64_t *edges, const uint64_t *counts, const int64_t *idle) {
  jw_key(w, "histogram");
  jw_obj(w);
  jw_key(w, "edges_ns");
  jw_arr(w);
  for (int i = 0; i < FSDPA_GAP_EDGES; i++) jw_i64(w, edges[i]);
  jw_arr_end(w);
  jw_key(w, "counts");
  jw_arr(w);
  for (int i = 0; i < FSDPA_GAP_BINS; i++) jw_u64(w, counts[i]);
  jw_arr_end(w);
  if (idle) {
    jw_key(w, "idle_ns");
    jw_arr(w);
    for (int i = 0; i < FSDPA_GAP_BINS; i++) jw_i64(w, idle[i]);
    jw_arr_end(w);
  }
  jw_obj_end(w);
}

static void gap_fields(jsonw *w, const fsdpa_launch_gaps *g) {
  jw_ku64(w, "gaps", g->gaps);
  jw_ki64(w, "p50_ns", g->p50_ns);
  jw_ki64(w, "p90_ns", g->p90_ns);
  jw_ki64(w, "p99_ns", g->p99_ns);
  jw_ki64(w, "max_ns", g->max_ns);
  histogram(w, g->edges_ns, g->counts, g->bin_idle_ns);
  jw_ki64(w, "idle_ns", g->idle_ns);
  jw_ki64(w, "host_wait_ns", g->host_wait_ns);
  jw_ki64(w, "kernel_wait_ns", g->kernel_wait_ns);
  jw_ki64(w, "other_ns", g->other_ns);
  jw_ku64(w, "host_wait_gaps", g->host_wait_gaps);
  jw_ku64(w, "kernel_wait_gaps", g->kernel_wait_gaps);
  jw_ku64(w, "other_gaps", g->other_gaps);
  jw_ku64(w, "unlinked_gaps", g->unlinked_gaps);
  jw_ki64(w, "unlinked_ns", g->unlinked_ns);
  jw_ku64(w, "small_launch_gaps", g->small_launch_gaps);
  jw_ki64(w, "small_launch_ns", g->small_launch_ns);
}

static void timeline_fields(jsonw *w, const fsdpa_launch_gaps *g) {
  jw_ki64(w, "span_ns", g->span_ns);
  jw_ki64(w, "busy_ns", g->busy_ns);
  jw_kratio(w, "density", g->density);
}

static void gpu_fields(jsonw *w, const fsdpa_launch_gaps *g) {
  jw_ki64(w, "gpu_window_ns", g->gpu_window_ns);
  jw_kratio(w, "utilization", g->utilization);
  jw_ku64(w, "gpu_gaps", g->gpu_gaps);
  jw_ki64(w, "gpu_idle_ns", g->gpu_idle_ns);
  jw_ki64(w, "gpu_host_wait_ns", g->gpu_host_wait_ns);
  jw_ki64(w, "gpu_kernel_wait_ns", g->gpu_kernel_wait_ns);
  jw_ki64(w, "gpu_other_ns", g->gpu_other_ns);
  jw_ki64(w, "gpu_small_launch_ns", g->gpu_small_launch_ns);
}

/* A device or a step: its timeline, its GPU and its streams' idle causes. */
static void window_fields(jsonw *w, const fsdpa_launch_gaps *g) {
  timeline_fields(w, g);
  gpu_fields(w, g);
  jw_ki64(w, "host_wait_ns", g->host_wait_ns);
  jw_ki64(w, "kernel_wait_ns", g->kernel_wait_ns);
  jw_ki64(w, "other_ns", g->other_ns);
}

static void latency_obj(jsonw *w, const fsdpa_launch_latency *l, int full) {
  jw_key(w, "latency");
  jw_obj(w);
  jw_ku64(w, "ops", l->ops);
  jw_ku64(w, "linked", l->linked);
  jw_ki64(w, "min_ns", l->min_ns);
  jw_ki64(w, "p50_ns", l->p50_ns);
  jw_ki64(w, "p90_ns", l->p90_ns);
  jw_ki64(w, "p99_ns", l->p99_ns);
  jw_ki64(w, "max_ns", l->max_ns);
  jw_ki64(w, "mean_ns", l->linked ? l->total_ns / (int64_t)l->linked : FSDPA_ABSENT);
  jw_ku64(w, "kernels_linked", l->kernels_linked);
  jw_ku64(w, "kernels_shorter_than_launch", l->kernels_shorter_than_launch);
  jw_kratio(w, "short_kernel_share", l->short_kernel_share);
  if (full) histogram(w, l->edges_ns, l->counts, NULL);
  jw_obj_end(w);
}

static void queue_obj(jsonw *w, const fsdpa_launch_queue *q) {
  jw_key(w, "queue");
  jw_obj(w);
  jw_ki64(w, "range_ns", q->range_ns);
  jw_ki64(w, "max_depth", q->max_depth);
  jw_key(w, "mean_depth");
  if (q->mean_depth < 0) jw_null(w);
  else jw_f64(w, q->mean_depth, 3);
  jw_ki64(w, "depth0_ns", q->depth0_ns);
  jw_ki64(w, "starved_ns", q->starved_ns);
  jw_obj_end(w);
}

/* idle_causes: the GPU idle of the window split by cause (launch_gaps_impl.h). */
static void causes_obj(const fsdpa_ctx *c, jsonw *w, const dg_causes *k) {
  static const char *const keys[DG_C__N] = {"host_not_launched_ns", "host_blocked_ns", "stream_wait_ns",
                                            "rank_wait_ns", "dispatch_ns", "unknown_ns"};
  jw_key(w, "idle_causes");
  jw_obj(w);
  jw_ki64(w, "idle_ns", k->idle_ns);
  for (int i = 0; i < DG_C__N; i++) jw_ki64(w, keys[i], k->ns[i]);
  jw_ki64(w, "outside_trace_ns", k->outside_ns);
  jw_ki64(w, "inferred_ns", k->inferred_ns);
  jw_key(w, "top");
  jw_arr(w);
  for (int i = 0; i < k->ntop; i++) {
    char what[256];
    dg_cause_what(c, &k->top[i], what, sizeof what);
    jw_obj(w);
    jw_kstr(w, "cause", dg_cause_names[k->top[i].cause]);
    if (k->top[i].wkind == DG_W_NONE) {
      jw_key(w, "what");
      jw_null(w);
    } else {
      jw_kstr(w, "what", what);
    }
    jw_ki64(w, "ns", k->top[i].ns);
    jw_ki64(w, "host_only_ns", k->top[i].host_ns);
    jw_obj_end(w);
  }
  jw_arr_end(w);
  jw_obj_end(w);
}

/* all_g / all_l: the whole-trace answers, reused when one stream is all
 * there is (the common single-GPU trace: saves a pass over every op). */
static fsdpa_status streams_json(fsdpa_ctx *c, const store_views *v, jsonw *w,
                                 const fsdpa_launch_gaps *all_g, const fsdpa_launch_latency *all_l,
                                 const dg_causes *all_k) {
  jw_key(w, "streams");
  jw_arr(w);
  for (size_t i = 0; i < v->nstreams; i++) {
    const gpu_stream_view *sv = &v->streams[i];
    qwin q = {INT64_MIN, INT64_MAX, sv->device, sv->stream};
    fsdpa_launch_gaps g;
    fsdpa_launch_latency l;
    fsdpa_launch_queue qu;
    dg_causes k;
    fsdpa_status st;
    if (v->nstreams == 1) {
      g = *all_g;
      l = *all_l;
      k = *all_k;
    } else if ((st = lg_gaps(c, v, &q, &g, NULL)) || (st = lg_latency(c, v, &q, &l)) ||
               (st = lg_idle_causes(c, v, &q, &k))) {
      return st;
    }
    if ((st = lg_queue(c, v, &q, &qu))) return st;
    jw_obj(w);
    jw_ki64(w, "device", sv->device);
    jw_ki64(w, "stream", sv->stream);
    gap_fields(w, &g);
    timeline_fields(w, &g);
    latency_obj(w, &l, 0);
    queue_obj(w, &qu);
    causes_obj(c, w, &k);
    jw_obj_end(w);
  }
  jw_arr_end(w);
  return FSDPA_OK;
}

static fsdpa_status devices_json(fsdpa_ctx *c, const store_views *v, jsonw *w,
                                 const fsdpa_launch_gaps *all_g, const dg_causes *all_k) {
  int one = lg_one_device(v);
  jw_key(w, "devices");
  jw_arr(w);
  for (size_t i = 0; i < v->nstreams; i++) {
    if (i && v->streams[i].device == v->streams[i - 1].device) continue;
    qwin q = {INT64_MIN, INT64_MAX, v->streams[i].device, FSDPA_ABSENT};
    fsdpa_launch_gaps g;
    dg_causes k;
    if (one) {
      g = *all_g;
      k = *all_k;
    } else {
      fsdpa_status st = lg_gaps(c, v, &q, &g, NULL);
      if (!st) st = lg_idle_causes(c, v, &q, &k);
      if (st) return st;
    }
    jw_obj(w);
    jw_ki64(w, "device", v->streams[i].device);
    jw_ku64(w, "streams", g.streams);
    window_fields(w, &g);
    causes_obj(c, w, &k);
    jw_obj_end(w);
  }
  jw_arr_end(w);
  return FSDPA_OK;
}

static fsdpa_status steps_json(fsdpa_ctx *c, const store_views *v, jsonw *w) {
  size_t n = c->st.steps.len;
  jw_key(w, "steps");
  jw_arr(w);
  if (!n) {
    jw_arr_end(w);
    return FSDPA_OK;
  }
  step_rec *s = fa_malloc(&c->alloc, n * sizeof *s);
  if (!s) return ctx_fail(c, fa_fail_status(&c->alloc), "out of memory (launch gaps steps)");
  n = ctx_sorted_steps(c, s, n);
  /* the steady cut of the findings (graph-capture steps at the start count
   * as set-up) */
  lg_steady y;
  fsdpa_status st = lg_steady_get(c, &y);
  if (st) {
    fa_free(&c->alloc, s, c->st.steps.len * sizeof *s);
    return st;
  }
  size_t first = y.source == ITS_PROFILER_STEP ? y.first : lg_first_steady(n);
  lg_steady_free(c, &y);
  for (size_t i = 0; i < n && !st; i++) {
    qwin q = {s[i].ts, s[i].end, FSDPA_ABSENT, FSDPA_ABSENT};
    fsdpa_launch_gaps g;
    if ((st = lg_gaps(c, v, &q, &g, NULL))) break;
    jw_obj(w);
    char name[48];
    fmt_step(name, sizeof name, s[i].number);
    jw_kstr(w, "name", name);
    jw_ki64(w, "number", s[i].number);
    jw_key(w, "steady");
    jw_bool(w, i >= first);
    window_fields(w, &g);
    jw_obj_end(w);
  }
  fa_free(&c->alloc, s, c->st.steps.len * sizeof *s);
  jw_arr_end(w);
  return st;
}

/* The warm-up cut of the findings (lg_steady_get): which iterations are
 * warm-up and what their GPU idle costs, apart from the steady idle the
 * findings judge. */
static fsdpa_status warmup_json(fsdpa_ctx *c, const store_views *v, jsonw *w) {
  lg_steady y;
  fsdpa_status st = lg_steady_get(c, &y);
  if (st) return st;
  fsdpa_launch_gaps wg, sg;
  memset(&wg, 0, sizeof wg);
  qwin qs = {y.t0, y.t1, FSDPA_ABSENT, FSDPA_ABSENT};
  if (y.first) {
    qwin qw = {y.s[0].ts, y.t0, FSDPA_ABSENT, FSDPA_ABSENT};
    st = lg_gaps(c, v, &qw, &wg, NULL);
  }
  if (!st) st = lg_gaps(c, v, &qs, &sg, NULL);
  if (!st) {
    jw_key(w, "warmup");
    jw_obj(w);
    jw_kstr(w, "iterations_from", lg_steady_source(&y));
    jw_ku64(w, "iterations", y.n);
    jw_ku64(w, "warmup_iterations", y.first);
    jw_ku64(w, "capture_iterations", y.capture);
    jw_ki64(w, "warmup_start_ns", y.first ? ctx_abs(c, y.s[0].ts) : FSDPA_ABSENT);
    jw_ki64(w, "warmup_end_ns", y.first ? ctx_abs(c, y.t0) : FSDPA_ABSENT);
    jw_ki64(w, "warmup_gpu_idle_ns", y.first ? wg.gpu_idle_ns : 0);
    jw_ki64(w, "warmup_gpu_host_wait_ns", y.first ? wg.gpu_host_wait_ns : 0);
    jw_ki64(w, "steady_start_ns", y.n ? ctx_abs(c, y.t0) : FSDPA_ABSENT);
    jw_ki64(w, "steady_end_ns", y.n ? ctx_abs(c, y.t1) : FSDPA_ABSENT);
    jw_ki64(w, "steady_gpu_window_ns", sg.gpu_window_ns);
    jw_ki64(w, "steady_gpu_idle_ns", sg.gpu_idle_ns);
    jw_ki64(w, "steady_gpu_host_wait_ns", sg.gpu_host_wait_ns);
    jw_obj_end(w);
  }
  lg_steady_free(c, &y);
  return st;
}

/* First-use cost where no steady state is judged: the whole trace without
 * iterations, else the warm-up iterations (docs/report-contract.md,
 * "First-use cost"). */
static fsdpa_status first_use_json(fsdpa_ctx *c, const store_views *v, jsonw *w) {
  lg_steady y;
  fsdpa_status st = lg_steady_get(c, &y);
  if (st) return st;
  const lg_first_use *fu = NULL;
  lg_first_use *own = NULL;
  const char *win = !y.n ? "whole_trace" : y.first ? "warmup" : "none";
  qwin q = {INT64_MIN, INT64_MAX, FSDPA_ABSENT, FSDPA_ABSENT};
  if (y.first) q = (qwin){y.s[0].ts, y.t0, FSDPA_ABSENT, FSDPA_ABSENT};
  fsdpa_launch_gaps g;
  lg_extra x;
  memset(&x, 0, sizeof x);
  uint64_t nl = 0, na = 0;
  if (y.n && !y.first) {
    /* one iteration, judged as it is: nothing is counted apart */
  } else if (!(st = lg_first_use_get(c, v, &fu, &own)) && !(st = lg_gaps(c, v, &q, &g, &x))) {
    lg_first_use_count(fu, q.t0, q.t1, &nl, &na);
  }
  lg_first_use_free(c, own);
  if (!st) {
    jw_key(w, "first_use");
    jw_obj(w);
    jw_kstr(w, "window", win);
    jw_ki64(w, "start_ns", y.first ? ctx_abs(c, q.t0) : FSDPA_ABSENT);
    jw_ki64(w, "end_ns", y.first ? ctx_abs(c, q.t1) : FSDPA_ABSENT);
    jw_ki64(w, "launch_threshold_ns", c->params[P_FIRST_USE_LAUNCH_NS]);
    jw_ku64(w, "first_launches", nl);
    jw_ku64(w, "allocator_calls", na);
    jw_ki64(w, "idle_ns", x.idle_first_use_ns);
    jw_ki64(w, "host_wait_ns", x.host_first_use_ns);
    jw_obj_end(w);
  }
  lg_steady_free(c, &y);
  return st;
}

static void sampling_json(const fsdpa_ctx *c, jsonw *w) {
  trace_sampling o;
  trace_sampling_get(c, &o);
  jw_key(w, "sampling");
  jw_obj(w);
  jw_ku64(w, "runtime_calls", o.calls);
  jw_ki64(w, "correlation_span", o.corr_span);
  jw_ki64(w, "max_ratio", o.max_ratio);
  jw_key(w, "sampled");
  jw_bool(w, o.sampled);
  jw_obj_end(w);
}

fsdpa_status launch_gaps_json(fsdpa_ctx *c, jsonw *w) {
  const store_views *v = ctx_views(c);
  if (!v) return fa_fail_status(&c->alloc);
  if (!v->nstreams) {  /* no GPU activity: nothing here can be computed */
    jw_null(w);
    return FSDPA_OK;
  }
  qwin all = {INT64_MIN, INT64_MAX, FSDPA_ABSENT, FSDPA_ABSENT};
  fsdpa_launch_gaps g;
  fsdpa_launch_latency l;
  dg_causes k;
  fsdpa_status st;
  if ((st = lg_gaps(c, v, &all, &g, NULL)) || (st = lg_latency(c, v, &all, &l)) ||
      (st = lg_idle_causes(c, v, &all, &k)))
    return st;
  jw_obj(w);
  jw_ki64(w, "kernel_wait_threshold_ns", g.kernel_wait_threshold_ns);
  jw_ki64(w, "small_gap_threshold_ns", g.small_gap_threshold_ns);
  timeline_fields(w, &g);
  gap_fields(w, &g);
  gpu_fields(w, &g);
  latency_obj(w, &l, 1);
  causes_obj(c, w, &k);
  if ((st = streams_json(c, v, w, &g, &l, &k)) || (st = devices_json(c, v, w, &g, &k)) ||
      (st = steps_json(c, v, w)) || (st = warmup_json(c, v, w)) || (st = first_use_json(c, v, w)))
    return st;
  sampling_json(c, w);
  jw_obj_end(w);
  return FSDPA_OK;
}

_Static_assert(DG_C__N == LAUNCH_GAPS_CAUSES, "launch_gaps.h names every cause");

fsdpa_status launch_gaps_brief_get(fsdpa_ctx *c, launch_gaps_brief *out) {
  memset(out, 0, sizeof *out);
  const store_views *v = ctx_views(c);
  if (!v) return fa_fail_status(&c->alloc);
  if (!v->nstreams) return FSDPA_OK;
  qwin all = {INT64_MIN, INT64_MAX, FSDPA_ABSENT, FSDPA_ABSENT};
  dg_causes k;
  fsdpa_status st = lg_idle_causes(c, v, &all, &k);
  if (st) return st;
  out->gpu = 1;
  out->idle_ns = k.idle_ns;
  for (int i = 0; i < DG_C__N; i++) out->cause_ns[i] = k.ns[i];
  lg_steady y;
  if ((st = lg_steady_get(c, &y))) return st;
  out->iterations = y.n;
  out->warmup_iterations = y.first;
  out->iterations_from = lg_steady_source(&y);
  if (y.first) {
    qwin qw = {y.s[0].ts, y.t0, FSDPA_ABSENT, FSDPA_ABSENT};
    fsdpa_launch_gaps wg;
    st = lg_gaps(c, v, &qw, &wg, NULL);
    if (!st) {
      out->warmup_gpu_idle_ns = wg.gpu_idle_ns;
      out->warmup_gpu_host_wait_ns = wg.gpu_host_wait_ns;
    }
  }
  lg_steady_free(c, &y);
  return st;
}
