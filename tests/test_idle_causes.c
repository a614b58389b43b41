/* Idle causes read from the dependency graph (model/depgraph_idle.c):
 * hand-built gaps with known answers (launch-bound, a blocked host inside a
 * gap, a slow first launch, a stream wait, a wait on an op whose own launch
 * blocked, a collective, a wait on an event recorded outside the trace,
 * dispatch, window clipping); on every generator scenario and every corpus trace the
 * parts sum exactly to the idle of the same window, and the corpus agrees
 * with an independent Python recomputation from the raw JSON
 * (tests/idle_causes_ref.py). */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "testutil.h"
#include "tjson.h"
#include "ctx.h"
#include "analysis/launch_gaps/launch_gaps.h"
#include "analysis/launch_gaps/launch_gaps_impl.h"
#include "events/classify.h"
#include "util/fmt.h"

#define A FSDPA_ABSENT
#define NL DG_C_NOT_LAUNCHED
#define BL DG_C_BLOCKED
#define SW DG_C_STREAM_WAIT
#define RW DG_C_RANK_WAIT
#define DP DG_C_DISPATCH
#define UN DG_C_UNKNOWN

/* The hand-built cases are a few ns apart: dispatch only up to 10 ns, so a
 * queued remainder of 5-10 ns is the device's and anything longer is not. */
static fsdpa_ctx *hctx(void) {
  fsdpa_ctx *c = tu_new_ctx();
  ck_assert_int_eq(fsdpa_param_set(c, "idle.dispatch_max_ns", "10"), FSDPA_OK);
  return c;
}

/* A GPU op on device 0 over [s, e) and its launch call `api` on CPU thread
 * (100, tid) over [ls, le), linked by corr. */
static void launch(fsdpa_ctx *c, const char *api, int64_t tid, int64_t ls, int64_t le, int64_t corr,
                   const char *cat, const char *kname, int64_t stream, int64_t s, int64_t e) {
  tu_add_x(c, "cuda_runtime", api, 100, tid, ls, le - ls, corr);
  tu_add_x(c, cat, kname, 0, stream, s, e - s, corr);
}
static void kern(fsdpa_ctx *c, int64_t ls, int64_t le, int64_t corr, int64_t stream, int64_t s, int64_t e) {
  launch(c, "cudaLaunchKernel", 1, ls, le, corr, "kernel", "gemm", stream, s, e);
}

static dg_causes causes(fsdpa_ctx *c, int64_t t0, int64_t t1, int64_t dev, int64_t stream) {
  const store_views *v = ctx_views(c);
  ck_assert_ptr_nonnull(v);
  qwin w = {t0, t1, dev, stream};
  dg_causes k;
  ck_assert_int_eq(lg_idle_causes(c, v, &w, &k), FSDPA_OK);
  int64_t sum = 0;
  for (int i = 0; i < DG_C__N; i++) sum += k.ns[i];
  ck_assert_int_eq(sum, k.idle_ns);
  fsdpa_launch_gaps g;
  ck_assert_int_eq(lg_gaps(c, v, &w, &g, NULL), FSDPA_OK);
  ck_assert_int_eq(k.idle_ns, g.gpu_idle_ns);
  return k;
}
#define ALL(c) causes(c, INT64_MIN, INT64_MAX, A, A)

static void expect(const dg_causes *k, int64_t nl, int64_t bl, int64_t sw, int64_t rw, int64_t dp, int64_t un) {
  ck_assert_msg(k->ns[NL] == nl && k->ns[BL] == bl && k->ns[SW] == sw && k->ns[RW] == rw &&
                    k->ns[DP] == dp && k->ns[UN] == un,
                "got %lld/%lld/%lld/%lld/%lld/%lld, want %lld/%lld/%lld/%lld/%lld/%lld",
                (long long)k->ns[NL], (long long)k->ns[BL], (long long)k->ns[SW],
                (long long)k->ns[RW], (long long)k->ns[DP], (long long)k->ns[UN], (long long)nl, (long long)bl,
                (long long)sw, (long long)rw, (long long)dp, (long long)un);
}

static void expect_top(fsdpa_ctx *c, const dg_causes *k, int i, int cause, const char *what, int64_t ns) {
  ck_assert_int_gt(k->ntop, i);
  char b[256];
  dg_cause_what(c, &k->top[i], b, sizeof b);
  ck_assert_int_eq(k->top[i].cause, cause);
  ck_assert_str_eq(b, what);
  ck_assert_int_eq(k->top[i].ns, ns);
}

/* The gap [200, 260) before a kernel launched at [250, 255): 55 ns not yet
 * launched (the thread inside aten::foo), 5 ns the device starting it. */
START_TEST(t_launch_bound) {
  fsdpa_ctx *c = hctx();
  kern(c, 100, 105, 1, 7, 110, 200);
  tu_add_x(c, "cpu_op", "aten::outer", 100, 1, 90, 1000, A);
  tu_add_x(c, "cpu_op", "aten::foo", 100, 1, 150, 106, A);
  kern(c, 250, 255, 2, 7, 260, 300);
  dg_causes k = ALL(c);
  ck_assert_int_eq(k.idle_ns, 60);
  expect(&k, 55, 0, 0, 0, 5, 0);
  expect_top(c, &k, 0, NL, "aten::foo", 55);
  expect_top(c, &k, 1, DP, "stream 7", 5);
  /* a window cutting the gap: parts clipped, still summing */
  k = causes(c, 230, 258, A, A);
  expect(&k, 25, 0, 0, 0, 3, 0);
  /* the part before the innermost op starts has the enclosing one */
  fsdpa_ctx_free(c);
  c = hctx();
  kern(c, 100, 105, 1, 7, 110, 200);
  tu_add_x(c, "cpu_op", "aten::outer", 100, 1, 90, 1000, A);
  tu_add_x(c, "cpu_op", "aten::foo", 100, 1, 150, 50, A);   /* ends at 200: does not span */
  kern(c, 250, 255, 2, 7, 260, 300);
  k = ALL(c);
  expect(&k, 55, 0, 0, 0, 5, 0);
  expect_top(c, &k, 0, NL, "aten::outer", 55);
  fsdpa_ctx_free(c);
}
END_TEST

/* The launching thread blocked in cudaStreamSynchronize [210, 240) inside
 * the gap [200, 260): 30 ns host_blocked, 25 ns not launched, 5 dispatch. */
