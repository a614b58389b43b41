/* Cross-rank collectives (matching, clock alignment, transfer/wait,
 * stragglers) and mergeable summaries (write, merge, report == analyze). */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "testutil.h"
#include "tjson.h"

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

static void add_step(fsdpa_ctx *c, int64_t num, int64_t ts, int64_t dur) {
  char name[48];
  snprintf(name, sizeof name, "ProfilerStep#%lld", (long long)num);
  tu_add_x(c, "user_annotation", name, 100, 100, ts, dur, FSDPA_ABSENT);
}

/* A collective kernel (relative ts on the rank's own clock) launched 20 us
 * earlier from the main thread, optionally inside an nccl:<op> annotation. */
static void add_coll(fsdpa_ctx *c, int64_t corr, const char *kname, const char *coll, const char *pg,
                     int64_t seq, int64_t ts, int64_t dur, const char *annot) {
  int64_t launch = ts - 20 * US;
  if (annot) tu_add_x(c, "user_annotation", annot, 100, 100, launch - 1 * US, 5 * US, FSDPA_ABSENT);
  tu_add_x(c, "cuda_runtime", "cudaLaunchKernel", 100, 100, launch, 3 * US, corr);
  fsdpa_event e = tu_x("kernel", kname, 0, 20, ts, dur, corr);
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
  tu_add(c, &e);
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

/* fsdpa_crossrank_query() that must succeed, with its error channel
 * cleared (a stale error in `err` must not survive a good call). */
static fsdpa_crossrank xr_query(fsdpa_ctx *const *c, size_t n) {
  fsdpa_crossrank x = {sizeof x};
  fsdpa_error err;
  fsdpa_error_init(&err);
  err.status = FSDPA_ENOMEM;
  snprintf(err.message, sizeof err.message, "stale");
  fsdpa_status st = fsdpa_crossrank_query(c, n, &x, &err);
  ck_assert_msg(st == FSDPA_OK, "fsdpa_crossrank_query: %s: %s", fsdpa_status_str(st), err.message);
  ck_assert_int_eq(err.status, FSDPA_OK);
  ck_assert_str_eq(err.message, "");
  return x;
}

/* Every rank's part (fsdpa_crossrank_rank_list()), one item. */
static fsdpa_crossrank_rank xr_rank(fsdpa_ctx *const *c, size_t n, size_t i) {
  fsdpa_list *l = NULL;
  fsdpa_error err;
  fsdpa_error_init(&err);
  fsdpa_status st = fsdpa_crossrank_rank_list(c, n, &l, &err);
  ck_assert_msg(st == FSDPA_OK, "fsdpa_crossrank_rank_list: %s: %s", fsdpa_status_str(st), err.message);
  ck_assert_int_eq(fsdpa_list_type(l), FSDPA_LIST_CROSSRANK_RANKS);
  ck_assert_uint_eq(fsdpa_list_count(l), n);  /* one per context, in their order */
  fsdpa_crossrank_rank rr;
  TU_ITEM(l, i, rr);
  fsdpa_list_free(l);
  return rr;
}

START_TEST(t_seq_match_offsets_transfer_wait_straggler) {
  fsdpa_ctx *c[3];
  build_a(c, NULL);
  fsdpa_crossrank x = xr_query(c, 3);
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
  fsdpa_list *rl = NULL;
  ck_assert_int_eq(fsdpa_crossrank_rank_list(c, 3, &rl, NULL), FSDPA_OK);
  ck_assert_uint_eq(fsdpa_list_count(rl), 3);
  for (size_t i = 0; i < 3; i++) {
    fsdpa_crossrank_rank rr;
    TU_ITEM(rl, i, rr);
    ck_assert_int_eq(rr.rank, (int64_t)i);
    ck_assert_int_eq(rr.clock_offset_ns, (A_S[i] + A_B[i]) - (A_S[0] + A_B[0]));
    ck_assert_uint_eq(rr.collectives, 6);
    ck_assert_int_eq(rr.transfer_ns, x.transfer_ns);
    ck_assert_int_eq(rr.wait_ns, want_wait[i]);
    ck_assert_uint_eq(rr.last_count, i == 2 ? 0 : 3);  /* rank 0 is last by 10 us */
    ck_assert_uint_eq(rr.late_steps, i == 1 ? 3 : 0);
  }
  fsdpa_crossrank_rank bad = {sizeof bad};
  ck_assert_int_eq(fsdpa_list_get(rl, 3, &bad), FSDPA_EINVAL);  /* one item per context */
  fsdpa_list_free(rl);

  size_t len;
  char *rep = report_json(c, 3, NULL, &len);
  ck_assert_uint_eq(len, strlen(rep));
  ck_assert(tj_str_is(rep, "cross_rank.matched_by", "seq"));
  ck_assert_int_eq(tj_i64(rep, "cross_rank.steps.0.max_skew_ns"), 50 * US + A_D);
  ck_assert_int_eq(tj_i64(rep, "cross_rank.steps.0.wait_ns"), 50 * US + A_D + A_D + 20 * US);
  ck_assert_int_eq(tj_i64(rep, "cross_rank.steps.0.last_rank"), 1);
  ck_assert_int_eq(tj_i64(rep, "cross_rank.by_collective.[collective=AllReduce].count"), 6);
  ck_assert_int_eq(tj_i64(rep, "cross_rank.by_collective.[collective=AllReduce].bytes"), 6 * 4000);
  ck_assert_int_eq(tj_i64(rep, "cross_rank.straggler.rank"), 1);
  /* the finding: rank, evidence and the first waiting window on rank 1's clock */
  ck_assert(tu_report_has_finding(rep, "straggler-rank"));
  ck_assert_int_eq(tj_i64(rep, "findings.[id=straggler-rank].rank"), 1);
  ck_assert_int_eq(tj_i64(rep, "findings.[id=straggler-rank].cost_ns"), 3 * (50 * US + 2 * A_D) / 2);
  ck_assert_int_eq(tj_i64(rep, "findings.[id=straggler-rank].evidence.mean_delay_ns"), A_D);
  int64_t t0 = 1 * MS + A_S[1] + A_B[1];
  ck_assert_int_eq(tj_i64(rep, "findings.[id=straggler-rank].evidence.ranges.0.start_ns"), t0);
  ck_assert_int_eq(tj_i64(rep, "findings.[id=straggler-rank].evidence.ranges.0.end_ns"), t0 + 50 * US + A_D);
  /* the typed findings carry the same */
  fsdpa_list *fl = NULL;
  ck_assert_int_eq(fsdpa_report_findings(c, 3, &fl, NULL), FSDPA_OK);
  size_t k = 0;
  fsdpa_finding f = {sizeof f};
  while (k < fsdpa_list_count(fl)) {
    TU_ITEM(fl, k, f);
    if (!strcmp(f.id, "straggler-rank")) break;
    k++;
  }
  ck_assert_uint_lt(k, fsdpa_list_count(fl));
  ck_assert_int_eq(f.rank, 1);
  ck_assert_int_eq(f.cost_ns, 3 * (50 * US + 2 * A_D) / 2);
  ck_assert_uint_ge(f.nranges, 1);
  ck_assert_int_eq(f.ranges[0].start_ns, t0);
  ck_assert_int_eq(f.ranges[0].end_ns, t0 + 50 * US + A_D);
  ck_assert(tj_i64(f.evidence_json, "mean_delay_ns") == A_D);
  fsdpa_list_free(fl);
  fsdpa_free(rep);

  /* the threshold is a parameter: above the delay, nobody is late */
  ck_assert_int_eq(fsdpa_param_set(c[0], "crossrank.min_delay_ns", "500000"), FSDPA_OK);
  x = xr_query(c, 3);
  ck_assert_int_eq(x.straggler_rank, FSDPA_ABSENT);
  ck_assert_int_eq(x.straggler_mean_delay_ns, FSDPA_ABSENT);
  rep = report_json(c, 3, NULL, &len);
  ck_assert(!tu_report_has_finding(rep, "straggler-rank"));
  ck_assert(tj_is_null(rep, "cross_rank.straggler"));
  fsdpa_free(rep);
  free_all(c, 3);
}
END_TEST

/* Queries work between feeds: the analysis sees the events so far. */
START_TEST(t_between_feeds_and_single_rank) {
  fsdpa_ctx *c[2];
  c[0] = new_rank(NULL, 0, 0);
  c[1] = new_rank(NULL, 1, 0);
  fsdpa_crossrank x = xr_query(c, 2);
  ck_assert_uint_eq(x.collectives, 0);
  ck_assert_int_eq(x.transfer_ns, FSDPA_ABSENT);
  ck_assert_int_eq(x.reference_rank, FSDPA_ABSENT);
  add_coll(c[0], 1, K_AG, "_allgather_base", "0", 1, 1 * MS, 300 * US, NULL);
  add_coll(c[1], 1, K_AG, "_allgather_base", "0", 1, 1 * MS + 100 * US, 200 * US, NULL);
  x = xr_query(c, 2);
  ck_assert_uint_eq(x.collectives, 1);
  ck_assert_int_eq(x.transfer_ns, 200 * US);
  ck_assert_int_eq(x.wait_ns, 100 * US);
  add_coll(c[0], 2, K_AG, "_allgather_base", "0", 2, 3 * MS, 200 * US, NULL);
  x = xr_query(c, 2);
  ck_assert_uint_eq(x.collectives, 1);
  ck_assert_uint_eq(x.unmatched, 1);
  add_coll(c[1], 2, K_AG, "_allgather_base", "0", 2, 3 * MS, 200 * US, NULL);
  x = xr_query(c, 2);
  ck_assert_uint_eq(x.collectives, 2);
  ck_assert_uint_eq(x.unmatched, 0);
  /* one rank: nothing to match, cross_rank is null */
  x = xr_query(c, 1);
  ck_assert_uint_eq(x.collectives, 0);
  char *rep = tu_report(c[0], FSDPA_FORMAT_JSON);
  ck_assert_ptr_nonnull(rep);
  ck_assert(tj_is_null(rep, "cross_rank"));
  free(rep);
  fsdpa_error err;
  fsdpa_error_init(&err);
  ck_assert_int_eq(fsdpa_crossrank_query(NULL, 2, &x, &err), FSDPA_EINVAL);
  ck_assert_int_eq(err.status, FSDPA_EINVAL);
  ck_assert_str_ne(err.message, "");
  ck_assert_int_eq(fsdpa_crossrank_query(NULL, 2, &x, NULL), FSDPA_EINVAL);  /* no details wanted */
  x.size = 8;
  ck_assert_int_eq(fsdpa_crossrank_query(c, 2, &x, NULL), FSDPA_EINVAL);
  x.size = sizeof x;
  free_all(c, 2);
}
END_TEST

/* A NULL context inside the array: both calls over several contexts refuse
 * it, fill the caller's fsdpa_error (the status, which context, a message)
 * and clear it again on the next good call. */
START_TEST(t_null_context_error) {
  fsdpa_ctx *c[3];
  build_a(c, NULL);
  fsdpa_ctx *holed[3] = {c[0], NULL, c[2]};
  fsdpa_crossrank x = {sizeof x};
  fsdpa_error err;
  fsdpa_error_init(&err);
  ck_assert_int_eq(err.status, FSDPA_OK);
  ck_assert_str_eq(err.message, "");
  ck_assert_int_eq(err.input, FSDPA_ABSENT);
  ck_assert_int_eq(err.offset, FSDPA_ABSENT);
  ck_assert_int_eq(fsdpa_crossrank_query(holed, 3, &x, &err), FSDPA_EINVAL);
  ck_assert_int_eq(err.status, FSDPA_EINVAL);
  ck_assert_int_eq(err.input, 1);
  ck_assert_msg(err.message[0] != 0, "no message");
  ck_assert_uint_lt(strlen(err.message), sizeof err.message);
  ck_assert_int_eq(fsdpa_crossrank_query(c, 3, &x, &err), FSDPA_OK);
  ck_assert_int_eq(err.status, FSDPA_OK);
  ck_assert_str_eq(err.message, "");
  ck_assert_int_eq(x.straggler_rank, 1);

  fsdpa_list *l = NULL;
  ck_assert_int_eq(fsdpa_crossrank_rank_list(holed, 3, &l, &err), FSDPA_EINVAL);
  ck_assert_ptr_null(l);
  ck_assert_int_eq(err.status, FSDPA_EINVAL);
  ck_assert_int_eq(err.input, 1);
  ck_assert_msg(err.message[0] != 0, "no message");
  ck_assert_int_eq(fsdpa_crossrank_rank_list(c, 3, &l, &err), FSDPA_OK);
  ck_assert_int_eq(err.status, FSDPA_OK);
  ck_assert_str_eq(err.message, "");
  ck_assert_uint_eq(fsdpa_list_count(l), 3);
  fsdpa_list_free(l);
  /* NULL for the error: the same refusal, without details */
  ck_assert_int_eq(fsdpa_crossrank_rank_list(holed, 3, &l, NULL), FSDPA_EINVAL);
  ck_assert_int_eq(fsdpa_crossrank_rank_list(c, 3, NULL, &err), FSDPA_EINVAL);
  ck_assert_int_eq(err.status, FSDPA_EINVAL);
  /* an fsdpa_error too small to hold the first release's fields is a bad argument */
  fsdpa_error small;
  fsdpa_error_init(&small);
  small.size = sizeof(size_t);
  ck_assert_int_eq(fsdpa_crossrank_query(c, 3, &x, &small), FSDPA_EINVAL);
  free_all(c, 3);
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
  fsdpa_crossrank x = xr_query(c, 2);
  ck_assert_uint_eq(x.collectives, 3);
  ck_assert_uint_eq(x.unmatched, 1);
  ck_assert_uint_eq(x.unsynchronized, 0);
  ck_assert_int_eq(x.transfer_ns, 500 * US + 800 * US + 1 * MS);
  ck_assert_int_eq(x.wait_ns, 500 * US + 200 * US + 2500 * US);
  fsdpa_crossrank_rank rr = xr_rank(c, 2, 1);
  ck_assert_int_eq(rr.clock_offset_ns, 123456789);
  char *rep = report_json(c, 2, NULL, NULL);
  ck_assert(tj_str_is(rep, "cross_rank.matched_by", "ordinal"));
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
  fsdpa_crossrank x = xr_query(c, 2);
  /* ordinals of "SendRecv" pair X with Y and Y with X: their ends differ by
   * 5 ms, more than either's transfer; only Z is one collective */
  ck_assert_uint_eq(x.collectives, 1);
  ck_assert_uint_eq(x.unsynchronized, 2);
  ck_assert_int_eq(x.end_spread_max_ns, 5 * MS);
  ck_assert_int_eq(x.transfer_ns, 1 * MS);
  char *rep = report_json(c, 2, NULL, NULL);
  ck_assert_int_eq(tj_i64(rep, "cross_rank.unsynchronized"), 2);
  fsdpa_free(rep);
  /* a tolerance above the 5 ms spread takes the wrong pairs at face value */
  ck_assert_int_eq(fsdpa_param_set(c[0], "crossrank.end_tolerance_ns", "5000000"), FSDPA_OK);
  x = xr_query(c, 2);
  ck_assert_uint_eq(x.collectives, 3);
  ck_assert_uint_eq(x.unsynchronized, 0);
  free_all(c, 2);

  build_c(c, 1);
  x = xr_query(c, 2);
  ck_assert_uint_eq(x.collectives, 3);
  ck_assert_uint_eq(x.unsynchronized, 0);
  ck_assert_int_eq(x.end_spread_max_ns, 0);
  rep = report_json(c, 2, NULL, NULL);
  ck_assert_int_eq(tj_i64(rep, "cross_rank.by_collective.[collective=AllToAll].count"), 2);
  ck_assert_int_eq(tj_i64(rep, "cross_rank.by_collective.[collective=AllReduce].count"), 1);
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
  fsdpa_crossrank x = xr_query(c, 2);
  ck_assert_uint_eq(x.collectives, 4);
  ck_assert_int_eq(x.straggler_rank, FSDPA_ABSENT);
  free_all(c, 2);
  build_turns(c, mostly1);
  x = xr_query(c, 2);
  ck_assert_int_eq(x.straggler_rank, 1);
  ck_assert_uint_eq(x.straggler_late_steps, 3);
  ck_assert_int_eq(x.straggler_mean_delay_ns, 300 * US);
  ck_assert_int_eq(fsdpa_param_set(c[0], "crossrank.straggler_min_steps", "4"), FSDPA_OK);
  x = xr_query(c, 2);
  ck_assert_int_eq(x.straggler_rank, FSDPA_ABSENT);
  free_all(c, 2);
}
END_TEST

/* ---- summaries ---- */

static char *summary_of(fsdpa_ctx *c, const char *path, size_t *len) {
  char *s = NULL;
  ck_assert_int_eq(fsdpa_summary_write(c, path, &s, len), FSDPA_OK);
  ck_assert_str_eq(fsdpa_errmsg(c), "");
  return s;
}

static char *merge_n(const char *const *s, const size_t *l, size_t n, size_t *len) {
  char *out = NULL;
  fsdpa_error err;
  fsdpa_error_init(&err);
  fsdpa_status st = fsdpa_summary_merge(s, l, n, NULL, &out, len, &err);
  ck_assert_msg(st == FSDPA_OK, "summary merge: %s", err.message);
  ck_assert_int_eq(err.status, FSDPA_OK);
  ck_assert_str_eq(err.message, "");
  ck_assert_ptr_nonnull(out);
  return out;
}

static char *merge2(const char *a, size_t al, const char *b, size_t bl, size_t *len) {
  const char *s[2] = {a, b};
  size_t l[2] = {al, bl};
  return merge_n(s, l, 2, len);
}

static char *report_of(const char *sum, size_t len, size_t *out_len) {
  char *out = NULL;
  fsdpa_error err;
  fsdpa_error_init(&err);
  fsdpa_status st = fsdpa_summary_report(sum, len, NULL, NULL, &out, out_len, &err);
  ck_assert_msg(st == FSDPA_OK, "summary report: %s", err.message);
  ck_assert_int_eq(err.status, FSDPA_OK);
  ck_assert_str_eq(err.message, "");
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

static int same_str(const char *a, const char *b) { return (!a && !b) || (a && b && !strcmp(a, b)); }

/* Two lists of findings are the same findings in the same order: every
 * field, the strings and the ranges included. */
static void assert_same_findings(const fsdpa_list *a, const fsdpa_list *b, const char *what) {
  ck_assert_int_eq(fsdpa_list_type(a), FSDPA_LIST_FINDINGS);
  ck_assert_int_eq(fsdpa_list_type(b), FSDPA_LIST_FINDINGS);
  ck_assert_msg(fsdpa_list_count(a) == fsdpa_list_count(b), "%s: %zu findings vs %zu", what, fsdpa_list_count(a),
                fsdpa_list_count(b));
  for (size_t i = 0; i < fsdpa_list_count(a); i++) {
    fsdpa_finding x, y;
    TU_ITEM(a, i, x);
    TU_ITEM(b, i, y);
    ck_assert_msg(!strcmp(x.id, y.id), "%s: finding %zu is %s vs %s", what, i, x.id, y.id);
    ck_assert_msg(x.cost_ns == y.cost_ns, "%s: %s cost %lld vs %lld", what, x.id, (long long)x.cost_ns,
                  (long long)y.cost_ns);
    ck_assert_msg(x.severity == y.severity && x.rank == y.rank && x.step == y.step, "%s: %s severity/rank/step",
                  what, x.id);
    ck_assert_msg(same_str(x.title, y.title) && same_str(x.detail, y.detail) && same_str(x.advice, y.advice),
                  "%s: %s texts differ", what, x.id);
    ck_assert_msg(same_str(x.evidence_json, y.evidence_json), "%s: %s evidence differs:\n%s\n%s", what, x.id,
                  x.evidence_json ? x.evidence_json : "(null)", y.evidence_json ? y.evidence_json : "(null)");
    ck_assert_msg(x.nranges == y.nranges, "%s: %s ranges %zu vs %zu", what, x.id, x.nranges, y.nranges);
    for (size_t r = 0; r < x.nranges; r++)
      ck_assert(x.ranges[r].start_ns == y.ranges[r].start_ns && x.ranges[r].end_ns == y.ranges[r].end_ns);
  }
}

/* The typed findings of a summary equal those of the contexts it was made of. */
static void check_summary_findings(fsdpa_ctx **c, size_t n, const char *sum, size_t len) {
  fsdpa_list *direct = NULL, *from_sum = NULL;
  fsdpa_error err;
  fsdpa_error_init(&err);
  ck_assert_int_eq(fsdpa_report_findings(c, n, &direct, &err), FSDPA_OK);
  ck_assert_str_eq(err.message, "");
  fsdpa_status st = fsdpa_summary_findings(sum, len, NULL, &from_sum, &err);
  ck_assert_msg(st == FSDPA_OK, "summary findings: %s", err.message);
  ck_assert_int_eq(err.status, FSDPA_OK);
  assert_same_findings(direct, from_sum, "fsdpa_summary_findings vs fsdpa_report_findings");
  ck_assert_int_eq(fsdpa_findings_worst(direct), fsdpa_findings_worst(from_sum));
  /* and the typed list is the report's findings[] */
  char *rep = report_of(sum, len, NULL);
  ck_assert_uint_eq(tj_count(rep, "findings"), fsdpa_list_count(from_sum));
  for (size_t i = 0; i < fsdpa_list_count(from_sum); i++) {
    fsdpa_finding f;
    TU_ITEM(from_sum, i, f);
    char path[64];
    snprintf(path, sizeof path, "findings.%zu.id", i);
    ck_assert_msg(tj_str_is(rep, path, f.id), "%s is not %s", path, f.id);
    snprintf(path, sizeof path, "findings.%zu.cost_ns", i);
    ck_assert_int_eq(tj_i64(rep, path), f.cost_ns);
    snprintf(path, sizeof path, "findings.%zu.severity", i);
    ck_assert(tj_str_is(rep, path, fsdpa_severity_name(f.severity)));
  }
  fsdpa_free(rep);
  fsdpa_list_free(direct);
  fsdpa_list_free(from_sum);
}

/* analyze in one process == summarize each rank + merge, in every grouping */
static void check_groupings(fsdpa_ctx **c, size_t n, const char *const *paths) {
  char *direct = report_json(c, n, paths, NULL);
  char *s[8];
  size_t l[8];
  ck_assert_uint_le(n, 8);
  for (size_t i = 0; i < n; i++) s[i] = summary_of(c[i], paths ? paths[i] : NULL, &l[i]);
  /* one merge of all */
  size_t alll;
  char *all = merge_n((const char *const *)s, l, n, &alll);
  char *r1 = report_of(all, alll, NULL);
  assert_same(direct, r1, "merge(all)");
  check_summary_findings(c, n, all, alll);
  /* left fold ((s0 s1) s2) ... and right fold (s0 (s1 (s2 ...))) */
  size_t ll = 0, rl = 0;
  char *left = NULL;
  {
    const char *one[1] = {s[0]};
    left = merge_n(one, &l[0], 1, &ll);
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
    right = merge_n(one, &l[n - 1], 1, &rl);
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
  ck_assert_uint_eq(tj_count(s1, "ranks"), 1);
  ck_assert(tj_has(s1, "ranks.0.findings"));
  ck_assert(!tj_has(s1, "ranks.0.findings.[id=straggler-rank]"));
  const char *s[3] = {s0, s1, s2};
  size_t l[3] = {l0, l1, l2};
  size_t ml;
  char *m = merge_n(s, l, 3, &ml);
  ck_assert_uint_eq(tj_count(m, "ranks"), 3);
  char *rep = report_of(m, ml, NULL);
  ck_assert(tu_report_has_finding(rep, "straggler-rank"));
  check_summary_findings(c, 3, m, ml);
  /* the text of the merged summaries is the text of the analysis, byte for
   * byte: both are rendered from the same JSON */
  fsdpa_report_options ro;
  fsdpa_report_options_init(&ro);
  ro.format = FSDPA_FORMAT_TEXT;
  char *text = NULL, *direct_text = NULL;
  fsdpa_error err;
  fsdpa_error_init(&err);
  ck_assert_int_eq(fsdpa_summary_report(m, ml, NULL, &ro, &text, NULL, &err), FSDPA_OK);
  const char *names[3] = {"a", "b", "c"};  /* the paths the summaries were written with */
  ck_assert_int_eq(fsdpa_report((fsdpa_ctx *const *)c, names, 3, &ro, &direct_text, NULL, &err), FSDPA_OK);
  assert_same(direct_text, text, "text of merge(all)");
  ck_assert_ptr_nonnull(strstr(text, "rank 0"));
  fsdpa_free(text);
  fsdpa_free(direct_text);
  fsdpa_free(rep);
  fsdpa_free(m);
  fsdpa_free(s0);
  fsdpa_free(s1);
  fsdpa_free(s2);
  free_all(c, 3);
}
END_TEST

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
#define NBAD (sizeof BAD / sizeof BAD[0])

/* Every prefix of a valid summary, and assorted garbage, is refused cleanly. */
START_TEST(t_summary_parse_errors) {
  fsdpa_ctx *c[3];
  build_a(c, NULL);
  size_t len;
  char *s = summary_of(c[0], "r0", &len);
  fsdpa_error err;
  char *out = NULL;
  for (size_t n = 0; n + 1 < len; n += (n < 2000 ? 1 : 97)) {
    fsdpa_error_init(&err);
    fsdpa_status st = fsdpa_summary_report(s, n, NULL, NULL, &out, NULL, &err);
    ck_assert_msg(st == FSDPA_EPARSE, "prefix %zu: status %d", n, (int)st);
    ck_assert_ptr_null(out);
    ck_assert(err.message[0]);
    ck_assert_int_eq(err.status, FSDPA_EPARSE);
  }
  for (size_t i = 0; i < NBAD; i++) {
    fsdpa_error_init(&err);
    ck_assert_int_eq(fsdpa_summary_report(BAD[i], strlen(BAD[i]), NULL, NULL, &out, NULL, &err), FSDPA_EPARSE);
    ck_assert(err.message[0]);
    const char *one[1] = {BAD[i]};
    size_t ln = strlen(BAD[i]);
    fsdpa_error_init(&err);
    ck_assert_int_eq(fsdpa_summary_merge(one, &ln, 1, NULL, &out, NULL, &err), FSDPA_EPARSE);
    ck_assert_ptr_null(out);
    ck_assert_int_eq(err.status, FSDPA_EPARSE);
    ck_assert_int_eq(err.input, 0);
    ck_assert_msg(strstr(err.message, "input 0") != NULL, "case %zu: %s", i, err.message);
  }
  /* the error names the failing input: a corrupt second summary is input 1 */
  for (size_t i = 0; i < NBAD; i++) {
    const char *two[2] = {s, BAD[i]};
    size_t ln[2] = {len, strlen(BAD[i])};
    fsdpa_error_init(&err);
    ck_assert_int_eq(fsdpa_summary_merge(two, ln, 2, NULL, &out, NULL, &err), FSDPA_EPARSE);
    ck_assert_ptr_null(out);
    ck_assert_int_eq(err.status, FSDPA_EPARSE);
    ck_assert_msg(err.input == 1, "case %zu: input %lld", i, (long long)err.input);
    ck_assert_msg(strstr(err.message, "input 1") != NULL, "case %zu: %s", i, err.message);
  }
  {
    size_t len1;
    char *s1 = summary_of(c[1], "r1", &len1);
    const char *two[2] = {s, s1};
    size_t ln[2] = {len, len1 / 2};  /* the second one cut short */
    fsdpa_error_init(&err);
    ck_assert_int_eq(fsdpa_summary_merge(two, ln, 2, NULL, &out, NULL, &err), FSDPA_EPARSE);
    ck_assert_int_eq(err.input, 1);
    /* the same summary twice holds a rank twice: refused, naming the second */
    const char *same[2] = {s, s};
    size_t lsame[2] = {len, len};
    fsdpa_error_init(&err);
    ck_assert_int_eq(fsdpa_summary_merge(same, lsame, 2, NULL, &out, NULL, &err), FSDPA_EINVAL);
    ck_assert_ptr_null(out);
    ck_assert_int_eq(err.input, 1);
    ck_assert_msg(strstr(err.message, "rank 0 twice: in summary 0 and in summary 1") != NULL, "%s", err.message);
    /* then a good merge clears the caller's error */
    ln[1] = len1;
    char *ok = NULL;
    ck_assert_int_eq(fsdpa_summary_merge(two, ln, 2, NULL, &ok, NULL, &err), FSDPA_OK);
    ck_assert_int_eq(err.status, FSDPA_OK);
    ck_assert_str_eq(err.message, "");
    fsdpa_free(ok);
    fsdpa_free(s1);
    /* a NULL summary is a bad argument, named too */
    two[1] = NULL;
    ck_assert_int_eq(fsdpa_summary_merge(two, ln, 2, NULL, &out, NULL, &err), FSDPA_EINVAL);
    ck_assert_int_eq(err.input, 1);
  }
  /* a damaged row */
  char *dam = malloc(len + 1);
  memcpy(dam, s, len + 1);
  char *row = strstr(dam, "\"rows\":[[");
  ck_assert_ptr_nonnull(row);
  char *q = row + strlen("\"rows\":[[");  /* the first row's process group index: "0" */
  ck_assert_int_eq(*q, '0');
  *q = '5';
  fsdpa_error_init(&err);
  ck_assert_int_eq(fsdpa_summary_report(dam, len, NULL, NULL, &out, NULL, &err), FSDPA_EPARSE);
  ck_assert_msg(strstr(err.message, "process group") != NULL, "%s", err.message);
  fsdpa_list *fl = NULL;
  fsdpa_error_init(&err);
  ck_assert_int_eq(fsdpa_summary_findings(dam, len, NULL, &fl, &err), FSDPA_EPARSE);
  ck_assert_ptr_null(fl);
  ck_assert_msg(strstr(err.message, "process group") != NULL, "%s", err.message);
  free(dam);
  ck_assert_int_eq(fsdpa_summary_merge(NULL, NULL, 0, NULL, &out, NULL, NULL), FSDPA_EINVAL);
  ck_assert_int_eq(fsdpa_summary_merge(NULL, NULL, 0, NULL, &out, NULL, &err), FSDPA_EINVAL);
  ck_assert_int_eq(err.status, FSDPA_EINVAL);
  ck_assert_int_eq(fsdpa_summary_write(NULL, NULL, &out, NULL), FSDPA_EINVAL);
  fsdpa_free(s);
  free_all(c, 3);
}
END_TEST

/* A parse error says where: the byte offset inside the failing summary
 * (fsdpa_error.offset, documented for fsdpa_summary_merge() and
 * fsdpa_summary_report()). */
START_TEST(t_summary_error_offset) {
  fsdpa_ctx *c[3];
  build_a(c, NULL);
  size_t len;
  char *s = summary_of(c[0], "r0", &len);
  fsdpa_error err;
  char *out = NULL;
  /* a cut summary fails at or before its end */
  fsdpa_error_init(&err);
  ck_assert_int_eq(fsdpa_summary_report(s, len / 2, NULL, NULL, &out, NULL, &err), FSDPA_EPARSE);
  ck_assert_msg(err.offset != FSDPA_ABSENT && err.offset >= 0 && err.offset <= (int64_t)(len / 2),
                "report: offset %lld for a summary cut at %zu (%s)", (long long)err.offset, len / 2, err.message);
  /* trailing garbage: the error is at the garbage */
  const char *trail = "{\"schema\":\"fsdpa.summary/1\",\"ranks\":[]} x";
  const char *two[2] = {s, trail};
  size_t ln[2] = {len, strlen(trail)};
  fsdpa_error_init(&err);
  ck_assert_int_eq(fsdpa_summary_merge(two, ln, 2, NULL, &out, NULL, &err), FSDPA_EPARSE);
  ck_assert_int_eq(err.input, 1);
  ck_assert_msg(err.offset >= (int64_t)strlen(trail) - 2 && err.offset <= (int64_t)strlen(trail),
                "merge: offset %lld for garbage at %zu (%s)", (long long)err.offset, strlen(trail) - 1, err.message);
  fsdpa_free(s);
  free_all(c, 3);
}
END_TEST

/* A whole file as a string (tu_read_file() NUL-terminates it); the test
 * fails if it cannot be read. */
static char *read_text(const char *path, size_t *len) {
  char *t = tu_read_file(path, len);
  ck_assert_msg(t != NULL, "cannot read %s", path);
  return t;
}

/* a and b are the same bytes apart from the value of their top-level
 * `version` member (located by parsing, not by searching the text). */
static void assert_same_but_version(const char *a, const char *b, const char *what) {
  const char *ab, *ae, *bb, *be;
  ck_assert_msg(tj_find(a, "version", &ab, &ae), "%s: no version", what);
  ck_assert_msg(tj_find(b, "version", &bb, &be), "%s: no version", what);
  ck_assert_msg(ab - a == bb - b && !memcmp(a, b, (size_t)(ab - a)), "%s: differ before the version", what);
  assert_same(ae, be, what);
}

/* 1 if the value at path is the JSON boolean v. */
static int tj_is_bool(const char *json, const char *path, int v) {
  const char *b, *e;
  const char *want = v ? "true" : "false";
  return tj_find(json, path, &b, &e) && (size_t)(e - b) == strlen(want) && !memcmp(b, want, strlen(want));
}

/* Cut [from, to) out of s (in place). */
static void cut(char *from, const char *to) { memmove(from, to, strlen(to) + 1); }

/* A report without what was added since 0.1: the cross_rank section's
 * collectives_seen, collectives_matched and left_out, the straggler-rank
 * finding's sentence on what it rests on and its evidence of the same, and
 * the not_judged and job sections, and every finding's saving (null: a 0.1
 * summary's findings were never replayed). */
static void strip_since_01(char *r) {
  char *k;
  while ((k = strstr(r, "\n      \"saving_ns\": "))) cut(k, strchr(k + 1, '\n'));
  while ((k = strstr(r, "\n      \"saving_share\": "))) cut(k, strchr(k + 1, '\n'));
  while ((k = strstr(r, "\n    \"collectives_seen\": "))) cut(k, strchr(k + 1, '\n'));
  while ((k = strstr(r, "\n    \"collectives_matched\": "))) cut(k, strchr(k + 1, '\n'));
  if ((k = strstr(r, "\n    \"left_out\": {"))) cut(k, strstr(k, "\n    },") + 7);
  while ((k = strstr(r, ",\"collectives_seen\":"))) {
    char *e = strstr(k, "\"weak\":");
    ck_assert_ptr_nonnull(e);
    e += 7;
    e += *e == 't' ? 4 : 5;
    cut(k, e);
  }
  while ((k = strstr(r, "  The verdict rests on"))) cut(k, strchr(k, '"'));
  /* the report's last two sections, not_judged and job, came after 0.1 */
  if ((k = strstr(r, ",\n  \"not_judged\": "))) cut(k, strrchr(k, '}') - 1);
}

/* A summary written by fsdpa 0.1 (tests/data/summary/v0.1/README.md): the
 * format is still fsdpa.summary/1, so 0.2 merges and reports it, and the
 * report is the 0.1 report apart from its version and the fields added since
 * (strip_since_01). */
START_TEST(t_summary_v01) {
  char sp[4096], rp[4096];
  snprintf(sp, sizeof sp, "%s/tests/data/summary/v0.1/straggler2.fsum", tu_source_root());
  snprintf(rp, sizeof rp, "%s/tests/data/summary/v0.1/straggler2.report.json", tu_source_root());
  size_t sl, rl;
  char *sum = read_text(sp, &sl), *r01 = read_text(rp, &rl);
  ck_assert(tj_str_is(sum, "schema", "fsdpa.summary/1"));
  ck_assert(tj_str_is(sum, "version", "0.1.0"));
  ck_assert(tj_str_is(r01, "version", "0.1.0"));
  ck_assert_uint_eq(tj_count(sum, "ranks"), 2);
  /* its report */
  fsdpa_error err;
  fsdpa_error_init(&err);
  char *r02 = NULL;
  size_t r02l = 0;
  fsdpa_status st = fsdpa_summary_report(sum, sl, NULL, NULL, &r02, &r02l, &err);
  ck_assert_msg(st == FSDPA_OK, "a 0.1 summary is refused: %s: %s", fsdpa_status_str(st), err.message);
  ck_assert_int_eq(err.status, FSDPA_OK);
  ck_assert_uint_eq(r02l, strlen(r02));
  ck_assert(tj_str_is(r02, "version", fsdpa_version_string()));
  ck_assert(tj_str_is(r02, "schema", "fsdpa.report/1"));
  ck_assert_int_eq(tj_i64(r02, "cross_rank.collectives_seen"), 2);
  ck_assert_int_eq(tj_i64(r02, "findings.[id=straggler-rank].evidence.collectives_seen"), 2);
  ck_assert(tj_is_bool(r02, "findings.[id=straggler-rank].evidence.weak", 0));
  char *r02s = strdup(r02);
  strip_since_01(r02s);
  assert_same_but_version(r01, r02s, "0.1 report vs report of the 0.1 summary");
  free(r02s);
  ck_assert(tu_report_has_finding(r02, "straggler-rank"));
  ck_assert_int_eq(tj_i64(r02, "findings.[id=straggler-rank].rank"), 1);
  ck_assert_int_eq(tj_i64(r02, "cross_rank.straggler.rank"), 1);
  /* merged alone: the same ranks under the current version; its report is the same */
  const char *one[1] = {sum};
  size_t ml;
  char *m = merge_n(one, &sl, 1, &ml);
  ck_assert(tj_str_is(m, "version", fsdpa_version_string()));
  const char *ab, *ae, *bb, *be;
  ck_assert(tj_find(sum, "ranks", &ab, &ae) && tj_find(m, "ranks", &bb, &be));
  ck_assert(ae - ab == be - bb && !memcmp(ab, bb, (size_t)(ae - ab)));
  char *rm = report_of(m, ml, NULL);
  assert_same(r02, rm, "report of merge(0.1 summary)");
  fsdpa_free(rm);
  fsdpa_free(m);
  /* merged with itself: each rank twice, refused */
  const char *two[2] = {sum, sum};
  size_t ln[2] = {sl, sl};
  fsdpa_error_init(&err);
  m = NULL;
  ck_assert_int_eq(fsdpa_summary_merge(two, ln, 2, NULL, &m, &ml, &err), FSDPA_EINVAL);
  ck_assert_ptr_null(m);
  ck_assert_int_eq(err.input, 1);
  ck_assert_ptr_nonnull(strstr(err.message, "rank 0 twice"));
  /* its typed findings: the 0.1 report's findings[], in order */
  fsdpa_list *fl = NULL;
  fsdpa_error_init(&err);
  st = fsdpa_summary_findings(sum, sl, NULL, &fl, &err);
  ck_assert_msg(st == FSDPA_OK, "findings of a 0.1 summary: %s", err.message);
  ck_assert_uint_eq(fsdpa_list_count(fl), tj_count(r01, "findings"));
  for (size_t i = 0; i < fsdpa_list_count(fl); i++) {
    fsdpa_finding f;
    TU_ITEM(fl, i, f);
    char path[64];
    snprintf(path, sizeof path, "findings.%zu.id", i);
    ck_assert_msg(tj_str_is(r01, path, f.id), "%s is not %s", path, f.id);
    snprintf(path, sizeof path, "findings.%zu.cost_ns", i);
    ck_assert_int_eq(tj_i64(r01, path), f.cost_ns);
    snprintf(path, sizeof path, "findings.%zu.rank", i);
    ck_assert_int_eq(tj_i64(r01, path), f.rank);
  }
  fsdpa_list_free(fl);
  fsdpa_free(r02);
  free(sum);
  free(r01);
}
END_TEST

/* ---- allocation failures ---- */

static tu_fault fa;

START_TEST(t_allocation_failures) {
  fsdpa_allocator al = tu_fault_allocator(&fa);
  fa.outstanding = 0;
  fa.fail_at = 0;
  fsdpa_ctx *c[3];
  build_a(c, &al);
  int done[4] = {0, 0, 0, 0}, failed[4] = {0, 0, 0, 0};
  char *sums[3] = {NULL, NULL, NULL};
  size_t lens[3];
  for (int i = 0; i < 3; i++) {
    ck_assert_int_eq(fsdpa_summary_write(c[i], NULL, &sums[i], &lens[i]), FSDPA_OK);
  }
  size_t ml;
  char *merged = merge_n((const char *const *)sums, lens, 3, &ml);
  fsdpa_summary_options so;
  fsdpa_summary_options_init(&so);
  so.allocator = &al;
  for (fa.fail_at = 1; fa.fail_at < 20000 && !(done[0] && done[1] && done[2] && done[3]); fa.fail_at++) {
    for (int k = 0; k < 4; k++) {
      if (done[k]) continue;
      fa.calls = 0;
      char *out = NULL;
      fsdpa_status st;
      long long before = fa.outstanding;
      fsdpa_error err;
      fsdpa_error_init(&err);
      if (k == 0) {
        st = fsdpa_report(c, NULL, 3, NULL, &out, NULL, &err);
      } else if (k == 1) {
        st = fsdpa_summary_write(c[1], "x", &out, NULL);
        err.status = st;
      } else if (k == 2) {
        st = fsdpa_summary_merge((const char *const *)sums, lens, 3, &so, &out, NULL, &err);
      } else {
        st = fsdpa_summary_report(merged, ml, &so, NULL, &out, NULL, &err);
      }
      ck_assert_int_eq(err.status, st);
      if (st) {
        ck_assert_msg(st == FSDPA_ENOMEM, "call %d fail_at %ld: status %d", k, fa.fail_at, (int)st);
        ck_assert_ptr_null(out);
        /* the message is in the error channel of the kind of call */
        ck_assert_msg(k == 1 ? fsdpa_errmsg(c[1])[0] != 0 : err.message[0] != 0, "call %d fail_at %ld: no message",
                      k, fa.fail_at);
        failed[k] = 1;
        if (k >= 2) ck_assert_int_eq(fa.outstanding, before);  /* no leak on the failure path */
      } else {
        fsdpa_free(out);
        if (fa.calls < fa.fail_at) done[k] = 1;
      }
    }
  }
  fa.fail_at = 0;
  for (int k = 0; k < 4; k++) {
    ck_assert_msg(done[k], "call %d never completed", k);
    ck_assert_msg(failed[k], "call %d never failed", k);
  }
  /* the contexts still work after all those failures */
  fsdpa_crossrank x = xr_query(c, 3);
  ck_assert_int_eq(x.straggler_rank, 1);
  fsdpa_free(merged);
  for (int i = 0; i < 3; i++) fsdpa_free(sums[i]);
  free_all(c, 3);
  ck_assert_int_eq(fa.outstanding, 0);
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
  fsdpa_crossrank x = xr_query(c, 2);
  ck_assert_uint_eq(x.unmatched, 0);
  ck_assert_uint_eq(x.collectives + x.unsynchronized, 10);
  ck_assert_uint_eq(x.collectives, 4);
  ck_assert_uint_eq(x.unsynchronized, 6);
  ck_assert_uint_eq(x.steps, 2);
  ck_assert_int_eq(x.reference_rank, 0);
  ck_assert_int_eq(x.straggler_rank, 1);
  ck_assert_uint_eq(x.straggler_late_steps, 2);
  ck_assert_int_eq(x.straggler_max_delay_ns, 22320 * US);
  fsdpa_crossrank_rank rr = xr_rank(c, 2, 1);
  ck_assert_int_eq(rr.clock_offset_ns, 8 * US);  /* same host: the clocks agree to 8 us */
  ck_assert_uint_eq(rr.last_count, 4);
  const char *paths[2] = {p0, p1};
  char *rep = report_json(c, 2, paths, NULL);
  ck_assert(tj_str_is(rep, "cross_rank.matched_by", "ordinal"));
  ck_assert_int_eq(tj_i64(rep, "cross_rank.by_collective.[collective=AllGather].count"), 2);
  ck_assert_int_eq(tj_i64(rep, "cross_rank.by_collective.[collective=AllReduce].count"), 2);
  ck_assert(!tj_has(rep, "cross_rank.by_collective.[collective=AllToAll]"));
  ck_assert_uint_eq(tj_count(rep, "cross_rank.by_collective"), 2);
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
    size_t tl;
    char *truth = read_text(tp, &tl);
    double off = tj_num(truth, "clock_offset_ns");
    if (r == 0) off0 = off;
    srank = tj_num(truth, "straggler.rank");
    delay = tj_num(truth, "straggler.delay_ns");
    free(truth);
    free(tp);
  }
  ck_assert_int_eq((int)srank, straggler);
  fsdpa_crossrank x = xr_query(c, (size_t)ranks);
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
    size_t tl;
    char *truth = read_text(tp, &tl);
    double off = tj_num(truth, "clock_offset_ns");
    fsdpa_crossrank_rank rr = xr_rank(c, (size_t)ranks, (size_t)r);
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
  fsdpa_error err;
  fsdpa_error_init(&err);
  fsdpa_status st = fsdpa_report(c, NULL, n, &o, &out, NULL, &err);
  ck_assert_msg(st == FSDPA_OK, "report: %s", err.message);
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

/* ---- independence of the input order ----
 *
 * Ranks whose numbers are known give the same report whatever order their
 * traces come in: JSON (inputs[] and ranks[] in rank order), text, HTML (for
 * one other order), typed findings, the cross-rank query, and summaries
 * merged in any order (the merged summary itself is the same bytes). */

static char *report_fmt_p(fsdpa_ctx **c, const char *const *paths, size_t n, fsdpa_format f) {
  fsdpa_report_options o;
  fsdpa_report_options_init(&o);
  o.format = f;
  char *out = NULL;
  fsdpa_error err;
  fsdpa_error_init(&err);
  fsdpa_status st = fsdpa_report(c, paths, n, &o, &out, NULL, &err);
  ck_assert_msg(st == FSDPA_OK, "report: %s", err.message);
  return out;
}

static fsdpa_list *findings_of(fsdpa_ctx **c, size_t n) {
  fsdpa_list *l = NULL;
  fsdpa_error err;
  fsdpa_error_init(&err);
  ck_assert_int_eq(fsdpa_report_findings(c, n, &l, &err), FSDPA_OK);
  return l;
}

/* Next permutation in lexicographic order; 0 after the last. */
static int next_perm(size_t *p, size_t n) {
  size_t i = n - 1;
  while (i > 0 && p[i - 1] >= p[i]) i--;
  if (i == 0) return 0;
  size_t j = n - 1;
  while (p[j] <= p[i - 1]) j--;
  size_t t = p[i - 1];
  p[i - 1] = p[j];
  p[j] = t;
  for (size_t a = i, b = n - 1; a < b; a++, b--) {
    t = p[a];
    p[a] = p[b];
    p[b] = t;
  }
  return 1;
}

#define PERM_MAX 8

/* Every permutation of the n inputs (n <= 4), else `shuffles` random ones
 * (fixed seed) plus the reversal. */
static void check_order_independent(fsdpa_ctx **c, const char *const *paths, size_t n, int shuffles) {
  ck_assert_uint_le(n, PERM_MAX);
  char *json = report_fmt_p(c, paths, n, FSDPA_FORMAT_JSON);
  char *text = report_fmt_p(c, paths, n, FSDPA_FORMAT_TEXT);
  fsdpa_list *fl = findings_of(c, n);
  fsdpa_crossrank x0 = xr_query(c, n);
  /* rows in rank order, so do the inputs */
  for (size_t i = 1; i < n; i++) {
    char a[48], b[48];
    snprintf(a, sizeof a, "inputs.%zu.rank", i - 1);
    snprintf(b, sizeof b, "inputs.%zu.rank", i);
    ck_assert_int_lt(tj_i64(json, a), tj_i64(json, b));
    snprintf(a, sizeof a, "cross_rank.per_rank.%zu.rank", i - 1);
    snprintf(b, sizeof b, "cross_rank.per_rank.%zu.rank", i);
    if (tj_has(json, a)) ck_assert_int_lt(tj_i64(json, a), tj_i64(json, b));
  }
  char *sums[PERM_MAX];
  size_t lens[PERM_MAX];
  for (size_t i = 0; i < n; i++) sums[i] = summary_of(c[i], paths ? paths[i] : NULL, &lens[i]);
  size_t ml;
  char *merged = merge_n((const char *const *)sums, lens, n, &ml);
  char *from_sum = report_of(merged, ml, NULL);
  assert_same(json, from_sum, "report of the merged summaries");
  fsdpa_free(from_sum);
  size_t p[PERM_MAX];
  for (size_t i = 0; i < n; i++) p[i] = i;
  unsigned long long rng = 0x9e3779b97f4a7c15ULL;
  int all = n <= 4, tried = 0;
  for (;;) {
    if (all) {
      if (!next_perm(p, n)) break;
    } else if (tried == shuffles) {
      for (size_t i = 0; i < n; i++) p[i] = n - 1 - i;
    } else if (tried > shuffles) {
      break;
    } else {
      for (size_t i = n - 1; i > 0; i--) {
        rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
        size_t j = (size_t)((rng >> 33) % (i + 1)), t = p[i];
        p[i] = p[j];
        p[j] = t;
      }
    }
    tried++;
    fsdpa_ctx *pc[PERM_MAX];
    const char *pp[PERM_MAX], *ps[PERM_MAX];
    size_t pl[PERM_MAX];
    char what[96];
    int k = snprintf(what, sizeof what, "order");
    for (size_t i = 0; i < n; i++) {
      pc[i] = c[p[i]];
      pp[i] = paths ? paths[p[i]] : NULL;
      ps[i] = sums[p[i]];
      pl[i] = lens[p[i]];
      k += snprintf(what + k, sizeof what - (size_t)k, " %zu", p[i]);
    }
    char *j2 = report_fmt_p(pc, paths ? pp : NULL, n, FSDPA_FORMAT_JSON);
    assert_same(json, j2, what);
    char *t2 = report_fmt_p(pc, paths ? pp : NULL, n, FSDPA_FORMAT_TEXT);
    assert_same(text, t2, what);
    if (tried == 1) {  /* HTML once: it is the slowest to make */
      char *h1 = report_fmt_p(c, paths, n, FSDPA_FORMAT_HTML);
      char *h2 = report_fmt_p(pc, paths ? pp : NULL, n, FSDPA_FORMAT_HTML);
      assert_same(h1, h2, what);
      fsdpa_free(h1);
      fsdpa_free(h2);
    }
    fsdpa_list *f2 = findings_of(pc, n);
    assert_same_findings(fl, f2, what);
    fsdpa_crossrank x = xr_query(pc, n);
    ck_assert_msg(!memcmp(&x, &x0, sizeof x), "%s: fsdpa_crossrank_query differs", what);
    /* the public rank list stays in the caller's order */
    fsdpa_crossrank_rank rr = xr_rank(pc, n, 0);
    fsdpa_trace_info ti;
    memset(&ti, 0, sizeof ti);
    ti.size = sizeof ti;
    ck_assert_int_eq(fsdpa_trace_info_get(pc[0], &ti), FSDPA_OK);
    ck_assert_int_eq(rr.rank, ti.rank);
    size_t ml2;
    char *m2 = merge_n(ps, pl, n, &ml2);
    assert_same(merged, m2, what);
    char *r2 = report_of(m2, ml2, NULL);
    assert_same(json, r2, what);
    fsdpa_free(r2);
    fsdpa_free(m2);
    fsdpa_list_free(f2);
    fsdpa_free(t2);
    fsdpa_free(j2);
  }
  ck_assert_int_gt(tried, 0);
  for (size_t i = 0; i < n; i++) fsdpa_free(sums[i]);
  fsdpa_free(merged);
  fsdpa_list_free(fl);
  fsdpa_free(text);
  fsdpa_free(json);
}

static void check_against_ref(const char *const *paths, size_t n, const size_t *order);

/* The generator's straggler job: every rank takes part in every collective,
 * so the reference rank is a tie (the lowest rank), and the offsets, waits
 * and the straggler's cost must not move with the order of the files. */
static void check_generated_orders(int ranks, int seed, int shuffles) {
  char name[64], extra[128], out[80];
  snprintf(name, sizeof name, "xr_perm_%d", ranks);
  snprintf(extra, sizeof extra, "--ranks %d --steps 3 --seed %d --straggler-rank 1", ranks, seed);
  snprintf(out, sizeof out, "%s.json.gz", name);
  char *g = tu_tracegen("straggler", extra, out);
  ck_assert_msg(g != NULL, "tools/tracegen/tracegen.py straggler could not run");
  free(g);
  fsdpa_ctx *c[PERM_MAX];
  char *paths[PERM_MAX];
  for (int r = 0; r < ranks; r++) {
    paths[r] = gen_path(name, r, ".json.gz");
    c[r] = feed(paths[r]);
  }
  fsdpa_crossrank x = xr_query(c, (size_t)ranks);
  ck_assert_int_eq(x.reference_rank, 0);
  ck_assert_int_eq(x.straggler_rank, 1);
  check_order_independent(c, (const char *const *)paths, (size_t)ranks, shuffles);
  size_t rev[PERM_MAX];
  for (int r = 0; r < ranks; r++) rev[r] = (size_t)(ranks - 1 - r);
  check_against_ref((const char *const *)paths, (size_t)ranks, rev);
  for (int r = 0; r < ranks; r++) free(paths[r]);
  free_all(c, (size_t)ranks);
}

START_TEST(t_order_independent_generated) {
  check_generated_orders(4, 3, 0);  /* all 24 orders */
  check_generated_orders(6, 7, 6);  /* 6 shuffles and the reversal */
}
END_TEST

/* The corpus's one multi-rank job (hta/trace_filter, 2 ranks), and the same
 * pair with an unrelated rank-3 trace (hta/trace_diff/control): nothing of
 * the third matches the others, which exercises the collectives left out. */
/* The library's cross_rank section against tests/crossrank_ref.py (an
 * independent reading of the raw traces), the traces given in `order`. */
static void check_against_ref(const char *const *paths, size_t n, const size_t *order) {
  char cmd[16384];
  const char *py = getenv("FSDPA_PYTHON");
  int k = snprintf(cmd, sizeof cmd, "'%s' '%s/tests/crossrank_ref.py'", py ? py : "python3", tu_source_root());
  const char *pp[PERM_MAX];
  fsdpa_ctx *c[PERM_MAX];
  for (size_t i = 0; i < n; i++) {
    pp[i] = paths[order[i]];
    k += snprintf(cmd + k, sizeof cmd - (size_t)k, " '%s'", pp[i]);
    c[i] = feed(pp[i]);
  }
  int st;
  char *ref = tu_run(cmd, &st);
  ck_assert_msg(st == 0 && ref, "%s: status %d", cmd, st);
  char *rep = report_json(c, n, pp, NULL);
  ck_assert_int_eq(tj_i64(rep, "cross_rank.reference_rank"), tj_i64(ref, "reference_rank"));
  ck_assert_int_eq(tj_i64(rep, "cross_rank.collectives"), tj_i64(ref, "measured"));
  ck_assert_int_eq(tj_i64(rep, "cross_rank.collectives_seen"), tj_i64(ref, "seen"));
  ck_assert_int_eq(tj_i64(rep, "cross_rank.collectives_matched"), tj_i64(ref, "matched"));
  static const char *const why[] = {"unmatched", "no_seq", "clipped", "unaligned", "unsynchronized"};
  for (size_t w = 0; w < 5; w++) {
    char a[64], b[64];
    snprintf(a, sizeof a, "cross_rank.left_out.%s", why[w]);
    snprintf(b, sizeof b, "left_out.%s", why[w]);
    ck_assert_msg(tj_i64(rep, a) == tj_i64(ref, b), "%s: %lld vs reference %lld", a, (long long)tj_i64(rep, a),
                  (long long)tj_i64(ref, b));
  }
  ck_assert_uint_eq(tj_count(rep, "cross_rank.per_rank"), n);
  for (size_t i = 0; i < n; i++) {
    char a[64], b[64];
    snprintf(a, sizeof a, "cross_rank.per_rank.%zu.rank", i);
    int64_t rk = tj_i64(rep, a);
    snprintf(b, sizeof b, "ranks.%zu", i);
    ck_assert_int_eq(rk, tj_i64(ref, b));  /* rank order */
    snprintf(a, sizeof a, "cross_rank.per_rank.%zu.clock_offset_ns", i);
    snprintf(b, sizeof b, "offsets.%lld", (long long)rk);
    if (tj_has(ref, b)) ck_assert_int_eq(tj_i64(rep, a), tj_i64(ref, b));
    else ck_assert(tj_is_null(rep, a));
    snprintf(a, sizeof a, "cross_rank.per_rank.%zu.last_count", i);
    snprintf(b, sizeof b, "last_count.%lld", (long long)rk);
    ck_assert_int_eq(tj_i64(rep, a), tj_i64(ref, b));
    snprintf(a, sizeof a, "cross_rank.per_rank.%zu.lost_ns", i);
    snprintf(b, sizeof b, "lost.%lld", (long long)rk);
    ck_assert_int_eq(tj_i64(rep, a), tj_i64(ref, b));
  }
  fsdpa_free(rep);
  free(ref);
  free_all(c, n);
}

START_TEST(t_order_independent_corpus) {
  const char *dir = tu_corpus_dir();
  if (!dir) return;
  char p[3][4096];
  snprintf(p[0], sizeof p[0], "%s/hta/trace_filter/sampled_rank-0.json.gz", dir);
  snprintf(p[1], sizeof p[1], "%s/hta/trace_filter/sampled_rank-1.json.gz", dir);
  snprintf(p[2], sizeof p[2], "%s/hta/trace_diff/control/control.json.gz", dir);
  for (int i = 0; i < 3; i++)
    ck_assert_msg(access(p[i], R_OK) == 0, "%s not in the corpus", p[i]);
  fsdpa_ctx *c[3] = {feed(p[0]), feed(p[1]), feed(p[2])};
  const char *paths[3] = {p[0], p[1], p[2]};
  check_order_independent(c, paths, 2, 0);
  check_order_independent(c, paths, 3, 0);
  char *rep = report_json(c, 3, paths, NULL);
  ck_assert_int_eq(tj_i64(rep, "inputs.2.rank"), 3);
  ck_assert_int_eq(tj_i64(rep, "cross_rank.per_rank.2.collectives"), 0);
  ck_assert_int_gt(tj_i64(rep, "cross_rank.collectives_seen"), tj_i64(rep, "cross_rank.collectives_matched"));
  fsdpa_free(rep);
  free_all(c, 3);
  /* the figures themselves, against an independent reading of the traces */
  static const size_t o2[2] = {1, 0}, o3[3] = {2, 0, 1};
  check_against_ref(paths, 2, o2);
  check_against_ref(paths, 3, o3);
}
END_TEST

/* What the straggler verdict rests on.  Scenario A (6 measured collectives,
 * rank 1 late in all 3 steps) plus collectives that cannot be measured:
 * rank 0 has 3 with a Seq no other rank has, inside the common window, and
 * 2 after every other rank's trace has ended (clipped); rank 2 has 2
 * AllGathers without Seq in a process group nobody else has (no partner at
 * their position in the step); ranks 3 and 4 share one collective only with
 * each other, so neither can be aligned.  Seen: 6 + 3 + 2 + 2 + 1 = 14, of
 * which 6 measured: most were left out, so the finding is info, and warning
 * again once the threshold is below 6/14. */
static void build_left_out(fsdpa_ctx **c) {
  build_a(c, NULL);
  for (int k = 0; k < 3; k++)
    add_coll(c[0], 100 + k, K_AR, "allreduce", "0", 100 + k, k * 10 * MS + 3 * MS, 100 * US, NULL);
  for (int k = 0; k < 2; k++)
    add_coll(c[0], 200 + k, K_AR, "allreduce", "0", 200 + k, 40 * MS + k * 5 * MS, 100 * US, NULL);
  for (int k = 0; k < 2; k++)
    add_coll(c[2], 300 + k, K_AG, "allgather", "7", FSDPA_ABSENT, 10 * MS + 8 * MS + k * MS + A_S[2],
             100 * US, NULL);
  for (int r = 3; r < 5; r++) {
    c[r] = new_rank(NULL, r, A_B[0]);
    add_coll(c[r], 1, K_AR, "allreduce", "9", 1, 2 * MS, 100 * US, NULL);
  }
}

START_TEST(t_left_out_and_weak_verdict) {
  fsdpa_ctx *c[5];
  build_left_out(c);
  char *rep = report_json(c, 5, NULL, NULL);
  ck_assert_int_eq(tj_i64(rep, "cross_rank.collectives"), 6);
  ck_assert_int_eq(tj_i64(rep, "cross_rank.collectives_seen"), 14);
  ck_assert_int_eq(tj_i64(rep, "cross_rank.collectives_matched"), 7);
  ck_assert_int_eq(tj_i64(rep, "cross_rank.left_out.unmatched"), 3);
  ck_assert_int_eq(tj_i64(rep, "cross_rank.left_out.no_seq"), 2);
  ck_assert_int_eq(tj_i64(rep, "cross_rank.left_out.clipped"), 2);
  ck_assert_int_eq(tj_i64(rep, "cross_rank.left_out.unaligned"), 1);
  ck_assert_int_eq(tj_i64(rep, "cross_rank.left_out.unsynchronized"), 0);
  ck_assert_int_eq(tj_i64(rep, "cross_rank.unaligned"), 2);  /* kernels */
  ck_assert(tj_is_null(rep, "cross_rank.per_rank.3.clock_offset_ns"));
  /* the verdict is the same; only its weight drops */
  ck_assert_int_eq(tj_i64(rep, "findings.[id=straggler-rank].rank"), 1);
  ck_assert_int_eq(tj_i64(rep, "findings.[id=straggler-rank].cost_ns"), 3 * (50 * US + 2 * A_D) / 2);
  ck_assert(tj_str_is(rep, "findings.[id=straggler-rank].severity", "info"));
  ck_assert(tj_is_bool(rep, "findings.[id=straggler-rank].evidence.weak", 1));
  ck_assert_int_eq(tj_i64(rep, "findings.[id=straggler-rank].evidence.collectives"), 6);
  ck_assert_int_eq(tj_i64(rep, "findings.[id=straggler-rank].evidence.collectives_seen"), 14);
  ck_assert_int_eq(tj_i64(rep, "findings.[id=straggler-rank].evidence.collectives_matched"), 7);
  ck_assert_int_eq(tj_i64(rep, "findings.[id=straggler-rank].evidence.left_out.clipped"), 2);
  char *detail = tj_str(rep, "findings.[id=straggler-rank].detail");
  ck_assert_msg(strstr(detail, "rests on those 6 collectives, out of 14 seen on any rank (7 found on 2 ranks or more)") &&
                    strstr(detail, "3 found on one rank only (a Seq no other rank has)") &&
                    strstr(detail, "2 found on one rank only (no Seq") && strstr(detail, "2 clipped at a trace edge") &&
                    strstr(detail, "1 on ranks whose clocks could not be aligned") &&
                    !strstr(detail, "not ending together") && strstr(detail, "Most collectives were left out"),
                "detail: %s", detail);
  free(detail);
  fsdpa_free(rep);
  check_order_independent(c, NULL, 5, 6);
  /* the threshold is the lowest rank's parameter: 6/14 is above 40 % */
  ck_assert_int_eq(fsdpa_param_set(c[0], "crossrank.straggler_min_used_ppm", "400000"), FSDPA_OK);
  rep = report_json(c, 5, NULL, NULL);
  ck_assert(tj_str_is(rep, "findings.[id=straggler-rank].severity", "warning"));
  ck_assert(tj_is_bool(rep, "findings.[id=straggler-rank].evidence.weak", 0));
  detail = tj_str(rep, "findings.[id=straggler-rank].detail");
  ck_assert_msg(!strstr(detail, "Most collectives were left out"), "detail: %s", detail);
  free(detail);
  fsdpa_free(rep);
  fsdpa_ctx *rev[5] = {c[4], c[3], c[2], c[1], c[0]};
  fsdpa_crossrank x = xr_query(rev, 5);
  ck_assert_int_eq(x.straggler_rank, 1);
  ck_assert_int_eq(x.reference_rank, 0);
  free_all(c, 5);
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
  ck_assert(tu_report_has_finding(merged, "straggler-rank"));
  /* the summaries in other orders, and partial merges of them in other orders */
  static const int orders[3][3] = {{2, 0, 1}, {1, 2, 0}, {2, 1, 0}};
  for (int k = 0; k < 3; k++) {
    const int *o = orders[k];
    snprintf(cmd, sizeof cmd, "'%s' merge '%s' '%s' '%s'", cli, sm[o[0]], sm[o[1]], sm[o[2]]);
    char *m = tu_run(cmd, &st);
    ck_assert_int_eq(st, 0);
    assert_same(direct, m, "CLI merge in another order");
    free(m);
    char part[4096];
    snprintf(part, sizeof part, "%s/tests/gen/xr_cli.part%d.fsum", tu_build_root(), k);
    snprintf(cmd, sizeof cmd, "'%s' merge --summary '%s' '%s' -o '%s'", cli, sm[o[0]], sm[o[1]], part);
    free(tu_run(cmd, &st));
    ck_assert_int_eq(st, 0);
    snprintf(cmd, sizeof cmd, "'%s' merge '%s' '%s'", cli, sm[o[2]], part);
    m = tu_run(cmd, &st);
    ck_assert_int_eq(st, 0);
    assert_same(direct, m, "CLI partial merges in another order");
    free(m);
  }
  /* merge writes every format: the text is analyze's, byte for byte */
  snprintf(cmd, sizeof cmd, "'%s' analyze -f text '%s' '%s' '%s'", cli, tr[0], tr[1], tr[2]);
  char *direct_text = tu_run(cmd, &st);
  ck_assert_int_eq(st, 0);
  ck_assert_ptr_nonnull(strstr(direct_text, "straggler-rank"));
  snprintf(cmd, sizeof cmd, "'%s' merge -f text '%s' '%s' '%s'", cli, sm[2], sm[0], sm[1]);
  char *text = tu_run(cmd, &st);
  ck_assert_int_eq(st, 0);
  assert_same(direct_text, text, "CLI analyze -f text vs merge -f text");
  free(text);
  free(direct_text);
  snprintf(cmd, sizeof cmd, "'%s' merge '%s' 2>/dev/null", cli, tr[0]);  /* a trace is not a summary */
  free(tu_run(cmd, &st));
  ck_assert_int_eq(WEXITSTATUS(st), 3);
  free(direct);
  free(merged);
  snprintf(cmd, sizeof cmd, "'%s' merge --fail-on warning '%s' '%s' '%s' >/dev/null", cli, sm[0], sm[1], sm[2]);
  free(tu_run(cmd, &st));
  ck_assert_int_eq(WEXITSTATUS(st), 1);
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
  ck_assert(tu_report_has_finding(direct, "straggler-rank"));
  const char *variants[] = {"--low-memory", "--low-memory -j 2", "--low-memory -j 3"};
  for (int k = 0; k < 3; k++) {
    snprintf(cmd, sizeof cmd, "'%s' analyze -f json %s '%s' '%s' '%s'", cli, variants[k], tr[2], tr[0], tr[1]);
    char *o = run_ok(cmd);
    /* other input order: the same report (ranks in rank order) */
    assert_same(direct, o, variants[k]);
    ck_assert_int_eq(tj_i64(o, "inputs.0.rank"), 0);
    ck_assert_int_eq(tj_i64(o, "ranks.0.rank"), 0);
    free(o);
    snprintf(cmd, sizeof cmd, "'%s' analyze -f json %s '%s' '%s' '%s'", cli, variants[k], tr[0], tr[1], tr[2]);
    o = run_ok(cmd);
    assert_same(direct, o, variants[k]);
    free(o);
  }
  int st;
  /* --low-memory writes every format: the text is analyze's, byte for byte */
  snprintf(cmd, sizeof cmd, "'%s' analyze -f text '%s' '%s' '%s'", cli, tr[0], tr[1], tr[2]);
  char *direct_text = run_ok(cmd);
  ck_assert_ptr_nonnull(strstr(direct_text, "straggler-rank"));
  snprintf(cmd, sizeof cmd, "'%s' analyze -f text --low-memory -j 2 '%s' '%s' '%s'", cli, tr[1], tr[2], tr[0]);
  char *text = run_ok(cmd);
  assert_same(direct_text, text, "analyze -f text vs --low-memory -j 2");
  free(text);
  free(direct_text);
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
  } else {
    snprintf(cmd, sizeof cmd, "'%s' analyze -f json '%s' '%s'", cli, p0, p1);
    char *a = run_ok(cmd);
    snprintf(cmd, sizeof cmd, "'%s' analyze -f json --low-memory -j 2 '%s' '%s'", cli, p0, p1);
    char *b = run_ok(cmd);
    ck_assert_int_eq(tj_i64(a, "inputs.1.rank"), 1);
    ck_assert_int_eq(tj_i64(a, "ranks.1.rank"), 1);
    assert_same(a, b, "rankless --low-memory");
    free(a);
    free(b);
  }
  /* --fail-on: the straggler-rank finding is a warning, with and without --low-memory */
  const char *fail_variants[] = {"--low-memory", ""};
  for (int k = 0; k < 2; k++) {
    snprintf(cmd, sizeof cmd, "'%s' analyze -f json %s --fail-on warning '%s' '%s' '%s' >/dev/null", cli,
             fail_variants[k], tr[0], tr[1], tr[2]);
    free(tu_run(cmd, &st));
    ck_assert_msg(WEXITSTATUS(st) == 1, "analyze %s --fail-on warning: exit %d", fail_variants[k], WEXITSTATUS(st));
  }
}
END_TEST

int main(void) {
  Suite *s = suite_create("crossrank");
  TU_CASE(s, "crossrank", 0, NULL, t_seq_match_offsets_transfer_wait_straggler,
          t_between_feeds_and_single_rank, t_null_context_error, t_ordinal_match_per_type_and_step,
          t_annotation_types_and_unsynchronized, t_straggler_rule, t_summary_merge_equals_analyze_synthetic,
          t_summary_parse_errors, t_summary_error_offset, t_summary_v01, t_allocation_failures,
          t_hta_sampled_two_ranks, t_generated_straggler, t_cli_summarize_merge, t_rank_cache_same_reports,
          t_cli_low_memory, t_order_independent_generated, t_order_independent_corpus,
          t_left_out_and_weak_verdict);
  return tu_run_suite(s);
}
