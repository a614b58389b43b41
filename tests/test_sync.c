/* CPU sync stalls: hand-built event sets with known answers, the array
 * protocol, the real-trace corpus against an independent Python count
 * (tests/sync_alloc_ref.py, which also counts the allocator side), and
 * generator scenarios against their truth. */
#include <check.h>
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "testutil.h"

/* ---- event helpers ---- */

static void add_sync_ev(fsdpa_ctx *c, const char *kind, int64_t stream_tid, int64_t ts, int64_t dur, int64_t corr,
                        int64_t wait_stream, int64_t wait_corr) {
  fsdpa_event e;
  fsdpa_event_init(&e);
  e.ph = 'X';
  e.cat = "cuda_sync";
  e.cat_len = 9;
  e.name = kind;
  e.name_len = strlen(kind);
  e.pid = 0;
  e.tid = stream_tid;
  e.ts_ns = ts;
  e.dur_ns = dur;
  e.correlation = corr;
  e.sync_kind = kind;
  e.sync_kind_len = strlen(kind);
  e.wait_on_stream = wait_stream;
  e.wait_on_event_corr = wait_corr;
  ck_assert_int_eq(fsdpa_event_add(c, &e), FSDPA_OK);
}

/* ---- sync: inference, idle, steps ---- */

START_TEST(t_sync_inferred_idle) {
  fsdpa_ctx *c = tu_new_ctx();
  tu_build_sync_inferred(c);
  fsdpa_sync_call k[4];
  k[0].size = sizeof k[0];
  size_t n = 4;
  ck_assert_int_eq(fsdpa_query_sync_calls(c, NULL, k, &n), FSDPA_OK);
  ck_assert_uint_eq(n, 2);
  ck_assert_str_eq(k[0].api, "cudaStreamSynchronize");
  ck_assert_int_eq(k[0].source, FSDPA_WAIT_INFERRED);
  ck_assert_int_eq(k[0].device_wide, 0);
  ck_assert_int_eq(k[0].stream, 7);
  ck_assert_str_eq(k[0].waited_op, "k2");  /* last op queued on stream 7 before the call */
  ck_assert_int_eq(k[0].waited_op_end_ns, 2000);
  ck_assert_int_eq(k[0].step, 1);
  ck_assert_int_eq(k[0].gpu_idle_during_ns, 100);  /* [300,2100) minus busy [200,2000) */
  ck_assert_int_eq(k[0].gpu_idle_after_ns, 500);   /* 2100 -> k3 at 2600 */
  ck_assert_str_eq(k[1].api, "cudaDeviceSynchronize");
  ck_assert_int_eq(k[1].device_wide, 1);
  ck_assert_str_eq(k[1].waited_op, "k3");
  ck_assert_int_eq(k[1].device, 0);
  ck_assert_int_eq(k[1].gpu_idle_after_ns, FSDPA_ABSENT);  /* nothing runs after it */
  ck_assert_int_eq(k[1].gpu_idle_during_ns, 100);
  fsdpa_sync_wait w[3];
  w[0].size = 0;
  n = 3;
  ck_assert_int_eq(fsdpa_query_sync_waits(c, NULL, w, &n), FSDPA_OK);
  ck_assert_uint_eq(n, 2);
  ck_assert_str_eq(w[0].api, "cudaStreamSynchronize");
  ck_assert_int_eq(w[0].total_ns, 1800);
  ck_assert_int_eq(w[0].gpu_idle_ns, 600);  /* |[300,2600) \ busy| */
  ck_assert_uint_eq(w[0].idle_after_calls, 1);
  ck_assert_int_eq(w[1].count, 1);
  ck_assert_uint_eq(w[1].idle_after_calls, 0);
  /* per step: the worst thread blocked 1800 of 10000 ns */
  fsdpa_sync_step s[2];
  s[0].size = sizeof s[0];
  n = 2;
  ck_assert_int_eq(fsdpa_query_sync_steps(c, NULL, s, &n), FSDPA_OK);
  ck_assert_uint_eq(n, 1);
  ck_assert_uint_eq(s[0].count, 2);
  ck_assert_int_eq(s[0].total_ns, 1900);
  ck_assert_int_eq(s[0].worst_thread_ns, 1800);
  ck_assert_int_eq(s[0].worst_tid, 10);
  ck_assert(fabs(s[0].share - 0.18) < 1e-12);
  ck_assert_int_eq(s[0].flagged, 0);  /* 1.8 us < 1 ms */
  char *rep = tu_report(c, FSDPA_FORMAT_JSON);
  ck_assert_ptr_nonnull(rep);
  ck_assert(!tu_report_has_finding(rep, "cpu-sync-stall"));
  ck_assert_ptr_nonnull(strstr(rep, "\"api\": \"cudaStreamSynchronize\""));
  free(rep);
  ck_assert_int_eq(fsdpa_param_set(c, "sync.min_stall_ns", "1000"), FSDPA_OK);
  n = 2;
  ck_assert_int_eq(fsdpa_query_sync_steps(c, NULL, s, &n), FSDPA_OK);
  ck_assert_int_eq(s[0].flagged, 1);
  rep = tu_report(c, FSDPA_FORMAT_JSON);
  ck_assert_ptr_nonnull(rep);
  ck_assert(tu_report_has_finding(rep, "cpu-sync-stall"));
  free(rep);
  /* share threshold: 18% < 20% */
  ck_assert_int_eq(fsdpa_param_set(c, "sync.min_share_ppm", "200000"), FSDPA_OK);
  rep = tu_report(c, FSDPA_FORMAT_JSON);
  ck_assert(!tu_report_has_finding(rep, "cpu-sync-stall"));
  free(rep);
  /* window: calls by start */
  fsdpa_query q;
  fsdpa_query_init(&q);
  q.t0_ns = 301;
  n = 3;
  ck_assert_int_eq(fsdpa_query_sync_waits(c, &q, w, &n), FSDPA_OK);
  ck_assert_uint_eq(n, 1);
  ck_assert_str_eq(w[0].api, "cudaDeviceSynchronize");
  fsdpa_ctx_free(c);
}
END_TEST

