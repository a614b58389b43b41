#include "model/runtime_calls.h"
#include "events/classify.h"
#include <stdlib.h>
#include <string.h>
#include "util/sort.h"

#define NONE32 UINT32_MAX

/* Scratch indexes used only while attributing; freed before sc_build returns. */
typedef struct tl_ent {  /* a runtime call of a thread that queued GPU work */
  uint32_t track, rt;
  int64_t ts;
} tl_ent;
typedef struct gs_ent {  /* cuda_sync event by correlation */
  int64_t corr;
  uint32_t idx, pad;
} gs_ent;
typedef struct scratch {
  const store_views *v;
  uint32_t *rt_gpu;   /* runtime record -> the GPU op it queued (latest-ending), or NONE32 */
  int64_t *lmax;      /* per stream, in stream order: running max of launch time */
  size_t *off;        /* per stream: offset into lmax */
  tl_ent *tl;
  size_t ntl;
  gs_ent *gs;
  size_t ngs;
  size_t n_rt, n_gpu, n_streams;
} scratch;

static int cmp_tl(const void *pa, const void *pb) {
  const tl_ent *a = pa, *b = pb;
  if (a->track != b->track) return a->track < b->track ? -1 : 1;
  if (a->ts != b->ts) return a->ts < b->ts ? -1 : 1;
  return a->rt < b->rt ? -1 : a->rt > b->rt;
}
static int cmp_gs(const void *pa, const void *pb) {
  const gs_ent *a = pa, *b = pb;
  if (a->corr != b->corr) return a->corr < b->corr ? -1 : 1;
  return a->idx < b->idx ? -1 : a->idx > b->idx;
}
static int cmp_call(const void *pa, const void *pb) {
  const sc_call *a = pa, *b = pb;
  if (a->ts != b->ts) return a->ts < b->ts ? -1 : 1;
  return a->rt < b->rt ? -1 : a->rt > b->rt;
}

#define TL_LESS(a, b) (cmp_tl((a), (b)) < 0)
FA_SORT_DEFINE(tl_sort, tl_ent, TL_LESS)
#define CALL_LESS(a, b) (cmp_call((a), (b)) < 0)
FA_SORT_DEFINE(call_sort, sc_call, CALL_LESS)

static void scratch_free(fa_alloc *a, scratch *x) {
  fa_free(a, x->rt_gpu, x->n_rt * sizeof(uint32_t));
  fa_free(a, x->lmax, x->n_gpu * sizeof(int64_t));
  fa_free(a, x->off, x->n_streams * sizeof(size_t));
  fa_free(a, x->tl, x->ntl * sizeof(tl_ent));
  fa_free(a, x->gs, x->ngs * sizeof(gs_ent));
  memset(x, 0, sizeof *x);
}

