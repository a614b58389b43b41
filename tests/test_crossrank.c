/* Cross-rank collectives (matching, clock alignment, transfer/wait,
 * stragglers) and mergeable summaries (write, merge, report == analyze). */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "testutil.h"
#include "ctx.h"

#define US 1000LL
#define MS 1000000LL

/* ---- synthetic ranks through fsdpa_event_add ---- */

static fsdpa_ctx *new_rank(const fsdpa_allocator *al, int64_t rank, int64_t base) {
  fsdpa_options o;
  fsdpa_options_init(&o);
  o.allocator = al;
  fsdpa_ctx *c = NULL;
  ck_assert_int_eq(fsdpa_ctx_new(&c, &o), FSDPA_OK);
  fsdpa_trace_info ti;
  fsdpa_trace_info_init(&ti);
  ti.rank = rank;
  ti.world_size = 8;
  ti.base_time_ns = base;
  ck_assert_int_eq(fsdpa_trace_info_set(c, &ti), FSDPA_OK);
  return c;
}

static void add_x(fsdpa_ctx *c, const char *cat, const char *name, int64_t pid, int64_t tid,
                  int64_t ts, int64_t dur, int64_t corr) {
  fsdpa_event e;
  fsdpa_event_init(&e);
  e.ph = 'X';
  e.cat = cat;
  e.cat_len = strlen(cat);
  e.name = name;
  e.name_len = strlen(name);
  e.pid = pid;
  e.tid = tid;
  e.ts_ns = ts;
  e.dur_ns = dur;
  e.correlation = corr;
  ck_assert_int_eq(fsdpa_event_add(c, &e), FSDPA_OK);
}

static void add_step(fsdpa_ctx *c, int64_t num, int64_t ts, int64_t dur) {
  char name[48];
  snprintf(name, sizeof name, "ProfilerStep#%lld", (long long)num);
  add_x(c, "user_annotation", name, 100, 100, ts, dur, FSDPA_ABSENT);
}

/* A collective kernel (relative ts on the rank's own clock) launched 20 us
 * earlier from the main thread, optionally inside an nccl:<op> annotation. */
static void add_coll(fsdpa_ctx *c, int64_t corr, const char *kname, const char *coll, const char *pg,
                     int64_t seq, int64_t ts, int64_t dur, const char *annot) {
  int64_t launch = ts - 20 * US;
  if (annot) add_x(c, "user_annotation", annot, 100, 100, launch - 1 * US, 5 * US, FSDPA_ABSENT);
  add_x(c, "cuda_runtime", "cudaLaunchKernel", 100, 100, launch, 3 * US, corr);
  fsdpa_event e;
  fsdpa_event_init(&e);
  e.ph = 'X';
  e.cat = "kernel";
  e.cat_len = 6;
  e.name = kname;
  e.name_len = strlen(kname);
  e.pid = 0;
  e.tid = 20;
  e.ts_ns = ts;
  e.dur_ns = dur;
  e.correlation = corr;
  if (coll) {
    e.collective = coll;
    e.collective_len = strlen(coll);
    e.dtype = "Float";
    e.dtype_len = 5;
    e.in_msg_nelems = 1000;
    e.out_msg_nelems = 1000;
    e.group_size = 3;
  }
  if (pg) {
    e.pg_name = pg;
    e.pg_name_len = strlen(pg);
  }
  e.seq = seq;
  ck_assert_int_eq(fsdpa_event_add(c, &e), FSDPA_OK);
}

static const char *K_AR = "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)";
static const char *K_AG = "ncclDevKernel_AllGather_RING_LL(ncclDevKernelArgsStorage<4096ul>)";
static const char *K_RS = "ncclDevKernel_ReduceScatter_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)";
static const char *K_SR = "ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t(ncclDevComm*, unsigned long, ncclWork*)";

/* Scenario A: 3 ranks with their own clocks (relative shift S and base B),
 * 3 steps of two AllReduces identified by Seq.  In each step's first
 * collective rank 0 arrives at T, rank 2 at T+50us, rank 1 at T+50us+D and
 * all end at T+50us+D+200us; in the second ranks 1, 2 arrive at U, rank 0 at
 * U+10us (below the 100 us delay threshold) and all end at U+10us+300us. */
static const int64_t A_S[3] = {0, 3000000123LL, 777777};
static const int64_t A_B[3] = {1700000000000000000LL, 1700000000000000000LL, 1700000000000000042LL};
static const int64_t A_D = 400 * US;

static void build_a_ranked(fsdpa_ctx **c, const fsdpa_allocator *al, int with_rank) {
  for (int r = 0; r < 3; r++) {
    c[r] = new_rank(al, with_rank ? r : FSDPA_ABSENT, A_B[r]);
    int64_t S = A_S[r];
    for (int k = 0; k < 3; k++) {
      int64_t T = k * 10 * MS + 1 * MS, U = T + 5 * MS;
      add_step(c[r], k, k * 10 * MS + S, 10 * MS);
      int64_t a1 = r == 0 ? T : r == 2 ? T + 50 * US : T + 50 * US + A_D;
      int64_t e1 = T + 50 * US + A_D + 200 * US;
      add_coll(c[r], 10 * k + 1, K_AR, "allreduce", "0", 2 * k + 1, a1 + S, e1 - a1, NULL);
      int64_t a2 = r == 0 ? U + 10 * US : U;
      int64_t e2 = U + 10 * US + 300 * US;
      add_coll(c[r], 10 * k + 2, K_AR, "allreduce", "0", 2 * k + 2, a2 + S, e2 - a2, NULL);
    }
  }
}

static void build_a(fsdpa_ctx **c, const fsdpa_allocator *al) { build_a_ranked(c, al, 1); }

static void free_all(fsdpa_ctx **c, size_t n) {
  for (size_t i = 0; i < n; i++) fsdpa_ctx_free(c[i]);
}

static char *report_json(fsdpa_ctx **c, size_t n, const char *const *paths, size_t *len) {
  char *out = tu_report_json(c, n, paths, len);
  ck_assert_ptr_nonnull(out);
  return out;
}

/* the text of the top-level cross_rank value (NUL-terminated copy) */
static char *cross_rank_of(const char *rep) {
  const char *p = strstr(rep, "\n  \"cross_rank\": ");
  ck_assert_ptr_nonnull(p);
  p += strlen("\n  \"cross_rank\": ");
  const char *e = strstr(p, ",\n  \"findings\": ");
  ck_assert_ptr_nonnull(e);
  char *s = malloc((size_t)(e - p) + 1);
  memcpy(s, p, (size_t)(e - p));
  s[e - p] = 0;
  return s;
}

static double num_after(const char *json, const char *anchor, const char *key) {
  const char *from = anchor ? strstr(json, anchor) : json;
  ck_assert_msg(from != NULL, "anchor %s", anchor);
  double v = -1;
  ck_assert_msg(tu_json_num(json, key, from, &v), "key %s after %s", key, anchor ? anchor : "");
  return v;
}

