/* The critical path of a rank's trace (model/depgraph.h, dg_critical_path):
 * the room's interface for the report layer and summaries.  `critpath_json`
 * writes exactly one JSON value: ranks[].critical_path of the report
 * contract, or null when the trace has no GPU activity. */
#ifndef FSDPA_ANALYSIS_CRITPATH_H
#define FSDPA_ANALYSIS_CRITPATH_H
#include "ctx.h"
#include "util/jsonw.h"

/* critpath_report.c: ranks[].critical_path */
fsdpa_status critpath_json(fsdpa_ctx *c, jsonw *w);
#endif
