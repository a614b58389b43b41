/* The cause of every idle nanosecond (rules and precedence in
 * launch_gaps_impl.h, lg_causes_compute).  HTA's categories say only whether
 * the next op was launched after the gap began; a gap whose op was launched
 * early and then waited for another stream, or whose thread sat in a
 * blocking copy, is not the CPU's launch rate.  One pass over the window's
 * gaps; each part costs a few binary searches over indexes built once.
 *
 * Stream-wait evidence, per wait (never per trace): a wait whose cuda_sync
 * event names the waited-on stream (wait_on_stream >= 0) is read from that
 * event; its runtime call (cudaStreamWaitEvent / hipStreamWaitEvent, the
 * call with the event's correlation id) is then left out of the runtime-call
 * fallback, so no wait counts twice.  Every other runtime wait call -- one
 * whose cuda_sync form lacks the stream (wait_on_stream -1: older Kineto, or
 * an event recorded before the profiling window), or one with no cuda_sync
 * event at all (ROCm, PyTorch before cuda_sync, sync events not enabled) --
 * is read through the fallback (the thread's cudaEventRecord before it and
 * the stream of its launch before that).  A cuda_sync wait without a
 * correlation id covers no call. */
#include "analysis/launch_gaps/launch_gaps_impl.h"
#include "events/classify.h"
#include "model/runtime_calls.h"
#include "util/sort.h"
#include <stdio.h>
#include <string.h>

const char *const lg_cause_names[LG_C__N] = {"host_not_launched", "host_blocked", "stream_wait",
                                             "rank_wait", "unknown"};

typedef struct cop {   /* a CPU op of one thread */
  uint32_t track, name;
  int64_t ts, end;
  uint32_t parent;     /* enclosing op (index), UINT32_MAX = none */
  uint32_t pad;
} cop;
typedef struct bcall { /* a blocking runtime call */
  uint32_t track, name;
  int64_t ts, end;
} bcall;
typedef struct swait { /* a stream-wait issued on a stream */
  uint32_t track, pad;
  int64_t ts, stream, rec_corr;
} swait;

typedef struct tcall { /* a runtime call of a thread: launch, stream wait, event record */
  uint32_t track;
  uint32_t stream;     /* launches: index of the op's stream in the views */
  int64_t ts;
} tcall;

struct lg_cidx {
  cop *cpu;
  size_t ncpu;
  bcall *blk;
  size_t nblk;
  swait *wt;
  size_t nwt;
  /* the runtime stream-wait calls no cuda_sync wait covers (see the top),
   * the cudaEventRecord calls and the launches, per thread */
  tcall *rl, *rw, *rr;
  size_t nrl, nrw, nrr, nrl_cap;
  /* when there are waits: each stream's linked ops by launch time
   * (ls[lo[i] .. lo[i+1]) for stream i of the views) */
  tcall *ls;
  size_t nls, *lo, nlo;
};

/* Enclosing ops first at equal start, so parents precede children. */
#define COP_LESS(a, b)                                                                  \
  ((a)->track != (b)->track ? (a)->track < (b)->track                                   \
   : (a)->ts != (b)->ts     ? (a)->ts < (b)->ts                                         \
   : (a)->end != (b)->end   ? (a)->end > (b)->end                                       \
                            : (a)->name < (b)->name)
FA_SORT_DEFINE(sort_cop, cop, COP_LESS)
#define BC_LESS(a, b)                                                                   \
  ((a)->track != (b)->track ? (a)->track < (b)->track                                   \
   : (a)->ts != (b)->ts     ? (a)->ts < (b)->ts                                         \
   : (a)->end != (b)->end   ? (a)->end < (b)->end                                       \
                            : (a)->name < (b)->name)
FA_SORT_DEFINE(sort_bcall, bcall, BC_LESS)
#define SW_LESS(a, b)                                                                   \
  ((a)->track != (b)->track ? (a)->track < (b)->track                                   \
   : (a)->ts != (b)->ts     ? (a)->ts < (b)->ts                                         \
   : (a)->stream != (b)->stream ? (a)->stream < (b)->stream                             \
                            : (a)->rec_corr < (b)->rec_corr)
FA_SORT_DEFINE(sort_swait, swait, SW_LESS)
#define TC_LESS(a, b)                                                                   \
  ((a)->track != (b)->track ? (a)->track < (b)->track                                   \
   : (a)->ts != (b)->ts     ? (a)->ts < (b)->ts                                         \
                            : (a)->stream < (b)->stream)
