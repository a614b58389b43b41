/* GPU op -> CPU op.  One sweep per thread: the thread's CPU ops sorted by
 * start (enclosing ops first) and the launch calls of GPU ops sorted by
 * start; a stack holds the ops open at each call.  O((ops + calls) log). */
#include "model/op_attr.h"
#include "events/classify_ops.h"
#include "util/sort.h"
#include <string.h>

#define CLS_UNKNOWN 0xFFFFu

typedef struct aop {   /* a CPU op of one thread */
  uint32_t track, idx;
  int64_t ts, end;
} aop;
typedef struct aq {    /* a launch call of a GPU op */
  uint32_t track, gpu;
  int64_t ts;
} aq;

#define AOP_LESS(a, b)                                                     \
  ((a)->track != (b)->track ? (a)->track < (b)->track                      \
   : (a)->ts != (b)->ts     ? (a)->ts < (b)->ts                            \
   : (a)->end != (b)->end   ? (a)->end > (b)->end                          \
                            : (a)->idx < (b)->idx)
FA_SORT_DEFINE(sort_aop, aop, AOP_LESS)
#define AQ_LESS(a, b)                                                      \
  ((a)->track != (b)->track ? (a)->track < (b)->track                      \
   : (a)->ts != (b)->ts     ? (a)->ts < (b)->ts                            \
                            : (a)->gpu < (b)->gpu)
FA_SORT_DEFINE(sort_aq, aq, AQ_LESS)
typedef struct xref {   /* an op's External id */
  int64_t ext;
  uint32_t idx, pad;
} xref;
#define XREF_LESS(a, b) ((a)->ext != (b)->ext ? (a)->ext < (b)->ext : (a)->idx < (b)->idx)
FA_SORT_DEFINE(sort_xref, xref, XREF_LESS)

static void attr_free(fsdpa_ctx *c, void *obj) {
  op_attr *o = obj;
  fa_free(&c->alloc, o->op, (o->n ? o->n : 1) * sizeof *o->op);
  fa_free(&c->alloc, o->cls, (o->ncls ? o->ncls : 1) * sizeof *o->cls);
  fa_free(&c->alloc, o, sizeof *o);
}

static uint16_t cls_of(const store *s, uint16_t *memo, uint32_t name) {
  if (memo[name] == CLS_UNKNOWN) {
    int cat, model;
    classify_op(store_name(s, name), intern_len(&s->names, name), &cat, &model);
    memo[name] = (uint16_t)(cat << 8 | model);
  }
  return memo[name];
}

void op_attr_class(const fsdpa_ctx *c, const op_attr *oa, uint32_t name, int *cat, int *model) {
  uint16_t v = name < oa->ncls ? oa->cls[name] : CLS_UNKNOWN;
  if (v == CLS_UNKNOWN) {
    classify_op(store_name(&c->st, name), intern_len(&c->st.names, name), cat, model);
    return;
  }
  *cat = v >> 8;
  *model = v & 0xFF;
}

/* The op of a call at t given the ops open around it (stack[0] outermost):
 * the outermost with a matrix model, else the nearest with an elementwise
 * model, else the innermost; OA_NONE when none is open. */
static uint32_t pick(const store *s, uint16_t *memo, const aop *stack, size_t depth, int64_t t) {
  uint32_t inner = OA_NONE, elem = OA_NONE;
  for (size_t k = depth; k-- > 0;) {
    if (stack[k].end <= t) continue;  /* not properly nested: closed already */
    if (inner == OA_NONE) inner = stack[k].idx;
    int m = cls_of(s, memo, STORE_REC(&s->cpu, stack[k].idx)->name) & 0xFF;
    if (m >= OM_MM && m <= OM_CONV_BWD) {
      /* keep looking outwards for an enclosing matrix op */
      uint32_t best = stack[k].idx;
      for (size_t j = k; j-- > 0;) {
        if (stack[j].end <= t) continue;
        int mj = cls_of(s, memo, STORE_REC(&s->cpu, stack[j].idx)->name) & 0xFF;
        if (mj >= OM_MM && mj <= OM_CONV_BWD) best = stack[j].idx;
      }
      return best;
    }
    if (elem == OA_NONE && (m == OM_UNARY || m == OM_BINARY)) elem = stack[k].idx;
  }
  return elem != OA_NONE ? elem : inner;
}

