#include "events/classify_ops.h"
#include <string.h>
#include <strings.h>

#define LIT(s) s, (sizeof(s) - 1)

const char *op_cat_name(int cat) {
  static const char *const N[OC__COUNT] = {"gemm",          "attention", "conv",          "elementwise", "reduction",
                                           "normalization", "copy",      "communication", "other"};
  return cat >= 0 && cat < OC__COUNT ? N[cat] : "other";
}

typedef struct op_name {
  const char *s;
  size_t n;
  uint8_t cat, model;
} op_name;

/* Ops with a FLOPs / bytes model: TraceLens's op_to_perf_model_class_map
 * and its elementwise lists, by the exact name the profiler records. */
static const op_name MODELLED[] = {
    {LIT("aten::mm"), OC_GEMM, OM_MM},
    {LIT("aten::addmm"), OC_GEMM, OM_ADDMM},
    {LIT("aten::_scaled_mm"), OC_GEMM, OM_SCALED_MM},
    {LIT("aten::bmm"), OC_GEMM, OM_BMM},
    {LIT("aten::baddbmm"), OC_GEMM, OM_BADDBMM},
    {LIT("aten::_grouped_mm"), OC_GEMM, OM_GROUPED_MM},
    {LIT("aten::_scaled_grouped_mm"), OC_GEMM, OM_GROUPED_MM},
    {LIT("primus_turbo::grouped_gemm"), OC_GEMM, OM_GROUPED_MM},
    {LIT("primus_turbo::grouped_gemm_impl"), OC_GEMM, OM_GROUPED_MM},
    {LIT("primus_turbo_cpp_extension::grouped_gemm"), OC_GEMM, OM_GROUPED_MM},
    {LIT("aten::_scaled_dot_product_flash_attention"), OC_ATTENTION, OM_SDPA_FLASH},
    {LIT("aten::_scaled_dot_product_efficient_attention"), OC_ATTENTION, OM_SDPA_EFF},
    {LIT("aten::_scaled_dot_product_cudnn_attention"), OC_ATTENTION, OM_SDPA_EFF},
    {LIT("flash_attn::_flash_attn_forward"), OC_ATTENTION, OM_FLASH_FWD},
    {LIT("FlashAttnFunc"), OC_ATTENTION, OM_FLASH_FWD},
    {LIT("aten::_scaled_dot_product_flash_attention_backward"), OC_ATTENTION, OM_SDPA_FLASH_BWD},
    {LIT("aten::_scaled_dot_product_efficient_attention_backward"), OC_ATTENTION, OM_SDPA_EFF_BWD},
    {LIT("aten::_scaled_dot_product_cudnn_attention_backward"), OC_ATTENTION, OM_SDPA_CUDNN_BWD},
    {LIT("flash_attn::_flash_attn_backward"), OC_ATTENTION, OM_FLASH_BWD},
    {LIT("aten::convolution"), OC_CONV, OM_CONV},
    {LIT("aten::convolution_backward"), OC_CONV, OM_CONV_BWD},
    {LIT("aten::copy"), OC_COPY, OM_UNARY},
    {LIT("aten::copy_"), OC_COPY, OM_UNARY},
    {LIT("aten::clamp_min"), OC_ELEMENTWISE, OM_UNARY},
    {LIT("aten::clamp_min_"), OC_ELEMENTWISE, OM_UNARY},
    {LIT("aten::clamp_max"), OC_ELEMENTWISE, OM_UNARY},
    {LIT("aten::clamp_max_"), OC_ELEMENTWISE, OM_UNARY},
    {LIT("aten::sigmoid"), OC_ELEMENTWISE, OM_UNARY},
    {LIT("aten::rsqrt"), OC_ELEMENTWISE, OM_UNARY},
    {LIT("aten::silu"), OC_ELEMENTWISE, OM_UNARY},
    {LIT("aten::neg"), OC_ELEMENTWISE, OM_UNARY},
    {LIT("aten::pow"), OC_ELEMENTWISE, OM_UNARY},
    {LIT("aten::div"), OC_ELEMENTWISE, OM_BINARY},
    {LIT("aten::div_"), OC_ELEMENTWISE, OM_BINARY},
    {LIT("aten::mul"), OC_ELEMENTWISE, OM_BINARY},
    {LIT("aten::mul_"), OC_ELEMENTWISE, OM_BINARY},
    {LIT("aten::add"), OC_ELEMENTWISE, OM_BINARY},
    {LIT("aten::add_"), OC_ELEMENTWISE, OM_BINARY},
    {LIT("aten::sub"), OC_ELEMENTWISE, OM_BINARY},
    {LIT("aten::sub_"), OC_ELEMENTWISE, OM_BINARY},
    {LIT("aten::sigmoid_backward"), OC_ELEMENTWISE, OM_BINARY},
    {LIT("aten::threshold_backward"), OC_ELEMENTWISE, OM_BINARY},
};

