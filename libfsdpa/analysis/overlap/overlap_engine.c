/* Communication / computation overlap: HTA's comm_comp_overlap computed
 * exactly in ns over the kernel sets of a window (model/kernel_sets.h), per
 * collective type and per process group, with achieved NCCL bus bandwidth. */
#include "analysis/overlap/overlap_impl.h"
#include "util/sort.h"
#include "events/classify.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "util/satmath.h"

fsdpa_status overlap_gather_trace(fsdpa_ctx *c, const store_views **v, ks_data *d) {
  *v = ctx_views(c);
  if (!*v) return fa_fail_status(&c->alloc);
  qwin win = {INT64_MIN, INT64_MAX, FSDPA_ABSENT, FSDPA_ABSENT};
  return ks_gather(c, *v, &win, d);
}

void overlap_fill(const ks_data *d, fsdpa_overlap *o) {
  memset(o, 0, sizeof *o);
  o->size = sizeof *o;
  o->compute_ns = iv_total(d->comp, d->ncomp);
  o->compute_kernels = d->comp_kernels;
  o->comm_kernels = d->nents;
  if (!d->nents) {
    o->comm_ns = o->overlap_ns = o->exposed_comm_ns = FSDPA_ABSENT;
    o->overlap_pct = -1.0;
    return;
  }
  o->comm_ns = iv_total(d->comm, d->ncomm);
  o->overlap_ns = iv_intersect_len(d->comm, d->ncomm, d->comp, d->ncomp);
  o->exposed_comm_ns = o->comm_ns - o->overlap_ns;
  o->overlap_pct = o->comm_ns > 0 ? 100.0 * (double)o->overlap_ns / (double)o->comm_ns : -1.0;
}

void overlap_in_range(const ks_data *d, const overlap_ivs *both, int64_t t0, int64_t t1,
                      fsdpa_overlap *o) {
  memset(o, 0, sizeof *o);
  o->size = sizeof *o;
  int64_t comm = iv_len_in(d->comm, d->ncomm, t0, t1);
  int64_t ovl = iv_len_in(both->v, both->n, t0, t1);
  o->comm_ns = d->nents ? comm : FSDPA_ABSENT;
  o->compute_ns = iv_len_in(d->comp, d->ncomp, t0, t1);
  o->overlap_ns = d->nents ? ovl : FSDPA_ABSENT;
  o->exposed_comm_ns = d->nents ? comm - ovl : FSDPA_ABSENT;
  o->overlap_pct = d->nents && comm > 0 ? 100.0 * (double)ovl / (double)comm : -1.0;
}

/* ---- splits ---- */

static int acc_before(const store *s, int by, const split_acc *a, const split_acc *b) {
  if (!by) return a->key < b->key;
  return strcmp(store_name(s, a->pg), store_name(s, b->pg)) < 0;
}

