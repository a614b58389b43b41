/* fsdpa: command-line front end of libfsdpa.
 *
 *   fsdpa analyze [options] TRACE [TRACE ...]
 *
 * Exit status (report contract): 0 report written; 1 findings at or above
 * --fail-on; 2 bad usage; 3 an input could not be read or is not a trace. */
#define FSDPA_EXPERIMENTAL /* fsdpa annotate */
#include <fsdpa/fsdpa.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

enum { EXIT_FINDINGS = 1, EXIT_USAGE = 2, EXIT_INPUT = 3 };

static const char *prog = "fsdpa";

static void usage_main(FILE *f) {
  fprintf(f,
          "usage: fsdpa <command> [options]\n"
          "\n"
          "Reads PyTorch profiler (Kineto) traces of distributed training and says, with\n"
          "numbers and evidence, why the GPUs are not busy.\n"
          "\n"
          "commands:\n"
          "  analyze    analyze one trace per rank and print a report (text, json, html)\n"
          "  annotate   copy a trace with the findings added as events (for Perfetto)\n"
          "  summarize  write a compact per-rank summary (.fsum) to merge elsewhere\n"
          "  merge      combine per-rank summaries into the report of the whole job\n"
          "  params     list the analysis thresholds that --set can change\n"
          "  version    print the version\n"
          "  help CMD   help for a command\n"
          "\n"
          "Run 'fsdpa help analyze' (or 'fsdpa CMD --help') for the options of a command.\n");
}

static void usage_analyze(FILE *f) {
  fprintf(f,
          "usage: fsdpa analyze [options] TRACE [TRACE ...]\n"
          "\n"
          "TRACE is a Kineto / PyTorch-profiler Chrome trace, plain or gzip (.json, .json.gz),\n"
          "or '-' for standard input.  Several TRACEs are the ranks of one job (rank taken from\n"
          "distributedInfo.rank, else the order given).\n"
          "\n"
          "options:\n"
          "  -f, --format FMT     text (default on a terminal), json (default otherwise), html\n"
          "  -o, --output FILE    write the report to FILE instead of standard output\n"
          "      --fail-on SEV    exit 1 if a finding of severity SEV or worse exists\n"
          "                       (info, warning, critical); off by default\n"
          "      --set KEY=VALUE  change an analysis threshold (see 'fsdpa params')\n"
          "  -j, --jobs N         read and analyze N ranks in parallel (default 1)\n"
          "      --low-memory     keep a small summary of each rank instead of its events, so\n"
          "                       memory stays that of N ranks however many there are (json\n"
          "                       only; the report is the same bytes)\n"
          "      --color          color the text report even when not on a terminal\n"
          "      --no-color       never color (NO_COLOR in the environment does the same)\n"
          "      --no-progress    no progress bar on stderr\n"
          "      --html-step N    html: show step index N (0 = first ProfilerStep) in the Gantt view\n"
          "                       first; default: the busiest steady-state step\n"
          "      --max-memory MB  refuse to hold more than MB MiB per trace\n"
          "  -h, --help           this help\n"
          "\n"
          "exit status: 0 report written, 1 findings at or above --fail-on, 2 bad usage,\n"
          "3 an input could not be read or is not a trace.\n");
}

typedef struct kv {
  const char *key, *value;
} kv;

typedef struct job {
  const char *path;
  fsdpa_ctx *ctx;         /* freed early under --low-memory once summarized */
  char *sum;              /* --low-memory: the rank's summary */
  size_t sum_len;
  fsdpa_status st;
  uint64_t size, done;      /* for the progress bar */
} job;

typedef struct shared {
  job *jobs;
  size_t n, next;
  pthread_mutex_t mu;
  kv *sets;
  size_t nsets;
  uint64_t max_memory;
  int progress;
  int low_memory;
  uint64_t total_size;
  time_t last_draw;
} shared;

static void draw_progress(shared *sh, int final) {
  uint64_t done = 0;
  for (size_t i = 0; i < sh->n; i++) done += sh->jobs[i].done;
  double frac = sh->total_size ? (double)done / (double)sh->total_size : 1.0;
  if (frac > 1) frac = 1;
  int w = 40, full = (int)(frac * w);
  fprintf(stderr, "\rreading [");
  for (int i = 0; i < w; i++) fputc(i < full ? '=' : ' ', stderr);
  fprintf(stderr, "] %3d%% %llu MB", (int)(frac * 100), (unsigned long long)(done >> 20));
  if (final) fprintf(stderr, "\n");
  fflush(stderr);
}

