/* cpu-sync-stall: decided from the per-step rows of the engine, then worded. */
#include "analysis/sync/sync.h"
#include "analysis/sync/sync_impl.h"
#include "events/classify.h"
#include "model/depgraph.h"
#include "model/iterations.h"
#include "model/workload.h"
#include "util/fmt.h"
#include "util/interval.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Whether cpu-sync-stall fires and with which numbers. */
/* A call site of flagged calls: the call's API, where the thread made it
 * (the outermost CPU op or annotation around it inside the step) and the op
 * it waited for. */
enum { STALL_SITES = 3 };
typedef struct stall_site {
  uint32_t api, where, op;    /* intern ids: the call's name, where (INTERN_NONE), the op it waited for
                               * (INTERN_NONE) */
  uint64_t calls;
  int64_t blocked_ns, saving_ns;  /* saving_ns: the replay without that site's calls alone */
} stall_site;

typedef struct stall {
  int fires;
  int severity;
  int64_t step;               /* number of the one flagged step, ABSENT when several */
  int64_t cost_ns;            /* the finding's cost: caused_ns */
  int64_t idle_ns;            /* GPU idle while blocked and until work resumed, flagged steps */
  size_t nflag, nsteps;
  int64_t flagged_ns;         /* blocked time in the flagged steps */
  int64_t flagged_dur;        /* their summed duration */
  int64_t judged_ns;          /* summed duration of every step judged */
  int64_t opened_ns;          /* GPU gaps opened while the flagged calls blocked, full length */
  int64_t opened_ppm;         /* opened_ns as a share of judged_ns */
  int64_t saving_ns;          /* the dependency graph replayed without the flagged calls saves this */
  int64_t caused_ns;          /* opened_ns, at most saving_ns: the idle they opened that their removal removes */
  int64_t caused_ppm;         /* caused_ns as a share of judged_ns: the severity */
  const step_rec *worst_step; /* flagged step whose worst thread blocked longest */
  const sa_step *worst;       /* its row */
  size_t worst_index;         /* its index in win */
  const track *worst_thread;
  double share;               /* of the worst step that its worst thread blocked */
  int64_t min_stall_ns, min_share_ppm;
  step_rec *win;              /* the windows judged: steps, else inferred iterations, else the whole trace */
  size_t nwin, first;         /* win[first..nwin) are judged; before them warm-up */
  int source;                 /* ITS_*: where win comes from (ITS_NONE: the whole trace) */
  int32_t *idx;               /* window of each call (sa_flags_bytes ints), -1 = none judged */
  sa_step *rows;              /* every window (rows_bytes) */
  uint8_t *in;                /* calls of the flagged steps (sa_flags_bytes) */
  size_t top[FINDING_MAX_RANGES]; /* the longest of them, longest first */
  int ntop;
  uint32_t seen;              /* NC_* bits of the calls that stalled */
  int copy_wait;              /* one of them waited for a device-to-host copy */
  uint32_t behaved;           /* 1 << SC_CLS_* of the calls that blocked by behaviour */
  uint64_t behaviour_calls;   /* of the flagged steps' calls, those that blocked by behaviour */
  int64_t behaviour_ns;       /* and their time */
  double named_share;         /* the worst step's share counting only named blocking calls */
  int64_t free_ns;            /* of flagged_ns, in device frees (cudaFree, hipFree, cuMemRelease ...) */
  int64_t free_ppm;           /* free_ns / flagged_ns */
  int al_thrash;              /* allocator-thrash is in the report for this rank */
  int queued;                 /* queued-idle-unexplained is in the report for this rank */
  int queued_cause;           /* queued and the replay without the calls saves less than half their
                               * blocked time: they waited for work that itself waited on something
                               * the trace does not show, and are its symptom */
  int64_t queued_ns;          /* flagged_ns - saving_ns: the blocked time removing them does not save */
  int nsites;                 /* the costliest call sites, by blocked time */
  stall_site site[STALL_SITES];
  int free_cause;             /* free_ns is at least starvation.explained_min_ppm of flagged_ns and
                               * allocator-thrash is in the report: the allocator is the root cause */
} stall;

/* A copy to the host by its Kineto name ("Memcpy DtoH (Device -> Pageable)",
 * ROCm's "CopyDeviceToHost"): what .item() / .cpu() make; an input copy to
 * the device is not. */
static int copy_to_host(const char *nm) {
  return strstr(nm, "DtoH") || strstr(nm, "DeviceToHost") || strstr(nm, "Device -> Host") ||
         strstr(nm, "Device -> Pageable") || strstr(nm, "Device -> Pinned");
}

static size_t rows_bytes(const stall *d) { return (d->nwin ? d->nwin : 1) * sizeof(sa_step); }

