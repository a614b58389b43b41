/* fsdpa_diff() on hand-written reports with known answers (step time and
 * its spread, the gate, per-iteration values, tables, findings), its errors
 * and allocation failures, and the JSON tree it reads reports with
 * (util/jdoc).  The CLI on generated runs with a known regression is
 * tests/diff_check.py. */
#define FSDPA_EXPERIMENTAL
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "support/testutil.h"
#include "support/tjson.h"
#include "util/jdoc.h"

/* ---- the tree ---- */

START_TEST(t_jdoc) {
  fa_alloc a;
  fa_init(&a, NULL, 0);
  jdoc d;
  const char *s = "{\"a\": [1, -2, 3.5, 1e3, -0.25e-2, 18446744073709551616, null, true, false],"
                  " \"s\": \"x\\u00e9\\n\\\"y\", \"o\": {\"k\": {\"deep\": 7}}, \"e\": [], \"f\": {}}";
  ck_assert_int_eq(jdc_parse(&a, s, strlen(s), &d, NULL, 0), FSDPA_OK);
  const jdc_node *r = jdc_root(&d), *arr = jdc_get(&d, r, "a");
  ck_assert_uint_eq(arr->n, 9);
  /* every value's bytes as they were written */
  ck_assert(arr->raw_len > 2 && arr->raw[0] == '[' && arr->raw[arr->raw_len - 1] == ']');
  ck_assert_uint_eq(r->raw_len, strlen(s));
  int64_t i;
  double f;
  const jdc_node *x = jdc_first(&d, arr);
  ck_assert(jdc_to_i64(x, &i) && i == 1);
  x = jdc_next(&d, x);
  ck_assert(jdc_to_i64(x, &i) && i == -2);
  x = jdc_next(&d, x);
  ck_assert(!jdc_to_i64(x, &i) && jdc_to_f64(x, &f) && f == 3.5);
  x = jdc_next(&d, x);
  ck_assert(!jdc_to_i64(x, &i) && jdc_to_f64(x, &f) && f == 1000.0);
  x = jdc_next(&d, x);
  ck_assert(jdc_to_f64(x, &f) && f > -0.0025000001 && f < -0.0024999999);
  ck_assert_uint_eq(x->raw_len, 8);
  x = jdc_next(&d, x);
  ck_assert_msg(!jdc_to_i64(x, &i), "2^64 is not an int64");
  ck_assert(jdc_i64(x, -5) == -5);
  ck_assert(jdc_to_f64(x, &f) && f == 18446744073709551616.0);
  x = jdc_next(&d, x);
  ck_assert(x->type == JDC_NULL && !jdc_to_i64(x, &i) && !jdc_to_f64(x, &f));
  ck_assert(jdc_next(&d, x)->type == JDC_TRUE && jdc_next(&d, jdc_next(&d, x))->type == JDC_FALSE);
  const jdc_node *str = jdc_get(&d, r, "s");
  char buf[16];
  ck_assert_uint_eq(jdc_str_copy(str, buf, sizeof buf), 6);
  ck_assert_str_eq(buf, "x\xc3\xa9\n\"y");
  ck_assert_uint_eq(str->raw_len, 14);
  ck_assert(str->raw[0] == '"' && str->raw[13] == '"');
  /* cut: never inside a UTF-8 sequence */
  ck_assert_uint_eq(jdc_str_copy(str, buf, 2), 1);
  ck_assert_str_eq(buf, "x");
  ck_assert_uint_eq(jdc_str_copy(str, buf, 3), 1);
  ck_assert_str_eq(buf, "x");
  ck_assert_uint_eq(jdc_str_copy(str, buf, 4), 3);
  ck_assert_str_eq(buf, "x\xc3\xa9");
  ck_assert_uint_eq(jdc_str_copy(str, buf, 5), 4);
  ck_assert(jdc_to_i64(jdc_path(&d, r, "o.k.deep"), &i) && i == 7);
  ck_assert_ptr_null(jdc_path(&d, r, "o.missing.deep"));
  ck_assert_ptr_null(jdc_first(&d, jdc_get(&d, r, "e")));
  ck_assert_ptr_null(jdc_first(&d, jdc_get(&d, r, "f")));
  ck_assert(jdc_str_is(str, "x\xc3\xa9\n\"y"));
  jdc_free(&d);
  /* errors carry the offset */
  const char *bad[] = {"{\"a\": [1, 2}", "{\"a\" 1}", "[1, 2] x", "", "{\"a\": tru}"};
  const size_t off[] = {11, 5, 7, 0, 6};
  for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
    char msg[128];
    ck_assert_int_eq(jdc_parse(&a, bad[k], strlen(bad[k]), &d, msg, sizeof msg), FSDPA_EPARSE);
    ck_assert_msg(d.err_off == off[k], "%s: offset %zu", bad[k], d.err_off);
    ck_assert(d.err[0] && strstr(msg, "at byte"));
    jdc_free(&d);
  }
  ck_assert_uint_eq(a.used, 0);
}
END_TEST

