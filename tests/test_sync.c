/* CPU sync stalls: hand-built event sets with known answers, the list
 * protocol, the real-trace corpus against an independent Python count
 * (tests/sync_alloc_ref.py, which also counts the allocator side), and
 * generator scenarios against their truth. */
#include <check.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "testutil.h"
#include "tjson.h"

/* ---- event helpers ---- */

/* A `cuda_sync` event (what PyTorch records for a blocking call) on GPU
 * track `stream_tid`, linked to its runtime call by correlation. */
static void add_sync_ev(fsdpa_ctx *c, const char *kind, int64_t stream_tid, int64_t ts, int64_t dur, int64_t corr,
                        int64_t wait_stream, int64_t wait_corr) {
  fsdpa_event e = tu_x("cuda_sync", kind, 0, stream_tid, ts, dur, corr);
  e.sync_kind = kind;
  e.sync_kind_len = strlen(kind);
  e.wait_on_stream = wait_stream;
  e.wait_on_event_corr = wait_corr;
  tu_add(c, &e);
}

/* Items of the sync lists, read through the list protocol. */
static fsdpa_sync_call call_at(const fsdpa_list *l, size_t i) {
  fsdpa_sync_call k;
  TU_ITEM(l, i, k);
  return k;
}
static fsdpa_sync_wait wait_at(const fsdpa_list *l, size_t i) {
  fsdpa_sync_wait w;
  TU_ITEM(l, i, w);
  return w;
}
static fsdpa_sync_step step_at(const fsdpa_list *l, size_t i) {
  fsdpa_sync_step st;
  TU_ITEM(l, i, st);
  return st;
}

static fsdpa_list *sync_calls(fsdpa_ctx *c, const fsdpa_query *q) {
  fsdpa_list *l = NULL;
  fsdpa_status st = fsdpa_sync_call_list(c, q, &l);
  ck_assert_msg(st == FSDPA_OK, "fsdpa_sync_call_list: %s: %s", fsdpa_status_str(st), fsdpa_errmsg(c));
  ck_assert_int_eq(fsdpa_list_type(l), FSDPA_LIST_SYNC_CALLS);
  return l;
}
static fsdpa_list *sync_waits(fsdpa_ctx *c, const fsdpa_query *q) {
  fsdpa_list *l = NULL;
  fsdpa_status st = fsdpa_sync_wait_list(c, q, &l);
  ck_assert_msg(st == FSDPA_OK, "fsdpa_sync_wait_list: %s: %s", fsdpa_status_str(st), fsdpa_errmsg(c));
  ck_assert_int_eq(fsdpa_list_type(l), FSDPA_LIST_SYNC_WAITS);
  return l;
}
static fsdpa_list *sync_steps(fsdpa_ctx *c, const fsdpa_query *q) {
  fsdpa_list *l = NULL;
  fsdpa_status st = fsdpa_sync_step_list(c, q, &l);
  ck_assert_msg(st == FSDPA_OK, "fsdpa_sync_step_list: %s: %s", fsdpa_status_str(st), fsdpa_errmsg(c));
  ck_assert_int_eq(fsdpa_list_type(l), FSDPA_LIST_SYNC_STEPS);
  return l;
}

/* ---- sync: inference, idle, steps ---- */

