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
  RK_OTHER,        /* counted, dropped */
  RK_XDEV          /* a device backend not analyzed (MTIA, XPU, HPU ...): counted apart */
};

/* Device backends whose events are recognised but not analyzed. */
enum { XDEV_MTIA, XDEV_XPU, XDEV_HPU, XDEV_PRIVATEUSE1, XDEV_MLU, XDEV_NPU, XDEV__COUNT };
/* Backend of a category ("mtia_ccp_events", "xpu_runtime" ...), -1 if none;
 * *host = 1 for the host-side runtime/driver calls, 0 for device activity. */
int classify_xdev(const char *cat, size_t cat_len, int *host);
const char *xdev_type_name(int t);  /* "mtia", "xpu", ... */

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
  NC_COMM = 1u << 0,         /* communication kernel by name family (classify_comm_family()) */
  NC_LAUNCH = 1u << 1,       /* runtime call that enqueues GPU work (kernel launch, async memcpy/memset, graph launch) */
  NC_SYNC = 1u << 2,         /* runtime call that blocks the CPU on the GPU (stream/event/device sync) */
  NC_MALLOC = 1u << 3,       /* allocation API (cudaMalloc, hipMalloc, cudaMallocAsync, cuMemCreate; with NC_PINNED cudaHostAlloc ...) */
  NC_FREE = 1u << 4,         /* free API (cudaFree, hipFree, cudaFreeAsync, cuMemRelease; with NC_PINNED cudaFreeHost ...) */
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
  NC_ASYNC_COPY = 1u << 15,  /* NC_LAUNCH that enqueues a copy / memset (cudaMemcpyAsync, hipMemcpyWithStream ...) */
  NC_GEMM = 1u << 16,        /* GEMM kernel: compute even when launched inside a communication op */
  NC_COMM_OP = 1u << 17,     /* CPU op / annotation whose kernels are communication (provenance) */
  NC_STREAM_WAIT = 1u << 18, /* cudaStreamWaitEvent / hipStreamWaitEvent: a stream waits for an event */
  NC_EVENT_RECORD = 1u << 19,/* cudaEventRecord / hipEventRecord: an event recorded on a stream */
  /* How the allocator gets its memory: these ride on NC_MALLOC / NC_FREE
   * (or stand alone for the VMM calls that only map), so every user of the
   * two bits keeps seeing the same calls and the allocator analysis can
   * tell device memory, pinned host memory and the backend apart. */
  NC_PINNED = 1u << 20,      /* pinned host memory: cudaHostAlloc/cudaMallocHost/hipHostMalloc, cudaFreeHost/hipHostFree */
  NC_VMM = 1u << 21,         /* driver virtual-memory call (expandable_segments): cuMemCreate/Map/SetAccess/Unmap/Release ... */
  NC_UNMAP = 1u << 22,       /* an NC_VMM call that gives address space back without freeing memory (cuMemUnmap, cuMemAddressFree) */
  NC_ASYNC_POOL = 1u << 23   /* stream-ordered pool allocator (cudaMallocAsync backend): cudaMallocAsync/cudaFreeAsync ... */
};
/* The name family of an NC_COMM kernel: kept per name beside the bits
 * (store_name_family), which have no room for it. */
enum comm_family {
  CF_NONE = 0,
  CF_NCCL,         /* ncclDevKernel_*, ncclKernel_*, ncclSymkDevKernel_*, nccl... */
  CF_RCCL,         /* rccl... */
  CF_MSCCL,        /* mscclKernel_*, msccl... */
  CF_MSCCLPP,      /* mscclpp::... */
  CF_DEEP_EP,      /* DeepEP (deep_ep::, a fork's <ns>::ep::{intranode,internode,internode_ll}::) dispatch / combine / notify / clean (not get_dispatch_layout) */
  CF_CUSTOM_AR,    /* vLLM / sglang cross_device_reduce_{1,2}stage */
  CF_QUICKREDUCE,  /* allreduce_prototype_* (vLLM quickreduce, aiter; ROCm) */
  CF_TRTLLM_AR,    /* TensorRT-LLM one/twoShotAllReduceKernel, allReduceFusionKernel*, lamport* */
  CF_SYMM_MEM,     /* torch symmetric memory: multimem_*, one/two_shot_all_reduce_kernel, ... */
  CF_NVSHMEM,      /* nvshmem*, c10d::nvshmem_extension::... */
  CF_USERBUFFERS,  /* Transformer Engine userbuffers */
  CF__COUNT
};
/* The family of a kernel name (CF_NONE when it is not communication by name). */
int classify_comm_family(const char *name, size_t len);
/* "nccl", "deep_ep", ... ("" for CF_NONE). */
const char *comm_family_name(int f);
/* Families whose kernels are collectives the cross-rank analysis can match
 * (NCCL and its forks: they carry or inherit the c10d collective args). */
static inline int comm_family_is_ccl(int f) { return f == CF_NCCL || f == CF_RCCL || f == CF_MSCCL; }
/* Bits 24..31 carry the collective type for NC_COMM kernel names. */
#define NC_COLL_SHIFT 24
static inline int nc_coll(uint32_t info) { return (int)(info >> NC_COLL_SHIFT); }

uint32_t classify_name(const char *name, size_t len);

/* ProfilerStep#N -> N (or -1). */
int64_t step_number(const char *name, size_t len);

/* A runtime call that captures or instantiates a CUDA / HIP graph
 * (cudaStreamBeginCapture, cudaGraphInstantiate, their driver and HIP
 * forms): the step that makes it records the graph instead of running it. */
int classify_graph_capture(const char *name, size_t len);
#endif
