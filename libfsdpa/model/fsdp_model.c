/* Builds the FSDP unit model (fsdp_model.h has the definitions). */
#include "model/fsdp_model.h"
#include "model/kernel_sets.h"
#include "model/fsdp_ann.h"
#include "events/classify.h"
#include "events/comm_class.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "util/sort.h"
#include "util/satmath.h"

/* A kernel attributed before instances exist. */
typedef struct raw_piece {
  int64_t s, e, t;       /* kernel interval; launch time */
  uint32_t gpu, track;
  int32_t unit, step;
  uint8_t phase, kind;
} raw_piece;

/* ---- helpers ---- */

static int32_t step_of(const fsdp_model *m, int64_t t) {
  size_t lo = 0, hi = m->nsteps;
  while (lo < hi) {
    size_t mid = (lo + hi) / 2;
    if (m->steps[mid].ts <= t) lo = mid + 1;
    else hi = mid;
  }
  return (int32_t)lo - 1;
}

static int64_t bwd_start_of(const fsdp_model *m, int32_t step, int64_t none) {
  return step >= 0 ? m->bwd_start[step] : none;
}

void fm_unit_name(const fsdp_model *m, uint32_t u, char *buf, size_t n) {
  if (!n) return;
  const fm_unit *x = &m->units[u];
  if (x->index >= 0) snprintf(buf, n, "unit%lld", (long long)x->index);
  else if (!x->name_len) snprintf(buf, n, "(root)");
  else snprintf(buf, n, "%.*s", (int)x->name_len, x->name);
}

void fm_free(fsdp_model *m) {
  if (!m->a) return;
  if (m->borrowed) {
    memset(m, 0, sizeof *m);
    return;
  }
  fa_alloc *a = m->a;
  fa_vec_free(a, &m->vunits, sizeof(fm_unit));
  fa_vec_free(a, &m->vinsts, sizeof(fm_inst));
  fa_vec_free(a, &m->vpieces, sizeof(fm_piece));
  fa_free(a, m->steps, m->nsteps * sizeof(step_rec));
  fa_free(a, m->bwd_start, m->nsteps * sizeof(int64_t));
  fa_free(a, m->compute_all, m->compute_cap * sizeof(iv));
  fa_free(a, m->comm_all, m->comm_cap * sizeof(iv));
  memset(m, 0, sizeof *m);
}

size_t fm_inst_set(const fsdp_model *m, const fm_inst *in, int kind, iv *out) {
  size_t n = 0;
  for (size_t i = in->p[kind]; i < in->p[kind + 1]; i++) out[n++] = (iv){m->pieces[i].s, m->pieces[i].e};
  return iv_union_sorted(out, n);
}

/* ---- build ---- */

typedef struct build {
  fsdpa_ctx *c;
  fa_alloc *a;
  const store *s;
  const store_views *v;
  fsdp_model *m;
  ann_info *names;      /* per intern id (FSDP names only are valid) */
  size_t nnames;
  fm_node *ann;          /* FSDP annotations on CPU threads */
  size_t nann, ann_cap;
  fm_node *gann;         /* their gpu_user_annotation projections, per GPU stream */
  size_t ngann, gann_cap;
  fm_node *win;
  size_t nwin, win_cap;
  int32_t *stack;
  size_t stack_cap;
  fa_vec raw;           /* raw_piece */
  ext_map ext;
  int oom;
} build;

static int unit_find_or_add(build *b, const char *name, uint32_t len) {
  fsdp_model *m = b->m;
  for (size_t u = 0; u < m->vunits.len; u++) {
    const fm_unit *x = &FA_VEC_AT(&m->vunits, fm_unit, u);
    if (x->name_len == len && memcmp(x->name, name, len) == 0) return (int)u;
  }
  fm_unit x = {name, len, -1, INT64_MAX};
  if (!fa_vec_push(b->a, &m->vunits, sizeof x, &x)) return -1;
  return (int)m->vunits.len - 1;
}

