/* Building the dependency graph (model/depgraph.h): launch and stream-order
 * edges per op, the event waits read from the best evidence each wait has,
 * inferred edges where only timing speaks, and the two per-thread indexes
 * the walk back reads (CPU ops with their parents, blocking calls). */
#include "model/depgraph.h"
#include "events/classify.h"
#include "model/runtime_calls.h"
#include "util/sort.h"
#include <string.h>

/* Launches looked back over for the stream an event was recorded on. */
#define RT_BACK 64

#define CPU_LESS(a, b)                                                                  \
  ((a)->track != (b)->track ? (a)->track < (b)->track                                   \
   : (a)->ts != (b)->ts     ? (a)->ts < (b)->ts                                         \
   : (a)->end != (b)->end   ? (a)->end > (b)->end                                       \
                            : (a)->name < (b)->name)
FA_SORT_DEFINE(sort_cpu, dg_cpu, CPU_LESS)
#define BLK_LESS(a, b)                                                                  \
  ((a)->track != (b)->track ? (a)->track < (b)->track                                   \
   : (a)->ts != (b)->ts     ? (a)->ts < (b)->ts                                         \
   : (a)->end != (b)->end   ? (a)->end < (b)->end                                       \
                            : (a)->rt < (b)->rt)
FA_SORT_DEFINE(sort_blk, dg_block, BLK_LESS)

/* A runtime call of one thread: a launch (op, stream), a wait or a record. */
typedef struct tcall {
  uint32_t track, stream;  /* stream: launches only, index in the views */
  int64_t ts;
  uint32_t op, rt;         /* launches: the op; every call: its st.rt index */
} tcall;
#define TC_LESS(a, b)                                                                   \
  ((a)->track != (b)->track ? (a)->track < (b)->track                                   \
   : (a)->ts != (b)->ts     ? (a)->ts < (b)->ts                                         \
   : (a)->rt != (b)->rt     ? (a)->rt < (b)->rt                                         \
                            : (a)->op < (b)->op)
FA_SORT_DEFINE(sort_tcall, tcall, TC_LESS)

/* An op by when it was handed to its stream. */
typedef struct lop {
  int64_t ts;              /* its launch call's start */
  uint32_t op, pad;
} lop;
#define LOP_LESS(a, b) ((a)->ts != (b)->ts ? (a)->ts < (b)->ts : (a)->op < (b)->op)
FA_SORT_DEFINE(sort_lop, lop, LOP_LESS)

/* A wait before it is attached: on stream s (view index) at time t. */
typedef struct pwait {
  int64_t t;
  uint32_t s, op, call, kind;
} pwait;
#define PW_LESS(a, b)                                                                   \
  ((a)->s != (b)->s ? (a)->s < (b)->s : (a)->t != (b)->t ? (a)->t < (b)->t              \
   : (a)->call != (b)->call ? (a)->call < (b)->call : (a)->op < (b)->op)
FA_SORT_DEFINE(sort_pwait, pwait, PW_LESS)
#define I64_LESS(a, b) (*(a) < *(b))
FA_SORT_DEFINE(sort_i64, int64_t, I64_LESS)

/* An op's end, for "what ended on this device just before t". */
typedef struct oend {
  int64_t dev, end;
  uint32_t op, stream;
} oend;
#define OE_LESS(a, b)                                                                   \
  ((a)->dev != (b)->dev ? (a)->dev < (b)->dev : (a)->end != (b)->end ? (a)->end < (b)->end \
   : (a)->op < (b)->op)
FA_SORT_DEFINE(sort_oend, oend, OE_LESS)

/* Scratch of one build. */
typedef struct bld {
  fsdpa_ctx *c;
  const store_views *v;
  depgraph *g;
  tcall *tl;        /* launches by (thread, start) */
  size_t ntl;
  tcall *tr;        /* event records by (thread, start) */
  size_t ntr;
  lop *lo;          /* per stream, ops by launch start: lo[so[i] .. so[i+1]) */
  size_t nlo, *so;
  pwait *pw;
  size_t npw, cpw;
} bld;

static void *dg_alloc(fsdpa_ctx *c, size_t n) { return n ? fa_malloc(&c->alloc, n) : NULL; }

void dg_free(fsdpa_ctx *c, depgraph *g) {
  if (!g) return;
  if (g->borrowed) {
    memset(g, 0, sizeof *g);
    return;
  }
  size_t n = g->nops;
  fa_free(&c->alloc, g->launch, n * sizeof(uint32_t));
  fa_free(&c->alloc, g->prev, n * sizeof(uint32_t));
  fa_free(&c->alloc, g->stream, n * sizeof(uint32_t));
  fa_free(&c->alloc, g->w_off, (n + 1) * sizeof(uint32_t));
  fa_free(&c->alloc, g->w, g->nw * sizeof(dg_wait));
  fa_free(&c->alloc, g->cpu, g->ncpu * sizeof(dg_cpu));
  fa_free(&c->alloc, g->blk, g->nblk * sizeof(dg_block));
  fa_free(&c->alloc, g->blk_u, g->nblk * sizeof(iv));
  fa_free(&c->alloc, g->te, g->nte * sizeof(dg_tedge));
  fa_free(&c->alloc, g->peer, g->npeer * sizeof(dg_peer));
  dg_order_free(c, g);
  memset(g, 0, sizeof *g);
}

