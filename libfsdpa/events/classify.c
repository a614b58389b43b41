#include "events/classify.h"
#include <string.h>
#include <strings.h>

#define LIT(s) s, (sizeof(s) - 1)

static int eq(const char *a, size_t la, const char *b, size_t lb) {
  return la == lb && memcmp(a, b, la) == 0;
}
static int starts(const char *a, size_t la, const char *p, size_t lp) {
  return la >= lp && memcmp(a, p, lp) == 0;
}
static int istarts(const char *a, size_t la, const char *p, size_t lp) {
  return la >= lp && strncasecmp(a, p, lp) == 0;
}
static const char *find(const char *a, size_t la, const char *p, size_t lp) {
  if (lp == 0 || la < lp) return NULL;
  for (size_t i = 0; i + lp <= la; i++)
    if (a[i] == p[0] && memcmp(a + i, p, lp) == 0) return a + i;
  return NULL;
}

static const struct { const char *p; size_t len; } XDEV_PREFIX[XDEV__COUNT] = {
    {LIT("mtia_")}, {LIT("xpu_")}, {LIT("hpu_")}, {LIT("privateuse1_")}, {LIT("mlu_")}, {LIT("npu_")}};

const char *xdev_type_name(int t) {
  static const char *const N[XDEV__COUNT] = {"mtia", "xpu", "hpu", "privateuse1", "mlu", "npu"};
  return t >= 0 && t < XDEV__COUNT ? N[t] : "other";
}

/* Kineto names other backends' activities <backend>_<what>: the host side
 * is <backend>_runtime / <backend>_driver (and HPU's hpu_op, its host-side
 * runtime event), the rest is device activity (mtia_ccp_events ...). */
int classify_xdev(const char *cat, size_t n, int *host) {
  *host = 0;
  if (!cat) return -1;
  for (int t = 0; t < XDEV__COUNT; t++) {
    if (!starts(cat, n, XDEV_PREFIX[t].p, XDEV_PREFIX[t].len)) continue;
    const char *rest = cat + XDEV_PREFIX[t].len;
    size_t rl = n - XDEV_PREFIX[t].len;
    *host = eq(rest, rl, LIT("runtime")) || eq(rest, rl, LIT("driver")) || (t == XDEV_HPU && eq(rest, rl, LIT("op")));
    return t;
  }
  return -1;
}

int classify_cat(const char *cat, size_t n, char ph, const char *name, size_t nlen) {
  if (ph == 'M') return RK_META;
  if (ph == 'i' || ph == 'I') {
    if (eq(name, nlen, LIT("[memory]")) || eq(name, nlen, LIT("[OutOfMemory]"))) return RK_MEM;
    return RK_OTHER;
  }
  if (ph != 'X') return RK_OTHER;
  if (!cat) return RK_OTHER;
  switch (n) {
    case 6:
      if (eq(cat, n, LIT("kernel")) || eq(cat, n, LIT("Kernel"))) return RK_KERNEL;
      if (eq(cat, n, LIT("cpu_op")) || eq(cat, n, LIT("Memcpy"))) return cat[0] == 'c' ? RK_CPU_OP : RK_MEMCPY;
      if (eq(cat, n, LIT("Memset"))) return RK_MEMSET;
      break;
    case 7:
      if (eq(cat, n, LIT("Runtime"))) return RK_RUNTIME;
      break;
    case 8:
      if (eq(cat, n, LIT("Operator"))) return RK_CPU_OP;
      break;
    case 9:
      if (eq(cat, n, LIT("cuda_sync"))) return RK_GPU_SYNC;
      break;
    case 10:
      if (eq(cat, n, LIT("gpu_memcpy"))) return RK_MEMCPY;
      if (eq(cat, n, LIT("gpu_memset"))) return RK_MEMSET;
      break;
    case 11:
      if (eq(cat, n, LIT("cuda_driver"))) return RK_RUNTIME;
      break;
    case 12:
      if (eq(cat, n, LIT("cuda_runtime"))) return RK_RUNTIME;
      break;
    case 15:
      if (eq(cat, n, LIT("user_annotation"))) return RK_ANNOT;
      break;
    case 19:
      if (eq(cat, n, LIT("gpu_user_annotation"))) return RK_GPU_ANNOT;
      break;
    default:
      break;
  }
  int host;
  if (classify_xdev(cat, n, &host) >= 0) return RK_XDEV;
  return RK_OTHER;
}

