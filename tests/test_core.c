/* Core: interval module, interning, classification, allocator, the
 * structured event feed, steps/streams/timeline queries, params, report. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "testutil.h"
#include "ctx.h"
#include "events/classify.h"
#include "util/interval.h"
#include "util/intern.h"
#include "util/sort.h"
#include "util/alloc.h"
#include <stdint.h>
#ifdef __linux__
#include <sys/mman.h>
#endif

START_TEST(t_union_merges_overlap_and_touching) {
  iv a[] = {{10, 20}, {0, 5}, {15, 30}, {30, 31}, {40, 40}, {50, 60}};
  size_t n = iv_union(a, 6);
  ck_assert_uint_eq(n, 3);
  ck_assert_int_eq(a[0].s, 0);
  ck_assert_int_eq(a[0].e, 5);
  ck_assert_int_eq(a[1].s, 10);
  ck_assert_int_eq(a[1].e, 31);
  ck_assert_int_eq(iv_total(a, n), 5 + 21 + 10);
}
END_TEST

START_TEST(t_intersect_subtract_gaps) {
  iv a[] = {{0, 10}, {20, 30}};
  iv b[] = {{5, 25}};
  ck_assert_int_eq(iv_intersect_len(a, 2, b, 1), 5 + 5);
  iv out[4];
  size_t n = iv_subtract(a, 2, b, 1, out);
  ck_assert_uint_eq(n, 2);
  ck_assert_int_eq(out[0].s, 0);
  ck_assert_int_eq(out[0].e, 5);
  ck_assert_int_eq(out[1].s, 25);
  ck_assert_int_eq(out[1].e, 30);
  n = iv_gaps(a, 2, -5, 40, out);
  ck_assert_uint_eq(n, 3);
  ck_assert_int_eq(out[0].s, -5);
  ck_assert_int_eq(out[1].s, 10);
  ck_assert_int_eq(out[1].e, 20);
  ck_assert_int_eq(out[2].s, 30);
  ck_assert_int_eq(iv_len_in(a, 2, 5, 25), 5 + 5);
  n = iv_intersect(a, 2, b, 1, out);
  ck_assert_uint_eq(n, 2);
  ck_assert_int_eq(out[1].e, 25);
}
END_TEST

START_TEST(t_intern_dedups_and_grows) {
  fa_alloc a;
  fa_init(&a, NULL, 0);
  intern_table t;
  intern_init(&t);
  char buf[32];
  for (int i = 0; i < 5000; i++) {
    snprintf(buf, sizeof buf, "name-%d", i);
    ck_assert_uint_eq(intern_put(&a, &t, buf, strlen(buf)), (uint32_t)i);
  }
  ck_assert_uint_eq(intern_put(&a, &t, "name-42", 7), 42);
  ck_assert_str_eq(intern_str(&t, 4999), "name-4999");
  ck_assert_uint_eq(intern_find(&t, "nope", 4), INTERN_NONE);
  char big[100000];
  memset(big, 'x', sizeof big);
  uint32_t id = intern_put(&a, &t, big, sizeof big);
  ck_assert_uint_eq(intern_len(&t, id), sizeof big);
  intern_free(&a, &t);
  ck_assert_uint_eq(a.used, 0);
}
END_TEST

START_TEST(t_classify_kernels_and_apis) {
  struct { const char *n; int comm, coll; } K[] = {
      {"ncclKernel_AllGather_RING_LL_Sum_int8_t(ncclDevComm*, unsigned long, ncclWork*)", 1, COLL_ALLGATHER},
      {"ncclDevKernel_ReduceScatter_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)", 1, COLL_REDUCESCATTER},
      {"ncclAllReduceRingLLKernel_sum_f32(ncclColl)", 1, COLL_ALLREDUCE},
      {"ncclSymkDevKernel_AllGather_LL(ncclSymkDevWorkArgs4K)", 1, COLL_ALLGATHER},
      {"ncclDevKernel_Generic(ncclDevKernelArgsStorage<4096ul>)", 1, COLL_GENERIC},
      {"ncclDevKernel_SendRecv(ncclDevKernelArgsStorage<4096ul>)", 1, COLL_SENDRECV},
      {"rcclAllReduceKernel", 1, COLL_ALLREDUCE},
      {"void at::native::elementwise_kernel<128, 2>(int, Reduce)", 0, 0},
      {"sm90_xmma_gemm_bf16bf16_bf16f32", 0, 0},
  };
  for (size_t i = 0; i < sizeof K / sizeof K[0]; i++) {
    uint32_t f = classify_name(K[i].n, strlen(K[i].n));
    ck_assert_msg(((f & NC_COMM) != 0) == K[i].comm, "%s", K[i].n);
    if (K[i].comm) ck_assert_int_eq(nc_coll(f), K[i].coll);
  }
  ck_assert(classify_name("cudaLaunchKernel", 16) & NC_LAUNCH);
  ck_assert(classify_name("cuLaunchKernelEx", 16) & NC_LAUNCH);
  ck_assert(classify_name("hipExtModuleLaunchKernel", 24) & NC_LAUNCH);
  ck_assert(classify_name("cudaStreamSynchronize", 21) & NC_SYNC);
  ck_assert(classify_name("hipMalloc", 9) & NC_MALLOC);
  ck_assert(classify_name("cudaFree", 8) & NC_FREE);
  ck_assert(!(classify_name("cudaFreeHost", 12) & NC_MALLOC));
  ck_assert(classify_name("ProfilerStep#12", 15) & NC_STEP);
  ck_assert_int_eq(step_number("ProfilerStep#12", 15), 12);
  ck_assert(classify_name("FSDP::all_gather (layers.3)", 27) & NC_FSDP2);
  ck_assert(classify_name("FullyShardedDataParallel._pre_backward_hook", 43) & NC_FSDP1);
  ck_assert(classify_name("autograd::engine::evaluate_function: MmBackward0", 48) & NC_BACKWARD);
  ck_assert_int_eq(coll_type_from_arg("_allgather_base", 15), COLL_ALLGATHER);
  ck_assert_int_eq(coll_type_from_arg("reduce_scatter_tensor_coalesced", 31), COLL_REDUCESCATTER);
  ck_assert_int_eq(coll_type_from_arg("allreduce", 9), COLL_ALLREDUCE);
  ck_assert_int_eq(dtype_size("BFloat16", 8), 2);
  ck_assert_int_eq(classify_cat("kernel", 6, 'X', "k", 1), RK_KERNEL);
  ck_assert_int_eq(classify_cat("Kernel", 6, 'X', "k", 1), RK_KERNEL);
  ck_assert_int_eq(classify_cat("Runtime", 7, 'X', "k", 1), RK_RUNTIME);
  ck_assert_int_eq(classify_cat("Operator", 8, 'X', "k", 1), RK_CPU_OP);
  ck_assert_int_eq(classify_cat("cpu_instant_event", 17, 'i', "[memory]", 8), RK_MEM);
  ck_assert_int_eq(classify_cat(NULL, 0, 'i', "[memory]", 8), RK_MEM);
  ck_assert_int_eq(classify_cat("python_function", 15, 'X', "f", 1), RK_OTHER);
}
END_TEST

static int nallocs, fail_at;
static void *t_malloc(void *ud, size_t n) { (void)ud; if (++nallocs == fail_at) return NULL; return malloc(n); }
static void *t_realloc(void *ud, void *p, size_t o, size_t n) { (void)ud; (void)o; if (++nallocs == fail_at) return NULL; return realloc(p, n); }
static void t_free(void *ud, void *p, size_t n) { (void)ud; (void)n; free(p); }

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

START_TEST(t_struct_feed_steps_streams_density) {
  fsdpa_ctx *c = NULL;
  ck_assert_int_eq(fsdpa_ctx_new(&c, NULL), FSDPA_OK);
  fsdpa_trace_info ti;
  fsdpa_trace_info_init(&ti);
  ti.base_time_ns = 1000000;
  ti.rank = 3;
  ck_assert_int_eq(fsdpa_trace_info_set(c, &ti), FSDPA_OK);
  add_x(c, "user_annotation", "ProfilerStep#7", 10, 10, 0, 1000, FSDPA_ABSENT);
  add_x(c, "user_annotation", "ProfilerStep#8", 10, 10, 1000, 1000, FSDPA_ABSENT);
  /* stream 7: two overlapping kernels [100,300) [200,400) and one [600,700) */
  add_x(c, "kernel", "k1", 0, 7, 100, 200, 1);
  add_x(c, "kernel", "k2", 0, 7, 200, 200, 2);
  add_x(c, "kernel", "k3", 0, 7, 600, 100, 3);
  /* comm stream 20 */
  add_x(c, "kernel", "ncclDevKernel_AllGather_RING_LL(x)", 0, 20, 350, 300, 4);
  add_x(c, "python_function", "f", 10, 10, 0, 5, FSDPA_ABSENT);
  fsdpa_stats s = {sizeof s};
  ck_assert_int_eq(fsdpa_stats_get(c, &s), FSDPA_OK);
  ck_assert_uint_eq(s.events, 7);
  ck_assert_uint_eq(s.kernels, 4);
  ck_assert_uint_eq(s.annotations, 2);
  ck_assert_uint_eq(s.other, 1);
  ck_assert_uint_eq(fsdpa_step_count(c), 2);
  fsdpa_step st = {sizeof st};
  ck_assert_int_eq(fsdpa_get_step(c, 1, &st), FSDPA_OK);
  ck_assert_int_eq(st.number, 8);
  ck_assert_int_eq(st.start_ns, 1001000);
  ck_assert_uint_eq(fsdpa_stream_count(c), 2);
  fsdpa_stream_info si = {sizeof si};
  ck_assert_int_eq(fsdpa_get_stream(c, 0, &si), FSDPA_OK);
  ck_assert_int_eq(si.stream, 7);
  ck_assert_int_eq(si.busy_ns, 300 + 100);
  ck_assert_int_eq(si.role, FSDPA_ROLE_COMPUTE);
  ck_assert_int_eq(fsdpa_get_stream(c, 1, &si), FSDPA_OK);
  ck_assert_int_eq(si.role, FSDPA_ROLE_COMMUNICATION);
  fsdpa_query q;
  fsdpa_query_init(&q);
  fsdpa_timeline tl = {sizeof tl};
  ck_assert_int_eq(fsdpa_timeline_query(c, &q, &tl), FSDPA_OK);
  /* union: [100,650) + [600,700) -> [100,700) = 600 of span 600 */
  ck_assert_int_eq(tl.span_ns, 600);
  ck_assert_int_eq(tl.busy_ns, 600);
  q.stream = 7;
  ck_assert_int_eq(fsdpa_timeline_query(c, &q, &tl), FSDPA_OK);
  ck_assert_int_eq(tl.busy_ns, 400);
  ck_assert_int_eq(tl.span_ns, 600);
  /* window [1000250, 1000650) absolute on stream 7: [250,400) + [600,650) */
  q.t0_ns = 1000250;
  q.t1_ns = 1000650;
  ck_assert_int_eq(fsdpa_timeline_query(c, &q, &tl), FSDPA_OK);
  ck_assert_int_eq(tl.busy_ns, 150 + 50);
  /* step window */
  fsdpa_query_init(&q);
  q.step = 5;
  ck_assert_int_eq(fsdpa_timeline_query(c, &q, &tl), FSDPA_EINVAL);
  ck_assert_ptr_nonnull(strstr(fsdpa_errmsg(c), "out of range"));
  char *rep = tu_report(c, FSDPA_FORMAT_JSON);
  ck_assert_ptr_nonnull(rep);
  ck_assert_ptr_nonnull(strstr(rep, "\"schema\": \"fsdpa.report/1\""));
  ck_assert_ptr_nonnull(strstr(rep, "\"rank\": 3"));
  ck_assert_ptr_nonnull(strstr(rep, "\"role\": \"communication\""));
  free(rep);
  fsdpa_ctx_free(c);
}
END_TEST

