/* The HTML report: every corpus trace and every generator scenario gives one
 * self-contained page that loads in headless Chromium without a console
 * error and draws its charts (tests/html_check.py: one browser run for all
 * pages, screenshots decoded and checked for the Gantt's colors; the
 * overview and the Gantt share one colour table with their legends; the
 * findings are keyboard-operable options; CPU-side findings highlight the
 * CPU thread that made the calls, GPU-side ones the GPU lanes; no label is
 * cut at 1024x768); the html_step option; the page stays small for a huge
 * step; a 500-step trace keeps every step reachable (and a trace past the
 * page's budget says which steps it holds), its overview zooms; names
 * cannot break out of the page's script; every allocation failure is
 * reported and leaks nothing. */
#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include "report_jobs.h"
#include "tjson.h"

static char extra_dir[4096];

static void setup(void) {
  snprintf(extra_dir, sizeof extra_dir, "%s/tests/html-extra", tu_build_root());
  char cmd[4200];
  snprintf(cmd, sizeof cmd, "mkdir -p '%s'", extra_dir);
  ck_assert_int_eq(system(cmd), 0);
}

static fsdpa_status html_of(fsdpa_ctx **c, size_t n, const char *const *paths, int64_t step,
                            char **out, size_t *len, fsdpa_error *err) {
  fsdpa_report_options o;
  fsdpa_report_options_init(&o);
  o.format = FSDPA_FORMAT_HTML;
  o.html_step = step;
  *out = NULL;
  fsdpa_error_init(err);
  return fsdpa_report(c, paths, n, &o, out, len, err);
}

/* The page of one context at the default step; the test fails if the
 * library refuses.  Release with fsdpa_free. */
static char *page_of(fsdpa_ctx *c, const char *path, size_t *len) {
  const char *paths[1] = {path};
  fsdpa_error err;
  char *h = NULL;
  fsdpa_status st = html_of(&c, 1, paths, FSDPA_ABSENT, &h, len, &err);
  ck_assert_msg(st == FSDPA_OK, "%s", err.message);
  return h;
}

/* Writes a page under extra_dir, where the browser test loads it (its path
 * in out), and releases it. */
static void keep_page(char *out, size_t n, const char *name, char *h, size_t len) {
  snprintf(out, n, "%s/%s", extra_dir, name);
  ck_assert_int_eq(rj_write(out, h, len), 0);
  fsdpa_free(h);
}

/* Runs a Python snippet over a page written to `page`, with the page's
 * picture data in v; its stdout. */
static char *py_on_page(const char *code, const char *page) {
  const char *py = rj_python(NULL);
  ck_assert_ptr_nonnull(py);
  char cmd[16384];
  snprintf(cmd, sizeof cmd,
           "'%s' -c \"import json,re,sys\n"
           "t=open(sys.argv[1]).read()\n"
           "v=json.loads(re.search(r'id=.fsdpa-viz.>(.*?)</script>', t, re.S).group(1))\n"
           "%s\" '%s'",
           py, code, page);
  int status = 0;
  char *r = tu_run(cmd, &status);
  ck_assert_msg(r && status == 0, "python check of %s failed", page);
  return r;
}

/* Steps of rank 0 of a page: how many, with a detailed window, with a
 * coarse view, with neither; the coarse views' stride, and the stride-th
 * steps missing or held twice (bad). */
typedef struct step_counts { unsigned n, det, coarse, miss, stride, bad; } step_counts;
static step_counts step_counts_of(const char *page) {
  static const char *const code =
      "r=v['ranks'][0]; n=len(r['steps'])\n"
      "det=set(w['step_index'] for w in r['windows'] if w['kind']=='step')\n"
      "co=[k for k,x in enumerate(r['step_views']['views']) if x]\n"
      "miss=[k for k in range(n) if k not in det and k not in co]\n"
      "bad=[k for k in co if k in det]+[k for k in miss if k % r['step_views']['stride']==0]\n"
      "print(n, len(det), len(co), len(miss), r['step_views']['stride'], len(bad))\n";
  step_counts k = {0, 0, 0, 0, 0, 0};
  char *r = py_on_page(code, page);
  ck_assert_int_eq(sscanf(r, "%u %u %u %u %u %u", &k.n, &k.det, &k.coarse, &k.miss, &k.stride, &k.bad), 6);
  free(r);
  return k;
}

