#include "testutil.h"
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

const char *tu_source_root(void) {
  const char *s = getenv("FSDPA_SOURCE_ROOT");
  return s ? s : ".";
}
const char *tu_build_root(void) {
  const char *s = getenv("FSDPA_BUILD_ROOT");
  return s ? s : ".";
}

const char *tu_gen_dir(void) {
  static char dir[4096];
  snprintf(dir, sizeof dir, "%s/tests/gen", tu_build_root());
  mkdir(dir, 0777);
  return dir;
}

const char *tu_corpus_dir(void) {
  const char *d = getenv("FSDPA_TRACE_CORPUS");
  if (!d || !*d) d = getenv("FSDPA_DEFAULT_CORPUS");
  struct stat st;
  if (!d || stat(d, &st) != 0 || !S_ISDIR(st.st_mode)) {
    printf("# SKIP corpus tests: trace corpus not found at %s (set FSDPA_TRACE_CORPUS)\n",
           d ? d : "(unset)");
    return NULL;
  }
  return d;
}

char *tu_read_file(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  size_t cap = 1 << 16, n = 0;
  char *buf = malloc(cap);
  size_t r;
  while (buf && (r = fread(buf + n, 1, cap - n, f)) > 0) {
    n += r;
    if (n == cap) {
      char *nb = realloc(buf, cap * 2);
      if (!nb) { free(buf); buf = NULL; break; }
      buf = nb;
      cap *= 2;
    }
  }
  fclose(f);
  if (buf) buf[n] = 0; /* always room: the loop grows the buffer before it is full */
  if (len) *len = n;
  return buf;
}

char *tu_run(const char *cmd, int *status) {
  FILE *p = popen(cmd, "r");
  if (!p) return NULL;
  size_t cap = 4096, n = 0;
  char *buf = malloc(cap);
  size_t r;
  while (buf && (r = fread(buf + n, 1, cap - n - 1, p)) > 0) {
    n += r;
    if (n + 1 == cap) {
      char *nb = realloc(buf, cap * 2);
      if (!nb) { free(buf); buf = NULL; break; }
      buf = nb;
      cap *= 2;
    }
  }
  int st = pclose(p);
  if (status) *status = st;
  if (buf) buf[n] = 0;
  return buf;
}

char *tu_tracegen(const char *scenario, const char *extra, const char *name) {
  char cmd[8192];
  const char *dir = tu_gen_dir();
  char *path = malloc(4096);
  if (!path) return NULL;
  snprintf(path, 4096, "%s/%s", dir, name);
  const char *py = getenv("FSDPA_PYTHON");
  snprintf(cmd, sizeof cmd, "'%s' '%s/tools/tracegen/tracegen.py' %s -o '%s' %s >/dev/null",
           py ? py : "python3", tu_source_root(), scenario, path, extra ? extra : "");
  if (system(cmd) != 0) {
    free(path);
    return NULL;
  }
  return path;
}

fsdpa_ctx *tu_feed_chunks(const char *buf, size_t len, size_t chunk, fsdpa_status *st) {
  fsdpa_ctx *c = NULL;
  *st = fsdpa_ctx_new(&c, NULL);
  if (*st) return NULL;
  if (chunk == 0) chunk = len ? len : 1;
  for (size_t off = 0; off < len; off += chunk) {
    size_t n = len - off < chunk ? len - off : chunk;
    *st = fsdpa_feed(c, buf + off, n);
    if (*st) return c;
  }
  *st = fsdpa_finish(c);
  return c;
}

char *tu_report_json(fsdpa_ctx *const *c, size_t n, const char *const *paths, size_t *len) {
  char *out = NULL;
  if (fsdpa_report(c, paths, n, NULL, &out, len, NULL) != FSDPA_OK) return NULL;
  return out;
}

char *tu_report(fsdpa_ctx *c, fsdpa_format fmt) {
  fsdpa_report_options o;
  fsdpa_report_options_init(&o);
  o.format = fmt;
  char *out = NULL;
  size_t len = 0;
  const char *path = "trace";
  if (fsdpa_report(&c, &path, 1, &o, &out, &len, NULL) != FSDPA_OK) return NULL;
  char *copy = malloc(len + 1);
  if (copy) memcpy(copy, out, len + 1);
  fsdpa_free(out);
  return copy;
}

