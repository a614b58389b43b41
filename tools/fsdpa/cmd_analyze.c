/* fsdpa analyze: one trace per rank in, one report out.
 *
 * Ranks are read by -j worker threads; each worker also makes its rank's
 * part of the report (or, under --low-memory, its summary), so the report
 * over all ranks afterwards only copies the parts and runs the cross-rank
 * analysis. */
#include "cli_inputs.h"
#include "cli_job.h"
#include "cli_io.h"
#include "cli_opts.h"
#include "cmd.h"
#include "progress.h"
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

typedef struct job {
  const char *path;
  int from_dir;       /* a directory's file: skipped with a warning if not a trace */
  int skipped;
  int empty;          /* read, but holds no event (refused unless --allow-empty) */
  int64_t world_size; /* distributedInfo.world_size, FSDPA_ABSENT if unknown */
  fsdpa_ctx *ctx;     /* freed early under --low-memory once summarized */
  char *sum;          /* --low-memory: the rank's summary */
  size_t sum_len;
  fsdpa_status st;
} job;

typedef struct shared {
  const cli_args *args;
  job *jobs;
  size_t n, next;
  pthread_mutex_t mu;  /* next, and the progress bar */
  progress bar;
} shared;

static fsdpa_status read_one(shared *sh, job *j) {
  const cli_args *a = sh->args;
  fsdpa_options o;
  fsdpa_options_init(&o);
  o.name = j->path;
  o.max_memory_bytes = a->max_memory;
  fsdpa_status st = fsdpa_ctx_new(&j->ctx, &o);
  if (st) return st;
  for (size_t i = 0; i < a->nsets; i++) {
    st = fsdpa_param_set(j->ctx, a->sets[i].key, cli_set_value(&a->sets[i]));
    if (st) return st;
  }
  FILE *f = strcmp(j->path, "-") == 0 ? stdin : fopen(j->path, "rb");
  if (!f) {
    fprintf(stderr, "%s: %s: cannot open: %s\n", cli_prog, j->path, strerror(errno));
    return FSDPA_EIO;
  }
  enum { BUF = 1 << 20 };
  char *buf = malloc(BUF);
  if (!buf) {
    if (f != stdin) fclose(f);
    return FSDPA_ENOMEM;
  }
  size_t n;
  st = FSDPA_OK;
  while ((n = fread(buf, 1, BUF, f)) > 0) {
    st = fsdpa_feed(j->ctx, buf, n);
    if (st) break;
    pthread_mutex_lock(&sh->mu);
    progress_add(&sh->bar, n);
    pthread_mutex_unlock(&sh->mu);
  }
  if (!st && ferror(f)) {
    fprintf(stderr, "%s: %s: read error: %s\n", cli_prog, j->path, strerror(errno));
    st = FSDPA_EIO;
  } else if (!st) {
    st = fsdpa_finish(j->ctx);
  }
  free(buf);
  if (f != stdin) fclose(f);
  return st;
}

/* This rank's part of the report, made in the worker's thread: the library
 * keeps a context's findings and "ranks" section (and the analyses under
 * them), so the serial report afterwards only copies them.  The report
 * written here is thrown away; a failure is met again, and reported, by the
 * real one. */
static void warm(fsdpa_ctx *c, const char *path) {
  fsdpa_report_options o;
  fsdpa_report_options_init(&o);
  char *rep = NULL;
  if (fsdpa_report(&c, &path, 1, &o, &rep, NULL, NULL) == FSDPA_OK) fsdpa_free(rep);
}

/* --low-memory: the rank's summary instead of its context (numbered by
 * cli_number_unranked() first, so the merged summaries report the same bytes). */
static fsdpa_status summarize_job(job *j) {
  fsdpa_status st = fsdpa_summary_write(j->ctx, j->path, &j->sum, &j->sum_len);
  if (st) return st;
  fsdpa_ctx_free(j->ctx);
  j->ctx = NULL;
  return FSDPA_OK;
}

static void *worker(void *arg) {
  shared *sh = arg;
  for (;;) {
    pthread_mutex_lock(&sh->mu);
    size_t i = sh->next++;
    pthread_mutex_unlock(&sh->mu);
    if (i >= sh->n) break;
    job *j = &sh->jobs[i];
    j->st = read_one(sh, j);
    if (j->st == FSDPA_ENOTTRACE && j->from_dir) {
      j->skipped = 1;
      continue;
    }
    if (j->st == FSDPA_OK && !sh->args->allow_empty && cli_trace_empty(j->ctx)) {
      j->st = FSDPA_ENOTTRACE;
      j->empty = 1;
      continue;
    }
    if (j->st == FSDPA_OK) j->st = cli_number_unranked(j->ctx, i, &j->world_size);
    if (j->st == FSDPA_OK && sh->args->low_memory) j->st = summarize_job(j);
    else if (j->st == FSDPA_OK && sh->n > 1) warm(j->ctx, j->path);
  }
  return NULL;
}