static void stall_free(fsdpa_ctx *c, const sync_run *r, stall *d) {
  fa_free(&c->alloc, d->in, sa_flags_bytes(&r->s));
  fa_free(&c->alloc, d->rows, rows_bytes(d));
  fa_free(&c->alloc, d->idx, sa_flags_bytes(&r->s) * sizeof(int32_t));
  it_windows_free(c, d->win, d->nwin);
}

/* The windows the finding judges: the ProfilerStep ranges (every one; the
 * calls keep their step), else the inferred iterations with the first left
 * out as warm-up when there are two or more (as launch-gaps does), else the
 * whole trace as one window. */
static fsdpa_status stall_windows(fsdpa_ctx *c, const sc_set *s, stall *d) {
  fsdpa_status st = it_windows(c, &d->win, &d->nwin, &d->source);
  if (st) return st;
  d->first = d->source == ITS_PROFILER_STEP || d->source == ITS_NONE || d->nwin < 2 ? 0 : 1;
  d->idx = fa_malloc(&c->alloc, sa_flags_bytes(s) * sizeof(int32_t));
  if (!d->idx) return fa_fail_status(&c->alloc);
  for (size_t i = 0; i < s->n; i++) {
    int32_t k = d->source == ITS_PROFILER_STEP ? s->v[i].step : sc_step_of(d->win, d->nwin, s->v[i].ts);
    d->idx[i] = k >= 0 && (size_t)k >= d->first ? k : -1;
  }
  return FSDPA_OK;
}

/* GPU idle the selected calls caused: the full length of every GPU gap that
 * opens while one of them blocks (the queue ran dry under the wait and stayed
 * dry until the thread came back).  Not sc_idle_cost's idle after any call
 * that ends on an idle GPU: a thread that waited while the GPU worked lost its
 * lead, and the idle it did not open is not its cost. */
static int64_t gaps_opened(const iv *b, size_t nb, int64_t s, int64_t e) {
  size_t lo = 0, hi = nb;
  while (lo < hi) { /* first busy interval ending at or after s */
    size_t mid = lo + (hi - lo) / 2;
    if (b[mid].e < s) lo = mid + 1;
    else hi = mid;
  }
  int64_t t = 0;
  for (size_t j = lo; j + 1 < nb && b[j].e < e; j++)
    if (b[j + 1].s > b[j].e) t += b[j + 1].s - b[j].e;
  return t;
}

static fsdpa_status idle_opened(fsdpa_ctx *c, const sc_set *s, const uint8_t *sel, int64_t *out) {
  *out = 0;
  size_t n = 0;
  for (size_t i = 0; i < s->n; i++) n += sel[i] != 0;
  if (!n) return FSDPA_OK;
  iv *w = fa_malloc(&c->alloc, n * sizeof(iv));
  if (!w) return fa_fail_status(&c->alloc);
  for (int32_t d = -1; d < (int32_t)s->ndevs; d++) {
    size_t m = 0;
    for (size_t i = 0; i < s->n; i++)
      if (sel[i] && s->v[i].dev == d) w[m++] = (iv){s->v[i].ts, s->v[i].end};
    if (!m) continue;
    m = iv_union(w, m);
    size_t nb;
    const iv *b = sc_busy(s, d, &nb);
    for (size_t j = 0; j < m; j++) *out += gaps_opened(b, nb, w[j].s, w[j].e);
  }
  fa_free(&c->alloc, w, n * sizeof(iv));
  return FSDPA_OK;
}

/* The judged windows of a stall, for its what-if. */
static void stall_mods(const stall *d, dg_mods *m) {
  memset(m, 0, sizeof *m);
  m->t0 = d->nwin > d->first ? d->win[d->first].ts : 0;
  m->t1 = d->nwin ? d->win[d->nwin - 1].end : 0;
}

/* The flagged calls by site (the call's API and the op it waited for), the
 * three that blocked longest, each with what the replay without that site's
 * calls alone saves: one site may be a fix on its own (a metric read back
 * every step) while another is needed at once (sizes read to launch the next
 * op).  Only with two sites or more: one site's saving is the finding's. */
static int cmp_site(const void *pa, const void *pb) {
  const stall_site *a = pa, *b = pb;
  if (a->api != b->api) return a->api < b->api ? -1 : 1;
  if (a->where != b->where) return a->where < b->where ? -1 : 1;
  return a->op < b->op ? -1 : a->op > b->op;
}

/* The outermost CPU op around [a, b) on thread tr below a ProfilerStep (or
 * at the top level): the part of the step the call was made in. */
static uint32_t call_where(const fsdpa_ctx *c, const depgraph *g, uint32_t tr, int64_t a, int64_t b) {
  size_t hint = 0;
  uint32_t i = dg_cpu_innermost(g, tr, a, b, &hint), out = INTERN_NONE;
  for (; i != DG_NONE; i = g->cpu[i].parent) {
    if (store_name_info(&c->st, g->cpu[i].name) & NC_STEP) break;
    out = g->cpu[i].name;
  }
  return out;
}