static fsdpa_status read_one(shared *sh, job *j) {
  fsdpa_options o;
  fsdpa_options_init(&o);
  o.name = j->path;
  o.max_memory_bytes = sh->max_memory;
  fsdpa_status st = fsdpa_ctx_new(&j->ctx, &o);
  if (st) return st;
  for (size_t i = 0; i < sh->nsets; i++) {
    st = fsdpa_param_set(j->ctx, sh->sets[i].key, sh->sets[i].value);
    if (st) return st;
  }
  FILE *f = strcmp(j->path, "-") == 0 ? stdin : fopen(j->path, "rb");
  if (!f) {
    fprintf(stderr, "%s: %s: cannot open: %s\n", prog, j->path, strerror(errno));
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
    j->done += n;
    if (sh->progress) {
      time_t now = time(NULL);
      if (now != sh->last_draw) {
        sh->last_draw = now;
        draw_progress(sh, 0);
      }
    }
    pthread_mutex_unlock(&sh->mu);
  }
  if (!st && ferror(f)) {
    fprintf(stderr, "%s: %s: read error: %s\n", prog, j->path, strerror(errno));
    st = FSDPA_EIO;
  } else if (!st) {
    st = fsdpa_finish(j->ctx);
  }
  free(buf);
  if (f != stdin) fclose(f);
  return st;
}

/* This rank's part of the report, made here in the worker's thread: the
 * library caches a context's findings and "ranks" section (and the analyses
 * under them), so the serial report over all ranks afterwards only copies
 * them and runs the cross-rank analysis.  The report written here is thrown
 * away; a failure is met again, and reported, by the real one. */
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
    sh->jobs[i].st = read_one(sh, &sh->jobs[i]);
    if (sh->jobs[i].st == FSDPA_OK && sh->low_memory) sh->jobs[i].st = summarize_job(&sh->jobs[i], i);
    else if (sh->jobs[i].st == FSDPA_OK && sh->n > 1) warm(sh->jobs[i].ctx, sh->jobs[i].path);
  }
  return NULL;
}

static int sev_rank(const char *s) {
  if (!strcmp(s, "info")) return 0;
  if (!strcmp(s, "warning")) return 1;
  if (!strcmp(s, "critical")) return 2;
  return -1;
}

/* Highest severity of a findings list (-1: none, or the list failed). */
static int worst_of(fsdpa_status st, fsdpa_list *l) {
  int w = st ? -1 : fsdpa_findings_worst(l);
  fsdpa_list_free(l);
  return w;
}

/* --low-memory: the report of the ranks' merged summaries (the same bytes as
 * fsdpa_report() over their contexts: fsdpa_summary_report()'s contract). */
static fsdpa_status report_from_summaries(const shared *sh, const fsdpa_report_options *ro, char **rep,
                                          size_t *len, int *worst, char *err, size_t errn) {
  const char **sums = calloc(sh->n, sizeof *sums);
  size_t *lens = calloc(sh->n, sizeof *lens);
  fsdpa_status st = FSDPA_ENOMEM;
  err[0] = 0;
  if (!sums || !lens) snprintf(err, errn, "out of memory");
  else {
    for (size_t i = 0; i < sh->n; i++) {
      sums[i] = sh->jobs[i].sum;
      lens[i] = sh->jobs[i].sum_len;
    }
    fsdpa_error e;
    fsdpa_error_init(&e);
    char *merged = NULL;
    size_t mlen = 0;
    st = fsdpa_summary_merge(sums, lens, sh->n, NULL, &merged, &mlen, &e);
    if (!st) st = fsdpa_summary_report(merged, mlen, NULL, ro, rep, len, &e);
    if (!st && worst) {
      fsdpa_list *fl = NULL;
      *worst = worst_of(fsdpa_summary_findings(merged, mlen, NULL, &fl, &e), fl);
    }
    if (st) snprintf(err, errn, "%s", e.message[0] ? e.message : fsdpa_status_str(st));
    fsdpa_free(merged);
  }
  free(sums);
  free(lens);
  return st;
}

