/* The device memory timeline: levels per device, window levels, warm-up,
 * downsampled series. */
#include "analysis/allocator/allocator_impl.h"
#include <stdlib.h>
#include <string.h>
#include "util/sort.h"

typedef struct mkey {
  int32_t type, id;
  int64_t ts;
  uint32_t idx, pad;
} mkey;

static int cmp_mkey(const void *pa, const void *pb) {
  const mkey *a = pa, *b = pb;
  if (a->type != b->type) return a->type < b->type ? -1 : 1;
  if (a->id != b->id) return a->id < b->id ? -1 : 1;
  if (a->ts != b->ts) return a->ts < b->ts ? -1 : 1;
  return a->idx < b->idx ? -1 : a->idx > b->idx;
}

#define MKEY_LESS(a, b) (cmp_mkey((a), (b)) < 0)
FA_SORT_DEFINE(mkey_sort, mkey, MKEY_LESS)

static const mem_rec *MR(const fsdpa_ctx *c, uint32_t i) { return &FA_VEC_AT(&c->st.mem, mem_rec, i); }

static int is_device(const mem_rec *r) { return r->device_type > 0; }

void am_free(fsdpa_ctx *c, am *m) {
  fa_free(&c->alloc, m->d, m->nd * sizeof(am_dev));
  fa_free(&c->alloc, m->idx, m->nidx * sizeof(uint32_t));
  fa_free(&c->alloc, m->lv, 2 * m->nidx * sizeof(int64_t));
  memset(m, 0, sizeof *m);
  m->primary = -1;
}

#define LEVEL_MAX ((int64_t)1 << 60)

static void levels(const fsdpa_ctx *c, am_dev *d, int64_t *la, int64_t *lr) {
  d->relative = 0;
  d->has_reserved = 1;
  for (size_t i = 0; i < d->n; i++) {
    const mem_rec *r = MR(c, d->ev[i]);
    if (r->total_allocated == FSDPA_ABSENT) d->relative = 1;
    if (r->total_reserved == FSDPA_ABSENT) d->has_reserved = 0;
  }
  int64_t run = 0;
  for (size_t i = 0; i < d->n; i++) {
    const mem_rec *r = MR(c, d->ev[i]);
    /* an [OutOfMemory] event reports a request that failed: nothing changed */
    if (!r->oom && r->bytes != FSDPA_ABSENT) {
      /* each |Bytes| <= STORE_MAX_BYTES; the running level is clamped to
       * ±2^60 so that level_before()'s la - bytes and differences of
       * levels (and twice them) stay in int64 too */
      run += r->bytes;
      if (run > LEVEL_MAX) run = LEVEL_MAX;
      if (run < -LEVEL_MAX) run = -LEVEL_MAX;
    }
    la[i] = d->relative ? run : r->total_allocated;
    lr[i] = r->total_reserved;
  }
}

static int64_t peak_of(const int64_t *v, size_t n) {
  int64_t p = FSDPA_ABSENT;
  for (size_t i = 0; i < n; i++)
    if (v[i] != FSDPA_ABSENT && (p == FSDPA_ABSENT || v[i] > p)) p = v[i];
  return p;
}

