/* The device memory timeline from [memory] / [OutOfMemory] events: per
 * device, events in time order with the allocated / reserved level after
 * each, window levels (peak, min, start, end, fragmentation), warm-up
 * detection and downsampled series.  Definitions: fsdpa.h, group allocator. */
#ifndef FSDPA_ANALYSIS_ALLOC_MEM_H
#define FSDPA_ANALYSIS_ALLOC_MEM_H
#include "ctx.h"

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

typedef struct am_point {
  int64_t t0, t1;       /* relative */
  uint64_t events;
  int64_t a_min, a_max, a_last, r_min, r_max, r_last;
} am_point;
/* Downsample device d over [t0,t1) ∩ its event range into at most `buckets`
 * points; returns the number written into out (capacity `buckets`). */
size_t am_series(const fsdpa_ctx *c, const am *m, int32_t d, int64_t t0, int64_t t1, size_t buckets,
                 am_point *out);
#endif
