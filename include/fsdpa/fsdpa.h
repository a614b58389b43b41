/**
 * @file fsdpa.h
 * @brief libfsdpa: why are the GPUs not busy? Analysis of PyTorch profiler
 *        (Kineto) traces of distributed training, FSDP above all.
 *
 * This header is the whole public API and its specification: anything not
 * declared here is private.  Conventions:
 *
 * - **Names** are `fsdpa_<module>_<verb>`: `fsdpa_<m>_query(ctx, q, out)`
 *   fills one struct for a query window, `fsdpa_<m>_list(..., &list)` returns
 *   a list, `fsdpa_<m>_get` / `_set` read or change a setting, `_init` fills a
 *   struct with its defaults.  The context's own verbs (fsdpa_feed(),
 *   fsdpa_finish(), fsdpa_feed_file(), fsdpa_report(), fsdpa_errmsg(),
 *   fsdpa_error_offset()) and the library-wide ones (fsdpa_version(),
 *   fsdpa_status_str(), fsdpa_free()) have no module.
 * - **Status**: every function returns an ::fsdpa_status (0 = ::FSDPA_OK,
 *   negative = error) unless it is a pure getter.
 * - **One error channel per kind of call.**  A call on one context leaves its
 *   message in fsdpa_errmsg(ctx) (and the input byte offset in
 *   fsdpa_error_offset(ctx)); every such call clears both on entry, so after
 *   a successful call the message is "".  A call over several contexts or
 *   over summaries (no single context) takes an ::fsdpa_error out-parameter
 *   as its last argument (NULL: no details) and fills it on failure.  Calls
 *   on a list (fsdpa_list_get()) say what went wrong by their status alone.
 * - **Lists**: every list result is an ::fsdpa_list, a snapshot owned by the
 *   caller: fsdpa_list_count(), fsdpa_list_get() (O(1) per item), then
 *   fsdpa_list_free().  Later feeds, parameter changes and even freeing the
 *   context do not change or invalidate it (strings in its items belong to
 *   the list).
 * - **Versioned structs**: handles are opaque; structs that cross the ABI
 *   start with a `size` field the caller sets to `sizeof(struct)` (the
 *   `*_init()` helpers and ::FSDPA_QUERY_INIT do it: the helpers are inline
 *   and pass the caller's `sizeof` to the exported `*_init_sized()`, which
 *   is what bindings call).  The library reads and
 *   writes `min(size, its own size)` bytes: a caller compiled against an
 *   older, smaller struct keeps working (fields it does not know take their
 *   defaults on input and are not written on output), and a caller's bytes
 *   past the library's struct are ignored on input and left untouched on
 *   output.  A size below the struct's first released size is ::FSDPA_EINVAL.
 * - **Queries**: a zero-initialised ::fsdpa_query (`fsdpa_query q = {sizeof
 *   q};`) selects the whole trace; each selector counts only when its bit is
 *   set in `fields`.  NULL for a query means the same.
 * - **Stable and experimental**: everything declared here is stable: from
 *   0.2.0 on the ABI changes only by addition (abi/ and .ci/abi-check.sh
 *   enforce it) and the meaning of every documented number is kept.
 *   Declarations inside `#ifdef FSDPA_EXPERIMENTAL` (at the end) may change
 *   or disappear in any release; define FSDPA_EXPERIMENTAL before including
 *   this header to use them.  New analyses start there.
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

/** Marks a symbol as part of the exported API (everything else is hidden).
 *  On Windows it exports while the library itself is built
 *  (FSDPA_BUILDING_LIBRARY, set by its build) and imports for its users. */
#if defined(_WIN32)
#  if defined(FSDPA_BUILDING_LIBRARY)
#    define FSDPA_API __declspec(dllexport)
#  else
#    define FSDPA_API __declspec(dllimport)
#  endif
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
#define FSDPA_VERSION_MINOR 2
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

/** Fill `opts` with defaults (no caps, default allocator, rank from trace).
 *  Writes at most `size` bytes (the caller's `sizeof`; bindings pass
 *  theirs) and sets the struct's `size` to it; a size below `sizeof(size_t)`
 *  writes nothing. */
FSDPA_API void fsdpa_options_init_sized(fsdpa_options *opts, size_t size);
/** The same with the caller's own `sizeof`: inline, so a caller built
 *  against an older header writes only the struct it knows. */
static inline void fsdpa_options_init(fsdpa_options *opts) { fsdpa_options_init_sized(opts, sizeof *opts); }

/** Runtime library version, ::FSDPA_VERSION_HEX of the library actually loaded. */
FSDPA_API uint32_t fsdpa_version(void);
/** Runtime library version as a static string, e.g. "0.2.0". */
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
 * after it.  Once the input is whole (an earlier fsdpa_finish() or
 * fsdpa_feed_file() succeeded) it does nothing and returns ::FSDPA_OK, so
 * `feed_file` then `finish` is fine; after an input error it is
 * ::FSDPA_ESTATE.
 */
FSDPA_API fsdpa_status fsdpa_finish(fsdpa_ctx *ctx);
/** Convenience: feed a whole file (plain or gzip; "-" = stdin) and finish.
 *  Error messages name the file and the byte offset. */
FSDPA_API fsdpa_status fsdpa_feed_file(fsdpa_ctx *ctx, const char *path);

/** Message of the last failed call on `ctx` (owned by ctx, valid until the
 *  next call on it; "" after a successful call: every call on a context
 *  clears it on entry).  Parse errors name the input and the byte offset
 *  (in the decompressed stream for gzip input).  NULL ctx: "". */
FSDPA_API const char *fsdpa_errmsg(const fsdpa_ctx *ctx);
/** Byte offset of the last input error on `ctx`, or ::FSDPA_ABSENT (also
 *  after any successful call). */
FSDPA_API int64_t fsdpa_error_offset(const fsdpa_ctx *ctx);

/** What went wrong in a call that has no single context (a report, a list
 *  or a query over several contexts, a summary merge): such calls take a
 *  `fsdpa_error *` as their last argument, which may be NULL.  Initialise
 *  with fsdpa_error_init() (or `fsdpa_error e = {sizeof e};`); on success
 *  the call leaves `status` ::FSDPA_OK and `message` "", on failure it fills
 *  every field. */
typedef struct fsdpa_error {
  size_t size;          /**< sizeof(fsdpa_error) */
  fsdpa_status status;  /**< the call's return value */
  int64_t input;        /**< index of the context or summary the error is about (0-based), ::FSDPA_ABSENT if none in particular */
  int64_t offset;       /**< byte offset inside that summary (fsdpa_summary_merge(), fsdpa_summary_report()), ::FSDPA_ABSENT if none */
  char message[512];    /**< NUL-terminated, truncated to 511 bytes */
} fsdpa_error;

/** Reset `err` to "no error" (status ::FSDPA_OK, message "", input and
 *  offset ::FSDPA_ABSENT).
 *  Writes at most `size` bytes (the caller's `sizeof`; bindings pass
 *  theirs) and sets the struct's `size` to it; a size below `sizeof(size_t)`
 *  writes nothing. */
FSDPA_API void fsdpa_error_init_sized(fsdpa_error *err, size_t size);
/** The same with the caller's own `sizeof`: inline, so a caller built
 *  against an older header writes only the struct it knows. */
static inline void fsdpa_error_init(fsdpa_error *err) { fsdpa_error_init_sized(err, sizeof *err); }

/** Release a buffer the library returned to the caller (fsdpa_report(),
 *  summaries, annotate).  NULL is a no-op.  (Lists: fsdpa_list_free().) */
FSDPA_API void fsdpa_free(void *p);

/** @} */

/** @defgroup lists Lists
 *  The one protocol of every list result.  A function that returns a list
 *  builds it completely (O(n)) and hands it to the caller:
 *  @code
 *  fsdpa_list *l;
 *  if (fsdpa_stream_list(ctx, &l) == FSDPA_OK) {
 *    for (size_t i = 0; i < fsdpa_list_count(l); i++) {
 *      fsdpa_stream_info s = {sizeof s};
 *      fsdpa_list_get(l, i, &s);
 *    }
 *    fsdpa_list_free(l);
 *  }
 *  @endcode
 *  A list is a snapshot: it does not change when more events are fed, and
 *  it stays valid after its context is freed.  Strings in its items point
 *  into the list and live as long as it does.  A list is read-only, so one
 *  list may be read from several threads at once.
 *  @{ */

/** Opaque list handle (owned by the caller: fsdpa_list_free()). */
typedef struct fsdpa_list fsdpa_list;

/** What a list holds: the struct fsdpa_list_get() fills. */
typedef enum fsdpa_list_kind {
  FSDPA_LIST_STEPS = 1,            /**< ::fsdpa_step (fsdpa_step_list()) */
  FSDPA_LIST_STREAMS = 2,          /**< ::fsdpa_stream_info (fsdpa_stream_list()) */
  FSDPA_LIST_COMM_SPLITS = 3,      /**< ::fsdpa_comm_split (fsdpa_comm_split_list()) */
  FSDPA_LIST_FSDP_UNITS = 4,       /**< ::fsdpa_fsdp_unit (fsdpa_fsdp_unit_list()) */
  FSDPA_LIST_BACKWARD_STEPS = 5,   /**< ::fsdpa_backward_step (fsdpa_backward_step_list()) */
  FSDPA_LIST_BACKWARD_UNITS = 6,   /**< ::fsdpa_backward_unit (fsdpa_backward_unit_list()) */
  FSDPA_LIST_SYNC_WAITS = 7,       /**< ::fsdpa_sync_wait (fsdpa_sync_wait_list()) */
  FSDPA_LIST_SYNC_CALLS = 8,       /**< ::fsdpa_sync_call (fsdpa_sync_call_list()) */
  FSDPA_LIST_SYNC_STEPS = 9,       /**< ::fsdpa_sync_step (fsdpa_sync_step_list()) */
  FSDPA_LIST_MEMORY_DEVICES = 10,  /**< ::fsdpa_memory_device (fsdpa_memory_device_list()) */
  FSDPA_LIST_MEMORY_POINTS = 11,   /**< ::fsdpa_memory_point (fsdpa_memory_series_list()) */
  FSDPA_LIST_MEMORY_STEPS = 12,    /**< ::fsdpa_memory_step (fsdpa_memory_step_list()) */
  FSDPA_LIST_CROSSRANK_RANKS = 13, /**< ::fsdpa_crossrank_rank (fsdpa_crossrank_rank_list()) */
  FSDPA_LIST_FINDINGS = 14,        /**< ::fsdpa_finding (fsdpa_report_findings(), fsdpa_summary_findings()) */
  FSDPA_LIST_PARAMS = 15,          /**< ::fsdpa_param (fsdpa_param_list()) */
  FSDPA_LIST_DEVICES = 16,         /**< ::fsdpa_device_info (fsdpa_device_list()) */
  FSDPA_LIST_KERNELS = 17,         /**< ::fsdpa_kernel_stat (experimental: fsdpa_kernel_list()) */
  FSDPA_LIST_OPS = 18,             /**< ::fsdpa_op_stat (experimental: fsdpa_op_list()) */
  FSDPA_LIST_EFFICIENCY_STEPS = 19 /**< ::fsdpa_efficiency (experimental: fsdpa_efficiency_step_list()) */
} fsdpa_list_kind;

/** What `list` holds; 0 for NULL. */
FSDPA_API fsdpa_list_kind fsdpa_list_type(const fsdpa_list *list);
/** Number of items; 0 for NULL. */
FSDPA_API size_t fsdpa_list_count(const fsdpa_list *list);
/**
 * Copy item i into `item`, a struct of the list's kind (fsdpa_list_type())
 * whose `size` the caller set (see the versioned-struct rule in the file
 * documentation).
 * @return ::FSDPA_OK; ::FSDPA_EINVAL for a NULL list or item, an index
 *         past the end, or a size below that struct's first released size.
 */
FSDPA_API fsdpa_status fsdpa_list_get(const fsdpa_list *list, size_t i, void *item);
/** Release a list and everything its items point to.  NULL is a no-op. */
FSDPA_API void fsdpa_list_free(fsdpa_list *list);

/** @} */

/** @defgroup events Structured events
 *  Profilers that hold events in memory feed them directly: the same events
 *  fed as JSON or through fsdpa_event_add() give identical results.
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
  const char *input_dims;     /**< args["Input Dims"] of a `cpu_op` (profiler `record_shapes`) as JSON text: an
                                   array with one entry per input, e.g. `[[141, 512], [512, 512], []]`; NULL if
                                   absent.  Kept for CPU ops only; text that is not one JSON array is ignored */
  size_t input_dims_len;      /**< bytes in input_dims */
  const char *input_types;    /**< args["Input type"] as JSON text (an array of strings such as
                                   `"c10::BFloat16"`, `"Scalar"`, `""`), NULL if absent; as input_dims */
  size_t input_types_len;     /**< bytes in input_types */
  const char *concrete_inputs;/**< args["Concrete Inputs"] as JSON text (an array of strings: the values of
                                   scalar inputs, "" for tensors), NULL if absent; as input_dims */
  size_t concrete_inputs_len; /**< bytes in concrete_inputs */
} fsdpa_event;

/** Set every field of `ev` to absent.
 *  Writes at most `size` bytes (the caller's `sizeof`; bindings pass
 *  theirs) and sets the struct's `size` to it; a size below `sizeof(size_t)`
 *  writes nothing. */
FSDPA_API void fsdpa_event_init_sized(fsdpa_event *ev, size_t size);
/** The same with the caller's own `sizeof`: inline, so a caller built
 *  against an older header writes only the struct it knows. */
static inline void fsdpa_event_init(fsdpa_event *ev) { fsdpa_event_init_sized(ev, sizeof *ev); }
/** Add one event.  Events may come in any order.
 *  @return ::FSDPA_OK, ::FSDPA_EINVAL, ::FSDPA_ENOMEM, ::FSDPA_ELIMIT, ::FSDPA_ESTATE. */
FSDPA_API fsdpa_status fsdpa_event_add(fsdpa_ctx *ctx, const fsdpa_event *ev);

/** Trace-level metadata (top-level keys of a Kineto file). */
typedef struct fsdpa_trace_info {
  size_t size;                /**< sizeof(fsdpa_trace_info) */
  int64_t rank;               /**< distributedInfo.rank (or the option), ABSENT if unknown */
  int64_t world_size;         /**< distributedInfo.world_size, ABSENT if unknown */
  int64_t base_time_ns;       /**< baseTimeNanoseconds, ABSENT if the trace has none (then 0 is used) */
} fsdpa_trace_info;

/** Fill `info` with absent values.
 *  Writes at most `size` bytes (the caller's `sizeof`; bindings pass
 *  theirs) and sets the struct's `size` to it; a size below `sizeof(size_t)`
 *  writes nothing. */
FSDPA_API void fsdpa_trace_info_init_sized(fsdpa_trace_info *info, size_t size);
/** The same with the caller's own `sizeof`: inline, so a caller built
 *  against an older header writes only the struct it knows. */
static inline void fsdpa_trace_info_init(fsdpa_trace_info *info) { fsdpa_trace_info_init_sized(info, sizeof *info); }
/** Set trace metadata (what a JSON file carries in its top-level keys).
 *  Fields that are ::FSDPA_ABSENT leave the current value unchanged. */
FSDPA_API fsdpa_status fsdpa_trace_info_set(fsdpa_ctx *ctx, const fsdpa_trace_info *info);
/** Read trace metadata as known so far. */
FSDPA_API fsdpa_status fsdpa_trace_info_get(fsdpa_ctx *ctx, fsdpa_trace_info *info);

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
  uint64_t other;             /**< everything else (python_function, flows, metadata, events of device
                                   backends not analyzed such as mtia_* / xpu_* categories, ...) */
  uint64_t memory_bytes;      /**< bytes the context holds now */
  uint64_t names;             /**< distinct interned names */
} fsdpa_stats;

/** Event counts and memory so far. */
FSDPA_API fsdpa_status fsdpa_stats_get(fsdpa_ctx *ctx, fsdpa_stats *out);