/* ---- reports by hand ---- */

/* One rank: ProfilerSteps #1 (warm-up) .. #n with these durations, the
 * steady flags launch_gaps would give (all but the first), exposed
 * communication per step, and optional extras (tables, findings). */
static char *rank_json(int64_t rank, const int64_t *dur, const int64_t *exposed, size_t n, const char *kernels,
                       const char *extra) {
  char *s = malloc(8192);
  size_t at = (size_t)snprintf(s, 8192, "{\"rank\": %lld, \"iterations\": {\"count\": %zu}, \"steps\": [", (long long)rank, n);
  for (size_t i = 0; i < n; i++)
    at += (size_t)snprintf(s + at, 8192 - at, "%s{\"name\": \"ProfilerStep#%zu\", \"start_ns\": 0, \"dur_ns\": %lld}",
                           i ? ", " : "", i + 1, (long long)dur[i]);
  at += (size_t)snprintf(s + at, 8192 - at, "], \"launch_gaps\": {\"span_ns\": 1, \"steps\": [");
  for (size_t i = 0; i < n; i++)
    at += (size_t)snprintf(s + at, 8192 - at, "%s{\"name\": \"ProfilerStep#%zu\", \"number\": %zu, \"steady\": %s}",
                           i ? ", " : "", i + 1, i + 1, i ? "true" : "false");
  at += (size_t)snprintf(s + at, 8192 - at, "]}, \"overlap\": {\"exposed_comm_ns\": 0, \"steps\": [");
  for (size_t i = 0; i < n; i++)
    at += (size_t)snprintf(s + at, 8192 - at, "%s{\"step\": %zu, \"exposed_comm_ns\": %lld}", i ? ", " : "", i + 1,
                           (long long)exposed[i]);
  snprintf(s + at, 8192 - at, "]}, \"kernels\": %s%s}", kernels ? kernels : "[]", extra ? extra : "");
  return s;
}

static char *report_of(const char *rank0, const char *rank1, const char *findings) {
  char *s = malloc(20000);
  snprintf(s, 20000, "{\"schema\": \"fsdpa.report/1\", \"inputs\": [{\"path\": \"x.json\"}], \"ranks\": [%s%s%s], "
           "\"findings\": %s}", rank0, rank1 ? ", " : "", rank1 ? rank1 : "", findings ? findings : "[]");
  return s;
}

/* not inlined: gcc -O3 then reads the returned buffer as the address of the
 * local `out` (-Wdangling-pointer, a false positive) */
__attribute__((noinline)) static char *diff(const char *b, const char *n, int64_t gate_ppm, int64_t min_ppm,
                                            int *regressed) {
  fsdpa_diff_options o;
  fsdpa_diff_options_init(&o);
  o.fail_on_regression_ppm = gate_ppm;
  if (min_ppm >= 0) o.min_change_ppm = min_ppm;
  char *out = NULL;
  fsdpa_error e;
  fsdpa_error_init(&e);
  fsdpa_status st = fsdpa_diff(b, strlen(b), n, strlen(n), &o, &out, NULL, regressed, &e);
  ck_assert_msg(st == FSDPA_OK, "%s", e.message);
  return out;
}

/* The job's metric `name` of a diff: the object's text, and its fields. */
static const char *job_metric(const char *out, const char *name, char *buf, size_t n) {
  char key[96];
  snprintf(key, sizeof key, "\"metric\": \"%s\"", name);
  const char *p = strstr(out, key);
  ck_assert_msg(p != NULL, "no %s", name);
  const char *e = strchr(p, '}');
  size_t len = (size_t)(e - p) < n - 1 ? (size_t)(e - p) : n - 1;
  memcpy(buf, p, len);
  buf[len] = 0;
  return buf;
}