static const char *const COLL_NAMES[COLL__COUNT] = {
    "None",      "AllGather", "ReduceScatter", "AllReduce", "Broadcast", "Reduce", "AllToAll",
    "SendRecv",  "Send",      "Recv",          "Barrier",   "Generic",   "Other"};

const char *coll_type_name(int t) {
  return (t >= 0 && t < COLL__COUNT) ? COLL_NAMES[t] : "Other";
}

/* Kernel-name token after the family prefix: ncclKernel_AllGather_RING_LL...,
 * ncclDevKernel_ReduceScatter_Sum_f32..., ncclAllReduceRingLLKernel_sum_f32,
 * ncclSymkDevKernel_AllGather..., mscclKernel_..., rccl... */
static int coll_from_kernel_name(const char *s, size_t n) {
  static const struct { const char *tok; size_t len; int t; } TOK[] = {
      {LIT("AllGather"), COLL_ALLGATHER},     {LIT("ReduceScatter"), COLL_REDUCESCATTER},
      {LIT("AllReduce"), COLL_ALLREDUCE},     {LIT("Broadcast"), COLL_BROADCAST},
      {LIT("AllToAll"), COLL_ALLTOALL},       {LIT("SendRecv"), COLL_SENDRECV},
      {LIT("Sendrecv"), COLL_SENDRECV},       {LIT("Send"), COLL_SEND},
      {LIT("Recv"), COLL_RECV},               {LIT("Reduce"), COLL_REDUCE},
      {LIT("Generic"), COLL_GENERIC},         {LIT("Barrier"), COLL_BARRIER},
  };
  /* search only the function name, not the argument list */
  const char *paren = memchr(s, '(', n);
  size_t lim = paren ? (size_t)(paren - s) : n;
  for (size_t i = 0; i < sizeof TOK / sizeof TOK[0]; i++)
    if (find(s, lim, TOK[i].tok, TOK[i].len)) return TOK[i].t;
  return COLL_OTHER;
}

int coll_type_from_arg(const char *s, size_t n) {
  if (!s || !n) return COLL_NONE;
  /* normalise: drop leading '_' and compare case-insensitively on a prefix set */
  while (n && *s == '_') { s++; n--; }
  static const struct { const char *p; size_t len; int t; } P[] = {
      {LIT("allgather"), COLL_ALLGATHER},        {LIT("all_gather"), COLL_ALLGATHER},
      {LIT("reduce_scatter"), COLL_REDUCESCATTER}, {LIT("reducescatter"), COLL_REDUCESCATTER},
      {LIT("allreduce"), COLL_ALLREDUCE},        {LIT("all_reduce"), COLL_ALLREDUCE},
      {LIT("broadcast"), COLL_BROADCAST},        {LIT("alltoall"), COLL_ALLTOALL},
      {LIT("all_to_all"), COLL_ALLTOALL},        {LIT("sendrecv"), COLL_SENDRECV},
      {LIT("send"), COLL_SEND},                  {LIT("recv"), COLL_RECV},
      {LIT("barrier"), COLL_BARRIER},            {LIT("reduce"), COLL_REDUCE},
      {LIT("gather"), COLL_OTHER},               {LIT("scatter"), COLL_OTHER},
  };
  for (size_t i = 0; i < sizeof P / sizeof P[0]; i++)
    if (istarts(s, n, P[i].p, P[i].len)) return P[i].t;
  return COLL_OTHER;
}

