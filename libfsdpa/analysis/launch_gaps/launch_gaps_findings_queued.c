/* queued-idle-unexplained: in the steady state the GPU sat idle with work
 * already queued, and nothing in the trace accounts for the wait (the
 * dependency graph's unexplained idle: a stream wait on work not in the
 * trace, or a queued op behind nothing the trace shows).  Not the host's
 * fault, so not gpu-starvation; the finding says what the trace lacks, so
 * the user can record what would show it.  Per device, over the same
 * steady range as gpu-starvation; none on a sampled trace. */
#include "analysis/launch_gaps/launch_gaps.h"
#include "analysis/launch_gaps/launch_gaps_impl.h"
#include "util/fmt.h"
#include <stdio.h>
#include <string.h>

typedef struct queued {
  int fires, sev;
  int64_t device, step;
  int64_t judged_ns;   /* GPU window of the steady range on the device */
  dg_causes k;         /* its idle by cause */
  lg_top ranges;
  uint64_t sync_events, record_calls;  /* evidence the trace has for waits */
} queued;

static fsdpa_status queued_decide(fsdpa_ctx *c, const store_views *v, const lg_steady *y, int64_t device,
                                  queued *d) {
  memset(d, 0, sizeof *d);
  d->device = device;
  d->step = lg_steady_step(y);
  qwin q = {y->t0, y->t1, device, FSDPA_ABSENT};
  fsdpa_launch_gaps g;
  fsdpa_status st = lg_gaps(c, v, &q, &g, NULL);
  if (!st) st = lg_idle_causes(c, v, &q, &d->k);
  if (st) return st;
  d->judged_ns = g.gpu_window_ns;
  int64_t cost = d->k.unexplained_ns;
  /* below a warning's share it is the trace's ordinary blind spots, not a
   * finding */
  if (cost <= 0 || lg_sev_by_share(c, cost, d->judged_ns) == SEV_INFO || lg_too_cheap(c, v, cost)) return FSDPA_OK;
  d->fires = 1;
  d->sev = lg_sev_by_share(c, cost, d->judged_ns);
  for (int i = 0; i < d->k.nworst; i++) lg_top_add(&d->ranges, d->k.worst[i].s, d->k.worst[i].e, d->k.worst_ns[i]);
  depgraph gr;
  if ((st = dg_get(c, &gr))) return st;
  d->sync_events = c->st.gsync.len;
  d->record_calls = gr.ev.record_calls;
  dg_free(c, &gr);
  return FSDPA_OK;
}

