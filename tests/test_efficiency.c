/* The kernel table, op attribution, the op models (FLOPs, bytes), the peak
 * table, MFU and inefficient-compute, on hand-built traces with known
 * answers (the corpus comparisons are tests/kernel_table_ref.py and
 * tests/tracelens_ref.py). */
#define FSDPA_EXPERIMENTAL
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "support/testutil.h"
#include "support/tjson.h"

/* ---- building blocks ---- */

static fsdpa_event op_ev(const char *name, int64_t tid, int64_t ts, int64_t dur, const char *dims, const char *types,
                         const char *conc) {
  fsdpa_event e = tu_x("cpu_op", name, 10, tid, ts, dur, FSDPA_ABSENT);
  if (dims) e.input_dims = dims, e.input_dims_len = strlen(dims);
  if (types) e.input_types = types, e.input_types_len = strlen(types);
  if (conc) e.concrete_inputs = conc, e.concrete_inputs_len = strlen(conc);
  return e;
}

static void add_op(fsdpa_ctx *c, const char *name, int64_t ts, int64_t dur, const char *dims, const char *types,
                   const char *conc) {
  fsdpa_event e = op_ev(name, 1, ts, dur, dims, types, conc);
  tu_add(c, &e);
}

static void set_device(fsdpa_ctx *c, const char *name, int64_t sms, int major, int minor) {
  fsdpa_device_info d;
  fsdpa_device_info_init(&d);
  d.device = 0;
  snprintf(d.name, sizeof d.name, "%s", name);
  d.sms = sms;
  d.compute_major = major;
  d.compute_minor = minor;
  ck_assert_int_eq(fsdpa_device_info_set(c, &d), FSDPA_OK);
}

/* The op table, every row. */
static fsdpa_list *ops(fsdpa_ctx *c, const fsdpa_query *q) {
  fsdpa_list *l = NULL;
  ck_assert_msg(fsdpa_op_list(c, q, 0, &l) == FSDPA_OK, "fsdpa_op_list: %s", fsdpa_errmsg(c));
  return l;
}

/* One op with one kernel under it: its single op-table row. */
static fsdpa_op_stat one_model(const char *name, const char *dims, const char *types, const char *conc) {
  fsdpa_ctx *c = tu_new_ctx();
  add_op(c, name, 0, 100, dims, types, conc);
  tu_launch_kernel(c, 1, 10, 1, 7, 200, 1200, "k");
  fsdpa_list *l = ops(c, NULL);
  ck_assert_uint_eq(fsdpa_list_count(l), 1);
  static fsdpa_op_stat o;
  static char keep[4][256];
  TU_ITEM(l, 0, o);
  ck_assert_str_eq(o.name, name);
  snprintf(keep[0], sizeof keep[0], "%s", o.model ? o.model : "");
  snprintf(keep[1], sizeof keep[1], "%s", o.dtype ? o.dtype : "");
  snprintf(keep[2], sizeof keep[2], "%s", o.input_dims ? o.input_dims : "");
  o.model = o.model ? keep[0] : NULL;
  o.dtype = o.dtype ? keep[1] : NULL;
  o.input_dims = o.input_dims ? keep[2] : NULL;
  o.name = o.gpu_op = o.category = o.input_types = o.concrete_inputs = NULL;
  fsdpa_list_free(l);
  fsdpa_ctx_free(c);
  return o;
}

#define MODEL(o, m, f, b)                                                                            \
  do {                                                                                                \
    ck_assert_msg((o).model && !strcmp((o).model, (m)), "model %s, want %s", (o).model ? (o).model : "null", (m)); \
    ck_assert_int_eq((o).flops, (f));                                                                 \
    ck_assert_int_eq((o).bytes, (b));                                                                 \
  } while (0)

/* ---- the models ---- */

