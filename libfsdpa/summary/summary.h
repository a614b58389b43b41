/* Summaries (fsdpa.summary/1, docs/summary-format.md): what one rank
 * contributes to a report, so ranks can be analysed where their traces live
 * and combined centrally.  A summary is a JSON object with a list of ranks;
 * each rank holds its inputs entry, its report section and findings (written
 * by the report's own code), its crossrank parameters and its collective
 * table.  Reading one back gives the pieces the report needs. */
#ifndef FSDPA_SUMMARY_SUMMARY_H
#define FSDPA_SUMMARY_SUMMARY_H
#include "analysis/crossrank/crossrank.h"
#include "util/jsonr.h"

#define SUMMARY_SCHEMA "fsdpa.summary/1"

typedef struct sum_finding {
  const char *id, *title, *detail, *advice, *evidence;  /* NUL-terminated, in the doc arena */
  int severity;
  int64_t rank, step, cost;
  iv ranges[FINDING_MAX_RANGES];
  int nranges;
} sum_finding;

typedef struct sum_rank {
  const char *path;                 /* decoded, in the arena */
  int64_t rank, world_size, events, bytes;
  const char *section;              /* the rank's report section, verbatim (span of the input) */
  size_t section_len;
  const char *raw;                  /* the whole rank entry, verbatim (for merging) */
  size_t raw_len;
  sum_finding *f;
  size_t nf, fcap;
  int64_t params[P__COUNT];         /* defaults, with the summary's crossrank.* values */
  xr_table tab;
} sum_rank;

typedef struct sum_doc {
  fa_alloc *a;
  sum_rank *r;
  size_t n, cap;
  char *arena;                      /* decoded strings */
  size_t arena_used, arena_cap;
} sum_doc;

/* Parse a summary (its text must outlive the doc: spans point into it).
 * EPARSE with a message in msg on malformed input. */
/* *err_off: byte offset of a parse error in s, else FSDPA_ABSENT. */
fsdpa_status sum_parse(fa_alloc *a, const char *s, size_t n, sum_doc *d, char *msg, size_t msg_len,
                       int64_t *err_off);
void sum_doc_free(sum_doc *d);
/* Write the JSON report of a parsed summary, identical to report_json();
 * a summary that holds a rank twice is EINVAL with the message in err. */
fsdpa_status sum_report_json(sum_doc *d, sbuf *out, fsdpa_error *err);
#endif
