/* The context: one trace (one rank), its allocator, input pipeline, event
 * store and analysis parameters. */
#ifndef FSDPA_CTX_H
#define FSDPA_CTX_H
#include "fsdpa/fsdpa.h"
#include "util/alloc.h"
#include "events/store.h"

enum {
#define PARAM(id, name, def, desc) P_##id,
#include "params.def"
#undef PARAM
  P__COUNT
};
/* Values a parameter may take: 0 .. 2^61 (times in ns up to the store's time
 * bound, counts), a share (a name ending in _ppm) 0 .. 10^6 (100 %),
 * allocator.warmup_steps also -1 (auto).  Arithmetic on parameters relies
 * on it; fsdpa_param_set() and the summary reader refuse anything else. */
#define PARAM_MAX ((int64_t)1 << 61)
#define PARAM_SHARE_MAX ((int64_t)1000000)
static inline int64_t param_min(int p) { return p == P_WARMUP_STEPS ? -1 : 0; }
int64_t param_max(int p);
static inline int param_ok(int p, int64_t v) { return v >= param_min(p) && v <= param_max(p); }
/* The string-valued parameter (not in params.def): comma-separated globs
 * (fnmatch) over whole kernel names that make a kernel communication
 * (events/comm_class.h, rule "user").  fsdpa_param_get() gives their count. */
#define PARAM_COMM_PATTERNS "comm.kernel_patterns"
/* The default of parameter p (params.def). */
int64_t param_default(int p);

struct fsdpa_input;

/* Whole-trace analysis results kept between queries (ctx_cache_get). */
enum { CACHE_FSDP_MODEL = 0, CACHE_BACKWARD, CACHE_SYNC_ALL, CACHE_SYNC_BLOCKING, CACHE_DEPGRAPH, CACHE_ALLOC, CACHE_LAUNCH_GAPS,
       CACHE_DL_CALLS, CACHE_DL_IDLE, CACHE_DATALOADER, CACHE_OP_ATTR, CACHE_OP_TABLE, CACHE_RANK_REPORT,
       CACHE__COUNT };
typedef void (*ctx_cache_free_fn)(fsdpa_ctx *c, void *obj);

struct fsdpa_ctx {
  fa_alloc alloc;
  char *name;                 /* input name for messages */
  size_t name_cap;
  struct fsdpa_input *input;  /* created on first feed */
  uint64_t max_input_bytes;
  int finished;               /* fsdpa_finish() called */
  int failed;                 /* an input error happened: refuse more bytes */
  store st;
  int64_t rank_opt;           /* from options */
  fsdpa_trace_info info;
  int64_t declared_rank;      /* distributedInfo.rank as the JSON file gives it, ABSENT if none (not what a caller sets) */
  int64_t params[P__COUNT];
  char err[512];
  int64_t err_offset;
  /* The report asks every analysis twice (findings, then JSON) and several
   * analyses share the FSDP model, so whole-trace results are memoized.  A
   * slot is valid while nothing it depends on changed: the store generation
   * (retained events), the count of fed events (metadata such as thread
   * names is not counted in gen) and the parameters. */
  void *cache[CACHE__COUNT];
  uint64_t cache_gen[CACHE__COUNT], cache_events[CACHE__COUNT];
  int64_t cache_params[CACHE__COUNT][P__COUNT];
  ctx_cache_free_fn cache_free[CACHE__COUNT];
};

/* Absolute ns on the trace clock for a stored (relative) time. */
static inline int64_t ctx_abs(const fsdpa_ctx *c, int64_t rel) {
  int64_t b = c->info.base_time_ns == FSDPA_ABSENT ? 0 : c->info.base_time_ns, r;
  /* saturate as the store does for end times: absurd input is never UB
   * (INT64_MIN is FSDPA_ABSENT, so the floor is one above) */
  if (__builtin_add_overflow(rel, b, &r)) r = b > 0 ? INT64_MAX : INT64_MIN + 1;
  return r;
}
static inline int64_t ctx_base(const fsdpa_ctx *c) {
  return c->info.base_time_ns == FSDPA_ABSENT ? 0 : c->info.base_time_ns;
}

/* printf-style message into ctx->err; returns st for tail calls. */
fsdpa_status ctx_fail(fsdpa_ctx *c, fsdpa_status st, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Clear the message and error offset at the start of a public call. */
static inline void ctx_clear(fsdpa_ctx *c) {
  c->err[0] = 0;
  c->err_offset = FSDPA_ABSENT;
}
/* Calls over several contexts (their error channel is an fsdpa_error):
 * check the array and the error struct, clear err and every context's
 * message.  EINVAL (with err filled) on a NULL array, n == 0 or a NULL
 * context. */
fsdpa_status ctx_check_many(fsdpa_ctx *const *ctxs, size_t n, fsdpa_error *err, const char *fn);
/* A failure inside such a call: what context i's message says (else the
 * status' name) goes to err; returns st. */
fsdpa_status ctx_err_out(fsdpa_error *err, fsdpa_status st, fsdpa_ctx *c, int64_t i);
/* Trace metadata from the input or the caller (ABSENT fields keep theirs). */
fsdpa_status ctx_set_trace_info(fsdpa_ctx *c, const fsdpa_trace_info *i);
/* Resolve a query to a relative window [t0,t1) and selection; EINVAL on a bad step. */
typedef struct qwin {
  int64_t t0, t1;      /* relative ns */
  int64_t device, stream;  /* FSDPA_ABSENT = all */
} qwin;
fsdpa_status ctx_resolve_query(fsdpa_ctx *c, const fsdpa_query *q, qwin *w);
/* Whether a GPU stream is in the query's device / stream selection. */
static inline int qwin_selects(const qwin *w, const gpu_stream_view *sv) {
  return (w->device == FSDPA_ABSENT || sv->device == w->device) &&
         (w->stream == FSDPA_ABSENT || sv->stream == w->stream);
}
/* Views or an ENOMEM message. */
const store_views *ctx_views(fsdpa_ctx *c);
/* Step i (index in start order) as the public struct (model/tracks.c). */
void ctx_step_public(const fsdpa_ctx *c, size_t i, fsdpa_step *out);
/* Steps sorted by start (cached in a scratch buffer owned by ctx). */
size_t ctx_sorted_steps(const fsdpa_ctx *c, step_rec *out, size_t cap);
/* The slot's object if it was built from the context as it is now, else NULL. */
void *ctx_cache_get(fsdpa_ctx *c, int slot);
/* Keep obj (fully built, allocated from c->alloc) in the slot, freeing the
 * previous object with its own free function. */
void ctx_cache_put(fsdpa_ctx *c, int slot, void *obj, ctx_cache_free_fn fn);
/* The slot's object (ctx_cache_get), else one of `size` bytes made by
 * build(c, obj, arg) and cached; a failed build leaves nothing behind (only a
 * complete result enters the cache).  Callers copy *out and mark the copy
 * borrowed, so that freeing it does not free what the cache owns. */
typedef fsdpa_status (*ctx_cache_build_fn)(fsdpa_ctx *c, void *obj, const void *arg);
fsdpa_status ctx_cache_obtain(fsdpa_ctx *c, int slot, size_t size, ctx_cache_build_fn build, const void *arg,
                              ctx_cache_free_fn fn, const void **out);
/* Drop every cached result (its memory goes back to the allocator). */
void ctx_cache_clear(fsdpa_ctx *c);
#endif
