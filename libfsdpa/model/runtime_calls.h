/* Runtime calls that block the CPU on the GPU or touch the device allocator
 * (stream/event/device synchronize, synchronous memcpy, cudaFree/hipFree,
 * cudaMalloc/hipMalloc ..., and any call longer than its API class's
 * threshold, tested for blocking by behaviour), each attributed once to
 *   - the ProfilerStep whose CPU range contains its start (any thread),
 *   - the GPU work it waited for (its cuda_sync event when the trace has one,
 *     its own copy for a synchronous cudaMemcpy, else inferred from the last
 *     launch of its thread),
 *   - the GPU idle during it and right after it.
 * the sync and allocator analyses both need "what did this call cost the GPU",
 * so the attribution lives here once.  Built on demand from the store; owns
 * nothing after sc_free(). */
#ifndef FSDPA_MODEL_RUNTIME_CALLS_H
#define FSDPA_MODEL_RUNTIME_CALLS_H
#include <string.h>
#include "ctx.h"
#include "events/classify.h"

/* How the waited-for GPU work was found (values match fsdpa_wait_source). */
enum { SC_SRC_NONE = 0, SC_SRC_CUDA_SYNC = 1, SC_SRC_OWN_OP = 2, SC_SRC_INFERRED = 3 };
/* What the call waits on: one stream, or every stream of a device. */
enum { SC_SCOPE_NONE = 0, SC_SCOPE_STREAM = 1, SC_SCOPE_DEVICE = 2 };

/* NC_* bits of the calls that block the calling CPU thread until GPU work
 * ends by what they are (their name): always blocking.  Of the frees only
 * those that synchronize (cudaFree, cuMemFree, cudaFreeHost, hip*): a
 * stream-ordered cudaFreeAsync and the virtual-memory cuMemRelease /
 * cuMemUnmap do not (PyTorch's expandable segments synchronize the stream
 * themselves before unmapping), so they are allocator calls judged by
 * behaviour (sc_class_of); their NC_FREE bit still selects them here. */
#define SC_NAMED_MASK (NC_SYNC | NC_DEVICE_SYNC | NC_SYNC_MEMCPY | NC_FREE)
/* Not an NC_* bit (runtime-call names never carry the collective bits):
 * in a mask it asks for the calls that blocked by behaviour too. */
#define SC_BEHAVIOUR (1u << 31)
/* The blocking calls: named ones and those that blocked by behaviour (except
 * allocation calls, whose time the allocator analysis accounts for). */
#define SC_BLOCKING_MASK (SC_NAMED_MASK | SC_BEHAVIOUR)
/* ... plus the allocation and virtual-memory calls the allocator analysis
 * needs, and every call that was tested for blocking by behaviour. */
#define SC_ALL_MASK (SC_BLOCKING_MASK | NC_MALLOC | NC_VMM)

/* API classes of runtime calls: the named ones always block; a call of the
 * others blocks by behaviour when it lasts longer than its class's
 * threshold (params sync.block_*_ns) and GPU work it waited for ended with
 * it (see sc_call.how). */
enum {
  SC_CLS_SYNC = 0,     /* stream / event / device synchronize (named) */
  SC_CLS_SYNC_COPY,    /* synchronous copy / memset (named) */
  SC_CLS_FREE,         /* device / pinned free that synchronizes (named) */
  SC_CLS_LAUNCH,       /* kernel / graph launch */
  SC_CLS_ASYNC_COPY,   /* async copy / memset enqueue */
  SC_CLS_ALLOC,        /* device / pinned allocation, stream-ordered free, virtual-memory call */
  SC_CLS_OTHER,        /* every other runtime call */
  SC_CLS__COUNT
};
static inline int sc_class_of(uint32_t info) {
  if (info & (NC_SYNC | NC_DEVICE_SYNC)) return SC_CLS_SYNC;
  if (info & NC_SYNC_MEMCPY) return SC_CLS_SYNC_COPY;
  if ((info & NC_FREE) && !(info & (NC_ASYNC_POOL | NC_VMM))) return SC_CLS_FREE;
  if (info & NC_ASYNC_COPY) return SC_CLS_ASYNC_COPY;
  if (info & NC_LAUNCH) return SC_CLS_LAUNCH;
  if (info & (NC_MALLOC | NC_FREE | NC_VMM)) return SC_CLS_ALLOC;
  return SC_CLS_OTHER;
}
static inline int sc_class_named(int cls) { return cls <= SC_CLS_FREE; }
const char *sc_class_name(int cls);
/* Threshold of a behaviour class (ns), -1 for a named class. */
int64_t sc_class_threshold(const fsdpa_ctx *c, int cls);
/* sc_call.how */
enum { SC_HOW_NONE = 0, SC_HOW_NAMED = 1, SC_HOW_BEHAVIOUR = 2 };