static uint32_t waited_name(const fsdpa_ctx *c, const sc_call *k) {
  return k->op != UINT32_MAX ? STORE_REC(&c->st.gpu, k->op)->name : INTERN_NONE;
}

static fsdpa_status stall_sites(fsdpa_ctx *c, const sync_run *r, stall *d) {
  const sc_call *v = r->s.v;
  size_t m = 0;
  for (size_t i = 0; i < r->s.n; i++) m += d->in[i] != 0;
  if (m < 2) return FSDPA_OK;
  depgraph g;
  fsdpa_status st = dg_get(c, &g);
  if (st) return st;
  stall_site *all = fa_malloc(&c->alloc, m * sizeof *all);
  uint32_t *where = fa_malloc(&c->alloc, m * sizeof *where);
  if (!all || !where) {
    fa_free(&c->alloc, all, m * sizeof *all);
    fa_free(&c->alloc, where, m * sizeof *where);
    dg_free(c, &g);
    return fa_fail_status(&c->alloc);
  }
  size_t k = 0;
  for (size_t i = 0; i < r->s.n; i++)
    if (d->in[i]) {
      where[k] = call_where(c, &g, v[i].track, v[i].ts, v[i].end);
      all[k] = (stall_site){v[i].name, where[k], waited_name(c, &v[i]), 1, v[i].end - v[i].ts, 0};
      k++;
    }
  qsort(all, m, sizeof *all, cmp_site);
  size_t ns = 0;
  for (size_t i = 0; i < m; i++) {
    if (ns && !cmp_site(&all[ns - 1], &all[i])) {
      all[ns - 1].calls++;
      all[ns - 1].blocked_ns += all[i].blocked_ns;
    } else {
      all[ns++] = all[i];
    }
  }
  /* the STALL_SITES longest, longest first (ties: the order above) */
  for (size_t a = 0; a < ns && (int)a < STALL_SITES; a++) {
    size_t best = a;
    for (size_t b = a + 1; b < ns; b++)
      if (all[b].blocked_ns > all[best].blocked_ns) best = b;
    stall_site t = all[a];
    all[a] = all[best];
    all[best] = t;
    d->site[d->nsites++] = all[a];
  }
  fa_free(&c->alloc, all, m * sizeof *all);
  dg_free(c, &g);
  size_t n = c->st.rt.len;
  uint8_t *z = d->nsites >= 2 && n ? fa_calloc(&c->alloc, n) : NULL;
  if (d->nsites < 2 || (n && !z)) {
    fa_free(&c->alloc, where, m * sizeof *where);
    if (d->nsites < 2) {
      d->nsites = 0;
      return FSDPA_OK;
    }
    return fa_fail_status(&c->alloc);
  }
  for (int s = 0; s < d->nsites && !st; s++) {
    memset(z, 0, n);
    k = 0;
    for (size_t i = 0; i < r->s.n; i++) {
      if (!d->in[i]) continue;
      if (v[i].rt < n && v[i].name == d->site[s].api && where[k] == d->site[s].where &&
          waited_name(c, &v[i]) == d->site[s].op)
        z[v[i].rt] = 1;
      k++;
    }
    dg_mods md;
    stall_mods(d, &md);
    md.rt_zero = z;
    st = dg_saving(c, &md, &d->site[s].saving_ns);
  }
  fa_free(&c->alloc, z, n);
  fa_free(&c->alloc, where, m * sizeof *where);
  return st;
}

