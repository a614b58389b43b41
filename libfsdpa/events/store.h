/* The event store: compact records decoded from the trace, by kind, plus
 * tracks (CPU threads, GPU streams) and interned names.  Analyses read it;
 * nothing in it depends on any analysis.
 *
 * Times are kept relative to the trace clock as parsed (ts as in the file,
 * in ns); the public API adds ctx->base_ns.  Records arrive in file order,
 * which is not time order; store_views() builds sorted per-track indexes on
 * demand and caches them until more events arrive. */
#ifndef FSDPA_EVENTS_STORE_H
#define FSDPA_EVENTS_STORE_H
#include <stddef.h>
#include <stdint.h>
#include "fsdpa/fsdpa.h"
#include "util/alloc.h"
#include "util/intern.h"
#include "util/interval.h"
#include "events/classify.h"

#define AUX_NONE UINT32_MAX
/* Largest |time| kept, ns (2^61 = 73 years): sums/differences stay in int64. */
#define STORE_MAX_TIME ((int64_t)1 << 61)
/* Largest |memory value| kept (Bytes, Total Allocated/Reserved, a runtime
 * call's bytes), 2^50 = 1 PiB; larger ones are stored as absent. */
#define STORE_MAX_BYTES ((int64_t)1 << 50)

/* 48 bytes: kernels, memcpy/memset, cuda_sync, runtime calls, cpu ops,
 * annotations. */
typedef struct ev_rec {
  int64_t ts;      /* start, ns (relative clock) */
  int64_t end;     /* ts + dur (dur clamped >= 0) */
  int64_t corr;    /* correlation id or FSDPA_ABSENT */
  int64_t ext;     /* External id or FSDPA_ABSENT */
  uint32_t name;   /* intern id */
  uint32_t track;  /* track id */
  uint32_t aux;    /* kernels / record_param_comms: coll_info index; runtime: i64 side value
                      (bytes) index; cuda_sync: sync_info index; else AUX_NONE */
  uint8_t kind;    /* enum rec_kind */
  uint8_t pad8;
  uint16_t pad16;
} ev_rec;

/* Collective metadata from kernel args or record_param_comms. */
typedef struct coll_info {
  uint32_t coll_name;  /* intern id of "Collective name" or INTERN_NONE */
  uint32_t dtype;      /* intern id or INTERN_NONE */
  uint32_t pg_name;    /* intern id or INTERN_NONE */
  int32_t group_size;  /* -1 unknown */
  int64_t in_nelems, out_nelems, seq;  /* FSDPA_ABSENT if unknown */
} coll_info;

/* cuda_sync extras. */
typedef struct sync_info {
  uint32_t sync_kind;  /* intern id of cuda_sync_kind or INTERN_NONE */
  uint32_t pad;
  int64_t wait_on_stream, wait_on_event_corr;
} sync_info;

/* [memory] / [OutOfMemory] instant. 48 bytes. */
typedef struct mem_rec {
  int64_t ts;
  int64_t bytes;           /* > 0 alloc, < 0 free; ABSENT if missing */
  int64_t total_allocated; /* ABSENT if missing */
  int64_t total_reserved;  /* ABSENT if missing */
  int32_t device_type;     /* c10::DeviceType (0 CPU, 1 CUDA ...), -1 unknown */
  int32_t device_id;
  uint32_t track;
  uint8_t oom;             /* [OutOfMemory] */
  uint8_t pad[3];
} mem_rec;

/* An event of a device backend not analyzed (classify_xdev). 40 bytes. */
typedef struct xdev_rec {
  int64_t ts, end;         /* relative */
  int64_t pid, tid;        /* device side: device and stream (or queue) as the trace names them */
  uint8_t type, host;      /* XDEV_*, host-side runtime call */
  uint8_t pad[6];
} xdev_rec;

/* The record_shapes arguments of a CPU op (args "Input Dims", "Input type",
 * "Concrete Inputs"): each JSON array compacted (no blanks outside strings),
 * the three joined by SHAPE_SEP (an absent one is empty) and interned once
 * in store.shapes.  Only CPU ops that have them get a shape_ref. */
