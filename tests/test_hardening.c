/* Hardening: bad inputs (a real trace truncated at every byte, invalid
 * UTF-8, deep nesting, 400-digit numbers, NaN/Infinity, 100 MB strings,
 * duplicate keys, a wrong type in every field the parser reads, a gzip
 * bomb) end in a clear status and message, never a crash or a leak; an
 * allocation failure injected at every allocation of a real run (ingest,
 * every public query and list, reports, findings, summaries, annotate)
 * gives FSDPA_ENOMEM with a message on the failed call's own channel
 * (fsdpa_errmsg() for a call on one context, its fsdpa_error otherwise),
 * leaks nothing and leaves contexts that report again and answer the
 * failed call the same as without the failure; the memory cap refuses to
 * grow with FSDPA_ELIMIT.
 *
 * Every context here runs on a test allocator that checks the size passed
 * to free/realloc and counts live bytes: 0 after fsdpa_ctx_free() is the
 * leak check, in any build (ASan/valgrind add theirs). */
/* fsdpa_annotate_* are experimental */
#define FSDPA_EXPERIMENTAL
#include <check.h>
#include <execinfo.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>
#include "testutil.h"
#include "ctx.h"
#include "input/input.h"

/* ------------------------------------------------------------------ */
/* test allocator                                                      */

typedef union th_hdr {
  size_t n;
  max_align_t align;
} th_hdr;

typedef struct theap {
  uint64_t live;     /* bytes allocated and not freed */
  uint64_t count;    /* allocations and reallocations so far */
  uint64_t fail_at;  /* refuse allocation number fail_at (1-based); 0 = never */
  int injected;      /* the refusal happened */
  int census;        /* record the call stack of every allocation */
  uint64_t *stacks;  /* open-addressing set of stack hashes (census) */
  size_t nstacks, capstacks;
} theap;

static void stack_add(theap *h, uint64_t k) {
  if (!k) k = 1;
  if ((h->nstacks + 1) * 2 > h->capstacks) {
    size_t nc = h->capstacks ? h->capstacks * 2 : 1024;
    uint64_t *ns = calloc(nc, sizeof *ns);
    ck_assert_ptr_nonnull(ns);
    for (size_t i = 0; i < h->capstacks; i++) {
      if (!h->stacks[i]) continue;
      size_t j = h->stacks[i] & (nc - 1);
      while (ns[j]) j = (j + 1) & (nc - 1);
      ns[j] = h->stacks[i];
    }
    free(h->stacks);
    h->stacks = ns;
    h->capstacks = nc;
  }
  size_t j = k & (h->capstacks - 1);
  while (h->stacks[j]) {
    if (h->stacks[j] == k) return;
    j = (j + 1) & (h->capstacks - 1);
  }
  h->stacks[j] = k;
  h->nstacks++;
}

/* A census records where each allocation comes from: the hash of the
 * return addresses of the call stack (the allocator frames are the same
 * for all, so distinct hashes are distinct call paths). */
static void census(theap *h) {
  void *fr[24];
  int n = backtrace(fr, 24);
  uint64_t k = 1469598103934665603ull;
  for (int i = 1; i < n; i++) k = (k ^ (uint64_t)(uintptr_t)fr[i]) * 1099511628211ull;
  stack_add(h, k);
}

static int take(theap *h) {
  h->count++;
  if (h->fail_at && h->count == h->fail_at) {
    h->injected = 1;
    if (getenv("FSDPA_FI_BACKTRACE")) { /* debugging aid: where the refused allocation came from */
      void *fr[32];
      fprintf(stderr, "refused allocation %llu:\n", (unsigned long long)h->count);
      backtrace_symbols_fd(fr, backtrace(fr, 32), 2);
    }
    return 0;
  }
  if (h->census) census(h);
  return 1;
}

static void *t_malloc(void *ud, size_t n) {
  theap *h = ud;
  if (!take(h)) return NULL;
  th_hdr *p = malloc(sizeof *p + n);
  if (!p) return NULL;
  p->n = n;
  h->live += n;
  return p + 1;
}

static void check_size(void *q, size_t n, const char *op) {
  th_hdr *p = (th_hdr *)q - 1;
  ck_assert_msg(p->n == n, "%s with size %zu of a block of %zu bytes", op, n, p->n);
}

static void *t_realloc(void *ud, void *q, size_t old_n, size_t new_n) {
  theap *h = ud;
  check_size(q, old_n, "realloc");
  if (!take(h)) return NULL;
  th_hdr *p = realloc((th_hdr *)q - 1, sizeof *p + new_n);
  if (!p) return NULL;
  p->n = new_n;
  h->live = h->live - old_n + new_n;
  return p + 1;
}

static void t_free(void *ud, void *q, size_t n) {
  theap *h = ud;
  check_size(q, n, "free");
  ck_assert_uint_ge(h->live, n);
  h->live -= n;
  free((th_hdr *)q - 1);
}

static fsdpa_allocator t_allocator(theap *h) {
  fsdpa_allocator a;
  memset(&a, 0, sizeof a);
  a.size = sizeof a;
  a.malloc_fn = t_malloc;
  a.realloc_fn = t_realloc;
  a.free_fn = t_free;
  a.ud = h;
  return a;
}

/* A context on heap h (and its allocator a, which must outlive it). */
static fsdpa_ctx *hctx(theap *h, fsdpa_allocator *a, uint64_t max_input, uint64_t max_mem) {
  *a = t_allocator(h);
  fsdpa_options o;
  fsdpa_options_init(&o);
  o.allocator = a;
  o.max_input_bytes = max_input;
  o.max_memory_bytes = max_mem;
  o.name = "t";
  fsdpa_ctx *c = NULL;
  ck_assert_int_eq(fsdpa_ctx_new(&c, &o), FSDPA_OK);
  return c;
}

static void hfree(fsdpa_ctx *c, theap *h) {
  fsdpa_ctx_free(c);
  ck_assert_msg(h->live == 0, "%llu bytes leaked", (unsigned long long)h->live);
}

/* Feed `s` (whole) and finish; first failing status. */
static fsdpa_status feed_str(fsdpa_ctx *c, const char *s, size_t n) {
  fsdpa_status st = fsdpa_feed(c, s, n);
  if (st) return st;
  return fsdpa_finish(c);
}

/* The JSON report must always be writable after an input error. */
static void report_ok(fsdpa_ctx *c) {
  char *out = NULL;
  size_t len = 0;
  fsdpa_error e;
  fsdpa_error_init(&e);
  fsdpa_status st = fsdpa_report(&c, NULL, 1, NULL, &out, &len, &e);
  ck_assert_msg(st == FSDPA_OK, "report after an input error: %s: %s", fsdpa_status_str(st), e.message);
  ck_assert_uint_eq(strlen(out), len);
  fsdpa_free(out);
}

/* One bad document: expected status, and a message that contains `needle`
 * (when not NULL).  Returns the error offset. */
static int64_t expect_bad(const char *doc, size_t n, fsdpa_status want, const char *needle) {
  theap h = {0};
  fsdpa_allocator a;
  fsdpa_ctx *c = hctx(&h, &a, 0, 0);
  fsdpa_status st = feed_str(c, doc, n);
  ck_assert_msg(st == want, "want %s, got %s (%s) for %.80s", fsdpa_status_str(want), fsdpa_status_str(st),
                fsdpa_errmsg(c), doc);
  if (want != FSDPA_OK) {
    ck_assert_msg(fsdpa_errmsg(c)[0], "no message for %s", fsdpa_status_str(st));
    if (needle)
      ck_assert_msg(strstr(fsdpa_errmsg(c), needle), "message '%s' lacks '%s'", fsdpa_errmsg(c), needle);
  }
  int64_t off = fsdpa_error_offset(c);
  report_ok(c);
  hfree(c, &h);
  return off;
}
#define BAD(doc, want, needle) expect_bad(doc, strlen(doc), want, needle)

static char *gunzip(const char *z, size_t zn, size_t *n) {
  z_stream zs;
  memset(&zs, 0, sizeof zs);
  ck_assert_int_eq(inflateInit2(&zs, 15 + 32), Z_OK);
  size_t cap = zn * 8 + 1024, len = 0;
  char *out = malloc(cap);
  zs.next_in = (Bytef *)(uintptr_t)z;
  zs.avail_in = (uInt)zn;
  int r;
  do {
    if (len == cap) out = realloc(out, cap *= 2);
    ck_assert_ptr_nonnull(out);
    zs.next_out = (Bytef *)out + len;
    zs.avail_out = (uInt)(cap - len);
    r = inflate(&zs, Z_NO_FLUSH);
    len = cap - zs.avail_out;
  } while (r == Z_OK);
  ck_assert_int_eq(r, Z_STREAM_END);
  inflateEnd(&zs);
  *n = len;
  return out;
}

static char *corpus_file(const char *rel) {
  const char *dir = tu_corpus_dir();
  if (!dir) return NULL;
  char *p = malloc(4096);
  snprintf(p, 4096, "%s/%s", dir, rel);
  FILE *f = fopen(p, "rb");
  if (!f) {
    printf("# SKIP %s: not in the corpus\n", p);
    free(p);
    return NULL;
  }
  fclose(f);
  return p;
}

#define EVENT_SYNC "hta/critical_path/cuda_event_sync/event_sync_trace.json.gz"

/* ------------------------------------------------------------------ */
/* truncation at every byte                                            */

