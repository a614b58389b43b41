/* The FSDP room's public queries: the version, the per-unit totals (whole
 * trace or over a query window) and the backward schedule (summary, steps,
 * units of a step). */
#include "analysis/fsdp/fsdp_impl.h"

/* ---- units ---- */

int fsdpa_fsdp_version(const fsdpa_ctx *c) { return c ? fm_version(c) : 0; }

size_t fsdpa_fsdp_unit_count(fsdpa_ctx *c) {
  if (!c) return 0;
  ctx_clear(c);
  fsdp_model m;
  if (fm_build(c, &m)) return 0;
  fm_total *t;
  size_t n, cnt = 0;
  if (!fm_totals(&m, -2, -2, &t, &n)) {
    cnt = fsdp_units_present(t, n);
    fa_free(m.a, t, n * sizeof(fm_total));
  }
  fm_free(&m);
  return cnt;
}

/* Entry i of the whole-trace list, summed over instances whose anchor lies
 * in [t0, t1). */
static fsdpa_status unit_query(fsdpa_ctx *c, int64_t t0, int64_t t1, size_t i, fsdpa_fsdp_unit *out) {
  fsdp_model m;
  fsdpa_status st = fm_build(c, &m);
  if (st) return ctx_fail(c, st, "out of memory building the FSDP unit model");
  fm_total *all = NULL, *win = NULL;
  size_t n = 0;
  st = fm_totals(&m, -2, -2, &all, &n);
  if (st) st = ctx_fail(c, st, "out of memory summing the FSDP units");
  int64_t k = st ? -1 : fsdp_units_nth(all, n, i);
  if (!st && k < 0) st = ctx_fail(c, FSDPA_EINVAL, "FSDP unit index %zu out of range", i);
  if (!st && (t0 != INT64_MIN || t1 != INT64_MAX)) {
    st = fsdp_units_in_window(&m, all, n, t0, t1, &win);
    if (st) st = ctx_fail(c, st, "out of memory");
    else fsdp_unit_public(&m, &win[k], out);
  } else if (!st) {
    fsdp_unit_public(&m, &all[k], out);
  }
  fa_free(m.a, win, win ? n * sizeof(fm_total) : 0);
  fa_free(m.a, all, n * sizeof(fm_total));
  fm_free(&m);
  return st;
}

fsdpa_status fsdpa_get_fsdp_unit(fsdpa_ctx *c, size_t i, fsdpa_fsdp_unit *out) {
  if (!c || !out || !ctx_struct_ok(out->size, sizeof *out)) return FSDPA_EINVAL;
  ctx_clear(c);
  return unit_query(c, INT64_MIN, INT64_MAX, i, out);
}

fsdpa_status fsdpa_query_fsdp_unit(fsdpa_ctx *c, const fsdpa_query *q, size_t i,
                                   fsdpa_fsdp_unit *out) {
  if (!c || !out || !ctx_struct_ok(out->size, sizeof *out)) return FSDPA_EINVAL;
  ctx_clear(c);
  qwin w;
  fsdpa_status st = ctx_resolve_query(c, q, &w);
  if (st) return st;
  return unit_query(c, w.t0, w.t1, i, out);
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

fsdpa_status fsdpa_query_backward(fsdpa_ctx *c, fsdpa_backward *out) {
  if (!c || !out || !ctx_struct_ok(out->size, sizeof *out)) return FSDPA_EINVAL;
  ctx_clear(c);
  bw_result r;
  fsdpa_status st = bw_analyze(c, &r);
  if (st) return ctx_fail(c, st, "out of memory analysing the backward pass");
  bw_agg *g;
  st = bw_aggregate(&r, &g);
  if (!st) bw_summary(&r, g, out);
  else ctx_fail(c, st, "out of memory analysing the backward pass");
  fa_free(r.m.a, g, g ? r.m.nunits * sizeof(bw_agg) : 0);
  bw_free(&r);
  return st;
}

size_t fsdpa_backward_step_count(fsdpa_ctx *c) {
  if (!c) return 0;
  ctx_clear(c);
  bw_result r;
  if (bw_analyze(c, &r)) return 0;
  size_t n = r.nsteps;
  bw_free(&r);
  return n;
}

fsdpa_status fsdpa_get_backward_step(fsdpa_ctx *c, size_t i, fsdpa_backward_step *out) {
  if (!c || !out || !ctx_struct_ok(out->size, sizeof *out)) return FSDPA_EINVAL;
  ctx_clear(c);
  bw_result r;
  fsdpa_status st = bw_analyze(c, &r);
  if (st) return ctx_fail(c, st, "out of memory analysing the backward pass");
  if (i >= r.nsteps) st = ctx_fail(c, FSDPA_EINVAL, "backward step %zu out of range (%zu)", i, r.nsteps);
  else bw_step_public(c, &r, &r.steps[i], out);
  bw_free(&r);
  return st;
}

fsdpa_status fsdpa_backward_unit_count(fsdpa_ctx *c, size_t step_i, size_t *n) {
  if (!c || !n) return FSDPA_EINVAL;
  ctx_clear(c);
  *n = 0;
  bw_result r;
  fsdpa_status st = bw_analyze(c, &r);
  if (st) return ctx_fail(c, st, "out of memory analysing the backward pass");
  if (step_i >= r.nsteps) st = ctx_fail(c, FSDPA_EINVAL, "backward step %zu out of range (%zu)", step_i, r.nsteps);
  else *n = r.steps[step_i].nu;
  bw_free(&r);
  return st;
}

fsdpa_status fsdpa_get_backward_unit(fsdpa_ctx *c, size_t step_i, size_t j, fsdpa_backward_unit *out) {
  if (!c || !out || !ctx_struct_ok(out->size, sizeof *out)) return FSDPA_EINVAL;
  ctx_clear(c);
  bw_result r;
  fsdpa_status st = bw_analyze(c, &r);
  if (st) return ctx_fail(c, st, "out of memory analysing the backward pass");
  if (step_i >= r.nsteps || j >= r.steps[step_i].nu)
    st = ctx_fail(c, FSDPA_EINVAL, "backward unit (%zu, %zu) out of range", step_i, j);
  else bw_unit_public(c, &r, r.steps[step_i].u0 + j, (uint32_t)j, out);
  bw_free(&r);
  return st;
}

