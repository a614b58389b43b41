/* The comm-serialized and exposed-comm findings: what the whole trace's
 * overlap says (facts), whether each finding fires and with which numbers
 * (decide_*), and its sentences (word_*). */
#include "analysis/overlap/overlap_impl.h"
#include "model/fsdp_model.h"
#include "model/depgraph.h"
#include "model/workload.h"
#include "model/sampling.h"
#include "events/classify.h"
#include "util/fmt.h"
#include <stdio.h>
#include <string.h>

/* What both findings read, over the whole trace. */
typedef struct ov_facts {
  fsdpa_overlap o;
  const split_acc *by_coll;
  size_t ncoll;
  overlap_ivs exposed;           /* comm − compute, longest first */
  int64_t span_ns;               /* first to last GPU activity of the rank */
  uint64_t comm_streams, mixed_streams;
  fm_summary fs;
  ov_wait wait;                  /* the waiting part of the communication, read from this rank */
} ov_facts;

typedef struct serialized_decision {
  int fires, severity;
  int shared;                    /* collectives share a stream with compute kernels */
  int64_t hideable_ns;           /* min(comm, compute) − overlap: what could be hidden */
  int by_exposed;                /* exposed-comm fires too and measures that time */
  int64_t cost_ns;               /* hideable_ns */
  int64_t comm_ns, compute_ns, overlap_ns;
  double overlap_pct;
  const overlap_ivs *ranges;
} serialized_decision;

typedef struct exposed_decision {
  int fires, severity;
  int netbound;                  /* most FSDP unit phases need more comm than compute */
  int64_t cost_ns;               /* the exposed communication */
  int64_t span_ns;
  double share_pct;              /* of the GPU span */
  fm_summary fs;                 /* fs.units == 0: no FSDP units to speak of */
  fsdpa_comm_split bw[COLL__COUNT];  /* collectives with a known bus bandwidth, split order */
  size_t nbw;
  fsdpa_comm_split top;          /* the collective with the most exposed time (top.count 0: none) */
  int64_t comm_ns;
  const overlap_ivs *ranges;
  ov_wait wait;
  int waiting;                   /* most of the exposed time is waiting for peers (ov_wait) */
} exposed_decision;

/* ---- facts and evidence ---- */

static void facts_streams(const store_views *v, ov_facts *x) {
  x->span_ns = v->nall ? v->all_busy[v->nall - 1].e - v->all_busy[0].s : 0;
  for (size_t i = 0; i < v->nstreams; i++) {
    if (v->streams[i].role == FSDPA_ROLE_COMMUNICATION) x->comm_streams++;
    if (v->streams[i].role == FSDPA_ROLE_MIXED) x->mixed_streams++;
  }
}

/* Evidence of both findings: totals, per collective with bandwidth, stream
 * roles, and (FSDP) how many units need more comm than compute; then the
 * finding's own keys: comm-serialized's (sd alone), exposed-comm's (ed; with
 * sd where comm-serialized fires too, which explains part of it). */
/* exposed-comm's what-if: the communication kernels take no time. */
static fsdpa_status comm_saving(fsdpa_ctx *c, jsonw *w) {
  const store_views *v = ctx_views(c);
  if (!v) return fa_fail_status(&c->alloc);
  size_t n = c->st.gpu.len;
  uint8_t *z = n ? fa_calloc(&c->alloc, n) : NULL;
  if (n && !z) return fa_fail_status(&c->alloc);
  for (size_t i = 0; i < n && v->comm; i++) z[i] = v->comm[i] != 0;
  dg_mods m;
  memset(&m, 0, sizeof m);
  m.t0 = v->nall ? v->all_busy[0].s : 0;
  m.t1 = v->nall ? v->all_busy[v->nall - 1].e : 0;
  m.op_zero = z;
  fsdpa_status st = dg_saving_evidence(c, &m, "the communication kernels take no time", w);
  fa_free(&c->alloc, z, n);
  return st;
}

