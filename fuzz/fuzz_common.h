/* Shared by the fuzz targets (header-only: each target is one executable).
 *
 * - A checking allocator: every context gets one, so a fuzz run also checks
 *   what ASan cannot see in a gcc replay build: that the library frees with
 *   the size it allocated (the accounting and arena allocators rely on it)
 *   and that fsdpa_ctx_free() returns every byte.
 * - fz_report(): the JSON report over the contexts, so every analysis runs
 *   on every input; on a second format too when the input asks for it.
 * - fz_die(): abort with a message (libFuzzer saves the input as a crash).
 */
#ifndef FSDPA_FUZZ_COMMON_H
#define FSDPA_FUZZ_COMMON_H
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#define FSDPA_EXPERIMENTAL /* the fuzzers call everything, annotate too */
#include <fsdpa/fsdpa.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#if defined(__GNUC__)
__attribute__((noreturn, format(printf, 1, 2)))
#endif
static inline void fz_die(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, "fuzz check failed: ");
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
  abort();
}

/* Abort showing where two texts first differ. */
static inline void fz_same(const char *what, const char *x, size_t xl, const char *y, size_t yl) {
  if (xl == yl && memcmp(x, y, xl) == 0) return;
  size_t k = 0;
  while (k < xl && k < yl && x[k] == y[k]) k++;
  size_t from = k > 60 ? k - 60 : 0;
  fz_die("%s differ at byte %zu:\n  1: %.120s\n  2: %.120s", what, k, x + from, y + from);
}

/* The inputs' "bytes" (bytes fed) differ between gzip and plain input and
 * stop at a failing chunk: replace the number by 0 for comparisons. */
static inline void fz_blank_bytes(char *r) {
  char *b = strstr(r, "\"bytes\": ");
  if (!b) return;
  b += 9;
  char *e = b;
  while (*e >= '0' && *e <= '9') e++;
  if (e == b) return;
  *b = '0';
  memmove(b + 1, e, strlen(e) + 1);
}

/* ---- checking allocator ------------------------------------------------ */

/* A header before each block remembers its size; the library passes the
 * size back on free/realloc and must pass the same one. */
typedef struct fz_heap {
  uint64_t live;   /* bytes allocated and not yet freed */
  uint64_t calls;  /* allocations + reallocations */
} fz_heap;

typedef union fz_hdr {
  size_t n;
  max_align_t align;
} fz_hdr;

static inline void *fz_malloc(void *ud, size_t n) {
  fz_heap *h = (fz_heap *)ud;
  if (n > SIZE_MAX - sizeof(fz_hdr)) return NULL;
  fz_hdr *p = (fz_hdr *)malloc(sizeof(fz_hdr) + n);
  if (!p) return NULL;
  p->n = n;
  h->live += n;
  h->calls++;
  return p + 1;
}

static inline void fz_check(const void *q, size_t n, const char *op) {
  const fz_hdr *p = (const fz_hdr *)q - 1;
  if (p->n != n) fz_die("%s with size %zu of a block of %zu bytes", op, n, p->n);
}

static inline void *fz_realloc(void *ud, void *q, size_t old_n, size_t new_n) {
  fz_heap *h = (fz_heap *)ud;
  fz_check(q, old_n, "realloc");
  if (new_n > SIZE_MAX - sizeof(fz_hdr)) return NULL;
  fz_hdr *p = (fz_hdr *)realloc((fz_hdr *)q - 1, sizeof(fz_hdr) + new_n);
  if (!p) return NULL;
  p->n = new_n;
  h->live = h->live - old_n + new_n;
  h->calls++;
  return p + 1;
}

static inline void fz_free(void *ud, void *q, size_t n) {
  fz_heap *h = (fz_heap *)ud;
  fz_check(q, n, "free");
  if (h->live < n) fz_die("free of %zu bytes with only %llu live", n, (unsigned long long)h->live);
  h->live -= n;
  free((fz_hdr *)q - 1);
}

static inline fsdpa_allocator fz_allocator(fz_heap *h) {
  fsdpa_allocator a;
  memset(&a, 0, sizeof a);
  a.size = sizeof a;
  a.malloc_fn = fz_malloc;
  a.realloc_fn = fz_realloc;
  a.free_fn = fz_free;
  a.ud = h;
  return a;
}

/* A context on a checking heap.  max_input caps the decompressed input so
 * that a gzip bomb costs the fuzzer milliseconds, not gigabytes. */
static inline fsdpa_ctx *fz_ctx_new(fz_heap *h, const fsdpa_allocator *a, uint64_t max_input) {
  fsdpa_options o;
  fsdpa_options_init(&o);
  o.allocator = a;
  o.max_input_bytes = max_input;
  o.name = "fuzz";
  fsdpa_ctx *c = NULL;
  fsdpa_status st = fsdpa_ctx_new(&c, &o);
  if (st != FSDPA_OK) fz_die("fsdpa_ctx_new: %s", fsdpa_status_str(st));
  (void)h;
  return c;
}

