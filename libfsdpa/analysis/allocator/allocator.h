/* Device memory and the caching allocator: the room's interface for the report layer and summaries.
 * Each `*_json` writes exactly one JSON value (its section of a rank in the
 * report contract, or null when it cannot be computed); each `*_findings`
 * appends its findings for that rank. */
#ifndef FSDPA_ANALYSIS_ALLOCATOR_H
#define FSDPA_ANALYSIS_ALLOCATOR_H
#include "ctx.h"
#include "util/jsonw.h"
#include "findings/findings.h"

/* allocator_report.c: ranks[].allocator */
fsdpa_status allocator_json(fsdpa_ctx *c, jsonw *w);
/* allocator_findings.c: allocator-thrash, pinned-host-churn, allocator-fragmentation */
fsdpa_status allocator_findings(fsdpa_ctx *c, int64_t rank, findings *f);
#endif