START_TEST(t_sync_inferred_idle) {
  fsdpa_ctx *c = tu_new_ctx();
  tu_build_sync_inferred(c);
  fsdpa_list *kl = sync_calls(c, NULL);
  ck_assert_uint_eq(fsdpa_list_count(kl), 2);
  fsdpa_sync_call k0 = call_at(kl, 0), k1 = call_at(kl, 1);
  ck_assert_str_eq(k0.api, "cudaStreamSynchronize");
  ck_assert_int_eq(k0.source, FSDPA_WAIT_INFERRED);
  ck_assert_int_eq(k0.device_wide, 0);
  ck_assert_int_eq(k0.stream, 7);
  ck_assert_str_eq(k0.waited_op, "k2");  /* last op queued on stream 7 before the call */
  ck_assert_int_eq(k0.waited_op_end_ns, 2000);
  ck_assert_int_eq(k0.step, 1);
  ck_assert_int_eq(k0.gpu_idle_during_ns, 100);  /* [300,2100) minus busy [200,2000) */
  ck_assert_int_eq(k0.gpu_idle_after_ns, 500);   /* 2100 -> k3 at 2600 */
  ck_assert_str_eq(k1.api, "cudaDeviceSynchronize");
  ck_assert_int_eq(k1.device_wide, 1);
  ck_assert_str_eq(k1.waited_op, "k3");
  ck_assert_int_eq(k1.device, 0);
  ck_assert_int_eq(k1.gpu_idle_after_ns, FSDPA_ABSENT);  /* nothing runs after it */
  ck_assert_int_eq(k1.gpu_idle_during_ns, 100);
  fsdpa_list_free(kl);
  fsdpa_list *wl = sync_waits(c, NULL);
  ck_assert_uint_eq(fsdpa_list_count(wl), 2);
  fsdpa_sync_wait w0 = wait_at(wl, 0), w1 = wait_at(wl, 1);
  ck_assert_str_eq(w0.api, "cudaStreamSynchronize");
  ck_assert_int_eq(w0.total_ns, 1800);
  ck_assert_int_eq(w0.gpu_idle_ns, 600);  /* |[300,2600) \ busy| */
  ck_assert_uint_eq(w0.idle_after_calls, 1);
  ck_assert_int_eq(w1.count, 1);
  ck_assert_uint_eq(w1.idle_after_calls, 0);
  /* "size 0 means current" is gone: a size below the struct's first size is refused */
  fsdpa_sync_wait z;
  memset(&z, 0, sizeof z);
  ck_assert_int_eq(fsdpa_list_get(wl, 0, &z), FSDPA_EINVAL);
  fsdpa_list_free(wl);
  /* per step: the worst thread blocked 1800 of 10000 ns */
  fsdpa_list *sl = sync_steps(c, NULL);
  ck_assert_uint_eq(fsdpa_list_count(sl), 1);
  fsdpa_sync_step s0 = step_at(sl, 0);
  fsdpa_list_free(sl);
  ck_assert_uint_eq(s0.count, 2);
  ck_assert_int_eq(s0.total_ns, 1900);
  ck_assert_int_eq(s0.worst_thread_ns, 1800);
  ck_assert_int_eq(s0.worst_tid, 10);
  ck_assert(fabs(s0.share - 0.18) < 1e-12);
  ck_assert_int_eq(s0.flagged, 0);  /* 1.8 us < 1 ms */
  char *rep = tu_report(c, FSDPA_FORMAT_JSON);
  ck_assert_ptr_nonnull(rep);
  ck_assert(!tu_report_has_finding(rep, "cpu-sync-stall"));
  ck_assert(tj_has(rep, "ranks.0.sync_waits.[api=cudaStreamSynchronize]"));
  ck_assert_int_eq(tj_i64(rep, "ranks.0.sync_waits.[api=cudaStreamSynchronize].count"), 1);
  ck_assert_int_eq(tj_i64(rep, "ranks.0.sync_waits.[api=cudaStreamSynchronize].total_ns"), 1800);
  free(rep);
  ck_assert_int_eq(fsdpa_param_set(c, "sync.min_stall_ns", "1000"), FSDPA_OK);
  sl = sync_steps(c, NULL);
  ck_assert_int_eq(step_at(sl, 0).flagged, 1);
  fsdpa_list_free(sl);
  rep = tu_report(c, FSDPA_FORMAT_JSON);
  ck_assert_ptr_nonnull(rep);
  ck_assert(tu_report_has_finding(rep, "cpu-sync-stall"));
  free(rep);
  /* share threshold: 18% < 20% */
  ck_assert_int_eq(fsdpa_param_set(c, "sync.min_share_ppm", "200000"), FSDPA_OK);
  rep = tu_report(c, FSDPA_FORMAT_JSON);
  ck_assert_ptr_nonnull(rep);
  ck_assert(!tu_report_has_finding(rep, "cpu-sync-stall"));
  free(rep);
  /* window: calls by start */
  fsdpa_query q;
  fsdpa_query_init(&q);
  q.t0_ns = 301;
  q.fields |= FSDPA_QUERY_T0;
  wl = sync_waits(c, &q);
  ck_assert_uint_eq(fsdpa_list_count(wl), 1);
  ck_assert_str_eq(wait_at(wl, 0).api, "cudaDeviceSynchronize");
  fsdpa_list_free(wl);
  /* a selector whose bit is not set selects nothing: the whole trace */
  q.fields = 0;
  wl = sync_waits(c, &q);
  ck_assert_uint_eq(fsdpa_list_count(wl), 2);
  fsdpa_list_free(wl);
  fsdpa_ctx_free(c);
}
END_TEST

/* ---- blocking by behaviour ---- */

#define US 1000
static void build_behaviour(fsdpa_ctx *c) {
  tu_add_x(c, "user_annotation", "ProfilerStep#1", 10, 10, 0, 20000 * US, FSDPA_ABSENT);
  /* a copy to pageable memory: returns 5 us after its copy, behind kA */
  tu_launch_kernel(c, 10, 100 * US, 1, 7, 200 * US, 2000 * US, "kA");
  tu_add_x(c, "cuda_runtime", "cudaMemcpyAsync", 10, 10, 300 * US, 1710 * US, 2);
  tu_add_x(c, "gpu_memcpy", "Memcpy DtoH (Device -> Pageable)", 0, 7, 2000 * US, 5 * US, 2);
  /* a first launch loading its module on an idle GPU: CPU-side, not a wait */
  tu_add_x(c, "cuda_runtime", "cudaLaunchKernel", 10, 10, 3000 * US, 2000 * US, 3);
  tu_add_x(c, "kernel", "kB", 0, 7, 5001 * US, 9 * US, 3);
  /* a launch held by a full queue: returns when kC1 ends, kC2 still queued */
  tu_launch_kernel(c, 10, 5100 * US, 4, 7, 5200 * US, 8000 * US, "kC1");
  tu_launch_kernel(c, 10, 5110 * US, 5, 7, 8000 * US, 9000 * US, "kC2");
  tu_add_x(c, "cuda_runtime", "cudaLaunchKernel", 10, 10, 5200 * US, 2805 * US, 6);
  tu_add_x(c, "kernel", "kC3", 0, 7, 9000 * US, 100 * US, 6);
  /* an allocation that waited for kD: listed, but the allocator's time */
  tu_launch_kernel(c, 10, 9100 * US, 7, 7, 9200 * US, 11000 * US, "kD");
  tu_add_x(c, "cuda_runtime", "cudaMalloc", 10, 10, 9300 * US, 1705 * US, 8);
}

/* One 20 ms step: a cudaStreamSynchronize blocks 4.8 ms while k1 runs, the GPU
 * runs dry at 5000 us (5 us before the call returns) and k2 starts at `next`. */
static void build_cost(fsdpa_ctx *c, int64_t next) {
  tu_add_x(c, "user_annotation", "ProfilerStep#1", 10, 10, 0, 20000 * US, FSDPA_ABSENT);
  tu_launch_kernel(c, 10, 50 * US, 1, 7, 100 * US, 5000 * US, "k1");
  tu_add_x(c, "cuda_runtime", "cudaStreamSynchronize", 10, 10, 200 * US, 4805 * US, 2);
  tu_launch_kernel(c, 10, next - 50 * US, 3, 7, next, next + 800 * US, "k2");
}

