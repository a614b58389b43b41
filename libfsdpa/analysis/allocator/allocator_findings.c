/* allocator-thrash, pinned-host-churn and allocator-fragmentation: each decided from the
 * engine's evaluation, then worded. */
#include "analysis/allocator/allocator.h"
#include "analysis/allocator/allocator_impl.h"
#include "model/depgraph.h"
#include "model/iterations.h"
#include "model/workload.h"
#include "util/fmt.h"
#include <stdio.h>
#include <string.h>

static double mib(int64_t b) { return (double)b / MIB; }

typedef struct sizes {
  int64_t *v;
  size_t n, cap;
} sizes;

/* max_split_size_mb:n that keeps blocks of size S whole: blocks larger than
 * n MB are never split, so n = ceil(S / MiB) - 1; 0 if S is too small. */
static int64_t split_mb(int64_t s) {
  if (s == FSDPA_ABSENT) return 0;
  int64_t n = (s + MIB - 1) / MIB - 1;
  return n >= MIN_SPLIT_MB ? n : 0;
}

/* Smallest size >= MIN_SPLIT_MB MiB among sorted sizes, or ABSENT. */
static int64_t smallest_large(const sizes *s) {
  for (size_t i = 0; i < s->n; i++)
    if (s->v[i] > (int64_t)MIN_SPLIT_MB * MIB) return s->v[i];
  return FSDPA_ABSENT;
}

static void sizes_json(jsonw *w, const char *k, const sizes *s) {
  jw_key(w, k);
  jw_obj(w);
  jw_ku64(w, "count", s->n);
  jw_ki64(w, "min", s->n ? s->v[0] : FSDPA_ABSENT);
  jw_ki64(w, "median", s->n ? s->v[(s->n - 1) / 2] : FSDPA_ABSENT);
  jw_ki64(w, "max", s->n ? s->v[s->n - 1] : FSDPA_ABSENT);
  jw_obj_end(w);
}

/* ---- allocator-thrash ---- */

#define CACHE_OFF_MIN_ALLOCS 8

/* Whether allocator-thrash fires and with which numbers (steady state =
 * the steps after the warm-up). */
typedef struct thrash {
  int fires;
  int severity;
  int64_t cost_ns;             /* GPU idle during and right after the steady calls */
  int64_t warmup;
  int how;                     /* how the warm-up was decided (ar.jhow) */
  int source;                  /* ITS_* of the windows judged (ar.jsource) */
  uint64_t steady_steps;
  uint64_t nm, nf;             /* steady device malloc / free calls */
  int64_t tm, tf;              /* their CPU time */
  uint64_t nmap;               /* steady expandable-segment map / unmap calls */
  int64_t tmap;
  int backend;                 /* AR_BACKEND_*: the advice follows the allocator in use */
  int64_t steady_dur;          /* summed duration of the steady steps */
  int64_t min_per_step;
  sizes seg;                   /* new segment sizes, sorted */
  sizes req;                   /* sizes of the requests that missed the cache, sorted */
  int64_t empty_cache_ops, bursts;
  uint64_t tensor_allocs;      /* steady [memory] allocations of the primary device */
  int cache_off;               /* the caching allocator is off (cache_off_by says from what) */
  int cache_off_by;            /* CO_* */
  uint64_t odd_mallocs;        /* steady device mallocs under aten ops of a size the cache never asks for */
  int hip;                     /* the device calls are HIP's (ROCm): hipMalloc / hipFree */
  int64_t split_bytes;         /* smallest large missed request, ABSENT */
  int64_t split_mb;            /* max_split_size_mb to advise, 0 = none */
  uint8_t *sel;                /* the steady calls (s.n bytes) */
  size_t top[FINDING_MAX_RANGES]; /* the longest of them, longest first */
  int ntop;
} thrash;

enum { CO_NONE, CO_MEMORY_EVENTS, CO_REQUEST_SIZES };

/* The caching allocator asks the driver only for whole segments: 2 MiB for
 * requests up to 1 MiB, 20 MiB below 10 MiB, else a multiple of 2 MiB
 * (CUDACachingAllocator's kSmallBuffer, kLargeBuffer, kRoundLarge).  A
 * device malloc made under an aten op for any other size (0, 256 bytes, ...)
 * came from no cache: PYTORCH_NO_CUDA_MEMORY_CACHING.  Calls outside aten
 * ops (NCCL/RCCL buffers, libraries) ask for what they like and do not
 * count; cudaMallocAsync is a pool of its own. */
#define SEGMENT_QUANTUM ((int64_t)2 << 20)
static uint64_t odd_size_mallocs(fsdpa_ctx *c, const ar *r, const depgraph *g) {
  const sc_set *s = &r->s;
  uint64_t n = 0;
  size_t hint = 0;
  for (size_t i = 0; i < s->n; i++) {
    const sc_call *k = &s->v[i];
    if (!ar_jsteady(r, i) || !ar_malloc(k) || (k->info & (NC_ASYNC_POOL | NC_VMM)) || k->bytes == FSDPA_ABSENT)
      continue;
    if (k->bytes >= SEGMENT_QUANTUM && k->bytes % SEGMENT_QUANTUM == 0) continue;
    uint32_t op = dg_cpu_innermost(g, k->track, k->ts, k->end, &hint);
    if (op == DG_NONE || strncmp(store_name(&c->st, g->cpu[op].name), "aten::", 6) != 0) continue;
    n++;
  }
  return n;
}