/* FSDP-named records of one table into nesting nodes. */
/* recs' FSDP annotations, listed by idx (store.fsdp_cpu / fsdp_gannot). */
static fsdpa_status fsdp_nodes(build *b, const fa_vec *recs, const fa_vec *idx, fm_node **out, size_t *nout,
                               size_t *cap) {
  const store *s = b->s;
  size_t n = idx->len;
  *out = NULL;
  *nout = *cap = 0;
  if (!n) return FSDPA_OK;
  if (n > b->stack_cap) {
    int32_t *ns = fa_realloc(b->a, b->stack, b->stack_cap * sizeof(int32_t), n * sizeof(int32_t));
    if (!ns) return fa_fail_status(b->a);
    b->stack = ns;
    b->stack_cap = n;
  }
  fm_node *v = fa_malloc(b->a, n * sizeof(fm_node));
  if (!v) return fa_fail_status(b->a);
  *out = v;
  *cap = n;
  for (size_t j = 0; j < n; j++) {
    const ev_rec *r = STORE_REC(recs, FA_VEC_AT(idx, uint32_t, j));
    uint32_t info = store_name_info(s, r->name);
    ann_info *ai = &b->names[r->name];
    if (!ai->valid) {
      *ai = fm_parse_ann(store_name(s, r->name), intern_len(&s->names, r->name), info);
      ai->valid = 1;
      if (ai->named && b->m->version == 2) {
        int u = unit_find_or_add(b, ai->uname, ai->ulen);
        if (u < 0) return fa_fail_status(b->a);
        ai->unit = u;
      }
    }
    fm_node x;
    memset(&x, 0, sizeof x);
    x.s = r->ts;
    x.e = r->end;
    x.track = r->track;
    x.kind = ai->kind;
    x.phase = ai->phase;
    /* forward hooks that run on the autograd thread are activation-
     * checkpoint recompute: work of the unit's backward */
    if (x.phase == FM_FWD && (store_track(s, r->track)->flags & TRACK_AUTOGRAD)) x.phase = FM_BWD;
    x.named = ai->named;
    x.unit = ai->unit;
    x.step = -1;
    x.depth = fm_node_depth(x.kind, x.phase);
    if (x.unit >= 0) {
      fm_unit *u = &FA_VEC_AT(&b->m->vunits, fm_unit, x.unit);
      if (x.s < u->first) u->first = x.s;
    }
    v[(*nout)++] = x;
  }
  fm_nest_build(v, *nout, b->stack);
  return FSDPA_OK;
}

static fsdpa_status collect_annotations(build *b) {
  const store *s = b->s;
  b->nnames = intern_count(&s->names);
  b->names = fa_calloc(b->a, (b->nnames + 1) * sizeof(ann_info));
  if (!b->names) return fa_fail_status(b->a);
  fsdpa_status st = fsdp_nodes(b, &s->cpu, &s->fsdp_cpu, &b->ann, &b->nann, &b->ann_cap);
  if (!st) st = fsdp_nodes(b, &s->gannot, &s->fsdp_gannot, &b->gann, &b->ngann, &b->gann_cap);
  return st;
}

static fsdpa_status steps_and_backward_start(build *b) {
  fsdp_model *m = b->m;
  const store *s = b->s;
  m->nsteps = s->steps.len;
  if (!m->nsteps) return FSDPA_OK;
  m->steps = fa_malloc(b->a, m->nsteps * sizeof(step_rec));
  m->bwd_start = fa_malloc(b->a, m->nsteps * sizeof(int64_t));
  if (!m->steps || !m->bwd_start) {
    fa_free(b->a, m->steps, m->nsteps * sizeof(step_rec));
    fa_free(b->a, m->bwd_start, m->nsteps * sizeof(int64_t));
    m->steps = NULL;
    m->bwd_start = NULL;
    m->nsteps = 0;
    return fa_fail_status(b->a);
  }
  ctx_sorted_steps(b->c, m->steps, m->nsteps);
  for (size_t i = 0; i < m->nsteps; i++) m->bwd_start[i] = INT64_MAX;
  /* first backward marker per step: an autograd op, anything on an autograd
   * thread, or an FSDP backward hook */
  for (size_t i = 0; i < s->cpu.len; i++) {
    const ev_rec *r = STORE_REC(&s->cpu, i);
    uint32_t info = store_name_info(s, r->name);
    int mark = (info & NC_BACKWARD) || (store_track(s, r->track)->flags & TRACK_AUTOGRAD);
    if (!mark && (info & (NC_FSDP1 | NC_FSDP2))) {
      const ann_info *ai = &b->names[r->name];
      mark = ai->kind == AK_OPEN && ai->phase == FM_BWD;
    }
    if (!mark) continue;
    int32_t k = step_of(m, r->ts);
    if (k >= 0 && r->ts < m->bwd_start[k]) m->bwd_start[k] = r->ts;
  }
  return FSDPA_OK;
}

static int push_raw(build *b, const raw_piece *p) {
  return fa_vec_push(b->a, &b->raw, sizeof *p, p) ? 0 : -1;
}

/* Walk from the innermost annotation up: unit (first named ancestor), phase
 * (first phase-bearing ancestor), and the enclosing node of `want_kind`. */