/* cpu-sync-stall's severity follows the GPU idle the wait caused, as a share
 * of the step (severity.warning_ppm 5 %, severity.critical_ppm 30 %), not how
 * long the thread blocked (24 % of the step in all three): the gap it opened,
 * as far as the replay without it removes that gap.  k2 is launched 50 us
 * before `next`, and after the wait the thread works (next - 5055) us before
 * it launches k2: without the wait it would launch it at 200 us + that, so
 * of the gap [5000, next) it removes at most 4805 us (the wait's length):
 * a 7 ms gap that opened under it cost only those 4805 us, 24 % (a warning,
 * where the gap alone would say critical). */
START_TEST(t_sync_severity_by_cost) {
  static const struct { int64_t next; const char *sev; int64_t cost; } C[] = {
      {5150 * US, "info", 150 * US}, {7000 * US, "warning", 2000 * US}, {12000 * US, "warning", 4805 * US}};
  for (size_t i = 0; i < sizeof C / sizeof C[0]; i++) {
    fsdpa_ctx *c = tu_new_ctx();
    build_cost(c, C[i].next);
    char *rep = tu_report(c, FSDPA_FORMAT_JSON);
    ck_assert_ptr_nonnull(rep);
    ck_assert(tu_report_has_finding(rep, "cpu-sync-stall"));
    ck_assert_msg(tj_str_is(rep, "findings.[id=cpu-sync-stall].severity", C[i].sev), "case %zu", i);
    ck_assert_int_eq(tj_i64(rep, "findings.[id=cpu-sync-stall].cost_ns"), C[i].cost);
    ck_assert_int_eq(tj_i64(rep, "findings.[id=cpu-sync-stall].evidence.gpu_idle_caused_ns"), C[i].cost);
    ck_assert_int_eq(tj_i64(rep, "findings.[id=cpu-sync-stall].evidence.gpu_idle_opened_ns"), C[i].next - 5000 * US);
    ck_assert_int_eq(tj_i64(rep, "findings.[id=cpu-sync-stall].evidence.gpu_idle_opened_ppm"),
                     (C[i].next - 5000 * US) / 20); /* ns per 20 ms, in ppm */
    free(rep);
    if (i == 2) { /* the thresholds are the params */
      ck_assert_int_eq(fsdpa_param_set(c, "severity.critical_ppm", "240000"), FSDPA_OK);
      rep = tu_report(c, FSDPA_FORMAT_JSON);
      ck_assert_ptr_nonnull(rep);
      ck_assert(tj_str_is(rep, "findings.[id=cpu-sync-stall].severity", "critical"));
      free(rep);
      ck_assert_int_eq(fsdpa_param_set(c, "severity.critical_ppm", "300000"), FSDPA_OK);
      ck_assert_int_eq(fsdpa_param_set(c, "severity.warning_ppm", "250000"), FSDPA_OK);
      rep = tu_report(c, FSDPA_FORMAT_JSON);
      ck_assert_ptr_nonnull(rep);
      ck_assert(tj_str_is(rep, "findings.[id=cpu-sync-stall].severity", "info"));
      free(rep);
    }
    fsdpa_ctx_free(c);
  }
}
END_TEST

/* cpu-sync-stall's cost is the GPU idle its waits opened, not the idle from
 * the start of a wait that began on a GPU already out of work: the second
 * synchronize [12000, 14000) us starts 3.2 ms after k2 ended, and the GPU
 * stays idle until k3 at 16000 us; none of that is the wait's cost. */
START_TEST(t_sync_cost_is_opened) {
  fsdpa_ctx *c = tu_new_ctx();
  build_cost(c, 7000 * US); /* k2 [7000, 7800) us */
  tu_add_x(c, "cuda_runtime", "cudaStreamSynchronize", 10, 10, 12000 * US, 2000 * US, 4);
  tu_launch_kernel(c, 10, 15900 * US, 5, 7, 16000 * US, 16500 * US, "k3");
  char *rep = tu_report(c, FSDPA_FORMAT_JSON);
  ck_assert_ptr_nonnull(rep);
  ck_assert_int_eq(tj_i64(rep, "findings.[id=cpu-sync-stall].evidence.gpu_idle_opened_ns"), 2000 * US);
  ck_assert_int_eq(tj_i64(rep, "findings.[id=cpu-sync-stall].cost_ns"), 2000 * US);
  /* [200, 7000) minus k1, plus [12000, 16000) */
  ck_assert_int_eq(tj_i64(rep, "findings.[id=cpu-sync-stall].evidence.gpu_idle_ns"), 6000 * US);
  char *t = tj_str(rep, "findings.[id=cpu-sync-stall].title");
  ck_assert_ptr_nonnull(t);
  ck_assert_msg(strncmp(t, "CPU waits cost 2.00 ms of GPU idle; the thread blocked 6.80 ms", 62) == 0, "%s", t);
  free(t);
  free(rep);
  fsdpa_ctx_free(c);
}
END_TEST

/* The generator's truth file of a trace it wrote (NAME.json.gz -> NAME.truth.json). */
static char *truth_of(const char *trace) {
  char p[4096];
  size_t n = strlen(trace);
  ck_assert(n > 8 && n < sizeof p - 16);
  memcpy(p, trace, n - 8);
  strcpy(p + n - 8, ".truth.json");
  char *t = tu_read_file(p, NULL);
  ck_assert_ptr_nonnull(t);
  return t;
}

/* No ProfilerStep: the iterations are inferred from the Optimizer.step#
 * (or DataLoader __next__) annotations, the first is left out as warm-up,
 * and cpu-sync-stall and allocator-thrash judge the other ones (exact
 * against the generator). */