static int cmd_analyze(int argc, char **argv) {
  const char *format = NULL, *output = NULL, *fail_on = NULL;
  int color = -1, progress = 1, jobs = 1, low_memory = 0;
  int64_t html_step = FSDPA_ABSENT;
  uint64_t max_mem = 0;
  kv *sets = calloc((size_t)argc, sizeof *sets);
  const char **paths = calloc((size_t)argc, sizeof *paths);
  size_t nsets = 0, npaths = 0;
  int rc = 0;
  if (!sets || !paths) {
    fprintf(stderr, "%s: out of memory\n", prog);
    return EXIT_INPUT;
  }
  for (int i = 0; i < argc; i++) {
    const char *a = argv[i];
#define NEED_ARG()                                                      \
  do {                                                                  \
    if (i + 1 >= argc) {                                                \
      fprintf(stderr, "%s: %s needs an argument\n", prog, a);           \
      rc = EXIT_USAGE;                                                  \
      goto out;                                                         \
    }                                                                   \
  } while (0)
    if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
      usage_analyze(stdout);
      goto out;
    } else if (!strcmp(a, "-f") || !strcmp(a, "--format")) {
      NEED_ARG();
      format = argv[++i];
    } else if (!strncmp(a, "--format=", 9)) {
      format = a + 9;
    } else if (!strcmp(a, "-o") || !strcmp(a, "--output")) {
      NEED_ARG();
      output = argv[++i];
    } else if (!strcmp(a, "--fail-on")) {
      NEED_ARG();
      fail_on = argv[++i];
    } else if (!strcmp(a, "--set")) {
      NEED_ARG();
      const char *s = argv[++i];
      const char *eq = strchr(s, '=');
      if (!eq) {
        fprintf(stderr, "%s: --set needs KEY=VALUE, got '%s'\n", prog, s);
        rc = EXIT_USAGE;
        goto out;
      }
      char *key = strndup(s, (size_t)(eq - s));
      sets[nsets].key = key;
      sets[nsets++].value = eq + 1;
    } else if (!strcmp(a, "--low-memory")) {
      low_memory = 1;
    } else if (!strcmp(a, "-j") || !strcmp(a, "--jobs")) {
      NEED_ARG();
      jobs = atoi(argv[++i]);
      if (jobs < 1) {
        fprintf(stderr, "%s: -j needs a positive number\n", prog);
        rc = EXIT_USAGE;
        goto out;
      }
    } else if (!strcmp(a, "--color")) {
      color = 1;
    } else if (!strcmp(a, "--no-color")) {
      color = 0;
    } else if (!strcmp(a, "--no-progress")) {
      progress = 0;
    } else if (!strcmp(a, "--html-step")) {
      NEED_ARG();
      char *end;
      html_step = strtoll(argv[++i], &end, 10);
      if (*end || html_step < 0) {
        fprintf(stderr, "%s: --html-step needs a step index (0, 1, ...)\n", prog);
        rc = EXIT_USAGE;
        goto out;
      }
    } else if (!strcmp(a, "--max-memory")) {
      NEED_ARG();
      max_mem = strtoull(argv[++i], NULL, 10) << 20;
    } else if (a[0] == '-' && a[1]) {
      fprintf(stderr, "%s: unknown option '%s' (see 'fsdpa help analyze')\n", prog, a);
      rc = EXIT_USAGE;
      goto out;
    } else {
      paths[npaths++] = a;
    }
  }
  if (!npaths) {
    fprintf(stderr, "%s: analyze needs at least one TRACE (see 'fsdpa help analyze')\n", prog);
    rc = EXIT_USAGE;
    goto out;
  }
  int to_tty = output == NULL && isatty(1);
  fsdpa_report_options ro;
  fsdpa_report_options_init(&ro);
  ro.html_step = html_step;
  if (!format) format = to_tty ? "text" : "json";
  if (!strcmp(format, "json")) ro.format = FSDPA_FORMAT_JSON;
  else if (!strcmp(format, "text")) ro.format = FSDPA_FORMAT_TEXT;
  else if (!strcmp(format, "html")) ro.format = FSDPA_FORMAT_HTML;
  else {
    fprintf(stderr, "%s: unknown format '%s' (text, json, html)\n", prog, format);
    rc = EXIT_USAGE;
    goto out;
  }
  if (low_memory && ro.format != FSDPA_FORMAT_JSON) {
    fprintf(stderr, "%s: --low-memory writes json only (text and html need the events)\n", prog);
    rc = EXIT_USAGE;
    goto out;
  }
  if (fail_on && sev_rank(fail_on) < 0) {
    fprintf(stderr, "%s: --fail-on takes info, warning or critical\n", prog);
    rc = EXIT_USAGE;
    goto out;
  }
  const char *nc = getenv("NO_COLOR");
  ro.color = color >= 0 ? color : (to_tty && !(nc && *nc));

  /* validate --set keys before reading anything */
  {
    fsdpa_ctx *probe = NULL;
    if (fsdpa_ctx_new(&probe, NULL) == FSDPA_OK) {
      for (size_t i = 0; i < nsets; i++) {
        if (fsdpa_param_set(probe, sets[i].key, sets[i].value) != FSDPA_OK) {
          fprintf(stderr, "%s: --set: %s\n", prog, fsdpa_errmsg(probe));
          rc = EXIT_USAGE;
          fsdpa_ctx_free(probe);
          goto out;
        }
      }
      fsdpa_ctx_free(probe);
    }
  }

  shared sh;
  memset(&sh, 0, sizeof sh);
  sh.jobs = calloc(npaths, sizeof(job));
  sh.n = npaths;
  sh.sets = sets;
  sh.nsets = nsets;
  sh.max_memory = max_mem;
  sh.low_memory = low_memory;
  pthread_mutex_init(&sh.mu, NULL);
  if (!sh.jobs) {
    rc = EXIT_INPUT;
    goto out;
  }
  for (size_t i = 0; i < npaths; i++) {
    sh.jobs[i].path = paths[i];
    struct stat stt;
    if (strcmp(paths[i], "-") && stat(paths[i], &stt) == 0) sh.total_size += (uint64_t)stt.st_size;
  }
  sh.progress = progress && isatty(2) && sh.total_size >= (64u << 20);
  if ((size_t)jobs > npaths) jobs = (int)npaths;
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
  if (sh.progress) draw_progress(&sh, 1);

  fsdpa_ctx **ctxs = calloc(npaths, sizeof *ctxs);
  for (size_t i = 0; i < npaths; i++) {
    job *j = &sh.jobs[i];
    if (j->st != FSDPA_OK) {
      const char *m = j->ctx ? fsdpa_errmsg(j->ctx) : "";
      if (j->st != FSDPA_EIO || (m && *m))
        fprintf(stderr, "%s: %s\n", prog, m && *m ? m : fsdpa_status_str(j->st));
      rc = EXIT_INPUT;
    }
    if (ctxs) ctxs[i] = j->ctx;
  }
  if (!rc && ctxs) {
    char *rep = NULL;
    size_t len = 0;
    char err[512] = "";
    int worst = -1;
    fsdpa_error e;
    fsdpa_error_init(&e);
    fsdpa_status st = low_memory ? report_from_summaries(&sh, &ro, &rep, &len, fail_on ? &worst : NULL, err, sizeof err)
                                 : fsdpa_report(ctxs, paths, npaths, &ro, &rep, &len, &e);
    if (!st && fail_on && !low_memory) {
      fsdpa_list *fl = NULL;
      worst = worst_of(fsdpa_report_findings(ctxs, npaths, &fl, NULL), fl);
    }
    if (st) {
      fprintf(stderr, "%s: report: %s\n", prog, low_memory ? err : e.message);
      rc = EXIT_INPUT;
    } else {
      FILE *out = output ? fopen(output, "wb") : stdout;
      if (!out) {
        fprintf(stderr, "%s: %s: cannot write: %s\n", prog, output, strerror(errno));
        rc = EXIT_USAGE;
      } else {
        fwrite(rep, 1, len, out);
        if (output) fclose(out);
      }
      if (!rc && fail_on && worst >= sev_rank(fail_on)) rc = EXIT_FINDINGS;
      fsdpa_free(rep);
    }
  }
  for (size_t i = 0; i < npaths; i++) {
    fsdpa_ctx_free(sh.jobs[i].ctx);
    fsdpa_free(sh.jobs[i].sum);
  }
  free(ctxs);
  free(sh.jobs);
  pthread_mutex_destroy(&sh.mu);
