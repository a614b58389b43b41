/* Cross-rank matching, clock alignment and the transfer/wait split.
 *
 * A collective is identified across ranks by (process group, Seq) when the
 * trace records Seq, else by (process group, type, step, ordinal of that type
 * in that step): ranks issue the collectives of a process group in the same
 * order.  Send/recv fold into one class so a send matches its recv.  Clocks
 * need not agree: all ranks leave a collective together, so a rank's offset
 * is the median over shared collectives of its end minus the reference's. */
#include "analysis/crossrank/crossrank_table.h"
#include <stdlib.h>
#include <string.h>
#include "util/satmath.h"

typedef struct ent {
  uint32_t ri, ci;
  int32_t gpg, cls;
  int32_t kind;      /* 0: by Seq, 1: by ordinal */
  int32_t pad;
  int64_t k3, k4;    /* seq, 0 | step, ordinal */
  int64_t start;
} ent;

typedef struct member {
  uint32_t ri;
  int32_t type;
  int64_t step, s, e, bytes;
} member;

typedef struct group {
  size_t first, n;   /* into members */
  int kind;
} group;

static int cls_of(int type) {
  return type == COLL_SEND || type == COLL_RECV ? COLL_SENDRECV : type;
}

static int cmp_i64(int64_t a, int64_t b) { return a < b ? -1 : a > b; }

static int cmp_key(const ent *a, const ent *b) {
  int c;
  if ((c = cmp_i64(a->kind, b->kind))) return c;
  if ((c = cmp_i64(a->gpg, b->gpg))) return c;
  if ((c = cmp_i64(a->cls, b->cls))) return c;
  if ((c = cmp_i64(a->k3, b->k3))) return c;
  return cmp_i64(a->k4, b->k4);
}

static int cmp_ent(const void *pa, const void *pb) {
  const ent *a = pa, *b = pb;
  int c = cmp_key(a, b);
  if (c) return c;
  if ((c = cmp_i64(a->ri, b->ri))) return c;
  if ((c = cmp_i64(a->start, b->start))) return c;
  return cmp_i64(a->ci, b->ci);
}

/* ordinal assignment: (gpg, cls, step, start, end, index) */
typedef struct oitem {
  int32_t gpg, cls;
  int64_t step, start, end;
  uint32_t ci;
} oitem;

static int cmp_oitem(const void *pa, const void *pb) {
  const oitem *a = pa, *b = pb;
  int c;
  if ((c = cmp_i64(a->gpg, b->gpg))) return c;
  if ((c = cmp_i64(a->cls, b->cls))) return c;
  if ((c = cmp_i64(a->step, b->step))) return c;
  if ((c = cmp_i64(a->start, b->start))) return c;
  if ((c = cmp_i64(a->end, b->end))) return c;
  return cmp_i64(a->ci, b->ci);
}

typedef struct diff {
  uint32_t ri;
  int64_t d;
} diff;

static int cmp_diff(const void *pa, const void *pb) {
  const diff *a = pa, *b = pb;
  int c = cmp_i64(a->ri, b->ri);
  return c ? c : cmp_i64(a->d, b->d);
}

static int cmp_i64p(const void *pa, const void *pb) {
  return cmp_i64(*(const int64_t *)pa, *(const int64_t *)pb);
}

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

static int cmp_gres_step(const void *pa, const void *pb) {
  const gres *a = pa, *b = pb;
  int c = cmp_i64(a->step, b->step);
  return c ? c : cmp_i64((int64_t)a->gi, (int64_t)b->gi);
}

void xr_result_free(fa_alloc *a, xr_result *r) {
  fa_free(a, r->r, r->nranks * sizeof *r->r);
  fa_free(a, r->s, r->nsteps * sizeof *r->s);
  r->r = NULL;
  r->s = NULL;
  r->nsteps = 0;
}

/* Global ids for process-group names across tables. */
typedef struct pgmap {
  const char **s;
  size_t *n;
  size_t count, cap;
  int32_t **local;   /* per table: local pg index -> global id */
} pgmap;