static void bld_free(bld *b) {
  fa_alloc *a = &b->c->alloc;
  fa_free(a, b->tl, b->ntl * sizeof(tcall));
  fa_free(a, b->tr, b->ntr * sizeof(tcall));
  fa_free(a, b->lo, b->nlo * sizeof(lop));
  fa_free(a, b->so, (b->v->nstreams + 1) * sizeof(size_t));
  fa_free(a, b->pw, b->cpw * sizeof(pwait));
}

static fsdpa_status oom(fsdpa_ctx *c) { return ctx_fail(c, fa_fail_status(&c->alloc), "out of memory (dependency graph)"); }

/* ---- per-op edges ---- */

static fsdpa_status ops_build(bld *b) {
  fsdpa_ctx *c = b->c;
  const store *st = &c->st;
  const store_views *v = b->v;
  depgraph *g = b->g;
  size_t n = st->gpu.len;
  g->nops = n;
  g->launch = dg_alloc(c, n * sizeof(uint32_t));
  g->prev = dg_alloc(c, n * sizeof(uint32_t));
  g->stream = dg_alloc(c, n * sizeof(uint32_t));
  g->w_off = fa_calloc(&c->alloc, (n + 1) * sizeof(uint32_t));
  if ((n && (!g->launch || !g->prev || !g->stream)) || !g->w_off) return oom(c);
  for (size_t i = 0; i < n; i++) g->launch[i] = g->prev[i] = g->stream[i] = DG_NONE;
  size_t nl = 0;
  for (size_t s = 0; s < v->nstreams; s++) {
    const gpu_stream_view *sv = &v->streams[s];
    for (size_t j = 0; j < sv->nops; j++) {
      uint32_t op = sv->ops[j];
      g->stream[op] = (uint32_t)s;
      g->prev[op] = j ? sv->ops[j - 1] : DG_NONE;
      g->ev.stream_edges += j != 0;
      uint32_t ri = store_runtime_for_corr(v, STORE_REC(&st->gpu, op)->corr);
      g->launch[op] = ri;
      if (ri != UINT32_MAX) nl++;
    }
  }
  g->ev.ops = n;
  g->ev.launch_edges = nl;
  /* launches per thread, and per stream by launch start */
  if ((b->tl = dg_alloc(c, nl * sizeof(tcall)))) b->ntl = nl;
  if ((b->lo = dg_alloc(c, nl * sizeof(lop)))) b->nlo = nl;
  b->so = fa_malloc(&c->alloc, (v->nstreams + 1) * sizeof(size_t));
  if ((nl && (!b->tl || !b->lo)) || !b->so) return oom(c);
  size_t k = 0;
  for (size_t s = 0; s < v->nstreams; s++) {
    const gpu_stream_view *sv = &v->streams[s];
    b->so[s] = k;
    for (size_t j = 0; j < sv->nops; j++) {
      uint32_t op = sv->ops[j], ri = g->launch[op];
      if (ri == DG_NONE) continue;
      const ev_rec *l = STORE_REC(&st->rt, ri);
      b->tl[k] = (tcall){l->track, (uint32_t)s, l->ts, op, ri};
      b->lo[k++] = (lop){l->ts, op, 0};
    }
    if (k > b->so[s]) sort_lop(b->lo + b->so[s], k - b->so[s]);
  }
  b->so[v->nstreams] = k;
  sort_tcall(b->tl, nl);
  return FSDPA_OK;
}

/* Index of the first call in a[0..n) at or after (tr, t) in (thread, start)
 * order; after: past the calls starting at t too. */
static size_t tc_lower(const tcall *a, size_t n, uint32_t tr, int64_t t, int after) {
  size_t lo = 0, hi = n;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (a[mid].track < tr || (a[mid].track == tr && (a[mid].ts < t || (after && a[mid].ts == t)))) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/* The last call of thread tr in a[0..n) starting before t, or NULL. */
static const tcall *tc_before(const tcall *a, size_t n, uint32_t tr, int64_t t) {
  size_t lo = tc_lower(a, n, tr, t, 0);
  return lo && a[lo - 1].track == tr ? &a[lo - 1] : NULL;
}

/* The first call of thread tr in a[0..n) starting at or after t, or NULL. */
static const tcall *tc_from(const tcall *a, size_t n, uint32_t tr, int64_t t) {
  size_t lo = tc_lower(a, n, tr, t, 0);
  return lo < n && a[lo].track == tr ? &a[lo] : NULL;
}

/* The first call of thread tr in a[0..n) starting after t, or NULL. */
static const tcall *tc_after(const tcall *a, size_t n, uint32_t tr, int64_t t) {
  size_t lo = tc_lower(a, n, tr, t, 1);
  return lo < n && a[lo].track == tr ? &a[lo] : NULL;
}

/* The op of stream s whose launch started last before t, DG_NONE if none. */
static uint32_t last_launched_before(const bld *b, size_t s, int64_t t) {
  size_t lo = b->so[s], hi = b->so[s + 1], base = lo;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (b->lo[mid].ts < t) lo = mid + 1;
    else hi = mid;
  }
  return lo > base ? b->lo[lo - 1].op : DG_NONE;
}

