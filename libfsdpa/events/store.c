#include "events/store.h"
#include "events/comm_class.h"
#include "events/classify.h"
#include "events/classify_workload.h"
#include <stdlib.h>
#include <string.h>
#include "util/jsonr.h"
#include "util/sort.h"

/* gen starts at 1 so that 0 can mean "views never built": views built on
 * an empty store must go stale when the first event arrives. */
void store_init(store *s) {
  memset(s, 0, sizeof *s);
  intern_init(&s->names);
  intern_init(&s->shapes);
  s->py_forward_name = s->py_backward_name = s->py_seq_par_name = s->py_decoder_lm_name = INTERN_NONE;
  s->gen = 1;
}

static void views_free(fa_alloc *a, store_views *v) {
  for (size_t i = 0; i < v->nstreams; i++) {
    fa_free(a, v->streams[i].ops, v->streams[i].nops * sizeof(uint32_t));
    fa_free(a, v->streams[i].busy, v->streams[i].nops * sizeof(iv));
  }
  fa_free(a, v->streams, v->nstreams * sizeof(gpu_stream_view));
  fa_free(a, v->all_busy, v->nall_alloc * sizeof(iv));
  fa_free(a, v->corr_keys, v->corr_slots * sizeof(int64_t));
  fa_free(a, v->corr_vals, v->corr_slots * sizeof(uint32_t));
  fa_free(a, v->corr_dense, v->corr_range * sizeof(uint32_t));
  fa_free(a, v->comm, v->ncomm_alloc * sizeof(uint32_t));
  memset(v, 0, sizeof *v);
}

void store_free(fa_alloc *a, store *s) {
  views_free(a, &s->views);
  intern_free(a, &s->names);
  fa_vec_free(a, &s->name_info, sizeof(uint32_t));
  fa_vec_free(a, &s->name_fam, sizeof(uint8_t));
  fa_vec_free(a, &s->gpu, sizeof(ev_rec));
  fa_vec_free(a, &s->gsync, sizeof(ev_rec));
  fa_vec_free(a, &s->gannot, sizeof(ev_rec));
  fa_vec_free(a, &s->rt, sizeof(ev_rec));
  fa_vec_free(a, &s->cpu, sizeof(ev_rec));
  fa_vec_free(a, &s->fsdp_cpu, sizeof(uint32_t));
  fa_vec_free(a, &s->fsdp_gannot, sizeof(uint32_t));
  fa_vec_free(a, &s->mem, sizeof(mem_rec));
  fa_vec_free(a, &s->colls, sizeof(coll_info));
  fa_vec_free(a, &s->syncs, sizeof(sync_info));
  fa_vec_free(a, &s->side, sizeof(int64_t));
  fa_vec_free(a, &s->steps, sizeof(step_rec));
  fa_vec_free(a, &s->tracks, sizeof(track));
  fa_vec_free(a, &s->xdev, sizeof(xdev_rec));
  intern_free(a, &s->shapes);
  fa_vec_free(a, &s->shape_refs, sizeof(shape_ref));
  fa_vec_free(a, &s->devices, sizeof(fsdpa_device_info));
  fa_free(a, s->scratch, s->scratch_cap);
  fa_free(a, s->track_slots, s->track_nslots * sizeof(uint32_t));
  fa_free(a, s->comm_pats, s->comm_pats_bytes);
  memset(s, 0, sizeof *s);
}

/* ---- tracks ---- */

static uint64_t track_hash(int64_t pid, int64_t tid, int gpu) {
  uint64_t h = (uint64_t)pid * 0x9E3779B97F4A7C15ull;
  h ^= (uint64_t)tid + 0x632BE59BD9B4E019ull + (h << 6) + (h >> 2);
  h ^= (uint64_t)gpu * 0x94D049BB133111EBull;
  h ^= h >> 31;
  return h;
}

static int track_rehash(fa_alloc *a, store *s) {
  size_t n = s->track_nslots ? s->track_nslots * 2 : 64;
  uint32_t *slots = fa_calloc(a, n * sizeof(uint32_t));
  if (!slots) return -1;
  for (size_t id = 0; id < s->tracks.len; id++) {
    const track *t = store_track(s, (uint32_t)id);
    size_t i = track_hash(t->pid, t->tid, (t->flags & TRACK_GPU) != 0) & (n - 1);
    while (slots[i]) i = (i + 1) & (n - 1);
    slots[i] = (uint32_t)id + 1;
  }
  fa_free(a, s->track_slots, s->track_nslots * sizeof(uint32_t));
  s->track_slots = slots;
  s->track_nslots = n;
  return 0;
}

