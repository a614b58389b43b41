/* dataloader-stall and ranks[].dataloader on hand-built events with known
 * answers: GPU idle inside DataLoader __next__, the judged window (after the
 * first iteration, else the whole trace), severity by share, and the advice
 * chosen by the workload's mode. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "testutil.h"
#include "tjson.h"

/* The tj_ path of a field of findings.k, in a buffer of the caller's block
 * (a compound literal), so that two in one assertion do not clash. */
static const char *field_path(char *buf, size_t n, int k, const char *field) {
  snprintf(buf, n, "findings.%d.%s", k, field);
  return buf;
}
#define FIELD(k, field) field_path((char[128]){0}, 128, (k), (field))

static const char *DL = "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__";

/* Kernels [0,100) [300,400) [600,700); __next__ over [120,280) and [400,600):
 * the all-stream idle is [100,300) and [400,600), 400 ns; inside __next__
 * [120,280) + [400,600) = 360 ns. */
static fsdpa_ctx *build(void) {
  fsdpa_ctx *c = tu_new_ctx();
  tu_launch_kernel(c, 1, 0, 1, 7, 0, 100, "k0");
  tu_launch_kernel(c, 1, 290, 2, 7, 300, 400, "k1");
  tu_launch_kernel(c, 1, 590, 3, 7, 600, 700, "k2");
  tu_add_x(c, "user_annotation", DL, 10, 1, 120, 160, FSDPA_ABSENT);
  /* old traces record it as an operator; another iterator's name, so the
   * two calls do not make iterations of their own */
  tu_add_x(c, "cpu_op", "enumerate(DataLoader)#_MultiProcessingDataLoaderIter.__next__", 10, 1, 400, 200,
           FSDPA_ABSENT);
  return c;
}

START_TEST(t_idle_inside_next_whole_trace) {
  fsdpa_ctx *c = build();
  char *js = tu_report(c, FSDPA_FORMAT_JSON);
  ck_assert_ptr_nonnull(js);
  ck_assert_int_eq(tj_i64(js, "ranks.0.dataloader.calls"), 2);
  ck_assert_int_eq(tj_i64(js, "ranks.0.dataloader.total_ns"), 360);
  ck_assert(tj_str_is(js, "ranks.0.dataloader.window", "whole_trace"));
  ck_assert_int_eq(tj_i64(js, "ranks.0.dataloader.window_ns"), 700);
  ck_assert_int_eq(tj_i64(js, "ranks.0.dataloader.idle_ns"), 400);
  ck_assert_int_eq(tj_i64(js, "ranks.0.dataloader.idle_in_dataloader_ns"), 360);
  int k = tj_index(js, "findings", "id", "dataloader-stall");
  ck_assert_int_ge(k, 0);
  ck_assert(tj_str_is(js, FIELD(k, "severity"), "critical"));  /* 360 of 700 ns: 51 % */
  ck_assert_int_eq(tj_i64(js, FIELD(k, "cost_ns")), 360);
  /* the range holding most idle first: [400,600) has 200 ns */
  ck_assert_int_eq(tj_i64(js, FIELD(k, "evidence.ranges.0.start_ns")), 400);
  /* no backward, no optimizer: not a training input pipeline */
  char *adv = tj_str(js, FIELD(k, "advice"));
  ck_assert_ptr_nonnull(adv);
  ck_assert_ptr_nonnull(strstr(adv, "Prepare inputs off the thread"));
  free(adv);
  free(js);
  /* a training step gets the training advice */
  tu_add_x(c, "user_annotation", "Optimizer.step#SGD.step", 10, 1, 700, 5, FSDPA_ABSENT);
  js = tu_report(c, FSDPA_FORMAT_JSON);
  k = tj_index(js, "findings", "id", "dataloader-stall");
  ck_assert_int_ge(k, 0);
  adv = tj_str(js, FIELD(k, "advice"));
  ck_assert_ptr_nonnull(strstr(adv, "num_workers=N>0"));
  free(adv);
  free(js);
  fsdpa_ctx_free(c);
}
END_TEST

START_TEST(t_window_after_first_iteration_and_threshold) {
  fsdpa_ctx *c = build();
  /* two iterations: [0,300) and [300,700); only the second is judged:
   * idle [400,600) = 200 ns, all inside __next__; window [300,700) */
  tu_add_x(c, "user_annotation", "ProfilerStep#1", 10, 1, 0, 300, FSDPA_ABSENT);
  tu_add_x(c, "user_annotation", "ProfilerStep#2", 10, 1, 300, 400, FSDPA_ABSENT);
  char *js = tu_report(c, FSDPA_FORMAT_JSON);
  ck_assert(tj_str_is(js, "ranks.0.dataloader.window", "after_first_iteration"));
  ck_assert_int_eq(tj_i64(js, "ranks.0.dataloader.window_ns"), 400);
  ck_assert_int_eq(tj_i64(js, "ranks.0.dataloader.idle_ns"), 200);
  ck_assert_int_eq(tj_i64(js, "ranks.0.dataloader.idle_in_dataloader_ns"), 200);
  ck_assert_int_ge(tj_index(js, "findings", "id", "dataloader-stall"), 0);
  free(js);
  /* below the share of the window it needs, no finding */
  ck_assert_int_eq(fsdpa_param_set(c, "dataloader.min_share_ppm", "600000"), FSDPA_OK);
  js = tu_report(c, FSDPA_FORMAT_JSON);
  ck_assert_int_lt(tj_index(js, "findings", "id", "dataloader-stall"), 0);
  ck_assert_int_eq(tj_i64(js, "ranks.0.dataloader.idle_in_dataloader_ns"), 200);  /* the numbers stay */
  free(js);
  fsdpa_ctx_free(c);
}
END_TEST

