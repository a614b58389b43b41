/* The allocator analysis: the memory timeline and the caching allocator's
 * calls from hand-built event sets with known answers, fault injection over
 * every sync and allocator query and report hook, and generator scenarios
 * against their truth.  The real-trace corpus check of both analyses is in
 * test_sync.c. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "testutil.h"
#include "tjson.h"
#include "ctx.h"
#include "analysis/sync/sync.h"
#include "analysis/allocator/allocator.h"

/* ---- event helpers ---- */

/* A `[memory]` instant of the caching allocator (thread 10 of process 10):
 * the change `bytes`, the totals after it, and the device it is about. */
static void add_mem(fsdpa_ctx *c, int64_t ts, int64_t bytes, int64_t ta, int64_t tr, int64_t type, int64_t id) {
  fsdpa_event e = tu_x("cpu_instant_event", "[memory]", 10, 10, ts, FSDPA_ABSENT, FSDPA_ABSENT);
  e.ph = 'i';
  e.bytes = bytes;
  e.total_allocated = ta;
  e.total_reserved = tr;
  e.device_type = type;
  e.device_id = id;
  tu_add(c, &e);
}

/* The allocator lists, checked for their kind. */
static fsdpa_list *mem_devices(fsdpa_ctx *c, const fsdpa_query *q) {
  fsdpa_list *l = NULL;
  ck_assert_int_eq(fsdpa_memory_device_list(c, q, &l), FSDPA_OK);
  ck_assert_int_eq(fsdpa_list_type(l), FSDPA_LIST_MEMORY_DEVICES);
  return l;
}
static fsdpa_list *mem_series(fsdpa_ctx *c, const fsdpa_query *q, int64_t device, size_t buckets) {
  fsdpa_list *l = NULL;
  ck_assert_int_eq(fsdpa_memory_series_list(c, q, device, buckets, &l), FSDPA_OK);
  ck_assert_int_eq(fsdpa_list_type(l), FSDPA_LIST_MEMORY_POINTS);
  return l;
}
static fsdpa_list *mem_steps(fsdpa_ctx *c, const fsdpa_query *q) {
  fsdpa_list *l = NULL;
  ck_assert_int_eq(fsdpa_memory_step_list(c, q, &l), FSDPA_OK);
  ck_assert_int_eq(fsdpa_list_type(l), FSDPA_LIST_MEMORY_STEPS);
  return l;
}

/* ---- memory timeline ---- */

static void build_mem(fsdpa_ctx *c) {
  add_mem(c, 100, 100, 1100, 2000, 1, 0);
  add_mem(c, 150, 1000000000, 1000000000, 0, 0, -1);  /* CPU allocator: ignored */
  add_mem(c, 200, 500, 1600, 2000, 1, 0);
  add_mem(c, 300, -500, 1100, 2000, 1, 0);
  add_mem(c, 400, 900, 2000, 4000, 1, 0);
  add_mem(c, 500, -900, 1100, 4000, 1, 0);
  /* a legacy device without totals */
  add_mem(c, 100, 10, FSDPA_ABSENT, FSDPA_ABSENT, 1, 1);
  add_mem(c, 200, 20, FSDPA_ABSENT, FSDPA_ABSENT, 1, 1);
  add_mem(c, 300, -25, FSDPA_ABSENT, FSDPA_ABSENT, 1, 1);
}

