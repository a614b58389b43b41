/* Replaying the dependency graph (model/depgraph.h): the critical path of
 * the trace and what a finding's fix would save.
 *
 * Every runtime call and GPU op is replayed in the order the trace ran them
 * (by start).  A CPU thread keeps the time it spent between its runtime
 * calls; a call keeps its duration, and a blocking call that waited for a GPU
 * op ends when that op ends plus the call's own return time; a GPU op starts
 * when its last known dependency (launch call start, the op before it on its
 * stream, the ops it waits for) allows, plus the slack the trace shows after
 * it (launch latency, dispatch, or a wait the trace cannot place), and never
 * before its recorded start when it waited for an event recorded outside
 * the trace (that event does not move); a collective that waited for later
 * ranks never ends before its recorded end (the other ranks are not
 * replayed).  Replayed
 * as recorded, every time comes out exactly as in the trace; a what-if
 * changes the named edges (calls that take no time, ops that take none, CPU
 * time removed from a thread, unexplained waits gone) and replays, so the
 * saving is recomputed through every dependency, not subtracted.
 *
 * The critical path walks back from the op or call that ends last through
 * the dependency that bound each start, so its segments tile its time span
 * exactly and their categories sum to its length. */
#include "model/depgraph.h"
#include "events/classify.h"
#include "util/sort.h"
#include <string.h>

enum { B_NONE, B_LAUNCH, B_PREV, B_WAIT };

typedef struct sim {
  fsdpa_ctx *c;
  const depgraph *g;
  size_t nrt, nop;
  const uint32_t *rt_order;   /* the graph's fixed orders (dg_order) */
  const uint32_t *op_order;
  const uint32_t *rt_wait;
  const uint32_t *rt_prev;
  const uint32_t *w_off, *w_rt;
  int64_t *rs, *re;     /* per call: replayed start / end */
  int64_t *os, *oe;     /* per op */
  uint8_t *ob;          /* per op: B_* of the dependency that bound its start (baseline) */
  uint32_t *obi;        /* per op: that dependency (st.rt or st.gpu index) */
  int64_t *delta;       /* per track: replayed - recorded time of the thread now */
  int64_t *last_end;    /* per track: recorded end of its last call */
  int64_t *delta_prev;  /* per track: its shift when that call ended */
  size_t ntracks;
} sim;

/* Sorting indexes by a record's start needs the records: kept in a small
 * struct beside each index while sorting. */
typedef struct ikey {
  int64_t ts;
  uint32_t i, track;
} ikey;
#define IK_LESS(a, b) ((a)->ts != (b)->ts ? (a)->ts < (b)->ts : (a)->i < (b)->i)
FA_SORT_DEFINE(sort_ikey, ikey, IK_LESS)
#define IKT_LESS(a, b) ((a)->track != (b)->track ? (a)->track < (b)->track : IK_LESS(a, b))
FA_SORT_DEFINE(sort_ikey_track, ikey, IKT_LESS)

static void *zalloc(fa_alloc *a, size_t n) { return n ? fa_calloc(a, n) : NULL; }

void dg_order_free(fsdpa_ctx *c, depgraph *g) {
  fa_alloc *a = &c->alloc;
  dg_order *o = &g->ord;
  fa_free(a, o->rt_order, o->nrt * sizeof(uint32_t));
  fa_free(a, o->op_order, g->nops * sizeof(uint32_t));
  fa_free(a, o->rt_wait, o->nrt * sizeof(uint32_t));
  fa_free(a, o->rt_prev, o->nrt * sizeof(uint32_t));
  fa_free(a, o->w_off, (g->nops + 1) * sizeof(uint32_t));
  fa_free(a, o->w_rt, g->nblk * sizeof(uint32_t));
  memset(o, 0, sizeof *o);
}

