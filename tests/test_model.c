/* The model floor's view of a trace that the report shows as it is:
 * iterations (ProfilerStep, or inferred from repeating annotations) and the
 * workload labels and mode, on hand-built events with known answers. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "testutil.h"
#include "tjson.h"

static char *json_of(fsdpa_ctx *c) {
  char *js = tu_report(c, FSDPA_FORMAT_JSON);
  ck_assert_ptr_nonnull(js);
  return js;
}

static void assert_range(const char *js, int i, int64_t s, int64_t e) {
  char p[96];
  snprintf(p, sizeof p, "ranks.0.iterations.ranges.%d.start_ns", i);
  ck_assert_int_eq(tj_i64(js, p), s);
  snprintf(p, sizeof p, "ranks.0.iterations.ranges.%d.dur_ns", i);
  ck_assert_int_eq(tj_i64(js, p), e - s);
}

START_TEST(t_iterations_from_optimizer_steps) {
  fsdpa_ctx *c = tu_new_ctx();
  tu_add_x(c, "cpu_op", "aten::mm", 10, 1, 10, 50, FSDPA_ABSENT);
  tu_add_x(c, "user_annotation", "Optimizer.step#SGD.step", 10, 1, 100, 20, FSDPA_ABSENT);
  tu_add_x(c, "user_annotation", "Optimizer.step#SGD.step", 10, 1, 500, 20, FSDPA_ABSENT);
  tu_add_x(c, "user_annotation", "Optimizer.step#SGD.step", 10, 1, 300, 30, FSDPA_ABSENT);
  /* a second optimizer inside the step is not a second iteration */
  tu_add_x(c, "user_annotation", "Optimizer.step#EMA.step", 10, 1, 310, 5, FSDPA_ABSENT);
  char *js = json_of(c);
  ck_assert(tj_str_is(js, "ranks.0.iterations.source", "optimizer_step"));
  ck_assert_int_eq(tj_i64(js, "ranks.0.iterations.count"), 3);
  assert_range(js, 0, 10, 120);
  assert_range(js, 1, 120, 330);
  assert_range(js, 2, 330, 520);
  ck_assert_uint_eq(tj_count(js, "ranks.0.steps"), 0);  /* steps[] stays ProfilerStep only */
  ck_assert(tj_str_is(js, "ranks.0.workload.mode", "train"));
  free(js);
  fsdpa_ctx_free(c);
}
END_TEST

START_TEST(t_iterations_from_dataloader_and_benchmark) {
  fsdpa_ctx *c = tu_new_ctx();
  const char *dl = "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__";
  tu_add_x(c, "user_annotation", dl, 10, 1, 0, 20, FSDPA_ABSENT);
  tu_add_x(c, "user_annotation", dl, 10, 1, 100, 20, FSDPA_ABSENT);
  tu_add_x(c, "user_annotation", dl, 10, 1, 250, 20, FSDPA_ABSENT);
  tu_add_x(c, "cpu_op", "aten::add", 10, 1, 300, 100, FSDPA_ABSENT);
  char *js = json_of(c);
  ck_assert(tj_str_is(js, "ranks.0.iterations.source", "dataloader"));
  ck_assert_int_eq(tj_i64(js, "ranks.0.iterations.count"), 3);
  assert_range(js, 0, 0, 100);
  assert_range(js, 1, 100, 250);
  assert_range(js, 2, 250, 400);
  free(js);
  /* a benchmark run recorded twice (outer and inner range) is one run, and
   * it wins over the DataLoader */
  tu_add_x(c, "user_annotation", "[param|net|0|warmup|forward]", 10, 1, 0, 1000, FSDPA_ABSENT);
  tu_add_x(c, "user_annotation", "[param|net|0|warmup|forward]", 10, 1, 10, 980, FSDPA_ABSENT);
  tu_add_x(c, "user_annotation", "[param|net|0|measure|forward]", 10, 1, 1100, 100, FSDPA_ABSENT);
  js = json_of(c);
  ck_assert(tj_str_is(js, "ranks.0.iterations.source", "benchmark_annotation"));
  ck_assert_int_eq(tj_i64(js, "ranks.0.iterations.count"), 2);
  assert_range(js, 0, 0, 1000);
  assert_range(js, 1, 1100, 1200);
  free(js);
  fsdpa_ctx_free(c);
}
END_TEST

