/* The overlap room's public queries: whole-selection totals and the split
 * per collective type or process group, over a resolved query window. */
#include "analysis/overlap/overlap_impl.h"
#include "util/abi.h"
#include "util/list.h"

static fsdpa_status begin(fsdpa_ctx *c, const fsdpa_query *q, qwin *w, const store_views **v) {
  fsdpa_status st = ctx_resolve_query(c, q, w);
  if (st) return st;
  *v = ctx_views(c);
  return *v ? FSDPA_OK : fa_fail_status(&c->alloc);
}

fsdpa_status fsdpa_overlap_query(fsdpa_ctx *c, const fsdpa_query *q, fsdpa_overlap *out) {
  if (!c) return FSDPA_EINVAL;
  ctx_clear(c);
  if (!ABI_OK(fsdpa_overlap, out)) return ctx_fail(c, FSDPA_EINVAL, "fsdpa_overlap.size");
  qwin w;
  const store_views *v;
  fsdpa_status st = begin(c, q, &w, &v);
  if (st) return st;
  ks_data d;
  st = ks_gather(c, v, &w, &d);
  if (st) return ctx_fail(c, st, "out of memory computing overlap");
  fsdpa_overlap o;
  overlap_fill(&d, &o);
  ks_free(&d);
  ABI_OUT(fsdpa_overlap, out, &o);
  return FSDPA_OK;
}

fsdpa_status fsdpa_comm_split_list(fsdpa_ctx *c, const fsdpa_query *q, fsdpa_comm_split_by by, fsdpa_list **out) {
  if (!c) return FSDPA_EINVAL;
  ctx_clear(c);
  if (!out) return ctx_fail(c, FSDPA_EINVAL, "fsdpa_comm_split_list: NULL out");
  *out = NULL;
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
  int pg = by == FSDPA_SPLIT_PROCESS_GROUP;
  st = overlap_splits(c, &d, pg, &acc, &n);
  if (!st) {
    list_build b;
    lb_init(&b, &c->alloc, FSDPA_LIST_COMM_SPLITS);
    for (size_t i = 0; i < n; i++) {
      fsdpa_comm_split s;
      overlap_split_public(c, &acc[i], pg, &s);
      lb_push(&b, &s);
    }
    st = lb_finish(&b, out);
  }
  if (st) ctx_fail(c, st, "out of memory computing overlap splits");
  overlap_splits_free(c, &d, acc);
  ks_free(&d);
  return st;
}