fsdpa_status overlap_splits(fsdpa_ctx *c, const ks_data *d, int by, split_acc **out, size_t *nout) {
  fa_alloc *a = &c->alloc;
  *out = NULL;
  *nout = 0;
  if (!d->nents) return FSDPA_OK;
  /* sized for the worst case, one key per entry; the keys are few in practice */
  split_acc *acc = fa_calloc(a, d->nents * sizeof(split_acc));
  iv *tmp = fa_malloc(a, d->nents * sizeof(iv));
  if (!acc || !tmp) {
    fa_free(a, acc, d->nents * sizeof(split_acc));
    fa_free(a, tmp, d->nents * sizeof(iv));
    return fa_fail_status(a);
  }
  size_t nk = 0;
  for (size_t k = 0; k < d->nents; k++) {
    const ks_ent *e = &d->ents[k];
    size_t j = 0;
    for (; j < nk; j++)
      if (by ? acc[j].pg == e->pg : acc[j].key == e->coll) break;
    if (j == nk) {
      acc[nk].key = by ? (int)nk : e->coll;
      acc[nk].pg = e->pg;
      nk++;
    }
    split_acc *x = &acc[j];
    x->count++;
    if (e->bytes != FSDPA_ABSENT && e->dur > 0) {
      x->has_bytes = 1;
      x->bytes = sat_add(x->bytes, e->bytes);
      x->timed_ns = sat_add(x->timed_ns, e->dur);
      x->bus_bytes = sat_add(x->bus_bytes, e->bus_bytes == FSDPA_ABSENT ? 0 : e->bus_bytes);
    }
  }
  for (size_t j = 0; j < nk; j++) {
    size_t m = 0;
    for (size_t k = 0; k < d->nents; k++) {
      const ks_ent *e = &d->ents[k];
      if (by ? acc[j].pg == e->pg : acc[j].key == e->coll) tmp[m++] = (iv){e->s, e->e};
    }
    m = iv_union(tmp, m);
    acc[j].comm_ns = iv_total(tmp, m);
    acc[j].overlap_ns = iv_intersect_len(tmp, m, d->comp, d->ncomp);
  }
  /* keys are few (collective types, process groups): insertion sort */
  for (size_t i = 1; i < nk; i++) {
    split_acc x = acc[i];
    size_t j = i;
    while (j > 0 && acc_before(&c->st, by, &x, &acc[j - 1])) {
      acc[j] = acc[j - 1];
      j--;
    }
    acc[j] = x;
  }
  fa_free(a, tmp, d->nents * sizeof(iv));
  *out = acc;
  *nout = nk;
  return FSDPA_OK;
}

void overlap_splits_free(fsdpa_ctx *c, const ks_data *d, split_acc *acc) {
  fa_free(&c->alloc, acc, d->nents * sizeof(split_acc));
}

void overlap_split_public(const fsdpa_ctx *c, const split_acc *x, int by, fsdpa_comm_split *o) {
  memset(o, 0, sizeof *o);
  o->size = sizeof *o;
  const char *nm = by ? (x->pg == INTERN_NONE ? "" : store_name(&c->st, x->pg)) : coll_type_name(x->key);
  snprintf(o->name, sizeof o->name, "%s", nm);
  o->count = x->count;
  o->comm_ns = x->comm_ns;
  o->overlap_ns = x->overlap_ns;
  o->exposed_ns = x->comm_ns - x->overlap_ns;
  o->bytes = x->has_bytes ? x->bytes : FSDPA_ABSENT;
  o->timed_ns = x->has_bytes ? x->timed_ns : FSDPA_ABSENT;
  o->algbw_gbps = x->has_bytes && x->timed_ns > 0 ? (double)x->bytes / (double)x->timed_ns : -1.0;
  o->busbw_gbps = x->has_bytes && x->timed_ns > 0 && x->bus_bytes > 0
                      ? (double)x->bus_bytes / (double)x->timed_ns
                      : -1.0;
}

/* ---- interval lists ---- */

fsdpa_status overlap_both(fsdpa_ctx *c, const ks_data *d, overlap_ivs *out) {
  out->v = NULL;
  out->n = 0;
  out->cap = d->ncomm + d->ncomp;
  if (out->cap && !(out->v = fa_malloc(&c->alloc, out->cap * sizeof(iv)))) return fa_fail_status(&c->alloc);
  out->n = iv_intersect(d->comm, d->ncomm, d->comp, d->ncomp, out->v);
  return FSDPA_OK;
}

static int cmp_len_desc(const void *pa, const void *pb) {
  const iv *a = pa, *b = pb;
  int64_t la = a->e - a->s, lb = b->e - b->s;
  if (la != lb) return la > lb ? -1 : 1;
  return a->s < b->s ? -1 : a->s > b->s;
}

fsdpa_status overlap_exposed(fsdpa_ctx *c, const ks_data *d, overlap_ivs *out) {
  out->n = 0;
  out->cap = d->ncomm + d->ncomp;
  if (!(out->v = fa_malloc(&c->alloc, out->cap * sizeof(iv)))) return fa_fail_status(&c->alloc);
  out->n = iv_subtract(d->comm, d->ncomm, d->comp, d->ncomp, out->v);
  qsort(out->v, out->n, sizeof *out->v, cmp_len_desc);
  return FSDPA_OK;
}