/** A GPU as the trace's top-level `deviceProperties` array describes it
 *  (one object per visible device).  The peak table of the efficiency
 *  queries is keyed by these fields. */
typedef struct fsdpa_device_info {
  size_t size;                /**< sizeof(fsdpa_device_info) */
  int64_t device;             /**< `id`: the device index GPU events carry as their pid */
  char name[64];              /**< `name` ("NVIDIA H100 80GB HBM3", "AMD Instinct MI300X"), NUL-terminated,
                                   truncated to 63 bytes; "" if absent */
  int64_t sms;                /**< `numSms`: streaming multiprocessors (compute units on ROCm); ABSENT if absent */
  int64_t compute_major;      /**< `computeMajor`; ABSENT if absent */
  int64_t compute_minor;      /**< `computeMinor`; ABSENT if absent */
  int64_t total_memory_bytes; /**< `totalGlobalMem`; ABSENT if absent */
} fsdpa_device_info;

/** Fill `info` with absent values (device ABSENT, name "").
 *  Writes at most `size` bytes (the caller's `sizeof`; bindings pass
 *  theirs) and sets the struct's `size` to it; a size below `sizeof(size_t)`
 *  writes nothing. */
FSDPA_API void fsdpa_device_info_init_sized(fsdpa_device_info *info, size_t size);
/** The same with the caller's own `sizeof`: inline, so a caller built
 *  against an older header writes only the struct it knows. */
static inline void fsdpa_device_info_init(fsdpa_device_info *info) { fsdpa_device_info_init_sized(info, sizeof *info); }
/** Describe a device, as a JSON trace's `deviceProperties` entry does (for
 *  callers that feed structured events): replaces an earlier description of
 *  the same device.  A JSON trace sets them while it is read.
 *  @return ::FSDPA_OK, ::FSDPA_EINVAL (NULL, bad size, device ABSENT or
 *          negative), ::FSDPA_ENOMEM. */
FSDPA_API fsdpa_status fsdpa_device_info_set(fsdpa_ctx *ctx, const fsdpa_device_info *info);
/** The devices described so far, sorted by device: a list of
 *  ::fsdpa_device_info.  @return ::FSDPA_OK, ::FSDPA_EINVAL, ::FSDPA_ENOMEM. */
FSDPA_API fsdpa_status fsdpa_device_list(fsdpa_ctx *ctx, fsdpa_list **out);

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

/** The `ProfilerStep#N` ranges seen so far, sorted by start: a list of
 *  ::fsdpa_step.  A step's position in it is its **step index** (what
 *  ::fsdpa_query selects with ::FSDPA_QUERY_STEP).
 *  @return ::FSDPA_OK, ::FSDPA_EINVAL, ::FSDPA_ENOMEM. */
FSDPA_API fsdpa_status fsdpa_step_list(fsdpa_ctx *ctx, fsdpa_list **out);

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

/** The GPU streams seen so far, sorted by device, then stream: a list of
 *  ::fsdpa_stream_info.  @return ::FSDPA_OK, ::FSDPA_EINVAL, ::FSDPA_ENOMEM. */
FSDPA_API fsdpa_status fsdpa_stream_list(fsdpa_ctx *ctx, fsdpa_list **out);

/** Bits of ::fsdpa_query.fields: which selectors are set. */
enum fsdpa_query_field {
  FSDPA_QUERY_T0 = 1u << 0,      /**< `t0_ns` bounds the window from below */
  FSDPA_QUERY_T1 = 1u << 1,      /**< `t1_ns` bounds the window from above */
  FSDPA_QUERY_STEP = 1u << 2,    /**< `step` selects a step's CPU range as the window */
  FSDPA_QUERY_DEVICE = 1u << 3,  /**< `device` selects one device */
  FSDPA_QUERY_STREAM = 1u << 4   /**< `stream` selects one stream (id) */
};

/** Time window and track selection for queries.  A selector counts only
 *  when its bit is set in `fields`, so a zeroed query (::FSDPA_QUERY_INIT,
 *  fsdpa_query_init(), or `fsdpa_query q = {sizeof q};`) is the whole trace,
 *  every device and every stream; a NULL query means the same.  An
 *  activity counts inside the window by its clipped part:
 *  [max(start, t0), min(end, t1)).  With both a step and bounds the window
 *  is their intersection; an end at or before the start is an empty window. */
typedef struct fsdpa_query {
  size_t size;                /**< sizeof(fsdpa_query) */
  uint32_t fields;            /**< `FSDPA_QUERY_*` bits of the selectors that are set */
  int64_t t0_ns;              /**< window start (absolute ns) when ::FSDPA_QUERY_T0 is set */
  int64_t t1_ns;              /**< window end (absolute ns, exclusive) when ::FSDPA_QUERY_T1 is set */
  int64_t step;               /**< step index (position in fsdpa_step_list()) when ::FSDPA_QUERY_STEP is set */
  int64_t device;             /**< device when ::FSDPA_QUERY_DEVICE is set */
  int64_t stream;             /**< stream id when ::FSDPA_QUERY_STREAM is set */
} fsdpa_query;

/** Initialiser of a whole-trace query: `fsdpa_query q = FSDPA_QUERY_INIT;`. */
#define FSDPA_QUERY_INIT {sizeof(fsdpa_query), 0, 0, 0, 0, 0, 0}

/** Make `q` a whole-trace query (as ::FSDPA_QUERY_INIT).
 *  Writes at most `size` bytes (the caller's `sizeof`; bindings pass
 *  theirs) and sets the struct's `size` to it; a size below `sizeof(size_t)`
 *  writes nothing. */
FSDPA_API void fsdpa_query_init_sized(fsdpa_query *q, size_t size);
/** The same with the caller's own `sizeof`: inline, so a caller built
 *  against an older header writes only the struct it knows. */
static inline void fsdpa_query_init(fsdpa_query *q) { fsdpa_query_init_sized(q, sizeof *q); }

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
FSDPA_API fsdpa_status fsdpa_timeline_query(fsdpa_ctx *ctx, const fsdpa_query *q,
                                            fsdpa_timeline *out);

/** @} */

/** @defgroup launch_gaps Launch gaps, idle attribution, launch latency
 *
 * Definitions every number of this group keeps to:
 *
 * - **GPU op**: a kernel, memcpy or memset event (not cuda_sync, not
 *   gpu_user_annotation).  Its **launch call** is the cuda_runtime /
 *   cuda_driver event with the same correlation id (the first one in the
 *   input if several); an op without one is **unlinked** (e.g. launched
 *   before the profiler window opened).
 * - **Busy union** of a set of streams: the union of their ops' [start, end);
 *   overlapping and touching ops merge, so nothing is counted twice or
 *   dropped.  Zero-duration ops add no busy time and split no gap.
 * - **Gap** of a stream: an idle interval between two consecutive intervals
 *   of that stream's busy union, from the end of one to the start of the
 *   next; always > 0 ns.  Time before a stream's first op and after its last
 *   op is not a gap.  Where no two ops of a stream overlap this is HTA's idle
 *   interval start(k) − end(k−1) (HTA also counts the zero and negative ones,
 *   which add nothing here).  **GPU gaps** are the same over the busy union of
 *   all selected streams (time when none of them runs anything).
 * - **Closing ops** of a gap: the non-empty ops of the stream (GPU gaps: of
 *   the selected streams) that start where the gap ends.
 * - **Idle category** of a gap, after HTA's get_idle_time_breakdown():
 *   **host wait** if every closing op has a launch call and every such call
 *   started after the gap began (the CPU had not yet issued the work when the
 *   stream went idle); else **kernel wait** if the gap is shorter than
 *   `launch.kernel_wait_ns` (30 µs); else **other** (e.g. waiting on another
 *   stream or rank).  An unlinked gap (no closing op has a launch call) is
 *   never host wait.  A gap is **launch-bound** if every closing op has a
 *   launch call and every such call *returned* after the gap began (the
 *   stream idled while the work was still being launched; includes host
 *   wait).
 * - **Window** (::fsdpa_query): a gap counts in the window if it intersects
 *   it.  Durations (`*_ns` sums) add only the part inside the window, so
 *   per-step sums add up to the whole trace; the category, counts, histogram
 *   bins and percentiles use the full gap length (a 2 ms gap cut by a step
 *   boundary is still a 2 ms gap).
 * - **Percentiles** are nearest-rank: pN = the smallest value v such that at
 *   least N % of the values are <= v; exact integers, no interpolation.
 * - **Histograms** have fixed edges, 1-2-5 steps from 1 µs to 1 s
 *   (`edges_ns` = 1000, 2000, 5000, 10000, ..., 500000000, 1000000000):
 *   `counts[0]` counts values < 1 µs, `counts[i]` values in
 *   [edges_ns[i−1], edges_ns[i]), `counts[FSDPA_GAP_BINS−1]` values >= 1 s.
 *  @{ */

/** Number of histogram edges (1 µs … 1 s in 1-2-5 steps). */
#define FSDPA_GAP_EDGES 19
/** Number of histogram bins: below the first edge, between edges, at or above the last. */
#define FSDPA_GAP_BINS (FSDPA_GAP_EDGES + 1)

/** Gaps between consecutive GPU ops and their idle attribution, over the
 *  selected streams and window (see the group's definitions).  Per-stream
 *  fields are sums over the selected streams; `gpu_*` fields and the
 *  timeline fields are over the busy union of the selected streams. */
typedef struct fsdpa_launch_gaps {
  size_t size;                      /**< sizeof(fsdpa_launch_gaps) */
  int64_t kernel_wait_threshold_ns; /**< `launch.kernel_wait_ns` used for the categories */
  int64_t small_gap_threshold_ns;   /**< `launch.small_gap_ns` used for `small_launch_*` */
  uint64_t streams;                 /**< selected streams that have GPU ops (anywhere in the trace) */
  uint64_t gaps;                    /**< stream gaps intersecting the window, all selected streams */
  int64_t idle_ns;                  /**< Σ |gap ∩ window| = host_wait_ns + kernel_wait_ns + other_ns */
  int64_t host_wait_ns;             /**< idle in host-wait gaps (clipped to the window) */
  int64_t kernel_wait_ns;           /**< idle in kernel-wait gaps (clipped) */
  int64_t other_ns;                 /**< idle in other gaps (clipped) */
  uint64_t host_wait_gaps;          /**< number of host-wait gaps */
  uint64_t kernel_wait_gaps;        /**< number of kernel-wait gaps */
  uint64_t other_gaps;              /**< number of other gaps */
  uint64_t unlinked_gaps;           /**< gaps whose closing ops have no launch call (counted in kernel/other) */
  int64_t unlinked_ns;              /**< their idle (clipped) */
  uint64_t small_launch_gaps;       /**< launch-bound gaps no longer than `small_gap_threshold_ns` */
  int64_t small_launch_ns;          /**< their idle (clipped) */
  int64_t p50_ns;                   /**< median full gap length; ABSENT without gaps */
  int64_t p90_ns;                   /**< 90th percentile of full gap lengths; ABSENT without gaps */
  int64_t p99_ns;                   /**< 99th percentile of full gap lengths; ABSENT without gaps */
  int64_t max_ns;                   /**< longest full gap; ABSENT without gaps */
  int64_t edges_ns[FSDPA_GAP_EDGES];  /**< histogram edges (fixed, see the group) */
  uint64_t counts[FSDPA_GAP_BINS];    /**< gaps per bin of full gap length */
  int64_t bin_idle_ns[FSDPA_GAP_BINS];/**< idle (clipped) of the gaps of each bin */
  int64_t span_ns;                  /**< as fsdpa_timeline_query(): last end − first start of the selected streams' GPU activity clipped to the window; ABSENT if none */
  int64_t busy_ns;                  /**< |busy union of the selected streams ∩ window| */
  double density;                   /**< busy_ns / span_ns; -1 if span is absent or 0 */
  int64_t gpu_window_ns;            /**< |[first start, last end) of the selected streams' GPU activity in the whole trace ∩ window|; ABSENT if no activity.  Unlike span_ns it keeps the idle part of a window that begins or ends inside a GPU gap */
  double utilization;               /**< busy_ns / gpu_window_ns; -1 if absent or 0.  Equals density for the whole trace */
  uint64_t gpu_gaps;                /**< GPU gaps (busy union of the selected streams) intersecting the window */
  int64_t gpu_idle_ns;              /**< Σ |GPU gap ∩ window| = gpu_window_ns − busy_ns */
  int64_t gpu_host_wait_ns;         /**< of which host wait (closing ops on any selected stream) */
  int64_t gpu_kernel_wait_ns;       /**< of which kernel wait */
  int64_t gpu_other_ns;             /**< of which other */
  int64_t gpu_small_launch_ns;      /**< idle (clipped) in launch-bound GPU gaps no longer than `small_gap_threshold_ns` */
} fsdpa_launch_gaps;

/**
 * Gap statistics, idle attribution and density of the selected streams in
 * the window (see the group for every definition).  Works between feeds, on
 * the events so far.
 * @return ::FSDPA_OK, ::FSDPA_EINVAL (bad argument or step), ::FSDPA_ENOMEM, ::FSDPA_ELIMIT.
 */
FSDPA_API fsdpa_status fsdpa_launch_gaps_query(fsdpa_ctx *ctx, const fsdpa_query *q,
                                               fsdpa_launch_gaps *out);

/** Launch latency of the GPU ops that start in the window on the selected
 *  streams: latency = op start − end of its launch call, clipped at 0 like
 *  HTA's launch_delay (it includes time queued behind earlier work).
 *  Unlinked ops have no latency. */
typedef struct fsdpa_launch_latency {
  size_t size;                      /**< sizeof(fsdpa_launch_latency) */
  uint64_t ops;                     /**< GPU ops of the selected streams starting in the window */
  uint64_t linked;                  /**< of which have a launch call (the latency sample) */
  int64_t min_ns;                   /**< smallest latency; ABSENT if linked == 0 (same for the next five) */
  int64_t p50_ns;                   /**< median latency (nearest rank) */
  int64_t p90_ns;                   /**< 90th percentile */
  int64_t p99_ns;                   /**< 99th percentile */
  int64_t max_ns;                   /**< largest latency */
  int64_t total_ns;                 /**< Σ latency (mean = total_ns / linked) */
  int64_t edges_ns[FSDPA_GAP_EDGES];  /**< histogram edges (fixed, see the group) */
  uint64_t counts[FSDPA_GAP_BINS];    /**< latencies per bin (0 falls in the first bin) */
  uint64_t kernels;                 /**< kernels among `ops` (memcpy/memset excluded from the next three) */
  uint64_t kernels_linked;          /**< kernels with a launch call */
  uint64_t kernels_shorter_than_launch; /**< linked kernels whose duration is below their launch call's duration */
  double short_kernel_share;        /**< kernels_shorter_than_launch / kernels_linked; -1 if none linked */
} fsdpa_launch_latency;

/** Launch latency distribution and the share of kernels shorter than their
 *  own launch call.  Works between feeds.
 *  @return ::FSDPA_OK, ::FSDPA_EINVAL, ::FSDPA_ENOMEM, ::FSDPA_ELIMIT. */
FSDPA_API fsdpa_status fsdpa_launch_latency_query(fsdpa_ctx *ctx, const fsdpa_query *q,
                                                  fsdpa_launch_latency *out);

/** Launch-queue depth over time (HTA's queue length, §1.7 of its counters):
 *  each linked op of the selected streams adds 1 from the start of its
 *  launch call (or from its own start if that is earlier) until it starts on
 *  the GPU.  depth(t) = number of ops launched but not yet started at t,
 *  summed over the selected streams.  Measured over `range_ns` = the span of
 *  fsdpa_timeline_query() for the same query.  Unlike HTA every linked op
 *  counts, whatever its launch API (cudaGraphLaunch adds one per op). */
