/* Communication / computation kernel sets of a window and collective
 * typing: one definition for the overlap analysis, its public queries, the
 * FSDP unit model and the report. */
#ifndef FSDPA_MODEL_KERNEL_SETS_H
#define FSDPA_MODEL_KERNEL_SETS_H
#include "ctx.h"

/* One communication kernel of the selection, clipped to the window. */
typedef struct ks_ent {
  int64_t s, e;         /* clipped (relative ns) */
  int64_t dur;          /* full kernel duration */
  int64_t bytes;        /* algorithm bytes (AG: out, else in size), ABSENT if unknown */
  int64_t bus_bytes;    /* bytes x NCCL bus factor, ABSENT if unknown */
  uint32_t pg;          /* Process Group Name intern id, INTERN_NONE if unknown */
  int32_t coll;         /* enum coll_type */
  uint32_t gpu;         /* index in st.gpu */
} ks_ent;

typedef struct ks_data {
  fa_alloc *a;
  iv *comp;             /* union of compute kernels (clipped) */
  size_t ncomp, comp_cap;
  iv *comm;             /* union of comm kernels (clipped) */
  size_t ncomm, comm_cap;
  ks_ent *ents;         /* comm kernels, in stream-view order */
  size_t nents, ents_cap;
  uint64_t comp_kernels;
} ks_data;

/* Collect the selected streams' kernels inside w.  Comm = the views'
 * classification (events/comm_class.h: name family, user pattern or
 * provenance), compute = every other kernel; memcpy/memset are neither. */
fsdpa_status ks_gather(fsdpa_ctx *c, const store_views *v, const qwin *w, ks_data *d);
void ks_free(ks_data *d);
/* Collective type of a comm kernel: "Collective name" arg when it names a
 * type, else the kernel-name token.  ci receives its coll_info or NULL. */
int ks_kernel_coll(const store *s, const ev_rec *r, const coll_info **ci);
/* NCCL bus-bandwidth factor for a collective on n ranks (nccl-tests). */
double ks_bus_factor(int coll, int n);
#endif
