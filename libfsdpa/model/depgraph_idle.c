/* Idle causes from the dependency graph: every idle interval of the union of
 * a window's selected streams is given to what the op that ends it was
 * waiting on, walked back until a root.  For a gap [g0, g1) ended by op K
 * (of the ops starting at g1, the one whose launch call L started first;
 * [tL, tE) = L), in this order:
 *   1. [g0, tL): K not launched yet.  host_blocked where L's thread was
 *      inside a blocking runtime call (what = the call), else
 *      host_not_launched (what = the innermost CPU op of that thread
 *      spanning the part, none when no op does);
 *   2. [tL, tE): inside the launch call: host_blocked in L when L lasted at
 *      least idle.slow_launch_ns (a first launch loading its module) or is
 *      itself a blocking call (a synchronous copy), else as 1;
 *   3. K queued, [tE, g1): a wait edge whose awaited op A ended after tE:
 *      A's own delay first (the walk goes on from A, at most DG_DEPTH
 *      deep), then stream_wait (rank_wait when A is a communication
 *      kernel) until A ended;
 *   4. the rest [r, g1), where r is when K's last known dependency (launch
 *      call, the op before it on its stream, its awaited ops) was done:
 *      when it lasts at most idle.dispatch_max_ns, the device's own latency
 *      in starting a queued op: dispatch (stream_wait when the last
 *      dependency was an awaited op on another stream); else stream_wait on
 *      an event recorded outside the trace when K has such a wait (or a
 *      guessed one whose awaited op ended too early to be it); else
 *      rank_wait when K is a communication kernel (a collective held for
 *      its peers); else unknown (what = K, or "launched before the trace's
 *      runtime calls" when K has no launch call: the missing edge).
 * Parts are clipped to the window, so they sum exactly to its idle. */
#include "model/depgraph.h"
#include "events/classify.h"
#include "model/runtime_calls.h"
#include <stdio.h>
#include <string.h>

const char *const dg_cause_names[DG_C__N] = {"host_not_launched", "host_blocked", "stream_wait",
                                             "rank_wait", "dispatch", "unknown"};

/* How far the walk follows awaited ops that were late themselves. */
#define DG_DEPTH 8

typedef struct tkey {
  int64_t what, ns, host_ns;
  int cause, wkind;  /* cause < 0: empty slot */
} tkey;