START_TEST(t_blocked_host) {
  fsdpa_ctx *c = hctx();
  kern(c, 100, 105, 1, 7, 110, 200);
  tu_add_x(c, "cuda_runtime", "cudaStreamSynchronize", 100, 1, 210, 30, 50);
  kern(c, 250, 255, 2, 7, 260, 300);
  /* another thread's blocking call says nothing about this launch */
  tu_add_x(c, "cuda_runtime", "cudaDeviceSynchronize", 100, 2, 200, 60, 51);
  dg_causes k = ALL(c);
  expect(&k, 25, 30, 0, 0, 5, 0);
  expect_top(c, &k, 0, BL, "cudaStreamSynchronize", 30);
  ck_assert_int_eq(k.top[1].cause, NL);
  ck_assert_int_eq(k.top[1].wkind, DG_W_NONE);  /* no CPU op on the thread */
  fsdpa_ctx_free(c);
}
END_TEST

/* A first launch that takes 1 ms (module load) started before the gap:
 * the gap's time inside it is host_blocked; a 999,999 ns one is not. */
START_TEST(t_slow_launch) {
  for (int slow = 0; slow < 2; slow++) {
    fsdpa_ctx *c = hctx();
    int64_t d = slow ? 1000000 : 999999;
    kern(c, 100, 105, 1, 7, 110, 200);
    kern(c, 150, 150 + d, 2, 7, 160 + d, 200 + d);
    dg_causes k = ALL(c);
    int64_t in = 150 + d - 200;
    if (slow) expect(&k, 0, in, 0, 0, 10, 0);
    else expect(&k, in, 0, 0, 0, 10, 0);
    if (slow) expect_top(c, &k, 0, BL, "cudaLaunchKernel", in);
    fsdpa_ctx_free(c);
  }
}
END_TEST

/* Stream 7 waits (cuda_sync Stream Wait Event) for an event recorded after
 * op W on stream 20.  Stream 7 alone: its gap [50, 5000) is 64 ns before K's
 * launch ended, then stream_wait until W ends at 5000.  The device: W itself
 * ends its gap [50, 110), all host-side but the 5 ns the device took to
 * start W. */
START_TEST(t_stream_wait) {
  fsdpa_ctx *c = hctx();
  kern(c, 10, 15, 1, 7, 20, 50);       /* P, the op before K */
  kern(c, 100, 105, 2, 20, 110, 5000); /* W */
  tu_add_x(c, "cuda_runtime", "cudaEventRecord", 100, 1, 106, 1, 900);
  tu_add_x(c, "cuda_runtime", "cudaStreamWaitEvent", 100, 1, 108, 1, 901);
  fsdpa_event e = tu_x("cuda_sync", "Stream Wait Event", 0, 7, 108, 1, 901);
  e.sync_kind = "Stream Wait Event";
  e.sync_kind_len = strlen(e.sync_kind);
  e.wait_on_stream = 20;
  e.wait_on_event_corr = 900;
  tu_add(c, &e);
  kern(c, 109, 114, 3, 7, 5000, 6000); /* K */
  dg_causes k = causes(c, INT64_MIN, INT64_MAX, 0, 7);
  expect(&k, 64, 0, 4886, 0, 0, 0);
  expect_top(c, &k, 0, SW, "stream 20", 4886);
  k = ALL(c);
  expect(&k, 55, 0, 0, 0, 5, 0);
  /* a wait issued before the op before K does not hold K */
  fsdpa_ctx_free(c);
  c = hctx();
  kern(c, 100, 105, 2, 20, 110, 5000);
  e.ts_ns = 5;
  tu_add_x(c, "cuda_runtime", "cudaEventRecord", 100, 1, 3, 1, 900);
  tu_add(c, &e);
  kern(c, 10, 15, 1, 7, 20, 50);
  kern(c, 109, 114, 3, 7, 5000, 6000);
  k = causes(c, INT64_MIN, INT64_MAX, 0, 7);
  expect(&k, 64, 0, 0, 0, 0, 4886);
  fsdpa_ctx_free(c);
}
END_TEST

/* The same without cuda_sync events (ROCm): only hipEventRecord and
 * hipStreamWaitEvent runtime calls; the event's stream is that of the
 * thread's last launch before the record onto another stream. */
START_TEST(t_stream_wait_runtime_calls) {
  fsdpa_ctx *c = hctx();
  launch(c, "hipLaunchKernel", 1, 10, 15, 1, "kernel", "gemm", 7, 20, 50);     /* P */
  launch(c, "hipLaunchKernel", 1, 100, 105, 2, "kernel", "copy", 20, 110, 5000); /* W */
  tu_add_x(c, "cuda_runtime", "hipEventRecord", 100, 1, 106, 1, 900);
  tu_add_x(c, "cuda_runtime", "hipStreamWaitEvent", 100, 1, 108, 1, 901);
  launch(c, "hipLaunchKernel", 1, 109, 114, 3, "kernel", "gemm", 7, 5000, 6000); /* K */
  dg_causes k = causes(c, INT64_MIN, INT64_MAX, 0, 7);
  expect(&k, 64, 0, 4886, 0, 0, 0);
  expect_top(c, &k, 0, SW, "stream 20", 4886);
  fsdpa_ctx_free(c);
  /* a wait before K's previous launch does not hold K */
  c = hctx();
  launch(c, "hipLaunchKernel", 1, 100, 105, 2, "kernel", "copy", 20, 110, 5000);
  tu_add_x(c, "cuda_runtime", "hipEventRecord", 100, 1, 106, 1, 900);
  tu_add_x(c, "cuda_runtime", "hipStreamWaitEvent", 100, 1, 107, 1, 901);
  launch(c, "hipLaunchKernel", 1, 108, 109, 1, "kernel", "gemm", 7, 120, 150);
  launch(c, "hipLaunchKernel", 1, 110, 114, 3, "kernel", "gemm", 7, 5000, 6000);
  k = causes(c, INT64_MIN, INT64_MAX, 0, 7);
  expect(&k, 0, 0, 0, 0, 0, 4850);
  fsdpa_ctx_free(c);
}
END_TEST

/* The awaited op W had not started: its launch, a synchronous cudaMemcpy on
 * another thread, blocked until 8990; only then did stream 7 wait for W to
 * run (stream_wait), and after W it queued 50 ns (unknown). */
START_TEST(t_wait_on_blocked_copy) {
  fsdpa_ctx *c = hctx();
  kern(c, 1, 6, 1, 7, 10, 50);
  launch(c, "cudaMemcpy", 2, 20, 9000, 2, "gpu_memcpy", "Memcpy HtoD (Pageable -> Device)", 20, 8990, 9050);
  tu_add_x(c, "cuda_runtime", "cudaEventRecord", 100, 2, 9001, 1, 900);
  fsdpa_event e = tu_x("cuda_sync", "Stream Wait Event", 0, 7, 85, 1, 901);
  e.wait_on_stream = 20;
  e.wait_on_event_corr = 900;
  tu_add(c, &e);
  kern(c, 90, 95, 3, 7, 9100, 9200);
  dg_causes k = causes(c, INT64_MIN, INT64_MAX, 0, 7);
  /* [50,95) before K was on its stream, [95,8990) W's copy call, [8990,9050) W runs */
  expect(&k, 45, 8895, 60, 0, 0, 50);
  expect_top(c, &k, 0, BL, "cudaMemcpy", 8895);
  /* the device: the gap before the copy is the blocking copy itself */
  k = ALL(c);
  expect(&k, 0, 8940, 0, 0, 0, 50);
  fsdpa_ctx_free(c);
}
END_TEST