static void check_inferred(const char *scenario, const char *source) {
  char name[96];
  snprintf(name, sizeof name, "sa_%s.json.gz", scenario);
  char *path = tu_tracegen(scenario, "--steps 5", name);
  ck_assert_msg(path != NULL, "tools/tracegen could not generate %s", scenario);
  char *t = truth_of(path);
  fsdpa_ctx *c = tu_new_ctx();
  ck_assert_int_eq(fsdpa_feed_file(c, path), FSDPA_OK);
  char *rep = tu_report(c, FSDPA_FORMAT_JSON);
  ck_assert_ptr_nonnull(rep);
  size_t n = tj_count(t, "no_step.iterations");
  ck_assert_uint_eq(n, 5);
  ck_assert(tj_str_is(rep, "ranks.0.iterations.source", source));
  ck_assert_uint_eq((size_t)tj_i64(rep, "ranks.0.iterations.count"), n);
  int64_t judged = 0, blocked = 0, flagged = 0;
  uint64_t nm = 0, nf = 0;
  for (size_t i = 0; i < n; i++) {
    char a[96], b[96];
    snprintf(a, sizeof a, "no_step.iterations.%zu.start_ns", i);
    snprintf(b, sizeof b, "ranks.0.iterations.ranges.%zu.start_ns", i);
    ck_assert_int_eq(tj_i64(rep, b), tj_i64(t, a));
    snprintf(a, sizeof a, "no_step.iterations.%zu.dur_ns", i);
    snprintf(b, sizeof b, "ranks.0.iterations.ranges.%zu.dur_ns", i);
    int64_t dur = tj_i64(t, a);
    ck_assert_int_eq(tj_i64(rep, b), dur);
    if (i == 0) continue; /* warm-up */
    snprintf(a, sizeof a, "no_step.iterations.%zu.blocked_ns", i);
    int64_t bl = tj_i64(t, a);
    judged += dur;
    blocked += bl;
    /* the flag rule on the one blocking thread: >= 1 ms and >= 2 % of the iteration */
    if (bl >= 1000000 && bl * 50 >= dur) flagged++;
    snprintf(a, sizeof a, "no_step.iterations.%zu.malloc_calls", i);
    nm += (uint64_t)tj_i64(t, a);
    snprintf(a, sizeof a, "no_step.iterations.%zu.free_calls", i);
    nf += (uint64_t)tj_i64(t, a);
  }
  ck_assert_int_eq(flagged, (int64_t)n - 1);
  const char *E = "findings.[id=cpu-sync-stall].evidence.";
  char k[128];
#define EV(x) (snprintf(k, sizeof k, "%s%s", E, x), k)
  ck_assert(tj_str_is(rep, EV("judged"), "iterations"));
  ck_assert(tj_str_is(rep, EV("iterations_from"), source));
  ck_assert_int_eq(tj_i64(rep, EV("warmup_iterations")), 1);
  ck_assert_int_eq(tj_i64(rep, EV("steps")), (int64_t)n - 1);
  ck_assert_int_eq(tj_i64(rep, EV("flagged_steps")), flagged);
  ck_assert_int_eq(tj_i64(rep, EV("judged_ns")), judged);
  ck_assert_int_eq(tj_i64(rep, EV("flagged_sync_ns")), blocked);
  ck_assert(tj_is_null(rep, EV("worst_step")));
  ck_assert(tj_is_null(rep, "findings.[id=cpu-sync-stall].step"));
  E = "findings.[id=allocator-thrash].evidence.";
  ck_assert(tj_str_is(rep, EV("judged"), "iterations"));
  ck_assert(tj_str_is(rep, EV("iterations_from"), source));
  ck_assert_int_eq(tj_i64(rep, EV("warmup_steps")), 1);
  ck_assert_int_eq(tj_i64(rep, EV("steady_steps")), (int64_t)n - 1);
  ck_assert_int_eq(tj_i64(rep, EV("steady_malloc_calls")), (int64_t)nm);
  ck_assert_int_eq(tj_i64(rep, EV("steady_free_calls")), (int64_t)nf);
  ck_assert_int_eq(tj_i64(rep, EV("steady_steps_dur_ns")), judged);
#undef EV
  char *title = tj_str(rep, "findings.[id=allocator-thrash].title");
  ck_assert_msg(strstr(title, "per steady-state iteration") != NULL, "%s", title);
  free(title);
  free(rep);
  free(t);
  fsdpa_ctx_free(c);
  free(path);
}

START_TEST(t_gen_sync_optimizer) { check_inferred("sync_optimizer", "optimizer_step"); }
END_TEST
START_TEST(t_gen_sync_dataloader) { check_inferred("sync_dataloader", "dataloader"); }
END_TEST

/* No iterations at all: cpu-sync-stall judges the whole trace and says so;
 * the trace's cudaMalloc calls are its warm-up (no allocator-thrash) unless
 * allocator.warmup_steps=0 says there is none. */
