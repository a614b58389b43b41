/* Threads: the library has no global state, so contexts used on different
 * threads at the same time must give exactly the single-threaded results.
 * 8 threads each analyse every trace (generated scenarios, a real trace,
 * a 2-rank job) in their own contexts, through the byte feed, the file
 * feed and the structured summaries, and compare every report, summary and
 * typed findings list with the one computed on the main thread first; they
 * also all read the main thread's findings lists at once (a list is
 * read-only, so that is allowed).  Run under ThreadSanitizer by
 * .ci/tsan.sh (a -Db_sanitize=thread build); in other builds it still checks
 * the results. */
#include <check.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "testutil.h"

enum { NTHREADS = 8, MAXT = 8, ROUNDS = 2 };

typedef struct trace {
  char *path;     /* file (for fsdpa_feed_file) */
  char *data;     /* its bytes (for fsdpa_feed) */
  size_t len;
  char *report;   /* reference JSON report (main thread) */
  char *summary;  /* reference summary */
  char *findings; /* reference typed findings, as text */
  fsdpa_list *shared; /* the main thread's findings list, read by every thread */
} trace;

static trace T[MAXT];
static size_t nt;
static trace RANKS[2];   /* a 2-rank job */
static char *rank_report; /* its reference report */
static char *rank_findings; /* and typed findings */

typedef struct worker {
  int id;
  int failures;
  char first[256];  /* the first failure */
  unsigned runs;
} worker;

static void note_fail(worker *w, const char *fmt, const char *what) {
  if (!w->failures++) snprintf(w->first, sizeof w->first, fmt, what);
}

static char *report_of(fsdpa_ctx *const *c, size_t n) {
  char *out = NULL;
  size_t len = 0;
  if (fsdpa_report(c, NULL, n, NULL, &out, &len, NULL) != FSDPA_OK) return NULL;
  char *copy = malloc(len + 1);
  if (copy) memcpy(copy, out, len + 1);
  fsdpa_free(out);
  return copy;
}

static char *summary_of(fsdpa_ctx *c) {
  char *out = NULL;
  size_t len = 0;
  if (fsdpa_summary_write(c, "t", &out, &len) != FSDPA_OK) return NULL;
  char *copy = malloc(len + 1);
  if (copy) memcpy(copy, out, len + 1);
  fsdpa_free(out);
  return copy;
}

/* Every field of a findings list as text (NULL if an item cannot be read). */
static char *findings_text(const fsdpa_list *l) {
  size_t cap = 4096, n = 0;
  char *s = malloc(cap);
  if (!s) return NULL;
  s[0] = 0;
  for (size_t i = 0; i < fsdpa_list_count(l); i++) {
    fsdpa_finding f;
    memset(&f, 0, sizeof f);
    f.size = sizeof f;
    if (fsdpa_list_get(l, i, &f) != FSDPA_OK) {
      free(s);
      return NULL;
    }
    size_t need = strlen(f.id) + strlen(f.title) + strlen(f.detail) + strlen(f.advice) + strlen(f.evidence_json) +
                  f.nranges * 48 + 128;
    if (n + need >= cap) {
      while (n + need >= cap) cap *= 2;
      char *t = realloc(s, cap);
      if (!t) {
        free(s);
        return NULL;
      }
      s = t;
    }
    n += (size_t)snprintf(s + n, cap - n, "%s %d %lld %lld %lld|%s|%s|%s|%s", f.id, (int)f.severity,
                          (long long)f.rank, (long long)f.step, (long long)f.cost_ns, f.title, f.detail, f.advice,
                          f.evidence_json);
    for (size_t k = 0; k < f.nranges; k++)
      n += (size_t)snprintf(s + n, cap - n, " [%lld,%lld)", (long long)f.ranges[k].start_ns,
                            (long long)f.ranges[k].end_ns);
    n += (size_t)snprintf(s + n, cap - n, "\n");
  }
  return s;
}