START_TEST(t_params) {
  fsdpa_ctx *c = NULL;
  ck_assert_int_eq(fsdpa_ctx_new(&c, NULL), FSDPA_OK);
  ck_assert_int_eq(fsdpa_param_set(c, "launch.kernel_wait_ns", "20000"), FSDPA_OK);
  ck_assert_int_eq(c->params[P_KERNEL_WAIT_NS], 20000);
  ck_assert_int_eq(fsdpa_param_set(c, "launch.kernel_wait_ns", "2x"), FSDPA_EINVAL);
  ck_assert_int_eq(fsdpa_param_set(c, "no.such", "1"), FSDPA_EINVAL);
  ck_assert_ptr_nonnull(strstr(fsdpa_errmsg(c), "unknown parameter"));
  /* out of range: refused with a message, the value kept */
  ck_assert_int_eq(fsdpa_param_set(c, "launch.kernel_wait_ns", "-1"), FSDPA_EINVAL);
  ck_assert_ptr_nonnull(strstr(fsdpa_errmsg(c), "out of range"));
  ck_assert_int_eq(c->params[P_KERNEL_WAIT_NS], 20000);
  ck_assert_int_eq(fsdpa_param_set(c, "overlap.exposed_min_share_ppm", "2305843009213693953"), FSDPA_EINVAL);
  ck_assert_int_eq(fsdpa_param_set(c, "overlap.exposed_min_share_ppm", "2305843009213693952"), FSDPA_OK);
  ck_assert_int_eq(fsdpa_param_set(c, "allocator.warmup_steps", "-1"), FSDPA_OK);
  ck_assert_int_eq(fsdpa_param_set(c, "allocator.warmup_steps", "-2"), FSDPA_EINVAL);
  ck_assert_ptr_nonnull(strstr(fsdpa_param_list(), "launch.kernel_wait_ns=30000"));
  fsdpa_ctx_free(c);
}
END_TEST

