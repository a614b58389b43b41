/* FLOPs and bytes of one CPU op call from its record_shapes arguments,
 * with TraceLens's perf_model.py conventions (fsdpa.h, group "efficiency",
 * has the formulas; docs/report-contract.md where and why they differ).
 * Pure functions of (model, shapes): the op table evaluates each distinct
 * (name, shape) once. */
#ifndef FSDPA_MODEL_PERF_MODEL_H
#define FSDPA_MODEL_PERF_MODEL_H
#include <stdint.h>
#include "events/store.h"
#include "events/classify_ops.h"

/* Compute dtypes of the peak table. */
enum pm_dtype { PD_NONE = 0, PD_FP64, PD_FP32, PD_TF32, PD_FP16, PD_BF16, PD_FP8, PD__COUNT };
const char *pm_dtype_name(int d);  /* "fp64", ... (NULL for PD_NONE) */

typedef struct pm_call {
  int model;      /* enum op_model; OM_NONE when the shapes do not fit the op's model */
  int dtype;      /* enum pm_dtype of the first matrix input (matrix models only) */
  int64_t flops;  /* FSDPA_ABSENT without a model */
  int64_t bytes;  /* FSDPA_ABSENT without a model or an element size */
  int64_t min_dim;/* GEMM models: min(M, N, K); FSDPA_ABSENT otherwise */
} pm_call;

/* Evaluate `model` (enum op_model) on a shape's parts. */
void pm_evaluate(int model, const shape_parts *sp, pm_call *out);
/* Models whose FLOPs are matrix work (GEMM, attention, convolution): what
 * MFU and the modelled share count. */
static inline int pm_is_matrix(int model) { return model >= OM_MM && model <= OM_CONV_BWD; }
/* The report's name of a model ("gemm", "sdpa_fwd", ...), NULL for OM_NONE. */
const char *pm_model_name(int model);
#endif
