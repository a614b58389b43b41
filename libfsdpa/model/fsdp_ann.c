/* FSDP annotation grammar (FSDP2 `FSDP::<hook> (<fqn>)`, FSDP1
 * `FullyShardedDataParallel.<hook>`), the per-thread nesting index the unit
 * model looks launches up in, and where a kernel was launched from. */
#include "model/fsdp_ann.h"
#include "model/fsdp_model.h"
#include "events/classify.h"
#include <stdlib.h>
#include <string.h>
#include "util/sort.h"

#define LIT(s) s, (sizeof(s) - 1)

static const struct {
  const char *label;
  size_t len;
  uint8_t kind, phase, named;
} V2[] = {
    {LIT("FSDP::pre_forward"), AK_OPEN, FM_FWD, 1},
    {LIT("FSDP::post_forward"), AK_CLOSE, FM_FWD, 1},
    {LIT("FSDP::pre_backward"), AK_OPEN, FM_BWD, 1},
    {LIT("FSDP::post_backward_reduce"), AK_CLOSE, FM_BWD, 1},
    {LIT("FSDP::post_backward_reshard"), AK_CLOSE, FM_BWD, 1},
    {LIT("FSDP::post_backward_accumulate"), AK_CLOSE, FM_BWD, 1},
    {LIT("FSDP::post_backward"), AK_CLOSE, FM_BWD, 1},
    {LIT("FSDP::all_gather_copy_out"), AK_HOOK, PH_NONE, 1},
    {LIT("FSDP::all_gather_copy_in"), AK_HOOK, PH_NONE, 1},
    {LIT("FSDP::all_gather"), AK_HOOK, PH_NONE, 1},
    {LIT("FSDP::forward_prefetch"), AK_HOOK, FM_FWD, 1},
    {LIT("FSDP::backward_prefetch"), AK_HOOK, FM_BWD, 1},
    {LIT("FSDP::root_pre_forward"), AK_HOOK, FM_FWD, 0},
    {LIT("FSDP::root_post_backward_callback"), AK_HOOK, FM_BWD, 0},
};

static const struct {
  const char *label;
  size_t len;
  uint8_t kind, phase, prefix;
} V1[] = {
    {LIT("FullyShardedDataParallel.forward"), AK_WINDOW, FM_FWD, 0},
    {LIT("FullyShardedDataParallel._pre_forward"), AK_HOOK, FM_FWD, 1},
    {LIT("FullyShardedDataParallel._root_pre_forward"), AK_HOOK, FM_FWD, 0},
    {LIT("FullyShardedDataParallel._post_forward"), AK_HOOK, FM_FWD, 0},
    {LIT("FullyShardedDataParallel._to_kwargs"), AK_HOOK, FM_FWD, 0},
    {LIT("FullyShardedDataParallel._pre_backward_hook"), AK_OPEN, FM_BWD, 0},
    {LIT("FullyShardedDataParallel._post_backward_hook"), AK_CLOSE, FM_BWD, 1},
    {LIT("FullyShardedDataParallel._post_backward_prefetch"), AK_HOOK, FM_BWD, 0},
    {LIT("FullyShardedDataParallel._pre_backward_prefetch"), AK_HOOK, FM_BWD, 0},
};

ann_info fm_parse_ann(const char *s, size_t n, uint32_t info) {
  ann_info r;
  memset(&r, 0, sizeof r);
  r.unit = -1;
  r.valid = 1;
  if (info & NC_FSDP2) {
    r.kind = AK_HOOK;  /* every FSDP2 range is FSDP's own work */
    r.phase = PH_NONE;
    for (size_t k = 0; k < sizeof V2 / sizeof V2[0]; k++) {
      size_t l = V2[k].len;
      if (n < l || memcmp(s, V2[k].label, l) != 0) continue;
      const char *rest = s + l;
      size_t rn = n - l;
      /* the label must end here: "FSDP::all_gather" is not "..._copy_out" */
      if (rn && !(rn >= 2 && rest[0] == ' ' && (rest[1] == '(' || rest[1] == 'f'))) continue;
      r.kind = V2[k].kind;
      r.phase = V2[k].phase;
      if (!V2[k].named) break;
      if (rn == 0) {  /* the root group has an empty FQN */
        r.named = 1;
        r.uname = rest;
        r.ulen = 0;
      } else if (rest[1] == '(') {
        const char *close = s + n - 1;
        while (close > rest && *close != ')') close--;
        if (close > rest + 2) {
          r.named = 1;
          r.uname = rest + 2;
          r.ulen = (uint32_t)(close - (rest + 2));
        }
      } else if (rn > 5 && memcmp(rest, " for ", 5) == 0) {
        r.named = 1;
        r.uname = rest + 5;
        r.ulen = (uint32_t)(rn - 5);
      }
      break;
    }
  } else if (info & NC_FSDP1) {
    r.kind = AK_NEUTRAL;  /* third-party "FullyShardedDataParallel.*" scopes may wrap compute */
    r.phase = PH_NONE;
    for (size_t k = 0; k < sizeof V1 / sizeof V1[0]; k++) {
      size_t l = V1[k].len;
      if (n < l || memcmp(s, V1[k].label, l) != 0) continue;
      if (n != l && !V1[k].prefix) continue;
      r.kind = V1[k].kind;
      r.phase = V1[k].phase;
      break;
    }
  } else {
    r.valid = 0;
  }
  return r;
}

