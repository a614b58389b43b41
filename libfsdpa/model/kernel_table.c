/* Kernel table: one entry per selected GPU op (name, class code, clipped
 * duration), sorted so each (name, class) is a run with its durations in
 * order (count, total, extremes and the median in one pass), then the rows
 * by total. */
#include "model/kernel_table.h"
#include "events/comm_class.h"
#include "model/fsdp_model.h"
#include "model/tracks.h"
#include "util/sort.h"
#include <string.h>

const char *kt_class_name(int cls) {
  static const char *const N[] = {"compute", "communication", "memcpy", "memset"};
  return cls >= 0 && cls <= KT_MEMSET ? N[cls] : "compute";
}

typedef struct kt_ent {
  uint32_t name, code;   /* code: KT_* in the top bits' absence, or the comm code */
  int64_t dur;
} kt_ent;

/* A GPU op's class code: its communication code, else its kind (values
 * below 4 never are communication codes: a code has a rule in bits 30-31). */
static uint32_t class_code(const ev_rec *r, uint32_t comm) {
  if (comm) return comm;
  return r->kind == RK_MEMCPY ? KT_MEMCPY : r->kind == RK_MEMSET ? KT_MEMSET : KT_COMPUTE;
}

#define ENT_LESS(a, b)                                        \
  ((a)->name != (b)->name ? (a)->name < (b)->name             \
   : (a)->code != (b)->code ? (a)->code < (b)->code           \
                            : (a)->dur < (b)->dur)
FA_SORT_DEFINE(sort_ent, kt_ent, ENT_LESS)

static int str_less(const char *a, size_t na, const char *b, size_t nb) {
  int k = memcmp(a, b, na < nb ? na : nb);
  return k ? k < 0 : na < nb;
}
/* Rows by total (desc), then name, then class code: a total order. */
#define ROW_LESS(x, y)                                                  \
  ((x)->total != (y)->total ? (x)->total > (y)->total                   \
   : (x)->name != (y)->name ? str_less((x)->str, (x)->len, (y)->str, (y)->len) \
                            : (x)->code < (y)->code)
FA_SORT_DEFINE(sort_rows, kt_row, ROW_LESS)

/* The GPU ops of the fsdpa_fsdp_unit_list() entry at `pos` (an entry is a
 * (unit, phase) with instances), as a mask over st.gpu. */
static fsdpa_status unit_mask(fsdpa_ctx *c, int64_t pos, uint8_t **mask, size_t *n) {
  *mask = NULL;
  *n = c->st.gpu.len;
  fsdp_model m;
  fsdpa_status st = fm_build(c, &m);
  if (st) return st;
  fm_total *t = NULL;
  size_t nt = 0;
  st = fm_totals(&m, -2, -2, &t, &nt);
  if (st) goto out;
  size_t k = 0;
  int64_t seen = -1;
  for (; k < nt; k++)
    if (t[k].instances && ++seen == pos) break;
  if (k == nt) {
    st = ctx_fail(c, FSDPA_EINVAL, "fsdp_unit %lld: the trace lists %lld FSDP unit entries", (long long)pos,
                  (long long)(seen + 1));
    goto out;
  }
  *mask = fa_calloc(&c->alloc, *n ? *n : 1);
  if (!*mask) {
    st = fa_fail_status(&c->alloc);
    goto out;
  }
  for (size_t i = 0; i < m.ninst; i++) {
    const fm_inst *in = &m.insts[i];
    if (in->unit != t[k].unit || in->phase != t[k].phase) continue;
    for (size_t p = in->p[0]; p < in->p[FM__KINDS]; p++) (*mask)[m.pieces[p].gpu] = 1;
  }
out:
  if (t) fa_free(m.a, t, nt * sizeof *t);
  fm_free(&m);
  return st;
}

/* |union of the selected streams' busy intervals ∩ w| */
static fsdpa_status busy_in(fsdpa_ctx *c, const store_views *v, const qwin *w, int64_t *busy) {
  iv *u;
  size_t m, cap;
  fsdpa_status st = tracks_busy_union(c, v, w, &u, &m, &cap);
  *busy = st ? 0 : iv_total(u, m);
  if (u) fa_free(&c->alloc, u, cap * sizeof *u);
  return st;
}

