/* Backward schedule and the FSDP unit model: the pattern matcher
 * on its own, hand-built FSDP2 / FSDP1 backward passes (zigzag, no
 * prefetch, serialized), the generator's scenarios against their truth, the
 * matcher reused for forward prefetch and DDP buckets, and allocation
 * failure at every step. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "testutil.h"
#include "tjson.h"
#include "ctx.h"
#include "analysis/fsdp/fsdp.h"
#include "model/fsdp_model.h"
#include "analysis/fsdp/fsdp_impl.h"

/* ---- the pattern matcher ---- */

static const char *const LBL[] = {"X", "Y", "Z"};

START_TEST(t_pattern_parse) {
  pattern p;
  char err[128];
  ck_assert_int_eq(pattern_parse("# comment\n a: X[i+1] overlaps Y[i] | Z[i-1]  # why\n\n"
                                 "b : X[ i ] precedes Y[i+2]; c: Y[i] starts_before_end Z[i]\n",
                                 LBL, 3, &p, err, sizeof err),
                   0);
  ck_assert_int_eq(p.nrules, 3);
  ck_assert_str_eq(p.rules[0].name, "a");
  ck_assert_int_eq(p.rules[0].a.label, 0);
  ck_assert_int_eq(p.rules[0].a.off, 1);
  ck_assert_int_eq(p.rules[0].rel, PAT_OVERLAPS);
  ck_assert_int_eq(p.rules[0].nalt, 2);
  ck_assert_int_eq(p.rules[0].b[1].label, 2);
  ck_assert_int_eq(p.rules[0].b[1].off, -1);
  ck_assert_int_eq(p.rules[1].rel, PAT_PRECEDES);
  ck_assert_int_eq(p.rules[1].b[0].off, 2);
  ck_assert_int_eq(p.rules[2].rel, PAT_STARTS_BEFORE_END);
  ck_assert_int_eq(pattern_rule(&p, "c"), 2);
  ck_assert_int_eq(pattern_rule(&p, "nope"), -1);
  char txt[128];
  pattern_rule_text(&p, 0, LBL, txt, sizeof txt);
  ck_assert_str_eq(txt, "X[i+1] overlaps Y[i] | Z[i-1]");
  /* round trip */
  pattern q;
  char line[160];
  snprintf(line, sizeof line, "a: %s", txt);
  ck_assert_int_eq(pattern_parse(line, LBL, 3, &q, err, sizeof err), 0);
  ck_assert_int_eq(memcmp(&q.rules[0], &p.rules[0], sizeof q.rules[0]), 0);
  static const struct {
    const char *text, *why;
  } BAD[] = {
      {"a X[i] overlaps Y[i]", "expected ':'"},
      {"a: Q[i] overlaps Y[i]", "unknown label"},
      {"a: X[i] touches Y[i]", "unknown relation"},
      {"a: X[j] overlaps Y[i]", "expected 'i'"},
      {"a: X[i+] overlaps Y[i]", "expected an offset"},
      {"a: X[i] overlaps Y[i] Z", "unexpected text"},
      {"\n\n# only comments\n", "no rules"},
      {"a: X[i] overlaps Y[i]\nb: X[i overlaps Y[i]", "line 2"},
  };
  for (size_t i = 0; i < sizeof BAD / sizeof BAD[0]; i++) {
    ck_assert_int_eq(pattern_parse(BAD[i].text, LBL, 3, &q, err, sizeof err), -1);
    ck_assert_msg(strstr(err, BAD[i].why) != NULL, "'%s': %s", BAD[i].text, err);
  }
}
END_TEST

START_TEST(t_pattern_eval) {
  /* 3 slots x 3 labels; Z empty in slot 1 */
  iv x0[] = {{0, 10}}, y0[] = {{5, 20}}, z0[] = {{30, 40}};
  iv x1[] = {{15, 18}, {25, 26}}, y1[] = {{40, 50}};
  iv x2[] = {{50, 60}}, y2[] = {{60, 70}}, z2[] = {{0, 1}};
  pat_set sets[9] = {{x0, 1}, {y0, 1}, {z0, 1}, {x1, 2}, {y1, 1}, {NULL, 0},
                     {x2, 1}, {y2, 1}, {z2, 1}};
  pattern p;
  char err[128];
  ck_assert_int_eq(pattern_parse("ov: X[i+1] overlaps Y[i]\n"
                                 "alt: X[i] overlaps Z[i] | Y[i]\n"
                                 "pre: X[i] precedes Y[i+1]\n"
                                 "sbe: X[i+1] starts_before_end Y[i]\n"
                                 "dis: X[i] disjoint Y[i]\n"
                                 "sb: Y[i] starts_before X[i]\n",
                                 LBL, 3, &p, err, sizeof err),
                   0);
  int8_t st[6 * 3];
  int64_t m[6 * 3];
  pattern_eval(&p, sets, 3, 3, st, m);
  /* ov: slot0: X1 {15-18,25-26} vs Y0 [5,20) -> 3; slot1: X2 [50,60) vs Y1 [40,50) -> 0 */
  ck_assert_int_eq(st[0], PAT_HOLDS);
  ck_assert_int_eq(m[0], 3);
  ck_assert_int_eq(st[1], PAT_BROKEN);
  ck_assert_int_eq(m[1], 0);
  ck_assert_int_eq(st[2], PAT_NA);  /* no slot 3 */
  ck_assert_int_eq(m[2], INT64_MIN);
  /* alt: slot0 X0 vs Z0 no, vs Y0 yes -> holds (measure of the deciding alternative) */
  ck_assert_int_eq(st[3], PAT_HOLDS);
  ck_assert_int_eq(m[3], 5);
  /* slot1: Z empty -> only Y1 evaluated, no overlap */
  ck_assert_int_eq(st[4], PAT_BROKEN);
  /* slot2: X2 [50,60) vs Z2 [0,1) no, vs Y2 [60,70) touching only -> broken */
  ck_assert_int_eq(st[5], PAT_BROKEN);
  /* pre: X0 end 10 <= Y1 start 40 -> holds, gap 30; X1 end 26 <= Y2 60 */
  ck_assert_int_eq(st[6], PAT_HOLDS);
  ck_assert_int_eq(m[6], 30);
  ck_assert_int_eq(st[7], PAT_HOLDS);
  ck_assert_int_eq(st[8], PAT_NA);
  /* sbe: X1 start 15 < Y0 end 20 holds; X2 start 50 < Y1 end 50 broken */
  ck_assert_int_eq(st[9], PAT_HOLDS);
  ck_assert_int_eq(st[10], PAT_BROKEN);
  /* dis: X0/Y0 overlap -> broken; X1/Y1 disjoint -> holds */
  ck_assert_int_eq(st[12], PAT_BROKEN);
  ck_assert_int_eq(st[13], PAT_HOLDS);
  /* sb: Y0 start 5 < X0 start 0? no */
  ck_assert_int_eq(st[15], PAT_BROKEN);
  ck_assert_int_eq(st[16], PAT_BROKEN);
  /* measure may be NULL */
  pattern_eval(&p, sets, 3, 3, st, NULL);
  ck_assert_int_eq(st[0], PAT_HOLDS);
}
END_TEST

