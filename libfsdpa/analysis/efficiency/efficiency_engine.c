/* The op table: every selected GPU op goes to its call (the attributed
 * CPU op, model/op_attr.c), every call to its row (op name and shapes);
 * each row's model is evaluated once.  Windows then pick calls by the start
 * of their first GPU op, so every call falls in exactly one step. */
#include "analysis/efficiency/efficiency_impl.h"
#include "events/comm_class.h"
#include "model/iterations.h"
#include "util/sort.h"
#include <string.h>

typedef struct ent {
  uint32_t key;      /* cpu index, or OA_NONE */
  uint32_t gpu;
  int64_t ts, dur;
  uint32_t comm;
} ent;
#define ENT_LESS(a, b) \
  ((a)->key != (b)->key ? (a)->key < (b)->key : (a)->key == OA_NONE ? (a)->gpu < (b)->gpu : (a)->ts != (b)->ts ? (a)->ts < (b)->ts : (a)->gpu < (b)->gpu)
FA_SORT_DEFINE(sort_ent, ent, ENT_LESS)

/* A call while its row is looked up: the row key. */
typedef struct ckey {
  uint32_t name, shape, gpu_name, call;  /* name INTERN_NONE: unattributed (gpu_name set) */
} ckey;
#define CKEY_LESS(a, b)                                              \
  ((a)->name != (b)->name ? (a)->name < (b)->name                    \
   : (a)->shape != (b)->shape ? (a)->shape < (b)->shape              \
   : (a)->gpu_name != (b)->gpu_name ? (a)->gpu_name < (b)->gpu_name  \
                                    : (a)->call < (b)->call)
FA_SORT_DEFINE(sort_ckey, ckey, CKEY_LESS)
#define CALL_LESS(a, b) ((a)->first != (b)->first ? (a)->first < (b)->first : (a)->row < (b)->row)
FA_SORT_DEFINE(sort_call, ef_call, CALL_LESS)

/* The device that ran the most kernel time (Σ durations), lowest on a tie. */
static int64_t main_device(const fsdpa_ctx *c, const store_views *v) {
  int64_t best = FSDPA_ABSENT, best_ns = -1;
  for (size_t i = 0; i < v->nstreams;) {
    int64_t dev = v->streams[i].device, ns = 0;
    for (; i < v->nstreams && v->streams[i].device == dev; i++)
      for (size_t j = 0; j < v->streams[i].nops; j++) {
        const ev_rec *r = STORE_REC(&c->st.gpu, v->streams[i].ops[j]);
        ns += r->end - r->ts;
      }
    if (ns > best_ns) {
      best_ns = ns;
      best = dev;
    }
  }
  return best;
}

void ef_free(ef_table *t) {
  if (!t->borrowed) {
    fa_free(t->a, t->rows, (t->nrows ? t->nrows : 1) * sizeof *t->rows);
    fa_free(t->a, t->calls, t->calls_alloc * sizeof *t->calls);
  }
  memset(t, 0, sizeof *t);
}