static void expect(const char *obj, const char *field, const char *value) {
  char key[96];
  snprintf(key, sizeof key, "\"%s\": %s", field, value);
  ck_assert_msg(strstr(obj, key) != NULL, "want %s in %s", key, obj);
}

START_TEST(t_step_time_spread_gate) {
  /* base steady steps 1000, 1010: mean 1005, spread 5 */
  int64_t bd[] = {100, 1000, 1010}, ex[] = {9, 10, 10};
  char *r0 = rank_json(0, bd, ex, 3, NULL, NULL);
  char *base = report_of(r0, NULL, NULL);
  char m[1024];
  int reg = -1;
  /* identical: same everything, gate at 0 % not crossed */
  char *out = diff(base, base, 0, -1, &reg);
  ck_assert_int_eq(reg, 0);
  job_metric(out, "step_time_ns", m, sizeof m);
  expect(m, "base", "1005");
  expect(m, "spread", "5");
  expect(m, "status", "\"same\"");
  expect(m, "delta", "0");
  ck_assert_ptr_null(strstr(out, "\"status\": \"worse\""));
  fsdpa_free(out);
  /* +60 ns: 5.97 %, beyond the spread of 5 */
  int64_t nd[] = {100, 1060, 1070};
  char *r1 = rank_json(0, nd, ex, 3, NULL, NULL);
  char *next = report_of(r1, NULL, NULL);
  out = diff(base, next, 50000, -1, &reg);
  ck_assert_int_eq(reg, 1);
  job_metric(out, "step_time_ns", m, sizeof m);
  expect(m, "new", "1065");
  expect(m, "delta", "60");
  expect(m, "change_pct", "5.970");
  expect(m, "beyond_spread", "true");
  expect(m, "status", "\"worse\"");
  expect(m, "crossed_gate", "true");
  ck_assert_ptr_nonnull(strstr(out, "\"crossed\": [\n      \"step_time_ns\"\n    ]"));
  fsdpa_free(out);
  /* a 6 % gate is not crossed by 5.97 % */
  out = diff(base, next, 60000, -1, &reg);
  ck_assert_int_eq(reg, 0);
  fsdpa_free(out);
  /* better the other way round */
  out = diff(next, base, 0, -1, &reg);
  ck_assert_int_eq(reg, 0);
  job_metric(out, "step_time_ns", m, sizeof m);
  expect(m, "status", "\"better\"");
  fsdpa_free(out);
  free(r1);
  free(next);
  /* +5 ns: within the spread: same even at a 0 % gate and 0 % change */
  int64_t wd[] = {100, 1008, 1012};
  r1 = rank_json(0, wd, ex, 3, NULL, NULL);
  next = report_of(r1, NULL, NULL);
  out = diff(base, next, 0, 0, &reg);
  ck_assert_int_eq(reg, 0);
  job_metric(out, "step_time_ns", m, sizeof m);
  expect(m, "delta", "5");
  expect(m, "beyond_spread", "false");
  expect(m, "status", "\"same\"");
  fsdpa_free(out);
  free(r1);
  free(next);
  /* exposed communication per iteration gates too: steady 10, 10 -> 30, 30 */
  int64_t ex2[] = {9, 30, 30};
  r1 = rank_json(0, bd, ex2, 3, NULL, NULL);
  next = report_of(r1, NULL, NULL);
  out = diff(base, next, 50000, -1, &reg);
  ck_assert_int_eq(reg, 1);
  job_metric(out, "exposed_comm_ns", m, sizeof m);
  expect(m, "base", "10");
  expect(m, "new", "30");
  expect(m, "spread", "0");
  expect(m, "crossed_gate", "true");
  job_metric(out, "step_time_ns", m, sizeof m);
  expect(m, "crossed_gate", "false");
  fsdpa_free(out);
  free(r1);
  free(next);
  free(r0);
  free(base);
}
END_TEST

