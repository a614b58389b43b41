/* Communication / computation sets of a window, shared by the overlap
 * analysis, its public queries and the FSDP unit model (which needs the same
 * comm/compute definition and collective typing). */
#ifndef FSDPA_ANALYSIS_OVERLAP_H
#define FSDPA_ANALYSIS_OVERLAP_H
#include "ctx.h"

/* One communication kernel of the selection, clipped to the window. */
typedef struct ov_ent {
  int64_t s, e;         /* clipped (relative ns) */
  int64_t dur;          /* full kernel duration */
  int64_t bytes;        /* algorithm bytes (AG: out, else in size), ABSENT if unknown */
  int64_t bus_bytes;    /* bytes x NCCL bus factor, ABSENT if unknown */
  uint32_t pg;          /* Process Group Name intern id, INTERN_NONE if unknown */
  int32_t coll;         /* enum coll_type */
  uint32_t gpu;         /* index in st.gpu */
} ov_ent;

typedef struct ov_data {
  fa_alloc *a;
  iv *comp;             /* union of compute kernels (clipped) */
  size_t ncomp, comp_cap;
  iv *comm;             /* union of comm kernels (clipped) */
  size_t ncomm, comm_cap;
  ov_ent *ents;         /* comm kernels, in stream-view order */
  size_t nents, ents_cap;
  uint64_t comp_kernels;
} ov_data;

/* Collect the selected streams' kernels inside w.  Comm = NC_COMM names
 * (classify.h), compute = every other kernel; memcpy/memset are neither. */
fsdpa_status ov_gather(fsdpa_ctx *c, const store_views *v, const qwin *w, ov_data *d);
void ov_free(ov_data *d);
/* Collective type of a comm kernel: "Collective name" arg when it names a
 * type, else the kernel-name token.  ci receives its coll_info or NULL. */
int ov_kernel_coll(const store *s, const ev_rec *r, const coll_info **ci);
/* NCCL bus-bandwidth factor for a collective on n ranks (nccl-tests). */
double ov_bus_factor(int coll, int n);
#endif
