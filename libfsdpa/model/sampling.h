/* Whether a trace holds all its events or a sample of them: several
 * analyses must not read the gaps between the ops a filter kept as idle. */
#ifndef FSDPA_MODEL_SAMPLING_H
#define FSDPA_MODEL_SAMPLING_H
#include "ctx.h"

/* The runtime calls' correlation ids span more than launch.sampled_corr_ratio
 * times the calls recorded. */
typedef struct trace_sampling {
  uint64_t calls;       /* runtime calls with a correlation id */
  int64_t corr_span;    /* max - min + 1 of their ids; 0 without calls */
  int64_t max_ratio;    /* launch.sampled_corr_ratio */
  int sampled;
} trace_sampling;
void trace_sampling_get(const fsdpa_ctx *c, trace_sampling *o);
/* What a rule that does not judge a sampled trace says (findings.h,
 * not_judged): why, and what would let it judge. */
#define SAMPLED_REASON \
  "the trace is sampled: its runtime calls' correlation ids span far more ids than calls recorded " \
  "(launch_gaps.sampling), so the gaps between the events kept are not idle time"
#define SAMPLED_WOULD "a trace with every event: no sampling or event filter between the profiler and the file" 
#endif