static void pgmap_free(fa_alloc *a, pgmap *m, const xr_table *tabs, size_t nt) {
  for (size_t i = 0; m->local && i < nt; i++)
    fa_free(a, m->local[i], tabs[i].pgs.len * sizeof(int32_t));
  fa_free(a, m->local, nt * sizeof(int32_t *));
  fa_free(a, m->s, m->cap * sizeof(char *));
  fa_free(a, m->n, m->cap * sizeof(size_t));
}

static int pgmap_build(fa_alloc *a, pgmap *m, const xr_table *tabs, size_t nt) {
  memset(m, 0, sizeof *m);
  size_t total = 0;
  for (size_t i = 0; i < nt; i++) total += tabs[i].pgs.len;
  m->cap = total;
  if (!(m->local = fa_calloc(a, nt * sizeof(int32_t *)))) return -1;
  if (total && (!(m->s = fa_malloc(a, total * sizeof(char *))) ||
                !(m->n = fa_malloc(a, total * sizeof(size_t)))))
    return -1;
  for (size_t i = 0; i < nt; i++) {
    size_t np = tabs[i].pgs.len;
    if (!np) continue;
    if (!(m->local[i] = fa_malloc(a, np * sizeof(int32_t)))) return -1;
    for (size_t k = 0; k < np; k++) {
      size_t len;
      const char *s = xr_pg_str(&tabs[i], (int32_t)k, &len);
      size_t g = 0;
      while (g < m->count && !(m->n[g] == len && (len == 0 || !memcmp(m->s[g], s, len)))) g++;
      if (g == m->count) {
        m->s[g] = s;
        m->n[g] = len;
        m->count++;
      }
      m->local[i][k] = (int32_t)g;
    }
  }
  return 0;
}

typedef struct work {
  pgmap pm;
  ent *e;
  size_t ne;
  member *m;
  size_t nm;
  group *g;
  size_t ng;
  gres *gr;
  size_t ngr;
  oitem *oi;
  size_t noi;
  diff *d;
  int64_t *kpass, *off, *spreads;
  size_t nspreads;
} work;

static void work_free(fa_alloc *a, work *w, const xr_table *tabs, size_t n) {
  pgmap_free(a, &w->pm, tabs, n);
  fa_free(a, w->e, w->ne * sizeof *w->e);
  fa_free(a, w->m, w->ne * sizeof *w->m);
  fa_free(a, w->g, w->ne * sizeof *w->g);
  fa_free(a, w->gr, w->ne * sizeof *w->gr);
  fa_free(a, w->oi, w->noi * sizeof *w->oi);
  fa_free(a, w->d, w->ne * sizeof *w->d);
  fa_free(a, w->kpass, n * sizeof(int64_t));
  fa_free(a, w->off, n * sizeof(int64_t));
  fa_free(a, w->spreads, w->ne * sizeof(int64_t));
}

