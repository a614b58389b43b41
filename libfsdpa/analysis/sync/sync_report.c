/* ranks[].sync_waits: per API of the blocking calls, its threads, what it
 * waited for, its steps and its longest call. */
#include "analysis/sync/sync.h"
#include "analysis/sync/sync_impl.h"
#include "events/classify.h"
#include <string.h>

static const char *src_name(int s) {
  switch (s) {
    case SC_SRC_CUDA_SYNC: return "cuda_sync";
    case SC_SRC_OWN_OP: return "own_op";
    case SC_SRC_INFERRED: return "inferred";
    default: return "unknown";
  }
}
static const char *scope_name(int s) {
  return s == SC_SCOPE_STREAM ? "stream" : s == SC_SCOPE_DEVICE ? "device" : NULL;
}

void sync_write_wait(fsdpa_ctx *c, const sc_set *s, const sc_call *k, jsonw *w) {
  const store *st = &c->st;
  const track *t = store_track(st, k->track);
  jw_obj(w);
  jw_kstr(w, "api", store_name(st, k->name));
  jw_ki64(w, "pid", t->pid);
  jw_ki64(w, "tid", t->tid);
  jw_ki64(w, "start_ns", ctx_abs(c, k->ts));
  jw_ki64(w, "dur_ns", k->end - k->ts);
  jw_ki64(w, "step", k->step >= 0 ? s->steps[k->step].number : FSDPA_ABSENT);
  jw_kstr(w, "source", src_name(k->src));
  jw_kstr_or_null(w, "kind", k->sync_kind != INTERN_NONE ? store_name(st, k->sync_kind) : NULL);
  jw_kstr_or_null(w, "scope", scope_name(k->scope));
  jw_ki64(w, "device", k->device);
  jw_ki64(w, "stream", k->scope == SC_SCOPE_STREAM ? k->stream : FSDPA_ABSENT);
  if (k->op != UINT32_MAX) {
    const ev_rec *g = STORE_REC(&st->gpu, k->op);
    jw_kstr(w, "waited_op", store_name(st, g->name));
    jw_ki64(w, "waited_op_stream", store_track(st, g->track)->tid);
    jw_ki64(w, "waited_op_end_ns", ctx_abs(c, g->end));
  } else {
    jw_knull(w, "waited_op");
    jw_knull(w, "waited_op_stream");
    jw_knull(w, "waited_op_end_ns");
  }
  jw_ki64(w, "gpu_idle_during_ns", k->idle_during);
  jw_ki64(w, "gpu_idle_after_ns", k->idle_after);
  jw_kstr(w, "class", sc_class_name(k->cls));
  jw_kstr(w, "blocked_by", k->how == SC_HOW_BEHAVIOUR ? "behaviour" : k->how == SC_HOW_NAMED ? "name" : "none");
  if (k->how == SC_HOW_BEHAVIOUR) {
    jw_ku64(w, "queue_ops", k->queue_n);
    jw_ki64(w, "queue_busy_ns", k->queue_ns);
  } else {
    jw_knull(w, "queue_ops");
    jw_knull(w, "queue_busy_ns");
  }
  jw_obj_end(w);
}

/* Small grouping of one API's calls by a key: (thread), (source,kind,scope), (step). */
typedef struct grp {
  int64_t a, b, c;
  uint64_t count;
  int64_t total, max;
} grp;

static grp *grp_add(grp *g, size_t *n, size_t cap, int64_t a, int64_t b, int64_t cc) {
  for (size_t i = 0; i < *n; i++)
    if (g[i].a == a && g[i].b == b && g[i].c == cc) return &g[i];
  if (*n == cap) return NULL;
  grp *x = &g[(*n)++];
  memset(x, 0, sizeof *x);
  x->a = a;
  x->b = b;
  x->c = cc;
  return x;
}

