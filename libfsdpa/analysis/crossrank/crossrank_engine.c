/* The cross-rank analysis over per-rank tables (crossrank_engine_extract.c,
 * or read back from summaries): after matching and clock alignment
 * (crossrank_engine_match.c), each collective splits into transfer (its
 * shortest duration on any rank) and wait (the rest, per rank); steps get
 * their totals and latest arriver, and the straggler rule picks the rank
 * that arrives last in enough steps. */
#include "analysis/crossrank/crossrank_impl.h"
#include <stdlib.h>
#include <string.h>
#include "util/satmath.h"

/* per-group figures after alignment */
typedef struct gres {
  int64_t step, transfer, wait, skew, spread, margin, lost;
  int64_t last_ri;   /* -1: no unique last arriver */
  int64_t win_s;     /* earliest other arrival, aligned */
  int64_t last_s;    /* last arriver's start, own clock */
  int32_t type;
  int64_t bytes;
  size_t gi;
} gres;

/* what measuring produces besides the result: per-group figures and end spreads */
typedef struct measured {
  gres *gr;
  size_t ngr;
  int64_t *spreads;
  size_t nspreads;
} measured;

static int cmp_i64p(const void *pa, const void *pb) {
  return xr_cmp_i64(*(const int64_t *)pa, *(const int64_t *)pb);
}

static int cmp_gres_step(const void *pa, const void *pb) {
  const gres *a = pa, *b = pb;
  int c = xr_cmp_i64(a->step, b->step);
  return c ? c : xr_cmp_i64((int64_t)a->gi, (int64_t)b->gi);
}

void xr_result_free(fa_alloc *a, xr_result *r) {
  fa_free(a, r->r, r->nranks * sizeof *r->r);
  fa_free(a, r->s, r->nsteps * sizeof *r->s);
  r->r = NULL;
  r->s = NULL;
  r->nsteps = 0;
}

static void add_worst(xr_rank_res *rr, int64_t s, int64_t e) {
  int k;
  if (rr->nworst < XR_WORST) k = rr->nworst++;
  else if (rr->worst[XR_WORST - 1].e - rr->worst[XR_WORST - 1].s < e - s) k = XR_WORST - 1;
  else return;
  rr->worst[k] = (iv){s, e};
  while (k > 0 && rr->worst[k - 1].e - rr->worst[k - 1].s < rr->worst[k].e - rr->worst[k].s) {
    iv t = rr->worst[k - 1];
    rr->worst[k - 1] = rr->worst[k];
    rr->worst[k] = t;
    k--;
  }
}