START_TEST(t_job_tables_findings) {
  /* two ranks; the job is their mean; rank 2 only in new */
  int64_t d0[] = {0, 1000, 1000}, d1[] = {0, 2000, 2000}, d2[] = {0, 1200, 1200}, ex[] = {0, 0, 0};
  const char *kb = "[{\"name\": \"k1\", \"short_name\": \"k1\", \"class\": \"compute\", \"count\": 30, \"total_ns\": 3000},"
                   " {\"name\": \"gone\", \"short_name\": \"gone\", \"class\": \"compute\", \"count\": 3, \"total_ns\": 300},"
                   " {\"name\": null, \"short_name\": \"(other)\", \"class\": null, \"count\": 1, \"total_ns\": 5}]";
  const char *kn = "[{\"name\": \"k1\", \"short_name\": \"k1\", \"class\": \"compute\", \"count\": 30, \"total_ns\": 6000},"
                   " {\"name\": \"fresh\", \"short_name\": \"fresh\", \"class\": \"compute\", \"count\": 3, \"total_ns\": 90}]";
  char *b0 = rank_json(0, d0, ex, 3, kb, NULL), *b1 = rank_json(1, d1, ex, 3, kb, NULL);
  char *n0 = rank_json(0, d0, ex, 3, kn, NULL), *n1 = rank_json(1, d2, ex, 3, kn, NULL);
  char *n2 = rank_json(2, d2, ex, 3, kn, NULL);
  const char *fb = "[{\"id\": \"exposed-comm\", \"severity\": \"warning\", \"rank\": 0, \"cost_ns\": 300, \"title\": \"t\"},"
                   " {\"id\": \"gpu-starvation\", \"severity\": \"info\", \"rank\": 1, \"cost_ns\": 30, \"title\": \"s\"}]";
  const char *fn = "[{\"id\": \"exposed-comm\", \"severity\": \"critical\", \"rank\": 0, \"cost_ns\": 300, \"title\": \"t\"},"
                   " {\"id\": \"allocator-thrash\", \"severity\": \"info\", \"rank\": 1, \"cost_ns\": 3, \"title\": \"a\"},"
                   " {\"id\": \"straggler-rank\", \"severity\": \"info\", \"rank\": 2, \"cost_ns\": 3, \"title\": \"r\"}]";
  char *base = report_of(b0, b1, fb);
  char nr[16000];
  snprintf(nr, sizeof nr, "%s, %s", n1, n2);
  char *next = report_of(n0, nr, fn);
  int reg = -1;
  char *out = diff(base, next, -1, -1, &reg);
  ck_assert_int_eq(reg, 0);
  char m[1024];
  job_metric(out, "step_time_ns", m, sizeof m);
  expect(m, "base", "1500");   /* (1000 + 2000) / 2 */
  expect(m, "new", "1100");    /* (1000 + 1200) / 2: rank 2 is not matched */
  expect(m, "status", "\"better\"");
  ck_assert_ptr_nonnull(strstr(out, "\"ranks_only_in_new\": [\n    2\n  ]"));
  /* kernels per iteration (3 iterations), mean over the 2 ranks: k1 1000 -> 2000, slower per call */
  ck_assert_ptr_nonnull(strstr(out, "\"name\": \"k1\""));
  ck_assert_ptr_nonnull(strstr(out, "\"base_total_ns\": 1000,\n      \"new_total_ns\": 2000,\n      \"delta_ns\": 1000"));
  ck_assert_ptr_nonnull(strstr(out, "\"base_mean_ns\": 100,\n      \"new_mean_ns\": 200"));
  ck_assert_ptr_nonnull(strstr(out, "\"name\": \"gone\",\n      \"short_name\": \"gone\",\n      \"class\": \"compute\",\n      \"status\": \"gone\""));
  ck_assert_ptr_nonnull(strstr(out, "\"name\": \"fresh\",\n      \"short_name\": \"fresh\",\n      \"class\": \"compute\",\n      \"status\": \"new\""));
  ck_assert_ptr_null(strstr(out, "(other)"));
  /* findings: worse by severity, resolved, new; rank 2's not judged */
  ck_assert_ptr_nonnull(strstr(out, "\"id\": \"exposed-comm\",\n      \"rank\": 0,\n      \"status\": \"worse\""));
  ck_assert_ptr_nonnull(strstr(out, "\"id\": \"gpu-starvation\",\n      \"rank\": 1,\n      \"status\": \"resolved\""));
  ck_assert_ptr_nonnull(strstr(out, "\"id\": \"allocator-thrash\",\n      \"rank\": 1,\n      \"status\": \"new\""));
  ck_assert_ptr_null(strstr(out, "straggler-rank"));
  fsdpa_free(out);
  /* text and HTML say the same */
  fsdpa_diff_options o;
  fsdpa_diff_options_init(&o);
  o.format = FSDPA_FORMAT_TEXT;
  ck_assert_int_eq(fsdpa_diff(base, strlen(base), next, strlen(next), &o, &out, NULL, NULL, NULL), FSDPA_OK);
  ck_assert_ptr_nonnull(strstr(out, "Ranks in one run only: 0 in base, 1 in new"));
  ck_assert_ptr_nonnull(strstr(out, "worse    warning->critical exposed-comm rank 0"));
  fsdpa_free(out);
  o.format = FSDPA_FORMAT_HTML;
  ck_assert_int_eq(fsdpa_diff(base, strlen(base), next, strlen(next), &o, &out, NULL, NULL, NULL), FSDPA_OK);
  ck_assert_ptr_nonnull(strstr(out, "<tr class=\"better\"><td>step time</td>"));
  fsdpa_free(out);
  free(b0), free(b1), free(n0), free(n1), free(n2), free(base), free(next);
}
END_TEST