/* Queued before a collective: rank_wait; waiting on a stream whose awaited
 * op is a collective: rank_wait too. */
START_TEST(t_rank_wait) {
  fsdpa_ctx *c = hctx();
  kern(c, 100, 105, 1, 7, 110, 200);
  launch(c, "cudaLaunchKernelExC", 1, 150, 155, 2, "kernel",
         "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)", 7, 400, 500);
  dg_causes k = ALL(c);
  expect(&k, 0, 0, 0, 200, 0, 0);
  ck_assert_int_eq(k.top[0].cause, RW);
  fsdpa_ctx_free(c);
  c = hctx();
  kern(c, 10, 15, 1, 7, 20, 50);
  launch(c, "cudaLaunchKernelExC", 1, 100, 105, 2, "kernel", "ncclKernel_AllGather_RING_LL_Sum_int8_t", 20,
         110, 5000);
  tu_add_x(c, "cuda_runtime", "cudaEventRecord", 100, 1, 106, 1, 900);
  fsdpa_event e = tu_x("cuda_sync", "Stream Wait Event", 0, 7, 108, 1, 901);
  e.wait_on_stream = 20;
  e.wait_on_event_corr = 900;
  tu_add(c, &e);
  kern(c, 109, 114, 3, 7, 5000, 6000);
  k = causes(c, INT64_MIN, INT64_MAX, 0, 7);
  expect(&k, 64, 0, 0, 4886, 0, 0);
  fsdpa_ctx_free(c);
}
END_TEST

/* No launch call: unknown, naming the missing launch; the device gap takes
 * the closer launched first. */
START_TEST(t_unlinked_and_closer_choice) {
  fsdpa_ctx *c = hctx();
  tu_add_x(c, "kernel", "k", 0, 7, 0, 100, A);
  tu_add_x(c, "kernel", "k", 0, 7, 300, 100, A);
  dg_causes k = ALL(c);
  expect(&k, 0, 0, 0, 0, 0, 200);
  ck_assert_int_eq(k.top[0].wkind, DG_W_UNLINKED);
  fsdpa_ctx_free(c);
  c = hctx();
  kern(c, 0, 5, 1, 7, 10, 100);
  kern(c, 150, 155, 2, 7, 300, 400);  /* launched after the gap began */
  kern(c, 20, 25, 3, 8, 300, 350);    /* launched before it: this one ends the device gap */
  k = ALL(c);
  expect(&k, 0, 0, 0, 0, 0, 200);
  k = causes(c, INT64_MIN, INT64_MAX, 0, 7);
  expect(&k, 55, 0, 0, 0, 0, 145);
  fsdpa_ctx_free(c);
}
END_TEST

/* Stream 7 waits on an event recorded before the profiling window (a
 * cuda_sync Stream Wait Event whose record correlation is -1): the queued
 * op K's idle after its launch is a wait on an event recorded outside the
 * trace, not unknown.  The same wait on a ROCm trace with no record call at
 * all: hipStreamWaitEvent whose guessed record (the thread's last launch
 * onto another stream) ended long before K could start explains nothing,
 * so the rest is outside too; when the guessed op does end just before K,
 * the wait is on it (stream_wait, counted as inferred). */
START_TEST(t_wait_outside_trace) {
  fsdpa_ctx *c = hctx();
  kern(c, 10, 15, 1, 7, 20, 50);
  fsdpa_event e = tu_x("cuda_sync", "Stream Wait Event", 0, 7, 100, 1, 901);
  e.sync_kind = "Stream Wait Event";
  e.sync_kind_len = strlen(e.sync_kind);
  e.wait_on_stream = -1;
  e.wait_on_event_corr = -1;
  tu_add(c, &e);
  tu_add_x(c, "cuda_runtime", "cudaStreamWaitEvent", 100, 1, 100, 1, 901);
  kern(c, 109, 114, 3, 7, 9000, 9100);
  dg_causes k = ALL(c);
  expect(&k, 64, 0, 8886, 0, 0, 0);
  ck_assert_int_eq(k.outside_ns, 8886);
  expect_top(c, &k, 0, SW, "awaited work not in the trace", 8886);
  fsdpa_ctx_free(c);
  for (int explained = 0; explained < 2; explained++) {
    c = hctx();
    launch(c, "hipLaunchKernel", 1, 10, 15, 1, "kernel", "gemm", 7, 20, 50);
    int64_t we = explained ? 9095 : 60;  /* the side stream's op ends */
    launch(c, "hipLaunchKernel", 1, 30, 35, 2, "kernel", "fill", 20, 40, we);
    tu_add_x(c, "cuda_runtime", "hipStreamWaitEvent", 100, 1, 100, 1, 902);
    launch(c, "hipLaunchKernel", 1, 109, 114, 3, "kernel", "gemm", 7, 9100, 9200);
    k = causes(c, INT64_MIN, INT64_MAX, 0, 7);
    if (explained) {
      /* [114, 9095) waiting for the side stream's op, 5 ns the device */
      expect(&k, 64, 0, 8986, 0, 0, 0);
      ck_assert_int_eq(k.inferred_ns, 8986);
      ck_assert_int_eq(k.outside_ns, 0);
    } else {
      expect(&k, 64, 0, 8986, 0, 0, 0);
      ck_assert_int_eq(k.outside_ns, 8986);
      ck_assert_int_eq(k.inferred_ns, 0);
    }
    fsdpa_ctx_free(c);
  }
}
END_TEST

/* No recorded edge, but the comm stream's op starts 3 ns after the compute
 * stream's op ends while it had long been queued: an inferred edge, so the
 * comm stream's idle before it is a stream wait (inferred), not unknown. */