static void measure(xr_match *mt, measured *w, xr_result *r, int64_t end_tol) {
  for (size_t gi = 0; gi < mt->ng; gi++) {
    xr_member *m = &mt->m[mt->g[gi].first];
    size_t gn = mt->g[gi].n, kept = 0;
    for (size_t k = 0; k < gn; k++) {  /* drop ranks that could not be aligned */
      if (!mt->kpass[m[k].ri]) { r->unaligned++; continue; }
      m[kept++] = m[k];
    }
    mt->g[gi].n = kept;
    if (kept < 2) {
      r->unaligned += kept;
      continue;
    }
    gres g;
    memset(&g, 0, sizeof g);
    g.gi = gi;
    g.type = m[0].type;
    g.step = FSDPA_ABSENT;
    g.bytes = FSDPA_ABSENT;
    g.transfer = INT64_MAX;
    int64_t smin = INT64_MAX, smax = INT64_MIN, s2 = INT64_MIN, emin = INT64_MAX, emax = INT64_MIN;
    int64_t last = -1;
    for (size_t k = 0; k < kept; k++) {
      int64_t s = m[k].s - mt->off[m[k].ri], e = m[k].e - mt->off[m[k].ri];
      if (g.step == FSDPA_ABSENT) g.step = m[k].step;
      if (m[k].bytes != FSDPA_ABSENT && (g.bytes == FSDPA_ABSENT || m[k].bytes > g.bytes)) g.bytes = m[k].bytes;
      if (m[k].e - m[k].s < g.transfer) g.transfer = m[k].e - m[k].s;
      if (s < smin) smin = s;
      if (s > smax) { s2 = smax; smax = s; last = (int64_t)k; }
      else if (s > s2) s2 = s;
      if (e < emin) emin = e;
      if (e > emax) emax = e;
    }
    g.skew = smax - smin;
    g.spread = emax - emin;
    w->spreads[w->nspreads++] = g.spread;
    if (mt->g[gi].kind == 0) r->by_seq = 1;
    else r->by_ordinal = 1;
    if (g.spread > g.transfer && g.spread > end_tol) {
      /* its ranks did not finish together: not one collective (a wrong
       * ordinal match, or process groups the trace does not name), so its
       * durations say nothing about waiting */
      r->unsync++;
      continue;
    }
    g.last_ri = -1;
    if (s2 < smax) {  /* a unique last arriver */
      g.last_ri = m[last].ri;
      g.margin = smax - s2;
      g.last_s = m[last].s;
      g.win_s = INT64_MAX;
      for (size_t k = 0; k < kept; k++) {
        if ((int64_t)k == last) continue;
        int64_t s = m[k].s - mt->off[m[k].ri];
        g.lost += smax - s;
        if (s < g.win_s) g.win_s = s;
      }
    }
    int64_t wsum = 0;
    for (size_t k = 0; k < kept; k++) {
      xr_rank_res *rr = &r->r[m[k].ri];
      int64_t wt = (m[k].e - m[k].s) - g.transfer;
      rr->colls++;
      rr->transfer += g.transfer;
      rr->wait += wt;
      wsum += wt;
    }
    if (g.last_ri >= 0) {
      xr_rank_res *rr = &r->r[g.last_ri];
      rr->last_count++;
      rr->lost += g.lost;
      add_worst(rr, g.win_s + mt->off[g.last_ri], g.last_s);
    }
    g.wait = wsum;
    r->groups++;
    r->transfer += g.transfer;
    r->wait += wsum;
    xr_type_res *tr = &r->t[g.type];
    tr->count++;
    tr->transfer += g.transfer;
    tr->wait += wsum;
    if (g.bytes != FSDPA_ABSENT) tr->bytes = sat_add(tr->bytes == FSDPA_ABSENT ? 0 : tr->bytes, g.bytes);
    w->gr[w->ngr++] = g;
  }
}

/* Steps: per step totals and the step's latest arriver; step-less
 * collectives are one unit each for the straggler rule. */
static int by_step(fa_alloc *a, measured *w, xr_result *r, const xr_params *p) {
  qsort(w->gr, w->ngr, sizeof *w->gr, cmp_gres_step);
  size_t ns = 0;
  for (size_t i = 0; i < w->ngr; i++)
    if (!i || w->gr[i].step != w->gr[i - 1].step) ns++;
  if (ns && !(r->s = fa_calloc(a, ns * sizeof *r->s))) return -1;
  r->nsteps = ns;
  size_t si = 0;
  int64_t best_ri = -1, best_m = 0;
  for (size_t i = 0; i < w->ngr; i++) {
    const gres *g = &w->gr[i];
    int new_step = !i || g->step != w->gr[i - 1].step;
    if (new_step) {
      xr_step_res *s = &r->s[si++];
      s->step = g->step;
      s->last_idx = -1;
      s->last_delay = FSDPA_ABSENT;
    }
    xr_step_res *s = &r->s[si - 1];
    s->colls++;
    s->transfer += g->transfer;
    s->wait += g->wait;
    if (g->skew > s->max_skew) s->max_skew = g->skew;
    if (g->last_ri >= 0 && (s->last_idx < 0 || g->margin > s->last_delay ||
                            (g->margin == s->last_delay && g->last_ri < s->last_idx))) {
      s->last_idx = g->last_ri;
      s->last_delay = g->margin;
    }
    /* straggler units: one per step, one per step-less collective */
    int unit_start = g->step == FSDPA_ABSENT || new_step;
    if (unit_start) {
      best_ri = -1;
      best_m = 0;
    }
    if (g->last_ri >= 0 && g->margin >= p->min_delay_ns &&
        (best_ri < 0 || g->margin > best_m || (g->margin == best_m && g->last_ri < best_ri))) {
      best_ri = g->last_ri;
      best_m = g->margin;
    }
    int unit_end = g->step == FSDPA_ABSENT || i + 1 == w->ngr || w->gr[i + 1].step != g->step;
    if (unit_end) {
      r->units++;
      if (best_ri >= 0) {
        xr_rank_res *rr = &r->r[best_ri];
        rr->late_steps++;
        rr->delay_sum += best_m;
        if (best_m > rr->delay_max) rr->delay_max = best_m;
      }
    }
  }
  return 0;
}