START_TEST(t_gen_sync_no_iterations) {
  char *path = tu_tracegen("sync_no_iterations", "--steps 5", "sa_sync_no_iterations.json.gz");
  ck_assert_msg(path != NULL, "tools/tracegen could not generate sync_no_iterations");
  char *t = truth_of(path);
  fsdpa_ctx *c = tu_new_ctx();
  ck_assert_int_eq(fsdpa_feed_file(c, path), FSDPA_OK);
  char *rep = tu_report(c, FSDPA_FORMAT_JSON);
  ck_assert_ptr_nonnull(rep);
  ck_assert(tj_str_is(rep, "ranks.0.iterations.source", "none"));
  ck_assert(tj_str_is(rep, "findings.[id=cpu-sync-stall].evidence.judged", "whole_trace"));
  ck_assert_int_eq(tj_i64(rep, "findings.[id=cpu-sync-stall].evidence.steps"), 1);
  ck_assert_int_eq(tj_i64(rep, "findings.[id=cpu-sync-stall].evidence.flagged_sync_ns"),
                   tj_i64(t, "no_step.blocked_ns"));
  ck_assert_int_ge(tj_i64(rep, "findings.[id=cpu-sync-stall].cost_ns"), 1000000);
  char *d = tj_str(rep, "findings.[id=cpu-sync-stall].detail");
  ck_assert_msg(strncmp(d, "No iterations found: judged over the whole trace", 48) == 0, "%s", d);
  free(d);
  ck_assert(!tu_report_has_finding(rep, "allocator-thrash"));
  free(rep);
  ck_assert_int_eq(fsdpa_param_set(c, "allocator.warmup_steps", "0"), FSDPA_OK);
  rep = tu_report(c, FSDPA_FORMAT_JSON);
  ck_assert_ptr_nonnull(rep);
  ck_assert(tj_str_is(rep, "findings.[id=allocator-thrash].evidence.judged", "whole_trace"));
  ck_assert_int_eq(tj_i64(rep, "findings.[id=allocator-thrash].evidence.steady_malloc_calls"),
                   tj_i64(t, "no_step.malloc_calls"));
  ck_assert_int_eq(tj_i64(rep, "findings.[id=allocator-thrash].evidence.steady_free_calls"),
                   tj_i64(t, "no_step.free_calls"));
  d = tj_str(rep, "findings.[id=allocator-thrash].detail");
  ck_assert_msg(strncmp(d, "No iterations found: judged over the whole trace", 48) == 0, "%s", d);
  free(d);
  free(rep);
  free(t);
  fsdpa_ctx_free(c);
  free(path);
}
END_TEST

START_TEST(t_sync_behaviour) {
  fsdpa_ctx *c = tu_new_ctx();
  build_behaviour(c);
  fsdpa_list *kl = sync_calls(c, NULL);
  ck_assert_uint_eq(fsdpa_list_count(kl), 1);
  fsdpa_sync_call k0 = call_at(kl, 0);
  ck_assert_str_eq(k0.api, "cudaMemcpyAsync");
  ck_assert_int_eq(k0.dur_ns, 1710 * US);
  ck_assert_int_eq(k0.source, FSDPA_WAIT_OWN_OP);
  ck_assert_int_eq(k0.device_wide, 0);
  ck_assert_int_eq(k0.stream, 7);
  ck_assert_str_eq(k0.waited_op, "Memcpy DtoH (Device -> Pageable)");
  ck_assert_int_eq(k0.step, 1);
  fsdpa_list_free(kl);
  char *rep = tu_report(c, FSDPA_FORMAT_JSON);
  ck_assert_ptr_nonnull(rep);
  ck_assert_int_eq(tj_i64(rep, "ranks.0.sync_classes.classes.[class=launch].calls"), 6);
  ck_assert_int_eq(tj_i64(rep, "ranks.0.sync_classes.classes.[class=launch].over_threshold"), 2);
  ck_assert_int_eq(tj_i64(rep, "ranks.0.sync_classes.classes.[class=launch].blocking"), 0);
  ck_assert_int_eq(tj_i64(rep, "ranks.0.sync_classes.classes.[class=async_copy].blocking"), 1);
  ck_assert_int_eq(tj_i64(rep, "ranks.0.sync_classes.classes.[class=async_copy].blocking_ns"), 1710 * US);
  ck_assert_int_eq(tj_i64(rep, "ranks.0.sync_classes.classes.[class=alloc].blocking"), 1);
  ck_assert_int_eq(tj_i64(rep, "ranks.0.sync_classes.classes.[class=sync].blocking"), 0);
  /* longest first: the copy (1710 us), then the allocation (1705 us) */
  ck_assert(tj_str_is(rep, "ranks.0.sync_classes.by_behaviour.0.api", "cudaMemcpyAsync"));
  ck_assert_int_eq(tj_i64(rep, "ranks.0.sync_classes.by_behaviour.0.queue_ops"), 1);
  ck_assert_int_eq(tj_i64(rep, "ranks.0.sync_classes.by_behaviour.0.queue_busy_ns"), 1700 * US);
  ck_assert(tj_str_is(rep, "ranks.0.sync_classes.by_behaviour.1.api", "cudaMalloc"));
  ck_assert(tj_str_is(rep, "ranks.0.sync_classes.by_behaviour.1.waited_op", "kD"));
  ck_assert(tj_str_is(rep, "ranks.0.sync_classes.by_behaviour.1.class", "alloc"));
  ck_assert(!tj_has(rep, "ranks.0.sync_waits.[api=cudaMalloc]"));
  ck_assert(!tj_has(rep, "ranks.0.sync_waits.[api=cudaLaunchKernel]"));
  ck_assert_int_eq(tj_i64(rep, "ranks.0.sync_waits.[api=cudaMemcpyAsync].count"), 1);
  /* 1.71 ms blocked in a 20 ms step: flagged (>= 1 ms, >= 2 %); warning by the idle the wait
   * opened: the GPU ran dry 5 us before the copy returned and stayed idle until kB, 2.996 ms
   * (15 % of the step: >= 5 %, < 30 %) */
  ck_assert(tu_report_has_finding(rep, "cpu-sync-stall"));
  ck_assert(tj_str_is(rep, "findings.[id=cpu-sync-stall].severity", "warning"));
  ck_assert_int_eq(tj_i64(rep, "findings.[id=cpu-sync-stall].evidence.gpu_idle_opened_ns"), 2996 * US);
  ck_assert_int_eq(tj_i64(rep, "findings.[id=cpu-sync-stall].evidence.judged_ns"), 20000 * US);
  ck_assert_int_eq(tj_i64(rep, "findings.[id=cpu-sync-stall].evidence.behaviour_calls"), 1);
  free(rep);
  /* the wake-up tolerance: the call returned 5 us after its copy */
  ck_assert_int_eq(fsdpa_param_set(c, "sync.block_wake_tolerance_ns", "4000"), FSDPA_OK);
  kl = sync_calls(c, NULL);
  ck_assert_uint_eq(fsdpa_list_count(kl), 0);
  fsdpa_list_free(kl);
  ck_assert_int_eq(fsdpa_param_set(c, "sync.block_wake_tolerance_ns", "5000"), FSDPA_OK);
  kl = sync_calls(c, NULL);
  ck_assert_uint_eq(fsdpa_list_count(kl), 1);
  fsdpa_list_free(kl);
  /* the class threshold: a copy call up to 1.71 ms is not tested */
  ck_assert_int_eq(fsdpa_param_set(c, "sync.block_copy_ns", "1710000"), FSDPA_OK);
  kl = sync_calls(c, NULL);
  ck_assert_uint_eq(fsdpa_list_count(kl), 0);
  fsdpa_list_free(kl);
  rep = tu_report(c, FSDPA_FORMAT_JSON);
  ck_assert_ptr_nonnull(rep);
  ck_assert(!tu_report_has_finding(rep, "cpu-sync-stall"));
  ck_assert_int_eq(tj_i64(rep, "ranks.0.sync_classes.classes.[class=async_copy].over_threshold"), 0);
  free(rep);
  fsdpa_ctx_free(c);
}
END_TEST

