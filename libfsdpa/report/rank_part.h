/* The per-rank work of a report, uncached (rank_part.c): what a context
 * contributes by itself, whatever the other ranks are. */
#ifndef FSDPA_REPORT_RANK_PART_H
#define FSDPA_REPORT_RANK_PART_H
#include "ctx.h"
#include "util/jsonw.h"
#include "findings/findings.h"

/* Findings of one rank from every per-rank analysis (appended, unsorted). */
fsdpa_status rank_findings_compute(fsdpa_ctx *c, int64_t rank, findings *f);
/* One communication kernel family (the report's comm_families): the rule
 * and family are comm_code's (events/comm_class.h). */
typedef struct cf_row {
  uint32_t code, example;  /* example: intern id of the family's first kernel (by start) */
  uint64_t kernels;
  int64_t busy;            /* |union of the family's kernels| */
  const char *family;      /* borrowed from the store or the family table */
  size_t family_len;
  size_t alloc_n;          /* row 0 only: the allocation's row count */
} cf_row;
/* The families of the context's trace, in report order (rule, then family);
 * *rows NULL when there are none.  Free with comm_families_free(). */
fsdpa_status comm_families_rows(fsdpa_ctx *c, cf_row **rows, size_t *n);
void comm_families_free(fsdpa_ctx *c, cf_row *rows);
/* The rank's section of "ranks" (one JSON object). */
fsdpa_status rank_json_write(fsdpa_ctx *c, int64_t rank, jsonw *w);
#endif
