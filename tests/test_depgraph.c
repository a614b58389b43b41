/* The dependency graph's replay (model/depgraph_sim.c): replayed without
 * changes every trace comes out exactly as recorded (a what-if that removes
 * nothing saves 0 ns), the critical path's segments tile its span and sum by
 * category to its length, and what-ifs with a known answer on hand-built
 * traces: a blocking call that waited for nothing removed saves its own
 * time, a GPU op made free shortens the ops queued behind it, a thread that
 * waited for another follows it. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "testutil.h"
#include "tjson.h"
#include "ctx.h"
#include "model/depgraph.h"

#define A FSDPA_ABSENT

static void launch(fsdpa_ctx *c, const char *api, int64_t tid, int64_t ls, int64_t le, int64_t corr,
                   int64_t stream, int64_t s, int64_t e) {
  tu_add_x(c, "cuda_runtime", api, 100, tid, ls, le - ls, corr);
  tu_add_x(c, "kernel", "gemm", 0, stream, s, e - s, corr);
}

/* The invariants on any trace: zero saving without changes, and a path that
 * tiles [start, end) with its categories summing to its length. */
static void invariants(fsdpa_ctx *c, const char *what) {
  const store_views *v = ctx_views(c);
  ck_assert_ptr_nonnull(v);
  depgraph g;
  ck_assert_int_eq(dg_get(c, &g), FSDPA_OK);
  dg_mods m;
  memset(&m, 0, sizeof m);
  m.t0 = INT64_MIN / 4;
  m.t1 = INT64_MAX / 4;
  int64_t saving;
  ck_assert_int_eq(dg_whatif(c, &g, &m, &saving), FSDPA_OK);
  if (c->st.gpu.len || c->st.rt.len) ck_assert_msg(saving == 0, "%s: replay as recorded saves %lld ns", what, (long long)saving);
  dg_path p;
  ck_assert_int_eq(dg_critical_path(c, &g, &p), FSDPA_OK);
  int64_t sum = 0;
  for (int i = 0; i < DG_P__N; i++) {
    ck_assert_int_ge(p.by_category[i], 0);
    sum += p.by_category[i];
  }
  ck_assert_msg(sum == p.length && p.length == p.end - p.start, "%s: path %lld, categories %lld", what,
                (long long)p.length, (long long)sum);
  for (size_t i = 0; i < p.nseg; i++) {
    ck_assert_int_lt(p.seg[i].s, p.seg[i].e);
    if (i) ck_assert_msg(p.seg[i - 1].e == p.seg[i].s, "%s: segment %zu does not follow the one before", what, i);
  }
  if (p.nseg) {
    ck_assert_int_eq(p.seg[0].s, p.start);
    ck_assert_int_eq(p.seg[p.nseg - 1].e, p.end);
  }
  dg_path_free(&p);
  dg_free(c, &g);
}

/* A thread launches K1, blocks 1 ms in cudaDeviceSynchronize after K1
 * ended (it waited for nothing), then launches K2: removing the sync starts
 * K2 1 ms earlier; the critical path runs through the call. */
START_TEST(t_whatif_blocking_call) {
  fsdpa_ctx *c = tu_new_ctx();
  launch(c, "cudaLaunchKernel", 1, 0, 5000, 1, 7, 10000, 20000);
  tu_add_x(c, "cuda_runtime", "cudaDeviceSynchronize", 100, 1, 100000, 1000000, 2);
  launch(c, "cudaLaunchKernel", 1, 1200000, 1205000, 3, 7, 1210000, 1300000);
  invariants(c, "blocking call");
  depgraph g;
  ck_assert_int_eq(dg_get(c, &g), FSDPA_OK);
  uint8_t z[3] = {0, 0, 0};
  ck_assert_uint_eq(c->st.rt.len, sizeof z);
  for (size_t i = 0; i < c->st.rt.len && i < sizeof z; i++)
    if (!strcmp(store_name(&c->st, STORE_REC(&c->st.rt, i)->name), "cudaDeviceSynchronize")) z[i] = 1;
  dg_mods m;
  memset(&m, 0, sizeof m);
  m.t0 = 0;
  m.t1 = 2000000;
  m.rt_zero = z;
  int64_t saving;
  ck_assert_int_eq(dg_whatif(c, &g, &m, &saving), FSDPA_OK);
  ck_assert_int_eq(saving, 1000000);
  dg_path p;
  ck_assert_int_eq(dg_critical_path(c, &g, &p), FSDPA_OK);
  ck_assert_int_eq(p.end, 1300000);
  ck_assert_int_eq(p.by_category[DG_P_GPU_COMPUTE], 90000);
  ck_assert_int_eq(p.by_category[DG_P_LAUNCH], 10000);
  ck_assert_int_ge(p.by_category[DG_P_RUNTIME], 1000000);
  dg_path_free(&p);
  dg_free(c, &g);
  fsdpa_ctx_free(c);
}
END_TEST

/* Three kernels queued back to back on one stream, launched long before:
 * the GPU is the path; making the middle one free ends the last 100 us
 * earlier, through the stream order. */
