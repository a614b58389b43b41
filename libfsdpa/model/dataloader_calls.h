/* The DataLoader __next__ calls of a trace (enumerate(DataLoader)#...
 * annotations and torch/utils/data/dataloader.py __next__ frames, by
 * classify_iteration_mark): the time the launching thread spends fetching
 * the next batch.  A model-floor fact because two analyses read it: the
 * dataloader analysis costs the GPU idle inside them (dataloader-stall) and
 * the launch-gaps analysis says which part of its host-bound idle lies
 * inside them (gpu-starvation names dataloader-stall as its cause).
 * Memoized in the context (CACHE_DL_CALLS); the object is the cache's.
 *
 * dl_idle_get adds the GPU idle inside them over the judged window and
 * whether dataloader-stall's thresholds hold on it (the dataloader room's
 * numbers; gpu-starvation names that finding when it is in the findings
 * list, which the dataloader room fills first). */
#ifndef FSDPA_MODEL_DATALOADER_CALLS_H
#define FSDPA_MODEL_DATALOADER_CALLS_H
#include "ctx.h"

typedef struct dl_calls {
  iv *calls;          /* each __next__ range (relative ns), in store order */
  uint32_t *track;    /* the thread of each */
  size_t n, cap;
  int64_t total_ns;   /* Σ of their durations */
  iv *u;              /* union of the ranges, sorted */
  size_t nu;
} dl_calls;

/* The context's calls as it is now (built on first use); *out belongs to
 * the cache and stays valid until the next feed or parameter change. */
fsdpa_status dl_calls_get(fsdpa_ctx *c, const dl_calls **out);

enum { DL_WHOLE_TRACE = 0, DL_AFTER_FIRST_ITERATION = 1 };

/* docs/report-contract.md, "DataLoader" and dataloader-stall. */
typedef struct dl_idle {
  int window;          /* DL_*: the iterations after the first, else the whole trace */
  int64_t t0, t1;      /* the judged window's first start and last end (relative) */
  int64_t window_ns;   /* |GPU window ∩ judged window| */
  int64_t idle_ns;     /* GPU idle (no GPU activity on any stream) in it */
  int64_t cost_ns;     /* of that idle, inside the union of the __next__ ranges */
  int64_t *call_idle;  /* per call of dl_calls (same order): the idle inside it */
  size_t n;
  int stall;           /* dataloader-stall fires: cost_ns is at least
                        * dataloader.min_share_ppm of window_ns and
                        * dataloader.min_idle_share_ppm of idle_ns */
} dl_idle;

/* Built on first use (CACHE_DL_IDLE), after the calls; *out belongs to the
 * cache like dl_calls_get's. */
fsdpa_status dl_idle_get(fsdpa_ctx *c, const dl_idle **out);
#endif