static fsdpa_status build(fsdpa_ctx *c, void *obj, const void *arg) {
  (void)arg;
  op_attr *o = obj;
  memset(o, 0, sizeof *o);
  const store *s = &c->st;
  fa_alloc *a = &c->alloc;
  const store_views *v = ctx_views(c);
  if (!v) return fa_fail_status(a);
  size_t ng = s->gpu.len, nn = intern_count(&s->names);
  o->n = ng;
  o->ncls = nn;
  o->op = fa_malloc(a, (ng ? ng : 1) * sizeof *o->op);
  o->cls = fa_malloc(a, (nn ? nn : 1) * sizeof *o->cls);
  size_t ncpu = 0;
  for (size_t i = 0; i < s->cpu.len; i++) ncpu += STORE_REC(&s->cpu, i)->kind == RK_CPU_OP;
  aop *ops = fa_malloc(a, (ncpu ? ncpu : 1) * sizeof *ops);
  aq *qs = fa_malloc(a, (ng ? ng : 1) * sizeof *qs);
  aop *stack = fa_malloc(a, (ncpu ? ncpu : 1) * sizeof *stack);
  xref *ext = fa_malloc(a, (ncpu ? ncpu : 1) * sizeof *ext);
  fsdpa_status st = FSDPA_OK;
  if (!o->op || !o->cls || !ops || !qs || !stack || !ext) {
    st = fa_fail_status(a);
    goto done;
  }
  for (size_t i = 0; i < nn; i++) o->cls[i] = CLS_UNKNOWN;
  size_t k = 0, ne = 0;
  for (size_t i = 0; i < s->cpu.len; i++) {
    const ev_rec *r = STORE_REC(&s->cpu, i);
    if (r->kind != RK_CPU_OP) continue;
    ops[k++] = (aop){r->track, (uint32_t)i, r->ts, r->end};
    if (r->ext != FSDPA_ABSENT) {
      ext[ne++] = (xref){r->ext, (uint32_t)i, 0};
    }
  }
  sort_aop(ops, ncpu);
  sort_xref(ext, ne);
  size_t nq = 0;
  for (size_t i = 0; i < ng; i++) {
    o->op[i] = OA_NONE;
    const ev_rec *g = STORE_REC(&s->gpu, i);
    uint32_t rt = store_runtime_for_corr(v, g->corr);
    if (rt == UINT32_MAX) continue;
    const ev_rec *r = STORE_REC(&s->rt, rt);
    qs[nq++] = (aq){r->track, (uint32_t)i, r->ts};
  }
  sort_aq(qs, nq);
  size_t oi = 0, depth = 0;
  uint32_t cur = UINT32_MAX;
  for (size_t q = 0; q < nq; q++) {
    if (qs[q].track != cur) {  /* a new thread: its ops, from the first */
      cur = qs[q].track;
      depth = 0;
      while (oi < ncpu && ops[oi].track < cur) oi++;
    }
    int64_t t = qs[q].ts;
    for (; oi < ncpu && ops[oi].track == cur && ops[oi].ts <= t; oi++) {
      while (depth && stack[depth - 1].end <= ops[oi].ts) depth--;
      stack[depth++] = ops[oi];
    }
    while (depth && stack[depth - 1].end <= t) depth--;
    o->op[qs[q].gpu] = pick(s, o->cls, stack, depth, t);
  }
  /* no op around the launch (or no launch call): the op whose External id
   * the GPU op (else its launch call) carries, when exactly one op has it */
  for (size_t i = 0; i < ng && ne; i++) {
    if (o->op[i] != OA_NONE) continue;
    const ev_rec *g = STORE_REC(&s->gpu, i);
    int64_t x = g->ext;
    if (x == FSDPA_ABSENT) {
      uint32_t rt = store_runtime_for_corr(v, g->corr);
      if (rt != UINT32_MAX) x = STORE_REC(&s->rt, rt)->ext;
    }
    if (x == FSDPA_ABSENT) continue;
    size_t lo = 0, hi = ne;
    while (lo < hi) {
      size_t mid = lo + (hi - lo) / 2;
      if (ext[mid].ext < x) lo = mid + 1;
      else hi = mid;
    }
    if (lo < ne && ext[lo].ext == x && (lo + 1 == ne || ext[lo + 1].ext != x)) o->op[i] = ext[lo].idx;
  }
done:
  fa_free(a, ops, (ncpu ? ncpu : 1) * sizeof *ops);
  fa_free(a, qs, (ng ? ng : 1) * sizeof *qs);
  fa_free(a, stack, (ncpu ? ncpu : 1) * sizeof *stack);
  fa_free(a, ext, (ncpu ? ncpu : 1) * sizeof *ext);
  if (st) {
    fa_free(a, o->op, (ng ? ng : 1) * sizeof *o->op);
    fa_free(a, o->cls, (nn ? nn : 1) * sizeof *o->cls);
  }
  return st;
}

fsdpa_status op_attr_get(fsdpa_ctx *c, const op_attr **out) {
  const void *p;
  fsdpa_status st = ctx_cache_obtain(c, CACHE_OP_ATTR, sizeof(op_attr), build, NULL, attr_free, &p);
  *out = st ? NULL : p;
  return st;
}