START_TEST(t_gemm_models) {
  fsdpa_op_stat o = one_model("aten::mm", "[[64, 128], [128, 32]]", "[\"float\", \"float\"]", "[\"\", \"\"]");
  MODEL(o, "gemm", 2LL * 64 * 32 * 128, (64 * 128 + 128 * 32 + 64 * 32) * 4LL);
  ck_assert_str_eq(o.dtype, "fp32");
  ck_assert_str_eq(o.input_dims, "[[64,128],[128,32]]");  /* compacted */
  /* addmm: + M*N FLOPs for the bias, + N elements read */
  o = one_model("aten::addmm", "[[32],[64,128],[128,32],[],[]]",
                "[\"c10::BFloat16\",\"c10::BFloat16\",\"c10::BFloat16\",\"Scalar\",\"Scalar\"]", NULL);
  MODEL(o, "gemm", 2LL * 64 * 32 * 128 + 64 * 32, (64 * 128 + 128 * 32 + 64 * 32 + 32) * 2LL);
  ck_assert_str_eq(o.dtype, "bf16");
  o = one_model("aten::bmm", "[[4,64,128],[4,128,32]]", "[\"c10::BFloat16\",\"c10::BFloat16\"]", NULL);
  MODEL(o, "bmm", 4 * 2LL * 64 * 32 * 128, 4 * (64 * 128 + 128 * 32 + 64 * 32) * 2LL);
  o = one_model("aten::baddbmm", "[[4,64,32],[4,64,128],[4,128,32]]", "[\"c10::Half\",\"c10::Half\",\"c10::Half\"]",
                NULL);
  MODEL(o, "bmm", 4 * (2LL * 64 * 32 * 128 + 64 * 32), 4 * (64 * 128 + 128 * 32 + 64 * 32 + 32) * 2LL);
  ck_assert_str_eq(o.dtype, "fp16");
  /* fp8 inputs write a 16-bit output; four inputs: no bias */
  o = one_model("aten::_scaled_mm", "[[64,128],[128,32],[],[]]",
                "[\"c10::Float8_e4m3fn\",\"c10::Float8_e4m3fn\",\"float\",\"float\"]", NULL);
  MODEL(o, "gemm", 2LL * 64 * 32 * 128, 64 * 128 + 128 * 32 + 64 * 32 * 2LL);
  ck_assert_str_eq(o.dtype, "fp8");
  /* grouped: X[M,K] W[G,K,N], X[G,M,K] W[G,K,N], and K grouped by offsets */
  o = one_model("aten::_grouped_mm", "[[1024,256],[8,256,512],[8]]", "[\"c10::BFloat16\",\"c10::BFloat16\",\"int\"]",
                NULL);
  MODEL(o, "grouped_gemm", 2LL * 1024 * 256 * 512, (1024 * 256 + 8 * 256 * 512) * 2LL + 1024 * 512 * 2LL);
  o = one_model("aten::_grouped_mm", "[[8,128,256],[8,256,512]]", "[\"c10::BFloat16\",\"c10::BFloat16\"]", NULL);
  MODEL(o, "grouped_gemm", 8 * 2LL * 128 * 256 * 512, (8 * 128 * 256 + 8 * 256 * 512) * 2LL + 8 * 128 * 512 * 2LL);
  o = one_model("aten::_grouped_mm", "[[128,1024],[1024,64],[4]]", "[\"c10::BFloat16\",\"c10::BFloat16\",\"int\"]",
                NULL);
  MODEL(o, "grouped_gemm", 2LL * 128 * 1024 * 64, (128 * 1024 + 1024 * 64) * 2LL + 4 * 128 * 64 * 2LL);
  /* shapes that do not fit, or overflow: no model */
  o = one_model("aten::mm", "[[4611686018427387904,2],[2,2]]", "[\"float\",\"float\"]", NULL);
  ck_assert_ptr_null(o.model);
  ck_assert_int_eq(o.flops, FSDPA_ABSENT);
  ck_assert_int_eq(o.bytes, FSDPA_ABSENT);
  o = one_model("aten::mm", "[[64,128,3],[128,32]]", "[\"float\",\"float\"]", NULL);
  ck_assert_ptr_null(o.model);
  /* an unknown element size: FLOPs, no bytes */
  o = one_model("aten::mm", "[[2,2],[2,2]]", "[\"c10::ComplexFloat\",\"c10::ComplexFloat\"]", NULL);
  ck_assert_int_eq(o.flops, 16);
  ck_assert_int_eq(o.bytes, FSDPA_ABSENT);
}
END_TEST

START_TEST(t_attention_models) {
  const char *qkv = "[[2,8,128,64],[2,8,128,64],[2,8,128,64],[],[],[],[]]";
  const char *bf = "[\"c10::BFloat16\",\"c10::BFloat16\",\"c10::BFloat16\",\"Scalar\",\"Scalar\",\"Scalar\",\"Scalar\"]";
  int64_t full = 2LL * 8 * 2 * 128 * 128 * 64 * 2;  /* QKᵀ and PV */
  int64_t bytes = 4LL * 2 * 8 * 128 * 64 * 2;
  fsdpa_op_stat o = one_model("aten::_scaled_dot_product_flash_attention", qkv, bf,
                              "[\"\",\"\",\"\",\"0.\",\"False\",\"False\",\"\"]");
  MODEL(o, "sdpa_fwd", full, bytes);
  o = one_model("aten::_scaled_dot_product_flash_attention", qkv, bf, "[\"\",\"\",\"\",\"0.\",\"True\",\"False\",\"\"]");
  MODEL(o, "sdpa_fwd", full / 2, bytes);
  /* causal with N_Q != N_KV has no model (TraceLens refuses it too) */
  o = one_model("aten::_scaled_dot_product_flash_attention", "[[2,8,64,64],[2,8,128,64],[2,8,128,64]]", bf,
                "[\"\",\"\",\"\",\"0.\",\"True\",\"False\",\"\"]");
  ck_assert_ptr_null(o.model);
  /* flash_attn's layout is [B, N, H, d]; its causal flag is input 5 */
  o = one_model("flash_attn::_flash_attn_forward", "[[2,128,8,64],[2,128,8,64],[2,128,8,64]]", bf,
                "[\"\",\"\",\"\",\"0.0\",\"0.125\",\"True\"]");
  MODEL(o, "sdpa_fwd", full / 2, bytes);
  /* backward, efficient (no recompute of QKᵀ), GQA: H_Q 8, H_KV 2 */
  int64_t bh2nn = 1LL * 8 * 2 * 64 * 64;
  int64_t want = 4 * bh2nn * 64 + 2 * (1LL * 64 * 64 * (8 / 2 - 1));
  o = one_model("aten::_scaled_dot_product_efficient_attention_backward",
                "[[1,8,64,64],[1,8,64,64],[1,2,64,64],[1,2,64,64],[],[1,8,64,64],[1,8,64]]",
                "[\"c10::BFloat16\",\"c10::BFloat16\",\"c10::BFloat16\",\"c10::BFloat16\"]",
                "[\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"0.\",\"[True, True, True, False]\",\"False\"]");
  MODEL(o, "sdpa_bwd", want,
        (2LL * (8 * 64 * 64 + 2 * 64 * 64 + 2 * 64 * 64) + 8 * 64 * 64) * 2);
  /* flash backward recomputes QKᵀ; causal halves */
  o = one_model("aten::_scaled_dot_product_flash_attention_backward",
                "[[2,8,128,64],[2,8,128,64],[2,8,128,64],[2,8,128,64]]",
                "[\"c10::BFloat16\",\"c10::BFloat16\",\"c10::BFloat16\",\"c10::BFloat16\"]",
                "[\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"0.\",\"True\"]");
  int64_t b2 = 2LL * 8 * 2 * 128 * 128;
  ck_assert_int_eq(o.flops, (b2 * 64 + 4 * b2 * 64) / 2);
}
END_TEST

