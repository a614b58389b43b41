/* The structured event feed: fsdpa_event_add() with fuzzer-chosen fields,
 * on one or two contexts (ranks), interleaved with trace info, parameter
 * changes and queries between feeds; then the report over all contexts,
 * which must equal the report rebuilt from their summaries, and the
 * annotation events.
 *
 * Encoding (make_corpus.py writes it from real traces):
 *   op byte:
 *     0x00-0xEF  event: op & 0x0F indexes PH below; a 4-byte little-endian
 *                mask then tells which of the FIELDS follow, in order
 *     0xF0       switch to the other context (at most 2)
 *     0xF1       set trace info: rank, world size, base time (3 ints)
 *     0xF2       set a parameter: byte = index into fsdpa_param_list(), int value
 *     0xF3       queries over a window: t0, t1, step, device, stream (5 ints)
 *     0xF4-0xFF  FSDP / backward queries and per-element getters
 *   int:  tag byte t; t%8: 0 u8, 1 u16, 2 u32, 3 i64 (all little endian),
 *         4 special value SPECIAL[t/8%8], 5 previous value of this field + u16,
 *         6 -u16, 7 previous value of this field
 *   str:  tag byte t: < 0x80 FZ_STRINGS[t % n]; 0x80-0xFD the next t-0x80
 *         bytes; 0xFE a u16 length then the bytes; 0xFF "ProfilerStep#<u8>"
 * Bytes run out as zeros.  No value is bounded here: the library must cope
 * with any (times beyond ±2^61 ns and memory values beyond ±2^50 are dropped
 * by the store). */
#include "fuzz_common.h"
#include "fuzz_events_tables.h"

static const char PH[16] = {'X', 'i', 'M', 's', 'f', 'B', 'E', 'C', 'b', 'e', 'n', 'R', 'P', 't', 0, 'I'};
static const int64_t SPECIAL[8] = {INT64_MIN, INT64_MAX, INT64_MIN + 1, -1,
                                   0, INT64_MAX / 2, -((int64_t)1 << 40), (int64_t)1 << 62};
enum { F_CAT, F_NAME, F_PID, F_TID, F_TS, F_DUR, F_CORR, F_EXT, F_STREAM, F_DEVICE, F_BYTES,
       F_TALLOC, F_TRES, F_DTYPE_ID, F_DEVID, F_IN, F_OUT, F_GROUP, F_SEQ, F_WSTREAM, F_WCORR,
       F_COLL, F_DTYPE, F_PG, F_SYNC, F_LABEL, F_COUNT };

typedef struct rd {
  const uint8_t *p;
  size_t n;
  int64_t prev[F_COUNT + 8];
  char step[32];
} rd;


static uint8_t u8(rd *r) {
  if (!r->n) return 0;
  r->n--;
  return *r->p++;
}
static uint64_t ule(rd *r, int bytes) {
  uint64_t v = 0;
  for (int i = 0; i < bytes; i++) v |= (uint64_t)u8(r) << (8 * i);
  return v;
}

static int64_t rd_int(rd *r, int field) {
  uint8_t t = u8(r);
  int64_t v;
  switch (t % 8) {
    case 0: v = u8(r); break;
    case 1: v = (int64_t)ule(r, 2); break;
    case 2: v = (int64_t)ule(r, 4); break;
    case 3: v = (int64_t)ule(r, 8); break;
    case 4: v = SPECIAL[t / 8 % 8]; break;
    case 5: v = (int64_t)((uint64_t)r->prev[field] + ule(r, 2)); break; /* wraps like the fuzzer wants */
    case 6: v = -(int64_t)ule(r, 2); break;
    default: v = r->prev[field]; break;
  }
  r->prev[field] = v;
  return v;
}

/* Returns a pointer valid until the next call (raw strings point into the input). */
static const char *rd_str(rd *r, size_t *len) {
  uint8_t t = u8(r);
  if (t < 0x80) {
    const char *s = FZ_STRINGS[t % FZ_NSTRINGS];
    *len = strlen(s);
    return s;
  }
  if (t == 0xFF) {
    int n = snprintf(r->step, sizeof r->step, "ProfilerStep#%u", (unsigned)u8(r));
    *len = (size_t)n;
    return r->step;
  }
  size_t n = t == 0xFE ? (size_t)ule(r, 2) : (size_t)(t - 0x80);
  if (n > r->n) n = r->n;
  const char *s = (const char *)r->p;
  r->p += n;
  r->n -= n;
  *len = n;
  return s;
}

