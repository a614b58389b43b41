/* fsdpa_annotate_*: the annotated copy keeps every original byte, is valid
 * JSON (Python's json), reads back through the library to the same report
 * (all but `inputs`), and holds exactly the findings of the report as events
 * with exact timestamps in the trace's own convention; plain and gzip; new,
 * old and legacy trace formats, a bare event array, an empty array; errors
 * leave no file; every allocation failure is reported; the CLI. */
/* annotate is experimental API */
#define FSDPA_EXPERIMENTAL
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <zlib.h>
#include "report_jobs.h"
#include "tjson.h"

static char tmp[4096];

static void setup(void) {
  snprintf(tmp, sizeof tmp, "%s/tests/annotate-tmp", tu_build_root());
  char cmd[4200];
  snprintf(cmd, sizeof cmd, "mkdir -p '%s'", tmp);
  ck_assert_int_eq(system(cmd), 0);
}

static const char *sample(void) {
  static char p[4096];
  snprintf(p, sizeof p, "%s/tests/data/sample/fsdp2_sample.json.gz", tu_source_root());
  return p;
}

/* whole file, gunzipped if it is gzip */
static char *read_plain(const char *path, size_t *n) {
  size_t len = 0;
  char *raw = tu_read_file(path, &len);
  ck_assert_msg(raw != NULL, "cannot read %s", path);
  if (len < 2 || (unsigned char)raw[0] != 0x1f || (unsigned char)raw[1] != 0x8b) {
    *n = len;
    return raw;
  }
  z_stream z;
  memset(&z, 0, sizeof z);
  ck_assert_int_eq(inflateInit2(&z, 15 + 32), Z_OK);
  size_t cap = len * 16 + 4096, out = 0;
  char *buf = malloc(cap);
  z.next_in = (Bytef *)raw;
  z.avail_in = (uInt)len;
  for (;;) {
    if (out == cap) buf = realloc(buf, cap *= 2);
    z.next_out = (Bytef *)buf + out;
    z.avail_out = (uInt)(cap - out);
    int r = inflate(&z, Z_NO_FLUSH);
    out = cap - z.avail_out;
    if (r == Z_STREAM_END) break;
    ck_assert_msg(r == Z_OK || r == Z_BUF_ERROR, "inflate %d", r);
  }
  inflateEnd(&z);
  free(raw);
  *n = out;
  return buf;
}

static fsdpa_ctx *load(const char *path) {
  fsdpa_ctx *c = NULL;
  ck_assert_int_eq(fsdpa_ctx_new(&c, NULL), FSDPA_OK);
  fsdpa_status st = fsdpa_feed_file(c, path);
  ck_assert_msg(st == FSDPA_OK, "%s: %s", path, fsdpa_errmsg(c));
  return c;
}

static char *json_report(fsdpa_ctx **c, size_t n) {
  char *out = tu_report_json(c, n, NULL, NULL);
  ck_assert_ptr_nonnull(out);
  return out;
}

/* Two reports are the same but for their `inputs` (which name the file and
 * count its bytes): the bytes before and after that member's value, found
 * by parsing, are equal. */
static void assert_same_but_inputs(const char *a, const char *b, const char *what) {
  const char *ab, *ae, *bb, *be;
  ck_assert_msg(tj_find(a, "inputs", &ab, &ae) && tj_find(b, "inputs", &bb, &be), "%s: no inputs", what);
  ck_assert_uint_eq(tj_count(a, "inputs"), tj_count(b, "inputs"));
  ck_assert_msg(ab - a == bb - b && !memcmp(a, b, (size_t)(ab - a)), "%s: the reports differ before inputs", what);
  ck_assert_msg(!strcmp(ae, be), "%s: the reports differ after inputs", what);
}