/* Returns track id or UINT32_MAX on allocation failure. */
static uint32_t track_get(fa_alloc *a, store *s, int64_t pid, int64_t tid, int gpu) {
  if (s->track_nslots) {
    size_t mask = s->track_nslots - 1, i = track_hash(pid, tid, gpu) & mask;
    for (;;) {
      uint32_t v = s->track_slots[i];
      if (!v) break;
      const track *t = store_track(s, v - 1);
      if (t->pid == pid && t->tid == tid && ((t->flags & TRACK_GPU) != 0) == gpu) return v - 1;
      i = (i + 1) & mask;
    }
  }
  if ((s->tracks.len + 1) * 2 > s->track_nslots && track_rehash(a, s)) return UINT32_MAX;
  track t = {pid, tid, gpu ? TRACK_GPU : 0u, INTERN_NONE};
  if (!fa_vec_push(a, &s->tracks, sizeof t, &t)) return UINT32_MAX;
  uint32_t id = (uint32_t)s->tracks.len - 1;
  size_t mask = s->track_nslots - 1, i = track_hash(pid, tid, gpu) & mask;
  while (s->track_slots[i]) i = (i + 1) & mask;
  s->track_slots[i] = id + 1;
  return id;
}

/* A memory value the analyses can sum and subtract; beyond ±1 PiB it is not
 * a real one (see STORE_MAX_BYTES). */
static int64_t mem_value(int64_t v) {
  return v < -STORE_MAX_BYTES || v > STORE_MAX_BYTES ? FSDPA_ABSENT : v;
}

static uint32_t name_get(fa_alloc *a, store *s, const char *p, size_t n) {
  uint32_t id = intern_put(a, &s->names, p, n);
  if (id == INTERN_NONE) return id;
  if (id == s->name_info.len) {
    uint32_t info = classify_name(intern_str(&s->names, id), intern_len(&s->names, id));
    if (!fa_vec_push(a, &s->name_info, sizeof info, &info)) return INTERN_NONE;
    uint8_t fam = (uint8_t)classify_comm_family(intern_str(&s->names, id), intern_len(&s->names, id));
    if (!fa_vec_push(a, &s->name_fam, sizeof fam, &fam)) {
      s->name_info.len--;  /* both tables or neither: the next intern retries */
      return INTERN_NONE;
    }
  }
  return id;
}

static uint32_t opt_name(fa_alloc *a, store *s, const char *p, size_t n, int *fail) {
  if (!p) return INTERN_NONE;
  uint32_t id = name_get(a, s, p, n);
  if (id == INTERN_NONE) *fail = 1;
  return id;
}

#define FAIL() return fa_fail_status(a)

/* Append the text of one JSON array to out, blanks outside strings dropped;
 * 0 (nothing appended) unless [p, p + n) is exactly one valid array. */
static size_t compact_array(const char *p, size_t n, char *out) {
  jr r;
  const char *b, *e;
  jr_init(&r, p, n);
  if (jr_peek(&r) != '[' || !jr_skip(&r, &b, &e) || !jr_end(&r)) return 0;
  size_t k = 0;
  int in_str = 0, esc = 0;
  for (const char *q = b; q < e; q++) {
    char c = *q;
    if (in_str) {
      if (esc) esc = 0;
      else if (c == '\\') esc = 1;
      else if (c == '"') in_str = 0;
    } else if (c == ' ' || c == '\n' || c == '\r' || c == '\t') {
      continue;
    } else if (c == '"') {
      in_str = 1;
    }
    out[k++] = c;
  }
  return k;
}

/* The shape id of an event's record_shapes arguments, INTERN_NONE when it
 * has none (or none that is a valid array); *fail on allocation failure. */
static uint32_t shape_get(fa_alloc *a, store *s, const fsdpa_event *ev, int *fail) {
  const char *txt[3] = {ev->input_dims, ev->input_types, ev->concrete_inputs};
  size_t len[3] = {ev->input_dims_len, ev->input_types_len, ev->concrete_inputs_len};
  size_t need = 3;
  for (int i = 0; i < 3; i++)
    if (txt[i]) need += len[i];
  if (need == 3) return INTERN_NONE;
  if (need > s->scratch_cap) {
    size_t cap = need < 256 ? 256 : need;
    char *p = fa_realloc(a, s->scratch, s->scratch_cap, cap);
    if (!p) {
      *fail = 1;
      return INTERN_NONE;
    }
    s->scratch = p;
    s->scratch_cap = cap;
  }
  size_t k = 0, kept = 0;
  for (int i = 0; i < 3; i++) {
    if (i) s->scratch[k++] = SHAPE_SEP;
    size_t m = txt[i] ? compact_array(txt[i], len[i], s->scratch + k) : 0;
    k += m;
    kept += m;
  }
  if (!kept) return INTERN_NONE;
  uint32_t id = intern_put(a, &s->shapes, s->scratch, k);
  if (id == INTERN_NONE) *fail = 1;
  return id;
}