/* DDP's bucketed all-reduce, checked with the same machinery: slots are
 * gradient buckets in backward order; a bucket's all-reduce should run
 * while the next bucket's gradients are computed. */
START_TEST(t_pattern_ddp_buckets) {
  static const char *const L[] = {"AR", "C"};
  iv c0[] = {{0, 100}}, c1[] = {{100, 200}}, c2[] = {{200, 300}}, c3[] = {{400, 500}};
  iv a0[] = {{100, 150}}, a1[] = {{210, 260}}, a2[] = {{300, 380}}, a3[] = {{500, 550}};
  pat_set sets[8] = {{a0, 1}, {c0, 1}, {a1, 1}, {c1, 1}, {a2, 1}, {c2, 1}, {a3, 1}, {c3, 1}};
  pattern p;
  char err[128];
  ck_assert_int_eq(pattern_parse("hidden: AR[i] overlaps C[i+1]", L, 2, &p, err, sizeof err), 0);
  int8_t st[4];
  int64_t m[4];
  pattern_eval(&p, sets, 4, 2, st, m);
  ck_assert_int_eq(st[0], PAT_HOLDS);
  ck_assert_int_eq(m[0], 50);
  ck_assert_int_eq(st[1], PAT_HOLDS);
  ck_assert_int_eq(st[2], PAT_BROKEN);  /* bucket 2's all-reduce ran in the idle gap before bucket 3 */
  ck_assert_int_eq(st[3], PAT_NA);      /* the last bucket has nothing after it */
}
END_TEST

/* ---- hand-built FSDP backward passes ---- */

enum { MAIN = 10, BWD = 11, S_COMP = 7, S_AG = 20, S_RS = 24 };
static int64_t g_corr;

/* An event on the CPU process 1, or on device 0 for the GPU categories. */
static void ev(fsdpa_ctx *c, const char *cat, const char *name, int64_t tid, int64_t ts, int64_t dur,
               int64_t corr) {
  int64_t pid = strcmp(cat, "kernel") && strcmp(cat, "gpu_user_annotation") ? 1 : 0;
  tu_add_x(c, cat, name, pid, tid, ts, dur, corr);
}

/* A launch at CPU time t on thread tid of a kernel [s, e) on stream. */
static void launch(fsdpa_ctx *c, int64_t tid, int64_t t, const char *kname, int64_t stream, int64_t s,
                   int64_t e) {
  int64_t corr = ++g_corr;
  ev(c, "cuda_runtime", "cudaLaunchKernel", tid, t, 5, corr);
  ev(c, "kernel", kname, stream, s, e - s, corr);
}

#define AG_K "ncclDevKernel_AllGather_RING_LL(ncclDevKernelArgsStorage<4096ul>)"
#define RS_K "ncclDevKernel_ReduceScatter_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)"
#define GEMM "sm90_xmma_gemm_bf16bf16_bf16f32"
#define COPY "split_with_sizes_copy_out_contiguous_no_cast_kernel"

/* The metadata event that names BWD the autograd thread. */
static void thread_names(fsdpa_ctx *c) {
  fsdpa_event e = tu_x(NULL, "thread_name", 1, BWD, FSDPA_ABSENT, FSDPA_ABSENT, FSDPA_ABSENT);
  e.ph = 'M';
  e.label = "thread 11 (pt_autograd_0)";
  e.label_len = strlen(e.label);
  tu_add(c, &e);
}

/* GPU schedule of one backward unit. */
typedef struct sched {
  int64_t ag_s, ag_e, c_s, c_e, rs_s, rs_e;
} sched;

/* FSDP2 backward of units layers.2, layers.1, layers.0 (position p = 2 - i).
 * prefetch: the next unit's all-gather is issued from this unit's
 * pre_backward (else from its own).  Hook kernels (copy-out, chunk-cat) are
 * launched too and must not count as compute. */
static void fsdp2_backward(fsdpa_ctx *c, const sched *g, int prefetch, int64_t cpu0) {
  char nm[128];
  for (int p = 0; p < 3; p++) {
    int u = 2 - p;
    int64_t b = cpu0 + p * 1000;
    snprintf(nm, sizeof nm, "FSDP::pre_backward (layers.%d)", u);
    ev(c, "user_annotation", nm, BWD, b, 300, FSDPA_ABSENT);
    if (!prefetch || p == 0) {
      snprintf(nm, sizeof nm, "FSDP::all_gather (layers.%d)", u);
      ev(c, "user_annotation", nm, BWD, b + 10, 40, FSDPA_ABSENT);
      launch(c, BWD, b + 20, AG_K, S_AG, g[p].ag_s, g[p].ag_e);
    }
    if (prefetch && p < 2) {
      snprintf(nm, sizeof nm, "FSDP::backward_prefetch for layers.%d", u - 1);
      ev(c, "user_annotation", nm, BWD, b + 100, 100, FSDPA_ABSENT);
      snprintf(nm, sizeof nm, "FSDP::all_gather (layers.%d)", u - 1);
      ev(c, "user_annotation", nm, BWD, b + 110, 80, FSDPA_ABSENT);
      launch(c, BWD, b + 120, AG_K, S_AG, g[p + 1].ag_s, g[p + 1].ag_e);
    }
    snprintf(nm, sizeof nm, "FSDP::all_gather_copy_out (layers.%d)", u);
    ev(c, "user_annotation", nm, BWD, b + 220, 40, FSDPA_ABSENT);
    launch(c, BWD, b + 230, COPY, S_COMP, g[p].c_s - 30, g[p].c_s - 20);
    ev(c, "cpu_op", "autograd::engine::evaluate_function: MmBackward0", BWD, b + 390, 100, FSDPA_ABSENT);
    launch(c, BWD, b + 400, GEMM, S_COMP, g[p].c_s, (g[p].c_s + g[p].c_e) / 2);
    launch(c, BWD, b + 450, GEMM, S_COMP, (g[p].c_s + g[p].c_e) / 2, g[p].c_e);
    snprintf(nm, sizeof nm, "FSDP::post_backward_reshard (layers.%d)", u);
    ev(c, "user_annotation", nm, BWD, b + 600, 20, FSDPA_ABSENT);
    snprintf(nm, sizeof nm, "FSDP::post_backward_reduce (layers.%d)", u);
    ev(c, "user_annotation", nm, BWD, b + 700, 100, FSDPA_ABSENT);
    launch(c, BWD, b + 710, "chunk_cat_cuda_kernel", S_RS, g[p].rs_s - 10, g[p].rs_s - 5);
    launch(c, BWD, b + 750, RS_K, S_RS, g[p].rs_s, g[p].rs_e);
  }
}