int dtype_size(const char *s, size_t n) {
  static const struct { const char *p; size_t len; int sz; } D[] = {
      {LIT("BFloat16"), 2}, {LIT("Half"), 2},   {LIT("Float"), 4},  {LIT("Double"), 8},
      {LIT("Long"), 8},     {LIT("Int"), 4},    {LIT("Short"), 2},  {LIT("Char"), 1},
      {LIT("Byte"), 1},     {LIT("Bool"), 1},   {LIT("ComplexFloat"), 8},
      {LIT("ComplexDouble"), 16}, {LIT("Float8_e4m3fn"), 1}, {LIT("Float8_e5m2"), 1},
      {LIT("bf16"), 2}, {LIT("f16"), 2}, {LIT("f32"), 4}, {LIT("f64"), 8},
  };
  if (!s) return 0;
  for (size_t i = 0; i < sizeof D / sizeof D[0]; i++)
    if (eq(s, n, D[i].p, D[i].len)) return D[i].sz;
  return 0;
}

static const char *const FAMILY_NAMES[CF__COUNT] = {
    "",       "nccl",       "rccl",        "msccl",       "mscclpp",   "deep_ep",
    "custom_allreduce", "quickreduce", "trtllm_allreduce", "symm_mem", "nvshmem", "userbuffers"};

const char *comm_family_name(int f) { return f > 0 && f < CF__COUNT ? FAMILY_NAMES[f] : ""; }

/* The qualified function name of a demangled kernel name: without a leading
 * "void ", the template arguments and the parameter list, so that a
 * library's namespace is looked for where it names the kernel, not in a
 * type argument.  "(anonymous namespace)" is part of the name. */
static void fn_region(const char *s, size_t n, const char **o, size_t *on) {
  if (starts(s, n, LIT("void "))) { s += 5; n -= 5; }
  size_t i = 0;
  while (i < n) {
    if (s[i] == '(' && starts(s + i, n - i, LIT("(anonymous namespace)"))) { i += 21; continue; }
    if (s[i] == '(' || s[i] == '<') break;
    i++;
  }
  *o = s;
  *on = i;
}

/* NCCL and its forks: the names the collective typing below was made for. */
static int ccl_family(const char *s, size_t n) {
  if (istarts(s, n, LIT("mscclpp"))) return CF_NONE;
  if (istarts(s, n, LIT("nccl")) || find(s, n, LIT("ncclKernel")) || find(s, n, LIT("ncclDevKernel")))
    return CF_NCCL;
  if (istarts(s, n, LIT("rccl"))) return CF_RCCL;
  if (istarts(s, n, LIT("msccl"))) return CF_MSCCL;
  return CF_NONE;
}

/* DeepEP's kernels, under its own namespace or a fork's: deep_ep::, or any
 * top namespace with DeepEP's ep:: and its three transports (intranode,
 * internode, internode_ll), as DeepSeek's own build names them
 * (dpsk::ep::internode::dispatch, ...::combine, ...::notify_dispatch,
 * ...::cached_notify). */
static int ep_kernel(const char *f, size_t fn) {
  if (find(f, fn, LIT("deep_ep::"))) return 1;
  if (!find(f, fn, LIT("ep::"))) return 0;
  return find(f, fn, LIT("ep::intranode::")) || find(f, fn, LIT("ep::internode::")) ||
         find(f, fn, LIT("ep::internode_ll::"));
}

/* Communication libraries that are not NCCL, by the names their sources give
 * their kernels (DeepEP csrc/kernels, vLLM/sglang custom_all_reduce.cuh,
 * vLLM quickreduce, TensorRT-LLM customAllReduceKernels / allReduceFusion,
 * PyTorch symm_mem, NVSHMEM, MSCCL++, Transformer Engine userbuffers).  Names
 * that merely contain "dispatch" or "combine" (flash-attention's split-kv
 * combine, vLLM's _combined_routing_compute, DeepEP's own
 * get_dispatch_layout, which is local compute) are not communication. */