fsdpa_status store_add(fa_alloc *a, store *s, const fsdpa_event *ev) {
  fsdpa_stats *st = &s->stats;
  st->events++;
  const char *name = ev->name ? ev->name : "";
  size_t nlen = ev->name ? ev->name_len : 0;
  int kind = classify_cat(ev->cat, ev->cat_len, ev->ph, name, nlen);
  switch (kind) {
    case RK_KERNEL: st->kernels++; break;
    case RK_MEMCPY: st->gpu_memcpy++; break;
    case RK_MEMSET: st->gpu_memset++; break;
    case RK_GPU_SYNC: st->cuda_sync++; break;
    case RK_GPU_ANNOT: st->gpu_annotations++; break;
    case RK_RUNTIME: st->runtime++; break;
    case RK_CPU_OP: st->cpu_ops++; break;
    case RK_ANNOT: st->annotations++; break;
    case RK_MEM: st->memory++; break;
    default: st->other++; break;
  }

  if (kind == RK_META) {
    static const char TN[] = "thread_name";
    if (ev->label && nlen == sizeof TN - 1 && memcmp(name, TN, nlen) == 0 &&
        ev->pid != FSDPA_ABSENT && ev->tid != FSDPA_ABSENT) {
      uint32_t t = track_get(a, s, ev->pid, ev->tid, 0);
      if (t == UINT32_MAX) FAIL();
      uint32_t lab = name_get(a, s, ev->label, ev->label_len);
      if (lab == INTERN_NONE) FAIL();
      track *tr = &FA_VEC_AT(&s->tracks, track, t);
      tr->label = lab;
      if (ev->label_len >= 11 && memcmp(ev->label, "pt_autograd", 11) == 0) tr->flags |= TRACK_AUTOGRAD;
    }
    return FSDPA_OK;
  }
  /* Times beyond ±2^61 ns (73 years) are not real trace times; dropping them
   * keeps every sum and difference of times inside int64 downstream. */
  int bad_time = ev->ts_ns != FSDPA_ABSENT &&
                 (ev->ts_ns < -STORE_MAX_TIME || ev->ts_ns > STORE_MAX_TIME ||
                  (ev->dur_ns != FSDPA_ABSENT && ev->dur_ns > STORE_MAX_TIME));
  if (kind == RK_OTHER || ev->ts_ns == FSDPA_ABSENT || bad_time) {
    if (kind != RK_OTHER && kind != RK_XDEV) {  /* a retained kind without a time: count it as dropped */
      st->other++;
    } else if (ev->cat && ev->ph == 'X') {
      int py = classify_pyframe(ev->cat, ev->cat_len, name, nlen);
      static const int bits[4] = {PY_FORWARD, PY_BACKWARD, PY_SEQ_PAR, PY_DECODER_LM};
      uint64_t *cnt[4] = {&s->py_forward, &s->py_backward, &s->py_seq_par, &s->py_decoder_lm};
      uint32_t *first[4] = {&s->py_forward_name, &s->py_backward_name, &s->py_seq_par_name, &s->py_decoder_lm_name};
      for (int b = 0; b < 4; b++) {
        if (!(py & bits[b])) continue;
        if (*first[b] == INTERN_NONE && (*first[b] = name_get(a, s, name, nlen)) == INTERN_NONE) FAIL();
        (*cnt[b])++;
      }
    }
    return FSDPA_OK;
  }

  if (kind == RK_XDEV) {
    /* not analyzed, but kept so the report can say the device was there */
    xdev_rec x;
    memset(&x, 0, sizeof x);
    int host = 0;
    x.type = (uint8_t)classify_xdev(ev->cat, ev->cat_len, &host);
    x.host = (uint8_t)host;
    x.ts = ev->ts_ns;
    int64_t dur = ev->dur_ns == FSDPA_ABSENT || ev->dur_ns < 0 ? 0 : ev->dur_ns;
    x.end = x.ts + dur;
    x.pid = ev->pid != FSDPA_ABSENT ? ev->pid : ev->device != FSDPA_ABSENT ? ev->device : -1;
    x.tid = ev->tid != FSDPA_ABSENT ? ev->tid : ev->stream != FSDPA_ABSENT ? ev->stream : -1;
    if (!fa_vec_push(a, &s->xdev, sizeof x, &x)) FAIL();
    s->gen++;
    return FSDPA_OK;
  }

  if (kind == RK_MEM) {
    mem_rec m;
    memset(&m, 0, sizeof m);
    m.ts = ev->ts_ns;
    m.bytes = mem_value(ev->bytes);
    m.total_allocated = mem_value(ev->total_allocated);
    m.total_reserved = mem_value(ev->total_reserved);
    m.device_type = ev->device_type == FSDPA_ABSENT ? -1 : (int32_t)ev->device_type;
    m.device_id = ev->device_id == FSDPA_ABSENT ? -1 : (int32_t)ev->device_id;
    m.oom = nlen == 13;  /* "[OutOfMemory]" vs "[memory]" */
    uint32_t t = track_get(a, s, ev->pid == FSDPA_ABSENT ? -1 : ev->pid,
                           ev->tid == FSDPA_ABSENT ? -1 : ev->tid, 0);
    if (t == UINT32_MAX) FAIL();
    m.track = t;
    if (!fa_vec_push(a, &s->mem, sizeof m, &m)) FAIL();
    st->retained++;
    s->gen++;
    return FSDPA_OK;
  }

  int gpu = kind == RK_KERNEL || kind == RK_MEMCPY || kind == RK_MEMSET || kind == RK_GPU_SYNC ||
            kind == RK_GPU_ANNOT;
  int64_t pid = ev->pid, tid = ev->tid;
  if (gpu) {
    if (pid == FSDPA_ABSENT) pid = ev->device;
    if (tid == FSDPA_ABSENT) tid = ev->stream;
  }
  if (pid == FSDPA_ABSENT) pid = -1;
  if (tid == FSDPA_ABSENT) tid = -1;
  uint32_t trk = track_get(a, s, pid, tid, gpu);
  if (trk == UINT32_MAX) FAIL();

  ev_rec r;
  memset(&r, 0, sizeof r);
  r.ts = ev->ts_ns;
  int64_t dur = ev->dur_ns == FSDPA_ABSENT || ev->dur_ns < 0 ? 0 : ev->dur_ns;
  r.end = r.ts + dur;  /* both within ±2^61: cannot overflow */
  r.corr = ev->correlation;
  r.ext = ev->external_id;
  r.track = trk;
  r.kind = (uint8_t)kind;
  r.aux = AUX_NONE;
  r.name = name_get(a, s, name, nlen);
  if (r.name == INTERN_NONE) FAIL();
  uint32_t info = store_name_info(s, r.name);

  int has_coll = ev->collective || ev->in_msg_nelems != FSDPA_ABSENT ||
                 ev->out_msg_nelems != FSDPA_ABSENT || ev->pg_name || ev->seq != FSDPA_ABSENT;
  if ((kind == RK_KERNEL && ((info & NC_COMM) || has_coll)) ||
      (kind == RK_CPU_OP && (info & NC_PARAM_COMMS))) {
    coll_info c;
    int fail = 0;
    c.coll_name = opt_name(a, s, ev->collective, ev->collective_len, &fail);
    c.dtype = opt_name(a, s, ev->dtype, ev->dtype_len, &fail);
    c.pg_name = opt_name(a, s, ev->pg_name, ev->pg_name_len, &fail);
    if (fail) FAIL();
    c.group_size = ev->group_size == FSDPA_ABSENT || ev->group_size > INT32_MAX ? -1
                                                                               : (int32_t)ev->group_size;
    c.in_nelems = ev->in_msg_nelems;
    c.out_nelems = ev->out_msg_nelems;
    c.seq = ev->seq;
    if (!fa_vec_push(a, &s->colls, sizeof c, &c)) FAIL();
    r.aux = (uint32_t)s->colls.len - 1;
  } else if (kind == RK_GPU_SYNC) {
    sync_info y;
    int fail = 0;
    y.sync_kind = opt_name(a, s, ev->sync_kind, ev->sync_kind_len, &fail);
    if (fail) FAIL();
    y.pad = 0;
    y.wait_on_stream = ev->wait_on_stream;
    y.wait_on_event_corr = ev->wait_on_event_corr;
    if (!fa_vec_push(a, &s->syncs, sizeof y, &y)) FAIL();
    r.aux = (uint32_t)s->syncs.len - 1;
  } else if (kind == RK_RUNTIME && mem_value(ev->bytes) != FSDPA_ABSENT) {
    if (!fa_vec_push(a, &s->side, sizeof(int64_t), &ev->bytes)) FAIL();
    r.aux = (uint32_t)s->side.len - 1;
  }
  shape_ref sref = {UINT32_MAX, INTERN_NONE};
  if (kind == RK_CPU_OP && (ev->input_dims || ev->input_types || ev->concrete_inputs)) {
    int fail = 0;
    sref.shape = shape_get(a, s, ev, &fail);
    if (fail) FAIL();
    /* room first, so a failure leaves no record without its shape */
    if (sref.shape != INTERN_NONE && fa_vec_reserve(a, &s->shape_refs, sizeof sref, 1)) FAIL();
  }

  fa_vec *dst;
  switch (kind) {
    case RK_KERNEL: case RK_MEMCPY: case RK_MEMSET: dst = &s->gpu; break;
    case RK_GPU_SYNC: dst = &s->gsync; break;
    case RK_GPU_ANNOT: dst = &s->gannot; break;
    case RK_RUNTIME: dst = &s->rt; break;
    default: dst = &s->cpu; break;
  }
  /* FSDP annotations are indexed as they arrive: the unit model reads only
   * them, not every CPU op.  Room first, so a failure leaves no record
   * without its index. */
  fa_vec *fidx = dst == &s->cpu ? &s->fsdp_cpu : dst == &s->gannot ? &s->fsdp_gannot : NULL;
  if (fidx && !(info & (NC_FSDP1 | NC_FSDP2))) fidx = NULL;
  if (fidx && fa_vec_reserve(a, fidx, sizeof(uint32_t), 1)) FAIL();
  if (!fa_vec_push(a, dst, sizeof r, &r)) FAIL();
  if (fidx) {
    uint32_t ix = (uint32_t)(dst->len - 1);
    fa_vec_push(a, fidx, sizeof ix, &ix); /* reserved above */
  }
  if (sref.shape != INTERN_NONE) {
    sref.cpu = (uint32_t)(dst->len - 1);
    fa_vec_push(a, &s->shape_refs, sizeof sref, &sref); /* reserved above */
  }

  if ((kind == RK_ANNOT || kind == RK_CPU_OP) && (info & NC_STEP)) {
    step_rec sr = {step_number(name, nlen), r.ts, r.end, trk};
    if (!fa_vec_push(a, &s->steps, sizeof sr, &sr)) FAIL();
    /* keep (ts, number) order, ties in arrival order: steps come almost in
     * order, so this is O(1) per step, and the step getters need no sort */
    step_rec *sv = s->steps.data;
    size_t k = s->steps.len - 1;
    while (k && (sv[k - 1].ts > sr.ts || (sv[k - 1].ts == sr.ts && sv[k - 1].number > sr.number))) {
      sv[k] = sv[k - 1];
      k--;
    }
    sv[k] = sr;
    FA_VEC_AT(&s->tracks, track, trk).flags |= TRACK_MAIN;
  }
  st->retained++;
  s->gen++;
  return FSDPA_OK;
}

