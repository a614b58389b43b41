/* The per-rank collective table from a context: one row per collective
 * kernel, with what matching needs (process group, Seq, type, step) taken
 * from the kernel's own args or, for traces whose kernels carry none, from
 * the record_param_comms op and the nccl:<op> annotation around its launch. */
#include "analysis/crossrank/crossrank_impl.h"
#include <stdlib.h>
#include <string.h>

void xr_table_init(xr_table *t, int64_t rank) {
  memset(t, 0, sizeof *t);
  t->rank = rank;
}

void xr_table_free(fa_alloc *a, xr_table *t) {
  fa_vec_free(a, &t->colls, sizeof(xr_coll));
  fa_vec_free(a, &t->pgs, sizeof(xr_pgname));
  fa_vec_free(a, &t->pool, 1);
}

int32_t xr_table_pg(fa_alloc *a, xr_table *t, const char *s, size_t n) {
  const char *pool = t->pool.data;
  for (size_t i = 0; i < t->pgs.len; i++) {
    const xr_pgname *g = &FA_VEC_AT(&t->pgs, xr_pgname, i);
    if (g->len == n && (n == 0 || memcmp(pool + g->off, s, n) == 0)) return (int32_t)i;
  }
  if (n > UINT32_MAX || t->pool.len > UINT32_MAX - n || t->pgs.len >= INT32_MAX) return -1;
  if (fa_vec_reserve(a, &t->pool, 1, n + 1)) return -1;
  xr_pgname g = {(uint32_t)t->pool.len, (uint32_t)n};
  if (!fa_vec_push(a, &t->pgs, sizeof g, &g)) return -1;
  if (n) memcpy((char *)t->pool.data + t->pool.len, s, n);
  t->pool.len += n;
  return (int32_t)(t->pgs.len - 1);
}

void xr_params_from(const int64_t *params, xr_params *p) {
  p->min_delay_ns = params[P_XR_MIN_DELAY_NS];
  p->end_tol_ns = params[P_XR_END_TOL_NS];
  p->min_steps = params[P_XR_MIN_STEPS];
  p->min_share_ppm = params[P_XR_MIN_SHARE_PPM];
  p->min_used_ppm = params[P_XR_MIN_USED_PPM];
}

/* CPU records that can describe a collective launched inside them. */
typedef struct cand {
  uint32_t track, idx;
  int64_t ts;
} cand;

static int cmp_cand(const void *pa, const void *pb) {
  const cand *a = pa, *b = pb;
  if (a->track != b->track) return a->track < b->track ? -1 : 1;
  if (a->ts != b->ts) return a->ts < b->ts ? -1 : 1;
  return a->idx < b->idx ? -1 : a->idx > b->idx;
}

static int cmp_step_ts(const void *pa, const void *pb) {
  const step_rec *a = pa, *b = pb;
  if (a->ts != b->ts) return a->ts < b->ts ? -1 : 1;
  return a->end < b->end ? -1 : a->end > b->end;
}

/* Step holding relative time t (CPU range [ts, end)), ABSENT if none.  The
 * latest-starting step wins when ranges overlap. */
static int64_t step_at(const step_rec *s, size_t n, int64_t t) {
  size_t lo = 0, hi = n;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (s[mid].ts <= t) lo = mid + 1;
    else hi = mid;
  }
  for (size_t k = lo; k-- > 0;) {
    if (t < s[k].end) return s[k].number;
    if (lo - k > 4) break;
  }
  return FSDPA_ABSENT;
}

typedef struct outer {
  const coll_info *rpc;  /* record_param_comms args around the launch */
  int annot_type;        /* collective type named by an nccl:<op> annotation */
} outer;

/* Innermost record_param_comms / nccl:<op> on the launching thread whose
 * range holds the launch call.  They nest tightly around the launch, so a
 * few entries back from the insertion point suffice. */
static outer find_outer(const store *st, const cand *cs, size_t nc, uint32_t track, int64_t t) {
  outer o = {NULL, COLL_NONE};
  size_t lo = 0, hi = nc;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (cs[mid].track < track || (cs[mid].track == track && cs[mid].ts <= t)) lo = mid + 1;
    else hi = mid;
  }
  for (size_t k = lo, seen = 0; k-- > 0 && seen < 16; seen++) {
    if (cs[k].track != track) break;
    const ev_rec *r = STORE_REC(&st->cpu, cs[k].idx);
    if (t > r->end) continue;
    uint32_t info = store_name_info(st, r->name);
    if ((info & NC_PARAM_COMMS) && !o.rpc && r->aux != AUX_NONE)
      o.rpc = &FA_VEC_AT(&st->colls, coll_info, r->aux);
    if ((info & NC_NCCL_ANNOT) && o.annot_type == COLL_NONE) {
      const char *nm = store_name(st, r->name);
      size_t len = intern_len(&st->names, r->name);
      o.annot_type = len > 5 ? coll_type_from_arg(nm + 5, len - 5) : COLL_OTHER;  /* "nccl:" */
    }
    if (o.rpc && o.annot_type != COLL_NONE) break;
  }
  return o;
}