FA_SORT_DEFINE(sort_tcall, tcall, TC_LESS)
#define I64_LESS(a, b) (*(a) < *(b))
FA_SORT_DEFINE(sort_i64, int64_t, I64_LESS)

void lg_cidx_free(fsdpa_ctx *c, lg_cidx *ix) {
  if (!ix) return;
  fa_free(&c->alloc, ix->cpu, ix->ncpu * sizeof *ix->cpu);
  fa_free(&c->alloc, ix->blk, ix->nblk * sizeof *ix->blk);
  fa_free(&c->alloc, ix->wt, ix->nwt * sizeof *ix->wt);
  fa_free(&c->alloc, ix->rl, ix->nrl_cap * sizeof(tcall));
  fa_free(&c->alloc, ix->rw, ix->nrw * sizeof(tcall));
  fa_free(&c->alloc, ix->rr, ix->nrr * sizeof(tcall));
  fa_free(&c->alloc, ix->ls, ix->nls * sizeof(tcall));
  fa_free(&c->alloc, ix->lo, ix->nlo * sizeof(size_t));
  fa_free(&c->alloc, ix, sizeof *ix);
}

/* Whether correlation id corr is in the sorted cov[0..n). */
static int covered(const int64_t *cov, size_t n, int64_t corr) {
  if (corr == FSDPA_ABSENT) return 0;
  size_t lo = 0, hi = n;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (cov[mid] < corr) lo = mid + 1;
    else hi = mid;
  }
  return lo < n && cov[lo] == corr;
}

/* The runtime-call stream waits that no cuda_sync wait covers (cov: the
 * sorted correlation ids of the cuda_sync waits that name their stream). */
static fsdpa_status rt_waits_build(fsdpa_ctx *c, const store_views *v, lg_cidx *ix, const int64_t *cov,
                                   size_t ncov) {
  const store *st = &c->st;
  size_t nw = 0, nr = 0, nl = 0;
  for (size_t i = 0; i < st->rt.len; i++) {
    const ev_rec *r = STORE_REC(&st->rt, i);
    uint32_t info = store_name_info(st, r->name);
    nw += (info & NC_STREAM_WAIT) && !covered(cov, ncov, r->corr);
    nr += (info & NC_EVENT_RECORD) != 0;
  }
  if (!nw) return FSDPA_OK;
  for (size_t i = 0; i < v->nstreams; i++) nl += v->streams[i].nops;
  ix->rw = fa_malloc(&c->alloc, nw * sizeof(tcall));
  if (ix->rw) ix->nrw = nw;
  ix->rr = ix->rw && nr ? fa_malloc(&c->alloc, nr * sizeof(tcall)) : NULL;
  if (ix->rr) ix->nrr = nr;
  ix->rl = ix->rw && (!nr || ix->rr) && nl ? fa_malloc(&c->alloc, nl * sizeof(tcall)) : NULL;
  if (ix->rl) ix->nrl = nl;
  if (!ix->rw || (nr && !ix->rr) || (nl && !ix->rl))
    return ctx_fail(c, fa_fail_status(&c->alloc), "out of memory (idle causes)");
  nw = nr = nl = 0;
  for (size_t i = 0; i < st->rt.len; i++) {
    const ev_rec *r = STORE_REC(&st->rt, i);
    uint32_t info = store_name_info(st, r->name);
    if ((info & NC_STREAM_WAIT) && !covered(cov, ncov, r->corr)) ix->rw[nw++] = (tcall){r->track, 0, r->ts};
    if (info & NC_EVENT_RECORD) ix->rr[nr++] = (tcall){r->track, 0, r->ts};
  }
  for (size_t i = 0; i < v->nstreams; i++)
    for (size_t j = 0; j < v->streams[i].nops; j++) {
      uint32_t ri = store_runtime_for_corr(v, STORE_REC(&st->gpu, v->streams[i].ops[j])->corr);
      if (ri == UINT32_MAX) continue;
      const ev_rec *l = STORE_REC(&st->rt, ri);
      ix->rl[nl++] = (tcall){l->track, (uint32_t)i, l->ts};
    }
  ix->nrl = nl;  /* the unlinked ops have no entry; the allocation keeps its size below */
  sort_tcall(ix->rw, nw);
  sort_tcall(ix->rr, nr);
  sort_tcall(ix->rl, nl);
  return FSDPA_OK;
}

