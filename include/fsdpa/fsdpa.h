/**
 * @file fsdpa.h
 * @brief libfsdpa: why are the GPUs not busy? Analysis of PyTorch profiler
 *        (Kineto) traces of distributed training, FSDP above all.
 *
 * This header is the whole public API and its specification: anything not
 * declared here is private.  Conventions:
 *
 * - Every function returns an ::fsdpa_status (0 = ::FSDPA_OK, negative =
 *   error) unless it is a pure getter; a failing call on a context leaves a
 *   message in fsdpa_errmsg().
 * - Handles are opaque.  Structs that cross the ABI start with a `size`
 *   field that the caller sets to `sizeof(struct)` (the `*_init()` helpers
 *   do it), so the library can grow them without breaking old callers.
 * - Times are integer nanoseconds (`int64_t`, `*_ns`), sizes integer bytes.
 *   Absolute times are on the trace's own clock with `baseTimeNanoseconds`
 *   added where the trace has it.  A value that cannot be computed is
 *   ::FSDPA_ABSENT (integers) or a negative ratio (doubles), never 0.
 * - No global state.  A context may be used by one thread at a time (any
 *   thread, not necessarily the one that created it); many contexts may be
 *   used in parallel.
 * - Memory: everything the library allocates for a context goes through the
 *   context's allocator (fsdpa_allocator, else mimalloc's mi_malloc, else
 *   malloc) and is released by fsdpa_ctx_free().  Results handed to the
 *   caller are either caller-owned structs the caller passes in, or buffers
 *   released with fsdpa_free().
 */
#ifndef FSDPA_FSDPA_H
#define FSDPA_FSDPA_H

#include <stddef.h>
#include <stdint.h>

/** Marks a symbol as part of the exported API (everything else is hidden). */
#if defined(_WIN32)
#  define FSDPA_API __declspec(dllexport)
#elif defined(__GNUC__) && __GNUC__ >= 4
#  define FSDPA_API __attribute__((visibility("default")))
#else
#  define FSDPA_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

/** @defgroup core Core: contexts, feeding, errors
 *  @{ */

/** Major version of this header. */
#define FSDPA_VERSION_MAJOR 0
/** Minor version of this header. */
#define FSDPA_VERSION_MINOR 1
/** Patch version of this header. */
#define FSDPA_VERSION_PATCH 0
/** Version as one number: (major << 16) | (minor << 8) | patch. */
#define FSDPA_VERSION_HEX \
  ((FSDPA_VERSION_MAJOR << 16) | (FSDPA_VERSION_MINOR << 8) | FSDPA_VERSION_PATCH)

/** Sentinel for an integer that is absent or cannot be computed. */
#define FSDPA_ABSENT INT64_MIN

/** Status codes.  Values are frozen: new codes are only ever added. */
typedef enum fsdpa_status {
  FSDPA_OK = 0,          /**< success */
  FSDPA_ENOMEM = -1,     /**< an allocation failed (the context stays safe to free) */
  FSDPA_EINVAL = -2,     /**< bad argument (NULL handle, bad size field, unknown key) */
  FSDPA_EPARSE = -3,     /**< malformed JSON or gzip: see fsdpa_errmsg() and fsdpa_error_offset() */
  FSDPA_ENOTTRACE = -4,  /**< well-formed input that is not a Kineto/Chrome trace */
  FSDPA_ETRUNCATED = -5, /**< input ended inside the document (fsdpa_finish()) */
  FSDPA_ELIMIT = -6,     /**< a configured limit (memory cap, input cap, event size) was hit */
  FSDPA_ESTATE = -7,     /**< call not valid now (feed after finish or after an input error) */
  FSDPA_EBUFS = -8,      /**< caller buffer too small; the needed size was written back */
  FSDPA_EIO = -9         /**< reading a file failed (fsdpa_feed_file()) */
} fsdpa_status;

/** Opaque analysis context: the events of one trace (one rank) and the
 *  analyses over them. */
typedef struct fsdpa_ctx fsdpa_ctx;

/** Allocator callbacks an embedding application may supply.  `free`
 *  receives the size that was requested, so arena-style allocators work. */
typedef struct fsdpa_allocator {
  size_t size;                                        /**< sizeof(fsdpa_allocator) */
  void *(*malloc_fn)(void *ud, size_t n);             /**< allocate n bytes (NULL on failure) */
  void *(*realloc_fn)(void *ud, void *p, size_t old_n, size_t new_n); /**< resize */
  void (*free_fn)(void *ud, void *p, size_t n);       /**< release */
  void *ud;                                           /**< passed to every callback */
} fsdpa_allocator;