/* aten ops without a model whose category the name alone tells (the name
 * after "aten::"). */
static const op_name ATEN[] = {
    {LIT("matmul"), OC_GEMM, 0},        {LIT("linear"), OC_GEMM, 0},         {LIT("addbmm"), OC_GEMM, 0},
    {LIT("addmv"), OC_GEMM, 0},         {LIT("mv"), OC_GEMM, 0},             {LIT("dot"), OC_GEMM, 0},
    {LIT("_addmm_activation"), OC_GEMM, 0}, {LIT("einsum"), OC_GEMM, 0},
    {LIT("sum"), OC_REDUCTION, 0},      {LIT("mean"), OC_REDUCTION, 0},      {LIT("max"), OC_REDUCTION, 0},
    {LIT("min"), OC_REDUCTION, 0},      {LIT("amax"), OC_REDUCTION, 0},      {LIT("amin"), OC_REDUCTION, 0},
    {LIT("argmax"), OC_REDUCTION, 0},   {LIT("argmin"), OC_REDUCTION, 0},    {LIT("norm"), OC_REDUCTION, 0},
    {LIT("linalg_vector_norm"), OC_REDUCTION, 0}, {LIT("linalg_norm"), OC_REDUCTION, 0},
    {LIT("prod"), OC_REDUCTION, 0},     {LIT("cumsum"), OC_REDUCTION, 0},    {LIT("var"), OC_REDUCTION, 0},
    {LIT("std"), OC_REDUCTION, 0},      {LIT("var_mean"), OC_REDUCTION, 0},  {LIT("all"), OC_REDUCTION, 0},
    {LIT("any"), OC_REDUCTION, 0},      {LIT("softmax"), OC_REDUCTION, 0},   {LIT("_softmax"), OC_REDUCTION, 0},
    {LIT("log_softmax"), OC_REDUCTION, 0}, {LIT("_log_softmax"), OC_REDUCTION, 0},
    {LIT("_softmax_backward_data"), OC_REDUCTION, 0}, {LIT("_log_softmax_backward_data"), OC_REDUCTION, 0},
    {LIT("nll_loss_forward"), OC_REDUCTION, 0}, {LIT("nll_loss_backward"), OC_REDUCTION, 0},
    {LIT("cross_entropy_loss"), OC_REDUCTION, 0}, {LIT("topk"), OC_REDUCTION, 0},
    {LIT("_to_copy"), OC_COPY, 0},      {LIT("to"), OC_COPY, 0},             {LIT("clone"), OC_COPY, 0},
    {LIT("contiguous"), OC_COPY, 0},    {LIT("cat"), OC_COPY, 0},            {LIT("stack"), OC_COPY, 0},
    {LIT("fill_"), OC_COPY, 0},         {LIT("zero_"), OC_COPY, 0},          {LIT("zeros"), OC_COPY, 0},
    {LIT("zeros_like"), OC_COPY, 0},    {LIT("ones"), OC_COPY, 0},           {LIT("ones_like"), OC_COPY, 0},
    {LIT("full"), OC_COPY, 0},          {LIT("new_zeros"), OC_COPY, 0},      {LIT("index_select"), OC_COPY, 0},
    {LIT("gather"), OC_COPY, 0},        {LIT("scatter"), OC_COPY, 0},        {LIT("scatter_"), OC_COPY, 0},
    {LIT("index"), OC_COPY, 0},         {LIT("index_put_"), OC_COPY, 0},     {LIT("embedding"), OC_COPY, 0},
    {LIT("embedding_dense_backward"), OC_COPY, 0}, {LIT("split_with_sizes_copy"), OC_COPY, 0},
    {LIT("_foreach_copy_"), OC_COPY, 0}, {LIT("_chunk_cat"), OC_COPY, 0},    {LIT("flatten_dense_tensors"), OC_COPY, 0},
    {LIT("unflatten_dense_tensors"), OC_COPY, 0}, {LIT("_local_scalar_dense"), OC_COPY, 0},
    {LIT("pad"), OC_COPY, 0},           {LIT("constant_pad_nd"), OC_COPY, 0}, {LIT("repeat"), OC_COPY, 0},
    {LIT("where"), OC_ELEMENTWISE, 0},  {LIT("masked_fill"), OC_ELEMENTWISE, 0}, {LIT("masked_fill_"), OC_ELEMENTWISE, 0},
    {LIT("dropout"), OC_ELEMENTWISE, 0}, {LIT("native_dropout"), OC_ELEMENTWISE, 0},
    {LIT("native_dropout_backward"), OC_ELEMENTWISE, 0}, {LIT("relu"), OC_ELEMENTWISE, 0},
    {LIT("relu_"), OC_ELEMENTWISE, 0},  {LIT("gelu"), OC_ELEMENTWISE, 0},    {LIT("gelu_backward"), OC_ELEMENTWISE, 0},
    {LIT("silu_"), OC_ELEMENTWISE, 0},  {LIT("silu_backward"), OC_ELEMENTWISE, 0}, {LIT("tanh"), OC_ELEMENTWISE, 0},
    {LIT("tanh_backward"), OC_ELEMENTWISE, 0}, {LIT("exp"), OC_ELEMENTWISE, 0}, {LIT("log"), OC_ELEMENTWISE, 0},
    {LIT("sqrt"), OC_ELEMENTWISE, 0},   {LIT("abs"), OC_ELEMENTWISE, 0},     {LIT("rsub"), OC_ELEMENTWISE, 0},
    {LIT("reciprocal"), OC_ELEMENTWISE, 0}, {LIT("clamp"), OC_ELEMENTWISE, 0}, {LIT("clamp_"), OC_ELEMENTWISE, 0},
    {LIT("maximum"), OC_ELEMENTWISE, 0}, {LIT("minimum"), OC_ELEMENTWISE, 0}, {LIT("addcmul_"), OC_ELEMENTWISE, 0},
    {LIT("addcdiv_"), OC_ELEMENTWISE, 0}, {LIT("lerp_"), OC_ELEMENTWISE, 0}, {LIT("sign"), OC_ELEMENTWISE, 0},
    {LIT("eq"), OC_ELEMENTWISE, 0},     {LIT("ne"), OC_ELEMENTWISE, 0},      {LIT("lt"), OC_ELEMENTWISE, 0},
    {LIT("gt"), OC_ELEMENTWISE, 0},     {LIT("le"), OC_ELEMENTWISE, 0},      {LIT("ge"), OC_ELEMENTWISE, 0},
    {LIT("erf"), OC_ELEMENTWISE, 0},    {LIT("sin"), OC_ELEMENTWISE, 0},     {LIT("cos"), OC_ELEMENTWISE, 0},
    {LIT("hardtanh"), OC_ELEMENTWISE, 0}, {LIT("leaky_relu"), OC_ELEMENTWISE, 0}, {LIT("mish"), OC_ELEMENTWISE, 0},
    {LIT("square"), OC_ELEMENTWISE, 0}, {LIT("floor_divide"), OC_ELEMENTWISE, 0}, {LIT("remainder"), OC_ELEMENTWISE, 0},
    {LIT("bitwise_and"), OC_ELEMENTWISE, 0}, {LIT("bitwise_or"), OC_ELEMENTWISE, 0}, {LIT("logical_not"), OC_ELEMENTWISE, 0},
    {LIT("_fused_adam_"), OC_ELEMENTWISE, 0}, {LIT("_fused_adamw_"), OC_ELEMENTWISE, 0}, {LIT("_fused_sgd_"), OC_ELEMENTWISE, 0},
    {LIT("_amp_foreach_non_finite_check_and_unscale_"), OC_ELEMENTWISE, 0}, {LIT("_amp_update_scale_"), OC_ELEMENTWISE, 0},
};