static fsdpa_status evidence(fsdpa_ctx *c, jsonw *w, const ov_facts *x, const struct serialized_decision *sd,
                             const struct exposed_decision *ed) {
  const fsdpa_overlap *o = &x->o;
  jw_obj(w);
  jw_ki64(w, "comm_ns", o->comm_ns);
  jw_ki64(w, "compute_ns", o->compute_ns);
  jw_ki64(w, "overlap_ns", o->overlap_ns);
  jw_ki64(w, "exposed_comm_ns", o->exposed_comm_ns);
  overlap_write_pct(w, "overlap_pct", o->overlap_pct);
  jw_ki64(w, "gpu_span_ns", x->span_ns);
  jw_key(w, "by_collective");
  overlap_write_splits(c, w, x->by_coll, x->ncoll, 0);
  jw_ku64(w, "communication_streams", x->comm_streams);
  jw_ku64(w, "mixed_streams", x->mixed_streams);
  if (x->fs.units) {
    jw_ku64(w, "fsdp_unit_phases", x->fs.units);
    jw_ku64(w, "fsdp_unit_phases_comm_bound", x->fs.comm_bound);
    jw_ki64(w, "fsdp_exposed_formula_ns", x->fs.exposed_formula_ns);
  }
  if (sd && !ed) jw_ki64(w, "hideable_ns", sd->hideable_ns);
  if (ed) {
    if (sd && sd->fires) {
      jw_kstr(w, "explained_by", "comm-serialized");
      jw_ki64(w, "explained_ns", sd->hideable_ns);
    }
    jw_key(w, "exposed_share_of_comm");
    jw_f64(w, x->o.comm_ns > 0 ? (double)x->o.exposed_comm_ns / (double)x->o.comm_ns : 0, 4);
    jw_key(w, "top_exposed_collective");
    if (ed->top.count) jw_str(w, ed->top.name);
    else jw_null(w);
    jw_ki64(w, "top_exposed_collective_ns", ed->top.count ? ed->top.exposed_ns : FSDPA_ABSENT);
    jw_ki64(w, "wait_judged_ns", x->wait.judged_ns);
    jw_ki64(w, "wait_ns", x->wait.wait_ns);
    jw_ki64(w, "exposed_wait_ns", x->wait.exposed_wait_ns);
    jw_key(w, "exposed_wait_share");
    jw_f64(w, ed->cost_ns > 0 ? (double)x->wait.exposed_wait_ns / (double)ed->cost_ns : 0, 4);
    jw_ku64(w, "same_size_groups", x->wait.groups);
    jw_key(w, "worst_skew_ratio");
    if (x->wait.groups) jw_f64(w, (double)x->wait.worst_ratio_x100 / 100.0, 2);
    else jw_null(w);
    jw_key(w, "mostly_waiting");
    jw_bool(w, ed->waiting);
    fsdpa_status st = comm_saving(c, w);
    if (st) return st;
  }
  jw_obj_end(w);
  return FSDPA_OK;
}

/* ---- decisions ---- */

#define WL_TP_ANY ((1u << WL_TENSOR_PARALLEL) | (1u << WL_SEQUENCE_PARALLEL))

/* Tensor / sequence parallelism is the only parallelism the trace shows. */
static int tp_only(const workload *wl) {
  return (wl->labels & WL_TP_ANY) && !(wl->labels & ~WL_TP_ANY);
}

/* After decide_exposed: the time comm-serialized could hide, min(comm,
 * compute) − overlap, is never more than the exposed time, comm − overlap,
 * and is part of it (hiding communication under compute shrinks exactly
 * that).  comm-serialized is the cause and costs that time; exposed-comm is
 * the measure, names comm-serialized as what explains that part of it
 * ("explained_by"), and is listed right after it.  A cost of 0 for the cause
 * would read as "harmless" next to its own warning. */