static void add_kernel(fsdpa_ctx *c, const char *name, int64_t stream, int64_t ts, int64_t dur) {
  tu_add_x(c, "kernel", name, 0, stream, ts, dur, FSDPA_ABSENT);
}

static void add_step(fsdpa_ctx *c, int n, int64_t ts, int64_t dur) {
  char name[32];
  snprintf(name, sizeof name, "ProfilerStep#%d", n);
  tu_add_x(c, "user_annotation", name, 1, 1, ts, dur, FSDPA_ABSENT);
}

/* A `[memory]` instant of device 0 (CUDA). */
static void add_memory(fsdpa_ctx *c, int64_t ts, int64_t bytes, int64_t alloc, int64_t res) {
  fsdpa_event e = tu_x("cpu_instant_event", "[memory]", 1, 1, ts, FSDPA_ABSENT, FSDPA_ABSENT);
  e.ph = 'i';
  e.bytes = bytes;
  e.total_allocated = alloc;
  e.total_reserved = res;
  e.device_type = 1;
  e.device_id = 0;
  tu_add(c, &e);
}

START_TEST(t_html_step_option) {
  const char *sample_rel = "/tests/data/sample/fsdp2_sample.json.gz";
  char p[4096];
  snprintf(p, sizeof p, "%s%s", tu_source_root(), sample_rel);
  fsdpa_ctx *c = tu_new_ctx();
  ck_assert_int_eq(fsdpa_feed_file(c, p), FSDPA_OK);
  fsdpa_list *steps = NULL;
  ck_assert_int_eq(fsdpa_step_list(c, &steps), FSDPA_OK);
  size_t ns = fsdpa_list_count(steps);
  ck_assert_uint_ge(ns, 3);
  /* the busiest steady step, computed here from the public timeline query:
   * the first of >= 2 steps is warm-up; busiest = most GPU busy time in the
   * step's CPU range */
  int64_t best = -1, best_busy = -1;
  for (size_t i = 1; i < ns; i++) {
    fsdpa_query q;
    fsdpa_query_init(&q);
    q.fields |= FSDPA_QUERY_STEP;
    q.step = (int64_t)i;
    fsdpa_timeline tl = {sizeof tl, 0, 0, 0, 0};
    ck_assert_int_eq(fsdpa_timeline_query(c, &q, &tl), FSDPA_OK);
    if (tl.busy_ns > best_busy) best_busy = tl.busy_ns, best = (int64_t)i;
  }
  fsdpa_step s;
  TU_ITEM(steps, (size_t)best, s);
  const char *paths[1] = {p};
  size_t len;
  fsdpa_status st;
  fsdpa_error err;
  char *h = NULL;
  st = html_of(&c, 1, paths, FSDPA_ABSENT, &h, &len, &err);
  ck_assert_int_eq(st, FSDPA_OK);
  char *vz = tu_page_json(h, "fsdpa-viz");
  int64_t chosen = tj_i64(vz, "ranks.0.chosen_step");
  ck_assert_msg(chosen == s.number, "default Gantt step %lld, busiest steady step is %lld", (long long)chosen,
                (long long)s.number);
  free(vz);
  fsdpa_free(h);
  fsdpa_step s0;
  TU_ITEM(steps, 0, s0);
  st = html_of(&c, 1, paths, 0, &h, &len, &err);
  ck_assert_int_eq(st, FSDPA_OK);
  vz = tu_page_json(h, "fsdpa-viz");
  ck_assert_int_eq(tj_i64(vz, "ranks.0.chosen_step"), s0.number);
  free(vz);
  char out[4200];
  keep_page(out, sizeof out, "step0.html", h, len);
  /* a step past the end: refused, with the reason in the report's error */
  st = html_of(&c, 1, paths, (int64_t)ns, &h, &len, &err);
  ck_assert_int_eq(st, FSDPA_EINVAL);
  ck_assert_ptr_null(h);
  ck_assert_int_eq(err.status, FSDPA_EINVAL);
  ck_assert_msg(strstr(err.message, "html_step") != NULL, "message: %s", err.message);
  fsdpa_list_free(steps);
  fsdpa_ctx_free(c);
}
END_TEST

/* 200 000 kernels of 1 us in one step: the Gantt merges what falls into one
 * column, so the page stays small, and the merged rectangles still count
 * every kernel (checked in Python on the page's data). */
