/* Device memory and the caching allocator, private to the room: the memory
 * timeline (allocator_engine_mem.c) and one evaluation of the analysis over
 * it and the malloc/free calls (allocator_engine.c).  The public queries, the
 * report section and the findings all fill the public structs through these
 * functions, so they cannot disagree.  Definitions: fsdpa.h, group allocator. */
#ifndef FSDPA_ANALYSIS_ALLOCATOR_IMPL_H
#define FSDPA_ANALYSIS_ALLOCATOR_IMPL_H
#include "ctx.h"
#include "model/runtime_calls.h"
#include "events/classify.h"

#define MIB (1024 * 1024)
/* PyTorch rejects max_split_size_mb <= 20 (kLargeBuffer = 20 MiB) */
#define MIN_SPLIT_MB 21
/* a cudaFree closer than this to the previous one of its thread continues a burst */
#define BURST_GAP_NS 1000000
#define BURST_MIN 3

/* ---- allocator_engine_mem.c: the device memory timeline ----
 * From [memory] / [OutOfMemory] events: per device, events in time order
 * with the allocated / reserved level after each, window levels (peak, min,
 * start, end, fragmentation), warm-up detection and downsampled series. */

typedef struct am_dev {
  int32_t type, id;
  const uint32_t *ev;     /* st.mem indices, time order (into am.idx) */
  const int64_t *la, *lr; /* level after each event: allocated, reserved (ABSENT if missing) */
  size_t n;
  int relative;           /* no Total Allocated: la is the running Σ Bytes */
  int has_reserved;       /* every event has Total Reserved */
} am_dev;

typedef struct am {
  am_dev *d;
  size_t nd;
  uint32_t *idx;
  int64_t *lv;            /* 2 * nidx levels */
  size_t nidx;
  int32_t primary;        /* index into d, -1 if no device */
} am;

typedef struct am_win {
  uint64_t events, oom;
  int64_t start_a, end_a, peak_a, min_a;
  int64_t peak_r, a_at_peak_r;
  double frag, mean_unalloc;  /* -1 if unknown */
} am_win;

fsdpa_status am_build(fsdpa_ctx *c, am *m);
void am_free(fsdpa_ctx *c, am *m);
/* Device index for a Device Id (ABSENT = primary); -1 if none. */
int32_t am_find(const am *m, int64_t device);
/* Levels of device d over [t0, t1) (relative ns). */
void am_window(const fsdpa_ctx *c, const am *m, int32_t d, int64_t t0, int64_t t1, am_win *w);
/* Warm-up steps (sorted steps), and how it was decided: 0 param, 1 reserved, 2 default. */
int64_t am_warmup(const fsdpa_ctx *c, const am *m, const step_rec *steps, size_t ns, int *how);
/* Reserved growth across [t0, t1) on device d: reserved after the first
 * event at or after t1 minus reserved after the last event at or before t0;
 * ABSENT if either is missing or the growth is not positive. */
int64_t am_reserved_growth(const fsdpa_ctx *c, const am *m, int32_t d, int64_t t0, int64_t t1);
/* Bytes of the first positive event at or after t on device d, or ABSENT. */
int64_t am_next_request(const fsdpa_ctx *c, const am *m, int32_t d, int64_t t);
/* Allocations (events with Bytes > 0, not OOM) of device d in [t0, t1). */
uint64_t am_allocs(const fsdpa_ctx *c, const am *m, int32_t d, int64_t t0, int64_t t1);
/* Most frequent allocation size of device d above MIN_SPLIT_MB MiB (the
 * largest of equally frequent ones) in *out, or ABSENT. */
fsdpa_status am_common_large_alloc(fsdpa_ctx *c, const am *m, int32_t d, int64_t *out);
/* Sorts v ascending. */
void am_sort_i64(int64_t *v, size_t n);

typedef struct am_point {
  int64_t t0, t1;       /* relative */
  uint64_t events;
  int64_t a_min, a_max, a_last, r_min, r_max, r_last;
} am_point;
/* Downsample device d over [t0,t1) ∩ its event range into at most `buckets`
 * points; returns the number written into out (capacity `buckets`). */
size_t am_series(const fsdpa_ctx *c, const am *m, int32_t d, int64_t t0, int64_t t1, size_t buckets,
                 am_point *out);

/* ---- allocator_engine.c: one evaluation of the allocator analysis ----
 * The memory timeline, the malloc/free calls (attributed like blocking
 * calls) and the warm-up. */

typedef struct ar {
  am m;
  sc_set s;        /* NC_MALLOC | NC_FREE | NC_VMM calls, sorted by start */
  int64_t warmup;  /* warm-up steps */
  int how;         /* 0 param, 1 reserved growth, 2 default */
  int borrowed;    /* a copy of the context's cached result: ar_close only forgets it */
  /* What the findings judge (the queries and the report section keep the
   * ProfilerStep steps above): the steps, else the inferred iterations, else
   * the whole trace as one window (model/iterations.h it_windows). */
  step_rec *jw;    /* the windows, sorted by start */
  size_t njw;
  int jsource;     /* ITS_* (ITS_NONE: the whole trace) */
  int64_t jwarmup; /* windows jw[0..jwarmup) are warm-up */
  int jhow;        /* how: as `how`, or 3 the first inferred iteration, 4 the whole trace */
  int32_t *jstep;  /* window of each call of s (s.n ints, at least one), -1 = none */
} ar;
/* A call judged as steady state by the findings (index into s.v). */
static inline int ar_jsteady(const ar *r, size_t i) { return r->jstep[i] >= 0 && r->jstep[i] >= r->jwarmup; }

/* Built once per context state (the report opens it several times) and lent
 * out; ar_close() returns it. */
fsdpa_status ar_open(fsdpa_ctx *c, ar *r);
void ar_close(fsdpa_ctx *c, ar *r);

