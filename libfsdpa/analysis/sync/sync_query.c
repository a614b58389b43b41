/* Public queries over blocking runtime calls (fsdpa.h, group sync_waits):
 * argument checks, query resolution and copying the engine's rows out. */
#include "analysis/sync/sync_impl.h"
#include "events/classify.h"
#include "util/list.h"
#include <string.h>

/* Shared prologue: resolve the query, attribute the calls, select. */
static fsdpa_status sq_open(fsdpa_ctx *c, const fsdpa_query *q, qwin *w, sync_run *x) {
  memset(x, 0, sizeof *x);
  fsdpa_status st = ctx_resolve_query(c, q, w);
  if (st) return st;
  if ((st = sync_run_calls(c, x))) return ctx_fail(c, st, "out of memory attributing sync calls");
  if ((st = sync_run_select(c, x, w))) return ctx_fail(c, st, "out of memory");
  return FSDPA_OK;
}

static fsdpa_status finish(fsdpa_ctx *c, list_build *b, fsdpa_list **out) {
  fsdpa_status st = lb_finish(b, out);
  return st ? ctx_fail(c, st, "out of memory") : FSDPA_OK;
}

fsdpa_status fsdpa_sync_wait_list(fsdpa_ctx *c, const fsdpa_query *q, fsdpa_list **out) {
  if (!c) return FSDPA_EINVAL;
  ctx_clear(c);
  if (!out) return ctx_fail(c, FSDPA_EINVAL, "fsdpa_sync_wait_list: NULL out");
  *out = NULL;
  qwin win;
  sync_run x;
  fsdpa_status st = sq_open(c, q, &win, &x);
  if (st) return st;
  sa_api *rows;
  size_t n;
  st = sa_apis(c, &x.s, x.sel, &rows, &n);
  if (st) {
    sync_run_free(c, &x);
    return ctx_fail(c, st, "out of memory");
  }
  list_build b;
  lb_init(&b, &c->alloc, FSDPA_LIST_SYNC_WAITS);
  for (size_t i = 0; i < n; i++) {
    const sa_api *r = &rows[i];
    fsdpa_sync_wait w;
    memset(&w, 0, sizeof w);
    w.size = sizeof w;
    w.api = lb_str(&b, store_name(&c->st, r->name), intern_len(&c->st.names, r->name));
    w.count = r->count;
    w.total_ns = r->total;
    w.max_ns = r->max;
    w.in_steps = r->in_steps;
    w.threads = r->threads;
    w.gpu_idle_during_ns = r->idle_during;
    w.gpu_idle_after_ns = r->idle_after;
    w.idle_after_calls = r->idle_after_calls;
    w.gpu_idle_ns = r->idle_cost;
    lb_push(&b, &w);
  }
  sa_apis_free(c, rows, n);
  sync_run_free(c, &x);
  return finish(c, &b, out);
}

