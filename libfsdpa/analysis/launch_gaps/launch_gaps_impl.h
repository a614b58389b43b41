/* Launch gaps, private to the room: the engine's types and functions shared
 * by its files.  Engine: the gap scan (launch_gaps_engine.c), the per-window
 * memo in front of it (launch_gaps_engine_memo.c), latency and queue depth
 * (launch_gaps_engine_latency.c), histogram, percentiles and worst ranges
 * (launch_gaps_engine_stats.c), the selected streams and their busy union
 * (launch_gaps_engine_union.c), the HTA-compatible idle breakdown used to
 * cross-check (launch_gaps_engine_hta.c), the cause of every idle
 * nanosecond (read from the dependency graph, model/depgraph.h, and
 * remembered per window), the calls paid only on first use
 * (launch_gaps_engine_first_use.c).  Users: the public queries
 * (launch_gaps_query.c), the JSON section (launch_gaps_report.c) and the
 * findings (launch_gaps_findings.c).  Definitions live in fsdpa.h, group
 * launch_gaps. */
#ifndef FSDPA_ANALYSIS_LAUNCH_GAPS_IMPL_H
#define FSDPA_ANALYSIS_LAUNCH_GAPS_IMPL_H
#include "ctx.h"
#include "model/depgraph.h"
#include "model/sampling.h"
#include "findings/findings.h"
#include "util/jsonw.h"

/* The first steady iteration of n sorted ones: the first of two or more is
 * warm-up (allocator, autotuning, lazy module loading, cuDNN set-up) and
 * would make every trace look starved; with one there is nothing to set it
 * against and it is judged (the dataloader analysis cuts the same way). */
static inline size_t lg_first_steady(size_t nsteps) { return nsteps >= 2 ? 1 : 0; }

/* launch_gaps_engine_steady.c: the iterations judged, sorted by start.  s[]
 * are the ProfilerStep ranges, else the inferred iterations (number
 * FSDPA_ABSENT); s[first..n) is the steady state, [t0, t1) its range
 * (relative; the whole trace without iterations), s[0..first) warm-up. */
typedef struct lg_steady {
  step_rec *s;
  size_t n, cap, first;
  size_t capture;      /* of s[0..first), steps that capture a CUDA graph (set-up, left out like warm-up) */
  int source;          /* enum it_source (model/iterations.h) */
  int64_t t0, t1;
} lg_steady;
fsdpa_status lg_steady_get(fsdpa_ctx *c, lg_steady *y);
void lg_steady_free(fsdpa_ctx *c, lg_steady *y);
const char *lg_steady_source(const lg_steady *y);  /* "ProfilerStep", "optimizer_step", "none", ... */
/* Whether the views' streams (sorted by device, at least one) are all on one
 * device: its answers are then the whole trace's. */
static inline int lg_one_device(const store_views *v) {
  return v->streams[0].device == v->streams[v->nstreams - 1].device;
}

/* launch_gaps_engine_stats.c */
/* Worst ranges kept for findings: the LG_TOP heaviest, heaviest first. */
#define LG_TOP 4
typedef struct lg_top {
  iv r[LG_TOP];     /* relative ns */
  int64_t w[LG_TOP];
  int n;
} lg_top;
void lg_top_add(lg_top *t, int64_t s, int64_t e, int64_t w);
/* Fixed histogram edges and bin of a value. */
extern const int64_t lg_edges[FSDPA_GAP_EDGES];
int lg_bin(int64_t v);
/* Nearest-rank percentile of n > 0 values, O(n) expected (reorders a). */
int64_t lg_pct(int64_t *a, size_t n, int p);
/* p50, p90, p99 of a[0..n) (n >= 1; reorders a): lg_pct() three times, each
 * selection confined to the part above the previous one. */
void lg_p50_90_99(int64_t *a, size_t n, int64_t *p50, int64_t *p90, int64_t *p99);
int64_t lg_max_i64(const int64_t *a, size_t n);
int64_t lg_min_i64(const int64_t *a, size_t n);
/* Sort (checks for sorted input first: O(n) then). */
void lg_sort_i64(int64_t *a, size_t n);

/* Gaps k = [u[k].e, u[k+1].s) of a sorted union u[0..n) that intersect
 * [t0, t1): k in [*k0, *k1) (launch_gaps_engine.c). */
void lg_gap_range(const iv *u, size_t n, int64_t t0, int64_t t1, size_t *k0, size_t *k1);

/* launch_gaps_engine_union.c */
static inline int lg_selected(const gpu_stream_view *sv, const qwin *w) { return dg_selected(sv, w); }
/* First op of a stream view starting at or after t. */
size_t lg_first_op_from(const store *st, const gpu_stream_view *sv, int64_t t);
/* Union of the selected streams' busy intervals: either the views' own
 * arrays (no allocation) or a scratch array the caller frees with
 * lg_union_free(). */
typedef struct lg_union {
  const iv *u;
  size_t n;
  iv *owned;
  size_t owned_cap;
} lg_union;
fsdpa_status lg_union_build(fsdpa_ctx *c, const store_views *v, const qwin *w, lg_union *out);
void lg_union_free(fsdpa_ctx *c, lg_union *u);
/* Span of a union clipped to [t0, t1) (fsdpa_timeline.span_ns): *a, *b; 0 if none. */
int lg_union_span(const lg_union *u, int64_t t0, int64_t t1, int64_t *a, int64_t *b);