typedef struct fsdpa_launch_queue {
  size_t size;                      /**< sizeof(fsdpa_launch_queue) */
  uint64_t ops;                     /**< linked ops whose queued time [launch start, op start) meets the range */
  int64_t range_ns;                 /**< length of the measured range; ABSENT if no GPU activity selected */
  int64_t max_depth;                /**< largest depth held for a positive time in the range; ABSENT if no range */
  double mean_depth;                /**< ∫ depth dt / range_ns; -1 if no range */
  int64_t depth0_ns;                /**< time in the range with depth 0 (nothing queued) */
  int64_t starved_ns;               /**< time in the range with depth 0 while no selected stream runs anything: the GPU had nothing to do */
} fsdpa_launch_queue;

/** Launch-queue depth statistics.  Works between feeds.
 *  @return ::FSDPA_OK, ::FSDPA_EINVAL, ::FSDPA_ENOMEM, ::FSDPA_ELIMIT. */
FSDPA_API fsdpa_status fsdpa_launch_queue_query(fsdpa_ctx *ctx, const fsdpa_query *q,
                                                fsdpa_launch_queue *out);
/** @} */

/** @defgroup overlap Communication/computation overlap and FSDP units
 *
 * Definitions every number of this group keeps to:
 *
 * - **Communication kernel**: a kernel whose name identifies a collective
 *   library (NCCL / RCCL / MSCCL families: names starting with nccl, rccl or
 *   msccl in any case, or containing ncclKernel / ncclDevKernel).  **Compute kernel**: every other
 *   kernel.  memcpy / memset are neither.  A stream's role is never assumed
 *   from its id: comm kernels count wherever they run, also on a stream that
 *   runs compute too.
 * - **C** = union of the selected communication kernels, **P** = union of
 *   the selected compute kernels, each clipped to the window (an activity
 *   counts by its part inside [t0, t1)).  Overlapping or touching kernels
 *   merge, so nothing is counted twice.  |C ∩ P| is HTA's overlap; HTA's
 *   `comp_comm_overlap_pctg` is 100·|C ∩ P| / |C| (computed by HTA on
 *   whole µs after dropping kernels without a CPU launch and, by default,
 *   the last ProfilerStep; here exact ns over every kernel in the window).
 * - **Collective type** of a comm kernel: the kernel's (else its
 *   `record_param_comms` op's, found by External id) `Collective name`
 *   argument when it names a type (`_allgather_base` -> AllGather,
 *   `reduce_scatter_tensor_coalesced` -> ReduceScatter, ...), else the token
 *   in the kernel name (`ncclDevKernel_AllGather_RING_LL` -> AllGather;
 *   `ncclDevKernel_Generic` -> Generic).  **Process group**: the `Process
 *   Group Name` argument ("" when the trace does not carry it).
 * - **Bandwidth**, as nccl-tests define it: algorithm bytes of one kernel =
 *   `Out msg nelems` × dtype size for AllGather, `In msg nelems` × dtype
 *   size for every other collective; algbw = bytes / kernel duration;
 *   busbw = algbw × factor with factor 2(n−1)/n for AllReduce, (n−1)/n for
 *   AllGather, ReduceScatter and AllToAll, 1 for Broadcast, Reduce, Send,
 *   Recv and SendRecv (n = `Group size`).  Aggregates are duration-weighted:
 *   Σ bytes / Σ durations over the kernels that carry sizes, in GB/s
 *   (10^9 bytes per second = bytes per ns).
 *  @{ */

/** Communication/computation overlap of a window. */
typedef struct fsdpa_overlap {
  size_t size;              /**< sizeof(fsdpa_overlap) */
  int64_t comm_ns;          /**< |C|; ABSENT when no communication kernel is selected */
  int64_t compute_ns;       /**< |P| (0 when no compute kernel is selected) */
  int64_t overlap_ns;       /**< |C ∩ P|; ABSENT without communication */
  int64_t exposed_comm_ns;  /**< |C| − |C ∩ P| = communication time with no compute beside it; ABSENT without communication */
  double overlap_pct;       /**< 100·overlap_ns / comm_ns (HTA's comp_comm_overlap_pctg); -1 when comm_ns is absent or 0 */
  uint64_t comm_kernels;    /**< communication kernels overlapping the window */
  uint64_t compute_kernels; /**< compute kernels overlapping the window */
} fsdpa_overlap;

/**
 * Overlap of communication and computation on the selected streams in the
 * query's window (all devices of the trace are unioned together; select a
 * device to get one GPU).  Per step: select it with ::FSDPA_QUERY_STEP.
 * @return ::FSDPA_OK, ::FSDPA_EINVAL (bad size or step), ::FSDPA_ENOMEM.
 */
FSDPA_API fsdpa_status fsdpa_overlap_query(fsdpa_ctx *ctx, const fsdpa_query *q,
                                           fsdpa_overlap *out);

/** How fsdpa_comm_split_list() groups communication kernels. */
typedef enum fsdpa_comm_split_by {
  FSDPA_SPLIT_COLLECTIVE = 0,    /**< by collective type; entries in the order AllGather, ReduceScatter, AllReduce, Broadcast, Reduce, AllToAll, SendRecv, Send, Recv, Barrier, Generic, Other */
  FSDPA_SPLIT_PROCESS_GROUP = 1  /**< by `Process Group Name`, sorted by name */
} fsdpa_comm_split_by;

/** The communication of one collective type or one process group. */
typedef struct fsdpa_comm_split {
  size_t size;            /**< sizeof(fsdpa_comm_split) */
  char name[64];          /**< "AllGather", ... or the process-group name ("" = not in the trace); truncated to 63 bytes */
  uint64_t count;         /**< its comm kernels overlapping the window */
  int64_t comm_ns;        /**< |union of its kernels ∩ window| */
  int64_t overlap_ns;     /**< |that union ∩ P| (P: all selected compute kernels) */
  int64_t exposed_ns;     /**< comm_ns − overlap_ns.  Splits may overlap each other (an AllGather beside a ReduceScatter), so their exposed times can add up to more than the total exposed_comm_ns */
  int64_t bytes;          /**< Σ algorithm bytes of its kernels that carry sizes; ABSENT if none does */
  int64_t timed_ns;       /**< Σ full durations of those kernels (the bandwidth denominator); ABSENT if none */
  double algbw_gbps;      /**< bytes / timed_ns in GB/s; -1 if absent */
  double busbw_gbps;      /**< Σ (bytes × bus factor) / timed_ns in GB/s; -1 if absent or the group size is unknown */
} fsdpa_comm_split;

/** The split of the selection's communication: a list of
 *  ::fsdpa_comm_split, one per distinct collective type or process group
 *  among the selected comm kernels, in the order of ::fsdpa_comm_split_by.
 *  @return ::FSDPA_OK, ::FSDPA_EINVAL (bad query or `by`), ::FSDPA_ENOMEM. */
FSDPA_API fsdpa_status fsdpa_comm_split_list(fsdpa_ctx *ctx, const fsdpa_query *q,
                                             fsdpa_comm_split_by by, fsdpa_list **out);

/** FSDP version seen in the annotations: 2 (annotations starting with "FSDP::", fully_shard),
 *  1 (annotations starting with "FullyShardedDataParallel."), or 0 (none). */
FSDPA_API int fsdpa_fsdp_version(const fsdpa_ctx *ctx);

/** Forward or backward pass. */
typedef enum fsdpa_fsdp_phase {
  FSDPA_PHASE_FORWARD = 0,   /**< forward pass */
  FSDPA_PHASE_BACKWARD = 1   /**< backward pass */
} fsdpa_fsdp_phase;

/**
 * One FSDP unit in one phase, summed over its instances (one instance per
 * ProfilerStep in which the unit runs that phase).
 *
 * - **Unit**: FSDP2: the parameter group named by its module FQN in the
 *   `FSDP::<hook> (<fqn>)` / `FSDP::<hook> for <fqn>` annotations ("(root)"
 *   for the root group, whose FQN is empty).  FSDP1 annotations carry no
 *   name: units are `unit0`, `unit1`, ... in the order their all-gathers are
 *   issued in a step's forward; in backward the j-th all-gather /
 *   reduce-scatter of a step is unit n−1−j (n units in that step).
 * - **Its communication**: the comm kernels whose launching runtime call
 *   (found by correlation id, else External id; a kernel with neither is
 *   looked up in the FSDP gpu_user_annotations on its own stream) lies, on
 *   the same CPU thread, inside an FSDP annotation naming the unit (the innermost such:
 *   `FSDP::all_gather (u)` inside `FSDP::backward_prefetch for u` inside
 *   `FSDP::pre_backward (v)` belongs to u).  Phase: from the enclosing hook
 *   (pre_forward / forward_prefetch: forward; pre_backward /
 *   backward_prefetch / post_backward hooks: backward; a forward hook on
 *   the autograd thread is activation-checkpoint recompute: backward), else
 *   backward when launched from the autograd thread or after the step's
 *   first backward op.  Forward: the unit's AllGather; backward: its AllGather (also when
 *   prefetched by another unit's hook) and ReduceScatter (and HSDP
 *   AllReduce).
 * - **Its compute**: the compute kernels launched inside the unit's window
 *   on the same thread and inside no FSDP hook annotation (hooks launch
 *   FSDP's own copy-in / copy-out / chunk-cat kernels).  Windows: FSDP2
 *   [start of `pre_forward (u)`, end of `post_forward (u)`] and [start of
 *   `pre_backward (u)`, end of the last post_backward hook of u]; FSDP1: the
 *   unit's `FullyShardedDataParallel.forward` range, and in backward from the
 *   last `_pre_backward_hook` before the `_post_backward_hook` that issues
 *   the unit's reduce-scatter to that hook's end.  A kernel launched inside
 *   nested windows (the root around its children) is the innermost unit's.
 *   Kernels in no window (embedding, loss, optimizer) belong to no unit.
 */
typedef struct fsdpa_fsdp_unit {
  size_t size;                  /**< sizeof(fsdpa_fsdp_unit) */
  char name[256];               /**< unit name, NUL-terminated, truncated to 255 bytes */
  size_t name_len;              /**< full length of the name */
  fsdpa_fsdp_phase phase;       /**< forward or backward */
  uint64_t instances;           /**< instances counted (steps in which the unit ran this phase, inside the query window) */
  int64_t comm_ns;              /**< T_comm: Σ over instances of |union of the instance's comm kernels| */
  int64_t compute_ns;           /**< T_compute: Σ over instances of |union of the instance's compute kernels| */
  int64_t exposed_ns;           /**< T_exposed = max(0, T_comm − T_compute) on these sums (the primer's formula) */
  int64_t exposed_sum_ns;       /**< Σ over instances of max(0, comm − compute) (>= exposed_ns) */
  int64_t exposed_measured_ns;  /**< Σ over instances of |comm union − union of every compute kernel of the trace|: the unit's communication that actually ran with no compute beside it */
  int64_t allgather_ns;         /**< Σ over instances of |union of its AllGather kernels| */
  int64_t reducescatter_ns;     /**< Σ over instances of |union of its ReduceScatter kernels| */
  uint64_t comm_kernels;        /**< its comm kernels */
  uint64_t compute_kernels;     /**< its compute kernels */
} fsdpa_fsdp_unit;

/**
 * The FSDP units: a list of ::fsdpa_fsdp_unit with one entry per (unit,
 * phase) that has at least one instance in the whole trace so far, in the
 * order units are first named, every forward entry first, then every
 * backward entry in the same unit order.  Each entry is summed over its
 * instances that start inside the query window (an instance starts at its
 * first compute kernel, else its first comm kernel; device and stream
 * selection are ignored); an entry with no instance in the window is still
 * listed, with instances == 0 and zero times, so the positions of a windowed
 * list match the whole-trace list.
 * @return ::FSDPA_OK, ::FSDPA_EINVAL, ::FSDPA_ENOMEM.
 */
FSDPA_API fsdpa_status fsdpa_fsdp_unit_list(fsdpa_ctx *ctx, const fsdpa_query *q, fsdpa_list **out);

/** @} */

/** @defgroup backward FSDP backward schedule (zigzag, prefetch)
 *
 * The backward pass of each step is read as a sequence of FSDP units in
 * backward order (by their first compute kernel; units and their
 * communication / compute as defined for ::fsdpa_fsdp_unit).  Per unit:
 * AG = union of its backward AllGather kernels, C = union of its backward
 * compute kernels, RS = union of its ReduceScatter kernels.  Between
 * consecutive units i (computed first) and i+1 the stream-schedule pattern
 * (docs/patterns.md) checks two links:
 *
 * - **prefetch**: `AG[i+1] overlaps C[i]`: the next unit's all-gather runs
 *   while this unit computes.  When it does not (**broken link**) the next
 *   unit's compute waits for a gather that started too late; the **idle**
 *   it costs is the time in [end of C[i], start of C[i+1]) when no compute
 *   kernel of the trace runs.
 * - **rs_hidden**: `RS[i] overlaps C[i+1]`: this unit's reduce-scatter runs
 *   while the next unit computes.
 *
 * A link whose sets are missing (first unit, no AG in backward because the
 * unit was not resharded) is not evaluated.  Step patterns:
 * **zigzag**: every evaluated prefetch link holds; **serialized**: no link
 * of either kind holds and comm and compute overlap less than
 * `overlap.serialized_max_ppm` of the step's communication (nothing runs
 * beside anything: one stream, or every collective waited for); **no_prefetch**:
 * otherwise (some gathers start only after the previous unit's compute
 * and/or reduce-scatter ended); **unknown**: no prefetch link could be
 * evaluated (fewer than two units, no FSDP annotations).
 *  @{ */

/** Backward schedule pattern. */
typedef enum fsdpa_backward_pattern {
  FSDPA_BWD_UNKNOWN = 0,      /**< not enough units to tell */
  FSDPA_BWD_ZIGZAG = 1,       /**< every unit's all-gather was prefetched under the previous unit's compute */
  FSDPA_BWD_NO_PREFETCH = 2,  /**< some all-gathers start only after the previous unit finished */
  FSDPA_BWD_SERIALIZED = 3    /**< no communication runs beside compute at all */
} fsdpa_backward_pattern;

/** Static name of a pattern: "unknown", "zigzag", "no_prefetch", "serialized". */
FSDPA_API const char *fsdpa_backward_pattern_name(fsdpa_backward_pattern p);

/** Backward schedule over the whole trace. */
typedef struct fsdpa_backward {
  size_t size;                     /**< sizeof(fsdpa_backward) */
  fsdpa_backward_pattern pattern;  /**< the pattern most steps show (a tie goes to the worse: serialized > no_prefetch > zigzag); unknown if no step has one */
  uint64_t steps;                  /**< steps with at least one backward unit */
  uint64_t units;                  /**< distinct units seen in backward */
  uint64_t prefetched_units;       /**< units whose prefetch link held in every step where it was evaluated */
  uint64_t links;                  /**< prefetch links evaluated, all steps */
  uint64_t broken_links;           /**< of which broken */
  int64_t idle_ns;                 /**< Σ idle of the broken links */
} fsdpa_backward;

/** Fill `out` with the backward summary of the whole trace so far.
 *  @return ::FSDPA_OK, ::FSDPA_EINVAL, ::FSDPA_ENOMEM. */
FSDPA_API fsdpa_status fsdpa_backward_get(fsdpa_ctx *ctx, fsdpa_backward *out);

/** Backward schedule of one step. */
typedef struct fsdpa_backward_step {
  size_t size;                     /**< sizeof(fsdpa_backward_step) */
  int64_t step;                    /**< ProfilerStep number; ABSENT for units before the first step or in a trace without steps */
  fsdpa_backward_pattern pattern;  /**< the step's pattern (see the group) */
  uint64_t units;                  /**< backward units in the step */
  uint64_t links;                  /**< prefetch links evaluated */
  uint64_t prefetched_links;       /**< of which held */
  uint64_t rs_hidden_links;        /**< rs_hidden links that held */
  int64_t idle_ns;                 /**< Σ idle of its broken links */
  int64_t start_ns;                /**< first start of any kernel of its backward units (absolute) */
  int64_t end_ns;                  /**< last end of any kernel of its backward units (absolute) */
  double overlap_pct;              /**< 100·|C ∩ P| / |C| over the CPU step range (all comm / compute kernels of the trace); -1 without communication */
} fsdpa_backward_step;

