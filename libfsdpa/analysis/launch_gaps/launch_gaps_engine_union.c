/* The streams of a window: which ones it selects, where their ops start, and
 * the busy union of the selection; shared by the gap scan, latency and the
 * queue-depth sweep. */
#include "analysis/launch_gaps/launch_gaps_impl.h"
#include <string.h>

size_t lg_first_op_from(const store *st, const gpu_stream_view *sv, int64_t t) {
  size_t lo = 0, hi = sv->nops;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (STORE_REC(&st->gpu, sv->ops[mid])->ts < t) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

fsdpa_status lg_union_build(fsdpa_ctx *c, const store_views *v, const qwin *w, lg_union *out) {
  memset(out, 0, sizeof *out);
  size_t nsel = 0, total = 0, last = 0;
  for (size_t i = 0; i < v->nstreams; i++) {
    if (!lg_selected(&v->streams[i], w)) continue;
    nsel++;
    total += v->streams[i].nbusy;
    last = i;
  }
  if (nsel == v->nstreams) {
    out->u = v->all_busy;
    out->n = v->nall;
    return FSDPA_OK;
  }
  if (nsel == 1) {
    out->u = v->streams[last].busy;
    out->n = v->streams[last].nbusy;
    return FSDPA_OK;
  }
  if (!total) return FSDPA_OK;
  iv *u = fa_malloc(&c->alloc, total * sizeof(iv));
  if (!u) return ctx_fail(c, fa_fail_status(&c->alloc), "out of memory (launch gaps)");
  size_t m = 0;
  for (size_t i = 0; i < v->nstreams; i++) {
    const gpu_stream_view *sv = &v->streams[i];
    if (!lg_selected(sv, w)) continue;
    memcpy(u + m, sv->busy, sv->nbusy * sizeof(iv));
    m += sv->nbusy;
  }
  out->owned = u;
  out->owned_cap = total;
  out->u = u;
  out->n = iv_union(u, m);
  return FSDPA_OK;
}

void lg_union_free(fsdpa_ctx *c, lg_union *u) {
  fa_free(&c->alloc, u->owned, u->owned_cap * sizeof(iv));
  memset(u, 0, sizeof *u);
}

int lg_union_span(const lg_union *u, int64_t t0, int64_t t1, int64_t *a, int64_t *b) {
  size_t lo = 0, hi = u->n;  /* first interval ending after t0 */
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (u->u[mid].e > t0) hi = mid;
    else lo = mid + 1;
  }
  if (lo == u->n || u->u[lo].s >= t1) return 0;
  size_t l2 = lo, h2 = u->n;  /* first interval starting at or after t1 */
  while (l2 < h2) {
    size_t mid = l2 + (h2 - l2) / 2;
    if (u->u[mid].s < t1) l2 = mid + 1;
    else h2 = mid;
  }
  *a = u->u[lo].s > t0 ? u->u[lo].s : t0;
  *b = u->u[l2 - 1].e < t1 ? u->u[l2 - 1].e : t1;
  return 1;
}