/* The op of stream s whose launch started first after t, DG_NONE if none. */
static uint32_t first_launched_after(const bld *b, size_t s, int64_t t) {
  size_t lo = b->so[s], hi = b->so[s + 1];
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (b->lo[mid].ts <= t) lo = mid + 1;
    else hi = mid;
  }
  return lo < b->so[s + 1] ? b->lo[lo].op : DG_NONE;
}

/* The op a thread's event recorded at time t stands for: the last op
 * launched before t onto the stream of the thread's last launch before t
 * that is not on stream `not` (PyTorch records on the current stream, right
 * after the work it orders), on the same device; DG_NONE if none within
 * RT_BACK launches. */
static uint32_t recorded_op(const bld *b, uint32_t tr, int64_t t, size_t not) {
  const tcall *l = tc_before(b->tl, b->ntl, tr, t);
  int64_t dev = b->v->streams[not].device;
  for (int back = 0; l && back < RT_BACK; back++) {
    if (l->track != tr) break;
    if (l->stream != not && b->v->streams[l->stream].device == dev)
      return last_launched_before(b, l->stream, t);
    if (l == b->tl) break;
    l--;
  }
  return DG_NONE;
}

static int pw_push(bld *b, pwait w) {
  if (b->npw == b->cpw) {
    size_t nc = b->cpw ? 2 * b->cpw : 64;
    pwait *p = fa_realloc(&b->c->alloc, b->pw, b->cpw * sizeof *p, nc * sizeof *p);
    if (!p) return -1;
    b->pw = p;
    b->cpw = nc;
  }
  b->pw[b->npw++] = w;
  return 0;
}

static size_t stream_index(const store_views *v, int64_t dev, int64_t stream) {
  size_t lo = 0, hi = v->nstreams;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    const gpu_stream_view *s = &v->streams[mid];
    if (s->device < dev || (s->device == dev && s->stream < stream)) lo = mid + 1;
    else hi = mid;
  }
  return lo < v->nstreams && v->streams[lo].device == dev && v->streams[lo].stream == stream ? lo : SIZE_MAX;
}

/* Waits named by cuda_sync events; the correlation ids they cover go into
 * *cov (sorted) so their runtime calls are not read again. */
static fsdpa_status sync_waits(bld *b, int64_t **cov, size_t *ncov, size_t *cap) {
  fsdpa_ctx *c = b->c;
  const store *st = &c->st;
  const store_views *v = b->v;
  uint32_t swe = intern_find(&st->names, "Stream Wait Event", 17);
  size_t n = 0;
  for (size_t i = 0; i < st->gsync.len; i++) n += STORE_REC(&st->gsync, i)->aux != AUX_NONE;
  *cov = dg_alloc(c, n * sizeof(int64_t));
  *ncov = 0;
  *cap = *cov ? n : 0;
  if (n && !*cov) return oom(c);
  for (size_t i = 0; i < st->gsync.len; i++) {
    const ev_rec *r = STORE_REC(&st->gsync, i);
    if (r->aux == AUX_NONE) continue;
    const sync_info *y = &FA_VEC_AT(&st->syncs, sync_info, r->aux);
    if (y->wait_on_stream < 0 && (swe == INTERN_NONE || y->sync_kind != swe)) continue;
    const track *t = store_track(st, r->track);
    size_t s = stream_index(v, t->pid, t->tid);
    if (s == SIZE_MAX) continue;  /* nothing ever ran on the waiting stream */
    uint32_t call = r->corr == FSDPA_ABSENT ? DG_NONE : store_runtime_for_corr(v, r->corr);
    if (r->corr != FSDPA_ABSENT) (*cov)[(*ncov)++] = r->corr;
    uint32_t rec = y->wait_on_event_corr >= 0 ? store_runtime_for_corr(v, y->wait_on_event_corr) : DG_NONE;
    pwait w = {r->ts, (uint32_t)s, DG_NONE, call, DG_E_OUTSIDE};
    if (rec != DG_NONE) {
      const ev_rec *R = STORE_REC(&st->rt, rec);
      size_t as = y->wait_on_stream >= 0 ? stream_index(v, v->streams[s].device, y->wait_on_stream) : SIZE_MAX;
      w.op = as != SIZE_MAX ? last_launched_before(b, as, R->ts) : recorded_op(b, R->track, R->ts, s);
      w.kind = DG_E_SYNC;
      if (w.op == DG_NONE) continue;  /* recorded on a stream with nothing before it: satisfied */
    }
    if (pw_push(b, w)) return oom(c);
  }
  sort_i64(*cov, *ncov);
  return FSDPA_OK;
}

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

