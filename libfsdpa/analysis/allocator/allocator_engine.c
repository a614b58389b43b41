/* One evaluation of the allocator analysis (memoized in the context) and
 * what the query, the report section and the findings read from it. */
#include "analysis/allocator/allocator_impl.h"
#include <string.h>
#include "util/satmath.h"
#include "model/iterations.h"

/* The windows the findings judge and their warm-up: the steps with the
 * warm-up the memory timeline decided; else the inferred iterations, the
 * first of them warm-up (a lone one is all warm-up, as a lone step is); else
 * the whole trace, which holds the cache's first fill: warm-up unless
 * allocator.warmup_steps says there is none. */
static fsdpa_status judged_open(fsdpa_ctx *c, ar *r) {
  fsdpa_status st = it_windows(c, &r->jw, &r->njw, &r->jsource);
  if (st) return st;
  if (!(r->jstep = fa_malloc(&c->alloc, (r->s.n ? r->s.n : 1) * sizeof(int32_t)))) return fa_fail_status(&c->alloc);
  for (size_t i = 0; i < r->s.n; i++)
    r->jstep[i] = r->jsource == ITS_PROFILER_STEP ? r->s.v[i].step : sc_step_of(r->jw, r->njw, r->s.v[i].ts);
  int64_t p = c->params[P_WARMUP_STEPS];
  if (r->jsource == ITS_PROFILER_STEP) {
    r->jwarmup = r->warmup;
    r->jhow = r->how;
  } else if (p >= 0) {
    r->jwarmup = p < (int64_t)r->njw ? p : (int64_t)r->njw;
    r->jhow = 0;
  } else {
    r->jwarmup = r->njw ? 1 : 0;
    r->jhow = r->jsource == ITS_NONE ? 4 : 3;
  }
  return FSDPA_OK;
}

static fsdpa_status ar_open_new(fsdpa_ctx *c, ar *r) {
  memset(r, 0, sizeof *r);
  fsdpa_status st = am_build(c, &r->m);
  if (st) return st;
  if ((st = sc_build(c, NC_MALLOC | NC_FREE | NC_VMM, &r->s))) {
    am_free(c, &r->m);
    return st;
  }
  r->warmup = am_warmup(c, &r->m, r->s.steps, r->s.nsteps, &r->how);
  if ((st = judged_open(c, r))) {
    ar_close(c, r);
    return st;
  }
  return FSDPA_OK;
}

void ar_close(fsdpa_ctx *c, ar *r) {
  if (!r->borrowed) {
    fa_free(&c->alloc, r->jstep, (r->s.n ? r->s.n : 1) * sizeof(int32_t));
    it_windows_free(c, r->jw, r->njw);
    sc_free(c, &r->s);
    am_free(c, &r->m);
  }
  memset(r, 0, sizeof *r);
}

static fsdpa_status ar_build_cb(fsdpa_ctx *c, void *obj, const void *arg) {
  (void)arg;
  return ar_open_new(c, obj);
}

static void ar_cache_free(fsdpa_ctx *c, void *obj) {
  ar_close(c, obj);
  fa_free(&c->alloc, obj, sizeof(ar));
}

fsdpa_status ar_open(fsdpa_ctx *c, ar *r) {
  memset(r, 0, sizeof *r);
  const void *k;
  fsdpa_status st = ctx_cache_obtain(c, CACHE_ALLOC, sizeof *r, ar_build_cb, NULL, ar_cache_free, &k);
  if (st) return st;
  *r = *(const ar *)k;
  r->borrowed = 1;
  return FSDPA_OK;
}