START_TEST(t_memory_levels) {
  fsdpa_ctx *c = tu_new_ctx();
  build_mem(c);
  fsdpa_memory_summary m;
  m.size = sizeof m;
  ck_assert_int_eq(fsdpa_memory_query(c, NULL, &m), FSDPA_OK);
  ck_assert_int_eq(m.device, 0);
  ck_assert_int_eq(m.peak_allocated_bytes, 2000);
  ck_assert_int_eq(m.peak_reserved_bytes, 4000);
  ck_assert_int_eq(m.allocated_at_peak_reserved_bytes, 2000);
  ck_assert(fabs(m.fragmentation - 0.5) < 1e-12);
  ck_assert_int_eq(m.start_allocated_bytes, 1000);
  ck_assert_int_eq(m.end_allocated_bytes, 1100);
  ck_assert_int_eq(m.min_allocated_bytes, 1100);
  ck_assert(fabs(m.mean_unallocated_share - 0.4) < 1e-12);
  ck_assert_uint_eq(m.memory_events, 5);
  ck_assert_uint_eq(m.malloc_calls, 0);
  /* a window: the level carried in at t0 counts */
  fsdpa_query q;
  fsdpa_query_init(&q);
  q.t0_ns = 250;
  q.t1_ns = 450;
  q.fields = FSDPA_QUERY_T0 | FSDPA_QUERY_T1;
  ck_assert_int_eq(fsdpa_memory_query(c, &q, &m), FSDPA_OK);
  ck_assert_int_eq(m.start_allocated_bytes, 1600);
  ck_assert_int_eq(m.end_allocated_bytes, 2000);
  ck_assert_int_eq(m.peak_allocated_bytes, 2000);
  ck_assert_int_eq(m.min_allocated_bytes, 1100);
  ck_assert_uint_eq(m.memory_events, 2);
  q.t0_ns = 210;
  q.t1_ns = 290;  /* no event inside: only the carried level */
  ck_assert_int_eq(fsdpa_memory_query(c, &q, &m), FSDPA_OK);
  ck_assert_int_eq(m.peak_allocated_bytes, 1600);
  ck_assert_uint_eq(m.memory_events, 0);
  /* devices */
  fsdpa_list *l = mem_devices(c, NULL);
  ck_assert_uint_eq(fsdpa_list_count(l), 2);
  fsdpa_memory_device d[2];
  TU_ITEM(l, 0, d[0]);
  TU_ITEM(l, 1, d[1]);
  fsdpa_list_free(l);
  ck_assert_int_eq(d[0].primary, 1);
  ck_assert_int_eq(d[1].relative, 1);
  ck_assert_int_eq(d[1].peak_allocated_bytes, FSDPA_ABSENT);
  ck_assert_int_eq(d[1].peak_allocated_delta_bytes, 30);
  ck_assert(d[1].fragmentation < 0);
  /* series: 4 buckets of 101 ns over [100, 501) */
  fsdpa_memory_point p[4];
  l = mem_series(c, NULL, FSDPA_ABSENT, 4);
  ck_assert_uint_eq(fsdpa_list_count(l), 4);
  for (size_t i = 0; i < 4; i++) TU_ITEM(l, i, p[i]);
  fsdpa_list_free(l);
  ck_assert_int_eq(p[0].t0_ns, 100);
  ck_assert_int_eq(p[0].t1_ns, 201);
  ck_assert_int_eq(p[3].t1_ns, 501);
  ck_assert_int_eq(p[0].allocated_min, 1100);
  ck_assert_int_eq(p[0].allocated_max, 1600);
  ck_assert_int_eq(p[1].allocated_max, 1600);  /* carried in */
  ck_assert_int_eq(p[1].allocated_last, 1100);
  ck_assert_int_eq(p[2].allocated_max, 2000);
  ck_assert_int_eq(p[3].reserved_max, 4000);
  ck_assert_uint_eq(p[1].events, 1);
  l = mem_series(c, NULL, 1, 4);
  ck_assert_uint_ge(fsdpa_list_count(l), 2);
  TU_ITEM(l, 1, p[1]);
  ck_assert_int_eq(p[1].allocated_max, 30);
  fsdpa_list_free(l);
  l = mem_series(c, NULL, 7, 4);
  ck_assert_uint_eq(fsdpa_list_count(l), 0);
  fsdpa_list_free(l);
  char *rep = tu_report(c, FSDPA_FORMAT_JSON);
  ck_assert_ptr_nonnull(rep);
  ck_assert_int_eq(tj_i64(rep, "ranks.0.allocator.peak_allocated_bytes"), 2000);
  ck_assert_int_eq(tj_i64(rep, "ranks.0.allocator.devices.[device=0].peak_allocated_bytes"), 2000);
  ck_assert(tu_report_has_finding(rep, "allocator-fragmentation"));  /* 50% >= 30% */
  free(rep);
  fsdpa_ctx_free(c);
}
END_TEST

START_TEST(t_memory_null_rules) {
  fsdpa_ctx *c = tu_new_ctx();
  tu_add_x(c, "user_annotation", "ProfilerStep#0", 10, 10, 0, 1000, FSDPA_ABSENT);
  add_mem(c, 10, 4, 4, 0, 0, -1);  /* CPU only */
  char *rep = tu_report(c, FSDPA_FORMAT_JSON);
  ck_assert_ptr_nonnull(rep);
  ck_assert(tj_has(rep, "ranks.0.allocator"));
  ck_assert_int_eq(tj_i64(rep, "ranks.0.allocator.malloc_calls"), 0);
  ck_assert(tj_is_null(rep, "ranks.0.allocator.peak_allocated_bytes"));
  ck_assert(tj_is_null(rep, "ranks.0.allocator.fragmentation"));
  ck_assert_uint_eq(tj_count(rep, "ranks.0.sync_waits"), 0);
  free(rep);
  fsdpa_ctx_free(c);
}
END_TEST

/* Five steps of 1000 ns; reserved grows in steps 0 and 1; steps 2.. each
 * malloc + free once (thrash) unless `healthy`. */