/* A JSON boolean at path: 1 true, 0 false; the test fails otherwise. */
static int vbool(const char *js, const char *path) {
  const char *b, *e;
  ck_assert_msg(tj_find(js, path, &b, &e), "no %s", path);
  int t = e - b == 4 && !memcmp(b, "true", 4), f = e - b == 5 && !memcmp(b, "false", 5);
  ck_assert_msg(t || f, "%s is not a boolean", path);
  return t;
}

/* Two steps, the first (warm-up) the busier: the page marks it not steady
 * and shows the second by default, as launch_gaps.warmup leaves the first
 * out; one step alone is steady and shown; a second step without GPU work
 * leaves the warm-up one shown (still not steady). */
START_TEST(t_html_warmup_of_two_steps) {
  for (int round = 0; round < 3; round++) {
    int nsteps = round ? 2 : 1;
    fsdpa_ctx *c = tu_new_ctx();
    add_step(c, 5, 0, 100000);
    add_kernel(c, "warmup_gemm", 7, 1000, 80000);
    if (nsteps == 2) add_step(c, 6, 100000, 100000);
    if (round == 1) add_kernel(c, "gemm", 7, 101000, 10000);
    size_t len;
    char *h = page_of(c, "two_steps.json", &len);
    char *vz = tu_page_json(h, "fsdpa-viz");
    char *rep = tu_report(c, FSDPA_FORMAT_JSON);
    ck_assert_ptr_nonnull(rep);
    ck_assert_int_eq(tj_i64(rep, "ranks.0.launch_gaps.warmup.warmup_iterations"), nsteps == 2);
    ck_assert_int_eq(tj_i64(vz, "ranks.0.chosen_step"), round == 1 ? 6 : 5);
    ck_assert_int_eq(tj_count(vz, "ranks.0.steps"), nsteps);
    ck_assert_int_eq(vbool(vz, "ranks.0.steps.0.steady"), nsteps == 1);
    if (nsteps == 2) ck_assert(vbool(vz, "ranks.0.steps.1.steady"));
    free(rep);
    free(vz);
    fsdpa_free(h);
    fsdpa_ctx_free(c);
  }
}
END_TEST

START_TEST(t_html_bounded_for_huge_steps) {
  fsdpa_ctx *c = tu_new_ctx();
  enum { N = 200000 };
  add_step(c, 7, 0, (int64_t)N * 2000 + 1000);
  for (int i = 0; i < N; i++)
    add_kernel(c, i % 2 ? "gemm_kernel" : "ncclDevKernel_AllGather_RING_LL", 7,
               1000 + (int64_t)i * 2000, 1000);
  for (int i = 0; i < 100; i++)
    add_memory(c, (int64_t)i * 4000000, 1 << 20, (int64_t)(i + 1) << 20, (int64_t)(i + 8) << 20);
  size_t len;
  char *h = page_of(c, "synthetic-200k", &len);
  printf("# 200000 kernels in one step: HTML page of %zu bytes\n", len);
  ck_assert_msg(len < 2000000, "page of %zu bytes for one step", len);
  char out[4200];
  keep_page(out, sizeof out, "huge-step.html", h, len);
  fsdpa_ctx_free(c);
  char *r = py_on_page("w=v['ranks'][0]['windows'][0]; lane=w['lanes'][0]\n"
                       "n=sum(lane[k+4] for k in range(0, len(lane), 6)); rects=len(lane)//6\n"
                       "busy=sum(lane[k+5] for k in range(0, len(lane), 6))\n"
                       "print(n, rects, busy)\n",
                       out);
  unsigned long long n = 0, rects = 0, busy = 0;
  ck_assert_int_eq(sscanf(r, "%llu %llu %llu", &n, &rects, &busy), 3);
  printf("# Gantt lane: %llu rectangles for %llu kernels (busy %llu ns)\n", rects, n, busy);
  ck_assert_uint_eq(n, N);
  ck_assert_uint_eq(busy, (unsigned long long)N * 1000);
  ck_assert_uint_le(rects, 1600);
  free(r);
}
END_TEST

/* A kernel named like markup, and a path with markup, cannot end the
 * page's script or inject elements (the page is also loaded in the browser
 * test below). */