/* ---- devices and shapes ---- */

fsdpa_status store_set_device(fa_alloc *a, store *s, const fsdpa_device_info *d) {
  fsdpa_device_info *v = s->devices.data;
  size_t n = s->devices.len, i = 0;
  while (i < n && v[i].device < d->device) i++;
  if (i < n && v[i].device == d->device) {
    v[i] = *d;
  } else {
    if (!fa_vec_push(a, &s->devices, sizeof *d, d)) return fa_fail_status(a);
    v = s->devices.data;
    memmove(v + i + 1, v + i, (n - i) * sizeof *v);
    v[i] = *d;
  }
  v[i].size = sizeof *v;
  s->gen++;
  return FSDPA_OK;
}

const fsdpa_device_info *store_device(const store *s, int64_t device) {
  const fsdpa_device_info *v = s->devices.data;
  for (size_t i = 0; i < s->devices.len; i++)
    if (v[i].device == device) return &v[i];
  return NULL;
}

uint32_t store_cpu_shape(const store *s, uint32_t cpu) {
  const shape_ref *v = s->shape_refs.data;
  size_t lo = 0, hi = s->shape_refs.len;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (v[mid].cpu < cpu) lo = mid + 1;
    else hi = mid;
  }
  return lo < s->shape_refs.len && v[lo].cpu == cpu ? v[lo].shape : INTERN_NONE;
}