out:
  for (size_t i = 0; i < nsets; i++) free((char *)sets[i].key);
  free(sets);
  free(paths);
  return rc;
}

/* ---- summarize / merge: per-rank summaries combined centrally ---- */

static void usage_summary(FILE *f) {
  fprintf(f,
          "usage: fsdpa summarize [options] TRACE\n"
          "       fsdpa merge [options] SUMMARY [SUMMARY ...]\n"
          "\n"
          "summarize writes the summary (fsdpa.summary/1) of one rank's trace: its part of the\n"
          "report and its collective table, small enough to copy where the other ranks' are.\n"
          "merge combines summaries (each one rank or an earlier merge) and prints the JSON report\n"
          "that 'fsdpa analyze -f json' prints for all the traces in the same order, or with\n"
          "--summary the merged summary (merging is associative: merge in any grouping).\n"
          "\n"
          "summarize options:\n"
          "  -o, --output FILE    write the summary to FILE instead of standard output\n"
          "      --rank N         rank of the trace (default: distributedInfo.rank, else 0)\n"
          "      --set KEY=VALUE  change an analysis threshold (see 'fsdpa params')\n"
          "      --max-memory MB  refuse to hold more than MB MiB\n"
          "merge options:\n"
          "  -o, --output FILE    write to FILE instead of standard output\n"
          "      --summary        write the merged summary instead of the report\n"
          "  -f, --format json    the only format (text and html need the traces)\n"
          "      --fail-on SEV    exit 1 if a finding of severity SEV or worse exists\n"
          "\n"
          "exit status: 0 written, 1 findings at or above --fail-on, 2 bad usage,\n"
          "3 an input could not be read or is not a trace / summary.\n");
}