START_TEST(t_iterations_none_and_profiler_step) {
  fsdpa_ctx *c = tu_new_ctx();
  /* one DataLoader fetch shows no repetition */
  tu_add_x(c, "user_annotation", "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__", 10, 1, 0, 20,
           FSDPA_ABSENT);
  char *js = json_of(c);
  ck_assert(tj_str_is(js, "ranks.0.iterations.source", "none"));
  ck_assert_int_eq(tj_i64(js, "ranks.0.iterations.count"), 0);
  free(js);
  tu_add_x(c, "user_annotation", "Optimizer.step#SGD.step", 10, 1, 100, 20, FSDPA_ABSENT);
  tu_add_x(c, "user_annotation", "ProfilerStep#7", 10, 1, 50, 500, FSDPA_ABSENT);
  js = json_of(c);
  ck_assert(tj_str_is(js, "ranks.0.iterations.source", "ProfilerStep"));
  ck_assert_int_eq(tj_i64(js, "ranks.0.iterations.count"), 1);
  assert_range(js, 0, 50, 550);
  free(js);
  fsdpa_ctx_free(c);
}
END_TEST

static int has_label(const char *js, const char *label) {
  return tj_index(js, "ranks.0.workload.parallelism", NULL, label) >= 0;
}

START_TEST(t_workload_mode) {
  fsdpa_ctx *c = tu_new_ctx();
  tu_launch_kernel(c, 1, 0, 1, 7, 10, 20, "gemm_kernel");
  /* Python frames are not kept, but a module's forward shows the mode */
  fsdpa_event py = tu_x("python_function", "torch/nn/modules/linear.py(124): forward", 10, 1, 0, 5, FSDPA_ABSENT);
  tu_add(c, &py);
  char *js = json_of(c);
  /* a forward, and nothing says it is a decoder language model's: inference */
  ck_assert(tj_str_is(js, "ranks.0.workload.mode", "inference"));
  ck_assert(has_label(js, "single_gpu"));
  ck_assert(tj_str_is(js, "ranks.0.workload.evidence.1.example", "torch/nn/modules/linear.py(124): forward"));
  free(js);
  /* rotary embeddings in a module's name: a decoder LM's forward, its prefill */
  fsdpa_event rot = tu_x("python_function", "nn.Module: Qwen2RotaryEmbedding_0", 10, 1, 6, 2, FSDPA_ABSENT);
  tu_add(c, &rot);
  js = json_of(c);
  ck_assert(tj_str_is(js, "ranks.0.workload.mode", "prefill"));
  ck_assert(tj_str_is(js, "ranks.0.workload.evidence.1.example", "nn.Module: Qwen2RotaryEmbedding_0"));
  free(js);
  tu_add_x(c, "cpu_op", "autograd::engine::evaluate_function: MmBackward0", 10, 2, 30, 5, FSDPA_ABSENT);
  js = json_of(c);
  ck_assert(tj_str_is(js, "ranks.0.workload.mode", "train"));
  free(js);
  /* an engine step annotation decides the mode of an inference server */
  tu_add_x(c, "user_annotation", "execute_40_context_0(sq0)_generation_4(sq4sk80)", 10, 1, 40, 5, FSDPA_ABSENT);
  js = json_of(c);
  ck_assert(tj_str_is(js, "ranks.0.workload.mode", "decode"));
  ck_assert(tj_str_is(js, "ranks.0.iterations.source", "engine_step"));
  free(js);
  fsdpa_ctx_free(c);
}
END_TEST

START_TEST(t_workload_ddp_by_gradient_allreduce) {
  fsdpa_ctx *c = tu_new_ctx();
  tu_launch_kernel(c, 1, 0, 1, 7, 10, 20, "gemm_kernel");
  tu_add_x(c, "cpu_op", "c10d::allreduce_", 10, 1, 25, 5, FSDPA_ABSENT);  /* main thread */
  char *js = json_of(c);
  ck_assert(has_label(js, "unknown"));  /* communication, but of what kind? */
  ck_assert(!has_label(js, "single_gpu"));
  free(js);
  tu_add_x(c, "cpu_op", "autograd::engine::evaluate_function: MmBackward0", 10, 2, 30, 10, FSDPA_ABSENT);
  tu_add_x(c, "cpu_op", "c10d::allreduce_", 10, 2, 35, 2, FSDPA_ABSENT);  /* backward thread */
  js = json_of(c);
  ck_assert(has_label(js, "DDP"));
  ck_assert_uint_eq(tj_count(js, "ranks.0.workload.parallelism"), 1);
  ck_assert(tj_str_is(js, "ranks.0.workload.evidence.0.label", "DDP"));
  ck_assert_int_eq(tj_i64(js, "ranks.0.workload.evidence.0.count"), 1);
  free(js);
  /* FSDP's own reduce traffic is not DDP */
  tu_add_x(c, "user_annotation", "FSDP::post_backward_reduce", 10, 2, 36, 1, FSDPA_ABSENT);
  js = json_of(c);
  ck_assert(has_label(js, "FSDP2"));
  ck_assert(!has_label(js, "DDP"));
  free(js);
  fsdpa_ctx_free(c);
}
END_TEST

