/* Input pipeline (libfsdpa/input/): exact number parsing, field decoding
 * rules, the splitter (strings, escapes, braces across chunk boundaries,
 * keys after traceEvents, bare arrays), chunk / window / SIMD-vs-scalar
 * invariance, gzip (chunked, concatenated members, truncated, corrupt,
 * bombs), metadata before/after the events, errors with byte offsets,
 * limits, allocation failures. */
#include <check.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include "testutil.h"
#include "input/input.h"
#include "input/num.h"

/* ------------------------------------------------------------------ */
/* helpers                                                             */

typedef struct sbuf {
  char *p;
  size_t len, cap;
} sbuf;

static void sb_add(sbuf *b, const char *s, size_t n) {
  if (b->len + n + 1 > b->cap) {
    size_t nc = b->cap ? b->cap : 256;
    while (nc < b->len + n + 1) nc *= 2;
    b->p = realloc(b->p, nc);
    ck_assert_ptr_nonnull(b->p);
    b->cap = nc;
  }
  memcpy(b->p + b->len, s, n);
  b->len += n;
  b->p[b->len] = 0;
}
static void sb_str(sbuf *b, const char *s) { sb_add(b, s, strlen(s)); }
static void sb_fmt(sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void sb_fmt(sbuf *b, const char *fmt, ...) {
  char tmp[4096];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
  va_end(ap);
  ck_assert(n >= 0 && (size_t)n < sizeof tmp);
  sb_add(b, tmp, (size_t)n);
}

/* One line per event: every field, '-' for absent integers, '~' for
 * absent strings. */
static void fmt_event(sbuf *b, const fsdpa_event *e) {
  const int64_t iv[] = {e->pid, e->tid, e->ts_ns, e->dur_ns, e->correlation, e->external_id,
                        e->stream, e->device, e->bytes, e->total_allocated, e->total_reserved,
                        e->device_type, e->device_id, e->in_msg_nelems, e->out_msg_nelems,
                        e->group_size, e->seq, e->wait_on_stream, e->wait_on_event_corr};
  const char *sv[] = {e->cat, e->name, e->collective, e->dtype, e->pg_name, e->sync_kind, e->label};
  const size_t sl[] = {e->cat_len, e->name_len, e->collective_len, e->dtype_len, e->pg_name_len,
                       e->sync_kind_len, e->label_len};
  char ph[2] = {e->ph ? e->ph : '.', 0};
  sb_str(b, ph);
  for (int k = 0; k < 2; k++) {
    sb_str(b, "|");
    if (sv[k]) sb_add(b, sv[k], sl[k]);
    else sb_str(b, "~");
  }
  for (size_t k = 0; k < sizeof iv / sizeof iv[0]; k++) {
    if (iv[k] == FSDPA_ABSENT) sb_str(b, "|-");
    else sb_fmt(b, "|%lld", (long long)iv[k]);
  }
  for (int k = 2; k < 7; k++) {
    sb_str(b, "|");
    if (sv[k]) sb_add(b, sv[k], sl[k]);
    else sb_str(b, "~");
  }
  sb_str(b, "\n");
}

static uint64_t fnv(uint64_t h, const void *p, size_t n) {
  const unsigned char *c = p;
  for (size_t i = 0; i < n; i++) h = (h ^ c[i]) * 1099511628211ULL;
  return h;
}

/* Hash of every field of an event (for big inputs). */
static uint64_t hash_event(uint64_t h, const fsdpa_event *e) {
  const int64_t iv[] = {e->pid, e->tid, e->ts_ns, e->dur_ns, e->correlation, e->external_id,
                        e->stream, e->device, e->bytes, e->total_allocated, e->total_reserved,
                        e->device_type, e->device_id, e->in_msg_nelems, e->out_msg_nelems,
                        e->group_size, e->seq, e->wait_on_stream, e->wait_on_event_corr, e->ph};
  const char *sv[] = {e->cat, e->name, e->collective, e->dtype, e->pg_name, e->sync_kind, e->label};
  const size_t sl[] = {e->cat_len, e->name_len, e->collective_len, e->dtype_len, e->pg_name_len,
                       e->sync_kind_len, e->label_len};
  h = fnv(h, iv, sizeof iv);
  for (int k = 0; k < 7; k++) {
    size_t n = sv[k] ? sl[k] : (size_t)-1;
    h = fnv(h, &n, sizeof n);
    if (sv[k]) h = fnv(h, sv[k], sl[k]);
  }
  return h;
}

typedef struct rec {
  int hash_only;         /* fold events into `hash` instead of logging them */
  uint64_t hash;
  sbuf log;              /* events and metadata, in callback order */
  uint64_t events;
  int stop_at;           /* > 0: the stop_at-th event returns stop_status */
  fsdpa_status stop_status;
  fsdpa_trace_info meta;
  int nmeta;
} rec;

static fsdpa_status rec_event(void *ud, const fsdpa_event *e) {
  rec *r = ud;
  ck_assert_uint_eq(e->size, sizeof *e);
  if (r->stop_at && (int)r->events + 1 == r->stop_at) return r->stop_status;
  r->events++;
  if (r->hash_only) r->hash = hash_event(r->hash, e);
  else fmt_event(&r->log, e);
  return FSDPA_OK;
}

static fsdpa_status rec_meta(void *ud, const fsdpa_trace_info *i) {
  rec *r = ud;
  r->meta = *i;
  r->nmeta++;
  sb_fmt(&r->log, "META after %llu events: rank=%lld world=%lld base=%lld\n",
         (unsigned long long)r->events, (long long)i->rank, (long long)i->world_size,
         (long long)i->base_time_ns);
  return FSDPA_OK;
}

typedef struct run_opts {
  long chunk;          /* 0 = whole, > 0 = fixed, < 0 = random 1..-chunk (seeded) */
  unsigned seed;
  size_t window;       /* 0 = default */
  size_t max_event;    /* 0 = default */
  int simd;            /* -1 default, 0 scalar, 1 simd */
  uint64_t max_input;
  int no_finish;
  int stop_at;
  fsdpa_status stop_status;
  const fsdpa_allocator *user_alloc;
  int hash_only;
} run_opts;

typedef struct result {
  fsdpa_status st;     /* first failing status, or finish's */
  int64_t off;
  char msg[512];
  rec r;
  uint64_t peak;       /* allocator peak */
  uint64_t leaked;     /* allocator bytes after input_free */
  uint64_t json_bytes, bytes_in;
} result;

static void res_free(result *res) { free(res->r.log.p); }

static unsigned rnd(unsigned *s) {
  *s = *s * 1103515245u + 12345u;
  return (*s >> 8) & 0xffffff;
}

static result run_input(const void *data, size_t len, const run_opts *o) {
  result res;
  memset(&res, 0, sizeof res);
  res.r.stop_at = o->stop_at;
  res.r.stop_status = o->stop_status;
  res.r.hash_only = o->hash_only;
  res.r.hash = 14695981039346656037ULL;
  fa_alloc a;
  fa_init(&a, o->user_alloc, 0);
  input_sink sink = {rec_event, rec_meta, &res.r};
  fsdpa_input *in = NULL;
  fsdpa_status st = input_new(&in, &a, "t.json", o->max_input, &sink);
  if (st != FSDPA_OK) {
    res.st = st;
    res.off = FSDPA_ABSENT;
    return res;
  }
  ck_assert_int_eq(input_tune(in, o->window, o->max_event, o->simd), FSDPA_OK);
  const char *p = data;
  size_t off = 0;
  unsigned seed = o->seed ? o->seed : 1;
  st = FSDPA_OK;
  while (off < len) {
    size_t n = len - off;
    if (o->chunk > 0 && (size_t)o->chunk < n) n = (size_t)o->chunk;
    if (o->chunk < 0) {
      size_t r = 1 + rnd(&seed) % (size_t)(-o->chunk);
      if (r < n) n = r;
    }
    st = input_feed(in, p + off, n);
    off += n;
    if (st != FSDPA_OK) break;
  }
  if (st == FSDPA_OK && !o->no_finish) st = input_finish(in);
  if (st != FSDPA_OK) {
    /* an input that failed refuses everything afterwards */
    ck_assert_int_eq(input_feed(in, "x", 1), FSDPA_ESTATE);
    ck_assert_int_eq(input_finish(in), FSDPA_ESTATE);
  }
  res.st = st;
  res.off = input_error_offset(in);
  snprintf(res.msg, sizeof res.msg, "%s", input_errmsg(in));
  res.json_bytes = input_json_bytes(in);
  res.bytes_in = input_bytes_in(in);
  ck_assert_uint_eq(input_events(in), res.r.events);
  input_free(in);
  res.peak = a.peak;
  res.leaked = a.used;
  ck_assert_uint_eq(res.leaked, 0);
  return res;
}

static result run_str(const char *s, const run_opts *o) { return run_input(s, strlen(s), o); }

static result run_simple(const char *s) {
  run_opts o = {0};
  o.simd = -1;
  return run_str(s, &o);
}

/* gzip a buffer (one member) */
static char *gz(const void *data, size_t len, size_t *out_len) {
  z_stream z;
  memset(&z, 0, sizeof z);
  ck_assert_int_eq(deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY), Z_OK);
  size_t cap = deflateBound(&z, (uLong)len) + 64;
  char *out = malloc(cap);
  ck_assert_ptr_nonnull(out);
  z.next_in = (Bytef *)(uintptr_t)data;
  z.avail_in = (uInt)len;
  z.next_out = (Bytef *)out;
  z.avail_out = (uInt)cap;
  ck_assert_int_eq(deflate(&z, Z_FINISH), Z_STREAM_END);
  *out_len = cap - z.avail_out;
  deflateEnd(&z);
  return out;
}

