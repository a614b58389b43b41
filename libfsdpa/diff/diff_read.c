/* A report's ranks and their metrics (docs/report-contract.md, "Diff").
 * A metric measured per step is the mean over the rank's steady steps (the
 * ProfilerSteps launch_gaps.steps marks steady; all of them when none is)
 * and has a spread, half the range of those steps' values; one measured
 * over the whole trace is divided by the iterations and has none. */
#include "diff/diff.h"
#include "util/sort.h"
#include <stdio.h>
#include <string.h>

const dm_def dm_defs[DM__COUNT] = {
    [DM_STEP_TIME] = {"step_time_ns", "step time", DU_NS, 1, 1},
    [DM_UTILIZATION] = {"utilization", "GPU utilization", DU_RATIO, 0, 0},
    [DM_GPU_IDLE] = {"gpu_idle_ns", "GPU idle / iteration", DU_NS, 1, 0},
    [DM_IDLE_HOST_NOT_LAUNCHED] = {"idle_host_not_launched_ns", "  host not launched", DU_NS, 1, 0},
    [DM_IDLE_HOST_BLOCKED] = {"idle_host_blocked_ns", "  host blocked", DU_NS, 1, 0},
    [DM_IDLE_STREAM_WAIT] = {"idle_stream_wait_ns", "  stream wait", DU_NS, 1, 0},
    [DM_IDLE_RANK_WAIT] = {"idle_rank_wait_ns", "  rank wait", DU_NS, 1, 0},
    [DM_IDLE_UNKNOWN] = {"idle_unknown_ns", "  unknown", DU_NS, 1, 0},
    [DM_EXPOSED_COMM] = {"exposed_comm_ns", "exposed comm / iteration", DU_NS, 1, 1},
    [DM_COMM] = {"comm_ns", "comm / iteration", DU_NS, 1, 0},
    [DM_MFU] = {"mfu", "MFU", DU_RATIO, 0, 0},
    [DM_MODELLED_SHARE] = {"modelled_share", "modelled kernel share", DU_RATIO, 0, 0},
    [DM_MALLOC_CALLS] = {"malloc_calls", "cudaMalloc / iteration", DU_COUNT, 1, 0},
    [DM_PEAK_ALLOCATED] = {"peak_allocated_bytes", "peak allocated", DU_BYTES, 1, 0},
    [DM_PEAK_RESERVED] = {"peak_reserved_bytes", "peak reserved", DU_BYTES, 1, 0},
};

static int64_t i64_or(const jdc_node *x, int64_t dflt) {
  int64_t v;
  return jdc_to_i64(x, &v) ? v : dflt;
}

static void set_i(dval *d, int64_t v) {
  d->have = 1;
  d->v_i = v;
}

static void set_f(dval *d, double v) {
  d->have = 1;
  d->v_f = v;
}

/* The step number of "ProfilerStep#N"; -1 if the name is not one. */
static int64_t step_number(const jdc_node *name) {
  char buf[64];
  size_t n = jdc_str_copy(name, buf, sizeof buf);
  const char *p = memchr(buf, '#', n);
  if (!p || p[1] == 0) return -1;
  int64_t v = 0;
  for (p++; *p; p++) {
    if (*p < '0' || *p > '9' || v > INT64_MAX / 10 - 9) return -1;
    v = v * 10 + (*p - '0');
  }
  return v;
}

/* The steady step numbers (steps[] read with launch_gaps.steps[].steady). */
typedef struct steady {
  int64_t num[64];    /* the first 64: the spread and means need no more */
  int64_t dur[64];
  size_t n;
} steady;

static void steady_steps(const jdoc *d, const jdc_node *rank, steady *s) {
  memset(s, 0, sizeof *s);
  const jdc_node *steps = jdc_get(d, rank, "steps");
  const jdc_node *ls = jdc_path(d, rank, "launch_gaps.steps");
  size_t total = 0;
  for (int pass = 0; pass < 2 && !s->n; pass++) {  /* pass 1: every step when none is steady */
    size_t i = 0;
    for (const jdc_node *x = jdc_first(d, steps); x; x = jdc_next(d, x), i++) {
      int64_t num = step_number(jdc_get(d, x, "name")), dur;
      if (num < 0 || !jdc_to_i64(jdc_get(d, x, "dur_ns"), &dur)) continue;
      total += pass == 0;
      int st = pass == 1;
      if (!st) {
        int found = 0;
        for (const jdc_node *y = jdc_first(d, ls); y && !found; y = jdc_next(d, y))
          if (i64_or(jdc_get(d, y, "number"), -1) == num) {
            found = 1;
            st = jdc_get(d, y, "steady") && jdc_get(d, y, "steady")->type == JDC_TRUE;
          }
        if (!found) st = i > 0 || jdc_next(d, x) == NULL; /* no gap table: all but the first */
      }
      if (st && s->n < sizeof s->num / sizeof s->num[0]) {
        s->num[s->n] = num;
        s->dur[s->n++] = dur;
      }
    }
    if (!total) break;
  }
}

