/* ranks[].allocator: the summary, per-API calls, devices with their
 * timelines, the first OOM events and the per-step rows. */
#include "analysis/allocator/allocator.h"
#include "analysis/allocator/allocator_impl.h"

#define TIMELINE_BUCKETS 120

static const char *how_name(int h) { return h == 0 ? "param" : h == 1 ? "reserved_growth" : "default"; }

static const char *pattern_name(int p) {
  switch (p) {
    case AR_PATTERN_SAWTOOTH: return "sawtooth";
    case AR_PATTERN_GROWING: return "growing";
    case AR_PATTERN_IRREGULAR: return "irregular";
    default: return NULL;
  }
}

static void write_timeline(fsdpa_ctx *c, const ar *r, int32_t di, am_point *p, jsonw *w) {
  size_t n = am_series(c, &r->m, di, INT64_MIN, INT64_MAX, TIMELINE_BUCKETS, p);
  jw_obj(w);
  jw_ku64(w, "buckets", n);
  jw_ki64(w, "start_ns", n ? ctx_abs(c, p[0].t0) : FSDPA_ABSENT);
  jw_ki64(w, "bucket_ns", n ? p[0].t1 - p[0].t0 : FSDPA_ABSENT);
  static const char *K[] = {"allocated_min", "allocated_max", "reserved_max"};
  for (int k = 0; k < 3; k++) {
    jw_key(w, K[k]);
    jw_arr(w);
    for (size_t i = 0; i < n; i++) jw_i64(w, k == 0 ? p[i].a_min : k == 1 ? p[i].a_max : p[i].r_max);
    jw_arr_end(w);
  }
  jw_obj_end(w);
}

static void write_by_api(fsdpa_ctx *c, const ar *r, jsonw *w) {
  jw_key(w, "by_api");
  jw_arr(w);
  ar_api x;
  for (size_t pos = 0; ar_api_next(r, &pos, &x);) {
    jw_obj(w);
    jw_kstr(w, "api", store_name(&c->st, x.name));
    jw_kstr(w, "kind", x.kind);
    jw_kstr(w, "memory", x.pinned ? "pinned_host" : "device");
    jw_ku64(w, "calls", x.calls);
    jw_ki64(w, "total_ns", x.total_ns);
    jw_ki64(w, "max_ns", x.max_ns);
    jw_ki64(w, "bytes", x.bytes);
    jw_obj_end(w);
  }
  jw_arr_end(w);
}

/* What the device allocator's calls say about its backend, the calls of
 * each backend, and pinned host memory (not device memory: not in
 * malloc_calls / free_calls). */
static void write_classes(const ar *r, jsonw *w) {
  ar_classes k;
  ar_classes_count(r, &k);
  const char *b = ar_backend_name(k.backend);
  jw_key(w, "backend");
  if (b) jw_str(w, b);
  else jw_null(w);
  jw_key(w, "backend_evidence");
  jw_obj(w);
  jw_ku64(w, "native_calls", k.native_malloc + k.native_free);
  jw_ku64(w, "vmm_calls", k.vmm_create + k.vmm_map + k.vmm_unmap + k.vmm_release);
  jw_ku64(w, "async_pool_calls", k.async_malloc + k.async_free);
  jw_obj_end(w);
  jw_key(w, "vmm");
  jw_obj(w);
  jw_ku64(w, "create_calls", k.vmm_create);
  jw_ku64(w, "map_calls", k.vmm_map);
  jw_ku64(w, "unmap_calls", k.vmm_unmap);
  jw_ku64(w, "release_calls", k.vmm_release);
  jw_ku64(w, "steady_state_calls", k.vmm_steady);
  jw_ki64(w, "total_ns", k.vmm_ns);
  jw_obj_end(w);
  jw_key(w, "async_pool");
  jw_obj(w);
  jw_ku64(w, "malloc_calls", k.async_malloc);
  jw_ku64(w, "free_calls", k.async_free);
  jw_ku64(w, "steady_state_calls", k.async_steady);
  jw_ki64(w, "total_ns", k.async_ns);
  jw_obj_end(w);
  jw_key(w, "pinned_host");
  jw_obj(w);
  jw_ku64(w, "alloc_calls", k.pinned_alloc);
  jw_ku64(w, "free_calls", k.pinned_free);
  jw_ku64(w, "steady_state_alloc_calls", k.pinned_steady_alloc);
  jw_ku64(w, "steady_state_free_calls", k.pinned_steady_free);
  jw_ki64(w, "alloc_ns", k.pinned_alloc_ns);
  jw_ki64(w, "free_ns", k.pinned_free_ns);
  jw_ki64(w, "alloc_bytes", k.pinned_bytes);
  jw_obj_end(w);
}

/* The first [OutOfMemory] events of each device: when, how much was asked,
 * and the levels at that moment. */
#define OOM_LIST 16
static void write_oom(fsdpa_ctx *c, const ar *r, jsonw *w) {
  jw_key(w, "oom");
  jw_arr(w);
  for (size_t d = 0; d < r->m.nd; d++) {
    const am_dev *dv = &r->m.d[d];
    int listed = 0;
    for (size_t i = 0; i < dv->n && listed < OOM_LIST; i++) {
      const mem_rec *e = &FA_VEC_AT(&c->st.mem, mem_rec, dv->ev[i]);
      if (!e->oom) continue;
      listed++;
      jw_obj(w);
      jw_ki64(w, "device", dv->id);
      jw_ki64(w, "ts_ns", ctx_abs(c, e->ts));
      jw_ki64(w, "bytes", e->bytes);
      jw_ki64(w, "allocated_bytes", e->total_allocated);
      jw_ki64(w, "reserved_bytes", e->total_reserved);
      jw_obj_end(w);
    }
  }
  jw_arr_end(w);
}