/* Device memory: every allocator backend's allocation / release call
 * (cudaMalloc, cuMemCreate, cudaMallocAsync ...); pinned host memory is not
 * device memory and is counted apart. */
static inline int ar_malloc(const sc_call *k) { return (k->info & (NC_MALLOC | NC_PINNED)) == NC_MALLOC; }
static inline int ar_free(const sc_call *k) {
  return (k->info & (NC_FREE | NC_MALLOC | NC_PINNED)) == NC_FREE;
}
static inline int ar_pinned_alloc(const sc_call *k) { return (k->info & (NC_MALLOC | NC_PINNED)) == (NC_MALLOC | NC_PINNED); }
static inline int ar_pinned_free(const sc_call *k) {
  return (k->info & (NC_FREE | NC_MALLOC | NC_PINNED)) == (NC_FREE | NC_PINNED);
}
/* Expandable segments' mapping calls (no memory changes hands: cuMemMap,
 * cuMemSetAccess, cuMemAddressReserve; cuMemUnmap, cuMemAddressFree). */
static inline int ar_map(const sc_call *k) { return (k->info & (NC_VMM | NC_MALLOC | NC_FREE | NC_UNMAP)) == NC_VMM; }
static inline int ar_unmap(const sc_call *k) { return (k->info & (NC_VMM | NC_UNMAP)) == (NC_VMM | NC_UNMAP); }
/* A call of the device allocator's churn: device malloc/free and mapping. */
static inline int ar_device_call(const sc_call *k) { return ar_malloc(k) || ar_free(k) || ar_map(k) || ar_unmap(k); }
static inline int ar_steady(const ar *r, const sc_call *k) { return k->step >= 0 && k->step >= r->warmup; }

/* Does a step return to its baseline: end - start <= peak / 100 (1, 0, -1 unknown). */
static inline int ar_returns(const am_win *x) {
  if (x->start_a == FSDPA_ABSENT || x->end_a == FSDPA_ABSENT || x->peak_a == FSDPA_ABSENT) return -1;
  return x->end_a - x->start_a <= (x->peak_a > 0 ? x->peak_a / 100 : 0);
}

/* How the caching allocator obtains device memory, from the calls it makes:
 * native (cudaMalloc/hipMalloc), expandable segments (cuMem* virtual-memory
 * calls) or the cudaMallocAsync backend (stream-ordered pool calls). */
enum { AR_BACKEND_UNKNOWN, AR_BACKEND_NATIVE, AR_BACKEND_EXPANDABLE, AR_BACKEND_ASYNC };
typedef struct ar_classes {
  uint64_t native_malloc, native_free;          /* cudaMalloc/hipMalloc/cuMemAlloc, cudaFree/hipFree/cuMemFree */
  uint64_t vmm_create, vmm_map, vmm_unmap, vmm_release;
  uint64_t async_malloc, async_free;
  uint64_t vmm_steady, async_steady;            /* of those, in steady-state steps */
  int64_t vmm_ns, async_ns;                     /* their summed CPU time */
  uint64_t pinned_alloc, pinned_free, pinned_steady_alloc, pinned_steady_free;
  int64_t pinned_alloc_ns, pinned_free_ns;
  int64_t pinned_bytes;                         /* Σ runtime `bytes` of the pinned allocations, ABSENT */
  int backend;                                  /* AR_BACKEND_* */
} ar_classes;
/* Counts over the whole trace; the backend is the one with the most calls
 * (native: its mallocs and frees, expandable: every cuMem* virtual-memory
 * call, async: its pool calls), ties to the later of native, expandable,
 * async; unknown without any. */
void ar_classes_count(const ar *r, ar_classes *out);
const char *ar_backend_name(int b);

/* Summary over window w (device from w->device, else primary). */
fsdpa_status ar_summary(fsdpa_ctx *c, const ar *r, const qwin *w, fsdpa_memory_summary *out);
/* Row of sorted step i, levels of device index di. */
fsdpa_status ar_step(fsdpa_ctx *c, const ar *r, size_t i, int32_t di, fsdpa_memory_step *out);
/* Row of device index di over [t0, t1). */
void ar_device(const fsdpa_ctx *c, const ar *r, int32_t di, int64_t t0, int64_t t1, fsdpa_memory_device *out);

/* Shape of the primary device's allocated level over the steady steps. */
enum { AR_PATTERN_UNKNOWN, AR_PATTERN_SAWTOOTH, AR_PATTERN_GROWING, AR_PATTERN_IRREGULAR };
int ar_pattern(const fsdpa_ctx *c, const ar *r);

/* The malloc/free calls of one API name. */
typedef struct ar_api {
  uint32_t name;
  int is_malloc;   /* of its first call */
  const char *kind;/* "malloc", "free", "map", "unmap" */
  int pinned;      /* pinned host memory, not device memory */
  uint64_t calls;
  int64_t total_ns, max_ns;
  int64_t bytes;   /* Σ runtime `bytes`, ABSENT if no call has it */
} ar_api;
/* Row of the next API name, in the order of their first calls: start with
 * *pos = 0; returns 0 when there is none left. */
int ar_api_next(const ar *r, size_t *pos, ar_api *out);

/* empty_cache CPU ops inside the windows the findings judge steady. */
int64_t ar_steady_empty_cache_ops(const fsdpa_ctx *c, const ar *r);
/* Runs of >= BURST_MIN steady frees (ar_jsteady) on one thread, each within BURST_GAP_NS
 * of the previous call of the thread, no malloc in between: the signature of
 * torch.cuda.empty_cache() (or an OOM retry) releasing cached segments. */
fsdpa_status ar_free_bursts(fsdpa_ctx *c, const ar *r, int64_t *out);
#endif