static void thrash_free(fsdpa_ctx *c, const ar *r, thrash *d) {
  fa_free(&c->alloc, d->sel, r->s.n);
  fa_free(&c->alloc, d->seg.v, d->seg.cap * sizeof(int64_t));
  fa_free(&c->alloc, d->req.v, d->req.cap * sizeof(int64_t));
}

static fsdpa_status thrash_decide(fsdpa_ctx *c, const ar *r, thrash *d) {
  fa_alloc *a = &c->alloc;
  const sc_set *s = &r->s;
  memset(d, 0, sizeof *d);
  d->warmup = r->jwarmup;
  d->how = r->jhow;
  d->source = r->jsource;
  d->steady_steps = r->njw > (size_t)r->jwarmup ? r->njw - (size_t)r->jwarmup : 0;
  for (size_t i = 0; i < s->n; i++) {
    const sc_call *k = &s->v[i];
    if (!ar_jsteady(r, i)) continue;
    if (ar_malloc(k)) { d->nm++; d->tm += k->end - k->ts; }
    else if (ar_free(k)) { d->nf++; d->tf += k->end - k->ts; }
    else if (ar_map(k) || ar_unmap(k)) { d->nmap++; d->tmap += k->end - k->ts; }
  }
  ar_classes cls;
  ar_classes_count(r, &cls);
  d->backend = cls.backend;
  for (size_t i = (size_t)r->jwarmup; i < r->njw; i++) d->steady_dur += r->jw[i].end - r->jw[i].ts;
  d->min_per_step = c->params[P_THRASH_MIN_PER_STEP];
  uint64_t calls = d->nm + d->nf + d->nmap;
  if (!d->steady_steps || calls == 0 || (double)calls < (double)d->min_per_step * (double)d->steady_steps)
    return FSDPA_OK;
  d->sel = fa_calloc(a, s->n);
  d->seg = (sizes){fa_malloc(a, s->n * sizeof(int64_t)), 0, s->n};
  d->req = (sizes){fa_malloc(a, s->n * sizeof(int64_t)), 0, s->n};
  if (!d->sel || !d->seg.v || !d->req.v) return fa_fail_status(a);
  for (size_t i = 0; i < s->n; i++) {
    const sc_call *k = &s->v[i];
    if (!ar_jsteady(r, i) || !ar_device_call(k)) continue;
    d->sel[i] = 1;
    if (ar_malloc(k)) {
      int64_t b = k->bytes != FSDPA_ABSENT ? k->bytes : am_reserved_growth(c, &r->m, r->m.primary, k->ts, k->end);
      if (b != FSDPA_ABSENT && b > 0) d->seg.v[d->seg.n++] = b;
      int64_t q = am_next_request(c, &r->m, r->m.primary, k->end);
      if (q != FSDPA_ABSENT) d->req.v[d->req.n++] = q;
    }
    sc_top_insert(s, d->top, &d->ntop, FINDING_MAX_RANGES, i);
  }
  fsdpa_status st;
  if ((st = sc_idle_cost(c, s, d->sel, &d->cost_ns))) return st;
  if ((st = ar_free_bursts(c, r, &d->bursts))) return st;
  d->empty_cache_ops = ar_steady_empty_cache_ops(c, r);
  for (size_t i = (size_t)r->jwarmup; i < r->njw; i++)
    d->tensor_allocs += am_allocs(c, &r->m, r->m.primary, r->jw[i].ts, r->jw[i].end);
  /* With the cache on, one segment serves many tensors and mallocs are a
   * small fraction of the allocations; PYTORCH_NO_CUDA_MEMORY_CACHING=1
   * sends every tensor to cudaMalloc (and every death to cudaFree).  A step
   * of any model allocates more than CACHE_OFF_MIN_ALLOCS tensors; a window
   * with fewer cannot tell a cache that missed from no cache. */
  d->cache_off = d->backend == AR_BACKEND_NATIVE &&
                 d->tensor_allocs >= (uint64_t)CACHE_OFF_MIN_ALLOCS * d->steady_steps &&
                 (double)d->nm * 1e6 >= (double)c->params[P_CACHE_OFF_MIN_PPM] * (double)d->tensor_allocs;
  if (d->cache_off) d->cache_off_by = CO_MEMORY_EVENTS;
  if (d->backend == AR_BACKEND_NATIVE) {
    /* without [memory] events the request sizes tell it: the same
     * CACHE_OFF_MIN_ALLOCS per steady window, of sizes no cache asks for */
    depgraph g;
    if ((st = dg_get(c, &g))) return st;
    d->odd_mallocs = odd_size_mallocs(c, r, &g);
    dg_free(c, &g);
    if (!d->cache_off && d->odd_mallocs >= (uint64_t)CACHE_OFF_MIN_ALLOCS * d->steady_steps) {
      d->cache_off = 1;
      d->cache_off_by = CO_REQUEST_SIZES;
    }
  }
  for (size_t i = 0; i < s->n; i++)
    if (d->sel[i] && !strncmp(store_name(&c->st, s->v[i].name), "hip", 3)) d->hip = 1;
  am_sort_i64(d->seg.v, d->seg.n);
  am_sort_i64(d->req.v, d->req.n);
  d->split_bytes = smallest_large(&d->req);
  d->split_mb = split_mb(d->split_bytes);
  /* cost >= 5% of the steady span, without cost * 20 (sums of hostile durations overflow) */
  d->severity = d->steady_dur > 0 && d->cost_ns >= d->steady_dur / 20 + (d->steady_dur % 20 != 0) ? SEV_CRITICAL
                                                                                                   : SEV_WARNING;
  d->fires = 1;
  return FSDPA_OK;
}