/** Options for fsdpa_ctx_new().  Initialise with fsdpa_options_init(). */
typedef struct fsdpa_options {
  size_t size;                       /**< sizeof(fsdpa_options) */
  const fsdpa_allocator *allocator;  /**< NULL: mimalloc (if built with it) or malloc */
  uint64_t max_memory_bytes;         /**< refuse to grow past this (::FSDPA_ELIMIT); 0 = no cap */
  uint64_t max_input_bytes;          /**< refuse more (decompressed) input bytes than this; 0 = no cap */
  const char *name;                  /**< input name used in error messages (copied); NULL = "<input>" */
  int64_t rank;                      /**< rank of this trace; ::FSDPA_ABSENT = from `distributedInfo` */
} fsdpa_options;

/** Fill `opts` with defaults (no caps, default allocator, rank from trace). */
FSDPA_API void fsdpa_options_init(fsdpa_options *opts);

/** Runtime library version, ::FSDPA_VERSION_HEX of the library actually loaded. */
FSDPA_API uint32_t fsdpa_version(void);
/** Runtime library version as a static string, e.g. "0.1.0". */
FSDPA_API const char *fsdpa_version_string(void);
/** Static, human-readable name of a status code ("FSDPA_EPARSE: malformed input"). */
FSDPA_API const char *fsdpa_status_str(fsdpa_status st);

/**
 * Create a context.
 * @param[out] out  receives the new context, owned by the caller (fsdpa_ctx_free()).
 * @param opts      options, or NULL for defaults.
 * @return ::FSDPA_OK, ::FSDPA_EINVAL, ::FSDPA_ENOMEM.
 */
FSDPA_API fsdpa_status fsdpa_ctx_new(fsdpa_ctx **out, const fsdpa_options *opts);
/** Release a context and everything it allocated.  NULL is a harmless no-op. */
FSDPA_API void fsdpa_ctx_free(fsdpa_ctx *ctx);

/**
 * Feed the next bytes of a trace, in any chunking (one byte at a time works).
 * Plain JSON (a Chrome-trace object with `traceEvents`, or a bare event
 * array) or gzip (detected by its magic bytes, inflated as a stream).  The
 * bytes are consumed or copied before the call returns: the caller may reuse
 * `data` at once.  Memory grows with the events retained, not with the JSON.
 * After an error the context refuses further input (::FSDPA_ESTATE) but its
 * queries still answer for the events decoded before the error.
 * @return ::FSDPA_OK, ::FSDPA_EPARSE, ::FSDPA_ENOTTRACE, ::FSDPA_ELIMIT,
 *         ::FSDPA_ENOMEM, ::FSDPA_ESTATE, ::FSDPA_EINVAL.
 */
FSDPA_API fsdpa_status fsdpa_feed(fsdpa_ctx *ctx, const void *data, size_t len);
/**
 * End of input.  Reports a truncated document (::FSDPA_ETRUNCATED) or an
 * input that is not a trace (::FSDPA_ENOTTRACE).  Queries work before and
 * after it.
 */
FSDPA_API fsdpa_status fsdpa_finish(fsdpa_ctx *ctx);
/** Convenience: feed a whole file (plain or gzip; "-" = stdin) and finish.
 *  Error messages name the file and the byte offset. */
FSDPA_API fsdpa_status fsdpa_feed_file(fsdpa_ctx *ctx, const char *path);

/** Message of the last failed call on `ctx` (owned by ctx, valid until the
 *  next call on it; "" if none).  Parse errors name the input and the byte
 *  offset (in the decompressed stream for gzip input). */
FSDPA_API const char *fsdpa_errmsg(const fsdpa_ctx *ctx);
/** Byte offset of the last input error, or ::FSDPA_ABSENT. */
FSDPA_API int64_t fsdpa_error_offset(const fsdpa_ctx *ctx);

/** Release a buffer the library returned to the caller (fsdpa_report()).
 *  NULL is a no-op. */
FSDPA_API void fsdpa_free(void *p);

/** @} */

/** @defgroup events Structured events
 *  Profilers that hold events in memory feed them directly: the same events
 *  fed as JSON or through fsdpa_add_event() give identical results.
 *  @{ */

