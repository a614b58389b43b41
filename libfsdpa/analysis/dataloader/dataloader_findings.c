/* dataloader-stall: the GPU idles while the batch is being fetched on the
 * CPU.  Decided from the engine's numbers, then worded; the advice follows
 * the workload (training input pipeline or inference preprocessing). */
#include "analysis/dataloader/dataloader.h"
#include "analysis/dataloader/dataloader_impl.h"
#include "util/sort.h"
#include "model/depgraph.h"
#include "model/dataloader_calls.h"
#include "model/workload.h"
#include "util/fmt.h"
#include <stdio.h>

typedef struct stall {
  int fires, severity;
  double of_idle, of_window;  /* shares of the cost */
} stall;

/* Whether it fires is dl_idle_get's stall (the thresholds dataloader.*);
 * the severity is the room's. */
static void stall_decide(const fsdpa_ctx *c, const dl_result *r, stall *d) {
  d->fires = 0;
  if (!r->stall || !r->idle_ns || !r->window_ns) return;
  d->of_idle = (double)r->cost_ns / (double)r->idle_ns;
  d->of_window = (double)r->cost_ns / (double)r->window_ns;
  /* shares are ratios (times stay integers); ppm like the thresholds */
  int64_t ppm = (int64_t)(1e6 * d->of_window);
  d->fires = 1;
  d->severity = ppm >= c->params[P_SEVERITY_CRITICAL_PPM] ? SEV_CRITICAL
                : ppm >= c->params[P_SEVERITY_WARNING_PPM] ? SEV_WARNING
                                                             : SEV_INFO;
}

/* a call and the idle inside it, for the ranges past the report's few */
typedef struct dl_at {
  int64_t idle, s, e;
} dl_at;
#define DL_LESS(x, y) ((x)->idle != (y)->idle ? (x)->idle > (y)->idle : (x)->s != (y)->s ? (x)->s < (y)->s : (x)->e < (y)->e)
FA_SORT_DEFINE(dl_sort, dl_at, DL_LESS)

/* Every other __next__ with GPU idle inside it, most idle first, after the
 * report's (r->top): annotate marks them all. */
static fsdpa_status add_other_calls(fsdpa_ctx *c, const dl_result *r, finding *x) {
  const dl_calls *dc;
  const dl_idle *di;
  fsdpa_status st = dl_calls_get(c, &dc);
  if (!st) st = dl_idle_get(c, &di);
  if (st) return st;
  size_t n = dc->n < di->n ? dc->n : di->n, m = 0;
  if (!n) return FSDPA_OK;
  dl_at *v = fa_malloc(&c->alloc, n * sizeof *v);
  if (!v) return fa_fail_status(&c->alloc);
  for (size_t k = 0; k < n; k++) {
    if (di->call_idle[k] <= 0) continue;
    int top = 0;
    for (int i = 0; i < r->ntop && !top; i++) top = r->top[i].s == dc->calls[k].s && r->top[i].e == dc->calls[k].e;
    if (!top) v[m++] = (dl_at){di->call_idle[k], dc->calls[k].s, dc->calls[k].e};
  }
  dl_sort(v, m);
  for (size_t k = 0; k < m; k++) finding_add_range(x, ctx_abs(c, v[k].s), ctx_abs(c, v[k].e));
  fa_free(&c->alloc, v, n * sizeof *v);
  return FSDPA_OK;
}

