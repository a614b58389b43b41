/* Corpus test: every real trace in the corpus (../shared/traces, or
 * $FSDPA_TRACE_CORPUS) parses, or is rejected with a clear error if it is not
 * a trace; its event counts by category equal an independent count
 * (tests/count_events.py, Python's json); and feeding it whole, in 1-byte,
 * 7-byte, 4 KiB and random chunks, plain and gzip, gives the identical report. */
#include <check.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <zlib.h>
#include "testutil.h"

#define MAXT 256
static char *traces[MAXT];
static size_t ntraces;

static int has_suffix(const char *s, const char *suf) {
  size_t a = strlen(s), b = strlen(suf);
  return a >= b && strcmp(s + a - b, suf) == 0;
}

static void walk(const char *dir) {
  DIR *d = opendir(dir);
  if (!d) return;
  struct dirent *e;
  while ((e = readdir(d)) != NULL) {
    if (e->d_name[0] == '.') continue;
    char p[4096];
    snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
    struct stat st;
    if (stat(p, &st)) continue;
    if (S_ISDIR(st.st_mode)) walk(p);
    else if ((has_suffix(p, ".json") || has_suffix(p, ".json.gz")) && ntraces < MAXT)
      traces[ntraces++] = strdup(p);
  }
  closedir(d);
}

static int cmpstr(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

static void load_corpus(void) {
  if (ntraces) return;
  const char *dir = tu_corpus_dir();
  if (!dir) return;
  walk(dir);
  qsort(traces, ntraces, sizeof *traces, cmpstr);
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

static double count_of(const char *json, const char *key) {
  double v = -1;
  if (!tu_json_num(json, key, NULL, &v)) return -1;
  return v;
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
      double want = count_of(js, F[k].k);
      ck_assert_msg(want >= 0, "%s: count_events.py gave no %s", p, F[k].k);
      ck_assert_msg((uint64_t)want == F[k].v, "%s: %s: library %llu, independent count %.0f", p,
                    F[k].k, (unsigned long long)F[k].v, want);
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
      /* the inputs[].bytes field is the size fed, which differs plain vs gzip */
      char *a = strstr(ref, "\"ranks\":"), *b = strstr(rep, "\"ranks\":");
      ck_assert_ptr_nonnull(a);
      ck_assert_ptr_nonnull(b);
      ck_assert_msg(strcmp(a, b) == 0, "%s: %s report differs from whole-buffer report", p, V[k].what);
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
  TCase *tc = tcase_create("corpus");
  tcase_set_timeout(tc, 3000);
  tcase_add_test(tc, t_counts_match_independent_count);
  tcase_add_test(tc, t_chunk_invariance);
  suite_add_tcase(s, tc);
  SRunner *sr = srunner_create(s);
  srunner_run_all(sr, CK_ENV);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
