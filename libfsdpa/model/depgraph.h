/* The dependency graph of one rank's trace: for every GPU op, what it could
 * not start before, as far as the trace proves it.  Every cause the report
 * gives for GPU idle time, the critical path and the what-if savings are
 * read from this one graph, so they can never disagree about why the GPU
 * waited.
 *
 * Edges into a GPU op K:
 *   - launch: the runtime call with K's correlation id (the host handed K to
 *     its stream when that call ran);
 *   - stream order: the op before K on K's stream;
 *   - event waits: a stream wait (cudaStreamWaitEvent / hipStreamWaitEvent)
 *     issued on K's stream after the op before K was enqueued and before K
 *     was: K waits for the op whose completion the event records.  Read per
 *     wait, from the best evidence the trace has for it (DG_E_*):
 *       DG_E_SYNC     a cuda_sync "Stream Wait Event" names the waiting
 *                     stream and the record's correlation id; the awaited
 *                     stream is its wait_on_stream, else the stream of the
 *                     recording thread's last launch before the record;
 *       DG_E_RUNTIME  no cuda_sync event: the waiting stream is the stream
 *                     of the calling thread's next launch after the wait
 *                     (PyTorch waits right before it launches on a stream),
 *                     the record is that thread's last event-record call
 *                     before the wait, on the stream of the thread's last
 *                     launch before the record onto another stream;
 *       DG_E_GUESS    as DG_E_RUNTIME, but the trace holds no event-record
 *                     call at all (some Kineto versions and ROCm do not
 *                     record them): the thread's last launch onto another
 *                     stream before the wait stands in for the record, a
 *                     hypothesis that the idle attribution drops when the
 *                     awaited op ended too long before K started;
 *       DG_E_OUTSIDE  the record is not in the trace (its correlation id is
 *                     -1 or not among the runtime calls: recorded before the
 *                     profiling window, or by a thread or process the trace
 *                     does not hold): an explicit node "event recorded
 *                     outside the trace";
 *   - inferred (DG_E_TIMING): K was queued (its launch call had ended) and
 *     none of the edges above explains its start, but an op on another stream
 *     of its device ended at most depgraph.inferred_lag_ns before K started:
 *     K waited for that op.  Labelled as inferred wherever it is used.
 * Between CPU threads (DG thread edges, inferred): a thread that launches GPU
 * work and made no runtime call for at least depgraph.thread_gap_min_ns
 * resumes (its next call R) at most depgraph.thread_wake_ns after a runtime
 * call of another launching thread ended, and that thread makes no call
 * until R starts (it handed off, it did not keep polling beside it): the
 * first waited for the second (the main thread in backward() while the
 * autograd thread runs it).  Labelled
 * inferred, with how many and the loosest lag.
 * Peers (DG peer waits, inferred): a collective kernel whose element counts
 * the trace records and that lasts at least depgraph.peer_wait_ns and twice
 * longer than the shortest kernel of the same collective (kernel name,
 * collective, dtype, process group, element counts) on the rank spent the
 * difference waiting for later ranks: its transfer is that shortest
 * duration, and it cannot end before the later ranks arrive, which a replay
 * of this rank alone does not move.
 * The legacy default stream's implicit synchronisation with blocking streams
 * is not modelled: the trace does not record stream flags, and the streams
 * PyTorch, NCCL and RCCL create are non-blocking, where it does not apply.
 *
 * Built once per context state (a cache slot) from the store, the views and
 * the blocking runtime calls (model/runtime_calls.h); owns nothing after
 * dg_free(). */
#ifndef FSDPA_MODEL_DEPGRAPH_H
#define FSDPA_MODEL_DEPGRAPH_H
#include "ctx.h"
#include "util/jsonw.h"

#define DG_NONE UINT32_MAX

enum { DG_E_SYNC = 1, DG_E_RUNTIME, DG_E_GUESS, DG_E_OUTSIDE, DG_E_TIMING, DG_E__N };

/* A wait edge into an op: it waits for st.gpu[op], or (DG_E_OUTSIDE) for an
 * event recorded outside the trace (op DG_NONE). */
typedef struct dg_wait {
  uint32_t op;       /* awaited op (st.gpu index) or DG_NONE */
  uint32_t call;     /* the wait call (st.rt index), DG_NONE for a cuda_sync event without one, or timing */
  uint32_t kind;     /* DG_E_* */
  uint32_t pad;
} dg_wait;