START_TEST(t_sync_cuda_sync_events) {
  fsdpa_ctx *c = tu_new_ctx();
  tu_launch_kernel(c, 10, 100, 11, 20, 150, 400, "before_record");
  tu_add_x(c, "cuda_runtime", "cudaEventRecord", 10, 10, 200, 5, 12);
  tu_launch_kernel(c, 10, 300, 13, 20, 400, 900, "after_record");
  tu_add_x(c, "cuda_runtime", "cudaEventSynchronize", 10, 10, 350, 100, 14);
  add_sync_ev(c, "Event Sync", -1, 351, 98, 14, 20, 12);
  tu_add_x(c, "cuda_runtime", "cudaStreamSynchronize", 10, 10, 1000, 10, 15);
  add_sync_ev(c, "Stream Sync", 20, 1001, 8, 15, FSDPA_ABSENT, FSDPA_ABSENT);
  tu_add_x(c, "cuda_runtime", "cudaDeviceSynchronize", 10, 10, 1100, 10, 16);
  add_sync_ev(c, "Context Sync", -1, 1101, 8, 16, FSDPA_ABSENT, FSDPA_ABSENT);
  tu_add_x(c, "cuda_runtime", "cudaMemcpy", 10, 10, 1200, 300, 17);
  tu_add_x(c, "gpu_memcpy", "Memcpy DtoH (Device -> Pageable)", 0, 7, 1250, 150, 17);
  /* cudaEventQuery also yields an Event Sync event but never blocks */
  tu_add_x(c, "cuda_runtime", "cudaEventQuery", 10, 10, 1600, 3, 18);
  add_sync_ev(c, "Event Sync", -1, 1600, 2, 18, 20, 12);
  fsdpa_sync_call k[8];
  k[0].size = sizeof k[0];
  size_t n = 8;
  ck_assert_int_eq(fsdpa_query_sync_calls(c, NULL, k, &n), FSDPA_OK);
  ck_assert_uint_eq(n, 4);
  ck_assert_int_eq(k[0].source, FSDPA_WAIT_CUDA_SYNC);
  ck_assert_str_eq(k[0].sync_kind, "Event Sync");
  ck_assert_int_eq(k[0].stream, 20);
  ck_assert_str_eq(k[0].waited_op, "before_record");  /* queued before cudaEventRecord */
  ck_assert_int_eq(k[0].step, FSDPA_ABSENT);
  ck_assert_str_eq(k[1].sync_kind, "Stream Sync");
  ck_assert_str_eq(k[1].waited_op, "after_record");
  ck_assert_int_eq(k[2].device_wide, 1);
  ck_assert_str_eq(k[2].sync_kind, "Context Sync");
  ck_assert_str_eq(k[2].waited_op, "after_record");
  ck_assert_int_eq(k[3].source, FSDPA_WAIT_OWN_OP);
  ck_assert_str_eq(k[3].waited_op, "Memcpy DtoH (Device -> Pageable)");
  ck_assert_int_eq(k[3].stream, 7);
  /* device / stream selection */
  fsdpa_query q;
  fsdpa_query_init(&q);
  q.stream = 20;
  n = 8;
  ck_assert_int_eq(fsdpa_query_sync_calls(c, &q, k, &n), FSDPA_OK);
  ck_assert_uint_eq(n, 2);
  q.stream = FSDPA_ABSENT;
  q.device = 1;
  n = 8;
  ck_assert_int_eq(fsdpa_query_sync_calls(c, &q, k, &n), FSDPA_OK);
  ck_assert_uint_eq(n, 0);
  fsdpa_ctx_free(c);
}
END_TEST