/* --low-memory: the report of the ranks' merged summaries (the same bytes as
 * fsdpa_report() over their contexts: fsdpa_summary_report()'s contract). */
static fsdpa_status report_from_summaries(const shared *sh, const fsdpa_report_options *ro, char **rep,
                                          size_t *len, fsdpa_list **findings, fsdpa_error *e) {
  const char **sums = calloc(sh->n, sizeof *sums);
  size_t *lens = calloc(sh->n, sizeof *lens);
  fsdpa_status st = FSDPA_ENOMEM;
  if (sums && lens) {
    for (size_t i = 0; i < sh->n; i++) {
      sums[i] = sh->jobs[i].sum;
      lens[i] = sh->jobs[i].sum_len;
    }
    char *merged = NULL;
    size_t mlen = 0;
    st = fsdpa_summary_merge(sums, lens, sh->n, NULL, &merged, &mlen, e);
    if (!st) st = fsdpa_summary_report(merged, mlen, NULL, ro, rep, len, e);
    if (!st && findings) st = fsdpa_summary_findings(merged, mlen, NULL, findings, e);
    fsdpa_free(merged);
  }
  free(sums);
  free(lens);
  return st;
}

/* Sizes for the progress bar: on disk, and decompressed where a gzip
 * trailer tells (it holds the size modulo 4 GiB, so never less than the
 * file is taken). */
static void input_sizes(const cli_inputs *in, uint64_t *file_bytes, uint64_t *data_bytes) {
  int unknown = 0;
  *file_bytes = *data_bytes = 0;
  for (size_t i = 0; i < in->n; i++) {
    struct stat st;
    if (!strcmp(in->paths[i], "-") || stat(in->paths[i], &st) || !S_ISREG(st.st_mode)) {
      unknown = 1;
      continue;
    }
    uint64_t disk = (uint64_t)st.st_size, data = disk, isize = 0;
    if (cli_gzip_isize(in->paths[i], &isize) && isize > data) data = isize;
    *file_bytes += disk;
    *data_bytes += data;
  }
  if (unknown) *file_bytes = 0;
}

static void report_failure(const job *j, const cli_args *a) {
  const char *m = j->ctx ? fsdpa_errmsg(j->ctx) : "";
  if (j->st == FSDPA_EIO && !(m && *m)) return; /* read_one() said it */
  cli_trace_failed(j->path, j->ctx, j->st, a->max_memory ? a->max_memory_text : NULL);
}