/* fsdpa_annotate_file() that must succeed, its error channel cleared. */
static void annotate_ok(fsdpa_ctx *const *c, size_t n, size_t i, const char *in, const char *out, const char *what) {
  fsdpa_error err;
  fsdpa_error_init(&err);
  err.status = FSDPA_EIO;
  snprintf(err.message, sizeof err.message, "stale");
  fsdpa_status st = fsdpa_annotate_file(c, n, i, in, out, NULL, &err);
  ck_assert_msg(st == FSDPA_OK, "%s: %s: %s", what, fsdpa_status_str(st), err.message);
  ck_assert_int_eq(err.status, FSDPA_OK);
  ck_assert_str_eq(err.message, "");
}

/* The annotated bytes are the original ones with the events inserted right
 * after the array's '[' and one ',' before the first original element. */
static void check_bytes(const char *orig, size_t on, const char *ann, size_t an, const char *events) {
  size_t el = strlen(events);
  ck_assert(el >= 2 && events[0] == '[');
  const char *body = events + 1;
  size_t bl = el - 1;
  while (bl && body[bl - 1] != ']') bl--;
  bl--;  /* without the closing bracket */
  const char *hit = NULL;
  for (size_t i = 0; i + bl <= an; i++)
    if (ann[i] == body[0] && !memcmp(ann + i, body, bl)) { hit = ann + i; break; }
  ck_assert_msg(hit != NULL, "inserted events not found in the copy");
  size_t p = (size_t)(hit - ann);  /* = position after the '[' */
  ck_assert(p >= 1 && ann[p - 1] == '[');
  ck_assert_msg(p <= on && !memcmp(ann, orig, p), "bytes before the insertion differ");
  const char *o = orig + p, *a = hit + bl;
  size_t ol = on - p, al = an - p - bl;
  size_t ws = 0;
  while (ws < ol && strchr(" \t\r\n", o[ws])) ws++;
  ck_assert(ws < ol);
  ck_assert_msg(!memcmp(a, o, ws), "whitespace after '[' changed");
  if (o[ws] == ']') {
    ck_assert_uint_eq(al, ol);
    ck_assert(!memcmp(a + ws, o + ws, ol - ws));
  } else {
    ck_assert_uint_eq(al, ol + 1);
    ck_assert_msg(a[ws] == ',', "no separator before the first original element");
    ck_assert_msg(!memcmp(a + ws + 1, o + ws, ol - ws), "original events changed");
  }
}

/* Python's json reads the copy; its fsdpa events are the report's findings
 * (title, id, ranges: ts/dur in µs relative to baseTimeNanoseconds, exact
 * with Decimal): every range the report lists, and as many as its
 * evidence's ranges_total (all of them, not only the listed few). */
static void check_python(const char *annotated, const char *report_path, int64_t rank) {
  const char *py = rj_python(NULL);
  ck_assert_ptr_nonnull(py);
  char cmd[16384];
  snprintf(cmd, sizeof cmd,
           "'%s' -c \"import json, gzip, decimal, sys\n"
           "p='%s'\n"
           "f=gzip.open(p,'rt') if p.endswith('.gz') else open(p)\n"
           "d=json.load(f, parse_float=decimal.Decimal)\n"
           "ev=d['traceEvents'] if isinstance(d, dict) else d\n"
           "base=int(d.get('baseTimeNanoseconds', 0)) if isinstance(d, dict) else 0\n"
           "r=json.load(open('%s'))\n"
           "want=[(x['title'], x['id'], g['start_ns'], g['end_ns']) for x in r['findings'] if x['rank']==%lld for g in x['evidence']['ranges']]\n"
           "got=[(e['name'], e['args']['id'], int(decimal.Decimal(e['ts'])*1000)+base, int((decimal.Decimal(e['ts'])+decimal.Decimal(e['dur']))*1000)+base) for e in ev if e.get('cat')=='fsdpa' and e.get('ph')=='X']\n"
           "pn=[e for e in ev if e.get('ph')=='M' and e.get('name')=='process_name' and e['args'].get('name')=='fsdpa findings']\n"
           "assert len(pn)==1, 'process_name'\n"
           "from collections import Counter\n"
           "assert not (Counter(want)-Counter(got)), ('a listed range is missing', got, want)\n"
           "tot={(x['title'], x['id']): x['evidence'].get('ranges_total', len(x['evidence']['ranges'])) for x in r['findings'] if x['rank']==%lld and x['evidence']['ranges']}\n"
           "n=Counter((g[0], g[1]) for g in got)\n"
           "assert dict(n)==tot, (n, tot)\n"
           "print(len(got))\"",
           py, annotated, report_path, (long long)rank, (long long)rank);
  int status = 0;
  char *out = tu_run(cmd, &status);
  ck_assert_msg(out && WIFEXITED(status) && WEXITSTATUS(status) == 0, "python check of %s failed: %s",
                annotated, out ? out : "");
  out[strcspn(out, "\n")] = 0;
  printf("# %s: %s finding slices match the report\n", annotated, out);
  free(out);
}

