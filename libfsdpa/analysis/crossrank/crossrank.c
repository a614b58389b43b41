/* Cross-rank report hooks (cross_rank section, straggler-rank finding) and
 * the public queries.  The analysis itself is in crossrank_match.c and runs
 * on per-rank tables (crossrank_extract.c), so summaries reuse it. */
#include "analysis/crossrank/crossrank.h"
#include "analysis/crossrank/crossrank_table.h"
#include <stdio.h>
#include <string.h>

fsdpa_status xr_run_ctxs(fsdpa_ctx *const *ctxs, const int64_t *ranks, size_t n, xr_result *out) {
  memset(out, 0, sizeof *out);
  out->ref_idx = out->straggler_idx = -1;
  if (!n) return FSDPA_OK;
  fa_alloc *a = &ctxs[0]->alloc;
  xr_table *tabs = fa_calloc(a, n * sizeof *tabs);
  if (!tabs) return fa_fail_status(a);
  fsdpa_status st = FSDPA_OK;
  for (size_t i = 0; i < n && !st; i++) {
    int64_t rk = ranks ? ranks[i]
                       : ctxs[i]->info.rank != FSDPA_ABSENT ? ctxs[i]->info.rank : (int64_t)i;
    st = xr_extract(a, ctxs[i], rk, &tabs[i]);
  }
  if (!st) {
    xr_params p;
    xr_params_from(ctxs[0]->params, &p);
    st = xr_analyze(a, tabs, n, &p, out);
  }
  for (size_t i = 0; i < n; i++) xr_table_free(a, &tabs[i]);
  fa_free(a, tabs, n * sizeof *tabs);
  return st;
}

static int64_t mean_delay(const xr_rank_res *x) {
  return x->late_steps ? x->delay_sum / (int64_t)x->late_steps : FSDPA_ABSENT;
}

static uint64_t aligned_ranks(const xr_result *r) {
  uint64_t k = 0;
  for (size_t i = 0; i < r->nranks; i++) k += r->r[i].colls > 0;
  return k;
}

void xr_write_json(const xr_result *r, jsonw *w) {
  if (r->nranks < 2 || (!r->groups && !r->unsync)) {
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
    jw_ki64(w, "mean_delay_ns", mean_delay(x));
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
    jw_ki64(w, "mean_delay_ns", mean_delay(x));
    jw_ki64(w, "max_delay_ns", x->delay_max);
    jw_ki64(w, "lost_ns", x->lost);
    jw_obj_end(w);
  }
  jw_obj_end(w);
}

fsdpa_status xr_add_findings(const xr_result *r, findings *f) {
  if (r->straggler_idx < 0) return FSDPA_OK;
  const xr_rank_res *x = &r->r[r->straggler_idx];
  uint64_t others = aligned_ranks(r);
  others = others > 1 ? others - 1 : 1;
  int64_t cost = x->lost / (int64_t)others;
  int64_t md = mean_delay(x);
  char title[160], detail[640];
  snprintf(title, sizeof title,
           "Rank %lld arrives last at collectives in %llu of %llu steps (%.3f ms late on average)",
           (long long)x->rank, (unsigned long long)x->late_steps, (unsigned long long)r->units,
           (double)md / 1e6);
  snprintf(detail, sizeof detail,
           "After aligning the clocks of %llu ranks on collective end times, rank %lld started a "
           "collective last, by at least %.3f ms, in %llu of %llu steps: on average %.3f ms (worst "
           "%.3f ms) after the next-latest rank.  It arrived last at %llu of %llu matched "
           "collectives, and the other ranks spent %.3f ms in total (%.3f ms per rank) waiting "
           "inside those collectives for it to arrive.",
           (unsigned long long)aligned_ranks(r), (long long)x->rank, (double)r->min_delay / 1e6,
           (unsigned long long)x->late_steps, (unsigned long long)r->units, (double)md / 1e6,
           (double)x->delay_max / 1e6, (unsigned long long)x->last_count,
           (unsigned long long)r->groups, (double)x->lost / 1e6, (double)cost / 1e6);
  const char *advice =
      "Find what this rank does before its collectives that the others do not: slower data "
      "loading or preprocessing, extra CPU work or logging on this rank only, a throttled or "
      "slower GPU, or a busy host.  Compare its trace with a fast rank's for the same step; "
      "every rank pays this delay at the next collective.";
  sbuf b;
  sb_init(&b, f->a);
  jsonw w;
  jw_init(&w, &b, 0);
  jw_obj(&w);
  jw_ki64(&w, "rank", x->rank);
  jw_ku64(&w, "late_steps", x->late_steps);
  jw_ku64(&w, "steps", r->units);
  jw_ku64(&w, "last_count", x->last_count);
  jw_ku64(&w, "collectives", r->groups);
  jw_ki64(&w, "mean_delay_ns", md);
  jw_ki64(&w, "max_delay_ns", x->delay_max);
  jw_ki64(&w, "lost_ns", x->lost);
  jw_ku64(&w, "ranks", aligned_ranks(r));
  jw_obj_end(&w);
  if (b.failed) {
    fsdpa_status st = (fsdpa_status)b.failed;
    sb_free(&b);
    return st;
  }
  finding *fd = findings_add(f, "straggler-rank", SEV_WARNING, x->rank, FSDPA_ABSENT, cost, title,
                             detail, advice, b.p);
  sb_free(&b);
  if (!fd) return (fsdpa_status)f->failed;
  for (int k = 0; k < x->nworst; k++) finding_add_range(fd, x->worst[k].s, x->worst[k].e);
  return FSDPA_OK;
}