START_TEST(t_conv_models) {
  /* ResNet's 3x3 conv: TraceLens's 2.31211008 GFLOPS */
  const char *c3 = "[\"\",\"\",\"\",\"[1, 1]\",\"[1, 1]\",\"[1, 1]\",\"False\",\"[0, 0]\",\"1\"]";
  const char *bf2 = "[\"c10::BFloat16\",\"c10::BFloat16\"]";
  fsdpa_op_stat o = one_model("aten::convolution", "[[10,64,56,56],[64,64,3,3],[],[],[],[],[],[],[]]", bf2, c3);
  MODEL(o, "conv_fwd", 2312110080LL, (10LL * 64 * 56 * 56 * 2 + 64 * 64 * 9) * 2);
  /* stride 2, groups 2 (the filter's C_in is per group), a bias */
  o = one_model("aten::convolution", "[[8,32,16,16],[64,16,3,3],[64],[],[],[],[],[],[]]", bf2,
                "[\"\",\"\",\"\",\"[2, 2]\",\"[1, 1]\",\"[1, 1]\",\"False\",\"[0, 0]\",\"2\"]");
  MODEL(o, "conv_fwd", 2LL * 16 * 9 * (8 * 64 * 8 * 8) + 8 * 64 * 8 * 8,
        (8LL * 32 * 16 * 16 + 64 * 16 * 9 + 64 + 8 * 64 * 8 * 8) * 2);
  /* transposed: FLOPs per input element; output (8-1)*2 - 2 + 2 + 1 + 1 = 16 */
  o = one_model("aten::convolution", "[[1,16,8,8],[16,8,3,3],[],[],[],[],[],[],[]]", bf2,
                "[\"\",\"\",\"\",\"[2, 2]\",\"[1, 1]\",\"[1, 1]\",\"True\",\"[1, 1]\",\"1\"]");
  MODEL(o, "conv_fwd", 1LL * 16 * 8 * 8 * 2 * 8 * 9, (16LL * 64 + 16 * 8 * 9 + 8 * 256) * 2);
  /* backward: input and weight gradients, each the forward's FLOPs */
  o = one_model("aten::convolution_backward",
                "[[10,64,56,56],[10,64,56,56],[64,64,3,3],[],[],[],[],[],[],[],[]]",
                "[\"c10::BFloat16\",\"c10::BFloat16\",\"c10::BFloat16\"]",
                "[\"\",\"\",\"\",\"[0]\",\"[1, 1]\",\"[1, 1]\",\"[1, 1]\",\"False\",\"[0, 0]\",\"1\",\"[True, True, False]\"]");
  MODEL(o, "conv_bwd", 2 * 2312110080LL, 2 * (10LL * 64 * 56 * 56 * 2 + 64 * 64 * 9) * 2);
}
END_TEST

START_TEST(t_elementwise_models) {
  fsdpa_op_stat o = one_model("aten::copy_", "[[128],[128],[]]", "[\"c10::BFloat16\",\"c10::BFloat16\",\"Scalar\"]",
                              NULL);
  MODEL(o, "unary", 128, 512);
  /* broadcast [4,1,8] + [3,8] -> [4,3,8] */
  o = one_model("aten::add", "[[4,1,8],[3,8],[]]", "[\"float\",\"float\",\"Scalar\"]", NULL);
  MODEL(o, "binary", 96, (32 + 24 + 96) * 4);
  /* a scalar second input: the output takes the first's element size */
  o = one_model("aten::add_", "[[],[],[]]", "[\"long int\",\"long int\",\"Scalar\"]", NULL);
  MODEL(o, "binary", 1, 24);
  ck_assert_ptr_null(o.dtype);  /* vector work: not in MFU */
  o = one_model("aten::mul", "[[4,3],[5,3]]", "[\"float\",\"float\"]", NULL);
  ck_assert_ptr_null(o.model);  /* not broadcastable */
}
END_TEST

/* ---- attribution ---- */