/* Each stream's linked ops sorted by launch start (ties: stream order), for
 * "the last op launched onto a stream before t". */
static fsdpa_status launch_order_build(fsdpa_ctx *c, const store_views *v, lg_cidx *ix) {
  size_t n = 0;
  for (size_t i = 0; i < v->nstreams; i++) n += v->streams[i].nops;
  ix->lo = fa_malloc(&c->alloc, (v->nstreams + 1) * sizeof(size_t));
  if (ix->lo) ix->nlo = v->nstreams + 1;
  ix->ls = ix->lo && n ? fa_malloc(&c->alloc, n * sizeof(tcall)) : NULL;
  if (ix->ls) ix->nls = n;
  if (!ix->lo || (n && !ix->ls)) return ctx_fail(c, fa_fail_status(&c->alloc), "out of memory (idle causes)");
  size_t k = 0;
  for (size_t i = 0; i < v->nstreams; i++) {
    ix->lo[i] = k;
    const gpu_stream_view *sv = &v->streams[i];
    for (size_t j = 0; j < sv->nops; j++) {
      uint32_t ri = store_runtime_for_corr(v, STORE_REC(&c->st.gpu, sv->ops[j])->corr);
      if (ri != UINT32_MAX) ix->ls[k++] = (tcall){0, (uint32_t)j, STORE_REC(&c->st.rt, ri)->ts};
    }
    sort_tcall(ix->ls + ix->lo[i], k - ix->lo[i]);
  }
  ix->lo[v->nstreams] = k;
  return FSDPA_OK;
}

fsdpa_status lg_cidx_build(fsdpa_ctx *c, const store_views *v, lg_cidx **out) {
  *out = NULL;
  lg_cidx *ix = fa_calloc(&c->alloc, sizeof *ix);
  if (!ix) return ctx_fail(c, fa_fail_status(&c->alloc), "out of memory (idle causes)");
  const store *st = &c->st;
  size_t ncpu = st->cpu.len, nwt = 0;
  for (size_t i = 0; i < st->gsync.len; i++) {
    const ev_rec *r = STORE_REC(&st->gsync, i);
    if (r->aux != AUX_NONE && FA_VEC_AT(&st->syncs, sync_info, r->aux).wait_on_stream >= 0) nwt++;
  }
  sc_set bs;
  memset(&bs, 0, sizeof bs);
  fsdpa_status s = sc_build(c, SC_BLOCKING_MASK, &bs);
  if (s) {
    lg_cidx_free(c, ix);
    return s;
  }
  ix->ncpu = ncpu;
  ix->nblk = bs.n;
  ix->nwt = nwt;
  ix->cpu = ncpu ? fa_malloc(&c->alloc, ncpu * sizeof *ix->cpu) : NULL;
  ix->blk = bs.n ? fa_malloc(&c->alloc, bs.n * sizeof *ix->blk) : NULL;
  ix->wt = nwt ? fa_malloc(&c->alloc, nwt * sizeof *ix->wt) : NULL;
  if ((ncpu && !ix->cpu) || (bs.n && !ix->blk) || (nwt && !ix->wt)) {
    sc_free(c, &bs);
    lg_cidx_free(c, ix);
    return ctx_fail(c, fa_fail_status(&c->alloc), "out of memory (idle causes)");
  }
  for (size_t i = 0; i < bs.n; i++)
    ix->blk[i] = (bcall){bs.v[i].track, bs.v[i].name, bs.v[i].ts, bs.v[i].end};
  sc_free(c, &bs);
  sort_bcall(ix->blk, ix->nblk);
  for (size_t i = 0; i < ncpu; i++) {
    const ev_rec *r = STORE_REC(&st->cpu, i);
    ix->cpu[i] = (cop){r->track, r->name, r->ts, r->end, UINT32_MAX, 0};
  }
  sort_cop(ix->cpu, ncpu);
  /* parents by a stack per thread; ops that overlap without nesting get the
   * latest open one, which still contains their start */
  uint32_t top = UINT32_MAX;
  for (size_t i = 0; i < ncpu; i++) {
    cop *o = &ix->cpu[i];
    if (top != UINT32_MAX && ix->cpu[top].track != o->track) top = UINT32_MAX;
    while (top != UINT32_MAX && ix->cpu[top].end <= o->ts) top = ix->cpu[top].parent;
    o->parent = top;
    top = (uint32_t)i;
  }
  size_t k = 0;
  for (size_t i = 0; i < st->gsync.len; i++) {
    const ev_rec *r = STORE_REC(&st->gsync, i);
    if (r->aux == AUX_NONE) continue;
    const sync_info *y = &FA_VEC_AT(&st->syncs, sync_info, r->aux);
    if (y->wait_on_stream < 0) continue;
    ix->wt[k++] = (swait){r->track, 0, r->ts, y->wait_on_stream, y->wait_on_event_corr};
  }
  sort_swait(ix->wt, nwt);
  /* the correlation ids of those waits: their runtime calls are covered */
  size_t ncov = 0;
  int64_t *cov = nwt ? fa_malloc(&c->alloc, nwt * sizeof *cov) : NULL;
  if (nwt && !cov) {
    lg_cidx_free(c, ix);
    return ctx_fail(c, fa_fail_status(&c->alloc), "out of memory (idle causes)");
  }
  for (size_t i = 0; i < st->gsync.len; i++) {
    const ev_rec *r = STORE_REC(&st->gsync, i);
    if (r->aux != AUX_NONE && r->corr != FSDPA_ABSENT &&
        FA_VEC_AT(&st->syncs, sync_info, r->aux).wait_on_stream >= 0)
      cov[ncov++] = r->corr;
  }
  sort_i64(cov, ncov);
  size_t cap = 0;
  for (size_t i = 0; i < v->nstreams; i++) cap += v->streams[i].nops;
  fsdpa_status rs = rt_waits_build(c, v, ix, cov, ncov);
  if (ix->rl) ix->nrl_cap = cap;
  fa_free(&c->alloc, cov, nwt * sizeof *cov);
  if (!rs && (ix->nwt || ix->nrw)) rs = launch_order_build(c, v, ix);
  if (rs) {
    lg_cidx_free(c, ix);
    return rs;
  }
  *out = ix;
  return FSDPA_OK;
}