int tu_json_num(const char *json, const char *key, const char *from, double *out) {
  char pat[256];
  snprintf(pat, sizeof pat, "\"%s\":", key);
  const char *p = strstr(from ? from : json, pat);
  if (!p) return 0;
  p += strlen(pat);
  while (*p == ' ') p++;
  if (!strncmp(p, "null", 4)) return 0;
  char *end;
  double v = strtod(p, &end);
  if (end == p) return 0;
  *out = v;
  return 1;
}

/* ---- hand-built events and generator scenarios (sync and allocator tests) ---- */

fsdpa_event tu_x(const char *cat, const char *name, int64_t pid, int64_t tid, int64_t ts, int64_t dur,
                 int64_t corr) {
  fsdpa_event e;
  fsdpa_event_init(&e);
  e.ph = 'X';
  e.cat = cat;
  e.cat_len = cat ? strlen(cat) : 0;
  e.name = name;
  e.name_len = name ? strlen(name) : 0;
  e.pid = pid;
  e.tid = tid;
  e.ts_ns = ts;
  e.dur_ns = dur;
  e.correlation = corr;
  return e;
}

void tu_add(fsdpa_ctx *c, const fsdpa_event *e) {
  fsdpa_status st = fsdpa_event_add(c, e);
  ck_assert_msg(st == FSDPA_OK, "fsdpa_event_add: %s: %s", fsdpa_status_str(st), fsdpa_errmsg(c));
}

void tu_add_x(fsdpa_ctx *c, const char *cat, const char *name, int64_t pid, int64_t tid, int64_t ts,
              int64_t dur, int64_t corr) {
  fsdpa_event e = tu_x(cat, name, pid, tid, ts, dur, corr);
  tu_add(c, &e);
}