typedef struct acc {
  fsdpa_ctx *c;
  const store_views *v;
  const depgraph *g;
  const qwin *w;
  dg_causes *o;
  int64_t slow_ns, dispatch_ns;
  tkey *t;
  size_t cap, n;
  int failed;
  size_t hint;
  int64_t gap_unexplained;  /* of the current gap */
  int64_t *blk_ns;          /* optional: host_blocked ns per g->blk entry */
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

/* A part [a, b) of an idle interval, clipped to the window; returns its
 * clipped length.  host: the part lies in an op that launched no GPU work. */
static int64_t put_part(acc *A, int cause, int wkind, int64_t what, int64_t a, int64_t b, int host) {
  if (a < A->w->t0) a = A->w->t0;
  if (b > A->w->t1) b = A->w->t1;
  if (b <= a) return 0;
  A->o->ns[cause] += b - a;
  if (wkind == DG_W_OUTSIDE) A->o->outside_ns += b - a;
  if (A->failed) return b - a;
  if (2 * (A->n + 1) > A->cap && tk_grow(A)) {
    A->failed = 1;
    return b - a;
  }
  tkey *k = tk_slot(A->t, A->cap, cause, wkind, what);
  if (k->cause < 0) {
    *k = (tkey){.what = what, .cause = cause, .wkind = wkind};
    A->n++;
  }
  k->ns += b - a;
  if (host) k->host_ns += b - a;
  return b - a;
}

static int64_t put(acc *A, int cause, int wkind, int64_t what, int64_t a, int64_t b) {
  return put_part(A, cause, wkind, what, a, b, 0);
}

static void put_op(acc *A, uint32_t i, int64_t a, int64_t b) {
  if (i == DG_NONE) put(A, DG_C_NOT_LAUNCHED, DG_W_NONE, 0, a, b);
  else put_part(A, DG_C_NOT_LAUNCHED, DG_W_NAME, A->g->cpu[i].name, a, b, !(A->g->cpu[i].flags & DG_CPU_LAUNCHES));
}

/* The first CPU op of thread tr starting at or after t (g->ncpu if none). */
static size_t cpu_from(const depgraph *g, uint32_t tr, int64_t t) {
  size_t lo = 0, hi = g->ncpu;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (g->cpu[mid].track < tr || (g->cpu[mid].track == tr && g->cpu[mid].ts < t)) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

static int is_step(const acc *A, uint32_t i) {
  return i != DG_NONE && (store_name_info(&A->c->st, A->g->cpu[i].name) & NC_STEP);
}

/* An op whose pieces go to its children: a step, or an op that launched GPU
 * work (a module's forward holds both its launches and, in line, host work
 * such as a harness's cache flush: the gap is the child's, not the
 * forward's). */
static int splits(const acc *A, uint32_t i) {
  return i != DG_NONE && (is_step(A, i) || (A->g->cpu[i].flags & DG_CPU_LAUNCHES));
}

/* How deep the pieces follow children that split. */
#define DG_SPLIT_DEPTH 6

/* The pieces of [a, b) inside x (DG_NONE: the thread's top level) that its
 * own children cover go to them (a child that is a ProfilerStep is split
 * again), the rest to x; at the top level only steps are split out. */
static void put_in(acc *A, uint32_t tr, uint32_t x, int64_t a, int64_t b, int depth) {
  const depgraph *g = A->g;
  size_t j = cpu_from(g, tr, a);
  /* a child of x that began before a and reaches into the part */
  if (j > 0) {
    uint32_t p = (uint32_t)(j - 1);
    while (p != DG_NONE && g->cpu[p].parent != x) p = g->cpu[p].parent;
    if (p != DG_NONE && p != x && g->cpu[p].track == tr && g->cpu[p].end > a) j = p;
  }
  int64_t pos = a;
  while (j < g->ncpu && g->cpu[j].track == tr && g->cpu[j].ts < b) {
    const dg_cpu *o = &g->cpu[j];
    if (o->parent != x || (uint32_t)j == x || o->end <= pos || (x == DG_NONE && !is_step(A, (uint32_t)j))) {
      j++;
      continue;
    }
    int64_t s = o->ts > pos ? o->ts : pos, e = o->end < b ? o->end : b;
    if (s > pos) put_op(A, x, pos, s);
    if (splits(A, (uint32_t)j) && depth < DG_SPLIT_DEPTH) put_in(A, tr, (uint32_t)j, s, e, depth + 1);
    else put_op(A, (uint32_t)j, s, e);
    pos = e;
    /* past this child's descendants */
    size_t k = cpu_from(g, tr, o->end);
    j = k > j ? k : j + 1;
  }
  if (pos < b) put_op(A, x, pos, b);
}

/* The part [a, b) the thread had not launched yet: what it ran, the
 * innermost CPU op spanning the part; where that is a ProfilerStep or an op
 * that launched GPU work, or none but the part crosses steps, the pieces go
 * to the ops inside it (a long stretch of host preprocessing is
 * "video_decode" and "image_processor", not the step that holds them; a
 * benchmark's cache flush is "clear_cache", not the forward around it). */
static void put_cpu(acc *A, uint32_t tr, int64_t a, int64_t b) {
  if (b <= a) return;
  uint32_t x = dg_cpu_innermost(A->g, tr, a, b, &A->hint);
  if (x == DG_NONE || splits(A, x)) put_in(A, tr, x, a, b, 0);
  else put_op(A, x, a, b);
}

/* Rules 1 and 2 for the launch call L over [a, b); returns when the op was
 * on its stream, clamped to [a, b]. */
static int64_t host_parts(acc *A, const ev_rec *L, int64_t a, int64_t b) {
  const depgraph *g = A->g;
  int64_t pre = L->ts < b ? L->ts : b, pos = a;
  if (pre > a) {
    for (size_t i = dg_block_first(g, L->track, a); i < g->nblk; i++) {
      const dg_block *k = &g->blk[i];
      if (k->track != L->track || k->ts >= pre) break;
      int64_t s = k->ts > pos ? k->ts : pos, e = k->end < pre ? k->end : pre;
      if (e <= s) continue;
      put_cpu(A, L->track, pos, s);
      int64_t n = put(A, DG_C_BLOCKED, DG_W_NAME, k->name, s, e);
      if (A->blk_ns) A->blk_ns[i] += n;
      pos = e;
    }
    put_cpu(A, L->track, pos, pre);
    pos = pre;
  }
  int64_t in_end = L->end < b ? L->end : b;
  if (in_end > pos) {
    /* a synchronous copy launches its own op and blocks like any blocking
     * call, and so does a launch or async copy that blocked by behaviour (a
     * pageable copy): L among the graph's blocking calls */
    size_t bi = dg_block_first(g, L->track, L->ts);
    for (; bi < g->nblk && g->blk[bi].track == L->track && g->blk[bi].ts <= L->ts; bi++)
      if (g->blk[bi].ts == L->ts && g->blk[bi].end == L->end) break;
    int blocking = bi < g->nblk && g->blk[bi].track == L->track && g->blk[bi].ts == L->ts && g->blk[bi].end == L->end;
    if (L->end - L->ts >= A->slow_ns || blocking) {
      int64_t n = put(A, DG_C_BLOCKED, DG_W_NAME, L->name, pos, in_end);
      if (A->blk_ns && blocking) A->blk_ns[bi] += n;
    } else {
      put_cpu(A, L->track, pos, in_end);
    }
    pos = in_end;
  }
  return pos;
}

/* What the trace shows around a part [a, b) of queued idle it cannot
 * explain (n ns of it inside the window), before an op launched by L. */
static void unexplained(acc *A, const ev_rec *L, int64_t n, int64_t a, int64_t b) {
  if (n <= 0) return;
  dg_causes *o = A->o;
  if (a < A->w->t0) a = A->w->t0;
  if (b > A->w->t1) b = A->w->t1;
  o->unexplained_ns += n;
  A->gap_unexplained += n;
  if (!L) o->unlinked_ns += n;
  else if (store_name_info(&A->c->st, L->name) & NC_GRAPH_LAUNCH) o->graph_ns += n;
  o->blocked_ns += iv_len_in(A->g->blk_u, A->g->nblk_u, a, b);
}

static int is_comm(const fsdpa_ctx *c, const ev_rec *r) {
  return r->kind == RK_KERNEL && (store_name_info(&c->st, r->name) & NC_COMM);
}

static int inferred_kind(uint32_t k) { return k == DG_E_GUESS || k == DG_E_TIMING; }

/* Why op k (st.gpu index) had not started over [a, b), b <= its start. */
static void walk(acc *A, uint32_t k, int64_t a, int64_t b, int depth) {
  fsdpa_ctx *c = A->c;
  const store *st = &c->st;
  const depgraph *g = A->g;
  const ev_rec *K = STORE_REC(&st->gpu, k);
  const ev_rec *L = g->launch[k] == DG_NONE ? NULL : STORE_REC(&st->rt, g->launch[k]);
  int64_t pos = L ? host_parts(A, L, a, b) : a;
  if (pos >= b) return;
  /* the queued part: awaited ops that ended after pos, latest first */
  int64_t ready = L ? L->end : INT64_MIN;
  int last_wait = 0, outside = 0;
  uint32_t last_kind = 0;
  int64_t last_stream = 0;
  const ev_rec *D = NULL;
  uint32_t dk = DG_NONE, dkind = 0;
  if (g->prev[k] != DG_NONE) {
    /* the op before it on its stream: still running during a walk back
     * from another stream's op (a window that does not hold this stream) */
    const ev_rec *P = STORE_REC(&st->gpu, g->prev[k]);
    if (P->end > ready) ready = P->end;
    if (P->end > pos && P->end <= K->ts) {
      D = P;
      dk = g->prev[k];
    }
  }
  for (uint32_t i = g->w_off[k]; i < g->w_off[k + 1]; i++) {
    const dg_wait *x = &g->w[i];
    /* a guessed record stands for the real one only as far as it explains
     * K's start: what it leaves unexplained (rule 4) was recorded by work
     * the trace does not show */
    if (x->kind == DG_E_OUTSIDE || x->kind == DG_E_GUESS) outside = 1;
    if (x->op == DG_NONE) continue;
    const ev_rec *o = STORE_REC(&st->gpu, x->op);
    if (o->end > K->ts) continue;  /* cannot be what it waited for */
    if (o->end >= ready) {
      ready = o->end;
      last_wait = 1;
      last_kind = x->kind;
      last_stream = A->v->streams[g->stream[x->op]].stream;
    }
    if (o->end > pos && (!D || o->end >= D->end)) {
      D = o;
      dk = x->op;
      dkind = x->kind;
    }
  }
  if (D) {
    int64_t e = D->end < b ? D->end : b;
    if (D->ts > pos && depth < DG_DEPTH) {
      int64_t s = D->ts < e ? D->ts : e;
      walk(A, dk, pos, s, depth + 1);
      pos = s;
    }
    if (e > pos) {
      int64_t n = is_comm(c, D) ? put(A, DG_C_RANK_WAIT, DG_W_NAME, D->name, pos, e)
                                : put(A, DG_C_STREAM_WAIT, DG_W_STREAM, A->v->streams[g->stream[dk]].stream, pos, e);
      if (inferred_kind(dkind)) A->o->inferred_ns += n;
      pos = e;
    }
  }
  if (pos >= b) return;
  if (ready != INT64_MIN && b - (ready > pos ? ready : pos) <= A->dispatch_ns) {
    if (last_wait) {
      int64_t n = put(A, DG_C_STREAM_WAIT, DG_W_STREAM, last_stream, pos, b);
      if (inferred_kind(last_kind)) A->o->inferred_ns += n;
    } else {
      put(A, DG_C_DISPATCH, DG_W_STREAM, A->v->streams[g->stream[k]].stream, pos, b);
    }
  } else if (outside) {
    unexplained(A, L, put(A, DG_C_STREAM_WAIT, DG_W_OUTSIDE, 0, pos, b), pos, b);
  } else if (is_comm(c, K)) {
    put(A, DG_C_RANK_WAIT, DG_W_NAME, K->name, pos, b);
  } else if (!L) {
    unexplained(A, L, put(A, DG_C_UNKNOWN, DG_W_UNLINKED, 0, pos, b), pos, b);
  } else {
    unexplained(A, L, put(A, DG_C_UNKNOWN, DG_W_NAME, K->name, pos, b), pos, b);
  }
}

/* tie order of the top list: heavier, then cause, then what's text */
static int top_before(const fsdpa_ctx *c, const tkey *a, const tkey *b) {
  if (a->ns != b->ns) return a->ns > b->ns;
  if (a->cause != b->cause) return a->cause < b->cause;
  if (a->wkind != b->wkind) return a->wkind < b->wkind;
  if (a->wkind == DG_W_NAME) {
    int r = strcmp(intern_str(&c->st.names, (uint32_t)a->what), intern_str(&c->st.names, (uint32_t)b->what));
    if (r) return r < 0;
  }
  return a->what < b->what;
}

void dg_cause_what(const fsdpa_ctx *c, const dg_cause_top *t, char *b, size_t n) {
  if (t->wkind == DG_W_NAME) snprintf(b, n, "%s", intern_str(&c->st.names, (uint32_t)t->what));
  else if (t->wkind == DG_W_STREAM) snprintf(b, n, "stream %lld", (long long)t->what);
  else if (t->wkind == DG_W_OUTSIDE) snprintf(b, n, "awaited work not in the trace");
  else if (t->wkind == DG_W_UNLINKED) snprintf(b, n, "launched before the trace's runtime calls");
  else if (n) b[0] = 0;
}

/* The first op of a stream view starting at or after t. */
static size_t first_op_from(const store *st, const gpu_stream_view *sv, int64_t t) {
  size_t lo = 0, hi = sv->nops;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (STORE_REC(&st->gpu, sv->ops[mid])->ts < t) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/* Gaps k = [u[k].e, u[k+1].s) of u[0..n) that intersect [t0, t1): [*k0, *k1). */
static void gap_range(const iv *u, size_t n, int64_t t0, int64_t t1, size_t *k0, size_t *k1) {
  *k0 = *k1 = 0;
  if (n < 2) return;
  size_t lo = 0, hi = n - 1;  /* first gap ending after t0 */
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (u[mid + 1].s > t0) hi = mid;
    else lo = mid + 1;
  }
  size_t l2 = lo, h2 = n - 1;  /* first gap starting at or after t1 */
  while (l2 < h2) {
    size_t mid = l2 + (h2 - l2) / 2;
    if (u[mid].e < t1) l2 = mid + 1;
    else h2 = mid;
  }
  *k0 = lo;
  *k1 = l2;
}

/* Keep the four intervals with the most unexplained idle, heaviest first
 * (ties: the earlier). */
static void worst_add(dg_causes *o, int64_t a, int64_t b, int64_t ns) {
  int p;
  if (o->nworst < 4) p = o->nworst++;
  else if (ns > o->worst_ns[3]) p = 3;
  else return;
  o->worst[p] = (iv){a, b};
  o->worst_ns[p] = ns;
  for (; p > 0 && o->worst_ns[p - 1] < o->worst_ns[p]; p--) {
    iv t = o->worst[p];
    int64_t tn = o->worst_ns[p];
    o->worst[p] = o->worst[p - 1];
    o->worst_ns[p] = o->worst_ns[p - 1];
    o->worst[p - 1] = t;
    o->worst_ns[p - 1] = tn;
  }
}

static void top_fill(acc *A) {
  dg_causes *out = A->o;
  for (size_t i = 0; i < A->cap; i++) {
    const tkey *t = &A->t[i];
    if (t->cause < 0 || t->ns <= 0) continue;
    int p = out->ntop;
    if (p == DG_CAUSE_TOP) {
      const dg_cause_top *l = &out->top[DG_CAUSE_TOP - 1];
      tkey lk = {.what = l->what, .ns = l->ns, .cause = l->cause, .wkind = l->wkind};
      if (!top_before(A->c, t, &lk)) continue;
      p = DG_CAUSE_TOP - 1;
    } else {
      out->ntop++;
    }
    out->top[p] = (dg_cause_top){t->cause, t->wkind, t->what, t->ns, t->host_ns};
    for (; p > 0; p--) {
      const dg_cause_top *u = &out->top[p - 1];
      tkey uk = {.what = u->what, .ns = u->ns, .cause = u->cause, .wkind = u->wkind};
      if (!top_before(A->c, t, &uk)) break;
      dg_cause_top tmp = out->top[p];
      out->top[p] = out->top[p - 1];
      out->top[p - 1] = tmp;
    }
  }
}

static fsdpa_status idle_causes(fsdpa_ctx *c, const store_views *v, const depgraph *g, const qwin *w,
                                const iv *u, size_t nu, dg_causes *out, int64_t *blk_ns);

fsdpa_status dg_idle_causes(fsdpa_ctx *c, const store_views *v, const depgraph *g, const qwin *w,
                            const iv *u, size_t nu, dg_causes *out) {
  return idle_causes(c, v, g, w, u, nu, out, NULL);
}

fsdpa_status dg_idle_by_block(fsdpa_ctx *c, const store_views *v, const depgraph *g, const qwin *w,
                              const iv *u, size_t nu, int64_t *blk_ns) {
  dg_causes k;
  return idle_causes(c, v, g, w, u, nu, &k, blk_ns);
}

static fsdpa_status idle_causes(fsdpa_ctx *c, const store_views *v, const depgraph *g, const qwin *w,
                                const iv *u, size_t nu, dg_causes *out, int64_t *blk_ns) {
  memset(out, 0, sizeof *out);
  size_t nsel = 0;
  for (size_t i = 0; i < v->nstreams; i++) nsel += dg_selected(&v->streams[i], w) != 0;
  if (!nsel) return FSDPA_OK;
  const gpu_stream_view **sel = fa_malloc(&c->alloc, nsel * sizeof *sel);
  size_t *cur = fa_malloc(&c->alloc, nsel * sizeof *cur);
  acc A = {c, v, g, w, out, c->params[P_IDLE_SLOW_LAUNCH_NS], c->params[P_IDLE_DISPATCH_MAX_NS],
           NULL, 0, 0, 0, 0, 0, blk_ns};
  fsdpa_status st = FSDPA_OK;
  if (!sel || !cur) {
    st = ctx_fail(c, fa_fail_status(&c->alloc), "out of memory (idle causes)");
    goto done;
  }
  size_t ns = 0;
  for (size_t i = 0; i < v->nstreams; i++)
    if (dg_selected(&v->streams[i], w)) sel[ns++] = &v->streams[i];
  size_t k0, k1;
  gap_range(u, nu, w->t0, w->t1, &k0, &k1);
  if (k0 < k1)
    for (size_t s = 0; s < ns; s++) cur[s] = first_op_from(&c->st, sel[s], u[k0 + 1].s);
  for (size_t k = k0; k < k1; k++) {
    int64_t g0 = u[k].e, g1 = u[k + 1].s;
    /* the op ending the gap: of those starting at g1, the first launched
     * (an op without a launch call only when none has one) */
    uint32_t K = DG_NONE;
    int64_t kl = INT64_MAX;
    for (size_t s = 0; s < ns; s++) {
      size_t i = cur[s];
      while (i < sel[s]->nops && STORE_REC(&c->st.gpu, sel[s]->ops[i])->ts < g1) i++;
      cur[s] = i;
      for (; i < sel[s]->nops; i++) {
        uint32_t op = sel[s]->ops[i];
        const ev_rec *r = STORE_REC(&c->st.gpu, op);
        if (r->ts != g1) break;
        if (r->end <= r->ts) continue;
        int64_t t = g->launch[op] == DG_NONE ? INT64_MAX : STORE_REC(&c->st.rt, g->launch[op])->ts;
        if (K == DG_NONE || t < kl) {
          K = op;
          kl = t;
        }
      }
    }
    int64_t a = g0 > w->t0 ? g0 : w->t0, b = g1 < w->t1 ? g1 : w->t1;
    out->idle_ns += b > a ? b - a : 0;
    if (K == DG_NONE) {
      put(&A, DG_C_UNKNOWN, DG_W_NONE, 0, g0, g1);
      continue;
    }
    A.gap_unexplained = 0;
    walk(&A, K, g0, g1, 0);
    if (A.gap_unexplained > 0) worst_add(out, a, b, A.gap_unexplained);
  }
  if (A.failed) {
    st = ctx_fail(c, fa_fail_status(&c->alloc), "out of memory (idle causes)");
    goto done;
  }
  top_fill(&A);
done:
  fa_free(&c->alloc, A.t, A.cap * sizeof *A.t);
  fa_free(&c->alloc, cur, nsel * sizeof *cur);
  fa_free(&c->alloc, sel, nsel * sizeof *sel);
  if (st) memset(out, 0, sizeof *out);
  return st;
}