static int type_of(const store *st, const coll_info *ci) {
  if (!ci || ci->coll_name == INTERN_NONE) return COLL_NONE;
  return coll_type_from_arg(store_name(st, ci->coll_name), intern_len(&st->names, ci->coll_name));
}

static int64_t bytes_of(const store *st, const coll_info *ci) {
  if (!ci || ci->dtype == INTERN_NONE) return FSDPA_ABSENT;
  int64_t ne = ci->in_nelems;
  if (ci->out_nelems != FSDPA_ABSENT && (ne == FSDPA_ABSENT || ci->out_nelems > ne)) ne = ci->out_nelems;
  int sz = dtype_size(store_name(st, ci->dtype), intern_len(&st->names, ci->dtype));
  if (ne == FSDPA_ABSENT || ne < 0 || sz <= 0 || ne > STORE_MAX_BYTES / sz) return FSDPA_ABSENT;
  return ne * sz;
}

fsdpa_status xr_extract(fa_alloc *a, fsdpa_ctx *c, int64_t rank, xr_table *t) {
  xr_table_init(t, rank);
  const store *st = &c->st;
  const store_views *v = ctx_views(c);
  if (!v) return fa_fail_status(&c->alloc);
  fsdpa_status res = FSDPA_OK;
  size_t nsteps = st->steps.len, ncand = 0;
  step_rec *steps = NULL;
  cand *cs = NULL;
  size_t ncpu = st->cpu.len;
  for (size_t i = 0; i < ncpu; i++)
    if (store_name_info(st, STORE_REC(&st->cpu, i)->name) & (NC_PARAM_COMMS | NC_NCCL_ANNOT)) ncand++;
  if (nsteps && !(steps = fa_malloc(a, nsteps * sizeof *steps))) goto oom;
  if (ncand && !(cs = fa_malloc(a, ncand * sizeof *cs))) goto oom;
  if (nsteps) {
    memcpy(steps, st->steps.data, nsteps * sizeof *steps);
    qsort(steps, nsteps, sizeof *steps, cmp_step_ts);
  }
  for (size_t i = 0, k = 0; i < ncpu; i++) {
    const ev_rec *r = STORE_REC(&st->cpu, i);
    if (store_name_info(st, r->name) & (NC_PARAM_COMMS | NC_NCCL_ANNOT))
      cs[k++] = (cand){r->track, (uint32_t)i, r->ts};
  }
  if (ncand) qsort(cs, ncand, sizeof *cs, cmp_cand);

  for (size_t i = 0; i < st->gpu.len; i++) {
    const ev_rec *k = STORE_REC(&st->gpu, i);
    if (k->kind != RK_KERNEL) continue;
    uint32_t info = store_name_info(st, k->name);
    /* only NCCL and its forks: their kernels are the c10d collectives whose
     * sequence numbers and process groups match across ranks; other
     * communication (EP dispatch, custom all-reduce, provenance) has no
     * identity to match by */
    if (!(info & NC_COMM) || !comm_family_is_ccl(store_name_family(st, k->name))) continue;
    const coll_info *ki = k->aux != AUX_NONE ? &FA_VEC_AT(&st->colls, coll_info, k->aux) : NULL;
    uint32_t rti = k->corr != FSDPA_ABSENT ? store_runtime_for_corr(v, k->corr) : UINT32_MAX;
    const ev_rec *rt = rti != UINT32_MAX ? STORE_REC(&st->rt, rti) : NULL;
    outer o = {NULL, COLL_NONE};
    if (rt) o = find_outer(st, cs, ncand, rt->track, rt->ts);
    xr_coll x;
    x.start = ctx_abs(c, k->ts);
    x.end = ctx_abs(c, k->end);
    x.step = nsteps ? step_at(steps, nsteps, rt ? rt->ts : k->ts) : FSDPA_ABSENT;
    x.seq = ki && ki->seq != FSDPA_ABSENT ? ki->seq : o.rpc ? o.rpc->seq : FSDPA_ABSENT;
    x.type = type_of(st, ki);
    if (x.type == COLL_NONE) x.type = type_of(st, o.rpc);
    if (x.type == COLL_NONE) x.type = o.annot_type;
    if (x.type == COLL_NONE) x.type = nc_coll(info);
    if (x.type <= COLL_NONE || x.type >= COLL__COUNT) x.type = COLL_OTHER;
    x.bytes = bytes_of(st, ki);
    if (x.bytes == FSDPA_ABSENT) x.bytes = bytes_of(st, o.rpc);
    uint32_t pgn = ki && ki->pg_name != INTERN_NONE ? ki->pg_name
                   : o.rpc && o.rpc->pg_name != INTERN_NONE ? o.rpc->pg_name : INTERN_NONE;
    x.pg = -1;
    if (pgn != INTERN_NONE) {
      x.pg = xr_table_pg(a, t, store_name(st, pgn), intern_len(&st->names, pgn));
      if (x.pg < 0) goto oom;
    }
    if (!fa_vec_push(a, &t->colls, sizeof x, &x)) goto oom;
  }
  goto done;
oom:
  res = fa_fail_status(a);
  xr_table_free(a, t);
done:
  fa_free(a, steps, nsteps * sizeof *steps);
  fa_free(a, cs, ncand * sizeof *cs);
  return res;
}