START_TEST(t_seq_match_offsets_transfer_wait_straggler) {
  fsdpa_ctx *c[3];
  build_a(c, NULL);
  fsdpa_crossrank x = {sizeof x};
  ck_assert_int_eq(fsdpa_query_crossrank(c, 3, &x), FSDPA_OK);
  ck_assert_uint_eq(x.ranks, 3);
  ck_assert_uint_eq(x.collectives, 6);
  ck_assert_uint_eq(x.unmatched, 0);
  ck_assert_uint_eq(x.unsynchronized, 0);
  ck_assert_int_eq(x.reference_rank, 0);
  ck_assert_int_eq(x.transfer_ns, 3 * 200 * US + 3 * 300 * US);
  /* waits: r0 3*(50us+D), r1 3*10us, r2 3*D + 3*10us */
  ck_assert_int_eq(x.wait_ns, 3 * (50 * US + A_D) + 3 * 10 * US + 3 * A_D + 3 * 10 * US);
  ck_assert_int_eq(x.end_spread_max_ns, 0);
  ck_assert_uint_eq(x.steps, 3);
  ck_assert_int_eq(x.straggler_rank, 1);
  ck_assert_uint_eq(x.straggler_late_steps, 3);
  ck_assert_int_eq(x.straggler_mean_delay_ns, A_D);
  ck_assert_int_eq(x.straggler_max_delay_ns, A_D);
  ck_assert_int_eq(x.straggler_lost_ns, 3 * ((50 * US + A_D) + A_D));
  int64_t want_wait[3] = {3 * (50 * US + A_D), 3 * 10 * US, 3 * A_D + 3 * 10 * US};
  for (size_t i = 0; i < 3; i++) {
    fsdpa_crossrank_rank rr = {sizeof rr};
    ck_assert_int_eq(fsdpa_query_crossrank_rank(c, 3, i, &rr), FSDPA_OK);
    ck_assert_int_eq(rr.rank, (int64_t)i);
    ck_assert_int_eq(rr.clock_offset_ns, (A_S[i] + A_B[i]) - (A_S[0] + A_B[0]));
    ck_assert_uint_eq(rr.collectives, 6);
    ck_assert_int_eq(rr.transfer_ns, x.transfer_ns);
    ck_assert_int_eq(rr.wait_ns, want_wait[i]);
    ck_assert_uint_eq(rr.last_count, i == 2 ? 0 : 3);  /* rank 0 is last by 10 us */
    ck_assert_uint_eq(rr.late_steps, i == 1 ? 3 : 0);
  }
  fsdpa_crossrank_rank bad = {sizeof bad};
  ck_assert_int_eq(fsdpa_query_crossrank_rank(c, 3, 3, &bad), FSDPA_EINVAL);

  size_t len;
  char *rep = report_json(c, 3, NULL, &len);
  char *xr = cross_rank_of(rep);
  ck_assert_ptr_nonnull(strstr(xr, "\"matched_by\": \"seq\""));
  ck_assert_int_eq((int64_t)num_after(xr, "\"steps\": [", "max_skew_ns"), 50 * US + A_D);
  ck_assert_int_eq((int64_t)num_after(xr, "\"steps\": [", "wait_ns"), 50 * US + A_D + A_D + 20 * US);
  ck_assert_int_eq((int64_t)num_after(xr, "\"steps\": [", "last_rank"), 1);
  ck_assert_int_eq((int64_t)num_after(xr, "\"collective\": \"AllReduce\"", "count"), 6);
  ck_assert_int_eq((int64_t)num_after(xr, "\"collective\": \"AllReduce\"", "bytes"), 6 * 4000);
  ck_assert_int_eq((int64_t)num_after(xr, "\"straggler\": {", "rank"), 1);
  /* the finding: rank, evidence and the first waiting window on rank 1's clock */
  const char *f = strstr(rep, "\"id\": \"straggler-rank\"");
  ck_assert_ptr_nonnull(f);
  ck_assert_int_eq((int64_t)num_after(f, NULL, "rank"), 1);
  ck_assert_int_eq((int64_t)num_after(f, NULL, "cost_ns"), 3 * (50 * US + 2 * A_D) / 2);
  ck_assert_int_eq((int64_t)num_after(f, NULL, "mean_delay_ns"), A_D);
  int64_t t0 = 1 * MS + A_S[1] + A_B[1];
  char want[96];
  snprintf(want, sizeof want, "\"ranges\":[{\"start_ns\":%lld,\"end_ns\":%lld}", (long long)t0,
           (long long)(t0 + 50 * US + A_D));
  ck_assert_msg(strstr(f, want) != NULL, "want %s", want);
  free(xr);
  fsdpa_free(rep);

  /* the threshold is a parameter: above the delay, nobody is late */
  ck_assert_int_eq(fsdpa_param_set(c[0], "crossrank.min_delay_ns", "500000"), FSDPA_OK);
  ck_assert_int_eq(fsdpa_query_crossrank(c, 3, &x), FSDPA_OK);
  ck_assert_int_eq(x.straggler_rank, FSDPA_ABSENT);
  ck_assert_int_eq(x.straggler_mean_delay_ns, FSDPA_ABSENT);
  rep = report_json(c, 3, NULL, &len);
  ck_assert_ptr_null(strstr(rep, "straggler-rank"));
  fsdpa_free(rep);
  free_all(c, 3);
}
END_TEST

/* Queries work between feeds: the analysis sees the events so far. */
START_TEST(t_between_feeds_and_single_rank) {
  fsdpa_ctx *c[2];
  c[0] = new_rank(NULL, 0, 0);
  c[1] = new_rank(NULL, 1, 0);
  fsdpa_crossrank x = {sizeof x};
  ck_assert_int_eq(fsdpa_query_crossrank(c, 2, &x), FSDPA_OK);
  ck_assert_uint_eq(x.collectives, 0);
  ck_assert_int_eq(x.transfer_ns, FSDPA_ABSENT);
  ck_assert_int_eq(x.reference_rank, FSDPA_ABSENT);
  add_coll(c[0], 1, K_AG, "_allgather_base", "0", 1, 1 * MS, 300 * US, NULL);
  add_coll(c[1], 1, K_AG, "_allgather_base", "0", 1, 1 * MS + 100 * US, 200 * US, NULL);
  ck_assert_int_eq(fsdpa_query_crossrank(c, 2, &x), FSDPA_OK);
  ck_assert_uint_eq(x.collectives, 1);
  ck_assert_int_eq(x.transfer_ns, 200 * US);
  ck_assert_int_eq(x.wait_ns, 100 * US);
  add_coll(c[0], 2, K_AG, "_allgather_base", "0", 2, 3 * MS, 200 * US, NULL);
  ck_assert_int_eq(fsdpa_query_crossrank(c, 2, &x), FSDPA_OK);
  ck_assert_uint_eq(x.collectives, 1);
  ck_assert_uint_eq(x.unmatched, 1);
  add_coll(c[1], 2, K_AG, "_allgather_base", "0", 2, 3 * MS, 200 * US, NULL);
  ck_assert_int_eq(fsdpa_query_crossrank(c, 2, &x), FSDPA_OK);
  ck_assert_uint_eq(x.collectives, 2);
  ck_assert_uint_eq(x.unmatched, 0);
  /* one rank: nothing to match, cross_rank is null */
  ck_assert_int_eq(fsdpa_query_crossrank(c, 1, &x), FSDPA_OK);
  ck_assert_uint_eq(x.collectives, 0);
  char *rep = tu_report(c[0], FSDPA_FORMAT_JSON);
  ck_assert_ptr_nonnull(strstr(rep, "\"cross_rank\": null"));
  free(rep);
  ck_assert_int_eq(fsdpa_query_crossrank(NULL, 2, &x), FSDPA_EINVAL);
  x.size = 8;
  ck_assert_int_eq(fsdpa_query_crossrank(c, 2, &x), FSDPA_EINVAL);
  free_all(c, 2);
}
END_TEST

