/* The report's fsdp.backward section and the backward-prefetch-missing
 * finding, over the schedule backward.c computes. */
#include "analysis/fsdp/fsdp.h"
#include "analysis/fsdp/fsdp_bwd.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "util/satmath.h"

/* ---- report ---- */

static void tristate(jsonw *w, const char *k, int v) {
  jw_key(w, k);
  if (v == PAT_NA) jw_null(w);
  else jw_bool(w, v == PAT_HOLDS);
}

static void span_obj(jsonw *w, const char *k, int64_t s, int64_t e, int64_t stream) {
  jw_key(w, k);
  if (s == FSDPA_ABSENT) {
    jw_null(w);
    return;
  }
  jw_obj(w);
  jw_ki64(w, "stream", stream);
  jw_ki64(w, "start_ns", s);
  jw_ki64(w, "end_ns", e);
  jw_obj_end(w);
}

fsdpa_status backward_json(fsdpa_ctx *c, jsonw *w) {
  bw_result r;
  fsdpa_status st = bw_analyze(c, &r);
  if (st) return st;
  if (!r.m.version) {
    jw_null(w);
    bw_free(&r);
    return FSDPA_OK;
  }
  bw_agg *g;
  st = bw_aggregate(&r, &g);
  if (st) {
    bw_free(&r);
    return st;
  }
  fsdpa_backward sum;
  bw_summary(&r, g, &sum);
  jw_obj(w);
  jw_kstr(w, "pattern", fsdpa_backward_pattern_name(sum.pattern));
  jw_ku64(w, "prefetched_units", sum.prefetched_units);
  jw_ku64(w, "units", sum.units);
  jw_ku64(w, "links", sum.links);
  jw_ku64(w, "broken_links", sum.broken_links);
  jw_ki64(w, "idle_ns", sum.idle_ns);
  jw_kstr(w, "rules", BW_PATTERN);
  jw_key(w, "unit_flags");
  jw_arr(w);
  for (size_t u = 0; u < r.m.nunits; u++) {
    if (!g[u].seen) continue;
    char nm[256];
    fm_unit_name(&r.m, (uint32_t)u, nm, sizeof nm);
    jw_obj(w);
    jw_kstr(w, "name", nm);
    tristate(w, "prefetched", g[u].prefetched);
    jw_ku64(w, "broken_steps", g[u].broken);
    jw_ki64(w, "idle_ns", g[u].idle);
    jw_obj_end(w);
  }
  jw_arr_end(w);
  jw_key(w, "steps");
  jw_arr(w);
  for (size_t k = 0; k < r.nsteps; k++) {
    fsdpa_backward_step o;
    bw_step_public(c, &r, &r.steps[k], &o);
    jw_obj(w);
    jw_ki64(w, "step", o.step);
    jw_kstr(w, "pattern", fsdpa_backward_pattern_name(o.pattern));
    jw_ku64(w, "units", o.units);
    jw_ku64(w, "links", o.links);
    jw_ku64(w, "prefetched_links", o.prefetched_links);
    jw_ku64(w, "rs_hidden_links", o.rs_hidden_links);
    jw_ki64(w, "idle_ns", o.idle_ns);
    jw_ki64(w, "start_ns", o.start_ns);
    jw_ki64(w, "end_ns", o.end_ns);
    jw_key(w, "overlap_pct");
    if (o.overlap_pct < 0) jw_null(w);
    else jw_f64(w, o.overlap_pct, 4);
    jw_obj_end(w);
  }
  jw_arr_end(w);
  /* one step's schedule in full (the second if there are several: the
   * first often carries warm-up) for viewers and the HTML Gantt */
  jw_key(w, "schedule");
  if (!r.nsteps) {
    jw_null(w);
  } else {
    size_t k = r.nsteps > 1 ? 1 : 0;
    const bw_step *bs = &r.steps[k];
    jw_obj(w);
    jw_ki64(w, "step", bw_step_number(&r.m, bs->step));
    jw_key(w, "units");
    jw_arr(w);
    for (size_t u = 0; u < bs->nu; u++) {
      fsdpa_backward_unit o;
      bw_unit_public(c, &r, bs->u0 + u, (uint32_t)u, &o);
      jw_obj(w);
      jw_kstr(w, "name", o.name);
      jw_ku64(w, "position", o.position);
      tristate(w, "prefetched", o.prefetched);
      tristate(w, "rs_hidden", o.rs_hidden);
      jw_ki64(w, "idle_ns", o.idle_ns);
      span_obj(w, "ag", o.ag_start_ns, o.ag_end_ns, o.ag_stream);
      span_obj(w, "compute", o.compute_start_ns, o.compute_end_ns, o.compute_stream);
      span_obj(w, "rs", o.rs_start_ns, o.rs_end_ns, o.rs_stream);
      jw_obj_end(w);
    }
    jw_arr_end(w);
    jw_obj_end(w);
  }
  jw_obj_end(w);
  fa_free(r.m.a, g, r.m.nunits * sizeof(bw_agg));
  bw_free(&r);
  return FSDPA_OK;
}

