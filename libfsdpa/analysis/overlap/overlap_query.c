/* The overlap room's public queries: whole-selection totals and the split
 * per collective type or process group, over a resolved query window. */
#include "analysis/overlap/overlap_impl.h"

static fsdpa_status begin(fsdpa_ctx *c, const fsdpa_query *q, qwin *w, const store_views **v) {
  ctx_clear(c);
  fsdpa_status st = ctx_resolve_query(c, q, w);
  if (st) return st;
  *v = ctx_views(c);
  return *v ? FSDPA_OK : fa_fail_status(&c->alloc);
}

fsdpa_status fsdpa_query_overlap(fsdpa_ctx *c, const fsdpa_query *q, fsdpa_overlap *out) {
  if (!c || !out || !ctx_struct_ok(out->size, sizeof *out)) return FSDPA_EINVAL;
  qwin w;
  const store_views *v;
  fsdpa_status st = begin(c, q, &w, &v);
  if (st) return st;
  ks_data d;
  st = ks_gather(c, v, &w, &d);
  if (st) return ctx_fail(c, st, "out of memory computing overlap");
  overlap_fill(&d, out);
  ks_free(&d);
  return FSDPA_OK;
}

static fsdpa_status split_query(fsdpa_ctx *c, const fsdpa_query *q, fsdpa_comm_split_by by,
                                size_t idx, fsdpa_comm_split *out, size_t *count) {
  if ((int)by != FSDPA_SPLIT_COLLECTIVE && (int)by != FSDPA_SPLIT_PROCESS_GROUP)
    return ctx_fail(c, FSDPA_EINVAL, "unknown fsdpa_comm_split_by %d", (int)by);
  qwin w;
  const store_views *v;
  fsdpa_status st = begin(c, q, &w, &v);
  if (st) return st;
  ks_data d;
  st = ks_gather(c, v, &w, &d);
  if (st) return ctx_fail(c, st, "out of memory computing overlap");
  split_acc *acc;
  size_t n;
  st = overlap_splits(c, &d, by == FSDPA_SPLIT_PROCESS_GROUP, &acc, &n);
  if (!st) {
    if (count) *count = n;
    if (out) {
      if (idx < n) overlap_split_public(c, &acc[idx], by == FSDPA_SPLIT_PROCESS_GROUP, out);
      else st = ctx_fail(c, FSDPA_EINVAL, "split index %zu out of range (%zu)", idx, n);
    }
  } else {
    ctx_fail(c, st, "out of memory computing overlap splits");
  }
  overlap_splits_free(c, &d, acc);
  ks_free(&d);
  return st;
}

fsdpa_status fsdpa_comm_split_count(fsdpa_ctx *c, const fsdpa_query *q, fsdpa_comm_split_by by,
                                    size_t *n) {
  if (!c || !n) return FSDPA_EINVAL;
  *n = 0;
  return split_query(c, q, by, 0, NULL, n);
}

fsdpa_status fsdpa_query_comm_split(fsdpa_ctx *c, const fsdpa_query *q, fsdpa_comm_split_by by,
                                    size_t i, fsdpa_comm_split *out) {
  if (!c || !out || !ctx_struct_ok(out->size, sizeof *out)) return FSDPA_EINVAL;
  return split_query(c, q, by, i, out, NULL);
}