void store_shape_parts(const store *s, uint32_t shape, shape_parts *p) {
  memset(p, 0, sizeof *p);
  if (shape == INTERN_NONE) return;
  const char *t = intern_str(&s->shapes, shape), *end = t + intern_len(&s->shapes, shape);
  const char *a = memchr(t, SHAPE_SEP, (size_t)(end - t));
  const char *b = a ? memchr(a + 1, SHAPE_SEP, (size_t)(end - a - 1)) : NULL;
  if (!a || !b) return;
  p->dims = t;
  p->dims_n = (size_t)(a - t);
  p->types = a + 1;
  p->types_n = (size_t)(b - a - 1);
  p->concrete = b + 1;
  p->concrete_n = (size_t)(end - b - 1);
}

/* ---- views ---- */

typedef struct sort_key {
  int64_t ts, end;
  uint32_t idx;
} sort_key;

static int cmp_key(const void *pa, const void *pb) {
  const sort_key *a = pa, *b = pb;
  if (a->ts != b->ts) return a->ts < b->ts ? -1 : 1;
  if (a->end != b->end) return a->end < b->end ? -1 : 1;
  return a->idx < b->idx ? -1 : a->idx > b->idx;
}

#define KEY_LESS(a, b) (cmp_key((a), (b)) < 0)
FA_SORT_DEFINE(key_sort, sort_key, KEY_LESS)