START_TEST(t_html_escapes_names) {
  fsdpa_ctx *c = tu_new_ctx();
  add_step(c, 1, 0, 100000);
  add_kernel(c, "</script><script>document.title='pwned'</script><!--", 7, 1000, 5000);
  add_kernel(c, "k\"quote'&amp;", 7, 8000, 5000);
  /* a thread named like markup, and long: its CPU lane's label is cut to
   * fit the label column (the browser test checks none runs into a plot) */
  fsdpa_event m = tu_x(NULL, "thread_name", 10, 99, FSDPA_ABSENT, FSDPA_ABSENT, FSDPA_ABSENT);
  m.ph = 'M';
  m.label = "thread 99 (<i>data_loader_worker</i> & a remarkably long descriptive thread name)";
  m.label_len = strlen(m.label);
  tu_add(c, &m);
  tu_launch_kernel(c, 99, 20000, 41, 7, 21000, 24000, "k_after_launch");
  size_t len;
  char *h = page_of(c, "<b>bold</b>&path", &len);
  ck_assert_ptr_null(strstr(h, "<script>document.title"));
  ck_assert_ptr_null(strstr(h, "<b>bold"));
  ck_assert_ptr_null(strstr(h, "<!--"));
  ck_assert_ptr_null(strstr(h, "<i>data_loader"));
  char out[4200];
  keep_page(out, sizeof out, "escaping.html", h, len);
  fsdpa_ctx_free(c);
}
END_TEST

/* A long generated trace (500 steps of the mixed scenario: a CPU sync
 * stall, allocator thrash, exposed communication): every step of it is in
 * the page (a detailed window or a coarse view), the page stays a few MB,
 * CPU-side findings name the thread of their calls and it has a CPU lane,
 * GPU-side findings are GPU-side.  The browser test then uses the page
 * (--interact: every step, zoom, colours, highlights). */