static fsdpa_status build(fsdpa_ctx *c, const qwin *w, ef_table *t) {
  memset(t, 0, sizeof *t);
  t->a = &c->alloc;
  t->device = FSDPA_ABSENT;
  const store_views *v = ctx_views(c);
  if (!v) return fa_fail_status(&c->alloc);
  const op_attr *oa;
  fsdpa_status st = op_attr_get(c, &oa);
  if (st) return st;
  const store *s = &c->st;
  fa_alloc *a = &c->alloc;
  size_t cap = 0;
  for (size_t i = 0; i < v->nstreams; i++)
    if (qwin_selects(w, &v->streams[i])) cap += v->streams[i].nops;
  ent *e = fa_malloc(a, (cap ? cap : 1) * sizeof *e);
  ckey *k = fa_malloc(a, (cap ? cap : 1) * sizeof *k);
  /* kernel_runs_tf32 by GPU op name, once per name (0 unknown, 1 no, 2 yes):
   * a matrix op's kernels repeat across its calls */
  size_t nnames = intern_count(&s->names);
  uint8_t *tf32_of = fa_calloc(a, nnames ? nnames : 1);
  t->calls = fa_malloc(a, (cap ? cap : 1) * sizeof *t->calls);
  t->calls_alloc = cap ? cap : 1;
  if (!e || !k || !t->calls || !tf32_of) {
    st = fa_fail_status(a);
    goto done;
  }
  size_t n = 0;
  for (size_t i = 0; i < v->nstreams; i++) {
    const gpu_stream_view *sv = &v->streams[i];
    if (!qwin_selects(w, sv)) continue;
    for (size_t j = 0; j < sv->nops; j++) {
      uint32_t g = sv->ops[j];
      const ev_rec *r = STORE_REC(&s->gpu, g);
      e[n++] = (ent){oa->op[g], g, r->ts, r->end - r->ts, v->comm[g]};
    }
  }
  sort_ent(e, n);
  /* calls: runs of one key (each unattributed GPU op is a call of its own) */
  size_t nc = 0;
  for (size_t i = 0; i < n;) {
    size_t j = i + 1;
    if (e[i].key != OA_NONE)
      while (j < n && e[j].key == e[i].key) j++;
    ef_call *x = &t->calls[nc];
    x->first = e[i].ts;
    x->last = e[i].ts + e[i].dur;
    x->kernel_ns = 0;
    x->gpu_ops = (uint32_t)(j - i);
    x->comm_ops = 0;
    for (size_t q = i; q < j; q++) {
      if (e[q].ts + e[q].dur > x->last) x->last = e[q].ts + e[q].dur;
      x->kernel_ns += e[q].dur;
      x->comm_ops += e[q].comm != 0;
    }
    x->tf32 = 0;
    if (e[i].key != OA_NONE) {
      const ev_rec *op = STORE_REC(&s->cpu, e[i].key);
      k[nc] = (ckey){op->name, store_cpu_shape(s, e[i].key), INTERN_NONE, (uint32_t)nc};
      int cat, model;
      op_attr_class(c, oa, op->name, &cat, &model);
      for (size_t q = i; q < j && pm_is_matrix(model) && !x->tf32; q++) {
        uint32_t gn = STORE_REC(&s->gpu, e[q].gpu)->name;
        if (gn >= nnames) {
          x->tf32 = (uint8_t)kernel_runs_tf32(store_name(s, gn), intern_len(&s->names, gn));
          continue;
        }
        if (!tf32_of[gn]) tf32_of[gn] = kernel_runs_tf32(store_name(s, gn), intern_len(&s->names, gn)) ? 2 : 1;
        x->tf32 = tf32_of[gn] == 2;
      }
    } else {
      /* unattributed: one row per GPU op name and class */
      const ev_rec *g = STORE_REC(&s->gpu, e[i].gpu);
      k[nc] = (ckey){INTERN_NONE, e[i].comm ? 1u : g->kind == RK_KERNEL ? 0u : 2u, g->name, (uint32_t)nc};
    }
    nc++;
    i = j;
  }
  sort_ckey(k, nc);
  size_t nr = 0;
  for (size_t i = 0; i < nc; i++)
    nr += !i || k[i].name != k[i - 1].name || k[i].shape != k[i - 1].shape || k[i].gpu_name != k[i - 1].gpu_name;
  t->rows = fa_calloc(a, (nr ? nr : 1) * sizeof *t->rows);
  if (!t->rows) {
    st = fa_fail_status(a);
    goto done;
  }
  t->nrows = nr;
  size_t r = 0;
  for (size_t i = 0; i < nc; i++) {
    if (i && (k[i].name != k[i - 1].name || k[i].shape != k[i - 1].shape || k[i].gpu_name != k[i - 1].gpu_name)) r++;
    ef_row *x = &t->rows[r];
    ef_call *cl = &t->calls[k[i].call];
    cl->row = (uint32_t)r;
    if (!x->count) {
      x->op_name = k[i].name;
      x->gpu_name = k[i].gpu_name;
      uint32_t nm = k[i].name != INTERN_NONE ? k[i].name : k[i].gpu_name;
      x->str = store_name(s, nm);
      x->len = intern_len(&s->names, nm);
      x->pm.model = OM_NONE;
      x->pm.flops = x->pm.bytes = x->pm.min_dim = FSDPA_ABSENT;
      if (k[i].name != INTERN_NONE) {
        x->shape = k[i].shape;
        int cat, model;
        op_attr_class(c, oa, k[i].name, &cat, &model);
        x->cat = (uint8_t)cat;
        shape_parts sp;
        store_shape_parts(s, k[i].shape, &sp);
        pm_evaluate(model, &sp, &x->pm);
      } else {
        x->shape = INTERN_NONE;
        x->cat = k[i].shape == 1 ? OC_COMMUNICATION : k[i].shape == 2 ? OC_COPY : OC_OTHER;
      }
    }
    x->count++;
    x->gpu_ops += cl->gpu_ops;
    x->comm_ops += cl->comm_ops;
    x->kernel_ns += cl->kernel_ns;
  }
  /* an op whose every GPU op is communication is communication */
  for (size_t i = 0; i < nr; i++)
    if (t->rows[i].gpu_ops && t->rows[i].comm_ops == t->rows[i].gpu_ops) t->rows[i].cat = OC_COMMUNICATION;
  sort_call(t->calls, nc);
  t->device = main_device(c, v);
  t->peak = t->device != FSDPA_ABSENT ? peak_lookup(store_device(s, t->device)) : NULL;
done:
  fa_free(a, e, (cap ? cap : 1) * sizeof *e);
  fa_free(a, k, (cap ? cap : 1) * sizeof *k);
  fa_free(a, tf32_of, nnames ? nnames : 1);
  if (st) {
    ef_free(t);
    return st;
  }
  if (nc + 64 < t->calls_alloc) {  /* keep only what is used (a failed shrink keeps the block) */
    ef_call *shrunk = fa_realloc(a, t->calls, t->calls_alloc * sizeof *t->calls, (nc ? nc : 1) * sizeof *t->calls);
    if (shrunk) {
      t->calls = shrunk;
      t->calls_alloc = nc ? nc : 1;
    }
  }
  t->ncalls = nc;
  return FSDPA_OK;
}

