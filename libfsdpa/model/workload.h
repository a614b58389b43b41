/* What kind of job a trace is: its parallelism (a set of labels) and its
 * mode (train or which kind of inference), each with the evidence it rests
 * on.  Advice reads it so that it only talks about what the trace contains. */
#ifndef FSDPA_MODEL_WORKLOAD_H
#define FSDPA_MODEL_WORKLOAD_H
#include "ctx.h"

enum wl_label {
  WL_FSDP1, WL_FSDP2, WL_DDP, WL_TENSOR_PARALLEL, WL_SEQUENCE_PARALLEL, WL_EXPERT_PARALLEL,
  WL_PIPELINE, WL_EMBEDDING_A2A, WL_SINGLE_GPU, WL__COUNT
};
/* WM_PREFILL: a decoder language model's forward over a prompt (engine
 * context requests, or a causal LM's single forward); WM_INFERENCE: any
 * other single-pass forward-only inference (vision, diffusion, encoders). */
enum wl_mode { WM_UNKNOWN, WM_TRAIN, WM_PREFILL, WM_DECODE, WM_MIXED, WM_INFERENCE };

/* Why a label or the mode was chosen: the rule, how many events matched it
 * and the first of them. */
typedef struct wl_evidence {
  const char *rule;     /* static text; NULL = not set */
  uint64_t count;
  uint32_t example;     /* intern id or INTERN_NONE */
} wl_evidence;

typedef struct workload {
  uint32_t labels;                 /* 1u << enum wl_label */
  int mode;                        /* enum wl_mode */
  wl_evidence label_ev[WL__COUNT];
  wl_evidence mode_ev;
  int dataloader;                  /* a DataLoader __next__ range is in the trace: advice may name it */
} workload;

fsdpa_status workload_build(fsdpa_ctx *c, workload *w);
const char *wl_label_name(int label);  /* "FSDP1", ..., "single_gpu" */
const char *wl_mode_name(int mode);    /* "unknown", "train", "prefill", "decode", "mixed", "inference" */
#endif