START_TEST(t_bad_args_and_null_safety) {
  fsdpa_ctx_free(NULL);
  fsdpa_free(NULL);
  ck_assert_int_eq(fsdpa_ctx_new(NULL, NULL), FSDPA_EINVAL);
  ck_assert_int_eq(fsdpa_feed(NULL, "x", 1), FSDPA_EINVAL);
  fsdpa_options o;
  fsdpa_options_init(&o);
  o.size = 4;
  fsdpa_ctx *c = NULL;
  ck_assert_int_eq(fsdpa_ctx_new(&c, &o), FSDPA_EINVAL);
  ck_assert_int_eq(fsdpa_ctx_new(&c, NULL), FSDPA_OK);
  fsdpa_event e;
  fsdpa_event_init(&e);
  e.size = 8;
  ck_assert_int_eq(fsdpa_event_add(c, &e), FSDPA_EINVAL);
  ck_assert_str_eq(fsdpa_status_str(FSDPA_EPARSE), "FSDPA_EPARSE: malformed input");
  ck_assert_uint_eq(fsdpa_version(), FSDPA_VERSION_HEX);
  fsdpa_ctx_free(c);
}
END_TEST

/* Custom allocator: every allocation goes through it, a failing allocation
 * gives ENOMEM and the context can still be freed, and a cap gives ELIMIT. */