static int is_steady(const steady *s, int64_t num) {
  for (size_t i = 0; i < s->n; i++)
    if (s->num[i] == num) return 1;
  return 0;
}

/* Mean and half-range of field `key` of the entries of `arr` whose `by`
 * (a step number) is steady; 0 if none has it. */
static int per_step(const jdoc *d, const jdc_node *arr, const char *by, const char *key, const steady *s, int ratio,
                    dval *out) {
  int64_t sum = 0, lo = INT64_MAX, hi = INT64_MIN;
  double fsum = 0, flo = 1e300, fhi = -1e300;
  size_t n = 0;
  for (const jdc_node *x = jdc_first(d, arr); x; x = jdc_next(d, x)) {
    int64_t num;
    if (!jdc_to_i64(jdc_get(d, x, by), &num) || !is_steady(s, num)) continue;
    const jdc_node *v = jdc_get(d, x, key);
    if (ratio) {
      double f;
      if (!jdc_to_f64(v, &f)) continue;
      fsum += f;
      if (f < flo) flo = f;
      if (f > fhi) fhi = f;
    } else {
      int64_t i;
      if (!jdc_to_i64(v, &i) || i < 0 || sum > INT64_MAX - i) continue;
      sum += i;
      if (i < lo) lo = i;
      if (i > hi) hi = i;
    }
    n++;
  }
  if (!n) return 0;
  out->have = 1;
  out->have_spread = n >= 2;
  if (ratio) {
    out->v_f = fsum / (double)n;
    out->spread_f = (fhi - flo) / 2;
  } else {
    out->v_i = sum / (int64_t)n;
    out->spread_i = (hi - lo) / 2;
  }
  return 1;
}

static void per_iteration(dval *out, const jdc_node *x, int64_t iterations) {
  int64_t v;
  if (jdc_to_i64(x, &v)) set_i(out, v / iterations);
}

static void rank_metrics(const jdoc *d, drank *r) {
  const jdc_node *R = r->node, *lg = jdc_get(d, R, "launch_gaps"), *ov = jdc_get(d, R, "overlap"),
                *ef = jdc_get(d, R, "efficiency"), *al = jdc_get(d, R, "allocator");
  int64_t it = i64_or(jdc_path(d, R, "iterations.count"), 0);
  r->iterations = it > 0 ? it : 1;
  steady s;
  steady_steps(d, R, &s);
  dval *m = r->m;
  if (s.n) {
    r->has_steps = 1;
    int64_t sum = 0, lo = INT64_MAX, hi = INT64_MIN;
    for (size_t i = 0; i < s.n; i++) {
      sum += s.dur[i];
      if (s.dur[i] < lo) lo = s.dur[i];
      if (s.dur[i] > hi) hi = s.dur[i];
    }
    set_i(&m[DM_STEP_TIME], sum / (int64_t)s.n);
    m[DM_STEP_TIME].have_spread = s.n >= 2;
    m[DM_STEP_TIME].spread_i = (hi - lo) / 2;
  } else {
    per_iteration(&m[DM_STEP_TIME], jdc_get(d, lg, "span_ns"), r->iterations);
  }
  const jdc_node *ls = jdc_get(d, lg, "steps");
  double f;
  if (!per_step(d, ls, "number", "utilization", &s, 1, &m[DM_UTILIZATION]) && jdc_to_f64(jdc_get(d, lg, "utilization"), &f))
    set_f(&m[DM_UTILIZATION], f);
  if (!per_step(d, ls, "number", "gpu_idle_ns", &s, 0, &m[DM_GPU_IDLE]))
    per_iteration(&m[DM_GPU_IDLE], jdc_get(d, lg, "gpu_idle_ns"), r->iterations);
  static const char *const CAUSE[] = {"host_not_launched_ns", "host_blocked_ns", "stream_wait_ns", "rank_wait_ns",
                                      "unknown_ns"};
  const jdc_node *ic = jdc_get(d, lg, "idle_causes");
  for (int k = 0; k < 5; k++) per_iteration(&m[DM_IDLE_HOST_NOT_LAUNCHED + k], jdc_get(d, ic, CAUSE[k]), r->iterations);
  const jdc_node *os = jdc_get(d, ov, "steps");
  if (!per_step(d, os, "step", "exposed_comm_ns", &s, 0, &m[DM_EXPOSED_COMM]))
    per_iteration(&m[DM_EXPOSED_COMM], jdc_get(d, ov, "exposed_comm_ns"), r->iterations);
  if (!per_step(d, os, "step", "comm_ns", &s, 0, &m[DM_COMM]))
    per_iteration(&m[DM_COMM], jdc_get(d, ov, "comm_ns"), r->iterations);
  if (!per_step(d, jdc_get(d, ef, "steps"), "step", "mfu", &s, 1, &m[DM_MFU]) && jdc_to_f64(jdc_get(d, ef, "mfu"), &f))
    set_f(&m[DM_MFU], f);
  if (jdc_to_f64(jdc_get(d, ef, "modelled_share"), &f)) set_f(&m[DM_MODELLED_SHARE], f);
  int64_t steady_steps_n = i64_or(jdc_get(d, al, "steady_steps"), 0), calls;
  if (steady_steps_n > 0 && jdc_to_i64(jdc_get(d, al, "steady_state_malloc_calls"), &calls))
    set_f(&m[DM_MALLOC_CALLS], (double)calls / (double)steady_steps_n);
  else if (jdc_to_i64(jdc_get(d, al, "malloc_calls"), &calls))
    set_f(&m[DM_MALLOC_CALLS], (double)calls / (double)r->iterations);
  int64_t v;
  if (jdc_to_i64(jdc_get(d, al, "peak_allocated_bytes"), &v)) set_i(&m[DM_PEAK_ALLOCATED], v);
  if (jdc_to_i64(jdc_get(d, al, "peak_reserved_bytes"), &v)) set_i(&m[DM_PEAK_RESERVED], v);
}