fsdpa_status dg_order_build(fsdpa_ctx *c, depgraph *g) {
  const store *st = &c->st;
  fa_alloc *a = &c->alloc;
  dg_order *o = &g->ord;
  size_t nrt = st->rt.len, nop = g->nops;
  o->nrt = nrt;
  size_t nk = nrt > nop ? nrt : nop;
  ikey *k = nk ? fa_malloc(a, nk * sizeof *k) : NULL;
  uint32_t *fill = zalloc(a, nop * sizeof(uint32_t));
  o->rt_order = zalloc(a, nrt * sizeof(uint32_t));
  o->op_order = zalloc(a, nop * sizeof(uint32_t));
  o->rt_wait = zalloc(a, nrt * sizeof(uint32_t));
  o->rt_prev = zalloc(a, nrt * sizeof(uint32_t));
  o->w_off = fa_calloc(a, (nop + 1) * sizeof(uint32_t));
  o->w_rt = zalloc(a, g->nblk * sizeof(uint32_t));
  if ((nk && !k) || (nop && (!fill || !o->op_order)) || (nrt && (!o->rt_order || !o->rt_wait || !o->rt_prev)) ||
      !o->w_off || (g->nblk && !o->w_rt)) {
    fa_free(a, k, nk * sizeof *k);
    fa_free(a, fill, nop * sizeof(uint32_t));
    dg_order_free(c, g);
    return ctx_fail(c, fa_fail_status(a), "out of memory (dependency graph)");
  }
  /* calls by start, and each call's predecessor on its thread */
  for (size_t i = 0; i < nrt; i++) {
    const ev_rec *r = STORE_REC(&st->rt, i);
    k[i] = (ikey){r->ts, (uint32_t)i, r->track};
  }
  sort_ikey_track(k, nrt);
  for (size_t i = 0; i < nrt; i++) o->rt_prev[k[i].i] = i && k[i - 1].track == k[i].track ? k[i - 1].i : DG_NONE;
  sort_ikey(k, nrt);
  for (size_t i = 0; i < nrt; i++) o->rt_order[i] = k[i].i;
  for (size_t i = 0; i < nop; i++) {
    const ev_rec *r = STORE_REC(&st->gpu, i);
    k[i] = (ikey){r->ts, (uint32_t)i, 0};
  }
  sort_ikey(k, nop);
  for (size_t i = 0; i < nop; i++) o->op_order[i] = k[i].i;
  fa_free(a, k, nk * sizeof *k);
  /* blocking calls and the op each waited for; per op the calls waiting */
  for (size_t i = 0; i < nrt; i++) o->rt_wait[i] = DG_NONE;
  for (size_t i = 0; i < g->nblk; i++)
    if (g->blk[i].op != DG_NONE && g->blk[i].op < nop) {
      o->rt_wait[g->blk[i].rt] = g->blk[i].op;
      o->w_off[g->blk[i].op + 1]++;
    }
  for (size_t i = 0; i < nop; i++) o->w_off[i + 1] += o->w_off[i];
  for (size_t i = 0; i < g->nblk; i++)
    if (g->blk[i].op != DG_NONE && g->blk[i].op < nop)
      o->w_rt[o->w_off[g->blk[i].op] + fill[g->blk[i].op]++] = g->blk[i].rt;
  fa_free(a, fill, nop * sizeof(uint32_t));
  return FSDPA_OK;
}

static void sim_free(sim *s) {
  fa_alloc *a = &s->c->alloc;
  fa_free(a, s->rs, s->nrt * sizeof(int64_t));
  fa_free(a, s->re, s->nrt * sizeof(int64_t));
  fa_free(a, s->os, s->nop * sizeof(int64_t));
  fa_free(a, s->oe, s->nop * sizeof(int64_t));
  fa_free(a, s->ob, s->nop);
  fa_free(a, s->obi, s->nop * sizeof(uint32_t));
  fa_free(a, s->delta, s->ntracks * sizeof(int64_t));
  fa_free(a, s->last_end, s->ntracks * sizeof(int64_t));
  fa_free(a, s->delta_prev, s->ntracks * sizeof(int64_t));
  memset(s, 0, sizeof *s);
}