static void ann_context(const fm_node *v, int32_t k, int32_t *unit, int *phase, int want_kind,
                        int32_t *want) {
  *unit = -1;
  *phase = PH_NONE;
  *want = -1;
  for (; k >= 0; k = v[k].parent) {
    const fm_node *x = &v[k];
    if (*unit < 0 && x->unit >= 0) *unit = x->unit;
    if (*phase == PH_NONE && x->phase != PH_NONE) *phase = x->phase;
    if (*want < 0 && x->kind == want_kind) *want = k;
  }
}

static int cmp_raw_v1(const void *pa, const void *pb) {
  const raw_piece *a = pa, *b = pb;
  if (a->step != b->step) return a->step < b->step ? -1 : 1;
  if (a->phase != b->phase) return a->phase < b->phase ? -1 : 1;
  if (a->kind != b->kind) return a->kind < b->kind ? -1 : 1;
  if (a->t != b->t) return a->t < b->t ? -1 : 1;
  return a->gpu < b->gpu ? -1 : a->gpu > b->gpu;
}

#define RAW_V1_LESS(a, b) (cmp_raw_v1((a), (b)) < 0)
FA_SORT_DEFINE(raw_v1_sort, raw_piece, RAW_V1_LESS)

static int is_hooked(const fm_node *v, int32_t k) {
  for (; k >= 0; k = v[k].parent) {
    uint8_t kd = v[k].kind;
    if (kd == AK_HOOK || kd == AK_OPEN || kd == AK_CLOSE) return 1;
  }
  return 0;
}

/* Communication kernels -> (unit, phase, step).  FSDP1 units are assigned
 * by position afterwards; *v1 receives those (raw, unit -1).  A kernel with
 * no linked launch (no runtime call, no External id) is looked up in the
 * FSDP gpu_user_annotations on its own stream instead (kineto projects each
 * annotation onto the streams its kernels ran on). */
static fsdpa_status attribute_comm(build *b, fa_vec *v1) {
  const store *s = b->s;
  fsdp_model *m = b->m;
  for (size_t i = 0; i < s->gpu.len; i++) {
    const ev_rec *k = STORE_REC(&s->gpu, i);
    if (k->kind != RK_KERNEL || !store_gpu_is_comm(b->v, (uint32_t)i)) continue;
    uint32_t tr;
    int64_t t;
    const fm_node *nv = b->ann;
    size_t nn = b->nann;
    if (fm_launch_of(b->a, s, b->v, &b->ext, k, &tr, &t, &b->oom)) {
      if (b->oom) return fa_fail_status(b->a);
      tr = k->track;
      t = k->ts;
      nv = b->gann;
      nn = b->ngann;
    }
    int32_t a = fm_nest_find(nv, nn, tr, t);
    if (a < 0) continue;  /* not issued by FSDP (DDP, user collectives) */
    int32_t unit, dummy;
    int phase;
    ann_context(nv, a, &unit, &phase, AK_HOOK, &dummy);
    if (!is_hooked(nv, a) && nv[a].kind != AK_WINDOW) continue;
    raw_piece p;
    memset(&p, 0, sizeof p);
    p.s = k->ts;
    p.e = k->end;
    p.t = t;
    p.gpu = (uint32_t)i;
    p.track = tr;
    p.step = step_of(m, t);
    if (phase == PH_NONE) {
      if (store_track(s, tr)->flags & TRACK_AUTOGRAD) phase = FM_BWD;
      else phase = t >= bwd_start_of(m, p.step, INT64_MAX) ? FM_BWD : FM_FWD;
    }
    p.phase = (uint8_t)phase;
    const coll_info *ci;
    int coll = ks_kernel_coll(s, k, &ci);
    p.kind = coll == COLL_ALLGATHER ? FM_AG : coll == COLL_REDUCESCATTER ? FM_RS : FM_COMM_OTHER;
    p.unit = unit;
    if (m->version == 1) {
      if (!fa_vec_push(b->a, v1, sizeof p, &p)) return fa_fail_status(b->a);
    } else if (unit >= 0) {
      if (push_raw(b, &p)) return fa_fail_status(b->a);
    }
  }
  return FSDPA_OK;
}

/* FSDP1: k-th forward AG of a step = unit k; j-th backward AG / RS / other =
 * unit n-1-j with n the step's unit count.  Also gives each reduce-scatter's
 * `_post_backward_hook` its unit (the backward windows are built from them). */