/* annotate trace `path` (a single rank), check everything, return the copy's path */
static void annotate_and_check(const char *path, const char *name, int gz) {
  fsdpa_ctx *c = load(path);
  char out[4500], rep[4500];
  snprintf(out, sizeof out, "%s/%s%s", tmp, name, gz ? ".json.gz" : ".json");
  snprintf(rep, sizeof rep, "%s/%s.report.json", tmp, name);
  annotate_ok(&c, 1, 0, path, out, name);
  /* the bytes */
  char *ev = NULL;
  size_t evl = 0;
  fsdpa_error err;
  fsdpa_error_init(&err);
  ck_assert_int_eq(fsdpa_annotate_events(&c, 1, 0, &ev, &evl, &err), FSDPA_OK);
  ck_assert_str_eq(err.message, "");
  ck_assert_uint_eq(evl, strlen(ev));
  ck_assert(tj_valid(ev, evl));
  size_t on, an;
  char *orig = read_plain(path, &on), *ann = read_plain(out, &an);
  size_t rawn = 0;
  char *raw = tu_read_file(out, &rawn);
  ck_assert_msg(gz == (rawn >= 2 && (unsigned char)raw[0] == 0x1f && (unsigned char)raw[1] == 0x8b),
                "%s: gzip %d expected", out, gz);
  free(raw);
  check_bytes(orig, on, ann, an, ev);
  fsdpa_free(ev);
  free(orig);
  free(ann);
  /* the library reads it back to the same report */
  char *r1 = json_report(&c, 1);
  fsdpa_ctx *c2 = load(out);
  char *r2 = json_report(&c2, 1);
  assert_same_but_inputs(r1, r2, name);  /* the annotated copy gives the same report */
  ck_assert_int_eq(rj_write(rep, r1, strlen(r1)), 0);
  fsdpa_trace_info ti;
  fsdpa_trace_info_init(&ti);
  ck_assert_int_eq(fsdpa_trace_info_get(c, &ti), FSDPA_OK);
  check_python(out, rep, ti.rank == FSDPA_ABSENT ? 0 : ti.rank);
  fsdpa_free(r1);
  fsdpa_free(r2);
  fsdpa_ctx_free(c2);
  fsdpa_ctx_free(c);
}

START_TEST(t_sample_plain_and_gzip) {
  annotate_and_check(sample(), "sample", 0);
  annotate_and_check(sample(), "sample", 1);
}
END_TEST

