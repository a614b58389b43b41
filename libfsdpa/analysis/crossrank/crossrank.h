/* Cross-rank collectives: clock alignment, waits, stragglers: the room's interface for the report layer and summaries.
 * Each `*_json` writes exactly one JSON value (its section of a rank in the
 * report contract, or null when it cannot be computed); each `*_findings`
 * appends its findings for that rank. */
#ifndef FSDPA_ANALYSIS_CROSSRANK_H
#define FSDPA_ANALYSIS_CROSSRANK_H
#include "ctx.h"
#include "util/jsonw.h"
#include "findings/findings.h"

/* crossrank.c: top-level cross_rank over all ranks.  Run once per
 * report (crossrank_run: *out NULL for fewer than two ranks), then its
 * findings and JSON (null without a result) from the same result. */
typedef struct xr_result xr_result;
fsdpa_status crossrank_run(fsdpa_ctx *const *ctxs, const int64_t *ranks, size_t n, xr_result **out);
void crossrank_done(fsdpa_ctx *c0, xr_result *r);
void crossrank_json(const xr_result *r, jsonw *w);
fsdpa_status crossrank_findings(const xr_result *r, findings *f);
#endif