static int cmp_path(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static void walk(const char *dir, char ***out, size_t *n, size_t *cap) {
  DIR *d = opendir(dir);
  if (!d) return;
  struct dirent *de;
  while ((de = readdir(d)) != NULL) {
    if (de->d_name[0] == '.') continue;
    size_t len = strlen(dir) + strlen(de->d_name) + 2;
    char *p = malloc(len);
    ck_assert_ptr_nonnull(p);
    snprintf(p, len, "%s/%s", dir, de->d_name);
    struct stat st;
    if (stat(p, &st) == 0 && S_ISDIR(st.st_mode)) {
      walk(p, out, n, cap);
      free(p);
      continue;
    }
    size_t pl = strlen(p);
    int json = (pl > 5 && !strcmp(p + pl - 5, ".json")) || (pl > 8 && !strcmp(p + pl - 8, ".json.gz"));
    if (!json) {
      free(p);
      continue;
    }
    if (*n == *cap) {
      *cap = *cap ? *cap * 2 : 64;
      *out = realloc(*out, *cap * sizeof **out);
      ck_assert_ptr_nonnull(*out);
    }
    (*out)[(*n)++] = p;
  }
  closedir(d);
}

size_t tu_corpus_files(const char *dir, char ***out) {
  size_t n = 0, cap = 0;
  *out = NULL;
  walk(dir, out, &n, &cap);
  if (n) qsort(*out, n, sizeof **out, cmp_path);
  return n;
}

void tu_free_paths(char **paths, size_t n) {
  for (size_t i = 0; i < n; i++) free(paths[i]);
  free(paths);
}

void tu_list_item(const fsdpa_list *l, size_t i, void *item, size_t size) {
  memset(item, 0, size);
  *(size_t *)item = size;
  fsdpa_status st = fsdpa_list_get(l, i, item);
  ck_assert_msg(st == FSDPA_OK, "fsdpa_list_get(%zu of %zu): %s", i, fsdpa_list_count(l), fsdpa_status_str(st));
}

/* The helpers below read reports by structure (tests/support/tjson.h). */
#include "tjson.h"

void tu_launch_kernel(fsdpa_ctx *c, int64_t tid, int64_t at, int64_t corr, int64_t stream, int64_t s, int64_t e,
                      const char *kname) {
  tu_add_x(c, "cuda_runtime", "cudaLaunchKernel", 10, tid, at, 5, corr);
  tu_add_x(c, "kernel", kname, 0, stream, s, e - s, corr);
}

fsdpa_ctx *tu_new_ctx(void) {
  fsdpa_ctx *c = NULL;
  ck_assert_int_eq(fsdpa_ctx_new(&c, NULL), FSDPA_OK);
  return c;
}

char *tu_page_json(const char *html, const char *id) {
  char attr[128];
  snprintf(attr, sizeof attr, "id=\"%s\"", id);
  const char *v = strstr(html, attr);
  ck_assert_msg(v != NULL, "the page has no script #%s", id);
  v = strchr(v, '>') + 1;
  const char *e = strstr(v, "</script>");
  ck_assert_ptr_nonnull(e);
  char *js = strndup(v, (size_t)(e - v));
  ck_assert_ptr_nonnull(js);
  ck_assert_msg(tj_valid(js, strlen(js)), "the page's #%s is not JSON", id);
  return js;
}

int tu_report_has_finding(const char *rep, const char *id) {
  char path[128];
  snprintf(path, sizeof path, "findings.[id=%s]", id);
  return tj_has(rep, path);
}

void tu_build_sync_inferred(fsdpa_ctx *c) {
  tu_add_x(c, "user_annotation", "ProfilerStep#1", 10, 10, 0, 10000, FSDPA_ABSENT);
  tu_launch_kernel(c, 10, 100, 1, 7, 200, 1000, "k1");
  tu_launch_kernel(c, 10, 120, 2, 7, 1000, 2000, "k2");
  tu_add_x(c, "cuda_runtime", "cudaStreamSynchronize", 10, 10, 300, 1800, 3);
  tu_launch_kernel(c, 10, 2500, 4, 7, 2600, 2700, "k3");
  /* another thread, never launched anything: device-wide, all devices */
  tu_add_x(c, "cuda_runtime", "cudaDeviceSynchronize", 10, 11, 5000, 100, 5);
}

/* The generator's truth of a trace as lines: sync API rows, allocator
 * numbers, expected and absent findings. */
static char *scenario_truth_lines(const char *trace) {
  char cmd[8192];
  const char *py = getenv("FSDPA_PYTHON");
  snprintf(cmd, sizeof cmd,
           "'%s' -c \"import json,sys\n"
           "p=sys.argv[1]\n"
           "p=p[:-8] if p.endswith('.json.gz') else p[:-5]\n"
           "t=json.load(open(p+'.truth.json'))\n"
           "[print('sync',k,v['count'],v['total_ns'],v['max_ns']) for k,v in t['sync'].items()]\n"
           "[print('blocking',x['api'],x['dur_ns'],x['source'],x['waited_op']) for x in t.get('blocking',[])]\n"
           "a=t['allocator']\n"
           "[print('alloc',k,-1 if a[k] is None else a[k]) for k in ('malloc_calls','free_calls',"
           "'steady_state_malloc_calls','warmup_steps','peak_allocated_bytes','peak_reserved_bytes')]\n"
           "[print('expected',x) for x in t['expected_findings']]\n"
           "[print('absent',x) for x in t['absent_findings']]\" '%s'",
           py ? py : "python3", trace);
  int st = 0;
  char *out = tu_run(cmd, &st);
  if (!out || st) {
    free(out);
    return NULL;
  }
  return out;
}

/* The findings of the sync and allocator analyses (the truth lists others too). */
static int sync_alloc_finding(const char *id) {
  return !strcmp(id, "cpu-sync-stall") || !strcmp(id, "allocator-thrash") || !strcmp(id, "allocator-fragmentation");
}

void tu_check_sync_alloc_scenario(const char *scenario, const char *must, const char *must_not) {
  char name[128];
  snprintf(name, sizeof name, "sa_%s.json.gz", scenario);
  char *path = tu_tracegen(scenario, "--steps 6", name);
  if (!path) {
    printf("# SKIP %s: tools/tracegen could not generate it\n", scenario);
    return;
  }
  fsdpa_ctx *c = tu_new_ctx();
  ck_assert_msg(fsdpa_feed_file(c, path) == FSDPA_OK, "%s: %s", scenario, fsdpa_errmsg(c));
  char *t = scenario_truth_lines(path);
  ck_assert_ptr_nonnull(t);
  char *rep = tu_report(c, FSDPA_FORMAT_JSON);
  ck_assert_ptr_nonnull(rep);
  fsdpa_list *wl = NULL;
  ck_assert_int_eq(fsdpa_sync_wait_list(c, NULL, &wl), FSDPA_OK);
  size_t nw = fsdpa_list_count(wl);
  ck_assert_uint_le(nw, 16);
  fsdpa_sync_wait w[16];
  for (size_t i = 0; i < nw; i++) TU_ITEM(wl, i, w[i]);
  fsdpa_memory_summary m;
  m.size = sizeof m;
  ck_assert_int_eq(fsdpa_memory_query(c, NULL, &m), FSDPA_OK);
  fsdpa_list *kl = NULL;
  ck_assert_int_eq(fsdpa_sync_call_list(c, NULL, &kl), FSDPA_OK);
  size_t truth_apis = 0, truth_blocking = 0;
  long long truth_free = -1;
  char *save = NULL;
  for (char *line = strtok_r(t, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
    char a[128];
    long long x, y, z;
    if (sscanf(line, "sync %127s %lld %lld %lld", a, &x, &y, &z) == 4) {
      truth_apis++;
      size_t i = 0;
      while (i < nw && strcmp(w[i].api, a)) i++;
      ck_assert_msg(i < nw, "%s: %s missing", scenario, a);
      ck_assert_msg(w[i].count == (uint64_t)x && w[i].total_ns == y && w[i].max_ns == z,
                    "%s: %s lib %llu/%lld/%lld truth %lld/%lld/%lld", scenario, a, (unsigned long long)w[i].count,
                    (long long)w[i].total_ns, (long long)w[i].max_ns, x, y, z);
    } else if (!strncmp(line, "blocking ", 9)) {
      /* blocking API DUR SOURCE WAITED_OP: a call the generator made block, and on what */
      char src[32];
      int off = 0;
      ck_assert_int_eq(sscanf(line, "blocking %127s %lld %31s %n", a, &x, src, &off), 3);
      const char *op = line + off;
      fsdpa_wait_source want = !strcmp(src, "own_op") ? FSDPA_WAIT_OWN_OP : FSDPA_WAIT_INFERRED;
      size_t i = 0, n = fsdpa_list_count(kl);
      fsdpa_sync_call k;
      for (; i < n; i++) {
        TU_ITEM(kl, i, k);
        if (!strcmp(k.api, a) && k.dur_ns == x) break;
      }
      ck_assert_msg(i < n, "%s: blocking %s of %lld ns not found", scenario, a, x);
      ck_assert_msg(k.source == want && k.waited_op && !strcmp(k.waited_op, op),
                    "%s: %s of %lld ns waited for %s (source %d), truth %s (%s)", scenario, a, x,
                    k.waited_op ? k.waited_op : "nothing", (int)k.source, op, src);
      truth_blocking++;
    } else if (sscanf(line, "alloc %127s %lld", a, &x) == 2) {
      int64_t v = !strcmp(a, "malloc_calls") ? (int64_t)m.malloc_calls
                  : !strcmp(a, "free_calls") ? (int64_t)m.free_calls
                  : !strcmp(a, "steady_state_malloc_calls") ? (int64_t)m.steady_state_malloc_calls
                  : !strcmp(a, "warmup_steps") ? m.warmup_steps
                  : !strcmp(a, "peak_allocated_bytes") ? m.peak_allocated_bytes
                                                       : m.peak_reserved_bytes;
      if (x == -1) x = FSDPA_ABSENT;
      ck_assert_msg(v == x, "%s: allocator %s lib %lld truth %lld", scenario, a, (long long)v, x);
      if (!strcmp(a, "free_calls")) truth_free = x;
    } else if (sscanf(line, "expected %127s", a) == 1 && sync_alloc_finding(a)) {
      ck_assert_msg(tu_report_has_finding(rep, a), "%s: expected finding %s missing", scenario, a);
    } else if (sscanf(line, "absent %127s", a) == 1 && sync_alloc_finding(a)) {
      ck_assert_msg(!tu_report_has_finding(rep, a), "%s: finding %s should be absent", scenario, a);
    }
  }
  /* the truth's sync table leaves out cudaFree; ours lists it as a blocking call */
  size_t extra = 0;
  for (size_t i = 0; i < nw; i++)
    if (!strcmp(w[i].api, "cudaFree")) {
      extra++;
      ck_assert_int_eq((long long)w[i].count, truth_free);
    }
  ck_assert_uint_eq(nw, truth_apis + extra);
  if (must) ck_assert_msg(tu_report_has_finding(rep, must), "%s: %s missing", scenario, must);
  if (must_not) ck_assert_msg(!tu_report_has_finding(rep, must_not), "%s: %s present", scenario, must_not);
  printf("# %s: %zu sync APIs (%zu calls with their waited-for op), %llu malloc / %llu free, warm-up %lld, peaks "
         "%lld/%lld agree with the truth\n",
         scenario, nw, truth_blocking, (unsigned long long)m.malloc_calls, (unsigned long long)m.free_calls,
         (long long)m.warmup_steps, (long long)m.peak_allocated_bytes, (long long)m.peak_reserved_bytes);
  free(rep);
  free(t);
  fsdpa_list_free(wl);
  fsdpa_list_free(kl);
  fsdpa_ctx_free(c);
  free(path);
}

TCase *tu_case_add(Suite *s, const char *name, double timeout_s, void (*setup)(void), const TTest *const *tests) {
  TCase *tc = tcase_create(name);
  if (setup) tcase_add_checked_fixture(tc, setup, NULL);
  if (timeout_s > 0) tcase_set_timeout(tc, timeout_s);
  for (; *tests; tests++) tcase_add_test(tc, *tests);
  suite_add_tcase(s, tc);
  return tc;
}

int tu_run_suite(Suite *s) {
  SRunner *sr = srunner_create(s);
  srunner_run_all(sr, CK_ENV);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

fsdpa_list *tu_unit_list(fsdpa_ctx *c, const fsdpa_query *q) {
  fsdpa_list *l = NULL;
  ck_assert_int_eq(fsdpa_fsdp_unit_list(c, q, &l), FSDPA_OK);
  ck_assert_int_eq(fsdpa_list_type(l), FSDPA_LIST_FSDP_UNITS);
  return l;
}

void tu_same_units(const fsdpa_list *a, const fsdpa_list *b) {
  ck_assert_uint_eq(fsdpa_list_count(a), fsdpa_list_count(b));
  for (size_t i = 0; i < fsdpa_list_count(a); i++) {
    fsdpa_fsdp_unit x, y;
    TU_ITEM(a, i, x);
    TU_ITEM(b, i, y);
    ck_assert_str_eq(x.name, y.name);
    ck_assert_uint_eq(x.name_len, y.name_len);
    ck_assert_int_eq(x.phase, y.phase);
    ck_assert_uint_eq(x.instances, y.instances);
    ck_assert_int_eq(x.comm_ns, y.comm_ns);
    ck_assert_int_eq(x.compute_ns, y.compute_ns);
    ck_assert_int_eq(x.exposed_ns, y.exposed_ns);
    ck_assert_int_eq(x.exposed_sum_ns, y.exposed_sum_ns);
    ck_assert_int_eq(x.exposed_measured_ns, y.exposed_measured_ns);
    ck_assert_int_eq(x.allgather_ns, y.allgather_ns);
    ck_assert_int_eq(x.reducescatter_ns, y.reducescatter_ns);
    ck_assert_uint_eq(x.comm_kernels, y.comm_kernels);
    ck_assert_uint_eq(x.compute_kernels, y.compute_kernels);
  }
}

static void *fault_malloc(void *ud, size_t n) {
  tu_fault *f = ud;
  if (++f->calls == f->fail_at) return NULL;
  void *p = malloc(n);
  if (p) f->outstanding += (int64_t)n;
  return p;
}
static void *fault_realloc(void *ud, void *p, size_t o, size_t n) {
  tu_fault *f = ud;
  if (++f->calls == f->fail_at) return NULL;
  void *q = realloc(p, n);
  if (q) f->outstanding += (int64_t)n - (int64_t)o;
  return q;
}
static void fault_free(void *ud, void *p, size_t n) {
  tu_fault *f = ud;
  if (p) f->outstanding -= (int64_t)n;
  free(p);
}

fsdpa_allocator tu_fault_allocator(tu_fault *f) {
  fsdpa_allocator a = {sizeof a, fault_malloc, fault_realloc, fault_free, f};
  return a;
}