/* ---- lookups ---- */

static int op_le(const cop *o, uint32_t tr, int64_t a) {
  return o->track < tr || (o->track == tr && o->ts <= a);
}

/* One past the last op of thread tr starting at or before a.  Galloping from
 * *hint, the previous answer: the gaps come in time order, mostly from one
 * launching thread, so consecutive answers lie close together. */
static size_t op_upper(const lg_cidx *ix, uint32_t tr, int64_t a, size_t *hint) {
  size_t n = ix->ncpu, h = *hint < n ? *hint : n, lo, hi, step = 1;
  if (h < n && op_le(&ix->cpu[h], tr, a)) {  /* answer > h */
    lo = hi = h + 1;
    while (hi < n && op_le(&ix->cpu[hi], tr, a)) {
      lo = hi + 1;
      hi += step;
      step *= 2;
    }
    if (hi > n) hi = n;
  } else {  /* answer <= h */
    lo = hi = h;
    while (lo > 0 && !op_le(&ix->cpu[lo - 1], tr, a)) {
      hi = lo - 1;
      lo = lo > step ? lo - step : 0;
      step *= 2;
    }
  }
  while (lo < hi) {  /* first in [lo, hi) not at or before a, else hi */
    size_t mid = lo + (hi - lo) / 2;
    if (op_le(&ix->cpu[mid], tr, a)) lo = mid + 1;
    else hi = mid;
  }
  *hint = lo;
  return lo;
}

/* Innermost CPU op of thread tr spanning [a, b), UINT32_MAX if none. */
static uint32_t innermost(const lg_cidx *ix, uint32_t tr, int64_t a, int64_t b, size_t *hint) {
  size_t lo = op_upper(ix, tr, a, hint);
  if (!lo || ix->cpu[lo - 1].track != tr) return UINT32_MAX;
  uint32_t i = (uint32_t)(lo - 1);
  while (i != UINT32_MAX && ix->cpu[i].end < b) i = ix->cpu[i].parent;
  return i;
}

/* First blocking call of thread tr that may overlap [a, ...): the calls of a
 * thread follow one another, so only the one before the first starting at
 * or after a can reach into it. */
static size_t first_blk(const lg_cidx *ix, uint32_t tr, int64_t a) {
  size_t lo = 0, hi = ix->nblk;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    const bcall *o = &ix->blk[mid];
    if (o->track < tr || (o->track == tr && o->ts < a)) lo = mid + 1;
    else hi = mid;
  }
  if (lo && ix->blk[lo - 1].track == tr && ix->blk[lo - 1].end > a) lo--;
  return lo;
}