fsdpa_status am_build(fsdpa_ctx *c, am *m) {
  fa_alloc *a = &c->alloc;
  memset(m, 0, sizeof *m);
  m->primary = -1;
  size_t n = 0;
  for (size_t i = 0; i < c->st.mem.len; i++) n += is_device(MR(c, (uint32_t)i));
  if (!n) return FSDPA_OK;
  mkey *k = fa_malloc(a, n * sizeof(mkey));
  m->idx = fa_malloc(a, n * sizeof(uint32_t));
  m->lv = fa_malloc(a, 2 * n * sizeof(int64_t));
  m->nidx = n;
  if (!k || !m->idx || !m->lv) goto fail;
  size_t j = 0;
  for (size_t i = 0; i < c->st.mem.len; i++) {
    const mem_rec *r = MR(c, (uint32_t)i);
    if (is_device(r)) k[j++] = (mkey){r->device_type, r->device_id, r->ts, (uint32_t)i, 0};
  }
  mkey_sort(k, n);
  size_t nd = 0;
  for (size_t i = 0; i < n; i++) {
    m->idx[i] = k[i].idx;
    nd += !i || k[i].type != k[i - 1].type || k[i].id != k[i - 1].id;
  }
  if (!(m->d = fa_calloc(a, nd * sizeof(am_dev)))) goto fail;
  m->nd = nd;
  size_t di = 0;
  for (size_t i = 0; i < n;) {
    size_t e = i;
    while (e < n && k[e].type == k[i].type && k[e].id == k[i].id) e++;
    am_dev *d = &m->d[di++];
    d->type = k[i].type;
    d->id = k[i].id;
    d->ev = m->idx + i;
    d->n = e - i;
    d->la = m->lv + i;
    d->lr = m->lv + n + i;
    levels(c, d, m->lv + i, m->lv + n + i);
    i = e;
  }
  fa_free(a, k, n * sizeof(mkey));
  /* primary: largest peak reserved, else largest absolute peak allocated, else most events */
  int64_t best_r = FSDPA_ABSENT, best_a = FSDPA_ABSENT;
  size_t best_n = 0;
  for (size_t i = 0; i < nd; i++) {
    const am_dev *d = &m->d[i];
    int64_t pr = d->has_reserved ? peak_of(d->lr, d->n) : FSDPA_ABSENT;
    int64_t pa = d->relative ? FSDPA_ABSENT : peak_of(d->la, d->n);
    int better;
    if (m->primary < 0) better = 1;
    else if (pr != FSDPA_ABSENT || best_r != FSDPA_ABSENT) better = pr != FSDPA_ABSENT && (best_r == FSDPA_ABSENT || pr > best_r);
    else if (pa != FSDPA_ABSENT || best_a != FSDPA_ABSENT) better = pa != FSDPA_ABSENT && (best_a == FSDPA_ABSENT || pa > best_a);
    else better = d->n > best_n;
    if (better) {
      m->primary = (int32_t)i;
      best_r = pr;
      best_a = pa;
      best_n = d->n;
    }
  }
  return FSDPA_OK;
fail:
  fa_free(a, k, n * sizeof(mkey));
  am_free(c, m);
  return fa_fail_status(a);
}

int32_t am_find(const am *m, int64_t device) {
  if (device == FSDPA_ABSENT) return m->primary;
  for (size_t i = 0; i < m->nd; i++)
    if (m->d[i].id == device) return (int32_t)i;
  return -1;
}