START_TEST(t_array_protocol) {
  fsdpa_ctx *c = tu_new_ctx();
  tu_build_sync_inferred(c);
  size_t n = 0;
  ck_assert_int_eq(fsdpa_query_sync_waits(c, NULL, NULL, &n), FSDPA_EBUFS);
  ck_assert_uint_eq(n, 2);
  fsdpa_sync_wait one;
  one.size = sizeof one;
  n = 1;
  ck_assert_int_eq(fsdpa_query_sync_waits(c, NULL, &one, &n), FSDPA_EBUFS);
  ck_assert_uint_eq(n, 2);
  ck_assert_str_eq(one.api, "cudaStreamSynchronize");
  n = 1;
  one.size = 3;
  ck_assert_int_eq(fsdpa_query_sync_waits(c, NULL, &one, &n), FSDPA_EINVAL);
  ck_assert_int_eq(fsdpa_query_sync_waits(c, NULL, &one, NULL), FSDPA_EINVAL);
  /* a newer caller with a bigger struct: rows at its stride */
  struct big { fsdpa_sync_wait w; char pad[24]; } b[2];
  memset(b, 0xAB, sizeof b);
  b[0].w.size = sizeof b[0];
  n = 2;
  ck_assert_int_eq(fsdpa_query_sync_waits(c, NULL, &b[0].w, &n), FSDPA_OK);
  ck_assert_str_eq(b[1].w.api, "cudaDeviceSynchronize");
  ck_assert_uint_eq(b[1].w.size, sizeof(fsdpa_sync_wait));
  ck_assert_int_eq((unsigned char)b[0].pad[0], 0xAB);
  fsdpa_query q;
  fsdpa_query_init(&q);
  q.step = 3;
  n = 0;
  ck_assert_int_eq(fsdpa_query_sync_waits(c, &q, NULL, &n), FSDPA_EINVAL);
  n = 0;
  ck_assert_int_eq(fsdpa_query_memory_series(c, NULL, FSDPA_ABSENT, 0, NULL, &n), FSDPA_EINVAL);
  fsdpa_ctx_free(c);
}
END_TEST

/* ---- corpus: independent Python count ---- */

/* The reference runs in the background a few traces ahead of the checks:
 * Python's json is the slow part of this test. */
#define AHEAD 3
static FILE *ref_pipe[128];

static void ref_start(size_t i, const char *path) {
  if (ref_pipe[i]) return;
  char cmd[8192];
  const char *py = getenv("FSDPA_PYTHON");
  snprintf(cmd, sizeof cmd, "'%s' '%s/tests/sync_alloc_ref.py' '%s'", py ? py : "python3", tu_source_root(), path);
  ref_pipe[i] = popen(cmd, "r");
}