START_TEST(t_truncated_at_every_offset) {
  char *path = corpus_file(EVENT_SYNC);
  if (!path) return;
  size_t zn = 0, n = 0;
  char *z = tu_read_file(path, &zn);
  ck_assert_ptr_nonnull(z);
  char *doc = gunzip(z, zn, &n);
  ck_assert_uint_gt(n, 10000);
  size_t end = n; /* after the document's last byte: the rest is blank */
  while (end && strchr(" \t\r\n", doc[end - 1])) end--;
  size_t counts[4] = {0, 0, 0, 0};
  for (size_t k = 0; k < n; k++) {
    theap h = {0};
    fsdpa_allocator a;
    fsdpa_ctx *c = hctx(&h, &a, 0, 0);
    fsdpa_status st = feed_str(c, doc, k);
    if (k >= end) {
      ck_assert_msg(st == FSDPA_OK, "complete document of %zu bytes: %s", k, fsdpa_status_str(st));
    } else if (strspn(doc, " \t\r\n") >= k) {
      /* nothing but blanks is no JSON value at all, not a truncated trace */
      ck_assert_msg(st == FSDPA_ENOTTRACE, "blank prefix of %zu bytes: %s", k, fsdpa_status_str(st));
    } else {
      ck_assert_msg(st == FSDPA_ETRUNCATED || st == FSDPA_EPARSE, "prefix of %zu bytes: %s (%s)", k,
                    fsdpa_status_str(st), fsdpa_errmsg(c));
      int64_t off = fsdpa_error_offset(c);
      ck_assert_msg(off >= 0 && off <= (int64_t)k, "prefix %zu: error offset %lld", k, (long long)off);
      ck_assert_msg(strstr(fsdpa_errmsg(c), "t: byte "), "prefix %zu: message '%s'", k, fsdpa_errmsg(c));
    }
    counts[st == FSDPA_ETRUNCATED ? 0 : st == FSDPA_EPARSE ? 1 : st == FSDPA_ENOTTRACE ? 2 : 3]++;
    if (k % 97 == 0) report_ok(c); /* the events decoded so far are analysable */
    hfree(c, &h);
  }
  /* the whole document is fine */
  ck_assert_int_eq(expect_bad(doc, n, FSDPA_OK, NULL), FSDPA_ABSENT);
  printf("# truncation: %zu prefixes: %zu ETRUNCATED, %zu EPARSE, %zu ENOTTRACE (blank), %zu OK (only blanks cut)\n",
         n, counts[0], counts[1], counts[2], counts[3]);
  free(doc);
  free(z);
  free(path);
}
END_TEST

/* gzip truncated at every compressed byte: ETRUNCATED (or EPARSE for a cut
 * gzip header), and the bytes before still decode. */
START_TEST(t_gzip_truncated_at_every_offset) {
  char *path = corpus_file(EVENT_SYNC);
  if (!path) return;
  size_t zn = 0;
  char *z = tu_read_file(path, &zn);
  for (size_t k = 1; k < zn; k++) {
    theap h = {0};
    fsdpa_allocator a;
    fsdpa_ctx *c = hctx(&h, &a, 0, 0);
    fsdpa_status st = feed_str(c, z, k);
    ck_assert_msg(st == FSDPA_ETRUNCATED || st == FSDPA_EPARSE, "gzip prefix %zu: %s (%s)", k,
                  fsdpa_status_str(st), fsdpa_errmsg(c));
    ck_assert(fsdpa_errmsg(c)[0]);
    hfree(c, &h);
  }
  free(z);
  free(path);
}
END_TEST

/* ------------------------------------------------------------------ */
/* invalid UTF-8, nesting, numbers, NaN                                */

START_TEST(t_invalid_utf8) {
  static const char *const bad[] = {
      "\xC0\xAF",         /* overlong '/' */
      "\xE0\x80\xAF",     /* overlong, 3 bytes */
      "\xED\xA0\x80",     /* UTF-16 surrogate */
      "\xF4\x90\x80\x80", /* > U+10FFFF */
      "\x80",             /* lone continuation */
      "\xC3",             /* cut sequence */
      "\xFF",             /* never valid */
      "\xE2\x82",         /* cut 3-byte sequence */
  };
  char doc[256];
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    /* in a string of an event: the offset is the bad byte */
    int pre = snprintf(doc, sizeof doc, "{\"traceEvents\":[{\"ph\":\"X\",\"name\":\"ab");
    snprintf(doc + pre, sizeof doc - (size_t)pre, "%s\",\"ts\":1}]}", bad[i]);
    int64_t off = BAD(doc, FSDPA_EPARSE, "t: byte ");
    ck_assert_msg(off == pre, "case %zu: offset %lld, bad byte at %d", i, (long long)off, pre);
    /* in an args string of a later event (the first is delivered) */
    snprintf(doc, sizeof doc, "{\"traceEvents\":[{\"ph\":\"i\",\"ts\":1},{\"ph\":\"X\",\"ts\":2,\"args\":{\"x\":\"%s\"}}]}",
             bad[i]);
    BAD(doc, FSDPA_EPARSE, NULL);
    /* outside the events: a top-level key and a metadata value */
    snprintf(doc, sizeof doc, "{\"k%s\":1,\"traceEvents\":[]}", bad[i]);
    BAD(doc, FSDPA_EPARSE, NULL);
    snprintf(doc, sizeof doc, "{\"traceEvents\":[],\"distributedInfo\":{\"backend\":\"%s\"}}", bad[i]);
    BAD(doc, FSDPA_EPARSE, NULL);
  }
  /* valid multi-byte text everywhere is fine */
  BAD("{\"traceEvents\":[{\"ph\":\"X\",\"name\":\"\xC3\xA9\xE2\x82\xAC\xF0\x9F\x98\x80\",\"ts\":1}],\"\xC3\xA9\":1}",
      FSDPA_OK, NULL);
}
END_TEST

static char *repeat(const char *head, const char *unit, size_t times, const char *tail, size_t *len) {
  size_t hn = strlen(head), un = strlen(unit), tn = strlen(tail);
  size_t n = hn + un * times + tn;
  char *s = malloc(n + 1);
  ck_assert_ptr_nonnull(s);
  memcpy(s, head, hn);
  for (size_t i = 0; i < times; i++) memcpy(s + hn + i * un, unit, un);
  memcpy(s + hn + un * times, tail, tn + 1);
  *len = n;
  return s;
}

START_TEST(t_deep_nesting) {
  enum { DEEP = 100000 };
  size_t n;
  /* 10^5 arrays inside an event's args, closed and unclosed */
  size_t on;
  char *open = repeat("{\"traceEvents\":[{\"ph\":\"X\",\"ts\":1,\"args\":{\"a\":", "[", DEEP, "", &on);
  n = on;
  char *closed = malloc(n + DEEP + 8);
  memcpy(closed, open, n);
  memset(closed + n, ']', DEEP);
  memcpy(closed + n + DEEP, "}}]}", 5);
  /* valid JSON in a field nobody reads: accepted (the event is kept) or
   * refused for its depth, never a stack overflow */
  theap h = {0};
  fsdpa_allocator a;
  fsdpa_ctx *c = hctx(&h, &a, 0, 0);
  fsdpa_status st = feed_str(c, closed, n + DEEP + 4);
  fsdpa_stats s = {sizeof s};
  ck_assert_int_eq(fsdpa_stats_get(c, &s), FSDPA_OK);
  ck_assert_msg((st == FSDPA_OK && s.events == 1) || (st == FSDPA_EPARSE && fsdpa_errmsg(c)[0]), "%s: %s",
                fsdpa_status_str(st), fsdpa_errmsg(c));
  printf("# 10^5 nested arrays in an unread arg: %s\n", fsdpa_status_str(st));
  hfree(c, &h);
  /* in a field that is read: not a number */
  free(closed);
  char *tail = malloc(DEEP + 8);
  memset(tail, ']', DEEP);
  memcpy(tail + DEEP, "}]}", 4);
  closed = repeat("{\"traceEvents\":[{\"ph\":\"X\",\"ts\":", "[", DEEP, tail, &n);
  free(tail);
  expect_bad(closed, n, FSDPA_EPARSE, "\"ts\" is not a number");
  c = hctx(&h, &a, 0, 0);
  st = feed_str(c, open, on);
  ck_assert_msg(st == FSDPA_ETRUNCATED || st == FSDPA_EPARSE, "%s", fsdpa_status_str(st));
  hfree(c, &h);
  free(open);
  free(closed);
  /* 10^5 objects at the top level (outside the events) */
  char *top = repeat("", "{\"a\":", DEEP, "1", &n);
  expect_bad(top, n, FSDPA_EPARSE, "nested too deeply");
  free(top);
  /* 10^5 arrays as the first element of traceEvents */
  char *arr = repeat("{\"traceEvents\":", "[", DEEP, "", &n);
  c = hctx(&h, &a, 0, 0);
  st = feed_str(c, arr, n);
  ck_assert_msg(st == FSDPA_ENOTTRACE || st == FSDPA_EPARSE || st == FSDPA_ETRUNCATED, "%s: %s",
                fsdpa_status_str(st), fsdpa_errmsg(c));
  ck_assert(fsdpa_errmsg(c)[0]);
  hfree(c, &h);
  free(arr);
  /* a bare top-level array of 10^5 arrays */
  arr = repeat("", "[", DEEP, "", &n);
  c = hctx(&h, &a, 0, 0);
  st = feed_str(c, arr, n);
  ck_assert_msg(st == FSDPA_ENOTTRACE || st == FSDPA_EPARSE || st == FSDPA_ETRUNCATED, "%s", fsdpa_status_str(st));
  hfree(c, &h);
  free(arr);
}
END_TEST

/* Decoded events, through the input layer's sink (internal API). */
typedef struct cap_sink {
  fsdpa_event ev;  /* the last event, strings copied below */
  char strs[8][128];
  size_t n;
} cap_sink;

static void cap_str(cap_sink *k, int i, const char **s, size_t *len) {
  if (!*s) return;
  size_t m = *len < sizeof k->strs[i] - 1 ? *len : sizeof k->strs[i] - 1;
  memcpy(k->strs[i], *s, m);
  k->strs[i][m] = 0;
  *s = k->strs[i];
}