/** The steps with backward units, in time order: a list of
 *  ::fsdpa_backward_step.  A step's position in it is its **backward step
 *  index** (fsdpa_backward_unit_list()).
 *  @return ::FSDPA_OK, ::FSDPA_EINVAL, ::FSDPA_ENOMEM. */
FSDPA_API fsdpa_status fsdpa_backward_step_list(fsdpa_ctx *ctx, fsdpa_list **out);

/** One unit of one step's backward, with its schedule.  Times are absolute;
 *  a missing set has ABSENT start/end/stream. */
typedef struct fsdpa_backward_unit {
  size_t size;              /**< sizeof(fsdpa_backward_unit) */
  char name[256];           /**< unit name (as ::fsdpa_fsdp_unit), truncated to 255 bytes */
  size_t name_len;          /**< full length of the name */
  uint32_t position;        /**< 0 = first unit in backward order */
  int prefetched;           /**< 1: its AG overlapped the previous unit's compute; 0: broken link; -1: not evaluated (first unit, or a set missing) */
  int rs_hidden;            /**< 1: its RS overlapped the next unit's compute; 0: no; -1: not evaluated */
  int64_t idle_ns;          /**< idle the broken link into this unit costs (see the group); 0 when prefetched; ABSENT when not evaluated */
  int64_t ag_start_ns;      /**< first AG kernel start */
  int64_t ag_end_ns;        /**< last AG kernel end */
  int64_t ag_stream;        /**< stream of its first AG kernel */
  int64_t compute_start_ns; /**< first compute kernel start */
  int64_t compute_end_ns;   /**< last compute kernel end */
  int64_t compute_stream;   /**< stream of its first compute kernel */
  int64_t rs_start_ns;      /**< first RS kernel start */
  int64_t rs_end_ns;        /**< last RS kernel end */
  int64_t rs_stream;        /**< stream of its first RS kernel */
} fsdpa_backward_unit;

/** The units of backward step `step_i` (position in
 *  fsdpa_backward_step_list()) in backward order: a list of
 *  ::fsdpa_backward_unit.
 *  @return ::FSDPA_OK, ::FSDPA_EINVAL (bad index), ::FSDPA_ENOMEM. */
FSDPA_API fsdpa_status fsdpa_backward_unit_list(fsdpa_ctx *ctx, size_t step_i, fsdpa_list **out);

/** @} */

/** @defgroup sync_waits CPU sync stalls
 *
 * Definitions every number of this group keeps to:
 *
 * - **Blocking call**: a `cuda_runtime` / `cuda_driver` event whose name is a
 *   call that holds the CPU thread until GPU work ends: stream / event /
 *   device synchronize (cudaStreamSynchronize, cudaEventSynchronize,
 *   cudaDeviceSynchronize, cuCtxSynchronize, hip* equivalents), synchronous
 *   copies (cudaMemcpy, hipMemcpy, cudaMemset ... without `Async`) and device
 *   frees (cudaFree, hipFree, cudaFreeHost ...; cudaFree synchronizes the
 *   device); and a call of any other API that **blocked by behaviour**: it
 *   lasted longer than its API class's threshold (`sync.block_launch_ns`,
 *   `sync.block_copy_ns`, `sync.block_other_ns`) and GPU work it waited for
 *   ended within `sync.block_wake_tolerance_ns` of its end while the device
 *   was busy for nine tenths of the wait (docs/report-contract.md, "Blocking
 *   calls", defines the test; allocation calls that blocked are left to the
 *   allocator group).  Its **duration** is the event's `dur` (the time the
 *   thread was blocked, integer ns).
 * - **Step of a call**: the `ProfilerStep#N` whose CPU range [start, end)
 *   contains the call's *start*, on any thread (the latest-starting one if
 *   ranges overlap); none if no step contains it.  A call is never split
 *   between steps: a query window selects the calls whose start lies in
 *   [t0, t1) and counts their whole duration, so a step window gives exactly
 *   that step's calls.
 * - **Waited-for GPU work**, by source (::fsdpa_wait_source):
 *   - the call's `cuda_sync` event (same correlation id), when the trace has
 *     them: `Stream Sync` waits on its stream; `Event Sync` waits on
 *     `wait_on_stream` as it was when the event was recorded (the
 *     `cudaEventRecord` whose correlation is
 *     `wait_on_cuda_event_record_corr_id`; the sync call's start if that
 *     record is missing); `Context Sync` waits on every stream of its device;
 *   - for a synchronous copy that has its own GPU memcpy/memset (same
 *     correlation): that op; for a call that blocked by behaviour: the op
 *     its behaviour test found (its own op: ::FSDPA_WAIT_OWN_OP; the last op
 *     queued on its stream or device before it: ::FSDPA_WAIT_INFERRED);
 *   - otherwise inferred from the thread's **last launch**: the last runtime
 *     call of the same thread, started before the blocking call, that queued
 *     a GPU op; stream / event syncs and synchronous copies wait on that
 *     op's stream, device syncs and frees on every stream of its device (every
 *     device if the thread never launched anything).
 *   The **waited-for op** is then the last GPU op *queued* on the waited
 *   stream before that time (queued = its launch call started; an op without
 *   a launch call counts as queued at its own start), or, for a device-wide
 *   wait, the latest-ending such op over the device's streams.
 * - **Device of a call**: the waited-for op's device, else the `cuda_sync`
 *   event's device, else the device of the thread's last launch; unknown
 *   (::FSDPA_ABSENT) when none applies, and the GPU idle is then measured
 *   against the busy union of all devices.
 * - **GPU idle during** a call: |[start, end) minus the busy union of the
 *   call's device| (GPU activity = kernels, memcpy, memset).  **GPU idle
 *   after**: if the device is busy at the call's end, 0; else the time from
 *   the call's end to the start of the device's next GPU activity; absent
 *   when no GPU activity follows (the trace ends idle: nothing to attribute).
 *   Sums over calls add only calls whose idle-after is defined.  **GPU idle
 *   (cost)** of a set of calls = |∪ [start, end + idle after) minus busy|
 *   per device, summed over devices: the GPU time lost while the thread was
 *   blocked and until the GPU got work again, overlapping calls counted once.
 * - **cpu-sync-stall**: a step is flagged when the thread that spent the
 *   most time in blocking calls during it spent at least `sync.min_stall_ns`
 *   (1 ms) there and at least `sync.min_share_ppm` (2 %) of the step's CPU
 *   duration.  The finding's cost is the GPU idle its waits caused: the full
 *   length of every GPU gap (per device) that opens while one of the blocking
 *   calls of the flagged steps blocks.  Not the GPU idle (cost) above, which
 *   also counts idle that began before a call on a GPU already out of work.
 *   Calls outside every step never flag.  Without ProfilerStep the finding
 *   (not these queries, whose steps stay ProfilerStep ranges) judges the
 *   inferred iterations, or the whole trace (docs/report-contract.md).
 *  @{ */

/** How the waited-for GPU work of a blocking call was found (see the group). */
typedef enum fsdpa_wait_source {
  FSDPA_WAIT_UNKNOWN = 0,   /**< nothing found (no cuda_sync event, no earlier launch on the thread) */
  FSDPA_WAIT_CUDA_SYNC = 1, /**< from the call's `cuda_sync` event */
  FSDPA_WAIT_OWN_OP = 2,    /**< the call's own GPU op (a synchronous copy) */
  FSDPA_WAIT_INFERRED = 3   /**< inferred from the thread's last launch */
} fsdpa_wait_source;

/** Blocking calls of one API (e.g. all cudaStreamSynchronize) selected by a
 *  query: calls whose start lies in the window, whose device equals
 *  the query's device and whose waited stream equals its stream (when those are
 *  set). */
typedef struct fsdpa_sync_wait {
  size_t size;                  /**< sizeof(fsdpa_sync_wait) */
  const char *api;              /**< API name (owned by the list) */
  uint64_t count;               /**< selected calls */
  int64_t total_ns;             /**< Σ call duration */
  int64_t max_ns;               /**< longest call */
  uint64_t in_steps;            /**< calls whose start lies inside a step */
  uint64_t threads;             /**< distinct CPU threads (pid, tid) making these calls */
  int64_t gpu_idle_during_ns;   /**< Σ GPU idle during the calls */
  int64_t gpu_idle_after_ns;    /**< Σ GPU idle after the calls (calls where it is defined) */
  uint64_t idle_after_calls;    /**< calls whose idle-after is defined (denominator of a mean) */
  int64_t gpu_idle_ns;          /**< GPU idle (cost) of these calls, overlaps counted once */
} fsdpa_sync_wait;

/** Blocking calls per API: a list of ::fsdpa_sync_wait sorted by total_ns
 *  (largest first), then name.  Works between feeds.
 *  @return ::FSDPA_OK, ::FSDPA_EINVAL, ::FSDPA_ENOMEM, ::FSDPA_ELIMIT. */
FSDPA_API fsdpa_status fsdpa_sync_wait_list(fsdpa_ctx *ctx, const fsdpa_query *q, fsdpa_list **out);

/** One blocking call with what it waited for and what it cost the GPU. */
typedef struct fsdpa_sync_call {
  size_t size;                  /**< sizeof(fsdpa_sync_call) */
  const char *api;              /**< API name (owned by the list) */
  int64_t pid;                  /**< CPU process of the calling thread */
  int64_t tid;                  /**< CPU thread */
  int64_t start_ns;             /**< absolute start */
  int64_t dur_ns;               /**< duration (time blocked) */
  int64_t step;                 /**< N of the ProfilerStep#N containing the start; ABSENT if none */
  fsdpa_wait_source source;     /**< how the waited-for work was found */
  int device_wide;              /**< 1: waited for every stream of the device; 0: one stream (or unknown) */
  const char *sync_kind;        /**< `cuda_sync_kind` of the linked cuda_sync event (owned by the list), or NULL */
  int64_t device;               /**< device of the call (see the group); ABSENT if unknown */
  int64_t stream;               /**< waited stream; ABSENT if device-wide or unknown */
  const char *waited_op;        /**< name of the waited-for GPU op (owned by the list), or NULL if none was found */
  int64_t waited_op_stream;     /**< its stream; ABSENT if none */
  int64_t waited_op_start_ns;   /**< its absolute start; ABSENT if none */
  int64_t waited_op_end_ns;     /**< its absolute end; ABSENT if none */
  int64_t gpu_idle_during_ns;   /**< GPU idle during the call */
  int64_t gpu_idle_after_ns;    /**< GPU idle after the call; ABSENT if no GPU activity follows */
} fsdpa_sync_call;

/** The selected blocking calls (same selection as fsdpa_sync_wait_list()),
 *  sorted by start: a list of ::fsdpa_sync_call.
 *  @return ::FSDPA_OK, ::FSDPA_EINVAL, ::FSDPA_ENOMEM, ::FSDPA_ELIMIT. */
FSDPA_API fsdpa_status fsdpa_sync_call_list(fsdpa_ctx *ctx, const fsdpa_query *q, fsdpa_list **out);

/** Blocking calls of one step (the calls whose start the step contains,
 *  all threads and APIs, filtered by the query's device / stream when set). */
typedef struct fsdpa_sync_step {
  size_t size;                  /**< sizeof(fsdpa_sync_step) */
  int64_t index;                /**< step index (position in fsdpa_step_list()) */
  int64_t number;               /**< N of ProfilerStep#N */
  int64_t step_dur_ns;          /**< CPU duration of the step */
  uint64_t count;               /**< blocking calls */
  int64_t total_ns;             /**< Σ their durations, all threads */
  int64_t max_ns;               /**< longest call; 0 if none */
  int64_t worst_thread_ns;      /**< largest per-thread Σ duration: the time one thread was blocked */
  int64_t worst_pid;            /**< that thread's pid; ABSENT if no call */
  int64_t worst_tid;            /**< that thread's tid; ABSENT if no call */
  double share;                 /**< worst_thread_ns / step_dur_ns; -1 if the step has no duration */
  int64_t gpu_idle_ns;          /**< GPU idle (cost) of the step's blocking calls */
  int flagged;                  /**< 1 if the step meets the cpu-sync-stall thresholds */
} fsdpa_sync_step;

/** Per-step blocking time for the steps whose start lies in the query window
 *  (a step query gives that step), in step order: a list of ::fsdpa_sync_step.
 *  @return ::FSDPA_OK, ::FSDPA_EINVAL, ::FSDPA_ENOMEM, ::FSDPA_ELIMIT. */
FSDPA_API fsdpa_status fsdpa_sync_step_list(fsdpa_ctx *ctx, const fsdpa_query *q, fsdpa_list **out);
/** @} */

/** @defgroup allocator Device memory and the caching allocator
 *
 * Definitions every number of this group keeps to:
 *
 * - **Allocator calls**: `cuda_runtime` / `cuda_driver` events of device
 *   memory allocation APIs, whatever the allocator backend — **malloc**:
 *   cudaMalloc, cudaMallocAsync, cudaMallocFromPoolAsync, cudaMallocManaged,
 *   cudaMallocPitch, cuMemAlloc(_v2), cuMemAllocAsync, cuMemCreate, hipMalloc,
 *   hipMallocAsync, hipMallocManaged, hipMemCreate, hipExtMallocWithFlags;
 *   **free**: cudaFree, cudaFreeAsync, cuMemFree(_v2), cuMemFreeAsync,
 *   cuMemRelease, hipFree, hipFreeAsync, hipMemRelease (a `_ptsz` suffix is
 *   the same call).  Pinned host memory (cudaHostAlloc, cudaMallocHost,
 *   hipHostMalloc, cuMemHostAlloc; cudaFreeHost, hipHostFree, cuMemFreeHost)
 *   is not device memory: it is not counted in these numbers (the JSON
 *   report counts it apart, `allocator.pinned_host`).  A call
 *   belongs to the step whose CPU range contains its start (as in the
 *   sync_waits group) and a window selects calls by their start.  `bytes` is
 *   the call's `bytes` argument (ROCm records it; CUDA does not).
 * - **Warm-up**: with `allocator.warmup_steps` >= 0, that many first steps
 *   (at most all).  With the default -1: "until reserved memory stops
 *   growing": step i *grows* if the largest Total Reserved of the primary
 *   device's events inside it exceeds every Total Reserved seen before the
 *   step began; warm-up ends at the first step i >= 1 that does not grow
 *   (warmup_steps = i; all steps if every step grows).  Without reserved
 *   figures: 1 step.  0 without steps.  **Steady state** = the steps after
 *   warm-up; calls outside every step are never steady-state.
 * - **Device memory events**: `[memory]` / `[OutOfMemory]` instants whose
 *   `Device Type` is present and not CPU (0), grouped by (Device Type,
 *   Device Id); **device** in this group is the `Device Id`.  Events are
 *   ordered by time, then input order.  The **allocated level** after an
 *   event is its `Total Allocated`, the **reserved level** its `Total
 *   Reserved`.  A device whose events lack `Total Allocated` (PyTorch 1.8/1.9)
 *   is **relative**: its allocated level is the running sum of `Bytes` from 0
 *   before its first event (growth since the profile began), and its absolute
 *   peaks are absent.
 * - **Levels in a window** [t0, t1): the level in effect at t0 (after the
 *   last event before t0, if any) and the levels after the events inside the
 *   window.  Peak = largest of them, min = smallest; **start** level = the
 *   level in effect at t0 (if no event precedes t0: the first event's level
 *   minus its `Bytes`); **end** level = the level after the last event before
 *   t1 (if none precedes t1: the level before the device's first event).
 *   Absent when the device has no event, or (start/end) when `Bytes` is
 *   missing where the level before an event is needed.
 * - **Primary device**: the device with the largest peak reserved over the
 *   whole trace (largest peak allocated if none has reserved figures, then
 *   the most events).  Warm-up, per-step levels and per-call allocation sizes
 *   use it unless a query names a device.
 * - **Fragmentation** of a device in a window: 1 − A / R where R is its peak
 *   reserved and A the largest allocated level seen while reserved was at R:
 *   the share of the peak reservation that was never in use, even at the best
 *   moment.  **Mean unallocated share**: ∫ (reserved − allocated) / reserved
 *   dt / ∫ dt over the window, from the first level in it to its end (the last
 *   event for an unbounded window).
 * - **Allocation size of a malloc call**: its `bytes` argument if present,
 *   else the primary device's reserved growth across the call (reserved
 *   after the first device event at or after the call's end minus reserved
 *   after the last event at or before its start), when positive.  **Request
 *   size**: `Bytes` of the first positive device `[memory]` event at or after
 *   the call's end (the allocation that missed the cache).
 * - **GPU idle** of a set of allocator calls: as in the sync_waits group
 *   (cudaFree synchronizes the device; the idle during and after each call,
 *   overlaps counted once).  The set is the window's malloc and free calls
 *   and expandable segments' mapping calls (cuMemMap, cuMemSetAccess,
 *   cuMemAddressReserve, cuMemUnmap, cuMemAddressFree; hipMem* alike), never
 *   pinned host calls.
 *  @{ */

