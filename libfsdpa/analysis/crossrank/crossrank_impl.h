/* Private to the crossrank room: what its engine files share with each other
 * and with its query, report and findings files. */
#ifndef FSDPA_ANALYSIS_CROSSRANK_IMPL_H
#define FSDPA_ANALYSIS_CROSSRANK_IMPL_H
#include "analysis/crossrank/crossrank.h"

/* Extract every context's table and analyse them (the context path: the
 * report hook and the public queries).  *out is freeable on failure. */
fsdpa_status xr_run_ctxs(fsdpa_ctx *const *ctxs, const int64_t *ranks, size_t n, xr_result *out);

/* A rank's mean delay over the steps it was last in, ABSENT if none. */
static inline int64_t xr_mean_delay(const xr_rank_res *x) {
  return x->late_steps ? x->delay_sum / (int64_t)x->late_steps : FSDPA_ABSENT;
}

/* Three-way order of two integers, for the room's sorts. */
static inline int xr_cmp_i64(int64_t a, int64_t b) { return a < b ? -1 : a > b; }

/* ---- matching and clock alignment (crossrank_engine_match.c) ---- */

/* One rank's part of a matched collective (its kernels merged). */
typedef struct xr_member {
  uint32_t ri;
  int32_t type;
  int64_t step, s, e, bytes;
} xr_member;

/* A collective matched on at least two ranks. */
typedef struct xr_group {
  size_t first, n;   /* into members */
  int kind;          /* 0: matched by Seq, 1: by ordinal */
} xr_group;

/* A collective found on one rank only (its kernels merged), own clock. */
typedef struct xr_lone {
  uint32_t ri;
  int32_t kind;      /* 0: it has a Seq, 1: matched by ordinal */
  int64_t s, e;
} xr_lone;

/* Global ids for process-group names across tables. */
typedef struct xr_pgmap {
  const char **s;
  size_t *n;
  size_t count, cap;
  int32_t **local;   /* per table: local pg index -> global id */
} xr_pgmap;

typedef struct xr_match {
  xr_member *m;      /* groups' members; measuring drops the unaligned ones */
  size_t nm;
  xr_group *g;
  size_t ng;
  int64_t *kpass;    /* per rank: alignment pass, 0 = could not be aligned */
  int64_t *off;      /* per rank: clock offset vs the reference rank */
  size_t ne;         /* collectives over all tables: the bound of per-group arrays */
  xr_lone *lone;     /* collectives found on one rank only */
  size_t nlone;
  /* matching's own working arrays */
  xr_pgmap pm;
  struct xr_ent *e;
  struct xr_oitem *oi;
  size_t noi;
  struct xr_diff *d;
} xr_match;

/* Match the tables' collectives into groups and align the ranks' clocks;
 * counts r->unmatched, r->seen, r->matched and sets r->ref_idx.  The tables
 * must be in rank order (ties are broken by the lower index).  mt must be
 * zeroed before; it is freeable (xr_match_free) whatever this returns.  -1 on
 * allocation failure. */
int xr_match_run(fa_alloc *a, xr_match *mt, const xr_table *tabs, size_t n, xr_result *r);
void xr_match_free(fa_alloc *a, xr_match *mt, const xr_table *tabs, size_t n);
#endif