static fsdpa_status cap_event(void *ud, const fsdpa_event *ev) {
  cap_sink *k = ud;
  k->ev = *ev;
  cap_str(k, 0, &k->ev.cat, &k->ev.cat_len);
  cap_str(k, 1, &k->ev.name, &k->ev.name_len);
  cap_str(k, 2, &k->ev.collective, &k->ev.collective_len);
  cap_str(k, 3, &k->ev.dtype, &k->ev.dtype_len);
  cap_str(k, 4, &k->ev.pg_name, &k->ev.pg_name_len);
  cap_str(k, 5, &k->ev.sync_kind, &k->ev.sync_kind_len);
  cap_str(k, 6, &k->ev.label, &k->ev.label_len);
  k->n++;
  return FSDPA_OK;
}

/* Decode one document; the status, and the last event in *k. */
static fsdpa_status decode(const char *doc, cap_sink *k, char *msg, size_t msg_len) {
  memset(k, 0, sizeof *k);
  theap h = {0};
  fsdpa_allocator ua = t_allocator(&h);
  fa_alloc a;
  fa_init(&a, &ua, 0);
  input_sink sink = {cap_event, NULL, k};
  fsdpa_input *in = NULL;
  ck_assert_int_eq(input_new(&in, &a, "t", 0, &sink), FSDPA_OK);
  fsdpa_status st = input_feed(in, doc, strlen(doc));
  if (!st) st = input_finish(in);
  if (msg) snprintf(msg, msg_len, "%s", input_errmsg(in));
  input_free(in);
  ck_assert_uint_eq(h.live, 0);
  return st;
}

START_TEST(t_long_numbers_nan_infinity) {
  char d400[401], f400[403], doc[2048], msg[512];
  memset(d400, '9', 400);
  d400[400] = 0;
  memcpy(f400, "0.", 2);
  memset(f400 + 2, '0', 399);
  f400[401] = '1';
  f400[402] = 0;
  cap_sink k;
  /* 400 digits: ts/dur out of range is an error; ids are absent */
  snprintf(doc, sizeof doc, "{\"traceEvents\":[{\"ph\":\"X\",\"ts\":%s}]}", d400);
  ck_assert_int_eq(decode(doc, &k, msg, sizeof msg), FSDPA_EPARSE);
  ck_assert_msg(strstr(msg, "\"ts\" out of range"), "%s", msg);
  snprintf(doc, sizeof doc, "{\"traceEvents\":[{\"ph\":\"X\",\"ts\":1,\"dur\":-%s}]}", d400);
  ck_assert_int_eq(decode(doc, &k, msg, sizeof msg), FSDPA_EPARSE);
  ck_assert_msg(strstr(msg, "\"dur\" out of range"), "%s", msg);
  snprintf(doc, sizeof doc, "{\"traceEvents\":[{\"ph\":\"X\",\"ts\":1,\"pid\":%s,\"args\":{\"correlation\":-%s}}]}",
           d400, d400);
  ck_assert_int_eq(decode(doc, &k, NULL, 0), FSDPA_OK);
  ck_assert_int_eq(k.ev.pid, FSDPA_ABSENT);
  ck_assert_int_eq(k.ev.correlation, FSDPA_ABSENT);
  /* 400 fraction digits: rounded to the ns, exactly (0.000...1 us -> 0 ns) */
  snprintf(doc, sizeof doc, "{\"traceEvents\":[{\"ph\":\"X\",\"ts\":1%s,\"dur\":%s}]}", f400 + 1, f400);
  ck_assert_int_eq(decode(doc, &k, NULL, 0), FSDPA_OK);
  ck_assert_int_eq(k.ev.ts_ns, 1000);
  ck_assert_int_eq(k.ev.dur_ns, 0);
  /* 400 digits with an exponent that brings it back into range */
  snprintf(doc, sizeof doc, "{\"traceEvents\":[{\"ph\":\"X\",\"ts\":1%.399se-399}]}", d400 + 1);
  ck_assert_int_eq(decode(doc, &k, NULL, 0), FSDPA_OK);
  ck_assert_int_eq(k.ev.ts_ns, 2000); /* 1.999...e0 us rounds half away from zero */
  /* 400 digits in a field nobody reads, and in metadata: fine */
  snprintf(doc, sizeof doc, "{\"x\":%s,\"traceEvents\":[{\"ph\":\"X\",\"ts\":1,\"args\":{\"y\":%s}}],"
           "\"baseTimeNanoseconds\":%s}", d400, d400, d400);
  ck_assert_int_eq(decode(doc, &k, NULL, 0), FSDPA_OK);
  ck_assert_uint_eq(k.n, 1);

  /* NaN and Infinity are not JSON: an error wherever the parser reads them */
  static const char *const lits[] = {"NaN", "Infinity", "-Infinity", "nan", "inf", "-NaN", "1e", "01", "+1", ".5"};
  for (size_t i = 0; i < sizeof lits / sizeof lits[0]; i++) {
    static const char *const fields[] = {"\"ts\":%s", "\"dur\":%s", "\"pid\":%s", "\"tid\":%s",
                                         "\"args\":{\"correlation\":%s}", "\"args\":{\"Bytes\":%s}"};
    for (size_t f = 0; f < sizeof fields / sizeof fields[0]; f++) {
      char field[64];
      snprintf(field, sizeof field, fields[f], lits[i]);
      snprintf(doc, sizeof doc, "{\"traceEvents\":[{\"ph\":\"X\",\"name\":\"n\",%s}]}", field);
      fsdpa_status st = decode(doc, &k, msg, sizeof msg);
      ck_assert_msg(st == FSDPA_EPARSE, "%s: %s", doc, fsdpa_status_str(st));
      ck_assert_msg(strstr(msg, "t: byte "), "%s: message '%s'", doc, msg);
    }
    /* at the top level (the scalar validator) */
    snprintf(doc, sizeof doc, "{\"traceEvents\":[],\"baseTimeNanoseconds\":%s}", lits[i]);
    BAD(doc, FSDPA_EPARSE, "t: byte ");
    /* as strings they are just strings: not a number where one is needed */
    snprintf(doc, sizeof doc, "{\"traceEvents\":[{\"ph\":\"X\",\"ts\":\"%s\"}]}", lits[i]);
    ck_assert_int_eq(decode(doc, &k, msg, sizeof msg), FSDPA_EPARSE);
    ck_assert_msg(strstr(msg, "\"ts\" is not a number"), "%s", msg);
    snprintf(doc, sizeof doc, "{\"traceEvents\":[{\"ph\":\"X\",\"ts\":1,\"pid\":\"%s\"}]}", lits[i]);
    ck_assert_int_eq(decode(doc, &k, NULL, 0), FSDPA_OK);
    ck_assert_int_eq(k.ev.pid, strcmp(lits[i], "01") ? FSDPA_ABSENT : 1); /* id strings allow leading zeros */
  }
}
END_TEST

/* Bad literals in a field the decoder does not read.  simdjson On-Demand
 * skips such values without parsing them (json_shim.h: "Values of fields
 * that are not decoded are skipped by On-Demand without full validation"),
 * so they may be accepted; what must hold is that the answer is one of the
 * two and that an accepted event is decoded right. */
START_TEST(t_bad_literals_in_unread_fields) {
  static const char *const lits[] = {"NaN", "Infinity", "nul", "tru", "01", "1.", "-", "abc"};
  static const char *const fmts[] = {"{\"traceEvents\":[{\"ph\":\"X\",\"ts\":1,\"unread\":%s}]}",
                                     "{\"traceEvents\":[{\"ph\":\"X\",\"ts\":1,\"args\":{\"unread\":%s}}]}",
                                     "{\"traceEvents\":[{\"ph\":\"X\",\"ts\":1,\"args\":{\"u\":[{\"v\":%s}]}}]}"};
  char doc[256], msg[512];
  cap_sink k;
  int accepted = 0, rejected = 0;
  for (size_t i = 0; i < sizeof lits / sizeof lits[0]; i++) {
    for (size_t f = 0; f < sizeof fmts / sizeof fmts[0]; f++) {
      snprintf(doc, sizeof doc, fmts[f], lits[i]);
      fsdpa_status st = decode(doc, &k, msg, sizeof msg);
      if (st == FSDPA_OK) {
        ck_assert_uint_eq(k.n, 1);
        ck_assert_int_eq(k.ev.ts_ns, 1000);
        accepted++;
      } else {
        ck_assert_msg(st == FSDPA_EPARSE, "%s: %s", doc, fsdpa_status_str(st));
        ck_assert_msg(strstr(msg, "t: byte "), "%s: message '%s'", doc, msg);
        rejected++;
      }
    }
  }
  printf("# bad literals in unread fields: %d accepted (not validated), %d rejected\n", accepted, rejected);
}
END_TEST

/* ------------------------------------------------------------------ */
/* 100 MB strings                                                      */

/* Feed head, `total` bytes of `unit` repeated (in 1 MiB chunks), tail. */
static fsdpa_status feed_big(fsdpa_ctx *c, const char *head, char unit, size_t total, const char *tail) {
  enum { CH = 1 << 20 };
  static char chunk[CH];
  memset(chunk, unit, CH);
  fsdpa_status st = fsdpa_feed(c, head, strlen(head));
  for (size_t done = 0; !st && done < total; done += CH) st = fsdpa_feed(c, chunk, total - done < CH ? total - done : CH);
  if (!st) st = fsdpa_feed(c, tail, strlen(tail));
  if (!st) st = fsdpa_finish(c);
  return st;
}