/* The default allocator's big blocks: contents survive growth in place,
 * growth by moving pages (the address space after the block taken), and
 * shrinking; blocks past 1 MiB start 64 bytes after a 2 MiB boundary (huge
 * pages); the accounting follows every step. */
START_TEST(t_big_blocks) {
  fa_alloc a;
  fa_init(&a, NULL, 0);
  size_t n = (size_t)3 << 20;
  uint32_t *p = fa_malloc(&a, n);
  ck_assert_ptr_nonnull(p);
  ck_assert_uint_eq(a.used, n);
  for (size_t i = 0; i < n / 4; i++) p[i] = (uint32_t)(i * 2654435761u);
#ifdef __linux__
  ck_assert_uint_eq(((uintptr_t)p - 64) % ((uintptr_t)2 << 20), 0);
  /* take the address space right after the block: growing must move it */
  uintptr_t end = ((uintptr_t)p - 64 + n + 64 + ((2u << 20) - 1)) & ~(uintptr_t)((2u << 20) - 1);
  void *blocker = mmap((void *)end, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
#endif
  size_t sizes[] = {(size_t)5 << 20, (size_t)9 << 20, (size_t)9 << 20, (size_t)2 << 20, (size_t)1 << 19, (size_t)3 << 20};
  size_t have = n, keep = n / 4;
  for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
    uint32_t *q = fa_realloc(&a, p, have, sizes[k]);
    ck_assert_ptr_nonnull(q);
    p = q;
    have = sizes[k];
    if (have / 4 < keep) keep = have / 4;
    ck_assert_uint_eq(a.used, have);
    for (size_t i = 0; i < keep; i += 997) ck_assert_uint_eq(p[i], (uint32_t)(i * 2654435761u));
    ck_assert_uint_eq(p[keep - 1], (uint32_t)((keep - 1) * 2654435761u));
    /* the new tail is writable */
    for (size_t i = keep; i < have / 4; i++) p[i] = (uint32_t)(i * 2654435761u);
    keep = have / 4;
#ifdef __linux__
    if (have >= ((size_t)1 << 20)) ck_assert_uint_eq(((uintptr_t)p - 64) % ((uintptr_t)2 << 20), 0);
#endif
  }
  fa_free(&a, p, have);
  ck_assert_uint_eq(a.used, 0);
#ifdef __linux__
  if (blocker != MAP_FAILED) munmap(blocker, 4096);
#endif
}
END_TEST