START_TEST(t_html_long_trace) {
  char *trace = tu_tracegen("mixed", "--steps 500 --layers 2 --seed 7", "html-long-mixed500.json.gz");
  if (!trace) {
    printf("# SKIP long trace: the generator failed\n");
    return;
  }
  fsdpa_ctx *c = tu_new_ctx();
  ck_assert_int_eq(fsdpa_feed_file(c, trace), FSDPA_OK);
  size_t len = 0;
  char *h = page_of(c, trace, &len);
  printf("# 500-step mixed trace (2 layers): HTML page of %zu bytes\n", len);
  ck_assert_msg(len < 4000000, "page of %zu bytes for 500 steps", len);
  char *vz = tu_page_json(h, "fsdpa-viz");
  ck_assert(tj_str_is(vz, "schema", "fsdpa.html-data/2"));
  /* one class table for every chart: the GPU classes, then the CPU ones */
  static const char *const classes[] = {"compute", "AllGather", "ReduceScatter", "AllReduce",
                                        "other collective", "memcpy", "memset"};
  ck_assert_uint_eq(tj_count(vz, "classes"), 13);
  ck_assert(tj_str_is(vz, "classes.12.name", "DataLoader __next__ (CPU)"));
  for (int k = 0; k < 7; k++) {
    char p[64];
    snprintf(p, sizeof p, "classes.%d.name", k);
    ck_assert_msg(tj_str_is(vz, p, classes[k]), "class %d is not %s", k, classes[k]);
    snprintf(p, sizeof p, "classes.%d.side", k);
    ck_assert(tj_str_is(vz, p, "gpu"));
  }
  ck_assert(tj_str_is(vz, "classes.7.side", "cpu"));
  /* blocking runtime calls: by name and by behaviour are two classes */
  ck_assert(tj_str_is(vz, "classes.8.name", "blocking by name (CPU)"));
  ck_assert(tj_str_is(vz, "classes.11.name", "blocking by behaviour (CPU)"));
  ck_assert(tj_str_is(vz, "classes.11.side", "cpu"));
  ck_assert_uint_eq(tj_count(vz, "ranks.0.steps"), 500);
  ck_assert_int_eq(tj_i64(vz, "ranks.0.step_views.stride"), 1);
  /* the findings' sides, in the order of the typed list (= the JSON's) */
  fsdpa_list *fl = NULL;
  fsdpa_error err;
  fsdpa_error_init(&err);
  ck_assert_int_eq(fsdpa_report_findings(&c, 1, &fl, &err), FSDPA_OK);
  size_t nf = fsdpa_list_count(fl), ncpu_lanes = tj_count(vz, "ranks.0.cpu_lanes");
  ck_assert_uint_eq(nf, tj_count(vz, "findings"));
  int seen_cpu = 0, seen_gpu = 0;
  for (size_t k = 0; k < nf; k++) {
    fsdpa_finding f;
    TU_ITEM(fl, k, f);
    char p[128];
    snprintf(p, sizeof p, "findings.%zu.side", k);
    int cpu = !strcmp(f.id, "cpu-sync-stall") || !strcmp(f.id, "allocator-thrash") ||
              !strcmp(f.id, "pinned-host-churn");
    if (!f.nranges) continue;
    ck_assert_msg(tj_str_is(vz, p, cpu ? "cpu" : "gpu"), "%s is not %s-side", f.id, cpu ? "CPU" : "GPU");
    seen_cpu += cpu;
    seen_gpu += !cpu;
    if (!cpu) continue;
    /* each range's thread made the call; it has a CPU lane */
    snprintf(p, sizeof p, "findings.%zu.threads", k);
    ck_assert_uint_eq(tj_count(vz, p), (size_t)f.nranges);
    int64_t want = !strcmp(f.id, "cpu-sync-stall") ? tj_i64(f.evidence_json, "worst_thread_tid") : FSDPA_ABSENT;
    int found_worst = want == FSDPA_ABSENT;
    for (size_t r = 0; r < f.nranges; r++) {
      snprintf(p, sizeof p, "findings.%zu.threads.%zu.1", k, r);
      int64_t tid = tj_i64(vz, p);
      ck_assert_msg(tid != FSDPA_ABSENT, "%s range %zu: no thread", f.id, r);
      found_worst |= tid == want;
      int lane = 0;
      for (size_t l = 0; l < ncpu_lanes; l++) {
        snprintf(p, sizeof p, "ranks.0.cpu_lanes.%zu.tid", l);
        lane |= tj_i64(vz, p) == tid;
      }
      ck_assert_msg(lane, "%s: thread %lld has no CPU lane", f.id, (long long)tid);
    }
    ck_assert_msg(found_worst, "cpu-sync-stall: no range on the worst thread %lld", (long long)want);
  }
  ck_assert_msg(seen_cpu >= 2 && seen_gpu >= 1, "mixed: %d CPU-side, %d GPU-side findings", seen_cpu, seen_gpu);
  fsdpa_list_free(fl);
  free(vz);
  char out[4200];
  keep_page(out, sizeof out, "long-mixed500.html", h, len);
  fsdpa_ctx_free(c);
  free(trace);
  step_counts k = step_counts_of(out);
  printf("# 500 steps: %u detailed, %u coarse, %u not in the page\n", k.det, k.coarse, k.miss);
  ck_assert_uint_eq(k.n, 500);
  ck_assert_uint_eq(k.det + k.coarse, 500);
  ck_assert_uint_eq(k.miss, 0);
  ck_assert_uint_eq(k.bad, 0);
}
END_TEST

/* 3000 steps of 16 kernels on each of four streams, two columns apart at
 * 32 columns a step: more rectangles than the page's budget for coarse
 * views holds even at that resolution, so every stride-th step is kept and
 * the page must say which (checked in the browser: a step it does not hold
 * says how to draw it and zooms the overview to it). */
/* The CPU lanes draw the calls that blocked by behaviour (a pageable
 * cudaMemcpyAsync, a launch that waited for the queue to drain: the
 * sync_classes.by_behaviour of the report) in their own class, apart from
 * the calls that block by name (cudaMemcpy); the page's report carries the
 * workload, iterations and idle causes its summary shows. */