static char *slurp(const char *path, size_t *len) {
  FILE *f = strcmp(path, "-") == 0 ? stdin : fopen(path, "rb");
  if (!f) return NULL;
  size_t cap = 1 << 16, n = 0, r;
  char *buf = malloc(cap);
  while (buf && (r = fread(buf + n, 1, cap - n, f)) > 0) {
    n += r;
    if (n == cap) {
      char *nb = realloc(buf, cap * 2);
      if (!nb) { free(buf); buf = NULL; break; }
      buf = nb;
      cap *= 2;
    }
  }
  if (buf && ferror(f)) { free(buf); buf = NULL; }
  if (f != stdin) fclose(f);
  *len = n;
  return buf;
}

static int write_out(const char *output, const char *data, size_t len) {
  FILE *out = output ? fopen(output, "wb") : stdout;
  if (!out) {
    fprintf(stderr, "%s: %s: cannot write: %s\n", prog, output, strerror(errno));
    return EXIT_USAGE;
  }
  int bad = fwrite(data, 1, len, out) != len;
  if (output && fclose(out)) bad = 1;
  if (bad) {
    fprintf(stderr, "%s: %s: write error\n", prog, output ? output : "<stdout>");
    return EXIT_INPUT;
  }
  return 0;
}

static int cmd_summarize(int argc, char **argv) {
  const char *output = NULL, *path = NULL;
  int64_t rank = FSDPA_ABSENT;
  uint64_t max_mem = 0;
  fsdpa_ctx *c = NULL;
  int rc = 0;
  char **keys = calloc((size_t)argc + 1, sizeof *keys);
  const char **vals = calloc((size_t)argc + 1, sizeof *vals);
  size_t nsets = 0;
  if (!keys || !vals) { rc = EXIT_INPUT; goto out; }
  for (int i = 0; i < argc; i++) {
    const char *a = argv[i];
    int has_next = i + 1 < argc;
    if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
      usage_summary(stdout);
      goto out;
    } else if ((!strcmp(a, "-o") || !strcmp(a, "--output")) && has_next) {
      output = argv[++i];
    } else if (!strcmp(a, "--rank") && has_next) {
      char *end;
      long long v = strtoll(argv[++i], &end, 10);
      if (*end || v < 0) {
        fprintf(stderr, "%s: --rank needs a non-negative number\n", prog);
        rc = EXIT_USAGE;
        goto out;
      }
      rank = v;
    } else if (!strcmp(a, "--set") && has_next) {
      const char *s = argv[++i], *eq = strchr(s, '=');
      if (!eq) {
        fprintf(stderr, "%s: --set needs KEY=VALUE, got '%s'\n", prog, s);
        rc = EXIT_USAGE;
        goto out;
      }
      keys[nsets] = strndup(s, (size_t)(eq - s));
      vals[nsets++] = eq + 1;
    } else if (!strcmp(a, "--max-memory") && has_next) {
      max_mem = strtoull(argv[++i], NULL, 10) << 20;
    } else if (a[0] == '-' && a[1]) {
      fprintf(stderr, "%s: bad option '%s' (see 'fsdpa summarize -h')\n", prog, a);
      rc = EXIT_USAGE;
      goto out;
    } else if (path) {
      fprintf(stderr, "%s: summarize takes one TRACE (one rank)\n", prog);
      rc = EXIT_USAGE;
      goto out;
    } else {
      path = a;
    }
  }
  if (!path) {
    fprintf(stderr, "%s: summarize needs a TRACE (see 'fsdpa summarize -h')\n", prog);
    rc = EXIT_USAGE;
    goto out;
  }
  fsdpa_options o;
  fsdpa_options_init(&o);
  o.name = path;
  o.rank = rank;
  o.max_memory_bytes = max_mem;
  if (fsdpa_ctx_new(&c, &o)) { rc = EXIT_INPUT; goto out; }
  for (size_t i = 0; i < nsets; i++) {
    if (!keys[i] || fsdpa_param_set(c, keys[i], vals[i])) {
      fprintf(stderr, "%s: --set: %s\n", prog, fsdpa_errmsg(c));
      rc = EXIT_USAGE;
      goto out;
    }
  }
  if (fsdpa_feed_file(c, path)) {
    fprintf(stderr, "%s: %s\n", prog, fsdpa_errmsg(c));
    rc = EXIT_INPUT;
    goto out;
  }
  char *sum = NULL;
  size_t len = 0;
  if (fsdpa_summary_write(c, path, &sum, &len)) {
    fprintf(stderr, "%s: %s\n", prog, fsdpa_errmsg(c));
    rc = EXIT_INPUT;
    goto out;
  }
  rc = write_out(output, sum, len);
  fsdpa_free(sum);