START_TEST(t_no_dataloader) {
  fsdpa_ctx *c = tu_new_ctx();
  tu_launch_kernel(c, 1, 0, 1, 7, 0, 100, "k0");
  tu_launch_kernel(c, 1, 290, 2, 7, 300, 400, "k1");
  char *js = tu_report(c, FSDPA_FORMAT_JSON);
  ck_assert_int_eq(tj_i64(js, "ranks.0.dataloader.calls"), 0);
  ck_assert_int_eq(tj_i64(js, "ranks.0.dataloader.idle_in_dataloader_ns"), 0);
  ck_assert_int_lt(tj_index(js, "findings", "id", "dataloader-stall"), 0);
  free(js);
  fsdpa_ctx_free(c);
}
END_TEST

/* gpu-starvation explained by dataloader-stall, exact: kernels [0,100)
 * [1000,1100) [2000,2100), each launched by a 5 ns call 10 ns before it
 * starts, so both gaps are host-bound until the call returned and the
 * device's for the last 5 ns: 895 + 895 = 1790 ns.  __next__ over [150,950)
 * and [1200,1400) (two iterator names: no iterations) holds 800 + 200 =
 * 1000 ns of the host-wait gaps' 1800 (555555 ppm, most of it).
 * gpu-starvation costs 1790, more than dataloader-stall's 1000, yet is
 * listed right after it. */
static void add_linked(fsdpa_ctx *c, int reversed) {
  static const int64_t k[3][2] = {{0, 100}, {1000, 1100}, {2000, 2100}};
  for (int j = 0; j < 3; j++) {
    int i = reversed ? 2 - j : j;
    char name[8];
    snprintf(name, sizeof name, "k%d", i);
    tu_launch_kernel(c, 1, k[i][0] - 10, i + 1, 7, k[i][0], k[i][1], name);
  }
  tu_add_x(c, "user_annotation", DL, 10, 1, 150, 800, FSDPA_ABSENT);
  tu_add_x(c, "cpu_op", "enumerate(DataLoader)#_MultiProcessingDataLoaderIter.__next__", 10, 1, 1200, 200,
           FSDPA_ABSENT);
}

START_TEST(t_starvation_explained_by_dataloader) {
  fsdpa_ctx *c = tu_new_ctx();
  add_linked(c, 0);
  char *js = tu_report(c, FSDPA_FORMAT_JSON);
  ck_assert_ptr_nonnull(js);
  int d = tj_index(js, "findings", "id", "dataloader-stall"), g = tj_index(js, "findings", "id", "gpu-starvation");
  ck_assert_int_ge(d, 0);
  ck_assert_int_eq(g, d + 1);  /* the symptom right after its root cause */
  ck_assert_int_eq(tj_i64(js, FIELD(d, "cost_ns")), 1000);
  ck_assert_int_eq(tj_i64(js, FIELD(g, "cost_ns")), 1790);
  ck_assert(tj_str_is(js, FIELD(g, "evidence.explained_by"), "dataloader-stall"));
  ck_assert_int_eq(tj_i64(js, FIELD(g, "evidence.explained_ns")), 1000);
  ck_assert_int_eq(tj_i64(js, FIELD(g, "evidence.explained_ppm")), 555555);
  ck_assert_int_eq(tj_i64(js, FIELD(g, "evidence.host_wait_in_dataloader_ns")), 1000);
  char *t = tj_str(js, FIELD(g, "detail"));
  ck_assert_ptr_nonnull(strstr(t, "1.0 µs (55.6%) lies inside DataLoader __next__"));
  ck_assert_ptr_nonnull(strstr(t, "see dataloader-stall"));
  free(t);
  t = tj_str(js, FIELD(g, "advice"));
  ck_assert_ptr_nonnull(strstr(t, "The DataLoader is the cause (see dataloader-stall"));
  ck_assert_ptr_null(strstr(t, "Python overhead"));  /* not the generic list */
  free(t);
  /* the text report too: root cause first although the symptom costs more */
  char *tx = tu_report(c, FSDPA_FORMAT_TEXT);
  const char *a = strstr(tx, "[dataloader-stall]"), *b = strstr(tx, "[gpu-starvation]");
  ck_assert(a && b && a < b);
  free(tx);
  free(js);
  /* under the share it is not explained: its own place, the generic advice */
  ck_assert_int_eq(fsdpa_param_set(c, "starvation.explained_min_ppm", "600000"), FSDPA_OK);
  js = tu_report(c, FSDPA_FORMAT_JSON);
  d = tj_index(js, "findings", "id", "dataloader-stall");
  g = tj_index(js, "findings", "id", "gpu-starvation");
  ck_assert_int_lt(g, d);
  ck_assert(!tj_has(js, FIELD(g, "evidence.explained_by")));
  ck_assert_int_eq(tj_i64(js, FIELD(g, "evidence.host_wait_in_dataloader_ns")), 1000);
  free(js);
  fsdpa_ctx_free(c);
}
END_TEST