/** Allocator activity and memory levels for a window (see the group). */
typedef struct fsdpa_memory_summary {
  size_t size;                        /**< sizeof(fsdpa_memory_summary) */
  uint64_t malloc_calls;              /**< malloc calls starting in the window */
  uint64_t free_calls;                /**< free calls starting in the window */
  int64_t malloc_ns;                  /**< Σ duration of those malloc calls (CPU time) */
  int64_t free_ns;                    /**< Σ duration of those free calls (CPU time) */
  int64_t malloc_bytes;               /**< Σ `bytes` of malloc calls that carry it; ABSENT if none does */
  int64_t warmup_steps;               /**< warm-up steps (whole trace; see the group) */
  uint64_t steady_steps;              /**< steps after warm-up whose start lies in the window */
  uint64_t steady_state_malloc_calls; /**< malloc calls of the window in steady-state steps */
  uint64_t steady_state_free_calls;   /**< free calls of the window in steady-state steps */
  int64_t gpu_idle_ns;                /**< GPU idle of the window's malloc and free calls */
  int64_t device;                     /**< Device Id the level fields describe (the query's device, else primary); ABSENT without device memory events */
  uint64_t memory_events;             /**< that device's memory events in the window */
  uint64_t oom_events;                /**< `[OutOfMemory]` events in the window, all non-CPU devices */
  int allocated_is_relative;          /**< 1 if that device is relative (allocated levels are growth since its first event) */
  int64_t start_allocated_bytes;      /**< start allocated level of that device; ABSENT if unknown */
  int64_t end_allocated_bytes;        /**< end allocated level; ABSENT if unknown */
  int64_t min_allocated_bytes;        /**< min allocated level; ABSENT if unknown */
  int64_t peak_allocated_bytes;       /**< peak allocated level; without a device in the query the max over all non-relative devices.  ABSENT if relative or no events */
  int64_t peak_allocated_delta_bytes; /**< relative device: peak of its running Σ Bytes (growth above the profile start); ABSENT otherwise */
  int64_t peak_reserved_bytes;        /**< peak reserved level; without a device in the query the max over all devices.  ABSENT without Total Reserved */
  int64_t allocated_at_peak_reserved_bytes; /**< A of the fragmentation definition (that device); ABSENT if unknown */
  double fragmentation;               /**< 1 − A / R of that device (0..1); -1 if unknown */
  double mean_unallocated_share;      /**< time-weighted (reserved − allocated) / reserved of that device; -1 if unknown */
} fsdpa_memory_summary;

/** Allocator summary for the window (the query's device picks the device of
 *  the level fields; its stream is ignored).  Works between feeds.
 *  @return ::FSDPA_OK, ::FSDPA_EINVAL, ::FSDPA_ENOMEM, ::FSDPA_ELIMIT. */
FSDPA_API fsdpa_status fsdpa_memory_query(fsdpa_ctx *ctx, const fsdpa_query *q,
                                          fsdpa_memory_summary *out);

/** Memory levels of one device over the window, per device (rows sorted by
 *  Device Type, then Device Id; levels as in the group). */
typedef struct fsdpa_memory_device {
  size_t size;                        /**< sizeof(fsdpa_memory_device) */
  int64_t device_type;                /**< c10::DeviceType (1 = CUDA, also on ROCm) */
  int64_t device;                     /**< Device Id */
  int relative;                       /**< 1 if relative (no Total Allocated) */
  int primary;                        /**< 1 for the primary device */
  uint64_t events;                    /**< memory events in the window */
  uint64_t oom_events;                /**< of which `[OutOfMemory]` */
  int64_t peak_allocated_bytes;       /**< ABSENT if relative or no levels in the window */
  int64_t peak_allocated_delta_bytes; /**< relative only: peak running Σ Bytes; else ABSENT */
  int64_t peak_reserved_bytes;        /**< ABSENT without Total Reserved */
  int64_t allocated_at_peak_reserved_bytes; /**< see fragmentation; ABSENT if unknown */
  double fragmentation;               /**< 1 − A / R; -1 if unknown */
  double mean_unallocated_share;      /**< -1 if unknown */
} fsdpa_memory_device;

/** Devices with memory events, levels over the window: a list of
 *  ::fsdpa_memory_device.
 *  @return ::FSDPA_OK, ::FSDPA_EINVAL, ::FSDPA_ENOMEM, ::FSDPA_ELIMIT. */
FSDPA_API fsdpa_status fsdpa_memory_device_list(fsdpa_ctx *ctx, const fsdpa_query *q, fsdpa_list **out);

/** One bucket of the downsampled memory timeline.  min/max include the level
 *  in effect when the bucket begins, so the max over all buckets is the exact
 *  peak of the range and a bucket's max is the exact peak of its time. */
typedef struct fsdpa_memory_point {
  size_t size;                        /**< sizeof(fsdpa_memory_point) */
  int64_t t0_ns;                      /**< absolute bucket start */
  int64_t t1_ns;                      /**< absolute bucket end (exclusive) */
  uint64_t events;                    /**< memory events in the bucket */
  int64_t allocated_min;              /**< smallest allocated level in the bucket; ABSENT before the first event */
  int64_t allocated_max;              /**< largest allocated level in the bucket; ABSENT before the first event */
  int64_t allocated_last;             /**< level at the bucket's end; ABSENT before the first event */
  int64_t reserved_min;               /**< as allocated_min for reserved; ABSENT without Total Reserved */
  int64_t reserved_max;               /**< as allocated_max for reserved */
  int64_t reserved_last;              /**< as allocated_last for reserved */
} fsdpa_memory_point;

/**
 * Downsampled allocated/reserved timeline of one device.  The range is
 * [max(window start, first event), min(window end, last event + 1 ns)) of
 * that device, cut into at most `buckets` equal buckets of
 * ceil(range / buckets) ns (the last may be shorter).
 * @param ctx      the context
 * @param q        window (NULL = whole trace); its device and stream are ignored
 * @param device   Device Id, ::FSDPA_ABSENT = the primary device
 * @param buckets  wanted buckets (>= 1)
 * @param[out] out a list of ::fsdpa_memory_point; no device or an empty
 *                 range gives an empty list
 * @return ::FSDPA_OK, ::FSDPA_EINVAL, ::FSDPA_ENOMEM, ::FSDPA_ELIMIT.
 */
FSDPA_API fsdpa_status fsdpa_memory_series_list(fsdpa_ctx *ctx, const fsdpa_query *q, int64_t device,
                                                size_t buckets, fsdpa_list **out);

/** Allocator activity and memory levels of one step (levels of the query's device, else
 *  the primary device, with the step's CPU range as the window). */
typedef struct fsdpa_memory_step {
  size_t size;                        /**< sizeof(fsdpa_memory_step) */
  int64_t index;                      /**< step index (position in fsdpa_step_list()) */
  int64_t number;                     /**< N of ProfilerStep#N */
  int warmup;                         /**< 1 if the step is in warm-up */
  uint64_t malloc_calls;              /**< malloc calls starting in the step */
  uint64_t free_calls;                /**< free calls starting in the step */
  int64_t malloc_ns;                  /**< their CPU time */
  int64_t free_ns;                    /**< their CPU time */
  int64_t gpu_idle_ns;                /**< GPU idle of those malloc and free calls (as fsdpa_memory_summary) */
  int64_t start_allocated_bytes;      /**< baseline: level at the step's start; ABSENT if unknown */
  int64_t end_allocated_bytes;        /**< level at the step's end; ABSENT if unknown */
  int64_t min_allocated_bytes;        /**< ABSENT if unknown */
  int64_t peak_allocated_bytes;       /**< ABSENT if unknown (relative devices give levels relative to their first event) */
  int64_t peak_reserved_bytes;        /**< ABSENT without Total Reserved */
  int returns_to_baseline;            /**< 1 if end − start <= peak / 100 (healthy sawtooth), 0 if not, -1 if unknown */
} fsdpa_memory_step;

/** Per-step allocator rows for the steps whose start lies in the window, in
 *  step order: a list of ::fsdpa_memory_step.
 *  @return ::FSDPA_OK, ::FSDPA_EINVAL, ::FSDPA_ENOMEM, ::FSDPA_ELIMIT. */
FSDPA_API fsdpa_status fsdpa_memory_step_list(fsdpa_ctx *ctx, const fsdpa_query *q, fsdpa_list **out);
/** @} */

/** @defgroup report Reports and findings
 *  @{ */

/** Output format of fsdpa_report(). */
typedef enum fsdpa_format {
  FSDPA_FORMAT_JSON = 0,  /**< the report contract (`fsdpa.report/1`) */
  FSDPA_FORMAT_TEXT = 1,  /**< for people, fits ::fsdpa_report_options.width columns */
  FSDPA_FORMAT_HTML = 2,  /**< one self-contained page with charts */
  FSDPA_FORMAT_CSV = 3    /**< one table of the report (::fsdpa_report_options.table) as CSV (RFC 4180) */
} fsdpa_format;

/** Options for fsdpa_report(). */
typedef struct fsdpa_report_options {
  size_t size;                /**< sizeof(fsdpa_report_options) */
  fsdpa_format format;        /**< output format */
  int color;                  /**< text: ANSI colors (1) or not (0) */
  int64_t html_step;          /**< html: step index for the Gantt view, ABSENT = busiest steady step */
  int width;                  /**< text: columns every line fits in (a terminal's width), 40 .. 1000; 0 = 100 */
  /** csv: the table, NULL = "ranks".  The tables of a report, each a header
   *  line of column names then one line per row, integers in ns / bytes /
   *  counts as in the JSON, an empty cell for null:
   *  - `ranks`: `job.per_rank`, one row per rank (rank, iterations,
   *    iterations_from, step_time_ns, step_min_ns, step_max_ns, span_ns,
   *    busy_ns, busy_share, idle_ns, one column `<cause>_ns` per idle cause,
   *    exposed_comm_ns, findings, findings_cost_ns, costs_overlap,
   *    top_finding, top_finding_severity, top_finding_cost_ns);
   *  - `findings`: `findings[]` (index, id, severity, rank, step, cost_ns,
   *    cost_bytes, explained_by, ranges, ranges_total, title, detail, advice);
   *  - `job_findings`: `job.findings[]`, the findings grouped by id (id,
   *    severity, ranks, ranks_affected, ranks_in_job, cost_min_ns,
   *    cost_median_ns, cost_max_ns, cost_total_ns, worst_rank, explained_by,
   *    findings: their indices);
   *  - `streams`: every rank's GPU streams (rank, device, stream, role,
   *    kernels, busy_ns, gaps, gap_p50_ns, gap_p90_ns, gap_p99_ns, gap_max_ns);
   *  - `idle_causes`: every rank's GPU idle by cause (rank, cause, idle_ns,
   *    share of the rank's idle);
   *  - `not_judged`: `not_judged[]` (rule, ranks, reason, would_judge).
   *  A list inside a cell (ranks, findings) is its numbers separated by
   *  spaces.  A caller built against a header without this field gets
   *  "ranks". */
  const char *table;
} fsdpa_report_options;

/** Defaults: JSON, no color.
 *  Writes at most `size` bytes (the caller's `sizeof`; bindings pass
 *  theirs) and sets the struct's `size` to it; a size below `sizeof(size_t)`
 *  writes nothing. */
FSDPA_API void fsdpa_report_options_init_sized(fsdpa_report_options *opts, size_t size);
/** The same with the caller's own `sizeof`: inline, so a caller built
 *  against an older header writes only the struct it knows. */
static inline void fsdpa_report_options_init(fsdpa_report_options *opts) { fsdpa_report_options_init_sized(opts, sizeof *opts); }

/**
 * Write the report over one or more contexts (one per rank of a job).
 * @param ctxs    array of n contexts (each fed and, usually, finished)
 * @param paths   n input names for the `inputs` section (NULL entries or NULL array: "<input>")
 * @param n       number of contexts (ranks)
 * @param opts    format and options, or NULL for JSON
 * @param[out] out      receives a NUL-terminated buffer, release with fsdpa_free()
 * @param[out] out_len  receives its length in bytes (may be NULL)
 *
 * The report lists the contexts in rank order (`trace_info.rank`, else the
 * context's index), so for known ranks its bytes do not depend on the order
 * of `ctxs` (with `paths` in the same order).  Two contexts of the same rank
 * are refused (::FSDPA_EINVAL, the message naming both, `err->input` the
 * later one's index): the same trace given twice, or two jobs mixed, would
 * be matched against itself as two ranks.
 *
 * Everything in the report except the top-level `cross_rank` section and its
 * findings depends on one context alone, and each context keeps its own part
 * (its findings and its `ranks` entry, with the analyses under them) until
 * events are fed, a parameter changes or its trace info changes.  So a caller
 * with many ranks can call fsdpa_report() on each context by itself, each in
 * the context's own thread, and then once over all of them: the last call
 * copies the kept parts and runs only the cross-rank analysis (this is what
 * `fsdpa analyze -j N` does).  The output is the same bytes either way.  A
 * context reported alone is rank `trace_info.rank`, or 0 when the trace has
 * none; where that differs from its rank in the later report (its index),
 * its part is made again there.
 * @param err     receives the details of a failure; may be NULL
 * @return ::FSDPA_OK, ::FSDPA_ENOMEM, ::FSDPA_ELIMIT, ::FSDPA_EINVAL.
 */
FSDPA_API fsdpa_status fsdpa_report(fsdpa_ctx *const *ctxs, const char *const *paths, size_t n,
                                    const fsdpa_report_options *opts, char **out, size_t *out_len,
                                    fsdpa_error *err);

/**
 * The text or HTML report of a JSON report (`fsdpa.report/1`, as
 * fsdpa_report(), fsdpa_summary_report() or `fsdpa merge` write it): the
 * text and HTML reports are made from the JSON alone, so the text of a JSON
 * report is byte-identical to fsdpa_report() with ::FSDPA_FORMAT_TEXT over
 * the same traces (same width and color), however the JSON was made (`-j`,
 * `--low-memory`, summaries merged).  The HTML page is the same page but for
 * the views that need the trace's events (the whole-trace overview, the Gantt
 * view of a step, the memory timeline), which it replaces by a note saying
 * so.  `fsdpa render report.json -f text|html` is this call.
 * @param json    the JSON report, `len` bytes (a JSON report written by this
 *                library version: the text and page read its `job` and
 *                `not_judged` sections)
 * @param len     its length in bytes
 * @param opts    format (::FSDPA_FORMAT_TEXT or ::FSDPA_FORMAT_HTML; JSON is
 *                refused: the input is the JSON), width, color; NULL: text
 * @param[out] out      NUL-terminated text or page, release with fsdpa_free()
 * @param[out] out_len  its length (may be NULL)
 * @param err     receives the details of a failure (the byte offset of a
 *                parse error); may be NULL
 * @return ::FSDPA_OK; ::FSDPA_EPARSE for malformed JSON; ::FSDPA_EINVAL for a
 *         document that is not such a report (another schema, a missing
 *         section: the message says which) or bad options; ::FSDPA_ENOMEM.
 */
FSDPA_API fsdpa_status fsdpa_report_render(const char *json, size_t len, const fsdpa_report_options *opts,
                                           char **out, size_t *out_len, fsdpa_error *err);

