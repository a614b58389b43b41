/* The CLI and the report layer as a user meets them: exit codes, messages
 * naming the file and byte offset, the three formats, 100 columns, JSON that
 * parses and keeps to the contract's shape, --set, --fail-on. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include "testutil.h"
#include "tjson.h"
#include "findings/findings.h"

static char tmpdir[4096];

static const char *cli(void) {
  const char *c = getenv("FSDPA_CLI");
  ck_assert_msg(c != NULL, "FSDPA_CLI not set (run through meson test)");
  return c;
}

static char *run_cli_to(const char *args, int *code, const char *err_to) {
  char cmd[16384];
  snprintf(cmd, sizeof cmd, "'%s' %s %s", cli(), args, err_to);
  int st = 0;
  char *out = tu_run(cmd, &st);
  *code = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  return out;
}

/* Standard output and error together. */
static char *run_cli(const char *args, int *code) { return run_cli_to(args, code, "2>&1"); }

static const char *sample(void) {
  static char p[4096];
  snprintf(p, sizeof p, "%s/tests/data/sample/fsdp2_sample.json.gz", tu_source_root());
  return p;
}

static void write_file(const char *path, const char *data, size_t n) {
  FILE *f = fopen(path, "wb");
  ck_assert_ptr_nonnull(f);
  fwrite(data, 1, n, f);
  fclose(f);
}

static void setup(void) {
  snprintf(tmpdir, sizeof tmpdir, "%s/tests/report-tmp", tu_build_root());
  char cmd[4200];
  snprintf(cmd, sizeof cmd, "mkdir -p '%s'", tmpdir);
  ck_assert_int_eq(system(cmd), 0);
}

START_TEST(t_version_help_usage) {
  int code;
  char *o = run_cli("--version", &code);
  ck_assert_int_eq(code, 0);
  ck_assert_ptr_nonnull(strstr(o, fsdpa_version_string()));
  free(o);
  o = run_cli("help analyze", &code);
  ck_assert_int_eq(code, 0);
  ck_assert_ptr_nonnull(strstr(o, "--fail-on"));
  free(o);
  o = run_cli("analyze", &code);
  ck_assert_int_eq(code, 2);
  free(o);
  o = run_cli("analyze --format yaml x.json", &code);
  ck_assert_int_eq(code, 2);
  free(o);
  o = run_cli("analyze --set no.such=1 x.json", &code);
  ck_assert_int_eq(code, 2);
  ck_assert_ptr_nonnull(strstr(o, "unknown parameter"));
  free(o);
  o = run_cli("frobnicate", &code);
  ck_assert_int_eq(code, 2);
  free(o);
  o = run_cli("params", &code);
  ck_assert_int_eq(code, 0);
  ck_assert_ptr_nonnull(strstr(o, "launch.kernel_wait_ns="));
  /* one `name=default  description` line per parameter of fsdpa_param_list() */
  fsdpa_list *l = NULL;
  ck_assert_int_eq(fsdpa_param_list(&l), FSDPA_OK);
  ck_assert_uint_gt(fsdpa_list_count(l), 0);
  for (size_t i = 0; i < fsdpa_list_count(l); i++) {
    fsdpa_param p;
    TU_ITEM(l, i, p);
    char line[4096];
    snprintf(line, sizeof line, "%s=%lld  %s\n", p.name, (long long)p.default_value, p.description);
    const char *at = strstr(o, line);
    ck_assert_msg(at && (at == o || at[-1] == '\n'), "fsdpa params lacks the line: %s", line);
  }
  fsdpa_list_free(l);
  free(o);
}
END_TEST