static fsdpa_status assign_v1(build *b, fa_vec *v1) {
  fsdp_model *m = b->m;
  raw_piece *p = v1->data;
  size_t n = v1->len;
  raw_v1_sort(p, n);
  int64_t maxu = 0;
  for (size_t i = 0; i < n;) {
    size_t j = i;
    int64_t cnt[2][FM__KINDS];
    memset(cnt, 0, sizeof cnt);
    while (j < n && p[j].step == p[i].step) {
      cnt[p[j].phase][p[j].kind]++;
      j++;
    }
    int64_t nu = cnt[FM_FWD][FM_AG];
    if (cnt[FM_BWD][FM_AG] > nu) nu = cnt[FM_BWD][FM_AG];
    if (cnt[FM_BWD][FM_RS] > nu) nu = cnt[FM_BWD][FM_RS];
    if (nu > maxu) maxu = nu;
    int64_t ord = 0;
    for (size_t k = i; k < j; k++) {
      if (k > i && (p[k].phase != p[k - 1].phase || p[k].kind != p[k - 1].kind)) ord = 0;
      if (p[k].phase == FM_FWD) p[k].unit = p[k].kind == FM_AG ? (int32_t)ord : -1;
      else p[k].unit = nu - 1 - ord >= 0 ? (int32_t)(nu - 1 - ord) : -1;
      ord++;
    }
    i = j;
  }
  for (int64_t u = 0; u < maxu; u++) {
    fm_unit x = {NULL, 0, u, u};
    if (!fa_vec_push(b->a, &m->vunits, sizeof x, &x)) return fa_fail_status(b->a);
  }
  for (size_t k = 0; k < n; k++) {
    if (p[k].unit < 0) continue;
    if (push_raw(b, &p[k])) return fa_fail_status(b->a);
    if (p[k].phase == FM_BWD && p[k].kind == FM_RS) {
      int32_t a = fm_nest_find(b->ann, b->nann, p[k].track, p[k].t), unit, close;
      int phase;
      ann_context(b->ann, a, &unit, &phase, AK_CLOSE, &close);
      if (close >= 0 && b->ann[close].unit < 0) b->ann[close].unit = p[k].unit;
    }
  }
  return FSDPA_OK;
}

static int add_window(build *b, int64_t s, int64_t e, uint32_t track, int32_t unit, int phase) {
  if (b->nwin == b->win_cap) {
    size_t nc = b->win_cap ? b->win_cap * 2 : 64;
    fm_node *nw = fa_realloc(b->a, b->win, b->win_cap * sizeof(fm_node), nc * sizeof(fm_node));
    if (!nw) return -1;
    b->win = nw;
    b->win_cap = nc;
  }
  fm_node x;
  memset(&x, 0, sizeof x);
  x.s = s;
  x.e = e;
  x.track = track;
  x.unit = unit;
  x.phase = (uint8_t)phase;
  x.parent = -1;
  x.step = step_of(b->m, s);
  b->win[b->nwin++] = x;
  return 0;
}

/* FSDP2: [opener.start, end of the last closer of the same unit and phase
 * before the unit's next opener], per thread. */
typedef struct oc_key {
  uint32_t track;
  uint8_t phase;
  int32_t unit;
  int64_t s, e;
  uint8_t kind;
} oc_key;

static int cmp_oc(const void *pa, const void *pb) {
  const oc_key *a = pa, *b = pb;
  if (a->track != b->track) return a->track < b->track ? -1 : 1;
  if (a->phase != b->phase) return a->phase < b->phase ? -1 : 1;
  if (a->unit != b->unit) return a->unit < b->unit ? -1 : 1;
  if (a->s != b->s) return a->s < b->s ? -1 : 1;
  return a->kind < b->kind ? -1 : a->kind > b->kind;
}

static fsdpa_status windows_v2(build *b) {
  size_t n = 0;
  for (size_t i = 0; i < b->nann; i++)
    if ((b->ann[i].kind == AK_OPEN || b->ann[i].kind == AK_CLOSE) && b->ann[i].unit >= 0) n++;
  if (!n) return FSDPA_OK;
  oc_key *k = fa_malloc(b->a, n * sizeof(oc_key));
  if (!k) return fa_fail_status(b->a);
  size_t m = 0;
  for (size_t i = 0; i < b->nann; i++) {
    const fm_node *x = &b->ann[i];
    if ((x->kind == AK_OPEN || x->kind == AK_CLOSE) && x->unit >= 0)
      k[m++] = (oc_key){x->track, x->phase, x->unit, x->s, x->e, x->kind};
  }
  qsort(k, m, sizeof *k, cmp_oc);
  fsdpa_status st = FSDPA_OK;
  for (size_t i = 0; i < m; i++) {
    if (k[i].kind != AK_OPEN) continue;
    int64_t end = k[i].e;
    size_t j = i + 1;
    for (; j < m && k[j].track == k[i].track && k[j].phase == k[i].phase && k[j].unit == k[i].unit;
         j++) {
      if (k[j].kind == AK_OPEN) break;
      if (k[j].e > end) end = k[j].e;
    }
    if (add_window(b, k[i].s, end, k[i].track, k[i].unit, k[i].phase)) {
      st = fa_fail_status(b->a);
      break;
    }
  }
  fa_free(b->a, k, n * sizeof(oc_key));
  return st;
}