/* A CPU op of one thread, sorted by (thread, start, longer first), with the
 * op that encloses it: "what the thread was running" at a time. */
typedef struct dg_cpu {
  uint32_t track, name;
  int64_t ts, end;
  uint32_t parent;   /* index of the enclosing op, DG_NONE = none */
  uint32_t flags;    /* DG_CPU_* */
} dg_cpu;
/* The op's thread launched GPU work of the trace while inside it: a gap
 * inside such an op is time between its launches, not host work done
 * before any. */
#define DG_CPU_LAUNCHES 1u

/* A blocking runtime call (model/runtime_calls.h SC_BLOCKING_MASK), sorted by
 * (thread, start). */
typedef struct dg_block {
  uint32_t track, name;
  int64_t ts, end;
  uint32_t rt;       /* st.rt index */
  uint32_t op;       /* the GPU op it waited for (st.gpu index), DG_NONE when none was found */
} dg_block;

/* Evidence counts: how many edges of each kind the graph holds. */
typedef struct dg_evidence {
  uint64_t ops, launch_edges, stream_edges;
  uint64_t waits[DG_E__N];       /* by DG_E_* (index 0 unused) */
  uint64_t record_calls;         /* event-record runtime calls in the trace */
  int64_t timing_max_lag_ns;     /* the loosest inferred edge, 0 without any */
  uint64_t thread_edges;         /* inferred waits of a CPU thread for another */
  int64_t thread_max_lag_ns;     /* the loosest of them, 0 without any */
} dg_evidence;

/* An inferred wait of a CPU thread for another: runtime call rt started
 * once call from (another thread's) had ended. */
typedef struct dg_tedge {
  uint32_t rt, from;
} dg_tedge;

/* A collective kernel that waited for later peers (sorted by op). */
typedef struct dg_peer {
  uint32_t op;            /* st.gpu index */
  uint32_t pad;
  int64_t xfer_ns;        /* its transfer: the shortest duration of the same collective */
} dg_peer;

/* The replay's fixed orders (depgraph_sim.c), built once with the graph:
 * every what-if replays in them. */
typedef struct dg_order {
  size_t nrt;             /* = st.rt.len when built */
  uint32_t *rt_order;     /* runtime calls by start */
  uint32_t *op_order;     /* GPU ops by start */
  uint32_t *rt_wait;      /* per call: the op a blocking call waited for, DG_NONE */
  uint32_t *rt_prev;      /* per call: the call before it on its thread (by start), DG_NONE */
  uint32_t *w_off, *w_rt; /* per op: the blocking calls waiting for it (CSR, nops + 1 / nblk) */
} dg_order;

typedef struct depgraph {
  size_t nops;            /* = st.gpu.len when built */
  uint32_t *launch;       /* per op: st.rt index of its launch call, DG_NONE */
  uint32_t *prev;         /* per op: the op before it on its stream, DG_NONE */
  uint32_t *stream;       /* per op: index of its stream in the views */
  uint32_t *w_off;        /* per op + 1: its waits are w[w_off[i] .. w_off[i+1]) */
  dg_wait *w;
  size_t nw;
  dg_cpu *cpu;
  size_t ncpu;
  dg_block *blk;
  size_t nblk;
  iv *blk_u;              /* union of the blocking calls of every thread */
  size_t nblk_u;
  dg_tedge *te;           /* thread edges, sorted by rt */
  size_t nte;
  dg_peer *peer;          /* collectives that waited for later peers, sorted by op */
  size_t npeer;
  dg_evidence ev;
  dg_order ord;
  int borrowed;           /* a copy of the context's cached graph: dg_free only forgets it */
} depgraph;

/* The context's graph (cached; the copy is borrowed: dg_free() forgets it).
 * Needs the views current (ctx_views). */
fsdpa_status dg_get(fsdpa_ctx *c, depgraph *out);
void dg_free(fsdpa_ctx *c, depgraph *g);

/* Lookups. */
/* Traced CPU time of thread tr inside [a, b): the CPU ops starting in it,
 * clipped, nested ones counted once. */