static fsdpa_status sim_open(fsdpa_ctx *c, const depgraph *g, sim *s) {
  memset(s, 0, sizeof *s);
  s->c = c;
  s->g = g;
  const store *st = &c->st;
  fa_alloc *a = &c->alloc;
  s->nrt = g->ord.nrt;
  s->nop = g->nops;
  s->ntracks = st->tracks.len ? st->tracks.len : 1;
  s->rt_order = g->ord.rt_order;
  s->op_order = g->ord.op_order;
  s->rt_wait = g->ord.rt_wait;
  s->rt_prev = g->ord.rt_prev;
  s->w_off = g->ord.w_off;
  s->w_rt = g->ord.w_rt;
  s->rs = zalloc(a, s->nrt * sizeof(int64_t));
  s->re = zalloc(a, s->nrt * sizeof(int64_t));
  s->os = zalloc(a, s->nop * sizeof(int64_t));
  s->oe = zalloc(a, s->nop * sizeof(int64_t));
  s->ob = zalloc(a, s->nop);
  s->obi = zalloc(a, s->nop * sizeof(uint32_t));
  s->delta = fa_calloc(a, s->ntracks * sizeof(int64_t));
  s->last_end = fa_calloc(a, s->ntracks * sizeof(int64_t));
  s->delta_prev = fa_calloc(a, s->ntracks * sizeof(int64_t));
  if (!s->delta_prev || (s->nrt && (!s->rs || !s->re)) || (s->nop && (!s->os || !s->oe || !s->ob || !s->obi)) ||
      !s->delta || !s->last_end || !s->w_off) {
    sim_free(s);
    return ctx_fail(c, fa_fail_status(a), "out of memory (critical path)");
  }
  return FSDPA_OK;
}

/* |[a, b) ∩ cuts of thread tr| (m->cut sorted by (track, s), disjoint per track). */
static int64_t cut_len(const dg_mods *m, uint32_t tr, int64_t a, int64_t b) {
  if (!m || !m->ncut || b <= a) return 0;
  size_t lo = 0, hi = m->ncut;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (m->cut_track[mid] < tr || (m->cut_track[mid] == tr && m->cut[mid].e <= a)) lo = mid + 1;
    else hi = mid;
  }
  int64_t t = 0;
  for (size_t i = lo; i < m->ncut && m->cut_track[i] == tr && m->cut[i].s < b; i++) {
    int64_t s = m->cut[i].s > a ? m->cut[i].s : a, e = m->cut[i].e < b ? m->cut[i].e : b;
    if (e > s) t += e - s;
  }
  return t;
}

static int in_mods(const dg_mods *m, int64_t t) { return m && t >= m->t0 && t < m->t1; }

/* A blocking call's end once the op it waited for has its replayed end. */
static void block_end(sim *s, const dg_mods *m, uint32_t i) {
  const ev_rec *r = STORE_REC(&s->c->st.rt, i);
  uint32_t w = s->rt_wait[i];
  const ev_rec *o = STORE_REC(&s->c->st.gpu, w);
  int64_t ret = r->end - o->end;                 /* its own return after the op (may be < 0) */
  int64_t own = o->end <= r->ts ? r->end - r->ts : (ret > 0 ? ret : 0);
  int64_t e;
  if (m && m->rt_zero && in_mods(m, r->ts) && m->rt_zero[i]) e = s->rs[i];
  else if (m && m->cpu_zero && in_mods(m, r->ts)) e = s->rs[i] > s->oe[w] ? s->rs[i] : s->oe[w];
  else {
    own -= cut_len(m, r->track, r->ts, r->end);
    if (own < 0) own = 0;
    e = s->rs[i] + own;
    if (s->oe[w] + ret > e) e = s->oe[w] + ret;
  }
  s->re[i] = e;
  s->delta[r->track] = e - r->end;
  s->delta_prev[r->track] = s->delta[r->track];
}