START_TEST(t_html_blocking_by_behaviour) {
  char *trace = tu_tracegen("blocking_copy", "--steps 4", "html-blocking-copy.json.gz");
  ck_assert_ptr_nonnull(trace);
  fsdpa_ctx *c = tu_new_ctx();
  ck_assert_int_eq(fsdpa_feed_file(c, trace), FSDPA_OK);
  size_t len = 0;
  char *h = page_of(c, trace, &len);
  char *vz = tu_page_json(h, "fsdpa-viz");
  char *rep = tu_report(c, FSDPA_FORMAT_JSON);
  ck_assert_ptr_nonnull(rep);
  ck_assert_uint_gt(tj_count(rep, "ranks.0.sync_classes.by_behaviour"), 0);
  size_t nw = tj_count(vz, "ranks.0.windows"), by_name = 0, by_behaviour = 0;
  for (size_t w = 0; w < nw; w++) {
    char p[128];
    snprintf(p, sizeof p, "ranks.0.windows.%zu.cpu", w);
    size_t nl = tj_count(vz, p);
    for (size_t l = 0; l < nl; l++) {
      snprintf(p, sizeof p, "ranks.0.windows.%zu.cpu.%zu", w, l);
      size_t nv = tj_count(vz, p);
      ck_assert_uint_eq(nv % 6, 0);
      for (size_t r = 0; r < nv; r += 6) {
        snprintf(p, sizeof p, "ranks.0.windows.%zu.cpu.%zu.%zu", w, l, r + 2);
        int64_t cls = tj_i64(vz, p);
        snprintf(p, sizeof p, "ranks.0.windows.%zu.cpu.%zu.%zu", w, l, r + 3);
        int64_t idx = tj_i64(vz, p);
        snprintf(p, sizeof p, "ranks.0.windows.%zu.names.%lld", w, (long long)idx);
        char *api = tj_str(vz, p);
        if (cls == 11) {
          by_behaviour++;
          /* a call of sync_classes.by_behaviour */
          char q[160];
          snprintf(q, sizeof q, "ranks.0.sync_classes.by_behaviour.[api=%s].class", api);
          ck_assert_msg(tj_has(rep, q), "%s drawn as blocking by behaviour", api);
        }
        if (cls == 8) {
          by_name++;
          ck_assert_msg(strcmp(api, "cudaMemcpyAsync") && strcmp(api, "cudaLaunchKernel"), "%s by name", api);
        }
        free(api);
      }
    }
  }
  printf("# blocking_copy: %zu CPU rectangles blocking by behaviour, %zu by name\n", by_behaviour, by_name);
  ck_assert_uint_gt(by_behaviour, 0);
  ck_assert_uint_gt(by_name, 0);
  /* what the rank summary shows is in the embedded report */
  ck_assert(tj_has(rep, "ranks.0.workload.parallelism"));
  ck_assert(tj_has(rep, "ranks.0.iterations.count"));
  ck_assert(tj_has(rep, "ranks.0.launch_gaps.idle_causes.idle_ns"));
  ck_assert(tj_has(rep, "ranks.0.launch_gaps.warmup.warmup_iterations"));
  free(rep);
  free(vz);
  fsdpa_free(h);
  fsdpa_ctx_free(c);
  free(trace);
}
END_TEST

START_TEST(t_html_steps_past_the_budget) {
  fsdpa_ctx *c = tu_new_ctx();
  enum { STEPS = 3000, K = 16 };
  static const char *const names[4] = {"gemm_kernel", "ncclDevKernel_AllGather_RING_LL", "elementwise_kernel",
                                       "ncclDevKernel_ReduceScatter_Sum_bf16_RING_LL"};
  for (int s = 0; s < STEPS; s++) {
    int64_t t0 = (int64_t)s * 100000;
    add_step(c, s, t0, 100000);
    for (int l = 0; l < 4; l++)
      for (int i = 0; i < K; i++) add_kernel(c, names[l], 7 + 6 * l, t0 + 1000 + i * 6000 + l * 300, 1000);
  }
  size_t len = 0;
  char *h = page_of(c, "synthetic-3000-steps", &len);
  printf("# 3000 steps x 64 kernels: HTML page of %zu bytes\n", len);
  ck_assert_msg(len < 4000000, "page of %zu bytes", len);
  char *vz = tu_page_json(h, "fsdpa-viz");
  ck_assert_int_eq(tj_i64(vz, "ranks.0.step_views.columns"), 32);
  ck_assert_int_ge(tj_i64(vz, "ranks.0.step_views.stride"), 2);
  free(vz);
  char out[4200];
  keep_page(out, sizeof out, "stride.html", h, len);
  fsdpa_ctx_free(c);
  step_counts k = step_counts_of(out);
  printf("# 3000 steps: %u detailed, %u coarse (one step in %u), %u not in the page\n", k.det, k.coarse, k.stride,
         k.miss);
  ck_assert_uint_eq(k.n, STEPS);
  ck_assert_uint_gt(k.miss, 0);
  ck_assert_uint_eq(k.det + k.coarse + k.miss, STEPS);
  ck_assert_uint_eq(k.bad, 0);  /* the stride-th steps are all there */
}
END_TEST