/* A trace with everything the splitter must survive. */
static char *make_trace(int nev, int pretty, size_t *len) {
  sbuf b = {0};
  sb_str(&b, "\xEF\xBB\xBF{\"schemaVersion\": 1, \"baseTimeNanoseconds\": 1767189312000000000,\n");
  sb_str(&b, " \"deviceProperties\": [{\"id\": 0, \"name\": \"H100 \\\"x\\\" {y} [z]\", \"a\": [1, -2.5e3, true, false, null]}],\n");
  sb_str(&b, " \"traceEvents\": [");
  static const char *names[] = {
      "aten::mm",
      "void at::native::(anonymous namespace)::kernel<{lambda()#1}>(at::TensorIteratorBase&)",
      "quote \\\" brace { bracket ] backslash \\\\",
      "\\\\\\\\\\\"}}}",
      "unicode \\u00e9 \xc3\xa9 \\n \\t \\/ {\\\"a\\\": [1]}",
      "",
      "ncclDevKernel_AllGather_RING_LL(ncclDevKernelArgsStorage<4096ul>)",
      "}]{[\\\\",
  };
  const size_t nn = sizeof names / sizeof names[0];
  for (int i = 0; i < nev; i++) {
    const char *sep = i ? (pretty ? ",\n  " : ",") : (pretty ? "\n  " : "");
    sb_str(&b, sep);
    const char *nm = names[(size_t)i % nn];
    /* a long name now and then crosses several 64-byte blocks */
    char longname[600];
    if (i % 17 == 5) {
      memset(longname, 'L', 500);
      longname[500] = 0;
      longname[100] = '{';
      longname[300] = '}';
      nm = longname;
    }
    switch (i % 6) {
      case 0:
        sb_fmt(&b, "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"%s\", \"pid\": 0, \"tid\": %d, "
                   "\"ts\": 1365627862%03d.%03d, \"dur\": %d.%d, \"args\": {\"External id\": %d, "
                   "\"queued\": 0, \"device\": 0, \"stream\": 7, \"correlation\": %d, \"grid\": [11, 1, 1], "
                   "\"occupancy\": {\"a\": {\"b\": [\"}\"]}}, \"Collective name\": \"_allgather_base\", "
                   "\"In msg nelems\": 25136, \"Out msg nelems\": 201088, \"Group size\": 8, "
                   "\"dtype\": \"BFloat16\", \"Process Group Name\": \"3\", \"Seq\": %d}}",
               nm, 7 + i % 3, i % 1000, (i * 37) % 1000, i % 50, i % 10, 4800 + i, 15000 + i, i);
        break;
      case 1:
        sb_fmt(&b, "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"%s\",\"pid\":6583,\"tid\":\"stream 7 \",\"ts\":%d,"
                   "\"dur\":-3,\"args\":{\"external id\":%d,\"Input Dims\":[[4096],[]],\"Concrete Inputs\":[\"\",\"]\"]}}",
               nm, 1717559238 + i, i);
        break;
      case 2:
        sb_fmt(&b, "{\n    \"name\": \"[memory]\", \"ph\": \"i\", \"s\": \"t\", \"pid\": \"19392\", \"tid\": 19392,\n"
                   "    \"ts\": \"1419247333400.919\",\n    \"args\": {\"Total Reserved\": 121634816, "
                   "\"Total Allocated\": %d, \"Bytes\": %d, \"bytes\": 5, \"Addr\": 128184607182336, "
                   "\"Device Id\": 0, \"Device Type\": 1, \"Comms Id\": 10159970886766084423, \"x\": 1.5e300}\n  }",
               91505152 + i, i % 2 ? -144384 : 144384);
        break;
      case 3:
        sb_fmt(&b, "{\"name\": \"thread_name\", \"ph\": \"M\", \"ts\": 3743411222594.212, \"pid\": 2, \"tid\": 4, "
                   "\"args\": {\"name\": \"stream %d \\\"q\\\"\"}}", i);
        break;
      case 4:
        sb_fmt(&b, "{ \"ph\" : \"X\" , \"cat\" : \"cuda_sync\" , \"name\" : \"Stream Wait Event\" , \"pid\" : 0 , "
                   "\"tid\" : 1 , \"ts\" : 12.0005 , \"dur\" : 1e-3 , \"args\" : { \"cuda_sync_kind\" : \"Stream Wait Event\" , "
                   "\"wait_on_stream\" : -1 , \"wait_on_cuda_event_record_corr_id\" : %d , \"stream\" : 1.0 , "
                   "\"name\" : \"not a label\" } }", 200 + i);
        break;
      default:
        sb_fmt(&b, "{\"ph\":\"X\",\"cat\":\"Trace\",\"ts\":1.5E+3,\"dur\":4966.632,\"pid\":\"Spans\",\"tid\":\"PyTorch Profiler\","
                   "\"name\":\"%s\",\"args\":{\"Op count\":0,\"bytes\":%d,\"correlation\":\"12\"}}", nm, i);
        break;
    }
  }
  sb_str(&b, pretty ? "\n  ],\n" : "],");
  sb_str(&b, " \"traceName\": \"x]}{\\\"\", \"distributedInfo\": {\"backend\": \"nccl\", \"rank\": 3, "
             "\"pg_config\": [{\"rank\": 99, \"world_size\": 99}], \"world_size\": 8, \"nested\": {\"rank\": 98}}}\n");
  *len = b.len;
  return b.p;
}

/* ------------------------------------------------------------------ */
/* numbers                                                             */

static int64_t ns_of(const char *s, int *rc) {
  int64_t v = 777;
  *rc = fa_us_to_ns(s, strlen(s), &v);
  return v;
}

#define NS_OK(s, want)                                                  \
  do {                                                                  \
    int rc_;                                                            \
    int64_t v_ = ns_of(s, &rc_);                                        \
    ck_assert_msg(rc_ == FA_NUM_OK, "%s: rc %d", s, rc_);              \
    ck_assert_msg(v_ == (int64_t)(want), "%s: %lld != %lld", s, (long long)v_, (long long)(want)); \
  } while (0)
#define NS_ERR(s, want_rc)                                              \
  do {                                                                  \
    int rc_;                                                            \
    int64_t v_ = ns_of(s, &rc_);                                        \
    ck_assert_msg(rc_ == (want_rc), "%s: rc %d, want %d", s, rc_, want_rc); \
    ck_assert_msg(v_ == 777, "%s: output written on error", s);         \
  } while (0)