/* Waits read from the runtime calls alone (no cuda_sync event names them). */
static fsdpa_status runtime_waits(bld *b, const int64_t *cov, size_t ncov) {
  fsdpa_ctx *c = b->c;
  const store *st = &c->st;
  size_t nr = 0;
  for (size_t i = 0; i < st->rt.len; i++)
    nr += (store_name_info(st, STORE_REC(&st->rt, i)->name) & NC_EVENT_RECORD) != 0;
  b->g->ev.record_calls = nr;
  b->tr = dg_alloc(c, nr * sizeof(tcall));
  if (nr && !b->tr) return oom(c);
  for (size_t i = 0; i < st->rt.len; i++) {
    const ev_rec *r = STORE_REC(&st->rt, i);
    if (store_name_info(st, r->name) & NC_EVENT_RECORD)
      b->tr[b->ntr++] = (tcall){r->track, 0, r->ts, DG_NONE, (uint32_t)i};
  }
  sort_tcall(b->tr, b->ntr);
  for (size_t i = 0; i < st->rt.len; i++) {
    const ev_rec *r = STORE_REC(&st->rt, i);
    if (!(store_name_info(st, r->name) & NC_STREAM_WAIT) || covered(cov, ncov, r->corr)) continue;
    /* the stream it holds: the one the thread launches onto next */
    const tcall *nx = tc_after(b->tl, b->ntl, r->track, r->ts);
    if (!nx) continue;
    pwait w = {r->ts, nx->stream, DG_NONE, (uint32_t)i, DG_E_OUTSIDE};
    if (b->ntr) {
      const tcall *rc = tc_before(b->tr, b->ntr, r->track, r->ts);
      if (rc) {
        w.op = recorded_op(b, r->track, rc->ts, nx->stream);
        w.kind = DG_E_RUNTIME;
        if (w.op == DG_NONE) continue;
      }
    } else {
      w.op = recorded_op(b, r->track, r->ts, nx->stream);
      w.kind = w.op == DG_NONE ? DG_E_OUTSIDE : DG_E_GUESS;
    }
    if (pw_push(b, w)) return oom(c);
  }
  return FSDPA_OK;
}

/* Attach each wait to the first op enqueued on its stream after it. */
static fsdpa_status waits_attach(bld *b) {
  fsdpa_ctx *c = b->c;
  depgraph *g = b->g;
  sort_pwait(b->pw, b->npw);
  uint32_t *to = dg_alloc(c, b->npw * sizeof(uint32_t));
  if (b->npw && !to) return oom(c);
  size_t n = 0;
  for (size_t i = 0; i < b->npw; i++) {
    to[i] = first_launched_after(b, b->pw[i].s, b->pw[i].t);
    if (to[i] == DG_NONE) continue;
    g->w_off[to[i] + 1]++;
    n++;
  }
  for (size_t i = 0; i < g->nops; i++) g->w_off[i + 1] += g->w_off[i];
  g->w = dg_alloc(c, n * sizeof(dg_wait));
  if (n && !g->w) {
    fa_free(&c->alloc, to, b->npw * sizeof(uint32_t));
    return oom(c);
  }
  g->nw = g->w ? n : 0;
  /* fill in order, with a cursor per op taken from the offsets */
  uint32_t *cur = dg_alloc(c, g->nops * sizeof(uint32_t));
  if (g->nops && !cur) {
    fa_free(&c->alloc, to, b->npw * sizeof(uint32_t));
    return oom(c);
  }
  for (size_t i = 0; i < g->nops; i++) cur[i] = g->w_off[i];
  for (size_t i = 0; i < b->npw; i++) {
    if (to[i] == DG_NONE) continue;
    const pwait *p = &b->pw[i];
    g->w[cur[to[i]]++] = (dg_wait){p->op, p->call, p->kind, 0};
    g->ev.waits[p->kind]++;
  }
  fa_free(&c->alloc, cur, g->nops * sizeof(uint32_t));
  fa_free(&c->alloc, to, b->npw * sizeof(uint32_t));
  return FSDPA_OK;
}

/* The end of the latest known dependency of op (launch end, stream
 * predecessor, waits other than outside ones); INT64_MIN when none. */
static int64_t known_ready(const fsdpa_ctx *c, const depgraph *g, uint32_t op) {
  const store *st = &c->st;
  int64_t t = INT64_MIN;
  if (g->launch[op] != DG_NONE) t = STORE_REC(&st->rt, g->launch[op])->end;
  if (g->prev[op] != DG_NONE && STORE_REC(&st->gpu, g->prev[op])->end > t) t = STORE_REC(&st->gpu, g->prev[op])->end;
  for (uint32_t k = g->w_off[op]; k < g->w_off[op + 1]; k++)
    if (g->w[k].op != DG_NONE && STORE_REC(&st->gpu, g->w[k].op)->end > t) t = STORE_REC(&st->gpu, g->w[k].op)->end;
  return t;
}

/* Inferred edges: an op queued past every known dependency whose start
 * follows the end of an op on another stream of its device within the lag. */