static char *findings_of(fsdpa_ctx *const *c, size_t n) {
  fsdpa_list *l = NULL;
  if (fsdpa_report_findings(c, n, &l, NULL) != FSDPA_OK) return NULL;
  char *s = findings_text(l);
  fsdpa_list_free(l);
  return s;
}

/* Feed in chunks of `chunk` bytes (a different chunking per thread: the
 * result must not depend on it either). */
static fsdpa_ctx *feed(const trace *t, size_t chunk, int by_file) {
  fsdpa_ctx *c = NULL;
  if (fsdpa_ctx_new(&c, NULL) != FSDPA_OK) return NULL;
  fsdpa_status st = FSDPA_OK;
  if (by_file) {
    st = fsdpa_feed_file(c, t->path);
  } else {
    for (size_t off = 0; st == FSDPA_OK && off < t->len; off += chunk)
      st = fsdpa_feed(c, t->data + off, t->len - off < chunk ? t->len - off : chunk);
    if (st == FSDPA_OK) st = fsdpa_finish(c);
  }
  if (st != FSDPA_OK) {
    fsdpa_ctx_free(c);
    return NULL;
  }
  return c;
}

static void *work(void *arg) {
  worker *w = arg;
  for (int round = 0; round < ROUNDS; round++) {
    for (size_t k = 0; k < nt; k++) {
      const trace *t = &T[(k + (size_t)w->id) % nt];
      size_t chunk = (size_t)4096 << ((w->id + round) % 6);
      fsdpa_ctx *c = feed(t, chunk, (w->id + round) % 3 == 0);
      if (!c) {
        note_fail(w, "feeding %s failed", t->path);
        continue;
      }
      char *r = report_of(&c, 1);
      if (!r || strcmp(r, t->report) != 0) note_fail(w, "report of %s differs from the single-threaded one", t->path);
      char *s = summary_of(c);
      if (!s || strcmp(s, t->summary) != 0) note_fail(w, "summary of %s differs", t->path);
      char *f = findings_of(&c, 1);
      if (!f || strcmp(f, t->findings) != 0) note_fail(w, "typed findings of %s differ", t->path);
      /* the list made on the main thread, read here while others read it too */
      char *g = findings_text(t->shared);
      if (!g || strcmp(g, t->findings) != 0) note_fail(w, "shared findings list of %s reads differently", t->path);
      free(r);
      free(s);
      free(f);
      free(g);
      fsdpa_ctx_free(c);
      w->runs++;
    }
    if (RANKS[0].data) {
      fsdpa_ctx *c[2] = {feed(&RANKS[0], 65536, 0), feed(&RANKS[1], 65536, 0)};
      char *r = c[0] && c[1] ? report_of(c, 2) : NULL;
      if (!r || strcmp(r, rank_report) != 0) note_fail(w, "2-rank report differs%s", "");
      char *f = c[0] && c[1] ? findings_of(c, 2) : NULL;
      if (!f || strcmp(f, rank_findings) != 0) note_fail(w, "2-rank typed findings differ%s", "");
      free(r);
      free(f);
      fsdpa_ctx_free(c[0]);
      fsdpa_ctx_free(c[1]);
      w->runs++;
    }
  }
  return NULL;
}

static int load(trace *t, char *path) {
  t->path = path;
  t->data = tu_read_file(path, &t->len);
  return t->data != NULL;
}

