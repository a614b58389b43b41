/* FSDP units: per unit and phase T_comm, T_compute and T_exposed over the
 * unit model (model/fsdp_model.h), whole-trace or over the instances of a
 * window. */
#include "analysis/fsdp/fsdp_impl.h"
#include <stdio.h>
#include <string.h>
#include "util/satmath.h"

fsdpa_status fsdp_units_in_window(const fsdp_model *m, const fm_total *all, size_t n, int64_t t0,
                                  int64_t t1, fm_total **out) {
  fm_total *win = fa_calloc(m->a, n * sizeof(fm_total));
  *out = win;
  if (!win) return fa_fail_status(m->a);
  for (size_t k = 0; k < n; k++) {
    win[k].unit = all[k].unit;
    win[k].phase = all[k].phase;
  }
  for (size_t j = 0; j < m->ninst; j++) {
    const fm_inst *in = &m->insts[j];
    if (in->anchor < t0 || in->anchor >= t1) continue;
    fm_total *x = &win[(size_t)in->phase * m->nunits + in->unit];
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
  return FSDPA_OK;
}

size_t fsdp_unit_name_len(const fsdp_model *m, uint32_t u, const char *shown) {
  const fm_unit *x = &m->units[u];
  return x->index >= 0 || !x->name_len ? strlen(shown) : x->name_len;
}

void fsdp_unit_public(const fsdp_model *m, const fm_total *x, fsdpa_fsdp_unit *o) {
  memset(o, 0, sizeof *o);
  o->size = sizeof *o;
  char nm[1024];
  fm_unit_name(m, x->unit, nm, sizeof nm);
  o->name_len = fsdp_unit_name_len(m, x->unit, nm);
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
