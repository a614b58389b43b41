/* The report's ranks[].overlap section: whole-trace totals, the splits per
 * collective type and process group, and the totals of each step. */
#include "analysis/overlap/overlap_impl.h"

void overlap_write_splits(fsdpa_ctx *c, jsonw *w, const split_acc *acc, size_t n, int by) {
  jw_arr(w);
  for (size_t i = 0; i < n; i++) {
    fsdpa_comm_split o;
    overlap_split_public(c, &acc[i], by, &o);
    jw_obj(w);
    jw_kstr(w, by ? "process_group" : "collective", o.name);
    jw_ku64(w, "count", o.count);
    jw_ki64(w, "comm_ns", o.comm_ns);
    jw_ki64(w, "overlap_ns", o.overlap_ns);
    jw_ki64(w, "exposed_ns", o.exposed_ns);
    jw_ki64(w, "bytes", o.bytes);
    jw_key(w, "algbw_gbps");
    if (o.algbw_gbps < 0) jw_null(w);
    else jw_f64(w, o.algbw_gbps, 3);
    jw_key(w, "busbw_gbps");
    if (o.busbw_gbps < 0) jw_null(w);
    else jw_f64(w, o.busbw_gbps, 3);
    jw_obj_end(w);
  }
  jw_arr_end(w);
}

void overlap_write_pct(jsonw *w, const char *k, double pct) {
  jw_key(w, k);
  if (pct < 0) jw_null(w);
  else jw_f64(w, pct, 4);
}

fsdpa_status overlap_json(fsdpa_ctx *c, jsonw *w) {
  const store_views *v;
  ks_data d;
  fsdpa_status st = overlap_gather_trace(c, &v, &d);
  if (st) return st;
  fsdpa_overlap o;
  overlap_fill(&d, &o);
  split_acc *by_coll = NULL, *by_pg = NULL;
  size_t ncoll = 0, npg = 0;
  overlap_ivs both = {NULL, 0, 0};
  st = overlap_splits(c, &d, 0, &by_coll, &ncoll);
  if (!st) st = overlap_splits(c, &d, 1, &by_pg, &npg);
  if (!st) st = overlap_both(c, &d, &both);
  if (st) goto done;
  jw_obj(w);
  jw_ki64(w, "comm_ns", o.comm_ns);
  jw_ki64(w, "compute_ns", o.compute_ns);
  jw_ki64(w, "overlap_ns", o.overlap_ns);
  jw_ki64(w, "exposed_comm_ns", o.exposed_comm_ns);
  overlap_write_pct(w, "overlap_pct", o.overlap_pct);
  jw_ku64(w, "comm_kernels", o.comm_kernels);
  jw_ku64(w, "compute_kernels", o.compute_kernels);
  jw_key(w, "by_collective");
  overlap_write_splits(c, w, by_coll, ncoll, 0);
  jw_key(w, "by_process_group");
  overlap_write_splits(c, w, by_pg, npg, 1);
  /* per step: the CPU ProfilerStep range clips the rank-wide unions */
  jw_key(w, "steps");
  jw_arr(w);
  size_t nsteps = c->st.steps.len;
  for (size_t i = 0; i < nsteps; i++) {
    fsdpa_step s;
    ctx_step_public(c, i, &s);
    int64_t t0 = s.start_ns - ctx_base(c), t1 = t0 + s.dur_ns;
    fsdpa_overlap so;
    overlap_in_range(&d, &both, t0, t1, &so);
    jw_obj(w);
    jw_ki64(w, "step", s.number);
    jw_ki64(w, "comm_ns", so.comm_ns);
    jw_ki64(w, "compute_ns", so.compute_ns);
    jw_ki64(w, "overlap_ns", so.overlap_ns);
    jw_ki64(w, "exposed_comm_ns", so.exposed_comm_ns);
    overlap_write_pct(w, "overlap_pct", so.overlap_pct);
    jw_obj_end(w);
  }
  jw_arr_end(w);
  jw_obj_end(w);
done:
  overlap_ivs_free(c, &both);
  overlap_splits_free(c, &d, by_coll);
  overlap_splits_free(c, &d, by_pg);
  ks_free(&d);
  return st;
}