out:
  fsdpa_ctx_free(c);
  for (size_t i = 0; i < nsets; i++) free(keys[i]);
  free(keys);
  free(vals);
  return rc;
}

static int cmd_merge(int argc, char **argv) {
  const char *output = NULL, *fail_on = NULL;
  int as_summary = 0, rc = 0;
  size_t n = 0;
  char **bufs = calloc((size_t)argc + 1, sizeof *bufs);
  size_t *lens = calloc((size_t)argc + 1, sizeof *lens);
  char *merged = NULL, *rep = NULL;
  if (!bufs || !lens) { rc = EXIT_INPUT; goto out; }
  for (int i = 0; i < argc; i++) {
    const char *a = argv[i];
    int has_next = i + 1 < argc;
    if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
      usage_summary(stdout);
      goto out;
    } else if ((!strcmp(a, "-o") || !strcmp(a, "--output")) && has_next) {
      output = argv[++i];
    } else if (!strcmp(a, "--summary")) {
      as_summary = 1;
    } else if ((!strcmp(a, "-f") || !strcmp(a, "--format") || !strncmp(a, "--format=", 9))) {
      const char *fmt = !strncmp(a, "--format=", 9) ? a + 9 : has_next ? argv[++i] : "";
      if (strcmp(fmt, "json")) {
        fprintf(stderr, "%s: merge writes JSON only (text and html need the traces: use analyze)\n", prog);
        rc = EXIT_USAGE;
        goto out;
      }
    } else if (!strcmp(a, "--fail-on") && has_next) {
      fail_on = argv[++i];
      if (sev_rank(fail_on) < 0) {
        fprintf(stderr, "%s: --fail-on takes info, warning or critical\n", prog);
        rc = EXIT_USAGE;
        goto out;
      }
    } else if (a[0] == '-' && a[1]) {
      fprintf(stderr, "%s: bad option '%s' (see 'fsdpa merge -h')\n", prog, a);
      rc = EXIT_USAGE;
      goto out;
    } else {
      if (!(bufs[n] = slurp(a, &lens[n]))) {
        fprintf(stderr, "%s: %s: cannot read: %s\n", prog, a, strerror(errno));
        rc = EXIT_INPUT;
        goto out;
      }
      n++;
    }
  }
  if (!n) {
    fprintf(stderr, "%s: merge needs at least one SUMMARY (see 'fsdpa merge -h')\n", prog);
    rc = EXIT_USAGE;
    goto out;
  }
  fsdpa_error err;
  fsdpa_error_init(&err);
  size_t mlen = 0, rlen = 0;
  if (fsdpa_summary_merge((const char *const *)bufs, lens, n, NULL, &merged, &mlen, &err)) {
    fprintf(stderr, "%s: %s\n", prog, err.message);
    rc = EXIT_INPUT;
    goto out;
  }
  if (as_summary) {
    rc = write_out(output, merged, mlen);
    goto out;
  }
  if (fsdpa_summary_report(merged, mlen, NULL, NULL, &rep, &rlen, &err)) {
    fprintf(stderr, "%s: %s\n", prog, err.message);
    rc = EXIT_INPUT;
    goto out;
  }
  rc = write_out(output, rep, rlen);
  if (!rc && fail_on) {
    fsdpa_list *fl = NULL;
    if (worst_of(fsdpa_summary_findings(merged, mlen, NULL, &fl, NULL), fl) >= sev_rank(fail_on)) rc = EXIT_FINDINGS;
  }
