/* Busy-time efficiency: the kernel table, the op table with FLOPs, bytes
 * and achieved rates, MFU per rank and step, and the finding that the busy
 * time is spent inefficiently.  The room's interface for the report layer
 * and summaries: each `*_json` writes exactly one JSON value (its section
 * of a rank in the report contract); `efficiency_findings` appends its
 * finding for that rank. */
#ifndef FSDPA_ANALYSIS_EFFICIENCY_H
#define FSDPA_ANALYSIS_EFFICIENCY_H
#include "ctx.h"
#include "util/jsonw.h"
#include "findings/findings.h"

/* ranks[].kernels, ranks[].ops, ranks[].efficiency (efficiency_report.c) */
fsdpa_status efficiency_kernels_json(fsdpa_ctx *c, jsonw *w);
fsdpa_status efficiency_ops_json(fsdpa_ctx *c, jsonw *w);
fsdpa_status efficiency_json(fsdpa_ctx *c, jsonw *w);
/* inefficient-compute (efficiency_findings.c) */
fsdpa_status efficiency_findings(fsdpa_ctx *c, int64_t rank, findings *f);

/* What the text and HTML reports show besides the tables: the rank's
 * totals over its judged windows (as ranks[].efficiency) and its device's
 * peak-table row (model "" when unknown). */
fsdpa_status efficiency_brief(fsdpa_ctx *c, fsdpa_efficiency *judged, char model[32]);
#endif
