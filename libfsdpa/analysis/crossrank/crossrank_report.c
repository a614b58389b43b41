/* The cross_rank section of the report (docs/report-contract): the
 * alignment, the transfer/wait split per rank, per step and per collective
 * type, and the straggler when the rule picked one. */
#include "analysis/crossrank/crossrank_impl.h"

void crossrank_json(const xr_result *r, jsonw *w) {
  if (!r || r->nranks < 2 || (!r->groups && !r->unsync)) {
    jw_null(w);
    return;
  }
  jw_obj(w);
  jw_ku64(w, "ranks", r->nranks);
  jw_ki64(w, "reference_rank", r->r[r->ref_idx].rank);
  jw_kstr(w, "matched_by", r->by_seq && r->by_ordinal ? "seq+ordinal" : r->by_seq ? "seq" : "ordinal");
  jw_ku64(w, "collectives", r->groups);
  jw_ku64(w, "unmatched", r->unmatched);
  jw_ku64(w, "unaligned", r->unaligned);
  jw_ku64(w, "unsynchronized", r->unsync);
  jw_ki64(w, "transfer_ns", r->groups ? r->transfer : FSDPA_ABSENT);
  jw_ki64(w, "wait_ns", r->groups ? r->wait : FSDPA_ABSENT);
  jw_ki64(w, "end_spread_p50_ns", r->spread_p50);
  jw_ki64(w, "end_spread_max_ns", r->spread_max);
  /* what the figures rest on, in collectives (identities) rather than kernels */
  jw_ku64(w, "collectives_seen", r->seen);
  jw_ku64(w, "collectives_matched", r->matched);
  jw_key(w, "left_out");
  jw_obj(w);
  jw_ku64(w, "unmatched", r->lone_seq);
  jw_ku64(w, "no_seq", r->lone_noseq);
  jw_ku64(w, "clipped", r->lone_clipped);
  jw_ku64(w, "unaligned", r->unaligned_groups);
  jw_ku64(w, "unsynchronized", r->unsync);
  jw_obj_end(w);
  jw_key(w, "per_rank");
  jw_arr(w);
  for (size_t i = 0; i < r->nranks; i++) {
    const xr_rank_res *x = &r->r[i];
    jw_obj(w);
    jw_ki64(w, "rank", x->rank);
    jw_ki64(w, "clock_offset_ns", x->offset);
    jw_ku64(w, "collectives", x->colls);
    jw_ki64(w, "transfer_ns", x->colls ? x->transfer : FSDPA_ABSENT);
    jw_ki64(w, "wait_ns", x->colls ? x->wait : FSDPA_ABSENT);
    jw_kratio(w, "wait_share", x->transfer + x->wait > 0
                                   ? (double)x->wait / (double)(x->transfer + x->wait) : -1.0);
    jw_ku64(w, "last_count", x->last_count);
    jw_ku64(w, "late_steps", x->late_steps);
    jw_ki64(w, "mean_delay_ns", xr_mean_delay(x));
    jw_ki64(w, "max_delay_ns", x->late_steps ? x->delay_max : FSDPA_ABSENT);
    jw_ki64(w, "lost_ns", x->lost);
    jw_obj_end(w);
  }
  jw_arr_end(w);
  jw_key(w, "steps");
  jw_arr(w);
  for (size_t i = 0; i < r->nsteps; i++) {
    const xr_step_res *s = &r->s[i];
    jw_obj(w);
    jw_ki64(w, "step", s->step);
    jw_ku64(w, "collectives", s->colls);
    jw_ki64(w, "transfer_ns", s->transfer);
    jw_ki64(w, "wait_ns", s->wait);
    jw_ki64(w, "max_skew_ns", s->max_skew);
    jw_ki64(w, "last_rank", s->last_idx >= 0 ? r->r[s->last_idx].rank : FSDPA_ABSENT);
    jw_ki64(w, "last_delay_ns", s->last_delay);
    jw_obj_end(w);
  }
  jw_arr_end(w);
  jw_key(w, "by_collective");
  jw_arr(w);
  for (int t = 0; t < COLL__COUNT; t++) {
    const xr_type_res *x = &r->t[t];
    if (!x->count) continue;
    jw_obj(w);
    jw_kstr(w, "collective", coll_type_name(t));
    jw_ku64(w, "count", x->count);
    jw_ki64(w, "transfer_ns", x->transfer);
    jw_ki64(w, "wait_ns", x->wait);
    jw_ki64(w, "bytes", x->bytes);
    jw_obj_end(w);
  }
  jw_arr_end(w);
  jw_key(w, "straggler");
  if (r->straggler_idx < 0) {
    jw_null(w);
  } else {
    const xr_rank_res *x = &r->r[r->straggler_idx];
    jw_obj(w);
    jw_ki64(w, "rank", x->rank);
    jw_ku64(w, "late_steps", x->late_steps);
    jw_ku64(w, "steps", r->units);
    jw_ki64(w, "mean_delay_ns", xr_mean_delay(x));
    jw_ki64(w, "max_delay_ns", x->delay_max);
    jw_ki64(w, "lost_ns", x->lost);
    jw_obj_end(w);
  }
  jw_obj_end(w);
}