START_TEST(t_num_us_to_ns_exact) {
  NS_OK("1234", 1234000);
  NS_OK("1234.5", 1234500);
  NS_OK("1234.567", 1234567);
  NS_OK("1365627862757.064", INT64_C(1365627862757064));
  NS_OK("1717559238502437", INT64_C(1717559238502437000));
  NS_OK("0", 0);
  NS_OK("-0", 0);
  NS_OK("0.001", 1);
  NS_OK("12.5", 12500); /* the kineto 2024-03 padding bug is not ours to fix */
  /* beyond 3 fraction digits: round half up (away from zero) */
  NS_OK("12.0005", 12001);
  NS_OK("12.00049999999", 12000);
  NS_OK("12.0004", 12000);
  NS_OK("0.0005", 1);
  NS_OK("0.0004", 0);
  NS_OK("0.00000000001", 0);
  NS_OK("1234.5678", 1234568);
  /* negative */
  NS_OK("-1", -1000);
  NS_OK("-1.5", -1500);
  NS_OK("-12.0005", -12001);
  NS_OK("-1365627862757.064", INT64_C(-1365627862757064));
  /* exponent forms, exactly */
  NS_OK("1e3", 1000000);
  NS_OK("1E+3", 1000000);
  NS_OK("1.5e3", 1500000);
  NS_OK("1.5E-3", 2);      /* 1.5 ns -> 2 */
  NS_OK("1e-3", 1);
  NS_OK("12345e-2", 123450);
  NS_OK("1.365627862757064e12", INT64_C(1365627862757064));
  NS_OK("0e999999999999999999", 0);
  NS_OK("5e-999999999999", 0);
  /* range */
  NS_OK("9223372036854775.807", INT64_MAX);
  NS_OK("-9223372036854775.807", -INT64_MAX);
  NS_ERR("9223372036854775.808", FA_NUM_RANGE);
  NS_ERR("-9223372036854775.808", FA_NUM_RANGE); /* INT64_MIN is FSDPA_ABSENT */
  NS_ERR("1e17", FA_NUM_RANGE);
  NS_ERR("1e999999999999999999", FA_NUM_RANGE);
  char big[420];
  memset(big, '9', 400);
  big[400] = 0;
  NS_ERR(big, FA_NUM_RANGE); /* 400 digits */
  /* ...but 400 fraction digits are fine */
  char longfrac[420] = "1.";
  memset(longfrac + 2, '3', 400);
  longfrac[402] = 0;
  NS_OK(longfrac, 1333);
  char tiny[420] = "0.";
  memset(tiny + 2, '0', 400);
  tiny[402] = '7';
  tiny[403] = 0;
  NS_OK(tiny, 0);
  /* syntax */
  NS_ERR("", FA_NUM_SYNTAX);
  NS_ERR("-", FA_NUM_SYNTAX);
  NS_ERR("abc", FA_NUM_SYNTAX);
  NS_ERR("01", FA_NUM_SYNTAX);
  NS_ERR("1.", FA_NUM_SYNTAX);
  NS_ERR(".5", FA_NUM_SYNTAX);
  NS_ERR("+1", FA_NUM_SYNTAX);
  NS_ERR("1e", FA_NUM_SYNTAX);
  NS_ERR("1e+", FA_NUM_SYNTAX);
  NS_ERR("1.2.3", FA_NUM_SYNTAX);
  NS_ERR(" 1", FA_NUM_SYNTAX);
  NS_ERR("1 ", FA_NUM_SYNTAX);
  NS_ERR("NaN", FA_NUM_SYNTAX);
  NS_ERR("0x10", FA_NUM_SYNTAX);
}
END_TEST

START_TEST(t_num_integers_and_ids) {
  int64_t v = 0;
  ck_assert_int_eq(fa_num_parse("42", 2, 0, 1, &v), FA_NUM_OK);
  ck_assert_int_eq(v, 42);
  ck_assert_int_eq(fa_num_parse("1.0", 3, 0, 1, &v), FA_NUM_OK);
  ck_assert_int_eq(v, 1);
  ck_assert_int_eq(fa_num_parse("1e3", 3, 0, 1, &v), FA_NUM_OK);
  ck_assert_int_eq(v, 1000);
  ck_assert_int_eq(fa_num_parse("1.5", 3, 0, 1, &v), FA_NUM_INEXACT);
  ck_assert_int_eq(fa_num_parse("9223372036854775807", 19, 0, 1, &v), FA_NUM_OK);
  ck_assert_int_eq(v, INT64_MAX);
  ck_assert_int_eq(fa_num_parse("10159970886766084423", 20, 0, 1, &v), FA_NUM_RANGE);
  ck_assert_int_eq(fa_num_parse("9223372036854775808", 19, 0, 1, &v), FA_NUM_RANGE);
  ck_assert_int_eq(fa_num_parse("-9223372036854775807", 20, 0, 1, &v), FA_NUM_OK);
  ck_assert_int_eq(v, -INT64_MAX);
#define ID(s, want)                                                   \
  do {                                                                \
    int64_t x_ = 0;                                                   \
    ck_assert_msg(fa_parse_id_str(s, strlen(s), &x_) == FA_NUM_OK, "%s", s); \
    ck_assert_int_eq(x_, want);                                       \
  } while (0)
  ID("7", 7);
  ID("stream 7", 7);
  ID("stream 7 ", 7);
  ID(" 12 ", 12);
  ID("-1", -1);
  ID("007", 7);
  ck_assert_int_ne(fa_parse_id_str("Spans", 5, &v), FA_NUM_OK);
  ck_assert_int_ne(fa_parse_id_str("", 0, &v), FA_NUM_OK);
  ck_assert_int_ne(fa_parse_id_str("stream ", 7, &v), FA_NUM_OK);
  ck_assert_int_ne(fa_parse_id_str("stream x", 8, &v), FA_NUM_OK);
  ck_assert_int_ne(fa_parse_id_str("7.5", 3, &v), FA_NUM_OK);
  ck_assert_int_ne(fa_parse_id_str("-", 1, &v), FA_NUM_OK);
  ck_assert_int_eq(fa_parse_id_str("99999999999999999999", 20, &v), FA_NUM_RANGE);
}
END_TEST

/* ------------------------------------------------------------------ */
/* field decoding                                                      */

static const char *line_of(const result *r, int k) {
  static char buf[4096];
  const char *p = r->r.log.p;
  for (int i = 0; p && i < k; i++) {
    p = strchr(p, '\n');
    if (p) p++;
  }
  ck_assert_ptr_nonnull(p);
  const char *e = strchr(p, '\n');
  size_t n = e ? (size_t)(e - p) : strlen(p);
  ck_assert(n < sizeof buf);
  memcpy(buf, p, n);
  buf[n] = 0;
  return buf;
}

START_TEST(t_fields_decoded) {
  const char *js =
      "{\"traceEvents\": ["
      /* 0: a kernel with collective args */
      "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"nccl\\u00e9\\\"x\",\"pid\":0,\"tid\":7,\"ts\":1365627949863.953,"
      "\"dur\":21.953,\"args\":{\"External id\":4802,\"device\":0,\"stream\":7,\"correlation\":15270,"
      "\"grid\":[11,1,1],\"Collective name\":\"_allgather_base\",\"In msg nelems\":25136,"
      "\"Out msg nelems\":201088,\"Group size\":8,\"dtype\":\"BFloat16\",\"Process Group Name\":\"3\",\"Seq\":17}},"
      /* 1: [memory] with pid as numeric string, ts as string, Bytes over bytes, huge uint64 */
      "{\"ph\":\"i\",\"name\":\"[memory]\",\"pid\":\"19392\",\"tid\":19392,\"ts\":\"1419247333400.919\","
      "\"args\":{\"bytes\":5,\"Bytes\":-144384,\"Total Allocated\":91505152,\"Total Reserved\":121634816,"
      "\"Device Type\":1,\"Device Id\":-1,\"Comms Id\":10159970886766084423,\"Addr\":128184607182336}},"
      /* 2: legacy: string tid, lower-case external id, integer µs */
      "{\"ph\":\"X\",\"cat\":\"Kernel\",\"name\":\"k\",\"pid\":0,\"tid\":\"stream 7 \",\"ts\":1623142623529248,"
      "\"dur\":5,\"args\":{\"external id\":544,\"correlation\":34441}},"
      /* 3: metadata: label */
      "{\"name\":\"thread_name\",\"ph\":\"M\",\"ts\":1,\"pid\":2,\"tid\":4,\"args\":{\"name\":\"stream 4 \"}},"
      /* 4: strings where numbers are expected and vice versa; negative dur */
      "{\"ph\":\"X\",\"cat\":5,\"name\":[\"x\"],\"pid\":\"Spans\",\"tid\":\"\",\"ts\":-1.5,\"dur\":-3,"
      "\"args\":{\"correlation\":\"12\",\"stream\":1.5,\"device\":1e30,\"External id\":2.0,\"dtype\":7,"
      "\"cuda_sync_kind\":\"Event Sync\",\"wait_on_stream\":-1,\"wait_on_cuda_event_record_corr_id\":9,"
      "\"name\":\"not a label\",\"Group size\":true,\"Seq\":null}},"
      /* 5: args not an object, no ts/dur, ts null */
      "{\"ph\":\"s\",\"id\":16,\"pid\":6583,\"tid\":6583,\"ts\":null,\"cat\":\"ac2g\",\"name\":\"ac2g\",\"args\":[1]},"
      /* 6: empty object, duplicate keys (last wins), ph longer than one char */
      "{},"
      "{\"ph\":\"Xy\",\"name\":\"a\",\"name\":\"b\",\"ts\":1,\"ts\":2}"
      "]}";
  result r = run_simple(js);
  ck_assert_msg(r.st == FSDPA_OK, "%s", r.msg);
  ck_assert_uint_eq(r.r.events, 8);
  ck_assert_str_eq(line_of(&r, 0),
                   "X|kernel|nccl\xc3\xa9\"x|0|7|1365627949863953|21953|15270|4802|7|0|-|-|-|-|-|25136|201088|8|17|-|-|"
                   "_allgather_base|BFloat16|3|~|~");
  ck_assert_str_eq(line_of(&r, 1),
                   "i|~|[memory]|19392|19392|1419247333400919|-|-|-|-|-|-144384|91505152|121634816|1|-1|-|-|-|-|-|-|~|~|~|~|~");
  ck_assert_str_eq(line_of(&r, 2),
                   "X|Kernel|k|0|7|1623142623529248000|5000|34441|544|-|-|-|-|-|-|-|-|-|-|-|-|-|~|~|~|~|~");
  ck_assert_str_eq(line_of(&r, 3), "M|~|thread_name|2|4|1000|-|-|-|-|-|-|-|-|-|-|-|-|-|-|-|-|~|~|~|~|stream 4 ");
  ck_assert_str_eq(line_of(&r, 4),
                   "X|~|~|-|-|-1500|0|12|2|-|-|-|-|-|-|-|-|-|-|-|-1|9|~|~|~|Event Sync|~");
  ck_assert_str_eq(line_of(&r, 5), "s|ac2g|ac2g|6583|6583|-|-|-|-|-|-|-|-|-|-|-|-|-|-|-|-|-|~|~|~|~|~");
  ck_assert_str_eq(line_of(&r, 6), ".|~|~|-|-|-|-|-|-|-|-|-|-|-|-|-|-|-|-|-|-|-|~|~|~|~|~");
  ck_assert_str_eq(line_of(&r, 7), "X|~|b|-|-|2000|-|-|-|-|-|-|-|-|-|-|-|-|-|-|-|-|~|~|~|~|~");
  res_free(&r);
}
END_TEST

