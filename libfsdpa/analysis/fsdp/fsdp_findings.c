/* The backward-prefetch-missing finding over the backward schedule
 * (fsdp_engine_backward.c): whether it fires and with which numbers
 * (decide_prefetch), its evidence, and its sentences (word_prefetch). */
#include "analysis/fsdp/fsdp_impl.h"
#include "model/workload.h"
#include <stdlib.h>
#include <string.h>
#include "util/satmath.h"

/* A broken link's compute gap and the idle it costs. */
typedef struct idle_gap {
  iv gap;
  int64_t idle;
} idle_gap;

typedef struct prefetch_decision {
  int fires, severity;
  int pattern;                 /* the rank's backward pattern (fsdpa_backward_pattern) */
  int fsdp1;                   /* FSDP1's advice, else FSDP2's */
  int64_t cost_ns;             /* Σ compute idle of the broken links counted */
  int64_t min_idle_ns;         /* a broken link counts from this idle on */
  uint64_t steps, steps_hit, links;
  idle_gap *gaps;              /* the links counted, worst first */
  size_t ngaps, gaps_cap;
  uint32_t *units;             /* units with such a link, in unit order */
  size_t nunits;
} prefetch_decision;

static int cmp_idle_desc(const void *pa, const void *pb) {
  const idle_gap *a = pa, *b = pb;
  if (a->idle != b->idle) return a->idle > b->idle ? -1 : 1;
  return a->gap.s < b->gap.s ? -1 : a->gap.s > b->gap.s;
}

static void decision_free(fa_alloc *a, prefetch_decision *d) {
  if (d->gaps) fa_free(a, d->gaps, d->gaps_cap * sizeof(idle_gap));
  if (d->units) fa_free(a, d->units, d->nunits * sizeof(uint32_t));
  memset(d, 0, sizeof *d);
}

/* ---- decision ---- */

static fsdpa_status decide_prefetch(const fsdpa_ctx *c, const bw_result *r, const bw_agg *g,
                                    prefetch_decision *d) {
  fa_alloc *a = r->m.a;
  memset(d, 0, sizeof *d);
  int64_t thr = c->params[P_PREFETCH_MIN_IDLE_NS];
  uint64_t links = 0;
  for (size_t k = 0; k < r->nunits; k++)
    if (r->units[k].prefetched == PAT_BROKEN && r->units[k].idle >= thr) links++;
  if (!links) return FSDPA_OK;
  size_t nunits = 0;
  for (size_t u = 0; u < r->m.nunits; u++)
    nunits += g[u].prefetched == PAT_BROKEN && g[u].worst_idle >= thr;
  d->gaps = fa_malloc(a, links * sizeof(idle_gap));
  d->gaps_cap = d->gaps ? links : 0;
  if (!d->gaps) return fa_fail_status(a);
  if (nunits) {
    d->units = fa_malloc(a, nunits * sizeof(uint32_t));
    if (!d->units) return fa_fail_status(a);
    for (size_t u = 0; u < r->m.nunits; u++)
      if (g[u].prefetched == PAT_BROKEN && g[u].worst_idle >= thr) d->units[d->nunits++] = (uint32_t)u;
  }
  int64_t bwd_ns = 0;
  for (size_t s = 0; s < r->nsteps; s++) {
    int hit = 0;
    for (size_t k = r->steps[s].u0; k < r->steps[s].u0 + r->steps[s].nu; k++) {
      const bw_unit *bu = &r->units[k];
      if (bu->prefetched != PAT_BROKEN || bu->idle < thr) continue;
      d->cost_ns = sat_add(d->cost_ns, bu->idle);
      d->gaps[d->ngaps++] = (idle_gap){bu->gap, bu->idle};
      hit = 1;
    }
    d->steps_hit += hit;
    if (r->steps[s].e > r->steps[s].s) bwd_ns = sat_add(bwd_ns, r->steps[s].e - r->steps[s].s);
  }
  qsort(d->gaps, d->ngaps, sizeof *d->gaps, cmp_idle_desc);
  fsdpa_backward sum;
  bw_summary(r, g, &sum);
  d->fires = 1;
  /* >= 10% of the backward time, without computing cost * 10 */
  d->severity = d->cost_ns >= bwd_ns / 10 + (bwd_ns % 10 != 0) ? SEV_CRITICAL : SEV_WARNING;
  d->pattern = sum.pattern;
  d->fsdp1 = r->m.version == 1;
  d->min_idle_ns = thr;
  d->steps = sum.steps;
  d->links = links;
  return FSDPA_OK;
}

/* ---- evidence and wording ---- */

static void evidence(jsonw *w, const bw_result *r, const bw_agg *g, const prefetch_decision *d) {
  jw_obj(w);
  jw_kstr(w, "pattern", fsdpa_backward_pattern_name((fsdpa_backward_pattern)d->pattern));
  jw_kstr(w, "rule", "AG[i+1] starts_before_end C[i] and AG[i+1] overlaps P[i+1]");
  jw_ku64(w, "steps", d->steps);
  jw_ku64(w, "steps_affected", d->steps_hit);
  jw_ku64(w, "broken_links", d->links);
  jw_ki64(w, "idle_ns", d->cost_ns);
  jw_ki64(w, "min_idle_ns", d->min_idle_ns);
  jw_key(w, "units");
  jw_arr(w);
  for (size_t i = 0; i < d->nunits; i++) {
    uint32_t u = d->units[i];
    char nm[256];
    fm_unit_name(&r->m, u, nm, sizeof nm);
    jw_obj(w);
    jw_kstr(w, "name", nm);
    jw_ku64(w, "broken_steps", g[u].broken);
    jw_ki64(w, "idle_ns", g[u].idle);
    jw_obj_end(w);
  }
  jw_arr_end(w);
  jw_obj_end(w);
}