/* Without Seq: ordinals per (process group, type, step).  The ranks issue
 * AllGather and ReduceScatter in different orders; an extra AllGather on
 * rank 0 in step 1 matches nothing. */
START_TEST(t_ordinal_match_per_type_and_step) {
  fsdpa_ctx *c[2];
  for (int r = 0; r < 2; r++) {
    int64_t S = r ? 123456789 : 0;
    c[r] = new_rank(NULL, r, 0);
    add_step(c[r], 5, S, 10 * MS);
    add_step(c[r], 6, 10 * MS + S, 10 * MS);
    /* identities by true end time: ag0 ends 2ms, rs0 4ms, ag1 6ms */
    if (r == 0) {
      add_coll(c[r], 1, K_AG, "_allgather_base", NULL, FSDPA_ABSENT, 1 * MS + S, 1 * MS, NULL);
      add_coll(c[r], 2, K_RS, "_reduce_scatter_base", NULL, FSDPA_ABSENT, 3 * MS + S, 1 * MS, NULL);
      add_coll(c[r], 3, K_AG, "_allgather_base", NULL, FSDPA_ABSENT, 5 * MS + S, 1 * MS, NULL);
      add_coll(c[r], 4, K_AG, "_allgather_base", NULL, FSDPA_ABSENT, 12 * MS + S, 1 * MS, NULL);
    } else {
      add_coll(c[r], 1, K_AG, "_allgather_base", NULL, FSDPA_ABSENT, 1500 * US + S, 500 * US, NULL);
      add_coll(c[r], 3, K_AG, "_allgather_base", NULL, FSDPA_ABSENT, 2500 * US + S, 3500 * US, NULL);
      add_coll(c[r], 2, K_RS, "_reduce_scatter_base", NULL, FSDPA_ABSENT, 3200 * US + S, 800 * US, NULL);
    }
  }
  fsdpa_crossrank x = {sizeof x};
  ck_assert_int_eq(fsdpa_query_crossrank(c, 2, &x), FSDPA_OK);
  ck_assert_uint_eq(x.collectives, 3);
  ck_assert_uint_eq(x.unmatched, 1);
  ck_assert_uint_eq(x.unsynchronized, 0);
  ck_assert_int_eq(x.transfer_ns, 500 * US + 800 * US + 1 * MS);
  ck_assert_int_eq(x.wait_ns, 500 * US + 200 * US + 2500 * US);
  fsdpa_crossrank_rank rr = {sizeof rr};
  ck_assert_int_eq(fsdpa_query_crossrank_rank(c, 2, 1, &rr), FSDPA_OK);
  ck_assert_int_eq(rr.clock_offset_ns, 123456789);
  char *rep = report_json(c, 2, NULL, NULL);
  ck_assert_ptr_nonnull(strstr(rep, "\"matched_by\": \"ordinal\""));
  fsdpa_free(rep);
  free_all(c, 2);
}
END_TEST

/* Kernels that carry no args (older traces): the nccl:<op> annotation
 * around the launch names the collective.  With the annotations the two
 * orders match; without them every kernel is SendRecv and the ordinals pair
 * different collectives, which the end-spread check exposes. */
static void build_c(fsdpa_ctx **c, int annotated) {
  /* identities (true end): X all_to_all ends 3 ms, Y all_reduce 8 ms, Z all_to_all 12 ms;
   * rank 0 starts them X, Y, Z; rank 1 starts Y first */
  for (int r = 0; r < 2; r++) {
    c[r] = new_rank(NULL, r, 0);
    add_step(c[r], 1, 0, 20 * MS);
    const char *a2a = annotated ? "nccl:all_to_all" : NULL, *ar = annotated ? "nccl:all_reduce" : NULL;
    if (r == 0) {
      add_coll(c[r], 1, K_SR, NULL, NULL, FSDPA_ABSENT, 1 * MS, 2 * MS, a2a);
      add_coll(c[r], 2, K_SR, NULL, NULL, FSDPA_ABSENT, 6 * MS, 2 * MS, ar);
      add_coll(c[r], 3, K_SR, NULL, NULL, FSDPA_ABSENT, 10 * MS, 2 * MS, a2a);
    } else {
      add_coll(c[r], 1, K_SR, NULL, NULL, FSDPA_ABSENT, 500 * US, 7500 * US, ar);
      add_coll(c[r], 2, K_SR, NULL, NULL, FSDPA_ABSENT, 2 * MS, 1 * MS, a2a);
      add_coll(c[r], 3, K_SR, NULL, NULL, FSDPA_ABSENT, 11 * MS, 1 * MS, a2a);
    }
  }
}

START_TEST(t_annotation_types_and_unsynchronized) {
  fsdpa_ctx *c[2];
  build_c(c, 0);
  fsdpa_crossrank x = {sizeof x};
  ck_assert_int_eq(fsdpa_query_crossrank(c, 2, &x), FSDPA_OK);
  /* ordinals of "SendRecv" pair X with Y and Y with X: their ends differ by
   * 5 ms, more than either's transfer; only Z is one collective */
  ck_assert_uint_eq(x.collectives, 1);
  ck_assert_uint_eq(x.unsynchronized, 2);
  ck_assert_int_eq(x.end_spread_max_ns, 5 * MS);
  ck_assert_int_eq(x.transfer_ns, 1 * MS);
  char *rep = report_json(c, 2, NULL, NULL);
  char *xr = cross_rank_of(rep);
  ck_assert_ptr_nonnull(strstr(xr, "\"unsynchronized\": 2"));
  free(xr);
  fsdpa_free(rep);
  /* a tolerance above the 5 ms spread takes the wrong pairs at face value */
  ck_assert_int_eq(fsdpa_param_set(c[0], "crossrank.end_tolerance_ns", "5000000"), FSDPA_OK);
  ck_assert_int_eq(fsdpa_query_crossrank(c, 2, &x), FSDPA_OK);
  ck_assert_uint_eq(x.collectives, 3);
  ck_assert_uint_eq(x.unsynchronized, 0);
  free_all(c, 2);

  build_c(c, 1);
  ck_assert_int_eq(fsdpa_query_crossrank(c, 2, &x), FSDPA_OK);
  ck_assert_uint_eq(x.collectives, 3);
  ck_assert_uint_eq(x.unsynchronized, 0);
  ck_assert_int_eq(x.end_spread_max_ns, 0);
  rep = report_json(c, 2, NULL, NULL);
  ck_assert_int_eq((int64_t)num_after(rep, "\"collective\": \"AllToAll\"", "count"), 2);
  ck_assert_int_eq((int64_t)num_after(rep, "\"collective\": \"AllReduce\"", "count"), 1);
  fsdpa_free(rep);
  free_all(c, 2);
}
END_TEST

