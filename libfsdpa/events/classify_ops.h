/* CPU op names that say what an op computes: its category for the op table
 * and which FLOPs / bytes model (model/perf_model.c) reads its shapes.
 * Matched here, once per distinct name, like every other name. */
#ifndef FSDPA_EVENTS_CLASSIFY_OPS_H
#define FSDPA_EVENTS_CLASSIFY_OPS_H
#include <stddef.h>
#include <stdint.h>

/* Op categories (fsdpa_op_stat.category), in the report's order. */
enum op_cat {
  OC_GEMM = 0,
  OC_ATTENTION,
  OC_CONV,
  OC_ELEMENTWISE,
  OC_REDUCTION,
  OC_NORMALIZATION,
  OC_COPY,
  OC_COMMUNICATION,
  OC_OTHER,
  OC__COUNT
};
const char *op_cat_name(int cat);  /* "gemm", ... */

/* The model that reads an op's shapes; the argument layout of each op is in
 * perf_model.c.  OM_NONE: no model. */
enum op_model {
  OM_NONE = 0,
  OM_MM,            /* aten::mm (A, B) */
  OM_ADDMM,         /* aten::addmm (C, A, B) */
  OM_SCALED_MM,     /* aten::_scaled_mm (A, B, ...) */
  OM_BMM,           /* aten::bmm (A[b,M,K], B[b,K,N]) */
  OM_BADDBMM,       /* aten::baddbmm (C, A, B) */
  OM_GROUPED_MM,    /* aten::_grouped_mm, aten::_scaled_grouped_mm, primus_turbo grouped GEMMs */
  OM_SDPA_FLASH,    /* aten::_scaled_dot_product_flash_attention (q, k, v [B,H,N,d], dropout, causal) */
  OM_SDPA_EFF,      /* aten::_scaled_dot_product_{efficient,cudnn}_attention (q, k, v, bias, lse, dropout, causal) */
  OM_FLASH_FWD,     /* flash_attn::_flash_attn_forward, FlashAttnFunc (q, k, v [B,N,H,d], dropout, scale, causal) */
  OM_SDPA_FLASH_BWD,/* aten::_scaled_dot_product_flash_attention_backward */
  OM_SDPA_EFF_BWD,  /* aten::_scaled_dot_product_efficient_attention_backward */
  OM_SDPA_CUDNN_BWD,/* aten::_scaled_dot_product_cudnn_attention_backward */
  OM_FLASH_BWD,     /* flash_attn::_flash_attn_backward (dout, q, k, v [B,N,H,d], ...) */
  OM_CONV,          /* aten::convolution */
  OM_CONV_BWD,      /* aten::convolution_backward */
  OM_UNARY,         /* TraceLens's unary elementwise ops */
  OM_BINARY,        /* TraceLens's binary elementwise ops */
  OM__COUNT
};

/* Category (enum op_cat) and model (enum op_model) of a CPU op name. */
void classify_op(const char *name, size_t len, int *cat, int *model);

/* Whether a kernel name says it runs fp32 inputs on the tensor cores:
 * cuBLAS / cuDNN / CUTLASS TF32 kernels ("tf32", "s1688", "s16816" in the
 * name) and rocBLAS / hipBLASLt XF32 ones ("xf32").  An fp32 op launching
 * one already gets the TF32 rate. */
int kernel_runs_tf32(const char *name, size_t len);
#endif