static fsdpa_status timing_edges(bld *b) {
  fsdpa_ctx *c = b->c;
  const store *st = &c->st;
  depgraph *g = b->g;
  int64_t lag = c->params[P_DG_INFERRED_LAG_NS];
  size_t n = g->nops, cand = 0;
  if (!n) return FSDPA_OK;
  oend *e = fa_malloc(&c->alloc, n * sizeof *e);
  uint32_t *add = fa_malloc(&c->alloc, n * sizeof *add);
  if (!e || !add) {
    fa_free(&c->alloc, e, n * sizeof *e);
    fa_free(&c->alloc, add, n * sizeof *add);
    return oom(c);
  }
  size_t m = 0;
  for (size_t i = 0; i < n; i++) {
    if (g->stream[i] == DG_NONE) continue;
    const ev_rec *r = STORE_REC(&st->gpu, i);
    e[m++] = (oend){b->v->streams[g->stream[i]].device, r->end, (uint32_t)i, g->stream[i]};
  }
  sort_oend(e, m);
  for (size_t i = 0; i < n; i++) {
    add[i] = DG_NONE;
    if (g->stream[i] == DG_NONE || g->launch[i] == DG_NONE) continue;
    const ev_rec *r = STORE_REC(&st->gpu, i);
    if (STORE_REC(&st->rt, g->launch[i])->end >= r->ts) continue;  /* not queued */
    if (known_ready(c, g, (uint32_t)i) + lag >= r->ts) continue;     /* explained */
    int64_t dev = b->v->streams[g->stream[i]].device;
    size_t lo = 0, hi = m;  /* last end at or before r->ts on dev */
    while (lo < hi) {
      size_t mid = lo + (hi - lo) / 2;
      if (e[mid].dev < dev || (e[mid].dev == dev && e[mid].end <= r->ts)) lo = mid + 1;
      else hi = mid;
    }
    for (size_t k = lo; k > 0; k--) {
      const oend *x = &e[k - 1];
      if (x->dev != dev || r->ts - x->end > lag) break;
      if (x->stream == g->stream[i]) continue;
      add[i] = x->op;
      if (r->ts - x->end > g->ev.timing_max_lag_ns) g->ev.timing_max_lag_ns = r->ts - x->end;
      cand++;
      break;
    }
  }
  fa_free(&c->alloc, e, n * sizeof *e);
  if (cand) {
    dg_wait *nw = fa_malloc(&c->alloc, (g->nw + cand) * sizeof *nw);
    if (!nw) {
      fa_free(&c->alloc, add, n * sizeof *add);
      return oom(c);
    }
    size_t k = 0;
    uint32_t off = 0;
    for (size_t i = 0; i < n; i++) {
      uint32_t s0 = g->w_off[i], s1 = g->w_off[i + 1];
      g->w_off[i] = off;
      for (uint32_t j = s0; j < s1; j++) nw[k++] = g->w[j];
      if (add[i] != DG_NONE) nw[k++] = (dg_wait){add[i], DG_NONE, DG_E_TIMING, 0};
      off = (uint32_t)k;
    }
    g->w_off[n] = off;
    fa_free(&c->alloc, g->w, g->nw * sizeof *g->w);
    g->w = nw;
    g->nw += cand;
    g->ev.waits[DG_E_TIMING] = cand;
  }
  fa_free(&c->alloc, add, n * sizeof *add);
  return FSDPA_OK;
}

/* ---- per-thread indexes ---- */

static fsdpa_status threads_build(bld *b) {
  fsdpa_ctx *c = b->c;
  const store *st = &c->st;
  depgraph *g = b->g;
  sc_set bs;
  fsdpa_status s = sc_build(c, SC_BLOCKING_MASK, &bs);
  if (s) return s;
  /* the calls that blocked: named ones of the blocking classes, or ones that
   * blocked by behaviour (a stream-ordered free selected by its free bit
   * does not) */
  size_t nb = 0;
  for (size_t i = 0; i < bs.n; i++) nb += sc_is_blocking(&bs.v[i]) != 0;
  if ((g->cpu = dg_alloc(c, st->cpu.len * sizeof(dg_cpu)))) g->ncpu = st->cpu.len;
  if ((g->blk = dg_alloc(c, nb * sizeof(dg_block)))) g->nblk = nb;
  if ((st->cpu.len && !g->cpu) || (nb && !g->blk)) {
    sc_free(c, &bs);
    return oom(c);
  }
  for (size_t i = 0, k = 0; i < bs.n; i++)
    if (sc_is_blocking(&bs.v[i]))
      g->blk[k++] = (dg_block){bs.v[i].track, bs.v[i].name, bs.v[i].ts, bs.v[i].end, bs.v[i].rt, bs.v[i].op};
  sc_free(c, &bs);
  sort_blk(g->blk, g->nblk);
  /* kept at nblk entries so dg_free knows its size */
  if (g->nblk && !(g->blk_u = fa_malloc(&c->alloc, g->nblk * sizeof(iv)))) return oom(c);
  for (size_t i = 0; i < g->nblk; i++) g->blk_u[i] = (iv){g->blk[i].ts, g->blk[i].end};
  g->nblk_u = iv_union(g->blk_u, g->nblk);
  for (size_t i = 0; i < g->ncpu; i++) {
    const ev_rec *r = STORE_REC(&st->cpu, i);
    g->cpu[i] = (dg_cpu){r->track, r->name, r->ts, r->end, DG_NONE, 0};
  }
  sort_cpu(g->cpu, g->ncpu);
  /* parents by a walk up from the previous op; ops that overlap without
   * nesting get the latest open one, which still contains their start */
  uint32_t top = DG_NONE;
  for (size_t i = 0; i < g->ncpu; i++) {
    dg_cpu *o = &g->cpu[i];
    if (top != DG_NONE && g->cpu[top].track != o->track) top = DG_NONE;
    while (top != DG_NONE && g->cpu[top].end <= o->ts) top = g->cpu[top].parent;
    o->parent = top;
    top = (uint32_t)i;
    const tcall *l = tc_from(b->tl, b->ntl, o->track, o->ts);
    if (l && l->ts < o->end) o->flags |= DG_CPU_LAUNCHES;
  }
  return FSDPA_OK;
}