#define SHAPE_SEP '\x1f'
typedef struct shape_ref {
  uint32_t cpu;    /* index in st.cpu */
  uint32_t shape;  /* id in st.shapes */
} shape_ref;

/* Per backend not analyzed: what the report says about it. */
typedef struct xdev_sum {
  uint64_t events;         /* device-side events */
  uint64_t runtime_events; /* host-side runtime / driver events */
  uint64_t streams;        /* distinct (pid, tid) of the device-side events */
  int64_t busy_ns;         /* |union of the device-side events|, ABSENT without any */
} xdev_sum;

enum {
  TRACK_GPU = 1u << 0,
  TRACK_AUTOGRAD = 1u << 1,  /* thread named pt_autograd_* */
  TRACK_MAIN = 1u << 2       /* thread holding ProfilerStep annotations */
};

typedef struct track {
  int64_t pid, tid;   /* GPU: pid = device, tid = stream */
  uint32_t flags;
  uint32_t label;     /* thread_name (intern id) or INTERN_NONE */
} track;

typedef struct step_rec {
  int64_t number;
  int64_t ts, end;    /* relative */
  uint32_t track;
} step_rec;

/* Sorted, per-GPU-stream view of GPU activity (built on demand). */
typedef struct gpu_stream_view {
  uint32_t track;
  int64_t device, stream;
  uint32_t *ops;      /* indices into store.gpu, sorted by (ts, end) */
  size_t nops;
  iv *busy;           /* union of the ops (relative ns) */
  size_t nbusy;
  uint64_t kernels, comm_kernels, memops;
  int role;           /* fsdpa_stream_role */
} gpu_stream_view;

typedef struct store_views {
  uint64_t gen;              /* store generation these views were built at; 0 = never */
  gpu_stream_view *streams;  /* sorted by (device, stream) */
  size_t nstreams;
  iv *all_busy;              /* union over all streams of GPU activity */
  size_t nall, nall_alloc;
  /* correlation -> runtime record, open addressing; keys FSDPA_ABSENT = empty */
  int64_t *corr_keys;
  uint32_t *corr_vals;
  size_t corr_slots;
  /* or, when the ids are dense (the usual case), a direct table:
   * corr_dense[corr - corr_base] for corr_range ids, UINT32_MAX = none */
  uint32_t *corr_dense;
  int64_t corr_base;
  size_t corr_range;
  /* per st.gpu record: how it was classified as communication (comm_class.h
   * COMM_CODE), 0 = not communication (compute kernel, memcpy, memset) */
  uint32_t *comm;
  size_t ncomm_alloc;
  size_t bytes;              /* memory held by the views */
} store_views;