static void decide_serialized(const fsdpa_ctx *c, const ov_facts *x, const exposed_decision *ed,
                              const workload *wl, serialized_decision *d) {
  memset(d, 0, sizeof *d);
  const fsdpa_overlap *o = &x->o;
  double thr = (double)c->params[P_OVERLAP_SERIALIZED_PPM] / 1e4;
  if (!(o->overlap_pct < thr)) return;
  /* Tensor parallelism's collectives take turns with compute by design: each
   * all-reduce / all-gather between layers produces the next layer's input,
   * so no stream or issue order would let them run beside it.  That time is
   * still exposed, and exposed-comm measures it. */
  if (tp_only(wl)) return;
  int64_t lo = o->comm_ns < o->compute_ns ? o->comm_ns : o->compute_ns;
  d->fires = 1;
  d->severity = SEV_WARNING;
  d->shared = x->mixed_streams > 0;
  d->hideable_ns = lo - o->overlap_ns;
  d->by_exposed = ed->fires;
  d->cost_ns = d->hideable_ns;
  d->comm_ns = o->comm_ns;
  d->compute_ns = o->compute_ns;
  d->overlap_ns = o->overlap_ns;
  d->overlap_pct = o->overlap_pct;
  d->ranges = &x->exposed;
}

static void decide_exposed(const fsdpa_ctx *c, const ov_facts *x, exposed_decision *d) {
  memset(d, 0, sizeof *d);
  int64_t span = x->span_ns, exposed = x->o.exposed_comm_ns;
  /* ppm may exceed 10^6 (param_ok): clamp before converting */
  double thr_d = span > 0 ? (double)span * (double)c->params[P_EXPOSED_COMM_SHARE_PPM] / 1e6 : 0;
  int64_t share_thr = thr_d >= 9.2e18 ? INT64_MAX : (int64_t)thr_d;
  if (!(span > 0 && exposed >= share_thr && exposed > 0)) return;
  d->fires = 1;
  d->share_pct = 100.0 * (double)exposed / (double)span;
  d->severity = d->share_pct >= 30.0 ? SEV_CRITICAL : SEV_WARNING;
  d->netbound = x->fs.units && x->fs.comm_bound * 2 > x->fs.units;
  d->cost_ns = exposed;
  d->span_ns = span;
  d->comm_ns = x->o.comm_ns;
  d->fs = x->fs;
  for (size_t i = 0; i < x->ncoll; i++) {
    fsdpa_comm_split sp;
    overlap_split_public(c, &x->by_coll[i], 0, &sp);
    /* the most exposed; ties: the first in split order */
    if (sp.exposed_ns > 0 && (!d->top.count || sp.exposed_ns > d->top.exposed_ns)) d->top = sp;
    if (d->nbw < COLL__COUNT && sp.busbw_gbps >= 0) d->bw[d->nbw++] = sp;
  }
  d->ranges = &x->exposed;
  d->wait = x->wait;
  d->waiting = x->wait.exposed_wait_ns > exposed / 2;
}

/* ---- wording ---- */

/* every exposed range, longest first: the report lists the first few,
 * annotate marks them all */
static void add_ranges(fsdpa_ctx *c, finding *f, const overlap_ivs *r) {
  if (!f) return;
  for (size_t i = 0; i < r->n; i++)
    finding_add_range(f, ctx_abs(c, r->v[i].s), ctx_abs(c, r->v[i].e));
}

#define WL_FSDP_ANY ((1u << WL_FSDP1) | (1u << WL_FSDP2))

/* How this job lets collectives start early, one sentence per parallelism the
 * trace shows (docs/report-contract.md, "advice follows the workload"). */
/* A sentence after others; the leading space dropped where it is the first. */
static void say(sbuf *adv, const char *sentence) {
  sb_puts(adv, adv->len ? sentence : sentence + (sentence[0] == ' '));
}