static void read_event(rd *r, uint8_t op, fsdpa_event *ev) {
  fsdpa_event_init(ev);
  ev->ph = PH[op & 15];
  uint32_t mask = (uint32_t)ule(r, 4);
  int64_t *ints[] = {&ev->pid, &ev->tid, &ev->ts_ns, &ev->dur_ns, &ev->correlation, &ev->external_id,
                     &ev->stream, &ev->device, &ev->bytes, &ev->total_allocated, &ev->total_reserved,
                     &ev->device_type, &ev->device_id, &ev->in_msg_nelems, &ev->out_msg_nelems,
                     &ev->group_size, &ev->seq, &ev->wait_on_stream, &ev->wait_on_event_corr};
  const char **strs[] = {&ev->collective, &ev->dtype, &ev->pg_name, &ev->sync_kind, &ev->label};
  size_t *lens[] = {&ev->collective_len, &ev->dtype_len, &ev->pg_name_len, &ev->sync_kind_len, &ev->label_len};
  for (int f = 0; f < F_COUNT; f++) {
    if (!(mask >> f & 1)) continue;
    if (f == F_CAT) ev->cat = rd_str(r, &ev->cat_len);
    else if (f == F_NAME) ev->name = rd_str(r, &ev->name_len);
    else if (f <= F_WCORR) *ints[f - F_PID] = rd_int(r, f);
    else *strs[f - F_COLL] = rd_str(r, lens[f - F_COLL]);
  }
  /* the step name buffer is shared: a second ProfilerStep# string in one
   * event (cat and name) just repeats the last number */
}

static void rd_query(rd *r, fsdpa_query *q) {
  fsdpa_query_init(q);
  uint8_t sel = u8(r);
  /* the selector bits are fsdpa_query.fields' */
  q->fields = sel & (FSDPA_QUERY_T0 | FSDPA_QUERY_T1 | FSDPA_QUERY_STEP | FSDPA_QUERY_DEVICE | FSDPA_QUERY_STREAM);
  if (sel & 1) q->t0_ns = rd_int(r, F_COUNT);
  if (sel & 2) q->t1_ns = rd_int(r, F_COUNT + 1);
  if (sel & 4) q->step = rd_int(r, F_COUNT + 2);
  if (sel & 8) q->device = rd_int(r, F_COUNT + 3);
  if (sel & 16) q->stream = rd_int(r, F_COUNT + 4);
}

/* A query may refuse a window (EINVAL: bad step) but never fail otherwise. */
static void q_ok(fsdpa_status st, const char *what) {
  if (st != FSDPA_OK && st != FSDPA_EINVAL) fz_die("%s: %s", what, fsdpa_status_str(st));
}

/* A list query: on success every item can be read (as a struct of `size`
 * bytes) and the list freed; on failure there is no list. */
static void list_ok(fsdpa_status st, fsdpa_list *l, size_t size, const char *what) {
  q_ok(st, what);
  if (st != FSDPA_OK) {
    if (l) fz_die("%s failed but returned a list", what);
    return;
  }
  union {
    size_t size;
    char b[1024];
  } item;
  if (size > sizeof item) fz_die("%s: item too large", what);
  for (size_t i = 0; i < fsdpa_list_count(l); i++) {
    memset(&item, 0, sizeof item);
    item.size = size;
    if (fsdpa_list_get(l, i, &item) != FSDPA_OK) fz_die("%s: item %zu unreadable", what, i);
  }
  if (fsdpa_list_get(l, fsdpa_list_count(l), &item) != FSDPA_EINVAL) fz_die("%s: item past the end", what);
  fsdpa_list_free(l);
}
#define LIST(T, call) do { fsdpa_list *l_ = NULL; fsdpa_status s_ = call; list_ok(s_, l_, sizeof(T), #call); } while (0)