/* The steady device allocator calls take no time and wait for nothing:
 * what the GPU's work would have finished without them. */
static fsdpa_status thrash_saving(fsdpa_ctx *c, const ar *r, const thrash *d, jsonw *w) {
  size_t n = c->st.rt.len;
  uint8_t *z = n ? fa_calloc(&c->alloc, n) : NULL;
  if (n && !z) return fa_fail_status(&c->alloc);
  for (size_t i = 0; i < r->s.n; i++)
    if (d->sel[i] && r->s.v[i].rt < n) z[r->s.v[i].rt] = 1;
  dg_mods m;
  memset(&m, 0, sizeof m);
  m.t0 = r->njw > (size_t)r->jwarmup ? r->jw[r->jwarmup].ts : 0;
  m.t1 = r->njw ? r->jw[r->njw - 1].end : 0;
  m.rt_zero = z;
  fsdpa_status st = dg_saving_evidence(c, &m, "the steady-state device allocator calls take no time", w);
  fa_free(&c->alloc, z, n);
  return st;
}

static fsdpa_status thrash_evidence(fsdpa_ctx *c, const ar *r, const thrash *d, sbuf *ev) {
  jsonw w;
  jw_init(&w, ev, 0);
  jw_obj(&w);
  fsdpa_status st = thrash_saving(c, r, d, &w);
  if (st) return st;
  jw_ku64(&w, "steady_steps", d->steady_steps);
  jw_ki64(&w, "warmup_steps", d->warmup);
  jw_kstr(&w, "judged", d->source == ITS_NONE ? "whole_trace" : "iterations");
  jw_kstr(&w, "iterations_from", it_source_name(d->source));
  jw_ku64(&w, "steady_malloc_calls", d->nm);
  jw_ku64(&w, "steady_free_calls", d->nf);
  jw_ku64(&w, "steady_map_calls", d->nmap);
  jw_kratio(&w, "calls_per_step", (double)(d->nm + d->nf + d->nmap) / (double)d->steady_steps);
  jw_key(&w, "backend");
  if (ar_backend_name(d->backend)) jw_str(&w, ar_backend_name(d->backend));
  else jw_null(&w);
  jw_ki64(&w, "steady_malloc_ns", d->tm);
  jw_ki64(&w, "steady_free_ns", d->tf);
  jw_ki64(&w, "steady_steps_dur_ns", d->steady_dur);
  jw_ki64(&w, "gpu_idle_ns", d->cost_ns);
  sizes_json(&w, "segment_bytes", &d->seg);
  sizes_json(&w, "request_bytes", &d->req);
  jw_ki64(&w, "empty_cache_ops", d->empty_cache_ops);
  jw_ki64(&w, "free_bursts", d->bursts);
  jw_ku64(&w, "steady_tensor_allocations", d->tensor_allocs);
  jw_key(&w, "caching_off");
  jw_bool(&w, d->cache_off);
  jw_key(&w, "caching_off_by");
  if (d->cache_off) jw_str(&w, d->cache_off_by == CO_MEMORY_EVENTS ? "memory_events" : "request_sizes");
  else jw_null(&w);
  jw_ku64(&w, "odd_size_mallocs", d->odd_mallocs);
  jw_ki64(&w, "max_split_size_mb", d->split_mb ? d->split_mb : FSDPA_ABSENT);
  jw_ki64(&w, "min_per_step", d->min_per_step);
  jw_obj_end(&w);
  return FSDPA_OK;
}

/* What one steady window is called: a ProfilerStep, an inferred iteration,
 * or the whole trace when no iterations were found. */
static const char *unit_of(int source) {
  return source == ITS_PROFILER_STEP ? "step" : source == ITS_NONE ? "trace" : "iteration";
}

/* A rate per steady window, for people: "per step", "per iteration", or
 * "in all" over the whole trace. */
static const char *per_unit(int source) {
  return source == ITS_PROFILER_STEP ? "per step" : source == ITS_NONE ? "in all" : "per iteration";
}

/* "After 1 warm-up step(s) (default), 3 steady-state steps" and its
 * counterparts for inferred iterations and the whole trace. */
static int scope_text(char *b, size_t cap, int source, int how, int64_t warmup, uint64_t steady) {
  const char *warmup_by = how == 0   ? "allocator.warmup_steps"
                          : how == 1 ? "until reserved memory stopped growing"
                          : how == 3 ? "the first inferred iteration"
                                     : "default";
  if (source == ITS_NONE)
    return snprintf(b, cap, "No iterations found: judged over the whole trace (allocator.warmup_steps=0: no "
                            "warm-up left out), which");
  if (source == ITS_PROFILER_STEP)
    return snprintf(b, cap, "After %lld warm-up step(s) (%s), %llu steady-state steps", (long long)warmup,
                    warmup_by, (unsigned long long)steady);
  return snprintf(b, cap, "After %lld warm-up iteration(s) (%s), %llu steady-state iterations (inferred: no "
                          "ProfilerStep; %s)",
                  (long long)warmup, warmup_by, (unsigned long long)steady, it_source_name(source));
}