static int eq(const char *a, size_t la, const char *b, size_t lb) { return la == lb && memcmp(a, b, la) == 0; }
static int starts(const char *a, size_t la, const char *p, size_t lp) { return la >= lp && memcmp(a, p, lp) == 0; }
static int ifind(const char *a, size_t la, const char *p, size_t lp) {
  for (size_t i = 0; i + lp <= la; i++)
    if (strncasecmp(a + i, p, lp) == 0) return 1;
  return 0;
}
static int ends(const char *a, size_t la, const char *p, size_t lp) {
  return la >= lp && memcmp(a + la - lp, p, lp) == 0;
}

void classify_op(const char *name, size_t len, int *cat, int *model) {
  *model = OM_NONE;
  for (size_t i = 0; i < sizeof MODELLED / sizeof MODELLED[0]; i++)
    if (eq(name, len, MODELLED[i].s, MODELLED[i].n)) {
      *cat = MODELLED[i].cat;
      *model = MODELLED[i].model;
      return;
    }
  if (starts(name, len, LIT("aten::"))) {
    const char *b = name + 6;
    size_t n = len - 6;
    for (size_t i = 0; i < sizeof ATEN / sizeof ATEN[0]; i++)
      if (eq(b, n, ATEN[i].s, ATEN[i].n)) {
        *cat = ATEN[i].cat;
        return;
      }
    if (starts(b, n, LIT("_foreach_"))) {
      *cat = OC_ELEMENTWISE;
      return;
    }
  }
  /* communication first: "all_gather_into_tensor" is no GEMM, whatever
   * fused name a library gives it */
  if (starts(name, len, LIT("record_param_comms")) || starts(name, len, LIT("c10d::")) ||
      starts(name, len, LIT("nccl:")) || starts(name, len, LIT("_c10d_functional::")) ||
      starts(name, len, LIT("c10d_functional::")) || starts(name, len, LIT("gloo:"))) {
    *cat = OC_COMMUNICATION;
    return;
  }
  /* FSDP's copy-in / copy-out (fsdp::all_gather_copy_in, fsdp::chunk_cat,
   * fsdp::split_with_sizes_copy) and other copies by name */
  if (ifind(name, len, LIT("copy")) || ifind(name, len, LIT("chunk_cat"))) {
    *cat = OC_COPY;
    return;
  }
  if (ifind(name, len, LIT("attention")) || ifind(name, len, LIT("flash_attn")) || ifind(name, len, LIT("attn_"))) {
    *cat = OC_ATTENTION;
    return;
  }
  if (ifind(name, len, LIT("conv")) && !ifind(name, len, LIT("convert"))) {
    *cat = OC_CONV;
    return;
  }
  if (ifind(name, len, LIT("gemm")) || ends(name, len, LIT("_mm")) || ends(name, len, LIT("matmul"))) {
    *cat = OC_GEMM;
    return;
  }
  if (ifind(name, len, LIT("batch_norm")) || ifind(name, len, LIT("layer_norm")) ||
      ifind(name, len, LIT("group_norm")) || ifind(name, len, LIT("instance_norm")) ||
      ifind(name, len, LIT("rms_norm")) || ifind(name, len, LIT("rmsnorm")) || ifind(name, len, LIT("layernorm"))) {
    *cat = OC_NORMALIZATION;
    return;
  }
  *cat = OC_OTHER;
}

static int has_ci(const char *s, size_t n, const char *w, size_t wn) {
  for (size_t i = 0; i + wn <= n; i++)
    if (!strncasecmp(s + i, w, wn)) return 1;
  return 0;
}

int kernel_runs_tf32(const char *name, size_t len) {
  return has_ci(name, len, LIT("tf32")) || has_ci(name, len, LIT("xf32")) || has_ci(name, len, LIT("s1688")) ||
         has_ci(name, len, LIT("s16816"));
}
