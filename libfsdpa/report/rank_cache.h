/* A context's own part of a report, memoized in the context (rank_cache.c):
 * fsdpa_report() over one context, run in that context's own thread, does
 * the per-rank work of a later report over many contexts. */
#ifndef FSDPA_REPORT_RANK_CACHE_H
#define FSDPA_REPORT_RANK_CACHE_H
#include "ctx.h"
#include "util/jsonw.h"
#include "findings/findings.h"

/* The rank's findings (rank_findings_compute(), cached), appended to f. */
fsdpa_status report_rank_findings(fsdpa_ctx *c, int64_t rank, findings *f);
/* The rank's section (rank_json_write(), cached), written into w in the
 * state w is in. */
fsdpa_status report_rank_json(fsdpa_ctx *c, int64_t rank, jsonw *w);
#endif