/* The workload evidence entry of a label; NULL-terminated path into p. */
static const char *label_ev(const char *js, const char *label, const char *field, char *p, size_t n) {
  int k = tj_index(js, "ranks.0.workload.evidence", "label", label);
  ck_assert_int_ge(k, 0);
  snprintf(p, n, "ranks.0.workload.evidence.%d.%s", k, field);
  return p;
}

static void add_functional(fsdpa_ctx *c, int64_t tid, int64_t at, int reduce_scatter) {
  tu_add_x(c, "cpu_op", "_c10d_functional::all_gather_into_tensor", 10, tid, at, 2, FSDPA_ABSENT);
  if (reduce_scatter) tu_add_x(c, "cpu_op", "_c10d_functional::reduce_scatter_tensor", 10, tid, at + 3, 2, FSDPA_ABSENT);
  tu_add_x(c, "cpu_op", "_c10d_functional::all_reduce", 10, tid, at + 6, 2, FSDPA_ABSENT);
  tu_add_x(c, "cpu_op", "_c10d_functional::wait_tensor", 10, tid, at + 9, 1, FSDPA_ABSENT);
}

/* DTensor's SequenceParallel: functional all-gather and reduce-scatter
 * beside tensor parallelism's all-reduce; plain tensor parallelism
 * all-gathers at most (a replicated output) and never reduce-scatters. */
START_TEST(t_workload_sequence_parallel_dtensor) {
  fsdpa_ctx *c = tu_new_ctx();
  tu_launch_kernel(c, 1, 0, 1, 7, 10, 20, "gemm_kernel");
  add_functional(c, 1, 30, 0);
  char *js = json_of(c);
  ck_assert(has_label(js, "tensor_parallel"));
  ck_assert(!has_label(js, "sequence_parallel"));
  free(js);
  tu_add_x(c, "cpu_op", "_c10d_functional::reduce_scatter_tensor", 10, 1, 50, 2, FSDPA_ABSENT);
  tu_add_x(c, "cpu_op", "_c10d_functional::reduce_scatter_tensor", 10, 1, 60, 2, FSDPA_ABSENT);
  js = json_of(c);
  ck_assert(has_label(js, "tensor_parallel"));
  ck_assert(has_label(js, "sequence_parallel"));
  char p[96];
  ck_assert(tj_str_is(js, label_ev(js, "sequence_parallel", "example", p, sizeof p),
                      "_c10d_functional::reduce_scatter_tensor"));
  ck_assert_int_eq(tj_i64(js, label_ev(js, "sequence_parallel", "count", p, sizeof p)), 2);
  char *rule = tj_str(js, label_ev(js, "sequence_parallel", "rule", p, sizeof p));
  ck_assert_ptr_nonnull(strstr(rule, "DTensor SequenceParallel"));
  free(rule);
  free(js);
  fsdpa_ctx_free(c);
}
END_TEST

/* Megatron's mappings by name, in Python frames or as autograd Function
 * ops, where there is communication (without it they are no-ops). */
