/* Cross-rank collectives: clock alignment, waits, stragglers: the room's
 * interface for the report layer and summaries.
 *
 * Each rank contributes a small table of its collective kernels (what a
 * summary carries, so ranks can be analysed where their traces live); the
 * analysis matches the same collective across the tables, aligns the ranks'
 * clocks on collective end times and splits each collective into transfer
 * and wait.  The same code runs on tables extracted from contexts
 * (fsdpa_report) and on tables read back from summaries
 * (fsdpa_summary_report), which is what makes the two reports identical. */
#ifndef FSDPA_ANALYSIS_CROSSRANK_H
#define FSDPA_ANALYSIS_CROSSRANK_H
#include "ctx.h"
#include "util/jsonw.h"
#include "findings/findings.h"
#include "events/classify.h"
#include <string.h>

/* ---- the per-rank collective table (written to and read from summaries) ---- */

/* One collective kernel on one rank. */
typedef struct xr_coll {
  int64_t start, end;  /* absolute ns on the rank's own clock */
  int64_t seq;         /* args.Seq (kernel, else its record_param_comms), ABSENT if none */
  int64_t step;        /* ProfilerStep number whose CPU range holds the launch, ABSENT */
  int64_t bytes;       /* max(in, out msg nelems) x dtype size, ABSENT if unknown */
  int32_t pg;          /* index into the table's process-group names, -1 if none */
  int32_t type;        /* enum coll_type */
} xr_coll;

typedef struct xr_pgname {
  uint32_t off, len;   /* into pool */
} xr_pgname;

typedef struct xr_table {
  int64_t rank;        /* resolved rank (report order index if the trace has none) */
  fa_vec colls;        /* xr_coll, in extraction order */
  fa_vec pgs;          /* xr_pgname */
  fa_vec pool;         /* char: the process-group names */
} xr_table;

void xr_table_init(xr_table *t, int64_t rank);
void xr_table_free(fa_alloc *a, xr_table *t);
/* Index of a process-group name in t (added if new); -1 on allocation failure. */
int32_t xr_table_pg(fa_alloc *a, xr_table *t, const char *s, size_t n);
static inline const char *xr_pg_str(const xr_table *t, int32_t pg, size_t *n) {
  const xr_pgname *g = &FA_VEC_AT(&t->pgs, xr_pgname, pg);
  *n = g->len;
  return (const char *)t->pool.data + g->off;
}
/* Collective kernels of a context (events so far), allocated from a. */
fsdpa_status xr_extract(fa_alloc *a, fsdpa_ctx *c, int64_t rank, xr_table *t);

/* Thresholds of the straggler rule (params.def crossrank.*). */
typedef struct xr_params {
  int64_t min_delay_ns, end_tol_ns, min_steps, min_share_ppm, min_used_ppm;
} xr_params;

/* From a full parameter array (ctx->params, or a summary's). */
void xr_params_from(const int64_t *params, xr_params *p);
/* Parameters a summary carries: those named "crossrank.*". */
static inline int xr_param_in_summary(const char *name) { return !strncmp(name, "crossrank.", 10); }

/* ---- results (complete: a summary report holds one) ---- */

#define XR_WORST 4

typedef struct xr_rank_res {
  int64_t rank;
  size_t input;          /* index of its table in the caller's order */
  int64_t offset;        /* clock offset vs the reference rank, ABSENT if not alignable */
  uint64_t colls;        /* matched collectives this rank took part in */
  int64_t transfer, wait;
  uint64_t last_count;   /* matched collectives it started last (uniquely) */
  uint64_t late_steps;   /* steps in which it was the step's latest arriver */
  int64_t delay_sum, delay_max;  /* over late steps: its largest margin in the step */
  int64_t lost;          /* others' waiting for it: sum over its last collectives */
  iv worst[XR_WORST];    /* own clock: others' arrival .. its arrival, largest first */
  int nworst;
} xr_rank_res;

typedef struct xr_step_res {
  int64_t step;          /* ProfilerStep number, ABSENT = outside any step */
  uint64_t colls;
  int64_t transfer, wait, max_skew;
  int64_t last_idx;      /* rank index of the step's latest arriver, -1 none */
  int64_t last_delay;
} xr_step_res;

typedef struct xr_type_res {
  uint64_t count;
  int64_t transfer, wait, bytes;  /* bytes ABSENT if no collective of the type has sizes */
} xr_type_res;

/* Results are indexed in rank order (r[], ref_idx, straggler_idx, last_idx):
 * the tables are sorted by (rank, caller's index) first, so that every
 * choice the analysis makes on a tie falls on the lowest rank and nothing
 * depends on the order the caller gave the tables in. */
typedef struct xr_result {
  size_t nranks;
  int64_t ref_idx;       /* reference rank index, -1 if nothing matched */
  int by_seq, by_ordinal;
  uint64_t groups, unmatched, unaligned, unsync;
  /* collectives (identities, not kernels) seen on any rank, and why those
   * not measured were left out: found on one rank only (with Seq, without
   * Seq, or outside the window every aligned rank's trace covers), or
   * matched but with fewer than 2 aligned ranks; unsync is the rest */
  uint64_t seen, matched, lone_seq, lone_noseq, lone_clipped, unaligned_groups;
  int64_t transfer, wait, spread_p50, spread_max;
  uint64_t units;        /* steps (+ step-less collectives) with a matched collective */
  xr_rank_res *r;
  xr_step_res *s;
  size_t nsteps;
  xr_type_res t[COLL__COUNT];
  int64_t straggler_idx; /* -1 none */
  int64_t min_delay;     /* the rule's threshold, for the finding's text */
  int64_t min_used_ppm;  /* below this share of seen collectives measured, the verdict is weak */
} xr_result;

/* Run the analysis over n tables.  On failure returns the status and leaves
 * *out freeable. */
fsdpa_status xr_analyze(fa_alloc *a, const xr_table *tabs, size_t n, const xr_params *p,
                        xr_result *out);
void xr_result_free(fa_alloc *a, xr_result *r);

/* ---- report hooks ---- */

/* Run once per report over the contexts (*out NULL for fewer than two
 * ranks), then its findings and JSON from the same result. */
fsdpa_status crossrank_run(fsdpa_ctx *const *ctxs, const int64_t *ranks, size_t n, xr_result **out);
void crossrank_done(fsdpa_ctx *c0, xr_result *r);
/* The cross_rank section: exactly one JSON value, null without a result,
 * below two ranks or when nothing matched. */
void crossrank_json(const xr_result *r, jsonw *w);
/* The straggler-rank finding, if the rule fires (none without a result). */
fsdpa_status crossrank_findings(const xr_result *r, findings *f);
#endif