/* ts/dur must be numbers (or numeric strings, or null): anything else is a
 * parse error pointing at the value, after the events before it. */
START_TEST(t_bad_times_are_errors) {
  static const char *cases[] = {
      "{\"traceEvents\":[{\"ts\":1},{\"ph\":\"X\",\"ts\":\"abc\"}]}",
      "{\"traceEvents\":[{\"ts\":1},{\"ph\":\"X\",\"dur\":true}]}",
      "{\"traceEvents\":[{\"ts\":1},{\"ph\":\"X\",\"ts\":{\"a\":1}}]}",
      "{\"traceEvents\":[{\"ts\":1},{\"ph\":\"X\",\"ts\":1e30}]}",
      "{\"traceEvents\":[{\"ts\":1},{\"ph\":\"X\",\"ts\":12x}]}",
      "{\"traceEvents\":[{\"ts\":1},{\"ph\":\"X\",\"ts\":01}]}",
      "{\"traceEvents\":[{\"ts\":1},{\"ph\":\"X\",\"pid\":1.2.3}]}",
      "{\"traceEvents\":[{\"ts\":1},{\"ph\":\"X\",\"args\":{\"stream\":-}}]}",
      /* a wrong type is absent, but it must be a JSON value */
      "{\"traceEvents\":[{\"ts\":1},{\"ph\":\"X\",\"pid\":.5}]}",
      "{\"traceEvents\":[{\"ts\":1},{\"ph\":\"X\",\"name\":nul}]}",
      "{\"traceEvents\":[{\"ts\":1},{\"ph\":\"X\",\"args\":{\"dtype\":True}}]}",
  };
  static const char *key[] = {"\"ts\":", "\"dur\":", "\"ts\":", "\"ts\":", "\"ts\":", "\"ts\":", "\"pid\":",
                              "\"stream\":", "\"pid\":", "\"name\":", "\"dtype\":"};
  static const char *what[] = {"\"ts\" is not a number", "\"dur\" is not a number", "\"ts\" is not a number",
                               "\"ts\" out of range", "invalid number", "invalid number", "invalid number",
                               "invalid number", "invalid JSON value", "invalid JSON value", "invalid JSON value"};
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
    const char *js = cases[k];
    const char *bad = strstr(strstr(js, "}") + 1, key[k]) + strlen(key[k]);
    for (long chunk = 0; chunk <= 3; chunk += 3) {
      run_opts o = {0};
      o.simd = -1;
      o.chunk = chunk;
      result r = run_str(js, &o);
      ck_assert_msg(r.st == FSDPA_EPARSE, "%s: %d %s", js, r.st, r.msg);
      ck_assert_msg(r.off == (int64_t)(bad - js), "%s: offset %lld want %lld (%s)", js, (long long)r.off,
                    (long long)(bad - js), r.msg);
      ck_assert_msg(strstr(r.msg, what[k]) != NULL, "%s: %s", js, r.msg);
      char pre[64];
      snprintf(pre, sizeof pre, "t.json: byte %lld: ", (long long)r.off);
      ck_assert_msg(strncmp(r.msg, pre, strlen(pre)) == 0, "%s", r.msg);
      ck_assert_uint_eq(r.r.events, 1);
      res_free(&r);
    }
  }
}
END_TEST

/* ------------------------------------------------------------------ */
/* splitter                                                            */

START_TEST(t_split_tricky_strings_any_chunking) {
  /* escaped quotes, backslash runs, braces and brackets inside strings,
   * fed so that every boundary falls everywhere */
  const char *js =
      "{\"a\":\"}]\\\"{\",\"traceEvents\":[{\"name\":\"\\\\\"},{\"name\":\"\\\\\\\"}{[\"},"
      "{\"name\":\"{\\\"\\\\\\\\\",\"args\":{\"name\":\"}}}\"}},"
      "{\"name\":\"x\\\\\\\\\\\\\\\\\\\"]\"}],\"b\":\"\\\\\"}";
  result ref = run_simple(js);
  ck_assert_msg(ref.st == FSDPA_OK, "%s", ref.msg);
  ck_assert_uint_eq(ref.r.events, 4);
  ck_assert_str_eq(line_of(&ref, 0), ".|~|\\|-|-|-|-|-|-|-|-|-|-|-|-|-|-|-|-|-|-|-|~|~|~|~|~");
  ck_assert_str_eq(line_of(&ref, 1), ".|~|\\\"}{[|-|-|-|-|-|-|-|-|-|-|-|-|-|-|-|-|-|-|-|~|~|~|~|~");
  ck_assert_str_eq(line_of(&ref, 2), ".|~|{\"\\\\|-|-|-|-|-|-|-|-|-|-|-|-|-|-|-|-|-|-|-|~|~|~|~|~");
  ck_assert_str_eq(line_of(&ref, 3), ".|~|x\\\\\\\\\"]|-|-|-|-|-|-|-|-|-|-|-|-|-|-|-|-|-|-|-|~|~|~|~|~");
  size_t n = strlen(js);
  for (int simd = 0; simd <= 1; simd++) {
    for (long chunk = 1; chunk <= (long)n; chunk++) {
      run_opts o = {0};
      o.chunk = chunk;
      o.simd = simd;
      o.window = 64; /* forces compaction and growth all the time */
      result r = run_str(js, &o);
      ck_assert_msg(r.st == FSDPA_OK, "chunk %ld simd %d: %s", chunk, simd, r.msg);
      ck_assert_str_eq(r.r.log.p, ref.r.log.p);
      res_free(&r);
    }
  }
  res_free(&ref);
}
END_TEST

START_TEST(t_split_keys_around_events) {
  /* traceEvents first, last, in the middle; nested "traceEvents" keys are
   * not the array; an empty array; a non-array traceEvents is no trace */
  result r = run_simple("{\"traceEvents\":[{\"ph\":\"X\"}],\"x\":{\"traceEvents\":[{\"ph\":\"Y\"}]},\"y\":[{}]}");
  ck_assert_msg(r.st == FSDPA_OK, "%s", r.msg);
  ck_assert_uint_eq(r.r.events, 1);
  res_free(&r);
  r = run_simple("{\"x\":{\"traceEvents\":[{\"ph\":\"Y\"}]},\"traceEvents\":[{\"ph\":\"X\"},{\"ph\":\"i\"}]}");
  ck_assert_msg(r.st == FSDPA_OK, "%s", r.msg);
  ck_assert_uint_eq(r.r.events, 2);
  ck_assert(r.r.log.p[0] == 'X');
  res_free(&r);
  r = run_simple("{ \"traceEvents\" : [ ] }");
  ck_assert_msg(r.st == FSDPA_OK, "%s", r.msg);
  ck_assert_uint_eq(r.r.events, 0);
  res_free(&r);
  r = run_simple("{\"traceEvents\": {\"a\": [{}]}}");
  ck_assert_int_eq(r.st, FSDPA_ENOTTRACE);
  res_free(&r);
  r = run_simple("{\"trace\\u0045vents\": [{}]}"); /* escaped keys are not matched */
  ck_assert_int_eq(r.st, FSDPA_ENOTTRACE);
  res_free(&r);
}
END_TEST

