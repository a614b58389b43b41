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
/* launch_gaps_findings.c: launch-overhead, gpu-starvation */
fsdpa_status launch_gaps_findings(fsdpa_ctx *c, int64_t rank, findings *f);
#endif
