/* host-spin-wait: a CPU thread that waited for GPU work without any
 * synchronizing call: after it launched an op it made no runtime call, and
 * ran almost no traced CPU op, for at least sync.spin_min_ns, and its next
 * runtime call came only once that op had started and no later than its end
 * plus the wake-up tolerance.  The thread was polling something the op
 * writes (host-mapped memory, a flag: DeepEP's notify kernels hand the
 * received token counts to a CPU that spins on them).  It costs the CPU its
 * lead over the GPU, and GPU time only where the device ran dry meanwhile;
 * the finding says both. */
#include "analysis/sync/sync.h"
#include "analysis/sync/sync_impl.h"
#include "events/classify.h"
#include "model/depgraph.h"
#include "model/iterations.h"
#include "util/fmt.h"
#include "util/interval.h"
#include "util/sort.h"
#include <stdio.h>
#include <string.h>

typedef struct rcall {
  uint32_t track, rt;
  int64_t ts, end;
  uint32_t op;     /* the op it launched (st.gpu index), DG_NONE */
  uint32_t pad;
} rcall;
#define RC_LESS(a, b) ((a)->track != (b)->track ? (a)->track < (b)->track : (a)->ts != (b)->ts ? (a)->ts < (b)->ts : (a)->rt < (b)->rt)
FA_SORT_DEFINE(sort_rcall, rcall, RC_LESS)

/* Launches looked back at for the op a spin waits on. */
#define SPIN_BACK 4
#define SPIN_TOP 4

typedef struct spin {
  uint64_t n;                /* waits found in the judged windows */
  int64_t wait_ns;           /* their summed length */
  int64_t gpu_idle_ns;       /* GPU idle (no activity on any stream) during them */
  int64_t judged_ns;         /* the judged windows' summed length */
  int64_t worst_ns;
  uint32_t worst_op;         /* the op the longest wait waited for */
  uint32_t worst_track;
  iv top[SPIN_TOP];       /* longest waits, longest first */
  iv *waits;                 /* every wait, and its thread */
  uint32_t *wtrack;
  size_t nw, cw;
  int64_t t0, t1;            /* the judged range */
  int64_t topw[SPIN_TOP];
  int ntop;
} spin;

static void top_add(spin *s, int64_t a, int64_t b) {
  int p;
  int64_t w = b - a;
  if (s->ntop < SPIN_TOP) p = s->ntop++;
  else if (w > s->topw[SPIN_TOP - 1]) p = SPIN_TOP - 1;
  else return;
  s->top[p] = (iv){a, b};
  s->topw[p] = w;
  for (; p > 0 && s->topw[p - 1] < s->topw[p]; p--) {
    iv t = s->top[p];
    int64_t tw = s->topw[p];
    s->top[p] = s->top[p - 1];
    s->topw[p] = s->topw[p - 1];
    s->top[p - 1] = t;
    s->topw[p - 1] = tw;
  }
}

static int in_windows(const step_rec *w, size_t nw, size_t first, int64_t t) {
  for (size_t i = first; i < nw; i++)
    if (t >= w[i].ts && t < w[i].end) return 1;
  return 0;
}

static void spin_free(fsdpa_ctx *c, spin *s) {
  fa_free(&c->alloc, s->waits, s->cw * sizeof *s->waits);
  fa_free(&c->alloc, s->wtrack, s->cw * sizeof *s->wtrack);
  s->waits = NULL;
  s->wtrack = NULL;
  s->nw = s->cw = 0;
}

static int wait_push(fsdpa_ctx *c, spin *s, uint32_t tr, int64_t a, int64_t b) {
  if (s->nw == s->cw) {
    size_t nc = s->cw ? 2 * s->cw : 16;
    iv *w = fa_malloc(&c->alloc, nc * sizeof *w);
    uint32_t *t = fa_malloc(&c->alloc, nc * sizeof *t);
    if (!w || !t) {
      fa_free(&c->alloc, w, nc * sizeof *w);
      fa_free(&c->alloc, t, nc * sizeof *t);
      return -1;
    }
    if (s->nw) {
      memcpy(w, s->waits, s->nw * sizeof *w);
      memcpy(t, s->wtrack, s->nw * sizeof *t);
    }
    fa_free(&c->alloc, s->waits, s->cw * sizeof *s->waits);
    fa_free(&c->alloc, s->wtrack, s->cw * sizeof *s->wtrack);
    s->waits = w;
    s->wtrack = t;
    s->cw = nc;
  }
  s->waits[s->nw] = (iv){a, b};
  s->wtrack[s->nw++] = tr;
  return 0;
}