START_TEST(t_trace_formats) {
  const char *py = rj_python(NULL);
  ck_assert_ptr_nonnull(py);
  static const char *const fmts[][3] = {{"old", "sync_stall", ".json.gz"},
                                        {"legacy19", "fsdp1_serialized", ".json"},
                                        {"new", "allocator_thrash", ".json"}};
  for (size_t i = 0; i < 3; i++) {
    char p[4500], cmd[12000], name[64];
    snprintf(name, sizeof name, "%s-%s", fmts[i][0], fmts[i][1]);
    snprintf(p, sizeof p, "%s/in-%s%s", tmp, name, fmts[i][2]);
    snprintf(cmd, sizeof cmd, "'%s' '%s/tools/tracegen/tracegen.py' %s -o '%s' --steps 3 --format %s >/dev/null 2>&1",
             py, tu_source_root(), fmts[i][1], p, fmts[i][0]);
    if (system(cmd) != 0) {
      printf("# SKIP %s: the generator could not write it\n", name);
      continue;
    }
    annotate_and_check(p, name, 0);
  }
  /* Chrome's JSON Array Format (a bare event array) and an empty array */
  char p[4500];
  snprintf(p, sizeof p, "%s/in-bare.json", tmp);
  const char *bare = " [\n{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\", \"pid\": 0, \"tid\": 7, \"ts\": 10, \"dur\": 5},"
                     "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\", \"pid\": 0, \"tid\": 7, \"ts\": 30, \"dur\": 5}]\n";
  ck_assert_int_eq(rj_write(p, bare, strlen(bare)), 0);
  annotate_and_check(p, "bare", 0);
  snprintf(p, sizeof p, "%s/in-empty.json", tmp);
  const char *empty = "{\"schemaVersion\": 1, \"note\": {\"traceEvents\": [1, \"]\"]}, \"traceEvents\": [  ], \"x\": 1}";
  ck_assert_int_eq(rj_write(p, empty, strlen(empty)), 0);
  annotate_and_check(p, "empty", 0);
}
END_TEST

START_TEST(t_multi_rank_findings_go_to_their_rank) {
  rj_job jobs[RJ_MAX_JOBS];
  size_t nj = rj_jobs("annotate-gen", jobs, RJ_MAX_JOBS, 0);
  rj_job *j = NULL;
  for (size_t i = 0; i < nj; i++)
    if (!strcmp(jobs[i].name, "straggler")) j = &jobs[i];
  if (!j) {
    printf("# SKIP multi-rank annotate: no straggler scenario\n");
    rj_free(jobs, nj);
    return;
  }
  char err[1024];
  fsdpa_ctx **c = rj_load(j, err, sizeof err);
  ck_assert_msg(c != NULL, "%s", err);
  char *rep = json_report(c, j->n);
  char rp[4500];
  snprintf(rp, sizeof rp, "%s/straggler.report.json", tmp);
  ck_assert_int_eq(rj_write(rp, rep, strlen(rep)), 0);
  ck_assert_msg(tu_report_has_finding(rep, "straggler-rank"), "the straggler scenario has no straggler-rank finding");
  for (size_t k = 0; k < j->n; k++) {
    char out[4500];
    snprintf(out, sizeof out, "%s/straggler.rank%zu.json", tmp, k);
    char what[64];
    snprintf(what, sizeof what, "rank %zu", k);
    annotate_ok(c, j->n, k, j->paths[k], out, what);
    fsdpa_trace_info ti;
    fsdpa_trace_info_init(&ti);
    ck_assert_int_eq(fsdpa_trace_info_get(c[k], &ti), FSDPA_OK);
    check_python(out, rp, ti.rank == FSDPA_ABSENT ? (int64_t)k : ti.rank);
  }
  fsdpa_free(rep);
  rj_unload(c, j->n);
  rj_free(jobs, nj);
}
END_TEST