fsdpa_status kt_build(fsdpa_ctx *c, const qwin *w, int64_t fsdp_unit, uint64_t max_rows, kt_table *t) {
  memset(t, 0, sizeof *t);
  const store_views *v = ctx_views(c);
  if (!v) return fa_fail_status(&c->alloc);
  const store *s = &c->st;
  uint8_t *mask = NULL;
  size_t nmask = 0;
  fsdpa_status st = FSDPA_OK;
  if (fsdp_unit >= 0 && (st = unit_mask(c, fsdp_unit, &mask, &nmask))) return st;
  size_t cap = 0;
  for (size_t i = 0; i < v->nstreams; i++)
    if (qwin_selects(w, &v->streams[i])) cap += v->streams[i].nops;
  kt_ent *e = fa_malloc(&c->alloc, (cap ? cap : 1) * sizeof *e);
  if (!e) {
    st = fa_fail_status(&c->alloc);
    goto done;
  }
  size_t n = 0;
  for (size_t i = 0; i < v->nstreams; i++) {
    const gpu_stream_view *sv = &v->streams[i];
    if (!qwin_selects(w, sv)) continue;
    for (size_t j = 0; j < sv->nops; j++) {
      uint32_t g = sv->ops[j];
      if (mask && !mask[g]) continue;
      const ev_rec *r = STORE_REC(&s->gpu, g);
      int64_t a = r->ts > w->t0 ? r->ts : w->t0, b = r->end < w->t1 ? r->end : w->t1;
      int in = r->end > w->t0 && r->ts < w->t1;
      if (r->ts == r->end) in = r->ts >= w->t0 && r->ts < w->t1, a = b = r->ts;
      if (!in) continue;
      e[n++] = (kt_ent){r->name, class_code(r, v->comm[g]), b - a};
    }
  }
  sort_ent(e, n);
  size_t nr = 0;
  for (size_t i = 0; i < n; i++) nr += !i || e[i].name != e[i - 1].name || e[i].code != e[i - 1].code;
  t->cap = nr + 1;
  t->rows = fa_malloc(&c->alloc, t->cap * sizeof *t->rows);
  if (!t->rows) {
    st = fa_fail_status(&c->alloc);
    goto done;
  }
  for (size_t i = 0; i < n;) {
    size_t j = i;
    int64_t sum = 0;
    while (j < n && e[j].name == e[i].name && e[j].code == e[i].code) sum += e[j++].dur;
    size_t cnt = j - i;
    kt_row *r = &t->rows[t->n++];
    r->name = e[i].name;
    r->str = store_name(s, e[i].name);
    r->len = intern_len(&s->names, e[i].name);
    r->code = e[i].code;
    r->cls = e[i].code > KT_MEMSET ? KT_COMM : (uint8_t)e[i].code;
    r->count = cnt;
    r->names = 1;
    r->total = sum;
    r->min = e[i].dur;
    r->max = e[j - 1].dur;
    r->p50 = e[i + (cnt + 1) / 2 - 1].dur;  /* nearest rank: the ceil(n/2)-th */
    i = j;
  }
  sort_rows(t->rows, t->n);
  if (max_rows && t->n > max_rows) {
    kt_row o = {INTERN_NONE, KT_COMPUTE, 0, NULL, 0, 0, 0, 0, INT64_MAX, 0, FSDPA_ABSENT};
    for (size_t i = max_rows; i < t->n; i++) {
      const kt_row *r = &t->rows[i];
      o.count += r->count;
      o.names++;
      o.total += r->total;
      if (r->min < o.min) o.min = r->min;
      if (r->max > o.max) o.max = r->max;
    }
    t->n = max_rows;
    t->rows[t->n++] = o;
  }
  st = busy_in(c, v, w, &t->busy);
done:
  fa_free(&c->alloc, e, (cap ? cap : 1) * sizeof *e);
  if (mask) fa_free(&c->alloc, mask, nmask ? nmask : 1);
  if (st) kt_free(c, t);
  return st;
}

void kt_free(fsdpa_ctx *c, kt_table *t) {
  if (t->rows) fa_free(&c->alloc, t->rows, t->cap * sizeof *t->rows);
  memset(t, 0, sizeof *t);
}

const char *kt_row_family(const fsdpa_ctx *c, const kt_row *r, size_t *len) {
  *len = 0;
  if (r->name == INTERN_NONE || r->cls != KT_COMM) return NULL;
  return comm_code_family(&c->st, r->code, len);
}

/* Copy name[from, to) into out at *k with template arguments nested deeper
 * than `keep` levels folded to "<…>". */
static void fold_templates(const char *name, size_t to, int keep, char *out, size_t cap, size_t *k) {
  static const char ELL[] = "<\xe2\x80\xa6>";
  int depth = 0;
  for (size_t i = 0; i < to; i++) {
    char ch = name[i];
    if (ch == '<') {
      if (depth++ == keep) {
        for (size_t q = 0; q < sizeof ELL - 1; q++)
          if (*k + 1 < cap) out[(*k)++] = ELL[q];
      }
      if (depth > keep) continue;
    } else if (ch == '>' && depth > 0) {
      if (depth-- > keep) continue;
    } else if (depth > keep) {
      continue;
    }
    if (*k + 1 < cap) out[(*k)++] = ch;
  }
  out[*k] = 0;
}

size_t kt_short_name(const char *name, size_t n, char *out, size_t cap) {
  if (!cap) return 0;
  if (n >= 5 && memcmp(name, "void ", 5) == 0) {
    name += 5;
    n -= 5;
  }
  size_t end = n;
  if (end && name[end - 1] == ')') {  /* the argument list: back to its '(' */
    int d = 0;
    for (size_t i = end; i-- > 0;) {
      if (name[i] == ')') d++;
      else if (name[i] == '(' && --d == 0) {
        if (i) end = i;
        break;
      }
    }
  }
  while (end && name[end - 1] == ' ') end--;
  size_t k = 0;
  fold_templates(name, end, 1, out, cap, &k);
  if (k > 96) {
    k = 0;
    fold_templates(name, end, 0, out, cap, &k);
  }
  return k;
}