/* A launch that returned exactly when the work queued before it drained
 * (an implicit device synchronization) blocked; the waited op is that work. */
START_TEST(t_sync_behaviour_drain) {
  fsdpa_ctx *c = tu_new_ctx();
  tu_add_x(c, "user_annotation", "ProfilerStep#1", 10, 10, 0, 20000 * US, FSDPA_ABSENT);
  tu_launch_kernel(c, 10, 100 * US, 1, 7, 200 * US, 3000 * US, "kE");
  tu_add_x(c, "cuda_runtime", "cudaLaunchKernel", 10, 10, 300 * US, 2708 * US, 2);
  tu_add_x(c, "kernel", "kF", 0, 7, 3010 * US, 50 * US, 2);
  fsdpa_list *kl = sync_calls(c, NULL);
  ck_assert_uint_eq(fsdpa_list_count(kl), 1);
  fsdpa_sync_call k0 = call_at(kl, 0);
  ck_assert_str_eq(k0.api, "cudaLaunchKernel");
  ck_assert_int_eq(k0.source, FSDPA_WAIT_INFERRED);
  ck_assert_str_eq(k0.waited_op, "kE");
  ck_assert_int_eq(k0.stream, 7);
  fsdpa_list_free(kl);
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
  fsdpa_list *kl = sync_calls(c, NULL);
  ck_assert_uint_eq(fsdpa_list_count(kl), 4);
  fsdpa_sync_call k[4];
  for (size_t i = 0; i < 4; i++) k[i] = call_at(kl, i);
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
  fsdpa_list_free(kl);
  /* device / stream selection */
  fsdpa_query q;
  fsdpa_query_init(&q);
  q.stream = 20;
  q.fields = FSDPA_QUERY_STREAM;
  kl = sync_calls(c, &q);
  ck_assert_uint_eq(fsdpa_list_count(kl), 2);
  fsdpa_list_free(kl);
  q.device = 1;
  q.fields = FSDPA_QUERY_DEVICE;  /* the stream is no longer selected */
  kl = sync_calls(c, &q);
  ck_assert_uint_eq(fsdpa_list_count(kl), 0);
  fsdpa_list_free(kl);
  q.device = 0;
  kl = sync_calls(c, &q);
  ck_assert_uint_eq(fsdpa_list_count(kl), 4);
  fsdpa_list_free(kl);
  fsdpa_ctx_free(c);
}
END_TEST

/* The list protocol on the sync lists: counts, bounds, sizes, strings owned
 * by the list, and the error channel of a call on one context. */
START_TEST(t_list_protocol) {
  fsdpa_ctx *c = tu_new_ctx();
  tu_build_sync_inferred(c);
  fsdpa_list *wl = sync_waits(c, NULL);
  ck_assert_uint_eq(fsdpa_list_count(wl), 2);
  fsdpa_sync_wait one;
  one.size = sizeof one;
  ck_assert_int_eq(fsdpa_list_get(wl, 0, &one), FSDPA_OK);
  ck_assert_str_eq(one.api, "cudaStreamSynchronize");
  ck_assert_int_eq(fsdpa_list_get(wl, 2, &one), FSDPA_EINVAL);  /* past the end */
  ck_assert_int_eq(fsdpa_list_get(wl, 0, NULL), FSDPA_EINVAL);
  ck_assert_int_eq(fsdpa_list_get(NULL, 0, &one), FSDPA_EINVAL);
  ck_assert_uint_eq(fsdpa_list_count(NULL), 0);
  ck_assert_int_eq(fsdpa_list_type(NULL), 0);
  one.size = 3;
  ck_assert_int_eq(fsdpa_list_get(wl, 0, &one), FSDPA_EINVAL);
  one.size = sizeof one - 1;  /* older than the first release: refused */
  ck_assert_int_eq(fsdpa_list_get(wl, 0, &one), FSDPA_EINVAL);
  ck_assert_int_eq(fsdpa_sync_wait_list(c, NULL, NULL), FSDPA_EINVAL);
  ck_assert_int_eq(fsdpa_sync_wait_list(NULL, NULL, &wl), FSDPA_EINVAL);
  /* a newer caller with a bigger struct: the library fills its own struct
   * and leaves the caller's bytes past it untouched */
  struct big { fsdpa_sync_wait w; char pad[24]; } b;
  memset(&b, 0xAB, sizeof b);
  b.w.size = sizeof b;
  ck_assert_int_eq(fsdpa_list_get(wl, 1, &b.w), FSDPA_OK);
  fsdpa_sync_wait w1 = wait_at(wl, 1);
  ck_assert_str_eq(b.w.api, "cudaDeviceSynchronize");
  ck_assert(!memcmp((char *)&b.w + sizeof(size_t), (char *)&w1 + sizeof(size_t),
                    sizeof(fsdpa_sync_wait) - sizeof(size_t)));
  for (size_t i = 0; i < sizeof b.pad; i++) ck_assert_int_eq((unsigned char)b.pad[i], 0xAB);
  fsdpa_list_free(wl);
  fsdpa_list_free(NULL);
  /* a bad step: refused with a message, which the next good call clears */
  fsdpa_query q;
  fsdpa_query_init(&q);
  q.step = 3;
  q.fields = FSDPA_QUERY_STEP;
  wl = NULL;
  ck_assert_int_eq(fsdpa_sync_wait_list(c, &q, &wl), FSDPA_EINVAL);
  ck_assert_str_ne(fsdpa_errmsg(c), "");
  q.step = 0;
  wl = sync_waits(c, &q);
  ck_assert_str_eq(fsdpa_errmsg(c), "");
  ck_assert_int_eq(fsdpa_error_offset(c), FSDPA_ABSENT);
  ck_assert_uint_eq(fsdpa_list_count(wl), 2);  /* both calls start in ProfilerStep#1 */
  fsdpa_list_free(wl);
  /* the same step number but no step bit: the whole trace, no error */
  q.fields = 0;
  q.step = 3;
  wl = sync_waits(c, &q);
  fsdpa_list_free(wl);
  fsdpa_list *ml = NULL;
  ck_assert_int_eq(fsdpa_memory_series_list(c, NULL, FSDPA_ABSENT, 0, &ml), FSDPA_EINVAL);
  fsdpa_ctx_free(c);
}
END_TEST