/* FSDP1 forward: the `FullyShardedDataParallel.forward` ranges of a step in
 * start order are units 0..n-1, or 1..n with a parameterless root first. */
static fsdpa_status windows_v1(build *b) {
  fsdp_model *m = b->m;
  /* forward units per step = forward AG count (raw pieces are per kernel) */
  size_t ns = m->nsteps + 1;
  int64_t *nf = fa_calloc(b->a, ns * sizeof(int64_t));
  int64_t *nw = fa_calloc(b->a, ns * sizeof(int64_t));
  int64_t *ord = fa_calloc(b->a, ns * sizeof(int64_t));
  fsdpa_status st = FSDPA_OK;
  if (!nf || !nw || !ord) {
    st = fa_fail_status(b->a);
    goto done;
  }
  const raw_piece *rp = b->raw.data;
  for (size_t i = 0; i < b->raw.len; i++)
    if (rp[i].phase == FM_FWD && rp[i].kind == FM_AG) nf[rp[i].step + 1]++;
  for (size_t i = 0; i < b->nann; i++)
    if (b->ann[i].kind == AK_WINDOW) nw[step_of(m, b->ann[i].s) + 1]++;
  /* ann is sorted by (track, start): windows of one thread come in order */
  for (size_t i = 0; i < b->nann; i++) {
    const fm_node *x = &b->ann[i];
    if (x->kind != AK_WINDOW) continue;
    int32_t sk = step_of(m, x->s) + 1;
    int64_t o = ord[sk]++;
    if (nw[sk] == nf[sk] + 1) o--;
    else if (nw[sk] != nf[sk]) continue;
    if (o < 0 || o >= (int64_t)m->vunits.len) continue;
    if (add_window(b, x->s, x->e, x->track, (int32_t)o, FM_FWD)) {
      st = fa_fail_status(b->a);
      goto done;
    }
  }
  /* backward: from the last `_pre_backward_hook` after the previous
   * `_post_backward_hook` on the thread to this one's end */
  int64_t last_close = INT64_MIN, last_open = INT64_MIN;
  uint32_t cur = UINT32_MAX;
  for (size_t i = 0; i < b->nann; i++) {
    const fm_node *x = &b->ann[i];
    if (x->track != cur) {
      cur = x->track;
      last_close = last_open = INT64_MIN;
    }
    if (x->kind == AK_OPEN && x->s >= last_close) last_open = x->s;
    if (x->kind != AK_CLOSE) continue;
    if (x->unit >= 0) {
      int64_t s0 = last_open != INT64_MIN ? last_open : last_close != INT64_MIN ? last_close : x->s;
      if (add_window(b, s0, x->e, x->track, x->unit, FM_BWD)) {
        st = fa_fail_status(b->a);
        goto done;
      }
    }
    last_close = x->e;
    last_open = INT64_MIN;
  }
done:
  fa_free(b->a, nf, ns * sizeof(int64_t));
  fa_free(b->a, nw, ns * sizeof(int64_t));
  fa_free(b->a, ord, ns * sizeof(int64_t));
  return st;
}

static fsdpa_status attribute_compute(build *b) {
  const store *s = b->s;
  fsdp_model *m = b->m;
  if (b->nwin > b->stack_cap) {
    int32_t *ns = fa_realloc(b->a, b->stack, b->stack_cap * sizeof(int32_t), b->nwin * sizeof(int32_t));
    if (!ns) return fa_fail_status(b->a);
    b->stack = ns;
    b->stack_cap = b->nwin;
  }
  fm_nest_build(b->win, b->nwin, b->stack);
  for (size_t i = 0; i < s->gpu.len && b->nwin; i++) {
    const ev_rec *k = STORE_REC(&s->gpu, i);
    if (k->kind != RK_KERNEL || store_gpu_is_comm(b->v, (uint32_t)i)) continue;
    uint32_t tr;
    int64_t t;
    if (fm_launch_of(b->a, s, b->v, &b->ext, k, &tr, &t, &b->oom)) {
      if (b->oom) return fa_fail_status(b->a);
      continue;
    }
    int32_t w = fm_nest_find(b->win, b->nwin, tr, t);
    if (w < 0) continue;
    if (is_hooked(b->ann, fm_nest_find(b->ann, b->nann, tr, t))) continue;
    raw_piece p;
    memset(&p, 0, sizeof p);
    p.s = k->ts;
    p.e = k->end;
    p.t = t;
    p.gpu = (uint32_t)i;
    p.track = tr;
    p.unit = b->win[w].unit;
    p.step = b->win[w].step;
    p.phase = b->win[w].phase;
    p.kind = FM_COMPUTE;
    if (push_raw(b, &p)) return fa_fail_status(b->a);
  }
  (void)m;
  return FSDPA_OK;
}