START_TEST(t_html_every_trace_in_the_browser) {
  char dir[4096], cmd[65536], err[1024];
  snprintf(dir, sizeof dir, "%s/tests/html-out", tu_build_root());
  snprintf(cmd, sizeof cmd, "rm -rf '%s' && mkdir -p '%s'", dir, dir);
  ck_assert_int_eq(system(cmd), 0);
  rj_job jobs[RJ_MAX_JOBS];
  size_t nj = rj_jobs("html-gen", jobs, RJ_MAX_JOBS, 1), scenarios = 0, corpus = 0, biggest = 0;
  const char *py = rj_python(NULL);
  ck_assert_ptr_nonnull(py);
  /* screenshots: the sample and two scenarios, each must show the compute,
   * AllGather and ReduceScatter colors of the Gantt */
  size_t off = (size_t)snprintf(cmd, sizeof cmd, "'%s' '%s/tests/html_check.py' --keep '%s'", py,
                                tu_source_root(), dir);
  for (size_t i = 0; i < nj; i++) {
    rj_job *j = &jobs[i];
    fsdpa_ctx **c = rj_load(j, err, sizeof err);
    ck_assert_msg(c != NULL, "%s: %s", j->name, err);
    size_t len = 0;
    fsdpa_error e;
    char *h = NULL;
    fsdpa_status st = html_of(c, j->n, (const char *const *)j->paths, FSDPA_ABSENT, &h, &len, &e);
    ck_assert_msg(st == FSDPA_OK, "%s: html report: %s", j->name, e.message);
    ck_assert_msg(!strncmp(h, "<!DOCTYPE html>", 15), "%s: not an HTML page", j->name);
    ck_assert_msg(strstr(h, "data-rendered=\"pending\"") != NULL, "%s: no render marker", j->name);
    if (len > biggest) biggest = len;
    char p[4500];
    snprintf(p, sizeof p, "%s/%s.html", dir, j->name);
    ck_assert_int_eq(rj_write(p, h, len), 0);
    fsdpa_free(h);
    /* a job's page made from its JSON report alone (fsdpa render, merge,
     * --low-memory): the same page without the views that need events */
    if (j->n > 1) {
      fsdpa_report_options o;
      fsdpa_report_options_init(&o);
      char *js = NULL, *pg = NULL;
      size_t jl = 0, pl = 0;
      fsdpa_error_init(&e);
      ck_assert_int_eq(fsdpa_report(c, (const char *const *)j->paths, j->n, &o, &js, &jl, &e), FSDPA_OK);
      o.format = FSDPA_FORMAT_HTML;
      ck_assert_msg(fsdpa_report_render(js, jl, &o, &pg, &pl, &e) == FSDPA_OK, "%s: render: %s", j->name, e.message);
      ck_assert(strstr(pg, "id=\"fsdpa-viz\">null</script>") != NULL);
      char q[4600];
      snprintf(q, sizeof q, "%s/%s-from-json.html", dir, j->name);
      ck_assert_int_eq(rj_write(q, pg, pl), 0);
      if (off + strlen(q) + 64 < sizeof cmd) off += (size_t)snprintf(cmd + off, sizeof cmd - off, " '%s'", q);
      fsdpa_free(js);
      fsdpa_free(pg);
    }
    rj_unload(c, j->n);
    int shot = !strcmp(j->name, "sample") || !strcmp(j->name, "fsdp2_healthy") ||
               !strcmp(j->name, "fsdp1_serialized");
    if (off + strlen(p) + 64 < sizeof cmd)
      off += (size_t)snprintf(cmd + off, sizeof cmd - off,
                              shot ? " --screenshot '%s:4e79a7,f28e2b,59a14f'" : " '%s'", p);
    scenarios += j->kind == 1;
    corpus += j->kind == 2;
  }
  rj_free(jobs, nj);
  /* the long pages are used, not only loaded: every step, zoom, colours */
  snprintf(cmd + off, sizeof cmd - off,
           " '%s'/*.html --interact '%s/long-mixed500.html' --interact '%s/stride.html'"
           " --screenshot '%s/long-mixed500.html:4e79a7,f28e2b,59a14f,d37295'",
           extra_dir, extra_dir, extra_dir, extra_dir);
  printf("# HTML of %zu traces: the sample, %zu generator scenarios, %zu corpus traces; largest page %zu bytes\n",
         nj, scenarios, corpus, biggest);
  int status = 0;
  char *out = tu_run(cmd, &status);
  int rc = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  printf("%s", out ? out : "");
  /* a failed check leaves the forked child without flushing stdout: the
   * checker's FAIL lines must reach the log */
  if (rc != 0 && rc != 77) fprintf(stderr, "%s", out ? out : "");
  fflush(stdout);
  free(out);
  if (rc == 77) return;  /* html_check.py printed "# SKIP ..." (no Chromium) */
  ck_assert_msg(rc == 0, "browser test failed (exit %d), see the # FAIL lines", rc);
}
END_TEST

