/* What the commands that read the traces of one job share: which files are
 * left out (a directory's file that is not a trace), which traces are
 * refused (an empty one, unless --allow-empty), how a trace without a rank
 * is numbered, how a failed report is told, and what --fail-on says when it
 * fails the run. */
#ifndef FSDPA_CLI_JOB_H
#define FSDPA_CLI_JOB_H

#include <fsdpa/fsdpa.h>
#include <stddef.h>

/* Whether a trace that was read whole holds no event at all (`[]`,
 * `{"traceEvents":[]}`): a profile that recorded nothing, which a report
 * would call "no findings". */
int cli_trace_empty(fsdpa_ctx *ctx);
/* Say that `path` is refused for being empty (exit status 3). */
void cli_trace_empty_failed(const char *path);
/* Say that a directory's file `path` is left out: it is not a trace
 * (the library's message in `ctx`). */
void cli_warn_skipped(const char *path, fsdpa_ctx *ctx);
/* A trace without distributedInfo.rank gets its position among the inputs
 * (`index`), as fsdpa_report() numbers it: set here, where the trace is
 * read, so that a summary made from it (--low-memory) carries the number.
 * *world_size: the trace's world size (FSDPA_ABSENT if unknown). */
fsdpa_status cli_number_unranked(fsdpa_ctx *ctx, size_t index, int64_t *world_size);
/* Warn when the traces say different world sizes: two jobs mixed, whose
 * collectives the cross-rank analysis should not match. */
void cli_warn_mixed_jobs(const int64_t *world_sizes, const char *const *paths, size_t n);
/* Say why a report (or merge) failed: the message of `e`, with the file
 * the error is about (e->input, an index into paths) in front, and every
 * "input N" / "summary N" of the message replaced by the N-th file. */
void cli_report_failed(const fsdpa_error *e, fsdpa_status st, const char *const *paths, size_t n);
/* --fail-on: 1 when a finding of `findings` is at or above severity
 * `fail_on`, after saying on standard error which findings crossed it. */
int cli_fail_on(const fsdpa_list *findings, int fail_on);

#endif