static fsdpa_status stall_decide(fsdpa_ctx *c, const sync_run *r, int al_thrash, int queued, stall *d) {
  const sc_set *s = &r->s;
  memset(d, 0, sizeof *d);
  d->al_thrash = al_thrash;
  d->min_stall_ns = c->params[P_SYNC_STALL_MIN_NS];
  d->min_share_ppm = c->params[P_SYNC_STALL_SHARE_PPM];
  fsdpa_status st = stall_windows(c, s, d);
  if (st) return st;
  d->nsteps = d->nwin - d->first;
  d->rows = fa_malloc(&c->alloc, rows_bytes(d));
  d->in = fa_calloc(&c->alloc, sa_flags_bytes(s));
  if (!d->rows || !d->in) return fa_fail_status(&c->alloc);
  if ((st = sa_windows(c, s, r->sel, d->win, d->nwin, d->idx, d->rows))) return st;
  size_t worst = SIZE_MAX;
  for (size_t i = d->first; i < d->nwin; i++) {
    if (!d->rows[i].flagged) continue;
    d->nflag++;
    d->flagged_ns += d->rows[i].total;
    d->flagged_dur += d->win[i].end - d->win[i].ts;
    if (worst == SIZE_MAX || d->rows[i].worst_thread > d->rows[worst].worst_thread) worst = i;
  }
  if (!d->nflag) return FSDPA_OK;
  for (size_t i = 0; i < s->n; i++) d->in[i] = r->sel[i] && d->idx[i] >= 0 && d->rows[d->idx[i]].flagged;
  if ((st = sc_idle_cost(c, s, d->in, &d->idle_ns))) return st;
  for (size_t i = 0; i < s->n; i++)
    if (d->in[i]) sc_top_insert(s, d->top, &d->ntop, FINDING_MAX_RANGES, i);
  for (size_t i = 0; i < s->n; i++) {
    if (!d->in[i]) continue;
    const sc_call *k = &s->v[i];
    d->seen |= k->info;
    if ((k->info & NC_FREE) && !(k->info & (NC_PINNED | NC_MALLOC))) d->free_ns += k->end - k->ts;
    if (k->op != UINT32_MAX && STORE_REC(&c->st.gpu, k->op)->kind == RK_MEMCPY &&
        copy_to_host(store_name(&c->st, STORE_REC(&c->st.gpu, k->op)->name)))
      d->copy_wait = 1;
  }
  d->worst = &d->rows[worst];
  d->worst_step = &d->win[worst];
  d->worst_index = worst;
  d->worst_thread = store_track(&c->st, d->worst->worst_track);
  d->share = (double)d->worst->worst_thread / (double)(d->worst_step->end - d->worst_step->ts);
  d->named_share = d->share;
  for (size_t i = 0; i < s->n; i++) {
    if (!d->in[i] || s->v[i].how != SC_HOW_BEHAVIOUR) continue;
    d->behaved |= 1u << s->v[i].cls;
    d->behaviour_calls++;
    d->behaviour_ns += s->v[i].end - s->v[i].ts;
  }
  if (d->behaviour_calls) {
    /* the worst window again with the named calls alone */
    uint8_t *named = fa_malloc(&c->alloc, sa_flags_bytes(s));
    sa_step *rows = fa_malloc(&c->alloc, rows_bytes(d));
    if (named && rows) {
      for (size_t i = 0; i < s->n; i++) named[i] = r->sel[i] && s->v[i].how == SC_HOW_NAMED;
      st = sa_windows(c, s, named, d->win, d->nwin, d->idx, rows);
      if (!st) d->named_share = (double)rows[worst].worst_thread / (double)(d->worst_step->end - d->worst_step->ts);
    } else {
      st = fa_fail_status(&c->alloc);
    }
    fa_free(&c->alloc, named, sa_flags_bytes(s));
    fa_free(&c->alloc, rows, rows_bytes(d));
    if (st) return st;
  }
  /* a thread blocked while the GPU kept busy costs the CPU its lead, not GPU
   * time: severity follows the GPU idle the blocking calls caused, as a
   * share of the windows judged, on the scale every finding uses */
  if ((st = idle_opened(c, s, d->in, &d->opened_ns))) return st;
  /* what the replay of the dependency graph without the flagged calls saves */
  {
    size_t n = c->st.rt.len;
    uint8_t *z = n ? fa_calloc(&c->alloc, n) : NULL;
    if (n && !z) return fa_fail_status(&c->alloc);
    for (size_t i = 0; i < s->n; i++)
      if (d->in[i] && s->v[i].rt < n) z[s->v[i].rt] = 1;
    dg_mods m;
    stall_mods(d, &m);
    m.rt_zero = z;
    st = dg_saving(c, &m, &d->saving_ns);
    fa_free(&c->alloc, z, n);
    if (st) return st;
  }
  for (size_t i = d->first; i < d->nwin; i++)
    if (d->win[i].end > d->win[i].ts) d->judged_ns += d->win[i].end - d->win[i].ts;
  /* the cost is the idle the waits caused: the gaps that opened while they
   * blocked, as far as removing them would remove that idle.  A thread
   * waiting for queued work that itself waited (on another stream, a graph
   * replay, work outside the trace) opened gaps it did not cause: the replay
   * without it saves nothing there. */
  d->caused_ns = d->saving_ns == FSDPA_ABSENT || d->saving_ns > d->opened_ns ? d->opened_ns : d->saving_ns;
  if (d->caused_ns < 0) d->caused_ns = 0;
  d->cost_ns = d->caused_ns;
  /* without iterations the share of the whole trace says nothing about a
   * repeating pattern (one synchronize that ends a capture is normal): the
   * waits must have cost the GPU at least what a stall must last */
  if (d->source == ITS_NONE && d->caused_ns < d->min_stall_ns) return FSDPA_OK;
  d->opened_ppm = d->judged_ns > 0 ? (int64_t)(1e6 * ((double)d->opened_ns / (double)d->judged_ns)) : 0;
  d->caused_ppm = d->judged_ns > 0 ? (int64_t)(1e6 * ((double)d->caused_ns / (double)d->judged_ns)) : 0;
  d->severity = d->caused_ppm >= c->params[P_SEVERITY_CRITICAL_PPM]  ? SEV_CRITICAL
                : d->caused_ppm >= c->params[P_SEVERITY_WARNING_PPM] ? SEV_WARNING
                                                                      : SEV_INFO;
  d->step = d->nflag == 1 ? d->worst_step->number : FSDPA_ABSENT;
  /* a device free synchronizes because the allocator releases memory: with
   * allocator-thrash in the report, most blocked time in frees is its symptom */
  d->free_ppm = d->flagged_ns > 0 ? (int64_t)(1e6 * ((double)d->free_ns / (double)d->flagged_ns)) : 0;
  d->free_cause = d->al_thrash && d->free_ns > 0 && d->free_ppm >= c->params[P_STARVATION_EXPLAINED_PPM];
  d->queued = queued;
  if (!d->free_cause && queued && d->saving_ns != FSDPA_ABSENT && d->saving_ns * 2 < d->flagged_ns) {
    d->queued_cause = 1;
    d->queued_ns = d->flagged_ns - (d->saving_ns > 0 ? d->saving_ns : 0);
  }
  if ((st = stall_sites(c, r, d))) return st;
  d->fires = 1;
  return FSDPA_OK;
}