out:
  fsdpa_free(merged);
  fsdpa_free(rep);
  for (size_t i = 0; i < n; i++) free(bufs[i]);
  free(bufs);
  free(lens);
  return rc;
}

/* ---- annotate: the findings as events in a copy of the trace ---- */

static void usage_annotate(FILE *f) {
  fprintf(f,
          "usage: fsdpa annotate [options] TRACE -o OUT\n"
          "       fsdpa annotate [options] -d DIR TRACE [TRACE ...]\n"
          "\n"
          "Analyzes the TRACEs (the ranks of one job, as 'fsdpa analyze' does) and writes a copy\n"
          "of each with the findings added as events: a process \"fsdpa findings\" with one\n"
          "thread per finding and one slice per time range of its evidence, named by the\n"
          "finding's title, with id, severity, detail and advice in its args.  Open the copy in\n"
          "Perfetto (https://ui.perfetto.dev) or chrome://tracing to see each finding next to\n"
          "the kernels it is about.  The original events are kept byte for byte.\n"
          "\n"
          "options:\n"
          "  -o, --output FILE    the annotated copy of the single TRACE ('-' = standard output);\n"
          "                       gzip-compressed if FILE ends in .gz\n"
          "  -d, --dir DIR        write each copy to DIR/<file name of the TRACE>\n"
          "      --gzip           compress the output whatever its name\n"
          "      --no-gzip        never compress the output\n"
          "      --set KEY=VALUE  change an analysis threshold (see 'fsdpa params')\n"
          "      --max-memory MB  refuse to hold more than MB MiB per trace\n"
          "  -h, --help           this help\n"
          "\n"
          "example:\n"
          "  fsdpa annotate rank0.json.gz -o rank0.fsdpa.json.gz\n"
          "\n"
          "exit status: 0 written, 2 bad usage, 3 a trace could not be read or written.\n");
}

