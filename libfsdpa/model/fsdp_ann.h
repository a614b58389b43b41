/* Private to the FSDP unit model: annotation kinds, the nesting index over
 * annotations and windows, launch points (fsdp_ann.c). */
#ifndef FSDPA_MODEL_FSDP_ANN_H
#define FSDPA_MODEL_FSDP_ANN_H
#include "ctx.h"

enum { AK_NEUTRAL = 0, AK_HOOK, AK_OPEN, AK_CLOSE, AK_WINDOW };
#define PH_NONE 2  /* besides FM_FWD / FM_BWD */

/* An FSDP annotation or a synthesized unit window, in a per-thread nesting
 * index (sorted by track, start; parent = enclosing node). */
typedef struct fm_node {
  int64_t s, e;
  uint32_t track;
  int32_t parent;
  int32_t unit;   /* -1: none */
  int32_t step;   /* windows: model step index */
  uint8_t kind, phase, named;
  uint8_t depth;  /* nesting rank for identical ranges (fm_node_depth) */
} fm_node;

/* Parse result per distinct annotation name. */
typedef struct ann_info {
  uint8_t kind, phase, named, valid;
  int32_t unit;          /* FSDP2: unit index; -1 */
  const char *uname;
  uint32_t ulen;
} ann_info;

typedef struct ext_map {
  int64_t *p;  /* pairs (ext, cpu index) sorted */
  size_t n;
  int built;
} ext_map;

/* Parse an FSDP annotation name (info: its NC_* bits). */
ann_info fm_parse_ann(const char *s, size_t n, uint32_t info);
/* How deep a kind nests when two ranges are identical, as kineto's
 * gpu_user_annotation projections of nested annotations often are:
 * pre_backward (v) > backward_prefetch for u > all_gather (u). */
uint8_t fm_node_depth(uint8_t kind, uint8_t phase);
/* Sort nodes by (track, start, outer first) and set parents; stack: n slots. */
void fm_nest_build(fm_node *v, size_t n, int32_t *stack);
/* Innermost node on `track` with s <= t < e, or -1. */
int32_t fm_nest_find(const fm_node *v, size_t n, uint32_t track, int64_t t);
/* CPU thread and time a GPU op was launched at: its runtime call
 * (correlation), else the CPU op with its External id.  0 if found; *oom
 * set when building the External-id map failed. */
int fm_launch_of(fa_alloc *a, const store *s, const store_views *v, ext_map *x, const ev_rec *k,
                 uint32_t *track, int64_t *t, int *oom);
#endif