static int scratch_build(fsdpa_ctx *c, scratch *x) {
  fa_alloc *a = &c->alloc;
  const store *st = &c->st;
  const store_views *v = x->v;
  x->n_rt = st->rt.len;
  x->n_gpu = st->gpu.len;
  x->n_streams = v->nstreams;
  if (x->n_rt && !(x->rt_gpu = fa_malloc(a, x->n_rt * sizeof(uint32_t)))) return -1;
  if (x->n_gpu && !(x->lmax = fa_malloc(a, x->n_gpu * sizeof(int64_t)))) return -1;
  if (x->n_streams && !(x->off = fa_malloc(a, x->n_streams * sizeof(size_t)))) return -1;
  for (size_t i = 0; i < x->n_rt; i++) x->rt_gpu[i] = NONE32;
  size_t o = 0;
  for (size_t k = 0; k < v->nstreams; k++) {
    const gpu_stream_view *sv = &v->streams[k];
    x->off[k] = o;
    int64_t run = INT64_MIN;
    for (size_t j = 0; j < sv->nops; j++) {
      uint32_t g = sv->ops[j];
      const ev_rec *op = STORE_REC(&st->gpu, g);
      uint32_t r = store_runtime_for_corr(v, op->corr);
      /* an op without a launch record was queued no later than it started */
      int64_t lt = op->ts;
      if (r != NONE32) {
        lt = STORE_REC(&st->rt, r)->ts;
        if (x->rt_gpu[r] == NONE32 || STORE_REC(&st->gpu, x->rt_gpu[r])->end < op->end)
          x->rt_gpu[r] = g;
      }
      /* streams run FIFO: once an op was queued, all ops before it on the
       * stream were too, so a running max keeps the search monotone */
      if (lt > run) run = lt;
      x->lmax[o + j] = run;
    }
    o += sv->nops;
  }
  size_t ntl = 0;
  for (size_t i = 0; i < x->n_rt; i++) ntl += x->rt_gpu[i] != NONE32;
  if (ntl) {
    if (!(x->tl = fa_malloc(a, ntl * sizeof(tl_ent)))) return -1;
    x->ntl = ntl;
    size_t m = 0;
    for (size_t i = 0; i < x->n_rt; i++) {
      if (x->rt_gpu[i] == NONE32) continue;
      const ev_rec *r = STORE_REC(&st->rt, i);
      x->tl[m++] = (tl_ent){r->track, (uint32_t)i, r->ts};
    }
    tl_sort(x->tl, ntl);
  }
  size_t ngs = 0;
  for (size_t i = 0; i < st->gsync.len; i++) ngs += STORE_REC(&st->gsync, i)->corr != FSDPA_ABSENT;
  if (ngs) {
    if (!(x->gs = fa_malloc(a, ngs * sizeof(gs_ent)))) return -1;
    x->ngs = ngs;
    size_t m = 0;
    for (size_t i = 0; i < st->gsync.len; i++) {
      int64_t corr = STORE_REC(&st->gsync, i)->corr;
      if (corr != FSDPA_ABSENT) x->gs[m++] = (gs_ent){corr, (uint32_t)i, 0};
    }
    qsort(x->gs, ngs, sizeof *x->gs, cmp_gs);
  }
  return 0;
}

static uint32_t gs_find(const scratch *x, int64_t corr) {
  if (corr == FSDPA_ABSENT) return NONE32;
  size_t lo = 0, hi = x->ngs;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (x->gs[mid].corr < corr) lo = mid + 1;
    else hi = mid;
  }
  return lo < x->ngs && x->gs[lo].corr == corr ? x->gs[lo].idx : NONE32;
}

static int64_t stream_find(const store_views *v, int64_t device, int64_t stream) {
  size_t lo = 0, hi = v->nstreams;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    const gpu_stream_view *s = &v->streams[mid];
    if (s->device < device || (s->device == device && s->stream < stream)) lo = mid + 1;
    else hi = mid;
  }
  if (lo < v->nstreams && v->streams[lo].device == device && v->streams[lo].stream == stream)
    return (int64_t)lo;
  return -1;
}

/* Last op of stream k queued before t. */
static uint32_t last_op_before(const scratch *x, size_t k, int64_t t) {
  const gpu_stream_view *sv = &x->v->streams[k];
  const int64_t *L = x->lmax + x->off[k];
  size_t lo = 0, hi = sv->nops;  /* first j with L[j] >= t */
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (L[mid] < t) lo = mid + 1;
    else hi = mid;
  }
  return lo ? sv->ops[lo - 1] : NONE32;
}

/* Of the ops queued before t on the device's streams (every device if
 * ABSENT), the one that ends last: what a device-wide sync waits for. */
static uint32_t device_last_op(const fsdpa_ctx *c, const scratch *x, int64_t device, int64_t t) {
  uint32_t best = NONE32;
  for (size_t k = 0; k < x->v->nstreams; k++) {
    if (device != FSDPA_ABSENT && x->v->streams[k].device != device) continue;
    uint32_t g = last_op_before(x, k, t);
    if (g == NONE32) continue;
    if (best == NONE32 || STORE_REC(&c->st.gpu, g)->end > STORE_REC(&c->st.gpu, best)->end) best = g;
  }
  return best;
}

/* The thread's last runtime call before t that queued GPU work, as a GPU op. */
static uint32_t thread_last_op(const scratch *x, uint32_t track, int64_t t) {
  size_t lo = 0, hi = x->ntl;
  while (lo < hi) {  /* first entry >= (track, t) */
    size_t mid = lo + (hi - lo) / 2;
    const tl_ent *e = &x->tl[mid];
    if (e->track < track || (e->track == track && e->ts < t)) lo = mid + 1;
    else hi = mid;
  }
  if (!lo || x->tl[lo - 1].track != track) return NONE32;
  return x->rt_gpu[x->tl[lo - 1].rt];
}

