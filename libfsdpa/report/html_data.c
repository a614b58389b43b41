/* Picture data of the HTML page, per rank: GPU and CPU lanes, steps, a
 * whole-trace overview, Gantt windows, a coarse Gantt of every step and the
 * memory timeline.
 *
 * Times on the page are ns relative to the rank's origin (its first GPU op
 * or first step, whichever is earlier): absolute ns do not fit a JavaScript
 * double exactly, relative ones do for 104 days.
 *
 * The Gantt is bounded whatever the trace size: a window is cut into at most
 * HTML_GANTT_COLUMNS columns (fewer when the page budget is tight), and the
 * ops of a lane that fall into columns already covered by the previous
 * rectangle are merged into it (count, Σ duration, dominant class, longest
 * op's name).  So a lane holds at most one rectangle per column.  The few
 * detailed windows (the default step, the steps the findings point at) use
 * that at full resolution; every other step gets the same picture at the
 * coarsest resolution that keeps all steps inside the page's budget, in a
 * compact encoding (columns instead of ns, no Σ duration), so any step can
 * be shown.
 *
 * CPU lanes: the threads that made the runtime calls CPU-side findings
 * measured (a blocking sync, cudaMalloc/cudaFree), and the threads that
 * launched the most GPU work, each with its runtime calls. */
#include "report/html.h"
#include "analysis/launch_gaps/launch_gaps.h"
#include "model/kernel_sets.h"
#include "model/runtime_calls.h"
#include "model/iterations.h"
#include "events/classify.h"
#include "events/classify_workload.h"
#include "util/fmt.h"
#include "util/sort.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Classes drawn in the overview and the Gantt, in the order of the page's
 * colour table and legend (html_page.js CLASS_COLORS). */
enum { HC_COMPUTE, HC_ALLGATHER, HC_REDUCESCATTER, HC_ALLREDUCE, HC_OTHER_COMM, HC_MEMCPY,
       HC_MEMSET, HC_RT_LAUNCH, HC_RT_SYNC, HC_RT_ALLOC, HC_RT_OTHER, HC_RT_BEHAVIOUR, HC_DATALOADER, HC__COUNT };
/* The first class of runtime calls (CPU lanes). */
#define HC__CPU HC_RT_LAUNCH

static const char *const class_names[HC__COUNT] = {
    "compute", "AllGather", "ReduceScatter", "AllReduce", "other collective", "memcpy", "memset",
    "launch (CPU)", "blocking by name (CPU)", "malloc / free (CPU)", "other runtime call (CPU)",
    "blocking by behaviour (CPU)", "DataLoader __next__ (CPU)"};

void html_classes_json(jsonw *w) {
  jw_arr(w);
  for (int k = 0; k < HC__COUNT; k++) {
    jw_obj(w);
    jw_kstr(w, "name", class_names[k]);
    jw_kstr(w, "side", k < HC__CPU ? "gpu" : "cpu");
    jw_obj_end(w);
  }
  jw_arr_end(w);
}

static int op_class(const store *s, const ev_rec *r, int comm) {
  if (r->kind == RK_MEMCPY) return HC_MEMCPY;
  if (r->kind == RK_MEMSET) return HC_MEMSET;
  if (!comm) return HC_COMPUTE;
  const coll_info *ci;
  switch (ks_kernel_coll(s, r, &ci)) {
    case COLL_ALLGATHER: return HC_ALLGATHER;
    case COLL_REDUCESCATTER: return HC_REDUCESCATTER;
    case COLL_ALLREDUCE: return HC_ALLREDUCE;
    default: return HC_OTHER_COMM;
  }
}

/* cudaFree blocks too, but on the page it belongs with the allocator: the
 * allocator-thrash finding points at it, as allocation calls that blocked
 * by behaviour do (their time is the allocator's, model/runtime_calls.h).
 * behaviour: the call blocked by behaviour (a launch or an async copy that
 * waited for the GPU; sync_classes.by_behaviour), drawn apart from the
 * calls that block by their name. */
static int rt_class(const store *s, const ev_rec *r, int behaviour) {
  uint32_t f = store_name_info(s, r->name);
  if (f & (NC_MALLOC | NC_FREE | NC_VMM)) return HC_RT_ALLOC;
  if (behaviour && !(f & SC_NAMED_MASK)) return HC_RT_BEHAVIOUR;
  if (f & (NC_SYNC | NC_DEVICE_SYNC | NC_SYNC_MEMCPY)) return HC_RT_SYNC;
  if (f & (NC_LAUNCH | NC_GRAPH_LAUNCH)) return HC_RT_LAUNCH;
  return HC_RT_OTHER;
}

static const char *role_name(int r) {
  switch (r) {
    case FSDPA_ROLE_COMPUTE: return "compute";
    case FSDPA_ROLE_COMMUNICATION: return "communication";
    case FSDPA_ROLE_MEMORY: return "memory";
    default: return "mixed";
  }
}

/* Display order of lanes inside a device: compute first, then the streams
 * that mix both, then communication, so the zigzag reads top to bottom. */
static int role_order(int r) {
  switch (r) {
    case FSDPA_ROLE_COMPUTE: return 0;
    case FSDPA_ROLE_MIXED: return 1;
    case FSDPA_ROLE_COMMUNICATION: return 2;
    default: return 3;
  }
}

/* The steps the page shows: the ProfilerStep ranges, else the iterations
 * found otherwise (model/iterations.h: optimizer steps, engine steps, ...),
 * drawn the same way, so a trace without ProfilerStep still has a step row,
 * a step to open in the Gantt and a step time. */
typedef struct hsteps {
  const step_rec *v;
  size_t n;
  int inferred;          /* v are iterations (their number: the index) */
  int source;            /* it_source of the iterations */
  step_rec *own;         /* v when inferred (allocated, n entries) */
} hsteps;

/* The steps of the page (hsteps): the store's ProfilerSteps, else the
 * iterations model/iterations.h finds (numbered by index). */
static fsdpa_status page_steps(fsdpa_ctx *c, fa_alloc *a, hsteps *hs) {
  memset(hs, 0, sizeof *hs);
  if (c->st.steps.len) {
    hs->v = (const step_rec *)c->st.steps.data;
    hs->n = c->st.steps.len;
    return FSDPA_OK;
  }
  iterations it;
  fsdpa_status st = iterations_build(c, &it);
  if (st) return st;
  if (it.n) {
    hs->own = fa_malloc(a, it.n * sizeof *hs->own);
    if (!hs->own) {
      iterations_free(&it);
      return ctx_fail(c, fa_fail_status(a), "out of memory (html steps)");
    }
    for (size_t k = 0; k < it.n; k++) hs->own[k] = (step_rec){(int64_t)k, it.r[k].s, it.r[k].e, 0};
    hs->v = hs->own;
    hs->n = it.n;
    hs->inferred = 1;
    hs->source = it.source;
  }
  iterations_free(&it);
  return FSDPA_OK;
}

/* Relative origin of a rank: the earliest of its first GPU op and its first
 * step (ranks[].origin_ns of the report, relative); 0 if it has neither. */
static int64_t rank_origin(const store_views *v, const hsteps *hs) {
  int64_t t = INT64_MAX;
  if (v->nall) t = v->all_busy[0].s;
  if (hs->n && hs->v[0].ts < t) t = hs->v[0].ts;
  return t == INT64_MAX ? 0 : t;
}

static int64_t rank_end(const store_views *v, const hsteps *hs) {
  int64_t t = INT64_MIN;
  if (v->nall) t = v->all_busy[v->nall - 1].e;
  for (size_t k = 0; k < hs->n; k++)
    if (hs->v[k].end > t) t = hs->v[k].end;
  return t == INT64_MIN ? 0 : t;
}

/* A kernel name cut to HTML_NAME_MAX bytes at a UTF-8 boundary. */
static void put_name(jsonw *w, const char *s, size_t n) {
  if (n > HTML_NAME_MAX) {
    n = HTML_NAME_MAX;
    while (n && ((unsigned char)s[n] & 0xC0) == 0x80) n--;
  }
  jw_strn(w, s, n);
}

/* ---- which side of the machine a finding is about ---- */

