/* Report layer: turns the analyses of one or more contexts into the JSON
 * contract, text for people, or an HTML page. */
#ifndef FSDPA_REPORT_H
#define FSDPA_REPORT_H
#include "ctx.h"
#include "util/jsonw.h"
#include "findings/findings.h"
#include "analysis/crossrank/crossrank.h"

/* The contexts in rank order (ties: the caller's order), so that a report
 * over the same traces does not depend on the order they were given in. */
typedef struct report_in {
  fsdpa_ctx *const *ctxs;
  const char *const *paths;  /* NULL when the caller gave none */
  size_t n;
  int64_t *ranks;            /* resolved rank per context */
  fsdpa_ctx *c0;             /* the caller's first context: it owns the arrays above */
  fsdpa_ctx **own_ctxs;
  const char **own_paths;
  findings all;              /* every finding, sorted by cost */
  xr_result *xr;             /* the cross-rank analysis, NULL below two ranks */
  const fsdpa_report_options *opts;
  int64_t bad_input;         /* the caller's index of an input refused by the job check, else FSDPA_ABSENT */
} report_in;

/* Findings of all ranks plus the cross-rank ones (from xr, or run here when
 * xr is NULL), sorted by cost: what fsdpa_report() shows (annotate uses the
 * same list). */
fsdpa_status report_collect(fsdpa_ctx *const *ctxs, const int64_t *ranks, size_t n,
                            const xr_result *xr, findings *all);
/* The findings as a caller-owned list (fsdpa_report_findings(), summaries). */
fsdpa_status report_findings_list(const findings *f, fa_alloc *a, fsdpa_list **out);
/* Write the whole JSON report (contract fsdpa.report/1). */
fsdpa_status report_json(report_in *in, sbuf *out, int pretty);
/* Text for a terminal (uses the same analyses and findings). */
fsdpa_status report_text(report_in *in, sbuf *out);
/* One self-contained HTML page. */
fsdpa_status report_html(report_in *in, sbuf *out);
static inline const char *report_path(const report_in *in, size_t i) {
  return in->paths && in->paths[i] ? in->paths[i] : "<input>";
}
#endif