static int name_is(const store *st, uint32_t id, const char *s) {
  return id != INTERN_NONE && strcmp(store_name(st, id), s) == 0;
}

static void op_place(const fsdpa_ctx *c, uint32_t g, int64_t *device, int64_t *stream) {
  const track *t = store_track(&c->st, STORE_REC(&c->st.gpu, g)->track);
  *device = t->pid;
  *stream = t->tid;
}

static void infer(const fsdpa_ctx *c, const scratch *x, sc_call *k) {
  uint32_t last = thread_last_op(x, k->track, k->ts);
  int64_t dev = FSDPA_ABSENT, stream = FSDPA_ABSENT;
  if (last != NONE32) op_place(c, last, &dev, &stream);
  k->device = dev;
  if ((k->info & NC_DEVICE_SYNC) || k->cls == SC_CLS_FREE) {
    k->scope = SC_SCOPE_DEVICE;
    k->op = device_last_op(c, x, dev, k->ts);
  } else if ((k->info & (NC_SYNC | NC_SYNC_MEMCPY)) && last != NONE32) {
    k->scope = SC_SCOPE_STREAM;
    k->stream = stream;
    int64_t s = stream_find(x->v, dev, stream);
    k->op = s >= 0 ? last_op_before(x, (size_t)s, k->ts) : NONE32;
  }
  if (k->op != NONE32) k->src = SC_SRC_INFERRED;
}

static void attribute(const fsdpa_ctx *c, const scratch *x, sc_call *k) {
  const store *st = &c->st;
  const ev_rec *r = STORE_REC(&st->rt, k->rt);
  uint32_t own = x->rt_gpu ? x->rt_gpu[k->rt] : NONE32;
  if (own != NONE32 && (k->info & NC_SYNC_MEMCPY)) {
    k->src = SC_SRC_OWN_OP;
    k->scope = SC_SCOPE_STREAM;
    k->op = own;
    op_place(c, own, &k->device, &k->stream);
    return;
  }
  uint32_t gi = gs_find(x, r->corr);
  if (gi != NONE32 && sc_class_named(k->cls)) {
    const ev_rec *g = STORE_REC(&st->gsync, gi);
    const track *gt = store_track(st, g->track);
    const sync_info *si = g->aux != AUX_NONE ? &FA_VEC_AT(&st->syncs, sync_info, g->aux) : NULL;
    uint32_t kind = si ? si->sync_kind : INTERN_NONE;
    k->sync_kind = kind;
    k->device = gt->pid >= 0 ? gt->pid : FSDPA_ABSENT;
    if (name_is(st, kind, "Stream Sync") && gt->tid >= 0) {
      k->src = SC_SRC_CUDA_SYNC;
      k->scope = SC_SCOPE_STREAM;
      k->stream = gt->tid;
      int64_t s = stream_find(x->v, gt->pid, gt->tid);
      k->op = s >= 0 ? last_op_before(x, (size_t)s, r->ts) : NONE32;
      return;
    }
    if (name_is(st, kind, "Event Sync") && si && si->wait_on_stream != FSDPA_ABSENT &&
        si->wait_on_stream >= 0) {
      k->src = SC_SRC_CUDA_SYNC;
      k->scope = SC_SCOPE_STREAM;
      k->stream = si->wait_on_stream;
      /* the event captured the stream's work queued before cudaEventRecord */
      uint32_t rec = store_runtime_for_corr(x->v, si->wait_on_event_corr);
      int64_t t = rec != NONE32 ? STORE_REC(&st->rt, rec)->ts : r->ts;
      int64_t s = stream_find(x->v, gt->pid, si->wait_on_stream);
      k->op = s >= 0 ? last_op_before(x, (size_t)s, t) : NONE32;
      return;
    }
    if (name_is(st, kind, "Context Sync")) {
      k->src = SC_SRC_CUDA_SYNC;
      k->scope = SC_SCOPE_DEVICE;
      k->op = device_last_op(c, x, k->device, r->ts);
      return;
    }
    /* a cuda_sync without a usable target: fall back to inference */
  }
  infer(c, x, k);
}

