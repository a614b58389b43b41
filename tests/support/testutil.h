/* Shared helpers for the Check tests. */
#ifndef FSDPA_TESTUTIL_H
#define FSDPA_TESTUTIL_H
#include <stddef.h>
#include <stdint.h>
#include <check.h>
#include <fsdpa/fsdpa.h>

/* Directory of the real-trace corpus ($FSDPA_TRACE_CORPUS, else the build's
 * default ../shared/traces), or NULL (with a printed reason) if absent. */
const char *tu_corpus_dir(void);
/* Source / build roots from the environment meson sets. */
const char *tu_source_root(void);
const char *tu_build_root(void);
/* <build>/tests/gen, where tests write generated files: created on first
 * use, so no test depends on another having run before it. */
const char *tu_gen_dir(void);
/* Read a whole file (binary, NUL-terminated after its bytes); caller frees.
 * NULL on failure. */
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

/* ---- hand-built events and generator scenarios (sync and allocator tests) ---- */
/* Add one complete ('X') event; asserts it is accepted. */
void tu_add_x(fsdpa_ctx *c, const char *cat, const char *name, int64_t pid, int64_t tid, int64_t ts,
              int64_t dur, int64_t corr);
/* CPU launch call (pid 10, thread tid, at `at`) + the kernel it queued on
 * stream `stream` over [s, e), linked by correlation corr. */
void tu_launch_kernel(fsdpa_ctx *c, int64_t tid, int64_t at, int64_t corr, int64_t stream, int64_t s, int64_t e,
                      const char *kname);
/* A new context with the default options; asserts it was made. */
fsdpa_ctx *tu_new_ctx(void);
/* The JSON an HTML report page embeds in its script element of this id
 * (fsdpa-report: the report, fsdpa-viz: the picture data), malloc'd; the
 * test fails where the element is missing or its text is not JSON. */
char *tu_page_json(const char *html, const char *id);
/* Does a JSON report hold a finding with this id. */
int tu_report_has_finding(const char *rep, const char *id);
/* One step with a cudaStreamSynchronize whose waited kernel is inferred from
 * the thread's last launch, and a cudaDeviceSynchronize on a thread that
 * never launched anything (the known answers are in test_sync.c). */
void tu_build_sync_inferred(fsdpa_ctx *c);
/* Generate a tools/tracegen scenario (--steps 6) and check the sync and
 * allocator queries and findings against its truth file; `must` / `must_not`:
 * a finding id that must be present / absent, or NULL.  Skips (printed) when
 * the generator fails. */
void tu_check_sync_alloc_scenario(const char *scenario, const char *must, const char *must_not);
/* An 'X' (complete) event with the common fields; every other field absent
 * (fsdpa_event_init).  Strings are not copied: keep them alive until added. */
fsdpa_event tu_x(const char *cat, const char *name, int64_t pid, int64_t tid, int64_t ts, int64_t dur,
                 int64_t corr);
/* Add an event; the test fails if the library refuses it. */
void tu_add(fsdpa_ctx *c, const fsdpa_event *e);
/* The real-trace files under dir (*.json and *.json.gz, recursively),
 * sorted by path: *out is an array of malloc'd paths, released with
 * tu_free_paths(). */
size_t tu_corpus_files(const char *dir, char ***out);
void tu_free_paths(char **paths, size_t n);
/* Item i of a list into `item` (a struct of `size` bytes, size field set
 * here); the test fails if the library refuses it. */
void tu_list_item(const fsdpa_list *l, size_t i, void *item, size_t size);
#define TU_ITEM(l, i, x) tu_list_item((l), (i), &(x), sizeof(x))

/* ---- FSDP unit lists ---- */
/* The FSDP units of a query (q NULL: the whole trace); the test fails if
 * the library refuses it. */
fsdpa_list *tu_unit_list(fsdpa_ctx *c, const fsdpa_query *q);
/* Two unit lists hold the same units with the same numbers (or the test fails). */
void tu_same_units(const fsdpa_list *a, const fsdpa_list *b);

/* ---- allocation failures ---- */
/* The state of tu_fault_allocator(): tests set calls to 0 and fail_at to
 * the call that must fail, then check outstanding after freeing. */
typedef struct tu_fault {
  long calls;           /* allocator calls (malloc and realloc) so far */
  long fail_at;         /* the call (counted from 1) that returns NULL; 0 or less: none */
  int64_t outstanding;  /* bytes handed out and not freed: 0 when nothing leaked */
} tu_fault;
/* A malloc-backed fsdpa_allocator over f whose call number f->fail_at fails. */
fsdpa_allocator tu_fault_allocator(tu_fault *f);

/* ---- every suite's main() ---- */
/* Add a test case to suite s: its tests (a NULL-terminated array), its
 * timeout in seconds (0 keeps Check's default, CK_DEFAULT_TIMEOUT) and a
 * checked fixture's setup run before each test (NULL for none). */
TCase *tu_case_add(Suite *s, const char *name, double timeout_s, void (*setup)(void), const TTest *const *tests);
#define TU_CASE(s, name, timeout_s, setup, ...) \
  tu_case_add((s), (name), (timeout_s), (setup), (const TTest *const[]){__VA_ARGS__, NULL})
/* Run every case of s as the environment selects (CK_RUN_CASE, CK_FORK,
 * CK_VERBOSITY ...) and free it; the process's exit status: EXIT_SUCCESS
 * when no test failed. */
int tu_run_suite(Suite *s);
#endif