START_TEST(t_split_bare_arrays) {
  result r = run_simple("[{\"ph\":\"X\",\"ts\":1},{\"ph\":\"i\",\"ts\":2}]");
  ck_assert_msg(r.st == FSDPA_OK, "%s", r.msg);
  ck_assert_uint_eq(r.r.events, 2);
  res_free(&r);
  /* Chrome JSON Array Format: the closing bracket is optional */
  static const char *unterminated[] = {"[{\"ph\":\"X\",\"ts\":1},{\"ph\":\"i\",\"ts\":2}",
                                       "[{\"ph\":\"X\",\"ts\":1},\n{\"ph\":\"i\",\"ts\":2},\n",
                                       "\n[{\"ph\":\"X\",\"ts\":1}, {\"ph\":\"i\",\"ts\":2}  \n"};
  for (size_t k = 0; k < 3; k++) {
    for (long chunk = 0; chunk <= 5; chunk += 5) {
      run_opts o = {0};
      o.chunk = chunk;
      o.simd = -1;
      r = run_str(unterminated[k], &o);
      ck_assert_msg(r.st == FSDPA_OK, "%s: %s", unterminated[k], r.msg);
      ck_assert_uint_eq(r.r.events, 2);
      res_free(&r);
    }
  }
  r = run_simple("[");
  ck_assert_msg(r.st == FSDPA_OK, "%s", r.msg);
  ck_assert_uint_eq(r.r.events, 0);
  res_free(&r);
  r = run_simple("[]");
  ck_assert_int_eq(r.st, FSDPA_OK);
  res_free(&r);
  /* ...but an event cut in the middle is truncation */
  r = run_simple("[{\"ph\":\"X\",\"ts\":1},{\"ph\":\"i\",");
  ck_assert_int_eq(r.st, FSDPA_ETRUNCATED);
  ck_assert_uint_eq(r.r.events, 1);
  res_free(&r);
  /* and garbage after a closed bare array is an error */
  r = run_simple("[{}] x");
  ck_assert_int_eq(r.st, FSDPA_EPARSE);
  ck_assert_int_eq(r.off, 5);
  res_free(&r);
}
END_TEST

/* ------------------------------------------------------------------ */
/* invariance                                                          */

static void check_same(const char *data, size_t len, const result *ref, const run_opts *o, const char *what) {
  result r = run_input(data, len, o);
  ck_assert_msg(r.st == ref->st, "%s: status %d vs %d (%s)", what, r.st, ref->st, r.msg);
  ck_assert_msg(r.off == ref->off, "%s: offset %lld vs %lld", what, (long long)r.off, (long long)ref->off);
  ck_assert_msg(strcmp(r.msg, ref->msg) == 0, "%s: message [%s] vs [%s]", what, r.msg, ref->msg);
  ck_assert_msg(r.r.log.len == ref->r.log.len && (!r.r.log.len || memcmp(r.r.log.p, ref->r.log.p, r.r.log.len) == 0),
                "%s: different event sequence", what);
  res_free(&r);
}

START_TEST(t_chunk_window_simd_invariance) {
  for (int pretty = 0; pretty <= 1; pretty++) {
    size_t len;
    char *js = make_trace(300, pretty, &len);
    run_opts o = {0};
    o.simd = -1;
    result ref = run_input(js, len, &o);
    ck_assert_msg(ref.st == FSDPA_OK, "%s", ref.msg);
    ck_assert_uint_eq(ref.r.events, 300);
    ck_assert_int_eq(ref.r.meta.rank, 3);
    ck_assert_int_eq(ref.r.meta.world_size, 8);
    ck_assert_int_eq(ref.r.meta.base_time_ns, INT64_C(1767189312000000000));
    static const long chunks[] = {0, 1, 7, 64, 4096, -1, -100, -5000};
    static const size_t windows[] = {0, 64, 1000, 4096};
    char what[128];
    for (size_t c = 0; c < sizeof chunks / sizeof chunks[0]; c++) {
      for (size_t w = 0; w < sizeof windows / sizeof windows[0]; w++) {
        for (int simd = 0; simd <= 1; simd++) {
          if (chunks[c] == 1 && windows[w] != 64 && windows[w] != 0) continue; /* keep it quick */
          o.chunk = chunks[c];
          o.seed = (unsigned)(c * 31 + w + 1);
          o.window = windows[w];
          o.simd = simd;
          snprintf(what, sizeof what, "pretty %d chunk %ld window %zu simd %d", pretty, chunks[c], windows[w], simd);
          check_same(js, len, &ref, &o, what);
        }
      }
    }
    /* the same through gzip */
    size_t glen;
    char *g = gz(js, len, &glen);
    for (size_t c = 0; c < sizeof chunks / sizeof chunks[0]; c++) {
      o.chunk = chunks[c];
      o.window = 0;
      o.simd = -1;
      snprintf(what, sizeof what, "gzip pretty %d chunk %ld", pretty, chunks[c]);
      result r = run_input(g, glen, &o);
      ck_assert_msg(r.st == FSDPA_OK, "%s: %s", what, r.msg);
      ck_assert_uint_eq(r.json_bytes, len);
      ck_assert_uint_eq(r.bytes_in, glen);
      ck_assert_msg(strcmp(r.r.log.p, ref.r.log.p) == 0, "%s", what);
      res_free(&r);
    }
    free(g);
    res_free(&ref);
    free(js);
  }
}
END_TEST

/* Random byte soup over the splitter's alphabet: the SIMD and the scalar
 * splitter must agree on everything (status, offset, message, events). */
START_TEST(t_simd_matches_scalar_on_noise) {
  fa_alloc a;
  fa_init(&a, NULL, 0);
  fsdpa_input *probe = NULL;
  ck_assert_int_eq(input_new(&probe, &a, "p", 0, NULL), FSDPA_OK);
  int have_simd = input_simd_active(probe);
  input_free(probe);
  if (!have_simd) {
    printf("# SKIP: no AVX2/PCLMUL on this CPU\n");
    return;
  }
  static const char alpha[] = "{{}}\"\"\\\\,, :[]ab1";
  unsigned seed = 12345;
  char buf[700];
  for (int iter = 0; iter < 3000; iter++) {
    size_t n = 0;
    n += (size_t)snprintf(buf, sizeof buf, "%s", iter % 2 ? "{\"traceEvents\":[" : "[");
    size_t body = 1 + rnd(&seed) % 600;
    for (size_t k = 0; k < body; k++) {
      unsigned r = rnd(&seed);
      if (r % 7 == 0) {
        const char *ev = "{\"ph\":\"X\",\"name\":\"a\\\"}\"},";
        size_t el = strlen(ev);
        if (n + el < sizeof buf - 1) {
          memcpy(buf + n, ev, el);
          n += el;
        }
      } else if (n < sizeof buf - 1) {
        buf[n++] = alpha[r % (sizeof alpha - 1)];
      }
    }
    run_opts o = {0};
    o.simd = 0;
    o.chunk = (long)(1 + iter % 70);
    o.window = 64 + (size_t)(iter % 5) * 100;
    result ref = run_input(buf, n, &o);
    o.simd = 1;
    o.chunk = -(long)(1 + iter % 200);
    o.seed = (unsigned)iter + 1;
    check_same(buf, n, &ref, &o, "noise");
    res_free(&ref);
  }
}
END_TEST

/* ------------------------------------------------------------------ */
/* gzip                                                                */