const char *sc_class_name(int cls) {
  static const char *const n[SC_CLS__COUNT] = {"sync", "sync_copy", "free", "launch", "async_copy", "alloc", "other"};
  return cls >= 0 && cls < SC_CLS__COUNT ? n[cls] : "other";
}

int64_t sc_class_threshold(const fsdpa_ctx *c, int cls) {
  switch (cls) {
    case SC_CLS_LAUNCH: return c->params[P_BLOCK_LAUNCH_NS];
    case SC_CLS_ASYNC_COPY: return c->params[P_BLOCK_COPY_NS];
    case SC_CLS_ALLOC: return c->params[P_BLOCK_ALLOC_NS];
    case SC_CLS_OTHER: return c->params[P_BLOCK_OTHER_NS];
    default: return -1;
  }
}

/* Whether a runtime call belongs in a set built for `mask`. */
static int wanted(const fsdpa_ctx *c, uint32_t info, int64_t dur, uint32_t mask) {
  if (info & mask & ~SC_BEHAVIOUR) return 1;
  if (!(mask & SC_BEHAVIOUR)) return 0;
  int cls = sc_class_of(info);
  return !sc_class_named(cls) && dur > sc_class_threshold(c, cls);
}

static int32_t dev_index(const sc_set *s, int64_t device);

/* Position of GPU op g in stream k's order, or SIZE_MAX. */
static size_t op_pos(const fsdpa_ctx *c, const scratch *x, size_t k, uint32_t g) {
  const gpu_stream_view *sv = &x->v->streams[k];
  int64_t ts = STORE_REC(&c->st.gpu, g)->ts;
  size_t lo = 0, hi = sv->nops;  /* first op starting at or after ts */
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (STORE_REC(&c->st.gpu, sv->ops[mid])->ts < ts) lo = mid + 1;
    else hi = mid;
  }
  for (; lo < sv->nops && STORE_REC(&c->st.gpu, sv->ops[lo])->ts == ts; lo++)
    if (sv->ops[lo] == g) return lo;
  return SIZE_MAX;
}

/* The waited-for work's end matches the call: it ended within `tol` of the
 * call's end, at least the class threshold after its start. */
static int ends_with(const fsdpa_ctx *c, const sc_call *k, uint32_t g, int64_t thr, int64_t tol) {
  if (g == NONE32) return 0;
  const ev_rec *op = STORE_REC(&c->st.gpu, g);
  return op->ts < k->end && op->end >= k->end - tol && op->end <= k->end + tol && op->end - k->ts >= thr;
}

/* Op j of stream k and the ops in front of it still unfinished at t (a FIFO
 * stream: walk back until one ended): their count and busy time after t.
 * The op itself is counted first. */
static void work_of(const fsdpa_ctx *c, const scratch *x, size_t k, size_t j, int64_t t, uint32_t *n, int64_t *busy,
                    int64_t *own) {
  const gpu_stream_view *sv = &x->v->streams[k];
  int64_t cover = INT64_MAX;  /* start of the time already counted */
  *n = 0;
  *busy = *own = 0;
  for (size_t i = j + 1; i-- > 0;) {
    const ev_rec *op = STORE_REC(&c->st.gpu, sv->ops[i]);
    if (op->end <= t) break;
    int64_t s0 = op->ts > t ? op->ts : t, e0 = op->end < cover ? op->end : cover;
    int64_t d = e0 > s0 ? e0 - s0 : 0;
    if (i == j) *own = d;
    else (*n)++;
    *busy += d;
    if (s0 < cover) cover = s0;
  }
}

/* Whether the call waited for op g (position j of stream sk): it ended with
 * the call, and the op's device was busy for at least the threshold and
 * nine tenths of the call until then (a slow launch whose kernel merely started as it returned,
 * on an idle GPU, waited for nothing; the work in front may be on other
 * streams the op depends on, so the device's busy time is what counts). */