static fsdpa_ctx *fsdp2_ctx(const sched *g, int prefetch, int64_t *extra_comp) {
  fsdpa_ctx *c = NULL;
  ck_assert_int_eq(fsdpa_ctx_new(&c, NULL), FSDPA_OK);
  g_corr = 0;
  thread_names(c);
  ev(c, "user_annotation", "ProfilerStep#5", MAIN, 0, 1000000, FSDPA_ABSENT);
  fsdp2_backward(c, g, prefetch, 10000);
  if (extra_comp)  /* compute in no unit (e.g. optimizer), launched from the main thread */
    launch(c, MAIN, 500, GEMM, S_COMP, extra_comp[0], extra_comp[1]);
  return c;
}

/* The units of backward step 0, which must be n. */
static void get_units(fsdpa_ctx *c, fsdpa_backward_unit *u, size_t n) {
  fsdpa_list *l = NULL;
  ck_assert_int_eq(fsdpa_backward_unit_list(c, 0, &l), FSDPA_OK);
  ck_assert_int_eq(fsdpa_list_type(l), FSDPA_LIST_BACKWARD_UNITS);
  ck_assert_uint_eq(fsdpa_list_count(l), n);
  for (size_t i = 0; i < n; i++) TU_ITEM(l, i, u[i]);
  fsdpa_list_free(l);
}

static fsdpa_list *bwd_steps(fsdpa_ctx *c) {
  fsdpa_list *l = NULL;
  ck_assert_int_eq(fsdpa_backward_step_list(c, &l), FSDPA_OK);
  ck_assert_int_eq(fsdpa_list_type(l), FSDPA_LIST_BACKWARD_STEPS);
  return l;
}

START_TEST(t_fsdp2_zigzag) {
  sched g[3];
  for (int p = 0; p < 3; p++) {
    int64_t o = 100000 + p * 3000;
    g[p] = (sched){o - 1500, o - 1000, o, o + 2000, o + 2100, o + 3500};
  }
  /* the next unit's AG runs inside this unit's compute */
  for (int p = 1; p < 3; p++) {
    g[p].ag_s = g[p - 1].c_s + 500;
    g[p].ag_e = g[p - 1].c_s + 1000;
  }
  fsdpa_ctx *c = fsdp2_ctx(g, 1, NULL);
  ck_assert_int_eq(fsdpa_fsdp_version(c), 2);
  fsdpa_backward bw = {sizeof bw};
  ck_assert_int_eq(fsdpa_backward_get(c, &bw), FSDPA_OK);
  ck_assert_int_eq(bw.pattern, FSDPA_BWD_ZIGZAG);
  ck_assert_str_eq(fsdpa_backward_pattern_name(bw.pattern), "zigzag");
  ck_assert_uint_eq(bw.steps, 1);
  ck_assert_uint_eq(bw.units, 3);
  ck_assert_uint_eq(bw.prefetched_units, 2);
  ck_assert_uint_eq(bw.links, 2);
  ck_assert_uint_eq(bw.broken_links, 0);
  ck_assert_int_eq(bw.idle_ns, 0);
  fsdpa_list *sl = bwd_steps(c);
  ck_assert_uint_eq(fsdpa_list_count(sl), 1);
  fsdpa_backward_step bs;
  TU_ITEM(sl, 0, bs);
  fsdpa_list_free(sl);
  ck_assert_int_eq(bs.step, 5);
  ck_assert_uint_eq(bs.rs_hidden_links, 2);
  ck_assert_int_eq(bs.start_ns, g[0].ag_s);
  ck_assert_int_eq(bs.end_ns, g[2].rs_e);
  fsdpa_backward_unit u[3];
  get_units(c, u, 3);
  ck_assert_str_eq(u[0].name, "layers.2");
  ck_assert_str_eq(u[2].name, "layers.0");
  ck_assert_int_eq(u[0].prefetched, -1);
  ck_assert_int_eq(u[0].idle_ns, FSDPA_ABSENT);
  ck_assert_int_eq(u[1].prefetched, 1);
  ck_assert_int_eq(u[1].idle_ns, 0);
  ck_assert_int_eq(u[0].rs_hidden, 1);
  ck_assert_int_eq(u[2].rs_hidden, -1);
  ck_assert_int_eq(u[1].ag_start_ns, g[1].ag_s);
  ck_assert_int_eq(u[1].ag_stream, S_AG);
  ck_assert_int_eq(u[1].compute_stream, S_COMP);
  ck_assert_int_eq(u[1].rs_stream, S_RS);
  /* compute excludes the hook kernels (copy-out before, chunk-cat after) */
  ck_assert_int_eq(u[1].compute_start_ns, g[1].c_s);
  ck_assert_int_eq(u[1].compute_end_ns, g[1].c_e);
  ck_assert_int_eq(u[1].rs_start_ns, g[1].rs_s);
  /* the same units through fsdpa_fsdp_unit_list */
  fsdpa_list *ul = tu_unit_list(c, NULL);
  ck_assert_uint_eq(fsdpa_list_count(ul), 3);
  fsdpa_fsdp_unit fu;
  TU_ITEM(ul, 0, fu);
  ck_assert_str_eq(fu.name, "layers.2");  /* first named */
  ck_assert_uint_eq(fu.name_len, strlen("layers.2"));
  ck_assert_uint_eq(fu.instances, 1);
  ck_assert_int_eq(fu.phase, FSDPA_PHASE_BACKWARD);
  ck_assert_int_eq(fu.compute_ns, 2000);
  ck_assert_int_eq(fu.allgather_ns, 500);
  ck_assert_int_eq(fu.reducescatter_ns, 1400);
  ck_assert_int_eq(fu.comm_ns, 1900);
  ck_assert_int_eq(fu.exposed_ns, 0);
  ck_assert_uint_eq(fu.comm_kernels, 2);
  ck_assert_uint_eq(fu.compute_kernels, 2);
  /* layers.2's AG ran before any compute: all of it is exposed on the timeline;
   * its RS [2100,3500) overlaps the next compute from 3000 (and the copy-out 2970-2980) */
  ck_assert_int_eq(fu.exposed_measured_ns, 500 + 1400 - 500 - 10);
  ck_assert_int_eq(fsdpa_list_get(ul, 3, &fu), FSDPA_EINVAL);
  /* the whole trace: a NULL query and a zeroed one give the same list */
  fsdpa_query qz = {sizeof qz};
  fsdpa_list *uz = tu_unit_list(c, &qz);
  tu_same_units(ul, uz);
  fsdpa_list_free(uz);
  /* window query: only the instances whose first compute lies inside; the
   * entries stay where the whole-trace list has them */
  fsdpa_query q;
  fsdpa_query_init(&q);
  q.fields = FSDPA_QUERY_T0;
  q.t0_ns = g[1].c_s;
  fsdpa_list *uw = tu_unit_list(c, &q);
  ck_assert_uint_eq(fsdpa_list_count(uw), 3);
  TU_ITEM(uw, 0, fu);
  ck_assert_uint_eq(fu.instances, 0);
  ck_assert_str_eq(fu.name, "layers.2");
  ck_assert_int_eq(fu.comm_ns, 0);
  ck_assert_int_eq(fu.compute_ns, 0);
  TU_ITEM(uw, 1, fu);
  ck_assert_uint_eq(fu.instances, 1);
  ck_assert_str_eq(fu.name, "layers.1");
  fsdpa_list_free(uw);
  /* without its bit the same t0 is not a selector */
  q.fields = 0;
  uw = tu_unit_list(c, &q);
  tu_same_units(ul, uw);
  fsdpa_list_free(uw);
  /* the step (ProfilerStep#5, CPU [0, 1 ms), no clock base) and the same
   * window as T0|T1 bounds select the same instances: all of them here */
  fsdpa_query qs = FSDPA_QUERY_INIT, qb = FSDPA_QUERY_INIT;
  qs.fields = FSDPA_QUERY_STEP;
  qs.step = 0;
  qb.fields = FSDPA_QUERY_T0 | FSDPA_QUERY_T1;
  qb.t0_ns = 0;
  qb.t1_ns = 1000000;
  fsdpa_list *us = tu_unit_list(c, &qs), *ub = tu_unit_list(c, &qb);
  tu_same_units(us, ub);
  tu_same_units(us, ul);
  fsdpa_list_free(us);
  fsdpa_list_free(ub);
  /* a window that ends inside the backward pass: step and bounds still agree */
  qs.fields |= FSDPA_QUERY_T1;
  qs.t1_ns = g[1].c_s + 1;
  qb.t1_ns = qs.t1_ns;
  us = tu_unit_list(c, &qs);
  ub = tu_unit_list(c, &qb);
  tu_same_units(us, ub);
  TU_ITEM(us, 0, fu);
  ck_assert_uint_eq(fu.instances, 1);
  TU_ITEM(us, 2, fu);
  ck_assert_uint_eq(fu.instances, 0);
  fsdpa_list_free(us);
  fsdpa_list_free(ub);
  fsdpa_list_free(ul);
  findings f;
  findings_init(&f, &c->alloc);
  ck_assert_int_eq(backward_findings(c, 0, &f), FSDPA_OK);
  ck_assert_uint_eq(f.n, 0);
  findings_free(&f);
  fsdpa_ctx_free(c);
}
END_TEST