static void advice_early(const workload *wl, sbuf *adv) {
  uint32_t l = wl->labels;
  if (l & (1u << WL_FSDP1))
    say(adv, " FSDP1: forward_prefetch=True and backward_prefetch=BackwardPrefetch.BACKWARD_PRE.");
  if (l & (1u << WL_FSDP2))
    say(adv, " FSDP2: set_modules_to_forward_prefetch / set_modules_to_backward_prefetch on each unit.");
  if (l & (1u << WL_DDP))
    say(adv, " DDP overlaps its gradient all-reduce with backward bucket by bucket: keep "
                 "gradient_as_bucket_view=True, lower bucket_cap_mb so the first bucket is ready early, and "
                 "leave find_unused_parameters off unless needed.");
  if (l & (1u << WL_EMBEDDING_A2A))
    say(adv, wl->mode == WM_TRAIN
                     ? " TorchRec: pipeline the embedding all-to-all with the dense part of the previous batch "
                       "(TrainPipelineSparseDist)."
                     : " Embedding all-to-all: fetch the next batch's embeddings while the dense part of this one "
                       "runs.");
  if (l & ((1u << WL_TENSOR_PARALLEL) | (1u << WL_SEQUENCE_PARALLEL)))
    say(adv, " Tensor parallel: the all-reduce / all-gather between layers is on the critical path; "
                 "overlap it with the neighbouring matmul (async tensor parallelism, fused all-gather-matmul / "
                 "matmul-reduce-scatter) or split the batch so one half communicates while the other computes.");
  if (l & (1u << WL_EXPERT_PARALLEL))
    say(adv, " Expert parallel: overlap the token dispatch / combine all-to-all with the shared-expert or "
                 "attention compute of another micro-batch.");
  if (l & (1u << WL_PIPELINE))
    say(adv, " Pipeline parallel: use a schedule that overlaps send/recv with compute (interleaved 1F1B) "
                 "and more micro-batches.");
}

static void word_serialized(fsdpa_ctx *c, int64_t rank, findings *f, const serialized_decision *d,
                            const workload *wl, const char *evidence_json, sbuf *det, sbuf *adv) {
  det->len = 0;
  adv->len = 0;
  sb_printf(det,
            "Communication kernels run %.3f ms and compute kernels %.3f ms, but only %.3f ms "
            "(%.2f%% of communication) run at the same time: %s. Up to %.3f ms could be hidden.",
            fmt_ms(d->comm_ns), fmt_ms(d->compute_ns), fmt_ms(d->overlap_ns), d->overlap_pct,
            d->shared ? "collectives share a stream with compute kernels, so one waits for the other"
                      : "the communication stream and the compute stream take turns",
            fmt_ms(d->hideable_ns));
  if (d->by_exposed)
    sb_puts(det, " That time is part of the exposed communication exposed-comm measures: this is why it is "
                 "exposed.");
  if (d->shared) {
    sb_printf(adv, "Collectives run on the compute stream (PyTorch >= 2.8 issues synchronous collectives on "
                   "the current stream): keep them on a side stream (%sasync_op=True) so communication "
                   "kernels run beside compute.",
              wl->labels & (1u << WL_FSDP2) ? "FSDP2 all_gather/reduce_scatter streams, " : "");
  } else {
    sb_puts(adv, "Let collectives run ahead of compute: issue them before the compute that does not need "
                 "their result and wait only where it is used.");
    advice_early(wl, adv);
    sb_puts(adv, " Remove waits that make the compute stream depend on every collective (explicit "
                 "work.wait(), torch.cuda.synchronize(), CUDA_DEVICE_MAX_CONNECTIONS=1).");
  }
  char title[192], t1[32];
  fmt_dur(t1, sizeof t1, d->comm_ns);
  snprintf(title, sizeof title,
           "Communication and computation do not overlap: %.1f%% of %s of communication runs beside compute",
           d->overlap_pct < 0 ? 0.0 : d->overlap_pct, t1);
  finding *x = findings_add(f, "comm-serialized", d->severity, rank, FSDPA_ABSENT, d->cost_ns, title,
                            det->p ? det->p : "", adv->p ? adv->p : "", evidence_json);
  add_ranges(c, x, d->ranges);
}