START_TEST(t_bad_inputs_exit_3_with_file_and_offset) {
  char p[4200], args[9000];
  int code;
  /* truncated JSON */
  snprintf(p, sizeof p, "%s/trunc.json", tmpdir);
  const char *t = "{\"traceEvents\": [{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\", \"ts\": 1, \"dur\": 2}, {\"ph\":";
  write_file(p, t, strlen(t));
  snprintf(args, sizeof args, "analyze --format json '%s'", p);
  char *o = run_cli(args, &code);
  ck_assert_int_eq(code, 3);
  ck_assert_msg(strstr(o, p) != NULL, "message must name the file: %s", o);
  free(o);
  /* garbage in the middle: the message names a byte offset */
  snprintf(p, sizeof p, "%s/garbage.json", tmpdir);
  const char *g = "{\"traceEvents\": [{\"ph\": \"X\", \"name\": \"a\", \"ts\": 1}, {\"ph\": ]}";
  write_file(p, g, strlen(g));
  snprintf(args, sizeof args, "analyze --format json '%s'", p);
  o = run_cli(args, &code);
  ck_assert_int_eq(code, 3);
  ck_assert_msg(strstr(o, "byte") != NULL, "message must give the byte offset: %s", o);
  free(o);
  /* empty file, PNG, missing file */
  snprintf(p, sizeof p, "%s/empty.json", tmpdir);
  write_file(p, "", 0);
  snprintf(args, sizeof args, "analyze --format json '%s'", p);
  o = run_cli(args, &code);
  ck_assert_int_eq(code, 3);
  free(o);
  snprintf(p, sizeof p, "%s/image.png", tmpdir);
  write_file(p, "\x89PNG\r\n\x1a\n\0\0\0\rIHDR", 16);
  snprintf(args, sizeof args, "analyze --format json '%s'", p);
  o = run_cli(args, &code);
  ck_assert_int_eq(code, 3);
  free(o);
  snprintf(args, sizeof args, "analyze --format json '%s/does-not-exist.json'", tmpdir);
  o = run_cli(args, &code);
  ck_assert_int_eq(code, 3);
  ck_assert_ptr_nonnull(strstr(o, "does-not-exist.json"));
  free(o);
}
END_TEST

START_TEST(t_sample_all_formats) {
  char args[9000];
  int code;
  snprintf(args, sizeof args, "analyze --format json '%s'", sample());
  char *js = run_cli(args, &code);
  ck_assert_msg(code == 0, "exit %d: %s", code, js);
  ck_assert(tj_str_is(js, "schema", "fsdpa.report/1"));
  ck_assert(tj_str_is(js, "version", fsdpa_version_string()));
  /* parses as JSON (Python's json) and has the contract's top-level keys */
  char p[4200];
  snprintf(p, sizeof p, "%s/sample.json", tmpdir);
  write_file(p, js, strlen(js));
  char cmd[9000];
  snprintf(cmd, sizeof cmd,
           "python3 -c \"import json,sys; d=json.load(open('%s')); "
           "assert set(['schema','version','inputs','ranks','findings']) <= set(d); "
           "r=d['ranks'][0]; "
           "assert set(['rank','span_ns','steps','streams','launch_gaps','overlap','fsdp','sync_waits','allocator']) <= set(r); "
           "print(len(d['findings']))\"",
           p);
  int st = 0;
  char *n = tu_run(cmd, &st);
  ck_assert_msg(st == 0, "report JSON does not parse or lacks keys");
  free(n);
  free(js);
  /* text: fits 100 columns */
  snprintf(args, sizeof args, "analyze --format text --no-color '%s'", sample());
  char *tx = run_cli(args, &code);
  ck_assert_int_eq(code, 0);
  int line = 1;
  for (char *s = tx; *s;) {
    char *e = strchr(s, '\n');
    size_t len = e ? (size_t)(e - s) : strlen(s);
    size_t cols = 0;
    for (size_t k = 0; k < len; k++)
      if (((unsigned char)s[k] & 0xC0) != 0x80) cols++;
    ck_assert_msg(cols <= 100, "text line %d has %zu columns", line, cols);
    ck_assert_msg(!memchr(s, '\033', len), "no color codes with --no-color");
    line++;
    if (!e) break;
    s = e + 1;
  }
  free(tx);
  /* html to a file */
  snprintf(p, sizeof p, "%s/sample.html", tmpdir);
  snprintf(args, sizeof args, "analyze --format html -o '%s' '%s'", p, sample());
  char *o = run_cli(args, &code);
  ck_assert_int_eq(code, 0);
  free(o);
  size_t hn = 0;
  char *html = tu_read_file(p, &hn);
  ck_assert_ptr_nonnull(html);
  ck_assert_ptr_nonnull(strstr(html, "<html"));
  ck_assert_ptr_null(strstr(html, "http://"));
  free(html);
}
END_TEST