/* One past the last stream wait issued on track tr at or before t. */
static size_t waits_upto(const lg_cidx *ix, uint32_t tr, int64_t t) {
  size_t lo = 0, hi = ix->nwt;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    const swait *o = &ix->wt[mid];
    if (o->track < tr || (o->track == tr && o->ts <= t)) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/* Launches looked back over for the stream an event was recorded on. */
#define RT_BACK 64

static int tc_lt(const tcall *x, uint32_t tr, int64_t t) {
  return x->track < tr || (x->track == tr && x->ts < t);
}

/* The last call of thread tr in a[0..n) starting before t, or NULL.
 * Galloping from *hint (the previous answer: the gaps come in time order). */
static const tcall *tc_before(const tcall *a, size_t n, uint32_t tr, int64_t t, size_t *hint) {
  size_t h = *hint < n ? *hint : n, lo, hi, step = 1;
  if (h < n && tc_lt(&a[h], tr, t)) {
    lo = hi = h + 1;
    while (hi < n && tc_lt(&a[hi], tr, t)) {
      lo = hi + 1;
      hi += step;
      step *= 2;
    }
    if (hi > n) hi = n;
  } else {
    lo = hi = h;
    while (lo > 0 && !tc_lt(&a[lo - 1], tr, t)) {
      hi = lo - 1;
      lo = lo > step ? lo - step : 0;
      step *= 2;
    }
  }
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (tc_lt(&a[mid], tr, t)) lo = mid + 1;
    else hi = mid;
  }
  *hint = lo;
  return lo && a[lo - 1].track == tr ? &a[lo - 1] : NULL;
}

static const gpu_stream_view *find_stream(const store_views *v, int64_t dev, int64_t stream) {
  size_t lo = 0, hi = v->nstreams;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    const gpu_stream_view *s = &v->streams[mid];
    if (s->device < dev || (s->device == dev && s->stream < stream)) lo = mid + 1;
    else hi = mid;
  }
  if (lo < v->nstreams && v->streams[lo].device == dev && v->streams[lo].stream == stream)
    return &v->streams[lo];
  return NULL;
}

static const ev_rec *launch_of(const fsdpa_ctx *c, const store_views *v, const ev_rec *op) {
  uint32_t ri = store_runtime_for_corr(v, op->corr);
  return ri == UINT32_MAX ? NULL : STORE_REC(&c->st.rt, ri);
}
/* When an op was handed to its stream: its launch call's start, else (no
 * launch call) its own start, which is no earlier. */
static int64_t launch_key(const fsdpa_ctx *c, const store_views *v, const ev_rec *op) {
  const ev_rec *l = launch_of(c, v, op);
  return l ? l->ts : op->ts;
}

/* The op of a stream whose launch call started last before t (ties: the
 * later in stream order), or NULL; ops without a launch call are not
 * counted. */
static const ev_rec *last_launched_before(const fsdpa_ctx *c, const store_views *v,
                                          const lg_cidx *ix, const gpu_stream_view *sv, int64_t t) {
  size_t si = (size_t)(sv - v->streams), lo = ix->lo[si], hi = ix->lo[si + 1], b = lo;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (ix->ls[mid].ts < t) lo = mid + 1;
    else hi = mid;
  }
  return lo > b ? STORE_REC(&c->st.gpu, sv->ops[ix->ls[lo - 1].stream]) : NULL;
}

/* ---- accumulation ---- */

typedef struct tkey {
  int64_t what, ns;
  int cause, wkind;  /* cause < 0: empty slot */
} tkey;

typedef struct acc {
  fsdpa_ctx *c;
  const store_views *v;
  const lg_cidx *ix;
  const qwin *w;
  lg_causes *o;
  int64_t slow_ns;
  tkey *t;
  size_t cap, n;
  int failed;
  size_t hint;  /* innermost()'s previous answer */
  size_t hl, hw, hr;  /* tc_before()'s previous answers in rl, rw, rr */
} acc;

static uint64_t tk_hash(int cause, int wkind, int64_t what) {
  uint64_t h = (uint64_t)what * 0x9E3779B97F4A7C15ull ^ ((uint64_t)(cause * 8 + wkind) << 56);
  return h ^ (h >> 31);
}