START_TEST(t_workload_sequence_parallel_megatron) {
  static const char *PY = "megatron/core/tensor_parallel/mappings.py(456): gather_from_sequence_parallel_region";
  fsdpa_ctx *c = tu_new_ctx();
  tu_launch_kernel(c, 1, 0, 1, 7, 10, 20, "gemm_kernel");
  fsdpa_event py = tu_x("python_function", PY, 10, 1, 0, 5, FSDPA_ABSENT);
  tu_add(c, &py);
  /* vLLM's padding helper is not a sequence-parallel region */
  py = tu_x("python_function", "vllm/v1/worker/gpu_model_runner.py(2795): _pad_for_sequence_parallelism", 10, 1, 6,
            1, FSDPA_ABSENT);
  tu_add(c, &py);
  char *js = json_of(c);
  ck_assert(!has_label(js, "sequence_parallel"));  /* no communication */
  free(js);
  tu_add_x(c, "cpu_op", "nccl:_all_gather_base", 10, 1, 30, 5, FSDPA_ABSENT);
  js = json_of(c);
  ck_assert(has_label(js, "sequence_parallel"));
  char p[96];
  ck_assert(tj_str_is(js, label_ev(js, "sequence_parallel", "example", p, sizeof p), PY));
  ck_assert_int_eq(tj_i64(js, label_ev(js, "sequence_parallel", "count", p, sizeof p)), 1);
  free(js);
  fsdpa_ctx_free(c);
  /* the backward op of the autograd Function names it too */
  c = tu_new_ctx();
  tu_launch_kernel(c, 1, 0, 1, 7, 10, 20, "gemm_kernel");
  tu_add_x(c, "cpu_op", "autograd::engine::evaluate_function: _ReduceScatterToSequenceParallelRegionBackward", 10, 2,
           30, 5, FSDPA_ABSENT);
  tu_add_x(c, "cpu_op", "nccl:all_reduce", 10, 2, 31, 2, FSDPA_ABSENT);
  js = json_of(c);
  ck_assert(has_label(js, "sequence_parallel"));
  ck_assert(tj_str_is(js, label_ev(js, "sequence_parallel", "example", p, sizeof p),
                      "autograd::engine::evaluate_function: _ReduceScatterToSequenceParallelRegionBackward"));
  free(js);
  fsdpa_ctx_free(c);
}
END_TEST

/* FSDP all-gathers parameters and reduce-scatters gradients: with FSDP no
 * rule gives sequence parallelism, whatever else the trace has. */
START_TEST(t_workload_sequence_parallel_never_with_fsdp) {
  fsdpa_ctx *c = tu_new_ctx();
  tu_launch_kernel(c, 1, 0, 1, 7, 10, 20, "gemm_kernel");
  tu_add_x(c, "user_annotation", "FSDP::all_gather (layers.0)", 10, 1, 25, 10, FSDPA_ABSENT);
  add_functional(c, 1, 26, 1);
  tu_add_x(c, "user_annotation", "FSDP::post_backward_reduce", 10, 2, 40, 10, FSDPA_ABSENT);
  tu_add_x(c, "cpu_op", "_c10d_functional::reduce_scatter_tensor", 10, 2, 41, 2, FSDPA_ABSENT);
  fsdpa_event py = tu_x("python_function",
                        "megatron/core/tensor_parallel/mappings.py(480): reduce_scatter_to_sequence_parallel_region",
                        10, 1, 0, 5, FSDPA_ABSENT);
  tu_add(c, &py);
  char *js = json_of(c);
  ck_assert(has_label(js, "FSDP2"));
  ck_assert(!has_label(js, "sequence_parallel"));
  free(js);
  fsdpa_ctx_free(c);
  /* a generated FSDP2 job */
  char *path = tu_tracegen("fsdp2_healthy", "--steps 2", "model_fsdp2_sp.json");
  if (!path) {
    printf("# SKIP generated FSDP2: generator not runnable\n");
    return;
  }
  c = tu_new_ctx();
  ck_assert_msg(fsdpa_feed_file(c, path) == FSDPA_OK, "%s", fsdpa_errmsg(c));
  js = json_of(c);
  ck_assert(has_label(js, "FSDP2"));
  ck_assert(!has_label(js, "sequence_parallel"));
  free(js);
  free(path);
  fsdpa_ctx_free(c);
}
END_TEST

int main(void) {
  Suite *s = suite_create("model");
  TU_CASE(s, "model", 0, NULL, t_iterations_from_optimizer_steps, t_iterations_from_dataloader_and_benchmark,
          t_iterations_none_and_profiler_step, t_workload_mode, t_workload_ddp_by_gradient_allreduce,
          t_workload_sequence_parallel_dtensor, t_workload_sequence_parallel_megatron,
          t_workload_sequence_parallel_never_with_fsdp);
  return tu_run_suite(s);
}