static int lib_family(const char *s, size_t n, int *coll) {
  const char *f;
  size_t fn;
  fn_region(s, n, &f, &fn);
  *coll = COLL_OTHER;
  if (find(f, fn, LIT("mscclpp::")) || starts(f, fn, LIT("mscclpp"))) return CF_MSCCLPP;
  if (ep_kernel(f, fn) && !find(f, fn, LIT("get_dispatch_layout")) && !find(f, fn, LIT("::layout::"))) {
    int house = find(f, fn, LIT("notify")) || find(f, fn, LIT("clean"));
    if (!house && (find(f, fn, LIT("dispatch")) || find(f, fn, LIT("combine")))) *coll = COLL_ALLTOALL;
    return CF_DEEP_EP;
  }
  if (find(f, fn, LIT("cross_device_reduce_1stage")) || find(f, fn, LIT("cross_device_reduce_2stage"))) {
    *coll = COLL_ALLREDUCE;
    return CF_CUSTOM_AR;
  }
  /* aiter builds the same kernels outside the quickreduce namespace */
  if (find(f, fn, LIT("allreduce_prototype_"))) {
    *coll = COLL_ALLREDUCE;
    return CF_QUICKREDUCE;
  }
  if (find(f, fn, LIT("oneShotAllReduceKernel")) || find(f, fn, LIT("twoShotAllReduceKernel")) ||
      find(f, fn, LIT("allReduceFusionKernel")) || find(f, fn, LIT("allreduce_fusion_kernel")) ||
      (find(f, fn, LIT("tensorrt_llm::")) && find(f, fn, LIT("lamport"))) || starts(f, fn, LIT("lamport"))) {
    *coll = COLL_ALLREDUCE;
    return CF_TRTLLM_AR;
  }
  if (find(f, fn, LIT("c10d::nvshmem_extension::")) || istarts(f, fn, LIT("nvshmem"))) return CF_NVSHMEM;
  if (find(f, fn, LIT("(anonymous namespace)::multimem_")) || starts(f, fn, LIT("multimem_")) ||
      find(f, fn, LIT("one_shot_all_reduce_kernel")) || find(f, fn, LIT("two_shot_all_reduce_kernel")) ||
      find(f, fn, LIT("c10d::symmetric_memory::"))) {
    if (find(f, fn, LIT("all_gather"))) *coll = COLL_ALLGATHER;
    else if (find(f, fn, LIT("reduce_scatter"))) *coll = COLL_REDUCESCATTER;
    else if (find(f, fn, LIT("all_reduce")) || find(f, fn, LIT("one_shot")) || find(f, fn, LIT("two_shot")))
      *coll = COLL_ALLREDUCE;
    return CF_SYMM_MEM;
  }
  if (find(f, fn, LIT("userbuffers_"))) return CF_USERBUFFERS;
  return CF_NONE;
}

static int is_gemm_kernel(const char *s, size_t n) {
  static const struct { const char *p; size_t len; } G[] = {
      {LIT("gemm")}, {LIT("cutlass")}, {LIT("xmma")}, {LIT("nvjet")}, {LIT("cublas")}, {LIT("Kernel2")},
  };
  for (size_t g = 0; g < sizeof G / sizeof G[0]; g++)
    for (size_t i = 0; i + G[g].len <= n; i++)
      if (strncasecmp(s + i, G[g].p, G[g].len) == 0) return 1;
  return 0;
}

/* CPU ops and annotations that only launch communication: a kernel they
 * launch is communication whatever its name (GEMMs excepted: fused
 * comm+matmul ops).  Generic user annotations count only when the whole
 * name (spaces and '#' trimmed) is a communication word: torchrec's
 * "## alltoall_fwd_single ##" covers compute. */