/** How much a finding matters. */
typedef enum fsdpa_severity {
  FSDPA_SEVERITY_INFO = 0,     /**< worth knowing; nothing to fix */
  FSDPA_SEVERITY_WARNING = 1,  /**< costs time worth recovering */
  FSDPA_SEVERITY_CRITICAL = 2  /**< the main reason the GPUs are not busy */
} fsdpa_severity;

/** Static name of a severity: "info", "warning", "critical" ("" if unknown). */
FSDPA_API const char *fsdpa_severity_name(fsdpa_severity s);

/** A time range on the trace's clock (absolute ns, end exclusive). */
typedef struct fsdpa_range {
  int64_t start_ns;  /**< start */
  int64_t end_ns;    /**< end (exclusive) */
} fsdpa_range;

/** One finding, as the report's `findings[]` carries it (docs/report-contract.md
 *  lists every id and what its cost measures).  Strings belong to the list. */
typedef struct fsdpa_finding {
  size_t size;                /**< sizeof(fsdpa_finding) */
  const char *id;             /**< stable id, e.g. "gpu-starvation", "straggler-rank" */
  fsdpa_severity severity;    /**< how much it matters */
  int64_t rank;               /**< the rank it is about; ::FSDPA_ABSENT for a job-wide finding */
  int64_t step;               /**< ProfilerStep number it is about; ::FSDPA_ABSENT = the whole trace */
  int64_t cost_ns;            /**< the time it costs (the finding's own definition); findings are ordered by it */
  const char *title;          /**< one line */
  const char *detail;         /**< the numbers it rests on, in sentences */
  const char *advice;         /**< what to do, chosen from the evidence */
  const char *evidence_json;  /**< its `evidence` object as JSON text (the ranges included); a finding
                                   whose cost is memory (allocator-fragmentation) states it there as
                                   `cost_bytes`, with `cost_ns` 0 */
  size_t nranges;             /**< number of evidence time ranges, worst first */
  const fsdpa_range *ranges;  /**< the ranges (NULL when nranges is 0) */
  /* since 0.3 */
  int64_t saving_ns;          /**< what fixing it would save: the latest end of the work of its judged
                                   window (saving_window_ns) as recorded, minus the same after replaying
                                   the rank's dependency graph with the finding's named edges removed
                                   (calls that take no time, ops that take none, CPU time removed;
                                   docs/report-contract.md "What-if"), so recomputed through every
                                   dependency, not subtracted; ::FSDPA_ABSENT where the finding's fix
                                   cannot be replayed (cross-rank findings, memory costs, the
                                   backward schedule) */
  int64_t saving_window_ns;   /**< the length of the window saving_ns was measured over; ::FSDPA_ABSENT
                                   with it */
} fsdpa_finding;

/**
 * The findings of the report over these contexts, typed: the same findings
 * in the same order (cost, then severity, rank, step, id) as `findings[]` of
 * fsdpa_report() over the same contexts, cross-rank ones (straggler-rank)
 * included.
 * @param ctxs      array of n contexts (as for fsdpa_report())
 * @param n         number of contexts
 * @param[out] out  a list of ::fsdpa_finding
 * @param err       receives the details of a failure; may be NULL
 * @return as fsdpa_report().
 */
FSDPA_API fsdpa_status fsdpa_report_findings(fsdpa_ctx *const *ctxs, size_t n, fsdpa_list **out,
                                             fsdpa_error *err);
/** Highest severity in a list of findings, or -1 if it has none (or is not
 *  a list of findings). */
FSDPA_API int fsdpa_findings_worst(const fsdpa_list *findings);

/** @} */

/** @defgroup params Parameters
 *  Every threshold the analyses use has a name, a default and a rule it
 *  follows (whose definition the default reproduces).
 *  @{ */

/** One parameter. */
typedef struct fsdpa_param {
  size_t size;                /**< sizeof(fsdpa_param) */
  const char *name;           /**< e.g. "launch.kernel_wait_ns" */
  int64_t default_value;      /**< its default */
  int64_t min_value;          /**< smallest value fsdpa_param_set() accepts */
  int64_t max_value;          /**< largest value fsdpa_param_set() accepts */
  const char *description;    /**< what it sets, its unit and whose rule the default follows */
} fsdpa_param;

/** Every parameter, in a fixed order: a list of ::fsdpa_param.
 *  @return ::FSDPA_OK, ::FSDPA_EINVAL, ::FSDPA_ENOMEM. */
FSDPA_API fsdpa_status fsdpa_param_list(fsdpa_list **out);
/**
 * Set an analysis threshold or option by name, e.g.
 * `fsdpa_param_set(ctx, "launch.kernel_wait_ns", "30000")`.  Values are
 * decimal integers from the parameter's min_value to its max_value (times in
 * ns, counts, shares in ppm; see fsdpa_param_list()).  A share (a name
 * ending in `_ppm`, 0 .. 1000000) also takes a percentage with at most four
 * decimals, as `fsdpa analyze --set` does: "30%" is 300000, "12.5%" 125000;
 * anything above 100 % is out of range.  The message of an unknown name
 * suggests the nearest one ("did you mean ...?") when it looks like a typo.
 *
 * One parameter takes a string and is not in fsdpa_param_list():
 * `comm.kernel_patterns`, a comma-separated list of glob patterns (`*`, `?`,
 * `[...]` as fnmatch(3), matched against the whole kernel name; empty items
 * are ignored, "" clears the list).  A kernel whose name matches one is
 * communication (rule "user" in the report's `comm_families`), for in-house
 * libraries the built-in name families and provenance do not know, e.g.
 * `"*my_ep::dispatch*,*fancy_allreduce*"`.  Setting it replaces the previous
 * list; memoized results are recomputed.
 * @return ::FSDPA_OK, or ::FSDPA_EINVAL for an unknown name or a value that is
 *         not an integer or is out of range (the parameter keeps its value);
 *         ::FSDPA_ENOMEM when the pattern list cannot be stored (the old one
 *         is kept).
 */
FSDPA_API fsdpa_status fsdpa_param_set(fsdpa_ctx *ctx, const char *key, const char *value);
/** The value a parameter has in `ctx`; for `comm.kernel_patterns` the
 *  number of patterns set.
 *  @return ::FSDPA_OK, or ::FSDPA_EINVAL for an unknown name. */
FSDPA_API fsdpa_status fsdpa_param_get(fsdpa_ctx *ctx, const char *key, int64_t *value);

/** @} */

/** @defgroup crossrank Cross-rank collectives and mergeable summaries
 *
 * The same collectives matched across the ranks of one job, and per-rank
 * summaries that let ranks be analysed apart and combined.
 *
 * <b>Matching.</b>  The collectives of a rank are its collective-library
 * kernels (NCCL/RCCL/MSCCL, as in the overlap analysis).  The same
 * collective on different ranks is identified by (process group name, `Seq`)
 * when the kernel, or the `record_param_comms` op around its launch, carries
 * `Seq`; otherwise by (process group name, collective type, ProfilerStep
 * number, ordinal of that type within the step), the ordinal counting the
 * rank's kernels of that group and type by start time.  The type comes from
 * `Collective name`, else the `nccl:OP` annotation around the launch, else
 * the kernel name; send, recv and SendRecv count as one type.  A kernel's
 * step is the `ProfilerStep#N` whose CPU range holds its launch call.  Several
 * kernels of one rank with the same identity count as one collective
 * spanning them.  A "matched" collective is one found on at least 2 ranks;
 * where its ranks disagree, its type is the lowest rank's, its step that of
 * the lowest rank that has one, and its bytes the largest any rank gives.
 *
 * <b>Order.</b>  Every result is the same whatever order the contexts (or
 * summaries) are given in, as long as their ranks are known and distinct:
 * the analysis first puts the ranks in rank order (a report refuses a rank
 * given twice; this query keeps equal ranks in the order given), and every
 * choice it makes on a tie falls on the lowest rank.
 * Reports list `inputs`, `ranks` and `cross_rank.per_rank` in rank order;
 * fsdpa_crossrank_rank_list() keeps the caller's order.  A context without
 * `distributedInfo.rank` is numbered by its position among the inputs, so
 * its number, and what depends on it, follows the order given.
 *
 * <b>Clocks.</b>  Ranks need not share a clock.  The reference rank is the one
 * taking part in the most matched collectives (the lowest rank on a tie).  A
 * rank's clock offset is the lower median, over the matched collectives it
 * shares with the reference rank, of (its kernel end − the reference's
 * kernel end): with k differences sorted ascending, the one at index
 * ⌊(k − 1) / 2⌋ (over an even count the smaller middle value, an observed
 * difference in exact integer ns).  Ranks sharing nothing with the reference
 * are aligned the same way through ranks already aligned, each collective
 * against the reference if it takes part, else against its lowest aligned
 * rank.  Aligned time = own time − offset.  Ranks that cannot be aligned are
 * left out.
 *
 * <b>Transfer and wait.</b>  For a matched collective: duration on a rank =
 * kernel end − start (clock-free); "transfer" = the minimum duration over
 * its ranks (what the fastest rank spent: the data movement); a rank's
 * "wait" = its duration − transfer.  "arrival" = aligned kernel start; the
 * "last" rank is the one with the strictly latest arrival (none on a tie);
 * its "margin" = its arrival − the next-latest arrival; the time the others
 * "lost" to it = Σ over the other ranks of (its arrival − their arrival).
 * "Arrival skew" = latest − earliest arrival.  "End spread" = latest −
 * earliest aligned end; a collective whose end spread exceeds both its
 * transfer and `crossrank.end_tolerance_ns` (100 µs, for clock drift) is
 * "unsynchronized" (its ranks did not finish together, so it is likely
 * not one collective: a wrong ordinal match, or process groups the trace
 * does not name); unsynchronized collectives are counted, and left out of
 * every other figure.
 *
 * <b>Stragglers.</b>  The steps are the ProfilerStep numbers of the matched
 * collectives (a collective outside any step is a step of its own).  In each
 * step the "latest arriver" is the rank with the largest margin among the
 * step's collectives, if that margin is at least `crossrank.min_delay_ns`;
 * that margin is the rank's "delay" in the step.  The straggler is the rank
 * that is the latest arriver in the most steps (ties: more time lost by the
 * others, then the lower rank; a step's latest arriver on equal margins is
 * the lower rank too); finding `straggler-rank` fires when that count
 * is at least `crossrank.straggler_min_steps` and more than
 * `crossrank.straggler_min_share_ppm` of the steps (default: more than half,
 * so two ranks taking turns are not a straggler).  Its cost is the time the
 * others lost to it divided by the number of other aligned ranks.
 *
 * <b>What a verdict rests on.</b>  Counted in collectives (one per identity
 * above, however many ranks and kernels it has): "seen" = found on any rank;
 * "matched" = found on at least 2 ranks; "measured" = matched, on at least 2
 * aligned ranks, and not unsynchronized: the only ones the figures and the
 * straggler rule use.  The others are left out, each for one reason: found on
 * one rank only and lying outside the window that every aligned rank's trace
 * covers (from the latest first collective start to the earliest last
 * collective end, aligned): "clipped" at a trace edge (a rank that could not
 * be aligned has no place in that window, so its own are never clipped); else
 * found on one rank only with a `Seq` no other rank has ("unmatched"), or
 * without `Seq` ("no_seq": its position in the step found no partner);
 * matched but with fewer than 2 aligned ranks ("unaligned");
 * "unsynchronized".  seen = measured + the five.  When measured × 10⁶ < seen ×
 * `crossrank.straggler_min_used_ppm` (default: fewer than half of those seen
 * were measured: most were left out), `straggler-rank` is severity info
 * instead of warning and its detail says so; its detail and evidence give
 * the counts in any case.
 *
 * <b>Summaries</b> (`fsdpa.summary/1`, docs/summary-format.md) hold, per rank,
 * its input entry, its rank section and findings of the report, the
 * crossrank parameters and its collective table, so ranks can be analysed
 * where their traces live and combined centrally: merging is concatenation
 * of the rank lists, put in rank order (associative and commutative for
 * distinct ranks), and the report of a merged summary is byte-identical to
 * fsdpa_report() over the same traces, in any order.
 *  @{ */

/** Result of fsdpa_crossrank_query() over the contexts of one job. */
typedef struct fsdpa_crossrank {
  size_t size;                   /**< sizeof(fsdpa_crossrank) */
  uint64_t ranks;                /**< contexts given */
  uint64_t collectives;          /**< matched collectives that ended together (the measured ones; 0 with fewer than 2 ranks) */
  uint64_t unmatched;            /**< collective kernels (per rank) whose identity no other rank has */
  uint64_t unaligned;            /**< matched per-rank kernels left out because their rank could not be aligned */
  uint64_t unsynchronized;       /**< matched collectives whose end spread exceeds their transfer and crossrank.end_tolerance_ns (left out of the other figures) */
  int64_t reference_rank;        /**< rank whose clock the others are aligned to; ABSENT if nothing matched */
  int64_t transfer_ns;           /**< Σ over matched collectives of transfer (once per collective); ABSENT if none */
  int64_t wait_ns;               /**< Σ over matched collectives and their ranks of wait; ABSENT if none */
  int64_t end_spread_p50_ns;     /**< lower median over matched collectives of the end spread; ABSENT if none */
  int64_t end_spread_max_ns;     /**< largest end spread; ABSENT if none */
  uint64_t steps;                /**< steps holding matched collectives (step-less collectives count one each) */
  int64_t straggler_rank;        /**< rank named by `straggler-rank`, ABSENT if the rule does not fire */
  uint64_t straggler_late_steps; /**< steps in which the straggler was the latest arriver (0 if none) */
  int64_t straggler_mean_delay_ns; /**< mean of its delay over those steps (floor), ABSENT if none */
  int64_t straggler_max_delay_ns;  /**< its largest delay in a step, ABSENT if none */
  int64_t straggler_lost_ns;     /**< time the other ranks lost waiting for it (Σ over the collectives it arrived last at), ABSENT if none */
} fsdpa_crossrank;

/** One rank's part of the cross-rank analysis (fsdpa_crossrank_rank_list()). */
typedef struct fsdpa_crossrank_rank {
  size_t size;                   /**< sizeof(fsdpa_crossrank_rank) */
  int64_t rank;                  /**< rank (distributedInfo.rank, else the context's index) */
  int64_t clock_offset_ns;       /**< own clock − reference clock; ABSENT if the rank could not be aligned */
  uint64_t collectives;          /**< measured (matched, not unsynchronized) collectives the rank took part in */
  int64_t transfer_ns;           /**< Σ transfer of those collectives; ABSENT if none */
  int64_t wait_ns;               /**< Σ of its wait in them (transfer_ns + wait_ns = Σ of its durations); ABSENT if none */
  uint64_t last_count;           /**< matched collectives at which it arrived last */
  uint64_t late_steps;           /**< steps in which it was the latest arriver */
  int64_t mean_delay_ns;         /**< mean delay over those steps (floor); ABSENT if none */
  int64_t max_delay_ns;          /**< largest delay over those steps; ABSENT if none */
  int64_t lost_ns;               /**< time the other ranks lost waiting for it (0 if never last) */
} fsdpa_crossrank_rank;

/**
 * Cross-rank analysis over the contexts of one job (one per rank), on the
 * events fed so far.  Ranks are `distributedInfo.rank`, else the index.
 * Parameters (`crossrank.*`) are read from the context of the lowest rank
 * (the first of them on a tie), as fsdpa_report() does.
 * @param ctxs      array of n contexts, one per rank
 * @param n         number of contexts
 * @param[out] out  the result
 * @param err       receives the details of a failure (may be NULL)
 * @return ::FSDPA_OK (with zero counts and ABSENT values when fewer than 2
 *         contexts or nothing matched), ::FSDPA_EINVAL, ::FSDPA_ENOMEM,
 *         ::FSDPA_ELIMIT.
 */
FSDPA_API fsdpa_status fsdpa_crossrank_query(fsdpa_ctx *const *ctxs, size_t n, fsdpa_crossrank *out,
                                             fsdpa_error *err);