static int cmp_stream(const void *pa, const void *pb) {
  const gpu_stream_view *a = pa, *b = pb;
  if (a->device != b->device) return a->device < b->device ? -1 : 1;
  if (a->stream != b->stream) return a->stream < b->stream ? -1 : 1;
  return 0;
}

static uint64_t corr_hash(int64_t k) {
  uint64_t h = (uint64_t)k * 0x9E3779B97F4A7C15ull;
  return h ^ (h >> 29);
}

uint32_t store_runtime_for_corr(const store_views *v, int64_t corr) {
  if (v->corr_dense) {
    uint64_t d = (uint64_t)corr - (uint64_t)v->corr_base;  /* FSDPA_ABSENT < base: wraps out of range */
    return d < v->corr_range ? v->corr_dense[d] : UINT32_MAX;
  }
  if (!v->corr_slots || corr == FSDPA_ABSENT) return UINT32_MAX;
  size_t mask = v->corr_slots - 1, i = corr_hash(corr) & mask;
  for (;;) {
    if (v->corr_keys[i] == FSDPA_ABSENT) return UINT32_MAX;
    if (v->corr_keys[i] == corr) return v->corr_vals[i];
    i = (i + 1) & mask;
  }
}

/* Kineto numbers correlation ids consecutively per process, so they are
 * nearly dense: a direct table is one cache-friendly load per lookup (the
 * analyses look up every kernel's launch, several times) and 4 bytes per id
 * instead of 24-48 per runtime call in the hash table. */
static int build_corr_dense(fa_alloc *a, store *s, store_views *v) {
  int64_t lo = INT64_MAX, hi = INT64_MIN;
  size_t cnt = 0;
  for (size_t r = 0; r < s->rt.len; r++) {
    int64_t c = STORE_REC(&s->rt, r)->corr;
    if (c == FSDPA_ABSENT) continue;
    if (c < lo) lo = c;
    if (c > hi) hi = c;
    cnt++;
  }
  if (!cnt) return 1;
  uint64_t span = (uint64_t)hi - (uint64_t)lo;  /* exact even across the int64 range */
  if (span >= 4 * (uint64_t)cnt + 1024 || span >= UINT32_MAX) return 1;  /* sparse: hash */
  size_t range = (size_t)span + 1;
  v->corr_dense = fa_malloc(a, range * sizeof(uint32_t));
  if (!v->corr_dense) return -1;
  memset(v->corr_dense, 0xFF, range * sizeof(uint32_t));
  v->corr_base = lo;
  v->corr_range = range;
  for (size_t r = 0; r < s->rt.len; r++) {
    int64_t c = STORE_REC(&s->rt, r)->corr;
    if (c == FSDPA_ABSENT) continue;
    uint32_t *slot = &v->corr_dense[(uint64_t)c - (uint64_t)lo];
    if (*slot == UINT32_MAX) *slot = (uint32_t)r;  /* first runtime call with this id wins */
  }
  v->bytes += range * sizeof(uint32_t);
  return 0;
}

static int build_corr(fa_alloc *a, store *s, store_views *v) {
  int d = build_corr_dense(a, s, v);
  if (d <= 0) return d;
  size_t n = 16;
  while (n < s->rt.len * 2) n *= 2;
  v->corr_keys = fa_malloc(a, n * sizeof(int64_t));
  v->corr_vals = fa_malloc(a, n * sizeof(uint32_t));
  if (!v->corr_keys || !v->corr_vals) {
    fa_free(a, v->corr_keys, n * sizeof(int64_t));
    fa_free(a, v->corr_vals, n * sizeof(uint32_t));
    v->corr_keys = NULL;
    v->corr_vals = NULL;
    return -1;
  }
  v->corr_slots = n;
  for (size_t i = 0; i < n; i++) v->corr_keys[i] = FSDPA_ABSENT;
  for (size_t r = 0; r < s->rt.len; r++) {
    int64_t c = STORE_REC(&s->rt, r)->corr;
    if (c == FSDPA_ABSENT) continue;
    size_t i = corr_hash(c) & (n - 1);
    while (v->corr_keys[i] != FSDPA_ABSENT && v->corr_keys[i] != c) i = (i + 1) & (n - 1);
    if (v->corr_keys[i] == FSDPA_ABSENT) {  /* first runtime call with this id wins */
      v->corr_keys[i] = c;
      v->corr_vals[i] = (uint32_t)r;
    }
  }
  v->bytes += n * (sizeof(int64_t) + sizeof(uint32_t));
  return 0;
}