START_TEST(t_gzip_members_truncation_corruption) {
  size_t len;
  char *js = make_trace(120, 1, &len);
  run_opts o = {0};
  o.simd = -1;
  result ref = run_input(js, len, &o);
  ck_assert_int_eq(ref.st, FSDPA_OK);

  /* concatenated members, split anywhere (here: mid-event), plus zero padding */
  size_t cut = len / 3, g1n, g2n;
  char *g1 = gz(js, cut, &g1n), *g2 = gz(js + cut, len - cut, &g2n);
  char *cat = malloc(g1n + g2n + 16);
  memcpy(cat, g1, g1n);
  memcpy(cat + g1n, g2, g2n);
  memset(cat + g1n + g2n, 0, 16);
  long chunks[] = {0, 1, 13, 4096, -300};
  for (size_t c = 0; c < 5; c++) {
    o.chunk = chunks[c];
    result r = run_input(cat, g1n + g2n + 16, &o);
    ck_assert_msg(r.st == FSDPA_OK, "chunk %ld: %s", chunks[c], r.msg);
    ck_assert_str_eq(r.r.log.p, ref.r.log.p);
    ck_assert_uint_eq(r.json_bytes, len);
    res_free(&r);
  }
  o.chunk = 0;

  /* truncated gzip: the document is cut too */
  size_t whole_n;
  char *whole = gz(js, len, &whole_n);
  result r = run_input(whole, whole_n / 2, &o);
  ck_assert_int_eq(r.st, FSDPA_ETRUNCATED);
  ck_assert_msg(strstr(r.msg, "gzip") != NULL, "%s", r.msg);
  res_free(&r);
  /* complete JSON but the gzip trailer is missing */
  r = run_input(whole, whole_n - 4, &o);
  ck_assert_int_eq(r.st, FSDPA_ETRUNCATED);
  ck_assert_msg(strstr(r.msg, "gzip") != NULL, "%s", r.msg);
  ck_assert_str_eq(r.r.log.p, ref.r.log.p); /* every event was still delivered */
  res_free(&r);
  /* only the magic */
  r = run_input("\x1f\x8b", 2, &o);
  ck_assert_int_eq(r.st, FSDPA_ETRUNCATED);
  res_free(&r);
  /* corrupt CRC / corrupt data: parse errors that name gzip */
  whole[whole_n - 6] ^= 0x55;
  r = run_input(whole, whole_n, &o);
  ck_assert_int_eq(r.st, FSDPA_EPARSE);
  ck_assert_msg(strstr(r.msg, "gzip") != NULL, "%s", r.msg);
  res_free(&r);
  whole[whole_n - 6] ^= 0x55;
  whole[whole_n / 2] ^= 0xff;
  o.chunk = 7;
  r = run_input(whole, whole_n, &o);
  ck_assert_msg(r.st == FSDPA_EPARSE, "%d %s", r.st, r.msg);
  ck_assert_msg(strstr(r.msg, "gzip") || strstr(r.msg, "JSON") || strstr(r.msg, "UTF"), "%s", r.msg);
  res_free(&r);
  /* trailing garbage after a member */
  memcpy(cat + g1n + g2n, "garbage!", 8);
  o.chunk = 0;
  r = run_input(cat, g1n + g2n + 8, &o);
  ck_assert_int_eq(r.st, FSDPA_EPARSE);
  ck_assert_msg(strstr(r.msg, "gzip") != NULL, "%s", r.msg);
  ck_assert_str_eq(r.r.log.p, ref.r.log.p);
  res_free(&r);
  free(whole);
  free(cat);
  free(g1);
  free(g2);
  res_free(&ref);
  free(js);
}
END_TEST

START_TEST(t_gzip_bomb_and_input_cap) {
  /* 64 MiB of blanks inside the event array compress to ~64 KiB */
  size_t n = (size_t)64 << 20;
  char *js = malloc(n);
  memset(js, ' ', n);
  const char *head = "{\"traceEvents\":[{\"ph\":\"X\"}";
  memcpy(js, head, strlen(head));
  memcpy(js + n - 2, "]}", 2);
  size_t gn;
  char *g = gz(js, n, &gn);
  free(js);
  run_opts o = {0};
  o.simd = -1;
  o.max_input = (uint64_t)1 << 20;
  o.chunk = 65536;
  result r = run_input(g, gn, &o);
  ck_assert_int_eq(r.st, FSDPA_ELIMIT);
  ck_assert_int_eq(r.off, (int64_t)1 << 20);
  ck_assert_uint_eq(r.json_bytes, (uint64_t)1 << 20);
  ck_assert_uint_eq(r.r.events, 1); /* the event before the cap was delivered */
  ck_assert_msg(strstr(r.msg, "max_input_bytes") != NULL, "%s", r.msg);
  ck_assert(r.peak < ((uint64_t)8 << 20));
  res_free(&r);
  /* without the cap it parses, in constant memory */
  o.max_input = 0;
  r = run_input(g, gn, &o);
  ck_assert_msg(r.st == FSDPA_OK, "%s", r.msg);
  ck_assert(r.peak < ((uint64_t)8 << 20));
  res_free(&r);
  free(g);
  /* plain input: exactly at the cap is fine, one more byte is not */
  const char *t = "{\"traceEvents\":[]}";
  o.max_input = strlen(t);
  o.chunk = 0;
  r = run_str(t, &o);
  ck_assert_int_eq(r.st, FSDPA_OK);
  res_free(&r);
  o.max_input = strlen(t) - 1;
  r = run_str(t, &o);
  ck_assert_int_eq(r.st, FSDPA_ELIMIT);
  res_free(&r);
}
END_TEST

/* ------------------------------------------------------------------ */
/* metadata                                                            */

START_TEST(t_metadata_before_and_after) {
  result r = run_simple(
      "{\"baseTimeNanoseconds\": 1767189312000000000, \"distributedInfo\": {\"backend\": \"nccl\", "
      "\"rank\": 2, \"world_size\": 4}, \"traceEvents\": [{\"ph\":\"X\"}]}");
  ck_assert_int_eq(r.st, FSDPA_OK);
  ck_assert_int_eq(r.r.nmeta, 3);
  ck_assert_str_eq(r.r.log.p,
                   "META after 0 events: rank=-9223372036854775808 world=-9223372036854775808 base=1767189312000000000\n"
                   "META after 0 events: rank=2 world=-9223372036854775808 base=1767189312000000000\n"
                   "META after 0 events: rank=2 world=4 base=1767189312000000000\n"
                   "X|~|~|-|-|-|-|-|-|-|-|-|-|-|-|-|-|-|-|-|-|-|~|~|~|~|~\n");
  res_free(&r);
  /* after the events: every event is delivered before the metadata; only the
   * direct members of distributedInfo count; strings with numbers work */
  r = run_simple(
      "{\"traceEvents\": [{\"ph\":\"X\"},{\"ph\":\"i\"}], \"distributedInfo\": {\"pg_config\": [{\"rank\": 9}], "
      "\"x\": {\"rank\": 8}, \"rank\": \"5\", \"world_size\": 16.0, \"nccl_version\": \"2.27.5\"}, "
      "\"baseTimeNanoseconds\": 17e17, \"other\": {\"distributedInfo\": {\"rank\": 7}}}");
  ck_assert_msg(r.st == FSDPA_OK, "%s", r.msg);
  ck_assert_int_eq(r.r.nmeta, 3);
  ck_assert_int_eq(r.r.meta.rank, 5);
  ck_assert_int_eq(r.r.meta.world_size, 16);
  ck_assert_int_eq(r.r.meta.base_time_ns, INT64_C(1700000000000000000));
  ck_assert_ptr_nonnull(strstr(r.r.log.p, "META after 2 events: rank=5"));
  res_free(&r);
  /* unusable values stay absent, no call */
  r = run_simple("{\"traceEvents\": [], \"distributedInfo\": {\"rank\": 1.5, \"world_size\": null}, "
                 "\"baseTimeNanoseconds\": \"soon\"}");
  ck_assert_int_eq(r.st, FSDPA_OK);
  ck_assert_int_eq(r.r.nmeta, 0);
  res_free(&r);
}
END_TEST

/* ------------------------------------------------------------------ */
/* errors                                                              */

typedef struct err_case {
  const char *js;
  fsdpa_status st;
  long off;          /* -1: FSDPA_ABSENT; -2: the length (end of input); -3: check range */
  const char *what;
  unsigned events;
} err_case;