/* Entries with their matching keys. */
static int build_entries(fa_alloc *a, work *w, const xr_table *tabs, size_t n) {
  size_t ne = 0, maxc = 0;
  for (size_t i = 0; i < n; i++) {
    ne += tabs[i].colls.len;
    if (tabs[i].colls.len > maxc) maxc = tabs[i].colls.len;
  }
  w->ne = ne;
  w->noi = maxc;
  if (!ne) return 0;
  if (!(w->e = fa_malloc(a, ne * sizeof *w->e)) || !(w->oi = fa_malloc(a, maxc * sizeof *w->oi)))
    return -1;
  size_t k = 0;
  for (size_t i = 0; i < n; i++) {
    const xr_table *t = &tabs[i];
    size_t no = 0;
    for (size_t c = 0; c < t->colls.len; c++) {
      const xr_coll *x = &FA_VEC_AT(&t->colls, xr_coll, c);
      int32_t gpg = x->pg >= 0 && (size_t)x->pg < t->pgs.len ? w->pm.local[i][x->pg] : -1;
      ent *e = &w->e[k++];
      memset(e, 0, sizeof *e);
      e->ri = (uint32_t)i;
      e->ci = (uint32_t)c;
      e->gpg = gpg;
      e->start = x->start;
      if (x->seq != FSDPA_ABSENT) {
        e->kind = 0;
        e->cls = cls_of(x->type) == COLL_SENDRECV;  /* p2p and collective seqs may repeat */
        e->k3 = x->seq;
      } else {
        e->kind = 1;
        e->cls = cls_of(x->type);
        e->k3 = x->step;
        w->oi[no++] = (oitem){gpg, e->cls, x->step, x->start, x->end, (uint32_t)(k - 1)};
      }
    }
    /* ordinals within (pg, class, step), in start order */
    qsort(w->oi, no, sizeof *w->oi, cmp_oitem);
    int64_t ord = 0;
    for (size_t j = 0; j < no; j++) {
      if (j && (w->oi[j].gpg != w->oi[j - 1].gpg || w->oi[j].cls != w->oi[j - 1].cls ||
                w->oi[j].step != w->oi[j - 1].step))
        ord = 0;
      w->e[w->oi[j].ci].k4 = ord++;
    }
  }
  qsort(w->e, ne, sizeof *w->e, cmp_ent);
  return 0;
}

/* Runs of equal keys become groups (one member per rank) when at least two
 * ranks have them. */
static int build_groups(fa_alloc *a, work *w, const xr_table *tabs, xr_result *r) {
  if (!w->ne) return 0;
  if (!(w->m = fa_malloc(a, w->ne * sizeof *w->m)) || !(w->g = fa_malloc(a, w->ne * sizeof *w->g)))
    return -1;
  for (size_t i = 0; i < w->ne;) {
    size_t j = i + 1;
    while (j < w->ne && !cmp_key(&w->e[i], &w->e[j])) j++;
    size_t first = w->nm, nranks = 0;
    for (size_t k = i; k < j; k++) {
      const ent *e = &w->e[k];
      const xr_coll *x = &FA_VEC_AT(&tabs[e->ri].colls, xr_coll, e->ci);
      member *last = w->nm > first ? &w->m[w->nm - 1] : NULL;
      if (last && last->ri == e->ri) {  /* several kernels of one collective on a rank */
        if (x->start < last->s) last->s = x->start;
        if (x->end > last->e) last->e = x->end;
        if (x->bytes != FSDPA_ABSENT && (last->bytes == FSDPA_ABSENT || x->bytes > last->bytes))
          last->bytes = x->bytes;
        if (last->step == FSDPA_ABSENT) last->step = x->step;
        continue;
      }
      w->m[w->nm++] = (member){e->ri, x->type, x->step, x->start, x->end, x->bytes};
      nranks++;
    }
    if (nranks >= 2) {
      w->g[w->ng++] = (group){first, nranks, w->e[i].kind};
    } else {
      r->unmatched += j - i;
      w->nm = first;
    }
    i = j;
  }
  return 0;
}

/* Offsets: the reference rank (in most groups) has 0; a rank sharing groups
 * with already aligned ranks gets the median of its end minus theirs. */