/* The worst window for people: "ProfilerStep#6", "iteration 3 of 5", "the
 * whole trace"; and what a share of it is a share of. */
static void win_label(const stall *d, char *b, size_t n) {
  if (d->source == ITS_PROFILER_STEP) snprintf(b, n, "ProfilerStep#%lld", (long long)d->worst_step->number);
  else if (d->source == ITS_NONE) snprintf(b, n, "the whole trace");
  else snprintf(b, n, "iteration %zu of %zu", d->worst_index + 1, d->nwin);
}
static const char *win_noun(const stall *d) {
  return d->source == ITS_PROFILER_STEP ? "step" : d->source == ITS_NONE ? "trace" : "iteration";
}

static void stall_detail(const fsdpa_ctx *c, const sync_run *r, const stall *d, char *detail, size_t cap) {
  const sc_call *lk = &r->s.v[d->top[0]];
  const step_rec *ws = d->worst_step;
  char lab[64];
  win_label(d, lab, sizeof lab);
  int n;
  if (d->source == ITS_NONE)
    n = snprintf(detail, cap,
                 "No iterations found: judged over the whole trace (%.2f ms). One CPU thread spent at least %.3f "
                 "ms and %.1f%% of it in blocking CUDA calls (%.2f ms%s): thread %lld/%lld blocked %.2f ms. "
                 "Longest call: %s, %.2f ms",
                 fmt_ms(ws->end - ws->ts), fmt_ms(d->min_stall_ns), (double)d->min_share_ppm / 1e4,
                 fmt_ms(d->flagged_ns), d->behaviour_calls ? ", some blocking by behaviour" : "",
                 (long long)d->worst_thread->pid, (long long)d->worst_thread->tid, fmt_ms(d->worst->worst_thread),
                 store_name(&c->st, lk->name), fmt_ms(lk->end - lk->ts));
  else
    n = snprintf(detail, cap,
                 "In %zu of %zu %s%s one CPU thread spent at least %.3f ms and %.1f%% of the %s in blocking CUDA "
                 "calls (%.2f ms in those %ss%s). Worst: %s, thread %lld/%lld blocked %.2f ms of %.2f ms. Longest "
                 "call: %s, %.2f ms",
                 d->nflag, d->nsteps, win_noun(d), d->source == ITS_PROFILER_STEP ? "s"
                                                   : d->first ? "s (inferred: no ProfilerStep; the first of the "
                                                                "trace's iterations left out as warm-up)"
                                                              : "s (inferred: no ProfilerStep)",
                 fmt_ms(d->min_stall_ns), (double)d->min_share_ppm / 1e4, win_noun(d), fmt_ms(d->flagged_ns),
                 win_noun(d), d->behaviour_calls ? ", some blocking by behaviour" : "", lab,
                 (long long)d->worst_thread->pid, (long long)d->worst_thread->tid, fmt_ms(d->worst->worst_thread),
                 fmt_ms(ws->end - ws->ts), store_name(&c->st, lk->name), fmt_ms(lk->end - lk->ts));
  if (n > 0 && (size_t)n < cap && lk->op != UINT32_MAX) {
    const ev_rec *g = STORE_REC(&c->st.gpu, lk->op);
    char how[160];
    if (lk->src == SC_SRC_CUDA_SYNC)
      snprintf(how, sizeof how, "from its cuda_sync event '%s'",
               lk->sync_kind != INTERN_NONE ? store_name(&c->st, lk->sync_kind) : "?");
    else if (lk->src == SC_SRC_OWN_OP)
      snprintf(how, sizeof how, "its own copy");
    else
      snprintf(how, sizeof how, "inferred from the thread's last launch");
    n += snprintf(detail + n, cap - (size_t)n, ", waiting for %.120s on stream %lld (%s)",
                  store_name(&c->st, g->name), (long long)store_track(&c->st, g->track)->tid, how);
  }
  if (n > 0 && (size_t)n < cap && lk->idle_after != FSDPA_ABSENT)
    n += snprintf(detail + n, cap - (size_t)n, "; the GPU then idled %.3f ms", fmt_ms(lk->idle_after));
  if (n > 0 && (size_t)n < cap)
    snprintf(detail + n, cap - (size_t)n,
             ". The waits cost the GPU %.2f ms of idle (%.1f%% of the %s judged): the GPU gaps that opened while "
             "they blocked (%.2f ms), as far as a replay of the trace's dependencies without them removes that "
             "idle. From the start of the waits until work resumed the GPU was idle %.2f ms; the rest had begun "
             "before the waits.",
             fmt_ms(d->caused_ns), (double)d->caused_ppm / 1e4,
             d->source == ITS_PROFILER_STEP ? "steps" : d->source == ITS_NONE ? "trace" : "iterations",
             fmt_ms(d->opened_ns), fmt_ms(d->idle_ns));
  /* each site on its own: which fix pays */
  for (int k = 0; k < d->nsites; k++) {
    size_t m = strlen(detail);
    if (m + 1 >= cap) break;
    const stall_site *x = &d->site[k];
    char sv[32] = "nothing measurable";
    if (x->saving_ns != FSDPA_ABSENT) snprintf(sv, sizeof sv, "%.2f ms", fmt_ms(x->saving_ns));
    snprintf(detail + m, cap - m, "%s%s%s%s (%llu call%s, %.2f ms blocked) made non-blocking alone would save %s%s",
             k ? "; " : " By call site: ", store_name(&c->st, x->api),
             x->where != INTERN_NONE ? " in " : "", x->where != INTERN_NONE ? store_name(&c->st, x->where) : "",
             (unsigned long long)x->calls, x->calls == 1 ? "" : "s", fmt_ms(x->blocked_ns), sv,
             k + 1 == d->nsites ? "." : "");
  }
}

