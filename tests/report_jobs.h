/* The traces the report-format tests run over: the bundled sample, every
 * generator scenario (small: --steps 3; multi-rank scenarios as one job of
 * all their ranks) and every corpus trace.  Header-only, shared by
 * test_schema.c, test_html.c and test_annotate.c. */
#ifndef FSDPA_TESTS_REPORT_JOBS_H
#define FSDPA_TESTS_REPORT_JOBS_H
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "testutil.h"

#define RJ_MAX_JOBS 128
#define RJ_MAX_RANKS 16

typedef struct rj_job {
  char name[256];                 /* short name for file names and messages */
  char *paths[RJ_MAX_RANKS];      /* one trace per rank */
  size_t n;
  int kind;                       /* 0 sample, 1 scenario, 2 corpus */
} rj_job;

/* A Python 3 for the helper scripts: Debian's /usr/bin/python3 first (it
 * starts fast and has python3-jsonschema), else the one meson found.  With
 * `module`, the first one that can import it; NULL if none can. */
static inline const char *rj_python(const char *module) {
  static char buf[4096];
  const char *cands[3] = {"/usr/bin/python3", getenv("FSDPA_PYTHON"), "python3"};
  for (int i = 0; i < 3; i++) {
    const char *p = cands[i];
    if (!p || !*p) continue;
    if (p[0] == '/' && access(p, X_OK) != 0) continue;
    char cmd[8192];
    snprintf(cmd, sizeof cmd, "'%s' -c 'import %s' >/dev/null 2>&1", p, module ? module : "json");
    if (system(cmd) == 0) {
      snprintf(buf, sizeof buf, "%s", p);
      return buf;
    }
  }
  return NULL;
}

/* The traces under dir (tu_corpus_files()) without the generator's truth
 * files, sorted by path, at most cap: malloc'd paths into out. */
static inline size_t rj_traces(const char *dir, char **out, size_t cap) {
  char **files = NULL;
  size_t nf = tu_corpus_files(dir, &files), n = 0;
  for (size_t i = 0; i < nf; i++) {
    if (!strstr(files[i], ".truth.") && n < cap) {
      out[n++] = files[i];
      files[i] = NULL;
    }
  }
  tu_free_paths(files, nf);
  return n;
}

static inline void rj_base(const char *path, char *out, size_t n) {
  const char *b = strrchr(path, '/');
  b = b ? b + 1 : path;
  snprintf(out, n, "%s", b);
  char *dot = strstr(out, ".json");
  if (dot) *dot = 0;
}

/* Generate every scenario into BUILD/tests/<subdir> with one Python process
 * (the generator's module API), then list the jobs.  Corpus traces that are
 * not Kineto traces (the Chakra execution trace) are left out: the corpus
 * test checks that they are rejected.  Prints "# SKIP" lines for what is
 * missing.  Returns the number of jobs. */
