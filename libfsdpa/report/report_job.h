/* The report's view of the whole job (the `job` section) and the end of the
 * report that fsdpa_report() and the report of a summary share: cross_rank,
 * findings, not_judged and job.  The job section is made from the ranks'
 * sections as written (their JSON text) and the findings, so a report made
 * from summaries, which keep those bytes, has the same one. */
#ifndef FSDPA_REPORT_REPORT_JOB_H
#define FSDPA_REPORT_REPORT_JOB_H
#include "util/jsonw.h"
#include "findings/findings.h"
#include "analysis/crossrank/crossrank.h"

/* One rank's section of "ranks", as its JSON text (pretty or compact). */
typedef struct rank_text {
  const char *p;
  size_t len;
} rank_text;

/* Write "cross_rank", "findings", "not_judged" and "job" (keys and values)
 * into the open top-level object of w.  `ranks`: the n sections in report
 * order; `all`: every finding, sorted (findings_sort). */
fsdpa_status report_tail_json(fa_alloc *a, const rank_text *ranks, size_t n, const xr_result *xr,
                              const findings *all, jsonw *w);
#endif