static fsdpa_status spin_find(fsdpa_ctx *c, spin *s, int *source) {
  memset(s, 0, sizeof *s);
  const store *st = &c->st;
  const store_views *v = ctx_views(c);
  if (!v) return fa_fail_status(&c->alloc);
  step_rec *win = NULL;
  size_t nwin = 0;
  fsdpa_status rs = it_windows(c, &win, &nwin, source);
  if (rs) return rs;
  size_t first = *source == ITS_NONE ? 0 : (nwin >= 2 ? 1 : 0);
  for (size_t i = first; i < nwin; i++) s->judged_ns += win[i].end > win[i].ts ? win[i].end - win[i].ts : 0;
  s->t0 = nwin > first ? win[first].ts : 0;
  s->t1 = nwin ? win[nwin - 1].end : 0;
  depgraph g;
  if ((rs = dg_get(c, &g))) {
    it_windows_free(c, win, nwin);
    return rs;
  }
  size_t n = st->rt.len;
  rcall *r = n ? fa_malloc(&c->alloc, n * sizeof *r) : NULL;
  if (n && !r) {
    dg_free(c, &g);
    it_windows_free(c, win, nwin);
    return fa_fail_status(&c->alloc);
  }
  for (size_t i = 0; i < n; i++) {
    const ev_rec *e = STORE_REC(&st->rt, i);
    r[i] = (rcall){e->track, (uint32_t)i, e->ts, e->end, DG_NONE, 0};
  }
  /* launch call -> op, through the graph's op -> launch */
  for (size_t op = 0; op < g.nops; op++)
    if (g.launch[op] != DG_NONE && r[g.launch[op]].op == DG_NONE) r[g.launch[op]].op = (uint32_t)op;
  sort_rcall(r, n);
  int64_t min_ns = c->params[P_SYNC_SPIN_MIN_NS], tol = c->params[P_BLOCK_WAKE_TOL_NS];
  for (size_t i = 0; i + 1 < n; i++) {
    if (r[i].track != r[i + 1].track) continue;
    int64_t a = r[i].end, b = r[i + 1].ts;
    if (b - a < min_ns || !in_windows(win, nwin, first, a)) continue;
    /* mostly untraced: the thread ran no CPU op for most of it */
    if (2 * dg_cpu_time(&g, r[i].track, a, b) > b - a) continue;
    /* the op it waited on: one of its last launches, queued or running when
     * the wait began, that had started by the time the thread came back and
     * ended no earlier than that (within the wake-up tolerance) */
    uint32_t hit = DG_NONE;
    for (size_t k = i + 1, back = 0; k > 0 && back < SPIN_BACK; k--) {
      const rcall *l = &r[k - 1];
      if (l->track != r[i].track) break;
      if (l->op == DG_NONE) continue;
      back++;
      const ev_rec *o = STORE_REC(&st->gpu, l->op);
      if (o->end > a && o->ts <= b && b <= o->end + tol) {
        hit = l->op;
        break;
      }
    }
    if (hit == DG_NONE) continue;
    s->n++;
    s->wait_ns += b - a;
    /* GPU idle meanwhile (no activity on any stream) */
    s->gpu_idle_ns += (b - a) - iv_len_in(v->all_busy, v->nall, a, b);
    if (b - a > s->worst_ns) {
      s->worst_ns = b - a;
      s->worst_op = hit;
      s->worst_track = r[i].track;
    }
    top_add(s, a, b);
    if (wait_push(c, s, r[i].track, a, b)) {
      fa_free(&c->alloc, r, n * sizeof *r);
      dg_free(c, &g);
      it_windows_free(c, win, nwin);
      spin_free(c, s);
      return fa_fail_status(&c->alloc);
    }
  }
  fa_free(&c->alloc, r, n * sizeof *r);
  dg_free(c, &g);
  it_windows_free(c, win, nwin);
  return FSDPA_OK;
}

