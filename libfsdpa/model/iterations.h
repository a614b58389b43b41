/* The iterations of a trace: its ProfilerStep ranges when it has them,
 * else ranges inferred from annotations that repeat once per iteration
 * (optimizer steps, inference engine steps, benchmark runs, DataLoader
 * batches).  steps[] of the report stays the ProfilerStep ranges. */
#ifndef FSDPA_MODEL_ITERATIONS_H
#define FSDPA_MODEL_ITERATIONS_H
#include "ctx.h"

enum it_source { ITS_NONE, ITS_PROFILER_STEP, ITS_ENGINE, ITS_OPTIMIZER, ITS_BENCHMARK, ITS_DATALOADER };

typedef struct it_range {
  int64_t s, e;       /* relative ns */
  uint32_t name;      /* the annotation that marks it (intern id) */
} it_range;

typedef struct iterations {
  fa_alloc *a;
  int source;         /* enum it_source */
  it_range *r;        /* by start */
  size_t n;
} iterations;

fsdpa_status iterations_build(fsdpa_ctx *c, iterations *it);
void iterations_free(iterations *it);
/* The windows a per-iteration rule judges, sorted by start: the ProfilerStep
 * ranges (*source ITS_PROFILER_STEP, the store's numbers), else the inferred
 * iterations (number FSDPA_ABSENT), else one window over the whole trace
 * (*source ITS_NONE, number FSDPA_ABSENT): from the first start to the last
 * end of the CPU, runtime and GPU records.  *n is 0 only for a trace
 * without those records.  Free with it_windows_free(). */
fsdpa_status it_windows(fsdpa_ctx *c, step_rec **w, size_t *n, int *source);
void it_windows_free(fsdpa_ctx *c, step_rec *w, size_t n);
/* [*first, *last] of the CPU, runtime and GPU records (relative ns): the
 * whole-trace window above; 0 when the trace has none. */
int it_trace_extent(const fsdpa_ctx *c, int64_t *first, int64_t *last);
const char *it_source_name(int source);  /* "ProfilerStep", "engine_step", ... */
const char *it_source_rule(int source);  /* how the ranges are cut, for people */
#endif