static tkey *tk_slot(tkey *t, size_t cap, int cause, int wkind, int64_t what) {
  size_t i = (size_t)tk_hash(cause, wkind, what) & (cap - 1);
  while (t[i].cause >= 0 && !(t[i].cause == cause && t[i].wkind == wkind && t[i].what == what))
    i = (i + 1) & (cap - 1);
  return &t[i];
}

static int tk_grow(acc *A) {
  size_t nc = A->cap ? 2 * A->cap : 64;
  tkey *nt = fa_malloc(&A->c->alloc, nc * sizeof *nt);
  if (!nt) return -1;
  for (size_t i = 0; i < nc; i++) nt[i].cause = -1;
  for (size_t i = 0; i < A->cap; i++)
    if (A->t[i].cause >= 0) *tk_slot(nt, nc, A->t[i].cause, A->t[i].wkind, A->t[i].what) = A->t[i];
  fa_free(&A->c->alloc, A->t, A->cap * sizeof *A->t);
  A->t = nt;
  A->cap = nc;
  return 0;
}

/* A part [a, b) of an idle interval, clipped to the window. */
static void put(acc *A, int cause, int wkind, int64_t what, int64_t a, int64_t b) {
  if (a < A->w->t0) a = A->w->t0;
  if (b > A->w->t1) b = A->w->t1;
  if (b <= a) return;
  A->o->ns[cause] += b - a;
  if (A->failed) return;
  if (2 * (A->n + 1) > A->cap && tk_grow(A)) {
    A->failed = 1;
    return;
  }
  tkey *k = tk_slot(A->t, A->cap, cause, wkind, what);
  if (k->cause < 0) {
    *k = (tkey){what, 0, cause, wkind};
    A->n++;
  }
  k->ns += b - a;
}

static void put_cpu(acc *A, uint32_t tr, int64_t a, int64_t b) {
  if (b <= a) return;
  uint32_t i = innermost(A->ix, tr, a, b, &A->hint);
  if (i == UINT32_MAX) put(A, LG_C_NOT_LAUNCHED, LG_W_NONE, 0, a, b);
  else put(A, LG_C_NOT_LAUNCHED, LG_W_NAME, A->ix->cpu[i].name, a, b);
}

/* Rules 1 and 2 for the launch call L over [a, b); returns when the op was
 * on its stream, clamped to [a, b]. */
static int64_t host_parts(acc *A, const ev_rec *L, int64_t a, int64_t b) {
  int64_t pre = L->ts < b ? L->ts : b, pos = a;
  if (pre > a) {
    for (size_t i = first_blk(A->ix, L->track, a); i < A->ix->nblk; i++) {
      const bcall *k = &A->ix->blk[i];
      if (k->track != L->track || k->ts >= pre) break;
      int64_t s = k->ts > pos ? k->ts : pos, e = k->end < pre ? k->end : pre;
      if (e <= s) continue;
      put_cpu(A, L->track, pos, s);
      put(A, LG_C_BLOCKED, LG_W_NAME, k->name, s, e);
      pos = e;
    }
    put_cpu(A, L->track, pos, pre);
    pos = pre;
  }
  int64_t in_end = L->end < b ? L->end : b;
  if (in_end > pos) {
    /* a synchronous copy launches its own op and blocks like any blocking call */
    if (L->end - L->ts >= A->slow_ns || (store_name_info(&A->c->st, L->name) & SC_BLOCKING_MASK))
      put(A, LG_C_BLOCKED, LG_W_NAME, L->name, pos, in_end);
    else put_cpu(A, L->track, pos, in_end);
    pos = in_end;
  }
  return pos;
}

