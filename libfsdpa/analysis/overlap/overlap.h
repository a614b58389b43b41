/* Communication/computation overlap, per collective and process group: the room's interface for the report layer and summaries.
 * Each `*_json` writes exactly one JSON value (its section of a rank in the
 * report contract, or null when it cannot be computed); each `*_findings`
 * appends its findings for that rank. */
#ifndef FSDPA_ANALYSIS_OVERLAP_H
#define FSDPA_ANALYSIS_OVERLAP_H
#include "ctx.h"
#include "util/jsonw.h"
#include "findings/findings.h"

/* ranks[].overlap (overlap_report.c) and its findings (overlap_findings.c) */
fsdpa_status overlap_json(fsdpa_ctx *c, jsonw *w);
fsdpa_status overlap_findings(fsdpa_ctx *c, int64_t rank, findings *f);
#endif