/* AG(i+1) only after C(i) ended: broken links, idle = the compute gap minus
 * other compute in it; rs_hidden decides no_prefetch vs serialized. */
static void broken_case(int rs_overlaps, int want) {
  sched g[3];
  for (int p = 0; p < 3; p++) {
    int64_t o = 100000 + p * 4000;
    g[p] = (sched){o - 1400, o - 500, o, o + 2000, o + 2000, rs_overlaps ? o + 4500 : o + 2500};
  }
  int64_t other[2] = {102200, 102400};  /* compute inside the first gap [102000, 104000) */
  fsdpa_ctx *c = fsdp2_ctx(g, 0, other);
  fsdpa_backward bw = {sizeof bw};
  ck_assert_int_eq(fsdpa_backward_get(c, &bw), FSDPA_OK);
  ck_assert_int_eq(bw.pattern, want);
  ck_assert_uint_eq(bw.prefetched_units, 0);
  ck_assert_uint_eq(bw.broken_links, 2);
  fsdpa_backward_unit u[3];
  get_units(c, u, 3);
  ck_assert_int_eq(u[1].prefetched, 0);
  /* gap [C0 end, C1 start) = 2000 minus the other kernel (200) and the
   * copy-out kernel of unit 1 (10 ns just before C1) */
  ck_assert_int_eq(u[1].idle_ns, 2000 - 200 - 10);
  ck_assert_int_eq(u[2].idle_ns, 2000 - 10);
  ck_assert_int_eq(bw.idle_ns, u[1].idle_ns + u[2].idle_ns);
  findings f;
  findings_init(&f, &c->alloc);
  ck_assert_int_eq(backward_findings(c, 0, &f), FSDPA_OK);
  ck_assert_uint_eq(f.n, 0);  /* 2 µs per link is below backward.min_idle_ns (100 µs) */
  findings_free(&f);
  ck_assert_int_eq(fsdpa_param_set(c, "backward.min_idle_ns", "1000"), FSDPA_OK);
  findings_init(&f, &c->alloc);
  ck_assert_int_eq(backward_findings(c, 0, &f), FSDPA_OK);
  ck_assert_uint_eq(f.n, 1);
  ck_assert_str_eq(f.v[0].id, "backward-prefetch-missing");
  ck_assert_int_eq(f.v[0].cost_ns, bw.idle_ns);
  ck_assert_int_eq(f.v[0].nranges, 2);
  ck_assert_int_eq(f.v[0].ranges[0].s, g[1].c_e);  /* the larger idle first */
  ck_assert(tj_has(f.v[0].evidence, "units.[name=layers.1]"));
  ck_assert_int_eq(tj_i64(f.v[0].evidence, "broken_links"), 2);
  ck_assert_int_eq(tj_i64(f.v[0].evidence, "idle_ns"), bw.idle_ns);
  ck_assert_ptr_nonnull(strstr(f.v[0].advice, "set_modules_to_backward_prefetch"));
  findings_free(&f);
  char *rep = tu_report(c, FSDPA_FORMAT_JSON);
  ck_assert_ptr_nonnull(rep);
  ck_assert(tj_str_is(rep, "ranks.0.fsdp.backward.pattern",
                      want == FSDPA_BWD_SERIALIZED ? "serialized" : "no_prefetch"));
  ck_assert_int_eq(tj_i64(rep, "ranks.0.fsdp.backward.prefetched_units"), 0);
  ck_assert(tj_str_is(rep, "ranks.0.fsdp.version", "fsdp2"));
  free(rep);
  fsdpa_ctx_free(c);
}