static int cmd_annotate(int argc, char **argv) {
  const char *output = NULL, *dir = NULL;
  int gzip = -1, rc = 0;
  uint64_t max_mem = 0;
  size_t n = 0, nsets = 0;
  const char **paths = calloc((size_t)argc + 1, sizeof *paths);
  char **keys = calloc((size_t)argc + 1, sizeof *keys);
  const char **vals = calloc((size_t)argc + 1, sizeof *vals);
  fsdpa_ctx **ctxs = calloc((size_t)argc + 1, sizeof *ctxs);
  if (!paths || !keys || !vals || !ctxs) { rc = EXIT_INPUT; goto out; }
  for (int i = 0; i < argc; i++) {
    const char *a = argv[i];
    int has_next = i + 1 < argc;
    if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
      usage_annotate(stdout);
      goto out;
    } else if ((!strcmp(a, "-o") || !strcmp(a, "--output")) && has_next) {
      output = argv[++i];
    } else if ((!strcmp(a, "-d") || !strcmp(a, "--dir")) && has_next) {
      dir = argv[++i];
    } else if (!strcmp(a, "--gzip") || !strcmp(a, "--no-gzip")) {
      gzip = a[2] == 'g';
    } else if (!strcmp(a, "--set") && has_next) {
      const char *s = argv[++i], *eq = strchr(s, '=');
      if (!eq) {
        fprintf(stderr, "%s: --set needs KEY=VALUE, got '%s'\n", prog, s);
        rc = EXIT_USAGE;
        goto out;
      }
      keys[nsets] = strndup(s, (size_t)(eq - s));
      vals[nsets++] = eq + 1;
    } else if (!strcmp(a, "--max-memory") && has_next) {
      max_mem = strtoull(argv[++i], NULL, 10) << 20;
    } else if (a[0] == '-' && a[1]) {
      fprintf(stderr, "%s: bad option '%s' (see 'fsdpa help annotate')\n", prog, a);
      rc = EXIT_USAGE;
      goto out;
    } else {
      paths[n++] = a;
    }
  }
  if (!n || (!output && !dir) || (output && dir) || (output && n > 1)) {
    fprintf(stderr, "%s: annotate needs TRACE -o OUT, or -d DIR TRACE [TRACE ...] "
                    "(see 'fsdpa help annotate')\n", prog);
    rc = EXIT_USAGE;
    goto out;
  }
  for (size_t i = 0; i < n; i++) {
    if (!strcmp(paths[i], "-")) {
      fprintf(stderr, "%s: annotate reads each TRACE twice: it cannot be standard input\n", prog);
      rc = EXIT_USAGE;
      goto out;
    }
    fsdpa_options o;
    fsdpa_options_init(&o);
    o.name = paths[i];
    o.max_memory_bytes = max_mem;
    if (fsdpa_ctx_new(&ctxs[i], &o)) { rc = EXIT_INPUT; goto out; }
    for (size_t k = 0; k < nsets; k++) {
      if (!keys[k] || fsdpa_param_set(ctxs[i], keys[k], vals[k])) {
        fprintf(stderr, "%s: --set: %s\n", prog, fsdpa_errmsg(ctxs[i]));
        rc = EXIT_USAGE;
        goto out;
      }
    }
    if (fsdpa_feed_file(ctxs[i], paths[i])) {
      fprintf(stderr, "%s: %s\n", prog, fsdpa_errmsg(ctxs[i]));
      rc = EXIT_INPUT;
      goto out;
    }
  }
  fsdpa_annotate_options ao;
  fsdpa_annotate_options_init(&ao);
  ao.gzip = gzip;
  for (size_t i = 0; i < n && !rc; i++) {
    char *target = NULL;
    if (dir) {
      const char *base = strrchr(paths[i], '/');
      base = base ? base + 1 : paths[i];
      size_t len = strlen(dir) + strlen(base) + 2;
      target = malloc(len);
      if (!target) { rc = EXIT_INPUT; break; }
      snprintf(target, len, "%s/%s", dir, base);
    }
    fsdpa_error e;
    fsdpa_error_init(&e);
    if (fsdpa_annotate_file(ctxs, n, i, paths[i], target ? target : output, &ao, &e)) {
      fprintf(stderr, "%s: %s\n", prog, e.message);
      rc = EXIT_INPUT;
    }
    free(target);
  }
out:
  for (size_t i = 0; i < n; i++) fsdpa_ctx_free(ctxs ? ctxs[i] : NULL);
  for (size_t i = 0; i < nsets; i++) free(keys[i]);
  free(ctxs);
  free(keys);
  free(vals);
  free(paths);
  return rc;
}

/* `name=default  description`, one line per parameter */
static int cmd_params(void) {
  fsdpa_list *l = NULL;
  if (fsdpa_param_list(&l)) {
    fprintf(stderr, "%s: out of memory\n", prog);
    return EXIT_INPUT;
  }
  for (size_t i = 0; i < fsdpa_list_count(l); i++) {
    fsdpa_param p;
    memset(&p, 0, sizeof p);
    p.size = sizeof p;
    fsdpa_list_get(l, i, &p);
    printf("%s=%lld  %s\n", p.name, (long long)p.default_value, p.description);
  }
  fsdpa_list_free(l);
  return 0;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    usage_main(stderr);
    return EXIT_USAGE;
  }
  const char *cmd = argv[1];
  if (!strcmp(cmd, "--version") || !strcmp(cmd, "version")) {
    printf("fsdpa %s\n", fsdpa_version_string());
    return 0;
  }
  if (!strcmp(cmd, "-h") || !strcmp(cmd, "--help")) {
    usage_main(stdout);
    return 0;
  }
  if (!strcmp(cmd, "help")) {
    if (argc > 2 && !strcmp(argv[2], "analyze")) usage_analyze(stdout);
    else if (argc > 2 && !strcmp(argv[2], "annotate")) usage_annotate(stdout);
    else usage_main(stdout);
    return 0;
  }
  if (!strcmp(cmd, "params")) return cmd_params();
  if (!strcmp(cmd, "analyze")) return cmd_analyze(argc - 2, argv + 2);
  if (!strcmp(cmd, "summarize")) return cmd_summarize(argc - 2, argv + 2);
  if (!strcmp(cmd, "merge")) return cmd_merge(argc - 2, argv + 2);
  if (!strcmp(cmd, "annotate")) return cmd_annotate(argc - 2, argv + 2);
  fprintf(stderr, "%s: unknown command '%s'\n", prog, cmd);
  usage_main(stderr);
  return EXIT_USAGE;
}
