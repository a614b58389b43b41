/* Comparing two runs (fsdpa_diff(), fsdpa.h group "diff"): each run is a
 * JSON report (fsdpa.report/1: of traces, or of summaries), read into a
 * tree; the metrics of its ranks are taken from the report's sections, the
 * two runs' ranks are matched by number, and the job is the mean of the
 * matched ranks.  Definitions: docs/report-contract.md, "Diff".
 *
 *   diff_read.c     a report's ranks and their metrics
 *   diff_compare.c  metrics, tables and findings of two runs side by side; the gate
 *   diff_write.c    JSON (fsdpa.diff/1), text and HTML
 *   diff.c          fsdpa_diff() and its options */
#ifndef FSDPA_DIFF_DIFF_H
#define FSDPA_DIFF_DIFF_H
#include "fsdpa/fsdpa.h"
#include "util/alloc.h"
#include "util/jdoc.h"
#include "util/jsonw.h"

/* The metrics of a rank, in output order. */
enum dm_id {
  DM_STEP_TIME,
  DM_UTILIZATION,
  DM_GPU_IDLE,
  DM_IDLE_HOST_NOT_LAUNCHED,
  DM_IDLE_HOST_BLOCKED,
  DM_IDLE_STREAM_WAIT,
  DM_IDLE_RANK_WAIT,
  DM_IDLE_UNKNOWN,
  DM_EXPOSED_COMM,
  DM_COMM,
  DM_MFU,
  DM_MODELLED_SHARE,
  DM_MALLOC_CALLS,
  DM_PEAK_ALLOCATED,
  DM_PEAK_RESERVED,
  DM__COUNT
};
enum dm_unit { DU_NS, DU_RATIO, DU_COUNT, DU_BYTES };
typedef struct dm_def {
  const char *name;    /* JSON */
  const char *label;   /* text and HTML */
  uint8_t unit;        /* enum dm_unit */
  uint8_t lower_better;
  uint8_t gated;       /* --fail-on-regression judges it */
} dm_def;
extern const dm_def dm_defs[DM__COUNT];

/* One value of one run: integers (ns, counts, bytes) exact in v_i. */
typedef struct dval {
  uint8_t have, have_spread;
  int64_t v_i;          /* DU_NS, DU_COUNT, DU_BYTES */
  double v_f;           /* DU_RATIO */
  int64_t spread_i;     /* half the range over the steady steps */
  double spread_f;
} dval;

typedef struct drank {
  int64_t rank;
  int64_t iterations;       /* >= 1: ProfilerSteps, else inferred iterations, else 1 */
  int has_steps;            /* step time from ProfilerSteps (else GPU span per iteration) */
  dval m[DM__COUNT];
  const jdc_node *node;      /* its element of "ranks" */
} drank;

typedef struct drun {
  jdoc doc;
  drank *r;                 /* sorted by rank */
  size_t n, cap;
  const jdc_node *findings;  /* the report's "findings" */
  const jdc_node *inputs;
} drun;

/* ---- diff_read.c ---- */
/* Read report s[0..len): FSDPA_EPARSE with *off and msg set when it is not
 * JSON or not a report of this format. */
fsdpa_status drun_read(fa_alloc *a, const char *s, size_t len, drun *out, int64_t *off, char *msg, size_t msgn);
void drun_free(fa_alloc *a, drun *r);

/* ---- diff_compare.c ---- */
enum ds_status { DS_SAME, DS_WORSE, DS_BETTER, DS_NEW, DS_GONE };
const char *ds_name(int status);

typedef struct dcmp {       /* one metric of both runs */
  dval b, n;
  int status;               /* DS_SAME, DS_WORSE, DS_BETTER (DS_NEW / DS_GONE: one side only) */
  int have_change;          /* base non-zero */
  double change;            /* (new − base) / |base| */
  int have_spread;
  int64_t spread_i;         /* the larger of the two runs' spreads */
  double spread_f;
  int beyond;               /* |new − base| > spread (1 without a spread) */
} dcmp;

/* A row of a compared table (kernels, ops, collectives, FSDP units): its
 * values per iteration, the mean over the matched ranks that have it. */
typedef struct dtrow {
  const jdc_node *row;       /* a representative row (new's, else base's): names */
  int present[2];           /* ranks having it: base, new */
  int64_t ns[2];            /* kernels: total; ops: kernel time; collectives, units: exposed */
  int64_t aux_ns[2];        /* collectives and units: communication time */
  double count[2];          /* calls per iteration */
  double rate[2];           /* kernels: mean duration (ns); ops: TFLOP/s (< 0: none) */
  int status;
} dtrow;

typedef struct dtable {
  dtrow *rows;
  size_t n;
} dtable;

typedef struct dfind {      /* findings of one (id, rank) */
  const jdc_node *f[2];      /* the worst of each run (NULL: none) */
  int sev[2];               /* -1: none */
  int64_t cost[2];          /* Σ cost_ns per iteration of the rank */
  int status;
} dfind;

typedef struct dresult {
  const drun *run[2];
  int64_t min_change_ppm, fail_ppm;   /* fail_ppm < 0: no gate */
  size_t nmatched, mcap;
  int64_t *matched;                   /* rank numbers in both runs (mcap allocated) */
  int64_t *only[2];                   /* ranks in one run only */
  size_t nonly[2];
  dcmp job[DM__COUNT];
  dcmp *ranks;                        /* nmatched × DM__COUNT */
  dtable kernels, ops, collectives, units;
  dfind *finds;
  size_t nfinds;
  int regressed;
} dresult;

fsdpa_status dresult_build(fa_alloc *a, const drun *base, const drun *next, int64_t min_change_ppm,
                           int64_t fail_ppm, dresult *out);
void dresult_free(fa_alloc *a, dresult *r);
/* Whether metric m of a comparison crossed the gate. */
int dcmp_crossed(const dresult *r, int m, const dcmp *c);

/* ---- diff_write.c ---- */
typedef struct dwrite_opts {
  int width, color;
} dwrite_opts;
void diff_json(const dresult *r, sbuf *b);
void diff_text(const dresult *r, const dwrite_opts *o, sbuf *b);
void diff_html(const dresult *r, sbuf *b);
#endif