enum { SIDE_NONE, SIDE_GPU, SIDE_CPU };

/* Findings about runtime calls a CPU thread made: their ranges start at
 * those calls.  The others are about GPU streams (gaps, collectives,
 * overlap).  An id in neither list counts as CPU-side when every range
 * starts at a runtime call. */
static const char *const cpu_side_ids[] = {"cpu-sync-stall", "allocator-thrash", "pinned-host-churn",
                                           "dataloader-stall"};
static const char *const gpu_side_ids[] = {"gpu-starvation", "launch-overhead", "exposed-comm",
                                           "comm-serialized", "backward-prefetch-missing",
                                           "straggler-rank"};

/* A DataLoader __next__ range (classify's iteration mark, as the model's
 * dataloader calls are found). */
static int is_next_call(const store *s, const ev_rec *r) {
  return classify_iteration_mark(store_name(s, r->name), intern_len(&s->names, r->name)) == IT_DATALOADER;
}

/* For each range of f: the CPU thread (track id) of the runtime call that
 * starts it, preferring the blocking and allocator calls the CPU-side
 * analyses measure, then the longest; UINT32_MAX where none starts there.
 * Returns how many ranges matched. */
static int finding_tracks(fsdpa_ctx *c, const finding *f, uint32_t *out) {
  const store *s = &c->st;
  int64_t base = ctx_base(c), len[FINDING_MAX_RANGES];
  int pref[FINDING_MAX_RANGES];
  for (int k = 0; k < f->nranges; k++) out[k] = UINT32_MAX, len[k] = -1, pref[k] = -1;
  if (!f->nranges) return 0;
  if (!strcmp(f->id, "dataloader-stall")) {
    /* its ranges are DataLoader __next__ calls: the thread that ran them */
    int n = 0;
    for (size_t i = 0; i < s->cpu.len; i++) {
      const ev_rec *r = STORE_REC(&s->cpu, i);
      for (int k = 0; k < f->nranges; k++)
        if (out[k] == UINT32_MAX && r->ts == f->ranges[k].s - base && r->end == f->ranges[k].e - base &&
            is_next_call(s, r))
          out[k] = r->track, n++;
    }
    return n;
  }
  for (size_t i = 0; i < s->rt.len; i++) {
    const ev_rec *r = STORE_REC(&s->rt, i);
    for (int k = 0; k < f->nranges; k++) {
      if (r->ts != f->ranges[k].s - base) continue;
      int p = (store_name_info(s, r->name) & SC_ALL_MASK) != 0;
      if (p > pref[k] || (p == pref[k] && r->end - r->ts > len[k]))
        out[k] = r->track, len[k] = r->end - r->ts, pref[k] = p;
    }
  }
  int n = 0;
  for (int k = 0; k < f->nranges; k++) n += out[k] != UINT32_MAX;
  return n;
}

static int finding_side(fsdpa_ctx *c, const finding *f, uint32_t *tracks) {
  for (int k = 0; k < FINDING_MAX_RANGES; k++) tracks[k] = UINT32_MAX;
  if (!f->nranges) return SIDE_NONE;
  for (size_t k = 0; k < sizeof cpu_side_ids / sizeof *cpu_side_ids; k++)
    if (!strcmp(f->id, cpu_side_ids[k])) {
      if (c) finding_tracks(c, f, tracks);
      return SIDE_CPU;
    }
  for (size_t k = 0; k < sizeof gpu_side_ids / sizeof *gpu_side_ids; k++)
    if (!strcmp(f->id, gpu_side_ids[k])) return SIDE_GPU;
  if (c && finding_tracks(c, f, tracks) == f->nranges) return SIDE_CPU;
  for (int k = 0; k < FINDING_MAX_RANGES; k++) tracks[k] = UINT32_MAX;
  return SIDE_GPU;
}

static size_t rank_index_of(report_in *in, int64_t rank) {
  for (size_t i = 0; i < in->n; i++)
    if (in->ranks[i] == rank) return i;
  return in->n;
}

/* ---- lanes and their rectangles ---- */

/* The ops of one lane: indices into a record table, sorted by start. */
typedef struct lane_src {
  const fa_vec *recs;    /* &st.gpu or &st.rt */
  const uint32_t *ops;
  size_t nops;
  int64_t maxdur;        /* longest op, to start the scan of a window */
  int cpu;               /* 1: runtime calls, classified by rt_class; 2: DataLoader __next__ (st.cpu) */
  const uint32_t *comm;  /* GPU lanes: the views' communication classification */
  const uint8_t *behav;  /* CPU lanes: bit per st.rt index, set if it blocked by behaviour */
} lane_src;

static int lane_class(const store *s, const lane_src *src, size_t i) {
  uint32_t k = src->ops[i];
  const ev_rec *r = STORE_REC(src->recs, k);
  if (src->cpu == 2) return HC_DATALOADER;
  if (src->cpu) return rt_class(s, r, src->behav && (src->behav[k >> 3] >> (k & 7) & 1));
  return op_class(s, r, src->comm[k] != 0);
}

typedef struct win {
  int64_t s, e;          /* relative store ns */
  int64_t cpu_s, cpu_e;  /* the step's CPU range, or ABSENT */
  int64_t step;          /* step number or ABSENT */
  int kind;              /* 0 step, 1 range around a finding, 2 whole trace */
  size_t si;             /* step index (kind 0), else SIZE_MAX */
} win;

typedef struct rect {
  int64_t s, e, busy;
  int64_t cls_ns[HC__COUNT];
  uint64_t n;
  int first_cls;
  uint32_t name;         /* longest op's name */
  int64_t longest;
  int64_t c0, c1;        /* covered columns [c0, c1) */
} rect;

typedef struct names_tab {
  uint32_t *slot;        /* intern id -> index + 1 in the table */
  size_t nslot;
  uint32_t next;
} names_tab;

/* Where the rectangles of a lane go. */
typedef struct rect_sink {
  jsonw *w;              /* NULL: only count them */
  int compact;           /* 5 numbers per rectangle in columns, else 6 in ns */
  names_tab *nt;
  uint64_t n;            /* rectangles so far (all lanes) */
  int64_t prev_c1;       /* compact: end column of the lane's previous rectangle */
} rect_sink;

static void rect_flush(rect_sink *k, const rect *r, const win *x) {
  k->n++;
  if (!k->w) return;
  int cls = r->first_cls;
  int64_t best = 0;
  for (int c = 0; c < HC__COUNT; c++)
    if (r->cls_ns[c] > best) best = r->cls_ns[c], cls = c;
  names_tab *nt = k->nt;
  uint32_t idx = 0;
  if (r->name < nt->nslot) {
    if (!nt->slot[r->name]) nt->slot[r->name] = ++nt->next;
    idx = nt->slot[r->name] - 1;
  }
  jsonw *w = k->w;
  if (k->compact) {
    /* columns never overlap between rectangles: c0 >= the previous c1 */
    jw_i64(w, r->c0 - k->prev_c1);
    jw_i64(w, r->c1 - r->c0);
    jw_i64(w, cls);
    jw_u64(w, idx);
    jw_u64(w, r->n);
    k->prev_c1 = r->c1;
    return;
  }
  jw_i64(w, r->s - x->s);
  jw_i64(w, r->e - x->s);
  jw_i64(w, cls);
  jw_u64(w, idx);
  jw_u64(w, r->n);
  jw_i64(w, r->busy);
}

/* One lane of a window: its ops clipped to [x->s, x->e), merged per column
 * of `res` ns. */