static void word_exposed(fsdpa_ctx *c, int64_t rank, findings *f, const exposed_decision *d,
                         const serialized_decision *sd, const workload *wl, const char *evidence_json,
                         sbuf *det, sbuf *adv) {
  det->len = 0;
  adv->len = 0;
  sb_printf(det,
            "%.3f ms of communication (%.1f%% of the %.3f ms GPU span) runs with no compute "
            "kernel beside it.",
            fmt_ms(d->cost_ns), d->share_pct, fmt_ms(d->span_ns));
  if (d->wait.groups)
    sb_printf(det,
              " Collectives of one type, process group and size move the same data: the fastest of each such "
              "group (%llu groups, %llu kernels) takes its transfer time, and what the others take beyond it "
              "is waiting for their peers (the longest is %.1fx its group's fastest): %.3f ms of the exposed "
              "time (%.1f%%) is waiting%s.",
              (unsigned long long)d->wait.groups, (unsigned long long)d->wait.kernels,
              (double)d->wait.worst_ratio_x100 / 100.0, fmt_ms(d->wait.exposed_wait_ns),
              d->cost_ns > 0 ? 100.0 * (double)d->wait.exposed_wait_ns / (double)d->cost_ns : 0.0,
              d->waiting ? ", not moving data: the ranks enter these collectives at different times" : "");
  if (sd)
    sb_printf(det,
              " %.3f ms of it could run under compute that ran at another time: communication and "
              "computation take turns (see comm-serialized).",
              fmt_ms(sd->hideable_ns));
  if (d->fs.units)
    sb_printf(det,
              " In %llu of %llu FSDP unit phases T_comm exceeds T_compute (sum of "
              "max(0, T_comm - T_compute) = %.3f ms)%s.",
              (unsigned long long)d->fs.comm_bound, (unsigned long long)d->fs.units,
              fmt_ms(d->fs.exposed_formula_ns),
              d->netbound ? ": the job is network-bound and more GPUs will not scale linearly" : "");
  for (size_t i = 0; i < d->nbw; i++)
    sb_printf(det, " %s: %llu kernels, %.3f ms exposed, bus bandwidth %.1f GB/s.", d->bw[i].name,
              (unsigned long long)d->bw[i].count, fmt_ms(d->bw[i].exposed_ns), d->bw[i].busbw_gbps);
  if (d->waiting) {
    sb_puts(adv, "Most of the exposed time is waiting for other ranks, not moving data: find the rank that is "
                 "late (fsdpa analyze over all the ranks' traces: straggler-rank names it and cross_rank gives "
                 "every collective's arrival skew) and why (uneven batches or sequence lengths, a slower host or "
                 "input pipeline on that rank, load imbalance between experts). Bucket sizes, overlap and "
                 "bandwidth tuning do not shorten a wait for a late rank.");
  } else if (d->netbound) {
    sb_printf(adv, "Communication takes longer than the compute it should hide under: reduce the bytes each "
                   "iteration moves (%s), give each GPU more work per byte (%s), and compare the achieved bus "
                   "bandwidth with what the fabric should deliver.",
              wl->labels & WL_FSDP_ANY ? "HSDP / hybrid sharding keeps all-gathers inside a node; a lower-precision "
                                         "param_dtype / reduce_dtype halves them"
                                       : "lower-precision communication, fewer or larger collectives",
              wl->mode == WM_TRAIN ? "larger micro-batch or sequence length" : "larger batch or sequence length");
  } else if (tp_only(wl)) {
    /* nothing to start earlier: each collective's result is the next layer's input */
    advice_early(wl, adv);
    if (wl->mode == WM_DECODE || wl->mode == WM_MIXED)
      sb_puts(adv, " In decode the messages are small and each all-reduce costs its latency, not its bytes: a "
                   "one-shot custom all-reduce (the serving engine's custom all-reduce, symmetric memory), "
                   "fusing the all-reduce with the norm after it, and capturing the step in a CUDA graph cut "
                   "that latency.");
  } else {
    sb_printf(adv, "Start collectives earlier so compute can hide them: avoid waits on the communication stream "
                   "and check that the first %s of each pass is not blocked behind other work.",
              wl->labels & WL_FSDP_ANY ? "all-gather" : "collective");
    advice_early(wl, adv);
  }
  char title[224], t1[32], t2[32], top[128] = "";
  fmt_dur(t1, sizeof t1, d->cost_ns);
  if (d->top.count) {
    fmt_dur(t2, sizeof t2, d->top.exposed_ns);
    snprintf(top, sizeof top, "; %s %s (%s)", d->top.exposed_ns * 2 > d->cost_ns ? "mostly" : "largest",
             d->top.name[0] ? d->top.name : "other", t2);
  }
  if (d->waiting) snprintf(top, sizeof top, "; mostly waiting for other ranks");
  snprintf(title, sizeof title, "Exposed communication: %s, %.1f%% of the GPU span and %.1f%% of the communication%s",
           t1, d->share_pct, d->comm_ns > 0 ? 100.0 * (double)d->cost_ns / (double)d->comm_ns : 0.0, top);
  finding *x = findings_add(f, "exposed-comm", d->severity, rank, FSDPA_ABSENT, d->cost_ns, title,
                            det->p ? det->p : "", adv->p ? adv->p : "", evidence_json);
  add_ranges(c, x, d->ranges);
}

