/* Aggregates of blocking calls (per API, per step) shared by the public
 * queries, the report section and the cpu-sync-stall finding, so the three
 * can never disagree. */
#ifndef FSDPA_ANALYSIS_SYNC_AGG_H
#define FSDPA_ANALYSIS_SYNC_AGG_H
#include "model/runtime_calls.h"

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
#endif