static int find_row(const fsdpa_list *l, const char *name, fsdpa_op_stat *out) {
  for (size_t i = 0; i < fsdpa_list_count(l); i++) {
    fsdpa_op_stat o;
    TU_ITEM(l, i, o);
    const char *n = o.name ? o.name : o.gpu_op;
    if (n && !strcmp(n, name)) {
      *out = o;
      return 1;
    }
  }
  return 0;
}

START_TEST(t_attribution) {
  fsdpa_ctx *c = tu_new_ctx();
  /* linear -> addmm: the GEMM */
  add_op(c, "aten::linear", 0, 100, NULL, NULL, NULL);
  add_op(c, "aten::addmm", 10, 80, "[[32],[64,128],[128,32],[],[]]", "[\"float\",\"float\",\"float\"]", NULL);
  tu_launch_kernel(c, 1, 20, 1, 7, 1000, 2000, "gemm_kernel");
  /* convolution -> _convolution -> miopen_convolution (a kernel and a memset) */
  add_op(c, "aten::convolution", 200, 100,
         "[[10,64,56,56],[64,64,3,3],[],[],[],[],[],[],[]]", "[\"c10::BFloat16\",\"c10::BFloat16\"]",
         "[\"\",\"\",\"\",\"[1, 1]\",\"[1, 1]\",\"[1, 1]\",\"False\",\"[0, 0]\",\"1\"]");
  add_op(c, "aten::_convolution", 205, 90, NULL, NULL, NULL);
  add_op(c, "aten::miopen_convolution", 210, 80, NULL, NULL, NULL);
  tu_launch_kernel(c, 1, 220, 2, 7, 2000, 3000, "conv_kernel");
  tu_add_x(c, "cuda_runtime", "hipMemsetAsync", 10, 1, 240, 5, 3);
  tu_add_x(c, "gpu_memset", "Memset (Device)", 0, 7, 3000, 100, 3);
  /* an elementwise op inside attention: the attention's */
  add_op(c, "aten::_scaled_dot_product_flash_attention", 400, 100, "[[2,8,128,64],[2,8,128,64],[2,8,128,64]]",
         "[\"c10::BFloat16\",\"c10::BFloat16\",\"c10::BFloat16\"]", "[\"\",\"\",\"\",\"0.\",\"False\"]");
  add_op(c, "aten::_flash_attention_forward", 410, 80, NULL, NULL, NULL);
  add_op(c, "aten::add_", 420, 10, "[[4],[4]]", "[\"float\",\"float\"]", NULL);
  tu_launch_kernel(c, 1, 425, 4, 7, 4000, 4100, "add_kernel");
  tu_launch_kernel(c, 1, 450, 5, 7, 4100, 5000, "flash_kernel");
  /* no op around the launch: the op with the kernel's External id */
  fsdpa_event e = op_ev("aten::fill_", 2, 600, 50, NULL, NULL, NULL);
  e.external_id = 77;
  tu_add(c, &e);
  tu_add_x(c, "cuda_runtime", "cudaLaunchKernel", 10, 1, 700, 5, 6);
  e = tu_x("kernel", "fill_kernel", 0, 7, 5000, 100, 6);
  e.external_id = 77;
  tu_add(c, &e);
  /* neither: unattributed */
  tu_add_x(c, "kernel", "orphan_kernel", 0, 7, 6000, 50, FSDPA_ABSENT);

  fsdpa_list *l = ops(c, NULL);
  fsdpa_op_stat o;
  ck_assert(find_row(l, "aten::addmm", &o));
  ck_assert_uint_eq(o.gpu_ops, 1);
  ck_assert_int_eq(o.kernel_ns, 1000);
  ck_assert_str_eq(o.category, "gemm");
  ck_assert(!find_row(l, "aten::linear", &o));
  ck_assert(find_row(l, "aten::convolution", &o));
  ck_assert_uint_eq(o.gpu_ops, 2);           /* memset included */
  ck_assert_int_eq(o.kernel_ns, 1100);
  ck_assert_int_eq(o.flops, 2312110080LL);
  ck_assert(!find_row(l, "aten::miopen_convolution", &o));
  ck_assert(find_row(l, "aten::_scaled_dot_product_flash_attention", &o));
  ck_assert_uint_eq(o.gpu_ops, 2);           /* the add_ inside it too */
  ck_assert_int_eq(o.kernel_ns, 1000);
  ck_assert(!find_row(l, "aten::add_", &o));
  ck_assert(find_row(l, "aten::fill_", &o));
  ck_assert_str_eq(o.category, "copy");
  ck_assert(find_row(l, "orphan_kernel", &o));
  ck_assert_ptr_null(o.name);
  ck_assert_str_eq(o.category, "other");
  ck_assert_uint_eq(fsdpa_list_count(l), 5);
  fsdpa_list_free(l);
  /* folded: two rows and the rest */
  ck_assert_int_eq(fsdpa_op_list(c, NULL, 2, &l), FSDPA_OK);
  ck_assert_uint_eq(fsdpa_list_count(l), 3);
  TU_ITEM(l, 2, o);
  ck_assert_ptr_null(o.name);
  ck_assert_ptr_null(o.category);
  ck_assert_uint_eq(o.names, 3);
  ck_assert_int_eq(o.kernel_ns, 1000 + 100 + 50);
  fsdpa_list_free(l);
  fsdpa_ctx_free(c);
}
END_TEST

/* ---- JSON and structured events, device properties ---- */