static fsdpa_status rank_unions(build *b) {
  fsdp_model *m = b->m;
  const store *s = b->s;
  size_t nc = 0, np = 0;
  for (size_t i = 0; i < s->gpu.len; i++) {
    const ev_rec *k = STORE_REC(&s->gpu, i);
    if (k->kind != RK_KERNEL) continue;
    if (store_gpu_is_comm(b->v, (uint32_t)i)) nc++;
    else np++;
  }
  m->comm_cap = nc;
  m->compute_cap = np;
  if (nc && !(m->comm_all = fa_malloc(b->a, nc * sizeof(iv)))) return fa_fail_status(b->a);
  if (np && !(m->compute_all = fa_malloc(b->a, np * sizeof(iv)))) return fa_fail_status(b->a);
  for (size_t i = 0; i < s->gpu.len; i++) {
    const ev_rec *k = STORE_REC(&s->gpu, i);
    if (k->kind != RK_KERNEL) continue;
    if (store_gpu_is_comm(b->v, (uint32_t)i)) m->comm_all[m->ncomm_all++] = (iv){k->ts, k->end};
    else m->compute_all[m->ncompute_all++] = (iv){k->ts, k->end};
  }
  m->ncomm_all = iv_union(m->comm_all, m->ncomm_all);
  m->ncompute_all = iv_union(m->compute_all, m->ncompute_all);
  return FSDPA_OK;
}

/* Order units by when they are first named; remap every reference. */
static fsdpa_status order_units(build *b) {
  fsdp_model *m = b->m;
  size_t n = m->vunits.len;
  if (n < 2) return FSDPA_OK;
  fm_unit *u = m->vunits.data;
  uint32_t *perm = fa_malloc(b->a, n * sizeof(uint32_t));
  int32_t *inv = fa_malloc(b->a, n * sizeof(int32_t));
  fm_unit *tmp = fa_malloc(b->a, n * sizeof(fm_unit));
  fsdpa_status st = FSDPA_OK;
  if (!perm || !inv || !tmp) {
    st = fa_fail_status(b->a);
    goto done;
  }
  for (size_t i = 0; i < n; i++) perm[i] = (uint32_t)i;
  for (size_t i = 1; i < n; i++) {  /* insertion sort: units are few */
    uint32_t x = perm[i];
    size_t j = i;
    while (j > 0 && u[perm[j - 1]].first > u[x].first) {
      perm[j] = perm[j - 1];
      j--;
    }
    perm[j] = x;
  }
  for (size_t i = 0; i < n; i++) {
    tmp[i] = u[perm[i]];
    inv[perm[i]] = (int32_t)i;
  }
  memcpy(u, tmp, n * sizeof(fm_unit));
  raw_piece *rp = b->raw.data;
  for (size_t i = 0; i < b->raw.len; i++)
    if (rp[i].unit >= 0) rp[i].unit = inv[rp[i].unit];
done:
  fa_free(b->a, perm, n * sizeof(uint32_t));
  fa_free(b->a, inv, n * sizeof(int32_t));
  fa_free(b->a, tmp, n * sizeof(fm_unit));
  return st;
}

static int cmp_piece(const void *pa, const void *pb) {
  const fm_piece *a = pa, *b = pb;
  if (a->inst != b->inst) return a->inst < b->inst ? -1 : 1;
  if (a->kind != b->kind) return a->kind < b->kind ? -1 : 1;
  if (a->s != b->s) return a->s < b->s ? -1 : 1;
  if (a->e != b->e) return a->e < b->e ? -1 : 1;
  return a->gpu < b->gpu ? -1 : a->gpu > b->gpu;
}

#define PIECE_LESS(a, b) (cmp_piece((a), (b)) < 0)
FA_SORT_DEFINE(piece_sort, fm_piece, PIECE_LESS)