/** Every rank's part of the analysis of fsdpa_crossrank_query(), in the
 *  order of `ctxs`: a list of ::fsdpa_crossrank_rank.
 *  @return as fsdpa_crossrank_query(). */
FSDPA_API fsdpa_status fsdpa_crossrank_rank_list(fsdpa_ctx *const *ctxs, size_t n, fsdpa_list **out,
                                                 fsdpa_error *err);

/** Options of the summary functions that have no context.  Initialise with
 *  fsdpa_summary_options_init(). */
typedef struct fsdpa_summary_options {
  size_t size;                        /**< sizeof(fsdpa_summary_options) */
  const fsdpa_allocator *allocator;   /**< NULL: the default allocator */
  uint64_t max_memory_bytes;          /**< refuse to hold more than this (::FSDPA_ELIMIT); 0 = no cap */
} fsdpa_summary_options;

/** Defaults: default allocator, no cap.
 *  Writes at most `size` bytes (the caller's `sizeof`; bindings pass
 *  theirs) and sets the struct's `size` to it; a size below `sizeof(size_t)`
 *  writes nothing. */
FSDPA_API void fsdpa_summary_options_init_sized(fsdpa_summary_options *opts, size_t size);
/** The same with the caller's own `sizeof`: inline, so a caller built
 *  against an older header writes only the struct it knows. */
static inline void fsdpa_summary_options_init(fsdpa_summary_options *opts) { fsdpa_summary_options_init_sized(opts, sizeof *opts); }

/**
 * Write the summary (`fsdpa.summary/1`, one rank) of a context: its entry
 * of the report's `inputs`, its `ranks` element and its findings exactly
 * as fsdpa_report() writes them, its collective table and its crossrank
 * parameters.  A trace without `distributedInfo.rank` (and no
 * fsdpa_options.rank) is written as rank 0, as fsdpa_report() numbers a
 * lone trace.
 * @param ctx   the context (its events so far)
 * @param path  input name for the `inputs` entry (NULL: "\<input\>")
 * @param[out] out      NUL-terminated JSON, release with fsdpa_free()
 * @param[out] out_len  its length (may be NULL)
 * @return ::FSDPA_OK, ::FSDPA_EINVAL, ::FSDPA_ENOMEM, ::FSDPA_ELIMIT.
 */
FSDPA_API fsdpa_status fsdpa_summary_write(fsdpa_ctx *ctx, const char *path, char **out,
                                           size_t *out_len);
/**
 * Merge n summaries (each one rank or an earlier merge) into one: the rank
 * entries of all of them, verbatim, in rank order, so merging is
 * associative and commutative:
 * merge(merge(a,b),c) = merge(a,merge(b,c)) = merge(a,b,c) = merge(b,a,c)
 * byte for byte.  Each input is validated, and a rank found twice (the
 * same summary given twice, two jobs mixed, or traces without
 * `distributedInfo.rank` summarized without a rank) is refused with
 * ::FSDPA_EINVAL, `err->input` the summary where it was found again.
 * @param sums  n summaries
 * @param lens  their lengths in bytes
 * @param n     number of summaries (at least 1)
 * @param opts  allocator and cap, or NULL
 * @param[out] out      NUL-terminated merged summary, release with fsdpa_free()
 * @param[out] out_len  its length (may be NULL)
 * @param err   receives the details of a failure (which summary, the byte
 *              offset in it, the message); may be NULL
 * @return ::FSDPA_OK, ::FSDPA_EINVAL, ::FSDPA_EPARSE (not a valid summary, or
 *         one of another format version: the message names it),
 *         ::FSDPA_ENOMEM, ::FSDPA_ELIMIT.
 */
FSDPA_API fsdpa_status fsdpa_summary_merge(const char *const *sums, const size_t *lens, size_t n,
                                           const fsdpa_summary_options *opts, char **out,
                                           size_t *out_len, fsdpa_error *err);
/**
 * The report of a (merged) summary: identical to fsdpa_report() over the
 * ranks' traces, in any order (see @ref crossrank, Order; the cross-rank section and finding
 * are computed here, over all ranks).  Text and HTML are the JSON report
 * rendered (fsdpa_report_render()): the text identical to fsdpa_report()'s,
 * the page without the views that need the events.
 * @param sum    the summary (fsdpa_summary_write() or fsdpa_summary_merge())
 * @param len    its length in bytes
 * @param opts   allocator and cap, or NULL
 * @param ropts  report options or NULL (JSON)
 * @param[out] out      NUL-terminated report, release with fsdpa_free()
 * @param[out] out_len  its length (may be NULL)
 * @param err    receives the details of a failure; may be NULL
 * @return ::FSDPA_OK, ::FSDPA_EINVAL, ::FSDPA_EPARSE, ::FSDPA_ENOMEM, ::FSDPA_ELIMIT.
 */
FSDPA_API fsdpa_status fsdpa_summary_report(const char *sum, size_t len,
                                            const fsdpa_summary_options *opts,
                                            const fsdpa_report_options *ropts, char **out,
                                            size_t *out_len, fsdpa_error *err);
/**
 * The findings of the report of a (merged) summary, typed: the same list,
 * in the same order, as fsdpa_report_findings() over the ranks' traces.
 * @param sum       the summary (fsdpa_summary_write() or fsdpa_summary_merge())
 * @param len       its length in bytes
 * @param opts      allocator and cap, or NULL
 * @param[out] out  a list of ::fsdpa_finding
 * @param err       receives the details of a failure; may be NULL
 * @return as fsdpa_summary_report().
 */
FSDPA_API fsdpa_status fsdpa_summary_findings(const char *sum, size_t len,
                                              const fsdpa_summary_options *opts, fsdpa_list **out,
                                              fsdpa_error *err);
/** @} */

#ifdef FSDPA_EXPERIMENTAL
/* ==== Experimental: may change or disappear in any release ==== */

/** @defgroup annotate Findings written into a copy of the trace (experimental)
 *
 * Experimental: the added events' names and arguments may change.
 *
 * fsdpa_annotate_file() writes a copy of a trace with the findings added as
 * trace events, so Perfetto and chrome://tracing show them next to the
 * evidence.  The findings are those of fsdpa_report() over the same
 * contexts (same order, worst first) whose `rank` is the annotated
 * context's rank (`distributedInfo.rank`, else its index).  Added events:
 *
 * - a process named `fsdpa findings` (`M` events `process_name`, and
 *   `process_sort_index` -1 so viewers put it first); its pid is one more
 *   than the largest numeric pid among the trace's retained events;
 * - per finding, in report order k = 1, 2, ..., a thread named
 *   `<k>. <id> (<severity>)` (tid = the next free number from 1);
 *   ranges of one finding that overlap in time go to extra threads
 *   `... #2`, because a viewer cannot draw overlapping slices of a thread;
 * - per time range of the finding (`evidence.ranges` of the JSON report),
 *   one complete event: `ph` "X", `cat` "fsdpa", `name` = the finding's
 *   title, `ts` / `dur` = the range, `args` = {id, severity, rank, step,
 *   cost_ns, detail, advice, range ("1 of 3", worst first), evidence};
 * - a finding without ranges: one global instant event (`ph` "i", `s` "g")
 *   at the start of the trace (earliest of its first GPU op and first
 *   step); a trace without findings gets one such event named
 *   `fsdpa: no findings`.
 *
 * Times are written in the trace's own convention: µs relative to
 * `baseTimeNanoseconds` when the trace has it (else on the trace's clock),
 * with three decimals, so they are exact ns.
 *
 * Every byte of the input is kept: the new events are inserted right after
 * the `[` that opens the top-level `traceEvents` array (or the top-level
 * array of a bare event list), followed by a `,` unless the array is
 * empty.  The result is valid JSON that fsdpa reads back to the same
 * analysis (the added events are metadata and `fsdpa` events, which no
 * analysis reads).
 *  @{ */

/** Options of fsdpa_annotate_file().  Initialise with fsdpa_annotate_options_init(). */
typedef struct fsdpa_annotate_options {
  size_t size;   /**< sizeof(fsdpa_annotate_options) */
  int gzip;      /**< 1: gzip the output, 0: plain JSON, -1 (default): gzip when the output name ends in ".gz" */
  int level;     /**< gzip level 1..9; 0 (default) = 6 */
} fsdpa_annotate_options;

/** Defaults: gzip by output name, level 6.
 *  Writes at most `size` bytes (the caller's `sizeof`; bindings pass
 *  theirs) and sets the struct's `size` to it; a size below `sizeof(size_t)`
 *  writes nothing. */
FSDPA_API void fsdpa_annotate_options_init_sized(fsdpa_annotate_options *opts, size_t size);
/** The same with the caller's own `sizeof`: inline, so a caller built
 *  against an older header writes only the struct it knows. */
static inline void fsdpa_annotate_options_init(fsdpa_annotate_options *opts) { fsdpa_annotate_options_init_sized(opts, sizeof *opts); }

/**
 * The events fsdpa_annotate_file() adds to trace i, as a JSON array text.
 * @param ctxs  n contexts (the ranks of one job, as for fsdpa_report())
 * @param n     number of contexts
 * @param i     the context whose events are wanted (0 ≤ i < n)
 * @param[out] out      NUL-terminated JSON array, release with fsdpa_free()
 * @param[out] out_len  its length (may be NULL)
 * @param err  receives the details of a failure; may be NULL
 * @return ::FSDPA_OK, ::FSDPA_EINVAL, ::FSDPA_ENOMEM, ::FSDPA_ELIMIT.
 */
FSDPA_API fsdpa_status fsdpa_annotate_events(fsdpa_ctx *const *ctxs, size_t n, size_t i, char **out,
                                             size_t *out_len, fsdpa_error *err);

/**
 * Write a copy of trace i (`in_path`, plain or gzip: the file ctxs[i] was
 * fed) to `out_path` ("-" = standard output) with the findings added as
 * events (see the group).  The input is streamed: memory does not grow with
 * its size.  The context must have read this trace through fsdpa_feed() or
 * fsdpa_feed_file() (its parser recorded where the event array opens), and
 * the file must be the same bytes (checked on the decompressed length and on
 * that position); it cannot be standard input, nor the output file.  On
 * failure no output file is left.
 * @return ::FSDPA_OK, ::FSDPA_EINVAL (bad argument, or not the trace the
 *         context read), ::FSDPA_EIO, ::FSDPA_EPARSE (corrupt gzip),
 *         ::FSDPA_ENOTTRACE (the context read no `traceEvents` array, e.g.
 *         it was given structured events only), ::FSDPA_ETRUNCATED,
 *         ::FSDPA_ENOMEM, ::FSDPA_ELIMIT.
 */
FSDPA_API fsdpa_status fsdpa_annotate_file(fsdpa_ctx *const *ctxs, size_t n, size_t i,
                                           const char *in_path, const char *out_path,
                                           const fsdpa_annotate_options *opts, fsdpa_error *err);
/** @} */

/** @defgroup efficiency Kernel and op breakdown, FLOPs and MFU (experimental)
 *
 * Experimental: the peak table and the op models may grow.
 *
 * What the GPU spent its busy time on, after HTA's kernel breakdown, nsys's
 * `cuda_gpu_kern_sum` and TraceLens's per-op performance models.
 * Definitions every number of this group keeps to:
 *
 * - **GPU op**: a kernel, memcpy or memset event (as in the launch gaps
 *   group).  Its **class** is the one the overlap analysis uses:
 *   "communication" (the views' classification: name family, user pattern or
 *   provenance; its **family** is the report's comm_families value),
 *   "compute" (every other kernel), "memcpy", "memset".
 * - **Kernel table**: the GPU ops of the selected streams overlapping the
 *   query window, grouped by name; a GPU op counts by its part inside the
 *   window ([max(start, t0), min(end, t1))), as every query does.  Per name:
 *   count, Σ, mean (floor of Σ / count), nearest-rank median (the smallest d
 *   with at least half of the durations <= d), min and max of those clipped
 *   durations; share = Σ / busy, busy = |union of every GPU op of the
 *   selected streams ∩ window| (the rank's GPU busy time, also when one FSDP
 *   unit is selected; shares of names that run beside each other on several
 *   streams can add up to more than 1).  Rows are sorted by Σ (largest first), then
 *   name; with `max_rows` set, the rows past it are folded into one last row
 *   (name NULL) whose count and Σ are the tail's sums, mean Σ / count, min /
 *   max the tail's, median ABSENT.
 * - **Attribution** of a GPU op to a CPU op: its launch call (correlation id,
 *   as in the launch gaps group), then the innermost `cpu_op` on the launch
 *   call's thread whose [start, end) holds the call's start; a launch call
 *   inside no op of its thread (or a GPU op without a launch call) takes the
 *   op whose `External id` it carries, when one op has it; else the GPU op is
 *   **unattributed**.  The GPU op then belongs to the nearest op, from that
 *   innermost one outwards, that has a **FLOPs model** (below), else to the
 *   innermost op: so a modelled op's kernel time is every GPU op launched
 *   under it (memsets and copies included), which is TraceLens's kernel time
 *   of an op (`aten::convolution` gets the kernels its `aten::miopen_convolution`
 *   launches), and a GPU op is never counted twice.  One **call** = one
 *   `cpu_op` event with GPU ops.
 * - **Op table**: one row per (op name, `Input Dims`, `Input type`) over the
 *   calls selected: a call is selected by the start of its first GPU op on
 *   the selected streams lying in the window (so every call falls in exactly
 *   one step), and counts the full durations of its GPU ops on the selected
 *   streams (`kernel_ns`).  Unattributed GPU ops form rows of their own, one
 *   per GPU op name (name NULL, category by class: communication, else copy
 *   for memcpy/memset, else other), with count = their number.
 * - **Category** of an op, by name (events/classify): gemm (mm, addmm, bmm,
 *   baddbmm, matmul, linear, _scaled_mm, grouped GEMMs, ...), attention
 *   (scaled_dot_product_*, flash / efficient / cudnn attention, flash_attn),
 *   conv (convolution and its backward, cudnn / miopen convolutions),
 *   normalization (batch / layer / group / instance / RMS norm and their
 *   backward), reduction (sum, mean, max, min, norm, softmax, ...), copy
 *   (copy_, to, clone, contiguous, cat, fill, index_select, ...),
 *   elementwise (add, mul, div, activations and their backward, foreach and
 *   fused optimizer ops, ...), communication (record_param_comms, c10d and
 *   nccl ops, or every GPU op of the call communication), other.
 * - **FLOPs and bytes of one call**, from its shapes (TraceLens's
 *   perf_model.py conventions, so the counts equal TraceLens's): GEMM
 *   `aten::mm` A[M,K]·B[K,N]: 2·M·N·K; `aten::addmm` (bias, A, B): 2·M·N·K +
 *   M·N; `aten::bmm` [b,M,K]·[b,K,N]: b·2·M·N·K; `aten::baddbmm`: b·(2·M·N·K
 *   + M·N); `aten::_scaled_mm`: 2·M·N·K (+ M·N with 3 inputs); grouped
 *   (`aten::_grouped_mm`, `aten::_scaled_grouped_mm`, `primus_turbo` grouped
 *   GEMMs) X[M,K]·W[G,K,N]: 2·M·K·N ([G,M,K]·[G,K,N]: G·2·M·K·N);
 *   bytes (M·K + K·N + M·N (+ N bias))·element size (b times for batches).
 *   Attention forward (`aten::_scaled_dot_product_{flash,efficient,cudnn}_attention`,
 *   `flash_attn::_flash_attn_forward`, `FlashAttnFunc`): 4·B·H_Q·N_Q·N_KV·d
 *   (2·B·H_Q·N_Q·N_KV·(d_qk + d_v)), halved when causal (only when N_Q = N_KV;
 *   not modelled otherwise); backward (their `_backward` ops,
 *   `flash_attn::_flash_attn_backward`): TraceLens's `flops_bwd_func`
 *   (2·B·H_Q·N_Q·N_KV·(2·d_qk + 2·d_v) + the GQA reduction terms, plus the
 *   recomputed QKᵀ for flash implementations), halved when causal.
 *   Convolution (`aten::convolution`): 2·|output|·(C_in/groups)·|kernel|
 *   (+ |output| with a bias), its backward (`aten::convolution_backward`)
 *   the input and weight gradients, each as large (+ the bias gradient).
 *   Elementwise (unary: copy, copy_, clamp_min/max, sigmoid, rsqrt, silu,
 *   neg, pow; binary: add, sub, mul, div, sigmoid_backward,
 *   threshold_backward): FLOPs = output elements, bytes = inputs + output.
 *   Every other op: ABSENT.  Element sizes: double, long 8; float, int,
 *   Scalar 4; half, bfloat16 2; float8 1.
 * - **Achieved**: tflops_per_s = flops × count / kernel_ns / 1000 (10^12
 *   FLOP/s), tb_per_s = bytes × count / kernel_ns / 1000 (10^12 B/s): one
 *   ratio over the row's summed kernel time (TraceLens reports the mean of
 *   per-call ratios, and times each call by the union of its kernels; see
 *   docs/report-contract.md for how the two compare).
 * - **Peaks**: a documented table (docs/report-contract.md, "Peak table")
 *   of dense tensor-core / matrix peaks per dtype (fp64, fp32, tf32, fp16,
 *   bf16, fp8) and memory bandwidth, keyed by the device's
 *   `deviceProperties` (name, SM count, compute capability); the device of a
 *   rank is the one that ran the most kernel time.  Unknown devices have no
 *   peaks.  The **compute dtype** of a call is its first matrix input's type.
 * - **MFU** of a window = Σ over the modelled calls selected (as in the op
 *   table) of flops / peak(device, compute dtype), divided by the window's
 *   length: the share of the window the device would need at its dense
 *   peak to do the modelled work.  A lower bound (ops without a model count
 *   as 0 FLOPs); -1 without a peak for any modelled call.
 *  @{ */