/* What the findings need beyond the public struct. */
typedef struct lg_extra {
  lg_top host_gaps;      /* longest host-wait GPU gaps (clipped to the window) */
  lg_top launch_runs;    /* stretches of consecutive small launch-bound GPU gaps, by their idle */
  uint64_t kernels;      /* kernels starting in the window on the selected streams */
  uint64_t short_kernels;/* of which shorter than launch.short_kernel_ns */
  /* Of the window's GPU idle (union of the selected streams), the parts
   * inside the first-use calls (lg_first_use) and, of its host-wait gaps,
   * the parts inside them and inside DataLoader __next__
   * (model/dataloader_calls.h). */
  int64_t idle_first_use_ns, host_first_use_ns, host_in_dataloader_ns;
  /* Of its host-wait gaps, the parts inside device allocator calls
   * (lg_first_use.au). */
  int64_t host_in_allocator_ns;
} lg_extra;

/* launch_gaps_engine_first_use.c: the calls that cost the launching thread
 * time only the first time: the first launch of each kernel name whose call
 * lasted at least starvation.first_use_launch_ns (module loading) and every
 * allocation call (NC_MALLOC: the caching allocator filling).  Starts sorted
 * per kind; u the union of all their ranges (relative ns). */
typedef struct lg_first_use {
  int64_t *launch_ts, *alloc_ts;
  size_t nlaunch, nalloc, cap_l, cap_a;
  iv *u;
  size_t nu, cap_u;
  /* Not first-use: the union of every device allocator call (malloc, free
   * and mapping of every backend; pinned host memory is not device memory),
   * where gpu-starvation finds the allocator as its cause. */
  iv *au;
  size_t nau, cap_au;
} lg_first_use;
fsdpa_status lg_first_use_build(fsdpa_ctx *c, const store_views *v, lg_first_use **out);
void lg_first_use_free(fsdpa_ctx *c, lg_first_use *fu);
/* Calls of each kind starting in [t0, t1). */
void lg_first_use_count(const lg_first_use *fu, int64_t t0, int64_t t1, uint64_t *launches, uint64_t *allocs);
/* The context's set, kept in the launch-gaps memo (*own non-NULL: a
 * scratch copy the caller frees with lg_first_use_free, when the memo has
 * no room). */
fsdpa_status lg_first_use_get(fsdpa_ctx *c, const store_views *v, const lg_first_use **fu, lg_first_use **own);

/* The engines behind the public queries (w already resolved, v current).
 * lg_gaps() (launch_gaps_engine_memo.c) remembers each window's result of
 * lg_gaps_compute() (launch_gaps_engine.c) in the context: the report asks
 * for the same windows in its findings and in its JSON.  lg_latency() and
 * lg_queue(): launch_gaps_engine_latency.c. */
fsdpa_status lg_gaps(fsdpa_ctx *c, const store_views *v, const qwin *w, fsdpa_launch_gaps *out,
                     lg_extra *x);
fsdpa_status lg_gaps_compute(fsdpa_ctx *c, const store_views *v, const qwin *w, const lg_first_use *fu,
                             fsdpa_launch_gaps *out, lg_extra *x);
fsdpa_status lg_latency(fsdpa_ctx *c, const store_views *v, const qwin *w,
                        fsdpa_launch_latency *out);
fsdpa_status lg_queue(fsdpa_ctx *c, const store_views *v, const qwin *w, fsdpa_launch_queue *out);

/* launch_gaps_engine_hta.c */
/* HTA v0.6.1 get_idle_time_breakdown() reproduced for one stream, only to
 * cross-check against HTA's published numbers: ts and dur read as float64
 * µs like Python's json, ts rounded up and ts+dur down to whole µs, ops
 * sorted by rounded start (ties: input order), interval = start(k) −
 * end(k−1) of the previous op in that order (negative when ops overlap),
 * host wait if the launch call's rounded start > end(k−1).  drop_unlinked:
 * drop ops without a launch call first, as HTA's correlation filter does. */
typedef struct lg_hta {
  int64_t host_us, kernel_us, other_us;
  uint64_t intervals, dropped;
} lg_hta;
fsdpa_status lg_hta_idle(fsdpa_ctx *c, int64_t device, int64_t stream, int drop_unlinked,
                         int64_t kernel_wait_us, lg_hta *out);

/* The idle causes of a window, read from the dependency graph
 * (model/depgraph.h: dg_idle_causes over the window's busy union),
 * remembered per window next to lg_gaps() (launch_gaps_engine_memo.c). */
fsdpa_status lg_idle_causes(fsdpa_ctx *c, const store_views *v, const qwin *w, dg_causes *out);

/* Shared by the finding files (launch_gaps_findings*.c). */
/* Add a finding with its evidence (ev) and ranges (relative, made absolute). */
fsdpa_status lg_add_finding(findings *f, fsdpa_ctx *c, const char *id, int sev, int64_t rank, int64_t step,
                            int64_t cost, const char *title, const char *detail, const char *advice, sbuf *ev,
                            const lg_top *ranges);
/* The step number of a finding over the steady range: the one steady
 * ProfilerStep, else none. */
int64_t lg_steady_step(const lg_steady *y);
/* part / whole, -1 when whole is not positive. */
double lg_share(int64_t part, int64_t whole);
/* findings.min_cost_ppm: a finding costing too small a share of the span. */
int lg_too_cheap(fsdpa_ctx *c, const store_views *v, int64_t cost);
/* Severity by the share of the judged time a finding costs:
 * severity.critical_ppm and severity.warning_ppm (the verdict corpus's
 * scale), info below. */
int lg_sev_by_share(const fsdpa_ctx *c, int64_t cost, int64_t judged);
/* "steady-state steps #3-#9 (first step excluded as warm-up)" and the like. */
void lg_fmt_scope(char *b, size_t n, const lg_steady *y);
/* launch_gaps_findings_queued.c: queued-idle-unexplained, per device. */
fsdpa_status lg_queued_findings(fsdpa_ctx *c, const store_views *v, const lg_steady *y, int64_t rank, findings *f);
#endif