static void pick_straggler(xr_result *r, const xr_params *p) {
  int64_t best = -1;
  for (size_t i = 0; i < r->nranks; i++) {
    const xr_rank_res *x = &r->r[i];
    if (!x->late_steps) continue;
    if (best < 0 || x->late_steps > r->r[best].late_steps ||
        (x->late_steps == r->r[best].late_steps && x->lost > r->r[best].lost))
      best = (int64_t)i;
  }
  r->straggler_idx = -1;
  if (best < 0) return;
  uint64_t ls = r->r[best].late_steps;
  int64_t min_steps = p->min_steps < 1 ? 1 : p->min_steps;
  double share = (double)ls * 1e6, need = (double)p->min_share_ppm * (double)r->units;
  if ((int64_t)ls >= min_steps && share > need) r->straggler_idx = best;
}

/* Tables in rank order, ties by the caller's index. */
typedef struct ordered {
  int64_t rank;
  size_t input;
} ordered;

static int cmp_ordered(const void *pa, const void *pb) {
  const ordered *a = pa, *b = pb;
  int c = xr_cmp_i64(a->rank, b->rank);
  return c ? c : xr_cmp_i64((int64_t)a->input, (int64_t)b->input);
}

/* Why the collectives found on one rank only were not matched: outside the
 * window that every aligned rank's trace covers (its collectives' aligned
 * span), the other ranks' traces cannot hold it (clipped at the trace edge);
 * else it has a Seq no other rank has, or it was matched by ordinal. */
static void classify_lone(const xr_match *mt, const xr_table *tabs, size_t n, xr_result *r) {
  int64_t ws = INT64_MIN, we = INT64_MAX;
  for (size_t i = 0; i < n; i++) {
    const xr_table *t = &tabs[i];
    if (!mt->kpass || !mt->kpass[i] || !t->colls.len) continue;
    int64_t s = INT64_MAX, e = INT64_MIN;
    for (size_t k = 0; k < t->colls.len; k++) {
      const xr_coll *x = &FA_VEC_AT(&t->colls, xr_coll, k);
      if (x->start < s) s = x->start;
      if (x->end > e) e = x->end;
    }
    s -= mt->off[i];
    e -= mt->off[i];
    if (s > ws) ws = s;
    if (e < we) we = e;
  }
  for (size_t k = 0; k < mt->nlone; k++) {
    const xr_lone *l = &mt->lone[k];
    if (mt->kpass && mt->kpass[l->ri] &&
        (l->s - mt->off[l->ri] < ws || l->e - mt->off[l->ri] > we))
      r->lone_clipped++;
    else if (l->kind == 0) r->lone_seq++;
    else r->lone_noseq++;
  }
}