START_TEST(t_errors_leave_no_file) {
  fsdpa_ctx *c = load(sample());
  char out[4500], other[4500];
  snprintf(out, sizeof out, "%s/must-not-exist.json", tmp);
  remove(out);
  /* not the trace the context read */
  snprintf(other, sizeof other, "%s/other.json", tmp);
  const char *o = "{\"traceEvents\": []}";
  ck_assert_int_eq(rj_write(other, o, strlen(o)), 0);
  fsdpa_error err;
  fsdpa_error_init(&err);
  ck_assert_int_eq(fsdpa_annotate_file(&c, 1, 0, other, out, NULL, &err), FSDPA_EINVAL);
  ck_assert_int_eq(err.status, FSDPA_EINVAL);
  ck_assert_int_eq(err.input, 0);
  ck_assert_msg(strstr(err.message, "not the trace") != NULL, "%s", err.message);
  ck_assert_int_ne(access(out, F_OK), 0);
  /* stdin, the input as output, bad arguments: each with its status and a message */
  ck_assert_int_eq(fsdpa_annotate_file(&c, 1, 0, "-", out, NULL, &err), FSDPA_EINVAL);
  ck_assert_int_eq(err.status, FSDPA_EINVAL);
  ck_assert_str_ne(err.message, "");
  ck_assert_int_eq(fsdpa_annotate_file(&c, 1, 0, other, other, NULL, &err), FSDPA_EINVAL);
  ck_assert_str_ne(err.message, "");
  ck_assert_int_eq(fsdpa_annotate_file(&c, 1, 1, sample(), out, NULL, &err), FSDPA_EINVAL);
  ck_assert_str_ne(err.message, "");
  ck_assert_int_eq(fsdpa_annotate_file(&c, 1, 0, "/nonexistent/x.json", out, NULL, &err), FSDPA_EIO);
  ck_assert_int_eq(err.status, FSDPA_EIO);
  ck_assert_str_ne(err.message, "");
  ck_assert_int_ne(access(out, F_OK), 0);
  ck_assert_int_eq(fsdpa_annotate_file(&c, 1, 0, other, out, NULL, NULL), FSDPA_EINVAL);  /* no details wanted */
  ck_assert_int_ne(access(out, F_OK), 0);
  char *ev = NULL;
  ck_assert_int_eq(fsdpa_annotate_events(&c, 1, 1, &ev, NULL, &err), FSDPA_EINVAL);
  ck_assert_ptr_null(ev);
  ck_assert_int_eq(err.status, FSDPA_EINVAL);
  fsdpa_ctx_free(c);
  /* a context fed events directly (no JSON to compare with): a file that is
   * not a trace is refused and no copy is left */
  ck_assert_int_eq(fsdpa_ctx_new(&c, NULL), FSDPA_OK);
  const char *bad[] = {"{\"notEvents\": [1, 2]}", "{\"traceEvents\": {\"a\": 1}}", "\"just a string\"",
                       "{\"traceEvents\": 7, \"nested\": {\"traceEvents\": [1]}}", "{\"trace"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    ck_assert_int_eq(rj_write(other, bad[i], strlen(bad[i])), 0);
    fsdpa_status st = fsdpa_annotate_file(&c, 1, 0, other, out, NULL, &err);
    ck_assert_msg(st == FSDPA_ENOTTRACE, "case %zu: status %d", i, st);
    ck_assert_int_eq(err.status, FSDPA_ENOTTRACE);
    ck_assert_str_ne(err.message, "");
    ck_assert_int_ne(access(out, F_OK), 0);
  }
  fsdpa_ctx_free(c);
}
END_TEST

static tu_fault fa;