static void start_call(sim *s, const dg_mods *m, uint32_t i) {
  const ev_rec *r = STORE_REC(&s->c->st.rt, i);
  uint32_t tr = r->track < s->ntracks ? r->track : 0;
  int64_t prev = s->last_end[tr];
  if (prev && r->ts > prev) {  /* CPU time since the thread's last call */
    if (m && m->cpu_zero && in_mods(m, r->ts)) s->delta[tr] -= r->ts - prev;
    else s->delta[tr] -= cut_len(m, tr, prev, r->ts);
  }
  s->rs[i] = r->ts + s->delta[tr];
  const dg_tedge *te = s->g->nte ? dg_thread_edge(s->g, i) : NULL;
  if (te && prev) {
    /* it waited for another thread: its own stretch shrinks to the CPU
     * work it traced, and it starts once both allow */
    int64_t traced = dg_cpu_time(s->g, tr, prev, r->ts) - cut_len(m, tr, prev, r->ts);
    if (traced < 0 || (m && m->cpu_zero && in_mods(m, r->ts))) traced = 0;
    int64_t own = prev + s->delta_prev[tr] + traced;
    int64_t other = s->re[te->from] + (r->ts - STORE_REC(&s->c->st.rt, te->from)->end);
    s->rs[i] = own > other ? own : other;
    s->delta[tr] = s->rs[i] - r->ts;
  }
  if (s->rt_wait[i] != DG_NONE && STORE_REC(&s->c->st.gpu, s->rt_wait[i])->ts <= r->end) {
    /* ends with the op it waits for: the op's replay fills it in (or now,
     * when the op already started before it) */
    if (STORE_REC(&s->c->st.gpu, s->rt_wait[i])->ts < r->ts) block_end(s, m, i);
    else s->re[i] = r->end + s->delta[tr];  /* until the op's replay, recorded length */
  } else {
    int64_t d = r->end - r->ts;
    if (m && in_mods(m, r->ts) && ((m->rt_zero && m->rt_zero[i]) || m->cpu_zero)) d = 0;
    else d -= cut_len(m, tr, r->ts, r->end);
    if (d < 0) d = 0;
    s->re[i] = s->rs[i] + d;
    s->delta[tr] = s->re[i] - r->end;
  }
  if (r->end > s->last_end[tr]) s->last_end[tr] = r->end;
  s->delta_prev[tr] = s->delta[tr];
}

