/* The allocator analysis: the memory timeline and the caching allocator's
 * calls from hand-built event sets with known answers, fault injection over
 * every sync and allocator query and report hook, and generator scenarios
 * against their truth (the allocator backends, pinned host memory, a device
 * not analyzed).  The real-trace corpus check of both analyses is in
 * test_sync.c; the allocator classes on the corpus are checked here against
 * tests/alloc_classes_ref.py. */
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
#include "events/classify.h"

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
  /* its cost is memory, not time: the reservation not allocated at its peak */
  ck_assert_int_eq(tj_i64(rep, "findings.[id=allocator-fragmentation].evidence.peak_reserved_bytes"), 4000);
  ck_assert_int_eq(tj_i64(rep, "findings.[id=allocator-fragmentation].evidence.allocated_at_peak_reserved_bytes"),
                   2000);
  ck_assert_int_eq(tj_i64(rep, "findings.[id=allocator-fragmentation].cost_bytes"), 2000);
  ck_assert_int_eq(tj_i64(rep, "findings.[id=allocator-fragmentation].evidence.cost_bytes"), 2000);
  ck_assert_int_eq(tj_i64(rep, "findings.[id=allocator-fragmentation].cost_ns"), 0);
  free(rep);
  rep = tu_report(c, FSDPA_FORMAT_TEXT);
  ck_assert_ptr_nonnull(rep);
  ck_assert_msg(strstr(rep, "[allocator-fragmentation] rank 0, costs 2000 B of reserved memory") != NULL, "%s", rep);
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
  /* one free per steady step, no empty_cache op, no burst: the advice names
   * the release by what the native allocator does */
  ck_assert_int_eq(tj_i64(rep, "findings.[id=allocator-thrash].evidence.empty_cache_ops"), 0);
  ck_assert_int_eq(tj_i64(rep, "findings.[id=allocator-thrash].evidence.free_bursts"), 0);
  char *adv = tj_str(rep, "findings.[id=allocator-thrash].advice");
  ck_assert_msg(strstr(adv, "calls cudaFree only when cached memory is released") != NULL, "%s", adv);
  ck_assert_msg(strstr(adv, "KV cache") == NULL, "%s", adv);  /* mode unknown: no decode seen */
  free(adv);
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

static tu_fault fa;

/* One list call; the list is released at once (a failure leaves none). */
#define RUN_LIST(call)                \
  do {                                \
    fsdpa_list *l_ = NULL;            \
    if ((st = (call))) return st;     \
    fsdpa_list_free(l_);              \
  } while (0)

static int findings_has_pinned(const findings *f) {
  for (size_t i = 0; i < f->n; i++)
    if (!strcmp(f->v[i].id, "pinned-host-churn")) return 1;
  return 0;
}

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
  if (!st && !findings_has_pinned(&f)) st = FSDPA_EINVAL;
  findings_free(&f);
  if (st) return st;
  xdev_sum x[XDEV__COUNT];
  int nx = store_xdev_summary(&c->alloc, &c->st, x);
  if (nx < 0) return fa_fail_status(&c->alloc);
  ck_assert_int_eq(nx, 1);
  ck_assert_uint_eq(x[XDEV_MTIA].events, 3);
  ck_assert_int_eq(x[XDEV_MTIA].busy_ns, 900);
  return st;
}