/* Advice for the APIs that actually stalled, in the words of the workload:
 * the training step or the serving loop, FSDP and the DataLoader only when
 * the trace shows them. */
static void stall_advice(const stall *d, const workload *wl, sbuf *b) {
  if (d->free_cause) {
    sb_printf(b, "%.0f%% of the blocked time is in cudaFree/hipFree, which synchronize the device: the allocator "
                 "releases device memory every %s, and allocator-thrash is the cause (see its calls and "
                 "its advice). Stop those releases first.",
              (double)d->free_ppm / 1e4, win_noun(d));
    /* what the other waits were, when there are others */
    if (!(d->seen & (NC_SYNC | NC_DEVICE_SYNC | NC_SYNC_MEMCPY)) && !d->behaved) return;
    sb_puts(b, " ");
  }
  const char *loop = wl->mode == WM_TRAIN ? "training step" : wl->mode == WM_UNKNOWN ? "step" : "forward / serving loop";
  const char *in = wl->mode == WM_TRAIN ? "step" : wl->mode == WM_UNKNOWN ? "step" : "loop";
  sb_printf(b,
            "Keep host synchronization out of the %s: avoid tensor.item(), .cpu(), .tolist(), .numpy(), "
            "print(tensor) and torch.cuda.synchronize() inside the %s (accumulate %s on the GPU and read them "
            "every N iterations); copy inputs with .to(device, non_blocking=True) from pinned memory%s.",
            loop, in, wl->mode == WM_TRAIN ? "losses/metrics" : "results/metrics",
            wl->dataloader ? " (DataLoader pin_memory=True)" : " (tensor.pin_memory())");
  if (wl->labels & ((1u << WL_FSDP1) | (1u << WL_FSDP2)))
    sb_puts(b, " Under FSDP do not add explicit syncs: FSDP orders its streams with CUDA events.");
  if (d->copy_wait)
    sb_puts(b, " Here the thread waited for a device-to-host copy, the signature of .item()/.cpu() "
               "on a GPU tensor.");
  if (d->seen & NC_DEVICE_SYNC)
    sb_puts(b, " cudaDeviceSynchronize is torch.cuda.synchronize() (or a timing helper): call it "
               "only when measuring.");
  if (d->seen & NC_SYNC_MEMCPY)
    sb_puts(b, " Synchronous cudaMemcpy/hipMemcpy: use non_blocking copies from pinned memory.");
  if (d->behaved & (1u << SC_CLS_ASYNC_COPY)) {
    sb_puts(b, " An async copy held the thread until it was done: that is a copy to or from pageable host "
               "memory (the runtime stages it synchronously) or a copy API that is synchronous "
               "(hipMemcpyWithStream). Pin the host buffer (tensor.pin_memory()");
    if (wl->dataloader) sb_puts(b, ", DataLoader pin_memory=True");
    sb_puts(b, ") and copy with non_blocking=True; for results read on the host, copy into a preallocated "
               "pinned tensor and wait on an event only when the value is needed.");
  }
  if (d->behaved & (1u << SC_CLS_LAUNCH))
    sb_puts(b, " A kernel launch returned only when the GPU had drained the work queued before it: a "
               "first launch loading its module (lazy loading waits for the device; warm up, or set "
               "CUDA_MODULE_LOADING=EAGER) or a launch that synchronizes implicitly.");
  if (d->behaved & (1u << SC_CLS_OTHER))
    sb_printf(b, " Another runtime call waited for the GPU to drain (see longest_calls for which): move it "
                 "out of the %s.", in);
  if ((d->seen & NC_FREE) && !d->free_cause)
    sb_puts(b, d->al_thrash ? " cudaFree/hipFree synchronize the device: they come from the caching allocator "
                              "releasing memory (torch.cuda.empty_cache(), or a retry after a failed "
                              "allocation); see allocator-thrash."
                            : " cudaFree/hipFree synchronize the device: they come from the caching allocator "
                              "releasing memory (torch.cuda.empty_cache(), or a retry after a failed "
                              "allocation); keep such releases out of the loop.");
}