static const char TRACE[] =
    "{\"schemaVersion\": 1,\n"
    " \"deviceProperties\": [ {\"id\": 0, \"name\": \"NVIDIA H100 80GB HBM3\", \"totalGlobalMem\": 85018279936,\n"
    "   \"computeMajor\": 9, \"computeMinor\": 0, \"numSms\": 132, \"uuid\": {\"a\": [1, 2]}},\n"
    "   {\"id\": 1, \"name\": \"AMD Radeon Graphics\", \"computeMajor\": 9, \"computeMinor\": 0, \"numSms\": 104} ],\n"
    " \"traceEvents\": [\n"
    "  {\"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": \"ProfilerStep#3\", \"pid\": 10, \"tid\": 1,"
    " \"ts\": 0, \"dur\": 1000},\n"
    "  {\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::addmm\", \"pid\": 10, \"tid\": 1, \"ts\": 1, \"dur\": 10,\n"
    "   \"args\": {\"External id\": 5, \"Input Dims\": [[512], [141, 512],\n      [512, 512], [], []],\n"
    "    \"Input type\": [\"c10::BFloat16\", \"c10::BFloat16\", \"c10::BFloat16\", \"Scalar\", \"Scalar\"],\n"
    "    \"Concrete Inputs\": [\"\", \"\", \"\", \"1\", \"1\"]}},\n"
    "  {\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", \"pid\": 10, \"tid\": 1, \"ts\": 2,"
    " \"dur\": 1, \"args\": {\"correlation\": 9}},\n"
    "  {\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"sm90_gemm\", \"pid\": 0, \"tid\": 7, \"ts\": 20,"
    " \"dur\": 5.806, \"args\": {\"correlation\": 9, \"device\": 0, \"stream\": 7}},\n"
    "  {\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::mm\", \"pid\": 10, \"tid\": 1, \"ts\": 30, \"dur\": 10,\n"
    "   \"args\": {\"Input Dims\": [[1, 2], [2, abc]], \"Input type\": \"float\"}},\n"
    "  {\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", \"pid\": 10, \"tid\": 1, \"ts\": 31,"
    " \"dur\": 1, \"args\": {\"correlation\": 10}},\n"
    "  {\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"mm_kernel\", \"pid\": 0, \"tid\": 7, \"ts\": 40,"
    " \"dur\": 2, \"args\": {\"correlation\": 10, \"device\": 0, \"stream\": 7}}\n"
    " ]}\n";

/* The same trace as structured events (dims written with other blanks). */
static fsdpa_ctx *trace_events(void) {
  fsdpa_ctx *c = tu_new_ctx();
  tu_add_x(c, "user_annotation", "ProfilerStep#3", 10, 1, 0, 1000000, FSDPA_ABSENT);
  fsdpa_event e = op_ev("aten::addmm", 1, 1000, 10000, "[ [512],[141,512], [512,512],[],[] ]",
                        "[\"c10::BFloat16\",\"c10::BFloat16\",\"c10::BFloat16\",\"Scalar\",\"Scalar\"]",
                        "[\"\",\"\",\"\",\"1\",\"1\"]");
  e.external_id = 5;
  tu_add(c, &e);
  tu_add_x(c, "cuda_runtime", "cudaLaunchKernel", 10, 1, 2000, 1000, 9);
  e = tu_x("kernel", "sm90_gemm", 0, 7, 20000, 5806, 9);
  e.device = 0;
  e.stream = 7;
  tu_add(c, &e);
  /* not an array: ignored, as the JSON reader ignores a string there */
  e = op_ev("aten::mm", 1, 30000, 10000, "[[1, 2], [2, abc]]", NULL, NULL);
  tu_add(c, &e);
  tu_add_x(c, "cuda_runtime", "cudaLaunchKernel", 10, 1, 31000, 1000, 10);
  e = tu_x("kernel", "mm_kernel", 0, 7, 40000, 2000, 10);
  e.device = 0;
  e.stream = 7;
  tu_add(c, &e);
  set_device(c, "NVIDIA H100 80GB HBM3", 132, 9, 0);
  fsdpa_device_info d;
  fsdpa_device_info_init(&d);
  d.device = 1;
  snprintf(d.name, sizeof d.name, "AMD Radeon Graphics");
  d.sms = 104;
  d.compute_major = 9;
  d.compute_minor = 0;
  ck_assert_int_eq(fsdpa_device_info_set(c, &d), FSDPA_OK);
  /* a described device replaces the earlier description */
  d.total_memory_bytes = 1;
  ck_assert_int_eq(fsdpa_device_info_set(c, &d), FSDPA_OK);
  d.total_memory_bytes = FSDPA_ABSENT;
  ck_assert_int_eq(fsdpa_device_info_set(c, &d), FSDPA_OK);
  d.device = -1;
  ck_assert_int_eq(fsdpa_device_info_set(c, &d), FSDPA_EINVAL);
  return c;
}

static char *section(const char *rep, const char *path) {
  const char *b, *e;
  ck_assert_msg(tj_find(rep, path, &b, &e), "no %s", path);
  return strndup(b, (size_t)(e - b));
}