START_TEST(t_no_steps) {
  /* without ProfilerSteps: the GPU span per iteration */
  const char *b = "{\"schema\": \"fsdpa.report/1\", \"ranks\": [{\"rank\": 0, \"iterations\": {\"count\": 4}, \"steps\": [],"
                  " \"launch_gaps\": {\"span_ns\": 4000, \"gpu_idle_ns\": 400}, \"overlap\": {\"exposed_comm_ns\": 40}}]}";
  const char *n = "{\"schema\": \"fsdpa.report/1\", \"ranks\": [{\"rank\": 0, \"iterations\": {\"count\": 0}, \"steps\": [],"
                  " \"launch_gaps\": {\"span_ns\": 1500, \"gpu_idle_ns\": 400}, \"overlap\": {\"exposed_comm_ns\": 40}}]}";
  int reg;
  char *out = diff(b, n, 10000, -1, &reg);
  char m[1024];
  job_metric(out, "step_time_ns", m, sizeof m);
  expect(m, "base", "1000");
  expect(m, "new", "1500");   /* no iterations: one */
  expect(m, "spread", "null");
  ck_assert_int_eq(reg, 1);
  job_metric(out, "gpu_idle_ns", m, sizeof m);
  expect(m, "base", "100");
  expect(m, "new", "400");
  fsdpa_free(out);
}
END_TEST

START_TEST(t_errors) {
  const char *ok = "{\"schema\": \"fsdpa.report/1\", \"ranks\": []}";
  char *out = (char *)1;
  fsdpa_error e;
  fsdpa_error_init(&e);
  ck_assert_int_eq(fsdpa_diff(NULL, 0, ok, strlen(ok), NULL, &out, NULL, NULL, &e), FSDPA_EINVAL);
  ck_assert_ptr_null(out);
  ck_assert_int_eq(fsdpa_diff(ok, strlen(ok), ok, strlen(ok), NULL, NULL, NULL, NULL, &e), FSDPA_EINVAL);
  /* not JSON: the input and the offset */
  const char *broken = "{\"schema\": \"fsdpa.report/1\", \"ranks\": [";
  ck_assert_int_eq(fsdpa_diff(ok, strlen(ok), broken, strlen(broken), NULL, &out, NULL, NULL, &e), FSDPA_EPARSE);
  ck_assert_int_eq(e.input, 1);
  ck_assert_int_eq(e.offset, (int64_t)strlen(broken));
  ck_assert_msg(strstr(e.message, "new: ") == e.message, "%s", e.message);
  /* JSON, not a report */
  const char *other = "{\"traceEvents\": []}";
  ck_assert_int_eq(fsdpa_diff(other, strlen(other), ok, strlen(ok), NULL, &out, NULL, NULL, &e), FSDPA_EPARSE);
  ck_assert_int_eq(e.input, 0);
  ck_assert_ptr_nonnull(strstr(e.message, "fsdpa.report/1"));
  const char *twice = "{\"schema\": \"fsdpa.report/1\", \"ranks\": [{\"rank\": 1}, {\"rank\": 1}]}";
  ck_assert_int_eq(fsdpa_diff(ok, strlen(ok), twice, strlen(twice), NULL, &out, NULL, NULL, &e), FSDPA_EPARSE);
  ck_assert_ptr_nonnull(strstr(e.message, "twice"));
  /* a broken summary: the summary reader's offset */
  const char *sum = "{\"schema\": \"fsdpa.summary/1\", \"version\": \"0.2.0\", \"ranks\": [{\"input\": 5}]}";
  ck_assert_int_eq(fsdpa_diff(sum, strlen(sum), ok, strlen(ok), NULL, &out, NULL, NULL, &e), FSDPA_EPARSE);
  ck_assert_int_eq(e.input, 0);
  /* options: a size below the first release's, a bad format, a bad threshold */
  fsdpa_diff_options o;
  fsdpa_diff_options_init(&o);
  o.size = sizeof(size_t) + 1;
  ck_assert_int_eq(fsdpa_diff(ok, strlen(ok), ok, strlen(ok), &o, &out, NULL, NULL, &e), FSDPA_EINVAL);
  fsdpa_diff_options_init(&o);
  o.format = (fsdpa_format)42;
  ck_assert_int_eq(fsdpa_diff(ok, strlen(ok), ok, strlen(ok), &o, &out, NULL, NULL, &e), FSDPA_EINVAL);
  fsdpa_diff_options_init(&o);
  o.fail_on_regression_ppm = -2;
  ck_assert_int_eq(fsdpa_diff(ok, strlen(ok), ok, strlen(ok), &o, &out, NULL, NULL, &e), FSDPA_EINVAL);
  /* no ranks in common: a valid, empty comparison */
  int reg = -1;
  fsdpa_diff_options_init(&o);
  o.fail_on_regression_ppm = 0;
  ck_assert_int_eq(fsdpa_diff(ok, strlen(ok), ok, strlen(ok), &o, &out, NULL, &reg, &e), FSDPA_OK);
  ck_assert_int_eq(reg, 0);
  fsdpa_free(out);
}
END_TEST