/* Rules 3 and 4: K (ops[j] of sv, launched by L) queued over [q, g1). */
static void queued_parts(acc *A, const gpu_stream_view *sv, size_t j, const ev_rec *K,
                         const ev_rec *L, int64_t q, int64_t g1) {
  fsdpa_ctx *c = A->c;
  const store_views *v = A->v;
  int64_t prev = j ? launch_key(c, v, STORE_REC(&c->st.gpu, sv->ops[j - 1])) : INT64_MIN;
  const ev_rec *wa = NULL;  /* the awaited op that ends last */
  int64_t wstream = 0;
  for (size_t i = waits_upto(A->ix, sv->track, L->ts); i > 0; i--) {
    const swait *x = &A->ix->wt[i - 1];
    if (x->track != sv->track || x->ts <= prev) break;
    const gpu_stream_view *ws = find_stream(v, sv->device, x->stream);
    if (!ws || ws == sv) continue;
    uint32_t ri = store_runtime_for_corr(v, x->rec_corr);
    int64_t rts = ri == UINT32_MAX ? x->ts : STORE_REC(&c->st.rt, ri)->ts;
    const ev_rec *a = last_launched_before(c, v, A->ix, ws, rts);
    if (a && a->end > q && (!wa || a->end > wa->end)) {
      wa = a;
      wstream = ws->stream;
    }
  }
  if (A->ix->nrw) {
    /* a wait no cuda_sync names (see the top): a cudaStreamWaitEvent of the
     * launching thread after its previous launch waits, for K's stream, on
     * the event of the thread's last cudaEventRecord before it (or, with no
     * record call in the trace, on the wait itself), recorded on the stream
     * of the thread's last launch before that onto another stream: PyTorch
     * records on the current stream right after the work it orders.  The
     * look back is bounded (RT_BACK). */
    const lg_cidx *x = A->ix;
    const tcall *pl = tc_before(x->rl, x->nrl, L->track, L->ts, &A->hl);
    const tcall *wt = tc_before(x->rw, x->nrw, L->track, L->ts + 1, &A->hw);
    if (wt && (!pl || wt->ts > pl->ts)) {
      const tcall *rc = x->nrr ? tc_before(x->rr, x->nrr, L->track, wt->ts, &A->hr) : NULL;
      int64_t at = rc ? rc->ts : wt->ts;
      size_t h2 = A->hl;  /* near pl: keep the hint of the next gap's first search */
      const tcall *rl = tc_before(x->rl, x->nrl, L->track, at, &h2);
      for (int back = 0; rl && back < RT_BACK; back++, rl--) {
        const gpu_stream_view *ws = &v->streams[rl->stream];
        if (rl->track != L->track) break;
        if (ws == sv || ws->device != sv->device) {
          if (rl == x->rl) break;
          continue;
        }
        const ev_rec *a = last_launched_before(c, v, A->ix, ws, at);
        if (a && a->end > q && (!wa || a->end > wa->end)) {
          wa = a;
          wstream = ws->stream;
        }
        break;
      }
    }
  }
  if (wa) {
    int64_t e = wa->end < g1 ? wa->end : g1;
    const ev_rec *la = launch_of(c, v, wa);
    int64_t qa = q;
    if (la && wa->ts > q) qa = host_parts(A, la, q, wa->ts < e ? wa->ts : e);
    uint32_t info = store_name_info(&c->st, wa->name);
    if (wa->kind == RK_KERNEL && (info & NC_COMM))
      put(A, LG_C_RANK_WAIT, LG_W_NAME, wa->name, qa, e);
    else
      put(A, LG_C_STREAM_WAIT, LG_W_STREAM, wstream, qa, e);
    q = e;
  }
  if (q >= g1) return;
  if (K->kind == RK_KERNEL && (store_name_info(&c->st, K->name) & NC_COMM))
    put(A, LG_C_RANK_WAIT, LG_W_NAME, K->name, q, g1);
  else
    put(A, LG_C_UNKNOWN, LG_W_NAME, K->name, q, g1);
}

/* tie order of the top list: heavier, then cause, then what's text */
static int top_before(const fsdpa_ctx *c, const tkey *a, const tkey *b) {
  if (a->ns != b->ns) return a->ns > b->ns;
  if (a->cause != b->cause) return a->cause < b->cause;
  if (a->wkind != b->wkind) return a->wkind < b->wkind;
  if (a->wkind == LG_W_NAME) {
    int r = strcmp(intern_str(&c->st.names, (uint32_t)a->what), intern_str(&c->st.names, (uint32_t)b->what));
    if (r) return r < 0;
  }
  return a->what < b->what;
}

void lg_cause_what(const fsdpa_ctx *c, const lg_cause_top *t, char *b, size_t n) {
  if (t->wkind == LG_W_NAME) snprintf(b, n, "%s", intern_str(&c->st.names, (uint32_t)t->what));
  else if (t->wkind == LG_W_STREAM) snprintf(b, n, "stream %lld", (long long)t->what);
  else if (n) b[0] = 0;
}