static void build_steps(fsdpa_ctx *c, int healthy) {
  char name[32];
  int64_t ta = 1000, tr = 1100;
  for (int k = 0; k < 5; k++) {
    int64_t t = k * 1000;
    snprintf(name, sizeof name, "ProfilerStep#%d", k);
    tu_add_x(c, "user_annotation", name, 10, 10, t, 1000, FSDPA_ABSENT);
    if (k < 2 || !healthy) {
      tu_add_x(c, "cuda_runtime", "cudaMalloc", 10, 10, t + 50, 20, 100 + k);
      if (k < 2) tr += 150;
    }
    ta += 400;
    add_mem(c, t + 100, 400, ta, tr, 1, 0);
    if (k >= 2 && !healthy) tu_add_x(c, "cuda_runtime", "cudaFree", 10, 10, t + 300, 30, 200 + k);
    ta -= 400;
    add_mem(c, t + 500, -400, ta, tr, 1, 0);
  }
}

START_TEST(t_warmup_and_thrash) {
  fsdpa_ctx *c = tu_new_ctx();
  build_steps(c, 0);
  fsdpa_memory_summary m;
  m.size = sizeof m;
  ck_assert_int_eq(fsdpa_memory_query(c, NULL, &m), FSDPA_OK);
  ck_assert_int_eq(m.warmup_steps, 2);
  ck_assert_uint_eq(m.steady_steps, 3);
  ck_assert_uint_eq(m.malloc_calls, 5);
  ck_assert_uint_eq(m.free_calls, 3);
  ck_assert_uint_eq(m.steady_state_malloc_calls, 3);
  ck_assert_uint_eq(m.steady_state_free_calls, 3);
  ck_assert_int_eq(m.malloc_ns, 100);
  ck_assert(fabs(m.fragmentation) < 1e-12);  /* reserved 1400 fully used at its peak */
  ck_assert_int_eq(m.free_ns, 90);
  fsdpa_memory_step s[5];
  fsdpa_list *l = mem_steps(c, NULL);
  ck_assert_uint_eq(fsdpa_list_count(l), 5);
  for (size_t i = 0; i < 5; i++) TU_ITEM(l, i, s[i]);
  fsdpa_list_free(l);
  ck_assert_int_eq(s[1].warmup, 1);
  ck_assert_int_eq(s[2].warmup, 0);
  ck_assert_int_eq(s[3].start_allocated_bytes, 1000);
  ck_assert_int_eq(s[3].peak_allocated_bytes, 1400);
  ck_assert_int_eq(s[3].end_allocated_bytes, 1000);
  ck_assert_int_eq(s[3].returns_to_baseline, 1);
  ck_assert_int_eq(s[3].peak_reserved_bytes, 1400);
  ck_assert_uint_eq(s[3].malloc_calls, 1);
  ck_assert_uint_eq(s[3].free_calls, 1);
  char *rep = tu_report(c, FSDPA_FORMAT_JSON);
  ck_assert_ptr_nonnull(rep);
  ck_assert(tu_report_has_finding(rep, "allocator-thrash"));
  ck_assert(tj_str_is(rep, "ranks.0.allocator.pattern", "sawtooth"));
  free(rep);
  /* a fixed warm-up */
  ck_assert_int_eq(fsdpa_param_set(c, "allocator.warmup_steps", "4"), FSDPA_OK);
  ck_assert_int_eq(fsdpa_memory_query(c, NULL, &m), FSDPA_OK);
  ck_assert_int_eq(m.warmup_steps, 4);
  ck_assert_uint_eq(m.steady_state_malloc_calls, 1);
  ck_assert_int_eq(fsdpa_param_set(c, "allocator.thrash_min_per_step", "3"), FSDPA_OK);
  rep = tu_report(c, FSDPA_FORMAT_JSON);
  ck_assert_ptr_nonnull(rep);
  ck_assert(!tu_report_has_finding(rep, "allocator-thrash"));
  free(rep);
  fsdpa_ctx_free(c);

  c = tu_new_ctx();
  build_steps(c, 1);
  ck_assert_int_eq(fsdpa_memory_query(c, NULL, &m), FSDPA_OK);
  ck_assert_int_eq(m.warmup_steps, 2);
  ck_assert_uint_eq(m.steady_state_malloc_calls, 0);
  rep = tu_report(c, FSDPA_FORMAT_JSON);
  ck_assert_ptr_nonnull(rep);
  ck_assert(!tu_report_has_finding(rep, "allocator-thrash"));
  ck_assert(!tu_report_has_finding(rep, "allocator-fragmentation"));
  free(rep);
  fsdpa_ctx_free(c);
}
END_TEST

/* ---- fault injection: every allocation of every query fails in turn ---- */