typedef struct kv2 { int64_t k; uint32_t id, pad; } kv2;
#define KV2_LESS(a, b) ((a)->k < (b)->k || ((a)->k == (b)->k && (a)->id < (b)->id))
FA_SORT_DEFINE(kv2_sort, kv2, KV2_LESS)
static int kv2_cmp(const void *pa, const void *pb) {
  const kv2 *a = pa, *b = pb;
  return KV2_LESS(a, b) ? -1 : KV2_LESS(b, a);
}

/* util/sort.h against qsort on the patterns that break quicksorts: sorted,
 * reversed, all equal, organ pipe, sawtooth, few distinct keys, random. */
START_TEST(t_sort_matches_qsort) {
  enum { N = 5000 };
  static kv2 a[N], b[N];
  uint64_t r = 88172645463325252ull;
  for (int pat = 0; pat < 7; pat++)
    for (size_t n = 0; n <= N; n = n < 40 ? n + 1 : n * 3) {
      for (size_t i = 0; i < n; i++) {
        r ^= r << 13, r ^= r >> 7, r ^= r << 17;
        int64_t k = pat == 0 ? (int64_t)i : pat == 1 ? (int64_t)(n - i) : pat == 2 ? 7
                  : pat == 3 ? (int64_t)(i < n / 2 ? i : n - i) : pat == 4 ? (int64_t)(i % 17)
                  : pat == 5 ? (int64_t)(r % 3) : (int64_t)(r % 1000003) - 500000;
        a[i] = b[i] = (kv2){k, (uint32_t)(r >> 40), 0};
      }
      kv2_sort(a, n);
      if (n) qsort(b, n, sizeof *b, kv2_cmp);
      for (size_t i = 0; i < n; i++) {
        ck_assert_msg(a[i].k == b[i].k && a[i].id == b[i].id, "pattern %d n %zu at %zu", pat, n, i);
      }
    }
}
END_TEST