static void lane_rects(const store *s, const lane_src *src, const win *x, int64_t res,
                       rect_sink *k) {
  rect cur;
  int have = 0;
  /* no op starting before x->s - maxdur can reach into the window */
  size_t lo = 0, hi = src->nops;
  while (lo < hi) {
    size_t mid = (lo + hi) / 2;
    if (STORE_REC(src->recs, src->ops[mid])->ts < x->s - src->maxdur) lo = mid + 1;
    else hi = mid;
  }
  k->prev_c1 = 0;
  if (k->w) jw_arr(k->w);
  for (size_t i = lo; i < src->nops; i++) {
    const ev_rec *r = STORE_REC(src->recs, src->ops[i]);
    if (r->ts >= x->e) break;  /* sorted by start */
    if (r->end <= x->s && !(r->end == r->ts && r->ts == x->s)) continue;
    int64_t a = r->ts < x->s ? x->s : r->ts, b = r->end > x->e ? x->e : r->end;
    int64_t c0 = (a - x->s) / res, c1 = (b - x->s + res - 1) / res;
    if (c1 <= c0) c1 = c0 + 1;
    int cls = lane_class(s, src, i);
    if (have && c0 < cur.c1) {
      if (b > cur.e) cur.e = b;
      if (c1 > cur.c1) cur.c1 = c1;
      cur.n++;
      cur.busy += b - a;
      cur.cls_ns[cls] += b - a;
      if (r->end - r->ts > cur.longest) cur.longest = r->end - r->ts, cur.name = r->name;
      continue;
    }
    if (have) rect_flush(k, &cur, x);
    memset(&cur, 0, sizeof cur);
    have = 1;
    cur.s = a;
    cur.e = b;
    cur.c0 = c0;
    cur.c1 = c1;
    cur.n = 1;
    cur.busy = b - a;
    cur.cls_ns[cls] = b - a;
    cur.first_cls = cls;
    cur.name = r->name;
    cur.longest = r->end - r->ts;
  }
  if (have) rect_flush(k, &cur, x);
  if (k->w) jw_arr_end(k->w);
}

static fsdpa_status memory_json(fsdpa_ctx *c, int64_t t0_rel, int64_t t1_rel, size_t buckets,
                                int64_t origin, jsonw *w) {
  fa_alloc *a = &c->alloc;
  fsdpa_query q;
  fsdpa_query_init(&q);
  if (t0_rel != FSDPA_ABSENT) {
    q.fields = FSDPA_QUERY_T0 | FSDPA_QUERY_T1;
    q.t0_ns = ctx_abs(c, t0_rel);
    q.t1_ns = ctx_abs(c, t1_rel);
  }
  fsdpa_list *l;
  fsdpa_status st = fsdpa_memory_series_list(c, &q, FSDPA_ABSENT, buckets, &l);
  if (st) return st;
  size_t n = fsdpa_list_count(l), bytes = (n ? n : 1) * sizeof(fsdpa_memory_point);
  fsdpa_memory_point *p = fa_calloc(a, bytes);
  if (!p) {
    fsdpa_list_free(l);
    return ctx_fail(c, fa_fail_status(a), "out of memory (html memory timeline)");
  }
  for (size_t k = 0; k < n; k++) {
    p[k].size = sizeof p[k];
    fsdpa_list_get(l, k, &p[k]);
  }
  fsdpa_list_free(l);
  int any = 0;
  for (size_t k = 0; k < n; k++)
    if (p[k].allocated_max != FSDPA_ABSENT || p[k].reserved_max != FSDPA_ABSENT) any = 1;
  if (!n || !any) {
    jw_null(w);
    fa_free(a, p, bytes);
    return FSDPA_OK;
  }
  fsdpa_memory_summary ms;
  memset(&ms, 0, sizeof ms);
  ms.size = sizeof ms;
  fsdpa_status qs = fsdpa_memory_query(c, &q, &ms);
  if (qs == FSDPA_ENOMEM || qs == FSDPA_ELIMIT) { /* never a page silently missing its memory facts */
    fa_free(a, p, bytes);
    return qs;
  }
  jw_obj(w);
  if (qs == FSDPA_OK) {
    jw_ki64(w, "device", ms.device);
    jw_key(w, "relative");
    jw_bool(w, ms.allocated_is_relative);
  }
  int64_t base = ctx_base(c);
  jw_ki64(w, "start", p[0].t0_ns - base - origin);
  jw_ki64(w, "bucket_ns", p[0].t1_ns - p[0].t0_ns);
  jw_ki64(w, "end", p[n - 1].t1_ns - base - origin);
  static const char *const keys[] = {"allocated_min", "allocated_max", "allocated_last",
                                     "reserved_max", "reserved_last"};
  for (int f = 0; f < 5; f++) {
    jw_key(w, keys[f]);
    jw_arr(w);
    for (size_t k = 0; k < n; k++) {
      int64_t v = f == 0 ? p[k].allocated_min : f == 1 ? p[k].allocated_max
                : f == 2 ? p[k].allocated_last : f == 3 ? p[k].reserved_max : p[k].reserved_last;
      jw_i64(w, v);
    }
    jw_arr_end(w);
  }
  jw_obj_end(w);
  fa_free(a, p, bytes);
  return FSDPA_OK;
}

/* GPU end of each step: the last end of the GPU ops whose launch call
 * started inside the step's CPU range (ops without a launch call: their own
 * start).  The Gantt window of a step runs to there, so the work the step
 * queued is shown whole even when the GPU lags the CPU. */
static fsdpa_status step_gpu_ends(fsdpa_ctx *c, const store_views *v, const hsteps *hs, int64_t *ends) {
  const store *s = &c->st;
  size_t ns = hs->n;
  for (size_t k = 0; k < ns; k++) ends[k] = hs->v[k].end;
  for (size_t i = 0; i < s->gpu.len; i++) {
    const ev_rec *r = STORE_REC(&s->gpu, i);
    int64_t t = r->ts;
    if (r->corr != FSDPA_ABSENT) {
      uint32_t ri = store_runtime_for_corr(v, r->corr);
      if (ri != UINT32_MAX) t = STORE_REC(&s->rt, ri)->ts;
    }
    /* last step starting at or before t */
    size_t lo = 0, hi = ns;
    while (lo < hi) {
      size_t mid = (lo + hi) / 2;
      if (hs->v[mid].ts <= t) lo = mid + 1;
      else hi = mid;
    }
    if (!lo) continue;
    const step_rec *sp = &hs->v[lo - 1];
    if (t < sp->end && r->end > ends[lo - 1]) ends[lo - 1] = r->end;
  }
  return FSDPA_OK;
}

static int win_has(const win *ws, size_t n, size_t step_index) {
  for (size_t k = 0; k < n; k++)
    if (ws[k].kind == 0 && ws[k].si == step_index) return 1;
  return 0;
}

static int win_covers(const win *ws, size_t n, int64_t a, int64_t b) {
  for (size_t k = 0; k < n; k++)
    if (ws[k].s <= a && b <= ws[k].e) return 1;
  return 0;
}

static int cmp_win(const void *pa, const void *pb) {
  const win *a = pa, *b = pb;
  return a->s < b->s ? -1 : a->s > b->s ? 1 : 0;
}

/* Whether the first step is warm-up: the launch-gaps analysis' fact
 * (launch_gaps.warmup.warmup_iterations: the first of two or more
 * iterations, which are the ProfilerSteps when the trace has them), so the
 * page marks and skips the very step the findings leave out.  Without GPU
 * activity launch_gaps is null; the contract's rule then reads the steps. */
static fsdpa_status first_step_warmup(fsdpa_ctx *c, const hsteps *hs, int *out) {
  launch_gaps_brief lb;
  fsdpa_status st = launch_gaps_brief_get(c, &lb);
  if (st) return st;
  *out = hs->n && (lb.gpu ? lb.warmup_iterations != 0 : hs->n >= 2);
  return FSDPA_OK;
}

/* Index of the step shown by default: opts->html_step if set, else the
 * busiest steady step (the most GPU busy time inside its CPU range; warm:
 * the first step is warm-up, first_step_warmup()).  When no steady step has
 * any GPU work (a last step cut by the profiler's window), the warm-up step
 * is shown after all: an empty Gantt shows nothing. */