START_TEST(t_inferred_edge) {
  fsdpa_ctx *c = hctx();
  ck_assert_int_eq(fsdpa_param_set(c, "depgraph.inferred_lag_ns", "5"), FSDPA_OK);
  kern(c, 10, 15, 1, 7, 20, 5000);
  launch(c, "cudaLaunchKernel", 2, 30, 35, 2, "kernel", "reduce", 20, 40, 60);
  launch(c, "cudaLaunchKernel", 2, 100, 105, 3, "kernel", "reduce", 20, 5003, 5100);
  depgraph g;
  ck_assert_int_eq(dg_get(c, &g), FSDPA_OK);
  ck_assert_int_eq(g.ev.waits[DG_E_TIMING], 1);
  ck_assert_int_eq(g.ev.timing_max_lag_ns, 3);
  dg_free(c, &g);
  dg_causes k = causes(c, INT64_MIN, INT64_MAX, 0, 20);
  /* [60, 100) not launched, [100, 105) the launch, [105, 5000) the compute
   * op runs, [5000, 5003) the device */
  expect(&k, 45, 0, 4898, 0, 0, 0);
  ck_assert_int_eq(k.inferred_ns, 4898);
  /* 6 ns apart: no edge, the queued time is unknown */
  fsdpa_ctx_free(c);
  c = hctx();
  ck_assert_int_eq(fsdpa_param_set(c, "depgraph.inferred_lag_ns", "5"), FSDPA_OK);
  kern(c, 10, 15, 1, 7, 20, 5000);
  launch(c, "cudaLaunchKernel", 2, 30, 35, 2, "kernel", "reduce", 20, 40, 60);
  launch(c, "cudaLaunchKernel", 2, 100, 105, 3, "kernel", "reduce", 20, 5006, 5100);
  k = causes(c, INT64_MIN, INT64_MAX, 0, 20);
  expect(&k, 45, 0, 0, 0, 0, 4901);
  fsdpa_ctx_free(c);
}
END_TEST

/* gpu-starvation words its cause: a steady step whose idle is mostly a
 * blocking call blames the call, not the launch rate. */
START_TEST(t_starvation_wording) {
  fsdpa_ctx *c = tu_new_ctx();
  int64_t corr = 1;
  for (int s = 0; s < 3; s++) {
    int64_t t = s * 1000000;
    char name[32];
    snprintf(name, sizeof name, "ProfilerStep#%d", s);
    tu_add_x(c, "user_annotation", name, 100, 1, t, 1000000, A);
    kern(c, t + 10, t + 15, corr++, 7, t + 20, t + 100000);
    tu_add_x(c, "cuda_runtime", "cudaStreamSynchronize", 100, 1, t + 100100, 700000, corr++);
    kern(c, t + 800200, t + 800205, corr++, 7, t + 800210, t + 900000);
  }
  char *rep = tu_report(c, FSDPA_FORMAT_JSON);
  ck_assert_ptr_nonnull(rep);
  ck_assert(tu_report_has_finding(rep, "gpu-starvation"));
  const char *f = strstr(rep, "\"gpu-starvation\"");
  ck_assert_ptr_nonnull(f);
  ck_assert_ptr_nonnull(strstr(f, "\"main_cause\":\"host_blocked\""));
  ck_assert_ptr_nonnull(strstr(f, "blocked inside a runtime call (mostly cudaStreamSynchronize)"));
  ck_assert_ptr_null(strstr(f, "did not feed the GPU"));
  free(rep);
  fsdpa_ctx_free(c);
}
END_TEST

/* Host work done in line against time between launches: three steps, each a
 * "forward" annotation that launches a kernel, leaves the GPU idle 3 ms, and
 * launches another.  With a CPU-only "clear_cache" op filling the 3 ms, that
 * op holds the not-launched idle (host_only) and the advice is to move the
 * host work off the launch path; with nothing inside the forward during the
 * 3 ms (the thread between its launches), the forward holds it, not as host
 * work, and the advice stays the launch-rate one. */
static char *forward_steps(int flush) {
  fsdpa_ctx *c = tu_new_ctx();
  int64_t corr = 1;
  for (int s = 0; s < 3; s++) {
    int64_t t = s * 4000000;
    char name[32];
    snprintf(name, sizeof name, "ProfilerStep#%d", s);
    tu_add_x(c, "user_annotation", name, 100, 1, t, 4000000, A);
    tu_add_x(c, "user_annotation", "forward", 100, 1, t + 5, 3900000, A);
    kern(c, t + 10, t + 15, corr++, 7, t + 20, t + 400000);
    if (flush) tu_add_x(c, "cpu_op", "clear_cache", 100, 1, t + 400100, 3000000, A);
    kern(c, t + 3400200, t + 3400205, corr++, 7, t + 3400210, t + 3800000);
  }
  char *rep = tu_report(c, FSDPA_FORMAT_JSON);
  ck_assert_ptr_nonnull(rep);
  fsdpa_ctx_free(c);
  return rep;
}
START_TEST(t_starvation_host_work) {
  char *rep = forward_steps(1);
  const char *f = strstr(rep, "\"gpu-starvation\"");
  ck_assert_ptr_nonnull(f);
  ck_assert_ptr_nonnull(strstr(f, "the launching thread was in clear_cache for"));
  ck_assert_ptr_nonnull(strstr(f, "host work done in line"));
  ck_assert(tj_str_is(rep, "ranks.0.launch_gaps.idle_causes.top.0.what", "clear_cache"));
  ck_assert(tj_num(rep, "ranks.0.launch_gaps.idle_causes.top.0.ns") == 9000000);
  ck_assert(tj_num(rep, "ranks.0.launch_gaps.idle_causes.top.0.host_only_ns") == 9000000);
  free(rep);
  rep = forward_steps(0);
  f = strstr(rep, "\"gpu-starvation\"");
  ck_assert_ptr_nonnull(f);
  ck_assert_ptr_null(strstr(f, "host work done in line"));
  ck_assert_ptr_nonnull(strstr(f, "the launching thread mostly in forward"));
  ck_assert(tj_str_is(rep, "ranks.0.launch_gaps.idle_causes.top.0.what", "forward"));
  ck_assert(tj_num(rep, "ranks.0.launch_gaps.idle_causes.top.0.ns") >= 9000000);
  ck_assert(tj_num(rep, "ranks.0.launch_gaps.idle_causes.top.0.host_only_ns") == 0);
  free(rep);
}
END_TEST

/* Random nested CPU ops on the launching thread and random gaps: the top
 * list's "what" (innermost op spanning each part, found by galloping from
 * the previous answer; where that op launched GPU work itself, its pieces
 * given to the children inside it, and so on down) equals linear scans, and
 * host_ns counts exactly the pieces in ops that launched nothing. */
