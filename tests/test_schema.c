/* JSON and text reports of every corpus trace and every generator scenario:
 * the JSON validates against docs/report.schema.json (python3-jsonschema,
 * tests/schema_check.py, which also checks that the schema rejects broken
 * reports), and the text fits 100 columns, with and without color. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include "report_jobs.h"
#include "tjson.h"
#include "util/fmt.h"

static rj_job jobs[RJ_MAX_JOBS];
static size_t njobs;

/* Visible columns of a line: ANSI color sequences take none, a UTF-8
 * character takes one. */
static size_t columns(const char *s, size_t n) {
  size_t cols = 0;
  for (size_t k = 0; k < n; k++) {
    if (s[k] == '\033') {
      while (k < n && s[k] != 'm') k++;
      continue;
    }
    if (((unsigned char)s[k] & 0xC0) != 0x80) cols++;
  }
  return cols;
}

static void check_text(const char *name, const char *tx, int color) {
  int line = 1, esc = 0;
  for (const char *s = tx; *s;) {
    const char *e = strchr(s, '\n');
    size_t len = e ? (size_t)(e - s) : strlen(s);
    size_t cols = columns(s, len);
    ck_assert_msg(cols <= 100, "%s (color %d): text line %d has %zu columns: %.*s", name, color, line,
                  cols, (int)len, s);
    if (memchr(s, '\033', len)) esc = 1;
    line++;
    if (!e) break;
    s = e + 1;
  }
  if (color) ck_assert_msg(esc, "%s: --color text has no color codes", name);
  else ck_assert_msg(!esc, "%s: text without color has color codes", name);
  ck_assert_msg(strstr(tx, "== rank ") != NULL, "%s: no rank summary", name);
  ck_assert_msg(strstr(tx, "Findings: ") || strstr(tx, "Findings\033[0m: ") || strstr(tx, "No findings"), "%s: no findings part", name);
}

/* The text's iterations and idle-causes lines say what the JSON does:
 * ranks[].iterations.count, the warm-up iteration's GPU idle
 * (launch_gaps.warmup) and every cause of launch_gaps.idle_causes with
 * idle, as "<cause> <duration>". */
static void check_text_facts(const char *name, const char *js, const char *tx) {
  static const char *const keys[5] = {"host_not_launched_ns", "host_blocked_ns", "stream_wait_ns",
                                      "rank_wait_ns", "unknown_ns"};
  static const char *const words[5] = {"host not launched", "host blocked", "stream wait", "rank wait",
                                       "unknown"};
  size_t nr = tj_count(js, "ranks");
  for (size_t r = 0; r < nr; r++) {
    char path[160], want[200], d[32];
    snprintf(path, sizeof path, "ranks.%zu.iterations.count", r);
    int64_t n = tj_i64(js, path);
    if (n) snprintf(want, sizeof want, "   iterations   %lld from ", (long long)n);
    else snprintf(want, sizeof want, "   iterations   none found: ");
    ck_assert_msg(strstr(tx, want) != NULL, "%s: rank %zu: no \"%s\" line", name, r, want);
    snprintf(path, sizeof path, "ranks.%zu.launch_gaps", r);
    if (tj_is_null(js, path)) {
      ck_assert_msg(strstr(tx, "   idle causes  ") == NULL || nr > 1, "%s: idle causes without GPU", name);
      continue;
    }
    snprintf(path, sizeof path, "ranks.%zu.launch_gaps.warmup.warmup_iterations", r);
    if (tj_i64(js, path)) {
      snprintf(path, sizeof path, "ranks.%zu.launch_gaps.warmup.warmup_gpu_idle_ns", r);
      fmt_dur(d, sizeof d, tj_i64(js, path));
      snprintf(want, sizeof want, "the first is warm-up, not judged: %s GPU idle", d);
      ck_assert_msg(strstr(tx, want) != NULL, "%s: rank %zu: no \"%s\"", name, r, want);
    }
    snprintf(path, sizeof path, "ranks.%zu.launch_gaps.idle_causes.idle_ns", r);
    if (!tj_i64(js, path)) {
      ck_assert_msg(strstr(tx, "   idle causes  none: ") != NULL, "%s: rank %zu: idle causes", name, r);
      continue;
    }
    for (int k = 0; k < 5; k++) {
      snprintf(path, sizeof path, "ranks.%zu.launch_gaps.idle_causes.%s", r, keys[k]);
      int64_t ns = tj_i64(js, path);
      fmt_dur(d, sizeof d, ns);
      snprintf(want, sizeof want, "%s %s (", words[k], d);
      ck_assert_msg(!ns || strstr(tx, want) != NULL, "%s: rank %zu: idle causes lack \"%s\"", name, r, want);
    }
  }
}

