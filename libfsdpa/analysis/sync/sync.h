/* CPU threads blocked in synchronization: the room's interface for the report layer and summaries.
 * Each `*_json` writes exactly one JSON value (its section of a rank in the
 * report contract, or null when it cannot be computed); each `*_findings`
 * appends its findings for that rank. */
#ifndef FSDPA_ANALYSIS_SYNC_H
#define FSDPA_ANALYSIS_SYNC_H
#include "ctx.h"
#include "util/jsonw.h"
#include "findings/findings.h"

/* sync_report.c: ranks[].sync_waits */
fsdpa_status sync_waits_json(fsdpa_ctx *c, jsonw *w);
/* sync_report.c: ranks[].sync_classes */
fsdpa_status sync_classes_json(fsdpa_ctx *c, jsonw *w);
/* sync_findings.c: cpu-sync-stall */
fsdpa_status sync_waits_findings(fsdpa_ctx *c, int64_t rank, findings *f);
/* sync_findings_spin.c: host-spin-wait */
fsdpa_status sync_spin_findings(fsdpa_ctx *c, int64_t rank, findings *f);
#endif