static void start_op(sim *s, const dg_mods *m, uint32_t k, int record) {
  const store *st = &s->c->st;
  const depgraph *g = s->g;
  const ev_rec *K = STORE_REC(&st->gpu, k);
  /* the dependencies the trace shows, those it honoured (done by K's
   * start): the one that bound K's start keeps the slack the trace shows
   * after it (launch latency, dispatch, an unplaced wait); the others add no
   * latency when a replay makes one of them the last */
  int64_t ready = INT64_MIN, bsim = INT64_MIN, others = INT64_MIN;
  int b = B_NONE;
  uint32_t bi = DG_NONE;
#define DEP(kind, idx, t_rec, t_sim)                          \
  do {                                                        \
    if ((t_rec) > ready || b == B_NONE) {                     \
      if (b != B_NONE && bsim > others) others = bsim;        \
      ready = (t_rec);                                        \
      bsim = (t_sim);                                         \
      b = (kind);                                             \
      bi = (idx);                                             \
    } else if ((t_sim) > others) {                            \
      others = (t_sim);                                       \
    }                                                         \
  } while (0)
  if (g->launch[k] != DG_NONE) {
    const ev_rec *L = STORE_REC(&st->rt, g->launch[k]);
    if (L->ts <= K->ts) DEP(B_LAUNCH, g->launch[k], L->ts, s->rs[g->launch[k]]);
  }
  if (g->prev[k] != DG_NONE) {
    const ev_rec *P = STORE_REC(&st->gpu, g->prev[k]);
    if (P->end <= K->ts) DEP(B_PREV, g->prev[k], P->end, s->oe[g->prev[k]]);
  }
  int outside = 0;
  for (uint32_t j = g->w_off[k]; j < g->w_off[k + 1]; j++) {
    uint32_t a = g->w[j].op;
    if (a == DG_NONE) {
      outside |= g->w[j].kind == DG_E_OUTSIDE;
      continue;
    }
    const ev_rec *A = STORE_REC(&st->gpu, a);
    if (A->end > K->ts) continue;
    /* an awaited op ending with the launch or the predecessor binds */
    if (A->end == ready && b != B_WAIT) {
      if (bsim > others) others = bsim;
      bsim = s->oe[a];
      b = B_WAIT;
      bi = a;
    } else {
      DEP(B_WAIT, a, A->end, s->oe[a]);
    }
  }
#undef DEP
  if (b == B_NONE) {
    s->os[k] = K->ts;  /* a root: nothing the trace shows could start it earlier */
  } else {
    int64_t slack = K->ts - ready;
    if (m && m->unexplained_zero && in_mods(m, K->ts) && slack > s->c->params[P_IDLE_DISPATCH_MAX_NS]) slack = 0;
    s->os[k] = bsim + slack > others ? bsim + slack : others;
  }
  /* an event recorded outside the trace happens when it happened: what the
   * trace shows moving earlier cannot start K before it (unless the what-if
   * removes the waits nothing in the trace explains) */
  if (outside && s->os[k] < K->ts && !(m && m->unexplained_zero && in_mods(m, K->ts))) s->os[k] = K->ts;
  int64_t d = K->end - K->ts;
  if (m && m->op_zero && in_mods(m, K->ts) && m->op_zero[k]) d = 0;
  s->oe[k] = s->os[k] + d;
  /* a collective that waited for later ranks ends when they have joined
   * and its transfer is done: this rank joining earlier does not end it
   * earlier, joining later than they did adds only its transfer */
  int64_t x = d ? dg_peer_xfer(s->g, k) : -1;
  if (x >= 0) s->oe[k] = s->os[k] + x > K->end ? s->os[k] + x : K->end;
  if (record) {
    s->ob[k] = (uint8_t)b;
    s->obi[k] = bi;
  }
  for (uint32_t j = s->w_off[k]; j < s->w_off[k + 1]; j++) {
    uint32_t i = s->w_rt[j];
    if (STORE_REC(&st->rt, i)->ts <= K->ts) block_end(s, m, i);
  }
}

/* Replay with m (NULL: as recorded; record the binding dependencies).  A
 * what-if stops after the last call or op starting by the end of its window:
 * what starts later ends later, and the window's saving is read from what
 * ends inside it (a blocking call waits for an op that started before it
 * ended, and a thread goes on after its call ends). */
static void replay(sim *s, const dg_mods *m) {
  memset(s->delta, 0, s->ntracks * sizeof(int64_t));
  memset(s->last_end, 0, s->ntracks * sizeof(int64_t));
  memset(s->delta_prev, 0, s->ntracks * sizeof(int64_t));
  const store *st = &s->c->st;
  int64_t stop = m ? m->t1 : INT64_MAX;
  size_t i = 0, j = 0;
  while (i < s->nrt || j < s->nop) {
    /* calls first at equal starts: a launch before the op it launches */
    int64_t ct = i < s->nrt ? STORE_REC(&st->rt, s->rt_order[i])->ts : INT64_MAX;
    int64_t ot = j < s->nop ? STORE_REC(&st->gpu, s->op_order[j])->ts : INT64_MAX;
    int call = j >= s->nop || (i < s->nrt && ct <= ot);
    if ((call ? ct : ot) > stop) break;
    if (call) start_call(s, m, s->rt_order[i++]);
    else start_op(s, m, s->op_order[j++], m == NULL);
  }
}

/* The latest recorded end of the calls and ops ending in [t0, t1], and the
 * latest replayed end of the same set (all of them start by t1). */