START_TEST(t_fail_on) {
  char args[9000];
  int code;
  /* a trace with one kernel has no findings: --fail-on info exits 0 */
  char p[4200];
  snprintf(p, sizeof p, "%s/one.json", tmpdir);
  const char *one = "{\"traceEvents\": [{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\", \"pid\": 0, \"tid\": 7, \"ts\": 1, \"dur\": 2}]}";
  write_file(p, one, strlen(one));
  snprintf(args, sizeof args, "analyze --format json --fail-on info '%s'", p);
  char *o = run_cli(args, &code);
  ck_assert_msg(code == 0, "exit %d: %s", code, o);
  ck_assert_uint_eq(tj_count(o, "findings"), 0);
  free(o);
  /* the sample has findings (the README promises at least one with advice) */
  snprintf(args, sizeof args, "analyze --format json --fail-on info '%s'", sample());
  o = run_cli_to(args, &code, "2>/dev/null");  /* stderr names the findings that crossed it */
  ck_assert_msg(code == 1, "sample must have findings; exit %d", code);
  size_t nf = tj_count(o, "findings"), advised = 0;
  ck_assert_uint_gt(nf, 0);
  for (size_t i = 0; i < nf; i++) {
    char path[64];
    snprintf(path, sizeof path, "findings.%zu.advice", i);
    if (tj_has(o, path) && !tj_str_is(o, path, "")) advised++;
  }
  ck_assert_msg(advised > 0, "no finding of the sample has advice");
  free(o);
}
END_TEST

/* ---- findings order: a symptom right after the cause its evidence names ---- */

typedef struct fdef {
  const char *id;
  int64_t rank, cost, r0, r1;  /* one evidence range [r0, r1) */
  const char *ev;
} fdef;

/* The ids and costs of defs added in the order perm[] gives, after
 * findings_sort, as "id:cost,...". */
static void sorted_ids(const fdef *d, const int *perm, int n, char *out, size_t cap) {
  fa_alloc a;
  fa_init(&a, NULL, 0);
  findings f;
  findings_init(&f, &a);
  for (int i = 0; i < n; i++) {
    const fdef *x = &d[perm[i]];
    finding *y = findings_add(&f, x->id, SEV_WARNING, x->rank, FSDPA_ABSENT, x->cost, "t", "d", "a", x->ev);
    ck_assert_ptr_nonnull(y);
    finding_add_range(y, x->r0, x->r1);
  }
  findings_sort(&f);
  size_t o = 0;
  out[0] = 0;
  for (size_t i = 0; i < f.n; i++)
    o += (size_t)snprintf(out + o, cap - o, "%s%s/%lld:%lld", i ? "," : "", f.v[i].id, (long long)f.v[i].rank,
                          (long long)f.v[i].cost_ns);
  findings_free(&f);
}

START_TEST(t_findings_symptom_after_cause) {
  static const char *EX = "{\"explained_by\":\"cause\"}";
  const fdef d[] = {
      {"symptom", 0, 100, 10, 20, EX},  /* costs most, explained by rank 0's cause */
      {"cause", 0, 40, 10, 20, NULL},
      {"other", 0, 70, 0, 5, NULL},
      {"symptom", 1, 90, 0, 5, EX},      /* its cause is on rank 0 only: own place */
      {"cause", 0, 60, 500, 600, NULL},  /* a second cause of rank 0, not overlapping */
  };
  const char *want = "symptom/1:90,other/0:70,cause/0:60,cause/0:40,symptom/0:100";
  int perm[5] = {0, 1, 2, 3, 4};
  char got[512];
  /* every input order gives the same list (120 permutations) */
  for (int k = 0; k < 120; k++) {
    int p[5] = {0, 1, 2, 3, 4}, r = k;
    for (int i = 4; i > 0; i--) {  /* the k-th permutation, factorial base */
      int j = r % (i + 1);
      r /= i + 1;
      int t = p[i];
      p[i] = p[j];
      p[j] = t;
    }
    memcpy(perm, p, sizeof p);
    sorted_ids(d, perm, 5, got, sizeof got);
    ck_assert_str_eq(got, want);
  }
  /* without its cause a symptom keeps its place by cost */
  const fdef e[] = {{"symptom", 0, 100, 10, 20, EX}, {"other", 0, 170, 0, 5, NULL}};
  int q[2] = {1, 0};
  sorted_ids(e, q, 2, got, sizeof got);
  ck_assert_str_eq(got, "other/0:170,symptom/0:100");
}
END_TEST

int main(void) {
  Suite *s = suite_create("report");
  TU_CASE(s, "cli", 600, setup, t_version_help_usage, t_bad_inputs_exit_3_with_file_and_offset,
          t_sample_all_formats, t_fail_on, t_findings_symptom_after_cause);
  return tu_run_suite(s);
}