static fsdpa_status pick_step(report_in *in, size_t i, const store_views *v, const hsteps *hs, int warm,
                              size_t *out) {
  size_t ns = hs->n;
  int64_t want = in->opts->html_step;
  if (want != FSDPA_ABSENT) {
    if (want < 0 || (uint64_t)want >= ns)
      return ctx_fail(in->ctxs[0], FSDPA_EINVAL,
                      "html_step %lld is out of range: the trace of rank %lld has %zu %s", (long long)want,
                      (long long)in->ranks[i], ns, hs->inferred ? "iteration(s)" : "ProfilerStep(s)");
    *out = (size_t)want;
    return FSDPA_OK;
  }
  size_t first = warm && ns >= 2 ? 1 : 0, best = first;
  int64_t best_busy = -1;
  for (size_t k = first; k < ns; k++) {
    const step_rec *s = &hs->v[k];
    int64_t b = iv_len_in(v->all_busy, v->nall, s->ts, s->end);
    if (b > best_busy) best_busy = b, best = k;
  }
  if (first && best_busy <= 0) {
    const step_rec *s = &hs->v[0];
    if (iv_len_in(v->all_busy, v->nall, s->ts, s->end) > 0) best = 0;
  }
  *out = best;
  return FSDPA_OK;
}

/* A finding on the page: its rank, which side's lanes it highlights, its
 * ranges relative to that rank's origin and, for CPU-side findings, the
 * thread of each range. */
fsdpa_status html_finding_viz(report_in *in, size_t k, jsonw *w) {
  const finding *f = &in->all.v[k];
  size_t ri = rank_index_of(in, f->rank);
  jw_obj(w);
  jw_key(w, "rank_index");
  if (ri == in->n) {
    jw_null(w);
    jw_kstr(w, "side", "none");
    jw_key(w, "ranges");
    jw_arr(w);
    jw_arr_end(w);
    jw_obj_end(w);
    return FSDPA_OK;
  }
  jw_u64(w, ri);
  fsdpa_ctx *c = in->ctxs[ri];
  const store_views *v = ctx_views(c);
  if (!v) return fa_fail_status(&c->alloc);
  uint32_t tracks[FINDING_MAX_RANGES];
  int side = finding_side(c, f, tracks);
  jw_kstr(w, "side", side == SIDE_CPU ? "cpu" : side == SIDE_GPU ? "gpu" : "none");
  hsteps hs;
  fsdpa_status st = page_steps(c, &c->alloc, &hs);
  if (st) return st;
  int64_t org = rank_origin(v, &hs) + ctx_base(c);
  fa_free(&c->alloc, hs.own, hs.n * sizeof *hs.own);
  jw_key(w, "ranges");
  jw_arr(w);
  for (int r = 0; r < f->nranges; r++) {
    jw_arr(w);
    jw_i64(w, f->ranges[r].s - org);
    jw_i64(w, f->ranges[r].e - org);
    jw_arr_end(w);
  }
  jw_arr_end(w);
  if (side == SIDE_CPU) {
    jw_key(w, "threads");
    jw_arr(w);
    for (int r = 0; r < f->nranges; r++) {
      if (tracks[r] == UINT32_MAX) {
        jw_null(w);
        continue;
      }
      const track *t = store_track(&c->st, tracks[r]);
      jw_arr(w);
      jw_i64(w, t->pid);
      jw_i64(w, t->tid);
      /* on the DataLoader lane of that thread, not its runtime calls' */
      if (!strcmp(f->id, "dataloader-stall")) jw_str(w, "dataloader");
      jw_arr_end(w);
    }
    jw_arr_end(w);
  }
  jw_obj_end(w);
  return FSDPA_OK;
}

/* Windows of a rank, in time order: the chosen step, the steps (or ranges)
 * where the rank's worst findings point, then other steps, up to max. */
static fsdpa_status plan_windows(report_in *in, size_t i, const store_views *v, const hsteps *hs,
                                 const int64_t *gend, int warm, size_t max, win *ws, size_t *nw,
                                 int64_t *chosen_step) {
  fsdpa_ctx *c = in->ctxs[i];
  size_t ns = hs->n, n = 0;
  *chosen_step = FSDPA_ABSENT;
  if (!ns) {
    if (v->nall) ws[n++] = (win){v->all_busy[0].s, v->all_busy[v->nall - 1].e, FSDPA_ABSENT,
                                 FSDPA_ABSENT, FSDPA_ABSENT, 2, SIZE_MAX};
  } else {
    size_t pick = 0;
    fsdpa_status st = pick_step(in, i, v, hs, warm, &pick);
    if (st) return st;
    const step_rec *sp = &hs->v[pick];
    ws[n++] = (win){sp->ts, gend[pick], sp->ts, sp->end, sp->number, 0, pick};
    *chosen_step = sp->number;
  }
  int64_t base = ctx_base(c);
  for (size_t k = 0; k < in->all.n && n < max; k++) {
    const finding *f = &in->all.v[k];
    if (f->rank != in->ranks[i] || !f->nranges) continue;
    int64_t a = f->ranges[0].s - base, b = f->ranges[0].e - base;
    if (win_covers(ws, n, a, b)) continue;
    size_t hit = ns;
    for (size_t j = 0; j < ns; j++) {
      const step_rec *sp = &hs->v[j];
      if (sp->ts <= a && a < gend[j]) hit = j;
    }
    if (hit < ns) {
      const step_rec *sp = &hs->v[hit];
      if (!win_has(ws, n, hit))
        ws[n++] = (win){sp->ts, gend[hit], sp->ts, sp->end, sp->number, 0, hit};
    } else if (b > a) {
      int64_t pad = (b - a) / 4 > 50000 ? (b - a) / 4 : 50000;
      ws[n++] = (win){a - pad, b + pad, FSDPA_ABSENT, FSDPA_ABSENT, FSDPA_ABSENT, 1, SIZE_MAX};
    }
  }
  for (size_t j = 0; j < ns && n < max; j++) {
    const step_rec *sp = &hs->v[j];
    if (!win_has(ws, n, j)) ws[n++] = (win){sp->ts, gend[j], sp->ts, sp->end, sp->number, 0, j};
  }
  qsort(ws, n, sizeof *ws, cmp_win);
  *nw = n;
  return FSDPA_OK;
}

/* ---- CPU lanes ---- */

#define HTML_CPU_LANES 4

typedef struct cpu_lane {
  uint32_t track;
  int reason;            /* 0: a CPU-side finding's calls, 1: the thread that launched the most,
                          * 2: its DataLoader __next__ calls, where dataloader-stall points at them */
  uint32_t *ops;         /* st.rt indices of the thread, sorted by (ts, end) */
  size_t nops;
  iv *busy;              /* union of its calls (nops slots allocated) */
  size_t nbusy;
  int64_t maxdur;
  uint64_t launches;
} cpu_lane;

typedef struct rt_ent {
  int64_t ts, end;
  uint32_t idx;
} rt_ent;
#define RT_LESS(a, b)                                                              \
  ((a)->ts != (b)->ts ? (a)->ts < (b)->ts : (a)->end != (b)->end ? (a)->end < (b)->end \
                                                                 : (a)->idx < (b)->idx)
FA_SORT_DEFINE(rt_sort, rt_ent, RT_LESS)

/* ---- per-rank scratch ---- */

typedef struct lane_key {
  int64_t device, stream;
  int role;
  size_t idx;
} lane_key;

static int cmp_lane(const void *pa, const void *pb) {
  const lane_key *a = pa, *b = pb;
  if (a->device != b->device) return a->device < b->device ? -1 : 1;
  if (a->role != b->role) return a->role < b->role ? -1 : 1;
  return a->stream < b->stream ? -1 : a->stream > b->stream ? 1 : 0;
}

typedef struct scratch {
  fa_alloc *a;
  size_t *order;
  size_t order_n;
  lane_key *keys;
  lane_src *gsrc;      /* per display lane (in order) */
  int64_t *gend;
  size_t gend_n;
  win *ws;
  size_t ws_n;
  uint32_t *slot;
  size_t slot_n;
  cpu_lane cpu[HTML_CPU_LANES + 1];   /* + the DataLoader lane */
  lane_src csrc[HTML_CPU_LANES + 1];
  size_t ncpu;
  int64_t *ov_lane, *ov_any;   /* overview: ns per bucket and class */
  uint8_t *ov_cls;             /* dominant class per bucket, per GPU lane */
  size_t ov_n;                 /* buckets the three were sized for */
  uint8_t *detailed;           /* per step: has a detailed window */
  uint8_t *behav;              /* bit per st.rt index: blocked by behaviour */
  size_t behav_n;              /* its bytes */
  hsteps hs;                   /* the steps the page shows */
} scratch;