static void grp_count(grp *x, int64_t d) {
  if (!x) return;
  x->count++;
  x->total += d;
  if (d > x->max) x->max = d;
}

static fsdpa_status write_api(fsdpa_ctx *c, const sc_set *s, const uint8_t *sel, const sa_api *r,
                              jsonw *w) {
  const store *st = &c->st;
  size_t cap = r->count;
  grp *th = fa_malloc(&c->alloc, cap * sizeof(grp));
  grp *wf = fa_malloc(&c->alloc, cap * sizeof(grp));
  grp *sp = fa_malloc(&c->alloc, cap * sizeof(grp));
  if (!th || !wf || !sp) {
    fa_free(&c->alloc, th, cap * sizeof(grp));
    fa_free(&c->alloc, wf, cap * sizeof(grp));
    fa_free(&c->alloc, sp, cap * sizeof(grp));
    return fa_fail_status(&c->alloc);
  }
  size_t nth = 0, nwf = 0, nsp = 0;
  for (size_t i = 0; i < s->n; i++) {
    const sc_call *k = &s->v[i];
    if (!sel[i] || k->name != r->name) continue;
    int64_t d = k->end - k->ts;
    grp_count(grp_add(th, &nth, cap, k->track, 0, 0), d);
    grp_count(grp_add(wf, &nwf, cap, k->src, k->sync_kind, k->scope), d);
    if (k->step >= 0) grp_count(grp_add(sp, &nsp, cap, k->step, 0, 0), d);
  }
  jw_obj(w);
  jw_kstr(w, "api", store_name(st, r->name));
  jw_ku64(w, "count", r->count);
  jw_ki64(w, "total_ns", r->total);
  jw_ki64(w, "max_ns", r->max);
  jw_ku64(w, "in_steps", r->in_steps);
  jw_ki64(w, "gpu_idle_during_ns", r->idle_during);
  jw_ki64(w, "gpu_idle_after_ns", r->idle_after);
  jw_ku64(w, "idle_after_calls", r->idle_after_calls);
  jw_ki64(w, "gpu_idle_ns", r->idle_cost);
  jw_key(w, "threads");
  jw_arr(w);
  for (size_t i = 0; i < nth; i++) {
    const track *t = store_track(st, (uint32_t)th[i].a);
    jw_obj(w);
    jw_ki64(w, "pid", t->pid);
    jw_ki64(w, "tid", t->tid);
    jw_ku64(w, "count", th[i].count);
    jw_ki64(w, "total_ns", th[i].total);
    jw_ki64(w, "max_ns", th[i].max);
    jw_obj_end(w);
  }
  jw_arr_end(w);
  jw_key(w, "waited_for");
  jw_arr(w);
  for (size_t i = 0; i < nwf; i++) {
    jw_obj(w);
    jw_kstr(w, "source", src_name((int)wf[i].a));
    jw_kstr_or_null(w, "kind", (uint32_t)wf[i].b != INTERN_NONE ? store_name(st, (uint32_t)wf[i].b) : NULL);
    jw_kstr_or_null(w, "scope", scope_name((int)wf[i].c));
    jw_ku64(w, "count", wf[i].count);
    jw_ki64(w, "total_ns", wf[i].total);
    jw_obj_end(w);
  }
  jw_arr_end(w);
  jw_key(w, "steps");
  jw_arr(w);
  for (size_t i = 0; i < nsp; i++) {
    jw_obj(w);
    jw_ki64(w, "step", s->steps[sp[i].a].number);
    jw_ku64(w, "count", sp[i].count);
    jw_ki64(w, "total_ns", sp[i].total);
    jw_ki64(w, "max_ns", sp[i].max);
    jw_obj_end(w);
  }
  jw_arr_end(w);
  jw_key(w, "worst");
  sync_write_wait(c, s, &s->v[r->worst], w);
  jw_obj_end(w);
  fa_free(&c->alloc, th, cap * sizeof(grp));
  fa_free(&c->alloc, wf, cap * sizeof(grp));
  fa_free(&c->alloc, sp, cap * sizeof(grp));
  return FSDPA_OK;
}

