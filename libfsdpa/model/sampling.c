#include "model/sampling.h"
#include "util/satmath.h"
#include <string.h>

/* Kineto numbers runtime calls with consecutive correlation ids (other
 * activities share the counter: in complete traces the ids span 1-40 times
 * the calls recorded).  A trace whose ids span far more was sampled (a
 * trace filter kept a fraction of the events): most launches and their
 * GPU ops were dropped, so the gaps between the GPU ops kept are not idle. */
void trace_sampling_get(const fsdpa_ctx *c, trace_sampling *o) {
  memset(o, 0, sizeof *o);
  int64_t lo = INT64_MAX, hi = INT64_MIN;
  for (size_t i = 0; i < c->st.rt.len; i++) {
    const ev_rec *r = STORE_REC(&c->st.rt, i);
    if (r->corr == FSDPA_ABSENT) continue;
    o->calls++;
    if (r->corr < lo) lo = r->corr;
    if (r->corr > hi) hi = r->corr;
  }
  o->max_ratio = c->params[P_LAUNCH_SAMPLED_CORR_RATIO];
  if (!o->calls) return;
  o->corr_span = sat_add(sat_sub(hi, lo), 1); /* ids are not bounded */
  o->sampled = o->calls >= 2 && o->max_ratio > 0 &&
               (double)o->corr_span > (double)o->max_ratio * (double)o->calls;
}