START_TEST(t_fsdp2_no_prefetch) { broken_case(1, FSDPA_BWD_NO_PREFETCH); }
END_TEST

START_TEST(t_fsdp2_serialized) { broken_case(0, FSDPA_BWD_SERIALIZED); }
END_TEST

/* FSDP1: no names; units by all-gather order, backward in reverse. */
START_TEST(t_fsdp1_units) {
  fsdpa_ctx *c = NULL;
  ck_assert_int_eq(fsdpa_ctx_new(&c, NULL), FSDPA_OK);
  g_corr = 0;
  thread_names(c);
  ev(c, "user_annotation", "ProfilerStep#0", MAIN, 0, 1000000, FSDPA_ABSENT);
  /* forward: a parameterless root window around three unit windows */
  ev(c, "user_annotation", "FullyShardedDataParallel.forward", MAIN, 100, 9000, FSDPA_ABSENT);
  ev(c, "user_annotation", "FullyShardedDataParallel._root_pre_forward", MAIN, 110, 50, FSDPA_ABSENT);
  launch(c, MAIN, 200, "embedding_kernel", S_COMP, 1000, 1100);  /* root compute: no unit */
  for (int u = 0; u < 3; u++) {
    int64_t b = 1000 + u * 2000, gpu = 10000 + u * 3000;
    ev(c, "user_annotation", "FullyShardedDataParallel.forward", MAIN, b, 1500, FSDPA_ABSENT);
    ev(c, "user_annotation", "FullyShardedDataParallel._pre_forward", MAIN, b + 10, 100, FSDPA_ABSENT);
    launch(c, MAIN, b + 20, AG_K, 13, gpu, gpu + 1000);
    launch(c, MAIN, b + 300, GEMM, S_COMP, gpu + 1000, gpu + 1000 + 700 + 100 * u);
    ev(c, "user_annotation", "FullyShardedDataParallel._post_forward", MAIN, b + 1000, 100, FSDPA_ABSENT);
  }
  /* backward: unit2, unit1, unit0 */
  for (int j = 0; j < 3; j++) {
    int64_t b = 20000 + j * 2000, gpu = 30000 + j * 4000;
    ev(c, "user_annotation", "FullyShardedDataParallel._pre_backward_hook", BWD, b, 100, FSDPA_ABSENT);
    launch(c, BWD, b + 20, AG_K, 13, gpu, gpu + 500);
    launch(c, BWD, b + 300, GEMM, S_COMP, gpu + 600, gpu + 2600);
    ev(c, "user_annotation", "FullyShardedDataParallel._post_backward_hook", BWD, b + 1000, 100, FSDPA_ABSENT);
    launch(c, BWD, b + 1020, RS_K, 13, gpu + 2700, gpu + 3700);
  }
  ck_assert_int_eq(fsdpa_fsdp_version(c), 1);
  fsdpa_list *ul = tu_unit_list(c, NULL);
  ck_assert_uint_eq(fsdpa_list_count(ul), 6);
  fsdpa_fsdp_unit fu;
  for (size_t i = 0; i < 6; i++) {
    TU_ITEM(ul, i, fu);
    char want[16];
    snprintf(want, sizeof want, "unit%zu", i % 3);
    ck_assert_str_eq(fu.name, want);
    ck_assert_int_eq(fu.phase, i < 3 ? FSDPA_PHASE_FORWARD : FSDPA_PHASE_BACKWARD);
    if (i < 3) {
      ck_assert_int_eq(fu.comm_ns, 1000);
      ck_assert_int_eq(fu.compute_ns, 700 + 100 * (int64_t)i);
      ck_assert_int_eq(fu.exposed_ns, 300 - 100 * (int64_t)i);
    } else {
      ck_assert_int_eq(fu.comm_ns, 1500);
      ck_assert_int_eq(fu.compute_ns, 2000);
      ck_assert_int_eq(fu.allgather_ns, 500);
    }
  }
  fsdpa_list_free(ul);
  fsdpa_backward bw = {sizeof bw};
  ck_assert_int_eq(fsdpa_backward_get(c, &bw), FSDPA_OK);
  ck_assert_int_eq(bw.pattern, FSDPA_BWD_SERIALIZED);
  fsdpa_backward_unit u[3];
  get_units(c, u, 3);
  ck_assert_str_eq(u[0].name, "unit2");
  ck_assert_str_eq(u[1].name, "unit1");
  ck_assert_str_eq(u[2].name, "unit0");
  ck_assert_int_eq(u[1].prefetched, 0);
  ck_assert_int_eq(u[1].compute_start_ns, 34600);
  char *rep = tu_report(c, FSDPA_FORMAT_JSON);
  ck_assert_ptr_nonnull(rep);
  ck_assert(tj_str_is(rep, "ranks.0.fsdp.version", "fsdp1"));
  free(rep);
  fsdpa_ctx_free(c);
}
END_TEST