/** Which GPU ops fsdpa_kernel_list() tables.  Initialise with fsdpa_kernel_select_init(). */
typedef struct fsdpa_kernel_select {
  size_t size;               /**< sizeof(fsdpa_kernel_select) */
  int64_t fsdp_unit;         /**< position in fsdpa_fsdp_unit_list() (one unit in one phase): only the
                                  kernels of that entry's instances (its communication and compute, as
                                  ::fsdpa_fsdp_unit defines them); -1 (default): every GPU op */
  uint64_t max_rows;         /**< rows kept before the rest is folded into one row; 0 (default): all */
} fsdpa_kernel_select;

/** Defaults: every GPU op, no folding.
 *  Writes at most `size` bytes (the caller's `sizeof`; bindings pass
 *  theirs) and sets the struct's `size` to it; a size below `sizeof(size_t)`
 *  writes nothing. */
FSDPA_API void fsdpa_kernel_select_init_sized(fsdpa_kernel_select *sel, size_t size);
/** The same with the caller's own `sizeof`: inline, so a caller built
 *  against an older header writes only the struct it knows. */
static inline void fsdpa_kernel_select_init(fsdpa_kernel_select *sel) { fsdpa_kernel_select_init_sized(sel, sizeof *sel); }

/** One row of the kernel table (see the group).  Strings belong to the list. */
typedef struct fsdpa_kernel_stat {
  size_t size;               /**< sizeof(fsdpa_kernel_stat) */
  const char *name;          /**< GPU op name as in the trace; NULL for the folded row */
  const char *short_name;    /**< for display: a leading "void " and the argument list dropped, nested
                                  template arguments folded to "<…>" (all of them when still longer than
                                  96 bytes); "(other)" for the folded row */
  const char *kernel_class;  /**< "compute", "communication", "memcpy", "memset"; NULL for the folded row */
  const char *family;        /**< communication: its comm_families family; NULL otherwise */
  uint64_t count;            /**< GPU ops */
  uint64_t names;            /**< names in the row: 1, or the folded row's count of names */
  int64_t total_ns;          /**< Σ clipped durations */
  int64_t mean_ns;           /**< floor(total_ns / count) */
  int64_t p50_ns;            /**< nearest-rank median; ABSENT for the folded row */
  int64_t min_ns;            /**< shortest */
  int64_t max_ns;            /**< longest */
  double share;              /**< total_ns / busy of the selection; -1 when nothing is busy */
} fsdpa_kernel_stat;

/**
 * The kernel table of the selected streams in the query window (see the
 * group): a list of ::fsdpa_kernel_stat, largest Σ first.  Per step: select
 * it with ::FSDPA_QUERY_STEP; per stream: ::FSDPA_QUERY_STREAM; per FSDP
 * unit and phase: `sel->fsdp_unit`.
 * @param ctx  the context
 * @param q    window and streams (NULL = whole trace)
 * @param sel  selection and folding (NULL = every GPU op, no folding)
 * @param[out] out the list
 * @return ::FSDPA_OK, ::FSDPA_EINVAL (bad query, size or unit), ::FSDPA_ENOMEM, ::FSDPA_ELIMIT.
 */
FSDPA_API fsdpa_status fsdpa_kernel_list(fsdpa_ctx *ctx, const fsdpa_query *q, const fsdpa_kernel_select *sel,
                                         fsdpa_list **out);

/** One row of the op table (see the group): one per (op name, `Input Dims`,
 *  `Input type`, `Concrete Inputs`).  Strings belong to the list. */
typedef struct fsdpa_op_stat {
  size_t size;               /**< sizeof(fsdpa_op_stat) */
  const char *name;          /**< CPU op name; NULL for unattributed GPU ops and the folded row */
  const char *gpu_op;        /**< unattributed rows: the GPU op name; NULL otherwise */
  const char *category;      /**< "gemm", "attention", "conv", "elementwise", "reduction",
                                  "normalization", "copy", "communication", "other"; NULL for the folded row */
  const char *input_dims;    /**< `Input Dims` as JSON text (blanks dropped), NULL if not recorded */
  const char *input_types;   /**< `Input type` as JSON text, NULL if not recorded */
  const char *concrete_inputs; /**< `Concrete Inputs` as JSON text, NULL if not recorded (rows differ by it too:
                                  a stride or a causal flag changes the FLOPs) */
  const char *model;         /**< the FLOPs model applied ("gemm", "bmm", "grouped_gemm", "sdpa_fwd",
                                  "sdpa_bwd", "conv_fwd", "conv_bwd", "unary", "binary"), NULL if none */
  const char *dtype;         /**< compute dtype ("fp64", "fp32", "fp16", "bf16", "fp8"), NULL if unknown */
  uint64_t count;            /**< calls selected */
  uint64_t gpu_ops;          /**< their GPU ops on the selected streams */
  uint64_t names;            /**< 1, or the folded row's count of rows */
  int64_t kernel_ns;         /**< Σ durations of those GPU ops */
  int64_t flops;             /**< FLOPs of one call by the model; ABSENT without one (the folded row: Σ over its calls) */
  int64_t bytes;             /**< bytes one call moves by the model; ABSENT without one */
  double tflops_per_s;       /**< flops × count / kernel_ns / 1000; -1 without flops or time */
  double tb_per_s;           /**< bytes × count / kernel_ns / 1000; -1 without bytes or time */
  double peak_share;         /**< tflops_per_s / the device's dense peak for dtype; -1 if unknown */
} fsdpa_op_stat;

/**
 * The op table of the selected streams in the query window (see the
 * group): a list of ::fsdpa_op_stat sorted by kernel_ns (largest first),
 * then name, dims, types; with max_rows > 0 the rows past it are folded into
 * one last row.
 * @return ::FSDPA_OK, ::FSDPA_EINVAL, ::FSDPA_ENOMEM, ::FSDPA_ELIMIT.
 */
FSDPA_API fsdpa_status fsdpa_op_list(fsdpa_ctx *ctx, const fsdpa_query *q, uint64_t max_rows, fsdpa_list **out);

/** Busy-time efficiency of a window (see the group). */
typedef struct fsdpa_efficiency {
  size_t size;               /**< sizeof(fsdpa_efficiency) */
  int64_t step;              /**< ProfilerStep number (fsdpa_efficiency_step_list() rows); ABSENT otherwise */
  int64_t window_ns;         /**< length of the window: the step's CPU range, or the query's window
                                  clipped to the rank's first and last event; ABSENT if empty */
  int64_t kernel_ns;         /**< Σ kernel_ns of every op-table row of the window (attributed or not) */
  int64_t modelled_ns;       /**< of which rows with a FLOPs model */
  double modelled_share;     /**< modelled_ns / kernel_ns; -1 without kernel time */
  int64_t gemm_ns;           /**< kernel_ns of category gemm */
  int64_t attention_ns;      /**< of category attention */
  int64_t conv_ns;           /**< of category conv */
  int64_t elementwise_ns;    /**< of category elementwise */
  int64_t reduction_ns;      /**< of category reduction */
  int64_t normalization_ns;  /**< of category normalization */
  int64_t copy_ns;           /**< of category copy */
  int64_t communication_ns;  /**< of category communication */
  int64_t other_ns;          /**< of category other */
  int64_t flops;             /**< Σ flops × count of the modelled rows */
  double mfu;                /**< see the group; -1 when no modelled call has a peak */
  int64_t device;            /**< the rank's device (most kernel time); ABSENT without GPU ops */
} fsdpa_efficiency;

/** Efficiency of the query window (NULL: the whole trace).
 *  @return ::FSDPA_OK, ::FSDPA_EINVAL, ::FSDPA_ENOMEM, ::FSDPA_ELIMIT. */
FSDPA_API fsdpa_status fsdpa_efficiency_query(fsdpa_ctx *ctx, const fsdpa_query *q, fsdpa_efficiency *out);
/** Efficiency per ProfilerStep (each step's CPU range as the window; the
 *  query's streams, and steps whose start lies in its window): a list of
 *  ::fsdpa_efficiency in step order.
 *  @return ::FSDPA_OK, ::FSDPA_EINVAL, ::FSDPA_ENOMEM, ::FSDPA_ELIMIT. */
FSDPA_API fsdpa_status fsdpa_efficiency_step_list(fsdpa_ctx *ctx, const fsdpa_query *q, fsdpa_list **out);

/** A device's dense peaks from the peak table (see the group). */
typedef struct fsdpa_device_peak {
  size_t size;               /**< sizeof(fsdpa_device_peak) */
  int64_t device;            /**< the device asked for */
  char model[32];            /**< the table row matched ("H100 SXM", "MI300X", ...), "" if the device is unknown */
  double fp64_tflops;        /**< dense FP64 peak, 10^12 FLOP/s (tensor / matrix units where they have it); -1 unknown */
  double fp32_tflops;        /**< dense FP32 peak (what an fp32 matmul without TF32 gets); -1 unknown */
  double tf32_tflops;        /**< dense TF32 tensor-core peak; -1 when the device has none */
  double fp16_tflops;        /**< dense FP16 peak; -1 unknown */
  double bf16_tflops;        /**< dense BF16 peak; -1 when the device has none */
  double fp8_tflops;         /**< dense FP8 peak; -1 when the device has none */
  double hbm_tb_per_s;       /**< memory bandwidth, 10^12 B/s; -1 unknown */
} fsdpa_device_peak;

/** The peak-table row of `device` (ABSENT: the rank's device, as in
 *  ::fsdpa_efficiency).  An unknown device gives model "" and -1 peaks.
 *  @return ::FSDPA_OK, ::FSDPA_EINVAL. */
FSDPA_API fsdpa_status fsdpa_device_peak_get(fsdpa_ctx *ctx, int64_t device, fsdpa_device_peak *out);
/** @} */

/** @defgroup diff Comparing two runs (experimental)
 *
 * Experimental: the metrics compared may grow.
 *
 * fsdpa_diff() compares two runs, each a JSON report (fsdpa_report() with
 * ::FSDPA_FORMAT_JSON) or a summary (fsdpa_summary_write(), merged or not:
 * a baseline a CI job keeps instead of traces).  Ranks are matched by
 * number; the **job** is the mean over the ranks both runs have.
 * docs/report-contract.md ("Diff") defines every metric and its direction;
 * the JSON output follows `fsdpa.diff/1` (docs/diff.schema.json).
 *
 * - **Step time** of a rank: the mean CPU duration of its steady
 *   ProfilerSteps (those `launch_gaps.steps` marks steady; all when none
 *   is); without ProfilerSteps, its GPU span divided by its iterations
 *   (1 without iterations).  Per-iteration metrics (GPU idle and its
 *   causes, exposed and total communication, table rows, finding costs)
 *   likewise: the mean over the steady steps where the report has them per
 *   step, else the whole-trace value divided by the iterations.
 * - **Spread**: a metric the report has per step has a run-to-run spread,
 *   half the range (max − min) of its steady steps' values; a comparison
 *   takes the larger of the two runs'.  A change is **beyond the spread**
 *   when |new − base| exceeds it (always, for a metric without one).
 * - **Status** of a metric: `worse` or `better` when it moved beyond the
 *   spread by at least `min_change_ppm` of the base, else `same`.
 * - **Gate**: with `fail_on_regression_ppm` >= 0 the diff **regresses**
 *   when the job's step time or exposed communication per iteration grew
 *   by more than that share of the base and beyond the spread; the output
 *   names each metric that crossed and by how much.
 *  @{ */

/** Options of fsdpa_diff().  Initialise with fsdpa_diff_options_init(). */
typedef struct fsdpa_diff_options {
  size_t size;                        /**< sizeof(fsdpa_diff_options) */
  fsdpa_format format;                /**< ::FSDPA_FORMAT_JSON (`fsdpa.diff/1`), ::FSDPA_FORMAT_TEXT or ::FSDPA_FORMAT_HTML */
  int64_t fail_on_regression_ppm;     /**< the gate, parts per million of the base (50000 = 5 %); -1 (default): no gate */
  int64_t min_change_ppm;             /**< smallest change called worse / better, ppm of the base (default 50000 = 5 %) */
  int width;                          /**< text: columns, 40 .. 1000; 0 = 100 */
  int color;                          /**< text: ANSI colors */
  const fsdpa_allocator *allocator;   /**< NULL: the default allocator */
  uint64_t max_memory_bytes;          /**< refuse to hold more than this (::FSDPA_ELIMIT); 0 = no cap */
} fsdpa_diff_options;

/** Defaults: JSON, no gate, min change 5 %, width 100, no color, default
 *  allocator, no cap.  Writes at most `size` bytes (the caller's `sizeof`;
 *  bindings pass theirs) and sets the struct's `size` to it; a size below
 *  `sizeof(size_t)` writes nothing. */
FSDPA_API void fsdpa_diff_options_init_sized(fsdpa_diff_options *opts, size_t size);
/** The same with the caller's own `sizeof`: inline, so a caller built
 *  against an older header writes only the struct it knows. */
static inline void fsdpa_diff_options_init(fsdpa_diff_options *opts) { fsdpa_diff_options_init_sized(opts, sizeof *opts); }

/**
 * Compare two runs (see the group).
 * @param base      the baseline: a JSON report (`fsdpa.report/1`) or a summary (`fsdpa.summary/1`)
 * @param base_len  its length in bytes
 * @param next      the run to judge, likewise
 * @param next_len  its length
 * @param opts      format, gate, allocator, or NULL (JSON, no gate)
 * @param[out] out       NUL-terminated result, release with fsdpa_free()
 * @param[out] out_len   its length (may be NULL)
 * @param[out] regressed 1 when the gate is set and the job crossed it, else 0 (may be NULL)
 * @param err       receives the details of a failure (input 0 = base, 1 = next, the byte offset); may be NULL
 * @return ::FSDPA_OK, ::FSDPA_EINVAL, ::FSDPA_EPARSE (not JSON, or neither
 *         a report nor a summary of these formats), ::FSDPA_ENOMEM,
 *         ::FSDPA_ELIMIT.
 */
FSDPA_API fsdpa_status fsdpa_diff(const char *base, size_t base_len, const char *next, size_t next_len,
                                  const fsdpa_diff_options *opts, char **out, size_t *out_len, int *regressed,
                                  fsdpa_error *err);
/** @} */

#endif /* FSDPA_EXPERIMENTAL */

#ifdef __cplusplus
}
#endif
#endif /* FSDPA_FSDPA_H */
