/* The room's public queries: fsdpa_crossrank_query (the whole analysis) and
 * fsdpa_crossrank_rank_list (every rank's part of it), each running the
 * analysis over the given contexts and copying its figures out. */
#include "analysis/crossrank/crossrank_impl.h"
#include "util/abi.h"
#include "util/error.h"
#include "util/list.h"
#include <string.h>

static fsdpa_status run_public(fsdpa_ctx *const *ctxs, size_t n, xr_result *r, fsdpa_error *err) {
  fsdpa_status st = xr_run_ctxs(ctxs, NULL, n, r);
  if (st) {
    xr_result_free(&ctxs[0]->alloc, r);
    return err_set(err, st, FSDPA_ABSENT, FSDPA_ABSENT, "cross-rank analysis: %s",
                   ctxs[0]->err[0] ? ctxs[0]->err : fsdpa_status_str(st));
  }
  return FSDPA_OK;
}

fsdpa_status fsdpa_crossrank_query(fsdpa_ctx *const *ctxs, size_t n, fsdpa_crossrank *out, fsdpa_error *err) {
  fsdpa_status st = ctx_check_many(ctxs, n, err, "fsdpa_crossrank_query");
  if (st) return st;
  if (!ABI_OK(fsdpa_crossrank, out))
    return err_set(err, FSDPA_EINVAL, FSDPA_ABSENT, FSDPA_ABSENT, "fsdpa_crossrank.size");
  xr_result r;
  if ((st = run_public(ctxs, n, &r, err))) return st;
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
    o.straggler_mean_delay_ns = xr_mean_delay(x);
    o.straggler_max_delay_ns = x->delay_max;
    o.straggler_lost_ns = x->lost;
  }
  xr_result_free(&ctxs[0]->alloc, &r);
  ABI_OUT(fsdpa_crossrank, out, &o);
  return FSDPA_OK;
}

fsdpa_status fsdpa_crossrank_rank_list(fsdpa_ctx *const *ctxs, size_t n, fsdpa_list **out, fsdpa_error *err) {
  fsdpa_status st = ctx_check_many(ctxs, n, err, "fsdpa_crossrank_rank_list");
  if (st) return st;
  if (!out) return err_set(err, FSDPA_EINVAL, FSDPA_ABSENT, FSDPA_ABSENT, "fsdpa_crossrank_rank_list: NULL out");
  *out = NULL;
  xr_result r;
  if ((st = run_public(ctxs, n, &r, err))) return st;
  /* the analysis keeps its rows in rank order; the list is in the caller's */
  size_t *row = fa_malloc(&ctxs[0]->alloc, n * sizeof *row);
  if (!row) {
    xr_result_free(&ctxs[0]->alloc, &r);
    return err_set(err, fa_fail_status(&ctxs[0]->alloc), FSDPA_ABSENT, FSDPA_ABSENT, "out of memory");
  }
  for (size_t i = 0; i < n; i++) row[r.r[i].input] = i;
  list_build b;
  lb_init(&b, &ctxs[0]->alloc, FSDPA_LIST_CROSSRANK_RANKS);
  for (size_t i = 0; i < n; i++) {
    const xr_rank_res *x = &r.r[row[i]];
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
    o.mean_delay_ns = xr_mean_delay(x);
    o.max_delay_ns = x->late_steps ? x->delay_max : FSDPA_ABSENT;
    o.lost_ns = x->lost;
    lb_push(&b, &o);
  }
  fa_free(&ctxs[0]->alloc, row, n * sizeof *row);
  xr_result_free(&ctxs[0]->alloc, &r);
  st = lb_finish(&b, out);
  return st ? err_set(err, st, FSDPA_ABSENT, FSDPA_ABSENT, "out of memory") : FSDPA_OK;
}