fsdpa_status ar_summary(fsdpa_ctx *c, const ar *r, const qwin *w, fsdpa_memory_summary *o) {
  memset(o, 0, sizeof *o);
  o->size = sizeof *o;
  o->malloc_bytes = FSDPA_ABSENT;
  o->warmup_steps = r->warmup;
  uint8_t *sel = fa_calloc(&c->alloc, r->s.n ? r->s.n : 1);
  if (!sel) return fa_fail_status(&c->alloc);
  for (size_t i = 0; i < r->s.n; i++) {
    const sc_call *k = &r->s.v[i];
    if (k->ts < w->t0 || k->ts >= w->t1) continue;
    int64_t d = k->end - k->ts;
    int steady = ar_steady(r, k);
    if (ar_malloc(k)) {
      o->malloc_calls++;
      o->malloc_ns += d;
      o->steady_state_malloc_calls += steady;
      if (k->bytes != FSDPA_ABSENT) o->malloc_bytes = sat_add(o->malloc_bytes == FSDPA_ABSENT ? 0 : o->malloc_bytes, k->bytes);
    } else if (ar_free(k)) {
      o->free_calls++;
      o->free_ns += d;
      o->steady_state_free_calls += steady;
    }
    sel[i] = (uint8_t)ar_device_call(k);
  }
  for (size_t i = 0; i < r->s.nsteps; i++) {
    const step_rec *s = &r->s.steps[i];
    if ((int64_t)i >= r->warmup && s->ts >= w->t0 && s->ts < w->t1) o->steady_steps++;
  }
  fsdpa_status st = sc_idle_cost(c, &r->s, sel, &o->gpu_idle_ns);
  fa_free(&c->alloc, sel, r->s.n ? r->s.n : 1);
  if (st) return st;
  /* OOM events of every non-CPU device */
  for (size_t d = 0; d < r->m.nd; d++) {
    am_win x;
    am_window(c, &r->m, (int32_t)d, w->t0, w->t1, &x);
    o->oom_events += x.oom;
  }
  int32_t di = am_find(&r->m, w->device);
  o->device = FSDPA_ABSENT;
  o->start_allocated_bytes = o->end_allocated_bytes = o->min_allocated_bytes = FSDPA_ABSENT;
  o->peak_allocated_bytes = o->peak_allocated_delta_bytes = o->peak_reserved_bytes = FSDPA_ABSENT;
  o->allocated_at_peak_reserved_bytes = FSDPA_ABSENT;
  o->fragmentation = o->mean_unallocated_share = -1.0;
  if (di < 0) return FSDPA_OK;
  const am_dev *dv = &r->m.d[di];
  am_win x;
  am_window(c, &r->m, di, w->t0, w->t1, &x);
  o->device = dv->id;
  o->memory_events = x.events;
  o->allocated_is_relative = dv->relative;
  o->start_allocated_bytes = x.start_a;
  o->end_allocated_bytes = x.end_a;
  o->min_allocated_bytes = x.min_a;
  if (dv->relative) o->peak_allocated_delta_bytes = x.peak_a;
  else o->peak_allocated_bytes = x.peak_a;
  o->peak_reserved_bytes = x.peak_r;
  o->allocated_at_peak_reserved_bytes = x.a_at_peak_r;
  o->fragmentation = x.frag;
  o->mean_unallocated_share = x.mean_unalloc;
  if (w->device == FSDPA_ABSENT) {  /* the contract's peaks: max over devices */
    for (size_t d = 0; d < r->m.nd; d++) {
      am_win y;
      am_window(c, &r->m, (int32_t)d, w->t0, w->t1, &y);
      if (!r->m.d[d].relative && y.peak_a != FSDPA_ABSENT &&
          (o->peak_allocated_bytes == FSDPA_ABSENT || y.peak_a > o->peak_allocated_bytes))
        o->peak_allocated_bytes = y.peak_a;
      if (y.peak_r != FSDPA_ABSENT && (o->peak_reserved_bytes == FSDPA_ABSENT || y.peak_r > o->peak_reserved_bytes))
        o->peak_reserved_bytes = y.peak_r;
    }
  }
  return FSDPA_OK;
}

fsdpa_status ar_step(fsdpa_ctx *c, const ar *r, size_t i, int32_t di, fsdpa_memory_step *o) {
  const step_rec *s = &r->s.steps[i];
  memset(o, 0, sizeof *o);
  o->size = sizeof *o;
  o->index = (int64_t)i;
  o->number = s->number;
  o->warmup = (int64_t)i < r->warmup;
  uint8_t *sel = fa_calloc(&c->alloc, r->s.n ? r->s.n : 1);
  if (!sel) return fa_fail_status(&c->alloc);
  for (size_t j = 0; j < r->s.n; j++) {
    const sc_call *k = &r->s.v[j];
    if (k->step != (int32_t)i) continue;
    if (ar_malloc(k)) {
      o->malloc_calls++;
      o->malloc_ns += k->end - k->ts;
    } else if (ar_free(k)) {
      o->free_calls++;
      o->free_ns += k->end - k->ts;
    }
    sel[j] = (uint8_t)ar_device_call(k);
  }
  fsdpa_status st = sc_idle_cost(c, &r->s, sel, &o->gpu_idle_ns);
  fa_free(&c->alloc, sel, r->s.n ? r->s.n : 1);
  if (st) return st;
  am_win x;
  am_window(c, &r->m, di, s->ts, s->end, &x);
  o->start_allocated_bytes = x.start_a;
  o->end_allocated_bytes = x.end_a;
  o->min_allocated_bytes = x.min_a;
  o->peak_allocated_bytes = x.peak_a;
  o->peak_reserved_bytes = x.peak_r;
  o->returns_to_baseline = ar_returns(&x);
  return FSDPA_OK;
}