static uint64_t rng = 0x9E3779B97F4A7C15ull;
static int64_t rnd(int64_t n) {
  rng ^= rng << 13;
  rng ^= rng >> 7;
  rng ^= rng << 17;
  return (int64_t)(rng % (uint64_t)n);
}
typedef struct nop { int64_t s, e; int name; } nop;
static int nest(nop *o, int n, int cap, int64_t s, int64_t e, int depth) {
  for (int64_t t = s; t < e && n < cap;) {
    int64_t a = t + rnd(200), b = a + 1 + rnd(2000);
    if (b > e) break;
    o[n++] = (nop){a, b, (int)rnd(4)};
    if (depth < 3) n = nest(o, n, cap, a, b, depth + 1);
    t = b;
  }
  return n;
}
static int naive_inner(const nop *o, int n, int64_t a, int64_t b) {
  int best = -1;
  for (int i = 0; i < n; i++)
    if (o[i].s <= a && o[i].e >= b && (best < 0 || o[i].s >= o[best].s)) best = i;
  return best;
}
/* nest() adds a parent before its children and a sibling after the one
 * before's subtree: the parent is the last earlier op spanning it */
static int naive_parent(const nop *o, int i) {
  for (int j = i - 1; j >= 0; j--)
    if (o[j].s <= o[i].s && o[j].e >= o[i].e) return j;
  return -1;
}
typedef struct nrun { const nop *o; int n; const int64_t *ls; int nls; int64_t *want, *host; } nrun;
static int naive_launches(const nrun *r, int i) {
  for (int k = 0; k < r->nls; k++)
    if (r->ls[k] >= r->o[i].s && r->ls[k] < r->o[i].e) return 1;
  return 0;
}
static void naive_give(const nrun *r, int i, int64_t ns) {
  r->want[i < 0 ? 4 : r->o[i].name] += ns;
  if (i >= 0 && !naive_launches(r, i)) r->host[r->o[i].name] += ns;
}
static void naive_in(const nrun *r, int x, int64_t a, int64_t b) {
  int64_t pos = a;
  for (int j = x + 1; j < r->n && r->o[j].s < b; j++) {
    if (naive_parent(r->o, j) != x || r->o[j].e <= pos) continue;
    int64_t s = r->o[j].s > pos ? r->o[j].s : pos, e = r->o[j].e < b ? r->o[j].e : b;
    if (s > pos) naive_give(r, x, s - pos);
    if (naive_launches(r, j)) naive_in(r, j, s, e);
    else naive_give(r, j, e - s);
    pos = e;
  }
  if (pos < b) naive_give(r, x, b - pos);
}
START_TEST(t_random_innermost) {
  static const char *NAMES[] = {"op0", "op1", "op2", "op3"};
  for (int round = 0; round < 20; round++) {
    static nop o[4000];
    int n = nest(o, 0, 4000, 0, 400000, 0);
    fsdpa_ctx *c = tu_new_ctx();
    for (int i = 0; i < n; i++) tu_add_x(c, "cpu_op", NAMES[o[i].name], 100, 1, o[i].s, o[i].e - o[i].s, A);
    int64_t want[5] = {0}, host[5] = {0};  /* per name, [4] = none */
    static int64_t K[4000][4];             /* launch start, end, kernel start, end */
    int nk = 0;
    for (int64_t t = 0; t < 400000 && nk < 4000;) {
      int64_t ls = t + rnd(3000), le = ls + 1 + rnd(20), ks = le, ke = ks + 1 + rnd(3000);  /* nothing queued: the top list holds only host parts */
      K[nk][0] = ls, K[nk][1] = le, K[nk][2] = ks, K[nk][3] = ke;
      nk++;
      t = ke;
    }
    static int64_t ls[4000];
    for (int i = 0; i < nk; i++) ls[i] = K[i][0];
    nrun r = {o, n, ls, nk, want, host};
    int64_t corr = 1, prev_end = 0;
    for (int q = 0; q < nk; q++) {
      int64_t l0 = K[q][0], l1 = K[q][1], ks = K[q][2], ke = K[q][3];
      kern(c, l0, l1, corr++, 7, ks, ke);
      if (corr > 2 && ks > prev_end) {  /* the gap [prev_end, ks) */
        int64_t a = prev_end, pre = l0 > a ? l0 : a, in_end = l1 > a ? l1 : a;
        int64_t parts[2][2] = {{a, pre < ks ? pre : ks}, {pre < ks ? pre : ks, in_end < ks ? in_end : ks}};
        for (int p = 0; p < 2; p++) {
          if (parts[p][1] <= parts[p][0]) continue;
          int i = naive_inner(o, n, parts[p][0], parts[p][1]);
          if (i >= 0 && naive_launches(&r, i)) naive_in(&r, i, parts[p][0], parts[p][1]);
          else naive_give(&r, i, parts[p][1] - parts[p][0]);
        }
      }
      if (ke > prev_end) prev_end = ke;
    }
    dg_causes k = ALL(c);
    int64_t got[5] = {0}, got_host[5] = {0};
    for (int i = 0; i < k.ntop; i++) {
      if (k.top[i].cause != NL) continue;
      if (k.top[i].wkind == DG_W_NONE) {
        got[4] = k.top[i].ns;
        continue;
      }
      char b[64];
      dg_cause_what(c, &k.top[i], b, sizeof b);
      got[b[2] - '0'] = k.top[i].ns;
      got_host[b[2] - '0'] = k.top[i].host_ns;
    }
    for (int i = 0; i < 5; i++) {
      ck_assert_msg(got[i] == want[i], "round %d name %d: %lld vs %lld", round, i, (long long)got[i],
                    (long long)want[i]);
      ck_assert_msg(got_host[i] == host[i], "round %d name %d: host %lld vs %lld", round, i,
                    (long long)got_host[i], (long long)host[i]);
    }
    fsdpa_ctx_free(c);
  }
}
END_TEST

/* ---- every window of a real or generated trace ---- */

/* Whole trace, each device and each stream: parts sum to the window's idle. */
static size_t check_sums(fsdpa_ctx *c) {
  const store_views *v = ctx_views(c);
  ck_assert_ptr_nonnull(v);
  size_t n = 0;
  if (!v->nstreams) return 0;
  causes(c, INT64_MIN, INT64_MAX, A, A);
  n++;
  for (size_t i = 0; i < v->nstreams; i++) {
    causes(c, INT64_MIN, INT64_MAX, v->streams[i].device, v->streams[i].stream);
    if (!i || v->streams[i].device != v->streams[i - 1].device)
      causes(c, INT64_MIN, INT64_MAX, v->streams[i].device, A);
    n++;
  }
  size_t ns = c->st.steps.len;
  for (size_t i = 0; i < ns; i++) {
    const step_rec *s = &FA_VEC_AT(&c->st.steps, step_rec, i);
    causes(c, s->ts, s->end, A, A);
    n++;
  }
  return n;
}