static long nallocs, fail_at;
static void *f_malloc(void *ud, size_t n) { (void)ud; return ++nallocs == fail_at ? NULL : malloc(n); }
static void *f_realloc(void *ud, void *p, size_t o, size_t n) {
  (void)ud; (void)o;
  return ++nallocs == fail_at ? NULL : realloc(p, n);
}
static void f_free(void *ud, void *p, size_t n) { (void)ud; (void)n; free(p); }

/* One list call; the list is released at once (a failure leaves none). */
#define RUN_LIST(call)                \
  do {                                \
    fsdpa_list *l_ = NULL;            \
    if ((st = (call))) return st;     \
    fsdpa_list_free(l_);              \
  } while (0)

static fsdpa_status run_all(fsdpa_ctx *c) {
  fsdpa_status st;
  RUN_LIST(fsdpa_sync_wait_list(c, NULL, &l_));
  RUN_LIST(fsdpa_sync_call_list(c, NULL, &l_));
  RUN_LIST(fsdpa_sync_step_list(c, NULL, &l_));
  fsdpa_memory_summary m;
  m.size = sizeof m;
  if ((st = fsdpa_memory_query(c, NULL, &m))) return st;
  RUN_LIST(fsdpa_memory_device_list(c, NULL, &l_));
  RUN_LIST(fsdpa_memory_series_list(c, NULL, FSDPA_ABSENT, 8, &l_));
  RUN_LIST(fsdpa_memory_step_list(c, NULL, &l_));
  sbuf b;
  sb_init(&b, &c->alloc);
  jsonw jw;
  jw_init(&jw, &b, 0);
  st = sync_waits_json(c, &jw);
  if (!st) st = allocator_json(c, &jw);
  if (!st && b.failed) st = (fsdpa_status)b.failed;
  sb_free(&b);
  if (st) return st;
  findings f;
  findings_init(&f, &c->alloc);
  st = sync_waits_findings(c, 0, &f);
  if (!st) st = allocator_findings(c, 0, &f);
  if (!st && f.failed) st = (fsdpa_status)f.failed;
  findings_free(&f);
  return st;
}

START_TEST(t_fault_injection) {
  fsdpa_allocator al = {sizeof al, f_malloc, f_realloc, f_free, NULL};
  fsdpa_options o;
  fsdpa_options_init(&o);
  o.allocator = &al;
  fsdpa_ctx *c = NULL;
  fail_at = -1;
  ck_assert_int_eq(fsdpa_ctx_new(&c, &o), FSDPA_OK);
  tu_build_sync_inferred(c);
  build_steps(c, 0);
  build_mem(c);
  ck_assert_int_eq(fsdpa_param_set(c, "sync.min_stall_ns", "100"), FSDPA_OK);
  /* views built outside the measured calls */
  fsdpa_list *streams = NULL;
  ck_assert_int_eq(fsdpa_stream_list(c, &streams), FSDPA_OK);
  ck_assert_uint_gt(fsdpa_list_count(streams), 0);
  fsdpa_list_free(streams);
  uint64_t used = c->alloc.used;
  int failures = 0;
  for (long k = 1;; k++) {
    nallocs = 0;
    fail_at = k;
    fsdpa_status st = run_all(c);
    ck_assert_msg(st == FSDPA_OK || st == FSDPA_ENOMEM, "allocation %ld: status %d", k, (int)st);
    /* results cached in the context are kept by design; dropping them must
     * give back every byte, and the next run starts from the same state */
    ctx_cache_clear(c);
    ck_assert_msg(c->alloc.used == used, "allocation %ld leaked %llu bytes", k,
                  (unsigned long long)(c->alloc.used - used));
    if (st == FSDPA_OK) break;
    failures++;
  }
  ck_assert_int_gt(failures, 50);
  fail_at = -1;
  fsdpa_ctx_free(c);
}
END_TEST

/* ---- generator scenarios against their truth ---- */

START_TEST(t_gen_allocator_thrash) { tu_check_sync_alloc_scenario("allocator_thrash", "allocator-thrash", NULL); }
END_TEST
START_TEST(t_gen_allocator_healthy) { tu_check_sync_alloc_scenario("allocator_healthy", NULL, "allocator-thrash"); }
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("allocator");
  TCase *u = tcase_create("unit");
  tcase_add_test(u, t_memory_levels);
  tcase_add_test(u, t_memory_null_rules);
  tcase_add_test(u, t_warmup_and_thrash);
  tcase_add_test(u, t_fault_injection);
  suite_add_tcase(s, u);
  TCase *g = tcase_create("generator");
  tcase_set_timeout(g, 1200);
  tcase_add_test(g, t_gen_allocator_thrash);
  tcase_add_test(g, t_gen_allocator_healthy);
  suite_add_tcase(s, g);
  return s;
}

int main(void) {
  SRunner *sr = srunner_create(suite());
  srunner_run_all(sr, CK_ENV);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed ? 1 : 0;
}