START_TEST(t_json_equals_events) {
  fsdpa_ctx *ev = trace_events();
  char *want_ops = NULL, *want_eff = NULL;
  {
    char *r = tu_report(ev, FSDPA_FORMAT_JSON);
    want_ops = section(r, "ranks.0.ops");
    want_eff = section(r, "ranks.0.efficiency");
    free(r);
  }
  /* whole, and one byte at a time (the metadata reader's states) */
  size_t chunks[] = {0, 1, 7};
  for (size_t k = 0; k < 3; k++) {
    fsdpa_status st;
    fsdpa_ctx *c = tu_feed_chunks(TRACE, sizeof TRACE - 1, chunks[k], &st);
    ck_assert_msg(c && st == FSDPA_OK, "feed: %s", c ? fsdpa_errmsg(c) : "");
    fsdpa_list *l;
    ck_assert_int_eq(fsdpa_device_list(c, &l), FSDPA_OK);
    ck_assert_uint_eq(fsdpa_list_count(l), 2);
    fsdpa_device_info d;
    TU_ITEM(l, 0, d);
    ck_assert_int_eq(d.device, 0);
    ck_assert_str_eq(d.name, "NVIDIA H100 80GB HBM3");
    ck_assert_int_eq(d.sms, 132);
    ck_assert_int_eq(d.compute_major, 9);
    ck_assert_int_eq(d.total_memory_bytes, 85018279936LL);
    TU_ITEM(l, 1, d);
    ck_assert_int_eq(d.sms, 104);
    ck_assert_int_eq(d.total_memory_bytes, FSDPA_ABSENT);
    fsdpa_list_free(l);
    fsdpa_device_peak p;
    memset(&p, 0, sizeof p);
    p.size = sizeof p;
    ck_assert_int_eq(fsdpa_device_peak_get(c, FSDPA_ABSENT, &p), FSDPA_OK);
    ck_assert_int_eq(p.device, 0);
    ck_assert_str_eq(p.model, "H100 SXM");
    ck_assert(p.bf16_tflops > 989 && p.bf16_tflops < 990);
    ck_assert_int_eq(fsdpa_device_peak_get(c, 1, &p), FSDPA_OK);
    ck_assert_str_eq(p.model, "MI250 / MI210 (one GCD)");  /* by gfx arch and CU count */
    ck_assert_int_eq(fsdpa_device_peak_get(c, 5, &p), FSDPA_OK);
    ck_assert_str_eq(p.model, "");
    ck_assert(p.bf16_tflops < 0);
    char *r = tu_report(c, FSDPA_FORMAT_JSON);
    char *got_ops = section(r, "ranks.0.ops"), *got_eff = section(r, "ranks.0.efficiency");
    ck_assert_str_eq(got_ops, want_ops);
    ck_assert_str_eq(got_eff, want_eff);
    /* the addmm of TraceLens's bert table; the mm's broken dims ignored */
    ck_assert_int_eq(tj_i64(r, "ranks.0.ops.[name=aten::addmm].flops"), 73996800);
    ck_assert_int_eq(tj_i64(r, "ranks.0.ops.[name=aten::addmm].bytes"), 814080);
    ck_assert(tj_is_null(r, "ranks.0.ops.[name=aten::mm].input_dims"));
    ck_assert(tj_is_null(r, "ranks.0.ops.[name=aten::mm].flops"));
    ck_assert(tj_str_is(r, "ranks.0.efficiency.device.model", "H100 SXM"));
    free(got_ops);
    free(got_eff);
    free(r);
    fsdpa_ctx_free(c);
  }
  free(want_ops);
  free(want_eff);
  fsdpa_ctx_free(ev);
}
END_TEST

/* ---- kernel table ---- */

