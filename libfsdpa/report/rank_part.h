/* The per-rank work of a report, uncached (rank_part.c): what a context
 * contributes by itself, whatever the other ranks are. */
#ifndef FSDPA_REPORT_RANK_PART_H
#define FSDPA_REPORT_RANK_PART_H
#include "ctx.h"
#include "util/jsonw.h"
#include "findings/findings.h"

/* Findings of one rank from every per-rank analysis (appended, unsorted). */
fsdpa_status rank_findings_compute(fsdpa_ctx *c, int64_t rank, findings *f);
/* The rank's section of "ranks" (one JSON object). */
fsdpa_status rank_json_write(fsdpa_ctx *c, int64_t rank, jsonw *w);
#endif
