/* The traces of one job, as the commands read them (cli_job.h). */
#include "cli_job.h"
#include "cli_io.h"
#include "cli_opts.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int cli_trace_empty(fsdpa_ctx *ctx) {
  fsdpa_stats s;
  memset(&s, 0, sizeof s);
  s.size = sizeof s;
  return fsdpa_stats_get(ctx, &s) == FSDPA_OK && s.events == 0;
}

void cli_trace_empty_failed(const char *path) {
  fprintf(stderr,
          "%s: %s: empty trace: it holds no event (did the profiler record any step?); "
          "--allow-empty reports it anyway\n",
          cli_prog, path);
}

void cli_warn_skipped(const char *path, fsdpa_ctx *ctx) {
  const char *m = ctx ? fsdpa_errmsg(ctx) : "";
  if (m && *m) fprintf(stderr, "%s: warning: skipped %s\n", cli_prog, m);
  else fprintf(stderr, "%s: warning: skipped %s: not a Kineto trace\n", cli_prog, path);
}

fsdpa_status cli_number_unranked(fsdpa_ctx *ctx, size_t index, int64_t *world_size) {
  fsdpa_trace_info ti;
  fsdpa_trace_info_init(&ti);
  fsdpa_status st = fsdpa_trace_info_get(ctx, &ti);
  *world_size = st ? FSDPA_ABSENT : ti.world_size;
  if (st || ti.rank != FSDPA_ABSENT) return st;
  fsdpa_trace_info_init(&ti);
  ti.rank = (int64_t)index;
  return fsdpa_trace_info_set(ctx, &ti);
}

void cli_warn_mixed_jobs(const int64_t *ws, const char *const *paths, size_t n) {
  size_t first = n;
  for (size_t i = 0; i < n; i++) {
    if (ws[i] == FSDPA_ABSENT) continue;
    if (first == n) {
      first = i;
    } else if (ws[i] != ws[first]) {
      fprintf(stderr,
              "%s: warning: the traces are not one job: world size %lld (%s) and %lld (%s); the report "
              "treats them as the ranks of one job\n",
              cli_prog, (long long)ws[first], paths[first], (long long)ws[i], paths[i]);
      return;
    }
  }
}

/* The message with "input N" and "summary N" (the library's names for the
 * N-th input) replaced by the file's name. */
static void put_named(FILE *out, const char *m, const char *const *paths, size_t n) {
  static const char *const words[] = {"input ", "summary "};
  while (*m) {
    int done = 0;
    for (size_t w = 0; w < 2 && !done; w++) {
      size_t wl = strlen(words[w]);
      if (strncmp(m, words[w], wl) || m[wl] < '0' || m[wl] > '9') continue;
      char *end;
      unsigned long long k = strtoull(m + wl, &end, 10);
      if (k >= n || !paths || !paths[k]) continue;
      fputs(paths[k], out);
      m = end;
      done = 1;
    }
    if (!done) fputc(*m++, out);
  }
}

void cli_report_failed(const fsdpa_error *e, fsdpa_status st, const char *const *paths, size_t n) {
  const char *m = e->message[0] ? e->message : cli_status_text(st);
  fprintf(stderr, "%s: ", cli_prog);
  if (e->input >= 0 && (size_t)e->input < n && paths && paths[e->input]) {
    /* the library names an input by its index; a person knows the file */
    char pre[40];
    int k = snprintf(pre, sizeof pre, "input %lld: ", (long long)e->input);
    if (k > 0 && !strncmp(m, pre, (size_t)k)) m += k;
    char in_w[40], sum_w[40];
    snprintf(in_w, sizeof in_w, "input %lld", (long long)e->input);
    snprintf(sum_w, sizeof sum_w, "summary %lld", (long long)e->input);
    if (!strstr(m, paths[e->input]) && !strstr(m, in_w) && !strstr(m, sum_w))
      fprintf(stderr, "%s: ", paths[e->input]);
  }
  put_named(stderr, m, paths, n);
  fputc('\n', stderr);
}

static const char *const SEV[] = {"info", "warning", "critical"};

int cli_fail_on(const fsdpa_list *l, int fail_on) {
  size_t n = fsdpa_list_count(l), hits = 0;
  enum { SHOWN = 10 };
  for (size_t i = 0; i < n; i++) {
    fsdpa_finding f;
    memset(&f, 0, sizeof f);
    f.size = sizeof f;
    if (fsdpa_list_get(l, i, &f) || (int)f.severity < fail_on) continue;
    if (!hits)
      fprintf(stderr, "%s: --fail-on %s: findings at or above %s:\n", cli_prog, SEV[fail_on], SEV[fail_on]);
    if (hits < SHOWN) {
      char rank[32] = "";
      if (f.rank != FSDPA_ABSENT) snprintf(rank, sizeof rank, " rank %lld", (long long)f.rank);
      fprintf(stderr, "  %s %s%s: %s\n", fsdpa_severity_name(f.severity), f.id, rank, f.title);
    }
    hits++;
  }
  if (hits > SHOWN) fprintf(stderr, "  ... and %zu more\n", hits - SHOWN);
  return hits > 0;
}
