/* The FSDP room's public queries: the version, the per-unit totals (whole
 * trace or over a query window) and the backward schedule (summary, steps,
 * units of a step). */
#include "analysis/fsdp/fsdp_impl.h"
#include "util/abi.h"
#include "util/list.h"

/* ---- units ---- */

int fsdpa_fsdp_version(const fsdpa_ctx *c) { return c ? fm_version(c) : 0; }

fsdpa_status fsdpa_fsdp_unit_list(fsdpa_ctx *c, const fsdpa_query *q, fsdpa_list **out) {
  if (!c) return FSDPA_EINVAL;
  ctx_clear(c);
  if (!out) return ctx_fail(c, FSDPA_EINVAL, "fsdpa_fsdp_unit_list: NULL out");
  *out = NULL;
  qwin w;
  fsdpa_status st = ctx_resolve_query(c, q, &w);
  if (st) return st;
  fsdp_model m;
  st = fm_build(c, &m);
  if (st) return ctx_fail(c, st, "out of memory building the FSDP unit model");
  fm_total *all = NULL, *win = NULL;
  size_t n = 0;
  st = fm_totals(&m, -2, -2, &all, &n);
  /* the whole-trace entries decide which (unit, phase) are listed; a window
   * sums only its instances into them */
  if (!st && (w.t0 != INT64_MIN || w.t1 != INT64_MAX)) st = fsdp_units_in_window(&m, all, n, w.t0, w.t1, &win);
  if (!st) {
    list_build b;
    lb_init(&b, &c->alloc, FSDPA_LIST_FSDP_UNITS);
    for (size_t k = 0; k < n; k++) {
      if (!all[k].instances) continue;
      fsdpa_fsdp_unit u;
      fsdp_unit_public(&m, win ? &win[k] : &all[k], &u);
      lb_push(&b, &u);
    }
    st = lb_finish(&b, out);
  }
  if (st) ctx_fail(c, st, "out of memory summing the FSDP units");
  fa_free(m.a, win, win ? n * sizeof(fm_total) : 0);
  fa_free(m.a, all, all ? n * sizeof(fm_total) : 0);
  fm_free(&m);
  return st;
}

/* ---- backward ---- */

const char *fsdpa_backward_pattern_name(fsdpa_backward_pattern p) {
  switch (p) {
    case FSDPA_BWD_ZIGZAG: return "zigzag";
    case FSDPA_BWD_NO_PREFETCH: return "no_prefetch";
    case FSDPA_BWD_SERIALIZED: return "serialized";
    default: return "unknown";
  }
}

fsdpa_status fsdpa_backward_get(fsdpa_ctx *c, fsdpa_backward *out) {
  if (!c) return FSDPA_EINVAL;
  ctx_clear(c);
  if (!ABI_OK(fsdpa_backward, out)) return ctx_fail(c, FSDPA_EINVAL, "fsdpa_backward.size");
  bw_result r;
  fsdpa_status st = bw_analyze(c, &r);
  if (st) return ctx_fail(c, st, "out of memory analysing the backward pass");
  bw_agg *g;
  st = bw_aggregate(&r, &g);
  if (!st) {
    fsdpa_backward o;
    bw_summary(&r, g, &o);
    ABI_OUT(fsdpa_backward, out, &o);
  } else {
    ctx_fail(c, st, "out of memory analysing the backward pass");
  }
  fa_free(r.m.a, g, g ? r.m.nunits * sizeof(bw_agg) : 0);
  bw_free(&r);
  return st;
}

fsdpa_status fsdpa_backward_step_list(fsdpa_ctx *c, fsdpa_list **out) {
  if (!c) return FSDPA_EINVAL;
  ctx_clear(c);
  if (!out) return ctx_fail(c, FSDPA_EINVAL, "fsdpa_backward_step_list: NULL out");
  *out = NULL;
  bw_result r;
  fsdpa_status st = bw_analyze(c, &r);
  if (st) return ctx_fail(c, st, "out of memory analysing the backward pass");
  list_build b;
  lb_init(&b, &c->alloc, FSDPA_LIST_BACKWARD_STEPS);
  for (size_t i = 0; i < r.nsteps; i++) {
    fsdpa_backward_step s;
    bw_step_public(c, &r, &r.steps[i], &s);
    lb_push(&b, &s);
  }
  st = lb_finish(&b, out);
  bw_free(&r);
  return st ? ctx_fail(c, st, "out of memory") : FSDPA_OK;
}

fsdpa_status fsdpa_backward_unit_list(fsdpa_ctx *c, size_t step_i, fsdpa_list **out) {
  if (!c) return FSDPA_EINVAL;
  ctx_clear(c);
  if (!out) return ctx_fail(c, FSDPA_EINVAL, "fsdpa_backward_unit_list: NULL out");
  *out = NULL;
  bw_result r;
  fsdpa_status st = bw_analyze(c, &r);
  if (st) return ctx_fail(c, st, "out of memory analysing the backward pass");
  if (step_i >= r.nsteps) {
    st = ctx_fail(c, FSDPA_EINVAL, "backward step %zu out of range (%zu)", step_i, r.nsteps);
  } else {
    list_build b;
    lb_init(&b, &c->alloc, FSDPA_LIST_BACKWARD_UNITS);
    for (size_t j = 0; j < r.steps[step_i].nu; j++) {
      fsdpa_backward_unit u;
      bw_unit_public(c, &r, r.steps[step_i].u0 + j, (uint32_t)j, &u);
      lb_push(&b, &u);
    }
    st = lb_finish(&b, out);
    if (st) ctx_fail(c, st, "out of memory");
  }
  bw_free(&r);
  return st;
}
