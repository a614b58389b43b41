/* One evaluation of the allocator analysis: the memory timeline, the
 * malloc/free calls (attributed like blocking calls) and the warm-up.  The
 * public queries, the report section and the findings all fill the public
 * structs through these functions, so they cannot disagree. */
#ifndef FSDPA_ANALYSIS_ALLOC_RUN_H
#define FSDPA_ANALYSIS_ALLOC_RUN_H
#include "analysis/allocator/alloc_mem.h"
#include "model/runtime_calls.h"
#include "events/classify.h"

typedef struct ar {
  am m;
  sc_set s;        /* NC_MALLOC | NC_FREE calls, sorted by start */
  int64_t warmup;  /* warm-up steps */
  int how;         /* 0 param, 1 reserved growth, 2 default */
  int borrowed;    /* a copy of the context's cached result: ar_close only forgets it */
} ar;

/* Built once per context state (the report opens it several times) and lent
 * out; ar_close() returns it. */
fsdpa_status ar_open(fsdpa_ctx *c, ar *r);
void ar_close(fsdpa_ctx *c, ar *r);

static inline int ar_malloc(const sc_call *k) { return (k->info & NC_MALLOC) != 0; }
static inline int ar_free(const sc_call *k) { return (k->info & NC_FREE) != 0 && !(k->info & NC_MALLOC); }
static inline int ar_steady(const ar *r, const sc_call *k) { return k->step >= 0 && k->step >= r->warmup; }

/* Does a step return to its baseline: end - start <= peak / 100 (1, 0, -1 unknown). */
static inline int ar_returns(const am_win *x) {
  if (x->start_a == FSDPA_ABSENT || x->end_a == FSDPA_ABSENT || x->peak_a == FSDPA_ABSENT) return -1;
  return x->end_a - x->start_a <= (x->peak_a > 0 ? x->peak_a / 100 : 0);
}

/* Summary over window w (device from w->device, else primary). */
fsdpa_status ar_summary(fsdpa_ctx *c, const ar *r, const qwin *w, fsdpa_memory_summary *out);
/* Row of sorted step i, levels of device index di. */
fsdpa_status ar_step(fsdpa_ctx *c, const ar *r, size_t i, int32_t di, fsdpa_memory_step *out);
/* Row of device index di over [t0, t1). */
void ar_device(const fsdpa_ctx *c, const ar *r, int32_t di, int64_t t0, int64_t t1, fsdpa_memory_device *out);
#endif