static int waited_for(const fsdpa_ctx *c, const scratch *x, const sc_set *s, sc_call *k, uint32_t g, size_t sk,
                      int64_t thr, int64_t tol, int own_copy) {
  if (!ends_with(c, k, g, thr, tol)) return 0;
  size_t j = op_pos(c, x, sk, g);
  if (j == SIZE_MAX) return 0;
  int32_t di = dev_index(s, x->v->streams[sk].device);
  size_t nb;
  const iv *b = sc_busy(s, di, &nb);
  int64_t ge = STORE_REC(&c->st.gpu, g)->end, we = ge < k->end ? ge : k->end;
  /* busy for the threshold and for at least 9/10 of the wait: a call on an
   * idle GPU was held by the CPU side (module loading, setup), not the GPU.
   * Not for the call's own copy: a copy call that returns as its copy ends
   * waited for it, also while the copy sat queued behind work that waited
   * on something else (an idle GPU then says nothing about the call). */
  int64_t busy_in = iv_len_in(b, nb, k->ts, we);
  if (!own_copy && (busy_in < thr || busy_in < (we - k->ts) - (we - k->ts) / 10)) return 0;
  uint32_t n;
  int64_t busy, own;
  work_of(c, x, sk, j, k->ts, &n, &busy, &own);
  k->queue_n = n;
  k->queue_ns = busy - own;
  return 1;
}

/* Blocking by behaviour, for a call of a non-named class longer than its
 * threshold: it waited for its own op (a copy that ran during it), for the
 * work queued on its stream before it (its own op's stream, else the
 * thread's last launch's), or for everything queued on the device before it,
 * and that work ended with the call.  Fills the waited-for fields when it did. */
static void behave(const fsdpa_ctx *c, const scratch *x, const sc_set *s, sc_call *k, int set_device) {
  int64_t thr = sc_class_threshold(c, k->cls), tol = c->params[P_BLOCK_WAKE_TOL_NS];
  uint32_t own = x->rt_gpu ? x->rt_gpu[k->rt] : NONE32;
  uint32_t ref = own != NONE32 ? own : thread_last_op(x, k->track, k->ts);
  int64_t dev = FSDPA_ABSENT, stream = FSDPA_ABSENT;
  if (ref != NONE32) op_place(c, ref, &dev, &stream);
  int64_t sk = ref != NONE32 ? stream_find(x->v, dev, stream) : -1;
  uint32_t g = NONE32;
  /* a copy returns when it is done: its own op first; a launch whose kernel
   * starts as it returns waited for the work in front of that kernel */
  int own_first = own != NONE32 && STORE_REC(&c->st.gpu, own)->kind != RK_KERNEL;
  static const int order[2][3] = {{1, 2, 0}, {0, 1, 2}};  /* 0 own op, 1 its stream, 2 its device */
  for (int p = 0; p < 3 && g == NONE32; p++) {
    int what = order[own_first][p];
    if (what == 0 && sk >= 0 && own != NONE32 && waited_for(c, x, s, k, own, (size_t)sk, thr, tol, own_first)) {
      g = own;
      k->src = SC_SRC_OWN_OP;
      k->scope = SC_SCOPE_STREAM;
    } else if (what == 1 && sk >= 0) {
      uint32_t w = last_op_before(x, (size_t)sk, k->ts);
      if (w != NONE32 && waited_for(c, x, s, k, w, (size_t)sk, thr, tol, 0)) {
        g = w;
        k->src = SC_SRC_INFERRED;
        k->scope = SC_SCOPE_STREAM;
      }
    } else if (what == 2) {
      uint32_t w = device_last_op(c, x, dev, k->ts);
      if (w == NONE32) continue;
      int64_t d2, s2;
      op_place(c, w, &d2, &s2);
      int64_t sw = stream_find(x->v, d2, s2);
      if (sw >= 0 && waited_for(c, x, s, k, w, (size_t)sw, thr, tol, 0)) {
        g = w;
        k->src = SC_SRC_INFERRED;
        k->scope = SC_SCOPE_DEVICE;
      }
    }
  }
  if (g == NONE32) return;
  k->how = SC_HOW_BEHAVIOUR;
  k->op = g;
  int64_t d, sid;
  op_place(c, g, &d, &sid);
  if (k->scope == SC_SCOPE_STREAM) k->stream = sid;
  if (set_device) k->device = d;
}