fsdpa_status allocator_json(fsdpa_ctx *c, jsonw *w) {
  ar r;
  fsdpa_status st = ar_open(c, &r);
  if (st) return st;
  am_point *p = fa_malloc(&c->alloc, TIMELINE_BUCKETS * sizeof(am_point));
  if (!p) {
    ar_close(c, &r);
    return fa_fail_status(&c->alloc);
  }
  qwin all = {INT64_MIN, INT64_MAX, FSDPA_ABSENT, FSDPA_ABSENT};
  fsdpa_memory_summary s;
  if ((st = ar_summary(c, &r, &all, &s))) goto out;
  jw_obj(w);
  jw_ku64(w, "malloc_calls", s.malloc_calls);
  jw_ku64(w, "free_calls", s.free_calls);
  jw_ku64(w, "steady_state_malloc_calls", s.steady_state_malloc_calls);
  jw_ki64(w, "warmup_steps", s.warmup_steps);
  jw_ki64(w, "peak_allocated_bytes", s.peak_allocated_bytes);
  jw_ki64(w, "peak_reserved_bytes", s.peak_reserved_bytes);
  jw_kratio(w, "fragmentation", s.fragmentation);
  jw_ku64(w, "steady_state_free_calls", s.steady_state_free_calls);
  jw_ku64(w, "steady_steps", s.steady_steps);
  jw_kstr(w, "warmup_source", how_name(r.how));
  jw_ki64(w, "malloc_ns", s.malloc_ns);
  jw_ki64(w, "free_ns", s.free_ns);
  jw_ki64(w, "malloc_bytes", s.malloc_bytes);
  jw_ki64(w, "gpu_idle_ns", s.gpu_idle_ns);
  jw_ku64(w, "oom_events", s.oom_events);
  jw_ki64(w, "primary_device", s.device);
  jw_ki64(w, "peak_allocated_delta_bytes", s.peak_allocated_delta_bytes);
  jw_ki64(w, "allocated_at_peak_reserved_bytes", s.allocated_at_peak_reserved_bytes);
  jw_kratio(w, "mean_unallocated_share", s.mean_unallocated_share);
  const char *pat = pattern_name(ar_pattern(c, &r));
  jw_key(w, "pattern");
  if (pat) jw_str(w, pat);
  else jw_null(w);
  write_classes(&r, w);
  write_by_api(c, &r, w);
  jw_key(w, "devices");
  jw_arr(w);
  for (size_t i = 0; i < r.m.nd; i++) {
    fsdpa_memory_device d;
    ar_device(c, &r, (int32_t)i, INT64_MIN, INT64_MAX, &d);
    jw_obj(w);
    jw_ki64(w, "device_type", d.device_type);
    jw_ki64(w, "device", d.device);
    jw_key(w, "relative");
    jw_bool(w, d.relative);
    jw_key(w, "primary");
    jw_bool(w, d.primary);
    jw_ku64(w, "events", d.events);
    jw_ku64(w, "oom_events", d.oom_events);
    jw_ki64(w, "peak_allocated_bytes", d.peak_allocated_bytes);
    jw_ki64(w, "peak_allocated_delta_bytes", d.peak_allocated_delta_bytes);
    jw_ki64(w, "peak_reserved_bytes", d.peak_reserved_bytes);
    jw_ki64(w, "allocated_at_peak_reserved_bytes", d.allocated_at_peak_reserved_bytes);
    jw_kratio(w, "fragmentation", d.fragmentation);
    jw_kratio(w, "mean_unallocated_share", d.mean_unallocated_share);
    jw_key(w, "timeline");
    write_timeline(c, &r, (int32_t)i, p, w);
    jw_obj_end(w);
  }
  jw_arr_end(w);
  write_oom(c, &r, w);
  jw_key(w, "steps");
  jw_arr(w);
  for (size_t i = 0; i < r.s.nsteps; i++) {
    fsdpa_memory_step x;
    if ((st = ar_step(c, &r, i, r.m.primary, &x))) goto out;
    jw_obj(w);
    jw_ki64(w, "step", x.number);
    jw_key(w, "warmup");
    jw_bool(w, x.warmup);
    jw_ku64(w, "malloc_calls", x.malloc_calls);
    jw_ku64(w, "free_calls", x.free_calls);
    jw_ki64(w, "malloc_ns", x.malloc_ns);
    jw_ki64(w, "free_ns", x.free_ns);
    jw_ki64(w, "gpu_idle_ns", x.gpu_idle_ns);
    jw_ki64(w, "start_allocated_bytes", x.start_allocated_bytes);
    jw_ki64(w, "end_allocated_bytes", x.end_allocated_bytes);
    jw_ki64(w, "min_allocated_bytes", x.min_allocated_bytes);
    jw_ki64(w, "peak_allocated_bytes", x.peak_allocated_bytes);
    jw_ki64(w, "peak_reserved_bytes", x.peak_reserved_bytes);
    jw_key(w, "returns_to_baseline");
    if (x.returns_to_baseline < 0) jw_null(w);
    else jw_bool(w, x.returns_to_baseline);
    jw_obj_end(w);
  }
  jw_arr_end(w);
  jw_obj_end(w);
out:
  fa_free(&c->alloc, p, TIMELINE_BUCKETS * sizeof(am_point));
  ar_close(c, &r);
  return st;
}