/* Two ranks taking turns are not a straggler; one late in 3 of 4 steps is. */
static void build_turns(fsdpa_ctx **c, const int *late) {
  for (int r = 0; r < 2; r++) {
    c[r] = new_rank(NULL, r, 0);
    for (int k = 0; k < 4; k++) {
      int64_t T = k * 10 * MS + 1 * MS;
      add_step(c[r], k, k * 10 * MS, 10 * MS);
      int64_t a = late[k] == r ? T + 300 * US : T;
      add_coll(c[r], k + 1, K_AR, "allreduce", "0", k + 1, a, T + 500 * US - a, NULL);
    }
  }
}

START_TEST(t_straggler_rule) {
  fsdpa_ctx *c[2];
  const int turns[4] = {0, 1, 0, 1}, mostly1[4] = {0, 1, 1, 1};
  build_turns(c, turns);
  fsdpa_crossrank x = {sizeof x};
  ck_assert_int_eq(fsdpa_query_crossrank(c, 2, &x), FSDPA_OK);
  ck_assert_uint_eq(x.collectives, 4);
  ck_assert_int_eq(x.straggler_rank, FSDPA_ABSENT);
  free_all(c, 2);
  build_turns(c, mostly1);
  ck_assert_int_eq(fsdpa_query_crossrank(c, 2, &x), FSDPA_OK);
  ck_assert_int_eq(x.straggler_rank, 1);
  ck_assert_uint_eq(x.straggler_late_steps, 3);
  ck_assert_int_eq(x.straggler_mean_delay_ns, 300 * US);
  ck_assert_int_eq(fsdpa_param_set(c[0], "crossrank.straggler_min_steps", "4"), FSDPA_OK);
  ck_assert_int_eq(fsdpa_query_crossrank(c, 2, &x), FSDPA_OK);
  ck_assert_int_eq(x.straggler_rank, FSDPA_ABSENT);
  free_all(c, 2);
}
END_TEST

/* ---- summaries ---- */

static char *summary_of(fsdpa_ctx *c, const char *path, size_t *len) {
  char *s = NULL;
  ck_assert_int_eq(fsdpa_summary_write(c, path, &s, len), FSDPA_OK);
  return s;
}

static char *merge2(const char *a, size_t al, const char *b, size_t bl, size_t *len) {
  const char *s[2] = {a, b};
  size_t l[2] = {al, bl};
  char *out = NULL;
  ck_assert_int_eq(fsdpa_summary_merge(s, l, 2, NULL, &out, len), FSDPA_OK);
  return out;
}

static char *report_of(const char *sum, size_t len, size_t *out_len) {
  char *out = NULL;
  char err[200] = "";
  fsdpa_summary_options so;
  fsdpa_summary_options_init(&so);
  so.errbuf = err;
  so.errbuf_len = sizeof err;
  fsdpa_status st = fsdpa_summary_report(sum, len, &so, NULL, &out, out_len);
  ck_assert_msg(st == FSDPA_OK, "summary report: %s", err);
  return out;
}

static void assert_same(const char *a, const char *b, const char *what) {
  if (strcmp(a, b)) {
    size_t i = 0;
    while (a[i] && a[i] == b[i]) i++;
    size_t from = i > 80 ? i - 80 : 0;
    ck_abort_msg("%s differ at byte %zu:\n--- analyze ...%.160s\n--- summary ...%.160s", what, i,
                 a + from, b + from);
  }
}

/* analyze in one process == summarize each rank + merge, in every grouping */
static void check_groupings(fsdpa_ctx **c, size_t n, const char *const *paths) {
  char *direct = report_json(c, n, paths, NULL);
  char *s[8];
  size_t l[8];
  ck_assert_uint_le(n, 8);
  for (size_t i = 0; i < n; i++) s[i] = summary_of(c[i], paths ? paths[i] : NULL, &l[i]);
  /* one merge of all */
  char *all = NULL;
  size_t alll;
  ck_assert_int_eq(fsdpa_summary_merge((const char *const *)s, l, n, NULL, &all, &alll), FSDPA_OK);
  char *r1 = report_of(all, alll, NULL);
  assert_same(direct, r1, "merge(all)");
  /* left fold ((s0 s1) s2) ... and right fold (s0 (s1 (s2 ...))) */
  size_t ll = 0, rl = 0;
  char *left = NULL;
  {
    const char *one[1] = {s[0]};
    ck_assert_int_eq(fsdpa_summary_merge(one, &l[0], 1, NULL, &left, &ll), FSDPA_OK);
    ck_assert_str_eq(left, s[0]);  /* merging one summary gives it back */
  }
  for (size_t i = 1; i < n; i++) {
    char *nx = merge2(left, ll, s[i], l[i], &ll);
    fsdpa_free(left);
    left = nx;
  }
  char *right = NULL;
  {
    const char *one[1] = {s[n - 1]};
    ck_assert_int_eq(fsdpa_summary_merge(one, &l[n - 1], 1, NULL, &right, &rl), FSDPA_OK);
  }
  for (size_t i = n - 1; i-- > 0;) {
    char *nx = merge2(s[i], l[i], right, rl, &rl);
    fsdpa_free(right);
    right = nx;
  }
  ck_assert_str_eq(left, all);
  ck_assert_str_eq(right, all);
  char *r2 = report_of(left, ll, NULL);
  assert_same(direct, r2, "left fold");
  fsdpa_free(r1);
  fsdpa_free(r2);
  fsdpa_free(left);
  fsdpa_free(right);
  fsdpa_free(all);
  for (size_t i = 0; i < n; i++) fsdpa_free(s[i]);
  fsdpa_free(direct);
}