/* Thread edges (model/depgraph.h): over the calls of the threads that
 * launch GPU work. */
typedef struct cend {
  int64_t end;
  uint32_t rt, track;
} cend;
#define CE_LESS(a, b) ((a)->end != (b)->end ? (a)->end < (b)->end : (a)->rt < (b)->rt)
FA_SORT_DEFINE(sort_cend, cend, CE_LESS)
typedef struct tcs {
  uint32_t track, rt;
  int64_t ts, end;
} tcs;
#define TCS_LESS(a, b) ((a)->track != (b)->track ? (a)->track < (b)->track : (a)->ts != (b)->ts ? (a)->ts < (b)->ts : (a)->rt < (b)->rt)
FA_SORT_DEFINE(sort_tcs, tcs, TCS_LESS)

static fsdpa_status thread_edges(bld *b) {
  fsdpa_ctx *c = b->c;
  const store *st = &c->st;
  depgraph *g = b->g;
  size_t nt = st->tracks.len;
  if (!nt || !st->rt.len) return FSDPA_OK;
  uint8_t *launches = fa_calloc(&c->alloc, nt);
  if (!launches) return oom(c);
  size_t nl = 0;
  for (size_t i = 0; i < b->ntl; i++)
    if (b->tl[i].track < nt && !launches[b->tl[i].track]) {
      launches[b->tl[i].track] = 1;
      nl++;
    }
  size_t n = 0;
  for (size_t i = 0; i < st->rt.len; i++) {
    const ev_rec *r = STORE_REC(&st->rt, i);
    n += r->track < nt && launches[r->track];
  }
  if (nl < 2 || !n) {
    fa_free(&c->alloc, launches, nt);
    return FSDPA_OK;
  }
  cend *e = fa_malloc(&c->alloc, n * sizeof *e);
  tcs *t = fa_malloc(&c->alloc, n * sizeof *t);
  dg_tedge *te = fa_malloc(&c->alloc, n * sizeof *te);
  if (!e || !t || !te) {
    fa_free(&c->alloc, e, n * sizeof *e);
    fa_free(&c->alloc, t, n * sizeof *t);
    fa_free(&c->alloc, te, n * sizeof *te);
    fa_free(&c->alloc, launches, nt);
    return oom(c);
  }
  size_t k = 0;
  for (size_t i = 0; i < st->rt.len; i++) {
    const ev_rec *r = STORE_REC(&st->rt, i);
    if (r->track >= nt || !launches[r->track]) continue;
    e[k] = (cend){r->end, (uint32_t)i, r->track};
    t[k++] = (tcs){r->track, (uint32_t)i, r->ts, r->end};
  }
  sort_cend(e, n);
  sort_tcs(t, n);
  int64_t gap_min = c->params[P_DG_THREAD_GAP_MIN_NS], wake = c->params[P_DG_THREAD_WAKE_NS];
  size_t m = 0;
  for (size_t i = 1; i < n; i++) {
    if (t[i].track != t[i - 1].track) continue;
    int64_t a = t[i - 1].end, r0 = t[i].ts;
    if (r0 - a < gap_min) continue;
    /* the latest call of another launching thread ending in (a, r0], within the wake lag */
    size_t lo = 0, hi = n;
    while (lo < hi) {
      size_t mid = lo + (hi - lo) / 2;
      if (e[mid].end <= r0) lo = mid + 1;
      else hi = mid;
    }
    for (size_t j = lo; j > 0; j--) {
      const cend *x = &e[j - 1];
      if (x->end <= a || r0 - x->end > wake) break;
      if (x->track == t[i].track) continue;
      /* a handoff: that thread went quiet as this one resumed (its next
       * call comes after r0), not a thread that keeps polling beside it */
      const tcs *nx = NULL;
      {
        size_t l2 = 0, h2 = n;
        while (l2 < h2) {
          size_t mid = l2 + (h2 - l2) / 2;
          if (t[mid].track < x->track || (t[mid].track == x->track && t[mid].ts <= x->end)) l2 = mid + 1;
          else h2 = mid;
        }
        if (l2 < n && t[l2].track == x->track) nx = &t[l2];
      }
      if (nx && nx->ts <= r0) break;
      te[m++] = (dg_tedge){t[i].rt, x->rt};
      if (r0 - x->end > g->ev.thread_max_lag_ns) g->ev.thread_max_lag_ns = r0 - x->end;
      break;
    }
  }
  fa_free(&c->alloc, e, n * sizeof *e);
  fa_free(&c->alloc, t, n * sizeof *t);
  fa_free(&c->alloc, launches, nt);
  if (!m) {
    fa_free(&c->alloc, te, n * sizeof *te);
    return FSDPA_OK;
  }
  dg_tedge *fit = fa_realloc(&c->alloc, te, n * sizeof *te, m * sizeof *te);
  if (!fit) {
    fa_free(&c->alloc, te, n * sizeof *te);
    return oom(c);
  }
  /* sorted by rt for lookups */
  for (size_t i = 1; i < m; i++) {
    dg_tedge x = fit[i];
    size_t j = i;
    for (; j > 0 && fit[j - 1].rt > x.rt; j--) fit[j] = fit[j - 1];
    fit[j] = x;
  }
  g->te = fit;
  g->nte = m;
  g->ev.thread_edges = m;
  return FSDPA_OK;
}