static void thrash_detail(const thrash *d, char *detail, size_t cap) {
  char scope[200];
  scope_text(scope, sizeof scope, d->source, d->how, d->warmup, d->steady_steps);
  int n = snprintf(detail, cap,
                   "%s still make%s %llu malloc and %llu free calls: %.2f ms of CPU time %s in malloc, %.2f ms "
                   "in free; the GPU idled %.2f ms during and right after them.",
                   scope, d->source == ITS_NONE ? "s" : "", (unsigned long long)d->nm, (unsigned long long)d->nf,
                   fmt_ms(d->tm) / (double)d->steady_steps, per_unit(d->source), fmt_ms(d->tf) / (double)d->steady_steps,
                   fmt_ms(d->cost_ns));
  if (n > 0 && (size_t)n < cap && d->nmap)
    n += snprintf(detail + n, cap - (size_t)n,
                  " The expandable segments also made %llu cuMemMap/cuMemSetAccess/cuMemUnmap calls (%.2f ms %s).",
                  (unsigned long long)d->nmap, fmt_ms(d->tmap) / (double)d->steady_steps, per_unit(d->source));
  const sizes *seg = &d->seg, *req = &d->req;
  if (n > 0 && (size_t)n < cap && seg->n)
    n += snprintf(detail + n, cap - (size_t)n, " New segments %.1f-%.1f MiB (median %.1f MiB).", mib(seg->v[0]),
                  mib(seg->v[seg->n - 1]), mib(seg->v[(seg->n - 1) / 2]));
  if (n > 0 && (size_t)n < cap && req->n)
    n += snprintf(detail + n, cap - (size_t)n, " Requests that missed the cache: %.1f-%.1f MiB.", mib(req->v[0]),
                  mib(req->v[req->n - 1]));
  if (n > 0 && (size_t)n < cap && (d->empty_cache_ops || d->bursts))
    snprintf(detail + n, cap - (size_t)n,
             " %lld empty_cache call(s) and %lld burst(s) of >= %d consecutive frees in steady state.",
             (long long)d->empty_cache_ops, (long long)d->bursts, BURST_MIN);
}

#define WL_FSDP_ANY ((1u << WL_FSDP1) | (1u << WL_FSDP2))

/* How to lower the memory peak, in the terms of the workload. */
static const char *peak_advice(const workload *wl) {
  if (wl->mode == WM_TRAIN)
    return wl->labels & WL_FSDP_ANY ? "activation checkpointing, smaller micro-batch, FSDP reshard_after_forward=True"
                                    : "activation checkpointing, smaller micro-batch";
  /* a KV cache exists only where decode steps were seen */
  if (wl->mode == WM_DECODE || wl->mode == WM_MIXED) return "smaller batch or shorter sequences, a smaller KV cache";
  return "smaller batch or inputs";
}

static void thrash_advice(const thrash *d, const workload *wl, sbuf *adv) {
  const char *ma = d->hip ? "hipMalloc" : "cudaMalloc", *fr = d->hip ? "hipFree" : "cudaFree";
  if (d->cache_off) {
    if (d->cache_off_by == CO_MEMORY_EVENTS)
      sb_printf(adv, "%llu of the %llu tensor allocations in the steady %ss went to %s: the caching "
                     "allocator is off",
                (unsigned long long)d->nm, (unsigned long long)d->tensor_allocs, unit_of(d->source), ma);
    else
      sb_printf(adv, "%llu %s calls under aten ops in the steady %ss asked the driver for sizes the caching "
                     "allocator never requests (under 2 MiB or not a multiple of it): the caching allocator is off",
                (unsigned long long)d->odd_mallocs, ma, unit_of(d->source));
    sb_printf(adv, " (PYTORCH_NO_CUDA_MEMORY_CACHING=1 in the environment, typically left from a memory-debugging "
                   "run), so every tensor is allocated by the driver and every free is a %s that waits for the "
                   "device. Re-enable the caching allocator: unset PYTORCH_NO_CUDA_MEMORY_CACHING; the cache then "
                   "serves steady-state tensors without a driver call.",
              fr);
    return;
  }
  if (d->empty_cache_ops || d->bursts)
    sb_printf(adv, "The cache is being released every step (torch.cuda.empty_cache(), or frees after a failed "
                   "allocation): remove torch.cuda.empty_cache() from the %s, so freed blocks are "
                   "reused instead of returned with a synchronizing %s and re-allocated with %s. ",
              wl->mode == WM_TRAIN ? "training loop" : "loop", fr, ma);
  else if (d->nf && d->backend != AR_BACKEND_EXPANDABLE && d->backend != AR_BACKEND_ASYNC)
    /* no empty_cache op or free burst names the release, but the native
     * allocator frees only when cached memory is released */
    sb_printf(adv, "The caching allocator calls %s only when cached memory is released (torch.cuda.empty_cache(), "
                   "for example a benchmark's cache clearing or a cleanup in the loop, or a retry after a failed "
                   "allocation), and the steady iterations here call it: find that release and take it out of the "
                   "loop, so the blocks stay cached instead of being allocated again with %s. ",
              fr, ma);
  if (d->backend == AR_BACKEND_EXPANDABLE) {
    /* its cuMem* calls show expandable segments already on: the segments
     * themselves grow and shrink every step */
    sb_puts(adv, "The allocator already uses expandable segments (its cuMemCreate/cuMemMap calls show it); they "
                 "are unmapped and mapped again every step, which happens when cached memory is released "
                 "(torch.cuda.empty_cache(), or a retry after a failed allocation) and each unmap waits for the "
                 "stream");
  } else if (d->backend == AR_BACKEND_ASYNC) {
    sb_puts(adv, "The cudaMallocAsync backend (PYTORCH_CUDA_ALLOC_CONF=backend:cudaMallocAsync) sends every "
                 "allocation and free to the CUDA stream-ordered pool; use the native caching allocator "
                 "(PYTORCH_CUDA_ALLOC_CONF=backend:native,expandable_segments:True), which serves steady-state "
                 "allocations from its cache without a driver call");
  } else {
    sb_puts(adv, "Set PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True so the caching allocator grows its "
                 "segments in place instead of creating new ones");
  }
  if (d->split_mb && d->backend != AR_BACKEND_ASYNC)
    sb_printf(adv, ", or PYTORCH_CUDA_ALLOC_CONF=max_split_size_mb:%lld so the %.0f MiB blocks these "
                   "allocations need are never split for smaller tensors and stay reusable",
              (long long)d->split_mb, mib(d->split_bytes));
  sb_printf(adv, ". If memory is close to capacity, lower the peak (%s) so the allocator stops freeing and "
                 "retrying.", peak_advice(wl));
}

