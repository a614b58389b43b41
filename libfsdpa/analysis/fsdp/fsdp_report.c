/* The report's ranks[].fsdp sections: the version, the per-unit totals
 * (units) and the backward schedule (backward). */
#include "analysis/fsdp/fsdp_impl.h"

const char *fsdp_version_name(fsdpa_ctx *c) {
  switch (fm_version(c)) {
    case 2: return "fsdp2";
    case 1: return "fsdp1";
    default: return NULL;
  }
}

/* ---- units ---- */

fsdpa_status fsdp_units_json(fsdpa_ctx *c, jsonw *w) {
  fsdp_model m;
  fsdpa_status st = fm_build(c, &m);
  if (st) return st;
  if (!m.version) {
    jw_null(w);
    fm_free(&m);
    return FSDPA_OK;
  }
  fm_total *t;
  size_t n;
  st = fm_totals(&m, -2, -2, &t, &n);
  if (st) {
    fm_free(&m);
    return st;
  }
  jw_arr(w);
  for (size_t k = 0; k < n; k++) {
    if (!t[k].instances) continue;
    fsdpa_fsdp_unit o;
    fsdp_unit_public(&m, &t[k], &o);
    jw_obj(w);
    jw_kstr(w, "name", o.name);
    jw_kstr(w, "phase", o.phase == FSDPA_PHASE_BACKWARD ? "backward" : "forward");
    jw_ki64(w, "comm_ns", o.comm_ns);
    jw_ki64(w, "compute_ns", o.compute_ns);
    jw_ki64(w, "exposed_ns", o.exposed_ns);
    jw_ki64(w, "exposed_sum_of_steps_ns", o.exposed_sum_ns);
    jw_ki64(w, "exposed_measured_ns", o.exposed_measured_ns);
    jw_ki64(w, "allgather_ns", o.allgather_ns);
    jw_ki64(w, "reducescatter_ns", o.reducescatter_ns);
    jw_ku64(w, "steps", o.instances);
    jw_obj_end(w);
  }
  jw_arr_end(w);
  fa_free(m.a, t, n * sizeof(fm_total));
  fm_free(&m);
  return FSDPA_OK;
}

/* ---- backward ---- */

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
