/* The DataLoader __next__ calls of a trace (enumerate(DataLoader)#...
 * annotations and torch/utils/data/dataloader.py __next__ frames, by
 * classify_iteration_mark): the time the launching thread spends fetching
 * the next batch.  A model-floor fact because two analyses read it: the
 * dataloader analysis costs the GPU idle inside them (dataloader-stall) and
 * the launch-gaps analysis says which part of its host-bound idle lies
 * inside them (gpu-starvation names dataloader-stall as its cause).
 * Memoized in the context (CACHE_DL_CALLS); the object is the cache's. */
#ifndef FSDPA_MODEL_DATALOADER_CALLS_H
#define FSDPA_MODEL_DATALOADER_CALLS_H
#include "ctx.h"

typedef struct dl_calls {
  iv *calls;          /* each __next__ range (relative ns), in store order */
  size_t n;
  int64_t total_ns;   /* Σ of their durations */
  iv *u;              /* union of the ranges, sorted */
  size_t nu;
} dl_calls;

/* The context's calls as it is now (built on first use); *out belongs to
 * the cache and stays valid until the next feed or parameter change. */
fsdpa_status dl_calls_get(fsdpa_ctx *c, const dl_calls **out);
#endif