/* The selected calls past the finding's few (top), longest first, as its
 * further ranges: annotate marks them all. */
static fsdpa_status add_rest(fsdpa_ctx *c, const ar *r, const uint8_t *sel, const size_t *top, int ntop, finding *x) {
  size_t *rest = NULL, n = 0;
  fsdpa_status st = sc_rest_longest(&c->alloc, &r->s, sel, top, ntop, &rest, &n);
  for (size_t i = 0; !st && i < n; i++) {
    const sc_call *k = &r->s.v[rest[i]];
    finding_add_range(x, ctx_abs(c, k->ts), ctx_abs(c, k->end + (k->idle_after == FSDPA_ABSENT ? 0 : k->idle_after)));
  }
  fa_free(&c->alloc, rest, n * sizeof *rest);
  return st;
}

static fsdpa_status thrash_word(fsdpa_ctx *c, const ar *r, const thrash *d, int64_t rank, findings *f) {
  sbuf ev, adv;
  sb_init(&ev, &c->alloc);
  sb_init(&adv, &c->alloc);
  fsdpa_status est = thrash_evidence(c, r, d, &ev);
  if (est) {
    sb_free(&ev);
    sb_free(&adv);
    return est;
  }
  char title[200], detail[1200];
  const char *calls = d->backend == AR_BACKEND_EXPANDABLE ? "cuMemCreate/cuMemMap/cuMemUnmap/cuMemRelease"
                      : d->backend == AR_BACKEND_ASYNC    ? "cudaMallocAsync/cudaFreeAsync"
                      : d->hip                            ? "hipMalloc/hipFree"
                                                          : "cudaMalloc/cudaFree";
  if (d->source == ITS_NONE)
    snprintf(title, sizeof title, "Caching allocator thrash: %llu %s calls over the whole trace (no iterations found)",
             (unsigned long long)(d->nm + d->nf + d->nmap), calls);
  else
    snprintf(title, sizeof title, "Caching allocator thrash: %.1f %s calls per steady-state %s",
             (double)(d->nm + d->nf + d->nmap) / (double)d->steady_steps, calls, unit_of(d->source));
  thrash_detail(d, detail, sizeof detail);
  workload wl;
  fsdpa_status wst = workload_build(c, &wl);
  if (wst) {
    sb_free(&ev);
    sb_free(&adv);
    return wst;
  }
  thrash_advice(d, &wl, &adv);
  fsdpa_status st = FSDPA_OK;
  if (ev.failed || adv.failed) {
    st = (fsdpa_status)(ev.failed ? ev.failed : adv.failed);
  } else {
    finding *x = findings_add(f, "allocator-thrash", d->severity, rank, FSDPA_ABSENT, d->cost_ns, title, detail,
                              adv.p, ev.p);
    for (int i = 0; x && i < d->ntop; i++) {
      const sc_call *k = &r->s.v[d->top[i]];
      finding_add_range(x, ctx_abs(c, k->ts),
                        ctx_abs(c, k->end + (k->idle_after == FSDPA_ABSENT ? 0 : k->idle_after)));
    }
    if (x) st = add_rest(c, r, d->sel, d->top, d->ntop, x);
  }
  sb_free(&ev);
  sb_free(&adv);
  return st;
}

/* ---- pinned-host-churn ---- */

/* Pinned host memory allocated and freed in steady state: not device
 * memory, so not allocator-thrash, but its calls are slow (cudaHostAlloc
 * pins pages through the driver) and cudaFreeHost synchronizes the device.
 * Fires on allocator-thrash's rate rule, over the pinned calls. */
typedef struct pinned {
  int fires;
  int severity;
  int64_t cost_ns;             /* GPU idle during and right after the steady pinned calls */
  uint64_t steady_steps, na, nf;
  int64_t ta, tf, steady_dur, min_per_step;
  size_t top[FINDING_MAX_RANGES];
  int ntop;
} pinned;

