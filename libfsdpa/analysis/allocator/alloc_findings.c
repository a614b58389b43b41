/* allocator-thrash and allocator-fragmentation. */
#include "analysis/allocator/allocator.h"
#include "analysis/allocator/alloc_run.h"
#include "util/fmt.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MIB (1024 * 1024)
/* PyTorch rejects max_split_size_mb <= 20 (kLargeBuffer = 20 MiB) */
#define MIN_SPLIT_MB 21
/* a cudaFree closer than this to the previous one of its thread continues a burst */
#define BURST_GAP_NS 1000000
#define BURST_MIN 3

static double mib(int64_t b) { return (double)b / MIB; }

static int cmp_i64(const void *pa, const void *pb) {
  int64_t a = *(const int64_t *)pa, b = *(const int64_t *)pb;
  return a < b ? -1 : a > b;
}

typedef struct sizes {
  int64_t *v;
  size_t n, cap;
} sizes;

static void sizes_json(jsonw *w, const char *k, sizes *s) {
  jw_key(w, k);
  jw_obj(w);
  jw_ku64(w, "count", s->n);
  if (s->n) qsort(s->v, s->n, sizeof *s->v, cmp_i64);
  jw_ki64(w, "min", s->n ? s->v[0] : FSDPA_ABSENT);
  jw_ki64(w, "median", s->n ? s->v[(s->n - 1) / 2] : FSDPA_ABSENT);
  jw_ki64(w, "max", s->n ? s->v[s->n - 1] : FSDPA_ABSENT);
  jw_obj_end(w);
}

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

static int64_t steady_empty_cache_ops(const fsdpa_ctx *c, const ar *r) {
  int64_t n = 0;
  for (size_t i = 0; i < c->st.cpu.len; i++) {
    const ev_rec *e = STORE_REC(&c->st.cpu, i);
    if (!(store_name_info(&c->st, e->name) & NC_EMPTY_CACHE)) continue;
    int32_t s = sc_step_of(r->s.steps, r->s.nsteps, e->ts);
    n += s >= 0 && s >= r->warmup;
  }
  return n;
}

typedef struct run_t {
  uint32_t track;
  size_t last;
  int len;
} run_t;

/* Runs of >= BURST_MIN steady frees on one thread, each within BURST_GAP_NS
 * of the previous call of the thread, no malloc in between: the signature of
 * torch.cuda.empty_cache() (or an OOM retry) releasing cached segments. */
static fsdpa_status free_bursts(fsdpa_ctx *c, const ar *r, int64_t *out) {
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
    t[j].len = ar_free(k) && ar_steady(r, k) ? (cont ? t[j].len + 1 : 1) : 0;
    if (t[j].len == BURST_MIN) (*out)++;
    t[j].last = i;
  }
  fa_free(&c->alloc, t, r->s.n * sizeof(run_t));
  return FSDPA_OK;
}