START_TEST(t_kernel_table) {
  fsdpa_ctx *c = tu_new_ctx();
  tu_add_x(c, "user_annotation", "ProfilerStep#1", 10, 1, 0, 10000, FSDPA_ABSENT);
  int64_t d[] = {100, 300, 200, 400};
  for (int i = 0; i < 4; i++) tu_launch_kernel(c, 1, 10 + i, 1 + i, 7, 1000 * i, 1000 * i + d[i], "void foo<int, bar<float> >(int*)");
  tu_launch_kernel(c, 1, 20, 10, 8, 9950, 10100, "crossing");  /* 50 ns inside the step */
  tu_add_x(c, "gpu_memcpy", "Memcpy HtoD (Pageable -> Device)", 0, 8, 5000, 50, FSDPA_ABSENT);
  fsdpa_list *l;
  ck_assert_int_eq(fsdpa_kernel_list(c, NULL, NULL, &l), FSDPA_OK);
  ck_assert_uint_eq(fsdpa_list_count(l), 3);
  fsdpa_kernel_stat k;
  TU_ITEM(l, 0, k);
  ck_assert_str_eq(k.short_name, "foo<int, bar<\xe2\x80\xa6> >");
  ck_assert_str_eq(k.kernel_class, "compute");
  ck_assert_uint_eq(k.count, 4);
  ck_assert_int_eq(k.total_ns, 1000);
  ck_assert_int_eq(k.mean_ns, 250);
  ck_assert_int_eq(k.p50_ns, 200);  /* nearest rank: the 2nd of 4 */
  ck_assert_int_eq(k.min_ns, 100);
  ck_assert_int_eq(k.max_ns, 400);
  ck_assert(k.share > 1000.0 / 1200 - 1e-6 && k.share < 1000.0 / 1200 + 1e-6);
  TU_ITEM(l, 2, k);
  ck_assert_str_eq(k.kernel_class, "memcpy");
  fsdpa_list_free(l);
  /* the step window clips the crossing kernel */
  fsdpa_query q = FSDPA_QUERY_INIT;
  q.fields = FSDPA_QUERY_STEP;
  q.step = 0;
  ck_assert_int_eq(fsdpa_kernel_list(c, &q, NULL, &l), FSDPA_OK);
  for (size_t i = 0; i < fsdpa_list_count(l); i++) {
    TU_ITEM(l, i, k);
    if (!strcmp(k.name, "crossing")) ck_assert_int_eq(k.total_ns, 50);
  }
  fsdpa_list_free(l);
  /* one stream; folding */
  q.fields = FSDPA_QUERY_STREAM;
  q.stream = 8;
  fsdpa_kernel_select sel;
  fsdpa_kernel_select_init(&sel);
  sel.max_rows = 1;
  ck_assert_int_eq(fsdpa_kernel_list(c, &q, &sel, &l), FSDPA_OK);
  ck_assert_uint_eq(fsdpa_list_count(l), 2);
  TU_ITEM(l, 1, k);
  ck_assert_ptr_null(k.name);
  ck_assert_str_eq(k.short_name, "(other)");
  ck_assert_uint_eq(k.names, 1);
  ck_assert_int_eq(k.p50_ns, FSDPA_ABSENT);
  fsdpa_list_free(l);
  /* a unit that is not there */
  sel.fsdp_unit = 0;
  ck_assert_int_eq(fsdpa_kernel_list(c, NULL, &sel, &l), FSDPA_EINVAL);
  ck_assert(strstr(fsdpa_errmsg(c), "fsdp_unit") != NULL);
  fsdpa_ctx_free(c);
}
END_TEST

/* Per FSDP unit and phase: the kernels of each entry add up to the unit
 * list's counts. */
START_TEST(t_kernel_table_units) {
  char *path = tu_tracegen("fsdp2_healthy", "--steps 2 --layers 3", "eff_units.json");
  ck_assert_ptr_nonnull(path);
  fsdpa_ctx *c = tu_new_ctx();
  ck_assert_int_eq(fsdpa_feed_file(c, path), FSDPA_OK);
  fsdpa_list *units = tu_unit_list(c, NULL);
  ck_assert_uint_gt(fsdpa_list_count(units), 2);
  for (size_t u = 0; u < fsdpa_list_count(units); u++) {
    fsdpa_fsdp_unit fu;
    TU_ITEM(units, u, fu);
    fsdpa_kernel_select sel;
    fsdpa_kernel_select_init(&sel);
    sel.fsdp_unit = (int64_t)u;
    fsdpa_list *l;
    ck_assert_int_eq(fsdpa_kernel_list(c, NULL, &sel, &l), FSDPA_OK);
    uint64_t n = 0;
    for (size_t i = 0; i < fsdpa_list_count(l); i++) {
      fsdpa_kernel_stat k;
      TU_ITEM(l, i, k);
      n += k.count;
    }
    ck_assert_uint_eq(n, fu.comm_kernels + fu.compute_kernels);
    fsdpa_list_free(l);
  }
  fsdpa_list_free(units);
  fsdpa_ctx_free(c);
  free(path);
}
END_TEST

/* ---- MFU and the finding ---- */

/* One step of 1 ms with kernels of the given op, on a described device. */
static fsdpa_ctx *step_with(const char *dev, int64_t sms, int major, const char *name, const char *dims,
                            const char *types, int n, int64_t each_ns) {
  fsdpa_ctx *c = tu_new_ctx();
  set_device(c, dev, sms, major, 0);
  tu_add_x(c, "user_annotation", "ProfilerStep#1", 10, 1, 0, 1000000, FSDPA_ABSENT);
  for (int i = 0; i < n; i++) {
    add_op(c, name, 1000 + 100 * i, 50, dims, types, NULL);
    tu_launch_kernel(c, 1, 1010 + 100 * i, 1 + i, 7, 10000 + each_ns * i, 10000 + each_ns * (i + 1), "k");
  }
  return c;
}