static inline size_t rj_jobs(const char *subdir, rj_job *jobs, size_t cap, int with_corpus) {
  size_t nj = 0;
  rj_job *j = &jobs[nj++];
  memset(j, 0, sizeof *j);
  snprintf(j->name, sizeof j->name, "sample");
  j->paths[0] = malloc(4096);
  snprintf(j->paths[0], 4096, "%s/tests/data/sample/fsdp2_sample.json.gz", tu_source_root());
  j->n = 1;

  char dir[4096], gen[4096], cmd[16384];
  snprintf(dir, sizeof dir, "%s/tests/%s", tu_build_root(), subdir);
  snprintf(cmd, sizeof cmd, "rm -rf '%s' && mkdir -p '%s'", dir, dir);
  if (system(cmd) != 0) return nj;
  snprintf(gen, sizeof gen, "%s/tools/tracegen/tracegen.py", tu_source_root());
  const char *py = rj_python(NULL);
  if (access(gen, R_OK) != 0 || !py) {
    printf("# SKIP generator scenarios: %s\n", py ? "tools/tracegen/tracegen.py not found" : "no python3");
  } else {
    snprintf(cmd, sizeof cmd,
             "'%s' -c \"import sys; sys.path.insert(0, '%s/tools/tracegen'); import tracegen\n"
             "for s in sorted(tracegen.SCENARIOS): tracegen.generate(s, '%s/' + s + '.json.gz', steps=3)\""
             " >/dev/null 2>&1",
             py, tu_source_root(), dir);
    if (system(cmd) != 0) printf("# generator failed: %s\n", cmd);
    char *files[RJ_MAX_JOBS * 2];
    size_t nf = rj_traces(dir, files, RJ_MAX_JOBS * 2);
    for (size_t i = 0; i < nf && nj < cap; i++) {
      char base[256];
      rj_base(files[i], base, sizeof base);
      char *r = strstr(base, ".rank");
      if (r) *r = 0;  /* straggler.rank0 .. rank3: one job */
      rj_job *last = &jobs[nj - 1];
      if (r && last->kind == 1 && !strcmp(last->name, base) && last->n < RJ_MAX_RANKS) {
        last->paths[last->n++] = files[i];
        continue;
      }
      j = &jobs[nj++];
      memset(j, 0, sizeof *j);
      snprintf(j->name, sizeof j->name, "%s", base);
      j->paths[0] = files[i];
      j->n = 1;
      j->kind = 1;
    }
  }
  if (with_corpus) {
    const char *cd = tu_corpus_dir();
    if (cd) {
      char *files[RJ_MAX_JOBS];
      size_t nf = rj_traces(cd, files, RJ_MAX_JOBS);
      for (size_t i = 0; i < nf; i++) {
        if (strstr(files[i], "execution_trace") || nj >= cap) {
          free(files[i]);
          continue;
        }
        j = &jobs[nj++];
        memset(j, 0, sizeof *j);
        char base[200];
        rj_base(files[i], base, sizeof base);
        snprintf(j->name, sizeof j->name, "corpus-%zu-%s", i, base);
        j->paths[0] = files[i];
        j->n = 1;
        j->kind = 2;
      }
    }
  }
  return nj;
}

static inline void rj_free(rj_job *jobs, size_t n) {
  for (size_t i = 0; i < n; i++)
    for (size_t k = 0; k < jobs[i].n; k++) free(jobs[i].paths[k]);
}

/* Contexts of a job, each fed its trace (NULL and a message on failure). */
static inline fsdpa_ctx **rj_load(const rj_job *j, char *err, size_t errn) {
  fsdpa_ctx **c = calloc(j->n, sizeof *c);
  for (size_t k = 0; c && k < j->n; k++) {
    fsdpa_options o;
    fsdpa_options_init(&o);
    o.name = j->paths[k];
    if (fsdpa_ctx_new(&c[k], &o) || fsdpa_feed_file(c[k], j->paths[k])) {
      snprintf(err, errn, "%s: %s", j->paths[k], c[k] ? fsdpa_errmsg(c[k]) : "ctx_new failed");
      for (size_t m = 0; m <= k; m++) fsdpa_ctx_free(c[m]);
      free(c);
      return NULL;
    }
  }
  return c;
}

static inline void rj_unload(fsdpa_ctx **c, size_t n) {
  for (size_t k = 0; c && k < n; k++) fsdpa_ctx_free(c[k]);
  free(c);
}

/* A report of a job's contexts (caller frees with fsdpa_free); NULL on
 * failure, with the details in *err (status and message). */
static inline char *rj_report(fsdpa_ctx **c, const rj_job *j, fsdpa_format fmt, int color, size_t *len,
                              fsdpa_error *err) {
  fsdpa_report_options o;
  fsdpa_report_options_init(&o);
  o.format = fmt;
  o.color = color;
  char *out = NULL;
  fsdpa_error_init(err);
  if (fsdpa_report(c, (const char *const *)j->paths, j->n, &o, &out, len, err) != FSDPA_OK) return NULL;
  return out;
}

static inline int rj_write(const char *path, const char *data, size_t n) {
  FILE *f = fopen(path, "wb");
  if (!f) return -1;
  size_t w = fwrite(data, 1, n, f);
  return fclose(f) == 0 && w == n ? 0 : -1;
}
#endif