typedef struct wkey {
  int32_t coll;
  uint32_t pg;
  int64_t bytes, dur;
  size_t i;
} wkey;
#define WK_LESS(a, b)                                                                                  \
  ((a)->coll != (b)->coll ? (a)->coll < (b)->coll : (a)->pg != (b)->pg ? (a)->pg < (b)->pg             \
   : (a)->bytes != (b)->bytes ? (a)->bytes < (b)->bytes : (a)->dur != (b)->dur ? (a)->dur < (b)->dur    \
                                                        : (a)->i < (b)->i)
FA_SORT_DEFINE(sort_wkey, wkey, WK_LESS)

fsdpa_status overlap_wait(fsdpa_ctx *c, const ks_data *d, ov_wait *out) {
  memset(out, 0, sizeof *out);
  size_t n = 0;
  for (size_t i = 0; i < d->nents; i++) n += d->ents[i].bytes != FSDPA_ABSENT && d->ents[i].e > d->ents[i].s;
  if (n < 2) return FSDPA_OK;
  wkey *k = fa_malloc(&c->alloc, n * sizeof *k);
  iv *wt = fa_malloc(&c->alloc, n * sizeof *wt), *cm = fa_malloc(&c->alloc, n * sizeof *cm);
  size_t cap = n + d->ncomp;
  iv *tmp = fa_malloc(&c->alloc, cap * sizeof *tmp);
  fsdpa_status st = FSDPA_OK;
  if (!k || !wt || !cm || !tmp) {
    st = fa_fail_status(&c->alloc);
    goto out;
  }
  size_t m = 0;
  for (size_t i = 0; i < d->nents; i++) {
    const ks_ent *e = &d->ents[i];
    if (e->bytes != FSDPA_ABSENT && e->e > e->s) k[m++] = (wkey){e->coll, e->pg, e->bytes, e->dur, i};
  }
  sort_wkey(k, m);
  size_t nw = 0, nc = 0;
  for (size_t a = 0; a < m;) {
    size_t b = a + 1;
    while (b < m && k[b].coll == k[a].coll && k[b].pg == k[a].pg && k[b].bytes == k[a].bytes) b++;
    if (b - a >= 2) {
      int64_t fast = k[a].dur;  /* sorted by duration inside the group */
      out->groups++;
      if (fast > 0) {
        int64_t r = k[b - 1].dur / fast * 100 + (k[b - 1].dur % fast) * 100 / fast;
        if (r > out->worst_ratio_x100) out->worst_ratio_x100 = r;
      }
      for (size_t j = a; j < b; j++) {
        const ks_ent *e = &d->ents[k[j].i];
        out->kernels++;
        cm[nc++] = (iv){e->s, e->e};
        /* the wait comes first: the kernel spins until its peers arrive */
        int64_t we = e->s + (k[j].dur - fast);
        if (we > e->e) we = e->e;
        if (we > e->s) wt[nw++] = (iv){e->s, we};
      }
    }
    a = b;
  }
  nc = iv_union(cm, nc);
  nw = iv_union(wt, nw);
  out->judged_ns = iv_total(cm, nc);
  out->wait_ns = iv_total(wt, nw);
  /* exposed: outside every compute kernel */
  size_t ne = iv_subtract(cm, nc, d->comp, d->ncomp, tmp);
  out->exposed_ns = iv_total(tmp, ne);
  size_t nx = iv_subtract(wt, nw, d->comp, d->ncomp, tmp);
  out->exposed_wait_ns = iv_total(tmp, nx);
out:
  fa_free(&c->alloc, k, n * sizeof *k);
  fa_free(&c->alloc, wt, n * sizeof *wt);
  fa_free(&c->alloc, cm, n * sizeof *cm);
  fa_free(&c->alloc, tmp, cap * sizeof *tmp);
  return st;
}

void overlap_ivs_free(fsdpa_ctx *c, overlap_ivs *x) {
  fa_free(&c->alloc, x->v, x->cap * sizeof(iv));
  memset(x, 0, sizeof *x);
}