static int align(fa_alloc *a, work *w, size_t n, xr_result *r) {
  if (!(w->kpass = fa_calloc(a, n * sizeof(int64_t))) || !(w->off = fa_calloc(a, n * sizeof(int64_t))))
    return -1;
  if (!w->ng) return 0;
  if (!(w->d = fa_malloc(a, w->ne * sizeof *w->d))) return -1;
  int64_t *cnt = w->off;  /* reuse as counters before offsets are set */
  for (size_t gi = 0; gi < w->ng; gi++)
    for (size_t k = 0; k < w->g[gi].n; k++) cnt[w->m[w->g[gi].first + k].ri]++;
  size_t ref = 0;
  for (size_t i = 1; i < n; i++)
    if (cnt[i] > cnt[ref]) ref = i;
  memset(w->off, 0, n * sizeof(int64_t));
  r->ref_idx = (int64_t)ref;
  w->kpass[ref] = 1;
  for (int64_t pass = 2;; pass++) {
    size_t nd = 0;
    for (size_t gi = 0; gi < w->ng; gi++) {
      const member *m = &w->m[w->g[gi].first];
      size_t gn = w->g[gi].n;
      const member *anchor = NULL;
      for (size_t k = 0; k < gn; k++) {
        int64_t kp = w->kpass[m[k].ri];
        if (kp < 1 || kp >= pass) continue;
        if (m[k].ri == ref) { anchor = &m[k]; break; }
        if (!anchor || m[k].ri < anchor->ri) anchor = &m[k];
      }
      if (!anchor) continue;
      int64_t base = anchor->e - w->off[anchor->ri];
      for (size_t k = 0; k < gn; k++)
        if (!w->kpass[m[k].ri]) w->d[nd++] = (diff){m[k].ri, m[k].e - base};
    }
    if (!nd) break;
    qsort(w->d, nd, sizeof *w->d, cmp_diff);
    for (size_t i = 0; i < nd;) {
      size_t j = i;
      while (j < nd && w->d[j].ri == w->d[i].ri) j++;
      w->off[w->d[i].ri] = w->d[i + (j - i - 1) / 2].d;  /* lower median: exact integer */
      w->kpass[w->d[i].ri] = pass;
      i = j;
    }
  }
  return 0;
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

static void measure(work *w, xr_result *r, int64_t end_tol) {
  for (size_t gi = 0; gi < w->ng; gi++) {
    member *m = &w->m[w->g[gi].first];
    size_t gn = w->g[gi].n, kept = 0;
    for (size_t k = 0; k < gn; k++) {  /* drop ranks that could not be aligned */
      if (!w->kpass[m[k].ri]) { r->unaligned++; continue; }
      m[kept++] = m[k];
    }
    w->g[gi].n = kept;
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
      int64_t s = m[k].s - w->off[m[k].ri], e = m[k].e - w->off[m[k].ri];
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
    if (w->g[gi].kind == 0) r->by_seq = 1;
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
        int64_t s = m[k].s - w->off[m[k].ri];
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
      add_worst(rr, g.win_s + w->off[g.last_ri], g.last_s);
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
static int by_step(fa_alloc *a, work *w, xr_result *r, const xr_params *p) {
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

fsdpa_status xr_analyze(fa_alloc *a, const xr_table *tabs, size_t n, const xr_params *p,
                        xr_result *r) {
  memset(r, 0, sizeof *r);
  r->ref_idx = -1;
  r->straggler_idx = -1;
  r->spread_p50 = r->spread_max = FSDPA_ABSENT;
  for (int t = 0; t < COLL__COUNT; t++) r->t[t].bytes = FSDPA_ABSENT;
  r->nranks = n;
  r->min_delay = p->min_delay_ns;
  if (!n) return FSDPA_OK;
  if (!(r->r = fa_calloc(a, n * sizeof *r->r))) return fa_fail_status(a);
  for (size_t i = 0; i < n; i++) {
    r->r[i].rank = tabs[i].rank;
    r->r[i].offset = FSDPA_ABSENT;
  }
  if (n < 2) return FSDPA_OK;
  work w;
  memset(&w, 0, sizeof w);
  fsdpa_status st = FSDPA_OK;
  if (pgmap_build(a, &w.pm, tabs, n) || build_entries(a, &w, tabs, n) ||
      build_groups(a, &w, tabs, r) || align(a, &w, n, r))
    goto oom;
  if (w.ng) {
    if (!(w.gr = fa_malloc(a, w.ne * sizeof *w.gr)) ||
        !(w.spreads = fa_malloc(a, w.ne * sizeof(int64_t))))
      goto oom;
    for (size_t i = 0; i < n; i++) r->r[i].offset = w.kpass[i] ? w.off[i] : FSDPA_ABSENT;
    measure(&w, r, p->end_tol_ns);
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
  work_free(a, &w, tabs, n);
  return st;
}