START_TEST(t_summary_merge_equals_analyze_synthetic) {
  fsdpa_ctx *c[3];
  build_a(c, NULL);
  const char *paths[3] = {"rank0.json", "ränk1 \"quoted\".json", NULL};
  check_groupings(c, 3, paths);
  /* one rank alone: the cross_rank section is null in both */
  check_groupings(c, 1, paths);
  /* the straggler finding is computed at report time from the tables */
  size_t l0, l1, l2;
  char *s0 = summary_of(c[0], "a", &l0), *s1 = summary_of(c[1], "b", &l1), *s2 = summary_of(c[2], "c", &l2);
  ck_assert_ptr_null(strstr(s1, "straggler-rank"));
  const char *s[3] = {s0, s1, s2};
  size_t l[3] = {l0, l1, l2};
  char *m = NULL, *rep = NULL;
  size_t ml;
  ck_assert_int_eq(fsdpa_summary_merge(s, l, 3, NULL, &m, &ml), FSDPA_OK);
  rep = report_of(m, ml, NULL);
  ck_assert_ptr_nonnull(strstr(rep, "\"id\": \"straggler-rank\""));
  /* text and html need the events */
  fsdpa_report_options ro;
  fsdpa_report_options_init(&ro);
  ro.format = FSDPA_FORMAT_TEXT;
  char *bad = NULL;
  ck_assert_int_eq(fsdpa_summary_report(m, ml, NULL, &ro, &bad, NULL), FSDPA_EINVAL);
  ck_assert_ptr_null(bad);
  fsdpa_free(rep);
  fsdpa_free(m);
  fsdpa_free(s0);
  fsdpa_free(s1);
  fsdpa_free(s2);
  free_all(c, 3);
}
END_TEST

/* Every prefix of a valid summary, and assorted garbage, is refused cleanly. */
START_TEST(t_summary_parse_errors) {
  fsdpa_ctx *c[3];
  build_a(c, NULL);
  size_t len;
  char *s = summary_of(c[0], "r0", &len);
  char err[200];
  fsdpa_summary_options so;
  fsdpa_summary_options_init(&so);
  so.errbuf = err;
  so.errbuf_len = sizeof err;
  char *out = NULL;
  for (size_t n = 0; n + 1 < len; n += (n < 2000 ? 1 : 97)) {
    err[0] = 0;
    fsdpa_status st = fsdpa_summary_report(s, n, &so, NULL, &out, NULL);
    ck_assert_msg(st == FSDPA_EPARSE, "prefix %zu: status %d", n, (int)st);
    ck_assert_ptr_null(out);
    ck_assert(err[0]);
  }
  static const char *const BAD[] = {
      "", "[]", "{}", "{\"schema\":\"fsdpa.report/1\",\"ranks\":[]}",
      "{\"schema\":\"fsdpa.summary/1\",\"ranks\":[]}",
      "{\"schema\":\"fsdpa.summary/1\",\"ranks\":[{}]}",
      "{\"schema\":\"fsdpa.summary/1\",\"ranks\":[{\"input\":{\"path\":\"x\",\"rank\":0}}]}",
      "{\"schema\":\"fsdpa.summary/1\",\"ranks\":[1]}",
      "{\"schema\":\"fsdpa.summary/1\",\"ranks\":[]} x",
      "{\"schema\":\"fsdpa.summary/1\" \"ranks\":[]}",
      "{\"schema\":\"fsdpa.summary/1\",\"ranks\":[{\"input\":{\"path\":\"x\",\"rank\":99999999999999999999}}]}",
  };
  for (size_t i = 0; i < sizeof BAD / sizeof BAD[0]; i++) {
    err[0] = 0;
    ck_assert_int_eq(fsdpa_summary_report(BAD[i], strlen(BAD[i]), &so, NULL, &out, NULL), FSDPA_EPARSE);
    const char *one[1] = {BAD[i]};
    size_t ln = strlen(BAD[i]);
    ck_assert_int_eq(fsdpa_summary_merge(one, &ln, 1, &so, &out, NULL), FSDPA_EPARSE);
    ck_assert_ptr_nonnull(strstr(err, "input 0"));
  }
  /* a damaged row */
  char *dam = malloc(len + 1);
  memcpy(dam, s, len + 1);
  char *row = strstr(dam, "\"rows\":[[");
  ck_assert_ptr_nonnull(row);
  char *q = row + strlen("\"rows\":[[");  /* the first row's process group index: "0" */
  ck_assert_int_eq(*q, '0');
  *q = '5';
  ck_assert_int_eq(fsdpa_summary_report(dam, len, &so, NULL, &out, NULL), FSDPA_EPARSE);
  ck_assert_ptr_nonnull(strstr(err, "process group"));
  free(dam);
  ck_assert_int_eq(fsdpa_summary_merge(NULL, NULL, 0, NULL, &out, NULL), FSDPA_EINVAL);
  ck_assert_int_eq(fsdpa_summary_write(NULL, NULL, &out, NULL), FSDPA_EINVAL);
  fsdpa_free(s);
  free_all(c, 3);
}
END_TEST

/* ---- allocation failures ---- */

static int nallocs, fail_at;
static long long live;
static void *t_malloc(void *ud, size_t n) {
  (void)ud;
  if (++nallocs == fail_at) return NULL;
  live += (long long)n;
  return malloc(n);
}
static void *t_realloc(void *ud, void *p, size_t o, size_t n) {
  (void)ud;
  if (++nallocs == fail_at) return NULL;
  void *q = realloc(p, n);
  if (q) live += (long long)n - (long long)o;
  return q;
}
static void t_free(void *ud, void *p, size_t n) {
  (void)ud;
  live -= (long long)n;
  free(p);
}

START_TEST(t_allocation_failures) {
  fsdpa_allocator al = {sizeof al, t_malloc, t_realloc, t_free, NULL};
  live = 0;
  fail_at = 0;
  fsdpa_ctx *c[3];
  build_a(c, &al);
  int done[4] = {0, 0, 0, 0}, failed[4] = {0, 0, 0, 0};
  char *sums[3] = {NULL, NULL, NULL};
  size_t lens[3];
  for (int i = 0; i < 3; i++) {
    ck_assert_int_eq(fsdpa_summary_write(c[i], NULL, &sums[i], &lens[i]), FSDPA_OK);
  }
  char *merged = NULL;
  size_t ml;
  ck_assert_int_eq(fsdpa_summary_merge((const char *const *)sums, lens, 3, NULL, &merged, &ml), FSDPA_OK);
  fsdpa_summary_options so;
  fsdpa_summary_options_init(&so);
  so.allocator = &al;
  for (fail_at = 1; fail_at < 20000 && !(done[0] && done[1] && done[2] && done[3]); fail_at++) {
    for (int k = 0; k < 4; k++) {
      if (done[k]) continue;
      nallocs = 0;
      char *out = NULL;
      fsdpa_status st;
      long long before = live;
      if (k == 0) {
        st = fsdpa_report(c, NULL, 3, NULL, &out, NULL);
      } else if (k == 1) {
        st = fsdpa_summary_write(c[1], "x", &out, NULL);
      } else if (k == 2) {
        st = fsdpa_summary_merge((const char *const *)sums, lens, 3, &so, &out, NULL);
      } else {
        st = fsdpa_summary_report(merged, ml, &so, NULL, &out, NULL);
      }
      if (st) {
        ck_assert_msg(st == FSDPA_ENOMEM, "call %d fail_at %d: status %d", k, fail_at, (int)st);
        ck_assert_ptr_null(out);
        failed[k] = 1;
        if (k >= 2) ck_assert_int_eq(live, before);  /* no leak on the failure path */
      } else {
        fsdpa_free(out);
        if (nallocs < fail_at) done[k] = 1;
      }
    }
  }
  fail_at = 0;
  for (int k = 0; k < 4; k++) {
    ck_assert_msg(done[k], "call %d never completed", k);
    ck_assert_msg(failed[k], "call %d never failed", k);
  }
  /* the contexts still work after all those failures */
  fsdpa_crossrank x = {sizeof x};
  ck_assert_int_eq(fsdpa_query_crossrank(c, 3, &x), FSDPA_OK);
  ck_assert_int_eq(x.straggler_rank, 1);
  fsdpa_free(merged);
  for (int i = 0; i < 3; i++) fsdpa_free(sums[i]);
  free_all(c, 3);
  ck_assert_int_eq(live, 0);
}
END_TEST