static void window_queries(fsdpa_ctx *c, const fsdpa_query *q) {
  fsdpa_timeline tl = {sizeof tl};
  q_ok(fsdpa_timeline_query(c, q, &tl), "fsdpa_timeline_query");
  if (tl.busy_ns != FSDPA_ABSENT && tl.span_ns != FSDPA_ABSENT && tl.busy_ns > tl.span_ns)
    fz_die("timeline busy %lld > span %lld", (long long)tl.busy_ns, (long long)tl.span_ns);
  fsdpa_launch_gaps lg = {sizeof lg};
  if (fsdpa_launch_gaps_query(c, q, &lg) == FSDPA_OK &&
      lg.idle_ns != lg.host_wait_ns + lg.kernel_wait_ns + lg.other_ns)
    fz_die("launch gaps: idle %lld != host %lld + kernel %lld + other %lld", (long long)lg.idle_ns,
           (long long)lg.host_wait_ns, (long long)lg.kernel_wait_ns, (long long)lg.other_ns);
  fsdpa_launch_latency ll = {sizeof ll};
  q_ok(fsdpa_launch_latency_query(c, q, &ll), "fsdpa_launch_latency_query");
  fsdpa_launch_queue lq = {sizeof lq};
  q_ok(fsdpa_launch_queue_query(c, q, &lq), "fsdpa_launch_queue_query");
  fsdpa_overlap ov = {sizeof ov};
  q_ok(fsdpa_overlap_query(c, q, &ov), "fsdpa_overlap_query");
  for (int by = 0; by < 2; by++) LIST(fsdpa_comm_split, fsdpa_comm_split_list(c, q, (fsdpa_comm_split_by)by, &l_));
  LIST(fsdpa_sync_wait, fsdpa_sync_wait_list(c, q, &l_));
  LIST(fsdpa_sync_call, fsdpa_sync_call_list(c, q, &l_));
  LIST(fsdpa_sync_step, fsdpa_sync_step_list(c, q, &l_));
  fsdpa_memory_summary msum = {sizeof msum};
  q_ok(fsdpa_memory_query(c, q, &msum), "fsdpa_memory_query");
  LIST(fsdpa_memory_device, fsdpa_memory_device_list(c, q, &l_));
  LIST(fsdpa_memory_point, fsdpa_memory_series_list(c, q, (q->fields & FSDPA_QUERY_DEVICE) ? q->device : FSDPA_ABSENT, 8, &l_));
  LIST(fsdpa_memory_step, fsdpa_memory_step_list(c, q, &l_));
}

static void unit_queries(fsdpa_ctx *c, rd *r) {
  fsdpa_query q;
  rd_query(r, &q);
  (void)fsdpa_fsdp_version(c);
  LIST(fsdpa_fsdp_unit, fsdpa_fsdp_unit_list(c, NULL, &l_));
  LIST(fsdpa_fsdp_unit, fsdpa_fsdp_unit_list(c, &q, &l_));
  fsdpa_backward b = {sizeof b};
  q_ok(fsdpa_backward_get(c, &b), "fsdpa_backward_get");
  fsdpa_list *bs = NULL;
  q_ok(fsdpa_backward_step_list(c, &bs), "fsdpa_backward_step_list");
  for (size_t i = 0; i < fsdpa_list_count(bs) && i < 4; i++) LIST(fsdpa_backward_unit, fsdpa_backward_unit_list(c, i, &l_));
  list_ok(FSDPA_OK, bs, sizeof(fsdpa_backward_step), "fsdpa_backward_step_list");
  LIST(fsdpa_step, fsdpa_step_list(c, &l_));
  LIST(fsdpa_stream_info, fsdpa_stream_list(c, &l_));
}

static size_t nparams;
static char params[64][64];

static void load_params(void) {
  if (nparams) return;
  fsdpa_list *l = NULL;
  if (fsdpa_param_list(&l) != FSDPA_OK) fz_die("fsdpa_param_list");
  for (size_t i = 0; i < fsdpa_list_count(l) && nparams < 64; i++) {
    fsdpa_param p = {sizeof p};
    if (fsdpa_list_get(l, i, &p) != FSDPA_OK || strlen(p.name) >= sizeof params[0]) continue;
    snprintf(params[nparams++], sizeof params[0], "%s", p.name);
  }
  fsdpa_list_free(l);
}

/* Apply the input's operations to c[] (made on h[]).  With `warm`, some
 * window-query ops also report their context alone first, which fills the
 * context's kept report parts (report/rank_cache.c) before later events,
 * parameters or trace info change them. */