typedef struct store {
  intern_table names;
  fa_vec name_info;   /* uint32_t per name id: classify_name() bits */
  fa_vec name_fam;    /* uint8_t per name id: classify_comm_family() */
  fa_vec gpu;         /* ev_rec: kernel, memcpy, memset */
  fa_vec gsync;       /* ev_rec: cuda_sync */
  fa_vec gannot;      /* ev_rec: gpu_user_annotation */
  fa_vec rt;          /* ev_rec: runtime / driver calls */
  fa_vec cpu;         /* ev_rec: cpu_op and user_annotation */
  fa_vec fsdp_cpu;    /* uint32_t: indexes into cpu of FSDP annotations (NC_FSDP1|NC_FSDP2), in order */
  fa_vec fsdp_gannot; /* uint32_t: the same for gannot */
  fa_vec mem;         /* mem_rec */
  fa_vec colls;       /* coll_info */
  fa_vec syncs;       /* sync_info */
  fa_vec side;        /* int64_t values referenced by runtime aux (bytes) */
  fa_vec steps;       /* step_rec, sorted by (ts, number), ties in arrival order */
  fa_vec tracks;      /* track */
  fa_vec xdev;        /* xdev_rec: events of device backends not analyzed */
  intern_table shapes;/* distinct record_shapes signatures (shape_ref) */
  fa_vec shape_refs;  /* shape_ref, by cpu index (CPU ops arrive in order) */
  fa_vec devices;     /* fsdpa_device_info from deviceProperties, sorted by device */
  char *scratch;      /* store_add's buffer for compacting shapes */
  size_t scratch_cap;
  uint32_t *track_slots;  /* hash (pid,tid,gpu) -> id+1 */
  size_t track_nslots;
  /* Python frames are not kept, but whether the job runs a model's forward
   * or a backward, Megatron's sequence-parallel mappings, or a decoder
   * language model's parts (rotary embeddings, a KV cache ...) show in them:
   * counted, with the first name of each kind (an intern id, INTERN_NONE
   * when none). */
  uint64_t py_forward, py_backward, py_seq_par, py_decoder_lm;
  uint32_t py_forward_name, py_backward_name, py_seq_par_name, py_decoder_lm_name;
  uint64_t gen;       /* 1 when empty, bumped on every retained event */
  fsdpa_stats stats;
  store_views views;
  /* user patterns for communication kernels (comm.kernel_patterns): globs,
   * each NUL-terminated, one after the other */
  char *comm_pats;
  size_t comm_pats_bytes, ncomm_pats;
} store;

void store_init(store *s);
void store_free(fa_alloc *a, store *s);
/* Decode one event into the store (or count and drop it). */
fsdpa_status store_add(fa_alloc *a, store *s, const fsdpa_event *ev);
/* Build (or reuse) the sorted views.  NULL on allocation failure. */
const store_views *store_get_views(fa_alloc *a, store *s);
/* Per backend (out[XDEV_*]): counts, streams and busy time of the events
 * of device backends not analyzed.  Returns how many backends have events,
 * or -1 on allocation failure. */
int store_xdev_summary(fa_alloc *a, const store *s, xdev_sum out[XDEV__COUNT]);
/* Describe a device (replaces the one with the same id); bumps gen, since
 * analyses read the devices.  OK or ENOMEM/ELIMIT. */
fsdpa_status store_set_device(fa_alloc *a, store *s, const fsdpa_device_info *d);
/* The device described for `device`, NULL if none. */
const fsdpa_device_info *store_device(const store *s, int64_t device);
/* The shape id of CPU op `cpu` (index in st.cpu), INTERN_NONE if it has no
 * record_shapes arguments.  O(log n). */
uint32_t store_cpu_shape(const store *s, uint32_t cpu);
/* The three compact JSON texts of a shape (empty when absent). */
typedef struct shape_parts {
  const char *dims, *types, *concrete;
  size_t dims_n, types_n, concrete_n;
} shape_parts;
void store_shape_parts(const store *s, uint32_t shape, shape_parts *p);
/* Runtime record index for a correlation id, or UINT32_MAX. */
uint32_t store_runtime_for_corr(const store_views *v, int64_t corr);
/* Replace the user patterns for communication kernels by the comma-separated
 * globs in `list` (empty: none).  The views are rebuilt on next use.  0, or
 * -1 on allocation failure (the old patterns are kept). */
int store_set_comm_patterns(fa_alloc *a, store *s, const char *list);

static inline uint32_t store_name_info(const store *s, uint32_t name) {
  return name < s->name_info.len ? FA_VEC_AT(&s->name_info, uint32_t, name) : 0;
}
/* enum comm_family of a kernel name (CF_NONE = 0 when not by name). */
static inline int store_name_family(const store *s, uint32_t name) {
  return name < s->name_fam.len ? FA_VEC_AT(&s->name_fam, uint8_t, name) : 0;
}
static inline const char *store_name(const store *s, uint32_t name) {
  return intern_str(&s->names, name);
}
static inline const track *store_track(const store *s, uint32_t id) {
  return &FA_VEC_AT(&s->tracks, track, id);
}
#define STORE_REC(v, i) (&FA_VEC_AT(v, ev_rec, i))
#endif