void ar_device(const fsdpa_ctx *c, const ar *r, int32_t di, int64_t t0, int64_t t1, fsdpa_memory_device *o) {
  const am_dev *d = &r->m.d[di];
  am_win x;
  am_window(c, &r->m, di, t0, t1, &x);
  memset(o, 0, sizeof *o);
  o->size = sizeof *o;
  o->device_type = d->type;
  o->device = d->id;
  o->relative = d->relative;
  o->primary = di == r->m.primary;
  o->events = x.events;
  o->oom_events = x.oom;
  o->peak_allocated_bytes = d->relative ? FSDPA_ABSENT : x.peak_a;
  o->peak_allocated_delta_bytes = d->relative ? x.peak_a : FSDPA_ABSENT;
  o->peak_reserved_bytes = x.peak_r;
  o->allocated_at_peak_reserved_bytes = x.a_at_peak_r;
  o->fragmentation = x.frag;
  o->mean_unallocated_share = x.mean_unalloc;
}

void ar_classes_count(const ar *r, ar_classes *o) {
  memset(o, 0, sizeof *o);
  o->pinned_bytes = FSDPA_ABSENT;
  for (size_t i = 0; i < r->s.n; i++) {
    const sc_call *k = &r->s.v[i];
    int64_t d = k->end - k->ts;
    int steady = ar_steady(r, k);
    if (ar_pinned_alloc(k)) {
      o->pinned_alloc++;
      o->pinned_steady_alloc += steady;
      o->pinned_alloc_ns += d;
      if (k->bytes != FSDPA_ABSENT)
        o->pinned_bytes = sat_add(o->pinned_bytes == FSDPA_ABSENT ? 0 : o->pinned_bytes, k->bytes);
    } else if (ar_pinned_free(k)) {
      o->pinned_free++;
      o->pinned_steady_free += steady;
      o->pinned_free_ns += d;
    } else if (k->info & NC_VMM) {
      if (ar_malloc(k)) o->vmm_create++;
      else if (ar_free(k)) o->vmm_release++;
      else if (ar_unmap(k)) o->vmm_unmap++;
      else o->vmm_map++;
      o->vmm_steady += steady;
      o->vmm_ns += d;
    } else if (k->info & NC_ASYNC_POOL) {
      if (ar_malloc(k)) o->async_malloc++;
      else o->async_free++;
      o->async_steady += steady;
      o->async_ns += d;
    } else if (ar_malloc(k)) {
      o->native_malloc++;
    } else if (ar_free(k)) {
      o->native_free++;
    }
  }
  uint64_t native = o->native_malloc + o->native_free;
  uint64_t vmm = o->vmm_create + o->vmm_map + o->vmm_unmap + o->vmm_release;
  uint64_t async = o->async_malloc + o->async_free;
  uint64_t best = native;
  o->backend = native ? AR_BACKEND_NATIVE : AR_BACKEND_UNKNOWN;
  if (vmm && vmm >= best) { best = vmm; o->backend = AR_BACKEND_EXPANDABLE; }
  if (async && async >= best) o->backend = AR_BACKEND_ASYNC;
}

const char *ar_backend_name(int b) {
  switch (b) {
    case AR_BACKEND_NATIVE: return "native";
    case AR_BACKEND_EXPANDABLE: return "expandable_segments";
    case AR_BACKEND_ASYNC: return "cudaMallocAsync";
    default: return NULL;
  }
}