START_TEST(t_json_and_text_of_every_trace) {
  char dir[4096], cmd[65536], err[1024];
  snprintf(dir, sizeof dir, "%s/tests/schema-out", tu_build_root());
  snprintf(cmd, sizeof cmd, "rm -rf '%s' && mkdir -p '%s'", dir, dir);
  ck_assert_int_eq(system(cmd), 0);
  njobs = rj_jobs("schema-gen", jobs, RJ_MAX_JOBS, 1);
  size_t scenarios = 0, corpus = 0, off;
  const char *py = rj_python("jsonschema");
  off = (size_t)snprintf(cmd, sizeof cmd, "'%s' '%s/tests/schema_check.py' '%s/docs/report.schema.json'",
                         py ? py : "python3", tu_source_root(), tu_source_root());
  for (size_t i = 0; i < njobs; i++) {
    rj_job *j = &jobs[i];
    fsdpa_ctx **c = rj_load(j, err, sizeof err);
    ck_assert_msg(c != NULL, "%s: %s", j->name, err);
    size_t len = 0;
    fsdpa_error e;
    char *js = rj_report(c, j, FSDPA_FORMAT_JSON, 0, &len, &e);
    ck_assert_msg(js != NULL && e.status == FSDPA_OK, "%s: json report: %s", j->name, e.message);
    ck_assert_uint_eq(strlen(js), len);
    ck_assert_msg(tj_valid(js, len), "%s: the JSON report does not parse", j->name);
    ck_assert(tj_str_is(js, "schema", "fsdpa.report/1"));
    ck_assert_uint_eq(tj_count(js, "inputs"), j->n);
    ck_assert_uint_eq(tj_count(js, "ranks"), j->n);
    char p[4500];
    snprintf(p, sizeof p, "%s/%s.json", dir, j->name);
    ck_assert_int_eq(rj_write(p, js, len), 0);
    if (off + strlen(p) + 4 < sizeof cmd) off += (size_t)snprintf(cmd + off, sizeof cmd - off, " '%s'", p);
    for (int color = 0; color <= 1; color++) {
      char *tx = rj_report(c, j, FSDPA_FORMAT_TEXT, color, &len, &e);
      ck_assert_msg(tx != NULL && e.status == FSDPA_OK, "%s: text report: %s", j->name, e.message);
      ck_assert_uint_eq(strlen(tx), len);
      check_text(j->name, tx, color);
      if (!color) check_text_facts(j->name, js, tx);
      fsdpa_free(tx);
    }
    fsdpa_free(js);
    rj_unload(c, j->n);
    scenarios += j->kind == 1;
    corpus += j->kind == 2;
  }
  printf("# JSON and text of %zu traces: the sample, %zu generator scenarios, %zu corpus traces\n",
         njobs, scenarios, corpus);
  if (!py) {
    printf("# SKIP schema validation: python3-jsonschema not installed (apt-get install python3-jsonschema)\n");
    return;
  }
  int status = 0;
  char *out = tu_run(cmd, &status);
  int rc = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  printf("%s", out ? out : "");
  ck_assert_msg(rc == 0, "schema validation failed (exit %d)", rc);
  free(out);
}
END_TEST

START_TEST(t_not_a_trace_is_rejected) {
  /* the corpus' Chakra execution trace is left out above because it must be
   * rejected: check that it is, with a clear error */
  const char *cd = tu_corpus_dir();
  if (!cd) return;
  char p[4096];
  snprintf(p, sizeof p, "%s/hta/execution_trace/benchmark_simple_add_et.json.gz", cd);
  if (access(p, R_OK) != 0) {
    printf("# SKIP %s not in the corpus\n", p);
    return;
  }
  fsdpa_ctx *c = NULL;
  ck_assert_int_eq(fsdpa_ctx_new(&c, NULL), FSDPA_OK);
  fsdpa_status st = fsdpa_feed_file(c, p);
  ck_assert_msg(st == FSDPA_ENOTTRACE, "execution trace: status %d (%s)", st, fsdpa_errmsg(c));
  fsdpa_ctx_free(c);
}
END_TEST

int main(void) {
  Suite *s = suite_create("schema");
  TU_CASE(s, "formats", 1200, NULL, t_json_and_text_of_every_trace, t_not_a_trace_is_rejected);
  int rc = tu_run_suite(s);
  rj_free(jobs, njobs);
  return rc;
}