fsdpa_status crossrank_run(fsdpa_ctx *const *ctxs, const int64_t *ranks, size_t n, xr_result **out) {
  *out = NULL;
  if (n < 2) return FSDPA_OK;
  fa_alloc *a = &ctxs[0]->alloc;
  xr_result *r = fa_malloc(a, sizeof *r);
  if (!r) return fa_fail_status(a);
  fsdpa_status st = xr_run_ctxs(ctxs, ranks, n, r);
  if (st) {
    xr_result_free(a, r);
    fa_free(a, r, sizeof *r);
    return st;
  }
  *out = r;
  return FSDPA_OK;
}

void crossrank_done(fsdpa_ctx *c0, xr_result *r) {
  if (!r) return;
  xr_result_free(&c0->alloc, r);
  fa_free(&c0->alloc, r, sizeof *r);
}

void crossrank_json(const xr_result *r, jsonw *w) {
  if (!r) jw_null(w);
  else xr_write_json(r, w);
}

fsdpa_status crossrank_findings(const xr_result *r, findings *f) {
  return r ? xr_add_findings(r, f) : FSDPA_OK;
}

/* ---- public queries ---- */

static fsdpa_status check_ctxs(fsdpa_ctx *const *ctxs, size_t n) {
  if (!ctxs || !n) return FSDPA_EINVAL;
  for (size_t i = 0; i < n; i++)
    if (!ctxs[i]) return FSDPA_EINVAL;
  ctx_clear(ctxs[0]);
  return FSDPA_OK;
}

static fsdpa_status run_public(fsdpa_ctx *const *ctxs, size_t n, xr_result *r) {
  fsdpa_status st = xr_run_ctxs(ctxs, NULL, n, r);
  if (st) {
    xr_result_free(&ctxs[0]->alloc, r);
    return ctx_fail(ctxs[0], st, "cross-rank analysis: %s", fsdpa_status_str(st));
  }
  return FSDPA_OK;
}

fsdpa_status fsdpa_query_crossrank(fsdpa_ctx *const *ctxs, size_t n, fsdpa_crossrank *out) {
  fsdpa_status st = check_ctxs(ctxs, n);
  if (st) return st;
  if (!out || !ctx_struct_ok(out->size, sizeof *out))
    return ctx_fail(ctxs[0], FSDPA_EINVAL, "fsdpa_crossrank.size");
  xr_result r;
  if ((st = run_public(ctxs, n, &r))) return st;
  fsdpa_crossrank o;
  memset(&o, 0, sizeof o);
  o.size = sizeof o;
  o.ranks = n;
  int any = n >= 2 && r.groups;
  o.collectives = r.groups;
  o.unmatched = r.unmatched;
  o.unaligned = r.unaligned;
  o.unsynchronized = r.unsync;
  o.reference_rank = r.ref_idx >= 0 ? r.r[r.ref_idx].rank : FSDPA_ABSENT;
  o.transfer_ns = any ? r.transfer : FSDPA_ABSENT;
  o.wait_ns = any ? r.wait : FSDPA_ABSENT;
  o.end_spread_p50_ns = r.spread_p50;
  o.end_spread_max_ns = r.spread_max;
  o.steps = r.units;
  o.straggler_rank = FSDPA_ABSENT;
  o.straggler_mean_delay_ns = o.straggler_max_delay_ns = o.straggler_lost_ns = FSDPA_ABSENT;
  if (r.straggler_idx >= 0) {
    const xr_rank_res *x = &r.r[r.straggler_idx];
    o.straggler_rank = x->rank;
    o.straggler_late_steps = x->late_steps;
    o.straggler_mean_delay_ns = mean_delay(x);
    o.straggler_max_delay_ns = x->delay_max;
    o.straggler_lost_ns = x->lost;
  }
  xr_result_free(&ctxs[0]->alloc, &r);
  *out = o;
  return FSDPA_OK;
}

fsdpa_status fsdpa_query_crossrank_rank(fsdpa_ctx *const *ctxs, size_t n, size_t i,
                                        fsdpa_crossrank_rank *out) {
  fsdpa_status st = check_ctxs(ctxs, n);
  if (st) return st;
  if (!out || !ctx_struct_ok(out->size, sizeof *out))
    return ctx_fail(ctxs[0], FSDPA_EINVAL, "fsdpa_crossrank_rank.size");
  if (i >= n) return ctx_fail(ctxs[0], FSDPA_EINVAL, "rank index %zu out of range (%zu)", i, n);
  xr_result r;
  if ((st = run_public(ctxs, n, &r))) return st;
  const xr_rank_res *x = &r.r[i];
  fsdpa_crossrank_rank o;
  memset(&o, 0, sizeof o);
  o.size = sizeof o;
  o.rank = x->rank;
  o.clock_offset_ns = x->offset;
  o.collectives = x->colls;
  o.transfer_ns = x->colls ? x->transfer : FSDPA_ABSENT;
  o.wait_ns = x->colls ? x->wait : FSDPA_ABSENT;
  o.last_count = x->last_count;
  o.late_steps = x->late_steps;
  o.mean_delay_ns = mean_delay(x);
  o.max_delay_ns = x->late_steps ? x->delay_max : FSDPA_ABSENT;
  o.lost_ns = x->lost;
  xr_result_free(&ctxs[0]->alloc, &r);
  *out = o;
  return FSDPA_OK;
}