/* Freed context memory is overwritten, so a list string left pointing into
 * the context would read garbage. */
static void *poison_malloc(void *ud, size_t n) { (void)ud; return malloc(n); }
static void *poison_realloc(void *ud, void *p, size_t o, size_t n) {
  (void)ud;
  (void)o;
  return realloc(p, n);
}
static void poison_free(void *ud, void *p, size_t n) {
  (void)ud;
  if (p) memset(p, 0x5A, n);
  free(p);
}

/* A list is a snapshot: its items and their strings (api, waited_op,
 * sync_kind) stay valid after fsdpa_ctx_free(), and later feeds do not
 * change it. */
START_TEST(t_list_outlives_context) {
  fsdpa_allocator al = {sizeof al, poison_malloc, poison_realloc, poison_free, NULL};
  fsdpa_options o;
  fsdpa_options_init(&o);
  o.allocator = &al;
  fsdpa_ctx *c = NULL;
  ck_assert_int_eq(fsdpa_ctx_new(&c, &o), FSDPA_OK);
  tu_build_sync_inferred(c);
  fsdpa_list *kl = sync_calls(c, NULL), *wl = sync_waits(c, NULL);
  fsdpa_sync_call before = call_at(kl, 0);
  /* more events after the snapshot: the list keeps its two calls */
  tu_add_x(c, "cuda_runtime", "cudaStreamSynchronize", 10, 10, 6000, 50, 9);
  fsdpa_list *now = sync_calls(c, NULL);
  ck_assert_uint_eq(fsdpa_list_count(now), 3);
  fsdpa_list_free(now);
  ck_assert_uint_eq(fsdpa_list_count(kl), 2);
  fsdpa_ctx_free(c);
  /* the strings read before the free still point at live list memory */
  ck_assert_str_eq(before.api, "cudaStreamSynchronize");
  ck_assert_str_eq(before.waited_op, "k2");
  fsdpa_sync_call k0 = call_at(kl, 0), k1 = call_at(kl, 1);
  ck_assert_ptr_eq(k0.api, before.api);
  ck_assert_str_eq(k0.api, "cudaStreamSynchronize");
  ck_assert_str_eq(k0.waited_op, "k2");
  ck_assert_ptr_null(k0.sync_kind);
  ck_assert_str_eq(k1.api, "cudaDeviceSynchronize");
  ck_assert_str_eq(k1.waited_op, "k3");
  ck_assert_int_eq(k0.gpu_idle_after_ns, 500);
  ck_assert_str_eq(wait_at(wl, 0).api, "cudaStreamSynchronize");
  ck_assert_str_eq(wait_at(wl, 1).api, "cudaDeviceSynchronize");
  fsdpa_list_free(kl);
  fsdpa_list_free(wl);
}
END_TEST

/* ---- corpus: independent Python count ---- */

/* The reference runs in the background a few traces ahead of the checks:
 * Python's json is the slow part of this test. */