const store_views *store_get_views(fa_alloc *a, store *s) {
  store_views *v = &s->views;
  if (v->gen == s->gen && v->gen != 0) return v;
  views_free(a, v);
  size_t ntr = s->tracks.len;
  uint32_t *count = fa_calloc(a, (ntr + 1) * sizeof(uint32_t));
  uint32_t *slot = fa_malloc(a, (ntr + 1) * sizeof(uint32_t));
  sort_key *keys = NULL;
  size_t maxn = 0;
  if (!count || !slot) goto fail;
  for (size_t i = 0; i < s->gpu.len; i++) count[STORE_REC(&s->gpu, i)->track]++;
  size_t ns = 0;
  for (size_t t = 0; t < ntr; t++) {
    slot[t] = UINT32_MAX;
    if (count[t]) {
      slot[t] = (uint32_t)ns++;
      if (count[t] > maxn) maxn = count[t];
    }
  }
  if (ns) {
    v->streams = fa_calloc(a, ns * sizeof(gpu_stream_view));
    if (!v->streams) goto fail;
    v->nstreams = ns;
  }
  for (size_t t = 0; t < ntr; t++) {
    if (slot[t] == UINT32_MAX) continue;
    gpu_stream_view *sv = &v->streams[slot[t]];
    const track *tr = store_track(s, (uint32_t)t);
    sv->track = (uint32_t)t;
    sv->device = tr->pid;
    sv->stream = tr->tid;
    sv->ops = fa_malloc(a, count[t] * sizeof(uint32_t));
    sv->busy = fa_malloc(a, count[t] * sizeof(iv));
    if (!sv->ops || !sv->busy) {
      fa_free(a, sv->ops, count[t] * sizeof(uint32_t));
      fa_free(a, sv->busy, count[t] * sizeof(iv));
      sv->ops = NULL;
      sv->busy = NULL;
      goto fail;
    }
    sv->nops = count[t];
    count[t] = 0;  /* from here on: fill cursor */
  }
  for (size_t i = 0; i < s->gpu.len; i++) {
    const ev_rec *r = STORE_REC(&s->gpu, i);
    gpu_stream_view *sv = &v->streams[slot[r->track]];
    sv->ops[count[r->track]++] = (uint32_t)i;
    if (r->kind == RK_KERNEL) {
      sv->kernels++;
    } else {
      sv->memops++;
    }
  }
  keys = maxn ? fa_malloc(a, maxn * sizeof(sort_key)) : NULL;
  if (maxn && !keys) goto fail;
  size_t total_busy = 0;
  for (size_t k = 0; k < ns; k++) {
    gpu_stream_view *sv = &v->streams[k];
    int sorted = 1;
    for (size_t j = 0; j < sv->nops; j++) {
      const ev_rec *r = STORE_REC(&s->gpu, sv->ops[j]);
      keys[j] = (sort_key){r->ts, r->end, sv->ops[j]};
      if (j && cmp_key(&keys[j - 1], &keys[j]) > 0) sorted = 0;
    }
    if (!sorted) key_sort(keys, sv->nops);
    for (size_t j = 0; j < sv->nops; j++) {
      sv->ops[j] = keys[j].idx;
      sv->busy[j] = (iv){keys[j].ts, keys[j].end};
    }
    sv->nbusy = iv_union_sorted(sv->busy, sv->nops);
    total_busy += sv->nbusy;
    v->bytes += sv->nops * (sizeof(uint32_t) + sizeof(iv));
  }
  fa_free(a, keys, maxn * sizeof(sort_key));
  keys = NULL;
  if (ns) qsort(v->streams, ns, sizeof *v->streams, cmp_stream);
  if (total_busy) {
    v->all_busy = fa_malloc(a, total_busy * sizeof(iv));
    if (!v->all_busy) goto fail;
    size_t m = 0;
    for (size_t k = 0; k < ns; k++) {
      memcpy(v->all_busy + m, v->streams[k].busy, v->streams[k].nbusy * sizeof(iv));
      m += v->streams[k].nbusy;
    }
    v->nall_alloc = total_busy;
    v->nall = iv_union(v->all_busy, m);
    /* keep the allocation size recorded as total_busy for the free */
    v->bytes += total_busy * sizeof(iv);
  }
  if (build_corr(a, s, v)) goto fail;
  /* the one classification of communication kernels: every consumer (roles
   * here, overlap, FSDP units, HTML, comm_families) reads v->comm */
  if (comm_classify(a, s, v)) goto fail;
  for (size_t k = 0; k < v->nstreams; k++) {
    gpu_stream_view *sv = &v->streams[k];
    for (size_t j = 0; j < sv->nops; j++)
      if (v->comm[sv->ops[j]]) sv->comm_kernels++;
    if (sv->comm_kernels && sv->comm_kernels < sv->kernels) sv->role = FSDPA_ROLE_MIXED;
    else if (sv->comm_kernels) sv->role = FSDPA_ROLE_COMMUNICATION;
    else if (sv->kernels) sv->role = FSDPA_ROLE_COMPUTE;
    else sv->role = FSDPA_ROLE_MEMORY;
  }
  fa_free(a, count, (ntr + 1) * sizeof(uint32_t));
  fa_free(a, slot, (ntr + 1) * sizeof(uint32_t));
  v->gen = s->gen;
  return v;
fail:
  fa_free(a, keys, maxn * sizeof(sort_key));
  fa_free(a, count, (ntr + 1) * sizeof(uint32_t));
  fa_free(a, slot, (ntr + 1) * sizeof(uint32_t));
  views_free(a, v);
  return NULL;
}

