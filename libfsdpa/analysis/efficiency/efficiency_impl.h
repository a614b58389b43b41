/* Private to the efficiency room: the op table (calls of the attributed
 * ops, grouped by name and shapes), the device and its peaks, and the
 * per-window sums the queries, the report section and the finding share.
 * Definitions: fsdpa.h, group "efficiency". */
#ifndef FSDPA_ANALYSIS_EFFICIENCY_IMPL_H
#define FSDPA_ANALYSIS_EFFICIENCY_IMPL_H
#include "analysis/efficiency/efficiency.h"
#include "model/op_attr.h"
#include "model/perf_model.h"
#include "model/peaks.h"

/* One op-table row: an (op, shapes) key, or one unattributed GPU op name. */
typedef struct ef_row {
  uint32_t op_name;        /* intern id of the CPU op; INTERN_NONE: unattributed GPU ops */
  uint32_t gpu_name;       /* unattributed: the GPU op name; else INTERN_NONE */
  uint32_t shape;          /* st.shapes id, INTERN_NONE if not recorded */
  const char *str;         /* the row's name (op or GPU op), for ordering */
  size_t len;
  uint8_t cat;             /* enum op_cat */
  pm_call pm;              /* model evaluated on the shape */
  uint64_t count, gpu_ops, comm_ops;
  int64_t kernel_ns;
} ef_row;

/* One call (or one unattributed GPU op) of the selected streams. */
typedef struct ef_call {
  int64_t first;           /* start of its first selected GPU op (relative ns) */
  int64_t last;            /* end of its last-ending selected GPU op */
  int64_t kernel_ns;       /* Σ durations of its selected GPU ops */
  uint32_t gpu_ops, comm_ops;
  uint32_t row;            /* index in ef_table.rows */
  uint8_t tf32;            /* a matrix op with a kernel that runs fp32 on the tensor cores (kernel_runs_tf32) */
} ef_call;

typedef struct ef_table {
  fa_alloc *a;
  ef_row *rows;            /* every row of the selection, unsorted */
  size_t nrows;
  ef_call *calls;          /* sorted by first */
  size_t ncalls, calls_alloc;
  int64_t device;          /* the device that ran the most kernel time (all streams), ABSENT if none */
  const peak_row *peak;    /* its peak-table row, NULL if unknown */
  int borrowed;            /* the context's cached table: ef_free only forgets it */
} ef_table;

/* Sums over the calls of one window. */
typedef struct ef_sums {
  int64_t kernel_ns, modelled_ns, flops;
  int64_t cat_ns[OC__COUNT];
  double peak_ns;          /* Σ flops / peak of the modelled calls that have one (ns) */
  uint64_t peak_calls;     /* modelled calls with a peak */
} ef_sums;

/* ---- efficiency_engine.c ---- */

/* The table of the selected streams (device / stream of w; its window is
 * not applied: calls are selected per window afterwards).  The whole-trace
 * table (no device or stream) is memoized in the context. */
fsdpa_status ef_build(fsdpa_ctx *c, const qwin *w, ef_table *t);
void ef_free(ef_table *t);
/* Sums of the calls whose first GPU op starts in [t0, t1). */
void ef_window(const ef_table *t, int64_t t0, int64_t t1, ef_sums *s);
/* Rows aggregated over the calls in [t0, t1) (count 0 dropped), sorted by
 * kernel time (desc), then name and shapes; the first max_rows kept and the
 * rest folded into one last row (op_name and gpu_name INTERN_NONE; folded =
 * the rows in it; its flops = Σ flops × count of its matrix rows). */
typedef struct ef_rows {
  ef_row *r;
  size_t n, alloc_n;
  uint64_t folded;
} ef_rows;
fsdpa_status ef_rows_in(fsdpa_ctx *c, const ef_table *t, int64_t t0, int64_t t1, uint64_t max_rows, ef_rows *out);
void ef_rows_free(fsdpa_ctx *c, ef_rows *x);
/* Peak (TFLOP/s) of a dtype on the table's device; <= 0 if none. */
double ef_peak(const ef_table *t, int dtype);
/* The whole-trace window (relative ns): first start to last end of the
 * CPU, runtime and GPU records; [0, 0) for an empty trace. */
void ef_trace_window(fsdpa_ctx *c, int64_t *t0, int64_t *t1);

/* ---- efficiency_report.c ---- */

/* One op-table row as the report's object / the public struct. */
void ef_row_json(fsdpa_ctx *c, const ef_table *t, const ef_row *r, uint64_t names, jsonw *w);
void ef_row_public(const fsdpa_ctx *c, const ef_table *t, const ef_row *r, uint64_t names, fsdpa_op_stat *o);
/* The rank's totals over its judged windows (it_windows: ProfilerSteps,
 * else inferred iterations, else the whole trace); *source says which. */
fsdpa_status ef_judged(fsdpa_ctx *c, const ef_table *t, fsdpa_efficiency *o, int *source);
/* Sums as the public struct (window length given). */
void ef_sums_public(const ef_table *t, const ef_sums *s, int64_t window_ns, int64_t step, fsdpa_efficiency *o);
#endif