/* Adds the finding unless a text could not be built (that failure is returned). */
static fsdpa_status word_prefetch(fsdpa_ctx *c, int64_t rank, findings *f, const bw_result *r,
                                  const prefetch_decision *d, const sbuf *ev, sbuf *det,
                                  sbuf *names) {
  for (size_t i = 0; i < d->nunits && i < 6; i++) {
    char nm[256];
    fm_unit_name(&r->m, d->units[i], nm, sizeof nm);
    sb_printf(names, "%s%s", i ? ", " : "", nm);
  }
  if (d->nunits > 6) sb_printf(names, ", ... (%llu units)", (unsigned long long)d->nunits);
  const char *pattern = fsdpa_backward_pattern_name((fsdpa_backward_pattern)d->pattern);
  sb_printf(det,
            "In %llu of %llu steps the backward pass is %s: the all-gather of %s starts only "
            "after the previous unit's compute (and reduce-scatter) finished, %llu times in "
            "all, so the compute stream idles %.3f ms waiting for parameters (%.1f us per "
            "broken link).",
            (unsigned long long)d->steps_hit, (unsigned long long)d->steps, pattern,
            names->p ? names->p : "?", (unsigned long long)d->links, (double)d->cost_ns / 1e6,
            (double)d->cost_ns / 1e3 / (double)d->links);
  if (ev->failed || det->failed || names->failed)
    return (fsdpa_status)(ev->failed ? ev->failed : det->failed ? det->failed : names->failed);
  /* FSDP1 or FSDP2 wording from the workload's evidence when it names one
   * version only; else from the units the model found */
  workload wl;
  fsdpa_status st = workload_build(c, &wl);
  if (st) return st;
  uint32_t v1 = wl.labels & (1u << WL_FSDP1), v2 = wl.labels & (1u << WL_FSDP2);
  int fsdp1 = v1 && !v2 ? 1 : v2 && !v1 ? 0 : d->fsdp1;
  const char *advice =
      d->pattern == FSDPA_BWD_SERIALIZED
          ? (fsdp1 ? "Nothing runs beside anything in backward. Set "
                        "backward_prefetch=BackwardPrefetch.BACKWARD_PRE so the next unit's "
                        "all-gather is issued before this unit's gradients, and make sure "
                        "collectives run on their own stream (not synchronised with compute after "
                        "every call)."
                      : "Nothing runs beside anything in backward. Keep FSDP2's collectives on "
                        "their own streams (not the compute stream) and prefetch the next unit "
                        "with module.set_modules_to_backward_prefetch([previous_module]).")
          : (fsdp1 ? "Issue the next unit's all-gather before computing this unit's gradients: "
                        "FullyShardedDataParallel(..., "
                        "backward_prefetch=BackwardPrefetch.BACKWARD_PRE)."
                      : "Prefetch the next unit in backward: FSDP2 prefetches one unit by default; "
                        "for explicit control call "
                        "layer.set_modules_to_backward_prefetch([previous_layer]) on each unit "
                        "(and keep reshard_after_forward / limits from blocking it).");
  finding *x = findings_add(f, "backward-prefetch-missing", d->severity, rank, FSDPA_ABSENT,
                            d->cost_ns, "Backward prefetch missing: the zigzag is broken",
                            det->p ? det->p : "", advice, ev->p);
  /* every broken link, worst first: the report lists the first few, annotate
   * marks them all */
  if (x)
    for (size_t i = 0; i < d->ngaps; i++)
      finding_add_range(x, ctx_abs(c, d->gaps[i].gap.s), ctx_abs(c, d->gaps[i].gap.e));
  return FSDPA_OK;
}

fsdpa_status backward_findings(fsdpa_ctx *c, int64_t rank, findings *f) {
  bw_result r;
  fsdpa_status st = bw_analyze(c, &r);
  if (st) return st;
  fa_alloc *a = r.m.a;
  bw_agg *g = NULL;
  prefetch_decision d;
  memset(&d, 0, sizeof d);
  sbuf ev, det, names;
  sb_init(&ev, a ? a : &c->alloc);
  sb_init(&det, a ? a : &c->alloc);
  sb_init(&names, a ? a : &c->alloc);
  if (!r.m.version) goto done;
  /* FSDP runs, but the backward schedule cannot be judged without two
   * units in it */
  if (!r.nunits || r.pattern == FSDPA_BWD_UNKNOWN) {
    findings_not_judged(f, "backward-prefetch-missing", rank,
                        "fewer than two FSDP units ran in the backward pass of the trace",
                        "a trace of whole training steps, forward and backward, with at least two FSDP-wrapped "
                        "units");
    st = (fsdpa_status)f->failed;
    goto done;
  }
  st = bw_aggregate(&r, &g);
  if (!st) st = decide_prefetch(c, &r, g, &d);
  if (st || !d.fires) goto done;
  jsonw jw;
  jw_init(&jw, &ev, 0);
  evidence(&jw, &r, g, &d);
  st = word_prefetch(c, rank, f, &r, &d, &ev, &det, &names);
done:
  sb_free(&ev);
  sb_free(&det);
  sb_free(&names);
  decision_free(a, &d);
  if (g) fa_free(a, g, r.m.nunits * sizeof(bw_agg));
  bw_free(&r);
  return st;
}