static char *ref_run(const char *path) {
  char cmd[8192];
  const char *py = getenv("FSDPA_PYTHON");
  snprintf(cmd, sizeof cmd, "'%s' '%s/tests/idle_causes_ref.py' '%s'", py ? py : "python3",
           tu_source_root(), path);
  int st = 0;
  char *out = tu_run(cmd, &st);
  ck_assert_msg(out && st == 0, "reference failed on %s", path);
  return out;
}

/* Every figure the reference prints: the six causes, the two sub-figures. */
static void cmp_ref(const char *ref, const char *pre, const dg_causes *k, const char *what) {
  static const char *K[DG_C__N] = {"host_not_launched_ns", "host_blocked_ns", "stream_wait_ns", "rank_wait_ns",
                                   "dispatch_ns", "unknown_ns"};
  char p[256];
#define R(key) (snprintf(p, sizeof p, "%s%s", pre, key), tj_i64(ref, p))
  ck_assert_msg(R("idle_ns") == k->idle_ns, "%s: idle %lld vs %lld", what, (long long)R("idle_ns"),
                (long long)k->idle_ns);
  for (int i = 0; i < DG_C__N; i++)
    ck_assert_msg(R(K[i]) == k->ns[i], "%s: %s: reference %lld, library %lld", what, K[i], (long long)R(K[i]),
                  (long long)k->ns[i]);
  ck_assert_msg(R("outside_trace_ns") == k->outside_ns, "%s: outside_trace_ns: reference %lld, library %lld", what,
                (long long)R("outside_trace_ns"), (long long)k->outside_ns);
  ck_assert_msg(R("inferred_ns") == k->inferred_ns, "%s: inferred_ns: reference %lld, library %lld", what,
                (long long)R("inferred_ns"), (long long)k->inferred_ns);
#undef R
}

/* The whole trace and each stream against the reference. */
static void check_ref(fsdpa_ctx *c, const char *path) {
  char *ref = ref_run(path);
  const store_views *v = ctx_views(c);
  ck_assert_ptr_nonnull(v);
  if (v->nstreams) {
    dg_causes k = ALL(c);
    cmp_ref(ref, "", &k, path);
    for (size_t i = 0; i < v->nstreams; i++) {
      char pre[96], what[4300];
      snprintf(pre, sizeof pre, "streams.%lld:%lld.", (long long)v->streams[i].device,
               (long long)v->streams[i].stream);
      snprintf(what, sizeof what, "%s %s", path, pre);
      k = causes(c, INT64_MIN, INT64_MAX, v->streams[i].device, v->streams[i].stream);
      cmp_ref(ref, pre, &k, what);
    }
  } else {
    ck_assert_int_eq(tj_i64(ref, "idle_ns"), 0);
  }
  free(ref);
}

START_TEST(t_corpus) {
  const char *dir = tu_corpus_dir();
  if (!dir) return;
  char **paths = NULL;
  size_t n = tu_corpus_files(dir, &paths), traces = 0, windows = 0;
  for (size_t i = 0; i < n; i++) {
    if (strstr(paths[i], "execution_trace")) continue;  /* not a Kineto trace */
    fsdpa_ctx *c = tu_new_ctx();
    ck_assert_msg(fsdpa_feed_file(c, paths[i]) == FSDPA_OK, "%s: %s", paths[i], fsdpa_errmsg(c));
    windows += check_sums(c);
    check_ref(c, paths[i]);
    traces++;
    fsdpa_ctx_free(c);
  }
  printf("# idle causes: %zu corpus traces, %zu windows summed, reference agrees\n", traces, windows);
  ck_assert_int_gt(traces, 20);
  tu_free_paths(paths, n);
}
END_TEST

START_TEST(t_generator) {
  static const char *S[] = {"fsdp2_healthy", "fsdp2_no_prefetch", "fsdp1_serialized", "network_bound",
                            "comm_on_compute_stream", "launch_bound", "fused_healthy", "sync_stall",
                            "allocator_thrash", "allocator_healthy", "straggler", "mixed",
                            "allocator_thrash_async", "allocator_thrash_expandable"};
  size_t done = 0;
  for (size_t i = 0; i < sizeof S / sizeof S[0]; i++) {
    char name[128];
    snprintf(name, sizeof name, "ic_%s.json.gz", S[i]);
    char *path = tu_tracegen(S[i], "--ranks 1", name);
    ck_assert_msg(path != NULL, "tracegen %s failed", S[i]);
    fsdpa_ctx *c = tu_new_ctx();
    ck_assert_msg(fsdpa_feed_file(c, path) == FSDPA_OK, "%s: %s", path, fsdpa_errmsg(c));
    check_sums(c);
    check_ref(c, path);
    if (!strcmp(S[i], "launch_bound")) {
      /* the eager loop's idle is its host: nothing waits on another stream */
      dg_causes k = ALL(c);
      ck_assert_int_eq(k.ns[SW] + k.ns[RW], 0);
      ck_assert_int_gt(k.ns[NL], k.idle_ns / 2);
    }
    if (!strcmp(S[i], "sync_stall")) {
      dg_causes k = ALL(c);
      ck_assert_int_gt(k.ns[BL], 0);
    }
    fsdpa_ctx_free(c);
    free(path);
    done++;
  }
  ck_assert_int_eq(done, sizeof S / sizeof S[0]);
}
END_TEST

/* The generator's stream_wait scenario in each of its formats: the truth's
 * causes, whole trace and per stream, from what the generator did (the op
 * each stream wait held, the calls that blocked the host), must be the
 * library's to the ns, in the JSON report, in the report inside the HTML
 * page and in the text report's line; new and old write the waits as
 * cuda_sync events (Stream Wait Event, Event Sync, Stream Sync; new on the
 * stream + 1000000 row), legacy19 only as cudaEventRecord /
 * cudaStreamWaitEvent / cudaEventSynchronize / cudaStreamSynchronize runtime
 * calls.  --wait-form: unresolved writes every Stream Wait Event with
 * wait_on_stream -1 (the Event Syncs still name theirs), mixed cycles the
 * waits through named, unresolved and no cuda_sync event, rocm has hip*
 * calls and no cuda_sync at all: the waits the cuda_sync events do not name
 * come from the runtime calls, each wait once, so the truth is the same. */
