/* ranks[].sync_waits and the cpu-sync-stall finding. */
#include "analysis/sync/sync.h"
#include "analysis/sync/sync_agg.h"
#include "events/classify.h"
#include "util/fmt.h"
#include <stdio.h>
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

static void kstr_or_null(jsonw *w, const char *k, const char *s) {
  jw_key(w, k);
  if (s) jw_str(w, s);
  else jw_null(w);
}

/* What one call waited for, as a JSON object (used in the report and in
 * the finding's evidence). */
static void write_wait(fsdpa_ctx *c, const sc_set *s, const sc_call *k, jsonw *w) {
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
  kstr_or_null(w, "kind", k->sync_kind != INTERN_NONE ? store_name(st, k->sync_kind) : NULL);
  kstr_or_null(w, "scope", scope_name(k->scope));
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
    kstr_or_null(w, "kind", (uint32_t)wf[i].b != INTERN_NONE ? store_name(st, (uint32_t)wf[i].b) : NULL);
    kstr_or_null(w, "scope", scope_name((int)wf[i].c));
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
  write_wait(c, s, &s->v[r->worst], w);
  jw_obj_end(w);
  fa_free(&c->alloc, th, cap * sizeof(grp));
  fa_free(&c->alloc, wf, cap * sizeof(grp));
  fa_free(&c->alloc, sp, cap * sizeof(grp));
  return FSDPA_OK;
}

typedef struct sync_run {
  sc_set s;
  uint8_t *sel;
  sa_api *apis;
  size_t napis;
} sync_run;

static void run_free(fsdpa_ctx *c, sync_run *r) {
  sa_apis_free(c, r->apis, r->napis);
  fa_free(&c->alloc, r->sel, r->s.n ? r->s.n : 1);
  sc_free(c, &r->s);
}

static fsdpa_status run_open(fsdpa_ctx *c, sync_run *r) {
  memset(r, 0, sizeof *r);
  fsdpa_status st = sc_build(c, SC_BLOCKING_MASK, &r->s);
  if (st) return st;
  r->sel = fa_malloc(&c->alloc, r->s.n ? r->s.n : 1);
  if (!r->sel) {
    sc_free(c, &r->s);
    return fa_fail_status(&c->alloc);
  }
  qwin all = {INT64_MIN, INT64_MAX, FSDPA_ABSENT, FSDPA_ABSENT};
  sa_select(&r->s, &all, r->sel);
  if ((st = sa_apis(c, &r->s, r->sel, &r->apis, &r->napis))) run_free(c, r);
  return st;
}

fsdpa_status sync_waits_json(fsdpa_ctx *c, jsonw *w) {
  sync_run r;
  fsdpa_status st = run_open(c, &r);
  if (st) return st;
  jw_arr(w);
  for (size_t i = 0; !st && i < r.napis; i++) st = write_api(c, &r.s, r.sel, &r.apis[i], w);
  jw_arr_end(w);
  run_free(c, &r);
  return st;
}


/* Advice for the APIs that actually stalled. */
static void advice(const sync_run *r, const fsdpa_ctx *c, const uint8_t *in, sbuf *b) {
  uint32_t seen = 0;
  int copy_wait = 0;
  for (size_t i = 0; i < r->s.n; i++) {
    if (!in[i]) continue;
    const sc_call *k = &r->s.v[i];
    seen |= k->info;
    if (k->op != UINT32_MAX && STORE_REC(&c->st.gpu, k->op)->kind == RK_MEMCPY) copy_wait = 1;
  }
  sb_puts(b, "Keep host synchronization out of the training step: avoid tensor.item(), .cpu(), "
             ".tolist(), .numpy(), print(tensor) and torch.cuda.synchronize() inside the step "
             "(accumulate losses/metrics on the GPU and read them every N steps); copy inputs with "
             ".to(device, non_blocking=True) from pinned memory (DataLoader pin_memory=True). "
             "Under FSDP do not add explicit syncs: FSDP orders its streams with CUDA events.");
  if (copy_wait)
    sb_puts(b, " Here the thread waited for a device-to-host copy, the signature of .item()/.cpu() "
               "on a GPU tensor.");
  if (seen & NC_DEVICE_SYNC)
    sb_puts(b, " cudaDeviceSynchronize is torch.cuda.synchronize() (or a timing helper): call it "
               "only when measuring.");
  if (seen & NC_SYNC_MEMCPY)
    sb_puts(b, " Synchronous cudaMemcpy/hipMemcpy: use non_blocking copies from pinned memory.");
  if (seen & NC_FREE)
    sb_puts(b, " cudaFree/hipFree synchronize the device: they come from the caching allocator "
               "releasing memory (torch.cuda.empty_cache(), or a retry after a failed allocation); "
               "see allocator-thrash, PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True.");
}