START_TEST(t_errors_with_offsets) {
  static const err_case cases[] = {
      {"", FSDPA_ENOTTRACE, -1, "empty input", 0},
      {"  \n\t ", FSDPA_ENOTTRACE, -1, "no JSON value", 0},
      {"\xEF\xBB\xBF", FSDPA_ENOTTRACE, -1, "no JSON value", 0},
      {"\x89PNG\r\n\x1a\n\0\0\0\rIHDR", FSDPA_EPARSE, 0, "not JSON", 0},
      {"GIF89a", FSDPA_EPARSE, 0, "not JSON", 0},
      {"\x1f", FSDPA_EPARSE, 0, "not JSON", 0},
      {"42", FSDPA_ENOTTRACE, 0, "not an object or array", 0},
      {" \"traceEvents\"", FSDPA_ENOTTRACE, 1, "not an object or array", 0},
      {"{\"schema\": \"1.0.1\", \"nodes\": [{\"id\": 1}]}", FSDPA_ENOTTRACE, -1, "no traceEvents array", 0},
      {"{\"traceEvents\": [1, 2]}", FSDPA_ENOTTRACE, 17, "not an object", 0},
      {"[{\"ph\":\"X\"}, \"s\"]", FSDPA_ENOTTRACE, 13, "not an object", 1},
      {"{\"traceEvents\": [{\"ph\":\"X\"}]", FSDPA_ETRUNCATED, -2, "truncated", 1},
      {"{\"traceEvents\": [{\"ph\":\"X\"}, {\"ph\":", FSDPA_ETRUNCATED, -2, "inside the traceEvents", 1},
      {"{\"traceEvents\": [], \"traceName\": \"abc", FSDPA_ETRUNCATED, -2, "inside the JSON document", 0},
      {"{\"traceEvents\": [{\"ph\":\"X\"}]} x", FSDPA_EPARSE, 30, "after the JSON document", 1},
      {"{\"traceEvents\": [{\"ph\":\"X\"}]}}", FSDPA_EPARSE, 29, "after the JSON document", 1},
      {"{\"traceEvents\": [{\"ph\":\"X\"} {\"ph\":\"i\"}]}", FSDPA_EPARSE, 28, "expected ','", 1},
      {"{\"traceEvents\": [{\"ph\":\"X\"},, {\"ph\":\"i\"}]}", FSDPA_EPARSE, 28, "unexpected ','", 1},
      {"{\"traceEvents\": [{\"ph\":\"X\"},]}", FSDPA_EPARSE, 28, "trailing ','", 1},
      {"{\"traceEvents\": [,{\"ph\":\"X\"}]}", FSDPA_EPARSE, 17, "unexpected ','", 0},
      {"{\"traceEvents\": [{\"ph\":\"X\"}}]}", FSDPA_EPARSE, 27, "unexpected '}'", 1},
      {"{\"traceEvents\": [{\"ph\":\"X\"}, x]}", FSDPA_EPARSE, 29, "unexpected character", 1},
      {"{\"traceEvents\": [{\"ph\":\"X\"}, {\"ph\" \"X\"}]}", FSDPA_EPARSE, -3, "malformed JSON", 1},
      {"{\"traceEvents\": [{\"ph\":\"X\"}, {\"ph\":\"\xff\"}]}", FSDPA_EPARSE, -3, "malformed JSON", 1},
      {"{\"traceEvents\": [{\"ph\":\"X\"}, {\"ph\":\"a\nb\"}]}", FSDPA_EPARSE, -3, "malformed JSON", 1},
      {"{\"traceEvents\": [{\"ph\":\"X\"}, {\"ph\":\"a\\qb\"}]}", FSDPA_EPARSE, -3, "malformed JSON", 1},
      {"{\"a\": tru, \"traceEvents\": []}", FSDPA_EPARSE, 9, "invalid literal", 0},
      {"{\"a\": 01, \"traceEvents\": []}", FSDPA_EPARSE, 7, "leading zero", 0},
      {"{\"a\": 1.}", FSDPA_EPARSE, 8, "invalid number", 0},
      {"{\"a\": \"\\x\"}", FSDPA_EPARSE, 8, "invalid escape", 0},
      {"{\"a\": \"\\u12G4\"}", FSDPA_EPARSE, 11, "\\u escape", 0},
      {"{\"a\": \"\xc3\x28\"}", FSDPA_EPARSE, 8, "UTF-8", 0},
      {"{\"a\": \"\xed\xa0\x80\"}", FSDPA_EPARSE, 8, "UTF-8", 0},
      {"{\"a\": \"x\ty\"}", FSDPA_EPARSE, 8, "control character", 0},
      {"{\"a\" 1}", FSDPA_EPARSE, 5, "expected ':'", 0},
      {"{\"a\": 1 \"b\": 2}", FSDPA_EPARSE, 8, "expected ','", 0},
      {"{\"a\": [1, 2}", FSDPA_EPARSE, 11, "unexpected '}'", 0},
      {"{1: 2}", FSDPA_EPARSE, 1, "expected a string key", 0},
      {"{\"a\": 1,}", FSDPA_EPARSE, 8, "expected a string key", 0},
      {"{\"a\": @}", FSDPA_EPARSE, 6, "expected a JSON value", 0},
      {"\xEF\xBB", FSDPA_ETRUNCATED, -2, "truncated", 0},
      {"\xEF\xBB{}", FSDPA_EPARSE, 2, "byte order mark", 0},
  };
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
    const err_case *c = &cases[k];
    size_t len = strlen(c->js);
    if (c->js[0] == '\x89') len = 16; /* the PNG signature has NULs */
    static const long chunks[] = {0, 1, 2, 5, 64};
    for (size_t ci = 0; ci < 5; ci++) {
      for (int simd = 0; simd <= 1; simd++) {
        run_opts o = {0};
        o.chunk = chunks[ci];
        o.simd = simd;
        o.window = ci == 4 ? 64 : 0;
        result r = run_input(c->js, len, &o);
        ck_assert_msg(r.st == c->st, "case %zu [%s] chunk %ld: status %d want %d (%s)", k, c->js, chunks[ci], r.st,
                      c->st, r.msg);
        ck_assert_msg(strstr(r.msg, c->what) != NULL, "case %zu: message [%s] lacks [%s]", k, r.msg, c->what);
        ck_assert_msg(strncmp(r.msg, "t.json: ", 8) == 0, "case %zu: [%s]", k, r.msg);
        if (c->off == -1) {
          ck_assert_int_eq(r.off, FSDPA_ABSENT);
        } else if (c->off == -2) {
          ck_assert_int_eq(r.off, (int64_t)len);
        } else if (c->off == -3) {
          /* inside the second event */
          const char *second = strstr(c->js, "}, {") + 3;
          ck_assert_msg(r.off >= (int64_t)(second - c->js) && r.off < (int64_t)len,
                        "case %zu: offset %lld (%s)", k, (long long)r.off, r.msg);
        } else {
          ck_assert_msg(r.off == c->off, "case %zu [%s] chunk %ld simd %d: offset %lld want %ld (%s)", k, c->js,
                        chunks[ci], simd, (long long)r.off, c->off, r.msg);
        }
        if (r.off != FSDPA_ABSENT) {
          char pre[64];
          snprintf(pre, sizeof pre, "t.json: byte %lld: ", (long long)r.off);
          ck_assert_msg(strncmp(r.msg, pre, strlen(pre)) == 0, "case %zu: [%s]", k, r.msg);
        }
        ck_assert_msg(r.r.events == c->events, "case %zu: %llu events", k, (unsigned long long)r.r.events);
        res_free(&r);
      }
    }
  }
}
END_TEST

START_TEST(t_state_and_sink_errors) {
  fa_alloc a;
  fa_init(&a, NULL, 0);
  rec rr;
  memset(&rr, 0, sizeof rr);
  input_sink sink = {rec_event, rec_meta, &rr};
  fsdpa_input *in = NULL;
  ck_assert_int_eq(input_new(NULL, &a, "x", 0, &sink), FSDPA_EINVAL);
  ck_assert_int_eq(input_new(&in, NULL, "x", 0, &sink), FSDPA_EINVAL);
  ck_assert_int_eq(input_new(&in, &a, NULL, 0, &sink), FSDPA_OK);
  ck_assert_str_eq(input_errmsg(in), "");
  ck_assert_int_eq(input_error_offset(in), FSDPA_ABSENT);
  ck_assert_int_eq(input_feed(in, NULL, 1), FSDPA_EINVAL);
  ck_assert_int_eq(input_feed(in, NULL, 0), FSDPA_OK);
  ck_assert_int_eq(input_feed(in, "[{}]", 4), FSDPA_OK);
  ck_assert_int_eq(input_tune(in, 100, 0, 0), FSDPA_ESTATE);
  ck_assert_int_eq(input_finish(in), FSDPA_OK);
  ck_assert_int_eq(input_feed(in, "[", 1), FSDPA_ESTATE);
  ck_assert_int_eq(input_finish(in), FSDPA_ESTATE);
  ck_assert_uint_eq(input_events(in), 1);
  input_free(in);
  input_free(NULL);
  free(rr.log.p);
  ck_assert_uint_eq(a.used, 0);
  ck_assert_int_eq(input_feed(NULL, "x", 1), FSDPA_EINVAL);
  ck_assert_int_eq(input_finish(NULL), FSDPA_EINVAL);

  /* the sink stops the input with its status; later events are not seen */
  size_t len;
  char *js = make_trace(50, 0, &len);
  run_opts o = {0};
  o.simd = -1;
  o.stop_at = 7;
  o.stop_status = FSDPA_ENOMEM;
  for (long chunk = 0; chunk <= 10; chunk += 10) {
    o.chunk = chunk;
    result r = run_input(js, len, &o);
    ck_assert_int_eq(r.st, FSDPA_ENOMEM);
    ck_assert_uint_eq(r.r.events, 6);
    ck_assert_msg(strstr(r.msg, "event handler") != NULL, "%s", r.msg);
    ck_assert(r.off > 0 && r.off < (int64_t)len);
    ck_assert_int_eq(js[r.off], '{');
    res_free(&r);
  }
  free(js);
}
END_TEST

