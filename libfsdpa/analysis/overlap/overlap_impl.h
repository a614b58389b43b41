/* Private to the overlap room: the engine's kernel-set totals and splits
 * (overlap_engine.c) that the queries, the report section and the findings
 * share, and the JSON writers the report and the findings' evidence share
 * (overlap_report.c). */
#ifndef FSDPA_ANALYSIS_OVERLAP_IMPL_H
#define FSDPA_ANALYSIS_OVERLAP_IMPL_H
#include "analysis/overlap/overlap.h"
#include "model/kernel_sets.h"

/* One group of comm kernels: a collective type or a process group. */
typedef struct split_acc {
  int key;                 /* collective type, or index into the PG table */
  uint32_t pg;
  uint64_t count;
  int64_t comm_ns, overlap_ns;
  int64_t bytes, bus_bytes, timed_ns;
  int has_bytes;
} split_acc;

/* An interval list the engine allocated: n used of cap. */
typedef struct overlap_ivs {
  iv *v;
  size_t n, cap;
} overlap_ivs;

/* ---- overlap_engine.c ---- */

/* The kernel sets of the whole trace (every stream, no window). */
fsdpa_status overlap_gather_trace(fsdpa_ctx *c, const store_views **v, ks_data *d);
/* Totals of a gathered selection: unions, their overlap and what is exposed. */
void overlap_fill(const ks_data *d, fsdpa_overlap *o);
/* The totals of [t0, t1) inside a gathered selection; both = comm ∩ compute
 * (overlap_both).  Only the time fields are set. */
void overlap_in_range(const ks_data *d, const overlap_ivs *both, int64_t t0, int64_t t1,
                      fsdpa_overlap *o);
/* Group comm entries by collective (by == 0) or process group (by == 1) and
 * compute each group's union, overlap with compute and bandwidth sums.
 * *out is sorted by collective type or process-group name; free it with
 * overlap_splits_free. */
fsdpa_status overlap_splits(fsdpa_ctx *c, const ks_data *d, int by, split_acc **out, size_t *nout);
void overlap_splits_free(fsdpa_ctx *c, const ks_data *d, split_acc *acc);
/* A split as the public struct: exposed time and bandwidths. */
void overlap_split_public(const fsdpa_ctx *c, const split_acc *x, int by, fsdpa_comm_split *o);
/* comm ∩ compute of a gathered selection. */
fsdpa_status overlap_both(fsdpa_ctx *c, const ks_data *d, overlap_ivs *out);
/* comm − compute of a gathered selection, longest first (ties: earliest). */
fsdpa_status overlap_exposed(fsdpa_ctx *c, const ks_data *d, overlap_ivs *out);
void overlap_ivs_free(fsdpa_ctx *c, overlap_ivs *x);
/* How much of the communication waited rather than moved data, read from
 * one rank: collective kernels of one type, process group and size (bytes)
 * move the same data, so the fastest of them (at least two) is its
 * transfer time; the rest of a longer one is waiting for its peers, at its
 * start (a collective kernel spins until the last rank joins, then moves the
 * data).  Kernels of a size seen once, or without a known size, are not
 * judged. */
typedef struct ov_wait {
  int64_t judged_ns;       /* comm time of the kernels judged (clipped) */
  int64_t wait_ns;         /* of it, waiting */
  int64_t exposed_ns;      /* exposed communication of the kernels judged */
  int64_t exposed_wait_ns; /* of it, waiting */
  uint64_t kernels, groups;
  int64_t worst_ratio_x100;/* longest / fastest of a group, x100 (the most skewed group) */
} ov_wait;
fsdpa_status overlap_wait(fsdpa_ctx *c, const ks_data *d, ov_wait *out);

/* ---- overlap_report.c ---- */

/* A list of splits as the report contract's by_collective / by_process_group array. */
void overlap_write_splits(fsdpa_ctx *c, jsonw *w, const split_acc *acc, size_t n, int by);
/* A percentage, null when negative (absent). */
void overlap_write_pct(jsonw *w, const char *k, double pct);
#endif