/* The gpu-starvation of an unexplained DataLoader share: the fact, the
 * DataLoader's own advice, no reference to a finding the report lacks. */
static void assert_dataloader_unnamed(const char *js) {
  ck_assert_int_lt(tj_index(js, "findings", "id", "dataloader-stall"), 0);
  int g = tj_index(js, "findings", "id", "gpu-starvation");
  ck_assert_int_ge(g, 0);
  char p[128];
  snprintf(p, sizeof p, "findings.%d.evidence.explained_by", g);
  ck_assert(!tj_has(js, p));
  snprintf(p, sizeof p, "findings.%d.evidence.host_wait_in_dataloader_ns", g);
  ck_assert_int_eq(tj_i64(js, p), 1000);
  static const char *const keys[] = {"title", "detail", "advice"};
  for (int k = 0; k < 3; k++) {
    snprintf(p, sizeof p, "findings.%d.%s", g, keys[k]);
    char *t = tj_str(js, p);
    ck_assert_ptr_nonnull(t);
    ck_assert_ptr_null(strstr(t, "dataloader-stall"));
    if (k == 0) ck_assert_ptr_nonnull(strstr(t, "56% of its host-bound idle inside DataLoader __next__"));
    if (k == 1) ck_assert_ptr_nonnull(strstr(t, "1.0 µs (55.6%) lies inside DataLoader __next__"));
    if (k == 2) {
      ck_assert_ptr_nonnull(strstr(t, "num_workers>0"));
      ck_assert_ptr_null(strstr(t, "Python overhead"));  /* not the generic list */
    }
    free(t);
  }
}

/* Most of gpu-starvation's host-bound idle lies inside __next__ (555555 ppm,
 * over starvation.explained_min_ppm), but dataloader-stall judges the GPU
 * idle of all devices and stays under its thresholds: device 1 runs one
 * kernel over [0,2100), so no device-wide idle is left for it.  Then the
 * same with one device and dataloader.min_idle_share_ppm above its 1000 of
 * 1800 ns. */
START_TEST(t_starvation_dataloader_share_without_stall) {
  fsdpa_ctx *c = tu_new_ctx();
  add_linked(c, 0);
  tu_add_x(c, "kernel", "busy", 1, 9, 0, 2100, FSDPA_ABSENT);
  char *js = tu_report(c, FSDPA_FORMAT_JSON);
  ck_assert_ptr_nonnull(js);
  ck_assert_int_eq(tj_i64(js, "ranks.0.dataloader.idle_in_dataloader_ns"), 0);
  assert_dataloader_unnamed(js);
  free(js);
  fsdpa_ctx_free(c);

  c = tu_new_ctx();
  add_linked(c, 0);
  ck_assert_int_eq(fsdpa_param_set(c, "dataloader.min_idle_share_ppm", "600000"), FSDPA_OK);
  js = tu_report(c, FSDPA_FORMAT_JSON);
  ck_assert_int_eq(tj_i64(js, "ranks.0.dataloader.idle_in_dataloader_ns"), 1000);
  assert_dataloader_unnamed(js);
  free(js);
  /* at the threshold it fires, and gpu-starvation names it again */
  ck_assert_int_eq(fsdpa_param_set(c, "dataloader.min_idle_share_ppm", "555555"), FSDPA_OK);
  js = tu_report(c, FSDPA_FORMAT_JSON);
  ck_assert_int_ge(tj_index(js, "findings", "id", "dataloader-stall"), 0);
  ck_assert(tj_str_is(js, "findings.[id=gpu-starvation].evidence.explained_by", "dataloader-stall"));
  free(js);
  fsdpa_ctx_free(c);
}
END_TEST

int main(void) {
  Suite *s = suite_create("dataloader");
  TU_CASE(s, "dataloader", 0, NULL, t_idle_inside_next_whole_trace,
          t_window_after_first_iteration_and_threshold, t_no_dataloader, t_starvation_explained_by_dataloader,
          t_starvation_dataloader_share_without_stall);
  return tu_run_suite(s);
}