/* First event index with ts >= t. */
static size_t lb(const fsdpa_ctx *c, const am_dev *d, int64_t t) {
  size_t lo = 0, hi = d->n;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (MR(c, d->ev[mid])->ts < t) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/* Allocated level just before event i (its level minus its Bytes). */
static int64_t level_before(const fsdpa_ctx *c, const am_dev *d, size_t i) {
  const mem_rec *r = MR(c, d->ev[i]);
  if (r->oom) return d->la[i];
  if (r->bytes == FSDPA_ABSENT) return d->relative ? d->la[i] : FSDPA_ABSENT;
  return d->la[i] - r->bytes;
}

void am_window(const fsdpa_ctx *c, const am *m, int32_t di, int64_t t0, int64_t t1, am_win *w) {
  memset(w, 0, sizeof *w);
  w->start_a = w->end_a = w->peak_a = w->min_a = w->peak_r = w->a_at_peak_r = FSDPA_ABSENT;
  w->frag = w->mean_unalloc = -1.0;
  if (di < 0 || (size_t)di >= m->nd) return;
  const am_dev *d = &m->d[di];
  size_t i0 = lb(c, d, t0), i1 = t1 == INT64_MAX ? d->n : lb(c, d, t1);
  if (i1 < i0) i1 = i0;
  w->events = i1 - i0;
  for (size_t i = i0; i < i1; i++) w->oom += MR(c, d->ev[i])->oom;
  if (i0 > 0) w->start_a = d->la[i0 - 1];
  else if (d->n) w->start_a = level_before(c, d, 0);
  if (i1 > 0) w->end_a = d->la[i1 - 1];
  else if (d->n) w->end_a = level_before(c, d, 0);
  /* points: the level carried in at t0, then each event of the window */
  size_t p0 = i0 > 0 ? i0 - 1 : i0;
  double wsum = 0, tsum = 0;
  for (size_t i = p0; i < i1; i++) {
    int64_t la = d->la[i], lr = d->lr[i];
    if (w->peak_a == FSDPA_ABSENT || la > w->peak_a) w->peak_a = la;
    if (w->min_a == FSDPA_ABSENT || la < w->min_a) w->min_a = la;
    if (lr != FSDPA_ABSENT) {
      if (w->peak_r == FSDPA_ABSENT || lr > w->peak_r) {
        w->peak_r = lr;
        w->a_at_peak_r = la;
      } else if (lr == w->peak_r && la > w->a_at_peak_r) {
        w->a_at_peak_r = la;
      }
    }
    int64_t from = i < i0 ? t0 : MR(c, d->ev[i])->ts;
    int64_t to = i + 1 < i1 ? MR(c, d->ev[i + 1])->ts : (t1 == INT64_MAX ? from : t1);
    if (!d->relative && lr != FSDPA_ABSENT && lr > 0 && to > from) {
      wsum += (double)(lr - la) / (double)lr * (double)(to - from);
      tsum += (double)(to - from);
    }
  }
  if (!d->relative && w->peak_r != FSDPA_ABSENT && w->peak_r > 0)
    w->frag = 1.0 - (double)w->a_at_peak_r / (double)w->peak_r;
  if (tsum > 0) w->mean_unalloc = wsum / tsum;
  if (d->relative) w->a_at_peak_r = FSDPA_ABSENT;
}

int64_t am_warmup(const fsdpa_ctx *c, const am *m, const step_rec *steps, size_t ns, int *how) {
  int64_t p = c->params[P_WARMUP_STEPS];
  if (p >= 0) {
    *how = 0;
    return p < (int64_t)ns ? p : (int64_t)ns;
  }
  *how = 2;
  if (!ns) return 0;
  const am_dev *d = m->primary >= 0 ? &m->d[m->primary] : NULL;
  if (!d || !d->has_reserved) return 1;
  *how = 1;
  int64_t hwm = FSDPA_ABSENT;
  size_t j = 0;
  for (size_t i = 0; i < ns; i++) {
    for (; j < d->n && MR(c, d->ev[j])->ts < steps[i].ts; j++)
      if (hwm == FSDPA_ABSENT || d->lr[j] > hwm) hwm = d->lr[j];
    int64_t peak = FSDPA_ABSENT;
    for (size_t e = j; e < d->n && MR(c, d->ev[e])->ts < steps[i].end; e++)
      if (peak == FSDPA_ABSENT || d->lr[e] > peak) peak = d->lr[e];
    int grows = peak != FSDPA_ABSENT && (hwm == FSDPA_ABSENT || peak > hwm);
    if (i >= 1 && !grows) return (int64_t)i;
  }
  return (int64_t)ns;
}

int64_t am_reserved_growth(const fsdpa_ctx *c, const am *m, int32_t di, int64_t t0, int64_t t1) {
  if (di < 0) return FSDPA_ABSENT;
  const am_dev *d = &m->d[di];
  size_t before = lb(c, d, t0 == INT64_MAX ? t0 : t0 + 1);  /* events with ts <= t0 */
  size_t after = lb(c, d, t1);
  if (!before || after >= d->n) return FSDPA_ABSENT;
  int64_t r0 = d->lr[before - 1], r1 = d->lr[after];
  if (r0 == FSDPA_ABSENT || r1 == FSDPA_ABSENT || r1 <= r0) return FSDPA_ABSENT;
  return r1 - r0;
}

int64_t am_next_request(const fsdpa_ctx *c, const am *m, int32_t di, int64_t t) {
  if (di < 0) return FSDPA_ABSENT;
  const am_dev *d = &m->d[di];
  for (size_t i = lb(c, d, t); i < d->n; i++) {
    const mem_rec *r = MR(c, d->ev[i]);
    if (!r->oom && r->bytes != FSDPA_ABSENT && r->bytes > 0) return r->bytes;
  }
  return FSDPA_ABSENT;
}

uint64_t am_allocs(const fsdpa_ctx *c, const am *m, int32_t di, int64_t t0, int64_t t1) {
  if (di < 0) return 0;
  const am_dev *d = &m->d[di];
  uint64_t n = 0;
  for (size_t i = lb(c, d, t0); i < d->n; i++) {
    const mem_rec *r = MR(c, d->ev[i]);
    if (r->ts >= t1) break;
    if (!r->oom && r->bytes != FSDPA_ABSENT && r->bytes > 0) n++;
  }
  return n;
}

static void pt_add(am_point *p, int64_t a, int64_t r, int *first) {
  if (*first) {
    p->a_min = p->a_max = a;
    p->r_min = p->r_max = r;
    *first = 0;
  } else {
    if (a < p->a_min) p->a_min = a;
    if (a > p->a_max) p->a_max = a;
    if (r != FSDPA_ABSENT && (p->r_min == FSDPA_ABSENT || r < p->r_min)) p->r_min = r;
    if (r != FSDPA_ABSENT && (p->r_max == FSDPA_ABSENT || r > p->r_max)) p->r_max = r;
  }
  p->a_last = a;
  p->r_last = r;
}

size_t am_series(const fsdpa_ctx *c, const am *m, int32_t di, int64_t t0, int64_t t1, size_t buckets,
                 am_point *out) {
  if (di < 0 || !buckets) return 0;
  const am_dev *d = &m->d[di];
  if (!d->n) return 0;
  int64_t first = MR(c, d->ev[0])->ts, last = MR(c, d->ev[d->n - 1])->ts;
  int64_t lo = t0 > first ? t0 : first;
  int64_t hi = last < INT64_MAX && last + 1 < t1 ? last + 1 : t1;
  if (lo >= hi) return 0;
  uint64_t range = (uint64_t)hi - (uint64_t)lo;
  int64_t width = (int64_t)((range + buckets - 1) / buckets);
  if (width < 1) width = 1;
  size_t nb = (size_t)((range + (uint64_t)width - 1) / (uint64_t)width);
  size_t j = lb(c, d, lo);
  for (size_t b = 0; b < nb; b++) {
    am_point *p = &out[b];
    p->t0 = lo + (int64_t)b * width;
    p->t1 = p->t0 + width < hi ? p->t0 + width : hi;
    p->events = 0;
    p->a_min = p->a_max = p->a_last = p->r_min = p->r_max = p->r_last = FSDPA_ABSENT;
    int first_pt = 1;
    if (j > 0) pt_add(p, d->la[j - 1], d->lr[j - 1], &first_pt);
    for (; j < d->n && MR(c, d->ev[j])->ts < p->t1; j++) {
      pt_add(p, d->la[j], d->lr[j], &first_pt);
      p->events++;
    }
  }
  return nb;
}

static int cmp_i64(const void *pa, const void *pb) {
  int64_t a = *(const int64_t *)pa, b = *(const int64_t *)pb;
  return a < b ? -1 : a > b;
}

void am_sort_i64(int64_t *v, size_t n) {
  if (n) qsort(v, n, sizeof *v, cmp_i64);
}

fsdpa_status am_common_large_alloc(fsdpa_ctx *c, const am *m, int32_t di, int64_t *out) {
  const am_dev *d = &m->d[di];
  size_t cap = d->n ? d->n : 1;
  int64_t *v = fa_malloc(&c->alloc, cap * sizeof(int64_t));
  if (!v) return fa_fail_status(&c->alloc);
  size_t n = 0;
  for (size_t i = 0; i < d->n; i++) {
    const mem_rec *e = MR(c, d->ev[i]);
    if (!e->oom && e->bytes != FSDPA_ABSENT && e->bytes > (int64_t)MIN_SPLIT_MB * MIB) v[n++] = e->bytes;
  }
  *out = FSDPA_ABSENT;
  if (n) {
    am_sort_i64(v, n);
    size_t best_n = 0;
    for (size_t i = 0; i < n;) {
      size_t e = i;
      while (e < n && v[e] == v[i]) e++;
      if (e - i >= best_n) {
        best_n = e - i;
        *out = v[i];
      }
      i = e;
    }
  }
  fa_free(&c->alloc, v, cap * sizeof(int64_t));
  return FSDPA_OK;
}