static size_t run_ops(const uint8_t *data, size_t size, fz_heap *h, fsdpa_allocator *a,
                      fsdpa_ctx **c, int *ranks_set, int warm) {
  rd r;
  memset(&r, 0, sizeof r);
  r.p = data;
  r.n = size;
  c[0] = fz_ctx_new(&h[0], &a[0], 0);
  c[1] = NULL;
  size_t nctx = 1, cur = 0;
  ranks_set[0] = ranks_set[1] = 0;
  while (r.n) {
    uint8_t op = u8(&r);
    if (op < 0xF0) {
      fsdpa_event ev;
      read_event(&r, op, &ev);
      fsdpa_status st = fsdpa_event_add(c[cur], &ev);
      if (st != FSDPA_OK) fz_die("fsdpa_event_add: %s: %s", fsdpa_status_str(st), fsdpa_errmsg(c[cur]));
    } else if (op == 0xF0) {
      if (nctx == 1) c[nctx++] = fz_ctx_new(&h[1], &a[1], 0);
      cur ^= 1;
    } else if (op == 0xF1) {
      fsdpa_trace_info ti;
      fsdpa_trace_info_init(&ti);
      ti.rank = rd_int(&r, F_COUNT + 5);
      ti.world_size = rd_int(&r, F_COUNT + 6);
      ti.base_time_ns = rd_int(&r, F_COUNT + 7);
      if (fsdpa_trace_info_set(c[cur], &ti) != FSDPA_OK) fz_die("fsdpa_trace_info_set");
      if (ti.rank != FSDPA_ABSENT) ranks_set[cur] = 1;
    } else if (op == 0xF2) {
      const char *key = params[u8(&r) % (nparams ? nparams : 1)];
      char val[32];
      snprintf(val, sizeof val, "%lld", (long long)rd_int(&r, F_COUNT));
      fsdpa_status st = fsdpa_param_set(c[cur], key, val);
      if (st != FSDPA_OK && st != FSDPA_EINVAL) fz_die("fsdpa_param_set: %s", fsdpa_status_str(st));
    } else if (op == 0xF3) {
      fsdpa_query q;
      rd_query(&r, &q);
      if (warm && (r.n & 1) == 0) fsdpa_free(fz_report(&c[cur], 1, FSDPA_FORMAT_JSON, NULL));
      window_queries(c[cur], &q);
    } else {
      unit_queries(c[cur], &r);
    }
  }
  return nctx;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  load_params();
  fz_heap h[2] = {{0, 0}, {0, 0}};
  fsdpa_allocator a[2] = {fz_allocator(&h[0]), fz_allocator(&h[1])};
  fsdpa_ctx *c[2];
  int ranks_set[2];
  size_t nctx = run_ops(data, size, h, a, c, ranks_set, 1);
  {
    /* the same operations without the early reports: the final report must
     * not depend on what was kept from them */
    fz_heap h2[2] = {{0, 0}, {0, 0}};
    fsdpa_allocator a2[2] = {fz_allocator(&h2[0]), fz_allocator(&h2[1])};
    fsdpa_ctx *c2[2];
    int rs2[2];
    size_t n2 = run_ops(data, size, h2, a2, c2, rs2, 0);
    size_t l1 = 0, l2 = 0;
    char *r1 = fz_report(c, nctx, FSDPA_FORMAT_JSON, &l1);
    char *r2 = fz_report(c2, n2, FSDPA_FORMAT_JSON, &l2);
    if (n2 != nctx || l1 != l2 || (r1 && memcmp(r1, r2, l1)) || !r1 != !r2)
      fz_die("report after early reports differs from the report without them");
    fsdpa_free(r1);
    fsdpa_free(r2);
    for (size_t i = 0; i < n2; i++) fz_ctx_free(c2[i], &h2[i]);
  }
  fz_reports(c, nctx, size ? data[size - 1] : 0);
  /* the report rebuilt from the summaries is the same report, when the
   * ranks are the ones fsdpa_report() would number (see fsdpa_summary_write) */
  fz_summary_roundtrip(c, nctx, nctx == 1 || ranks_set[1]);
  for (size_t i = 0; i < nctx; i++) {
    char *out = NULL;
    size_t len = 0;
    fsdpa_status st = fsdpa_annotate_events(c, nctx, i, &out, &len, NULL);
    if (st != FSDPA_OK) fz_die("fsdpa_annotate_events: %s", fsdpa_status_str(st));
    fz_check_json(out, len);
    fsdpa_free(out);
  }
  for (size_t i = 0; i < nctx; i++) fz_ctx_free(c[i], &h[i]);
  return 0;
}