/** One trace event, as the JSON parser decodes it.  Initialise with
 *  fsdpa_event_init() (all integers ::FSDPA_ABSENT, strings NULL).  Strings
 *  are (pointer, length), need not be NUL-terminated, and are copied. */
typedef struct fsdpa_event {
  size_t size;                /**< sizeof(fsdpa_event) */
  char ph;                    /**< phase: 'X', 'i', 'M', 's', 'f', ... (0 = absent) */
  const char *cat;            /**< category ("kernel", "cpu_op", "Kernel", ...) */
  size_t cat_len;             /**< bytes in cat */
  const char *name;           /**< event name */
  size_t name_len;            /**< bytes in name */
  int64_t pid;                /**< process id (GPU events: device); ABSENT if not numeric */
  int64_t tid;                /**< thread id (GPU events: stream; "stream 7" gives 7) */
  int64_t ts_ns;              /**< start, ns, relative to the trace clock base */
  int64_t dur_ns;             /**< duration, ns (ABSENT for instants) */
  int64_t correlation;        /**< args.correlation */
  int64_t external_id;        /**< args["External id"] (or legacy "external id") */
  int64_t stream;             /**< args.stream */
  int64_t device;             /**< args.device */
  int64_t bytes;              /**< args.Bytes ([memory]) or args.bytes (memcpy, hipMalloc) */
  int64_t total_allocated;    /**< args["Total Allocated"] */
  int64_t total_reserved;     /**< args["Total Reserved"] */
  int64_t device_type;        /**< args["Device Type"] */
  int64_t device_id;          /**< args["Device Id"] */
  int64_t in_msg_nelems;      /**< args["In msg nelems"] */
  int64_t out_msg_nelems;     /**< args["Out msg nelems"] */
  int64_t group_size;         /**< args["Group size"] */
  int64_t seq;                /**< args.Seq (collective sequence number) */
  int64_t wait_on_stream;     /**< args.wait_on_stream (cuda_sync) */
  int64_t wait_on_event_corr; /**< args.wait_on_cuda_event_record_corr_id (cuda_sync) */
  const char *collective;     /**< args["Collective name"] */
  size_t collective_len;      /**< bytes in collective */
  const char *dtype;          /**< args.dtype */
  size_t dtype_len;           /**< bytes in dtype */
  const char *pg_name;        /**< args["Process Group Name"] */
  size_t pg_name_len;         /**< bytes in pg_name */
  const char *sync_kind;      /**< args.cuda_sync_kind */
  size_t sync_kind_len;       /**< bytes in sync_kind */
  const char *label;          /**< metadata events: args.name (thread or process name) */
  size_t label_len;           /**< bytes in label */
} fsdpa_event;

/** Set every field of `ev` to absent and `ev->size` to sizeof(fsdpa_event). */
FSDPA_API void fsdpa_event_init(fsdpa_event *ev);
/** Add one event.  Events may come in any order. */
FSDPA_API fsdpa_status fsdpa_add_event(fsdpa_ctx *ctx, const fsdpa_event *ev);

/** Trace-level metadata (top-level keys of a Kineto file). */
typedef struct fsdpa_trace_info {
  size_t size;                /**< sizeof(fsdpa_trace_info) */
  int64_t rank;               /**< distributedInfo.rank (or the option), ABSENT if unknown */
  int64_t world_size;         /**< distributedInfo.world_size, ABSENT if unknown */
  int64_t base_time_ns;       /**< baseTimeNanoseconds, ABSENT if the trace has none (then 0 is used) */
} fsdpa_trace_info;

/** Fill `info` with absent values and the right size. */
FSDPA_API void fsdpa_trace_info_init(fsdpa_trace_info *info);
/** Set trace metadata (what a JSON file carries in its top-level keys).
 *  Fields that are ::FSDPA_ABSENT leave the current value unchanged. */
FSDPA_API fsdpa_status fsdpa_set_trace_info(fsdpa_ctx *ctx, const fsdpa_trace_info *info);
/** Read trace metadata as known so far. */
FSDPA_API fsdpa_status fsdpa_get_trace_info(const fsdpa_ctx *ctx, fsdpa_trace_info *info);

/** Event counts.  "Retained" events are kept in compact records for the
 *  analyses; the others are counted and dropped. */
