/* Cross-rank matching and clock alignment.
 *
 * A collective is identified across ranks by (process group, Seq) when the
 * trace records Seq, else by (process group, type, step, ordinal of that type
 * in that step): ranks issue the collectives of a process group in the same
 * order.  Send/recv fold into one class so a send matches its recv.  Clocks
 * need not agree: all ranks leave a collective together, so a rank's offset
 * is the lower median over shared collectives of its end minus the
 * reference's. */
#include "analysis/crossrank/crossrank_impl.h"
#include <stdlib.h>
#include <string.h>

/* one collective kernel with its matching key */
typedef struct xr_ent {
  uint32_t ri, ci;
  int32_t gpg, cls;
  int32_t kind;      /* 0: by Seq, 1: by ordinal */
  int32_t pad;
  int64_t k3, k4;    /* seq, 0 | step, ordinal */
  int64_t start;
} ent;

static int cls_of(int type) {
  return type == COLL_SEND || type == COLL_RECV ? COLL_SENDRECV : type;
}

static int cmp_key(const ent *a, const ent *b) {
  int c;
  if ((c = xr_cmp_i64(a->kind, b->kind))) return c;
  if ((c = xr_cmp_i64(a->gpg, b->gpg))) return c;
  if ((c = xr_cmp_i64(a->cls, b->cls))) return c;
  if ((c = xr_cmp_i64(a->k3, b->k3))) return c;
  return xr_cmp_i64(a->k4, b->k4);
}

static int cmp_ent(const void *pa, const void *pb) {
  const ent *a = pa, *b = pb;
  int c = cmp_key(a, b);
  if (c) return c;
  if ((c = xr_cmp_i64(a->ri, b->ri))) return c;
  if ((c = xr_cmp_i64(a->start, b->start))) return c;
  return xr_cmp_i64(a->ci, b->ci);
}

/* ordinal assignment: (gpg, cls, step, start, end, index) */
typedef struct xr_oitem {
  int32_t gpg, cls;
  int64_t step, start, end;
  uint32_t ci;
} oitem;

static int cmp_oitem(const void *pa, const void *pb) {
  const oitem *a = pa, *b = pb;
  int c;
  if ((c = xr_cmp_i64(a->gpg, b->gpg))) return c;
  if ((c = xr_cmp_i64(a->cls, b->cls))) return c;
  if ((c = xr_cmp_i64(a->step, b->step))) return c;
  if ((c = xr_cmp_i64(a->start, b->start))) return c;
  if ((c = xr_cmp_i64(a->end, b->end))) return c;
  return xr_cmp_i64(a->ci, b->ci);
}

typedef struct xr_diff {
  uint32_t ri;
  int64_t d;
} diff;

static int cmp_diff(const void *pa, const void *pb) {
  const diff *a = pa, *b = pb;
  int c = xr_cmp_i64(a->ri, b->ri);
  return c ? c : xr_cmp_i64(a->d, b->d);
}

static void pgmap_free(fa_alloc *a, xr_pgmap *m, const xr_table *tabs, size_t nt) {
  for (size_t i = 0; m->local && i < nt; i++)
    fa_free(a, m->local[i], tabs[i].pgs.len * sizeof(int32_t));
  fa_free(a, m->local, nt * sizeof(int32_t *));
  fa_free(a, m->s, m->cap * sizeof(char *));
  fa_free(a, m->n, m->cap * sizeof(size_t));
}

static int pgmap_build(fa_alloc *a, xr_pgmap *m, const xr_table *tabs, size_t nt) {
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

static int build_entries(fa_alloc *a, xr_match *w, const xr_table *tabs, size_t n) {
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
static int build_groups(fa_alloc *a, xr_match *w, const xr_table *tabs, xr_result *r) {
  if (!w->ne) return 0;
  if (!(w->m = fa_malloc(a, w->ne * sizeof *w->m)) || !(w->g = fa_malloc(a, w->ne * sizeof *w->g)) ||
      !(w->lone = fa_malloc(a, w->ne * sizeof *w->lone)))
    return -1;
  for (size_t i = 0; i < w->ne;) {
    size_t j = i + 1;
    while (j < w->ne && !cmp_key(&w->e[i], &w->e[j])) j++;
    size_t first = w->nm, nranks = 0;
    for (size_t k = i; k < j; k++) {
      const ent *e = &w->e[k];
      const xr_coll *x = &FA_VEC_AT(&tabs[e->ri].colls, xr_coll, e->ci);
      xr_member *last = w->nm > first ? &w->m[w->nm - 1] : NULL;
      if (last && last->ri == e->ri) {  /* several kernels of one collective on a rank */
        if (x->start < last->s) last->s = x->start;
        if (x->end > last->e) last->e = x->end;
        if (x->bytes != FSDPA_ABSENT && (last->bytes == FSDPA_ABSENT || x->bytes > last->bytes))
          last->bytes = x->bytes;
        if (last->step == FSDPA_ABSENT) last->step = x->step;
        continue;
      }
      w->m[w->nm++] = (xr_member){e->ri, x->type, x->step, x->start, x->end, x->bytes};
      nranks++;
    }
    r->seen++;
    if (nranks >= 2) {
      w->g[w->ng++] = (xr_group){first, nranks, w->e[i].kind};
      r->matched++;
    } else {
      const xr_member *o = &w->m[first];
      w->lone[w->nlone++] = (xr_lone){o->ri, w->e[i].kind, o->s, o->e};
      r->unmatched += j - i;
      w->nm = first;
    }
    i = j;
  }
  return 0;
}

/* Offsets: the reference rank (in most groups; the lowest rank on a tie,
 * the tables being in rank order) has 0; a rank sharing groups with already
 * aligned ranks gets the lower median of its end minus theirs: over an even
 * count the smaller middle value, an observed difference in exact integer ns.
 * Each group's anchor is the reference when it takes part, else its lowest
 * aligned rank, so the differences, hence the medians, depend only on the
 * ranks and not on the order of the tables. */
static int align(fa_alloc *a, xr_match *w, size_t n, xr_result *r) {
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
      const xr_member *m = &w->m[w->g[gi].first];
      size_t gn = w->g[gi].n;
      const xr_member *anchor = NULL;
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

int xr_match_run(fa_alloc *a, xr_match *mt, const xr_table *tabs, size_t n, xr_result *r) {
  if (pgmap_build(a, &mt->pm, tabs, n) || build_entries(a, mt, tabs, n) ||
      build_groups(a, mt, tabs, r) || align(a, mt, n, r))
    return -1;
  return 0;
}

void xr_match_free(fa_alloc *a, xr_match *mt, const xr_table *tabs, size_t n) {
  pgmap_free(a, &mt->pm, tabs, n);
  fa_free(a, mt->e, mt->ne * sizeof *mt->e);
  fa_free(a, mt->m, mt->ne * sizeof *mt->m);
  fa_free(a, mt->g, mt->ne * sizeof *mt->g);
  fa_free(a, mt->lone, mt->ne * sizeof *mt->lone);
  fa_free(a, mt->oi, mt->noi * sizeof *mt->oi);
  fa_free(a, mt->d, mt->ne * sizeof *mt->d);
  fa_free(a, mt->kpass, n * sizeof(int64_t));
  fa_free(a, mt->off, n * sizeof(int64_t));
}
