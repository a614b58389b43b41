/* Picture data of the HTML page, per rank: GPU lanes, steps, a whole-trace
 * overview, Gantt windows and the memory timeline.
 *
 * Times on the page are ns relative to the rank's origin (its first GPU op
 * or first step, whichever is earlier): absolute ns do not fit a JavaScript
 * double exactly, relative ones do for 104 days.
 *
 * The Gantt is bounded whatever the trace size: a window is cut into at most
 * HTML_GANTT_COLUMNS columns (fewer when the page budget is tight), and the
 * ops of a lane that fall into columns already covered by the previous
 * rectangle are merged into it (count, Σ duration, dominant class, longest
 * op's name).  So a lane holds at most one rectangle per column. */
#include "report/html.h"
#include "model/kernel_sets.h"
#include "events/classify.h"
#include "util/fmt.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Classes drawn in the Gantt; the page's legend uses the same order. */
enum { HC_COMPUTE, HC_ALLGATHER, HC_REDUCESCATTER, HC_ALLREDUCE, HC_OTHER_COMM, HC_MEMCPY,
       HC_MEMSET, HC__COUNT };

static int op_class(const store *s, const ev_rec *r) {
  if (r->kind == RK_MEMCPY) return HC_MEMCPY;
  if (r->kind == RK_MEMSET) return HC_MEMSET;
  if (!(store_name_info(s, r->name) & NC_COMM)) return HC_COMPUTE;
  const coll_info *ci;
  switch (ks_kernel_coll(s, r, &ci)) {
    case COLL_ALLGATHER: return HC_ALLGATHER;
    case COLL_REDUCESCATTER: return HC_REDUCESCATTER;
    case COLL_ALLREDUCE: return HC_ALLREDUCE;
    default: return HC_OTHER_COMM;
  }
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

/* Relative origin of a rank: the earliest of its first GPU op and its first
 * step; 0 if it has neither. */
static int64_t rank_origin(fsdpa_ctx *c, const store_views *v) {
  int64_t t = INT64_MAX;
  if (v->nall) t = v->all_busy[0].s;
  if (c->st.steps.len) {
    const step_rec *s0 = &FA_VEC_AT(&c->st.steps, step_rec, 0);
    if (s0->ts < t) t = s0->ts;
  }
  return t == INT64_MAX ? 0 : t;
}

static int64_t rank_end(fsdpa_ctx *c, const store_views *v) {
  int64_t t = INT64_MIN;
  if (v->nall) t = v->all_busy[v->nall - 1].e;
  for (size_t k = 0; k < c->st.steps.len; k++) {
    const step_rec *s = &FA_VEC_AT(&c->st.steps, step_rec, k);
    if (s->end > t) t = s->end;
  }
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

typedef struct win {
  int64_t s, e;          /* relative store ns */
  int64_t cpu_s, cpu_e;  /* the step's CPU range, or ABSENT */
  int64_t step;          /* step number or ABSENT */
  int kind;              /* 0 step, 1 range around a finding, 2 whole trace */
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
  uint32_t *slot;        /* intern id -> index + 1 in this window's table */
  size_t nslot;
  uint32_t next;
} names_tab;

static void rect_flush(jsonw *w, const rect *r, const win *x, names_tab *nt) {
  int cls = r->first_cls;
  int64_t best = 0;
  for (int k = 0; k < HC__COUNT; k++)
    if (r->cls_ns[k] > best) best = r->cls_ns[k], cls = k;
  uint32_t idx = 0;
  if (r->name < nt->nslot) {
    if (!nt->slot[r->name]) nt->slot[r->name] = ++nt->next;
    idx = nt->slot[r->name] - 1;
  }
  jw_i64(w, r->s - x->s);
  jw_i64(w, r->e - x->s);
  jw_i64(w, cls);
  jw_u64(w, idx);
  jw_u64(w, r->n);
  jw_i64(w, r->busy);
}

/* One lane of a window: ops of the stream clipped to [x->s, x->e). */
static void lane_rects(fsdpa_ctx *c, const gpu_stream_view *sv, int64_t maxdur, const win *x,
                       int64_t res, names_tab *nt, jsonw *w) {
  const store *s = &c->st;
  rect cur;
  int have = 0;
  /* no op starting before x->s - maxdur can reach into the window */
  size_t lo = 0, hi = sv->nops;
  while (lo < hi) {
    size_t mid = (lo + hi) / 2;
    if (STORE_REC(&s->gpu, sv->ops[mid])->ts < x->s - maxdur) lo = mid + 1;
    else hi = mid;
  }
  jw_arr(w);
  for (size_t k = lo; k < sv->nops; k++) {
    const ev_rec *r = STORE_REC(&s->gpu, sv->ops[k]);
    if (r->ts >= x->e) break;  /* sorted by start */
    if (r->end <= x->s && !(r->end == r->ts && r->ts == x->s)) continue;
    int64_t a = r->ts < x->s ? x->s : r->ts, b = r->end > x->e ? x->e : r->end;
    int64_t c0 = (a - x->s) / res, c1 = (b - x->s + res - 1) / res;
    if (c1 <= c0) c1 = c0 + 1;
    int cls = op_class(s, r);
    if (have && c0 < cur.c1) {
      if (b > cur.e) cur.e = b;
      if (c1 > cur.c1) cur.c1 = c1;
      cur.n++;
      cur.busy += b - a;
      cur.cls_ns[cls] += b - a;
      if (r->end - r->ts > cur.longest) cur.longest = r->end - r->ts, cur.name = r->name;
      continue;
    }
    if (have) rect_flush(w, &cur, x, nt);
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
  if (have) rect_flush(w, &cur, x, nt);
  jw_arr_end(w);
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
static fsdpa_status step_gpu_ends(fsdpa_ctx *c, const store_views *v, int64_t *ends) {
  const store *s = &c->st;
  size_t ns = s->steps.len;
  for (size_t k = 0; k < ns; k++) ends[k] = FA_VEC_AT(&s->steps, step_rec, k).end;
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
      if (FA_VEC_AT(&s->steps, step_rec, mid).ts <= t) lo = mid + 1;
      else hi = mid;
    }
    if (!lo) continue;
    const step_rec *sp = &FA_VEC_AT(&s->steps, step_rec, lo - 1);
    if (t < sp->end && r->end > ends[lo - 1]) ends[lo - 1] = r->end;
  }
  return FSDPA_OK;
}

static int win_has(const win *ws, size_t n, int64_t step) {
  for (size_t k = 0; k < n; k++)
    if (ws[k].kind == 0 && ws[k].step == step) return 1;
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

/* Index of the step shown by default: opts->html_step if set, else the
 * busiest steady step (the most GPU busy time inside its CPU range; the first
 * of three or more steps is warm-up, as in the launch-gaps analysis). */
static fsdpa_status pick_step(report_in *in, size_t i, const store_views *v, size_t *out) {
  fsdpa_ctx *c = in->ctxs[i];
  size_t ns = c->st.steps.len;
  int64_t want = in->opts->html_step;
  if (want != FSDPA_ABSENT) {
    if (want < 0 || (uint64_t)want >= ns)
      return ctx_fail(in->ctxs[0], FSDPA_EINVAL,
                      "html_step %lld is out of range: the trace of rank %lld has %zu ProfilerStep(s)",
                      (long long)want, (long long)in->ranks[i], ns);
    *out = (size_t)want;
    return FSDPA_OK;
  }
  size_t first = ns >= 3 ? 1 : 0, best = first;
  int64_t best_busy = -1;
  for (size_t k = first; k < ns; k++) {
    const step_rec *s = &FA_VEC_AT(&c->st.steps, step_rec, k);
    int64_t b = iv_len_in(v->all_busy, v->nall, s->ts, s->end);
    if (b > best_busy) best_busy = b, best = k;
  }
  *out = best;
  return FSDPA_OK;
}

fsdpa_status html_finding_viz(report_in *in, size_t k, jsonw *w) {
  const finding *f = &in->all.v[k];
  size_t ri = in->n;
  for (size_t i = 0; i < in->n; i++)
    if (in->ranks[i] == f->rank) { ri = i; break; }
  jw_obj(w);
  jw_key(w, "rank_index");
  if (ri == in->n) {
    jw_null(w);
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
  int64_t org = rank_origin(c, v) + ctx_base(c);
  jw_key(w, "ranges");
  jw_arr(w);
  for (int r = 0; r < f->nranges; r++) {
    jw_arr(w);
    jw_i64(w, f->ranges[r].s - org);
    jw_i64(w, f->ranges[r].e - org);
    jw_arr_end(w);
  }
  jw_arr_end(w);
  jw_obj_end(w);
  return FSDPA_OK;
}

/* Windows of a rank, in time order: the chosen step, the steps (or ranges)
 * where the rank's worst findings point, then other steps, up to max. */
static fsdpa_status plan_windows(report_in *in, size_t i, const store_views *v, const int64_t *gend,
                                 size_t max, win *ws, size_t *nw, int64_t *chosen_step) {
  fsdpa_ctx *c = in->ctxs[i];
  const store *s = &c->st;
  size_t ns = s->steps.len, n = 0;
  *chosen_step = FSDPA_ABSENT;
  if (!ns) {
    if (v->nall) ws[n++] = (win){v->all_busy[0].s, v->all_busy[v->nall - 1].e, FSDPA_ABSENT,
                                 FSDPA_ABSENT, FSDPA_ABSENT, 2};
  } else {
    size_t pick = 0;
    fsdpa_status st = pick_step(in, i, v, &pick);
    if (st) return st;
    const step_rec *sp = &FA_VEC_AT(&s->steps, step_rec, pick);
    ws[n++] = (win){sp->ts, gend[pick], sp->ts, sp->end, sp->number, 0};
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
      const step_rec *sp = &FA_VEC_AT(&s->steps, step_rec, j);
      if (sp->ts <= a && a < gend[j]) hit = j;
    }
    if (hit < ns) {
      const step_rec *sp = &FA_VEC_AT(&s->steps, step_rec, hit);
      if (!win_has(ws, n, sp->number))
        ws[n++] = (win){sp->ts, gend[hit], sp->ts, sp->end, sp->number, 0};
    } else if (b > a) {
      int64_t pad = (b - a) / 4 > 50000 ? (b - a) / 4 : 50000;
      ws[n++] = (win){a - pad, b + pad, FSDPA_ABSENT, FSDPA_ABSENT, FSDPA_ABSENT, 1};
    }
  }
  for (size_t j = 0; j < ns && n < max; j++) {
    const step_rec *sp = &FA_VEC_AT(&s->steps, step_rec, j);
    if (!win_has(ws, n, sp->number))
      ws[n++] = (win){sp->ts, gend[j], sp->ts, sp->end, sp->number, 0};
  }
  qsort(ws, n, sizeof *ws, cmp_win);
  *nw = n;
  return FSDPA_OK;
}

static void overview_json(const store_views *v, const size_t *order, int64_t t0, int64_t t1,
                          jsonw *w) {
  int64_t span = t1 - t0;
  int64_t bns = (span + HTML_OVERVIEW_BUCKETS - 1) / HTML_OVERVIEW_BUCKETS;
  if (bns < 1) bns = 1;
  size_t nb = (size_t)((span + bns - 1) / bns);
  jw_obj(w);
  jw_ki64(w, "bucket_ns", bns);
  jw_ku64(w, "buckets", nb);
  jw_key(w, "lanes");
  jw_arr(w);
  for (size_t l = 0; l <= v->nstreams; l++) {
    /* lane 0: all streams of the rank together; then the display lanes */
    const iv *bu = l ? v->streams[order[l - 1]].busy : v->all_busy;
    size_t nbu = l ? v->streams[order[l - 1]].nbusy : v->nall;
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
  jw_arr_end(w);
  jw_obj_end(w);
}

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
  int64_t *maxdur;     /* per stream view: longest op, to start the scan of a window */
  int64_t *gend;
  size_t gend_n;
  win *ws;
  size_t ws_n;
  uint32_t *slot;
  size_t slot_n;
} scratch;

static void scratch_free(scratch *x) {
  fa_free(x->a, x->order, x->order_n * sizeof *x->order);
  fa_free(x->a, x->keys, x->order_n * sizeof *x->keys);
  fa_free(x->a, x->maxdur, x->order_n * sizeof *x->maxdur);
  fa_free(x->a, x->gend, x->gend_n * sizeof *x->gend);
  fa_free(x->a, x->ws, x->ws_n * sizeof *x->ws);
  fa_free(x->a, x->slot, x->slot_n * sizeof *x->slot);
}

static fsdpa_status window_json(fsdpa_ctx *c, const store_views *v, const scratch *x,
                                const win *wn, size_t rect_budget, int64_t org, jsonw *w) {
  const store *s = &c->st;
  size_t lanes = v->nstreams ? v->nstreams : 1;
  int64_t cols = (int64_t)(rect_budget / lanes);
  if (cols > HTML_GANTT_COLUMNS) cols = HTML_GANTT_COLUMNS;
  if (cols < 50) cols = 50;
  int64_t span = wn->e - wn->s;
  int64_t res = (span + cols - 1) / cols;
  if (res < 1) res = 1;
  jw_obj(w);
  char label[64];
  if (wn->kind == 0) fmt_step(label, sizeof label, wn->step);
  else if (wn->kind == 1) snprintf(label, sizeof label, "around a finding");
  else snprintf(label, sizeof label, "whole trace");
  jw_kstr(w, "label", label);
  jw_kstr(w, "kind", wn->kind == 0 ? "step" : wn->kind == 1 ? "range" : "trace");
  jw_ki64(w, "step", wn->step);
  jw_ki64(w, "s", wn->s - org);
  jw_ki64(w, "e", wn->e - org);
  jw_ki64(w, "cpu_s", wn->cpu_s == FSDPA_ABSENT ? FSDPA_ABSENT : wn->cpu_s - org);
  jw_ki64(w, "cpu_e", wn->cpu_e == FSDPA_ABSENT ? FSDPA_ABSENT : wn->cpu_e - org);
  jw_ki64(w, "column_ns", res);
  /* other steps' CPU boundaries inside the window, drawn as markers */
  jw_key(w, "marks");
  jw_arr(w);
  for (size_t k = 0; k < s->steps.len; k++) {
    const step_rec *sp = &FA_VEC_AT(&s->steps, step_rec, k);
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
  jw_key(w, "lanes");
  jw_arr(w);
  for (size_t l = 0; l < v->nstreams; l++)
    lane_rects(c, &v->streams[x->order[l]], x->maxdur[x->order[l]], wn, res, &nt, w);
  jw_arr_end(w);
  /* the name table in index order */
  jw_key(w, "names");
  jw_arr(w);
  if (nt.next) {
    uint32_t *inv = fa_malloc(x->a, nt.next * sizeof *inv);
    if (!inv) return ctx_fail(c, fa_fail_status(x->a), "out of memory (html names)");
    for (size_t id = 0; id < nt.nslot; id++)
      if (nt.slot[id]) inv[nt.slot[id] - 1] = (uint32_t)id;
    for (uint32_t k = 0; k < nt.next; k++)
      put_name(w, store_name(s, inv[k]), intern_len(&s->names, inv[k]));
    fa_free(x->a, inv, nt.next * sizeof *inv);
  }
  jw_arr_end(w);
  jw_key(w, "memory");
  fsdpa_status st = memory_json(c, wn->s, wn->e, HTML_WINDOW_MEMORY_BUCKETS, org, w);
  if (st) return st;
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
  x.order_n = v->nstreams ? v->nstreams : 1;
  x.gend_n = s->steps.len ? s->steps.len : 1;
  x.ws_n = b->max_windows ? b->max_windows : 1;
  x.slot_n = intern_count(&s->names);
  x.order = fa_malloc(x.a, x.order_n * sizeof *x.order);
  x.keys = fa_malloc(x.a, x.order_n * sizeof *x.keys);
  x.maxdur = fa_malloc(x.a, x.order_n * sizeof *x.maxdur);
  x.gend = fa_malloc(x.a, x.gend_n * sizeof *x.gend);
  x.ws = fa_malloc(x.a, x.ws_n * sizeof *x.ws);
  x.slot = x.slot_n ? fa_malloc(x.a, x.slot_n * sizeof *x.slot) : NULL;
  if (!x.order || !x.keys || !x.maxdur || !x.gend || !x.ws || (x.slot_n && !x.slot)) {
    st = ctx_fail(c, fa_fail_status(x.a), "out of memory (html page data)");
    goto out;
  }
  for (size_t k = 0; k < v->nstreams; k++) {
    const gpu_stream_view *sv = &v->streams[k];
    x.keys[k] = (lane_key){sv->device, sv->stream, role_order(sv->role), k};
    int64_t m = 0;
    for (size_t j = 0; j < sv->nops; j++) {
      const ev_rec *r = STORE_REC(&s->gpu, sv->ops[j]);
      if (r->end - r->ts > m) m = r->end - r->ts;
    }
    x.maxdur[k] = m;
  }
  qsort(x.keys, v->nstreams, sizeof *x.keys, cmp_lane);
  for (size_t k = 0; k < v->nstreams; k++) x.order[k] = x.keys[k].idx;
  if ((st = step_gpu_ends(c, v, x.gend))) goto out;
  size_t nw = 0;
  int64_t chosen = FSDPA_ABSENT;
  if ((st = plan_windows(in, i, v, x.gend, x.ws_n, x.ws, &nw, &chosen))) goto out;

  int64_t org = rank_origin(c, v), end = rank_end(c, v);
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
  jw_key(w, "steps");
  jw_arr(w);
  for (size_t k = 0; k < s->steps.len; k++) {
    const step_rec *sp = &FA_VEC_AT(&s->steps, step_rec, k);
    jw_obj(w);
    jw_ki64(w, "number", sp->number);
    jw_ki64(w, "s", sp->ts - org);
    jw_ki64(w, "e", sp->end - org);
    jw_ki64(w, "gpu_e", x.gend[k] - org);
    jw_key(w, "steady");
    jw_bool(w, !(s->steps.len >= 3 && k == 0));
    jw_ki64(w, "busy_ns", iv_len_in(v->all_busy, v->nall, sp->ts, sp->end));
    jw_obj_end(w);
  }
  jw_arr_end(w);
  jw_key(w, "overview");
  if (end > org) overview_json(v, x.order, org, end, w);
  else jw_null(w);
  jw_ki64(w, "chosen_step", chosen);
  jw_key(w, "windows");
  jw_arr(w);
  for (size_t k = 0; k < nw && !st; k++) st = window_json(c, v, &x, &x.ws[k], b->rects_per_window, org, w);
  jw_arr_end(w);
  if (st) goto out;
  jw_key(w, "memory");
  if ((st = memory_json(c, FSDPA_ABSENT, FSDPA_ABSENT, HTML_MEMORY_BUCKETS, org, w))) goto out;
  jw_obj_end(w);
out:
  scratch_free(&x);
  return st;
}