static void stall_saving(const stall *d, jsonw *w) {
  dg_mods m;
  stall_mods(d, &m);
  dg_saving_write(w, &m, d->saving_ns, "the flagged blocking calls take no time and wait for nothing");
}

static fsdpa_status stall_evidence(fsdpa_ctx *c, const sync_run *r, const stall *d, sbuf *ev) {
  jsonw w;
  jw_init(&w, ev, 0);
  jw_obj(&w);
  stall_saving(d, &w);
  jw_ku64(&w, "flagged_steps", d->nflag);
  jw_ku64(&w, "steps", d->nsteps);
  jw_ki64(&w, "flagged_sync_ns", d->flagged_ns);
  jw_ki64(&w, "flagged_steps_dur_ns", d->flagged_dur);
  jw_ki64(&w, "judged_ns", d->judged_ns);
  jw_ki64(&w, "gpu_idle_opened_ns", d->opened_ns);
  jw_ki64(&w, "gpu_idle_opened_ppm", d->opened_ppm);
  jw_ki64(&w, "gpu_idle_caused_ns", d->caused_ns);
  jw_ki64(&w, "gpu_idle_caused_ppm", d->caused_ppm);
  jw_ki64(&w, "gpu_idle_ns", d->idle_ns);
  jw_kstr(&w, "judged", d->source == ITS_NONE ? "whole_trace" : "iterations");
  jw_kstr(&w, "iterations_from", it_source_name(d->source));
  jw_ku64(&w, "warmup_iterations", d->first);
  jw_ku64(&w, "worst_iteration", d->worst_index + 1);
  jw_ki64(&w, "worst_step", d->worst_step->number);
  jw_ki64(&w, "worst_step_dur_ns", d->worst_step->end - d->worst_step->ts);
  jw_ki64(&w, "worst_thread_sync_ns", d->worst->worst_thread);
  jw_ki64(&w, "worst_thread_pid", d->worst_thread->pid);
  jw_ki64(&w, "worst_thread_tid", d->worst_thread->tid);
  jw_kratio(&w, "worst_share", d->share);
  jw_ki64(&w, "min_stall_ns", d->min_stall_ns);
  jw_ki64(&w, "min_share_ppm", d->min_share_ppm);
  jw_ku64(&w, "behaviour_calls", d->behaviour_calls);
  jw_ki64(&w, "behaviour_ns", d->behaviour_ns);
  jw_kratio(&w, "named_share", d->named_share);
  jw_ki64(&w, "free_ns", d->free_ns);
  if (d->free_cause) {
    jw_kstr(&w, "explained_by", "allocator-thrash");
    jw_ki64(&w, "explained_ns", d->free_ns);
    jw_ki64(&w, "explained_ppm", d->free_ppm);
  } else if (d->queued_cause) {
    jw_kstr(&w, "explained_by", "queued-idle-unexplained");
    jw_ki64(&w, "explained_ns", d->queued_ns);
    jw_ki64(&w, "explained_ppm", d->flagged_ns > 0 ? (int64_t)(1e6 * ((double)d->queued_ns / (double)d->flagged_ns)) : 0);
  }
  jw_key(&w, "saving_by_site");
  jw_arr(&w);
  for (int k = 0; k < d->nsites; k++) {
    jw_obj(&w);
    jw_kstr(&w, "api", store_name(&c->st, d->site[k].api));
    jw_key(&w, "where");
    if (d->site[k].where != INTERN_NONE) jw_str(&w, store_name(&c->st, d->site[k].where));
    else jw_null(&w);
    jw_key(&w, "waited_op");
    if (d->site[k].op != INTERN_NONE) jw_str(&w, store_name(&c->st, d->site[k].op));
    else jw_null(&w);
    jw_ku64(&w, "calls", d->site[k].calls);
    jw_ki64(&w, "blocked_ns", d->site[k].blocked_ns);
    jw_key(&w, "saving_ns");
    if (d->site[k].saving_ns != FSDPA_ABSENT) jw_i64(&w, d->site[k].saving_ns);
    else jw_null(&w);
    jw_obj_end(&w);
  }
  jw_arr_end(&w);
  jw_key(&w, "by_api");
  jw_arr(&w);
  for (size_t i = 0; i < r->napis; i++) {
    uint64_t cnt = 0;
    int64_t tot = 0;
    for (size_t j = 0; j < r->s.n; j++)
      if (d->in[j] && r->s.v[j].name == r->apis[i].name) {
        cnt++;
        tot += r->s.v[j].end - r->s.v[j].ts;
      }
    if (!cnt) continue;
    jw_obj(&w);
    jw_kstr(&w, "api", store_name(&c->st, r->apis[i].name));
    jw_ku64(&w, "count", cnt);
    jw_ki64(&w, "total_ns", tot);
    jw_obj_end(&w);
  }
  jw_arr_end(&w);
  jw_key(&w, "longest_calls");
  jw_arr(&w);
  for (int i = 0; i < d->ntop; i++) sync_write_wait(c, &r->s, &r->s.v[d->top[i]], &w);
  jw_arr_end(&w);
  jw_obj_end(&w);
  return FSDPA_OK;
}