START_TEST(t_fault_injection) {
  /* a small trace with a finding (launch-bound: many short kernels) */
  char in[4500], out[4500];
  snprintf(in, sizeof in, "%s/fi.json", tmp);
  snprintf(out, sizeof out, "%s/fi-out.json.gz", tmp);
  FILE *f = fopen(in, "w");
  ck_assert_ptr_nonnull(f);
  fprintf(f, "{\"traceEvents\": [\n");
  fprintf(f, "{\"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": \"ProfilerStep#1\", \"pid\": 1, \"tid\": 1, \"ts\": 0, \"dur\": 100000}");
  for (int i = 0; i < 300; i++)
    fprintf(f, ",\n{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"%s\", \"pid\": 0, \"tid\": 7, \"ts\": %d, \"dur\": %d}",
            i % 3 ? "small" : "ncclDevKernel_AllGather_RING_LL", 10 + i * 300, i % 3 ? 5 : 250);
  fprintf(f, "\n]}\n");
  fclose(f);
  fsdpa_allocator al = tu_fault_allocator(&fa);
  long armed, completed = 0;
  for (armed = 1; armed < 100000 && !completed; armed++) {
    fa.fail_at = 0;
    fa.outstanding = 0;
    fsdpa_options o;
    fsdpa_options_init(&o);
    o.allocator = &al;
    fsdpa_ctx *c = NULL;
    ck_assert_int_eq(fsdpa_ctx_new(&c, &o), FSDPA_OK);
    ck_assert_int_eq(fsdpa_feed_file(c, in), FSDPA_OK);
    fa.calls = 0;
    fa.fail_at = armed;
    remove(out);
    fsdpa_error err;
    fsdpa_error_init(&err);
    fsdpa_status st = fsdpa_annotate_file(&c, 1, 0, in, out, NULL, &err);
    ck_assert_int_eq(err.status, st);
    if (st == FSDPA_OK) {
      completed = fa.calls < armed;
      ck_assert_int_eq(access(out, F_OK), 0);
    } else {
      ck_assert_msg(st == FSDPA_ENOMEM, "failing allocation %ld: status %d (%s)", armed, st, err.message);
      ck_assert_msg(access(out, F_OK) != 0, "failing allocation %ld: a partial copy was left", armed);
    }
    fa.fail_at = 0;
    fsdpa_ctx_free(c);
    ck_assert_msg(fa.outstanding == 0, "failing allocation %ld: %lld bytes leaked", armed, (long long)fa.outstanding);
  }
  ck_assert(completed);
  printf("# annotate: a failure injected at each of %ld allocations\n", armed - 2);
}
END_TEST

START_TEST(t_cli) {
  const char *cli = getenv("FSDPA_CLI");
  ck_assert_ptr_nonnull(cli);
  char cmd[16384], out[4500];
  int status;
  snprintf(cmd, sizeof cmd, "'%s' help annotate", cli);
  char *o = tu_run(cmd, &status);
  ck_assert_int_eq(WEXITSTATUS(status), 0);
  ck_assert_ptr_nonnull(strstr(o, "fsdpa annotate"));
  ck_assert_ptr_nonnull(strstr(o, "Perfetto"));
  free(o);
  snprintf(cmd, sizeof cmd, "'%s' annotate '%s' 2>&1", cli, sample());
  o = tu_run(cmd, &status);
  ck_assert_int_eq(WEXITSTATUS(status), 2);
  free(o);
  snprintf(out, sizeof out, "%s/cli.json.gz", tmp);
  snprintf(cmd, sizeof cmd, "'%s' annotate '%s' -o '%s' 2>&1", cli, sample(), out);
  o = tu_run(cmd, &status);
  ck_assert_msg(WEXITSTATUS(status) == 0, "%s", o);
  free(o);
  fsdpa_ctx *c = load(out);
  fsdpa_ctx *c0 = load(sample());
  char *r1 = json_report(&c0, 1), *r2 = json_report(&c, 1);
  assert_same_but_inputs(r1, r2, "CLI annotate");
  fsdpa_free(r1);
  fsdpa_free(r2);
  fsdpa_ctx_free(c);
  fsdpa_ctx_free(c0);
  /* -d DIR for several ranks; a missing trace exits 3 */
  char d[4500];
  snprintf(d, sizeof d, "%s/cli-dir", tmp);
  snprintf(cmd, sizeof cmd, "mkdir -p '%s' && '%s' annotate -d '%s' '%s' 2>&1", d, cli, d, sample());
  o = tu_run(cmd, &status);
  ck_assert_msg(WEXITSTATUS(status) == 0, "%s", o);
  free(o);
  snprintf(out, sizeof out, "%s/fsdp2_sample.json.gz", d);
  ck_assert_int_eq(access(out, R_OK), 0);
  snprintf(cmd, sizeof cmd, "'%s' annotate -o '%s/x.json' '%s/missing.json' 2>&1", cli, tmp, tmp);
  o = tu_run(cmd, &status);
  ck_assert_int_eq(WEXITSTATUS(status), 3);
  ck_assert_ptr_nonnull(strstr(o, "missing.json"));
  free(o);
}
END_TEST

