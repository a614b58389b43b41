/* Corpus test: every real trace in the corpus (../shared/traces, or
 * $FSDPA_TRACE_CORPUS) parses, or is rejected with a clear error if it is not
 * a trace; its event counts by category equal an independent count
 * (tests/count_events.py, Python's json); and feeding it whole, in 1-byte,
 * 7-byte, 4 KiB and random chunks, plain and gzip, gives the identical report. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include "testutil.h"
#include "tjson.h"

static char **traces;
static size_t ntraces;

static void load_corpus(void) {
  if (ntraces) return;
  const char *dir = tu_corpus_dir();
  if (!dir) return;
  ntraces = tu_corpus_files(dir, &traces);
}

static int is_not_a_trace(const char *path) { return strstr(path, "execution_trace") != NULL; }

/* gunzip a buffer (all members) for the plain-feeding variants */
static char *gunzip(const char *in, size_t n, size_t *out_n) {
  z_stream z;
  memset(&z, 0, sizeof z);
  if (inflateInit2(&z, 15 + 32) != Z_OK) return NULL;
  size_t cap = n * 8 + 1024, len = 0;
  char *out = malloc(cap);
  z.next_in = (Bytef *)in;
  z.avail_in = (uInt)n;
  for (;;) {
    if (len == cap) {
      cap *= 2;
      out = realloc(out, cap);
    }
    z.next_out = (Bytef *)out + len;
    z.avail_out = (uInt)(cap - len);
    int r = inflate(&z, Z_NO_FLUSH);
    len = cap - z.avail_out;
    if (r == Z_STREAM_END) {
      if (z.avail_in == 0) break;
      inflateReset(&z);
      continue;
    }
    if (r != Z_OK && r != Z_BUF_ERROR) break;
    if (r == Z_BUF_ERROR && z.avail_in == 0) break;
  }
  inflateEnd(&z);
  *out_n = len;
  return out;
}

static char *gzip_buf(const char *in, size_t n, size_t *out_n) {
  z_stream z;
  memset(&z, 0, sizeof z);
  if (deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) return NULL;
  size_t cap = deflateBound(&z, (uLong)n) + 64;
  char *out = malloc(cap);
  z.next_in = (Bytef *)in;
  z.avail_in = (uInt)n;
  z.next_out = (Bytef *)out;
  z.avail_out = (uInt)cap;
  deflate(&z, Z_FINISH);
  *out_n = cap - z.avail_out;
  deflateEnd(&z);
  return out;
}

/* random chunks: sizes 1..8192 from a fixed LCG so failures are reproducible */
static fsdpa_ctx *feed_random(const char *buf, size_t len, fsdpa_status *st) {
  fsdpa_ctx *c = NULL;
  *st = fsdpa_ctx_new(&c, NULL);
  if (*st) return NULL;
  uint64_t x = 0x9E3779B97F4A7C15ull ^ len;
  for (size_t off = 0; off < len;) {
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    size_t k = 1 + (size_t)((x >> 33) % 8192);
    if (k > len - off) k = len - off;
    *st = fsdpa_feed(c, buf + off, k);
    if (*st) return c;
    off += k;
  }
  *st = fsdpa_finish(c);
  return c;
}

/* Two JSON reports of one trace fed two ways: every section is the same
 * value byte for byte, and so is every field of the input entry except
 * `bytes`, the size fed (plain and gzip differ), which must be `fed`. */
static void same_report(const char *ref, const char *rep, size_t fed, const char *p, const char *what) {
  ck_assert_msg(tj_count(rep, "") == tj_count(ref, ""), "%s %s: top-level members differ", p, what);
  static const char *const sections[] = {"schema", "version", "ranks", "cross_rank", "findings"};
  for (size_t s = 0; s < sizeof sections / sizeof sections[0]; s++) {
    const char *ab, *ae, *bb, *be;
    ck_assert_msg(tj_find(ref, sections[s], &ab, &ae), "%s: whole-buffer report has no %s", p, sections[s]);
    ck_assert_msg(tj_find(rep, sections[s], &bb, &be), "%s %s: report has no %s", p, what, sections[s]);
    ck_assert_msg(ae - ab == be - bb && !memcmp(ab, bb, (size_t)(ae - ab)),
                  "%s: %s report differs from whole-buffer report in %s", p, what, sections[s]);
  }
  ck_assert_uint_eq(tj_count(rep, "inputs"), 1);
  ck_assert_uint_eq(tj_count(rep, "inputs.0"), tj_count(ref, "inputs.0"));
  ck_assert(tj_str_is(rep, "inputs.0.path", "trace"));
  static const char *const fields[] = {"inputs.0.rank", "inputs.0.world_size", "inputs.0.events"};
  for (size_t f = 0; f < sizeof fields / sizeof fields[0]; f++)
    ck_assert_msg(tj_i64(rep, fields[f]) == tj_i64(ref, fields[f]), "%s %s: %s differs", p, what, fields[f]);
  ck_assert_msg(tj_i64(rep, "inputs.0.bytes") == (int64_t)fed, "%s %s: inputs.0.bytes %lld, fed %zu", p, what,
                (long long)tj_i64(rep, "inputs.0.bytes"), fed);
}