static fsdpa_status pinned_decide(fsdpa_ctx *c, const ar *r, pinned *d) {
  const sc_set *s = &r->s;
  memset(d, 0, sizeof *d);
  d->steady_steps = r->njw > (size_t)r->jwarmup ? r->njw - (size_t)r->jwarmup : 0;
  for (size_t i = 0; i < s->n; i++) {
    const sc_call *k = &s->v[i];
    if (!ar_jsteady(r, i)) continue;
    if (ar_pinned_alloc(k)) { d->na++; d->ta += k->end - k->ts; }
    else if (ar_pinned_free(k)) { d->nf++; d->tf += k->end - k->ts; }
  }
  d->min_per_step = c->params[P_THRASH_MIN_PER_STEP];
  if (!d->steady_steps || d->na + d->nf == 0 ||
      (double)(d->na + d->nf) < (double)d->min_per_step * (double)d->steady_steps)
    return FSDPA_OK;
  for (size_t i = (size_t)r->jwarmup; i < r->njw; i++) d->steady_dur += r->jw[i].end - r->jw[i].ts;
  uint8_t *sel = fa_calloc(&c->alloc, s->n);
  if (!sel) return fa_fail_status(&c->alloc);
  for (size_t i = 0; i < s->n; i++) {
    const sc_call *k = &s->v[i];
    if (!ar_jsteady(r, i) || !(ar_pinned_alloc(k) || ar_pinned_free(k))) continue;
    sel[i] = 1;
    sc_top_insert(s, d->top, &d->ntop, FINDING_MAX_RANGES, i);
  }
  fsdpa_status st = sc_idle_cost(c, s, sel, &d->cost_ns);
  fa_free(&c->alloc, sel, s->n);
  if (st) return st;
  d->severity = d->steady_dur > 0 && d->cost_ns >= d->steady_dur / 20 + (d->steady_dur % 20 != 0) ? SEV_CRITICAL
                                                                                                   : SEV_WARNING;
  d->fires = 1;
  return FSDPA_OK;
}

static fsdpa_status pinned_word(fsdpa_ctx *c, const ar *r, const pinned *d, int64_t rank, findings *f) {
  sbuf ev, adv;
  sb_init(&ev, &c->alloc);
  sb_init(&adv, &c->alloc);
  jsonw w;
  jw_init(&w, &ev, 0);
  jw_obj(&w);
  jw_ku64(&w, "steady_steps", d->steady_steps);
  jw_ki64(&w, "warmup_steps", r->jwarmup);
  jw_kstr(&w, "judged", r->jsource == ITS_NONE ? "whole_trace" : "iterations");
  jw_kstr(&w, "iterations_from", it_source_name(r->jsource));
  jw_ku64(&w, "steady_alloc_calls", d->na);
  jw_ku64(&w, "steady_free_calls", d->nf);
  jw_kratio(&w, "calls_per_step", (double)(d->na + d->nf) / (double)d->steady_steps);
  jw_ki64(&w, "steady_alloc_ns", d->ta);
  jw_ki64(&w, "steady_free_ns", d->tf);
  jw_ki64(&w, "steady_steps_dur_ns", d->steady_dur);
  jw_ki64(&w, "gpu_idle_ns", d->cost_ns);
  jw_ki64(&w, "min_per_step", d->min_per_step);
  jw_obj_end(&w);
  workload wl;
  fsdpa_status wst = workload_build(c, &wl);
  if (wst) {
    sb_free(&ev);
    sb_free(&adv);
    return wst;
  }
  /* the DataLoader is named only where the trace shows one */
  sb_printf(&adv, "Allocate pinned staging buffers once and reuse them (torch.empty(..., pin_memory=True) outside the "
                  "loop, then copy_ into it)%s, and do not empty PyTorch's pinned-memory cache in the loop: every "
                  "cudaHostAlloc pins pages through the driver and every cudaFreeHost waits for the device.",
            wl.dataloader ? ", keep DataLoader workers alive (persistent_workers=True with pin_memory=True)" : "");
  char title[200], detail[800], scope[200];
  const char *u = unit_of(r->jsource);
  if (r->jsource == ITS_NONE)
    snprintf(title, sizeof title, "Pinned host memory allocated and freed: %llu cudaHostAlloc/cudaFreeHost calls over "
             "the whole trace (no iterations found)", (unsigned long long)(d->na + d->nf));
  else
    snprintf(title, sizeof title, "Pinned host memory allocated every %s: %.1f cudaHostAlloc/cudaFreeHost calls per "
             "steady-state %s", u, (double)(d->na + d->nf) / (double)d->steady_steps, u);
  scope_text(scope, sizeof scope, r->jsource, r->jhow, r->jwarmup, d->steady_steps);
  snprintf(detail, sizeof detail,
           "%s make%s %llu pinned host allocations and %llu frees (%.2f ms and %.2f ms of CPU time %s); the "
           "GPU idled %.2f ms during and right after them. Pinned host memory is not device memory: these calls "
           "are not in malloc_calls.",
           scope, r->jsource == ITS_NONE ? "s" : "", (unsigned long long)d->na, (unsigned long long)d->nf,
           fmt_ms(d->ta) / (double)d->steady_steps, fmt_ms(d->tf) / (double)d->steady_steps, per_unit(r->jsource),
           fmt_ms(d->cost_ns));
  fsdpa_status st = FSDPA_OK;
  if (ev.failed || adv.failed) {
    st = (fsdpa_status)(ev.failed ? ev.failed : adv.failed);
  } else {
    finding *x = findings_add(f, "pinned-host-churn", d->severity, rank, FSDPA_ABSENT, d->cost_ns, title, detail,
                              adv.p, ev.p);
    for (int i = 0; x && i < d->ntop; i++) {
      const sc_call *k = &r->s.v[d->top[i]];
      finding_add_range(x, ctx_abs(c, k->ts),
                        ctx_abs(c, k->end + (k->idle_after == FSDPA_ABSENT ? 0 : k->idle_after)));
    }
    /* the steady pinned calls past the few: pinned_decide's selection */
    uint8_t *sel = x ? fa_calloc(&c->alloc, r->s.n ? r->s.n : 1) : NULL;
    if (x && !sel) st = fa_fail_status(&c->alloc);
    for (size_t i = 0; sel && i < r->s.n; i++)
      sel[i] = ar_jsteady(r, i) && (ar_pinned_alloc(&r->s.v[i]) || ar_pinned_free(&r->s.v[i]));
    if (sel) st = add_rest(c, r, sel, d->top, d->ntop, x);
    fa_free(&c->alloc, sel, r->s.n ? r->s.n : 1);
  }
  sb_free(&ev);
  sb_free(&adv);
  return st;
}