int ar_pattern(const fsdpa_ctx *c, const ar *r) {
  int32_t di = r->m.primary;
  if (di < 0 || r->warmup >= (int64_t)r->s.nsteps) return AR_PATTERN_UNKNOWN;
  int all_return = 1;
  int64_t first = FSDPA_ABSENT, last = FSDPA_ABSENT, peak = FSDPA_ABSENT;
  for (size_t i = (size_t)r->warmup; i < r->s.nsteps; i++) {
    am_win x;
    am_window(c, &r->m, di, r->s.steps[i].ts, r->s.steps[i].end, &x);
    int ret = ar_returns(&x);
    if (ret < 0) return AR_PATTERN_UNKNOWN;
    all_return &= ret;
    if (first == FSDPA_ABSENT) first = x.start_a;
    last = x.end_a;
    if (peak == FSDPA_ABSENT || x.peak_a > peak) peak = x.peak_a;
  }
  if (all_return) return AR_PATTERN_SAWTOOTH;
  return last - first > (peak > 0 ? peak / 100 : 0) ? AR_PATTERN_GROWING : AR_PATTERN_IRREGULAR;
}

int ar_api_next(const ar *r, size_t *pos, ar_api *o) {
  /* few distinct APIs: a quadratic pass keeps this allocation-free */
  for (size_t i = *pos; i < r->s.n; i++) {
    uint32_t name = r->s.v[i].name;
    int seen = 0;
    for (size_t j = 0; j < i && !seen; j++) seen = r->s.v[j].name == name;
    if (seen) continue;
    memset(o, 0, sizeof *o);
    o->name = name;
    const sc_call *first = &r->s.v[i];
    o->is_malloc = ar_malloc(first) || ar_pinned_alloc(first);
    o->kind = o->is_malloc ? "malloc" : ar_map(first) ? "map" : ar_unmap(first) ? "unmap" : "free";
    o->pinned = ar_pinned_alloc(first) || ar_pinned_free(first);
    o->bytes = FSDPA_ABSENT;
    for (size_t j = i; j < r->s.n; j++) {
      const sc_call *k = &r->s.v[j];
      if (k->name != name) continue;
      o->calls++;
      o->total_ns += k->end - k->ts;
      if (k->end - k->ts > o->max_ns) o->max_ns = k->end - k->ts;
      if (k->bytes != FSDPA_ABSENT) o->bytes = sat_add(o->bytes == FSDPA_ABSENT ? 0 : o->bytes, k->bytes);
    }
    *pos = i + 1;
    return 1;
  }
  *pos = r->s.n;
  return 0;
}

int64_t ar_steady_empty_cache_ops(const fsdpa_ctx *c, const ar *r) {
  int64_t n = 0;
  for (size_t i = 0; i < c->st.cpu.len; i++) {
    const ev_rec *e = STORE_REC(&c->st.cpu, i);
    if (!(store_name_info(&c->st, e->name) & NC_EMPTY_CACHE)) continue;
    int32_t s = sc_step_of(r->jw, r->njw, e->ts);
    n += s >= 0 && s >= r->jwarmup;
  }
  return n;
}

typedef struct run_t {
  uint32_t track;
  size_t last;
  int len;
} run_t;

fsdpa_status ar_free_bursts(fsdpa_ctx *c, const ar *r, int64_t *out) {
  *out = 0;
  if (!r->s.n) return FSDPA_OK;
  run_t *t = fa_malloc(&c->alloc, r->s.n * sizeof(run_t));
  if (!t) return fa_fail_status(&c->alloc);
  size_t nt = 0;
  for (size_t i = 0; i < r->s.n; i++) {
    const sc_call *k = &r->s.v[i];
    size_t j = 0;
    while (j < nt && t[j].track != k->track) j++;
    if (j == nt) t[nt++] = (run_t){k->track, SIZE_MAX, 0};
    int cont = t[j].last != SIZE_MAX && ar_free(k) && ar_free(&r->s.v[t[j].last]) &&
               k->ts - r->s.v[t[j].last].end <= BURST_GAP_NS;
    t[j].len = ar_free(k) && ar_jsteady(r, i) ? (cont ? t[j].len + 1 : 1) : 0;
    if (t[j].len == BURST_MIN) (*out)++;
    t[j].last = i;
  }
  fa_free(&c->alloc, t, r->s.n * sizeof(run_t));
  return FSDPA_OK;
}