/* No FSDP annotations: everything absent, nothing crashes. */
START_TEST(t_no_fsdp) {
  fsdpa_ctx *c = NULL;
  ck_assert_int_eq(fsdpa_ctx_new(&c, NULL), FSDPA_OK);
  g_corr = 0;
  launch(c, MAIN, 0, GEMM, S_COMP, 100, 200);
  launch(c, MAIN, 10, AG_K, S_AG, 150, 300);
  ck_assert_int_eq(fsdpa_fsdp_version(c), 0);
  fsdpa_list *ul = tu_unit_list(c, NULL);
  ck_assert_uint_eq(fsdpa_list_count(ul), 0);
  fsdpa_fsdp_unit fu = {sizeof fu};
  ck_assert_int_eq(fsdpa_list_get(ul, 0, &fu), FSDPA_EINVAL);
  fsdpa_list_free(ul);
  fsdpa_backward bw = {sizeof bw};
  ck_assert_int_eq(fsdpa_backward_get(c, &bw), FSDPA_OK);
  ck_assert_int_eq(bw.pattern, FSDPA_BWD_UNKNOWN);
  ck_assert_uint_eq(bw.units, 0);
  fsdpa_list *sl = bwd_steps(c);
  ck_assert_uint_eq(fsdpa_list_count(sl), 0);
  fsdpa_backward_step bs = {sizeof bs};
  ck_assert_int_eq(fsdpa_list_get(sl, 0, &bs), FSDPA_EINVAL);
  fsdpa_list_free(sl);
  fsdpa_list *bl = NULL;
  ck_assert_int_eq(fsdpa_backward_unit_list(c, 0, &bl), FSDPA_EINVAL);
  ck_assert_str_ne(fsdpa_errmsg(c), "");
  fsdpa_list_free(bl);  /* NULL unless the library made one anyway */
  bw.size = 2;
  ck_assert_int_eq(fsdpa_backward_get(c, &bw), FSDPA_EINVAL);
  ck_assert_str_eq(fsdpa_backward_pattern_name((fsdpa_backward_pattern)42), "unknown");
  char *rep = tu_report(c, FSDPA_FORMAT_JSON);
  ck_assert_ptr_nonnull(rep);
  ck_assert(tj_is_null(rep, "ranks.0.fsdp.units"));
  ck_assert(tj_is_null(rep, "ranks.0.fsdp.backward"));
  free(rep);
  fsdpa_ctx_free(c);
}
END_TEST

/* Collectives with no linked launch (no runtime call, no External id, as in
 * GPU-only traces) are attributed through the FSDP gpu_user_annotations on
 * their stream.  Kineto's projections of nested annotations are often the
 * same range: the one that names the gathered unit must win. */
START_TEST(t_gpu_annotation_fallback) {
  fsdpa_ctx *c = NULL;
  ck_assert_int_eq(fsdpa_ctx_new(&c, NULL), FSDPA_OK);
  ev(c, "user_annotation", "FSDP::root_pre_forward", MAIN, 0, 10, FSDPA_ABSENT);
  /* inner first: the input order must not decide the nesting */
  ev(c, "gpu_user_annotation", "FSDP::all_gather (layers.0)", S_AG, 999, 1002, FSDPA_ABSENT);
  ev(c, "gpu_user_annotation", "FSDP::backward_prefetch for layers.0", S_AG, 999, 1002, FSDPA_ABSENT);
  ev(c, "gpu_user_annotation", "FSDP::pre_backward (layers.1)", S_AG, 999, 1002, FSDPA_ABSENT);
  ev(c, "kernel", AG_K, S_AG, 1000, 1000, FSDPA_ABSENT);
  ev(c, "gpu_user_annotation", "FSDP::all_gather (layers.1)", S_AG, 2999, 1002, FSDPA_ABSENT);
  ev(c, "gpu_user_annotation", "FSDP::pre_forward (layers.1)", S_AG, 2999, 1002, FSDPA_ABSENT);
  ev(c, "kernel", AG_K, S_AG, 3000, 700, FSDPA_ABSENT);
  ev(c, "kernel", AG_K, S_AG, 5000, 300, FSDPA_ABSENT);  /* under no annotation: no unit */
  fsdpa_list *ul = tu_unit_list(c, NULL);
  ck_assert_uint_eq(fsdpa_list_count(ul), 2);
  int seen = 0;
  for (size_t i = 0; i < 2; i++) {
    fsdpa_fsdp_unit fu;
    TU_ITEM(ul, i, fu);
    if (!strcmp(fu.name, "layers.0")) {
      ck_assert_int_eq(fu.phase, FSDPA_PHASE_BACKWARD);
      ck_assert_int_eq(fu.allgather_ns, 1000);
      seen |= 1;
    } else {
      ck_assert_str_eq(fu.name, "layers.1");
      ck_assert_int_eq(fu.phase, FSDPA_PHASE_FORWARD);
      ck_assert_int_eq(fu.comm_ns, 700);
      ck_assert_int_eq(fu.compute_ns, 0);
      seen |= 2;
    }
  }
  ck_assert_int_eq(seen, 3);
  fsdpa_list_free(ul);
  fsdpa_ctx_free(c);
}
END_TEST

/* ---- generator scenarios ---- */

static const char TRUTH_PY[] =
    "import json,sys\n"
    "t=json.load(open(sys.argv[1]))\n"
    "b=t['fsdp']['backward']\n"
    "print('pattern',b['pattern'])\n"
    "for k,v in b['prefetched'].items(): print('pref',k,int(v))\n"
    "for f in t['expected_findings']: print('expect',f)\n"
    "for f in t['absent_findings']: print('absent',f)\n";

static char *truth_lines(const char *trace) {
  char script[4096], truth[4096], cmd[9000];
  snprintf(script, sizeof script, "%s/tests/gen/bwd_truth.py", tu_build_root());
  FILE *f = fopen(script, "w");
  if (!f) return NULL;
  fputs(TRUTH_PY, f);
  fclose(f);
  snprintf(truth, sizeof truth, "%s", trace);
  char *dot = strstr(truth, ".json");
  if (!dot) return NULL;
  strcpy(dot, ".truth.json");
  const char *py = getenv("FSDPA_PYTHON");
  snprintf(cmd, sizeof cmd, "'%s' '%s' '%s'", py ? py : "python3", script, truth);
  int st = 0;
  char *out = tu_run(cmd, &st);
  if (st) {
    free(out);
    return NULL;
  }
  return out;
}

static int has_finding(const findings *f, const char *id) {
  for (size_t i = 0; i < f->n; i++)
    if (!strcmp(f->v[i].id, id)) return 1;
  return 0;
}

