/* The track structure's shared pieces: the busy union of a selection. */
#ifndef FSDPA_MODEL_TRACKS_H
#define FSDPA_MODEL_TRACKS_H
#include "ctx.h"
#include "util/interval.h"

/* The busy intervals of the streams w selects, clipped to [w->t0, w->t1)
 * and merged: *u holds *n of them in a block of *cap (fa_free(&c->alloc,
 * *u, *cap * sizeof **u); NULL when *cap is 0). */
fsdpa_status tracks_busy_union(fsdpa_ctx *c, const store_views *v, const qwin *w, iv **u, size_t *n, size_t *cap);
#endif