fsdpa_status sync_waits_json(fsdpa_ctx *c, jsonw *w) {
  sync_run r;
  fsdpa_status st = sync_run_open_all(c, &r);
  if (st) return st;
  jw_arr(w);
  for (size_t i = 0; !st && i < r.napis; i++) st = write_api(c, &r.s, r.sel, &r.apis[i], w);
  jw_arr_end(w);
  sync_run_free(c, &r);
  return st;
}

/* ranks[].sync_classes: every runtime call by API class, how many of each
 * class were tested for blocking by behaviour and how many blocked, and the
 * longest calls that blocked by behaviour with what they waited for. */
#define SYNC_BEHAVIOUR_LIST 32
fsdpa_status sync_classes_json(fsdpa_ctx *c, jsonw *w) {
  const store *st = &c->st;
  uint64_t calls[SC_CLS__COUNT] = {0}, over[SC_CLS__COUNT] = {0}, blk[SC_CLS__COUNT] = {0};
  int64_t calls_ns[SC_CLS__COUNT] = {0}, blk_ns[SC_CLS__COUNT] = {0};
  for (size_t i = 0; i < st->rt.len; i++) {
    const ev_rec *r = STORE_REC(&st->rt, i);
    int cls = sc_class_of(store_name_info(st, r->name));
    calls[cls]++;
    calls_ns[cls] += r->end - r->ts;
  }
  sc_set s;
  fsdpa_status rc = sc_build(c, SC_ALL_MASK, &s);
  if (rc) return rc;
  size_t top[SYNC_BEHAVIOUR_LIST];
  int ntop = 0;
  for (size_t i = 0; i < s.n; i++) {
    const sc_call *k = &s.v[i];
    int64_t thr = sc_class_threshold(c, k->cls);
    if (thr >= 0 && k->end - k->ts > thr) over[k->cls]++;
    if (k->how == SC_HOW_NAMED || k->how == SC_HOW_BEHAVIOUR) {
      blk[k->cls]++;
      blk_ns[k->cls] += k->end - k->ts;
    }
    if (k->how == SC_HOW_BEHAVIOUR) sc_top_insert(&s, top, &ntop, SYNC_BEHAVIOUR_LIST, i);
  }
  jw_obj(w);
  jw_ki64(w, "wake_tolerance_ns", c->params[P_BLOCK_WAKE_TOL_NS]);
  jw_key(w, "classes");
  jw_arr(w);
  for (int cls = 0; cls < SC_CLS__COUNT; cls++) {
    int64_t thr = sc_class_threshold(c, cls);
    jw_obj(w);
    jw_kstr(w, "class", sc_class_name(cls));
    jw_kstr(w, "blocked_by", thr < 0 ? "name" : "behaviour");
    if (thr < 0) jw_knull(w, "threshold_ns");
    else jw_ki64(w, "threshold_ns", thr);
    jw_ku64(w, "calls", calls[cls]);
    jw_ki64(w, "calls_ns", calls_ns[cls]);
    if (thr < 0) jw_knull(w, "over_threshold");
    else jw_ku64(w, "over_threshold", over[cls]);
    jw_ku64(w, "blocking", blk[cls]);
    jw_ki64(w, "blocking_ns", blk_ns[cls]);
    jw_key(w, "in_sync_waits");
    jw_bool(w, cls != SC_CLS_ALLOC);
    jw_obj_end(w);
  }
  jw_arr_end(w);
  jw_key(w, "by_behaviour");
  jw_arr(w);
  for (int i = 0; i < ntop; i++) sync_write_wait(c, &s, &s.v[top[i]], w);
  jw_arr_end(w);
  jw_obj_end(w);
  sc_free(c, &s);
  return FSDPA_OK;
}