int64_t dg_cpu_time(const depgraph *g, uint32_t tr, int64_t a, int64_t b);
/* The transfer time of op k when it waited for later peers, else -1. */
int64_t dg_peer_xfer(const depgraph *g, uint32_t k);
/* The thread edge into runtime call rt, or NULL. */
const dg_tedge *dg_thread_edge(const depgraph *g, uint32_t rt);
/* Innermost CPU op of thread tr spanning [a, b), DG_NONE if none.  *hint is
 * the previous answer (start at 0): lookups in time order are cheap. */
uint32_t dg_cpu_innermost(const depgraph *g, uint32_t tr, int64_t a, int64_t b, size_t *hint);
/* Index of the first blocking call of thread tr that may overlap [a, ...)
 * (calls of a thread follow one another); g->nblk when none. */
size_t dg_block_first(const depgraph *g, uint32_t tr, int64_t a);

/* ---- idle causes (depgraph_idle.c) ----
 * Every idle interval of the union of a window's selected streams, each
 * nanosecond given exactly one cause by walking back from the op that ends
 * the interval (rules in depgraph_idle.c; the contract, "Idle causes"). */
enum { DG_C_NOT_LAUNCHED, DG_C_BLOCKED, DG_C_STREAM_WAIT, DG_C_RANK_WAIT, DG_C_DISPATCH, DG_C_UNKNOWN, DG_C__N };
extern const char *const dg_cause_names[DG_C__N];
/* What a part names: nothing, an intern id, a stream number, an event
 * recorded outside the trace, an op launched before the trace's runtime
 * calls begin. */
enum { DG_W_NONE, DG_W_NAME, DG_W_STREAM, DG_W_OUTSIDE, DG_W_UNLINKED };
#define DG_CAUSE_TOP 5
typedef struct dg_cause_top {
  int cause, wkind;
  int64_t what;       /* intern id (DG_W_NAME) or stream number (DG_W_STREAM) */
  int64_t ns;
  int64_t host_ns;    /* of ns (host_not_launched, DG_W_NAME): inside instances that launched no GPU work */
} dg_cause_top;
typedef struct dg_causes {
  int64_t idle_ns;        /* the window's GPU idle */
  int64_t ns[DG_C__N];    /* sums to idle_ns */
  int64_t outside_ns;     /* of stream_wait: waits for an event recorded outside the trace */
  int64_t inferred_ns;    /* of stream_wait and rank_wait: resting on a DG_E_GUESS or DG_E_TIMING edge */
  int ntop;
  dg_cause_top top[DG_CAUSE_TOP];  /* heaviest (cause, what) pairs, heaviest first */
  /* The queued idle nothing in the trace explains: stream_wait on awaited
   * work not in the trace plus unknown (rule 4), with what the trace shows
   * around it. */
  int64_t unexplained_ns;  /* = outside_ns + ns[DG_C_UNKNOWN] */
  int64_t unlinked_ns;     /* of it, before ops with no launch call in the trace */
  int64_t graph_ns;        /* of it, before ops launched by a graph launch (cudaGraphLaunch ...) */
  int64_t blocked_ns;      /* of it, while some CPU thread sat in a blocking call (waiting for that queued work) */
  int nworst;
  iv worst[4];             /* the idle intervals holding most of it (relative, clipped), heaviest first */
  int64_t worst_ns[4];
} dg_causes;
/* w: a resolved window (relative) and its device / stream selection; u[0..nu)
 * the busy union of the selected streams (its gaps are the idle). */
fsdpa_status dg_idle_causes(fsdpa_ctx *c, const store_views *v, const depgraph *g, const qwin *w,
                            const iv *u, size_t nu, dg_causes *out);
/* Whether a stream belongs to a window's selection. */
static inline int dg_selected(const gpu_stream_view *sv, const qwin *w) {
  return (w->device == FSDPA_ABSENT || sv->device == w->device) &&
         (w->stream == FSDPA_ABSENT || sv->stream == w->stream);
}
/* The same walk, adding to blk_ns[i] (caller-zeroed, g->nblk entries) the
 * host_blocked idle given to blocking call g->blk[i]: the GPU idle that call
 * cost by holding the thread that was to launch the next op. */
fsdpa_status dg_idle_by_block(fsdpa_ctx *c, const store_views *v, const depgraph *g, const qwin *w,
                              const iv *u, size_t nu, int64_t *blk_ns);
/* The text of a part's what ("" for none). */
void dg_cause_what(const fsdpa_ctx *c, const dg_cause_top *t, char *b, size_t n);