typedef struct sc_call {
  uint32_t rt;            /* index in st.rt */
  uint32_t name;          /* API name (intern id) */
  uint32_t track;         /* CPU thread */
  uint32_t info;          /* NC_* bits of the name */
  int64_t ts, end;        /* relative ns */
  int32_t step;           /* index into sc_set.steps (sorted by start), -1 = outside every step */
  uint8_t src, scope;     /* SC_SRC_*, SC_SCOPE_* */
  uint8_t cls, how;       /* SC_CLS_*, SC_HOW_* (NONE: tested for behaviour, did not block) */
  uint32_t sync_kind;     /* cuda_sync_kind of the linked cuda_sync event, or INTERN_NONE */
  uint32_t op;            /* st.gpu index of the waited-for op, UINT32_MAX = none found */
  int64_t device, stream; /* waited device / stream (stream ABSENT when device-wide); ABSENT = unknown */
  int32_t dev;            /* index into sc_set.devs whose busy time measures the idle; -1 = all devices */
  int32_t pad2;
  int64_t idle_during;    /* |[ts,end) \ busy| on that device */
  int64_t idle_after;     /* next GPU activity start − end if the device is idle at end, 0 if busy,
                             ABSENT if no GPU activity follows */
  int64_t bytes;          /* runtime `bytes` arg (hipMalloc ...), ABSENT */
  /* SC_HOW_BEHAVIOUR: the ops of the waited op's stream queued in front of
   * it and still unfinished at the call's start, and their busy time after it */
  uint32_t queue_n;
  int32_t pad3;
  int64_t queue_ns;
} sc_call;
/* Whether a call of the set is one of the blocking ones (SC_BLOCKING_MASK). */
static inline int sc_is_blocking(const sc_call *k) {
  return sc_class_named(k->cls) || (k->how == SC_HOW_BEHAVIOUR && k->cls != SC_CLS_ALLOC);
}

typedef struct sc_dev {
  int64_t device;
  iv *busy;               /* union of the device's GPU activity */
  size_t n, cap;
} sc_dev;

typedef struct sc_set {
  sc_call *v;
  size_t n;
  step_rec *steps;        /* sorted by start */
  size_t nsteps;
  sc_dev *devs;           /* sorted by device */
  size_t ndevs;
  const iv *all;          /* union over every device (owned by the views) */
  size_t nall;
  int borrowed;           /* a copy of the context's cached set: sc_free only forgets it */
  int shares;             /* steps and devs belong to the cached SC_ALL_MASK set: sc_free frees v only */
} sc_set;

/* Collect and attribute every runtime call whose NC bits intersect `mask`,
 * sorted by start.  On failure nothing is left allocated.  The calls of
 * SC_ALL_MASK are attributed once per context state (cached) and a mask
 * inside it selects from them; the SC_BLOCKING_MASK selection is cached too
 * and lent out (borrowed): the report asks for it several times. */
fsdpa_status sc_build(fsdpa_ctx *c, uint32_t mask, sc_set *out);
void sc_free(fsdpa_ctx *c, sc_set *s);
/* Index of the step containing relative time t (latest-starting one), or -1. */
int32_t sc_step_of(const step_rec *steps, size_t n, int64_t t);
/* GPU time lost to the selected calls (sel[i] != 0): |∪ [ts, resume) \ busy|
 * per device, summed, where resume = end + idle_after (end if ABSENT).
 * Overlapping calls are counted once. */
fsdpa_status sc_idle_cost(fsdpa_ctx *c, const sc_set *s, const uint8_t *sel, int64_t *out);
/* Keep the `cap` longest calls (indices into s->v), longest first. */
static inline void sc_top_insert(const sc_set *s, size_t *top, int *ntop, int cap, size_t i) {
  int64_t d = s->v[i].end - s->v[i].ts;
  int p;
  if (*ntop < cap) p = (*ntop)++;
  else if (d > s->v[top[cap - 1]].end - s->v[top[cap - 1]].ts) p = cap - 1;
  else return;
  top[p] = i;
  for (; p > 0 && d > s->v[top[p - 1]].end - s->v[top[p - 1]].ts; p--) {
    size_t t = top[p];
    top[p] = top[p - 1];
    top[p - 1] = t;
  }
}
/* The calls sel[] selects that are not in top[0..ntop) (sc_top_insert's),
 * longest first (ties by index, as sc_top_insert keeps them): the evidence
 * ranges past a finding's few, which annotate marks too.  *out (n entries,
 * NULL when none) is freed with fa_free(a, *out, n * sizeof **out). */
fsdpa_status sc_rest_longest(fa_alloc *a, const sc_set *s, const uint8_t *sel, const size_t *top, int ntop,
                             size_t **out, size_t *n);
static inline const iv *sc_busy(const sc_set *s, int32_t dev, size_t *n) {
  if (dev < 0) { *n = s->nall; return s->all; }
  *n = s->devs[dev].n;
  return s->devs[dev].busy;
}
#endif