int64_t dg_cpu_time(const depgraph *g, uint32_t tr, int64_t a, int64_t b) {
  size_t lo = 0, hi = g->ncpu;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (g->cpu[mid].track < tr || (g->cpu[mid].track == tr && g->cpu[mid].ts < a)) lo = mid + 1;
    else hi = mid;
  }
  int64_t t = 0, reach = a;
  for (size_t i = lo; i < g->ncpu && g->cpu[i].track == tr && g->cpu[i].ts < b; i++) {
    int64_t s = g->cpu[i].ts > reach ? g->cpu[i].ts : reach, e = g->cpu[i].end < b ? g->cpu[i].end : b;
    if (e > s) {
      t += e - s;
      reach = e;
    }
  }
  return t;
}

const dg_tedge *dg_thread_edge(const depgraph *g, uint32_t rt) {
  size_t lo = 0, hi = g->nte;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (g->te[mid].rt < rt) lo = mid + 1;
    else hi = mid;
  }
  return lo < g->nte && g->te[lo].rt == rt ? &g->te[lo] : NULL;
}

/* ---- collectives that waited for later peers ---- */

typedef struct pkey {
  uint32_t name, coll, dtype, pg;
  int64_t in_n, out_n, dur;
  uint32_t op, pad;
} pkey;
#define PK_SAME(a, b)                                                                                   \
  ((a)->name == (b)->name && (a)->coll == (b)->coll && (a)->dtype == (b)->dtype && (a)->pg == (b)->pg && \
   (a)->in_n == (b)->in_n && (a)->out_n == (b)->out_n)
static int pk_less(const pkey *a, const pkey *b) {
  if (a->name != b->name) return a->name < b->name;
  if (a->coll != b->coll) return a->coll < b->coll;
  if (a->dtype != b->dtype) return a->dtype < b->dtype;
  if (a->pg != b->pg) return a->pg < b->pg;
  if (a->in_n != b->in_n) return a->in_n < b->in_n;
  if (a->out_n != b->out_n) return a->out_n < b->out_n;
  if (a->dur != b->dur) return a->dur < b->dur;
  return a->op < b->op;
}
#define PK_LESS(a, b) pk_less(a, b)
FA_SORT_DEFINE(sort_pkey, pkey, PK_LESS)
#define PEER_LESS(a, b) ((a)->op < (b)->op)
FA_SORT_DEFINE(sort_peer, dg_peer, PEER_LESS)

/* The same collective with the same element counts moves the same bytes:
 * its shortest instance is the transfer, and an instance much longer spent
 * the rest waiting for the ranks that joined after it. */
static fsdpa_status peer_waits(bld *b) {
  fsdpa_ctx *c = b->c;
  const store *st = &c->st;
  depgraph *g = b->g;
  size_t n = 0;
  for (size_t i = 0; i < st->gpu.len; i++) {
    const ev_rec *r = STORE_REC(&st->gpu, i);
    n += r->kind == RK_KERNEL && (store_name_info(st, r->name) & NC_COMM) && r->aux != AUX_NONE &&
         r->aux < st->colls.len;
  }
  if (!n) return FSDPA_OK;
  pkey *k = fa_malloc(&c->alloc, n * sizeof *k);
  if (!k) return oom(c);
  size_t m = 0;
  for (size_t i = 0; i < st->gpu.len; i++) {
    const ev_rec *r = STORE_REC(&st->gpu, i);
    if (!(r->kind == RK_KERNEL && (store_name_info(st, r->name) & NC_COMM) && r->aux != AUX_NONE &&
          r->aux < st->colls.len))
      continue;
    const coll_info *x = &FA_VEC_AT(&st->colls, coll_info, r->aux);
    if (x->in_nelems == FSDPA_ABSENT && x->out_nelems == FSDPA_ABSENT) continue;  /* no size: no peer */
    k[m++] = (pkey){r->name, x->coll_name, x->dtype, x->pg_name, x->in_nelems, x->out_nelems, r->end - r->ts,
                    (uint32_t)i, 0};
  }
  sort_pkey(k, m);
  int64_t min_wait = c->params[P_DG_PEER_WAIT_NS];
  size_t np = 0;
  for (size_t i = 0, j; i < m; i = j) {
    for (j = i + 1; j < m && PK_SAME(&k[i], &k[j]); j++)
      if (k[j].dur - k[i].dur >= min_wait && k[j].dur >= 2 * k[i].dur) np++;
  }
  if (np && !(g->peer = fa_malloc(&c->alloc, np * sizeof(dg_peer)))) {
    fa_free(&c->alloc, k, n * sizeof *k);
    return oom(c);
  }
  for (size_t i = 0, j; i < m; i = j)
    for (j = i + 1; j < m && PK_SAME(&k[i], &k[j]); j++)
      if (k[j].dur - k[i].dur >= min_wait && k[j].dur >= 2 * k[i].dur)
        g->peer[g->npeer++] = (dg_peer){k[j].op, 0, k[i].dur};
  fa_free(&c->alloc, k, n * sizeof *k);
  sort_peer(g->peer, g->npeer);
  return FSDPA_OK;
}