static void latest(const sim *s, int64_t t0, int64_t t1, int64_t *rec, int64_t *rep) {
  const store *st = &s->c->st;
  *rec = *rep = INT64_MIN;
  for (size_t k = 0; k < s->nrt; k++) {
    uint32_t i = s->rt_order[k];
    const ev_rec *r = STORE_REC(&st->rt, i);
    if (r->ts > t1) break;
    if (r->end < t0 || r->end > t1) continue;
    if (r->end > *rec) *rec = r->end;
    if (s->re[i] > *rep) *rep = s->re[i];
  }
  for (size_t k = 0; k < s->nop; k++) {
    uint32_t i = s->op_order[k];
    const ev_rec *r = STORE_REC(&st->gpu, i);
    if (r->ts > t1) break;
    if (r->end < t0 || r->end > t1) continue;
    if (r->end > *rec) *rec = r->end;
    if (s->oe[i] > *rep) *rep = s->oe[i];
  }
}

typedef struct tiv {
  uint32_t track;
  int64_t s, e;
} tiv;
#define TIV_LESS(a, b) ((a)->track != (b)->track ? (a)->track < (b)->track : (a)->s != (b)->s ? (a)->s < (b)->s : (a)->e < (b)->e)
FA_SORT_DEFINE(sort_tiv, tiv, TIV_LESS)

void dg_cuts_free(fsdpa_ctx *c, dg_cuts *k) {
  fa_free(&c->alloc, k->cut, k->cap * sizeof *k->cut);
  fa_free(&c->alloc, k->track, k->cap * sizeof *k->track);
  memset(k, 0, sizeof *k);
}

fsdpa_status dg_cuts_build(fsdpa_ctx *c, const uint32_t *track, const iv *r, size_t n, int64_t t0, int64_t t1,
                           dg_cuts *out) {
  memset(out, 0, sizeof *out);
  if (!n) return FSDPA_OK;
  tiv *t = fa_malloc(&c->alloc, n * sizeof *t);
  out->cut = fa_malloc(&c->alloc, n * sizeof *out->cut);
  out->track = fa_malloc(&c->alloc, n * sizeof *out->track);
  out->cap = n;
  if (!t || !out->cut || !out->track) {
    fa_free(&c->alloc, t, n * sizeof *t);
    dg_cuts_free(c, out);
    return ctx_fail(c, fa_fail_status(&c->alloc), "out of memory (what-if)");
  }
  size_t m = 0;
  for (size_t i = 0; i < n; i++) {
    int64_t s = r[i].s > t0 ? r[i].s : t0, e = r[i].e < t1 ? r[i].e : t1;
    if (e > s) t[m++] = (tiv){track[i], s, e};
  }
  sort_tiv(t, m);
  for (size_t i = 0; i < m; i++) {
    if (out->n && out->track[out->n - 1] == t[i].track && t[i].s <= out->cut[out->n - 1].e) {
      if (t[i].e > out->cut[out->n - 1].e) out->cut[out->n - 1].e = t[i].e;
      continue;
    }
    out->track[out->n] = t[i].track;
    out->cut[out->n++] = (iv){t[i].s, t[i].e};
  }
  fa_free(&c->alloc, t, n * sizeof *t);
  return FSDPA_OK;
}

fsdpa_status dg_saving(fsdpa_ctx *c, const dg_mods *m, int64_t *saving) {
  depgraph g;
  *saving = FSDPA_ABSENT;
  fsdpa_status st = dg_get(c, &g);
  if (!st) st = dg_whatif(c, &g, m, saving);
  dg_free(c, &g);
  if (!st && m->t1 <= m->t0) *saving = FSDPA_ABSENT;
  return st;
}

void dg_saving_write(jsonw *w, const dg_mods *m, int64_t saving, const char *change) {
  /* a window past the int64 range (hostile timestamps) has no length to
   * share a saving by: no saving is claimed over it */
  int64_t win;
  if (saving == FSDPA_ABSENT || m->t1 <= m->t0 || __builtin_sub_overflow(m->t1, m->t0, &win)) {
    win = FSDPA_ABSENT;
    saving = FSDPA_ABSENT;
  }
  jw_ki64(w, "saving_ns", saving);
  jw_ki64(w, "saving_window_ns", win);
  jw_kstr(w, "saving_change", change);
}