static fsdpa_status stall_word(fsdpa_ctx *c, const sync_run *r, const stall *d, int64_t rank, findings *f) {
  const sc_call *lk = &r->s.v[d->top[0]];
  char title[256], detail[1400];
  char lab[64];
  win_label(d, lab, sizeof lab);
  snprintf(title, sizeof title, "CPU waits cost %.2f ms of GPU idle; the thread blocked %.2f ms in %s %s %s (%.1f%% of "
           "the %s)",
           fmt_ms(d->caused_ns), fmt_ms(d->worst->worst_thread), store_name(&c->st, lk->name),
           d->source == ITS_NONE ? "over" : "in", lab, 100.0 * d->share, win_noun(d));
  stall_detail(c, r, d, detail, sizeof detail);
  workload wl;
  fsdpa_status st = workload_build(c, &wl);
  if (st) return st;
  sbuf ev, adv;
  sb_init(&ev, &c->alloc);
  sb_init(&adv, &c->alloc);
  stall_advice(d, &wl, &adv);
  if ((st = stall_evidence(c, r, d, &ev))) {
    sb_free(&ev);
    sb_free(&adv);
    return st;
  }
  if (ev.failed || adv.failed) {
    st = (fsdpa_status)(ev.failed ? ev.failed : adv.failed);
  } else {
    finding *x = findings_add(f, "cpu-sync-stall", d->severity, rank, d->step, d->cost_ns, title, detail, adv.p,
                              ev.p);
    for (int i = 0; x && i < d->ntop; i++) {
      const sc_call *k = &r->s.v[d->top[i]];
      int64_t e = k->end + (k->idle_after == FSDPA_ABSENT ? 0 : k->idle_after);
      finding_add_range(x, ctx_abs(c, k->ts), ctx_abs(c, e));
    }
    /* the flagged steps' other blocking calls: annotate marks them too */
    size_t *rest = NULL, nrest = 0;
    if (x && !(st = sc_rest_longest(&c->alloc, &r->s, d->in, d->top, d->ntop, &rest, &nrest))) {
      for (size_t i = 0; i < nrest; i++) {
        const sc_call *k = &r->s.v[rest[i]];
        int64_t e = k->end + (k->idle_after == FSDPA_ABSENT ? 0 : k->idle_after);
        finding_add_range(x, ctx_abs(c, k->ts), ctx_abs(c, e));
      }
      fa_free(&c->alloc, rest, nrest * sizeof *rest);
    }
  }
  sb_free(&ev);
  sb_free(&adv);
  return st;
}

fsdpa_status sync_waits_findings(fsdpa_ctx *c, int64_t rank, findings *f) {
  if (!c->st.rt.len && c->st.gpu.len) {
    findings_not_judged(f, "cpu-sync-stall", rank, "the trace has no CUDA runtime calls (GPU events only)",
                        "ProfilerActivity.CPU next to ProfilerActivity.CUDA in the profiler's activities");
    return (fsdpa_status)f->failed;
  }
  sync_run r;
  fsdpa_status st = sync_run_open_all(c, &r);
  if (st) return st;
  stall d;
  st = stall_decide(c, &r, findings_has(f, "allocator-thrash", rank), findings_has(f, "queued-idle-unexplained", rank),
                    &d);
  if (!st && d.fires) st = stall_word(c, &r, &d, rank, f);
  stall_free(c, &r, &d);
  sync_run_free(c, &r);
  return st;
}