/* Pattern, every per-unit flag and the finding against the truth. */
static void check_backward(const char *scen, const char *extra, const char *file) {
  char *path = tu_tracegen(scen, extra, file);
  if (!path) {
    printf("# SKIP %s: tools/tracegen/tracegen.py not runnable\n", scen);
    return;
  }
  char *lines = truth_lines(path);
  ck_assert_msg(lines != NULL, "%s: no truth", scen);
  fsdpa_ctx *c = tu_new_ctx();
  ck_assert_msg(fsdpa_feed_file(c, path) == FSDPA_OK, "%s", fsdpa_errmsg(c));
  fsdpa_backward bw = {sizeof bw};
  ck_assert_int_eq(fsdpa_backward_get(c, &bw), FSDPA_OK);
  fsdpa_list *sl = bwd_steps(c);
  size_t nsteps = fsdpa_list_count(sl);
  ck_assert_uint_gt(nsteps, 0);
  /* one unit list per backward step, read once */
  fsdpa_list **bu = calloc(nsteps, sizeof *bu);
  ck_assert_ptr_nonnull(bu);
  for (size_t i = 0; i < nsteps; i++) {
    ck_assert_int_eq(fsdpa_backward_unit_list(c, i, &bu[i]), FSDPA_OK);
    ck_assert_int_eq(fsdpa_list_type(bu[i]), FSDPA_LIST_BACKWARD_UNITS);
  }
  /* the whole trace's FSDP units: a NULL query and a zeroed one agree, and
   * each ProfilerStep as a step and as T0|T1 bounds selects the same instances */
  fsdpa_list *ul = tu_unit_list(c, NULL);
  fsdpa_query qz = {sizeof qz};
  fsdpa_list *uz = tu_unit_list(c, &qz);
  tu_same_units(ul, uz);
  fsdpa_list_free(uz);
  fsdpa_list *steps = NULL;
  ck_assert_int_eq(fsdpa_step_list(c, &steps), FSDPA_OK);
  uint64_t inst_all = 0, inst_steps = 0;
  for (size_t i = 0; i < fsdpa_list_count(ul); i++) {
    fsdpa_fsdp_unit fu;
    TU_ITEM(ul, i, fu);
    inst_all += fu.instances;
  }
  for (size_t i = 0; i < fsdpa_list_count(steps); i++) {
    fsdpa_step st;
    TU_ITEM(steps, i, st);
    fsdpa_query qs = FSDPA_QUERY_INIT, qb = FSDPA_QUERY_INIT;
    qs.fields = FSDPA_QUERY_STEP;
    qs.step = (int64_t)i;
    qb.fields = FSDPA_QUERY_T0 | FSDPA_QUERY_T1;
    qb.t0_ns = st.start_ns;
    qb.t1_ns = st.start_ns + st.dur_ns;
    fsdpa_list *us = tu_unit_list(c, &qs), *ub = tu_unit_list(c, &qb);
    tu_same_units(us, ub);
    for (size_t k = 0; k < fsdpa_list_count(us); k++) {
      fsdpa_fsdp_unit fu;
      TU_ITEM(us, k, fu);
      inst_steps += fu.instances;
    }
    fsdpa_list_free(us);
    fsdpa_list_free(ub);
  }
  /* an instance starts inside at most one step (the generator's steps do not overlap) */
  ck_assert_uint_le(inst_steps, inst_all);
  ck_assert_uint_gt(inst_steps, 0);
  fsdpa_list_free(steps);
  fsdpa_list_free(ul);
  findings f;
  findings_init(&f, &c->alloc);
  ck_assert_int_eq(backward_findings(c, 0, &f), FSDPA_OK);
  size_t flags = 0;
  char *save = NULL;
  for (char *ln = strtok_r(lines, "\n", &save); ln; ln = strtok_r(NULL, "\n", &save)) {
    char a[256];
    int v;
    if (sscanf(ln, "pattern %255s", a) == 1) {
      ck_assert_msg(!strcmp(fsdpa_backward_pattern_name(bw.pattern), a), "%s: pattern %s, truth %s",
                    scen, fsdpa_backward_pattern_name(bw.pattern), a);
      /* every step shows it */
      for (size_t i = 0; i < nsteps; i++) {
        fsdpa_backward_step bs;
        TU_ITEM(sl, i, bs);
        ck_assert_str_eq(fsdpa_backward_pattern_name(bs.pattern), a);
      }
    } else if (sscanf(ln, "pref %255s %d", a, &v) == 2) {
      /* the unit's flag in every step's schedule */
      for (size_t i = 0; i < nsteps; i++) {
        size_t n = fsdpa_list_count(bu[i]);
        size_t j = 0;
        fsdpa_backward_unit u;
        for (; j < n; j++) {
          TU_ITEM(bu[i], j, u);
          if (!strcmp(u.name, a)) break;
        }
        ck_assert_msg(j < n, "%s: unit %s missing in step %zu", scen, a, i);
        ck_assert_msg(u.prefetched == v, "%s: %s prefetched=%d, truth %d", scen, a, u.prefetched, v);
        if (!v) ck_assert_int_ge(u.idle_ns, 0);
      }
      flags++;
    } else if (sscanf(ln, "expect %255s", a) == 1) {
      if (!strcmp(a, "backward-prefetch-missing")) ck_assert_msg(has_finding(&f, a), "%s: %s missing", scen, a);
    } else if (sscanf(ln, "absent %255s", a) == 1) {
      if (!strcmp(a, "backward-prefetch-missing")) ck_assert_msg(!has_finding(&f, a), "%s: %s present", scen, a);
    }
  }
  ck_assert_uint_eq(flags + 1, bw.units);  /* every unit but the first in backward has a flag */
  for (size_t i = 0; i < nsteps; i++) fsdpa_list_free(bu[i]);
  free(bu);
  fsdpa_list_free(sl);
  findings_free(&f);
  free(lines);
  fsdpa_ctx_free(c);
  free(path);
}

START_TEST(t_generator_backward) {
  check_backward("fsdp2_healthy", "--steps 3", "bw_fsdp2_healthy.json.gz");
  check_backward("fsdp2_no_prefetch", "--steps 3", "bw_fsdp2_no_prefetch.json.gz");
  check_backward("fsdp1_serialized", "--steps 3", "bw_fsdp1_serialized.json.gz");
  check_backward("network_bound", "--steps 2", "bw_network_bound.json.gz");
  check_backward("comm_on_compute_stream", "--steps 2", "bw_comm_on_compute.json.gz");
  check_backward("mixed", "--steps 3 --layers 10", "bw_mixed.json.gz");
  check_backward("fsdp2_no_prefetch", "--steps 2 --format legacy19 --nccl-names old",
                 "bw_nopf_legacy.json");
}
END_TEST

/* The same matcher checks forward prefetch on the model: forward unit i+1's
 * all-gather should start before unit i's compute ends, beside compute. */