static int is_comm_op(const char *s, size_t n) {
  static const struct { const char *p; size_t len; } P[] = {
      {LIT("nccl:")},          {LIT("rccl:")},           {LIT("c10d::")},
      {LIT("_c10d_functional::")}, {LIT("c10d_functional::")}, {LIT("symm_mem::")},
      {LIT("_C_custom_ar::")}, {LIT("vllm::all_reduce")}, {LIT("sgl_kernel::all_reduce")},
      {LIT("trtllm::allreduce")},
  };
  if (eq(s, n, LIT("record_param_comms"))) return 1;
  for (size_t i = 0; i < sizeof P / sizeof P[0]; i++)
    if (starts(s, n, P[i].p, P[i].len)) return 1;
  static const struct { const char *p; size_t len; } W[] = {
      {LIT("dispatch")},     {LIT("combine")},       {LIT("all_reduce")},  {LIT("allreduce")},
      {LIT("all_gather")},   {LIT("allgather")},     {LIT("reduce_scatter")}, {LIT("all_to_all")},
      {LIT("alltoall")},     {LIT("moe_dispatch")},  {LIT("moe_combine")}, {LIT("ep_dispatch")},
      {LIT("ep_combine")},
  };
  while (n && (*s == ' ' || *s == '#')) { s++; n--; }
  while (n && (s[n - 1] == ' ' || s[n - 1] == '#')) n--;
  for (size_t i = 0; i < sizeof W / sizeof W[0]; i++)
    if (n == W[i].len && strncasecmp(s, W[i].p, n) == 0) return 1;
  return 0;
}

/* Allocator calls by how the memory is obtained.  CUPTI may name the
 * per-thread-default-stream variants with a _ptsz suffix: same call. */
static uint32_t alloc_class(const char *s, size_t n) {
  if (n > 5 && memcmp(s + n - 5, "_ptsz", 5) == 0) n -= 5;
  if (eq(s, n, LIT("cudaMalloc")) || eq(s, n, LIT("hipMalloc")) || eq(s, n, LIT("cudaMallocManaged")) ||
      eq(s, n, LIT("hipMallocManaged")) || eq(s, n, LIT("cuMemAlloc_v2")) || eq(s, n, LIT("cuMemAlloc")) ||
      eq(s, n, LIT("hipExtMallocWithFlags")) || eq(s, n, LIT("cudaMallocPitch")) ||
      eq(s, n, LIT("hipMallocPitch")))
    return NC_MALLOC;
  if (eq(s, n, LIT("cudaFree")) || eq(s, n, LIT("hipFree")) || eq(s, n, LIT("cuMemFree_v2")) ||
      eq(s, n, LIT("cuMemFree")))
    return NC_FREE;
  if (eq(s, n, LIT("cudaHostAlloc")) || eq(s, n, LIT("cudaMallocHost")) || eq(s, n, LIT("hipHostMalloc")) ||
      eq(s, n, LIT("hipHostAlloc")) || eq(s, n, LIT("hipMallocHost")) || eq(s, n, LIT("cuMemHostAlloc")) ||
      eq(s, n, LIT("cuMemAllocHost_v2")) || eq(s, n, LIT("cuMemAllocHost")))
    return NC_MALLOC | NC_PINNED;
  if (eq(s, n, LIT("cudaFreeHost")) || eq(s, n, LIT("hipHostFree")) || eq(s, n, LIT("hipFreeHost")) ||
      eq(s, n, LIT("cuMemFreeHost")))
    return NC_FREE | NC_PINNED;
  if (eq(s, n, LIT("cudaMallocAsync")) || eq(s, n, LIT("hipMallocAsync")) ||
      eq(s, n, LIT("cudaMallocFromPoolAsync")) || eq(s, n, LIT("hipMallocFromPoolAsync")) ||
      eq(s, n, LIT("cuMemAllocAsync")) || eq(s, n, LIT("cuMemAllocFromPoolAsync")))
    return NC_MALLOC | NC_ASYNC_POOL;
  if (eq(s, n, LIT("cudaFreeAsync")) || eq(s, n, LIT("hipFreeAsync")) || eq(s, n, LIT("cuMemFreeAsync")))
    return NC_FREE | NC_ASYNC_POOL;
  /* expandable segments: physical chunks are created and mapped into a
   * reserved range as the segment grows, unmapped and released as it shrinks */
  if (eq(s, n, LIT("cuMemCreate")) || eq(s, n, LIT("hipMemCreate"))) return NC_MALLOC | NC_VMM;
  if (eq(s, n, LIT("cuMemRelease")) || eq(s, n, LIT("hipMemRelease"))) return NC_FREE | NC_VMM;
  if (eq(s, n, LIT("cuMemMap")) || eq(s, n, LIT("hipMemMap")) || eq(s, n, LIT("cuMemSetAccess")) ||
      eq(s, n, LIT("hipMemSetAccess")) || eq(s, n, LIT("cuMemAddressReserve")) ||
      eq(s, n, LIT("hipMemAddressReserve")))
    return NC_VMM;
  if (eq(s, n, LIT("cuMemUnmap")) || eq(s, n, LIT("hipMemUnmap")) || eq(s, n, LIT("cuMemAddressFree")) ||
      eq(s, n, LIT("hipMemAddressFree")))
    return NC_VMM | NC_UNMAP;
  return 0;
}