fsdpa_status sync_waits_findings(fsdpa_ctx *c, int64_t rank, findings *f) {
  sync_run r;
  fsdpa_status st = run_open(c, &r);
  if (st) return st;
  size_t ns = r.s.nsteps;
  sa_step *rows = fa_malloc(&c->alloc, (ns ? ns : 1) * sizeof(sa_step));
  uint8_t *in = fa_calloc(&c->alloc, r.s.n ? r.s.n : 1);
  sbuf ev, adv;
  sb_init(&ev, &c->alloc);
  sb_init(&adv, &c->alloc);
  if (!rows || !in) {
    st = fa_fail_status(&c->alloc);
    goto out;
  }
  if ((st = sa_steps(c, &r.s, r.sel, rows))) goto out;
  size_t nflag = 0, worst = SIZE_MAX;
  int64_t flagged_ns = 0, flagged_dur = 0;
  for (size_t i = 0; i < ns; i++) {
    if (!rows[i].flagged) continue;
    nflag++;
    flagged_ns += rows[i].total;
    flagged_dur += r.s.steps[i].end - r.s.steps[i].ts;
    if (worst == SIZE_MAX || rows[i].worst_thread > rows[worst].worst_thread) worst = i;
  }
  if (!nflag) goto out;
  for (size_t i = 0; i < r.s.n; i++) {
    const sc_call *k = &r.s.v[i];
    in[i] = r.sel[i] && k->step >= 0 && rows[k->step].flagged;
  }
  int64_t cost = 0;
  if ((st = sc_idle_cost(c, &r.s, in, &cost))) goto out;
  /* the longest calls of the flagged steps, for the ranges and the evidence */
  size_t top[FINDING_MAX_RANGES];
  int ntop = 0;
  for (size_t i = 0; i < r.s.n; i++)
    if (in[i]) sc_top_insert(&r.s, top, &ntop, FINDING_MAX_RANGES, i);
  const sa_step *wr = &rows[worst];
  const step_rec *ws = &r.s.steps[worst];
  const track *wt = store_track(&c->st, wr->worst_track);
  const sc_call *lk = &r.s.v[top[0]];
  double share = (double)wr->worst_thread / (double)(ws->end - ws->ts);
  char title[256], detail[1400];
  snprintf(title, sizeof title, "CPU blocked in %s: %.2f ms in ProfilerStep#%lld (%.1f%% of the step)",
           store_name(&c->st, lk->name), fmt_ms(wr->worst_thread), (long long)ws->number, 100.0 * share);
  int n = snprintf(detail, sizeof detail,
                   "In %zu of %zu steps one CPU thread spent at least %.3f ms and %.1f%% of the step in "
                   "blocking CUDA calls (%.2f ms in those steps). Worst: ProfilerStep#%lld, thread "
                   "%lld/%lld blocked %.2f ms of %.2f ms. Longest call: %s, %.2f ms",
                   nflag, ns, fmt_ms(c->params[P_SYNC_STALL_MIN_NS]),
                   (double)c->params[P_SYNC_STALL_SHARE_PPM] / 1e4, fmt_ms(flagged_ns), (long long)ws->number,
                   (long long)wt->pid, (long long)wt->tid, fmt_ms(wr->worst_thread), fmt_ms(ws->end - ws->ts),
                   store_name(&c->st, lk->name), fmt_ms(lk->end - lk->ts));
  if (n > 0 && (size_t)n < sizeof detail && lk->op != UINT32_MAX) {
    const ev_rec *g = STORE_REC(&c->st.gpu, lk->op);
    char how[160];
    if (lk->src == SC_SRC_CUDA_SYNC)
      snprintf(how, sizeof how, "from its cuda_sync event '%s'",
               lk->sync_kind != INTERN_NONE ? store_name(&c->st, lk->sync_kind) : "?");
    else if (lk->src == SC_SRC_OWN_OP)
      snprintf(how, sizeof how, "its own copy");
    else
      snprintf(how, sizeof how, "inferred from the thread's last launch");
    n += snprintf(detail + n, sizeof detail - (size_t)n, ", waiting for %.120s on stream %lld (%s)",
                  store_name(&c->st, g->name), (long long)store_track(&c->st, g->track)->tid, how);
  }
  if (n > 0 && (size_t)n < sizeof detail && lk->idle_after != FSDPA_ABSENT)
    n += snprintf(detail + n, sizeof detail - (size_t)n, "; the GPU then idled %.3f ms", fmt_ms(lk->idle_after));
  if (n > 0 && (size_t)n < sizeof detail)
    snprintf(detail + n, sizeof detail - (size_t)n,
             ". GPU idle while blocked and until work resumed: %.2f ms over the flagged steps.", fmt_ms(cost));
  advice(&r, c, in, &adv);
  jsonw w;
  jw_init(&w, &ev, 0);
  jw_obj(&w);
  jw_ku64(&w, "flagged_steps", nflag);
  jw_ku64(&w, "steps", ns);
  jw_ki64(&w, "flagged_sync_ns", flagged_ns);
  jw_ki64(&w, "flagged_steps_dur_ns", flagged_dur);
  jw_ki64(&w, "gpu_idle_ns", cost);
  jw_ki64(&w, "worst_step", ws->number);
  jw_ki64(&w, "worst_step_dur_ns", ws->end - ws->ts);
  jw_ki64(&w, "worst_thread_sync_ns", wr->worst_thread);
  jw_ki64(&w, "worst_thread_pid", wt->pid);
  jw_ki64(&w, "worst_thread_tid", wt->tid);
  jw_kratio(&w, "worst_share", share);
  jw_ki64(&w, "min_stall_ns", c->params[P_SYNC_STALL_MIN_NS]);
  jw_ki64(&w, "min_share_ppm", c->params[P_SYNC_STALL_SHARE_PPM]);
  jw_key(&w, "by_api");
  jw_arr(&w);
  for (size_t i = 0; i < r.napis; i++) {
    uint64_t cnt = 0;
    int64_t tot = 0;
    for (size_t j = 0; j < r.s.n; j++)
      if (in[j] && r.s.v[j].name == r.apis[i].name) {
        cnt++;
        tot += r.s.v[j].end - r.s.v[j].ts;
      }
    if (!cnt) continue;
    jw_obj(&w);
    jw_kstr(&w, "api", store_name(&c->st, r.apis[i].name));
    jw_ku64(&w, "count", cnt);
    jw_ki64(&w, "total_ns", tot);
    jw_obj_end(&w);
  }
  jw_arr_end(&w);
  jw_key(&w, "longest_calls");
  jw_arr(&w);
  for (int i = 0; i < ntop; i++) write_wait(c, &r.s, &r.s.v[top[i]], &w);
  jw_arr_end(&w);
  jw_obj_end(&w);
  if (ev.failed || adv.failed) {
    st = (fsdpa_status)(ev.failed ? ev.failed : adv.failed);
    goto out;
  }
  int sev = share >= 0.10 ? SEV_CRITICAL : SEV_WARNING;
  finding *x = findings_add(f, "cpu-sync-stall", sev, rank, nflag == 1 ? ws->number : FSDPA_ABSENT, cost,
                            title, detail, adv.p, ev.p);
  for (int i = 0; x && i < ntop; i++) {
    const sc_call *k = &r.s.v[top[i]];
    int64_t e = k->end + (k->idle_after == FSDPA_ABSENT ? 0 : k->idle_after);
    finding_add_range(x, ctx_abs(c, k->ts), ctx_abs(c, e));
  }
out:
  sb_free(&ev);
  sb_free(&adv);
  fa_free(&c->alloc, in, r.s.n ? r.s.n : 1);
  fa_free(&c->alloc, rows, (ns ? ns : 1) * sizeof(sa_step));
  run_free(c, &r);
  return st;
}