fsdpa_status overlap_findings(fsdpa_ctx *c, int64_t rank, findings *f) {
  const store_views *v;
  ks_data d;
  fsdpa_status st = overlap_gather_trace(c, &v, &d);
  if (st) return st;
  ov_facts x;
  memset(&x, 0, sizeof x);
  overlap_fill(&d, &x.o);
  /* nothing to overlap: no communication, or no compute to hide it under;
   * and in a sampled trace most kernels were dropped, so communication
   * "not under compute" is what the filter left out */
  trace_sampling smp;
  trace_sampling_get(c, &smp);
  if (!d.nents || !d.ncomp || x.o.comm_ns <= 0 || smp.sampled) {
    ks_free(&d);
    if (smp.sampled && x.o.comm_ns > 0) {
      findings_not_judged(f, "exposed-comm", rank, SAMPLED_REASON, SAMPLED_WOULD);
      findings_not_judged(f, "comm-serialized", rank, SAMPLED_REASON, SAMPLED_WOULD);
    }
    return (fsdpa_status)f->failed;
  }
  fa_alloc *a = &c->alloc;
  split_acc *acc = NULL;
  sbuf ev, det, adv;
  sb_init(&ev, a);
  sb_init(&det, a);
  sb_init(&adv, a);
  workload wl;
  st = workload_build(c, &wl);
  if (!st) st = overlap_splits(c, &d, 0, &acc, &x.ncoll);
  x.by_coll = acc;
  if (!st) st = overlap_exposed(c, &d, &x.exposed);
  if (!st) st = overlap_wait(c, &d, &x.wait);
  if (!st) st = fm_summarize(c, &x.fs);
  if (st) goto done;
  facts_streams(v, &x);
  exposed_decision ed;
  decide_exposed(c, &x, &ed);
  serialized_decision sd;
  decide_serialized(c, &x, &ed, &wl, &sd);
  jsonw jw;
  if (sd.fires) {
    jw_init(&jw, &ev, 0);
    if ((st = evidence(c, &jw, &x, &sd, NULL))) goto done;
    if (ev.failed) {
      st = (fsdpa_status)ev.failed;
      goto done;
    }
    word_serialized(c, rank, f, &sd, &wl, ev.p, &det, &adv);
  }
  if (ed.fires) {
    ev.len = 0;
    jw_init(&jw, &ev, 0);
    if ((st = evidence(c, &jw, &x, &sd, &ed))) goto done;
    if (ev.failed) {
      st = (fsdpa_status)ev.failed;
      goto done;
    }
    word_exposed(c, rank, f, &ed, sd.fires ? &sd : NULL, &wl, ev.p, &det, &adv);
  }
  if (det.failed || adv.failed) st = (fsdpa_status)(det.failed ? det.failed : adv.failed);
done:
  sb_free(&ev);
  sb_free(&det);
  sb_free(&adv);
  overlap_ivs_free(c, &x.exposed);
  overlap_splits_free(c, &d, acc);
  ks_free(&d);
  return st;
}