int64_t dg_peer_xfer(const depgraph *g, uint32_t k) {
  size_t lo = 0, hi = g->npeer;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (g->peer[mid].op < k) lo = mid + 1;
    else hi = mid;
  }
  return lo < g->npeer && g->peer[lo].op == k ? g->peer[lo].xfer_ns : -1;
}

static fsdpa_status dg_build(fsdpa_ctx *c, void *obj, const void *arg) {
  (void)arg;
  depgraph *g = obj;
  memset(g, 0, sizeof *g);
  const store_views *v = ctx_views(c);
  if (!v) return fa_fail_status(&c->alloc);
  bld b = {c, v, g, NULL, 0, NULL, 0, NULL, 0, NULL, NULL, 0, 0};
  int64_t *cov = NULL;
  size_t ncov = 0, cap = 0;
  fsdpa_status s = ops_build(&b);
  if (!s) s = sync_waits(&b, &cov, &ncov, &cap);
  if (!s) s = runtime_waits(&b, cov, ncov);
  fa_free(&c->alloc, cov, cap * sizeof(int64_t));
  if (!s) s = waits_attach(&b);
  if (!s) s = timing_edges(&b);
  if (!s) s = thread_edges(&b);
  if (!s) s = threads_build(&b);
  if (!s) s = peer_waits(&b);
  if (!s) s = dg_order_build(c, g);
  bld_free(&b);
  if (s) dg_free(c, g);
  return s;
}

static void dg_cache_free(fsdpa_ctx *c, void *obj) {
  dg_free(c, obj);
  fa_free(&c->alloc, obj, sizeof(depgraph));
}

fsdpa_status dg_get(fsdpa_ctx *c, depgraph *out) {
  memset(out, 0, sizeof *out);
  const void *k;
  fsdpa_status s = ctx_cache_obtain(c, CACHE_DEPGRAPH, sizeof *out, dg_build, NULL, dg_cache_free, &k);
  if (s) return s;
  *out = *(const depgraph *)k;
  out->borrowed = 1;
  return FSDPA_OK;
}

/* ---- lookups ---- */

static int cpu_le(const dg_cpu *o, uint32_t tr, int64_t a) {
  return o->track < tr || (o->track == tr && o->ts <= a);
}

/* One past the last op of thread tr starting at or before a, galloping from
 * *hint. */
static size_t cpu_upper(const depgraph *g, uint32_t tr, int64_t a, size_t *hint) {
  size_t n = g->ncpu, h = *hint < n ? *hint : n, lo, hi, step = 1;
  if (h < n && cpu_le(&g->cpu[h], tr, a)) {
    lo = hi = h + 1;
    while (hi < n && cpu_le(&g->cpu[hi], tr, a)) {
      lo = hi + 1;
      hi += step;
      step *= 2;
    }
    if (hi > n) hi = n;
  } else {
    lo = hi = h;
    while (lo > 0 && !cpu_le(&g->cpu[lo - 1], tr, a)) {
      hi = lo - 1;
      lo = lo > step ? lo - step : 0;
      step *= 2;
    }
  }
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (cpu_le(&g->cpu[mid], tr, a)) lo = mid + 1;
    else hi = mid;
  }
  *hint = lo;
  return lo;
}

uint32_t dg_cpu_innermost(const depgraph *g, uint32_t tr, int64_t a, int64_t b, size_t *hint) {
  size_t lo = cpu_upper(g, tr, a, hint);
  if (!lo || g->cpu[lo - 1].track != tr) return DG_NONE;
  uint32_t i = (uint32_t)(lo - 1);
  while (i != DG_NONE && g->cpu[i].end < b) i = g->cpu[i].parent;
  return i;
}

size_t dg_block_first(const depgraph *g, uint32_t tr, int64_t a) {
  size_t lo = 0, hi = g->nblk;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    const dg_block *o = &g->blk[mid];
    if (o->track < tr || (o->track == tr && o->ts < a)) lo = mid + 1;
    else hi = mid;
  }
  if (lo && g->blk[lo - 1].track == tr && g->blk[lo - 1].end > a) lo--;
  return lo;
}