static void scratch_free(scratch *x) {
  fa_free(x->a, x->order, x->order_n * sizeof *x->order);
  fa_free(x->a, x->keys, x->order_n * sizeof *x->keys);
  fa_free(x->a, x->gsrc, x->order_n * sizeof *x->gsrc);
  fa_free(x->a, x->gend, x->gend_n * sizeof *x->gend);
  fa_free(x->a, x->ws, x->ws_n * sizeof *x->ws);
  fa_free(x->a, x->slot, x->slot_n * sizeof *x->slot);
  for (size_t k = 0; k < x->ncpu; k++) {
    fa_free(x->a, x->cpu[k].ops, x->cpu[k].nops * sizeof *x->cpu[k].ops);
    fa_free(x->a, x->cpu[k].busy, x->cpu[k].nops * sizeof *x->cpu[k].busy);
  }
  fa_free(x->a, x->ov_lane, x->ov_n * HC__COUNT * sizeof *x->ov_lane);
  fa_free(x->a, x->ov_any, x->ov_n * HC__COUNT * sizeof *x->ov_any);
  fa_free(x->a, x->ov_cls, x->ov_n * x->order_n * sizeof *x->ov_cls);
  fa_free(x->a, x->detailed, x->gend_n * sizeof *x->detailed);
  fa_free(x->a, x->behav, x->behav_n);
  fa_free(x->a, x->hs.own, x->hs.n * sizeof *x->hs.own);
}

/* Which runtime calls blocked by behaviour: the blocking selection of
 * model/runtime_calls (cached; the sync analysis reports the same calls). */
static fsdpa_status mark_behaviour(fsdpa_ctx *c, scratch *x) {
  sc_set bs;
  fsdpa_status st = sc_build(c, SC_BLOCKING_MASK, &bs);
  if (st) return st;
  size_t nrt = c->st.rt.len;
  for (size_t k = 0; k < bs.n; k++) {
    const sc_call *k0 = &bs.v[k];
    if (k0->how != SC_HOW_BEHAVIOUR || k0->rt >= nrt) continue;
    if (!x->behav) {
      x->behav_n = (nrt + 7) / 8;
      x->behav = fa_calloc(x->a, x->behav_n);
      if (!x->behav) {
        x->behav_n = 0;
        sc_free(c, &bs);
        return ctx_fail(c, fa_fail_status(x->a), "out of memory (html CPU lanes)");
      }
    }
    x->behav[k0->rt >> 3] |= (uint8_t)(1u << (k0->rt & 7));
  }
  sc_free(c, &bs);
  for (size_t l = 0; l < x->ncpu; l++) x->csrc[l].behav = x->behav;
  return FSDPA_OK;
}

static int cpu_has(const scratch *x, uint32_t track) {
  for (size_t k = 0; k < x->ncpu; k++)
    if (x->cpu[k].track == track) return 1;
  return 0;
}

/* Where dataloader-stall is a finding of the rank, a lane of the DataLoader
 * __next__ calls of the thread its first range ran on: the evidence drawn
 * where the GPU's idle lines up with it. */
/* A CPU lane's ops and busy time from its m calls e[] (n allocated): in
 * start order, their union, the longest; frees e. */
static void lane_take(scratch *x, cpu_lane *cl, rt_ent *e, size_t m, size_t n) {
  rt_sort(e, m);
  for (size_t k = 0; k < m; k++) {
    cl->ops[k] = e[k].idx;
    cl->busy[k] = (iv){e[k].ts, e[k].end};
    if (e[k].end - e[k].ts > cl->maxdur) cl->maxdur = e[k].end - e[k].ts;
  }
  cl->nbusy = iv_union_sorted(cl->busy, m);
  fa_free(x->a, e, n * sizeof *e);
}

static fsdpa_status dataloader_lane(report_in *in, size_t i, scratch *x) {
  fsdpa_ctx *c = in->ctxs[i];
  const store *s = &c->st;
  uint32_t tr[FINDING_MAX_RANGES], track = UINT32_MAX;
  for (size_t k = 0; k < in->all.n && track == UINT32_MAX; k++) {
    const finding *f = &in->all.v[k];
    if (f->rank == in->ranks[i] && !strcmp(f->id, "dataloader-stall") && finding_tracks(c, f, tr)) {
      for (int r = 0; r < f->nranges && track == UINT32_MAX; r++) track = tr[r];
    }
  }
  if (track == UINT32_MAX) return FSDPA_OK;
  size_t n = 0;
  for (size_t k = 0; k < s->cpu.len; k++) {
    const ev_rec *r = STORE_REC(&s->cpu, k);
    n += r->track == track && is_next_call(s, r);
  }
  if (!n) return FSDPA_OK;
  cpu_lane *cl = &x->cpu[x->ncpu];
  *cl = (cpu_lane){track, 2, 0, 0, 0, 0, 0, 0};
  rt_ent *e = fa_malloc(x->a, n * sizeof *e);
  cl->ops = fa_malloc(x->a, n * sizeof *cl->ops);
  cl->busy = fa_malloc(x->a, n * sizeof *cl->busy);
  cl->nops = n;
  x->ncpu++;  /* counted now: scratch_free frees what it holds */
  if (!e || !cl->ops || !cl->busy) {
    fa_free(x->a, e, n * sizeof *e);
    return ctx_fail(c, fa_fail_status(x->a), "out of memory (html DataLoader lane)");
  }
  size_t m = 0;
  for (size_t k = 0; k < s->cpu.len && m < n; k++) {
    const ev_rec *r = STORE_REC(&s->cpu, k);
    if (r->track == track && is_next_call(s, r)) e[m++] = (rt_ent){r->ts, r->end, (uint32_t)k};
  }
  lane_take(x, cl, e, m, n);
  x->csrc[x->ncpu - 1] = (lane_src){&s->cpu, cl->ops, m, cl->maxdur, 2, NULL, NULL};
  return FSDPA_OK;
}

/* The CPU lanes of rank i: the threads of its CPU-side findings' calls,
 * then the threads that launched the most GPU work (else made the most
 * runtime calls), at most HTML_CPU_LANES; each with its calls sorted. */