/* ---- real and generated traces ---- */

static fsdpa_ctx *feed(const char *path) {
  fsdpa_ctx *c = NULL;
  fsdpa_options o;
  fsdpa_options_init(&o);
  o.name = path;
  ck_assert_int_eq(fsdpa_ctx_new(&c, &o), FSDPA_OK);
  fsdpa_status st = fsdpa_feed_file(c, path);
  ck_assert_msg(st == FSDPA_OK, "%s: %s", path, fsdpa_errmsg(c));
  return c;
}

/* HTA's trace_filter sample: 2 of 128 ranks of a recommender (2023 trace:
 * no Seq, no process-group names, every NCCL kernel named SendRecv; the
 * nccl:<op> annotations name all_to_all, all_reduce, _all_gather_base).
 * Ordinal matching pairs 10 collectives; only 4 of them end together on
 * both ranks (the 2 AllGathers and one AllReduce per step): the all_to_alls
 * and the other AllReduces are not the same collective on both ranks (other
 * process groups, which the trace does not name), and are left out.  In the
 * 4 that are, rank 1 arrives last every time (3.3 ms and 22.3 ms late at the
 * AllReduces), so it is the straggler of this pair in both steps. */
START_TEST(t_hta_sampled_two_ranks) {
  const char *dir = tu_corpus_dir();
  if (!dir) return;
  char p0[4096], p1[4096];
  snprintf(p0, sizeof p0, "%s/hta/trace_filter/sampled_rank-0.json.gz", dir);
  snprintf(p1, sizeof p1, "%s/hta/trace_filter/sampled_rank-1.json.gz", dir);
  struct stat stt;
  if (stat(p0, &stt) || stat(p1, &stt)) {
    printf("# SKIP hta/trace_filter not in the corpus at %s\n", dir);
    return;
  }
  fsdpa_ctx *c[2] = {feed(p0), feed(p1)};
  fsdpa_crossrank x = {sizeof x};
  ck_assert_int_eq(fsdpa_query_crossrank(c, 2, &x), FSDPA_OK);
  ck_assert_uint_eq(x.unmatched, 0);
  ck_assert_uint_eq(x.collectives + x.unsynchronized, 10);
  ck_assert_uint_eq(x.collectives, 4);
  ck_assert_uint_eq(x.unsynchronized, 6);
  ck_assert_uint_eq(x.steps, 2);
  ck_assert_int_eq(x.reference_rank, 0);
  ck_assert_int_eq(x.straggler_rank, 1);
  ck_assert_uint_eq(x.straggler_late_steps, 2);
  ck_assert_int_eq(x.straggler_max_delay_ns, 22320 * US);
  fsdpa_crossrank_rank rr = {sizeof rr};
  ck_assert_int_eq(fsdpa_query_crossrank_rank(c, 2, 1, &rr), FSDPA_OK);
  ck_assert_int_eq(rr.clock_offset_ns, 8 * US);  /* same host: the clocks agree to 8 us */
  ck_assert_uint_eq(rr.last_count, 4);
  const char *paths[2] = {p0, p1};
  char *rep = report_json(c, 2, paths, NULL);
  char *xr = cross_rank_of(rep);
  ck_assert_ptr_nonnull(strstr(xr, "\"matched_by\": \"ordinal\""));
  ck_assert_int_eq((int64_t)num_after(xr, "\"collective\": \"AllGather\"", "count"), 2);
  ck_assert_int_eq((int64_t)num_after(xr, "\"collective\": \"AllReduce\"", "count"), 2);
  ck_assert_ptr_null(strstr(xr, "AllToAll"));
  free(xr);
  fsdpa_free(rep);
  check_groupings(c, 2, paths);
  free_all(c, 2);
}
END_TEST

static char *gen_path(const char *name, int rank, const char *ext) {
  char *p = malloc(4096);
  snprintf(p, 4096, "%s/tests/gen/%s.rank%d%s", tu_build_root(), name, rank, ext);
  return p;
}

/* The generator's straggler scenario: one trace per rank, each on its own
 * clock, one rank late by a known delay every step.  The analysis must name
 * the planted rank and delay, and recover every clock offset. */
static void check_generated(int ranks, int straggler, int seed) {
  char name[64], extra[128];
  snprintf(name, sizeof name, "xr_strag_%d_%d", ranks, straggler);
  snprintf(extra, sizeof extra, "--ranks %d --steps 4 --seed %d --straggler-rank %d", ranks, seed,
           straggler);
  char out[80];
  snprintf(out, sizeof out, "%s.json.gz", name);
  char *g = tu_tracegen("straggler", extra, out);
  if (!g) {
    printf("# SKIP tools/tracegen/tracegen.py straggler could not run\n");
    return;
  }
  free(g);
  fsdpa_ctx *c[8];
  char *paths[8];
  double off0 = 0, delay = -1, srank = -1;
  for (int r = 0; r < ranks; r++) {
    paths[r] = gen_path(name, r, ".json.gz");
    c[r] = feed(paths[r]);
    char *tp = gen_path(name, r, ".truth.json");
    char *truth = tu_read_file(tp, NULL);
    ck_assert_ptr_nonnull(truth);
    double off;
    ck_assert(tu_json_num(truth, "clock_offset_ns", NULL, &off));
    if (r == 0) off0 = off;
    const char *sp = strstr(truth, "\"straggler\":");
    ck_assert_ptr_nonnull(sp);
    ck_assert(tu_json_num(truth, "rank", sp, &srank));
    ck_assert(tu_json_num(truth, "delay_ns", sp, &delay));
    free(truth);
    free(tp);
  }
  ck_assert_int_eq((int)srank, straggler);
  fsdpa_crossrank x = {sizeof x};
  ck_assert_int_eq(fsdpa_query_crossrank(c, (size_t)ranks, &x), FSDPA_OK);
  ck_assert_uint_eq(x.unmatched, 0);
  ck_assert_uint_eq(x.unsynchronized, 0);
  ck_assert_uint_ge(x.collectives, 4);
  ck_assert_int_eq(x.straggler_rank, straggler);
  ck_assert_uint_eq(x.straggler_late_steps, 4);
  ck_assert_uint_eq(x.steps, 4);
  double rel = ((double)x.straggler_mean_delay_ns - delay) / delay;
  ck_assert_msg(rel > -0.03 && rel < 0.03, "delay %lld vs planted %.0f",
                (long long)x.straggler_mean_delay_ns, delay);
  for (int r = 0; r < ranks; r++) {
    char *tp = gen_path(name, r, ".truth.json");
    char *truth = tu_read_file(tp, NULL);
    double off;
    ck_assert(tu_json_num(truth, "clock_offset_ns", NULL, &off));
    fsdpa_crossrank_rank rr = {sizeof rr};
    ck_assert_int_eq(fsdpa_query_crossrank_rank(c, (size_t)ranks, (size_t)r, &rr), FSDPA_OK);
    ck_assert_int_eq(rr.clock_offset_ns, (int64_t)(off - off0));
    ck_assert_uint_eq(rr.late_steps, r == straggler ? 4 : 0);
    if (r != straggler) ck_assert_int_gt(rr.wait_ns, 0);
    free(truth);
    free(tp);
  }
  check_groupings(c, (size_t)ranks, (const char *const *)paths);
  for (int r = 0; r < ranks; r++) free(paths[r]);
  free_all(c, (size_t)ranks);
}