fsdpa_status lg_causes_compute(fsdpa_ctx *c, const store_views *v, const lg_cidx *ix,
                               const qwin *w, lg_causes *out) {
  memset(out, 0, sizeof *out);
  size_t nsel = 0;
  for (size_t i = 0; i < v->nstreams; i++) nsel += lg_selected(&v->streams[i], w) != 0;
  if (!nsel) return FSDPA_OK;
  const gpu_stream_view **sel = fa_malloc(&c->alloc, nsel * sizeof *sel);
  size_t *cur = fa_malloc(&c->alloc, nsel * sizeof *cur);
  lg_union U;
  memset(&U, 0, sizeof U);
  acc A = {c, v, ix, w, out, c->params[P_IDLE_SLOW_LAUNCH_NS], NULL, 0, 0, 0, 0, 0, 0, 0};
  fsdpa_status st = FSDPA_OK;
  if (!sel || !cur) {
    st = ctx_fail(c, fa_fail_status(&c->alloc), "out of memory (idle causes)");
    goto done;
  }
  if ((st = lg_union_build(c, v, w, &U))) goto done;
  size_t ns = 0;
  for (size_t i = 0; i < v->nstreams; i++)
    if (lg_selected(&v->streams[i], w)) sel[ns++] = &v->streams[i];
  size_t k0, k1;
  lg_gap_range(U.u, U.n, w->t0, w->t1, &k0, &k1);
  if (k0 < k1)
    for (size_t s = 0; s < ns; s++) cur[s] = lg_first_op_from(&c->st, sel[s], U.u[k0 + 1].s);
  for (size_t k = k0; k < k1; k++) {
    int64_t g0 = U.u[k].e, g1 = U.u[k + 1].s;
    /* the op ending the gap: of those starting at g1, the first launched */
    const ev_rec *K = NULL, *L = NULL;
    const gpu_stream_view *ks = NULL;
    size_t kj = 0;
    for (size_t s = 0; s < ns; s++) {
      size_t i = cur[s];
      while (i < sel[s]->nops && STORE_REC(&c->st.gpu, sel[s]->ops[i])->ts < g1) i++;
      cur[s] = i;
      for (; i < sel[s]->nops; i++) {
        const ev_rec *r = STORE_REC(&c->st.gpu, sel[s]->ops[i]);
        if (r->ts != g1) break;
        if (r->end <= r->ts) continue;
        const ev_rec *l = launch_of(c, v, r);
        if (l && (!L || l->ts < L->ts)) {
          K = r;
          L = l;
          ks = sel[s];
          kj = i;
        }
      }
    }
    int64_t a = g0 > w->t0 ? g0 : w->t0, b = g1 < w->t1 ? g1 : w->t1;
    out->idle_ns += b > a ? b - a : 0;
    if (!K) {
      put(&A, LG_C_UNKNOWN, LG_W_NONE, 0, g0, g1);
      continue;
    }
    int64_t q = host_parts(&A, L, g0, g1);
    if (q < g1) queued_parts(&A, ks, kj, K, L, q, g1);
  }
  if (A.failed) {
    st = ctx_fail(c, fa_fail_status(&c->alloc), "out of memory (idle causes)");
    goto done;
  }
  for (size_t i = 0; i < A.cap; i++) {
    const tkey *t = &A.t[i];
    if (t->cause < 0 || t->ns <= 0) continue;
    int p = out->ntop;
    if (p == LG_CAUSE_TOP) {
      const lg_cause_top *l = &out->top[LG_CAUSE_TOP - 1];
      tkey lk = {l->what, l->ns, l->cause, l->wkind};
      if (!top_before(c, t, &lk)) continue;
      p = LG_CAUSE_TOP - 1;
    } else {
      out->ntop++;
    }
    out->top[p] = (lg_cause_top){t->cause, t->wkind, t->what, t->ns};
    for (; p > 0; p--) {
      const lg_cause_top *u = &out->top[p - 1];
      tkey uk = {u->what, u->ns, u->cause, u->wkind};
      if (!top_before(c, t, &uk)) break;
      lg_cause_top tmp = out->top[p];
      out->top[p] = out->top[p - 1];
      out->top[p - 1] = tmp;
    }
  }
done:
  fa_free(&c->alloc, A.t, A.cap * sizeof *A.t);
  lg_union_free(c, &U);
  fa_free(&c->alloc, cur, nsel * sizeof *cur);
  fa_free(&c->alloc, sel, nsel * sizeof *sel);
  if (st) memset(out, 0, sizeof *out);
  return st;
}
