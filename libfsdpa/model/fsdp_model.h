/* The FSDP unit model: which kernels belong to which FSDP unit, phase and
 * step.  Built from the store on demand (no state kept in the context);
 * fsdp_engine_units.c, fsdp_engine_backward.c and the overlap findings read it.
 *
 * Definitions (docs/patterns.md has the long form):
 * - A unit is an FSDP2 parameter group named by its module FQN in the
 *   `FSDP::... (<fqn>)` / `FSDP::... for <fqn>` annotations ("" = the root
 *   group), or an FSDP1 FlatParameter, numbered unit0, unit1, ... in the
 *   order its all-gathers are issued in forward.
 * - A comm kernel (NCCL family) belongs to the unit named by the innermost
 *   FSDP annotation that contains its launching runtime call (correlation
 *   id, else External id) on the same CPU thread; with neither, the FSDP
 *   gpu_user_annotation around the kernel on its stream.  FSDP1 annotations carry no
 *   name: the k-th forward all-gather of a step is unit k; the j-th backward
 *   all-gather / reduce-scatter is unit n-1-j (backward runs units in
 *   reverse).
 * - Phase: the enclosing FSDP hook says it (pre_forward / forward_prefetch
 *   -> forward; pre_backward / backward_prefetch / post_backward_* ->
 *   backward; a forward hook on the autograd thread is activation-checkpoint
 *   recompute, i.e. backward); otherwise a launch from the autograd thread
 *   or after the step's first backward marker is backward.
 * - A unit's compute in a phase = the non-NCCL kernels launched inside its
 *   window on the same thread and inside no FSDP hook annotation (hooks
 *   launch FSDP's own copy-in/copy-out/chunk-cat kernels, which are not the
 *   module's compute).  Windows: FSDP2 [pre_forward(u).start,
 *   post_forward(u).end] and [pre_backward(u).start, last
 *   post_backward_*(u).end]; FSDP1 forward: the unit's
 *   `FullyShardedDataParallel.forward` range; FSDP1 backward: from the last
 *   `_pre_backward_hook` before the unit's `_post_backward_hook` (the one
 *   that issues its reduce-scatter) to that hook's end.  Nested windows
 *   (the root around its children) give a kernel to the innermost one.
 * - Steps: an instance belongs to the last ProfilerStep that started at or
 *   before its launch (step -1 before the first step or without steps). */
#ifndef FSDPA_MODEL_FSDP_MODEL_H
#define FSDPA_MODEL_FSDP_MODEL_H
#include "ctx.h"

enum { FM_FWD = 0, FM_BWD = 1 };
enum { FM_AG = 0, FM_RS, FM_COMM_OTHER, FM_COMPUTE, FM__KINDS };

typedef struct fm_unit {
  const char *name;  /* FSDP2: FQN inside an interned annotation name (not NUL-terminated) */
  size_t name_len;
  int64_t index;     /* FSDP1 ordinal (name "unit<index>"); -1 for FSDP2 */
  int64_t first;     /* first time the unit is named (orders units) */
} fm_unit;

typedef struct fm_piece {
  int64_t s, e;      /* kernel interval (relative ns) */
  uint32_t inst;
  uint32_t gpu;      /* index in st.gpu */
  uint8_t kind;      /* FM_AG ... FM_COMPUTE */
} fm_piece;

typedef struct fm_inst {
  uint32_t unit;
  uint8_t phase;
  int32_t step;      /* index into model steps, -1 = none */
  size_t p[FM__KINDS + 1];  /* pieces of kind k: pieces[p[k] .. p[k+1]) */
  int64_t comm_ns;          /* |union of AG, RS and other comm kernels| */
  int64_t compute_ns;       /* |union of compute kernels| */
  int64_t exposed_measured_ns;  /* |comm union − every compute kernel of the rank| */
  int64_t ag_ns, rs_ns;     /* |union| of the AG / RS kernels */
  int64_t anchor;           /* orders instances in a phase: first compute start, else first comm start */
} fm_inst;

typedef struct fsdp_model {
  fa_alloc *a;
  int version;               /* 0 none, 1, 2 */
  fm_unit *units;
  size_t nunits;
  fm_inst *insts;
  size_t ninst;
  fm_piece *pieces;
  size_t npieces;
  fa_vec vunits, vinsts, vpieces;  /* storage behind the three arrays */
  step_rec *steps;
  size_t nsteps;
  int64_t *bwd_start;        /* per step: first backward marker, INT64_MAX if none */
  iv *compute_all;           /* union of all compute kernels */
  size_t ncompute_all, compute_cap;
  iv *comm_all;              /* union of all comm kernels */
  size_t ncomm_all, comm_cap;
  int borrowed;              /* a view of the context's cached model: fm_free only forgets it */
} fsdp_model;

/* FSDP version from annotation names only (cheap): 2, 1 or 0. */
int fm_version(const fsdpa_ctx *c);
/* The whole-trace model, built once per store generation and kept in the
 * context (CACHE_FSDP_MODEL): *m is a read-only view of it, valid until the
 * store changes; fm_free(m) releases the view (the model stays cached). */
fsdpa_status fm_build(fsdpa_ctx *c, fsdp_model *m);
void fm_free(fsdp_model *m);
/* Unit display name into buf ("layers.3", "unit2", "(root)"). */
void fm_unit_name(const fsdp_model *m, uint32_t u, char *buf, size_t n);
/* Union of the instance's kernels of one kind into out (capacity: the
 * instance's piece count of that kind); returns the count. */
size_t fm_inst_set(const fsdp_model *m, const fm_inst *in, int kind, iv *out);

/* Per (unit, phase) totals over instances (the report's fsdp.units). */
typedef struct fm_total {
  uint32_t unit;
  uint8_t phase;
  uint32_t instances;
  int64_t comm_ns, compute_ns;
  int64_t exposed_sum_ns;       /* Σ per instance max(0, comm - compute) */
  int64_t exposed_measured_ns;  /* Σ per instance |comm − all compute| */
  int64_t ag_ns, rs_ns;         /* Σ |union| of AG / RS kernels */
  uint64_t comm_kernels, compute_kernels;
} fm_total;
/* Totals of the instances whose step is in [step_lo, step_hi] (model step
 * indices; -2 = all), in unit order, forward before backward; *out holds
 * nunits * 2 entries (absent ones have instances == 0). */
fsdpa_status fm_totals(const fsdp_model *m, int64_t step_lo, int64_t step_hi, fm_total **out,
                       size_t *n);

/* What the overlap findings want to know about units. */
typedef struct fm_summary {
  uint64_t units;            /* (unit, phase) pairs with communication */
  uint64_t comm_bound;       /* of which T_comm > T_compute */
  int64_t exposed_formula_ns;/* Σ max(0, T_comm − T_compute) over them */
} fm_summary;
fsdpa_status fm_summarize(fsdpa_ctx *c, fm_summary *s);
#endif