static inline void fz_ctx_free(fsdpa_ctx *c, fz_heap *h) {
  fsdpa_ctx_free(c);
  if (h->live) fz_die("%llu bytes still allocated after fsdpa_ctx_free()", (unsigned long long)h->live);
}

/* A status the library documents for input: anything else is a bug. */
static inline void fz_input_status(fsdpa_status st, const char *what) {
  switch (st) {
    case FSDPA_OK: case FSDPA_EPARSE: case FSDPA_ENOTTRACE: case FSDPA_ETRUNCATED:
    case FSDPA_ELIMIT: case FSDPA_ESTATE:
      return;
    default:
      fz_die("%s returned %s", what, fsdpa_status_str(st));
  }
}

/* Whether two of the contexts have the same rank as a report numbers them
 * (trace_info.rank, else the position): a report refuses them. */
static inline int fz_ranks_collide(fsdpa_ctx *const *ctxs, size_t n) {
  int64_t r[2];
  if (n > 2) fz_die("fz_ranks_collide: at most 2 contexts");
  for (size_t i = 0; i < n; i++) {
    fsdpa_trace_info ti;
    fsdpa_trace_info_init(&ti);
    if (fsdpa_trace_info_get(ctxs[i], &ti) != FSDPA_OK) fz_die("fsdpa_trace_info_get");
    r[i] = ti.rank != FSDPA_ABSENT ? ti.rank : (int64_t)i;
  }
  return n == 2 && r[0] == r[1];
}

/* Report over n contexts in `fmt`.  Returns the buffer (fsdpa_free()) or
 * NULL if empty; a report must never fail on contexts that exist, but for
 * two of the same rank, which it must refuse (EINVAL, said), returning NULL. */
static inline char *fz_report(fsdpa_ctx *const *ctxs, size_t n, fsdpa_format fmt, size_t *len) {
  fsdpa_report_options o;
  fsdpa_report_options_init(&o);
  o.format = fmt;
  char *out = NULL;
  size_t l = 0;
  fsdpa_error e;
  fsdpa_error_init(&e);
  fsdpa_status st = fsdpa_report(ctxs, NULL, n, &o, &out, &l, &e);
  if (fz_ranks_collide(ctxs, n)) {
    if (st != FSDPA_EINVAL || out || !strstr(e.message, "twice"))
      fz_die("fsdpa_report over one rank twice: %s (%s)", fsdpa_status_str(st), e.message);
    if (len) *len = 0;
    return NULL;
  }
  if (st != FSDPA_OK) fz_die("fsdpa_report(format %d): %s: %s", (int)fmt, fsdpa_status_str(st), e.message);
  if (e.status != FSDPA_OK || e.message[0]) fz_die("fsdpa_report succeeded but left an error: %s", e.message);
  if (!out || strlen(out) != l) fz_die("fsdpa_report: length %zu does not match the text", l);
  if (len) *len = l;
  return out;
}

/* Length of the valid UTF-8 sequence at s[i] (RFC 3629: no overlongs, no
 * surrogates, <= U+10FFFF), 0 if invalid. */
static inline size_t fz_utf8_len(const unsigned char *s, size_t i, size_t n) {
  unsigned char c = s[i];
  unsigned need, lo = 0x80, hi = 0xBF;
  if (c < 0x80) return 1;
  if (c >= 0xC2 && c <= 0xDF) need = 1;
  else if (c == 0xE0) { need = 2; lo = 0xA0; }
  else if (c == 0xED) { need = 2; hi = 0x9F; }
  else if (c >= 0xE1 && c <= 0xEF) need = 2;
  else if (c == 0xF0) { need = 3; lo = 0x90; }
  else if (c >= 0xF1 && c <= 0xF3) need = 3;
  else if (c == 0xF4) { need = 3; hi = 0x8F; }
  else return 0;
  for (unsigned k = 1; k <= need; k++) {
    if (i + k >= n || s[i + k] < lo || s[i + k] > hi) return 0;
    lo = 0x80;
    hi = 0xBF;
  }
  return need + 1;
}

/* Cheap sanity of a JSON report: valid UTF-8, no raw control bytes in
 * strings, balanced brackets outside strings. */