START_TEST(t_alloc_failures) {
  int64_t d[] = {0, 1000, 1010}, ex[] = {0, 5, 6};
  const char *k = "[{\"name\": \"k1\", \"short_name\": \"k1\", \"class\": \"compute\", \"count\": 3, \"total_ns\": 30}]";
  const char *f = "[{\"id\": \"exposed-comm\", \"severity\": \"warning\", \"rank\": 0, \"cost_ns\": 3, \"title\": \"t\"}]";
  char *r0 = rank_json(0, d, ex, 3, k, NULL);
  char *rep = report_of(r0, NULL, f);
  tu_fault fa = {0, 0, 0};
  fsdpa_allocator al = tu_fault_allocator(&fa);
  int completed = 0;
  for (int fmt = 0; fmt < 3; fmt++)
    for (long at = 1; at < 10000; at++) {
      fsdpa_diff_options o;
      fsdpa_diff_options_init(&o);
      o.allocator = &al;
      o.format = fmt == 0 ? FSDPA_FORMAT_JSON : fmt == 1 ? FSDPA_FORMAT_TEXT : FSDPA_FORMAT_HTML;
      fa.calls = 0;
      fa.fail_at = at;
      fa.outstanding = 0;
      char *out = NULL;
      fsdpa_status st = fsdpa_diff(rep, strlen(rep), rep, strlen(rep), &o, &out, NULL, NULL, NULL);
      if (st == FSDPA_OK) {
        ck_assert_msg(fa.calls < at, "format %d: the failing call %ld was not reported", fmt, at);
        fsdpa_free(out);
        ck_assert_int_eq(fa.outstanding, 0);
        completed++;
        break;
      }
      ck_assert_int_eq(st, FSDPA_ENOMEM);
      ck_assert_ptr_null(out);
      ck_assert_msg(fa.outstanding == 0, "failing call %ld leaked %lld bytes", at, (long long)fa.outstanding);
    }
  ck_assert_int_eq(completed, 3);
  /* a cap */
  fsdpa_diff_options o;
  fsdpa_diff_options_init(&o);
  o.max_memory_bytes = 512;
  char *out = NULL;
  ck_assert_int_eq(fsdpa_diff(rep, strlen(rep), rep, strlen(rep), &o, &out, NULL, NULL, NULL), FSDPA_ELIMIT);
  free(r0);
  free(rep);
}
END_TEST

int main(void) {
  Suite *s = suite_create("diff");
  TU_CASE(s, "tree", 0, NULL, t_jdoc);
  TU_CASE(s, "diff", 0, NULL, t_step_time_spread_gate, t_job_tables_findings, t_no_steps, t_errors, t_alloc_failures);
  return tu_run_suite(s);
}