static fsdpa_status thrash(fsdpa_ctx *c, const ar *r, int64_t rank, findings *f) {
  fa_alloc *a = &c->alloc;
  const sc_set *s = &r->s;
  uint64_t steady_steps = r->s.nsteps > (size_t)r->warmup ? r->s.nsteps - (size_t)r->warmup : 0;
  uint64_t nm = 0, nf = 0;
  int64_t tm = 0, tf = 0, steady_dur = 0;
  for (size_t i = 0; i < s->n; i++) {
    const sc_call *k = &s->v[i];
    if (!ar_steady(r, k)) continue;
    if (ar_malloc(k)) { nm++; tm += k->end - k->ts; }
    else if (ar_free(k)) { nf++; tf += k->end - k->ts; }
  }
  for (size_t i = (size_t)r->warmup; i < r->s.nsteps; i++) steady_dur += r->s.steps[i].end - r->s.steps[i].ts;
  int64_t per = c->params[P_THRASH_MIN_PER_STEP];
  if (!steady_steps || nm + nf == 0 || (double)(nm + nf) < (double)per * (double)steady_steps) return FSDPA_OK;
  uint8_t *sel = fa_calloc(a, s->n);
  sizes seg = {fa_malloc(a, s->n * sizeof(int64_t)), 0, s->n};
  sizes req = {fa_malloc(a, s->n * sizeof(int64_t)), 0, s->n};
  sbuf ev, adv;
  sb_init(&ev, a);
  sb_init(&adv, a);
  fsdpa_status st = FSDPA_OK;
  if (!sel || !seg.v || !req.v) {
    st = fa_fail_status(a);
    goto out;
  }
  size_t top[FINDING_MAX_RANGES];
  int ntop = 0;
  for (size_t i = 0; i < s->n; i++) {
    const sc_call *k = &s->v[i];
    if (!ar_steady(r, k) || !(ar_malloc(k) || ar_free(k))) continue;
    sel[i] = 1;
    if (ar_malloc(k)) {
      int64_t b = k->bytes != FSDPA_ABSENT ? k->bytes : am_reserved_growth(c, &r->m, r->m.primary, k->ts, k->end);
      if (b != FSDPA_ABSENT && b > 0) seg.v[seg.n++] = b;
      int64_t q = am_next_request(c, &r->m, r->m.primary, k->end);
      if (q != FSDPA_ABSENT) req.v[req.n++] = q;
    }
    sc_top_insert(s, top, &ntop, FINDING_MAX_RANGES, i);
  }
  int64_t cost = 0, bursts = 0;
  if ((st = sc_idle_cost(c, s, sel, &cost))) goto out;
  if ((st = free_bursts(c, r, &bursts))) goto out;
  int64_t ec = steady_empty_cache_ops(c, r);
  jsonw w;
  jw_init(&w, &ev, 0);
  jw_obj(&w);
  jw_ku64(&w, "steady_steps", steady_steps);
  jw_ki64(&w, "warmup_steps", r->warmup);
  jw_ku64(&w, "steady_malloc_calls", nm);
  jw_ku64(&w, "steady_free_calls", nf);
  jw_kratio(&w, "calls_per_step", (double)(nm + nf) / (double)steady_steps);
  jw_ki64(&w, "steady_malloc_ns", tm);
  jw_ki64(&w, "steady_free_ns", tf);
  jw_ki64(&w, "steady_steps_dur_ns", steady_dur);
  jw_ki64(&w, "gpu_idle_ns", cost);
  sizes_json(&w, "segment_bytes", &seg);
  sizes_json(&w, "request_bytes", &req);
  jw_ki64(&w, "empty_cache_ops", ec);
  jw_ki64(&w, "free_bursts", bursts);
  int64_t n_split = split_mb(smallest_large(&req));
  jw_ki64(&w, "max_split_size_mb", n_split ? n_split : FSDPA_ABSENT);
  jw_ki64(&w, "min_per_step", per);
  jw_obj_end(&w);
  char title[200], detail[1200];
  snprintf(title, sizeof title, "Caching allocator thrash: %.1f cudaMalloc/cudaFree calls per steady-state step",
           (double)(nm + nf) / (double)steady_steps);
  int n = snprintf(detail, sizeof detail,
                   "After %lld warm-up step(s) (%s), %llu steady-state steps still make %llu malloc and %llu "
                   "free calls: %.2f ms of CPU time per step in malloc, %.2f ms in free; the GPU idled %.2f ms "
                   "during and right after them.",
                   (long long)r->warmup, r->how == 0 ? "allocator.warmup_steps" : r->how == 1 ? "until reserved memory stopped growing" : "default",
                   (unsigned long long)steady_steps, (unsigned long long)nm, (unsigned long long)nf,
                   fmt_ms(tm) / (double)steady_steps, fmt_ms(tf) / (double)steady_steps, fmt_ms(cost));
  if (n > 0 && (size_t)n < sizeof detail && seg.n)
    n += snprintf(detail + n, sizeof detail - (size_t)n, " New segments %.1f-%.1f MiB (median %.1f MiB).",
                  mib(seg.v[0]), mib(seg.v[seg.n - 1]), mib(seg.v[(seg.n - 1) / 2]));
  if (n > 0 && (size_t)n < sizeof detail && req.n)
    n += snprintf(detail + n, sizeof detail - (size_t)n, " Requests that missed the cache: %.1f-%.1f MiB.",
                  mib(req.v[0]), mib(req.v[req.n - 1]));
  if (n > 0 && (size_t)n < sizeof detail && (ec || bursts))
    snprintf(detail + n, sizeof detail - (size_t)n,
             " %lld empty_cache call(s) and %lld burst(s) of >= %d consecutive frees in steady state.",
             (long long)ec, (long long)bursts, BURST_MIN);
  if (ec || bursts)
    sb_puts(&adv, "The cache is being released every step (torch.cuda.empty_cache(), or frees after a failed "
                  "allocation): remove torch.cuda.empty_cache() from the training loop, so freed blocks are "
                  "reused instead of returned with a synchronizing cudaFree and re-allocated with cudaMalloc. ");
  sb_puts(&adv, "Set PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True so the caching allocator grows its "
                "segments in place instead of creating new ones");
  if (n_split)
    sb_printf(&adv, ", or PYTORCH_CUDA_ALLOC_CONF=max_split_size_mb:%lld so the %.0f MiB blocks these "
                    "allocations need are never split for smaller tensors and stay reusable",
              (long long)n_split, mib(smallest_large(&req)));
  sb_puts(&adv, ". If memory is close to capacity, lower the peak (activation checkpointing, smaller "
                "micro-batch, FSDP reshard_after_forward=True) so the allocator stops freeing and retrying.");
  if (ev.failed || adv.failed) {
    st = (fsdpa_status)(ev.failed ? ev.failed : adv.failed);
    goto out;
  }
  /* cost >= 5% of the steady span, without cost * 20 (sums of hostile durations overflow) */
  int sev = steady_dur > 0 && cost >= steady_dur / 20 + (steady_dur % 20 != 0) ? SEV_CRITICAL : SEV_WARNING;
  finding *x = findings_add(f, "allocator-thrash", sev, rank, FSDPA_ABSENT, cost, title, detail, adv.p, ev.p);
  for (int i = 0; x && i < ntop; i++) {
    const sc_call *k = &s->v[top[i]];
    finding_add_range(x, ctx_abs(c, k->ts),
                      ctx_abs(c, k->end + (k->idle_after == FSDPA_ABSENT ? 0 : k->idle_after)));
  }
out:
  sb_free(&ev);
  sb_free(&adv);
  fa_free(a, sel, s->n);
  fa_free(a, seg.v, seg.cap * sizeof(int64_t));
  fa_free(a, req.v, req.cap * sizeof(int64_t));
  return st;
}