int32_t sc_step_of(const step_rec *steps, size_t n, int64_t t) {
  size_t lo = 0, hi = n;  /* first step starting after t */
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (steps[mid].ts <= t) lo = mid + 1;
    else hi = mid;
  }
  for (size_t k = lo; k-- > 0;)
    if (steps[k].end > t) return (int32_t)k;
  return -1;
}

static void idle_of(sc_call *k, const iv *b, size_t n) {
  k->idle_during = (k->end - k->ts) - iv_len_in(b, n, k->ts, k->end);
  size_t lo = 0, hi = n;  /* first busy interval ending after end */
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (b[mid].e <= k->end) lo = mid + 1;
    else hi = mid;
  }
  if (lo == n) k->idle_after = FSDPA_ABSENT;
  else k->idle_after = b[lo].s <= k->end ? 0 : b[lo].s - k->end;
}

static int build_devs(fsdpa_ctx *c, const store_views *v, sc_set *s) {
  fa_alloc *a = &c->alloc;
  size_t nd = 0;
  for (size_t k = 0; k < v->nstreams; k++)
    if (!k || v->streams[k].device != v->streams[k - 1].device) nd++;
  if (!nd) return 0;
  if (!(s->devs = fa_calloc(a, nd * sizeof(sc_dev)))) return -1;
  s->ndevs = nd;
  size_t d = 0, k = 0;
  while (k < v->nstreams) {
    size_t e = k, tot = 0;
    while (e < v->nstreams && v->streams[e].device == v->streams[k].device) tot += v->streams[e++].nbusy;
    sc_dev *dv = &s->devs[d++];
    dv->device = v->streams[k].device;
    if (tot) {
      if (!(dv->busy = fa_malloc(a, tot * sizeof(iv)))) return -1;
      dv->cap = tot;
      size_t m = 0;
      for (size_t j = k; j < e; j++) {
        memcpy(dv->busy + m, v->streams[j].busy, v->streams[j].nbusy * sizeof(iv));
        m += v->streams[j].nbusy;
      }
      dv->n = iv_union(dv->busy, m);
    }
    k = e;
  }
  return 0;
}

static int32_t dev_index(const sc_set *s, int64_t device) {
  if (device == FSDPA_ABSENT) return -1;
  for (size_t i = 0; i < s->ndevs; i++)
    if (s->devs[i].device == device) return (int32_t)i;
  return -1;
}

void sc_free(fsdpa_ctx *c, sc_set *s) {
  if (s->borrowed) {
    memset(s, 0, sizeof *s);
    return;
  }
  fa_alloc *a = &c->alloc;
  fa_free(a, s->v, s->n * sizeof(sc_call));
  if (s->shares) {
    memset(s, 0, sizeof *s);
    return;
  }
  fa_free(a, s->steps, s->nsteps * sizeof(step_rec));
  for (size_t i = 0; i < s->ndevs; i++) fa_free(a, s->devs[i].busy, s->devs[i].cap * sizeof(iv));
  fa_free(a, s->devs, s->ndevs * sizeof(sc_dev));
  memset(s, 0, sizeof *s);
}