fsdpa_status dg_saving_evidence(fsdpa_ctx *c, const dg_mods *m, const char *change, jsonw *w) {
  int64_t saving;
  fsdpa_status st = dg_saving(c, m, &saving);
  if (!st) dg_saving_write(w, m, saving, change);
  return st;
}

fsdpa_status dg_whatif(fsdpa_ctx *c, const depgraph *g, const dg_mods *m, int64_t *saving) {
  *saving = FSDPA_ABSENT;
  sim s;
  fsdpa_status st = sim_open(c, g, &s);
  if (st) return st;
  replay(&s, m);
  int64_t rec, rep;
  latest(&s, m->t0, m->t1, &rec, &rep);
  if (rec != INT64_MIN) *saving = rec - rep;
  sim_free(&s);
  return FSDPA_OK;
}

/* ---- the critical path ---- */

const char *const dg_path_names[DG_P__N] = {"gpu_compute", "gpu_communication", "gpu_memory", "launch",
                                            "dispatch", "queued", "cpu", "runtime", "blocking_call",
                                            "thread_wait"};

typedef struct pwalk {
  dg_path *out;
  const sim *s;
  size_t hint;
} pwalk;

/* A segment [a, b) of the path, newest first (the walk goes back in time). */
static void seg(pwalk *w, int cat, int64_t a, int64_t b, uint32_t what) {
  if (b <= a) return;
  dg_path *p = w->out;
  p->by_category[cat] += b - a;
  p->start = a;
  if (p->nseg && p->seg[p->nseg - 1].cat == cat && p->seg[p->nseg - 1].s == b) {
    p->seg[p->nseg - 1].s = a;  /* merge with the later neighbour */
    return;
  }
  if (p->nseg == p->cap) {
    size_t nc = p->cap ? 2 * p->cap : 64;
    dg_seg *ns = fa_realloc(p->a, p->seg, p->cap * sizeof *ns, nc * sizeof *ns);
    if (!ns) {
      p->failed = 1;
      return;
    }
    p->seg = ns;
    p->cap = nc;
  }
  p->seg[p->nseg++] = (dg_seg){a, b, cat, what};
}

static int op_cat(const fsdpa_ctx *c, const ev_rec *r) {
  if (r->kind != RK_KERNEL) return DG_P_GPU_MEMORY;
  return (store_name_info(&c->st, r->name) & NC_COMM) ? DG_P_GPU_COMM : DG_P_GPU_COMPUTE;
}

enum { AT_OP, AT_CALL_END, AT_CALL_START };

