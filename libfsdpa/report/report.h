/* Report layer: turns the analyses of one or more contexts into the JSON
 * contract, text for people, or an HTML page. */
#ifndef FSDPA_REPORT_H
#define FSDPA_REPORT_H
#include "ctx.h"
#include "util/jsonw.h"
#include "findings/findings.h"
#include "analysis/launch_gaps/launch_gaps.h"
#include "analysis/overlap/overlap.h"
#include "analysis/fsdp/fsdp.h"
#include "analysis/sync/sync.h"
#include "analysis/allocator/allocator.h"
#include "analysis/crossrank/crossrank.h"

typedef struct report_in {
  fsdpa_ctx *const *ctxs;
  const char *const *paths;
  size_t n;
  int64_t *ranks;            /* resolved rank per context */
  findings all;              /* every finding, sorted by cost */
  xr_result *xr;             /* the cross-rank analysis, NULL below two ranks */
  const fsdpa_report_options *opts;
} report_in;

/* Findings of one rank from every per-rank analysis (appended, unsorted). */
fsdpa_status report_rank_findings(fsdpa_ctx *c, int64_t rank, findings *f);
/* Findings of all ranks plus the cross-rank ones (from xr, or run here when
 * xr is NULL), sorted by cost: what fsdpa_report() shows (annotate uses the
 * same list). */
fsdpa_status report_collect(fsdpa_ctx *const *ctxs, const int64_t *ranks, size_t n,
                            const xr_result *xr, findings *all);
/* Write the whole JSON report (contract fsdpa.report/1). */
fsdpa_status report_json(report_in *in, sbuf *out, int pretty);
/* Text for a terminal (uses the same analyses and findings). */
fsdpa_status report_text(report_in *in, sbuf *out);
/* One self-contained HTML page. */
fsdpa_status report_html(report_in *in, sbuf *out);
/* The rank section of one context (also used by summaries).  Both this and
 * report_rank_findings() are memoized per context (rank_cache.c), so that
 * fsdpa_report() over one context, run in that context's own thread, does
 * the per-rank work of a later report over many contexts. */
fsdpa_status report_rank_json(fsdpa_ctx *c, int64_t rank, jsonw *w);
/* The uncached work behind the two (report.c). */
fsdpa_status rank_findings_compute(fsdpa_ctx *c, int64_t rank, findings *f);
fsdpa_status rank_json_write(fsdpa_ctx *c, int64_t rank, jsonw *w);
static inline const char *report_path(const report_in *in, size_t i) {
  return in->paths && in->paths[i] ? in->paths[i] : "<input>";
}
#endif