/* The manual page covers every command and every option the CLI's help
 * lists, and groff formats it without a warning. */
START_TEST(t_man_page) {
  const char *cli = getenv("FSDPA_CLI");
  ck_assert_ptr_nonnull(cli);
  char mp[4096];
  snprintf(mp, sizeof mp, "%s/docs/man/fsdpa.1", tu_source_root());
  size_t n = 0;
  char *man = tu_read_file(mp, &n);
  ck_assert_msg(man != NULL, "no manual page at %s", mp);
  man = realloc(man, n + 1);
  man[n] = 0;
  /* roff writes '-' as "\-" */
  size_t w = 0;
  for (size_t r = 0; r < n; r++)
    if (!(man[r] == '\\' && man[r + 1] == '-')) man[w++] = man[r];
  man[w] = 0;
  static const char *const helps[] = {"--help", "help analyze", "help annotate", "summarize --help"};
  int checked = 0;
  for (size_t h = 0; h < sizeof helps / sizeof helps[0]; h++) {
    char cmd[8192];
    int status;
    snprintf(cmd, sizeof cmd, "'%s' %s 2>&1", cli, helps[h]);
    char *o = tu_run(cmd, &status);
    ck_assert_ptr_nonnull(o);
    for (char *p = o; (p = strstr(p, "--")) != NULL;) {
      size_t k = 2;
      while ((p[k] >= 'a' && p[k] <= 'z') || p[k] == '-') k++;
      if (k > 3) {
        char opt[64];
        snprintf(opt, sizeof opt, "%.*s", (int)k, p);
        ck_assert_msg(strstr(man, opt) != NULL, "'%s' (fsdpa %s) is not in the manual page", opt, helps[h]);
        checked++;
      }
      p += k;
    }
    if (h == 0) {
      /* the commands: "  NAME  description" lines under "commands:" */
      char *c = strstr(o, "commands:");
      ck_assert_ptr_nonnull(c);
      for (char *line = strchr(c, '\n'); line && line[1] == ' '; line = strchr(line + 1, '\n')) {
        char name[32];
        if (sscanf(line + 1, " %31s", name) != 1) break;
        char want[64];
        snprintf(want, sizeof want, ".SS %s", name);
        if (strcmp(name, "version") && strcmp(name, "help"))
          ck_assert_msg(strstr(man, want) != NULL, "command '%s' has no section in the manual page", name);
        checked++;
      }
    }
    free(o);
  }
  printf("# manual page: %d options and commands of the CLI's help found in it\n", checked);
  free(man);
  if (access("/usr/bin/groff", X_OK) == 0) {
    char cmd[8192];
    int status;
    snprintf(cmd, sizeof cmd, "groff -man -Tutf8 -ww -z '%s' 2>&1", mp);
    char *o = tu_run(cmd, &status);
    ck_assert_msg(o && status == 0 && !*o, "groff warns: %s", o ? o : "");
    free(o);
  } else {
    printf("# SKIP groff check of the manual page: groff not installed\n");
  }
}
END_TEST

int main(void) {
  Suite *s = suite_create("annotate");
  TU_CASE(s, "annotate", 900, setup, t_sample_plain_and_gzip, t_trace_formats,
          t_multi_rank_findings_go_to_their_rank, t_errors_leave_no_file, t_fault_injection, t_cli,
          t_man_page);
  return tu_run_suite(s);
}
