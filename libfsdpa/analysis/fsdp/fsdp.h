/* FSDP units and the backward schedule (zigzag, prefetch): the room's interface for the report layer and summaries.
 * Each `*_json` writes exactly one JSON value (its section of a rank in the
 * report contract, or null when it cannot be computed); each `*_findings`
 * appends its findings for that rank. */
#ifndef FSDPA_ANALYSIS_FSDP_H
#define FSDPA_ANALYSIS_FSDP_H
#include "ctx.h"
#include "util/jsonw.h"
#include "findings/findings.h"

/* fsdp_report.c: ranks[].fsdp.version and ranks[].fsdp.units */
const char *fsdp_version_name(fsdpa_ctx *c);  /* "fsdp1", "fsdp2" or NULL */
fsdpa_status fsdp_units_json(fsdpa_ctx *c, jsonw *w);

/* ranks[].fsdp.backward (fsdp_report.c) and its finding (fsdp_findings.c) */
fsdpa_status backward_json(fsdpa_ctx *c, jsonw *w);
fsdpa_status backward_findings(fsdpa_ctx *c, int64_t rank, findings *f);
#endif