static fsdpa_status plan_cpu_lanes(report_in *in, size_t i, scratch *x) {
  fsdpa_ctx *c = in->ctxs[i];
  const store *s = &c->st;
  size_t nt = s->tracks.len;
  for (size_t k = 0; k < in->all.n && x->ncpu < HTML_CPU_LANES; k++) {
    const finding *f = &in->all.v[k];
    if (f->rank != in->ranks[i]) continue;
    uint32_t tr[FINDING_MAX_RANGES];
    if (finding_side(c, f, tr) != SIDE_CPU) continue;
    if (!strcmp(f->id, "dataloader-stall")) continue;  /* its lane is the DataLoader's (dataloader_lane) */
    for (int r = 0; r < f->nranges && x->ncpu < HTML_CPU_LANES; r++)
      if (tr[r] != UINT32_MAX && !cpu_has(x, tr[r])) x->cpu[x->ncpu++] = (cpu_lane){tr[r], 0, 0, 0, 0, 0, 0, 0};
  }
  if (!s->rt.len || !nt) return FSDPA_OK;
  size_t cbytes = nt * 2 * sizeof(uint64_t);
  uint64_t *cnt = fa_calloc(x->a, cbytes);  /* per track: calls, launches */
  if (!cnt) return ctx_fail(c, fa_fail_status(x->a), "out of memory (html CPU lanes)");
  for (size_t k = 0; k < s->rt.len; k++) {
    const ev_rec *r = STORE_REC(&s->rt, k);
    if (r->track >= nt) continue;
    cnt[2 * r->track]++;
    if (store_name_info(s, r->name) & (NC_LAUNCH | NC_GRAPH_LAUNCH)) cnt[2 * r->track + 1]++;
  }
  /* the two threads that launched the most (forward on the main thread,
   * backward on autograd's), the second only with a tenth of the first's
   * launches; else the one with the most calls */
  size_t best = nt, second = nt;
  for (size_t t = 0; t < nt; t++) {
    if (!cnt[2 * t]) continue;
    if (best == nt || cnt[2 * t + 1] > cnt[2 * best + 1] ||
        (cnt[2 * t + 1] == cnt[2 * best + 1] && cnt[2 * t] > cnt[2 * best]))
      second = best, best = t;
    else if (second == nt || cnt[2 * t + 1] > cnt[2 * second + 1])
      second = t;
  }
  if (best < nt && x->ncpu < HTML_CPU_LANES && !cpu_has(x, (uint32_t)best))
    x->cpu[x->ncpu++] = (cpu_lane){(uint32_t)best, 1, 0, 0, 0, 0, 0, 0};
  if (second < nt && cnt[2 * second + 1] && cnt[2 * second + 1] * 10 >= cnt[2 * best + 1] &&
      x->ncpu < HTML_CPU_LANES && !cpu_has(x, (uint32_t)second))
    x->cpu[x->ncpu++] = (cpu_lane){(uint32_t)second, 1, 0, 0, 0, 0, 0, 0};
  fsdpa_status st = FSDPA_OK;
  for (size_t l = 0; l < x->ncpu && !st; l++) {
    cpu_lane *cl = &x->cpu[l];
    size_t n = cl->track < nt ? (size_t)cnt[2 * cl->track] : 0;
    cl->launches = cl->track < nt ? cnt[2 * cl->track + 1] : 0;
    if (!n) continue;
    rt_ent *e = fa_malloc(x->a, n * sizeof *e);
    cl->ops = fa_malloc(x->a, n * sizeof *cl->ops);
    cl->busy = fa_malloc(x->a, n * sizeof *cl->busy);
    cl->nops = n;  /* the allocation size, for scratch_free, whatever happens next */
    if (!e || !cl->ops || !cl->busy) {
      fa_free(x->a, e, n * sizeof *e);
      st = ctx_fail(c, fa_fail_status(x->a), "out of memory (html CPU lanes)");
      break;
    }
    size_t m = 0;
    for (size_t k = 0; k < s->rt.len && m < n; k++) {
      const ev_rec *r = STORE_REC(&s->rt, k);
      if (r->track == cl->track) e[m++] = (rt_ent){r->ts, r->end, (uint32_t)k};
    }
    lane_take(x, cl, e, m, n);
    x->csrc[l] = (lane_src){&s->rt, cl->ops, m, cl->maxdur, 1, NULL, NULL};
  }
  fa_free(x->a, cnt, cbytes);
  if (!st && x->ncpu) st = mark_behaviour(c, x);
  if (!st) st = dataloader_lane(in, i, x);
  return st;
}

/* ---- the whole-trace overview ---- */

/* Add [a, b) of class cls to the per-bucket class totals. */
static void spread(int64_t *ns, int64_t t0, int64_t bns, size_t nb, int64_t a, int64_t b, int cls) {
  int64_t t1 = t0 + (int64_t)nb * bns;
  if (a < t0) a = t0;
  if (b > t1) b = t1;
  if (b <= a) return;
  size_t k0 = (size_t)((a - t0) / bns), k1 = (size_t)((b - 1 - t0) / bns);
  for (size_t k = k0; k <= k1 && k < nb; k++) {
    int64_t x0 = t0 + (int64_t)k * bns, x1 = x0 + bns;
    if (x0 < a) x0 = a;
    if (x1 > b) x1 = b;
    ns[k * HC__COUNT + (size_t)cls] += x1 - x0;
  }
}

static void dominant(const int64_t *ns, size_t nb, uint8_t *out) {
  for (size_t k = 0; k < nb; k++) {
    int best = 0;
    for (int c = 1; c < HC__COUNT; c++)
      if (ns[k * HC__COUNT + (size_t)c] > ns[k * HC__COUNT + (size_t)best]) best = c;
    out[k] = (uint8_t)best;
  }
}

static void pct_row(const iv *bu, size_t nbu, int64_t t0, int64_t bns, size_t nb, jsonw *w) {
  jw_arr(w);
  size_t j = 0;
  for (size_t k = 0; k < nb; k++) {
    int64_t a = t0 + (int64_t)k * bns, b = a + bns;
    while (j < nbu && bu[j].e <= a) j++;
    int64_t busy = 0;
    for (size_t m = j; m < nbu && bu[m].s < b; m++) {
      int64_t x = bu[m].s > a ? bu[m].s : a, y = bu[m].e < b ? bu[m].e : b;
      if (y > x) busy += y - x;
    }
    jw_i64(w, (busy * 100 + bns / 2) / bns);  /* percent busy, rounded */
  }
  jw_arr_end(w);
}

static void cls_row(const uint8_t *cls, size_t nb, jsonw *w) {
  jw_arr(w);
  for (size_t k = 0; k < nb; k++) jw_i64(w, cls[k]);
  jw_arr_end(w);
}

static void lane_classes(const store *s, const lane_src *src, int64_t t0, int64_t bns, size_t nb,
                         int64_t *ns) {
  for (size_t i = 0; i < src->nops; i++) {
    const ev_rec *r = STORE_REC(src->recs, src->ops[i]);
    spread(ns, t0, bns, nb, r->ts, r->end, lane_class(s, src, i));
  }
}

/* Per lane and bucket: the busy percentage and the class that took most of
 * the bucket's time (the page colours the bar with it, as the Gantt colours
 * an op).  GPU lanes: 0 = every stream together, then the display lanes;
 * then the CPU lanes. */
static fsdpa_status overview_json(fsdpa_ctx *c, const store_views *v, scratch *x, int64_t t0,
                                  int64_t t1, jsonw *w) {
  const store *s = &c->st;
  int64_t span = t1 - t0;
  int64_t bns = (span + HTML_OVERVIEW_BUCKETS - 1) / HTML_OVERVIEW_BUCKETS;
  if (bns < 1) bns = 1;
  size_t nb = (size_t)((span + bns - 1) / bns);
  x->ov_n = nb;
  size_t cb = nb * HC__COUNT * sizeof *x->ov_lane;
  x->ov_lane = fa_malloc(x->a, cb);
  x->ov_any = fa_calloc(x->a, cb);
  x->ov_cls = fa_malloc(x->a, nb * x->order_n * sizeof *x->ov_cls);
  if (!x->ov_lane || !x->ov_any || !x->ov_cls)
    return ctx_fail(c, fa_fail_status(x->a), "out of memory (html overview)");
  for (size_t l = 0; l < v->nstreams; l++) {
    memset(x->ov_lane, 0, cb);
    lane_classes(s, &x->gsrc[l], t0, bns, nb, x->ov_lane);
    for (size_t k = 0; k < nb * HC__COUNT; k++) x->ov_any[k] += x->ov_lane[k];
    dominant(x->ov_lane, nb, x->ov_cls + l * nb);
  }
  jw_obj(w);
  jw_ki64(w, "bucket_ns", bns);
  jw_ku64(w, "buckets", nb);
  jw_key(w, "lanes");
  jw_arr(w);
  pct_row(v->all_busy, v->nall, t0, bns, nb, w);
  for (size_t l = 0; l < v->nstreams; l++) {
    const gpu_stream_view *sv = &v->streams[x->order[l]];
    pct_row(sv->busy, sv->nbusy, t0, bns, nb, w);
  }
  jw_arr_end(w);
  jw_key(w, "cls");
  jw_arr(w);
  uint8_t *row = (uint8_t *)x->ov_lane;  /* nb bytes fit: the buffer is nb * HC__COUNT int64 */
  dominant(x->ov_any, nb, row);
  cls_row(row, nb, w);
  for (size_t l = 0; l < v->nstreams; l++) cls_row(x->ov_cls + l * nb, nb, w);
  jw_arr_end(w);
  jw_key(w, "cpu");
  jw_arr(w);
  for (size_t l = 0; l < x->ncpu; l++) pct_row(x->cpu[l].busy, x->cpu[l].nbusy, t0, bns, nb, w);
  jw_arr_end(w);
  jw_key(w, "cpu_cls");
  jw_arr(w);
  for (size_t l = 0; l < x->ncpu; l++) {
    int64_t *ns = x->ov_any;  /* reused: the GPU rows are written */
    memset(ns, 0, cb);
    lane_classes(s, &x->csrc[l], t0, bns, nb, ns);
    dominant(ns, nb, (uint8_t *)x->ov_lane);
    cls_row((uint8_t *)x->ov_lane, nb, w);
  }
  jw_arr_end(w);
  jw_obj_end(w);
  return FSDPA_OK;
}