static fsdpa_status sc_build_new(fsdpa_ctx *c, uint32_t mask, sc_set *s) {
  fa_alloc *a = &c->alloc;
  const store *st = &c->st;
  memset(s, 0, sizeof *s);
  const store_views *v = ctx_views(c);
  if (!v) return fa_fail_status(a);
  s->all = v->all_busy;
  s->nall = v->nall;
  size_t ns = ctx_sorted_steps(c, NULL, 0);
  if (ns) {
    if (!(s->steps = fa_malloc(a, ns * sizeof(step_rec)))) goto fail;
    s->nsteps = ctx_sorted_steps(c, s->steps, ns);
  }
  size_t n = 0;
  for (size_t i = 0; i < st->rt.len; i++) {
    const ev_rec *r = STORE_REC(&st->rt, i);
    n += wanted(c, store_name_info(st, r->name), r->end - r->ts, mask);
  }
  if (!n) return FSDPA_OK;
  if (!(s->v = fa_malloc(a, n * sizeof(sc_call)))) goto fail;
  s->n = n;
  if (build_devs(c, v, s)) goto fail;
  scratch x;
  memset(&x, 0, sizeof x);
  x.v = v;
  if (scratch_build(c, &x)) {
    scratch_free(a, &x);
    goto fail;
  }
  size_t m = 0;
  for (size_t i = 0; i < st->rt.len; i++) {
    const ev_rec *r = STORE_REC(&st->rt, i);
    uint32_t info = store_name_info(st, r->name);
    if (!wanted(c, info, r->end - r->ts, mask)) continue;
    sc_call *k = &s->v[m++];
    memset(k, 0, sizeof *k);
    k->rt = (uint32_t)i;
    k->name = r->name;
    k->track = r->track;
    k->info = info;
    k->ts = r->ts;
    k->end = r->end;
    k->sync_kind = INTERN_NONE;
    k->op = NONE32;
    k->device = k->stream = FSDPA_ABSENT;
    k->bytes = r->aux != AUX_NONE ? FA_VEC_AT(&st->side, int64_t, r->aux) : FSDPA_ABSENT;
    k->step = sc_step_of(s->steps, s->nsteps, r->ts);
    k->cls = (uint8_t)sc_class_of(info);
    int tested = !sc_class_named(k->cls) && r->end - r->ts > sc_class_threshold(c, k->cls);
    if (sc_class_named(k->cls)) k->how = SC_HOW_NAMED;
    /* an allocation call keeps the attribution the allocator analysis
     * measures its idle with; its behaviour test only names what it waited for */
    if (sc_class_named(k->cls) || k->cls == SC_CLS_ALLOC) attribute(c, &x, k);
    else if (tested) behave(c, &x, s, k, 1);
    if (k->op != NONE32) {
      int64_t d, sid;
      op_place(c, k->op, &d, &sid);
      if (k->device == FSDPA_ABSENT) k->device = d;
    }
    k->dev = dev_index(s, k->device);
    size_t nb;
    const iv *b = sc_busy(s, k->dev, &nb);
    idle_of(k, b, nb);
    if (tested && k->cls == SC_CLS_ALLOC) behave(c, &x, s, k, 0);
  }
  scratch_free(a, &x);
  call_sort(s->v, s->n);
  return FSDPA_OK;
fail:
  sc_free(c, s);
  return fa_fail_status(a);
}

static fsdpa_status sc_build_cb(fsdpa_ctx *c, void *obj, const void *arg) {
  return sc_build_new(c, *(const uint32_t *)arg, obj);
}

static void sc_cache_free(fsdpa_ctx *c, void *obj) {
  sc_free(c, obj);
  fa_free(&c->alloc, obj, sizeof(sc_set));
}

/* Whether a call of the SC_ALL_MASK set is selected by mask: its NC bits
 * intersect it, or it blocked by behaviour and mask asks for the blocking
 * calls; SC_ALL_MASK itself keeps every call (the tested ones too). */
static int in_mask(const sc_call *k, uint32_t mask) {
  if ((mask & SC_ALL_MASK) == SC_ALL_MASK) return 1;
  if (k->info & mask & ~SC_BEHAVIOUR) return 1;
  return (mask & SC_BEHAVIOUR) && sc_is_blocking(k);
}

/* The calls of `all` (an SC_ALL_MASK set) whose bits intersect mask; steps
 * and devices stay all's.  Attribution does not depend on the mask. */
static fsdpa_status sc_select(fsdpa_ctx *c, const sc_set *all, uint32_t mask, sc_set *s) {
  *s = *all;
  s->v = NULL;
  s->n = 0;
  s->borrowed = 0;
  s->shares = 1;
  size_t n = 0;
  for (size_t i = 0; i < all->n; i++) n += in_mask(&all->v[i], mask);
  if (!n) return FSDPA_OK;
  if (!(s->v = fa_malloc(&c->alloc, n * sizeof(sc_call)))) return fa_fail_status(&c->alloc);
  for (size_t i = 0; i < all->n; i++)
    if (in_mask(&all->v[i], mask)) s->v[s->n++] = all->v[i];
  return FSDPA_OK;
}

typedef struct sel_arg {
  const sc_set *all;
  uint32_t mask;
} sel_arg;

