/* Launch gaps, idle attribution, launch latency and queue depth: the room's interface for the report layer and summaries.
 * Each `*_json` writes exactly one JSON value (its section of a rank in the
 * report contract, or null when it cannot be computed); each `*_findings`
 * appends its findings for that rank. */
#ifndef FSDPA_ANALYSIS_LAUNCH_GAPS_H
#define FSDPA_ANALYSIS_LAUNCH_GAPS_H
#include "ctx.h"
#include "util/jsonw.h"
#include "findings/findings.h"

/* launch_gaps_report.c: ranks[].launch_gaps */
fsdpa_status launch_gaps_json(fsdpa_ctx *c, jsonw *w);
/* launch_gaps_report.c: what the text report prints of launch_gaps (the
 * numbers of its idle_causes and warmup objects, whole trace, all streams).
 * gpu = 0 without GPU activity (launch_gaps is null; nothing else is set). */
#define LAUNCH_GAPS_CAUSES 6  /* host_not_launched, host_blocked, stream_wait, rank_wait, dispatch, unknown */
typedef struct launch_gaps_brief {
  int gpu;
  int64_t idle_ns;                       /* = gpu_idle_ns */
  int64_t cause_ns[LAUNCH_GAPS_CAUSES];  /* sums to idle_ns, in the contract's order */
  size_t iterations, warmup_iterations;  /* warmup.iterations, warmup.warmup_iterations */
  const char *iterations_from;           /* warmup.iterations_from */
  int64_t warmup_gpu_idle_ns, warmup_gpu_host_wait_ns;
} launch_gaps_brief;
fsdpa_status launch_gaps_brief_get(fsdpa_ctx *c, launch_gaps_brief *out);
/* launch_gaps_findings.c: launch-overhead, gpu-starvation */
fsdpa_status launch_gaps_findings(fsdpa_ctx *c, int64_t rank, findings *f);
/* launch_gaps_findings_queued.c: queued-idle-unexplained, a root cause the
 * other rooms may name (made before them) */
fsdpa_status launch_gaps_queued_findings(fsdpa_ctx *c, int64_t rank, findings *f);
#endif