fsdpa_status sync_spin_findings(fsdpa_ctx *c, int64_t rank, findings *f) {
  spin s;
  int source = ITS_NONE;
  fsdpa_status st = spin_find(c, &s, &source);
  if (st || !s.n) {
    spin_free(c, &s);
    return st;
  }
  /* a CPU that spins while the GPU keeps busy loses only its lead: the
   * severity follows the GPU idle the spins held, as every finding's does */
  int sev = SEV_INFO;
  if (s.judged_ns > 0) {
    double ppm = 1e6 * (double)s.gpu_idle_ns / (double)s.judged_ns;
    sev = ppm >= (double)c->params[P_SEVERITY_CRITICAL_PPM]  ? SEV_CRITICAL
          : ppm >= (double)c->params[P_SEVERITY_WARNING_PPM] ? SEV_WARNING
                                                              : SEV_INFO;
  }
  const ev_rec *wo = STORE_REC(&c->st.gpu, s.worst_op);
  const track *th = store_track(&c->st, s.worst_track);
  double sh = s.judged_ns > 0 ? (double)s.wait_ns / (double)s.judged_ns : -1.0;
  char title[320], detail[1600], t_w[32], t_i[32], t_j[32], t_m[32];
  fmt_dur(t_w, sizeof t_w, s.wait_ns);
  fmt_dur(t_i, sizeof t_i, s.gpu_idle_ns);
  fmt_dur(t_j, sizeof t_j, s.judged_ns);
  fmt_dur(t_m, sizeof t_m, s.worst_ns);
  snprintf(title, sizeof title, "CPU spins waiting for the GPU without a sync call: %s in %llu waits (%.1f%% of the %s)",
           t_w, (unsigned long long)s.n, sh < 0 ? 0.0 : 100.0 * sh,
           source == ITS_PROFILER_STEP ? "steps" : source == ITS_NONE ? "trace" : "iterations");
  snprintf(detail, sizeof detail,
           "%llu times a CPU thread launched GPU work and then made no runtime call, and ran almost no traced "
           "CPU op, until that work had started on the GPU: it was polling something the work writes "
           "(host-mapped memory or a flag) instead of synchronizing, %s in all of %s judged. Longest: %s on "
           "thread %lld/%lld, waiting for %.160s. Meanwhile the GPU idled %s: the rest of the time it kept "
           "busy, so the wait cost the CPU its lead over the GPU (the next launches come late), not GPU time.",
           (unsigned long long)s.n, t_w, t_j, t_m, (long long)th->pid, (long long)th->tid,
           store_name(&c->st, wo->name), t_i);
  const char *advice =
      "The host needs a result of that kernel (an expert-parallel notify kernel's token counts, a value read "
      "back): issue independent work before the wait, or overlap it with the previous micro-batch (DeepEP's "
      "cached layouts skip the notify round; dual-batch overlap hides it), so the CPU's lead is not spent "
      "spinning.";
  sbuf b;
  sb_init(&b, &c->alloc);
  jsonw w;
  jw_init(&w, &b, 0);
  jw_obj(&w);
  jw_ku64(&w, "waits", s.n);
  jw_ki64(&w, "wait_ns", s.wait_ns);
  jw_ki64(&w, "gpu_idle_ns", s.gpu_idle_ns);
  jw_ki64(&w, "judged_ns", s.judged_ns);
  jw_ki64(&w, "longest_ns", s.worst_ns);
  jw_ki64(&w, "min_wait_ns", c->params[P_SYNC_SPIN_MIN_NS]);
  {
    /* the waits are cut from their threads */
    dg_cuts k;
    dg_mods m;
    memset(&m, 0, sizeof m);
    m.t0 = s.t0;
    m.t1 = s.t1;
    st = dg_cuts_build(c, s.wtrack, s.waits, s.nw, m.t0, m.t1, &k);
    if (!st) {
      m.cut = k.cut;
      m.cut_track = k.track;
      m.ncut = k.n;
      st = dg_saving_evidence(c, &m, "the spin waits are cut from their threads", &w);
      dg_cuts_free(c, &k);
    }
    spin_free(c, &s);
    if (st) {
      sb_free(&b);
      return st;
    }
  }
  jw_obj_end(&w);
  if (b.failed) {
    fsdpa_status e = (fsdpa_status)b.failed;
    sb_free(&b);
    return e;
  }
  finding *x = findings_add(f, "host-spin-wait", sev, rank, FSDPA_ABSENT, s.gpu_idle_ns, title, detail, advice, b.p);
  sb_free(&b);
  if (!x) return f->failed ? (fsdpa_status)f->failed : FSDPA_ENOMEM;
  for (int i = 0; i < s.ntop; i++) finding_add_range(x, ctx_abs(c, s.top[i].s), ctx_abs(c, s.top[i].e));
  return FSDPA_OK;
}