/* ---- Gantt windows ---- */

static void names_json(const store *s, const names_tab *nt, fa_alloc *a, int *oom, jsonw *w) {
  jw_arr(w);
  if (nt->next) {
    uint32_t *inv = fa_malloc(a, nt->next * sizeof *inv);
    if (!inv) {
      *oom = 1;
      jw_arr_end(w);
      return;
    }
    for (size_t id = 0; id < nt->nslot; id++)
      if (nt->slot[id]) inv[nt->slot[id] - 1] = (uint32_t)id;
    for (uint32_t k = 0; k < nt->next; k++) put_name(w, store_name(s, inv[k]), intern_len(&s->names, inv[k]));
    fa_free(a, inv, nt->next * sizeof *inv);
  }
  jw_arr_end(w);
}

static void all_lanes(const store *s, const store_views *v, const scratch *x, const win *wn,
                      int64_t res, rect_sink *k) {
  if (k->w) {
    jw_key(k->w, k->compact ? "g" : "lanes");
    jw_arr(k->w);
  }
  for (size_t l = 0; l < v->nstreams; l++) lane_rects(s, &x->gsrc[l], wn, res, k);
  if (k->w) {
    jw_arr_end(k->w);
    jw_key(k->w, k->compact ? "u" : "cpu");
    jw_arr(k->w);
  }
  for (size_t l = 0; l < x->ncpu; l++) lane_rects(s, &x->csrc[l], wn, res, k);
  if (k->w) jw_arr_end(k->w);
}

static int64_t column_ns(const win *wn, int64_t cols) {
  int64_t span = wn->e - wn->s;
  int64_t res = (span + cols - 1) / cols;
  return res < 1 ? 1 : res;
}

static fsdpa_status window_json(fsdpa_ctx *c, const store_views *v, const scratch *x,
                                const win *wn, size_t rect_budget, int64_t org, jsonw *w) {
  const store *s = &c->st;
  size_t lanes = v->nstreams + x->ncpu;
  if (!lanes) lanes = 1;
  int64_t cols = (int64_t)(rect_budget / lanes);
  if (cols > HTML_GANTT_COLUMNS) cols = HTML_GANTT_COLUMNS;
  if (cols < 50) cols = 50;
  int64_t res = column_ns(wn, cols);
  jw_obj(w);
  char label[64];
  if (wn->kind == 0 && x->hs.inferred) snprintf(label, sizeof label, "iteration %lld", (long long)wn->step + 1);
  else if (wn->kind == 0) fmt_step(label, sizeof label, wn->step);
  else if (wn->kind == 1) snprintf(label, sizeof label, "around a finding");
  else snprintf(label, sizeof label, "whole trace");
  jw_kstr(w, "label", label);
  jw_kstr(w, "kind", wn->kind == 0 ? "step" : wn->kind == 1 ? "range" : "trace");
  jw_ki64(w, "step", wn->step);
  jw_ki64(w, "step_index", wn->kind == 0 ? (int64_t)wn->si : FSDPA_ABSENT);
  jw_ki64(w, "s", wn->s - org);
  jw_ki64(w, "e", wn->e - org);
  jw_ki64(w, "cpu_s", wn->cpu_s == FSDPA_ABSENT ? FSDPA_ABSENT : wn->cpu_s - org);
  jw_ki64(w, "cpu_e", wn->cpu_e == FSDPA_ABSENT ? FSDPA_ABSENT : wn->cpu_e - org);
  jw_ki64(w, "column_ns", res);
  /* other steps' CPU boundaries inside the window, drawn as markers */
  jw_key(w, "marks");
  jw_arr(w);
  for (size_t k = 0; k < x->hs.n; k++) {
    const step_rec *sp = &x->hs.v[k];
    if (sp->end < wn->s || sp->ts > wn->e) continue;
    jw_arr(w);
    jw_i64(w, sp->number);
    jw_i64(w, sp->ts - wn->s);
    jw_i64(w, sp->end - wn->s);
    jw_arr_end(w);
  }
  jw_arr_end(w);
  names_tab nt = {x->slot, x->slot_n, 0};
  if (x->slot_n) memset(x->slot, 0, x->slot_n * sizeof *x->slot); /* slot is NULL when empty */
  rect_sink k = {w, 0, &nt, 0, 0};
  all_lanes(s, v, x, wn, res, &k);
  /* the name table in index order */
  jw_key(w, "names");
  int oom = 0;
  names_json(s, &nt, x->a, &oom, w);
  if (oom) return ctx_fail(c, fa_fail_status(x->a), "out of memory (html names)");
  jw_key(w, "memory");
  fsdpa_status st = memory_json(c, wn->s, wn->e, HTML_WINDOW_MEMORY_BUCKETS, org, w);
  if (st) return st;
  jw_obj_end(w);
  return FSDPA_OK;
}

/* ---- the coarse Gantt of every step ---- */

static win step_win(const hsteps *hs, const int64_t *gend, size_t k) {
  const step_rec *sp = &hs->v[k];
  return (win){sp->ts, gend[k], sp->ts, sp->end, sp->number, 0, k};
}

/* Columns per step of the coarse views: the finest of 1024, 512, ... 32
 * whose rectangles (steps without a detailed window, all lanes) fit the
 * budget; at 32 columns, every stride-th step, the smallest stride whose
 * steps fit. */
static fsdpa_status plan_step_views(fsdpa_ctx *c, const store_views *v, const scratch *x,
                                    size_t budget, int64_t *cols_out, size_t *stride_out) {
  const store *s = &c->st;
  size_t ns = x->hs.n;
  *stride_out = 1;
  for (int64_t cols = 1024; cols > 32; cols /= 2) {
    rect_sink k = {NULL, 1, NULL, 0, 0};
    for (size_t j = 0; j < ns && k.n <= budget; j++) {
      if (x->detailed[j]) continue;
      win wn = step_win(&x->hs, x->gend, j);
      all_lanes(s, v, x, &wn, column_ns(&wn, cols), &k);
    }
    if (k.n <= budget) {
      *cols_out = cols;
      return FSDPA_OK;
    }
  }
  *cols_out = 32;
  uint64_t *n = fa_calloc(x->a, ns * sizeof *n), total = 0;
  if (!n) return ctx_fail(c, fa_fail_status(x->a), "out of memory (html step views)");
  for (size_t j = 0; j < ns; j++) {
    if (x->detailed[j]) continue;
    rect_sink k = {NULL, 1, NULL, 0, 0};
    win wn = step_win(&x->hs, x->gend, j);
    all_lanes(s, v, x, &wn, column_ns(&wn, 32), &k);
    n[j] = k.n;
    total += k.n;
  }
  size_t stride = 1;
  while (total > budget && stride < ns) {
    stride++;
    total = 0;
    for (size_t j = 0; j < ns; j += stride) total += n[j];
  }
  *stride_out = stride;
  fa_free(x->a, n, ns * sizeof *n);
  return FSDPA_OK;
}

static fsdpa_status step_views_json(fsdpa_ctx *c, const store_views *v, scratch *x, size_t budget,
                                    jsonw *w) {
  const store *s = &c->st;
  size_t ns = x->hs.n, stride = 1;
  int64_t cols = 0;
  if (ns) {
    fsdpa_status st = plan_step_views(c, v, x, budget, &cols, &stride);
    if (st) return st;
  }
  names_tab nt = {x->slot, x->slot_n, 0};
  if (x->slot_n) memset(x->slot, 0, x->slot_n * sizeof *x->slot);
  rect_sink k = {w, 1, &nt, 0, 0};
  jw_key(w, "step_views");
  jw_obj(w);
  jw_ki64(w, "columns", cols);
  jw_ku64(w, "stride", stride);
  jw_key(w, "views");
  jw_arr(w);
  for (size_t j = 0; j < ns; j++) {
    if (x->detailed[j] || j % stride) {
      jw_null(w);
      continue;
    }
    win wn = step_win(&x->hs, x->gend, j);
    int64_t res = column_ns(&wn, cols);
    jw_obj(w);
    jw_ki64(w, "c", res);
    all_lanes(s, v, x, &wn, res, &k);
    jw_obj_end(w);
  }
  jw_arr_end(w);
  jw_key(w, "names");
  int oom = 0;
  names_json(s, &nt, x->a, &oom, w);
  if (oom) return ctx_fail(c, fa_fail_status(x->a), "out of memory (html names)");
  jw_obj_end(w);
  return FSDPA_OK;
}