START_TEST(t_generated_straggler) {
  check_generated(4, 2, 1);
  check_generated(3, 0, 5);
}
END_TEST

/* A context keeps its own part of a report (findings, "ranks" section:
 * report/rank_cache.c) so that `fsdpa analyze -j` can make it in each rank's
 * thread.  A report over several contexts must not depend on that: same bytes
 * whether each context was reported alone first or not, in every format, and
 * following a parameter or trace-info change made after the cache filled. */
static char *report_fmt(fsdpa_ctx **c, size_t n, fsdpa_format f) {
  fsdpa_report_options o;
  fsdpa_report_options_init(&o);
  o.format = f;
  char *out = NULL;
  ck_assert_int_eq(fsdpa_report(c, NULL, n, &o, &out, NULL), FSDPA_OK);
  return out;
}

static void warm_alone(fsdpa_ctx **c, size_t n) {
  for (size_t i = 0; i < n; i++) {
    char *o = report_fmt(&c[i], 1, FSDPA_FORMAT_JSON);
    fsdpa_free(o);
    o = report_fmt(&c[i], 1, FSDPA_FORMAT_TEXT);
    fsdpa_free(o);
  }
}

static void load3(fsdpa_ctx **c, const char *name) {
  for (int r = 0; r < 3; r++) {
    char *p = gen_path(name, r, ".json.gz");
    c[r] = feed(p);
    free(p);
  }
}

static void same_reports(fsdpa_ctx **fresh, fsdpa_ctx **warm, size_t n, const char *what) {
  static const fsdpa_format F[3] = {FSDPA_FORMAT_JSON, FSDPA_FORMAT_TEXT, FSDPA_FORMAT_HTML};
  for (int k = 0; k < 3; k++) {
    char *a = report_fmt(fresh, n, F[k]);
    char *b = report_fmt(warm, n, F[k]);
    char msg[96];
    snprintf(msg, sizeof msg, "%s, format %d", what, k);
    assert_same(a, b, msg);
    fsdpa_free(a);
    fsdpa_free(b);
  }
}

START_TEST(t_rank_cache_same_reports) {
  char *g = tu_tracegen("straggler", "--ranks 3 --steps 3 --seed 2 --straggler-rank 1",
                        "xr_cache.json.gz");
  if (!g) {
    printf("# SKIP tools/tracegen/tracegen.py straggler could not run\n");
    return;
  }
  free(g);
  fsdpa_ctx *a[3], *b[3];
  load3(a, "xr_cache");
  load3(b, "xr_cache");
  warm_alone(b, 3);
  same_reports(a, b, 3, "warmed alone");
  /* a parameter set after the cache filled */
  for (int i = 0; i < 3; i++) {
    ck_assert_int_eq(fsdpa_param_set(a[i], "overlap.exposed_min_share_ppm", "0"), FSDPA_OK);
    ck_assert_int_eq(fsdpa_param_set(b[i], "overlap.exposed_min_share_ppm", "0"), FSDPA_OK);
  }
  fsdpa_ctx *c[3];
  load3(c, "xr_cache");
  for (int i = 0; i < 3; i++)
    ck_assert_int_eq(fsdpa_param_set(c[i], "overlap.exposed_min_share_ppm", "0"), FSDPA_OK);
  same_reports(c, b, 3, "parameter changed");
  /* a new clock base after the cache filled: absolute times move */
  for (int i = 0; i < 3; i++) {
    fsdpa_trace_info ti;
    ck_assert_int_eq(fsdpa_trace_info_get(b[i], &ti), FSDPA_OK);
    ti.base_time_ns += 1000003;
    ck_assert_int_eq(fsdpa_trace_info_set(b[i], &ti), FSDPA_OK);
    ck_assert_int_eq(fsdpa_trace_info_set(c[i], &ti), FSDPA_OK);
  }
  free_all(c, 3);
  load3(c, "xr_cache");
  for (int i = 0; i < 3; i++) {
    fsdpa_trace_info ti;
    ck_assert_int_eq(fsdpa_trace_info_get(b[i], &ti), FSDPA_OK);
    ck_assert_int_eq(fsdpa_param_set(c[i], "overlap.exposed_min_share_ppm", "0"), FSDPA_OK);
    ck_assert_int_eq(fsdpa_trace_info_set(c[i], &ti), FSDPA_OK);
  }
  same_reports(c, b, 3, "trace info changed");
  free_all(a, 3);
  free_all(b, 3);
  free_all(c, 3);
  /* no rank in the traces: alone each is rank 0, together ranks 0, 1, 2 */
  fsdpa_ctx *x[3], *y[3];
  build_a_ranked(x, NULL, 0);
  build_a_ranked(y, NULL, 0);
  warm_alone(y, 3);
  same_reports(x, y, 3, "no ranks");
  free_all(x, 3);
  free_all(y, 3);
}
END_TEST

/* The CLI and a generated 3-rank straggler job, or NULL (skip printed). */
static const char *cli_with_job(const char *extra, const char *out) {
  const char *cli = getenv("FSDPA_CLI");
  if (!cli) {
    printf("# SKIP FSDPA_CLI not set\n");
    return NULL;
  }
  char *g = tu_tracegen("straggler", extra, out);
  if (!g) {
    printf("# SKIP tools/tracegen/tracegen.py straggler could not run\n");
    return NULL;
  }
  free(g);
  return cli;
}