#define AHEAD 3
static FILE **ref_pipe;  /* one per corpus trace, while its reference runs */

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
  fsdpa_list *wl = sync_waits(c, NULL), *kl = sync_calls(c, NULL);
  size_t nw = fsdpa_list_count(wl), nk = fsdpa_list_count(kl);
  fsdpa_sync_wait *w = calloc(nw + 1, sizeof *w);
  fsdpa_sync_call *k = calloc(nk + 1, sizeof *k);
  ck_assert(w && k);
  for (size_t i = 0; i < nw; i++) w[i] = wait_at(wl, i);
  for (size_t i = 0; i < nk; i++) k[i] = call_at(kl, i);
  fsdpa_list *dl = NULL;
  ck_assert_int_eq(fsdpa_memory_device_list(c, NULL, &dl), FSDPA_OK);
  ck_assert_int_eq(fsdpa_list_type(dl), FSDPA_LIST_MEMORY_DEVICES);
  size_t nd = fsdpa_list_count(dl);
  long compared = 0;
  size_t ref_apis = 0;
  long ref_linked = -1, ref_malloc = -1, ref_free = -1, ref_behaviour = 0;
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
    } else if (!strncmp(line, "behaviour ", 10)) {
      /* behaviour CLASS API DUR SOURCE SCOPE QUEUE OPNAME (the name may hold spaces) */
      char cls[32], src[32], scope[32];
      long long dur, q;
      int off = 0;
      ck_assert_int_eq(sscanf(line, "behaviour %31s %127s %lld %31s %31s %lld %n", cls, api, &dur, src, scope, &q, &off), 6);
      const char *opname = line + off;
      if (!strcmp(cls, "alloc")) continue;  /* the allocator's time: not a sync call */
      size_t i = 0;
      while (i < nk && !(k[i].dur_ns == dur && !strcmp(k[i].api, api) && k[i].waited_op &&
                         !strcmp(k[i].waited_op, opname)))
        i++;
      ck_assert_msg(i < nk, "%s: %s of %lld ns blocked by behaviour waiting for %s: not in the library's list", path,
                    api, dur, opname);
      ck_assert_int_eq(k[i].source, !strcmp(src, "own_op") ? FSDPA_WAIT_OWN_OP : FSDPA_WAIT_INFERRED);
      ck_assert_int_eq(k[i].device_wide, !strcmp(scope, "device"));
      ref_behaviour++;
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
      fsdpa_memory_device dev = {0};
      size_t i = 0;
      for (; i < nd; i++) {
        TU_ITEM(dl, i, dev);
        if (dev.device_type == type && dev.device == id) break;
      }
      ck_assert_msg(i < nd, "%s: device %lld/%lld missing", path, type, id);
      const fsdpa_memory_device *d = &dev;
      ck_assert_uint_eq(d->events, (uint64_t)nev);
      int64_t e_pa = pa[0] == '-' ? FSDPA_ABSENT : atoll(pa), e_pr = pr[0] == '-' ? FSDPA_ABSENT : atoll(pr);
      int64_t e_apr = apr[0] == '-' ? FSDPA_ABSENT : atoll(apr), e_rel = rel[0] == '-' ? FSDPA_ABSENT : atoll(rel);
      ck_assert_msg(d->peak_allocated_bytes == e_pa && d->peak_reserved_bytes == e_pr &&
                        d->allocated_at_peak_reserved_bytes == e_apr && d->peak_allocated_delta_bytes == e_rel,
                    "%s: device %lld peaks lib %lld/%lld/%lld/%lld ref %s/%s/%s/%s", path, id,
                    (long long)d->peak_allocated_bytes, (long long)d->peak_reserved_bytes,
                    (long long)d->allocated_at_peak_reserved_bytes, (long long)d->peak_allocated_delta_bytes, pa,
                    pr, apr, rel);
      if (e_pr != FSDPA_ABSENT && e_apr != FSDPA_ABSENT)
        ck_assert(fabs(d->fragmentation - (1.0 - (double)e_apr / (double)e_pr)) < 1e-12);
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
  printf("# %s: %ld blocking calls (%ld via cuda_sync, %ld by behaviour), %ld malloc, %ld free agree\n", path, compared,
         lib_linked, ref_behaviour, ref_malloc, ref_free);
  free(w);
  free(k);
  fsdpa_list_free(wl);
  fsdpa_list_free(kl);
  fsdpa_list_free(dl);
  free(r);
  fsdpa_ctx_free(c);
  return compared;
}

START_TEST(t_corpus_vs_reference) {
  const char *dir = tu_corpus_dir();
  if (!dir) return;
  char **corpus = NULL;
  size_t ncorpus = tu_corpus_files(dir, &corpus);
  ck_assert_uint_gt(ncorpus, 10);
  ref_pipe = calloc(ncorpus, sizeof *ref_pipe);
  ck_assert_ptr_nonnull(ref_pipe);
  long total = 0;
  int memtraces = 0;
  for (size_t i = 0; i < ncorpus; i++) {
    for (size_t j = i; j < ncorpus && j < i + AHEAD; j++) ref_start(j, corpus[j]);
    long n = check_trace(i, corpus[i]);
    if (n > 0) total += n;
    memtraces += strstr(corpus[i], "df_index_resolver") || strstr(corpus[i], "switchtransformers");
  }
  free(ref_pipe);
  ref_pipe = NULL;
  tu_free_paths(corpus, ncorpus);
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

/* blocking by behaviour only: a pageable cudaMemcpyAsync, a launch that
 * drains the queue, plus a named cudaMemcpy; the truth counts all three */
START_TEST(t_gen_blocking_copy) { tu_check_sync_alloc_scenario("blocking_copy", "cpu-sync-stall", NULL); }
END_TEST

/* cudaEventSynchronize and cudaStreamSynchronize with their cuda_sync Event
 * Sync / Stream Sync (the latter on the stream + 1000000 row) */
START_TEST(t_gen_stream_wait) { tu_check_sync_alloc_scenario("stream_wait", "cpu-sync-stall", NULL); }
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
    fsdpa_list *wl = sync_waits(c, NULL);
    uint64_t calls = 0;
    for (size_t i = 0; i < fsdpa_list_count(wl); i++) calls += wait_at(wl, i).count;
    fsdpa_list_free(wl);
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

int main(void) {
  Suite *s = suite_create("sync");
  TU_CASE(s, "unit", 0, NULL, t_sync_inferred_idle, t_sync_cuda_sync_events, t_sync_behaviour,
          t_sync_severity_by_cost, t_sync_cost_is_opened, t_sync_behaviour_drain, t_list_protocol, t_list_outlives_context);
  TU_CASE(s, "real", 1200, NULL, t_corpus_vs_reference);
  TU_CASE(s, "generator", 1200, NULL, t_gen_sync_stall, t_gen_sync_optimizer, t_gen_sync_dataloader, t_gen_sync_no_iterations, t_gen_fsdp2_healthy, t_gen_blocking_copy,
          t_gen_mixed, t_gen_stream_wait, t_between_feeds);
  return tu_run_suite(s);
}