static void walk_back(pwalk *w, int at, uint32_t idx) {
  const sim *s = w->s;
  fsdpa_ctx *c = s->c;
  const store *st = &c->st;
  int64_t dmax = c->params[P_IDLE_DISPATCH_MAX_NS];
  for (;;) {
    if (w->out->failed) return;
    if (at == AT_OP) {
      const ev_rec *K = STORE_REC(&st->gpu, idx);
      seg(w, op_cat(c, K), K->ts, K->end, K->name);
      uint8_t b = s->ob[idx];
      uint32_t bi = s->obi[idx];
      if (b == B_LAUNCH) {
        /* a launch latency, unless the op then sat queued behind a wait
         * the trace does not place */
        const ev_rec *L = STORE_REC(&st->rt, bi);
        int64_t q = L->end < K->ts ? L->end : K->ts;
        if (K->ts - q > dmax) {
          seg(w, DG_P_QUEUED, q, K->ts, K->name);
          seg(w, DG_P_LAUNCH, L->ts, q, L->name);
        } else {
          seg(w, DG_P_LAUNCH, L->ts, K->ts, L->name);
        }
        at = AT_CALL_START;
        idx = bi;
      } else if (b == B_PREV || b == B_WAIT) {
        int64_t e = STORE_REC(&st->gpu, bi)->end;
        seg(w, K->ts - e <= dmax ? DG_P_DISPATCH : DG_P_QUEUED, e, K->ts, K->name);
        idx = bi;
      } else {
        return;
      }
    } else if (at == AT_CALL_END) {
      const ev_rec *R = STORE_REC(&st->rt, idx);
      uint32_t wo = s->rt_wait[idx];
      if (wo != DG_NONE && STORE_REC(&st->gpu, wo)->end > R->ts && STORE_REC(&st->gpu, wo)->end <= R->end) {
        /* the call ended because the op it waited for did */
        seg(w, DG_P_BLOCKING_CALL, STORE_REC(&st->gpu, wo)->end, R->end, R->name);
        at = AT_OP;
        idx = wo;
      } else {
        seg(w, DG_P_RUNTIME, R->ts, R->end, R->name);
        at = AT_CALL_START;
      }
    } else {
      const ev_rec *R = STORE_REC(&st->rt, idx);
      const dg_tedge *te = s->g->nte ? dg_thread_edge(s->g, idx) : NULL;
      if (te) {  /* it waited for another thread */
        const ev_rec *F = STORE_REC(&st->rt, te->from);
        seg(w, DG_P_THREAD_WAIT, F->end, R->ts, F->name);
        at = AT_CALL_END;
        idx = te->from;
        continue;
      }
      uint32_t p = s->rt_prev[idx];
      /* skip calls nested in or overlapping this one */
      while (p != DG_NONE && STORE_REC(&st->rt, p)->end > R->ts) p = s->rt_prev[p];
      if (p == DG_NONE) return;
      const ev_rec *P = STORE_REC(&st->rt, p);
      uint32_t inner = dg_cpu_innermost(s->g, R->track, P->end, R->ts, &w->hint);
      seg(w, DG_P_CPU, P->end, R->ts, inner == DG_NONE ? DG_NONE : s->g->cpu[inner].name);
      at = AT_CALL_END;
      idx = p;
    }
  }
}

void dg_path_free(dg_path *p) {
  if (p->a) fa_free(p->a, p->seg, p->cap * sizeof *p->seg);
  memset(p, 0, sizeof *p);
}

fsdpa_status dg_critical_path(fsdpa_ctx *c, const depgraph *g, dg_path *out) {
  memset(out, 0, sizeof *out);
  out->a = &c->alloc;
  sim s;
  fsdpa_status st = sim_open(c, g, &s);
  if (st) return st;
  replay(&s, NULL);
  /* the op or call that ends last (ties: an op, the lower index) */
  int64_t best = INT64_MIN;
  int at = AT_OP;
  uint32_t idx = DG_NONE;
  for (size_t i = 0; i < s.nop; i++)
    if (STORE_REC(&c->st.gpu, i)->end > best) {
      best = STORE_REC(&c->st.gpu, i)->end;
      at = AT_OP;
      idx = (uint32_t)i;
    }
  for (size_t i = 0; i < s.nrt; i++)
    if (STORE_REC(&c->st.rt, i)->end > best) {
      best = STORE_REC(&c->st.rt, i)->end;
      at = AT_CALL_END;
      idx = (uint32_t)i;
    }
  if (idx != DG_NONE) {
    out->end = out->start = best;
    pwalk w = {out, &s, 0};
    walk_back(&w, at, idx);
    out->length = out->end - out->start;
  }
  sim_free(&s);
  if (out->failed) {
    dg_path_free(out);
    return ctx_fail(c, fa_fail_status(&c->alloc), "out of memory (critical path)");
  }
  /* oldest first */
  for (size_t i = 0, j = out->nseg ? out->nseg - 1 : 0; i < j; i++, j--) {
    dg_seg t = out->seg[i];
    out->seg[i] = out->seg[j];
    out->seg[j] = t;
  }
  return FSDPA_OK;
}