#define RANK_LESS(a, b) ((a)->rank < (b)->rank)
FA_SORT_DEFINE(sort_ranks, drank, RANK_LESS)

static fsdpa_status bad(int64_t *off, char *msg, size_t msgn, int64_t at, const char *what) {
  *off = at;
  snprintf(msg, msgn, "%s", what);
  return FSDPA_EPARSE;
}

fsdpa_status drun_read(fa_alloc *a, const char *s, size_t len, drun *out, int64_t *off, char *msg, size_t msgn) {
  memset(out, 0, sizeof *out);
  *off = FSDPA_ABSENT;
  msg[0] = 0;
  fsdpa_status st = (fsdpa_status)jdc_parse(a, s, len, &out->doc, NULL, 0);
  if (st == FSDPA_EPARSE) return bad(off, msg, msgn, (int64_t)out->doc.err_off, out->doc.err);
  if (st) return st;
  const jdoc *d = &out->doc;
  const jdc_node *root = jdc_root(d);
  if (!jdc_str_is(jdc_get(d, root, "schema"), "fsdpa.report/1"))
    return bad(off, msg, msgn, 0, "not a report of schema fsdpa.report/1 (fsdpa analyze -f json, or a summary)");
  const jdc_node *ranks = jdc_get(d, root, "ranks");
  if (!ranks || ranks->type != JDC_ARR) return bad(off, msg, msgn, 0, "report without a \"ranks\" array");
  out->findings = jdc_get(d, root, "findings");
  out->inputs = jdc_get(d, root, "inputs");
  out->cap = ranks->n ? ranks->n : 1;
  out->r = fa_calloc(a, out->cap * sizeof *out->r);
  if (!out->r) return fa_fail_status(a);
  for (const jdc_node *x = jdc_first(d, ranks); x; x = jdc_next(d, x)) {
    drank *r = &out->r[out->n];
    if (x->type != JDC_OBJ || !jdc_to_i64(jdc_get(d, x, "rank"), &r->rank))
      return bad(off, msg, msgn, (int64_t)(x->raw - s), "a \"ranks\" element without a rank");
    for (size_t k = 0; k < out->n; k++)
      if (out->r[k].rank == r->rank) return bad(off, msg, msgn, (int64_t)(x->raw - s), "a rank given twice");
    r->node = x;
    rank_metrics(d, r);
    out->n++;
  }
  sort_ranks(out->r, out->n);
  return FSDPA_OK;
}

void drun_free(fa_alloc *a, drun *r) {
  if (r->r) fa_free(a, r->r, r->cap * sizeof *r->r);
  jdc_free(&r->doc);
  memset(r, 0, sizeof *r);
}