/* ---- finding ---- */

typedef struct idle_gap {
  iv gap;
  int64_t idle;
} idle_gap;

static int cmp_idle_desc(const void *pa, const void *pb) {
  const idle_gap *a = pa, *b = pb;
  if (a->idle != b->idle) return a->idle > b->idle ? -1 : 1;
  return a->gap.s < b->gap.s ? -1 : a->gap.s > b->gap.s;
}

fsdpa_status backward_findings(fsdpa_ctx *c, int64_t rank, findings *f) {
  bw_result r;
  fsdpa_status st = bw_analyze(c, &r);
  if (st) return st;
  fa_alloc *a = r.m.a;
  bw_agg *g = NULL;
  idle_gap *gaps = NULL;
  size_t ngaps = 0, gaps_cap = 0;
  int64_t cost = 0, bwd_ns = 0;
  uint64_t links = 0, nunits = 0, steps_hit = 0;
  sbuf ev, det, names;
  sb_init(&ev, a ? a : &c->alloc);
  sb_init(&det, a ? a : &c->alloc);
  sb_init(&names, a ? a : &c->alloc);
  if (!r.m.version || !r.nunits) goto done;
  st = bw_aggregate(&r, &g);
  if (st) goto done;
  int64_t thr = c->params[P_PREFETCH_MIN_IDLE_NS];
  for (size_t k = 0; k < r.nunits; k++)
    if (r.units[k].prefetched == PAT_BROKEN && r.units[k].idle >= thr) links++;
  if (!links) goto done;
  gaps = fa_malloc(a, links * sizeof(idle_gap));
  gaps_cap = gaps ? links : 0;
  if (!gaps) {
    st = fa_fail_status(a);
    goto done;
  }
  for (size_t s = 0; s < r.nsteps; s++) {
    int hit = 0;
    for (size_t k = r.steps[s].u0; k < r.steps[s].u0 + r.steps[s].nu; k++) {
      const bw_unit *bu = &r.units[k];
      if (bu->prefetched != PAT_BROKEN || bu->idle < thr) continue;
      cost = sat_add(cost, bu->idle);
      gaps[ngaps++] = (idle_gap){bu->gap, bu->idle};
      hit = 1;
    }
    steps_hit += hit;
    if (r.steps[s].e > r.steps[s].s) bwd_ns = sat_add(bwd_ns, r.steps[s].e - r.steps[s].s);
  }
  fsdpa_backward sum;
  bw_summary(&r, g, &sum);
  jsonw jw;
  jw_init(&jw, &ev, 0);
  jw_obj(&jw);
  jw_kstr(&jw, "pattern", fsdpa_backward_pattern_name(sum.pattern));
  jw_kstr(&jw, "rule", "AG[i+1] starts_before_end C[i] and AG[i+1] overlaps P[i+1]");
  jw_ku64(&jw, "steps", sum.steps);
  jw_ku64(&jw, "steps_affected", steps_hit);
  jw_ku64(&jw, "broken_links", links);
  jw_ki64(&jw, "idle_ns", cost);
  jw_ki64(&jw, "min_idle_ns", thr);
  jw_key(&jw, "units");
  jw_arr(&jw);
  for (size_t u = 0; u < r.m.nunits; u++) {
    if (g[u].prefetched != PAT_BROKEN || g[u].worst_idle < thr) continue;
    char nm[256];
    fm_unit_name(&r.m, (uint32_t)u, nm, sizeof nm);
    jw_obj(&jw);
    jw_kstr(&jw, "name", nm);
    jw_ku64(&jw, "broken_steps", g[u].broken);
    jw_ki64(&jw, "idle_ns", g[u].idle);
    jw_obj_end(&jw);
    if (nunits < 6) sb_printf(&names, "%s%s", nunits ? ", " : "", nm);
    nunits++;
  }
  jw_arr_end(&jw);
  jw_obj_end(&jw);
  if (nunits > 6) sb_printf(&names, ", ... (%llu units)", (unsigned long long)nunits);
  sb_printf(&det,
            "In %llu of %llu steps the backward pass is %s: the all-gather of %s starts only "
            "after the previous unit's compute (and reduce-scatter) finished, %llu times in "
            "all, so the compute stream idles %.3f ms waiting for parameters (%.1f us per "
            "broken link).",
            (unsigned long long)steps_hit, (unsigned long long)sum.steps,
            fsdpa_backward_pattern_name(sum.pattern), names.p ? names.p : "?",
            (unsigned long long)links, (double)cost / 1e6,
            (double)cost / 1e3 / (double)links);
  if (ev.failed || det.failed || names.failed) {
    st = (fsdpa_status)(ev.failed ? ev.failed : det.failed ? det.failed : names.failed);
    goto done;
  }
  int v1 = r.m.version == 1;
  finding *x = findings_add(
      f, "backward-prefetch-missing", cost >= bwd_ns / 10 + (bwd_ns % 10 != 0) ? SEV_CRITICAL : SEV_WARNING, /* >= 10%, no cost * 10 */
      rank, FSDPA_ABSENT, cost, "Backward prefetch missing: the zigzag is broken",
      det.p ? det.p : "",
      sum.pattern == FSDPA_BWD_SERIALIZED
          ? (v1 ? "Nothing runs beside anything in backward. Set "
                  "backward_prefetch=BackwardPrefetch.BACKWARD_PRE so the next unit's "
                  "all-gather is issued before this unit's gradients, and make sure "
                  "collectives run on their own stream (not synchronised with compute after "
                  "every call)."
                : "Nothing runs beside anything in backward. Keep FSDP2's collectives on "
                  "their own streams (not the compute stream) and prefetch the next unit "
                  "with module.set_modules_to_backward_prefetch([previous_module]).")
          : (v1 ? "Issue the next unit's all-gather before computing this unit's gradients: "
                  "FullyShardedDataParallel(..., "
                  "backward_prefetch=BackwardPrefetch.BACKWARD_PRE)."
                : "Prefetch the next unit in backward: FSDP2 prefetches one unit by default; "
                  "for explicit control call "
                  "layer.set_modules_to_backward_prefetch([previous_layer]) on each unit "
                  "(and keep reshard_after_forward / limits from blocking it)."),
      ev.p);
  if (x) {
    qsort(gaps, ngaps, sizeof *gaps, cmp_idle_desc);
    for (size_t i = 0; i < ngaps && i < FINDING_MAX_RANGES; i++)
      finding_add_range(x, ctx_abs(c, gaps[i].gap.s), ctx_abs(c, gaps[i].gap.e));
  }
done:
  sb_free(&ev);
  sb_free(&det);
  sb_free(&names);
  if (g) fa_free(a, g, r.m.nunits * sizeof(bw_agg));
  if (gaps) fa_free(a, gaps, gaps_cap * sizeof(idle_gap));
  bw_free(&r);
  return st;
}