static void cmp_truth(const char *truth, const char *tpre, const dg_causes *k, const char *rep,
                      const char *rpre, const char *what) {
  static const char *K[DG_C__N] = {"host_not_launched_ns", "host_blocked_ns", "stream_wait_ns", "rank_wait_ns",
                                   "dispatch_ns", "unknown_ns"};
  char p[256];
  snprintf(p, sizeof p, "%sidle_ns", tpre);
  ck_assert_msg(tj_i64(truth, p) == k->idle_ns, "%s: idle %lld vs truth %lld", what, (long long)k->idle_ns,
                (long long)tj_i64(truth, p));
  for (int i = 0; i < DG_C__N; i++) {
    snprintf(p, sizeof p, "%s%s", tpre, K[i]);
    int64_t want = tj_i64(truth, p);
    ck_assert_msg(k->ns[i] == want, "%s: %s %lld vs truth %lld", what, K[i], (long long)k->ns[i], (long long)want);
    snprintf(p, sizeof p, "%sidle_causes.%s", rpre, K[i]);
    ck_assert_msg(tj_i64(rep, p) == want, "%s: report %s %lld vs truth %lld", what, p, (long long)tj_i64(rep, p),
                  (long long)want);
  }
  static const char *S[2] = {"outside_trace_ns", "inferred_ns"};
  const int64_t got[2] = {k->outside_ns, k->inferred_ns};
  for (int i = 0; i < 2; i++) {
    snprintf(p, sizeof p, "%s%s", tpre, S[i]);
    int64_t want = tj_i64(truth, p);
    ck_assert_msg(got[i] == want, "%s: %s %lld vs truth %lld", what, S[i], (long long)got[i], (long long)want);
    snprintf(p, sizeof p, "%sidle_causes.%s", rpre, S[i]);
    ck_assert_msg(tj_i64(rep, p) == want, "%s: report %s %lld vs truth %lld", what, p, (long long)tj_i64(rep, p),
                  (long long)want);
  }
}

/* Each stream alone: the truth's causes are the library's and those of the
 * JSON report (and of the report inside the HTML page, when given). */
static void cmp_truth_streams(fsdpa_ctx *c, const char *truth, const char *rep, const char *prep,
                              const char *path) {
  const store_views *v = ctx_views(c);
  ck_assert_int_eq(tj_count(truth, "idle_causes.streams"), v->nstreams);
  for (size_t i = 0; i < v->nstreams; i++) {
    char tpre[96], rpre[128], what[4400];
    snprintf(tpre, sizeof tpre, "idle_causes.streams.%lld:%lld.", (long long)v->streams[i].device,
             (long long)v->streams[i].stream);
    snprintf(rpre, sizeof rpre, "ranks.0.launch_gaps.streams.[stream=%lld].", (long long)v->streams[i].stream);
    snprintf(what, sizeof what, "%s stream %lld", path, (long long)v->streams[i].stream);
    dg_causes k = causes(c, INT64_MIN, INT64_MAX, v->streams[i].device, v->streams[i].stream);
    cmp_truth(truth, tpre, &k, rep, rpre, what);
    if (prep) cmp_truth(truth, tpre, &k, prep, rpre, what);
  }
}

/* The stream-wait evidence a trace holds: cuda_sync Stream Wait Events
 * naming their stream and not, runtime wait calls, hip* / cuda* calls. */
typedef struct wevid { size_t named, unnamed, calls, hip, cuda; } wevid;
static wevid evidence(fsdpa_ctx *c) {
  wevid w = {0, 0, 0, 0, 0};
  for (size_t i = 0; i < c->st.gsync.len; i++) {
    const ev_rec *r = STORE_REC(&c->st.gsync, i);
    if (r->aux == AUX_NONE || strcmp(intern_str(&c->st.names, r->name), "Stream Wait Event")) continue;
    if (FA_VEC_AT(&c->st.syncs, sync_info, r->aux).wait_on_stream >= 0) w.named++;
    else w.unnamed++;
  }
  for (size_t i = 0; i < c->st.rt.len; i++) {
    const ev_rec *r = STORE_REC(&c->st.rt, i);
    const char *n = intern_str(&c->st.names, r->name);
    w.calls += (store_name_info(&c->st, r->name) & NC_STREAM_WAIT) != 0;
    w.hip += !strncmp(n, "hip", 3);
    w.cuda += !strncmp(n, "cuda", 4);
  }
  return w;
}

START_TEST(t_generator_stream_wait) {
  static const struct { const char *fmt, *form; } F[] = {
      {"new", "cuda_sync"}, {"old", "cuda_sync"}, {"legacy19", "cuda_sync"},
      {"new", "unresolved"}, {"old", "mixed"}, {"new", "rocm"}};
  for (size_t f = 0; f < sizeof F / sizeof F[0]; f++) {
    char name[96], extra[96];
    int old = !strcmp(F[f].fmt, "old"), rocm = !strcmp(F[f].form, "rocm");
    snprintf(name, sizeof name, "ic_stream_wait_%s_%s.json%s", F[f].fmt, F[f].form, old ? "" : ".gz");
    snprintf(extra, sizeof extra, "--format %s --wait-form %s --steps 4", F[f].fmt, F[f].form);
    char *path = tu_tracegen("stream_wait", extra, name);
    ck_assert_msg(path != NULL, "tracegen stream_wait %s failed", extra);
    char tp[4200];
    snprintf(tp, sizeof tp, "%.*s.truth.json", (int)(strstr(path, ".json") - path), path);
    char *truth = tu_read_file(tp, NULL);
    ck_assert_msg(truth != NULL, "no truth file %s", tp);
    fsdpa_ctx *c = tu_new_ctx();
    ck_assert_msg(fsdpa_feed_file(c, path) == FSDPA_OK, "%s: %s", path, fsdpa_errmsg(c));
    /* the evidence is there in the form of the format: 4 steps, one wait each */
    ck_assert_int_eq(c->st.gsync.len == 0, !strcmp(F[f].fmt, "legacy19") || rocm);
    wevid ev = evidence(c);
    ck_assert_int_eq(ev.calls, 4);
    ck_assert_int_eq(ev.hip > 0, rocm);
    ck_assert_int_eq(ev.cuda > 0, !rocm);
    if (!strcmp(F[f].form, "cuda_sync") && c->st.gsync.len) ck_assert(ev.named == 4 && ev.unnamed == 0);
    if (!strcmp(F[f].form, "unresolved")) ck_assert(ev.named == 0 && ev.unnamed == 4);
    if (!strcmp(F[f].form, "mixed")) ck_assert(ev.named == 2 && ev.unnamed == 1);  /* one wait has none */
    char *rep = tu_report(c, FSDPA_FORMAT_JSON);
    ck_assert_ptr_nonnull(rep);
    char *html = tu_report(c, FSDPA_FORMAT_HTML);
    ck_assert_ptr_nonnull(html);
    char *prep = tu_page_json(html, "fsdpa-report");
    char *text = tu_report(c, FSDPA_FORMAT_TEXT);
    ck_assert_ptr_nonnull(text);
    ck_assert_int_gt(check_sums(c), 3);
    dg_causes k = ALL(c);
    cmp_truth(truth, "idle_causes.all.", &k, rep, "ranks.0.launch_gaps.", path);
    cmp_truth(truth, "idle_causes.all.", &k, prep, "ranks.0.launch_gaps.", path);
    /* the text report's line: each cause of the truth, as it writes durations */
    static const char *TN[DG_C__N] = {"host not launched", "host blocked", "stream wait", "rank wait",
                                      "dispatch", "unknown"};
    static const char *TK[DG_C__N] = {"host_not_launched_ns", "host_blocked_ns", "stream_wait_ns",
                                      "rank_wait_ns", "dispatch_ns", "unknown_ns"};
    const char *line = strstr(text, "idle causes");
    ck_assert_ptr_nonnull(line);
    for (int i = 0; i < DG_C__N; i++) {
      char p[128], d[32], want[96];
      snprintf(p, sizeof p, "idle_causes.all.%s", TK[i]);
      int64_t ns = tj_i64(truth, p);
      if (ns <= 0) continue;
      fmt_dur(d, sizeof d, ns);
      snprintf(want, sizeof want, "%s %s (", TN[i], d);
      ck_assert_msg(strstr(line, want) != NULL, "%s: text report lacks '%s'", path, want);
    }
    ck_assert_int_eq(ctx_views(c)->nstreams, 2);
    cmp_truth_streams(c, truth, rep, prep, path);
    /* the scenario holds every cause it was built for: the compute stream
     * waits on the side stream, the host blocks in both syncs */
    ck_assert_int_gt(tj_i64(truth, "idle_causes.streams.0:7.stream_wait_ns"), 0);
    ck_assert_int_gt(tj_i64(truth, "idle_causes.all.host_blocked_ns"), 0);
    ck_assert_int_gt(tj_i64(truth, "idle_causes.all.host_not_launched_ns"), 0);
    ck_assert_int_gt(tj_i64(truth, "idle_causes.all.dispatch_ns"), 0);
    ck_assert_int_gt(tj_i64(truth, rocm ? "sync.hipEventSynchronize.count" : "sync.cudaEventSynchronize.count"), 0);
    ck_assert_int_gt(tj_i64(truth, rocm ? "sync.hipStreamSynchronize.count" : "sync.cudaStreamSynchronize.count"),
                     0);
    ck_assert(tu_report_has_finding(rep, "cpu-sync-stall"));
    check_ref(c, path);
    free(text);
    free(prep);
    free(html);
    free(rep);
    free(truth);
    fsdpa_ctx_free(c);
    free(path);
  }
}
END_TEST