START_TEST(t_fault_injection) {
  fsdpa_allocator al = tu_fault_allocator(&fa);
  fsdpa_options o;
  fsdpa_options_init(&o);
  o.allocator = &al;
  fsdpa_ctx *c = NULL;
  fa.fail_at = -1;
  ck_assert_int_eq(fsdpa_ctx_new(&c, &o), FSDPA_OK);
  tu_build_sync_inferred(c);
  build_steps(c, 0);
  build_mem(c);
  /* pinned host churn, expandable-segment mapping calls and a device not
   * analyzed, so their counts, finding and summary run under failure too */
  for (int k = 2; k < 5; k++) {
    tu_add_x(c, "cuda_runtime", "cudaHostAlloc", 10, 10, k * 1000 + 600, 40, 300 + k);
    tu_add_x(c, "cuda_runtime", "cudaFreeHost", 10, 10, k * 1000 + 700, 40, 400 + k);
    tu_add_x(c, "cuda_driver", "cuMemMap", 10, 10, k * 1000 + 800, 10, 500 + k);
    tu_add_x(c, "mtia_ccp_events", "mtia_kernel", 0, 101, k * 1000 + 100, 300, FSDPA_ABSENT);
  }
  ck_assert_int_eq(fsdpa_param_set(c, "sync.min_stall_ns", "100"), FSDPA_OK);
  /* views built outside the measured calls */
  fsdpa_list *streams = NULL;
  ck_assert_int_eq(fsdpa_stream_list(c, &streams), FSDPA_OK);
  ck_assert_uint_gt(fsdpa_list_count(streams), 0);
  fsdpa_list_free(streams);
  uint64_t used = c->alloc.used;
  int failures = 0;
  for (long k = 1;; k++) {
    fa.calls = 0;
    fa.fail_at = k;
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
  fa.fail_at = -1;
  fsdpa_ctx_free(c);
}
END_TEST

/* ---- generator scenarios against their truth ---- */

START_TEST(t_gen_allocator_thrash) { tu_check_sync_alloc_scenario("allocator_thrash", "allocator-thrash", NULL); }
END_TEST
START_TEST(t_gen_allocator_healthy) { tu_check_sync_alloc_scenario("allocator_healthy", NULL, "allocator-thrash"); }
END_TEST
START_TEST(t_gen_ddp) { tu_check_sync_alloc_scenario("ddp", NULL, "allocator-thrash"); }
END_TEST

/* The caching allocator off: a cudaMalloc for nearly every tensor, told
 * from a cache that misses (allocator_thrash re-mallocs a few large
 * segments for many tensors); the advice is to turn the cache back on. */
START_TEST(t_gen_cache_off) {
  static const struct { const char *scenario; int off; } S[] = {{"ddp_alloc_off", 1}, {"allocator_thrash", 0}};
  for (size_t i = 0; i < sizeof S / sizeof S[0]; i++) {
    char name[64];
    snprintf(name, sizeof name, "co_%s.json", S[i].scenario);
    char *path = tu_tracegen(S[i].scenario, "--steps 4 --layers 4", name);
    if (!path) {
      printf("# SKIP %s: tools/tracegen could not generate it\n", S[i].scenario);
      return;
    }
    fsdpa_ctx *c = tu_new_ctx();
    ck_assert_msg(fsdpa_feed_file(c, path) == FSDPA_OK, "%s", fsdpa_errmsg(c));
    char *rep = tu_report(c, FSDPA_FORMAT_JSON);
    ck_assert_ptr_nonnull(rep);
    ck_assert_msg(tj_bool(rep, "findings.[id=allocator-thrash].evidence.caching_off") == S[i].off, "%s",
                  S[i].scenario);
    char *adv = tj_str(rep, "findings.[id=allocator-thrash].advice");
    ck_assert_ptr_nonnull(adv);
    ck_assert_msg((strstr(adv, "PYTORCH_NO_CUDA_MEMORY_CACHING") != NULL) == S[i].off, "%s: %s", S[i].scenario, adv);
    ck_assert_msg((strstr(adv, "expandable_segments") == NULL) == S[i].off, "%s: %s", S[i].scenario, adv);
    free(adv);
    free(rep);
    fsdpa_ctx_free(c);
    free(path);
  }
}
END_TEST

/* ---- allocator backends, pinned host memory, devices not analyzed ---- */

/* The name classes: device memory of each backend, pinned host memory,
 * mapping-only VMM calls, and the categories of backends not analyzed. */
START_TEST(t_alloc_classes) {
#define CN(s) classify_name(s, strlen(s))
  ck_assert_uint_eq(CN("cudaMalloc") & (NC_MALLOC | NC_PINNED | NC_VMM | NC_ASYNC_POOL), NC_MALLOC);
  ck_assert_uint_eq(CN("cudaHostAlloc") & (NC_MALLOC | NC_FREE | NC_PINNED), NC_MALLOC | NC_PINNED);
  ck_assert_uint_eq(CN("hipHostMalloc") & (NC_MALLOC | NC_FREE | NC_PINNED), NC_MALLOC | NC_PINNED);
  ck_assert_uint_eq(CN("cudaFreeHost") & (NC_MALLOC | NC_FREE | NC_PINNED), NC_FREE | NC_PINNED);
  ck_assert_uint_eq(CN("hipHostFree") & (NC_MALLOC | NC_FREE | NC_PINNED), NC_FREE | NC_PINNED);
  ck_assert_uint_eq(CN("cuMemCreate") & (NC_MALLOC | NC_FREE | NC_VMM), NC_MALLOC | NC_VMM);
  ck_assert_uint_eq(CN("cuMemRelease") & (NC_MALLOC | NC_FREE | NC_VMM), NC_FREE | NC_VMM);
  ck_assert_uint_eq(CN("cuMemMap") & (NC_MALLOC | NC_FREE | NC_VMM | NC_UNMAP), NC_VMM);
  ck_assert_uint_eq(CN("cuMemUnmap") & (NC_MALLOC | NC_FREE | NC_VMM | NC_UNMAP), NC_VMM | NC_UNMAP);
  ck_assert_uint_eq(CN("cudaMallocAsync") & (NC_MALLOC | NC_ASYNC_POOL), NC_MALLOC | NC_ASYNC_POOL);
  ck_assert_uint_eq(CN("cudaFreeAsync_ptsz") & (NC_FREE | NC_ASYNC_POOL), NC_FREE | NC_ASYNC_POOL);
  ck_assert_uint_eq(CN("cudaMemcpyAsync") & (NC_MALLOC | NC_FREE | NC_VMM), 0);
#undef CN
  int host = -1;
  ck_assert_int_eq(classify_xdev("mtia_ccp_events", 15, &host), XDEV_MTIA);
  ck_assert_int_eq(host, 0);
  ck_assert_int_eq(classify_xdev("xpu_runtime", 11, &host), XDEV_XPU);
  ck_assert_int_eq(host, 1);
  ck_assert_int_eq(classify_xdev("hpu_op", 6, &host), XDEV_HPU);
  ck_assert_int_eq(host, 1);
  ck_assert_int_eq(classify_xdev("cuda_runtime", 12, &host), -1);
  ck_assert_int_eq(classify_cat("privateuse1_runtime", 19, 'X', "x", 1), RK_XDEV);
  ck_assert_int_eq(classify_cat("kernel", 6, 'X', "x", 1), RK_KERNEL);
}
END_TEST

/* By hand: 2 device mallocs, 1 pinned alloc + free, expandable mapping
 * calls; the counts apart and the backend from the majority. */
START_TEST(t_pinned_apart) {
  fsdpa_ctx *c = tu_new_ctx();
  fsdpa_event e = tu_x("user_annotation", "ProfilerStep#0", 10, 10, 0, 10000, FSDPA_ABSENT);
  tu_add(c, &e);
  static const char *const N[] = {"cudaMalloc", "cudaHostAlloc", "cudaFreeHost", "cudaMalloc", "cuMemCreate",
                                  "cuMemMap", "cuMemSetAccess", "cuMemUnmap", "cuMemRelease"};
  for (int i = 0; i < 9; i++) {
    fsdpa_event r = tu_x(i >= 4 ? "cuda_driver" : "cuda_runtime", N[i], 10, 10, 100 + 1000 * i, 10 + i, 100 + i);
    tu_add(c, &r);
  }
  fsdpa_memory_summary m;
  m.size = sizeof m;
  ck_assert_int_eq(fsdpa_memory_query(c, NULL, &m), FSDPA_OK);
  ck_assert_uint_eq(m.malloc_calls, 3);  /* 2 cudaMalloc + cuMemCreate; not cudaHostAlloc */
  ck_assert_uint_eq(m.free_calls, 1);    /* cuMemRelease; not cudaFreeHost */
  ck_assert_int_eq(m.malloc_ns, 10 + 13 + 14);
  char *rep = tu_report(c, FSDPA_FORMAT_JSON);
  ck_assert_ptr_nonnull(rep);
  ck_assert_int_eq(tj_i64(rep, "ranks.0.allocator.pinned_host.alloc_calls"), 1);
  ck_assert_int_eq(tj_i64(rep, "ranks.0.allocator.pinned_host.free_calls"), 1);
  ck_assert_int_eq(tj_i64(rep, "ranks.0.allocator.pinned_host.alloc_ns"), 11);
  ck_assert_int_eq(tj_i64(rep, "ranks.0.allocator.pinned_host.free_ns"), 12);
  ck_assert_int_eq(tj_i64(rep, "ranks.0.allocator.vmm.create_calls"), 1);
  ck_assert_int_eq(tj_i64(rep, "ranks.0.allocator.vmm.map_calls"), 2);
  ck_assert_int_eq(tj_i64(rep, "ranks.0.allocator.vmm.unmap_calls"), 1);
  ck_assert_int_eq(tj_i64(rep, "ranks.0.allocator.vmm.release_calls"), 1);
  ck_assert_int_eq(tj_i64(rep, "ranks.0.allocator.backend_evidence.native_calls"), 2);
  ck_assert_int_eq(tj_i64(rep, "ranks.0.allocator.backend_evidence.vmm_calls"), 5);
  ck_assert(tj_str_is(rep, "ranks.0.allocator.backend", "expandable_segments"));
  ck_assert(tj_str_is(rep, "ranks.0.allocator.by_api.[api=cudaHostAlloc].memory", "pinned_host"));
  ck_assert(tj_str_is(rep, "ranks.0.allocator.by_api.[api=cudaHostAlloc].kind", "malloc"));
  ck_assert(tj_str_is(rep, "ranks.0.allocator.by_api.[api=cuMemUnmap].kind", "unmap"));
  ck_assert(tj_str_is(rep, "ranks.0.allocator.by_api.[api=cudaMalloc].memory", "device"));
  ck_assert_uint_eq(tj_count(rep, "ranks.0.other_devices"), 0);
  free(rep);
  fsdpa_ctx_free(c);
}
END_TEST

static char *truth_of(const char *trace) {
  char t[4096];
  snprintf(t, sizeof t, "%s", trace);
  char *dot = strstr(t, ".json");
  ck_assert_ptr_nonnull(dot);
  snprintf(dot, sizeof t - (size_t)(dot - t), ".truth.json");
  size_t n = 0;
  char *s = tu_read_file(t, &n);
  ck_assert_ptr_nonnull(s);
  return s;
}

/* A generator scenario's allocator classes and advice against its truth. */
static void check_backend_scenario(const char *scenario, int thrash) {
  char name[128];
  snprintf(name, sizeof name, "ab_%s.json.gz", scenario);
  char *path = tu_tracegen(scenario, "--steps 6", name);
  ck_assert_msg(path != NULL, "tools/tracegen could not generate %s", scenario);
  fsdpa_ctx *c = tu_new_ctx();
  ck_assert_msg(fsdpa_feed_file(c, path) == FSDPA_OK, "%s: %s", scenario, fsdpa_errmsg(c));
  char *rep = tu_report(c, FSDPA_FORMAT_JSON), *t = truth_of(path);
  ck_assert_ptr_nonnull(rep);
  static const char *const K[][2] = {
      {"allocator.malloc_calls", "ranks.0.allocator.malloc_calls"},
      {"allocator.free_calls", "ranks.0.allocator.free_calls"},
      {"allocator.steady_state_malloc_calls", "ranks.0.allocator.steady_state_malloc_calls"},
      {"allocator.vmm.create_calls", "ranks.0.allocator.vmm.create_calls"},
      {"allocator.vmm.map_calls", "ranks.0.allocator.vmm.map_calls"},
      {"allocator.vmm.unmap_calls", "ranks.0.allocator.vmm.unmap_calls"},
      {"allocator.vmm.release_calls", "ranks.0.allocator.vmm.release_calls"},
      {"allocator.async_pool.malloc_calls", "ranks.0.allocator.async_pool.malloc_calls"},
      {"allocator.async_pool.free_calls", "ranks.0.allocator.async_pool.free_calls"},
      {"allocator.pinned_host.alloc_calls", "ranks.0.allocator.pinned_host.alloc_calls"},
      {"allocator.pinned_host.free_calls", "ranks.0.allocator.pinned_host.free_calls"},
  };
  for (size_t i = 0; i < sizeof K / sizeof K[0]; i++)
    ck_assert_msg(tj_i64(t, K[i][0]) == tj_i64(rep, K[i][1]), "%s: %s truth %lld lib %lld", scenario, K[i][0],
                  (long long)tj_i64(t, K[i][0]), (long long)tj_i64(rep, K[i][1]));
  char *tb = tj_is_null(t, "allocator.backend") ? NULL : tj_str(t, "allocator.backend");
  if (tb) ck_assert_msg(tj_str_is(rep, "ranks.0.allocator.backend", tb), "%s: backend is not %s", scenario, tb);
  else ck_assert(tj_is_null(rep, "ranks.0.allocator.backend"));
  ck_assert_int_eq(tu_report_has_finding(rep, "allocator-thrash"), thrash);
  /* only the frees that synchronize are blocking by name; the stream-ordered
   * cudaFreeAsync and the virtual-memory cuMemUnmap / cuMemRelease are
   * allocator calls judged by behaviour, as cudaMalloc is */
  int64_t af = tj_i64(t, "allocator.async_pool.free_calls"), rel = tj_i64(t, "allocator.vmm.release_calls");
  ck_assert_int_eq(tj_i64(rep, "ranks.0.sync_classes.classes.[class=free].calls"),
                   tj_i64(t, "allocator.free_calls") - af - rel + tj_i64(t, "allocator.pinned_host.free_calls"));
  ck_assert_int_eq(tj_i64(rep, "ranks.0.sync_classes.classes.[class=alloc].calls"),
                   tj_i64(t, "allocator.malloc_calls") + tj_i64(t, "allocator.vmm.map_calls") +
                       tj_i64(t, "allocator.vmm.unmap_calls") + rel + af +
                       tj_i64(t, "allocator.pinned_host.alloc_calls"));
  static const char *const NOT_NAMED[] = {"cudaFreeAsync", "cuMemRelease", "cuMemUnmap"};
  for (size_t i = 0; i < 3; i++) {
    char k[96];
    snprintf(k, sizeof k, "ranks.0.sync_waits.[api=%s]", NOT_NAMED[i]);
    ck_assert_msg(!tj_has(rep, k), "%s: %s listed as a blocking call", scenario, NOT_NAMED[i]);
  }
  /* pinned host memory has its own finding, never allocator-thrash's */
  int pinned = tj_i64(t, "allocator.pinned_host.alloc_calls") > 0;
  ck_assert_int_eq(tu_report_has_finding(rep, "pinned-host-churn"), pinned);
  if (pinned) {
    char *adv = tj_str(rep, "findings.[id=pinned-host-churn].advice");
    ck_assert(strstr(adv, "pin_memory=True") != NULL);
    ck_assert_int_eq(tj_i64(rep, "findings.[id=pinned-host-churn].evidence.steady_alloc_calls"),
                     tj_i64(rep, "ranks.0.allocator.pinned_host.steady_state_alloc_calls"));
    free(adv);
  }
  if (thrash) {
    char *adv = tj_str(rep, "findings.[id=allocator-thrash].advice");
    char *title = tj_str(rep, "findings.[id=allocator-thrash].title");
    /* the advice follows the backend in use: no expandable_segments for
     * someone already on it */
    if (!strcmp(tb, "expandable_segments")) {
      ck_assert_msg(!strstr(adv, "=expandable_segments:True"), "%s: advises what is in use: %s", scenario, adv);
      ck_assert(strstr(adv, "already uses expandable segments") != NULL);
      ck_assert(strstr(title, "cuMemCreate") != NULL);
    } else if (!strcmp(tb, "cudaMallocAsync")) {
      ck_assert(strstr(adv, "backend:native") != NULL);
      ck_assert(strstr(title, "cudaMallocAsync") != NULL);
    }
    /* a native allocator's steady cudaFree is a release: the advice says
     * so, by the named release when there is one, else by the behaviour */
    int native = strcmp(tb, "expandable_segments") && strcmp(tb, "cudaMallocAsync");
    int named = tj_i64(rep, "findings.[id=allocator-thrash].evidence.empty_cache_ops") > 0 ||
                tj_i64(rep, "findings.[id=allocator-thrash].evidence.free_bursts") > 0;
    int frees = tj_i64(rep, "findings.[id=allocator-thrash].evidence.steady_free_calls") > 0;
    ck_assert_msg((strstr(adv, "calls cudaFree only when cached memory is released") != NULL) ==
                      (native && !named && frees),
                  "%s: %s", scenario, adv);
    free(adv);
    free(title);
  }
  printf("# %s: backend %s, %lld malloc / %lld free, %lld pinned agree with the truth\n", scenario,
         tb ? tb : "null", (long long)tj_i64(rep, "ranks.0.allocator.malloc_calls"),
         (long long)tj_i64(rep, "ranks.0.allocator.free_calls"),
         (long long)tj_i64(rep, "ranks.0.allocator.pinned_host.alloc_calls"));
  free(tb);
  free(rep);
  free(t);
  fsdpa_ctx_free(c);
  free(path);
}

START_TEST(t_gen_thrash_expandable) { check_backend_scenario("allocator_thrash_expandable", 1); }
END_TEST
START_TEST(t_gen_thrash_async) { check_backend_scenario("allocator_thrash_async", 1); }
END_TEST
START_TEST(t_gen_pinned_host) { check_backend_scenario("pinned_host", 0); }
END_TEST
START_TEST(t_gen_thrash_native) { check_backend_scenario("allocator_thrash", 1); }
END_TEST

/* An MTIA-only trace: the device is reported present and not analyzed, the
 * text report never says "no GPU activity". */
START_TEST(t_gen_mtia_only) {
  char *path = tu_tracegen("mtia_only", "--steps 6", "ab_mtia_only.json.gz");
  ck_assert_msg(path != NULL, "tools/tracegen could not generate mtia_only");
  fsdpa_ctx *c = tu_new_ctx();
  ck_assert_int_eq(fsdpa_feed_file(c, path), FSDPA_OK);
  char *rep = tu_report(c, FSDPA_FORMAT_JSON), *t = truth_of(path);
  ck_assert_uint_eq(tj_count(rep, "ranks.0.other_devices"), 1);
  ck_assert(tj_str_is(rep, "ranks.0.other_devices.0.device_type", "mtia"));
  ck_assert(!tj_is_null(rep, "ranks.0.other_devices.0.analyzed") &&
            tj_find(rep, "ranks.0.other_devices.0.analyzed", &(const char *){0}, &(const char *){0}));
  static const char *const K[] = {"events", "runtime_events", "streams", "busy_ns"};
  for (int i = 0; i < 4; i++) {
    char a[96], b[96];
    snprintf(a, sizeof a, "other_devices.0.%s", K[i]);
    snprintf(b, sizeof b, "ranks.0.other_devices.0.%s", K[i]);
    ck_assert_msg(tj_i64(t, a) == tj_i64(rep, b), "mtia %s truth %lld lib %lld", K[i], (long long)tj_i64(t, a),
                  (long long)tj_i64(rep, b));
  }
  ck_assert_uint_eq(tj_count(rep, "ranks.0.streams"), 0);
  char *txt = tu_report(c, FSDPA_FORMAT_TEXT);
  ck_assert_ptr_nonnull(txt);
  ck_assert_msg(!strstr(txt, "no GPU activity"), "%s", txt);
  ck_assert(strstr(txt, "mtia: present, not analyzed") != NULL);
  printf("# mtia_only: %lld device events on %lld streams, busy %lld ns agree with the truth\n",
         (long long)tj_i64(rep, "ranks.0.other_devices.0.events"),
         (long long)tj_i64(rep, "ranks.0.other_devices.0.streams"),
         (long long)tj_i64(rep, "ranks.0.other_devices.0.busy_ns"));
  free(txt);
  free(rep);
  free(t);
  fsdpa_ctx_free(c);
  free(path);
}
END_TEST

/* The shared corpus: tests/alloc_classes_ref.py recomputes every class from
 * the raw JSON; the report must agree on each trace. */
START_TEST(t_corpus_classes) {
  const char *dir = tu_corpus_dir();
  if (!dir) return;
  char **corpus = NULL;
  size_t ncorpus = tu_corpus_files(dir, &corpus);
  ck_assert_uint_gt(ncorpus, 10);
  int pinned_traces = 0;
  for (size_t i = 0; i < ncorpus; i++) {
    char cmd[8192];
    const char *py = getenv("FSDPA_PYTHON");
    snprintf(cmd, sizeof cmd, "'%s' '%s/tests/alloc_classes_ref.py' '%s'", py ? py : "python3", tu_source_root(),
             corpus[i]);
    int status = 0;
    char *ref = tu_run(cmd, &status);
    ck_assert_msg(ref && status == 0, "%s: reference failed", corpus[i]);
    fsdpa_ctx *c = tu_new_ctx();
    if (fsdpa_feed_file(c, corpus[i]) != FSDPA_OK || strstr(ref, "not-a-trace")) {
      fsdpa_ctx_free(c);
      free(ref);
      continue;
    }
    char *rep = tu_report(c, FSDPA_FORMAT_JSON);
    ck_assert_ptr_nonnull(rep);
    char *save = NULL;
    size_t nx = 0;
    for (char *line = strtok_r(ref, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
      char k[64], b[64];
      long long v, v2, v3;
      const char *path = NULL;
      char jp[160];
      if (sscanf(line, "device_malloc %lld", &v) == 1) path = "ranks.0.allocator.malloc_calls";
      else if (sscanf(line, "device_free %lld", &v) == 1) path = "ranks.0.allocator.free_calls";
      else if (sscanf(line, "pinned_alloc %lld", &v) == 1) path = "ranks.0.allocator.pinned_host.alloc_calls";
      else if (sscanf(line, "pinned_free %lld", &v) == 1) path = "ranks.0.allocator.pinned_host.free_calls";
      else if (sscanf(line, "vmm %63s %lld", k, &v) == 2) {
        snprintf(jp, sizeof jp, "ranks.0.allocator.vmm.%s_calls", k);
        path = jp;
      } else if (sscanf(line, "async %63s %lld", k, &v) == 2) {
        snprintf(jp, sizeof jp, "ranks.0.allocator.async_pool.%s_calls", k);
        path = jp;
      } else if (sscanf(line, "backend %63s", b) == 1) {
        if (!strcmp(b, "-")) ck_assert_msg(tj_is_null(rep, "ranks.0.allocator.backend"), "%s: backend", corpus[i]);
        else ck_assert_msg(tj_str_is(rep, "ranks.0.allocator.backend", b), "%s: backend not %s", corpus[i], b);
        continue;
      } else if (sscanf(line, "xdev %63s %lld %lld %lld", k, &v, &v2, &v3) == 4) {
        snprintf(jp, sizeof jp, "ranks.0.other_devices.[device_type=%s].events", k);
        ck_assert_int_eq(tj_i64(rep, jp), v);
        snprintf(jp, sizeof jp, "ranks.0.other_devices.[device_type=%s].runtime_events", k);
        ck_assert_int_eq(tj_i64(rep, jp), v2);
        snprintf(jp, sizeof jp, "ranks.0.other_devices.[device_type=%s].streams", k);
        ck_assert_int_eq(tj_i64(rep, jp), v3);
        nx++;
        continue;
      } else {
        continue;
      }
      ck_assert_msg(tj_i64(rep, path) == v, "%s: %s lib %lld ref %lld", corpus[i], path,
                    (long long)tj_i64(rep, path), v);
      if (!strcmp(path, "ranks.0.allocator.pinned_host.alloc_calls") && v > 0) pinned_traces++;
    }
    ck_assert_uint_eq(tj_count(rep, "ranks.0.other_devices"), nx);
    free(rep);
    free(ref);
    fsdpa_ctx_free(c);
  }
  tu_free_paths(corpus, ncorpus);
  /* switchtransformers and the HTA alexnet benchmark each hold one cudaHostAlloc */
  ck_assert_int_ge(pinned_traces, 2);
  printf("# corpus: allocator classes agree with tests/alloc_classes_ref.py on %zu traces, %d with pinned host "
         "memory\n", ncorpus, pinned_traces);
}
END_TEST

int main(void) {
  Suite *s = suite_create("allocator");
  TU_CASE(s, "unit", 0, NULL, t_memory_levels, t_memory_null_rules, t_warmup_and_thrash, t_fault_injection,
          t_alloc_classes, t_pinned_apart);
  TU_CASE(s, "real", 1200, NULL, t_corpus_classes);
  TU_CASE(s, "generator", 1200, NULL, t_gen_allocator_thrash, t_gen_allocator_healthy, t_gen_ddp, t_gen_cache_off,
          t_gen_thrash_expandable, t_gen_thrash_async, t_gen_thrash_native, t_gen_pinned_host,
          t_gen_mtia_only);
  return tu_run_suite(s);
}