static int forward_links(const char *scen, const char *file, int *held, int *links) {
  char *path = tu_tracegen(scen, "--steps 2", file);
  if (!path) return 0;
  fsdpa_ctx *c = tu_new_ctx();
  ck_assert_int_eq(fsdpa_feed_file(c, path), FSDPA_OK);
  fsdp_model m;
  ck_assert_int_eq(fm_build(c, &m), FSDPA_OK);
  static const char *const L[] = {"AG", "C", "P"};
  pattern p;
  char err[128];
  ck_assert_int_eq(pattern_parse("fwd: AG[i+1] starts_before_end C[i]\nbeside: AG[i] overlaps P[i]",
                                 L, 3, &p, err, sizeof err), 0);
  *held = *links = 0;
  for (int32_t step = 0; step < (int32_t)m.nsteps; step++) {
    /* forward instances of the step in unit order (= forward order here) */
    size_t n = 0;
    pat_set sets[3 * 64];
    iv buf[2 * 64 * 64];
    size_t used = 0;
    for (uint32_t u = 0; u < m.nunits; u++)
      for (size_t k = 0; k < m.ninst; k++) {
        const fm_inst *in = &m.insts[k];
        if (in->unit != u || in->phase != FM_FWD || in->step != step || n >= 64) continue;
        size_t a = fm_inst_set(&m, in, FM_AG, buf + used);
        sets[n * 3] = (pat_set){buf + used, a};
        used += a;
        size_t cn = fm_inst_set(&m, in, FM_COMPUTE, buf + used);
        sets[n * 3 + 1] = (pat_set){buf + used, cn};
        used += cn;
        sets[n * 3 + 2] = (pat_set){m.compute_all, m.ncompute_all};
        n++;
      }
    int8_t st[2 * 64];
    pattern_eval(&p, sets, n, 3, st, NULL);
    for (size_t i = 0; i + 1 < n; i++) {
      (*links)++;
      *held += st[i] == PAT_HOLDS && st[n + i + 1] == PAT_HOLDS;
    }
  }
  fm_free(&m);
  fsdpa_ctx_free(c);
  free(path);
  return 1;
}

START_TEST(t_forward_prefetch_pattern) {
  int held, links;
  if (!forward_links("fsdp2_healthy", "fw_healthy.json.gz", &held, &links)) {
    printf("# SKIP forward prefetch: generator not runnable\n");
    return;
  }
  ck_assert_int_eq(links, 2 * 7);
  ck_assert_int_eq(held, links);
  ck_assert(forward_links("fsdp1_serialized", "fw_serialized.json.gz", &held, &links));
  ck_assert_int_eq(links, 2 * 7);
  ck_assert_int_eq(held, 0);
}
END_TEST

/* ---- allocation failure at every allocation ---- */

static tu_fault fa;

START_TEST(t_alloc_failure_everywhere) {
  fsdpa_allocator al = tu_fault_allocator(&fa);
  sched g[3];
  for (int p = 0; p < 3; p++) {
    int64_t o = 100000 + p * 4000;
    g[p] = (sched){o - 1400, o - 500, o, o + 2000, o + 2000, o + 4500};
  }
  /* events are added with failures off; every query then fails in turn */
  int completed = 0;
  for (fa.fail_at = 0; fa.fail_at < 20000 && !completed; fa.fail_at++) {
    int arm = fa.fail_at;
    fa.fail_at = 0;
    fa.calls = 0;
    fa.outstanding = 0;
    fsdpa_options o;
    fsdpa_options_init(&o);
    o.allocator = &al;
    fsdpa_ctx *c = NULL;
    ck_assert_int_eq(fsdpa_ctx_new(&c, &o), FSDPA_OK);
    g_corr = 0;
    thread_names(c);
    ev(c, "user_annotation", "ProfilerStep#5", MAIN, 0, 1000000, FSDPA_ABSENT);
    fsdp2_backward(c, g, 1, 10000);
    fsdp2_backward(c, g, 0, 20000);
    fa.calls = 0;
    fa.fail_at = arm;
    fsdpa_status worst = FSDPA_OK, st;
    fsdpa_backward bw = {sizeof bw};
    if ((st = fsdpa_backward_get(c, &bw))) worst = st;
    fsdpa_list *l = NULL;
    fsdpa_fsdp_unit fu = {sizeof fu};
    if ((st = fsdpa_fsdp_unit_list(c, NULL, &l))) worst = st;
    else if ((st = fsdpa_list_get(l, 0, &fu)) && st != FSDPA_EINVAL) worst = st;
    fsdpa_list_free(l);
    l = NULL;
    fsdpa_backward_unit bu = {sizeof bu};
    if ((st = fsdpa_backward_unit_list(c, 0, &l)) && st != FSDPA_EINVAL) worst = st;
    else if (!st && (st = fsdpa_list_get(l, 1, &bu)) && st != FSDPA_EINVAL) worst = st;
    fsdpa_list_free(l);
    l = NULL;
    fsdpa_overlap ov = {sizeof ov};
    if ((st = fsdpa_overlap_query(c, NULL, &ov))) worst = st;
    if ((st = fsdpa_comm_split_list(c, NULL, FSDPA_SPLIT_COLLECTIVE, &l))) worst = st;
    fsdpa_list_free(l);
    char *rep = NULL;
    if ((st = fsdpa_report(&c, NULL, 1, NULL, &rep, NULL, NULL))) worst = st;
    fsdpa_free(rep);
    ck_assert_msg(worst == FSDPA_OK || worst == FSDPA_ENOMEM, "fail_at %d: status %d", arm, worst);
    if (fa.calls < arm || arm == 0) completed = arm != 0 || fa.calls == 0;
    if (arm && fa.calls < arm) ck_assert_int_eq(worst, FSDPA_OK);
    fsdpa_ctx_free(c);
    ck_assert_msg(fa.outstanding == 0, "fail_at %d: %lld bytes leaked", arm, (long long)fa.outstanding);
    if (completed) printf("# allocation failure injected at each of %d allocations\n", arm - 1);
  }
  ck_assert(completed);
}
END_TEST

int main(void) {
  Suite *s = suite_create("backward");
  TU_CASE(s, "backward", 900, NULL, t_pattern_parse, t_pattern_eval, t_pattern_ddp_buckets, t_fsdp2_zigzag,
          t_fsdp2_no_prefetch, t_fsdp2_serialized, t_fsdp1_units, t_no_fsdp, t_gpu_annotation_fallback,
          t_generator_backward, t_forward_prefetch_pattern, t_alloc_failure_everywhere);
  return tu_run_suite(s);
}