START_TEST(t_whatif_gpu_queue) {
  fsdpa_ctx *c = tu_new_ctx();
  launch(c, "cudaLaunchKernel", 1, 0, 5, 1, 7, 1000, 101000);
  launch(c, "cudaLaunchKernel", 1, 10, 15, 2, 7, 101002, 201002);
  launch(c, "cudaLaunchKernel", 1, 20, 25, 3, 7, 201004, 301004);
  invariants(c, "gpu queue");
  depgraph g;
  ck_assert_int_eq(dg_get(c, &g), FSDPA_OK);
  uint8_t z[3] = {0, 1, 0};
  dg_mods m;
  memset(&m, 0, sizeof m);
  m.t0 = 0;
  m.t1 = 400000;
  m.op_zero = z;
  int64_t saving;
  ck_assert_int_eq(dg_whatif(c, &g, &m, &saving), FSDPA_OK);
  ck_assert_int_eq(saving, 100000);
  dg_path p;
  ck_assert_int_eq(dg_critical_path(c, &g, &p), FSDPA_OK);
  /* three kernels, two 2 ns dispatches, the first kernel's launch latency */
  ck_assert_int_eq(p.by_category[DG_P_GPU_COMPUTE], 300000);
  ck_assert_int_eq(p.by_category[DG_P_DISPATCH], 4);
  ck_assert_int_eq(p.start, 0);
  dg_path_free(&p);
  dg_free(c, &g);
  fsdpa_ctx_free(c);
}
END_TEST

/* The main thread makes no call for 5 ms while the autograd thread launches
 * and frees, and resumes 100 us after the autograd thread's last call: a
 * thread edge.  Cutting 2 ms of the autograd thread's CPU time lets the main
 * thread's next launch, and the kernel after it, come 2 ms earlier. */
START_TEST(t_whatif_thread_edge) {
  fsdpa_ctx *c = tu_new_ctx();
  launch(c, "cudaLaunchKernel", 1, 0, 5000, 1, 7, 6000, 10000);
  launch(c, "cudaLaunchKernel", 2, 1000000, 1005000, 2, 7, 1006000, 1010000);
  launch(c, "cudaLaunchKernel", 2, 4000000, 4005000, 3, 7, 4006000, 4010000);
  launch(c, "cudaLaunchKernel", 1, 4105000, 4110000, 4, 7, 4111000, 4200000);
  invariants(c, "thread edge");
  depgraph g;
  ck_assert_int_eq(dg_get(c, &g), FSDPA_OK);
  ck_assert_uint_eq(g.ev.thread_edges, 1);
  ck_assert_int_eq(g.ev.thread_max_lag_ns, 100000);
  uint32_t tr = STORE_REC(&c->st.rt, 1)->track;
  iv cut = {2000000, 4000000};
  dg_mods m;
  memset(&m, 0, sizeof m);
  m.t0 = 0;
  m.t1 = 5000000;
  m.cut = &cut;
  m.cut_track = &tr;
  m.ncut = 1;
  int64_t saving;
  ck_assert_int_eq(dg_whatif(c, &g, &m, &saving), FSDPA_OK);
  ck_assert_int_eq(saving, 2000000);
  dg_path p;
  ck_assert_int_eq(dg_critical_path(c, &g, &p), FSDPA_OK);
  ck_assert_int_eq(p.by_category[DG_P_THREAD_WAIT], 100000);
  dg_path_free(&p);
  dg_free(c, &g);
  fsdpa_ctx_free(c);
}
END_TEST

START_TEST(t_corpus) {
  const char *dir = tu_corpus_dir();
  if (!dir) return;
  char **paths = NULL;
  size_t n = tu_corpus_files(dir, &paths), done = 0;
  for (size_t i = 0; i < n; i++) {
    if (strstr(paths[i], "execution_trace")) continue;  /* not a Kineto trace */
    fsdpa_ctx *c = tu_new_ctx();
    ck_assert_msg(fsdpa_feed_file(c, paths[i]) == FSDPA_OK, "%s: %s", paths[i], fsdpa_errmsg(c));
    invariants(c, paths[i]);
    fsdpa_ctx_free(c);
    done++;
  }
  printf("# depgraph: %zu corpus traces replay exactly, their paths tile their spans\n", done);
  ck_assert_int_gt(done, 20);
  tu_free_paths(paths, n);
}
END_TEST

START_TEST(t_generator) {
  static const char *S[] = {"fsdp2_healthy", "fsdp2_no_prefetch", "launch_bound", "sync_stall", "allocator_thrash",
                            "straggler", "stream_wait", "mixed"};
  for (size_t i = 0; i < sizeof S / sizeof S[0]; i++) {
    char name[128];
    snprintf(name, sizeof name, "dg_%s.json.gz", S[i]);
    char *path = tu_tracegen(S[i], "--ranks 1", name);
    ck_assert_msg(path != NULL, "tracegen %s failed", S[i]);
    fsdpa_ctx *c = tu_new_ctx();
    ck_assert_msg(fsdpa_feed_file(c, path) == FSDPA_OK, "%s: %s", path, fsdpa_errmsg(c));
    invariants(c, path);
    fsdpa_ctx_free(c);
    free(path);
  }
}
END_TEST

int main(void) {
  Suite *s = suite_create("depgraph");
  TU_CASE(s, "core", 0, NULL, t_whatif_blocking_call, t_whatif_gpu_queue, t_whatif_thread_edge);
  TU_CASE(s, "traces", 1200, NULL, t_corpus, t_generator);
  return tu_run_suite(s);
}