typedef struct fsdpa_stats {
  size_t size;                /**< sizeof(fsdpa_stats) */
  uint64_t input_bytes;       /**< bytes fed (compressed, as given) */
  uint64_t json_bytes;        /**< JSON bytes consumed (after inflate) */
  uint64_t events;            /**< all events seen */
  uint64_t retained;          /**< events kept for analysis */
  uint64_t kernels;           /**< `kernel` / legacy `Kernel` events */
  uint64_t gpu_memcpy;        /**< `gpu_memcpy` / legacy `Memcpy` */
  uint64_t gpu_memset;        /**< `gpu_memset` / legacy `Memset` */
  uint64_t runtime;           /**< `cuda_runtime` / `cuda_driver` / legacy `Runtime` */
  uint64_t cpu_ops;           /**< `cpu_op` / legacy `Operator` */
  uint64_t annotations;       /**< `user_annotation` */
  uint64_t gpu_annotations;   /**< `gpu_user_annotation` */
  uint64_t memory;            /**< `[memory]` instant events */
  uint64_t cuda_sync;         /**< `cuda_sync` */
  uint64_t other;             /**< everything else (python_function, flows, metadata, ...) */
  uint64_t memory_bytes;      /**< bytes the context holds now */
  uint64_t names;             /**< distinct interned names */
} fsdpa_stats;

/** Fill `out` (whose size field the caller sets, or 0 for the full struct). */
FSDPA_API fsdpa_status fsdpa_get_stats(const fsdpa_ctx *ctx, fsdpa_stats *out);

/** @} */

/** @defgroup tracks Steps and streams
 *  @{ */

/** A `ProfilerStep#N` range on the CPU. */
typedef struct fsdpa_step {
  size_t size;                /**< sizeof(fsdpa_step) */
  int64_t number;             /**< N of ProfilerStep#N */
  int64_t start_ns;           /**< absolute start */
  int64_t dur_ns;             /**< CPU duration of the annotation */
} fsdpa_step;

/** Number of `ProfilerStep#N` ranges seen so far (sorted by start). */
FSDPA_API size_t fsdpa_step_count(const fsdpa_ctx *ctx);
/** Step i (0-based, in start order).  ::FSDPA_EINVAL if out of range. */
FSDPA_API fsdpa_status fsdpa_get_step(const fsdpa_ctx *ctx, size_t i, fsdpa_step *out);

/** Role of a GPU stream, derived from what runs on it (never from its id). */
typedef enum fsdpa_stream_role {
  FSDPA_ROLE_COMPUTE = 0,        /**< only compute kernels (memcpy/memset allowed) */
  FSDPA_ROLE_COMMUNICATION = 1,  /**< only collective kernels (memcpy/memset allowed) */
  FSDPA_ROLE_MEMORY = 2,         /**< only memcpy/memset */
  FSDPA_ROLE_MIXED = 3           /**< compute and collective kernels both */
} fsdpa_stream_role;

/** One GPU stream. */
typedef struct fsdpa_stream_info {
  size_t size;                /**< sizeof(fsdpa_stream_info) */
  int64_t device;             /**< device index (the event's pid) */
  int64_t stream;             /**< stream id (the event's tid) */
  fsdpa_stream_role role;     /**< see ::fsdpa_stream_role */
  uint64_t kernels;           /**< kernel events on the stream */
  uint64_t comm_kernels;      /**< of which collective kernels */
  uint64_t memops;            /**< gpu_memcpy + gpu_memset events */
  int64_t busy_ns;            /**< |union of the stream's GPU activity| (kernels, memcpy, memset) */
  int64_t first_ns;           /**< earliest start of GPU activity (absolute) */
  int64_t last_ns;            /**< latest end of GPU activity (absolute) */
} fsdpa_stream_info;

/** Number of GPU streams seen so far (sorted by device, then stream). */
FSDPA_API size_t fsdpa_stream_count(const fsdpa_ctx *ctx);
/** Stream i.  ::FSDPA_EINVAL if out of range. */
FSDPA_API fsdpa_status fsdpa_get_stream(const fsdpa_ctx *ctx, size_t i, fsdpa_stream_info *out);

/** Time window and track selection for queries.  Initialise with
 *  fsdpa_query_init() (whole trace, all devices, all streams).  An activity
 *  counts inside the window by its clipped part: [max(start,t0), min(end,t1)). */