/* Most frequent device allocation size above the max_split_size_mb floor. */
static int64_t common_large_alloc(const fsdpa_ctx *c, const am *m, int32_t di, sizes *tmp) {
  const am_dev *d = &m->d[di];
  tmp->n = 0;
  for (size_t i = 0; i < d->n && tmp->n < tmp->cap; i++) {
    const mem_rec *e = &FA_VEC_AT(&c->st.mem, mem_rec, d->ev[i]);
    if (!e->oom && e->bytes != FSDPA_ABSENT && e->bytes > (int64_t)MIN_SPLIT_MB * MIB) tmp->v[tmp->n++] = e->bytes;
  }
  if (!tmp->n) return FSDPA_ABSENT;
  qsort(tmp->v, tmp->n, sizeof *tmp->v, cmp_i64);
  int64_t best = tmp->v[0];
  size_t best_n = 0;
  for (size_t i = 0; i < tmp->n;) {
    size_t e = i;
    while (e < tmp->n && tmp->v[e] == tmp->v[i]) e++;
    if (e - i >= best_n) {
      best_n = e - i;
      best = tmp->v[i];
    }
    i = e;
  }
  return best;
}

static fsdpa_status fragmentation(fsdpa_ctx *c, const ar *r, int64_t rank, findings *f) {
  int32_t di = r->m.primary;
  if (di < 0 || r->m.d[di].relative || !r->m.d[di].has_reserved) return FSDPA_OK;
  const am_dev *d = &r->m.d[di];
  am_win all;
  am_window(c, &r->m, di, INT64_MIN, INT64_MAX, &all);
  double thr = (double)c->params[P_FRAG_MIN_PPM] / 1e6;
  int by_share = all.frag >= 0 && all.frag >= thr;
  /* reserved growing in steady state while allocated does not */
  int64_t gr = 0, ga = 0;
  int by_growth = 0;
  if (r->warmup < (int64_t)r->s.nsteps) {
    int64_t t = r->s.steps[r->warmup].ts, e = r->s.steps[r->s.nsteps - 1].end;
    am_win pre, st;
    am_window(c, &r->m, di, INT64_MIN, t, &pre);
    am_window(c, &r->m, di, t, e, &st);
    if (pre.peak_r != FSDPA_ABSENT && st.peak_r != FSDPA_ABSENT && pre.peak_a != FSDPA_ABSENT &&
        st.peak_a != FSDPA_ABSENT) {
      gr = st.peak_r - pre.peak_r;
      ga = st.peak_a - pre.peak_a;
      by_growth = gr > 0 && (double)gr * 1e6 >= (double)c->params[P_ALLOC_GROWTH_PPM] * (double)st.peak_r &&
                  2 * ga <= gr;
    }
  }
  if (!by_share && !by_growth) return FSDPA_OK;
  sizes tmp = {fa_malloc(&c->alloc, (d->n ? d->n : 1) * sizeof(int64_t)), 0, d->n};
  if (!tmp.v) return fa_fail_status(&c->alloc);
  int64_t big = common_large_alloc(c, &r->m, di, &tmp);
  fa_free(&c->alloc, tmp.v, (d->n ? d->n : 1) * sizeof(int64_t));
  int64_t n_split = split_mb(big);
  sbuf ev, adv;
  sb_init(&ev, &c->alloc);
  sb_init(&adv, &c->alloc);
  jsonw w;
  jw_init(&w, &ev, 0);
  jw_obj(&w);
  jw_ki64(&w, "device", d->id);
  jw_ki64(&w, "peak_reserved_bytes", all.peak_r);
  jw_ki64(&w, "allocated_at_peak_reserved_bytes", all.a_at_peak_r);
  jw_ki64(&w, "peak_allocated_bytes", all.peak_a);
  jw_kratio(&w, "fragmentation", all.frag);
  jw_kratio(&w, "mean_unallocated_share", all.mean_unalloc);
  jw_ki64(&w, "steady_reserved_growth_bytes", by_growth || gr ? gr : FSDPA_ABSENT);
  jw_ki64(&w, "steady_allocated_growth_bytes", by_growth || gr ? ga : FSDPA_ABSENT);
  jw_ku64(&w, "oom_events", all.oom);
  jw_ki64(&w, "common_large_alloc_bytes", big);
  jw_ki64(&w, "max_split_size_mb", n_split ? n_split : FSDPA_ABSENT);
  jw_ki64(&w, "min_fragmentation_ppm", c->params[P_FRAG_MIN_PPM]);
  jw_obj_end(&w);
  char title[200], detail[900];
  if (by_share)
    snprintf(title, sizeof title, "Allocator fragmentation: %.0f%% of the peak reservation (%.2f GiB) never in use",
             100.0 * all.frag, mib(all.peak_r) / 1024.0);
  else
    snprintf(title, sizeof title, "Reserved memory grows by %.0f MiB in steady state while allocated grows %.0f MiB",
             mib(gr), mib(ga));
  int n = snprintf(detail, sizeof detail,
                   "Device %d: reserved peaked at %.1f MiB while at most %.1f MiB of it was allocated "
                   "(%.1f%% unused at the best moment; %.1f%% unused on average over time). Peak allocated "
                   "%.1f MiB.",
                   (int)d->id, mib(all.peak_r), mib(all.a_at_peak_r), 100.0 * all.frag,
                   all.mean_unalloc >= 0 ? 100.0 * all.mean_unalloc : 0.0, mib(all.peak_a));
  if (n > 0 && (size_t)n < sizeof detail && by_growth)
    n += snprintf(detail + n, sizeof detail - (size_t)n,
                  " After warm-up the reservation still grew by %.1f MiB while the allocated peak grew %.1f MiB.",
                  mib(gr), mib(ga));
  if (n > 0 && (size_t)n < sizeof detail && all.oom)
    snprintf(detail + n, sizeof detail - (size_t)n, " %llu [OutOfMemory] event(s).",
             (unsigned long long)all.oom);
  sb_puts(&adv, "Set PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True so freed memory can be reused for "
                "tensors of any size");
  if (n_split)
    sb_printf(&adv, ", or PYTORCH_CUDA_ALLOC_CONF=max_split_size_mb:%lld so the recurring %.0f MiB blocks "
                    "(e.g. FSDP all-gather buffers) are not split by smaller tensors",
              (long long)n_split, mib(big));
  sb_puts(&adv, ". Avoid torch.cuda.empty_cache() in the loop; it only hides fragmentation and adds "
                "synchronizing cudaFree calls.");
  fsdpa_status st = FSDPA_OK;
  if (ev.failed || adv.failed) st = (fsdpa_status)(ev.failed ? ev.failed : adv.failed);
  else
    findings_add(f, "allocator-fragmentation", all.oom ? SEV_CRITICAL : SEV_WARNING, rank, FSDPA_ABSENT, 0,
                 title, detail, adv.p, ev.p);
  sb_free(&ev);
  sb_free(&adv);
  return st;
}

fsdpa_status allocator_findings(fsdpa_ctx *c, int64_t rank, findings *f) {
  ar r;
  fsdpa_status st = ar_open(c, &r);
  if (st) return st;
  st = thrash(c, &r, rank, f);
  if (!st) st = fragmentation(c, &r, rank, f);
  ar_close(c, &r);
  return st;
}