static fsdpa_status make_instances(build *b) {
  fsdp_model *m = b->m;
  size_t nu = m->vunits.len, ns = m->nsteps + 1;
  const raw_piece *rp = b->raw.data;
  size_t nraw = b->raw.len;
  if (!nu || !nraw) return FSDPA_OK;
  size_t nslots = ns * nu * 2;
  int32_t *slot = fa_malloc(b->a, nslots * sizeof(int32_t));
  if (!slot) return fa_fail_status(b->a);
  for (size_t i = 0; i < nslots; i++) slot[i] = -1;
  fsdpa_status st = FSDPA_OK;
  if (fa_vec_reserve(b->a, &m->vpieces, sizeof(fm_piece), nraw)) {
    st = fa_fail_status(b->a);
    goto done;
  }
  for (size_t i = 0; i < nraw; i++) {
    const raw_piece *p = &rp[i];
    if (p->unit < 0 || (size_t)p->unit >= nu) continue;
    size_t key = ((size_t)(p->step + 1) * nu + (size_t)p->unit) * 2 + p->phase;
    if (slot[key] < 0) {
      fm_inst in;
      memset(&in, 0, sizeof in);
      in.unit = (uint32_t)p->unit;
      in.phase = p->phase;
      in.step = p->step;
      if (!fa_vec_push(b->a, &m->vinsts, sizeof in, &in)) {
        st = fa_fail_status(b->a);
        goto done;
      }
      slot[key] = (int32_t)m->vinsts.len - 1;
    }
    fm_piece q = {p->s, p->e, (uint32_t)slot[key], p->gpu, p->kind};
    fa_vec_push(b->a, &m->vpieces, sizeof q, &q);  /* reserved above */
  }
  fm_piece *pc = m->vpieces.data;
  size_t npc = m->vpieces.len;
  piece_sort(pc, npc);
  fm_inst *ins = m->vinsts.data;
  size_t ni = m->vinsts.len, i = 0;
  /* pieces are sorted by (inst, kind): p[kd] = first piece of kind >= kd */
  for (size_t k = 0; k < ni; k++) {
    while (i < npc && pc[i].inst < k) i++;
    for (int kd = 0; kd < FM__KINDS; kd++) {
      while (i < npc && pc[i].inst == k && pc[i].kind < kd) i++;
      ins[k].p[kd] = i;
    }
    while (i < npc && pc[i].inst == k) i++;
    ins[k].p[FM__KINDS] = i;
  }
done:
  fa_free(b->a, slot, nslots * sizeof(int32_t));
  return st;
}

static fsdpa_status instance_metrics(build *b) {
  fsdp_model *m = b->m;
  size_t maxp = 0;
  for (size_t k = 0; k < m->ninst; k++) {
    size_t np = m->insts[k].p[FM__KINDS] - m->insts[k].p[0];
    if (np > maxp) maxp = np;
  }
  if (!maxp) return FSDPA_OK;
  size_t cap = maxp + m->ncompute_all;
  iv *comm = fa_malloc(b->a, maxp * sizeof(iv));
  iv *comp = fa_malloc(b->a, maxp * sizeof(iv));
  iv *tmp = fa_malloc(b->a, cap * sizeof(iv));
  fsdpa_status st = FSDPA_OK;
  if (!comm || !comp || !tmp) {
    st = fa_fail_status(b->a);
    goto done;
  }
  for (size_t k = 0; k < m->ninst; k++) {
    fm_inst *in = &m->insts[k];
    size_t nag = fm_inst_set(m, in, FM_AG, tmp);
    in->ag_ns = iv_total(tmp, nag);
    size_t nrs = fm_inst_set(m, in, FM_RS, tmp);
    in->rs_ns = iv_total(tmp, nrs);
    size_t nc = 0;
    for (size_t i = in->p[FM_AG]; i < in->p[FM_COMPUTE]; i++)
      comm[nc++] = (iv){m->pieces[i].s, m->pieces[i].e};
    nc = iv_union(comm, nc);
    size_t np = fm_inst_set(m, in, FM_COMPUTE, comp);
    in->comm_ns = iv_total(comm, nc);
    in->compute_ns = iv_total(comp, np);
    size_t ne = iv_subtract(comm, nc, m->compute_all, m->ncompute_all, tmp);
    in->exposed_measured_ns = iv_total(tmp, ne);
    in->anchor = np ? comp[0].s : nc ? comm[0].s : INT64_MAX;
  }
done:
  fa_free(b->a, comm, maxp * sizeof(iv));
  fa_free(b->a, comp, maxp * sizeof(iv));
  fa_free(b->a, tmp, cap * sizeof(iv));
  return st;
}