/* ---- allocator-fragmentation ---- */

/* Whether allocator-fragmentation fires (on the primary device) and with
 * which numbers. */
typedef struct frag {
  int fires;
  int severity;
  const am_dev *d;
  am_win all;                  /* levels over the whole trace */
  int by_share;                /* unused share of the peak reservation above the threshold */
  int by_growth;               /* reserved grows in steady state while allocated does not */
  int64_t gr, ga;              /* steady growth of the reserved / allocated peaks (0 = not measured) */
  int64_t big;                 /* most frequent large allocation, ABSENT */
  int64_t split_mb;            /* max_split_size_mb to advise, 0 = none */
  int64_t min_ppm;
  int backend;                 /* AR_BACKEND_* */
} frag;

static fsdpa_status frag_decide(fsdpa_ctx *c, const ar *r, frag *d) {
  memset(d, 0, sizeof *d);
  int32_t di = r->m.primary;
  if (di < 0 || r->m.d[di].relative || !r->m.d[di].has_reserved) return FSDPA_OK;
  d->d = &r->m.d[di];
  am_window(c, &r->m, di, INT64_MIN, INT64_MAX, &d->all);
  d->min_ppm = c->params[P_FRAG_MIN_PPM];
  double thr = (double)d->min_ppm / 1e6;
  d->by_share = d->all.frag >= 0 && d->all.frag >= thr;
  if (r->jwarmup < (int64_t)r->njw) {
    int64_t t = r->jw[r->jwarmup].ts, e = r->jw[r->njw - 1].end;
    am_win pre, steady;
    am_window(c, &r->m, di, INT64_MIN, t, &pre);
    am_window(c, &r->m, di, t, e, &steady);
    if (pre.peak_r != FSDPA_ABSENT && steady.peak_r != FSDPA_ABSENT && pre.peak_a != FSDPA_ABSENT &&
        steady.peak_a != FSDPA_ABSENT) {
      d->gr = steady.peak_r - pre.peak_r;
      d->ga = steady.peak_a - pre.peak_a;
      d->by_growth = d->gr > 0 &&
                     (double)d->gr * 1e6 >= (double)c->params[P_ALLOC_GROWTH_PPM] * (double)steady.peak_r &&
                     2 * d->ga <= d->gr;
    }
  }
  if (!d->by_share && !d->by_growth) return FSDPA_OK;
  fsdpa_status st = am_common_large_alloc(c, &r->m, di, &d->big);
  if (st) return st;
  d->split_mb = split_mb(d->big);
  ar_classes cls;
  ar_classes_count(r, &cls);
  d->backend = cls.backend;
  d->severity = d->all.oom ? SEV_CRITICAL : SEV_WARNING;
  d->fires = 1;
  return FSDPA_OK;
}

static void frag_evidence(const frag *d, sbuf *ev) {
  const am_win *all = &d->all;
  jsonw w;
  jw_init(&w, ev, 0);
  jw_obj(&w);
  jw_ki64(&w, "device", d->d->id);
  /* the finding's cost in memory: the reservation not allocated at its peak */
  jw_ki64(&w, "cost_bytes", all->peak_r != FSDPA_ABSENT && all->a_at_peak_r != FSDPA_ABSENT &&
                                    all->peak_r > all->a_at_peak_r
                                ? all->peak_r - all->a_at_peak_r
                                : FSDPA_ABSENT);
  jw_ki64(&w, "peak_reserved_bytes", all->peak_r);
  jw_ki64(&w, "allocated_at_peak_reserved_bytes", all->a_at_peak_r);
  jw_ki64(&w, "peak_allocated_bytes", all->peak_a);
  jw_kratio(&w, "fragmentation", all->frag);
  jw_kratio(&w, "mean_unallocated_share", all->mean_unalloc);
  jw_ki64(&w, "steady_reserved_growth_bytes", d->by_growth || d->gr ? d->gr : FSDPA_ABSENT);
  jw_ki64(&w, "steady_allocated_growth_bytes", d->by_growth || d->gr ? d->ga : FSDPA_ABSENT);
  jw_ku64(&w, "oom_events", all->oom);
  jw_ki64(&w, "common_large_alloc_bytes", d->big);
  jw_ki64(&w, "max_split_size_mb", d->split_mb ? d->split_mb : FSDPA_ABSENT);
  jw_ki64(&w, "min_fragmentation_ppm", d->min_ppm);
  jw_obj_end(&w);
}

static void frag_title(const frag *d, char *title, size_t cap) {
  if (d->by_share)
    snprintf(title, cap, "Allocator fragmentation: %.0f%% of the peak reservation (%.2f GiB) never in use",
             100.0 * d->all.frag, mib(d->all.peak_r) / 1024.0);
  else
    snprintf(title, cap, "Reserved memory grows by %.0f MiB in steady state while allocated grows %.0f MiB",
             mib(d->gr), mib(d->ga));
}