/* fsdpa summarize + fsdpa merge print what fsdpa analyze prints. */
START_TEST(t_cli_summarize_merge) {
  const char *cli = cli_with_job("--ranks 3 --steps 3", "xr_cli.json.gz");
  if (!cli) return;
  char cmd[16384], tr[3][4096], sm[3][4096];
  for (int r = 0; r < 3; r++) {
    snprintf(tr[r], sizeof tr[r], "%s/tests/gen/xr_cli.rank%d.json.gz", tu_build_root(), r);
    snprintf(sm[r], sizeof sm[r], "%s/tests/gen/xr_cli.rank%d.fsum", tu_build_root(), r);
    snprintf(cmd, sizeof cmd, "'%s' summarize '%s' -o '%s'", cli, tr[r], sm[r]);
    int st;
    char *o = tu_run(cmd, &st);
    ck_assert_int_eq(st, 0);
    free(o);
  }
  int st;
  snprintf(cmd, sizeof cmd, "'%s' analyze -f json '%s' '%s' '%s'", cli, tr[0], tr[1], tr[2]);
  char *direct = tu_run(cmd, &st);
  ck_assert_int_eq(st, 0);
  snprintf(cmd, sizeof cmd, "'%s' merge '%s' '%s' '%s'", cli, sm[0], sm[1], sm[2]);
  char *merged = tu_run(cmd, &st);
  ck_assert_int_eq(st, 0);
  assert_same(direct, merged, "CLI analyze vs merge");
  ck_assert_ptr_nonnull(strstr(merged, "straggler-rank"));
  snprintf(cmd, sizeof cmd, "'%s' merge --fail-on warning '%s' '%s' '%s' >/dev/null", cli, sm[0], sm[1], sm[2]);
  free(tu_run(cmd, &st));
  ck_assert_int_eq(WEXITSTATUS(st), 1);
  snprintf(cmd, sizeof cmd, "'%s' merge -f text '%s' 2>/dev/null", cli, sm[0]);
  free(tu_run(cmd, &st));
  ck_assert_int_eq(WEXITSTATUS(st), 2);
  snprintf(cmd, sizeof cmd, "'%s' merge '%s' 2>/dev/null", cli, tr[0]);  /* a trace is not a summary */
  free(tu_run(cmd, &st));
  ck_assert_int_eq(WEXITSTATUS(st), 3);
  free(direct);
  free(merged);
}
END_TEST

/* fsdpa analyze --low-memory (each rank summarized in its worker, its
 * events freed, the summaries merged) prints what analyze prints. */
static char *run_ok(const char *cmd) {
  int st;
  char *o = tu_run(cmd, &st);
  ck_assert_msg(st == 0, "%s: status %d", cmd, st);
  return o;
}

START_TEST(t_cli_low_memory) {
  const char *cli = cli_with_job("--ranks 3 --steps 3 --seed 4", "xr_lowmem.json.gz");
  if (!cli) return;
  char cmd[16384], tr[3][4096];
  for (int r = 0; r < 3; r++)
    snprintf(tr[r], sizeof tr[r], "%s/tests/gen/xr_lowmem.rank%d.json.gz", tu_build_root(), r);
  snprintf(cmd, sizeof cmd, "'%s' analyze -f json '%s' '%s' '%s'", cli, tr[0], tr[1], tr[2]);
  char *direct = run_ok(cmd);
  ck_assert_ptr_nonnull(strstr(direct, "straggler-rank"));
  const char *variants[] = {"--low-memory", "--low-memory -j 2", "--low-memory -j 3"};
  for (int k = 0; k < 3; k++) {
    snprintf(cmd, sizeof cmd, "'%s' analyze -f json %s '%s' '%s' '%s'", cli, variants[k], tr[2], tr[0], tr[1]);
    char *o = run_ok(cmd);
    /* other input order: the same ranks, listed in that order */
    ck_assert_ptr_nonnull(strstr(o, "straggler-rank"));
    free(o);
    snprintf(cmd, sizeof cmd, "'%s' analyze -f json %s '%s' '%s' '%s'", cli, variants[k], tr[0], tr[1], tr[2]);
    o = run_ok(cmd);
    assert_same(direct, o, variants[k]);
    free(o);
  }
  int st;
  snprintf(cmd, sizeof cmd, "'%s' analyze -f json --low-memory --fail-on warning '%s' '%s' '%s' >/dev/null", cli, tr[0],
           tr[1], tr[2]);
  free(tu_run(cmd, &st));
  ck_assert_int_eq(WEXITSTATUS(st), 1);
  snprintf(cmd, sizeof cmd, "'%s' analyze -f text --low-memory '%s' 2>/dev/null", cli, tr[0]);
  free(tu_run(cmd, &st));
  ck_assert_int_eq(WEXITSTATUS(st), 2);
  snprintf(cmd, sizeof cmd, "'%s' analyze -f json --low-memory '%s' '%s/meson.build' 2>/dev/null", cli, tr[0],
           tu_source_root());
  free(tu_run(cmd, &st));
  ck_assert_int_eq(WEXITSTATUS(st), 3);
  free(direct);
  /* traces without distributedInfo: numbered by position, as analyze numbers them */
  const char *corpus = tu_corpus_dir();
  const char *rel[2] = {"hta/distributed_info_unavailable/distributed_info_not_found.json.gz",
                        "kineto/resnet50_num_workers_0/worker0.1623143089861.pt.trace.json.gz"};
  char p0[4096], p1[4096];
  snprintf(p0, sizeof p0, "%s/%s", corpus ? corpus : "", rel[0]);
  snprintf(p1, sizeof p1, "%s/%s", corpus ? corpus : "", rel[1]);
  if (!corpus || access(p0, R_OK) || access(p1, R_OK)) {
    printf("# SKIP rankless part: trace corpus not found (FSDPA_TRACE_CORPUS)\n");
    return;
  }
  snprintf(cmd, sizeof cmd, "'%s' analyze -f json '%s' '%s'", cli, p0, p1);
  char *a = run_ok(cmd);
  snprintf(cmd, sizeof cmd, "'%s' analyze -f json --low-memory -j 2 '%s' '%s'", cli, p0, p1);
  char *b = run_ok(cmd);
  ck_assert_ptr_nonnull(strstr(a, "\"rank\": 1"));
  assert_same(a, b, "rankless --low-memory");
  free(a);
  free(b);
}
END_TEST

int main(void) {
  Suite *s = suite_create("crossrank");
  TCase *tc = tcase_create("crossrank");
  tcase_add_test(tc, t_seq_match_offsets_transfer_wait_straggler);
  tcase_add_test(tc, t_between_feeds_and_single_rank);
  tcase_add_test(tc, t_ordinal_match_per_type_and_step);
  tcase_add_test(tc, t_annotation_types_and_unsynchronized);
  tcase_add_test(tc, t_straggler_rule);
  tcase_add_test(tc, t_summary_merge_equals_analyze_synthetic);
  tcase_add_test(tc, t_summary_parse_errors);
  tcase_add_test(tc, t_allocation_failures);
  tcase_add_test(tc, t_hta_sampled_two_ranks);
  tcase_add_test(tc, t_generated_straggler);
  tcase_add_test(tc, t_cli_summarize_merge);
  tcase_add_test(tc, t_rank_cache_same_reports);
  tcase_add_test(tc, t_cli_low_memory);
  suite_add_tcase(s, tc);
  SRunner *sr = srunner_create(s);
  srunner_run_all(sr, CK_ENV);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