int fm_version(const fsdpa_ctx *c) {
  int v = 0;
  const store *s = &c->st;
  for (size_t i = 0; i < s->name_info.len; i++) {
    uint32_t f = FA_VEC_AT(&s->name_info, uint32_t, i);
    if (f & NC_FSDP2) return 2;
    if (f & NC_FSDP1) v = 1;
  }
  return v;
}

/* ---- nesting index ---- */

uint8_t fm_node_depth(uint8_t kind, uint8_t phase) {
  switch (kind) {
    case AK_WINDOW: return 0;
    case AK_OPEN:
    case AK_CLOSE:
    case AK_NEUTRAL: return 1;
    default: return phase == PH_NONE ? 3 : 2;  /* all_gather (u) inside ..._prefetch for u */
  }
}

static int cmp_node(const void *pa, const void *pb) {
  const fm_node *a = pa, *b = pb;
  if (a->track != b->track) return a->track < b->track ? -1 : 1;
  if (a->s != b->s) return a->s < b->s ? -1 : 1;
  if (a->e != b->e) return a->e > b->e ? -1 : 1;  /* outer first */
  if (a->depth != b->depth) return a->depth < b->depth ? -1 : 1;
  return a->unit < b->unit ? -1 : a->unit > b->unit;
}

/* Ties of cmp_node keep their input order (parent holds the input index
 * until the nesting pass below overwrites it): deterministic, and what a
 * stable sort would give. */
#define NODE_LESS(a, b) (cmp_node((a), (b)) < 0 || (cmp_node((a), (b)) == 0 && (a)->parent < (b)->parent))
FA_SORT_DEFINE(node_sort, fm_node, NODE_LESS)

void fm_nest_build(fm_node *v, size_t n, int32_t *stack) {
  for (size_t i = 0; i < n; i++) v[i].parent = (int32_t)i;
  node_sort(v, n);
  size_t sp = 0;
  for (size_t i = 0; i < n; i++) {
    if (i && v[i].track != v[i - 1].track) sp = 0;
    while (sp && v[stack[sp - 1]].e <= v[i].s) sp--;
    v[i].parent = sp ? stack[sp - 1] : -1;
    stack[sp++] = (int32_t)i;
  }
}

/* Innermost node on `track` containing t (s <= t < e), or -1. */
int32_t fm_nest_find(const fm_node *v, size_t n, uint32_t track, int64_t t) {
  size_t lo = 0, hi = n;
  while (lo < hi) {
    size_t mid = (lo + hi) / 2;
    if (v[mid].track < track || (v[mid].track == track && v[mid].s <= t)) lo = mid + 1;
    else hi = mid;
  }
  if (!lo || v[lo - 1].track != track) return -1;
  int32_t k = (int32_t)lo - 1;
  while (k >= 0) {
    if (v[k].s <= t && t < v[k].e) return k;
    k = v[k].parent;
  }
  return -1;
}

static int cmp_pair(const void *pa, const void *pb) {
  const int64_t *a = pa, *b = pb;
  if (a[0] != b[0]) return a[0] < b[0] ? -1 : 1;
  return a[1] < b[1] ? -1 : a[1] > b[1];
}

static int ext_build(fa_alloc *a, const store *s, ext_map *x) {
  x->built = 1;
  size_t n = 0;
  for (size_t i = 0; i < s->cpu.len; i++)
    if (STORE_REC(&s->cpu, i)->ext != FSDPA_ABSENT) n++;
  if (!n) return 0;
  x->p = fa_malloc(a, n * 2 * sizeof(int64_t));
  if (!x->p) return -1;
  for (size_t i = 0; i < s->cpu.len; i++) {
    const ev_rec *r = STORE_REC(&s->cpu, i);
    if (r->ext == FSDPA_ABSENT) continue;
    x->p[2 * x->n] = r->ext;
    x->p[2 * x->n + 1] = (int64_t)i;
    x->n++;
  }
  qsort(x->p, x->n, 2 * sizeof(int64_t), cmp_pair);
  return 0;
}

/* Where a GPU op was launched: its runtime call (correlation), else the CPU
 * op whose External id it carries.  0 if found. */
int fm_launch_of(fa_alloc *a, const store *s, const store_views *v, ext_map *x,
                     const ev_rec *k, uint32_t *track, int64_t *t, int *oom) {
  uint32_t ri = store_runtime_for_corr(v, k->corr);
  if (ri != UINT32_MAX) {
    const ev_rec *r = STORE_REC(&s->rt, ri);
    *track = r->track;
    *t = r->ts;
    return 0;
  }
  if (k->ext == FSDPA_ABSENT) return -1;
  if (!x->built && ext_build(a, s, x)) {
    *oom = 1;
    return -1;
  }
  size_t lo = 0, hi = x->n;
  while (lo < hi) {
    size_t mid = (lo + hi) / 2;
    if (x->p[2 * mid] < k->ext) lo = mid + 1;
    else hi = mid;
  }
  if (lo >= x->n || x->p[2 * lo] != k->ext) return -1;
  const ev_rec *r = STORE_REC(&s->cpu, (size_t)x->p[2 * lo + 1]);
  *track = r->track;
  *t = r->ts;
  return 0;
}