static fsdpa_status sc_select_cb(fsdpa_ctx *c, void *obj, const void *arg) {
  const sel_arg *x = arg;
  return sc_select(c, x->all, x->mask, obj);
}

fsdpa_status sc_build(fsdpa_ctx *c, uint32_t mask, sc_set *s) {
  memset(s, 0, sizeof *s);
  if (mask & ~(uint32_t)SC_ALL_MASK) return sc_build_new(c, mask, s);
  const uint32_t all_mask = SC_ALL_MASK;
  const void *k;
  /* the selections below share the full set's steps and devices: it lives
   * in an earlier slot, valid exactly as long as theirs */
  fsdpa_status st = ctx_cache_obtain(c, CACHE_SYNC_ALL, sizeof *s, sc_build_cb, &all_mask, sc_cache_free, &k);
  if (st) return st;
  sel_arg x = {(const sc_set *)k, mask};
  if (mask != SC_BLOCKING_MASK) return sc_select(c, x.all, mask, s);
  st = ctx_cache_obtain(c, CACHE_SYNC_BLOCKING, sizeof *s, sc_select_cb, &x, sc_cache_free, &k);
  if (st) return st;
  *s = *(const sc_set *)k;
  s->borrowed = 1;
  return FSDPA_OK;
}

fsdpa_status sc_idle_cost(fsdpa_ctx *c, const sc_set *s, const uint8_t *sel, int64_t *out) {
  *out = 0;
  size_t n = 0;
  for (size_t i = 0; i < s->n; i++) n += sel[i] != 0;
  if (!n) return FSDPA_OK;
  iv *w = fa_malloc(&c->alloc, n * sizeof(iv));
  if (!w) return fa_fail_status(&c->alloc);
  int64_t total = 0;
  /* group by device (-1 = all devices) so each device's idle counts once */
  for (int32_t d = -1; d < (int32_t)s->ndevs; d++) {
    size_t m = 0;
    for (size_t i = 0; i < s->n; i++) {
      const sc_call *k = &s->v[i];
      if (!sel[i] || k->dev != d) continue;
      int64_t resume = k->end + (k->idle_after == FSDPA_ABSENT ? 0 : k->idle_after);
      w[m++] = (iv){k->ts, resume};
    }
    if (!m) continue;
    m = iv_union(w, m);
    size_t nb;
    const iv *b = sc_busy(s, d, &nb);
    /* per piece with binary search: cheap when called once per step */
    for (size_t j = 0; j < m; j++) total += (w[j].e - w[j].s) - iv_len_in(b, nb, w[j].s, w[j].e);
  }
  fa_free(&c->alloc, w, n * sizeof(iv));
  *out = total;
  return FSDPA_OK;
}

typedef struct sc_len {
  int64_t d;
  size_t i;
} sc_len;
#define SC_LEN_LESS(x, y) ((x)->d != (y)->d ? (x)->d > (y)->d : (x)->i < (y)->i)
FA_SORT_DEFINE(sc_len_sort, sc_len, SC_LEN_LESS)

fsdpa_status sc_rest_longest(fa_alloc *a, const sc_set *s, const uint8_t *sel, const size_t *top, int ntop,
                             size_t **out, size_t *n) {
  *out = NULL;
  *n = 0;
  size_t m = 0;
  for (size_t i = 0; i < s->n; i++) m += sel[i] != 0;
  if (!m) return FSDPA_OK;
  sc_len *v = fa_malloc(a, m * sizeof *v);
  if (!v) return fa_fail_status(a);
  size_t k = 0;
  for (size_t i = 0; i < s->n; i++) {
    if (!sel[i]) continue;
    int in_top = 0;
    for (int t = 0; t < ntop && !in_top; t++) in_top = top[t] == i;
    if (!in_top) v[k++] = (sc_len){s->v[i].end - s->v[i].ts, i};
  }
  sc_len_sort(v, k);
  size_t *o = k ? fa_malloc(a, k * sizeof *o) : NULL;
  if (k && !o) {
    fa_free(a, v, m * sizeof *v);
    return fa_fail_status(a);
  }
  for (size_t j = 0; j < k; j++) o[j] = v[j].i;
  fa_free(a, v, m * sizeof *v);
  *out = o;
  *n = k;
  return FSDPA_OK;
}