/* ------------------------------------------------------------------ */
/* limits and memory                                                   */

START_TEST(t_big_events_and_limits) {
  /* an event of 3 MiB (a long name) grows the window, then memory stays flat */
  size_t big = (size_t)3 << 20;
  sbuf b = {0};
  sb_str(&b, "{\"traceEvents\":[{\"ph\":\"X\",\"ts\":1},{\"ph\":\"X\",\"name\":\"");
  char *name = malloc(big);
  memset(name, 'n', big);
  sb_add(&b, name, big);
  free(name);
  sb_str(&b, "\",\"ts\":2}");
  for (int i = 0; i < 20000; i++) sb_fmt(&b, ",{\"ph\":\"X\",\"cat\":\"kernel\",\"ts\":%d.5,\"dur\":1}", i);
  sb_str(&b, "]}");
  run_opts o = {0};
  o.simd = -1;
  o.chunk = 100000;
  result r = run_input(b.p, b.len, &o);
  ck_assert_msg(r.st == FSDPA_OK, "%s", r.msg);
  ck_assert_uint_eq(r.r.events, 20002);
  res_free(&r);
  /* max_event below it: ELIMIT at the event, the one before delivered */
  o.max_event = (size_t)1 << 20;
  r = run_input(b.p, b.len, &o);
  ck_assert_int_eq(r.st, FSDPA_ELIMIT);
  ck_assert_uint_eq(r.r.events, 1);
  ck_assert_int_eq(r.off, (int64_t)(strstr(b.p, "},{") + 2 - b.p));
  ck_assert_msg(strstr(r.msg, "event larger than") != NULL, "%s", r.msg);
  res_free(&r);
  free(b.p);
}
END_TEST

START_TEST(t_memory_does_not_grow_with_input) {
  /* ~40 MB of small events: the input's memory is the window + the parser */
  sbuf b = {0};
  sb_str(&b, "{\"traceEvents\":[\n");
  for (int i = 0; i < 150000; i++)
    sb_fmt(&b, "%s{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::mm\",\"pid\":1,\"tid\":1,\"ts\":%d.123,\"dur\":1.5,"
               "\"args\":{\"External id\":%d,\"Input Dims\":[[4096,1024],[1024]],\"Ev Idx\":%d}}",
           i ? ",\n" : "", i, i, i);
  sb_str(&b, "\n]}");
  run_opts o = {0};
  o.simd = -1;
  o.chunk = 1 << 16;
  result r = run_input(b.p, b.len, &o);
  ck_assert_msg(r.st == FSDPA_OK, "%s", r.msg);
  ck_assert_uint_eq(r.r.events, 150000);
  printf("# %zu bytes of JSON: input peak %.2f MiB (window + simdjson)\n", b.len, r.peak / 1048576.0);
  ck_assert(r.peak < ((uint64_t)6 << 20));
  res_free(&r);
  free(b.p);
}
END_TEST

/* An allocator that fails after a budget of calls: every failure must be
 * reported (ENOMEM), nothing may leak or crash. */
typedef struct failing {
  long left;
} failing;
static void *f_malloc(void *ud, size_t n) {
  failing *f = ud;
  if (f->left-- <= 0) return NULL;
  return malloc(n);
}
static void *f_realloc(void *ud, void *p, size_t o, size_t n) {
  (void)o;
  failing *f = ud;
  if (f->left-- <= 0) return NULL;
  return realloc(p, n);
}
static void f_free(void *ud, void *p, size_t n) {
  (void)ud;
  (void)n;
  free(p);
}

START_TEST(t_allocation_failures) {
  size_t len;
  char *js = make_trace(40, 1, &len);
  size_t gn;
  char *g = gz(js, len, &gn);
  int ok_seen = 0;
  for (long budget = 0; budget < 40 && !ok_seen; budget++) {
    for (int gzip = 0; gzip <= 1; gzip++) {
      failing f = {budget};
      fsdpa_allocator al = {sizeof al, f_malloc, f_realloc, f_free, &f};
      run_opts o = {0};
      o.simd = -1;
      o.user_alloc = &al;
      o.window = 256; /* growth needs reallocations too */
      result r = gzip ? run_input(g, gn, &o) : run_input(js, len, &o);
      ck_assert_msg(r.st == FSDPA_OK || r.st == FSDPA_ENOMEM, "budget %ld: %d %s", budget, r.st, r.msg);
      if (r.st == FSDPA_OK && gzip) ok_seen = 1;
      res_free(&r);
    }
  }
  ck_assert(ok_seen);
  free(g);
  free(js);
}
END_TEST

/* ------------------------------------------------------------------ */
/* corpus (input level): every real trace decodes identically whole and in
 * odd chunks with the scalar splitter and a tiny window; the execution trace
 * is rejected.  (test_corpus compares the counts with count_events.py.) */

START_TEST(t_corpus_decodes_the_same_in_any_chunking) {
  const char *dir = tu_corpus_dir();
  if (!dir) return;
  char **files = NULL;
  size_t nf = tu_corpus_files(dir, &files);
  int traces = 0;
  for (size_t i = 0; i < nf; i++) {
    size_t n;
    char *raw = tu_read_file(files[i], &n);
    ck_assert_ptr_nonnull(raw);
    run_opts o = {0};
    o.simd = -1;
    o.hash_only = 1;
    result a = run_input(raw, n, &o);
    if (strstr(files[i], "execution_trace")) {
      ck_assert_msg(a.st == FSDPA_ENOTTRACE, "%s: %d %s", files[i], a.st, a.msg);
      ck_assert_ptr_nonnull(strstr(a.msg, "no traceEvents array"));
    } else {
      ck_assert_msg(a.st == FSDPA_OK, "%s: %s", files[i], a.msg);
      o.chunk = 4093;
      o.simd = 0;
      o.window = 4096;
      result b = run_input(raw, n, &o);
      ck_assert_msg(b.st == FSDPA_OK, "%s: %s", files[i], b.msg);
      ck_assert_uint_eq(a.r.events, b.r.events);
      ck_assert_msg(a.r.hash == b.r.hash, "%s: chunked decode differs", files[i]);
      res_free(&b);
      traces++;
    }
    res_free(&a);
    free(raw);
  }
  tu_free_paths(files, nf);
  printf("# corpus: %d traces decoded identically in two chunkings\n", traces);
  ck_assert_int_gt(traces, 20);
}
END_TEST

/* ------------------------------------------------------------------ */

int main(void) {
  Suite *s = suite_create("input");
  TU_CASE(s, "numbers", 0, NULL, t_num_us_to_ns_exact, t_num_integers_and_ids);
  TU_CASE(s, "fields", 0, NULL, t_fields_decoded, t_bad_times_are_errors);
  TU_CASE(s, "splitter", 0, NULL, t_split_tricky_strings_any_chunking, t_split_keys_around_events,
          t_split_bare_arrays);
  TU_CASE(s, "invariance", 600, NULL, t_chunk_window_simd_invariance, t_simd_matches_scalar_on_noise);
  TU_CASE(s, "gzip", 600, NULL, t_gzip_members_truncation_corruption, t_gzip_bomb_and_input_cap);
  TU_CASE(s, "metadata", 0, NULL, t_metadata_before_and_after);
  TU_CASE(s, "errors", 0, NULL, t_errors_with_offsets, t_state_and_sink_errors);
  TU_CASE(s, "limits", 600, NULL, t_big_events_and_limits, t_memory_does_not_grow_with_input,
          t_allocation_failures);
  TU_CASE(s, "corpus", 1200, NULL, t_corpus_decodes_the_same_in_any_chunking);
  return tu_run_suite(s);
}
