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

static int is_comm_kernel(const char *s, size_t n) {
  return istarts(s, n, LIT("nccl")) || istarts(s, n, LIT("rccl")) || istarts(s, n, LIT("msccl")) ||
         find(s, n, LIT("ncclKernel")) != NULL || find(s, n, LIT("ncclDevKernel")) != NULL;
}

uint32_t classify_name(const char *s, size_t n) {
  uint32_t f = 0;
  if (!s) return 0;
  if (is_comm_kernel(s, n)) {
    f |= NC_COMM;
    f |= (uint32_t)coll_from_kernel_name(s, n) << NC_COLL_SHIFT;
  }
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
    if (eq(s, n, LIT("cudaMalloc")) || eq(s, n, LIT("hipMalloc")) ||
        eq(s, n, LIT("cudaMallocAsync")) || eq(s, n, LIT("hipMallocAsync")) ||
        eq(s, n, LIT("cudaHostAlloc")) || eq(s, n, LIT("hipHostMalloc")) ||
        eq(s, n, LIT("cudaMallocHost")) || eq(s, n, LIT("cudaMallocManaged")) ||
        eq(s, n, LIT("hipMallocManaged")) || eq(s, n, LIT("cuMemAlloc_v2")) ||
        eq(s, n, LIT("cuMemCreate")) || eq(s, n, LIT("hipExtMallocWithFlags")))
      f |= NC_MALLOC;
    if (eq(s, n, LIT("cudaFree")) || eq(s, n, LIT("hipFree")) || eq(s, n, LIT("cudaFreeAsync")) ||
        eq(s, n, LIT("hipFreeAsync")) || eq(s, n, LIT("cudaFreeHost")) ||
        eq(s, n, LIT("hipHostFree")) || eq(s, n, LIT("cuMemFree_v2")) ||
        eq(s, n, LIT("cuMemRelease")))
      f |= NC_FREE;
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