#define XDEV_BY_STREAM(x, y)                                                                            \
  ((x)->type != (y)->type ? (x)->type < (y)->type                                                     \
   : (x)->pid != (y)->pid ? (x)->pid < (y)->pid                                                       \
   : (x)->tid != (y)->tid ? (x)->tid < (y)->tid                                                       \
   : (x)->ts != (y)->ts   ? (x)->ts < (y)->ts                                                         \
                          : (x)->end < (y)->end)
FA_SORT_DEFINE(xdev_sort_stream, xdev_rec, XDEV_BY_STREAM)

int store_xdev_summary(fa_alloc *a, const store *s, xdev_sum out[XDEV__COUNT]) {
  for (int t = 0; t < XDEV__COUNT; t++) out[t] = (xdev_sum){0, 0, 0, FSDPA_ABSENT};
  size_t n = s->xdev.len, nd = 0;
  for (size_t i = 0; i < n; i++) {
    const xdev_rec *x = &FA_VEC_AT(&s->xdev, xdev_rec, i);
    if (x->host) out[x->type].runtime_events++;
    else out[x->type].events++, nd++;
  }
  if (nd) {
    xdev_rec *v = fa_malloc(a, nd * sizeof *v);
    if (!v) return -1;
    iv *u = fa_malloc(a, nd * sizeof *u);
    if (!u) {
      fa_free(a, v, nd * sizeof *v);
      return -1;
    }
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
      const xdev_rec *x = &FA_VEC_AT(&s->xdev, xdev_rec, i);
      if (!x->host) v[m++] = *x;
    }
    xdev_sort_stream(v, nd);
    for (size_t i = 0; i < nd;) {
      int t = v[i].type;
      size_t j = i, k = 0;
      for (; j < nd && v[j].type == t; j++) {
        if (j == i || v[j].pid != v[j - 1].pid || v[j].tid != v[j - 1].tid) out[t].streams++;
        u[k++] = (iv){v[j].ts, v[j].end};
      }
      k = iv_union(u, k);
      out[t].busy_ns = iv_total(u, k);
      i = j;
    }
    fa_free(a, v, nd * sizeof *v);
    fa_free(a, u, nd * sizeof *u);
  }
  int present = 0;
  for (int t = 0; t < XDEV__COUNT; t++) present += out[t].events + out[t].runtime_events > 0;
  return present;
}

int store_set_comm_patterns(fa_alloc *a, store *s, const char *list) {
  size_t n = strlen(list), np = 0, k = 0;
  char *p = NULL;
  if (n) {
    if (!(p = fa_malloc(a, n + 1))) return -1;
    for (size_t i = 0; i <= n; i++) {
      char ch = i < n ? list[i] : ',';
      if (ch != ',') { p[k++] = ch; continue; }
      if (k && p[k - 1] != '\0') { p[k++] = '\0'; np++; }  /* empty items are dropped */
    }
  }
  fa_free(a, s->comm_pats, s->comm_pats_bytes);
  s->comm_pats = p;
  s->comm_pats_bytes = n ? n + 1 : 0;
  s->ncomm_pats = np;
  s->views.gen = 0;  /* the classification changed: rebuild on next use */
  return 0;
}