static fsdpa_status fm_build_new(fsdpa_ctx *c, fsdp_model *m) {
  memset(m, 0, sizeof *m);
  m->a = &c->alloc;
  m->version = fm_version(c);
  if (!m->version) return FSDPA_OK;
  build b;
  memset(&b, 0, sizeof b);
  b.c = c;
  b.a = &c->alloc;
  b.s = &c->st;
  b.m = m;
  b.v = ctx_views(c);
  fsdpa_status st = b.v ? FSDPA_OK : fa_fail_status(b.a);
  fa_vec v1 = {NULL, 0, 0};
  if (!st) st = collect_annotations(&b);
  if (!st) st = steps_and_backward_start(&b);
  if (!st) st = attribute_comm(&b, &v1);
  if (!st && m->version == 1) st = assign_v1(&b, &v1);
  if (!st) st = m->version == 2 ? windows_v2(&b) : windows_v1(&b);
  if (!st) st = attribute_compute(&b);
  if (!st) st = rank_unions(&b);
  if (!st) st = order_units(&b);
  if (!st) st = make_instances(&b);
  m->units = m->vunits.data;
  m->nunits = m->vunits.len;
  m->insts = m->vinsts.data;
  m->ninst = m->vinsts.len;
  m->pieces = m->vpieces.data;
  m->npieces = m->vpieces.len;
  if (!st) st = instance_metrics(&b);
  fa_vec_free(b.a, &v1, sizeof(raw_piece));
  fa_vec_free(b.a, &b.raw, sizeof(raw_piece));
  fa_free(b.a, b.names, (b.nnames + 1) * sizeof(ann_info));
  fa_free(b.a, b.ann, b.ann_cap * sizeof(fm_node));
  fa_free(b.a, b.gann, b.gann_cap * sizeof(fm_node));
  fa_free(b.a, b.stack, b.stack_cap * sizeof(int32_t));
  fa_free(b.a, b.win, b.win_cap * sizeof(fm_node));
  fa_free(b.a, b.ext.p, b.ext.n * 2 * sizeof(int64_t));
  if (st) fm_free(m);
  return st;
}

static fsdpa_status fm_build_cb(fsdpa_ctx *c, void *obj, const void *arg) {
  (void)arg;
  return fm_build_new(c, obj);
}

static void fm_cache_free(fsdpa_ctx *c, void *obj) {
  fm_free(obj);
  fa_free(&c->alloc, obj, sizeof(fsdp_model));
}

fsdpa_status fm_build(fsdpa_ctx *c, fsdp_model *m) {
  memset(m, 0, sizeof *m);
  const void *k;
  fsdpa_status st = ctx_cache_obtain(c, CACHE_FSDP_MODEL, sizeof *m, fm_build_cb, NULL, fm_cache_free, &k);
  if (st) return st;
  *m = *(const fsdp_model *)k;
  m->borrowed = 1;
  return FSDPA_OK;
}

/* ---- totals ---- */

fsdpa_status fm_totals(const fsdp_model *m, int64_t lo, int64_t hi, fm_total **out, size_t *n) {
  *out = NULL;
  *n = 0;
  size_t nt = m->nunits * 2;
  if (!nt) return FSDPA_OK;
  fm_total *t = fa_calloc(m->a, nt * sizeof(fm_total));
  if (!t) return fa_fail_status(m->a);
  for (size_t u = 0; u < m->nunits; u++)
    for (int ph = 0; ph < 2; ph++) {
      t[(size_t)ph * m->nunits + u].unit = (uint32_t)u;
      t[(size_t)ph * m->nunits + u].phase = (uint8_t)ph;
    }
  for (size_t k = 0; k < m->ninst; k++) {
    const fm_inst *in = &m->insts[k];
    if (lo != -2 && (in->step < lo || in->step > hi)) continue;
    fm_total *x = &t[(size_t)in->phase * m->nunits + in->unit];
    x->instances++;
    x->comm_ns = sat_add(x->comm_ns, in->comm_ns);
    x->compute_ns = sat_add(x->compute_ns, in->compute_ns);
    x->exposed_sum_ns = sat_add(x->exposed_sum_ns, in->comm_ns > in->compute_ns ? in->comm_ns - in->compute_ns : 0);
    x->exposed_measured_ns = sat_add(x->exposed_measured_ns, in->exposed_measured_ns);
    x->ag_ns = sat_add(x->ag_ns, in->ag_ns);
    x->rs_ns = sat_add(x->rs_ns, in->rs_ns);
    x->comm_kernels += in->p[FM_COMPUTE] - in->p[FM_AG];
    x->compute_kernels += in->p[FM__KINDS] - in->p[FM_COMPUTE];
  }
  *out = t;
  *n = nt;
  return FSDPA_OK;
}

fsdpa_status fm_summarize(fsdpa_ctx *c, fm_summary *s) {
  memset(s, 0, sizeof *s);
  fsdp_model m;
  fsdpa_status st = fm_build(c, &m);
  if (st) return st;
  fm_total *t;
  size_t n;
  st = fm_totals(&m, -2, -2, &t, &n);
  if (!st) {
    for (size_t i = 0; i < n; i++) {
      if (!t[i].instances || t[i].comm_ns <= 0) continue;
      s->units++;
      if (t[i].comm_ns > t[i].compute_ns) {
        s->comm_bound++;
        s->exposed_formula_ns += t[i].comm_ns - t[i].compute_ns;
      }
    }
    fa_free(m.a, t, n * sizeof(fm_total));
  }
  fm_free(&m);
  return st;
}
