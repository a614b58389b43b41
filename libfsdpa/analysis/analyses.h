/* The hooks each analysis offers the report layer.  Analyses are peers:
 * each reads the event store (through ctx and store_get_views) and never
 * another analysis.  Each `*_json` writes exactly one JSON value (its section
 * of a rank in the report contract, or null when it cannot be computed);
 * each `*_findings` appends its findings for that rank. */
#ifndef FSDPA_ANALYSIS_ANALYSES_H
#define FSDPA_ANALYSIS_ANALYSES_H
#include "ctx.h"
#include "util/jsonw.h"
#include "findings/findings.h"

/* launch_gaps.c (issue 3): ranks[].launch_gaps */
fsdpa_status launch_gaps_json(fsdpa_ctx *c, jsonw *w);
fsdpa_status launch_gaps_findings(fsdpa_ctx *c, int64_t rank, findings *f);

/* overlap.c (issue 4): ranks[].overlap */
fsdpa_status overlap_json(fsdpa_ctx *c, jsonw *w);
fsdpa_status overlap_findings(fsdpa_ctx *c, int64_t rank, findings *f);

/* fsdp_units.c (issue 4): ranks[].fsdp.version and ranks[].fsdp.units */
const char *fsdp_version_name(fsdpa_ctx *c);  /* "fsdp1", "fsdp2" or NULL */
fsdpa_status fsdp_units_json(fsdpa_ctx *c, jsonw *w);

/* backward.c (issue 5): ranks[].fsdp.backward */
fsdpa_status backward_json(fsdpa_ctx *c, jsonw *w);
fsdpa_status backward_findings(fsdpa_ctx *c, int64_t rank, findings *f);

/* sync_waits.c (issue 5): ranks[].sync_waits */
fsdpa_status sync_waits_json(fsdpa_ctx *c, jsonw *w);
fsdpa_status sync_waits_findings(fsdpa_ctx *c, int64_t rank, findings *f);

/* allocator.c (issue 6): ranks[].allocator */
fsdpa_status allocator_json(fsdpa_ctx *c, jsonw *w);
fsdpa_status allocator_findings(fsdpa_ctx *c, int64_t rank, findings *f);

/* crossrank.c (issue 11): top-level cross_rank over all ranks.  Run once per
 * report (crossrank_run: *out NULL for fewer than two ranks), then its
 * findings and JSON (null without a result) from the same result. */
typedef struct xr_result xr_result;
fsdpa_status crossrank_run(fsdpa_ctx *const *ctxs, const int64_t *ranks, size_t n, xr_result **out);
void crossrank_done(fsdpa_ctx *c0, xr_result *r);
void crossrank_json(const xr_result *r, jsonw *w);
fsdpa_status crossrank_findings(const xr_result *r, findings *f);
#endif
