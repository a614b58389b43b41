/* fsdpa analyze: one trace per rank in, one report out.
 *
 * Ranks are read by -j worker threads; each worker also makes its rank's
 * part of the report (or, under --low-memory, its summary), so the report
 * over all ranks afterwards only copies the parts and runs the cross-rank
 * analysis. */
#include "cli_inputs.h"
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

/* --low-memory: the rank's summary instead of its context.  A trace without
 * a rank is numbered by its position, as fsdpa_report() numbers it, so the
 * merged summaries report the same bytes. */
static fsdpa_status summarize_job(job *j, size_t index) {
  fsdpa_trace_info ti;
  fsdpa_trace_info_init(&ti);
  if (fsdpa_trace_info_get(j->ctx, &ti) == FSDPA_OK && ti.rank == FSDPA_ABSENT) {
    fsdpa_trace_info_init(&ti);
    ti.rank = (int64_t)index;
    fsdpa_status st = fsdpa_trace_info_set(j->ctx, &ti);
    if (st) return st;
  }
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
    if (j->st == FSDPA_OK && sh->args->low_memory) j->st = summarize_job(j, i);
    else if (j->st == FSDPA_OK && sh->n > 1) warm(j->ctx, j->path);
  }
  return NULL;
}

/* Highest severity of the findings list a call just made (-1: none, or the
 * call failed).  The list goes by address: worst_of(f(&l), l) could pass l
 * before f() has set it, as the order arguments are evaluated in is not
 * defined. */
static int worst_of(fsdpa_status st, fsdpa_list **l) {
  int w = st ? -1 : fsdpa_findings_worst(*l);
  fsdpa_list_free(*l);
  *l = NULL;
  return w;
}

/* --low-memory: the report of the ranks' merged summaries (the same bytes as
 * fsdpa_report() over their contexts: fsdpa_summary_report()'s contract). */
static fsdpa_status report_from_summaries(const shared *sh, const fsdpa_report_options *ro, char **rep,
                                          size_t *len, int *worst, fsdpa_error *e) {
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
    if (!st && worst) {
      fsdpa_list *fl = NULL;
      *worst = worst_of(fsdpa_summary_findings(merged, mlen, NULL, &fl, NULL), &fl);
    }
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
  if (a->has_format) ro.format = a->format;
  else if (to_stdout || !cli_format_of_name(a->output, &ro.format)) ro.format = to_tty ? FSDPA_FORMAT_TEXT : FSDPA_FORMAT_JSON;
  const char *nc = getenv("NO_COLOR");
  ro.color = a->color >= 0 ? a->color : (to_tty && !(nc && *nc));
  ro.width = cli_term_width(to_stdout);
  if (a->low_memory && ro.format != FSDPA_FORMAT_JSON) {
    fprintf(stderr, "%s: --low-memory writes json only (text and html need the events)\n", cli_prog);
    cli_inputs_free(&in);
    return EXIT_USAGE;
  }
  if ((rc = cli_check_output(a->output))) {
    cli_inputs_free(&in);
    return rc;
  }

  size_t n = in.n;
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
    cli_inputs_free(&in);
    return EXIT_IO;
  }
  pthread_mutex_init(&sh.mu, NULL);
  for (size_t i = 0; i < n; i++) sh.jobs[i].path = in.paths[i];
  uint64_t file_bytes, data_bytes;
  input_sizes(&in, &file_bytes, &data_bytes);
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

  for (size_t i = 0; i < n; i++) {
    job *j = &sh.jobs[i];
    if (j->st != FSDPA_OK) {
      report_failure(j, a);
      rc = EXIT_IO;
    }
    ctxs[i] = j->ctx;
  }
  if (!rc) {
    char *rep = NULL;
    size_t len = 0;
    int worst = -1;
    fsdpa_error e;
    fsdpa_error_init(&e);
    const char *const *paths = (const char *const *)in.paths;
    fsdpa_status st = a->low_memory ? report_from_summaries(&sh, &ro, &rep, &len, a->fail_on >= 0 ? &worst : NULL, &e)
                                    : fsdpa_report(ctxs, paths, n, &ro, &rep, &len, &e);
    if (!st && a->fail_on >= 0 && !a->low_memory) {
      fsdpa_list *fl = NULL;
      worst = worst_of(fsdpa_report_findings(ctxs, n, &fl, NULL), &fl);
    }
    if (st) {
      fprintf(stderr, "%s: report: %s\n", cli_prog, e.message[0] ? e.message : cli_status_text(st));
      rc = EXIT_IO;
    } else {
      rc = cli_write_output(a->output, rep, len);
      if (!rc && a->fail_on >= 0 && worst >= a->fail_on) rc = EXIT_FINDINGS;
    }
    fsdpa_free(rep);
  }
  for (size_t i = 0; i < n; i++) {
    fsdpa_ctx_free(sh.jobs[i].ctx);
    fsdpa_free(sh.jobs[i].sum);
  }
  free(ctxs);
  free(sh.jobs);
  pthread_mutex_destroy(&sh.mu);
  cli_inputs_free(&in);
  return rc;
}