static char *ref_finish(size_t i) {
  FILE *p = ref_pipe[i];
  ref_pipe[i] = NULL;
  if (!p) return NULL;
  size_t cap = 1 << 16, n = 0, r;
  char *buf = malloc(cap);
  while (buf && (r = fread(buf + n, 1, cap - n - 1, p)) > 0) {
    n += r;
    if (n + 1 == cap) {
      char *nb = realloc(buf, cap *= 2);
      if (!nb) {
        free(buf);
        buf = NULL;
      }
      buf = nb;
    }
  }
  if (pclose(p) != 0 || !buf) {
    free(buf);
    return NULL;
  }
  buf[n] = 0;
  return buf;
}

static int has_suffix(const char *s, const char *suf) {
  size_t a = strlen(s), b = strlen(suf);
  return a >= b && strcmp(s + a - b, suf) == 0;
}

#define MAXT 128
static char *corpus[MAXT];
static size_t ncorpus;

static void walk(const char *dir) {
  DIR *d = opendir(dir);
  if (!d) return;
  struct dirent *e;
  while ((e = readdir(d)) != NULL) {
    if (e->d_name[0] == '.') continue;
    char p[4096];
    snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
    struct stat st;
    if (stat(p, &st)) continue;
    if (S_ISDIR(st.st_mode)) walk(p);
    else if ((has_suffix(p, ".json") || has_suffix(p, ".json.gz")) && ncorpus < MAXT) corpus[ncorpus++] = strdup(p);
  }
  closedir(d);
}