START_TEST(t_allocator_failure_and_cap) {
  fsdpa_allocator al = {sizeof al, t_malloc, t_realloc, t_free, NULL};
  int saw_fail = 0;
  for (fail_at = 1; fail_at < 400; fail_at++) {
    nallocs = 0;
    fsdpa_options o;
    fsdpa_options_init(&o);
    o.allocator = &al;
    fsdpa_ctx *c = NULL;
    fsdpa_status st = fsdpa_ctx_new(&c, &o);
    if (st) {
      ck_assert_int_eq(st, FSDPA_ENOMEM);
      saw_fail = 1;
      continue;
    }
    char name[32];
    for (int i = 0; i < 50 && st == FSDPA_OK; i++) {
      fsdpa_event e;
      fsdpa_event_init(&e);
      e.ph = 'X';
      e.cat = "kernel";
      e.cat_len = 6;
      snprintf(name, sizeof name, "k%d", i);
      e.name = name;
      e.name_len = strlen(name);
      e.pid = 0;
      e.tid = i % 3;
      e.ts_ns = i * 10;
      e.dur_ns = 5;
      st = fsdpa_event_add(c, &e);
    }
    if (st == FSDPA_OK) {
      char *rep = NULL;
      st = fsdpa_report(&c, NULL, 1, NULL, &rep, NULL);
      fsdpa_free(rep);
    }
    if (st) {
      ck_assert_int_eq(st, FSDPA_ENOMEM);
      saw_fail = 1;
    }
    fsdpa_ctx_free(c);
    if (!st && nallocs < fail_at) break;  /* ran to completion */
  }
  ck_assert(saw_fail);
  fail_at = 0;
  fsdpa_options o;
  fsdpa_options_init(&o);
  o.max_memory_bytes = 64 * 1024;
  fsdpa_ctx *c = NULL;
  ck_assert_int_eq(fsdpa_ctx_new(&c, &o), FSDPA_OK);
  fsdpa_status st = FSDPA_OK;
  char name[32];
  for (int i = 0; i < 100000 && st == FSDPA_OK; i++) {
    fsdpa_event e;
    fsdpa_event_init(&e);
    e.ph = 'X';
    e.cat = "cpu_op";
    e.cat_len = 6;
    snprintf(name, sizeof name, "op%d", i);
    e.name = name;
    e.name_len = strlen(name);
    e.pid = 1;
    e.tid = 1;
    e.ts_ns = i;
    e.dur_ns = 1;
    st = fsdpa_event_add(c, &e);
  }
  ck_assert_int_eq(st, FSDPA_ELIMIT);
  ck_assert_ptr_nonnull(strstr(fsdpa_errmsg(c), "memory cap"));
  fsdpa_stats s = {sizeof s};
  fsdpa_stats_get(c, &s);
  ck_assert_uint_le(s.memory_bytes, 64 * 1024);
  fsdpa_ctx_free(c);
}
END_TEST

int main(void) {
  Suite *s = suite_create("core");
  TCase *tc = tcase_create("core");
  tcase_add_test(tc, t_union_merges_overlap_and_touching);
  tcase_add_test(tc, t_intersect_subtract_gaps);
  tcase_add_test(tc, t_intern_dedups_and_grows);
  tcase_add_test(tc, t_classify_kernels_and_apis);
  tcase_add_test(tc, t_struct_feed_steps_streams_density);
  tcase_add_test(tc, t_params);
  tcase_add_test(tc, t_bad_args_and_null_safety);
  tcase_add_test(tc, t_allocator_failure_and_cap);
  tcase_add_test(tc, t_big_blocks);
  tcase_add_test(tc, t_sort_matches_qsort);
  suite_add_tcase(s, tc);
  SRunner *sr = srunner_create(s);
  srunner_run_all(sr, CK_ENV);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