/* ---- replay: what-if and the critical path (depgraph_sim.c) ---- */
fsdpa_status dg_order_build(fsdpa_ctx *c, depgraph *g);
void dg_order_free(fsdpa_ctx *c, depgraph *g);

/* The edges a what-if changes, for calls and ops starting in [t0, t1). */
typedef struct dg_mods {
  int64_t t0, t1;
  const uint8_t *rt_zero;     /* per st.rt, or NULL: the call takes no time and waits for nothing */
  const uint8_t *op_zero;     /* per st.gpu, or NULL: the op takes no time */
  int cpu_zero;               /* a host that costs nothing: every thread's CPU time between runtime
                               * calls and the calls themselves take none; a blocking call still ends
                               * when the op it waited for does */
  const iv *cut;              /* CPU time removed from threads: cut[i] on thread cut_track[i], */
  const uint32_t *cut_track;  /*   sorted by (track, start), disjoint per thread */
  size_t ncut;
  int unexplained_zero;       /* a queued op's slack longer than idle.dispatch_max_ns is gone */
} dg_mods;
/* CPU time to remove for a what-if, from ranges r[i] on threads track[i]
 * clipped to [t0, t1): sorted and merged per thread, ready for dg_mods. */
typedef struct dg_cuts {
  iv *cut;
  uint32_t *track;
  size_t n, cap;
} dg_cuts;
fsdpa_status dg_cuts_build(fsdpa_ctx *c, const uint32_t *track, const iv *r, size_t n, int64_t t0, int64_t t1,
                           dg_cuts *out);
void dg_cuts_free(fsdpa_ctx *c, dg_cuts *k);
/* Replay the trace with m and return the saving: the latest recorded end of
 * the calls and ops ending in [m->t0, m->t1] minus their latest replayed end
 * (ABSENT when nothing ends there).  Replayed without changes it is 0. */
fsdpa_status dg_whatif(fsdpa_ctx *c, const depgraph *g, const dg_mods *m, int64_t *saving);
/* A finding's what-if (the context's graph, m over [m->t0, m->t1)) written
 * into its open evidence object: "saving_ns" and "saving_window_ns" (null
 * when nothing ends in the window), "saving_change" = change (what the replay
 * removed, for people). */
fsdpa_status dg_saving_evidence(fsdpa_ctx *c, const dg_mods *m, const char *change, jsonw *w);
/* The same in two steps: the context's graph replayed (ABSENT for an empty
 * window), and the three keys written. */
fsdpa_status dg_saving(fsdpa_ctx *c, const dg_mods *m, int64_t *saving);
void dg_saving_write(jsonw *w, const dg_mods *m, int64_t saving, const char *change);

/* Categories of the critical path's segments. */
enum {
  DG_P_GPU_COMPUTE, DG_P_GPU_COMM, DG_P_GPU_MEMORY, /* an op on the path runs */
  DG_P_LAUNCH,       /* from its launch call's start to the op's start */
  DG_P_DISPATCH,     /* from the op it depended on to its start, at most idle.dispatch_max_ns */
  DG_P_QUEUED,       /* the same, longer: a wait the trace does not place */
  DG_P_CPU,          /* a thread's time between runtime calls */
  DG_P_RUNTIME,      /* inside a runtime call that did not wait */
  DG_P_BLOCKING_CALL,/* inside a blocking call after the op it waited for ended: its own work and wake-up */
  DG_P_THREAD_WAIT,  /* a thread waiting for another thread (an inferred thread edge) */
  DG_P__N
};
extern const char *const dg_path_names[DG_P__N];
typedef struct dg_seg {
  int64_t s, e;        /* relative ns */
  int cat;
  uint32_t what;       /* intern id: the op, the call, the innermost CPU op; DG_NONE */
} dg_seg;
typedef struct dg_path {
  fa_alloc *a;
  int64_t start, end, length;     /* relative; length = end - start = sum of by_category */
  int64_t by_category[DG_P__N];
  dg_seg *seg;                    /* oldest first, adjacent ones of one category merged */
  size_t nseg, cap;
  int failed;
} dg_path;
/* The trace's critical path: from the call or op that ends last back through
 * the dependency that bound each start. */
fsdpa_status dg_critical_path(fsdpa_ctx *c, const depgraph *g, dg_path *out);
void dg_path_free(dg_path *p);
#endif