static inline void fz_check_json(const char *s, size_t n) {
  long depth = 0;
  int in_str = 0, esc = 0;
  for (size_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)s[i];
    if (c >= 0x80) {
      size_t k = fz_utf8_len((const unsigned char *)s, i, n);
      if (!k) fz_die("report: invalid UTF-8 at byte %zu", i);
      i += k - 1;
      esc = 0;
      continue;
    }
    if (in_str) {
      if (esc) esc = 0;
      else if (c == '\\') esc = 1;
      else if (c == '"') in_str = 0;
      else if (c < 0x20) fz_die("report: control byte 0x%02x inside a JSON string at %zu", c, i);
    } else if (c == '"') {
      in_str = 1;
    } else if (c == '{' || c == '[') {
      depth++;
    } else if (c == '}' || c == ']') {
      if (--depth < 0) fz_die("report: unbalanced JSON at byte %zu", i);
    }
  }
  if (depth || in_str) fz_die("report: JSON not closed (depth %ld, in string %d)", depth, in_str);
}

/* Report in JSON (checked) and, when `extra` says so, text or HTML too. */
static inline void fz_reports(fsdpa_ctx *const *ctxs, size_t n, unsigned extra) {
  size_t len = 0;
  char *r = fz_report(ctxs, n, FSDPA_FORMAT_JSON, &len);
  if (!r) return;  /* one rank twice: refused */
  fz_check_json(r, len);
  fsdpa_free(r);
  if (extra % 4 == 1) fsdpa_free(fz_report(ctxs, n, FSDPA_FORMAT_TEXT, NULL));
  if (extra % 4 == 2) fsdpa_free(fz_report(ctxs, n, FSDPA_FORMAT_HTML, NULL));
}

/* Summaries: each context's summary, their merge and the report rebuilt
 * from it must all succeed; when `compare`, that report must be
 * byte-identical to fsdpa_report() over the contexts (the contract of
 * fsdpa_summary_report()).  The summary functions run on a checking heap
 * that must be empty once their outputs are released. */
static inline void fz_summary_roundtrip(fsdpa_ctx *const *ctxs, size_t n, int compare) {
  fz_heap h = {0, 0};
  fsdpa_allocator a = fz_allocator(&h);
  fsdpa_summary_options so;
  fsdpa_summary_options_init(&so);
  so.allocator = &a;
  fsdpa_error e;
  fsdpa_error_init(&e);
  char *sums[2] = {NULL, NULL};
  size_t lens[2] = {0, 0};
  if (n > 2) fz_die("fz_summary_roundtrip: at most 2 contexts");
  for (size_t i = 0; i < n; i++) {
    fsdpa_status st = fsdpa_summary_write(ctxs[i], NULL, &sums[i], &lens[i]);
    if (st != FSDPA_OK) fz_die("fsdpa_summary_write: %s: %s", fsdpa_status_str(st), fsdpa_errmsg(ctxs[i]));
    fz_check_json(sums[i], lens[i]);
  }
  char *m = NULL, *r2 = NULL;
  size_t mlen = 0, r2len = 0;
  fsdpa_status st = fsdpa_summary_merge((const char *const *)sums, lens, n, &so, &m, &mlen, &e);
  /* summaries say trace_info.rank, else 0: two of one rank are refused */
  int64_t sr[2] = {0, 0};
  for (size_t i = 0; i < n; i++) {
    fsdpa_trace_info ti;
    fsdpa_trace_info_init(&ti);
    if (fsdpa_trace_info_get(ctxs[i], &ti) != FSDPA_OK) fz_die("fsdpa_trace_info_get");
    sr[i] = ti.rank != FSDPA_ABSENT ? ti.rank : 0;
  }
  if (n == 2 && sr[0] == sr[1]) {
    if (st != FSDPA_EINVAL || m || e.input != 1) fz_die("merge of one rank twice: %s (%s)", fsdpa_status_str(st), e.message);
    for (size_t i = 0; i < n; i++) fsdpa_free(sums[i]);
    if (h.live) fz_die("summary functions leaked %llu bytes", (unsigned long long)h.live);
    return;
  }
  if (st != FSDPA_OK) fz_die("fsdpa_summary_merge of fresh summaries: %s: %s", fsdpa_status_str(st), e.message);
  st = fsdpa_summary_report(m, mlen, &so, NULL, &r2, &r2len, &e);
  if (st != FSDPA_OK) fz_die("fsdpa_summary_report of a fresh merge: %s: %s", fsdpa_status_str(st), e.message);
  fz_check_json(r2, r2len);
  if (compare) {
    size_t r1len = 0;
    char *r1 = fz_report(ctxs, n, FSDPA_FORMAT_JSON, &r1len);
    fz_same("fsdpa_report() (1) and the report from summaries (2)", r1, r1len, r2, r2len);
    fsdpa_free(r1);
  }
  fsdpa_free(r2);
  fsdpa_free(m);
  for (size_t i = 0; i < n; i++) fsdpa_free(sums[i]);
  if (h.live) fz_die("summary functions leaked %llu bytes", (unsigned long long)h.live);
}

#endif
