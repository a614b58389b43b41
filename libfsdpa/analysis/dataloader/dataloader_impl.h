/* Private to the dataloader room. */
#ifndef FSDPA_ANALYSIS_DATALOADER_IMPL_H
#define FSDPA_ANALYSIS_DATALOADER_IMPL_H
#include "ctx.h"
#include "findings/findings.h"
#include "model/dataloader_calls.h"

typedef struct dl_call {
  int64_t s, e;        /* the __next__ range (relative ns) */
  int64_t idle_ns;     /* GPU idle of the window inside it */
} dl_call;

typedef struct dl_result {
  uint64_t calls;      /* enumerate(DataLoader)#... annotations */
  int64_t total_ns;    /* their summed duration */
  int window;          /* DL_* (model/dataloader_calls.h) */
  int64_t t0, t1;      /* its first start and last end (relative) */
  int64_t window_ns;   /* |GPU window ∩ judged window| */
  int64_t idle_ns;     /* GPU idle (no GPU activity on any stream) in it */
  int64_t cost_ns;     /* of that idle, inside the union of the __next__ ranges */
  int stall;           /* dataloader-stall fires (the model's decision: gpu-starvation reads it too) */
  dl_call top[FINDING_MAX_RANGES];  /* the calls holding most of it, most first */
  int ntop;
} dl_result;

fsdpa_status dl_compute(fsdpa_ctx *c, dl_result *r);
#endif