START_TEST(t_counts_match_independent_count) {
  load_corpus();
  if (!ntraces) return;
  const char *py = getenv("FSDPA_PYTHON");
  int checked = 0;
  for (size_t i = 0; i < ntraces; i++) {
    const char *p = traces[i];
    fsdpa_ctx *c = NULL;
    fsdpa_options o;
    fsdpa_options_init(&o);
    o.name = p;
    ck_assert_int_eq(fsdpa_ctx_new(&c, &o), FSDPA_OK);
    fsdpa_status st = fsdpa_feed_file(c, p);
    if (is_not_a_trace(p)) {
      ck_assert_msg(st == FSDPA_ENOTTRACE || st == FSDPA_EPARSE, "%s: expected rejection, got %d", p, st);
      ck_assert_msg(strstr(fsdpa_errmsg(c), p) != NULL, "message must name the file: %s", fsdpa_errmsg(c));
      fsdpa_ctx_free(c);
      continue;
    }
    ck_assert_msg(st == FSDPA_OK, "%s: %s", p, fsdpa_errmsg(c));
    char cmd[8192];
    snprintf(cmd, sizeof cmd, "'%s' '%s/tests/count_events.py' '%s'", py ? py : "python3",
             tu_source_root(), p);
    int status = 0;
    char *js = tu_run(cmd, &status);
    ck_assert_msg(js && status == 0, "count_events.py failed on %s", p);
    fsdpa_stats s = {sizeof s};
    fsdpa_stats_get(c, &s);
    struct { const char *k; uint64_t v; } F[] = {
        {"events", s.events},       {"kernels", s.kernels},     {"gpu_memcpy", s.gpu_memcpy},
        {"gpu_memset", s.gpu_memset}, {"runtime", s.runtime},   {"cpu_ops", s.cpu_ops},
        {"annotations", s.annotations}, {"gpu_annotations", s.gpu_annotations},
        {"memory", s.memory},       {"cuda_sync", s.cuda_sync},
    };
    for (size_t k = 0; k < sizeof F / sizeof F[0]; k++) {
      ck_assert_msg(tj_has(js, F[k].k), "%s: count_events.py gave no %s", p, F[k].k);
      int64_t want = tj_i64(js, F[k].k);
      ck_assert_msg(want >= 0 && (uint64_t)want == F[k].v, "%s: %s: library %llu, independent count %lld", p,
                    F[k].k, (unsigned long long)F[k].v, (long long)want);
    }
    free(js);
    fsdpa_ctx_free(c);
    checked++;
  }
  printf("# corpus: %d traces counted, %zu files\n", checked, ntraces);
  ck_assert_int_gt(checked, 20);
}
END_TEST

START_TEST(t_chunk_invariance) {
  load_corpus();
  if (!ntraces) return;
  int checked = 0;
  for (size_t i = 0; i < ntraces; i++) {
    const char *p = traces[i];
    if (is_not_a_trace(p)) continue;
    size_t n = 0, plain_n = 0, gz_n = 0;
    char *raw = tu_read_file(p, &n);
    ck_assert_ptr_nonnull(raw);
    char *plain, *gz;
    if (n >= 2 && (unsigned char)raw[0] == 0x1f && (unsigned char)raw[1] == 0x8b) {
      gz = raw;
      gz_n = n;
      plain = gunzip(raw, n, &plain_n);
    } else {
      plain = raw;
      plain_n = n;
      gz = gzip_buf(raw, n, &gz_n);
    }
    ck_assert_ptr_nonnull(plain);
    ck_assert_ptr_nonnull(gz);
    fsdpa_status st;
    fsdpa_ctx *c = tu_feed_chunks(plain, plain_n, 0, &st);
    ck_assert_msg(st == FSDPA_OK, "%s whole: %s", p, c ? fsdpa_errmsg(c) : "ctx");
    char *ref = tu_report(c, FSDPA_FORMAT_JSON);
    ck_assert_ptr_nonnull(ref);
    fsdpa_ctx_free(c);
    /* 1-byte feeding of the larger files costs minutes under sanitizers: it is
     * done for every file up to 8 MB plain (and every gzip stream up to 1 MB);
     * the other chunkings cover every file. */
    struct { const char *buf; size_t len; size_t chunk; const char *what; } V[] = {
        {plain, plain_n, 1, "plain 1-byte"},   {plain, plain_n, 7, "plain 7-byte"},
        {plain, plain_n, 4096, "plain 4 KiB"}, {plain, plain_n, 0, "plain random"},
        {gz, gz_n, 0, "gzip whole"},           {gz, gz_n, 1, "gzip 1-byte"},
        {gz, gz_n, 7, "gzip 7-byte"},          {gz, gz_n, 4096, "gzip 4 KiB"},
        {gz, gz_n, 0, "gzip random"},
    };
    for (size_t k = 0; k < sizeof V / sizeof V[0]; k++) {
      if (V[k].chunk == 1 && V[k].buf == plain && plain_n > (8u << 20)) continue;
      if (V[k].chunk == 1 && V[k].buf == gz && gz_n > (1u << 20)) continue;
      int random = V[k].chunk == 0 && strstr(V[k].what, "random");
      c = random ? feed_random(V[k].buf, V[k].len, &st) : tu_feed_chunks(V[k].buf, V[k].len, V[k].chunk, &st);
      ck_assert_msg(st == FSDPA_OK, "%s %s: %s", p, V[k].what, c ? fsdpa_errmsg(c) : "ctx");
      char *rep = tu_report(c, FSDPA_FORMAT_JSON);
      ck_assert_ptr_nonnull(rep);
      same_report(ref, rep, V[k].len, p, V[k].what);
      free(rep);
      fsdpa_ctx_free(c);
    }
    free(ref);
    if (plain != raw) free(plain);
    if (gz != raw) free(gz);
    free(raw);
    checked++;
  }
  printf("# chunk invariance: %d traces x 9 feedings\n", checked);
  ck_assert_int_gt(checked, 20);
}
END_TEST

int main(void) {
  Suite *s = suite_create("corpus");
  TU_CASE(s, "corpus", 3000, NULL, t_counts_match_independent_count, t_chunk_invariance);
  int rc = tu_run_suite(s);
  tu_free_paths(traces, ntraces);
  return rc;
}