/* ---- every allocation failing in turn ---- */

static tu_fault fa;

START_TEST(t_html_and_text_fault_injection) {
  fsdpa_allocator al = tu_fault_allocator(&fa);
  for (int fmt = FSDPA_FORMAT_TEXT; fmt <= FSDPA_FORMAT_HTML; fmt++) {
    long armed, completed = 0;
    for (armed = 1; armed < 200000 && !completed; armed++) {
      fa.fail_at = 0;
      fa.calls = 0;
      fa.outstanding = 0;
      fsdpa_options o;
      fsdpa_options_init(&o);
      o.allocator = &al;
      fsdpa_ctx *c = NULL;
      ck_assert_int_eq(fsdpa_ctx_new(&c, &o), FSDPA_OK);
      add_step(c, 1, 0, 50000);
      add_step(c, 2, 50000, 50000);
      add_step(c, 3, 100000, 50000);
      for (int i = 0; i < 40; i++) {
        /* the launching thread's calls: the page's CPU lane */
        tu_add_x(c, "cuda_runtime", "cudaLaunchKernel", 1, 1, 900 + i * 3500, 60, FSDPA_ABSENT);
        if (i % 10 == 9) tu_add_x(c, "cuda_runtime", "cudaStreamSynchronize", 1, 1, 970 + i * 3500, 400, FSDPA_ABSENT);
        add_kernel(c, "gemm", 7, 1000 + i * 3500, 2000);
        add_kernel(c, "ncclDevKernel_ReduceScatter_Sum_f32_RING_LL", 13, 2000 + i * 3500, 1500);
        add_memory(c, 1500 + i * 3500, 4096, 1 << 20, 2 << 20);
      }
      fa.calls = 0;
      fa.fail_at = armed;
      fsdpa_report_options ro;
      fsdpa_report_options_init(&ro);
      ro.format = (fsdpa_format)fmt;
      char *out = NULL;
      fsdpa_error err;
      fsdpa_error_init(&err);
      fsdpa_status st = fsdpa_report(&c, NULL, 1, &ro, &out, NULL, &err);
      ck_assert_int_eq(err.status, st);
      if (st == FSDPA_OK) {
        ck_assert_ptr_nonnull(out);
        completed = fa.calls < armed;
      } else {
        ck_assert_msg(st == FSDPA_ENOMEM, "format %d, failing allocation %ld: status %d", fmt, armed, st);
        ck_assert_ptr_null(out);
        ck_assert_msg(err.message[0] != 0, "format %d, failing allocation %ld: no message", fmt, armed);
      }
      fsdpa_free(out);
      fa.fail_at = 0;
      fsdpa_ctx_free(c);
      ck_assert_msg(fa.outstanding == 0, "format %d, failing allocation %ld: %lld bytes leaked", fmt, armed,
                    (long long)fa.outstanding);
    }
    ck_assert_msg(completed, "format %d never completed", fmt);
    printf("# format %d: a failure injected at each of %ld allocations\n", fmt, armed - 2);
  }
}
END_TEST

int main(void) {
  Suite *s = suite_create("html");
  TU_CASE(s, "html", 1500, setup, t_html_step_option, t_html_warmup_of_two_steps, t_html_bounded_for_huge_steps,
          t_html_escapes_names,
          t_html_long_trace, t_html_steps_past_the_budget, t_html_blocking_by_behaviour,
          t_html_every_trace_in_the_browser, t_html_and_text_fault_injection);
  return tu_run_suite(s);
}