typedef struct fsdpa_query {
  size_t size;                /**< sizeof(fsdpa_query) */
  int64_t t0_ns;              /**< window start (absolute), ::FSDPA_ABSENT = -inf */
  int64_t t1_ns;              /**< window end (absolute, exclusive), ::FSDPA_ABSENT = +inf */
  int64_t step;               /**< if not ABSENT: index of a step (fsdpa_get_step()) whose CPU range is the window */
  int64_t device;             /**< ABSENT = all devices */
  int64_t stream;             /**< ABSENT = all streams */
} fsdpa_query;

/** Whole trace, all devices and streams. */
FSDPA_API void fsdpa_query_init(fsdpa_query *q);

/** GPU timeline summary over a window: span and density. */
typedef struct fsdpa_timeline {
  size_t size;                /**< sizeof(fsdpa_timeline) */
  int64_t span_ns;            /**< last end − first start of selected GPU activity, clipped to the window; ABSENT if none */
  int64_t busy_ns;            /**< |union of selected GPU activity ∩ window| */
  double density;             /**< busy_ns / span_ns, or -1 if span is absent or 0 */
  uint64_t activities;        /**< kernel + memcpy + memset events overlapping the window */
} fsdpa_timeline;

/** Timeline density of the selected streams in the window (all selected
 *  streams unioned: overlapping work is counted once). */
FSDPA_API fsdpa_status fsdpa_query_timeline(fsdpa_ctx *ctx, const fsdpa_query *q,
                                            fsdpa_timeline *out);

/** @} */

/* ==== BEGIN launch_gaps (issue 3) ==== */
/* ==== END launch_gaps ==== */

/* ==== BEGIN overlap (issue 4) ==== */
/* ==== END overlap ==== */

/* ==== BEGIN backward (issue 5) ==== */
/* ==== END backward ==== */

/* ==== BEGIN sync_waits (issue 5) ==== */
/* ==== END sync_waits ==== */

/* ==== BEGIN allocator (issue 6) ==== */
/* ==== END allocator ==== */

/* ==== BEGIN crossrank (issue 11) ==== */
/* ==== END crossrank ==== */

/** @defgroup report Reports and findings
 *  @{ */

/** Output format of fsdpa_report(). */
typedef enum fsdpa_format {
  FSDPA_FORMAT_JSON = 0,  /**< the report contract (`fsdpa.report/1`) */
  FSDPA_FORMAT_TEXT = 1,  /**< for people, fits 100 columns */
  FSDPA_FORMAT_HTML = 2   /**< one self-contained page with charts */
} fsdpa_format;

/** Options for fsdpa_report(). */
typedef struct fsdpa_report_options {
  size_t size;                /**< sizeof(fsdpa_report_options) */
  fsdpa_format format;        /**< output format */
  int color;                  /**< text: ANSI colors (1) or not (0) */
  int64_t html_step;          /**< html: step index for the Gantt view, ABSENT = busiest steady step */
} fsdpa_report_options;

/** Defaults: JSON, no color. */
FSDPA_API void fsdpa_report_options_init(fsdpa_report_options *opts);

/**
 * Write the report over one or more contexts (one per rank of a job).
 * @param ctxs    array of n contexts (each fed and, usually, finished)
 * @param paths   n input names for the `inputs` section (NULL entries or NULL array: "<input>")
 * @param n       number of contexts (ranks)
 * @param opts    format and options, or NULL for JSON
 * @param[out] out      receives a NUL-terminated buffer, release with fsdpa_free()
 * @param[out] out_len  receives its length in bytes (may be NULL)
 * @return ::FSDPA_OK, ::FSDPA_ENOMEM, ::FSDPA_EINVAL.  Errors are reported in
 *         the first context's fsdpa_errmsg().
 */
FSDPA_API fsdpa_status fsdpa_report(fsdpa_ctx *const *ctxs, const char *const *paths, size_t n,
                                    const fsdpa_report_options *opts, char **out, size_t *out_len);

/**
 * Set an analysis threshold or option by name, e.g.
 * `fsdpa_set_param(ctx, "launch.kernel_wait_ns", "30000")`.  The names, their
 * defaults and whose rule each default follows are listed by
 * fsdpa_param_list().
 * @return ::FSDPA_OK, or ::FSDPA_EINVAL for an unknown name or a bad value.
 */
FSDPA_API fsdpa_status fsdpa_set_param(fsdpa_ctx *ctx, const char *key, const char *value);
/** Static text listing every parameter: one `name=default  description` per line. */
FSDPA_API const char *fsdpa_param_list(void);

/** @} */

#ifdef __cplusplus
}
#endif
#endif /* FSDPA_FSDPA_H */
