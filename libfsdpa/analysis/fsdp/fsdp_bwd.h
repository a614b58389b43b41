/* Private to the backward analysis: the per-step schedule (backward.c)
 * and its report section and finding (fsdp_bwd_report.c). */
#ifndef FSDPA_ANALYSIS_FSDP_BWD_H
#define FSDPA_ANALYSIS_FSDP_BWD_H
#include "model/fsdp_model.h"
#include "analysis/fsdp/pattern.h"

/* The zigzag pattern text (docs/patterns.md section 4). */
extern const char BW_PATTERN[];

typedef struct bw_unit {
  uint32_t inst;
  int prefetched;   /* PAT_HOLDS / PAT_BROKEN / PAT_NA */
  int rs_hidden;
  int64_t idle;     /* ABSENT when not evaluated */
  iv gap;           /* the compute gap of a broken link (relative) */
} bw_unit;

typedef struct bw_step {
  int32_t step;     /* model step index, -1 none */
  int pattern;
  size_t u0, nu;    /* units[u0 .. u0+nu) */
  uint64_t links, prefetched, rs_hidden;
  int64_t idle;
  int64_t s, e;
  double overlap_pct;
} bw_step;

typedef struct bw_result {
  fsdp_model m;
  bw_unit *units;
  size_t nunits;
  bw_step *steps;
  size_t nsteps;
  int pattern;
  int borrowed;     /* a view of the context's cached result: bw_free only forgets it */
} bw_result;

/* Per unit over all steps. */
typedef struct bw_agg {
  int seen;
  int prefetched;      /* PAT_NA until evaluated; PAT_BROKEN once any step broke it */
  uint64_t broken;
  int64_t idle;        /* Σ idle of broken links into the unit */
  int64_t worst_idle;
} bw_agg;

/* Whole-trace result, computed once per store generation and kept in the
 * context (CACHE_BACKWARD); *r is a read-only view until bw_free(r). */
fsdpa_status bw_analyze(fsdpa_ctx *c, bw_result *r);
void bw_free(bw_result *r);
/* Per unit over all steps; *out has r->m.nunits entries (NULL if none). */
fsdpa_status bw_aggregate(const bw_result *r, bw_agg **out);
void bw_summary(const bw_result *r, const bw_agg *g, fsdpa_backward *o);
int64_t bw_step_number(const fsdp_model *m, int32_t k);
void bw_step_public(fsdpa_ctx *c, const bw_result *r, const bw_step *bs, fsdpa_backward_step *o);
void bw_unit_public(fsdpa_ctx *c, const bw_result *r, size_t k, uint32_t pos, fsdpa_backward_unit *o);
#endif