static fsdpa_status stall_word(fsdpa_ctx *c, const dl_result *r, const stall *d, int64_t rank, findings *f) {
  workload wl;
  fsdpa_status st = workload_build(c, &wl);
  if (st) return st;
  char title[200], detail[900], t1[32], t2[32], t3[32];
  fmt_dur(t1, sizeof t1, r->cost_ns);
  fmt_dur(t2, sizeof t2, r->idle_ns);
  fmt_dur(t3, sizeof t3, r->total_ns);
  snprintf(title, sizeof title, "GPU waits for the DataLoader: %s idle (%.1f%% of the GPU time) inside __next__",
           t1, 100.0 * d->of_window);
  snprintf(detail, sizeof detail,
           "%s of the %s of GPU idle time%s (%.1f%%) falls inside the %llu DataLoader __next__ call%s "
           "(%s in all): the thread that launches the GPU work is fetching and preparing the next batch "
           "while the GPU has nothing to do.",
           t1, t2, r->window == DL_AFTER_FIRST_ITERATION ? " after the first iteration" : "", 100.0 * d->of_idle,
           (unsigned long long)r->calls, r->calls == 1 ? "" : "s", t3);
  const char *advice =
      wl.mode == WM_TRAIN
          ? "Load and augment batches in worker processes: DataLoader(num_workers=N>0, pin_memory=True, "
            "persistent_workers=True, prefetch_factor=2 or more), and copy them with "
            ".to(device, non_blocking=True); move heavy augmentation to the GPU or precompute it. "
            "Look at the ranges below: each is one __next__ with the GPU idle inside it."
          : "Prepare inputs off the thread that launches the model: a DataLoader with num_workers>0 (and "
            "pin_memory=True), preprocessing on the GPU, or a pipeline that prepares the next batch while the "
            "model runs. Look at the ranges below: each is one __next__ with the GPU idle inside it.";
  sbuf ev;
  sb_init(&ev, &c->alloc);
  jsonw w;
  jw_init(&w, &ev, 0);
  jw_obj(&w);
  jw_ku64(&w, "calls", r->calls);
  jw_ki64(&w, "total_ns", r->total_ns);
  jw_ki64(&w, "idle_ns", r->idle_ns);
  jw_ki64(&w, "idle_in_dataloader_ns", r->cost_ns);
  jw_ki64(&w, "window_ns", r->window_ns);
  jw_kstr(&w, "window", r->window == DL_AFTER_FIRST_ITERATION ? "after_first_iteration" : "whole_trace");
  jw_kstr(&w, "mode", wl_mode_name(wl.mode));
  {
    /* the __next__ ranges cut from their threads, over the judged window */
    const dl_calls *dl;
    dg_cuts k;
    dg_mods m;
    memset(&m, 0, sizeof m);
    m.t0 = r->t0;
    m.t1 = r->t1;
    if (!(st = dl_calls_get(c, &dl)) && !(st = dg_cuts_build(c, dl->track, dl->calls, dl->n, m.t0, m.t1, &k))) {
      m.cut = k.cut;
      m.cut_track = k.track;
      m.ncut = k.n;
      st = dg_saving_evidence(c, &m, "the DataLoader __next__ ranges are cut from their threads", &w);
      dg_cuts_free(c, &k);
    }
    if (st) {
      sb_free(&ev);
      return st;
    }
  }
  jw_obj_end(&w);
  if (ev.failed) {
    st = (fsdpa_status)ev.failed;
    sb_free(&ev);
    return st;
  }
  finding *x = findings_add(f, "dataloader-stall", d->severity, rank, FSDPA_ABSENT, r->cost_ns, title, detail,
                            advice, ev.p);
  sb_free(&ev);
  if (!x) return f->failed ? (fsdpa_status)f->failed : fa_fail_status(&c->alloc);
  for (int i = 0; i < r->ntop; i++) finding_add_range(x, ctx_abs(c, r->top[i].s), ctx_abs(c, r->top[i].e));
  return add_other_calls(c, r, x);
}

fsdpa_status dataloader_findings(fsdpa_ctx *c, int64_t rank, findings *f) {
  dl_result r;
  fsdpa_status st = dl_compute(c, &r);
  if (st) return st;
  stall d;
  stall_decide(c, &r, &d);
  return d.fires ? stall_word(c, &r, &d, rank, f) : FSDPA_OK;
}
