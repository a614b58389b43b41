/* Names that tell what kind of job a trace is (its parallelism and whether
 * it trains or serves): matched here, once per distinct name, like every
 * other name the library reads. */
#ifndef FSDPA_EVENTS_CLASSIFY_WORKLOAD_H
#define FSDPA_EVENTS_CLASSIFY_WORKLOAD_H
#include <stddef.h>
#include <stdint.h>

enum {
  WH_DDP = 1u << 0,        /* DistributedDataParallel.* annotation, torch.distributed.ddp.reducer:: op */
  WH_OPTIM = 1u << 1,      /* Optimizer.step# / Optimizer.zero_grad# annotation */
  WH_BWD_MARK = 1u << 2,   /* "## backward ##" profiler marker */
  WH_FWD_MARK = 1u << 3,   /* a user annotation that names a forward pass ("## forward ##", "[...|forward]", "nn.Module: X") */
  WH_EMBEDDING = 1u << 4,  /* sharded-embedding evidence: TBE kernels (split_embedding_*), KJT / pooled-embedding / sparse_data_dist / *_emb annotations */
  WH_ALLTOALL = 1u << 5,   /* an all-to-all communication op (nccl:all_to_all, c10d::alltoall*, _c10d_functional::all_to_all*) */
  WH_ALLREDUCE = 1u << 6,  /* an all-reduce communication op (nccl:all_reduce, c10d::allreduce_, _c10d_functional::all_reduce, custom all-reduce ops) */
  WH_P2P = 1u << 7,        /* point-to-point op (nccl:send/recv, c10d::send/recv_) or a pipeline-schedule annotation */
  WH_MOE = 1u << 8,        /* mixture-of-experts names (moe, expert, deep_ep) */
  WH_DEEP_EP = 1u << 9,    /* an expert-parallel dispatch/combine library (deep_ep::) */
  WH_FUNC_COLL = 1u << 10, /* functional collective (_c10d_functional::*, c10d_functional::*): DTensor / tensor parallel */
  WH_BWD_KERNEL = 1u << 11,/* a GPU kernel that computes gradients (…backward…, _bwd, wgrad, dgrad, _wrw) */
  WH_COMM_OP = 1u << 12,   /* any CPU-side communication op or annotation (nccl:*, gloo:*, c10d::*, record_param_comms, ...) */
  WH_AG_RS = 1u << 13,     /* an all-gather or reduce-scatter op */
  WH_RS = 1u << 14,        /* of those, a reduce-scatter */
  WH_SEQ_PAR = 1u << 15,   /* Megatron's sequence-parallel mappings: *_sequence_parallel_region functions, *SequenceParallelRegion autograd Functions */
  WH_DECODER_LM = 1u << 16 /* a decoder language model's parts: a causal-LM / generation module, rotary embeddings, a KV cache, paged or KV-cache attention */
};

/* Hint bits of an event name (cpu op, annotation or kernel). */
uint32_t classify_workload(const char *name, size_t len);

/* A Python frame event (category python_function): PY_* bits, 0 for a
 * frame that tells nothing. */
enum {
  PY_FORWARD = 1,     /* a module's forward ("...py(N): forward", "nn.Module: X") */
  PY_BACKWARD = 2,    /* a backward call ("...py(N): backward") */
  PY_SEQ_PAR = 4,     /* one of Megatron's sequence-parallel mappings (WH_SEQ_PAR) */
  PY_DECODER_LM = 8   /* a decoder language model's part (WH_DECODER_LM) */
};
int classify_pyframe(const char *cat, size_t cat_len, const char *name, size_t len);

/* An inference engine's step annotation, as vLLM writes it:
 * "execute_<tokens>_context_<n>(...)_generation_<m>(...)".  Returns 1 and
 * the request counts, or 0. */
int classify_engine_step(const char *name, size_t len, int64_t *context, int64_t *generation);
/* A serving phase an annotation names: PH_PREFILL for the word "prefill"
 * (any case) or "EXTEND", PH_DECODE for "DECODE" or a "decode" that is not
 * the end of a snake_case name ("## decode ##", "step[DECODE bs=32]",
 * "capture_32_DECODE"; not "video_decode", "jpeg_decode", "decoder").  A
 * word is a run of letters; ForwardMode names are upper case. */
enum { PH_PREFILL = 1, PH_DECODE = 2 };
int classify_phase(const char *name, size_t len);
/* Annotations that delimit iterations when a trace has no ProfilerStep. */
enum {
  IT_NONE = 0,
  IT_OPTIMIZER,   /* Optimizer.step#<name>.step: one per training iteration */
  IT_BENCHMARK,   /* a benchmark harness's per-run range, e.g. "[param|<model>|...|warmup|forward]" */
  IT_DATALOADER,  /* enumerate(DataLoader)#<iter>.__next__: one batch fetched per iteration */
  IT_ENGINE       /* an inference engine's step (classify_engine_step) */
};
int classify_iteration_mark(const char *name, size_t len);
#endif
