/* Name and category classification, done once per distinct name (the
 * result is cached per interned id).  Every analysis asks these functions;
 * no analysis matches event names on its own. */
#ifndef FSDPA_EVENTS_CLASSIFY_H
#define FSDPA_EVENTS_CLASSIFY_H
#include <stddef.h>
#include <stdint.h>

/* Record kinds (what the store keeps). */
enum rec_kind {
  RK_KERNEL = 1,   /* kernel / legacy Kernel */
  RK_MEMCPY,       /* gpu_memcpy / Memcpy */
  RK_MEMSET,       /* gpu_memset / Memset */
  RK_GPU_SYNC,     /* cuda_sync (GPU-side sync activity; not GPU activity) */
  RK_GPU_ANNOT,    /* gpu_user_annotation */
  RK_RUNTIME,      /* cuda_runtime / cuda_driver / Runtime (incl. hip*) */
  RK_CPU_OP,       /* cpu_op / Operator */
  RK_ANNOT,        /* user_annotation */
  RK_MEM,          /* [memory] / [OutOfMemory] instants (own table) */
  RK_META,         /* ph M */
  RK_OTHER         /* counted, dropped */
};

/* Map a category string (+ phase, name) to a record kind. */
int classify_cat(const char *cat, size_t cat_len, char ph, const char *name, size_t name_len);

/* Collective types. */
enum coll_type {
  COLL_NONE = 0,
  COLL_ALLGATHER,
  COLL_REDUCESCATTER,
  COLL_ALLREDUCE,
  COLL_BROADCAST,
  COLL_REDUCE,
  COLL_ALLTOALL,
  COLL_SENDRECV,
  COLL_SEND,
  COLL_RECV,
  COLL_BARRIER,
  COLL_GENERIC,     /* e.g. RCCL ncclDevKernel_Generic: collective, type unknown */
  COLL_OTHER,       /* a collective kernel whose type we could not read */
  COLL__COUNT
};
const char *coll_type_name(int t);  /* "AllGather", ... ("Other" for unknown) */
/* From args "Collective name" (`_allgather_base`, `reduce_scatter_tensor_coalesced`, ...). */
int coll_type_from_arg(const char *s, size_t len);
/* Element size of a dtype string ("BFloat16" -> 2), 0 if unknown. */
int dtype_size(const char *s, size_t len);

/* Per-name facts (bits). */
enum {
  NC_COMM = 1u << 0,         /* collective-library kernel (nccl/rccl/msccl family) */
  NC_LAUNCH = 1u << 1,       /* runtime call that enqueues GPU work (kernel launch, async memcpy/memset, graph launch) */
  NC_SYNC = 1u << 2,         /* runtime call that blocks the CPU on the GPU (stream/event/device sync) */
  NC_MALLOC = 1u << 3,       /* device allocation API (cudaMalloc, hipMalloc, cudaMallocAsync, cudaHostAlloc ...) */
  NC_FREE = 1u << 4,         /* device free API (cudaFree, hipFree, ...) */
  NC_SYNC_MEMCPY = 1u << 5,  /* synchronizing copy API (cudaMemcpy, hipMemcpy without Async) */
  NC_STEP = 1u << 6,         /* ProfilerStep#N */
  NC_FSDP2 = 1u << 7,        /* FSDP::... annotation */
  NC_FSDP1 = 1u << 8,        /* FullyShardedDataParallel.... annotation */
  NC_BACKWARD = 1u << 9,     /* autograd backward op (…Backward0, autograd::engine::evaluate_function) */
  NC_PARAM_COMMS = 1u << 10, /* record_param_comms */
  NC_NCCL_ANNOT = 1u << 11,  /* nccl:<op> user annotation */
  NC_GRAPH_LAUNCH = 1u << 12,/* cudaGraphLaunch / hipGraphLaunch */
  NC_EMPTY_CACHE = 1u << 13, /* torch.cuda.empty_cache / c10 emptyCache markers */
  NC_DEVICE_SYNC = 1u << 14, /* cudaDeviceSynchronize / hipDeviceSynchronize */
  NC_STREAM_WAIT = 1u << 15, /* cudaStreamWaitEvent / hipStreamWaitEvent: a stream waits for an event */
  NC_EVENT_RECORD = 1u << 16 /* cudaEventRecord / hipEventRecord: an event recorded on a stream */
};
/* Bits 24..31 carry the collective type for NC_COMM kernel names. */
#define NC_COLL_SHIFT 24
static inline int nc_coll(uint32_t info) { return (int)(info >> NC_COLL_SHIFT); }

uint32_t classify_name(const char *name, size_t len);

/* ProfilerStep#N -> N (or -1). */
int64_t step_number(const char *name, size_t len);
#endif