START_TEST(t_contexts_on_many_threads) {
  static const char *const scen[] = {"fsdp2_healthy", "network_bound", "sync_stall", "allocator_thrash",
                                     "fsdp1_serialized"};
  char name[64];
  for (size_t i = 0; i < sizeof scen / sizeof scen[0]; i++) {
    snprintf(name, sizeof name, "threads_%s.json%s", scen[i], i % 2 ? ".gz" : "");
    char *p = tu_tracegen(scen[i], "--steps 2 --layers 2 --seed 5", name);
    if (!p) {
      printf("# SKIP generated traces: tools/tracegen failed for %s\n", scen[i]);
      continue;
    }
    ck_assert(load(&T[nt++], p));
  }
  const char *dir = tu_corpus_dir();
  if (dir) {
    char *p = malloc(4096);
    snprintf(p, 4096, "%s/hta/critical_path/cuda_event_sync_multi_stream/event_sync_trace.json.gz", dir);
    if (load(&T[nt], p)) nt++;
    else free(p);
  }
  char *r0 = tu_tracegen("straggler", "--ranks 2 --steps 2 --layers 2 --seed 5", "threads_straggler.json");
  if (r0) {
    /* tracegen writes NAME.rank<i>.json for a multi-rank job */
    char *dot = strstr(r0, ".json");
    ck_assert_ptr_nonnull(dot);
    for (int r = 0; r < 2; r++) {
      char *p = malloc(strlen(r0) + 8);
      snprintf(p, strlen(r0) + 8, "%.*s.rank%d.json", (int)(dot - r0), r0, r);
      ck_assert_msg(load(&RANKS[r], p), "%s missing", p);
    }
    free(r0);
  } else {
    printf("# SKIP 2-rank job: tools/tracegen failed\n");
  }
  ck_assert_msg(nt >= 2, "need at least 2 traces, have %zu", nt);

  /* the reference, on this thread alone */
  for (size_t i = 0; i < nt; i++) {
    fsdpa_ctx *c = feed(&T[i], (size_t)1 << 20, 0);
    ck_assert_msg(c != NULL, "%s does not read", T[i].path);
    T[i].report = report_of(&c, 1);
    T[i].summary = summary_of(c);
    T[i].findings = findings_of(&c, 1);
    ck_assert_int_eq(fsdpa_report_findings(&c, 1, &T[i].shared, NULL), FSDPA_OK);
    ck_assert_ptr_nonnull(T[i].report);
    ck_assert_ptr_nonnull(T[i].summary);
    ck_assert_ptr_nonnull(T[i].findings);
    /* the shared list outlives its context */
    fsdpa_ctx_free(c);
  }
  if (RANKS[0].data) {
    fsdpa_ctx *c[2] = {feed(&RANKS[0], 1 << 20, 0), feed(&RANKS[1], 1 << 20, 0)};
    ck_assert(c[0] && c[1]);
    rank_report = report_of(c, 2);
    rank_findings = findings_of(c, 2);
    ck_assert_ptr_nonnull(rank_report);
    ck_assert_ptr_nonnull(rank_findings);
    fsdpa_ctx_free(c[0]);
    fsdpa_ctx_free(c[1]);
  }

  pthread_t th[NTHREADS];
  worker w[NTHREADS];
  memset(w, 0, sizeof w);
  for (int i = 0; i < NTHREADS; i++) {
    w[i].id = i;
    ck_assert_int_eq(pthread_create(&th[i], NULL, work, &w[i]), 0);
  }
  unsigned runs = 0;
  for (int i = 0; i < NTHREADS; i++) {
    ck_assert_int_eq(pthread_join(th[i], NULL), 0);
    ck_assert_msg(w[i].failures == 0, "thread %d: %d failures, first: %s", i, w[i].failures, w[i].first);
    runs += w[i].runs;
  }
  printf("# threads: %d threads, %u analyses (%zu traces%s), all identical to the single-threaded results\n",
         NTHREADS, runs, nt, RANKS[0].data ? " + a 2-rank job" : "");
  for (size_t i = 0; i < nt; i++) {
    free(T[i].path);
    free(T[i].data);
    free(T[i].report);
    free(T[i].summary);
    free(T[i].findings);
    fsdpa_list_free(T[i].shared);
  }
  for (int r = 0; r < 2; r++) {
    free(RANKS[r].path);
    free(RANKS[r].data);
  }
  free(rank_report);
  free(rank_findings);
}
END_TEST

int main(void) {
  Suite *s = suite_create("threads");
  TU_CASE(s, "threads", 1200, NULL, t_contexts_on_many_threads);
  return tu_run_suite(s);
}