static fsdpa_status queued_word(fsdpa_ctx *c, const lg_steady *y, int64_t rank, findings *f, const queued *d) {
  const dg_causes *k = &d->k;
  char scope[160], t_un[32], t_win[32], t_out[32], t_unk[32], t_gr[32], t_bl[32], t_ul[32];
  lg_fmt_scope(scope, sizeof scope, y);
  fmt_dur(t_un, sizeof t_un, k->unexplained_ns);
  fmt_dur(t_win, sizeof t_win, d->judged_ns);
  fmt_dur(t_out, sizeof t_out, k->outside_ns);
  fmt_dur(t_unk, sizeof t_unk, k->ns[DG_C_UNKNOWN]);
  fmt_dur(t_gr, sizeof t_gr, k->graph_ns);
  fmt_dur(t_bl, sizeof t_bl, k->blocked_ns);
  fmt_dur(t_ul, sizeof t_ul, k->unlinked_ns);
  double sh = lg_share(k->unexplained_ns, d->judged_ns);
  char title[320], detail[2600], missing[900] = "", more[900] = "";
  snprintf(title, sizeof title,
           "GPU idle with work queued: device %lld waited %.0f%% of the time for something the trace does not show",
           (long long)d->device, 100.0 * sh);
  /* what the trace lacks, from what it holds */
  size_t m = 0;
#define MISS(...) (m += (size_t)snprintf(missing + m, m < sizeof missing ? sizeof missing - m : 0, __VA_ARGS__))
  if (k->outside_ns > 0)
    MISS(" %s of it followed a stream wait whose awaited work is not in the trace (recorded before the profiling "
         "window, by a thread or process the trace does not hold, or only as Python frames).",
         t_out);
  if (!d->sync_events && !d->record_calls)
    MISS(" The trace holds no cuda_sync events and no event-record calls, so cross-stream waits cannot be placed.");
  if (k->graph_ns > 0)
    MISS(" %s of it came before work replayed by a CUDA/HIP graph launch: the graph's own dependencies (its "
         "event-wait and host nodes) are not in the trace.",
         t_gr);
  if (k->unlinked_ns > 0)
    MISS(" %s of it came before ops launched before the trace's runtime calls begin.", t_ul);
#undef MISS
  if (k->blocked_ns > 0)
    snprintf(more, sizeof more,
             " Meanwhile a CPU thread sat %s in blocking calls: waiting for that queued work, a consequence of the "
             "wait, not its cause.",
             t_bl);
  snprintf(detail, sizeof detail,
           "In %s device %lld had work queued but idle for %s of %s (%.1f%%): its launch had returned and every "
           "dependency the trace shows had been met, yet it did not start (waits on work not in the trace %s, "
           "queued behind nothing the trace shows %s). This is neither the host's launch rate nor a recorded "
           "stream or rank wait.%s%s",
           scope, (long long)d->device, t_un, t_win, 100.0 * sh, t_out, t_unk, missing, more);
  const char *advice =
      "Record what the trace lacks before tuning anything: profile several iterations with CUDA sync events "
      "(torch.profiler._ExperimentalConfig(enable_cuda_sync_events=True)) so every stream wait names its "
      "event's record; profile every thread and process that uses the GPU (another engine thread, a data "
      "worker, other ranks on the device) and, for graph replays, the captured region once without graphs. The "
      "GPU was not waiting for this trace's host, so launch-rate advice does not apply.";
  sbuf b;
  sb_init(&b, &c->alloc);
  jsonw w;
  jw_init(&w, &b, 0);
  jw_obj(&w);
  jw_ki64(&w, "device", d->device);
  jw_ki64(&w, "unexplained_ns", k->unexplained_ns);
  jw_ki64(&w, "outside_trace_ns", k->outside_ns);
  jw_ki64(&w, "unknown_ns", k->ns[DG_C_UNKNOWN]);
  jw_ki64(&w, "graph_replay_ns", k->graph_ns);
  jw_ki64(&w, "unlinked_ns", k->unlinked_ns);
  jw_ki64(&w, "host_blocked_meanwhile_ns", k->blocked_ns);
  jw_ki64(&w, "idle_ns", k->idle_ns);
  jw_ki64(&w, "judged_window_ns", d->judged_ns);
  jw_kratio(&w, "share", sh);
  jw_ku64(&w, "cuda_sync_events", d->sync_events);
  jw_ku64(&w, "event_record_calls", d->record_calls);
  dg_mods wi;
  memset(&wi, 0, sizeof wi);
  wi.t0 = y->t0;
  wi.t1 = y->t1;
  wi.unexplained_zero = 1;
  fsdpa_status sst = dg_saving_evidence(c, &wi, "queued work starts as soon as every dependency the trace shows allows",
                                        &w);
  if (sst) {
    sb_free(&b);
    return sst;
  }
  jw_obj_end(&w);
  fsdpa_status st = lg_add_finding(f, c, "queued-idle-unexplained", d->sev, rank, d->step, k->unexplained_ns, title,
                                   detail, advice, &b, &d->ranges);
  sb_free(&b);
  return st;
}

fsdpa_status lg_queued_findings(fsdpa_ctx *c, const store_views *v, const lg_steady *y, int64_t rank, findings *f) {
  fsdpa_status st = FSDPA_OK;
  for (size_t i = 0; i < v->nstreams && !st; i++) {
    if (i && v->streams[i].device == v->streams[i - 1].device) continue;
    queued d;
    st = queued_decide(c, v, y, v->streams[i].device, &d);
    if (!st && d.fires) st = queued_word(c, y, rank, f, &d);
  }
  return st;
}

fsdpa_status launch_gaps_queued_findings(fsdpa_ctx *c, int64_t rank, findings *f) {
  const store_views *v = ctx_views(c);
  if (!v) return fa_fail_status(&c->alloc);
  if (!v->nstreams) return FSDPA_OK;
  trace_sampling smp;
  trace_sampling_get(c, &smp);
  if (smp.sampled) return FSDPA_OK;
  lg_steady y;
  fsdpa_status st = lg_steady_get(c, &y);
  if (st) return st;
  st = lg_queued_findings(c, v, &y, rank, f);
  lg_steady_free(c, &y);
  return st;
}