/* The scenarios built for the idle that rules written from generated traces
 * missed (tools/tracegen README): a stream held by an event recorded outside
 * the trace (CUDA with an unresolved Stream Wait Event, ROCm without any
 * record call, PyTorch 1.9 without cuda_sync), pageable copies, host
 * preprocessing before the first kernel, a graph capture beside replays, and
 * two ranks whose collectives wait for each other.  The truth's causes, from
 * what the generator did, are the library's to the ns, whole trace and per
 * stream, in the JSON report too; the reference agrees. */
START_TEST(t_generator_gaps) {
  static const struct { const char *scen, *extra, *file; int ranks; } G[] = {
      {"external_wait", "--steps 3", "ic_ext.json.gz", 1},
      {"external_wait", "--steps 3 --wait-form rocm", "ic_ext_rocm.json.gz", 1},
      {"external_wait", "--steps 3 --format legacy19", "ic_ext_l19.json", 1},
      {"pageable_copy", "--steps 3", "ic_pc.json.gz", 1},
      {"host_preprocess", "--steps 3", "ic_hp.json.gz", 1},
      {"graph_capture", "--steps 4", "ic_gc.json.gz", 1},
      {"graph_capture", "--steps 4 --format old", "ic_gc_old.json", 1},
      {"rank_skew", "--steps 3 --ranks 2 --layers 4", "ic_rs.json.gz", 2},
  };
  for (size_t g = 0; g < sizeof G / sizeof G[0]; g++) {
    char *path = tu_tracegen(G[g].scen, G[g].extra, G[g].file);
    ck_assert_msg(path != NULL, "tracegen %s %s failed", G[g].scen, G[g].extra);
    for (int r = 0; r < G[g].ranks; r++) {
      char rp[4200], tp[4200];
      int stem = (int)(strstr(path, ".json") - path);
      if (G[g].ranks > 1) snprintf(rp, sizeof rp, "%.*s.rank%d%s", stem, path, r, path + stem);
      else snprintf(rp, sizeof rp, "%s", path);
      int rstem = (int)(strstr(rp, ".json") - rp);
      snprintf(tp, sizeof tp, "%.*s.truth.json", rstem, rp);
      char *truth = tu_read_file(tp, NULL);
      ck_assert_msg(truth != NULL, "no truth file %s", tp);
      fsdpa_ctx *c = tu_new_ctx();
      ck_assert_msg(fsdpa_feed_file(c, rp) == FSDPA_OK, "%s: %s", rp, fsdpa_errmsg(c));
      char *rep = tu_report(c, FSDPA_FORMAT_JSON);
      ck_assert_ptr_nonnull(rep);
      check_sums(c);
      dg_causes k = ALL(c);
      cmp_truth(truth, "idle_causes.all.", &k, rep, "ranks.0.launch_gaps.", rp);
      cmp_truth_streams(c, truth, rep, NULL, rp);
      /* each scenario holds the cause it was built for */
      const char *main_cause = !strcmp(G[g].scen, "external_wait")   ? "idle_causes.all.outside_trace_ns"
                               : !strcmp(G[g].scen, "pageable_copy") ? "idle_causes.all.host_blocked_ns"
                                                                     : "idle_causes.all.host_not_launched_ns";
      ck_assert_int_gt(tj_i64(truth, main_cause), tj_i64(truth, "idle_causes.all.unknown_ns"));
      check_ref(c, rp);
      free(rep);
      free(truth);
      fsdpa_ctx_free(c);
    }
    free(path);
  }
}
END_TEST

int main(void) {
  Suite *s = suite_create("idle_causes");
  TU_CASE(s, "core", 0, NULL, t_launch_bound, t_blocked_host, t_slow_launch, t_stream_wait,
          t_stream_wait_runtime_calls, t_wait_on_blocked_copy, t_rank_wait, t_unlinked_and_closer_choice,
          t_wait_outside_trace, t_inferred_edge,
          t_starvation_wording, t_starvation_host_work, t_random_innermost);
  TU_CASE(s, "traces", 1200, NULL, t_corpus, t_generator, t_generator_stream_wait, t_generator_gaps);
  return tu_run_suite(s);
}