/* ---- the whole-trace table, memoized ---- */

static void cached_free(fsdpa_ctx *c, void *obj) {
  ef_table *t = obj;
  t->borrowed = 0;
  ef_free(t);
  fa_free(&c->alloc, t, sizeof *t);
}

static fsdpa_status cached_build(fsdpa_ctx *c, void *obj, const void *arg) {
  (void)arg;
  qwin all = {INT64_MIN, INT64_MAX, FSDPA_ABSENT, FSDPA_ABSENT};
  return build(c, &all, obj);
}

fsdpa_status ef_build(fsdpa_ctx *c, const qwin *w, ef_table *t) {
  if (w->device != FSDPA_ABSENT || w->stream != FSDPA_ABSENT) return build(c, w, t);
  const void *p;
  fsdpa_status st = ctx_cache_obtain(c, CACHE_OP_TABLE, sizeof(ef_table), cached_build, NULL, cached_free, &p);
  if (st) return st;
  *t = *(const ef_table *)p;
  t->borrowed = 1;
  return FSDPA_OK;
}

/* ---- windows ---- */

double ef_peak(const ef_table *t, int dtype) {
  return t->peak && dtype > PD_NONE && dtype < PD__COUNT ? t->peak->tflops[dtype] : 0;
}

/* First call whose first GPU op starts at or after t0. */
static size_t first_call(const ef_table *t, int64_t t0) {
  size_t lo = 0, hi = t->ncalls;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (t->calls[mid].first < t0) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

void ef_window(const ef_table *t, int64_t t0, int64_t t1, ef_sums *s) {
  memset(s, 0, sizeof *s);
  for (size_t i = first_call(t, t0); i < t->ncalls && t->calls[i].first < t1; i++) {
    const ef_call *x = &t->calls[i];
    const ef_row *r = &t->rows[x->row];
    s->kernel_ns += x->kernel_ns;
    s->cat_ns[r->cat] += x->kernel_ns;
    if (!pm_is_matrix(r->pm.model)) continue;
    s->modelled_ns += x->kernel_ns;
    s->flops += r->pm.flops;
    double p = ef_peak(t, r->pm.dtype);
    if (p > 0) {
      s->peak_ns += (double)r->pm.flops / (p * 1000.0);  /* TFLOP/s = 1000 FLOP per ns */
      s->peak_calls++;
    }
  }
}

void ef_trace_window(fsdpa_ctx *c, int64_t *t0, int64_t *t1) {
  if (!it_trace_extent(c, t0, t1)) *t0 = *t1 = 0;
}

/* ---- rows of a window ---- */

static int str_less(const char *a, size_t na, const char *b, size_t nb) {
  int k = memcmp(a, b, na < nb ? na : nb);
  return k ? k < 0 : na < nb;
}
/* kernel time (desc), then name, then the shape id and GPU op (ids: the
 * same trace gives the same order) */
#define ROW_LESS(x, y)                                                              \
  ((x)->kernel_ns != (y)->kernel_ns ? (x)->kernel_ns > (y)->kernel_ns              \
   : ((x)->len != (y)->len || memcmp((x)->str, (y)->str, (x)->len) != 0)           \
       ? str_less((x)->str, (x)->len, (y)->str, (y)->len)                          \
   : (x)->op_name != (y)->op_name ? (x)->op_name < (y)->op_name                    \
   : (x)->shape != (y)->shape ? (x)->shape < (y)->shape                            \
                              : (x)->gpu_name < (y)->gpu_name)
FA_SORT_DEFINE(sort_rows, ef_row, ROW_LESS)

fsdpa_status ef_rows_in(fsdpa_ctx *c, const ef_table *t, int64_t t0, int64_t t1, uint64_t max_rows, ef_rows *out) {
  memset(out, 0, sizeof *out);
  size_t nr = t->nrows;
  ef_row *r = fa_malloc(&c->alloc, (nr + 1) * sizeof *r);
  if (!r) return fa_fail_status(&c->alloc);
  for (size_t i = 0; i < nr; i++) {
    r[i] = t->rows[i];
    r[i].count = r[i].gpu_ops = r[i].comm_ops = 0;
    r[i].kernel_ns = 0;
  }
  for (size_t i = first_call(t, t0); i < t->ncalls && t->calls[i].first < t1; i++) {
    const ef_call *x = &t->calls[i];
    ef_row *y = &r[x->row];
    y->count++;
    y->gpu_ops += x->gpu_ops;
    y->comm_ops += x->comm_ops;
    y->kernel_ns += x->kernel_ns;
  }
  size_t m = 0;
  for (size_t i = 0; i < nr; i++)
    if (r[i].count) r[m++] = r[i];
  sort_rows(r, m);
  if (max_rows && m > max_rows) {
    ef_row o;
    memset(&o, 0, sizeof o);
    o.op_name = o.gpu_name = o.shape = INTERN_NONE;
    o.cat = OC_OTHER;
    o.pm.model = OM_NONE;
    o.pm.flops = 0;
    o.pm.bytes = o.pm.min_dim = FSDPA_ABSENT;
    for (size_t i = max_rows; i < m; i++) {
      o.count += r[i].count;
      o.gpu_ops += r[i].gpu_ops;
      o.kernel_ns += r[i].kernel_ns;
      if (pm_is_matrix(r[i].pm.model)) o.pm.flops += r[i].pm.flops * (int64_t)r[i].count;
      out->folded++;
    }
    m = (size_t)max_rows;
    r[m++] = o;
  }
  out->r = r;
  out->n = m;
  out->alloc_n = nr + 1;
  return FSDPA_OK;
}

void ef_rows_free(fsdpa_ctx *c, ef_rows *x) {
  if (x->r) fa_free(&c->alloc, x->r, x->alloc_n * sizeof *x->r);
  memset(x, 0, sizeof *x);
}