int classify_comm_family(const char *s, size_t n) {
  int coll;
  if (!s) return CF_NONE;
  int fam = ccl_family(s, n);
  return fam ? fam : lib_family(s, n, &coll);
}

uint32_t classify_name(const char *s, size_t n) {
  uint32_t f = 0;
  if (!s) return 0;
  int coll = COLL_OTHER, fam = ccl_family(s, n);
  if (fam) coll = coll_from_kernel_name(s, n);
  else fam = lib_family(s, n, &coll);
  if (fam) f |= NC_COMM | (uint32_t)coll << NC_COLL_SHIFT;
  else if (is_gemm_kernel(s, n)) f |= NC_GEMM;
  if (is_comm_op(s, n)) f |= NC_COMM_OP;
  /* runtime / driver API names (CUDA and HIP) */
  if ((s[0] == 'c' || s[0] == 'h') && n > 3) {
    if (find(s, n, LIT("LaunchKernel")) || eq(s, n, LIT("cuLaunchKernel")) ||
        eq(s, n, LIT("cuLaunchKernelEx")) || starts(s, n, LIT("cudaLaunchCooperativeKernel")) ||
        eq(s, n, LIT("hipModuleLaunchKernel")) || eq(s, n, LIT("hipExtModuleLaunchKernel")) ||
        eq(s, n, LIT("cudaMemcpyAsync")) || eq(s, n, LIT("cudaMemsetAsync")) ||
        eq(s, n, LIT("hipMemcpyAsync")) || eq(s, n, LIT("hipMemsetAsync")) ||
        eq(s, n, LIT("hipMemcpyWithStream")) || eq(s, n, LIT("cudaMemcpy2DAsync")) ||
        eq(s, n, LIT("cuMemcpyAsync")) || eq(s, n, LIT("cuMemsetD8Async")) ||
        eq(s, n, LIT("cuMemsetD32Async")))
      f |= NC_LAUNCH;
    if (eq(s, n, LIT("cudaMemcpyAsync")) || eq(s, n, LIT("cudaMemsetAsync")) ||
        eq(s, n, LIT("hipMemcpyAsync")) || eq(s, n, LIT("hipMemsetAsync")) ||
        eq(s, n, LIT("hipMemcpyWithStream")) || eq(s, n, LIT("cudaMemcpy2DAsync")) ||
        eq(s, n, LIT("cuMemcpyAsync")) || eq(s, n, LIT("cuMemsetD8Async")) ||
        eq(s, n, LIT("cuMemsetD32Async")))
      f |= NC_ASYNC_COPY;
    if (eq(s, n, LIT("cudaGraphLaunch")) || eq(s, n, LIT("hipGraphLaunch")) ||
        eq(s, n, LIT("cuGraphLaunch")))
      f |= NC_LAUNCH | NC_GRAPH_LAUNCH;
    if (eq(s, n, LIT("cudaStreamSynchronize")) || eq(s, n, LIT("cudaEventSynchronize")) ||
        eq(s, n, LIT("cudaDeviceSynchronize")) || eq(s, n, LIT("hipStreamSynchronize")) ||
        eq(s, n, LIT("hipEventSynchronize")) || eq(s, n, LIT("hipDeviceSynchronize")) ||
        eq(s, n, LIT("cuStreamSynchronize")) || eq(s, n, LIT("cuEventSynchronize")) ||
        eq(s, n, LIT("cuCtxSynchronize")))
      f |= NC_SYNC;
    if (eq(s, n, LIT("cudaDeviceSynchronize")) || eq(s, n, LIT("hipDeviceSynchronize")) ||
        eq(s, n, LIT("cuCtxSynchronize")))
      f |= NC_DEVICE_SYNC;
    f |= alloc_class(s, n);
    if (eq(s, n, LIT("cudaStreamWaitEvent")) || eq(s, n, LIT("hipStreamWaitEvent")) ||
        eq(s, n, LIT("cuStreamWaitEvent")))
      f |= NC_STREAM_WAIT;
    if (eq(s, n, LIT("cudaEventRecord")) || eq(s, n, LIT("hipEventRecord")) ||
        eq(s, n, LIT("cuEventRecord")) || eq(s, n, LIT("cudaEventRecordWithFlags")) ||
        eq(s, n, LIT("hipEventRecordWithFlags")))
      f |= NC_EVENT_RECORD;
    if (eq(s, n, LIT("cudaMemcpy")) || eq(s, n, LIT("hipMemcpy")) ||
        eq(s, n, LIT("cudaMemcpy2D")) || eq(s, n, LIT("cudaMemset")) || eq(s, n, LIT("hipMemset")))
      f |= NC_SYNC_MEMCPY;
  }
  if (starts(s, n, LIT("ProfilerStep#"))) f |= NC_STEP;
  if (starts(s, n, LIT("FSDP::"))) f |= NC_FSDP2;
  if (starts(s, n, LIT("FullyShardedDataParallel."))) f |= NC_FSDP1;
  if (starts(s, n, LIT("autograd::engine::evaluate_function:")) ||
      (n > 9 && find(s, n, LIT("Backward")) && !starts(s, n, LIT("FSDP::")) &&
       !(f & NC_FSDP1)))
    f |= NC_BACKWARD;
  if (eq(s, n, LIT("record_param_comms"))) f |= NC_PARAM_COMMS;
  if (starts(s, n, LIT("nccl:"))) f |= NC_NCCL_ANNOT;
  if (find(s, n, LIT("empty_cache")) || find(s, n, LIT("emptyCache"))) f |= NC_EMPTY_CACHE;
  return f;
}

int classify_graph_capture(const char *s, size_t n) {
  static const struct { const char *p; size_t len; } P[] = {
      {LIT("cudaStreamBeginCapture")}, {LIT("cuStreamBeginCapture")}, {LIT("hipStreamBeginCapture")},
      {LIT("cudaGraphInstantiate")},   {LIT("cuGraphInstantiate")},   {LIT("hipGraphInstantiate")},
  };
  for (size_t i = 0; i < sizeof P / sizeof P[0]; i++)
    if (starts(s, n, P[i].p, P[i].len)) return 1;
  return 0;
}

int64_t step_number(const char *s, size_t n) {
  if (!starts(s, n, LIT("ProfilerStep#"))) return -1;
  int64_t v = 0;
  size_t i = 13;
  if (i >= n) return -1;
  for (; i < n && s[i] >= '0' && s[i] <= '9'; i++) {
    if (v > (INT64_MAX - 9) / 10) return -1;
    v = v * 10 + (s[i] - '0');
  }
  return v;
}