static int cmpstr(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* Checks one trace against the reference; returns the number of blocking
 * calls compared (to show the test compared something). */
static long check_trace(size_t idx, const char *path) {
  fsdpa_ctx *c = tu_new_ctx();
  fsdpa_status st = fsdpa_feed_file(c, path);
  char *r = ref_finish(idx);
  if (st != FSDPA_OK) {  /* not a trace (e.g. the Chakra execution trace): nothing to compare */
    printf("# %s: not analysed (%s)\n", path, fsdpa_errmsg(c));
    free(r);
    fsdpa_ctx_free(c);
    return -1;
  }
  ck_assert_msg(r != NULL, "reference script failed on %s", path);
  /* library side */
  fsdpa_sync_wait w[64];
  w[0].size = sizeof w[0];
  size_t nw = 64;
  ck_assert_int_eq(fsdpa_query_sync_waits(c, NULL, w, &nw), FSDPA_OK);
  size_t ncalls = 0;
  fsdpa_status cst = fsdpa_query_sync_calls(c, NULL, NULL, &ncalls);
  ck_assert_int_eq(cst, ncalls ? FSDPA_EBUFS : FSDPA_OK);
  fsdpa_sync_call *k = calloc(ncalls + 1, sizeof *k);
  k[0].size = sizeof *k;
  size_t nk = ncalls;
  ck_assert_int_eq(fsdpa_query_sync_calls(c, NULL, k, &nk), FSDPA_OK);
  long compared = 0;
  size_t ref_apis = 0;
  long ref_linked = -1, ref_malloc = -1, ref_free = -1;
  char *save = NULL;
  for (char *line = strtok_r(r, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
    char api[128];
    long long a1, a2, a3;
    long long step;
    if (sscanf(line, "sync %127s %lld %lld %lld", api, &a1, &a2, &a3) == 4) {
      ref_apis++;
      size_t i = 0;
      while (i < nw && strcmp(w[i].api, api)) i++;
      ck_assert_msg(i < nw, "%s: %s missing", path, api);
      ck_assert_msg(w[i].count == (uint64_t)a1 && w[i].total_ns == a2 && w[i].max_ns == a3,
                    "%s: %s lib %llu/%lld/%lld ref %lld/%lld/%lld", path, api, (unsigned long long)w[i].count,
                    (long long)w[i].total_ns, (long long)w[i].max_ns, a1, a2, a3);
      compared += a1;
    } else if (sscanf(line, "stepsync %lld %127s %lld %lld", &step, api, &a1, &a2) == 4) {
      long long cnt = 0, tot = 0;
      for (size_t i = 0; i < nk; i++)
        if (k[i].step == step && !strcmp(k[i].api, api)) {
          cnt++;
          tot += k[i].dur_ns;
        }
      ck_assert_msg(cnt == a1 && tot == a2, "%s: step %lld %s lib %lld/%lld ref %lld/%lld", path, step, api, cnt,
                    tot, a1, a2);
    } else if (sscanf(line, "linked %lld", &a1) == 1) {
      ref_linked = a1;
    } else if (sscanf(line, "malloc %lld", &a1) == 1) {
      ref_malloc = a1;
    } else if (sscanf(line, "free %lld", &a1) == 1) {
      ref_free = a1;
    } else if (!strncmp(line, "dev ", 4)) {
      char pa[32], pr[32], apr[32], rel[32];
      long long type, id, nev;
      ck_assert_int_eq(sscanf(line, "dev %lld %lld %lld %31s %31s %31s %31s", &type, &id, &nev, pa, pr, apr, rel), 7);
      fsdpa_memory_device d[16];
      d[0].size = sizeof d[0];
      size_t nd = 16;
      ck_assert_int_eq(fsdpa_query_memory_devices(c, NULL, d, &nd), FSDPA_OK);
      size_t i = 0;
      while (i < nd && !(d[i].device_type == type && d[i].device == id)) i++;
      ck_assert_msg(i < nd, "%s: device %lld/%lld missing", path, type, id);
      ck_assert_uint_eq(d[i].events, (uint64_t)nev);
      int64_t e_pa = pa[0] == '-' ? FSDPA_ABSENT : atoll(pa), e_pr = pr[0] == '-' ? FSDPA_ABSENT : atoll(pr);
      int64_t e_apr = apr[0] == '-' ? FSDPA_ABSENT : atoll(apr), e_rel = rel[0] == '-' ? FSDPA_ABSENT : atoll(rel);
      ck_assert_msg(d[i].peak_allocated_bytes == e_pa && d[i].peak_reserved_bytes == e_pr &&
                        d[i].allocated_at_peak_reserved_bytes == e_apr && d[i].peak_allocated_delta_bytes == e_rel,
                    "%s: device %lld peaks lib %lld/%lld/%lld/%lld ref %s/%s/%s/%s", path, id,
                    (long long)d[i].peak_allocated_bytes, (long long)d[i].peak_reserved_bytes,
                    (long long)d[i].allocated_at_peak_reserved_bytes, (long long)d[i].peak_allocated_delta_bytes, pa,
                    pr, apr, rel);
      if (e_pr != FSDPA_ABSENT && e_apr != FSDPA_ABSENT)
        ck_assert(fabs(d[i].fragmentation - (1.0 - (double)e_apr / (double)e_pr)) < 1e-12);
      printf("# %s: device %lld peak allocated %s reserved %s (delta %s)\n", path, id, pa, pr, rel);
    }
  }
  ck_assert_uint_eq(ref_apis, nw);
  /* every call linked to a usable cuda_sync event is attributed from it */
  long lib_linked = 0;
  for (size_t i = 0; i < nk; i++) {
    if (k[i].source != FSDPA_WAIT_CUDA_SYNC) continue;
    lib_linked++;
    /* causality: the work a call waited for ended before the call returned
     * (2 us of clock skew allowed) */
    if (k[i].waited_op)
      ck_assert_msg(k[i].waited_op_end_ns <= k[i].start_ns + k[i].dur_ns + 2000,
                    "%s: %s at %lld waited for an op ending %lld ns after it returned", path, k[i].api,
                    (long long)k[i].start_ns, (long long)(k[i].waited_op_end_ns - k[i].start_ns - k[i].dur_ns));
  }
  ck_assert_int_eq(lib_linked, ref_linked);
  fsdpa_memory_summary m;
  m.size = sizeof m;
  ck_assert_int_eq(fsdpa_memory_query(c, NULL, &m), FSDPA_OK);
  ck_assert_int_eq((long)m.malloc_calls, ref_malloc);
  ck_assert_int_eq((long)m.free_calls, ref_free);
  printf("# %s: %ld blocking calls (%ld via cuda_sync), %ld malloc, %ld free agree\n", path, compared, lib_linked,
         ref_malloc, ref_free);
  free(k);
  free(r);
  fsdpa_ctx_free(c);
  return compared;
}

START_TEST(t_corpus_vs_reference) {
  const char *dir = tu_corpus_dir();
  if (!dir) return;
  if (!ncorpus) {
    walk(dir);
    qsort(corpus, ncorpus, sizeof *corpus, cmpstr);
  }
  ck_assert_uint_gt(ncorpus, 10);
  long total = 0;
  int memtraces = 0;
  for (size_t i = 0; i < ncorpus; i++) {
    for (size_t j = i; j < ncorpus && j < i + AHEAD; j++) ref_start(j, corpus[j]);
    long n = check_trace(i, corpus[i]);
    if (n > 0) total += n;
    memtraces += strstr(corpus[i], "df_index_resolver") || strstr(corpus[i], "switchtransformers");
  }
  ck_assert_int_gt(total, 200);
  ck_assert_int_ge(memtraces, 2);
}
END_TEST

/* ---- generator scenarios against their truth ---- */

START_TEST(t_gen_sync_stall) { tu_check_sync_alloc_scenario("sync_stall", "cpu-sync-stall", NULL); }
END_TEST
START_TEST(t_gen_fsdp2_healthy) { tu_check_sync_alloc_scenario("fsdp2_healthy", NULL, "cpu-sync-stall"); }
END_TEST
START_TEST(t_gen_mixed) { tu_check_sync_alloc_scenario("mixed", "cpu-sync-stall", NULL); }
END_TEST

/* Queries answer on the events so far, between feeds. */
START_TEST(t_between_feeds) {
  char *path = tu_tracegen("sync_stall", "--steps 4", "sa_feeds.json.gz");
  if (!path) {
    printf("# SKIP between feeds: tools/tracegen could not generate sync_stall\n");
    return;
  }
  size_t len = 0;
  char *buf = tu_read_file(path, &len);
  ck_assert_ptr_nonnull(buf);
  fsdpa_ctx *c = tu_new_ctx();
  uint64_t prev_calls = 0, prev_ev = 0;
  size_t chunk = len / 5 + 1;
  for (size_t off = 0; off < len; off += chunk) {
    size_t n = len - off < chunk ? len - off : chunk;
    ck_assert_int_eq(fsdpa_feed(c, buf + off, n), FSDPA_OK);
    fsdpa_sync_wait w[8];
    w[0].size = sizeof w[0];
    size_t nw = 8;
    ck_assert_int_eq(fsdpa_query_sync_waits(c, NULL, w, &nw), FSDPA_OK);
    uint64_t calls = 0;
    for (size_t i = 0; i < nw; i++) calls += w[i].count;
    ck_assert_uint_ge(calls, prev_calls);
    prev_calls = calls;
    fsdpa_memory_summary m;
    m.size = sizeof m;
    ck_assert_int_eq(fsdpa_memory_query(c, NULL, &m), FSDPA_OK);
    ck_assert_uint_ge(m.memory_events, prev_ev);
    prev_ev = m.memory_events;
  }
  ck_assert_int_eq(fsdpa_finish(c), FSDPA_OK);
  ck_assert_uint_gt(prev_calls, 0);
  ck_assert_uint_gt(prev_ev, 0);
  free(buf);
  free(path);
  fsdpa_ctx_free(c);
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("sync");
  TCase *u = tcase_create("unit");
  tcase_add_test(u, t_sync_inferred_idle);
  tcase_add_test(u, t_sync_cuda_sync_events);
  tcase_add_test(u, t_array_protocol);
  suite_add_tcase(s, u);
  TCase *r = tcase_create("real");
  tcase_set_timeout(r, 1200);
  tcase_add_test(r, t_corpus_vs_reference);
  suite_add_tcase(s, r);
  TCase *g = tcase_create("generator");
  tcase_set_timeout(g, 1200);
  tcase_add_test(g, t_gen_sync_stall);
  tcase_add_test(g, t_gen_fsdp2_healthy);
  tcase_add_test(g, t_gen_mixed);
  tcase_add_test(g, t_between_feeds);
  suite_add_tcase(s, g);
  return s;
}

int main(void) {
  SRunner *sr = srunner_create(suite());
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed ? 1 : 0;
}
