/* Shared helpers for the Check tests. */
#ifndef FSDPA_TESTUTIL_H
#define FSDPA_TESTUTIL_H
#include <stddef.h>
#include <stdint.h>
#include <fsdpa/fsdpa.h>

/* Directory of the real-trace corpus ($FSDPA_TRACE_CORPUS, else the build's
 * default ../shared/traces), or NULL (with a printed reason) if absent. */
const char *tu_corpus_dir(void);
/* Source / build roots from the environment meson sets. */
const char *tu_source_root(void);
const char *tu_build_root(void);
/* Read a whole file (binary); caller frees. NULL on failure. */
char *tu_read_file(const char *path, size_t *len);
/* Run a shell command, capture stdout; caller frees. NULL on failure. */
char *tu_run(const char *cmd, int *status);
/* Generate a trace with tools/tracegen into dir; returns malloc'd path of
 * the trace (rank 0 for multi-rank) or NULL. extra: more CLI args. */
char *tu_tracegen(const char *scenario, const char *extra, const char *name);
/* Feed a buffer to a new context in chunks of `chunk` bytes (0 = whole);
 * returns the context (NULL on failure, status in *st). */
fsdpa_ctx *tu_feed_chunks(const char *buf, size_t len, size_t chunk, fsdpa_status *st);
/* JSON report over n contexts (paths may be NULL), as fsdpa_report() returns
 * it (release with fsdpa_free); NULL if the call failed.  Kept out of line:
 * gcc 12 at -O3 misreads the out-parameter of an inlined helper as a
 * dangling pointer. */
char *tu_report_json(fsdpa_ctx *const *c, size_t n, const char *const *paths, size_t *len);
/* JSON report of one context (malloc'd copy). */
char *tu_report(fsdpa_ctx *c, fsdpa_format fmt);
/* Simple numeric lookup in a JSON text: the first number after "key": at or
 * after `from` (NULL = start). Returns 1 and *out if found. */
int tu_json_num(const char *json, const char *key, const char *from, double *out);
#endif