fsdpa_status fsdpa_sync_call_list(fsdpa_ctx *c, const fsdpa_query *q, fsdpa_list **out) {
  if (!c) return FSDPA_EINVAL;
  ctx_clear(c);
  if (!out) return ctx_fail(c, FSDPA_EINVAL, "fsdpa_sync_call_list: NULL out");
  *out = NULL;
  qwin win;
  sync_run x;
  fsdpa_status st = sq_open(c, q, &win, &x);
  if (st) return st;
  const store *s = &c->st;
  list_build b;
  lb_init(&b, &c->alloc, FSDPA_LIST_SYNC_CALLS);
  for (size_t i = 0; i < x.s.n; i++) {
    if (!x.sel[i]) continue;
    const sc_call *k = &x.s.v[i];
    const track *t = store_track(s, k->track);
    fsdpa_sync_call r;
    memset(&r, 0, sizeof r);
    r.size = sizeof r;
    r.api = lb_str(&b, store_name(s, k->name), intern_len(&s->names, k->name));
    r.pid = t->pid;
    r.tid = t->tid;
    r.start_ns = ctx_abs(c, k->ts);
    r.dur_ns = k->end - k->ts;
    r.step = k->step >= 0 ? x.s.steps[k->step].number : FSDPA_ABSENT;
    r.source = (fsdpa_wait_source)k->src;
    r.device_wide = k->scope == SC_SCOPE_DEVICE;
    r.sync_kind = k->sync_kind != INTERN_NONE ? lb_str(&b, store_name(s, k->sync_kind), intern_len(&s->names, k->sync_kind)) : NULL;
    r.device = k->device;
    r.stream = k->scope == SC_SCOPE_STREAM ? k->stream : FSDPA_ABSENT;
    r.waited_op_stream = r.waited_op_start_ns = r.waited_op_end_ns = FSDPA_ABSENT;
    if (k->op != UINT32_MAX) {
      const ev_rec *g = STORE_REC(&s->gpu, k->op);
      r.waited_op = lb_str(&b, store_name(s, g->name), intern_len(&s->names, g->name));
      r.waited_op_stream = store_track(s, g->track)->tid;
      r.waited_op_start_ns = ctx_abs(c, g->ts);
      r.waited_op_end_ns = ctx_abs(c, g->end);
    }
    r.gpu_idle_during_ns = k->idle_during;
    r.gpu_idle_after_ns = k->idle_after;
    lb_push(&b, &r);
  }
  sync_run_free(c, &x);
  return finish(c, &b, out);
}

fsdpa_status fsdpa_sync_step_list(fsdpa_ctx *c, const fsdpa_query *q, fsdpa_list **out) {
  if (!c) return FSDPA_EINVAL;
  ctx_clear(c);
  if (!out) return ctx_fail(c, FSDPA_EINVAL, "fsdpa_sync_step_list: NULL out");
  *out = NULL;
  qwin win;
  sync_run x;
  fsdpa_status st = sq_open(c, q, &win, &x);
  if (st) return st;
  /* per-step rows take every call of the step; the window picks the steps */
  qwin all = {INT64_MIN, INT64_MAX, win.device, win.stream};
  sa_select(&x.s, &all, x.sel);
  size_t ns = x.s.nsteps;
  sa_step *rows = fa_malloc(&c->alloc, sa_steps_bytes(&x.s));
  if (!rows) {
    sync_run_free(c, &x);
    return ctx_fail(c, fa_fail_status(&c->alloc), "out of memory");
  }
  st = sa_steps(c, &x.s, x.sel, rows);
  list_build b;
  lb_init(&b, &c->alloc, FSDPA_LIST_SYNC_STEPS);
  for (size_t i = 0; !st && i < ns; i++) {
    const step_rec *sr = &x.s.steps[i];
    if (sr->ts < win.t0 || sr->ts >= win.t1) continue;
    const sa_step *a = &rows[i];
    fsdpa_sync_step r;
    memset(&r, 0, sizeof r);
    r.size = sizeof r;
    r.index = (int64_t)i;
    r.number = sr->number;
    r.step_dur_ns = sr->end - sr->ts;
    r.count = a->count;
    r.total_ns = a->total;
    r.max_ns = a->max;
    r.worst_thread_ns = a->worst_thread;
    r.worst_pid = r.worst_tid = FSDPA_ABSENT;
    if (a->worst_track != UINT32_MAX) {
      r.worst_pid = store_track(&c->st, a->worst_track)->pid;
      r.worst_tid = store_track(&c->st, a->worst_track)->tid;
    }
    r.share = r.step_dur_ns > 0 ? (double)a->worst_thread / (double)r.step_dur_ns : -1.0;
    r.gpu_idle_ns = a->idle_cost;
    r.flagged = a->flagged;
    lb_push(&b, &r);
  }
  fa_free(&c->alloc, rows, sa_steps_bytes(&x.s));
  sync_run_free(c, &x);
  if (st) {
    lb_free(&b);
    return ctx_fail(c, st, "out of memory");
  }
  return finish(c, &b, out);
}
