/* FSDP units (issue 4): per unit and phase T_comm, T_compute and T_exposed
 * over the unit model (fsdp_model.h), as public queries and as the report's
 * fsdp.version / fsdp.units. */
#include "analysis/fsdp/fsdp.h"
#include "model/fsdp_model.h"
#include <stdio.h>
#include <string.h>
#include "util/satmath.h"

int fsdpa_fsdp_version(const fsdpa_ctx *c) { return c ? fm_version(c) : 0; }

const char *fsdp_version_name(fsdpa_ctx *c) {
  switch (fm_version(c)) {
    case 2: return "fsdp2";
    case 1: return "fsdp1";
    default: return NULL;
  }
}

/* Index of the i-th present (unit, phase) entry in the totals array. */
static int64_t nth_present(const fm_total *t, size_t n, size_t i) {
  for (size_t k = 0; k < n; k++)
    if (t[k].instances && i-- == 0) return (int64_t)k;
  return -1;
}

static void to_public(const fsdp_model *m, const fm_total *x, fsdpa_fsdp_unit *o) {
  memset(o, 0, sizeof *o);
  o->size = sizeof *o;
  char nm[1024];
  fm_unit_name(m, x->unit, nm, sizeof nm);
  const fm_unit *u = &m->units[x->unit];
  o->name_len = u->index >= 0 || !u->name_len ? strlen(nm) : u->name_len;
  snprintf(o->name, sizeof o->name, "%.*s", (int)sizeof o->name - 1, nm); /* truncation intended */
  o->phase = x->phase == FM_BWD ? FSDPA_PHASE_BACKWARD : FSDPA_PHASE_FORWARD;
  o->instances = x->instances;
  o->comm_ns = x->comm_ns;
  o->compute_ns = x->compute_ns;
  o->exposed_ns = x->comm_ns > x->compute_ns ? x->comm_ns - x->compute_ns : 0;
  o->exposed_sum_ns = x->exposed_sum_ns;
  o->exposed_measured_ns = x->exposed_measured_ns;
  o->allgather_ns = x->ag_ns;
  o->reducescatter_ns = x->rs_ns;
  o->comm_kernels = x->comm_kernels;
  o->compute_kernels = x->compute_kernels;
}

size_t fsdpa_fsdp_unit_count(fsdpa_ctx *c) {
  if (!c) return 0;
  ctx_clear(c);
  fsdp_model m;
  if (fm_build(c, &m)) return 0;
  fm_total *t;
  size_t n, cnt = 0;
  if (!fm_totals(&m, -2, -2, &t, &n)) {
    for (size_t k = 0; k < n; k++) cnt += t[k].instances > 0;
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
  int64_t k = st ? -1 : nth_present(all, n, i);
  if (!st && k < 0) st = ctx_fail(c, FSDPA_EINVAL, "FSDP unit index %zu out of range", i);
  if (!st && (t0 != INT64_MIN || t1 != INT64_MAX)) {
    /* totals over the instances in the window: same layout as `all` */
    win = fa_calloc(m.a, n * sizeof(fm_total));
    if (!win) st = ctx_fail(c, fa_fail_status(m.a), "out of memory");
    for (size_t j = 0; !st && j < m.ninst; j++) {
      const fm_inst *in = &m.insts[j];
      if (in->anchor < t0 || in->anchor >= t1) continue;
      fm_total *x = &win[(size_t)in->phase * m.nunits + in->unit];
      x->instances++;
      x->comm_ns = sat_add(x->comm_ns, in->comm_ns);
      x->compute_ns = sat_add(x->compute_ns, in->compute_ns);
      x->exposed_sum_ns = sat_add(x->exposed_sum_ns, in->comm_ns > in->compute_ns ? in->comm_ns - in->compute_ns : 0);
      x->exposed_measured_ns = sat_add(x->exposed_measured_ns, in->exposed_measured_ns);
      x->ag_ns = sat_add(x->ag_ns, in->ag_ns);
      x->rs_ns = sat_add(x->rs_ns, in->rs_ns);
      x->comm_kernels += in->p[FM_COMPUTE] - in->p[FM_AG];
      x->compute_kernels += in->p[FM__KINDS] - in->p[FM_COMPUTE];
    }
    if (!st) {
      win[k].unit = all[k].unit;
      win[k].phase = all[k].phase;
      to_public(&m, &win[k], out);
    }
  } else if (!st) {
    to_public(&m, &all[k], out);
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
    to_public(&m, &t[k], &o);
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