START_TEST(t_huge_strings) {
  const size_t MB100 = (size_t)100 << 20;
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  theap h = {0};
  fsdpa_allocator a;
  /* an event name of 100 MB: larger than the 64 MiB event limit */
  fsdpa_ctx *c = hctx(&h, &a, 0, 0);
  fsdpa_status st = feed_big(c, "{\"traceEvents\":[{\"ph\":\"i\",\"ts\":1},{\"ph\":\"X\",\"name\":\"", 'x', MB100, "\"}]}");
  ck_assert_int_eq(st, FSDPA_ELIMIT);
  ck_assert_msg(strstr(fsdpa_errmsg(c), "event larger than the limit"), "%s", fsdpa_errmsg(c));
  fsdpa_stats s = {sizeof s};
  ck_assert_int_eq(fsdpa_stats_get(c, &s), FSDPA_OK);
  ck_assert_uint_eq(s.events, 1); /* the event before it was delivered */
  report_ok(c);
  hfree(c, &h);
  /* the same under a 32 MiB memory cap: the cap is hit first, cleanly */
  c = hctx(&h, &a, 0, (uint64_t)32 << 20);
  st = feed_big(c, "{\"traceEvents\":[{\"ph\":\"X\",\"name\":\"", 'x', MB100, "\"}]}");
  ck_assert_int_eq(st, FSDPA_ELIMIT);
  ck_assert_msg(strstr(fsdpa_errmsg(c), "memory limit"), "%s", fsdpa_errmsg(c));
  ck_assert_uint_le(c->alloc.peak, (uint64_t)32 << 20);
  hfree(c, &h);
  /* 100 MB strings outside the events (a metadata value, a key, escapes)
   * stream through the top-level validator in constant memory */
  static const char *const heads[] = {"{\"traceName\":\"", "{\"", "{\"distributedInfo\":{\"backend\":\""};
  static const char *const tails[] = {"\",\"traceEvents\":[{\"ph\":\"X\",\"ts\":1}]}",
                                      "\":1,\"traceEvents\":[{\"ph\":\"X\",\"ts\":1}]}",
                                      "\"},\"traceEvents\":[{\"ph\":\"X\",\"ts\":1}]}"};
  for (int i = 0; i < 3; i++) {
    c = hctx(&h, &a, 0, 0);
    st = feed_big(c, heads[i], i == 2 ? ' ' : 'y', MB100, tails[i]);
    ck_assert_msg(st == FSDPA_OK, "%d: %s", i, fsdpa_errmsg(c));
    ck_assert_msg(c->alloc.peak < ((uint64_t)16 << 20), "%d: peak %llu bytes for a 100 MB string", i,
                  (unsigned long long)c->alloc.peak);
    ck_assert_int_eq(fsdpa_stats_get(c, &s), FSDPA_OK);
    ck_assert_uint_eq(s.events, 1);
    hfree(c, &h);
  }
  /* a 10 MB name is a legal event: kept (interned once) */
  c = hctx(&h, &a, 0, 0);
  st = feed_big(c, "{\"traceEvents\":[{\"ph\":\"X\",\"cat\":\"cpu_op\",\"ts\":1,\"dur\":1,\"name\":\"", 'z',
                (size_t)10 << 20, "\"}]}");
  ck_assert_msg(st == FSDPA_OK, "%s", fsdpa_errmsg(c));
  report_ok(c);
  hfree(c, &h);
  clock_gettime(CLOCK_MONOTONIC, &t1);
  printf("# huge strings: %.1f s for 5 x 100 MB + 10 MB\n",
         (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9);
}
END_TEST

/* ------------------------------------------------------------------ */
/* duplicate keys, wrong types                                         */

START_TEST(t_duplicate_keys) {
  cap_sink k;
  /* the last occurrence of a field wins, as in JavaScript's JSON.parse */
  ck_assert_int_eq(decode("{\"traceEvents\":[{\"ph\":\"X\",\"ts\":1,\"ts\":2,\"name\":\"a\",\"name\":\"b\","
                          "\"args\":{\"correlation\":3,\"correlation\":4},\"args\":{\"stream\":5}}]}",
                          &k, NULL, 0),
                   FSDPA_OK);
  ck_assert_int_eq(k.ev.ts_ns, 2000);
  ck_assert_str_eq(k.ev.name, "b");
  ck_assert_int_eq(k.ev.correlation, 4); /* from the first args object: kept */
  ck_assert_int_eq(k.ev.stream, 5);
  /* "External id" wins over the legacy "external id" in either order */
  ck_assert_int_eq(decode("{\"traceEvents\":[{\"ph\":\"X\",\"ts\":1,\"args\":{\"External id\":7,\"external id\":8}}]}",
                          &k, NULL, 0), FSDPA_OK);
  ck_assert_int_eq(k.ev.external_id, 7);
  ck_assert_int_eq(decode("{\"traceEvents\":[{\"ph\":\"X\",\"ts\":1,\"args\":{\"external id\":8,\"External id\":7}}]}",
                          &k, NULL, 0), FSDPA_OK);
  ck_assert_int_eq(k.ev.external_id, 7);
  /* metadata given twice: the later value */
  theap h = {0};
  fsdpa_allocator a;
  fsdpa_ctx *c = hctx(&h, &a, 0, 0);
  const char *doc = "{\"distributedInfo\":{\"rank\":1,\"rank\":2},\"traceEvents\":[],"
                    "\"distributedInfo\":{\"rank\":3},\"baseTimeNanoseconds\":5,\"baseTimeNanoseconds\":6}";
  ck_assert_int_eq(feed_str(c, doc, strlen(doc)), FSDPA_OK);
  fsdpa_trace_info ti = {sizeof ti};
  ck_assert_int_eq(fsdpa_trace_info_get(c, &ti), FSDPA_OK);
  ck_assert_int_eq(ti.rank, 3);
  ck_assert_int_eq(ti.base_time_ns, 6);
  hfree(c, &h);
  /* two traceEvents arrays: a clear answer either way, never a crash */
  c = hctx(&h, &a, 0, 0);
  doc = "{\"traceEvents\":[{\"ph\":\"X\",\"ts\":1}],\"traceEvents\":[{\"ph\":\"X\",\"ts\":2}]}";
  fsdpa_status st = feed_str(c, doc, strlen(doc));
  fsdpa_stats s = {sizeof s};
  ck_assert_int_eq(fsdpa_stats_get(c, &s), FSDPA_OK);
  ck_assert_msg((st == FSDPA_OK && s.events == 2) || (st == FSDPA_EPARSE && fsdpa_errmsg(c)[0]),
                "two traceEvents arrays: %s, %llu events", fsdpa_status_str(st), (unsigned long long)s.events);
  printf("# two traceEvents arrays: %s, %llu events\n", fsdpa_status_str(st), (unsigned long long)s.events);
  hfree(c, &h);
}
END_TEST

/* The fields the parser reads (libfsdpa/input/json_shim.cpp) and how each
 * kind treats a value of the wrong type. */
enum { K_PH, K_STR, K_ID, K_TIME, K_INT };
typedef struct field {
  const char *key;  /* event key, or "args.<key>" */
  int kind;
  size_t off, len_off;  /* in fsdpa_event: the value (and a string's length) */
} field;
#define FI(k, kind, m) {k, kind, offsetof(fsdpa_event, m), 0}
#define FS(k, m) {k, K_STR, offsetof(fsdpa_event, m), offsetof(fsdpa_event, m##_len)}
static const field FIELDS[] = {
    FI("ph", K_PH, ph),
    FS("cat", cat),
    FS("name", name),
    FI("pid", K_ID, pid),
    FI("tid", K_ID, tid),
    FI("ts", K_TIME, ts_ns),
    FI("dur", K_TIME, dur_ns),
    FI("args.correlation", K_INT, correlation),
    FI("args.External id", K_INT, external_id),
    FI("args.external id", K_INT, external_id),
    FI("args.stream", K_INT, stream),
    FI("args.device", K_INT, device),
    FI("args.Bytes", K_INT, bytes),
    FI("args.bytes", K_INT, bytes),
    FI("args.Total Allocated", K_INT, total_allocated),
    FI("args.Total Reserved", K_INT, total_reserved),
    FI("args.Device Type", K_INT, device_type),
    FI("args.Device Id", K_INT, device_id),
    FI("args.In msg nelems", K_INT, in_msg_nelems),
    FI("args.Out msg nelems", K_INT, out_msg_nelems),
    FI("args.Group size", K_INT, group_size),
    FI("args.Seq", K_INT, seq),
    FI("args.wait_on_stream", K_INT, wait_on_stream),
    FI("args.wait_on_cuda_event_record_corr_id", K_INT, wait_on_event_corr),
    FS("args.Collective name", collective),
    FS("args.dtype", dtype),
    FS("args.Process Group Name", pg_name),
    FS("args.cuda_sync_kind", sync_kind),
    FS("args.name", label),
};

/* Wrong-type values and, per kind, the decoded result: W_ERR = EPARSE,
 * W_ABS = absent, else the integer value (ns for times) / first byte. */
typedef struct wval {
  const char *json;
  int64_t ph, id, time, i;  /* expected per kind */
  const char *str;          /* expected string, NULL = absent */
} wval;
#define W_ABS FSDPA_ABSENT
#define W_ERR INT64_MAX
static const wval VALUES[] = {
    {"\"12\"", '1', 12, 12000, 12, "12"},
    {"\"abc\"", 'a', W_ABS, W_ERR, W_ABS, "abc"},
    {"\"\"", 0, W_ABS, W_ERR, W_ABS, ""},
    {"\"stream 7\"", 's', 7, W_ERR, 7, "stream 7"},
    {"12", 0, 12, 12000, 12, NULL},
    {"-3", 0, -3, -3000, -3, NULL},
    {"12.5", 0, W_ABS, 12500, W_ABS, NULL},
    {"1e3", 0, 1000, 1000000, 1000, NULL},
    {"1e30", 0, W_ABS, W_ERR, W_ABS, NULL},
    {"true", 0, W_ABS, W_ERR, W_ABS, NULL},
    {"false", 0, W_ABS, W_ERR, W_ABS, NULL},
    {"null", 0, W_ABS, W_ABS, W_ABS, NULL},
    {"{\"a\":1}", 0, W_ABS, W_ERR, W_ABS, NULL},
    {"[1,2]", 0, W_ABS, W_ERR, W_ABS, NULL},
    {"{}", 0, W_ABS, W_ERR, W_ABS, NULL},
    {"[]", 0, W_ABS, W_ERR, W_ABS, NULL},
};

START_TEST(t_wrong_types_every_field) {
  char doc[512], msg[512];
  cap_sink k;
  size_t cases = 0;
  for (size_t f = 0; f < sizeof FIELDS / sizeof FIELDS[0]; f++) {
    const field *fd = &FIELDS[f];
    int in_args = strncmp(fd->key, "args.", 5) == 0;
    const char *key = in_args ? fd->key + 5 : fd->key;
    for (size_t v = 0; v < sizeof VALUES / sizeof VALUES[0]; v++) {
      const wval *wv = &VALUES[v];
      /* the field under test replaces its default; ph "M" makes args.name read */
      const char *ph = !strcmp(fd->key, "args.name") ? "M" : "X";
      if (in_args)
        snprintf(doc, sizeof doc, "{\"traceEvents\":[{\"ph\":\"%s\",\"ts\":1,\"args\":{\"%s\":%s}}]}", ph, key,
                 wv->json);
      else if (!strcmp(key, "ts"))
        snprintf(doc, sizeof doc, "{\"traceEvents\":[{\"ph\":\"X\",\"ts\":%s}]}", wv->json);
      else if (!strcmp(key, "ph"))
        snprintf(doc, sizeof doc, "{\"traceEvents\":[{\"ts\":1,\"ph\":%s}]}", wv->json);
      else
        snprintf(doc, sizeof doc, "{\"traceEvents\":[{\"ph\":\"X\",\"ts\":1,\"%s\":%s}]}", key, wv->json);
      fsdpa_status st = decode(doc, &k, msg, sizeof msg);
      const char *base = (const char *)&k.ev;
      int64_t want;
      switch (fd->kind) {
        case K_PH: want = wv->ph; break;
        case K_ID: want = wv->id; break;
        case K_TIME: want = wv->time; break;
        case K_INT: want = wv->i; break;
        default: want = 0; break;
      }
      if (fd->kind == K_TIME && want == W_ERR) {
        ck_assert_msg(st == FSDPA_EPARSE, "%s: %s", doc, fsdpa_status_str(st));
        ck_assert_msg(strstr(msg, key) && strstr(msg, "t: byte "), "%s: message '%s'", doc, msg);
        cases++;
        continue;
      }
      ck_assert_msg(st == FSDPA_OK, "%s: %s (%s)", doc, fsdpa_status_str(st), msg);
      ck_assert_uint_eq(k.n, 1);
      if (fd->kind == K_STR) {
        const char *s = *(const char *const *)(base + fd->off);
        size_t len = *(const size_t *)(base + fd->len_off);
        if (!wv->str) {
          ck_assert_msg(s == NULL, "%s: got '%s'", doc, s);
        } else {
          ck_assert_msg(s && len == strlen(wv->str) && !memcmp(s, wv->str, len), "%s: got '%s'", doc, s ? s : "(null)");
        }
      } else if (fd->kind == K_PH) {
        ck_assert_msg(k.ev.ph == (char)want, "%s: ph %d", doc, k.ev.ph);
      } else {
        int64_t got = *(const int64_t *)(base + fd->off);
        if (fd->kind == K_TIME && !strcmp(key, "dur") && want != W_ABS && want < 0) want = 0; /* clamped */
        ck_assert_msg(got == want, "%s: got %lld, want %lld", doc, (long long)got, (long long)want);
      }
      cases++;
    }
  }
  /* "args" itself of the wrong type: no args, no error */
  static const char *const args_vals[] = {"12", "\"x\"", "true", "null", "[1,{\"correlation\":5}]"};
  for (size_t v = 0; v < sizeof args_vals / sizeof args_vals[0]; v++) {
    snprintf(doc, sizeof doc, "{\"traceEvents\":[{\"ph\":\"X\",\"ts\":1,\"args\":%s}]}", args_vals[v]);
    ck_assert_int_eq(decode(doc, &k, NULL, 0), FSDPA_OK);
    ck_assert_int_eq(k.ev.correlation, FSDPA_ABSENT);
    cases++;
  }
  /* metadata of the wrong type stays unknown */
  static const char *const meta_vals[] = {"\"abc\"", "1.5", "true", "null", "{}", "[]", "\"\""};
  for (size_t v = 0; v < sizeof meta_vals / sizeof meta_vals[0]; v++) {
    snprintf(doc, sizeof doc, "{\"distributedInfo\":{\"rank\":%s,\"world_size\":%s},\"baseTimeNanoseconds\":%s,"
             "\"traceEvents\":[]}", meta_vals[v], meta_vals[v], meta_vals[v]);
    theap h = {0};
    fsdpa_allocator a;
    fsdpa_ctx *c = hctx(&h, &a, 0, 0);
    ck_assert_int_eq(feed_str(c, doc, strlen(doc)), FSDPA_OK);
    fsdpa_trace_info ti = {sizeof ti};
    fsdpa_trace_info_get(c, &ti);
    ck_assert_int_eq(ti.rank, FSDPA_ABSENT);
    ck_assert_int_eq(ti.world_size, FSDPA_ABSENT);
    ck_assert_int_eq(ti.base_time_ns, FSDPA_ABSENT);
    hfree(c, &h);
    cases++;
  }
  /* events / the document of the wrong type */
  BAD("{\"traceEvents\":{}}", FSDPA_ENOTTRACE, NULL);
  BAD("{\"traceEvents\":[1]}", FSDPA_ENOTTRACE, "not a Kineto trace");
  BAD("{\"traceEvents\":[{\"ph\":\"X\"},\"x\"]}", FSDPA_ENOTTRACE, NULL);
  BAD("{\"traceEvents\":\"abc\"}", FSDPA_ENOTTRACE, NULL);
  BAD("\"abc\"", FSDPA_ENOTTRACE, NULL);
  BAD("12", FSDPA_ENOTTRACE, NULL);
  printf("# wrong types: %zu cases over %zu fields\n", cases, sizeof FIELDS / sizeof FIELDS[0]);
}
END_TEST

/* ------------------------------------------------------------------ */
/* gzip bomb                                                           */

static size_t gz_member(unsigned char *out, size_t cap, const void *d, size_t n, int level) {
  z_stream zs;
  memset(&zs, 0, sizeof zs);
  ck_assert_int_eq(deflateInit2(&zs, level, Z_DEFLATED, 15 + 16, 9, Z_DEFAULT_STRATEGY), Z_OK);
  zs.next_in = (Bytef *)(uintptr_t)d;
  zs.avail_in = (uInt)n;
  zs.next_out = out;
  zs.avail_out = (uInt)cap;
  ck_assert_int_eq(deflate(&zs, Z_FINISH), Z_STREAM_END);
  size_t len = cap - zs.avail_out;
  deflateEnd(&zs);
  return len;
}

START_TEST(t_gzip_bomb) {
  /* 16 MiB of blanks compress to ~16 KB; the member repeated 64 times is a
   * 1 GiB document inside traceEvents, from ~1 MB of gzip */
  const size_t SP = (size_t)16 << 20;
  char *spaces = malloc(SP);
  memset(spaces, ' ', SP);
  size_t cap = 1 << 20;
  unsigned char *head = malloc(4096), *body = malloc(cap);
  const char *h0 = "{\"traceEvents\":[{\"ph\":\"X\",\"ts\":1},";
  size_t hn = gz_member(head, 4096, h0, strlen(h0), 9);
  size_t bn = gz_member(body, cap, spaces, SP, 9);
  free(spaces);
  ck_assert_uint_lt(bn, 64 * 1024);
  const uint64_t CAP = (uint64_t)64 << 20;
  theap h = {0};
  fsdpa_allocator a;
  fsdpa_ctx *c = hctx(&h, &a, CAP, 0);
  fsdpa_status st = fsdpa_feed(c, head, hn);
  int members = 0;
  for (; st == FSDPA_OK && members < 64; members++) st = fsdpa_feed(c, body, bn);
  if (st == FSDPA_OK) st = fsdpa_finish(c);
  ck_assert_int_eq(st, FSDPA_ELIMIT);
  ck_assert_msg(strstr(fsdpa_errmsg(c), "max_input_bytes"), "%s", fsdpa_errmsg(c));
  ck_assert_int_eq(fsdpa_error_offset(c), (int64_t)CAP);
  ck_assert_int_le(members, 5); /* stopped right after the cap, not after 1 GiB */
  fsdpa_stats s = {sizeof s};
  fsdpa_stats_get(c, &s);
  ck_assert_uint_eq(s.json_bytes, CAP);
  ck_assert_uint_eq(s.events, 1);
  ck_assert_uint_lt(c->alloc.peak, (uint64_t)16 << 20); /* blanks between events are not kept */
  report_ok(c);
  hfree(c, &h);
  /* a bomb inside one event (a 1 GiB string) stops at the event limit */
  const char *h1 = "{\"traceEvents\":[{\"ph\":\"X\",\"ts\":1,\"name\":\"";
  hn = gz_member(head, 4096, h1, strlen(h1), 9);
  c = hctx(&h, &a, 0, 0);
  st = fsdpa_feed(c, head, hn);
  for (members = 0; st == FSDPA_OK && members < 64; members++) st = fsdpa_feed(c, body, bn);
  ck_assert_int_eq(st, FSDPA_ELIMIT);
  ck_assert_msg(strstr(fsdpa_errmsg(c), "event larger than the limit"), "%s", fsdpa_errmsg(c));
  ck_assert_int_le(members, 6);
  hfree(c, &h);
  free(head);
  free(body);
}
END_TEST

/* ------------------------------------------------------------------ */
/* allocation failure at every allocation                              */

enum { S_NEW, S_FEED, S_QUERIES, S_JSON, S_TEXT, S_HTML, S_FINDINGS, S_SUMMARY, S_ANNOTATE, S_FILE, S_COUNT };
static const char *const STEP[S_COUNT] = {"fsdpa_ctx_new", "fsdpa_feed_file", "queries", "report json",
                                          "report text", "report html", "fsdpa_report_findings", "summaries",
                                          "fsdpa_annotate_events", "fsdpa_annotate_file"};

static uint64_t fnv(const char *s, size_t n) {
  uint64_t k = 1469598103934665603ull;
  for (size_t i = 0; i < n; i++) k = (k ^ (unsigned char)s[i]) * 1099511628211ull;
  return k;
}
static void hash_in(uint64_t *hash, const void *p, size_t n) { *hash = (*hash ^ fnv(p, n)) * 1099511628211ull; }
static void hash_str(uint64_t *hash, const char *s) { hash_in(hash, s ? s : "(null)", s ? strlen(s) + 1 : 6); }

typedef struct fi_run {
  fsdpa_status st[S_COUNT];  /* status of each step run (OK for steps not run) */
  uint64_t out[S_COUNT];     /* hash of each step's output (0: not compared) */
  int ran;                   /* steps run */
  int inj_step;              /* step during which the failure was injected, -1 if none */
} fi_run;

/* The public call that failed last and its message, read from the call's
 * own channel right after it returned (every call on a context clears
 * fsdpa_errmsg() on entry, so it cannot be read later). */
static const char *fi_call = "";
static char fi_msg[512];

/* A call on one context: on failure its message is fsdpa_errmsg(ctx); on
 * success the message is "" and the offset absent. */
static fsdpa_status fi_ctx_done(fsdpa_ctx *c, fsdpa_status st, const char *call) {
  if (st != FSDPA_OK) {
    fi_call = call;
    snprintf(fi_msg, sizeof fi_msg, "%s", fsdpa_errmsg(c));
  } else {
    ck_assert_msg(fsdpa_errmsg(c)[0] == 0, "%s succeeded and left the message '%s'", call, fsdpa_errmsg(c));
    ck_assert_msg(fsdpa_error_offset(c) == FSDPA_ABSENT, "%s succeeded and left an error offset", call);
  }
  return st;
}

/* An fsdpa_error holding the leftovers of an earlier failure: a call must
 * reset it on success and fill it (with its own status) on failure. */
static void fi_stale(fsdpa_error *e) {
  fsdpa_error_init(e);
  e->status = FSDPA_EPARSE;
  e->input = e->offset = 7;
  snprintf(e->message, sizeof e->message, "stale");
}

static fsdpa_status fi_err_done(const fsdpa_error *e, fsdpa_status st, const char *call) {
  if (st != FSDPA_OK) {
    ck_assert_msg(e->status == st, "%s returned %s, its fsdpa_error says %s", call, fsdpa_status_str(st),
                  fsdpa_status_str(e->status));
    ck_assert_msg(strcmp(e->message, "stale") != 0, "%s failed (%s) and left the old message", call,
                  fsdpa_status_str(st));
    /* every field is filled: the input is one of the (at most 2) given, or none */
    ck_assert_msg(e->input == FSDPA_ABSENT || (e->input >= 0 && e->input < 2), "%s failed (%s): input %lld", call,
                  fsdpa_status_str(st), (long long)e->input);
    fi_call = call;
    snprintf(fi_msg, sizeof fi_msg, "%s", e->message);
  } else {
    ck_assert_msg(e->status == FSDPA_OK && e->message[0] == 0 && e->input == FSDPA_ABSENT && e->offset == FSDPA_ABSENT,
                  "%s succeeded and left its fsdpa_error as %s '%s'", call, fsdpa_status_str(e->status), e->message);
  }
  return st;
}

/* Run a call, record a failure, return it from the enclosing function. */
#define CQ(c, call)                                          \
  do {                                                       \
    fsdpa_status q_ = fi_ctx_done((c), (call), #call);       \
    if (q_ != FSDPA_OK) return q_;                           \
  } while (0)
#define EQ(e, call)                                          \
  do {                                                       \
    fi_stale(&(e));                                          \
    fsdpa_status q_ = fi_err_done(&(e), (call), #call);      \
    if (q_ != FSDPA_OK) return q_;                           \
  } while (0)

/* Read every item of a list (reading allocates nothing) and release it;
 * returns the count. */
static size_t fi_drain(fsdpa_list *l, fsdpa_list_kind kind, size_t item_size) {
  ck_assert_ptr_nonnull(l);
  ck_assert_int_eq(fsdpa_list_type(l), kind);
  union {
    max_align_t align;
    unsigned char b[1024];
  } item;
  ck_assert_uint_le(item_size, sizeof item.b);
  size_t n = fsdpa_list_count(l);
  for (size_t i = 0; i < n; i++) {
    memset(&item, 0, sizeof item);
    memcpy(item.b, &item_size, sizeof item_size);
    ck_assert_int_eq(fsdpa_list_get(l, i, item.b), FSDPA_OK);
  }
  fsdpa_list_free(l);
  return n;
}
#define DRAIN(l, kind, T) fi_drain((l), (kind), sizeof(T))

/* The queries of one context over one window. */
static fsdpa_status fi_window(fsdpa_ctx *c, const fsdpa_query *q) {
  fsdpa_list *l = NULL;
  fsdpa_timeline tl = {sizeof tl};
  CQ(c, fsdpa_timeline_query(c, q, &tl));
  fsdpa_launch_gaps lg = {sizeof lg};
  CQ(c, fsdpa_launch_gaps_query(c, q, &lg));
  fsdpa_launch_latency ll = {sizeof ll};
  CQ(c, fsdpa_launch_latency_query(c, q, &ll));
  fsdpa_launch_queue lq = {sizeof lq};
  CQ(c, fsdpa_launch_queue_query(c, q, &lq));
  fsdpa_overlap ov = {sizeof ov};
  CQ(c, fsdpa_overlap_query(c, q, &ov));
  CQ(c, fsdpa_comm_split_list(c, q, FSDPA_SPLIT_COLLECTIVE, &l));
  DRAIN(l, FSDPA_LIST_COMM_SPLITS, fsdpa_comm_split);
  CQ(c, fsdpa_comm_split_list(c, q, FSDPA_SPLIT_PROCESS_GROUP, &l));
  DRAIN(l, FSDPA_LIST_COMM_SPLITS, fsdpa_comm_split);
  CQ(c, fsdpa_fsdp_unit_list(c, q, &l));
  DRAIN(l, FSDPA_LIST_FSDP_UNITS, fsdpa_fsdp_unit);
  CQ(c, fsdpa_sync_wait_list(c, q, &l));
  DRAIN(l, FSDPA_LIST_SYNC_WAITS, fsdpa_sync_wait);
  CQ(c, fsdpa_sync_call_list(c, q, &l));
  DRAIN(l, FSDPA_LIST_SYNC_CALLS, fsdpa_sync_call);
  CQ(c, fsdpa_sync_step_list(c, q, &l));
  DRAIN(l, FSDPA_LIST_SYNC_STEPS, fsdpa_sync_step);
  fsdpa_memory_summary msum = {sizeof msum};
  CQ(c, fsdpa_memory_query(c, q, &msum));
  CQ(c, fsdpa_memory_device_list(c, q, &l));
  DRAIN(l, FSDPA_LIST_MEMORY_DEVICES, fsdpa_memory_device);
  CQ(c, fsdpa_memory_series_list(c, q, FSDPA_ABSENT, 16, &l)); /* the primary device */
  DRAIN(l, FSDPA_LIST_MEMORY_POINTS, fsdpa_memory_point);
  CQ(c, fsdpa_memory_series_list(c, q, 0, 16, &l));
  DRAIN(l, FSDPA_LIST_MEMORY_POINTS, fsdpa_memory_point);
  CQ(c, fsdpa_memory_step_list(c, q, &l));
  DRAIN(l, FSDPA_LIST_MEMORY_STEPS, fsdpa_memory_step);
  return FSDPA_OK;
}

/* Every public query and list the reports do not make for us: per context
 * its getters, lists and, over the whole trace, the first step and the
 * first stream alone, every windowed query; then the cross-rank ones.  The
 * first failure is returned (ENOMEM expected). */
static fsdpa_status fi_queries(fsdpa_ctx *const *cs, size_t n) {
  fsdpa_list *l = NULL;
  for (size_t i = 0; i < n; i++) {
    fsdpa_ctx *c = cs[i];
    fsdpa_stats stats = {sizeof stats};
    CQ(c, fsdpa_stats_get(c, &stats));
    fsdpa_trace_info ti = {sizeof ti};
    CQ(c, fsdpa_trace_info_get(c, &ti));
    int64_t v = 0;
    CQ(c, fsdpa_param_get(c, "launch.kernel_wait_ns", &v));
    ck_assert_int_ge(fsdpa_fsdp_version(c), 0);
    CQ(c, fsdpa_step_list(c, &l));
    size_t nsteps = DRAIN(l, FSDPA_LIST_STEPS, fsdpa_step);
    CQ(c, fsdpa_stream_list(c, &l));
    fsdpa_stream_info s0 = {sizeof s0};
    if (fsdpa_list_count(l)) ck_assert_int_eq(fsdpa_list_get(l, 0, &s0), FSDPA_OK);
    size_t nstreams = DRAIN(l, FSDPA_LIST_STREAMS, fsdpa_stream_info);
    for (int w = 0; w < 3; w++) { /* whole trace; first step; first stream only */
      fsdpa_query q = FSDPA_QUERY_INIT;
      if (w == 1) {
        if (!nsteps) continue;
        q.fields |= FSDPA_QUERY_STEP;
        q.step = 0;
      } else if (w == 2) {
        if (!nstreams) continue;
        q.fields |= FSDPA_QUERY_DEVICE | FSDPA_QUERY_STREAM;
        q.device = s0.device;
        q.stream = s0.stream;
      }
      fsdpa_status st = fi_window(c, &q);
      if (st != FSDPA_OK) return st;
    }
    fsdpa_backward bw = {sizeof bw};
    CQ(c, fsdpa_backward_get(c, &bw));
    CQ(c, fsdpa_backward_step_list(c, &l));
    size_t nb = DRAIN(l, FSDPA_LIST_BACKWARD_STEPS, fsdpa_backward_step);
    for (size_t j = 0; j < nb; j++) {
      CQ(c, fsdpa_backward_unit_list(c, j, &l));
      DRAIN(l, FSDPA_LIST_BACKWARD_UNITS, fsdpa_backward_unit);
    }
  }
  fsdpa_error e;
  fsdpa_crossrank xr = {sizeof xr};
  EQ(e, fsdpa_crossrank_query(cs, n, &xr, &e));
  EQ(e, fsdpa_crossrank_rank_list(cs, n, &l, &e));
  ck_assert_uint_eq(DRAIN(l, FSDPA_LIST_CROSSRANK_RANKS, fsdpa_crossrank_rank), n);
  /* no context, so not on the test heap: its failure cannot be injected */
  ck_assert_int_eq(fsdpa_param_list(&l), FSDPA_OK);
  ck_assert_uint_gt(DRAIN(l, FSDPA_LIST_PARAMS, fsdpa_param), 0);
  return FSDPA_OK;
}

/* Everything a list of findings says, in order. */
static void hash_findings(uint64_t *hash, const fsdpa_list *l) {
  for (size_t i = 0; i < fsdpa_list_count(l); i++) {
    fsdpa_finding f = {sizeof f};
    ck_assert_int_eq(fsdpa_list_get(l, i, &f), FSDPA_OK);
    int64_t num[5] = {(int64_t)f.severity, f.rank, f.step, f.cost_ns, (int64_t)f.nranges};
    hash_in(hash, num, sizeof num);
    hash_str(hash, f.id);
    hash_str(hash, f.title);
    hash_str(hash, f.detail);
    hash_str(hash, f.advice);
    hash_str(hash, f.evidence_json);
    if (f.nranges) hash_in(hash, f.ranges, f.nranges * sizeof *f.ranges);
  }
  int worst = fsdpa_findings_worst(l);
  hash_in(hash, &worst, sizeof worst);
}

/* Summaries of every rank, their merge, its report and its findings, on
 * heap h. */
static fsdpa_status fi_summaries(fsdpa_ctx *const *c, size_t n, theap *h, uint64_t *hash) {
  fsdpa_allocator a = t_allocator(h);
  fsdpa_summary_options so;
  fsdpa_summary_options_init(&so);
  so.allocator = &a;
  char *sums[2] = {NULL, NULL}, *m = NULL, *r = NULL;
  size_t lens[2] = {0, 0}, ml = 0, rl = 0;
  fsdpa_list *fl = NULL;
  fsdpa_error e;
  fsdpa_status st = FSDPA_OK;
  for (size_t i = 0; i < n && !st; i++) {
    st = fi_ctx_done(c[i], fsdpa_summary_write(c[i], "t", &sums[i], &lens[i]), "fsdpa_summary_write");
    if (!st) hash_in(hash, sums[i], lens[i]);
  }
  if (!st) {
    fi_stale(&e);
    st = fi_err_done(&e, fsdpa_summary_merge((const char *const *)sums, lens, n, &so, &m, &ml, &e),
                     "fsdpa_summary_merge");
  }
  if (!st) {
    fi_stale(&e);
    st = fi_err_done(&e, fsdpa_summary_report(m, ml, &so, NULL, &r, &rl, &e), "fsdpa_summary_report");
  }
  if (!st) {
    hash_in(hash, r, rl);
    fi_stale(&e);
    st = fi_err_done(&e, fsdpa_summary_findings(m, ml, &so, &fl, &e), "fsdpa_summary_findings");
  }
  if (!st) {
    hash_findings(hash, fl);
    fsdpa_list_free(fl);
  }
  for (size_t i = 0; i < n; i++) fsdpa_free(sums[i]);
  fsdpa_free(m);
  fsdpa_free(r);
  return st;
}

/* One step of a run over all contexts; *hash: a hash of its output. */
static fsdpa_status fi_step(int s, fsdpa_ctx **c, const char *const *paths, size_t n, theap *h,
                            const fsdpa_options *o, uint64_t *hash) {
  fsdpa_error e;
  *hash = 1469598103934665603ull;
  switch (s) {
    case S_NEW:
      for (size_t i = 0; i < n; i++) {
        fsdpa_status st = fsdpa_ctx_new(&c[i], o);
        if (st != FSDPA_OK) {
          /* no context, so no message channel */
          ck_assert_msg(c[i] == NULL, "fsdpa_ctx_new failed (%s) and returned a context", fsdpa_status_str(st));
          fi_call = "fsdpa_ctx_new";
          fi_msg[0] = 0;
          return st;
        }
      }
      return FSDPA_OK;
    case S_FEED:
      for (size_t i = 0; i < n; i++) CQ(c[i], fsdpa_feed_file(c[i], paths[i]));
      return FSDPA_OK;
    case S_QUERIES:
      *hash = 0; /* structs with padding: statuses only */
      return fi_queries(c, n);
    case S_JSON: case S_TEXT: case S_HTML: {
      /* one report over all ranks */
      fsdpa_report_options ro;
      fsdpa_report_options_init(&ro);
      ro.format = s == S_JSON ? FSDPA_FORMAT_JSON : s == S_TEXT ? FSDPA_FORMAT_TEXT : FSDPA_FORMAT_HTML;
      char *out = NULL;
      size_t len = 0;
      EQ(e, fsdpa_report(c, NULL, n, &ro, &out, &len, &e));
      ck_assert_uint_eq(strlen(out), len);
      hash_in(hash, out, len);
      fsdpa_free(out);
      return FSDPA_OK;
    }
    case S_FINDINGS: {
      fsdpa_list *l = NULL;
      EQ(e, fsdpa_report_findings(c, n, &l, &e));
      ck_assert_int_eq(fsdpa_list_type(l), FSDPA_LIST_FINDINGS);
      hash_findings(hash, l);
      fsdpa_list_free(l);
      return FSDPA_OK;
    }
    case S_SUMMARY:
      return fi_summaries(c, n, h, hash);
    case S_ANNOTATE:
      for (size_t i = 0; i < n; i++) {
        char *out = NULL;
        size_t len = 0;
        EQ(e, fsdpa_annotate_events(c, n, i, &out, &len, &e));
        hash_in(hash, out, len);
        fsdpa_free(out);
      }
      return FSDPA_OK;
    default:
      for (size_t i = 0; i < n; i++) {
        /* the annotated copy of rank i's file, gzipped; nothing left on failure */
        char dst[4096];
        snprintf(dst, sizeof dst, "%s/hardening-annotated-%d.json.gz", tu_gen_dir(), (int)getpid());
        fi_stale(&e);
        fsdpa_status st = fi_err_done(&e, fsdpa_annotate_file(c, n, i, paths[i], dst, NULL, &e), "fsdpa_annotate_file");
        FILE *f = fopen(dst, "rb");
        ck_assert_msg(st == FSDPA_OK || !f, "fsdpa_annotate_file failed (%s) but left %s", fsdpa_status_str(st), dst);
        if (f) {
          fclose(f);
          remove(dst);
        }
        if (st != FSDPA_OK) return st;
      }
      return FSDPA_OK;
  }
}

/* One run over the ranks of a job (1 or 2 trace files, one context each,
 * all on heap h): every step in turn, stopping at the first failure.  With
 * `base` (the run without injection), a failed step is run once more and
 * must now succeed with the base's output. */
static void fi_once(const char *const *paths, size_t n, theap *h, fi_run *r, const fi_run *base) {
  memset(r, 0, sizeof *r);
  r->inj_step = -1;
  fsdpa_allocator a = t_allocator(h);
  fsdpa_options o;
  fsdpa_options_init(&o);
  o.allocator = &a;
  o.name = "t";
  fsdpa_ctx *c[2] = {NULL, NULL};
  for (int s = 0; s < S_COUNT; s++) {
    int before = h->injected;
    uint64_t hash = 0;
    fi_call = "";
    fi_msg[0] = 0;
    fsdpa_status st = fi_step(s, c, paths, n, h, &o, &hash);
    r->st[s] = st;
    r->ran = s + 1;
    r->out[s] = hash;
    if (!before && h->injected) r->inj_step = s;
    if (st != FSDPA_OK) {
      ck_assert_msg(st == FSDPA_ENOMEM, "allocation %llu refused in %s (%s): %s, not FSDPA_ENOMEM",
                    (unsigned long long)h->fail_at, STEP[s], fi_call, fsdpa_status_str(st));
      if (s != S_NEW) {
        ck_assert_msg(fi_msg[0], "%s: %s gave FSDPA_ENOMEM without a message", STEP[s], fi_call);
        /* the contexts stay consistent: their report still works */
        char *again = NULL;
        fsdpa_error e;
        fsdpa_error_init(&e);
        fsdpa_status st2 = fsdpa_report(c, NULL, n, NULL, &again, NULL, &e);
        ck_assert_msg(st2 == FSDPA_OK, "report after ENOMEM in %s (allocation %llu): %s: %s", fi_call,
                      (unsigned long long)h->fail_at, fsdpa_status_str(st2), e.message);
        fsdpa_free(again);
        /* ... and the call that failed works now, with the same result
         * (a failed feed leaves its context refusing input: not retried) */
        if (base && s != S_FEED) {
          const char *failed = fi_call;
          st2 = fi_step(s, c, paths, n, h, &o, &hash);
          ck_assert_msg(st2 == FSDPA_OK, "%s again after ENOMEM in %s (allocation %llu): %s: %s", STEP[s], failed,
                        (unsigned long long)h->fail_at, fsdpa_status_str(st2), fi_msg);
          ck_assert_msg(hash == base->out[s], "%s again after ENOMEM in %s (allocation %llu): another result",
                        STEP[s], failed, (unsigned long long)h->fail_at);
        }
      }
      break;
    }
  }
  for (size_t i = 0; i < n; i++) fsdpa_ctx_free(c[i]);
  ck_assert_msg(h->live == 0, "allocation %llu refused in %s: %llu bytes leaked", (unsigned long long)h->fail_at,
                r->inj_step >= 0 ? STEP[r->inj_step] : "-", (unsigned long long)h->live);
}

/* Fail allocation N, for every N until a run sees no failure.  Returns N. */
static uint64_t fail_every_allocation(const char *const *paths, size_t n, const char *label) {
  theap ref = {0};
  ref.census = 1;
  fi_run base;
  fi_once(paths, n, &ref, &base, NULL);
  for (int s = 0; s < S_COUNT; s++) ck_assert_msg(base.st[s] == FSDPA_OK, "%s: %s fails without injection", label, STEP[s]);
  uint64_t total = ref.count, tolerated = 0;
  uint64_t per_step[S_COUNT] = {0};
  uint64_t k = 1;
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  for (;; k++) {
    theap h = {0};
    h.fail_at = k;
    fi_run r;
    fi_once(paths, n, &h, &r, &base);
    if (!h.injected) break;
    ck_assert_int_ge(r.inj_step, 0);
    per_step[r.inj_step]++;
    if (r.st[r.inj_step] == FSDPA_OK) {
      /* a failure the library works around must not change any result */
      for (int s = 0; s < r.ran; s++)
        ck_assert_msg(r.st[s] != FSDPA_OK || r.out[s] == base.out[s],
                      "%s: allocation %llu refused in %s was swallowed and changed the output of %s", label,
                      (unsigned long long)k, STEP[r.inj_step], STEP[s]);
      tolerated++;
    }
    ck_assert_uint_le(k, total + 1);
  }
  clock_gettime(CLOCK_MONOTONIC, &t1);
  ck_assert_uint_eq(k - 1, total); /* the runs are deterministic */
  char steps[512];
  size_t sl = 0;
  for (int s = 0; s < S_COUNT; s++)
    sl += (size_t)snprintf(steps + sl, sizeof steps - sl, "%s%s %llu", s ? ", " : "", STEP[s],
                           (unsigned long long)per_step[s]);
  printf("# fault injection %s: %llu allocations, each refused once (%.1f s); %zu distinct allocation call "
         "stacks; refusals per step: %s; %llu worked around without a change\n",
         label, (unsigned long long)total,
         (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9, ref.nstacks, steps,
         (unsigned long long)tolerated);
  free(ref.stacks);
  return total;
}

START_TEST(t_fault_injection_real_trace) {
  char *path = corpus_file(EVENT_SYNC);
  if (!path) return;
  const char *p[1] = {path};
  ck_assert_uint_gt(fail_every_allocation(p, 1, "event_sync_trace.json.gz"), 100);
  free(path);
}
END_TEST

/* A one-rank trace from tools/tracegen (in the tree: failing to make it fails). */
static void fi_generated(const char *scenario, const char *file) {
  char *path = tu_tracegen(scenario, "--steps 2 --layers 2 --seed 3", file);
  ck_assert_msg(path != NULL, "tools/tracegen %s failed", scenario);
  char label[128];
  snprintf(label, sizeof label, "tracegen %s --steps 2 --layers 2", scenario);
  const char *p[1] = {path};
  ck_assert_uint_gt(fail_every_allocation(p, 1, label), 100);
  free(path);
}

START_TEST(t_fault_injection_generated_trace) { fi_generated("mixed", "hardening_fi.json"); }
END_TEST

/* FSDP1: the other half of the unit model. */
START_TEST(t_fault_injection_fsdp1_trace) { fi_generated("fsdp1_serialized", "hardening_fi1.json"); }
END_TEST

/* The allocator findings' paths (fragmentation, growth). */
START_TEST(t_fault_injection_allocator_trace) { fi_generated("allocator_thrash", "hardening_fi3.json"); }
END_TEST

/* Communication that is not NCCL: the classification's covers and the
 * report's comm_families (JSON and text). */
START_TEST(t_fault_injection_ep_trace) { fi_generated("ep_moe", "hardening_fi_ep.json"); }
END_TEST

/* A small hand-written ROCm-style trace for the paths the others miss: an
 * RCCL kernel without collective args borrowing them from its
 * record_param_comms op, hipMalloc with a byte count, two devices (a
 * device's streams are a strict subset of all streams). */
START_TEST(t_fault_injection_rccl_fixture) {
  char path[4096];
  snprintf(path, sizeof path, "%s/tests/data/hardening/rccl_two_devices.json", tu_source_root());
  const char *p[1] = {path};
  ck_assert_uint_gt(fail_every_allocation(p, 1, "tests/data/hardening/rccl_two_devices.json"), 100);
}
END_TEST

/* Two ranks: the cross-rank analysis and the multi-rank report paths. */
START_TEST(t_fault_injection_two_ranks) {
  char *base = tu_tracegen("straggler", "--ranks 2 --steps 2 --layers 2 --seed 3", "hardening_fi2.json");
  ck_assert_msg(base != NULL, "tools/tracegen straggler failed");
  char p0[4096], p1[4096];
  char *dot = strstr(base, ".json");
  ck_assert_ptr_nonnull(dot);
  snprintf(p0, sizeof p0, "%.*s.rank0.json", (int)(dot - base), base);
  snprintf(p1, sizeof p1, "%.*s.rank1.json", (int)(dot - base), base);
  const char *p[2] = {p0, p1};
  ck_assert_uint_gt(fail_every_allocation(p, 2, "tracegen straggler --ranks 2 --steps 2 --layers 2"), 100);
  free(base);
}
END_TEST

/* ------------------------------------------------------------------ */
/* memory cap                                                          */

START_TEST(t_memory_cap_real_trace) {
  char *path = corpus_file("hta/nccl_parser_config/nccl_data.json.gz");
  if (!path) return;
  theap h = {0};
  fsdpa_allocator a;
  fsdpa_ctx *c = hctx(&h, &a, 0, 0);
  ck_assert_int_eq(fsdpa_feed_file(c, path), FSDPA_OK);
  char *ref = tu_report(c, FSDPA_FORMAT_JSON);
  ck_assert_ptr_nonnull(ref);
  uint64_t peak = c->alloc.peak;
  hfree(c, &h);
  /* caps from far below to exactly the peak: below it ELIMIT with a clear
   * message and the context never holds more than the cap; at the peak the
   * same report as without a cap */
  const uint64_t caps[] = {1, 4096, 1 << 20, peak / 4, peak / 2, peak - 1, peak};
  for (size_t i = 0; i < sizeof caps / sizeof caps[0]; i++) {
    theap h2 = {0};
    fsdpa_allocator a2 = t_allocator(&h2);
    fsdpa_options o;
    fsdpa_options_init(&o);
    o.allocator = &a2;
    o.name = "t"; /* as hctx(): the name is allocated too */
    o.max_memory_bytes = caps[i];
    fsdpa_ctx *c2 = NULL;
    fsdpa_status st = fsdpa_ctx_new(&c2, &o);
    /* the message of the call that failed, from its own channel */
    char m[512] = "";
    if (st == FSDPA_OK) {
      st = fsdpa_feed_file(c2, path);
      snprintf(m, sizeof m, "%s", fsdpa_errmsg(c2));
    }
    char *rep = NULL;
    if (st == FSDPA_OK) {
      const char *name = "trace"; /* as tu_report() */
      fsdpa_error e;
      fsdpa_error_init(&e);
      st = fsdpa_report(&c2, &name, 1, NULL, &rep, NULL, &e);
      snprintf(m, sizeof m, "%s", e.message);
    }
    if (caps[i] < peak) {
      ck_assert_msg(st == FSDPA_ELIMIT, "cap %llu < peak %llu: %s", (unsigned long long)caps[i],
                    (unsigned long long)peak, fsdpa_status_str(st));
      if (c2) { /* a refused fsdpa_ctx_new() has no context to hold a message */
        ck_assert_msg(strstr(m, "limit") || strstr(m, "cap"), "cap %llu: message '%s'", (unsigned long long)caps[i], m);
        ck_assert_uint_le(c2->alloc.peak, caps[i]);
      }
    } else {
      ck_assert_msg(st == FSDPA_OK, "cap = peak: %s", fsdpa_status_str(st));
      ck_assert_msg(strcmp(rep, ref) == 0, "cap = peak: the report differs from the one without a cap");
      ck_assert_uint_le(c2->alloc.peak, caps[i]);
    }
    fsdpa_free(rep);
    fsdpa_ctx_free(c2);
    ck_assert_uint_eq(h2.live, 0);
  }
  printf("# memory cap: nccl_data.json.gz peaks at %llu bytes; every cap below refused with FSDPA_ELIMIT\n",
         (unsigned long long)peak);
  free(ref);
  free(path);
}
END_TEST

int main(void) {
  Suite *s = suite_create("hardening");
  TU_CASE(s, "truncation", 600, NULL, t_truncated_at_every_offset, t_gzip_truncated_at_every_offset);
  TU_CASE(s, "bad_json", 600, NULL, t_invalid_utf8, t_deep_nesting, t_long_numbers_nan_infinity,
          t_bad_literals_in_unread_fields, t_duplicate_keys, t_wrong_types_every_field);
  TU_CASE(s, "big", 600, NULL, t_huge_strings, t_gzip_bomb);
  TU_CASE(s, "faults", 1200, NULL, t_fault_injection_real_trace, t_fault_injection_generated_trace,
          t_fault_injection_fsdp1_trace, t_fault_injection_allocator_trace, t_fault_injection_rccl_fixture,
          t_fault_injection_ep_trace, t_fault_injection_two_ranks, t_memory_cap_real_trace);
  return tu_run_suite(s);
}