fsdpa_status xr_analyze(fa_alloc *a, const xr_table *tabs_in, size_t n, const xr_params *p,
                        xr_result *r) {
  memset(r, 0, sizeof *r);
  r->ref_idx = -1;
  r->straggler_idx = -1;
  r->spread_p50 = r->spread_max = FSDPA_ABSENT;
  for (int t = 0; t < COLL__COUNT; t++) r->t[t].bytes = FSDPA_ABSENT;
  r->nranks = n;
  r->min_delay = p->min_delay_ns;
  r->min_used_ppm = p->min_used_ppm;
  if (!n) return FSDPA_OK;
  if (!(r->r = fa_calloc(a, n * sizeof *r->r))) return fa_fail_status(a);
  ordered *ord = fa_malloc(a, n * sizeof *ord);
  xr_table *tabs = fa_malloc(a, n * sizeof *tabs);
  xr_match mt;
  measured w;
  memset(&mt, 0, sizeof mt);
  memset(&w, 0, sizeof w);
  fsdpa_status st = FSDPA_OK;
  if (!ord || !tabs) {
    fa_free(a, ord, n * sizeof *ord);
    fa_free(a, tabs, n * sizeof *tabs);
    xr_result_free(a, r);
    return fa_fail_status(a);
  }
  for (size_t i = 0; i < n; i++) ord[i] = (ordered){tabs_in[i].rank, i};
  qsort(ord, n, sizeof *ord, cmp_ordered);
  for (size_t i = 0; i < n; i++) {
    tabs[i] = tabs_in[ord[i].input];  /* a view: the caller keeps ownership */
    r->r[i].rank = ord[i].rank;
    r->r[i].input = ord[i].input;
    r->r[i].offset = FSDPA_ABSENT;
  }
  fa_free(a, ord, n * sizeof *ord);
  if (n < 2) goto done;
  if (xr_match_run(a, &mt, tabs, n, r)) goto oom;
  classify_lone(&mt, tabs, n, r);
  if (mt.ng) {
    if (!(w.gr = fa_malloc(a, mt.ne * sizeof *w.gr)) ||
        !(w.spreads = fa_malloc(a, mt.ne * sizeof(int64_t))))
      goto oom;
    for (size_t i = 0; i < n; i++) r->r[i].offset = mt.kpass[i] ? mt.off[i] : FSDPA_ABSENT;
    measure(&mt, &w, r, p->end_tol_ns);
    r->unaligned_groups = r->matched - r->groups - r->unsync;
    if (w.nspreads) {
      qsort(w.spreads, w.nspreads, sizeof(int64_t), cmp_i64p);
      r->spread_p50 = w.spreads[(w.nspreads - 1) / 2];
      r->spread_max = w.spreads[w.nspreads - 1];
    }
    if (by_step(a, &w, r, p)) goto oom;
    pick_straggler(r, p);
  }
  goto done;
oom:
  st = fa_fail_status(a);
  xr_result_free(a, r);
done:
  fa_free(a, w.gr, mt.ne * sizeof *w.gr);
  fa_free(a, w.spreads, mt.ne * sizeof(int64_t));
  xr_match_free(a, &mt, tabs, n);
  fa_free(a, tabs, n * sizeof *tabs);
  return st;
}

fsdpa_status xr_run_ctxs(fsdpa_ctx *const *ctxs, const int64_t *ranks, size_t n, xr_result *out) {
  memset(out, 0, sizeof *out);
  out->ref_idx = out->straggler_idx = -1;
  if (!n) return FSDPA_OK;
  fa_alloc *a = &ctxs[0]->alloc;
  xr_table *tabs = fa_calloc(a, n * sizeof *tabs);
  if (!tabs) return fa_fail_status(a);
  fsdpa_status st = FSDPA_OK;
  for (size_t i = 0; i < n && !st; i++) {
    int64_t rk = ranks ? ranks[i]
                       : ctxs[i]->info.rank != FSDPA_ABSENT ? ctxs[i]->info.rank : (int64_t)i;
    st = xr_extract(a, ctxs[i], rk, &tabs[i]);
  }
  if (!st) {
    /* the parameters of the lowest rank, like the report's (its contexts in rank order) */
    size_t lo = 0;
    for (size_t i = 1; i < n; i++)
      if (tabs[i].rank < tabs[lo].rank) lo = i;
    xr_params p;
    xr_params_from(ctxs[lo]->params, &p);
    st = xr_analyze(a, tabs, n, &p, out);
  }
  for (size_t i = 0; i < n; i++) xr_table_free(a, &tabs[i]);
  fa_free(a, tabs, n * sizeof *tabs);
  return st;
}

fsdpa_status crossrank_run(fsdpa_ctx *const *ctxs, const int64_t *ranks, size_t n, xr_result **out) {
  *out = NULL;
  if (n < 2) return FSDPA_OK;
  fa_alloc *a = &ctxs[0]->alloc;
  xr_result *r = fa_malloc(a, sizeof *r);
  if (!r) return fa_fail_status(a);
  fsdpa_status st = xr_run_ctxs(ctxs, ranks, n, r);
  if (st) {
    xr_result_free(a, r);
    fa_free(a, r, sizeof *r);
    return st;
  }
  *out = r;
  return FSDPA_OK;
}

void crossrank_done(fsdpa_ctx *c0, xr_result *r) {
  if (!r) return;
  xr_result_free(&c0->alloc, r);
  fa_free(&c0->alloc, r, sizeof *r);
}