int cli_analyze_inputs(const cli_args *a, const cli_inputs *in, const fsdpa_report_options *ro, char **rep,
                       size_t *len, fsdpa_list **findings) {
  int rc = 0;
  *rep = NULL;
  *len = 0;
  if (findings) *findings = NULL;
  size_t n = in->n;
  shared sh;
  memset(&sh, 0, sizeof sh);
  sh.args = a;
  sh.jobs = calloc(n, sizeof(job));
  sh.n = n;
  fsdpa_ctx **ctxs = calloc(n, sizeof *ctxs);
  if (!sh.jobs || !ctxs) {
    fprintf(stderr, "%s: out of memory\n", cli_prog);
    free(sh.jobs);
    free(ctxs);
    return EXIT_IO;
  }
  pthread_mutex_init(&sh.mu, NULL);
  for (size_t i = 0; i < n; i++) {
    sh.jobs[i].path = in->paths[i];
    sh.jobs[i].from_dir = in->from_dir[i];
  }
  uint64_t file_bytes, data_bytes;
  input_sizes(in, &file_bytes, &data_bytes);
  progress_start(&sh.bar, a->progress && isatty(STDERR_FILENO), file_bytes, data_bytes);
  int jobs = (size_t)a->jobs > n ? (int)n : a->jobs;
  if (jobs <= 1) {
    worker(&sh);
  } else {
    pthread_t *th = calloc((size_t)jobs, sizeof *th);
    int started = 0;
    for (int t = 0; th && t < jobs; t++)
      if (pthread_create(&th[t], NULL, worker, &sh) == 0) started++;
    if (!started) worker(&sh);
    for (int t = 0; t < started; t++) pthread_join(th[t], NULL);
    free(th);
  }
  progress_end(&sh.bar);

  /* the traces the report is over: a directory's files that are not
   * traces are left out (said once each), in the order given */
  size_t kept = 0;
  const char **paths = calloc(n ? n : 1, sizeof *paths);
  job *kept_jobs = calloc(n ? n : 1, sizeof *kept_jobs);
  if (!paths || !kept_jobs) {
    fprintf(stderr, "%s: out of memory\n", cli_prog);
    rc = EXIT_IO;
  }
  for (size_t i = 0; i < n && paths && kept_jobs; i++) {
    job *j = &sh.jobs[i];
    if (j->skipped) {
      cli_warn_skipped(j->path, j->ctx);
      continue;
    }
    if (j->empty) {
      cli_trace_empty_failed(j->path);
      rc = EXIT_IO;
    } else if (j->st != FSDPA_OK) {
      report_failure(j, a);
      rc = EXIT_IO;
    }
    ctxs[kept] = j->ctx;
    paths[kept] = j->path;
    kept_jobs[kept++] = *j;
  }
  if (!rc) {
    int64_t *ws = calloc(kept ? kept : 1, sizeof *ws);
    for (size_t k = 0; ws && k < kept; k++) ws[k] = kept_jobs[k].world_size;
    if (ws) cli_warn_mixed_jobs(ws, paths, kept);
    free(ws);
  }
  if (!rc && !kept) {
    fprintf(stderr, "%s: no traces to analyze: every file of the directories given was skipped\n", cli_prog);
    rc = EXIT_IO;
  }
  if (!rc) {
    fsdpa_error e;
    fsdpa_error_init(&e);
    shared ksh = sh;
    ksh.jobs = kept_jobs;
    ksh.n = kept;
    fsdpa_status st = a->low_memory ? report_from_summaries(&ksh, ro, rep, len, findings, &e)
                                    : fsdpa_report(ctxs, paths, kept, ro, rep, len, &e);
    if (!st && findings && !a->low_memory) st = fsdpa_report_findings(ctxs, kept, findings, &e);
    if (st) {
      cli_report_failed(&e, st, paths, kept);
      fsdpa_free(*rep);
      *rep = NULL;
      if (findings) {
        fsdpa_list_free(*findings);
        *findings = NULL;
      }
      rc = EXIT_IO;
    }
  }
  free(paths);
  free(kept_jobs);
  for (size_t i = 0; i < n; i++) {
    fsdpa_ctx_free(sh.jobs[i].ctx);
    fsdpa_free(sh.jobs[i].sum);
  }
  free(ctxs);
  free(sh.jobs);
  pthread_mutex_destroy(&sh.mu);
  return rc;
}

int cmd_analyze(const cli_args *a) {
  cli_inputs in;
  int rc = cli_inputs_expand(a->operands, a->noperands, OPERAND_TRACES, &in);
  if (rc) {
    cli_inputs_free(&in);
    return rc;
  }
  int to_stdout = cli_is_stdout(a->output);
  int to_tty = to_stdout && isatty(STDOUT_FILENO);
  fsdpa_report_options ro;
  fsdpa_report_options_init(&ro);
  ro.html_step = a->html_step;
  /* an output that cannot be written says so (exit 3) before its name's
   * format is questioned */
  if ((rc = cli_check_output(a->output)) || (rc = cli_output_format(a, to_tty, &ro.format))) {
    cli_inputs_free(&in);
    return rc;
  }
  const char *nc = getenv("NO_COLOR");
  ro.color = a->color >= 0 ? a->color : (to_tty && !(nc && *nc));
  ro.width = cli_term_width(to_stdout);
  if (a->low_memory && ro.format != FSDPA_FORMAT_JSON) {
    fprintf(stderr, "%s: --low-memory writes json only (text and html need the events)\n", cli_prog);
    cli_inputs_free(&in);
    return EXIT_USAGE;
  }

  char *rep = NULL;
  size_t len = 0;
  fsdpa_list *fl = NULL;
  rc = cli_analyze_inputs(a, &in, &ro, &rep, &len, a->fail_on >= 0 ? &fl : NULL);
  if (!rc) {
    rc = cli_write_output(a->output, rep, len);
    if (!rc && a->fail_on >= 0 && cli_fail_on(fl, a->fail_on)) rc = EXIT_FINDINGS;
  }
  fsdpa_list_free(fl);
  fsdpa_free(rep);
  cli_inputs_free(&in);
  return rc;
}