fsdpa_status html_rank_viz(report_in *in, size_t i, const html_budget *b, jsonw *w) {
  fsdpa_ctx *c = in->ctxs[i];
  const store_views *v = ctx_views(c);
  if (!v) return fa_fail_status(&c->alloc);
  const store *s = &c->st;
  scratch x;
  memset(&x, 0, sizeof x);
  x.a = &c->alloc;
  fsdpa_status st = FSDPA_OK;
  if ((st = page_steps(c, x.a, &x.hs))) return st;
  x.order_n = v->nstreams ? v->nstreams : 1;
  x.gend_n = x.hs.n ? x.hs.n : 1;
  x.ws_n = b->max_windows ? b->max_windows : 1;
  x.slot_n = intern_count(&s->names);
  x.order = fa_malloc(x.a, x.order_n * sizeof *x.order);
  x.keys = fa_malloc(x.a, x.order_n * sizeof *x.keys);
  x.gsrc = fa_malloc(x.a, x.order_n * sizeof *x.gsrc);
  x.gend = fa_malloc(x.a, x.gend_n * sizeof *x.gend);
  x.detailed = fa_calloc(x.a, x.gend_n * sizeof *x.detailed);
  x.ws = fa_malloc(x.a, x.ws_n * sizeof *x.ws);
  x.slot = x.slot_n ? fa_malloc(x.a, x.slot_n * sizeof *x.slot) : NULL;
  if (!x.order || !x.keys || !x.gsrc || !x.gend || !x.detailed || !x.ws || (x.slot_n && !x.slot)) {
    st = ctx_fail(c, fa_fail_status(x.a), "out of memory (html page data)");
    goto out;
  }
  for (size_t k = 0; k < v->nstreams; k++) {
    const gpu_stream_view *sv = &v->streams[k];
    x.keys[k] = (lane_key){sv->device, sv->stream, role_order(sv->role), k};
  }
  qsort(x.keys, v->nstreams, sizeof *x.keys, cmp_lane);
  for (size_t k = 0; k < v->nstreams; k++) {
    const gpu_stream_view *sv = &v->streams[x.keys[k].idx];
    int64_t m = 0;
    for (size_t j = 0; j < sv->nops; j++) {
      const ev_rec *r = STORE_REC(&s->gpu, sv->ops[j]);
      if (r->end - r->ts > m) m = r->end - r->ts;
    }
    x.order[k] = x.keys[k].idx;
    x.gsrc[k] = (lane_src){&s->gpu, sv->ops, sv->nops, m, 0, v->comm, NULL};
  }
  if ((st = step_gpu_ends(c, v, &x.hs, x.gend))) goto out;
  if ((st = plan_cpu_lanes(in, i, &x))) goto out;
  size_t nw = 0;
  int64_t chosen = FSDPA_ABSENT;
  int warm = 0;
  if ((st = first_step_warmup(c, &x.hs, &warm))) goto out;
  if ((st = plan_windows(in, i, v, &x.hs, x.gend, warm, x.ws_n, x.ws, &nw, &chosen))) goto out;
  for (size_t k = 0; k < nw; k++)
    if (x.ws[k].kind == 0 && x.ws[k].si < x.hs.n) x.detailed[x.ws[k].si] = 1;

  int64_t org = rank_origin(v, &x.hs), end = rank_end(v, &x.hs);
  jw_obj(w);
  jw_ki64(w, "rank", in->ranks[i]);
  jw_kstr(w, "path", report_path(in, i));
  char obuf[32];
  snprintf(obuf, sizeof obuf, "%lld", (long long)(org + ctx_base(c)));
  jw_kstr(w, "origin_ns", obuf);  /* a string: too large for a JS number */
  jw_ki64(w, "t0", 0);
  jw_ki64(w, "t1", end - org);
  jw_key(w, "lanes");
  jw_arr(w);
  for (size_t l = 0; l < v->nstreams; l++) {
    const gpu_stream_view *sv = &v->streams[x.order[l]];
    jw_obj(w);
    jw_ki64(w, "device", sv->device);
    jw_ki64(w, "stream", sv->stream);
    jw_kstr(w, "role", role_name(sv->role));
    jw_ku64(w, "kernels", sv->kernels);
    jw_ku64(w, "comm_kernels", sv->comm_kernels);
    jw_ku64(w, "memops", sv->memops);
    jw_ki64(w, "busy_ns", iv_total(sv->busy, sv->nbusy));
    jw_obj_end(w);
  }
  jw_arr_end(w);
  jw_key(w, "cpu_lanes");
  jw_arr(w);
  for (size_t l = 0; l < x.ncpu; l++) {
    const cpu_lane *cl = &x.cpu[l];
    const track *t = store_track(s, cl->track);
    jw_obj(w);
    jw_ki64(w, "pid", t->pid);
    jw_ki64(w, "tid", t->tid);
    jw_key(w, "name");
    if (t->label != INTERN_NONE) put_name(w, store_name(s, t->label), intern_len(&s->names, t->label));
    else jw_null(w);
    jw_kstr(w, "reason", cl->reason == 2 ? "dataloader" : cl->reason ? "launches" : "finding");
    jw_ku64(w, "calls", cl->nops);
    jw_ku64(w, "launches", cl->launches);
    jw_ki64(w, "busy_ns", iv_total(cl->busy, cl->nbusy));
    jw_obj_end(w);
  }
  jw_arr_end(w);
  /* the steps: ProfilerStep ranges, or the iterations found otherwise */
  jw_kstr(w, "steps_from", x.hs.inferred ? it_source_name(x.hs.source) : "ProfilerStep");
  jw_key(w, "steps");
  jw_arr(w);
  for (size_t k = 0; k < x.hs.n; k++) {
    const step_rec *sp = &x.hs.v[k];
    jw_obj(w);
    jw_ki64(w, "number", sp->number);
    /* a ProfilerStep's label is its number's (the page writes it): 3000
     * steps would carry 80 KB of "ProfilerStep#N" */
    if (x.hs.inferred) {
      char lab[48];
      snprintf(lab, sizeof lab, "iteration %zu", k + 1);
      jw_kstr(w, "label", lab);
    }
    jw_ki64(w, "s", sp->ts - org);
    jw_ki64(w, "e", sp->end - org);
    jw_ki64(w, "gpu_e", x.gend[k] - org);
    jw_key(w, "steady");
    jw_bool(w, !(warm && k == 0));
    jw_ki64(w, "busy_ns", iv_len_in(v->all_busy, v->nall, sp->ts, sp->end));
    jw_obj_end(w);
  }
  jw_arr_end(w);
  jw_key(w, "overview");
  if (end > org) {
    if ((st = overview_json(c, v, &x, org, end, w))) goto out;
  } else jw_null(w);
  jw_ki64(w, "chosen_step", chosen);
  jw_key(w, "windows");
  jw_arr(w);
  for (size_t k = 0; k < nw && !st; k++) st = window_json(c, v, &x, &x.ws[k], b->rects_per_window, org, w);
  jw_arr_end(w);
  if (st) goto out;
  if ((st = step_views_json(c, v, &x, b->step_rects, w))) goto out;
  jw_key(w, "memory");
  if ((st = memory_json(c, FSDPA_ABSENT, FSDPA_ABSENT, HTML_MEMORY_BUCKETS, org, w))) goto out;
  jw_obj_end(w);
out:
  scratch_free(&x);
  return st;
}