START_TEST(t_mfu) {
  fsdpa_ctx *c = step_with("NVIDIA H100 80GB HBM3", 132, 9, "aten::mm", "[[4096,4096],[4096,4096]]",
                           "[\"c10::BFloat16\",\"c10::BFloat16\"]", 1, 200000);
  fsdpa_efficiency e;
  memset(&e, 0, sizeof e);
  e.size = sizeof e;
  fsdpa_query q = FSDPA_QUERY_INIT;
  q.fields = FSDPA_QUERY_STEP;
  q.step = 0;
  ck_assert_int_eq(fsdpa_efficiency_query(c, &q, &e), FSDPA_OK);
  double flops = 2.0 * 4096 * 4096 * 4096;
  ck_assert_int_eq(e.flops, (int64_t)flops);
  ck_assert_int_eq(e.window_ns, 1000000);
  ck_assert(e.mfu > flops / (989.4 * 1000) / 1e6 - 1e-9 && e.mfu < flops / (989.4 * 1000) / 1e6 + 1e-9);
  ck_assert_int_eq(e.modelled_ns, 200000);
  ck_assert_int_eq(e.gemm_ns, 200000);
  fsdpa_list *l;
  ck_assert_int_eq(fsdpa_efficiency_step_list(c, NULL, &l), FSDPA_OK);
  ck_assert_uint_eq(fsdpa_list_count(l), 1);
  fsdpa_efficiency s;
  TU_ITEM(l, 0, s);
  ck_assert_int_eq(s.step, 1);
  ck_assert(s.mfu == e.mfu);
  fsdpa_list_free(l);
  /* no device description: no peak, no MFU */
  fsdpa_ctx *u = tu_new_ctx();
  tu_add_x(u, "user_annotation", "ProfilerStep#1", 10, 1, 0, 1000000, FSDPA_ABSENT);
  add_op(u, "aten::mm", 1000, 50, "[[4096,4096],[4096,4096]]", "[\"c10::BFloat16\",\"c10::BFloat16\"]", NULL);
  tu_launch_kernel(u, 1, 1010, 1, 7, 10000, 210000, "k");
  ck_assert_int_eq(fsdpa_efficiency_query(u, NULL, &e), FSDPA_OK);
  ck_assert(e.mfu < 0);
  ck_assert_int_eq(e.flops, (int64_t)flops);
  fsdpa_ctx_free(u);
  fsdpa_ctx_free(c);
}
END_TEST

static char *finding_reason(fsdpa_ctx *c) {
  char *r = tu_report(c, FSDPA_FORMAT_JSON);
  char *out = NULL;
  if (tj_has(r, "findings.[id=inefficient-compute]")) out = tj_str(r, "findings.[id=inefficient-compute].evidence.reason");
  free(r);
  return out;
}

START_TEST(t_inefficient_compute) {
  /* fp32 GEMMs on an A100: 60% of the step */
  const char *ff = "[\"float\",\"float\"]", *bb = "[\"c10::BFloat16\",\"c10::BFloat16\"]";
  fsdpa_ctx *c = step_with("NVIDIA A100-SXM4-80GB", 108, 8, "aten::mm", "[[4096,4096],[4096,4096]]", ff, 6, 100000);
  char *why = finding_reason(c);
  ck_assert_msg(why && !strcmp(why, "fp32_matrix"), "reason %s", why ? why : "none");
  free(why);
  char *r = tu_report(c, FSDPA_FORMAT_JSON);
  ck_assert(tj_str_is(r, "findings.[id=inefficient-compute].severity", "warning"));
  ck_assert_int_eq(tj_i64(r, "findings.[id=inefficient-compute].cost_ns"), 600000);
  /* the bound the peaks give: fp32 19.5 against tf32 / bf16 312 */
  ck_assert_int_eq(tj_i64(r, "findings.[id=inefficient-compute].evidence.saving_bound_ns"),
                   (int64_t)(600000 * (1.0 - 19.5 / 312.0)));
  ck_assert_uint_eq(tj_count(r, "findings.[id=inefficient-compute].evidence.ranges"), 4);
  free(r);
  fsdpa_ctx_free(c);
  /* the same in bf16: large GEMMs, nothing to say */
  c = step_with("NVIDIA A100-SXM4-80GB", 108, 8, "aten::mm", "[[4096,4096],[4096,4096]]", bb, 6, 100000);
  ck_assert_ptr_null(finding_reason(c));
  fsdpa_ctx_free(c);
  /* small bf16 GEMMs far below peak, the GPU busy */
  c = step_with("NVIDIA A100-SXM4-80GB", 108, 8, "aten::mm", "[[64,64],[64,64]]", bb, 60, 10000);
  why = finding_reason(c);
  ck_assert_msg(why && !strcmp(why, "small_gemm"), "reason %s", why ? why : "none");
  free(why);
  fsdpa_ctx_free(c);
  /* the same small GEMMs on a GPU that mostly idles: starvation, not this */
  c = step_with("NVIDIA A100-SXM4-80GB", 108, 8, "aten::mm", "[[64,64],[64,64]]", bb, 10, 10000);
  ck_assert_ptr_null(finding_reason(c));
  fsdpa_ctx_free(c);
  /* memory-bound ops hold a busy GPU */
  c = step_with("NVIDIA H100 80GB HBM3", 132, 9, "aten::add", "[[1024,1024],[1024,1024]]", bb, 70, 10000);
  why = finding_reason(c);
  ck_assert_msg(why && !strcmp(why, "memory_bound"), "reason %s", why ? why : "none");
  free(why);
  fsdpa_ctx_free(c);
  /* fp32 on a device the table does not know: no verdict */
  c = step_with("NVIDIA GeForce RTX 2080 Ti", 68, 7, "aten::mm", "[[4096,4096],[4096,4096]]", ff, 6, 100000);
  ck_assert_ptr_null(finding_reason(c));
  fsdpa_ctx_free(c);
}
END_TEST

int main(void) {
  Suite *s = suite_create("efficiency");
  TU_CASE(s, "models", 0, NULL, t_gemm_models, t_attention_models, t_conv_models, t_elementwise_models);
  TU_CASE(s, "tables", 0, NULL, t_attribution, t_json_equals_events, t_kernel_table, t_kernel_table_units);
  TU_CASE(s, "efficiency", 0, NULL, t_mfu, t_inefficient_compute);
  return tu_run_suite(s);
}