static void frag_detail(const frag *d, char *detail, size_t cap) {
  const am_win *all = &d->all;
  int n = snprintf(detail, cap,
                   "Device %d: reserved peaked at %.1f MiB while at most %.1f MiB of it was allocated "
                   "(%.1f%% unused at the best moment; %.1f%% unused on average over time). Peak allocated "
                   "%.1f MiB.",
                   (int)d->d->id, mib(all->peak_r), mib(all->a_at_peak_r), 100.0 * all->frag,
                   all->mean_unalloc >= 0 ? 100.0 * all->mean_unalloc : 0.0, mib(all->peak_a));
  if (n > 0 && (size_t)n < cap && d->by_growth)
    n += snprintf(detail + n, cap - (size_t)n,
                  " After warm-up the reservation still grew by %.1f MiB while the allocated peak grew %.1f MiB.",
                  mib(d->gr), mib(d->ga));
  if (n > 0 && (size_t)n < cap && all->oom)
    snprintf(detail + n, cap - (size_t)n, " %llu [OutOfMemory] event(s).", (unsigned long long)all->oom);
}

static void frag_advice(const frag *d, const workload *wl, sbuf *adv) {
  if (d->backend == AR_BACKEND_EXPANDABLE)
    sb_puts(adv, "The allocator already uses expandable segments (its cuMem* calls show it), so the unused "
                 "reservation is cached blocks kept between steps: lower the peak (");
  if (d->backend == AR_BACKEND_EXPANDABLE)
    sb_printf(adv, "%s) or let the allocator reclaim idle cached blocks early "
                   "(PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True,garbage_collection_threshold:0.8)",
              wl->mode == WM_TRAIN ? "activation checkpointing, smaller micro-batch" : peak_advice(wl));
  else
    sb_puts(adv, "Set PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True so freed memory can be reused for "
                 "tensors of any size");
  if (d->split_mb)
    sb_printf(adv, ", or PYTORCH_CUDA_ALLOC_CONF=max_split_size_mb:%lld so the recurring %.0f MiB blocks%s "
                   "are not split by smaller tensors",
              (long long)d->split_mb, mib(d->big), wl->labels & WL_FSDP_ANY ? " (e.g. FSDP all-gather buffers)" : "");
  sb_puts(adv, ". Avoid torch.cuda.empty_cache() in the loop; it only hides fragmentation and adds "
               "synchronizing cudaFree calls.");
}

static fsdpa_status frag_word(fsdpa_ctx *c, const frag *d, int64_t rank, findings *f) {
  sbuf ev, adv;
  sb_init(&ev, &c->alloc);
  sb_init(&adv, &c->alloc);
  frag_evidence(d, &ev);
  char title[200], detail[900];
  frag_title(d, title, sizeof title);
  frag_detail(d, detail, sizeof detail);
  workload wl;
  fsdpa_status wst = workload_build(c, &wl);
  if (wst) {
    sb_free(&ev);
    sb_free(&adv);
    return wst;
  }
  frag_advice(d, &wl, &adv);
  fsdpa_status st = FSDPA_OK;
  if (ev.failed || adv.failed) st = (fsdpa_status)(ev.failed ? ev.failed : adv.failed);
  else
    findings_add(f, "allocator-fragmentation", d->severity, rank, FSDPA_ABSENT, 0, title, detail, adv.p, ev.p);
  sb_free(&ev);
  sb_free(&adv);
  return st;
}

/* The rules of the room that could not judge the rank, and why. */
static void say_not_judged(fsdpa_ctx *c, const ar *r, const thrash *t, int64_t rank, findings *f) {
  if (!t->steady_steps) {
    const char *why = r->jsource == ITS_NONE
                          ? "no iterations found (no ProfilerStep or per-iteration annotation): the whole trace is "
                            "one window, which holds the allocator's first fill of its cache"
                          : "no steady-state iteration: every iteration profiled counts as warm-up (one iteration, "
                            "or reserved memory grew in each)";
    static const char would[] = "a profile of more iterations: a torch.profiler schedule with active=3 or more, "
                                "stepped with prof.step() after each iteration";
    findings_not_judged(f, "allocator-thrash", rank, why, would);
    findings_not_judged(f, "pinned-host-churn", rank, why, would);
  }
  int32_t di = r->m.primary;
  if (di < 0 && c->st.gpu.len)
    findings_not_judged(f, "allocator-fragmentation", rank, "the trace has no device [memory] events",
                        "profile_memory=True in torch.profiler.profile");
  else if (di >= 0 && (r->m.d[di].relative || !r->m.d[di].has_reserved))
    findings_not_judged(f, "allocator-fragmentation", rank,
                        "the [memory] events give no Total Allocated / Total Reserved levels",
                        "a PyTorch whose [memory] events record Total Allocated and Total Reserved (1.10 or later)");
}

fsdpa_status allocator_findings(fsdpa_ctx *c, int64_t rank, findings *f) {
  ar r;
  fsdpa_status st = ar_open(c, &r);
  if (st) return st;
  thrash t;
  st = thrash_decide(c, &r, &t);
  if (!st) say_not_judged(c, &r, &t, rank, f);
  if (!st && t.fires) st = thrash_word(c, &r, &t, rank, f);
  thrash_free(c, &r, &t);
  if (!st) {
    pinned p;
    st = pinned_decide(c, &r, &p);
    if (!st && p.fires) st = pinned_word(c, &r, &p, rank, f);
  }
  if (!st) {
    frag g;
    st = frag_decide(c, &r, &g);
    if (!st && g.fires) st = frag_word(c, &g, rank, f);
  }
  ar_close(c, &r);
  return st;
}
