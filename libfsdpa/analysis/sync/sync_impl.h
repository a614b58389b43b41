/* CPU threads blocked in synchronization, private to the room: the
 * aggregates of blocking calls (per API, per step) that the public queries,
 * the report section and the cpu-sync-stall finding all read, so the three
 * can never disagree.  Definitions: fsdpa.h, group sync_waits. */
#ifndef FSDPA_ANALYSIS_SYNC_IMPL_H
#define FSDPA_ANALYSIS_SYNC_IMPL_H
#include "model/runtime_calls.h"
#include "util/jsonw.h"

/* ---- sync_engine.c ---- */

typedef struct sa_api {
  uint32_t name;
  uint64_t count, in_steps, threads, idle_after_calls;
  int64_t total, max, idle_during, idle_after, idle_cost;
  size_t worst;            /* index in sc_set.v of the longest call */
} sa_api;

typedef struct sa_step {
  uint64_t count;
  int64_t total, max, worst_thread, idle_cost;
  uint32_t worst_track;    /* UINT32_MAX if no call */
  int flagged;
} sa_step;

/* sel[i] = 1 for blocking calls whose start lies in the window and whose
 * device / waited stream match the selection. */
void sa_select(const sc_set *s, const qwin *w, uint8_t *sel);
/* Per-API rows of the selected calls, sorted by total desc then name. */
fsdpa_status sa_apis(fsdpa_ctx *c, const sc_set *s, const uint8_t *sel, sa_api **rows, size_t *n);
void sa_apis_free(fsdpa_ctx *c, sa_api *rows, size_t n);
/* rows[k] for every step k of s (s->nsteps rows), from the selected calls;
 * `flagged` applies the cpu-sync-stall thresholds. */
fsdpa_status sa_steps(fsdpa_ctx *c, const sc_set *s, const uint8_t *sel, sa_step *rows);
/* The same over other windows (the iterations the finding judges): rows[k]
 * for each of the nwin windows, from the selected calls with idx[i] >= 0
 * (idx[i]: the window of call i, -1 = none; NULL = the call's step). */
fsdpa_status sa_windows(fsdpa_ctx *c, const sc_set *s, const uint8_t *sel, const step_rec *win, size_t nwin,
                        const int32_t *idx, sa_step *rows);

/* Sizes of the per-call flag arrays and the per-step row arrays of s: never
 * zero, so an empty trace still gets a valid allocation to free. */
static inline size_t sa_flags_bytes(const sc_set *s) { return s->n ? s->n : 1; }
static inline size_t sa_steps_bytes(const sc_set *s) { return (s->nsteps ? s->nsteps : 1) * sizeof(sa_step); }

/* One evaluation: the blocking calls attributed, a selection of them and,
 * for the report, the per-API rows of that selection. */
typedef struct sync_run {
  sc_set s;
  uint8_t *sel;            /* sa_flags_bytes(&s) */
  sa_api *apis;
  size_t napis;
} sync_run;

/* Attributes the blocking calls (r->sel and r->apis stay NULL). */
fsdpa_status sync_run_calls(fsdpa_ctx *c, sync_run *r);
/* Allocates r->sel and selects window w; on failure frees the calls too. */
fsdpa_status sync_run_select(fsdpa_ctx *c, sync_run *r, const qwin *w);
/* Every blocking call of the trace selected, with the per-API rows; on
 * failure nothing is left allocated. */
fsdpa_status sync_run_open_all(fsdpa_ctx *c, sync_run *r);
void sync_run_free(fsdpa_ctx *c, sync_run *r);

/* ---- sync_report.c ---- */

/* What one call waited for, as a JSON object (in the report section and in
 * the cpu-sync-stall evidence). */
void sync_write_wait(fsdpa_ctx *c, const sc_set *s, const sc_call *k, jsonw *w);
#endif
