/* Core: interval module, interning, classification, allocator, the
 * structured event feed, steps/streams/timeline queries, params, report, and
 * the promises of the core API: whole-trace queries in every spelling, query
 * selectors gated by their `fields` bit, the one error channel per kind of
 * call, lists as snapshots, typed findings equal to the report's. */
#include <check.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include "testutil.h"
#include "tjson.h"
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
  /* communication that is not NCCL, by the names the libraries' sources give
   * their kernels; and names that only look like it */
  struct { const char *n; int fam, coll; } F[] = {
      {"void deep_ep::internode::dispatch<false, 8, 2, 4, 1, 2, 24, 8, 4>(int4*, float*)", CF_DEEP_EP, COLL_ALLTOALL},
      {"void deep_ep::intranode::combine<__nv_bfloat16, 8, 768>(int4*)", CF_DEEP_EP, COLL_ALLTOALL},
      {"void deep_ep::internode::notify_dispatch<true>(int const*)", CF_DEEP_EP, COLL_OTHER},
      {"void deep_ep::internode_ll::clean_low_latency_buffer<32>(int*, int)", CF_DEEP_EP, COLL_OTHER},
      {"void vllm::cross_device_reduce_1stage<__nv_bfloat16, 8>(vllm::RankData*)", CF_CUSTOM_AR, COLL_ALLREDUCE},
      {"void sglang::cross_device_reduce_2stage<float, 4>(sglang::RankData*)", CF_CUSTOM_AR, COLL_ALLREDUCE},
      {"void quickreduce::allreduce_prototype_twoshot<quickreduce::CodecFP>(int)", CF_QUICKREDUCE, COLL_ALLREDUCE},
      {"void aiter::allreduce_prototype_twoshot<aiter::AllReduceTwoshot<__half>, __half>(__half const*)", CF_QUICKREDUCE,
       COLL_ALLREDUCE},
      {"void tensorrt_llm::kernels::oneShotAllReduceKernel<__nv_bfloat16, 8>(AllReduceParams)", CF_TRTLLM_AR, COLL_ALLREDUCE},
      {"void (anonymous namespace)::multimem_all_reduce_kernel<16, 8>(c10::BFloat16*)", CF_SYMM_MEM, COLL_ALLREDUCE},
      {"void (anonymous namespace)::multimem_all_gather_kernel<16>(char*)", CF_SYMM_MEM, COLL_ALLGATHER},
      {"void c10d::symmetric_memory::two_shot_all_reduce_kernel<float, 16>(float**)", CF_SYMM_MEM, COLL_ALLREDUCE},
      {"void c10d::nvshmem_extension::all_to_all_vdev(void*)", CF_NVSHMEM, COLL_OTHER},
      {"void mscclpp::allreduce_kernel<float>(float*)", CF_MSCCLPP, COLL_OTHER},
      {"userbuffers_fp16_sum_inplace_gpu_rr_rs", CF_USERBUFFERS, COLL_OTHER},
      {"ncclDevKernel_AllGather_RING_LL(ncclDevKernelArgsStorage<4096ul>)", CF_NCCL, COLL_ALLGATHER},
      {"rcclAllReduceKernel", CF_RCCL, COLL_ALLREDUCE},
      {"_combined_routing_compute", CF_NONE, 0},
      {"void deep_ep::layout::get_dispatch_layout<256, 32, 8>(long const*, int*)", CF_NONE, 0},
      {"void flash_fwd_splitkv_combine_kernel<Flash_fwd_kernel_traits<128, 64> >(Flash_fwd_params)", CF_NONE, 0},
      {"void at::native::dispatch_kernel<deep_ep::Foo>(int)", CF_NONE, 0},
      {"moe_align_block_size_kernel_combine", CF_NONE, 0},
  };
  for (size_t i = 0; i < sizeof F / sizeof F[0]; i++) {
    uint32_t f = classify_name(F[i].n, strlen(F[i].n));
    int fam = classify_comm_family(F[i].n, strlen(F[i].n));
    ck_assert_msg(fam == F[i].fam, "%s: family %d", F[i].n, fam);
    ck_assert_msg(((f & NC_COMM) != 0) == (F[i].fam != CF_NONE), "%s", F[i].n);
    if (F[i].fam) ck_assert_msg(nc_coll(f) == F[i].coll, "%s: coll %d", F[i].n, nc_coll(f));
  }
  ck_assert_str_eq(comm_family_name(CF_DEEP_EP), "deep_ep");
  /* provenance sources and GEMMs */
  static const char *const OPS[] = {"record_param_comms", "nccl:all_reduce", "c10d::allreduce_",
                                    "_c10d_functional::all_gather_into_tensor", "symm_mem::one_shot_all_reduce",
                                    "_C_custom_ar::all_reduce", "vllm::all_reduce", "## dispatch ##", "combine"};
  for (size_t i = 0; i < sizeof OPS / sizeof OPS[0]; i++)
    ck_assert_msg(classify_name(OPS[i], strlen(OPS[i])) & NC_COMM_OP, "%s", OPS[i]);
  static const char *const NOT_OPS[] = {"## alltoall_fwd_single ##", "FSDP::all_gather", "aten::mm",
                                        "dispatch_tokens", "gloo:all_reduce"};
  for (size_t i = 0; i < sizeof NOT_OPS / sizeof NOT_OPS[0]; i++)
    ck_assert_msg(!(classify_name(NOT_OPS[i], strlen(NOT_OPS[i])) & NC_COMM_OP), "%s", NOT_OPS[i]);
  ck_assert(classify_name("sm90_xmma_gemm_bf16bf16_bf16f32", 31) & NC_GEMM);
  ck_assert(classify_name("nvjet_tst_128x256_64x4_1x2_h_bz_coopB_TNT", 41) & NC_GEMM);
  ck_assert(!(classify_name("_combined_routing_compute", 25) & NC_GEMM));
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

static tu_fault fa;

START_TEST(t_struct_feed_steps_streams_density) {
  fsdpa_ctx *c = NULL;
  ck_assert_int_eq(fsdpa_ctx_new(&c, NULL), FSDPA_OK);
  fsdpa_trace_info ti;
  fsdpa_trace_info_init(&ti);
  ti.base_time_ns = 1000000;
  ti.rank = 3;
  ck_assert_int_eq(fsdpa_trace_info_set(c, &ti), FSDPA_OK);
  tu_add_x(c, "user_annotation", "ProfilerStep#7", 10, 10, 0, 1000, FSDPA_ABSENT);
  tu_add_x(c, "user_annotation", "ProfilerStep#8", 10, 10, 1000, 1000, FSDPA_ABSENT);
  /* stream 7: two overlapping kernels [100,300) [200,400) and one [600,700) */
  tu_add_x(c, "kernel", "k1", 0, 7, 100, 200, 1);
  tu_add_x(c, "kernel", "k2", 0, 7, 200, 200, 2);
  tu_add_x(c, "kernel", "k3", 0, 7, 600, 100, 3);
  /* comm stream 20 */
  tu_add_x(c, "kernel", "ncclDevKernel_AllGather_RING_LL(x)", 0, 20, 350, 300, 4);
  tu_add_x(c, "python_function", "f", 10, 10, 0, 5, FSDPA_ABSENT);
  fsdpa_stats s = {sizeof s};
  ck_assert_int_eq(fsdpa_stats_get(c, &s), FSDPA_OK);
  ck_assert_uint_eq(s.events, 7);
  ck_assert_uint_eq(s.kernels, 4);
  ck_assert_uint_eq(s.annotations, 2);
  ck_assert_uint_eq(s.other, 1);
  fsdpa_list *l = NULL;
  ck_assert_int_eq(fsdpa_step_list(c, &l), FSDPA_OK);
  ck_assert_int_eq(fsdpa_list_type(l), FSDPA_LIST_STEPS);
  ck_assert_uint_eq(fsdpa_list_count(l), 2);
  fsdpa_step st;
  TU_ITEM(l, 1, st);
  ck_assert_int_eq(st.number, 8);
  ck_assert_int_eq(st.start_ns, 1001000);
  fsdpa_list_free(l);
  ck_assert_int_eq(fsdpa_stream_list(c, &l), FSDPA_OK);
  ck_assert_int_eq(fsdpa_list_type(l), FSDPA_LIST_STREAMS);
  ck_assert_uint_eq(fsdpa_list_count(l), 2);
  fsdpa_stream_info si;
  TU_ITEM(l, 0, si);
  ck_assert_int_eq(si.stream, 7);
  ck_assert_int_eq(si.busy_ns, 300 + 100);
  ck_assert_int_eq(si.role, FSDPA_ROLE_COMPUTE);
  TU_ITEM(l, 1, si);
  ck_assert_int_eq(si.role, FSDPA_ROLE_COMMUNICATION);
  fsdpa_list_free(l);
  fsdpa_query q;
  fsdpa_query_init(&q);
  fsdpa_timeline tl = {sizeof tl};
  ck_assert_int_eq(fsdpa_timeline_query(c, &q, &tl), FSDPA_OK);
  /* union: [100,650) + [600,700) -> [100,700) = 600 of span 600 */
  ck_assert_int_eq(tl.span_ns, 600);
  ck_assert_int_eq(tl.busy_ns, 600);
  q.fields |= FSDPA_QUERY_STREAM;
  q.stream = 7;
  ck_assert_int_eq(fsdpa_timeline_query(c, &q, &tl), FSDPA_OK);
  ck_assert_int_eq(tl.busy_ns, 400);
  ck_assert_int_eq(tl.span_ns, 600);
  /* window [1000250, 1000650) absolute on stream 7: [250,400) + [600,650) */
  q.fields |= FSDPA_QUERY_T0 | FSDPA_QUERY_T1;
  q.t0_ns = 1000250;
  q.t1_ns = 1000650;
  ck_assert_int_eq(fsdpa_timeline_query(c, &q, &tl), FSDPA_OK);
  ck_assert_int_eq(tl.busy_ns, 150 + 50);
  /* step window */
  fsdpa_query_init(&q);
  q.fields |= FSDPA_QUERY_STEP;
  q.step = 5;
  ck_assert_int_eq(fsdpa_timeline_query(c, &q, &tl), FSDPA_EINVAL);
  ck_assert_ptr_nonnull(strstr(fsdpa_errmsg(c), "out of range"));
  char *rep = tu_report(c, FSDPA_FORMAT_JSON);
  ck_assert_ptr_nonnull(rep);
  ck_assert(tj_str_is(rep, "schema", "fsdpa.report/1"));
  ck_assert_int_eq(tj_i64(rep, "ranks.0.rank"), 3);
  ck_assert_int_eq(tj_i64(rep, "inputs.0.rank"), 3);
  ck_assert(tj_str_is(rep, "ranks.0.streams.[stream=20].role", "communication"));
  ck_assert(tj_str_is(rep, "ranks.0.streams.[stream=7].role", "compute"));
  free(rep);
  fsdpa_ctx_free(c);
}
END_TEST

START_TEST(t_params) {
  fsdpa_ctx *c = NULL;
  ck_assert_int_eq(fsdpa_ctx_new(&c, NULL), FSDPA_OK);
  ck_assert_int_eq(fsdpa_param_set(c, "launch.kernel_wait_ns", "20000"), FSDPA_OK);
  ck_assert_int_eq(c->params[P_KERNEL_WAIT_NS], 20000);
  int64_t v = 0;
  ck_assert_int_eq(fsdpa_param_get(c, "launch.kernel_wait_ns", &v), FSDPA_OK);
  ck_assert_int_eq(v, 20000);
  ck_assert_int_eq(fsdpa_param_set(c, "launch.kernel_wait_ns", "2x"), FSDPA_EINVAL);
  ck_assert_int_eq(fsdpa_param_set(c, "no.such", "1"), FSDPA_EINVAL);
  ck_assert_ptr_nonnull(strstr(fsdpa_errmsg(c), "unknown parameter"));
  ck_assert_int_eq(fsdpa_param_get(c, "no.such", &v), FSDPA_EINVAL);
  ck_assert_str_ne(fsdpa_errmsg(c), "");
  /* out of range: refused with a message, the value kept */
  ck_assert_int_eq(fsdpa_param_set(c, "launch.kernel_wait_ns", "-1"), FSDPA_EINVAL);
  ck_assert_ptr_nonnull(strstr(fsdpa_errmsg(c), "out of range"));
  ck_assert_int_eq(c->params[P_KERNEL_WAIT_NS], 20000);
  ck_assert_int_eq(fsdpa_param_get(c, "launch.kernel_wait_ns", &v), FSDPA_OK);
  ck_assert_int_eq(v, 20000);
  ck_assert_int_eq(fsdpa_param_set(c, "launch.kernel_wait_ns", "2305843009213693953"), FSDPA_EINVAL);
  ck_assert_int_eq(fsdpa_param_set(c, "launch.kernel_wait_ns", "2305843009213693952"), FSDPA_OK);
  /* a share is 0 .. 100 %, in ppm or as a percentage */
  ck_assert_int_eq(fsdpa_param_set(c, "overlap.exposed_min_share_ppm", "1000001"), FSDPA_EINVAL);
  ck_assert_ptr_nonnull(strstr(fsdpa_errmsg(c), "out of range"));
  ck_assert_int_eq(fsdpa_param_set(c, "overlap.exposed_min_share_ppm", "130%"), FSDPA_EINVAL);
  ck_assert_int_eq(fsdpa_param_set(c, "overlap.exposed_min_share_ppm", "1000000"), FSDPA_OK);
  ck_assert_int_eq(fsdpa_param_set(c, "overlap.exposed_min_share_ppm", "12.5%"), FSDPA_OK);
  ck_assert_int_eq(c->params[P_EXPOSED_COMM_SHARE_PPM], 125000);
  ck_assert_int_eq(fsdpa_param_set(c, "launch.kernel_wait_ns", "5%"), FSDPA_EINVAL);
  ck_assert_ptr_nonnull(strstr(fsdpa_errmsg(c), "only a share"));
  ck_assert_int_eq(fsdpa_param_set(c, "overlap.exposed_min_shar_ppm", "5"), FSDPA_EINVAL);
  ck_assert_ptr_nonnull(strstr(fsdpa_errmsg(c), "did you mean 'overlap.exposed_min_share_ppm'?"));
  ck_assert_int_eq(fsdpa_param_set(c, "allocator.warmup_steps", "-1"), FSDPA_OK);
  ck_assert_int_eq(fsdpa_param_set(c, "allocator.warmup_steps", "-2"), FSDPA_EINVAL);
  fsdpa_list *l = NULL;
  ck_assert_int_eq(fsdpa_param_list(&l), FSDPA_OK);
  ck_assert_int_eq(fsdpa_list_type(l), FSDPA_LIST_PARAMS);
  int found = 0;
  for (size_t i = 0; i < fsdpa_list_count(l); i++) {
    fsdpa_param p;
    TU_ITEM(l, i, p);
    if (!strcmp(p.name, "launch.kernel_wait_ns")) {
      found++;
      ck_assert_int_eq(p.default_value, 30000);
    }
  }
  ck_assert_int_eq(found, 1);
  fsdpa_list_free(l);
  ck_assert_int_eq(fsdpa_param_list(NULL), FSDPA_EINVAL);
  fsdpa_ctx_free(c);
}
END_TEST

/* fsdpa_param_list(), fsdpa_param_get() and fsdpa_param_set() describe the
 * same parameters: every listed one reads back its default on a new
 * context, accepts exactly [min_value, max_value] and keeps its value when
 * a write is refused. */
START_TEST(t_param_list_get_set_agree) {
  fsdpa_list *l = NULL;
  ck_assert_int_eq(fsdpa_param_list(&l), FSDPA_OK);
  size_t n = fsdpa_list_count(l);
  ck_assert_uint_gt(n, 10);
  fsdpa_ctx *c = tu_new_ctx();
  char buf[32];
  for (size_t i = 0; i < n; i++) {
    fsdpa_param p;
    TU_ITEM(l, i, p);
    ck_assert_ptr_nonnull(p.name);
    ck_assert_ptr_nonnull(p.description);
    ck_assert_msg(p.description[0] != 0, "%s has no description", p.name);
    ck_assert_msg(p.min_value <= p.default_value && p.default_value <= p.max_value, "%s: %" PRId64 " <= %" PRId64
                  " <= %" PRId64, p.name, p.min_value, p.default_value, p.max_value);
    for (size_t k = 0; k < i; k++) {
      fsdpa_param o;
      TU_ITEM(l, k, o);
      ck_assert_msg(strcmp(o.name, p.name) != 0, "%s listed twice", p.name);
    }
    int64_t v = 12345;
    ck_assert_int_eq(fsdpa_param_get(c, p.name, &v), FSDPA_OK);
    ck_assert_msg(v == p.default_value, "%s: get %" PRId64 ", list default %" PRId64, p.name, v, p.default_value);
    snprintf(buf, sizeof buf, "%" PRId64, p.min_value);
    ck_assert_msg(fsdpa_param_set(c, p.name, buf) == FSDPA_OK, "%s=%s: %s", p.name, buf, fsdpa_errmsg(c));
    ck_assert_int_eq(fsdpa_param_get(c, p.name, &v), FSDPA_OK);
    ck_assert_int_eq(v, p.min_value);
    snprintf(buf, sizeof buf, "%" PRId64, p.max_value);
    ck_assert_msg(fsdpa_param_set(c, p.name, buf) == FSDPA_OK, "%s=%s: %s", p.name, buf, fsdpa_errmsg(c));
    ck_assert_int_eq(fsdpa_param_get(c, p.name, &v), FSDPA_OK);
    ck_assert_int_eq(v, p.max_value);
    if (p.max_value < INT64_MAX) {
      snprintf(buf, sizeof buf, "%" PRId64, p.max_value + 1);
      ck_assert_msg(fsdpa_param_set(c, p.name, buf) == FSDPA_EINVAL, "%s=%s accepted", p.name, buf);
      ck_assert_str_ne(fsdpa_errmsg(c), "");
      ck_assert_int_eq(fsdpa_param_get(c, p.name, &v), FSDPA_OK);
      ck_assert_int_eq(v, p.max_value);
    }
    if (p.min_value > INT64_MIN) {
      snprintf(buf, sizeof buf, "%" PRId64, p.min_value - 1);
      ck_assert_msg(fsdpa_param_set(c, p.name, buf) == FSDPA_EINVAL, "%s=%s accepted", p.name, buf);
      ck_assert_int_eq(fsdpa_param_get(c, p.name, &v), FSDPA_OK);
      ck_assert_int_eq(v, p.max_value);
    }
    snprintf(buf, sizeof buf, "%" PRId64, p.default_value);
    ck_assert_int_eq(fsdpa_param_set(c, p.name, buf), FSDPA_OK);
    ck_assert_int_eq(fsdpa_param_get(c, p.name, &v), FSDPA_OK);
    ck_assert_int_eq(v, p.default_value);
  }
  fsdpa_ctx_free(c);
  fsdpa_list_free(l);
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
  char ver[32];
  snprintf(ver, sizeof ver, "%d.%d.%d", FSDPA_VERSION_MAJOR, FSDPA_VERSION_MINOR, FSDPA_VERSION_PATCH);
  ck_assert_str_eq(fsdpa_version_string(), ver);
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
  fsdpa_allocator al = tu_fault_allocator(&fa);
  int saw_fail = 0;
  for (fa.fail_at = 1; fa.fail_at < 400; fa.fail_at++) {
    fa.calls = 0;
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
      fsdpa_error err;
      fsdpa_error_init(&err);
      st = fsdpa_report(&c, NULL, 1, NULL, &rep, NULL, &err);
      /* a failed report says so in its error, with a message */
      ck_assert_int_eq(err.status, st);
      if (st) ck_assert_str_ne(err.message, "");
      fsdpa_free(rep);
    }
    if (st) {
      ck_assert_int_eq(st, FSDPA_ENOMEM);
      saw_fail = 1;
    }
    fsdpa_ctx_free(c);
    if (!st && fa.calls < fa.fail_at) break;  /* ran to completion */
  }
  ck_assert(saw_fail);
  fa.fail_at = 0;
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

/* ---- the promises of the core API ---- */

static const char *sample_path(void) {
  static char p[4096];
  snprintf(p, sizeof p, "%s/tests/data/sample/fsdp2_sample.json.gz", tu_source_root());
  return p;
}

/* The bundled sample as plain JSON (it has steps, several streams, comm,
 * FSDP units with a backward, blocking calls and memory events). */
static const char *sample_plain(size_t *len) {
  static char *buf;
  static size_t n;
  if (!buf) {
    gzFile f = gzopen(sample_path(), "rb");
    ck_assert_ptr_nonnull(f);
    size_t cap = (size_t)4 << 20;
    buf = malloc(cap);
    ck_assert_ptr_nonnull(buf);
    int r;
    while ((r = gzread(f, buf + n, (unsigned)(cap - n))) > 0) {
      n += (size_t)r;
      if (n == cap) {
        cap *= 2;
        buf = realloc(buf, cap);
        ck_assert_ptr_nonnull(buf);
      }
    }
    gzclose(f);
    ck_assert_uint_gt(n, 1000);
  }
  *len = n;
  return buf;
}

static fsdpa_ctx *sample_ctx(void) {
  fsdpa_ctx *c = tu_new_ctx();
  ck_assert_msg(fsdpa_feed_file(c, sample_path()) == FSDPA_OK, "%s", fsdpa_errmsg(c));
  return c;
}

/* The sample's events followed by garbage: every event is in, and the
 * context's last call failed with a message and a byte offset. */
static fsdpa_ctx *broken_sample_ctx(void) {
  size_t n;
  const char *js = sample_plain(&n);
  fsdpa_ctx *c = tu_new_ctx();
  fsdpa_status st = fsdpa_feed(c, js, n);
  if (st == FSDPA_OK) st = fsdpa_feed(c, " x", 2);
  if (st == FSDPA_OK) st = fsdpa_finish(c);
  ck_assert_int_eq(st, FSDPA_EPARSE);
  ck_assert_str_ne(fsdpa_errmsg(c), "");
  ck_assert_int_eq(fsdpa_error_offset(c), (int64_t)n + 1);
  return c;
}

/* Everything the queries with a query argument say, as numbers, so two
 * spellings of one selection can be compared at once. */
typedef struct digest {
  int64_t v[4096];
  size_t n;
} digest;

static void dput(digest *d, int64_t x) {
  ck_assert_uint_lt(d->n, sizeof d->v / sizeof d->v[0]);
  d->v[d->n++] = x;
}
static void dputd(digest *d, double x) {
  int64_t b;
  memcpy(&b, &x, sizeof b);
  dput(d, b);
}

static void digest_of(fsdpa_ctx *c, const fsdpa_query *q, digest *d) {
  d->n = 0;
  fsdpa_timeline tl = {sizeof tl};
  ck_assert_int_eq(fsdpa_timeline_query(c, q, &tl), FSDPA_OK);
  dput(d, tl.span_ns), dput(d, tl.busy_ns), dputd(d, tl.density), dput(d, (int64_t)tl.activities);
  fsdpa_launch_gaps g = {sizeof g};
  ck_assert_int_eq(fsdpa_launch_gaps_query(c, q, &g), FSDPA_OK);
  dput(d, (int64_t)g.streams), dput(d, (int64_t)g.gaps), dput(d, g.idle_ns), dput(d, g.host_wait_ns);
  dput(d, g.kernel_wait_ns), dput(d, g.other_ns), dput(d, g.p50_ns), dput(d, g.p99_ns), dput(d, g.max_ns);
  dput(d, g.gpu_window_ns), dput(d, (int64_t)g.gpu_gaps), dput(d, g.gpu_idle_ns), dputd(d, g.utilization);
  for (int k = 0; k < FSDPA_GAP_BINS; k++) dput(d, (int64_t)g.counts[k]);
  fsdpa_launch_latency ll = {sizeof ll};
  ck_assert_int_eq(fsdpa_launch_latency_query(c, q, &ll), FSDPA_OK);
  dput(d, (int64_t)ll.ops), dput(d, (int64_t)ll.linked), dput(d, ll.p50_ns), dput(d, ll.total_ns);
  dput(d, (int64_t)ll.kernels_shorter_than_launch), dputd(d, ll.short_kernel_share);
  fsdpa_launch_queue lq = {sizeof lq};
  ck_assert_int_eq(fsdpa_launch_queue_query(c, q, &lq), FSDPA_OK);
  dput(d, (int64_t)lq.ops), dput(d, lq.range_ns), dput(d, lq.max_depth), dputd(d, lq.mean_depth);
  dput(d, lq.depth0_ns), dput(d, lq.starved_ns);
  fsdpa_overlap ov = {sizeof ov};
  ck_assert_int_eq(fsdpa_overlap_query(c, q, &ov), FSDPA_OK);
  dput(d, ov.comm_ns), dput(d, ov.compute_ns), dput(d, ov.overlap_ns), dput(d, ov.exposed_comm_ns);
  dput(d, (int64_t)ov.comm_kernels), dput(d, (int64_t)ov.compute_kernels);
  fsdpa_memory_summary m = {sizeof m};
  ck_assert_int_eq(fsdpa_memory_query(c, q, &m), FSDPA_OK);
  dput(d, (int64_t)m.malloc_calls), dput(d, (int64_t)m.free_calls), dput(d, m.malloc_ns), dput(d, m.gpu_idle_ns);
  dput(d, m.device), dput(d, (int64_t)m.memory_events), dput(d, m.peak_allocated_bytes), dput(d, m.peak_reserved_bytes);
  dput(d, (int64_t)m.steady_steps);
  fsdpa_list *l = NULL;
  for (int by = FSDPA_SPLIT_COLLECTIVE; by <= FSDPA_SPLIT_PROCESS_GROUP; by++) {
    ck_assert_int_eq(fsdpa_comm_split_list(c, q, (fsdpa_comm_split_by)by, &l), FSDPA_OK);
    dput(d, (int64_t)fsdpa_list_count(l));
    for (size_t i = 0; i < fsdpa_list_count(l); i++) {
      fsdpa_comm_split s;
      TU_ITEM(l, i, s);
      dput(d, (int64_t)s.count), dput(d, s.comm_ns), dput(d, s.overlap_ns), dput(d, s.bytes);
    }
    fsdpa_list_free(l);
  }
  ck_assert_int_eq(fsdpa_fsdp_unit_list(c, q, &l), FSDPA_OK);
  dput(d, (int64_t)fsdpa_list_count(l));
  for (size_t i = 0; i < fsdpa_list_count(l); i++) {
    fsdpa_fsdp_unit u;
    TU_ITEM(l, i, u);
    dput(d, (int64_t)u.instances), dput(d, u.comm_ns), dput(d, u.compute_ns), dput(d, u.exposed_measured_ns);
  }
  fsdpa_list_free(l);
  ck_assert_int_eq(fsdpa_sync_wait_list(c, q, &l), FSDPA_OK);
  dput(d, (int64_t)fsdpa_list_count(l));
  for (size_t i = 0; i < fsdpa_list_count(l); i++) {
    fsdpa_sync_wait w;
    TU_ITEM(l, i, w);
    dput(d, (int64_t)w.count), dput(d, w.total_ns), dput(d, w.gpu_idle_ns);
  }
  fsdpa_list_free(l);
  ck_assert_int_eq(fsdpa_sync_call_list(c, q, &l), FSDPA_OK);
  dput(d, (int64_t)fsdpa_list_count(l));
  for (size_t i = 0; i < fsdpa_list_count(l); i++) {
    fsdpa_sync_call s;
    TU_ITEM(l, i, s);
    dput(d, s.start_ns), dput(d, s.gpu_idle_during_ns);
  }
  fsdpa_list_free(l);
  ck_assert_int_eq(fsdpa_sync_step_list(c, q, &l), FSDPA_OK);
  dput(d, (int64_t)fsdpa_list_count(l));
  for (size_t i = 0; i < fsdpa_list_count(l); i++) {
    fsdpa_sync_step s;
    TU_ITEM(l, i, s);
    dput(d, s.index), dput(d, s.total_ns), dput(d, s.gpu_idle_ns), dput(d, s.flagged);
  }
  fsdpa_list_free(l);
  ck_assert_int_eq(fsdpa_memory_device_list(c, q, &l), FSDPA_OK);
  dput(d, (int64_t)fsdpa_list_count(l));
  for (size_t i = 0; i < fsdpa_list_count(l); i++) {
    fsdpa_memory_device m2;
    TU_ITEM(l, i, m2);
    dput(d, m2.device), dput(d, (int64_t)m2.events), dput(d, m2.peak_allocated_bytes), dputd(d, m2.fragmentation);
  }
  fsdpa_list_free(l);
  ck_assert_int_eq(fsdpa_memory_series_list(c, q, FSDPA_ABSENT, 16, &l), FSDPA_OK);
  dput(d, (int64_t)fsdpa_list_count(l));
  for (size_t i = 0; i < fsdpa_list_count(l); i++) {
    fsdpa_memory_point p;
    TU_ITEM(l, i, p);
    dput(d, p.t0_ns), dput(d, p.t1_ns), dput(d, (int64_t)p.events), dput(d, p.allocated_max);
  }
  fsdpa_list_free(l);
  ck_assert_int_eq(fsdpa_memory_step_list(c, q, &l), FSDPA_OK);
  dput(d, (int64_t)fsdpa_list_count(l));
  for (size_t i = 0; i < fsdpa_list_count(l); i++) {
    fsdpa_memory_step s;
    TU_ITEM(l, i, s);
    dput(d, s.index), dput(d, (int64_t)s.malloc_calls), dput(d, s.peak_allocated_bytes);
  }
  fsdpa_list_free(l);
}

static void digest_eq(const digest *a, const digest *b, const char *what) {
  ck_assert_msg(a->n == b->n, "%s: %zu numbers, whole trace %zu", what, a->n, b->n);
  for (size_t i = 0; i < a->n; i++)
    ck_assert_msg(a->v[i] == b->v[i], "%s: number %zu is %" PRId64 ", whole trace %" PRId64, what, i, a->v[i],
                  b->v[i]);
}

/* A zero-initialised query in either spelling, and NULL, is the whole
 * trace: the same numbers as fsdpa_query_init() from every query. */
START_TEST(t_zeroed_queries_are_the_whole_trace) {
  fsdpa_ctx *c = sample_ctx();
  static digest ref, d;
  fsdpa_query qi;
  memset(&qi, 0x5a, sizeof qi);  /* init must set every field */
  fsdpa_query_init(&qi);
  ck_assert_uint_eq(qi.size, sizeof qi);
  ck_assert_uint_eq(qi.fields, 0);
  digest_of(c, &qi, &ref);
  fsdpa_query q1 = {sizeof q1};
  digest_of(c, &q1, &d);
  digest_eq(&d, &ref, "{sizeof q}");
  fsdpa_query q2 = FSDPA_QUERY_INIT;
  ck_assert_uint_eq(q2.size, sizeof q2);
  digest_of(c, &q2, &d);
  digest_eq(&d, &ref, "FSDPA_QUERY_INIT");
  digest_of(c, NULL, &d);
  digest_eq(&d, &ref, "NULL query");
  /* and that is really everything: the timeline of the whole trace covers
   * every stream */
  fsdpa_list *l = NULL;
  ck_assert_int_eq(fsdpa_stream_list(c, &l), FSDPA_OK);
  int64_t first = INT64_MAX, last = INT64_MIN;
  for (size_t i = 0; i < fsdpa_list_count(l); i++) {
    fsdpa_stream_info s;
    TU_ITEM(l, i, s);
    if (s.first_ns < first) first = s.first_ns;
    if (s.last_ns > last) last = s.last_ns;
  }
  fsdpa_list_free(l);
  ck_assert_int_eq(ref.v[0], last - first);
  fsdpa_ctx_free(c);
}
END_TEST

/* Each selector counts only with its `fields` bit: a value without its bit
 * (even one that would be refused, like a step past the end) leaves the
 * whole trace; the same value with its bit selects. */
START_TEST(t_selectors_need_their_bit) {
  fsdpa_ctx *c = sample_ctx();
  static digest ref, d;
  digest_of(c, NULL, &ref);
  fsdpa_list *l = NULL;
  ck_assert_int_eq(fsdpa_step_list(c, &l), FSDPA_OK);
  size_t nsteps = fsdpa_list_count(l);
  ck_assert_uint_ge(nsteps, 3);
  fsdpa_list_free(l);
  fsdpa_timeline whole = {sizeof whole}, t = {sizeof t};
  ck_assert_int_eq(fsdpa_timeline_query(c, NULL, &whole), FSDPA_OK);
  ck_assert_int_gt(whole.busy_ns, 0);
  struct {
    uint32_t bit;
    const char *what;
  } sel[] = {{FSDPA_QUERY_T0, "t0"}, {FSDPA_QUERY_T1, "t1"}, {FSDPA_QUERY_STEP, "step"},
             {FSDPA_QUERY_DEVICE, "device"}, {FSDPA_QUERY_STREAM, "stream"}};
  for (size_t k = 0; k < sizeof sel / sizeof sel[0]; k++) {
    /* values that select nothing (or are refused) when their bit is set */
    fsdpa_query q = FSDPA_QUERY_INIT;
    q.t0_ns = INT64_MAX / 2;
    q.t1_ns = INT64_MIN / 2;
    q.step = (int64_t)nsteps + 100;
    q.device = 12345;
    q.stream = 12345;
    digest_of(c, &q, &d);
    digest_eq(&d, &ref, "every selector set, no bit");
    /* the window bounds set around everything, this selector's value bad
     * and its bit clear */
    fsdpa_query all = q;
    all.t0_ns = INT64_MIN / 2;
    all.t1_ns = INT64_MAX / 2;
    all.fields = (FSDPA_QUERY_T0 | FSDPA_QUERY_T1) & ~sel[k].bit;
    if (sel[k].bit == FSDPA_QUERY_T0) all.t0_ns = INT64_MAX / 2;
    if (sel[k].bit == FSDPA_QUERY_T1) all.t1_ns = INT64_MIN / 2;
    digest_of(c, &all, &d);
    digest_eq(&d, &ref, sel[k].what);
    /* the bit alone makes the value count */
    q.fields = sel[k].bit;
    fsdpa_status st = fsdpa_timeline_query(c, &q, &t);
    if (sel[k].bit == FSDPA_QUERY_STEP) {
      ck_assert_int_eq(st, FSDPA_EINVAL);
      ck_assert_ptr_nonnull(strstr(fsdpa_errmsg(c), "out of range"));
    } else {
      ck_assert_msg(st == FSDPA_OK, "%s: %s", sel[k].what, fsdpa_errmsg(c));
      ck_assert_msg(t.busy_ns == 0 && t.activities == 0, "%s with its bit: busy %" PRId64, sel[k].what, t.busy_ns);
    }
  }
  /* a valid step with and without its bit */
  fsdpa_query q = FSDPA_QUERY_INIT;
  q.step = 1;
  digest_of(c, &q, &d);
  digest_eq(&d, &ref, "step 1 without its bit");
  q.fields = FSDPA_QUERY_STEP;
  ck_assert_int_eq(fsdpa_timeline_query(c, &q, &t), FSDPA_OK);
  ck_assert_int_gt(t.busy_ns, 0);
  ck_assert_int_lt(t.busy_ns, whole.busy_ns);
  /* device 0 (the sample's only one) and stream 7 with and without bits */
  q = (fsdpa_query)FSDPA_QUERY_INIT;
  q.stream = 7;
  digest_of(c, &q, &d);
  digest_eq(&d, &ref, "stream 7 without its bit");
  q.fields = FSDPA_QUERY_STREAM;
  ck_assert_int_eq(fsdpa_timeline_query(c, &q, &t), FSDPA_OK);
  ck_assert_int_gt(t.busy_ns, 0);
  ck_assert_int_lt(t.busy_ns, whole.busy_ns);
  q = (fsdpa_query)FSDPA_QUERY_INIT;
  q.fields = FSDPA_QUERY_DEVICE;
  q.device = 0;
  digest_of(c, &q, &d);
  ck_assert_int_eq(d.v[1], whole.busy_ns);
  fsdpa_ctx_free(c);
}
END_TEST

/* Every public function on one context, called cheaply: variant 0 succeeds,
 * variants 1.. are its EINVAL paths; NO_VARIANT past the last. */
enum {
  OP_TRACE_INFO_SET, OP_TRACE_INFO_GET, OP_STATS, OP_STEPS, OP_STREAMS, OP_TIMELINE, OP_GAPS,
  OP_LATENCY, OP_QUEUE, OP_OVERLAP, OP_SPLITS, OP_UNITS, OP_BACKWARD, OP_BWD_STEPS, OP_BWD_UNITS,
  OP_SYNC_WAITS, OP_SYNC_CALLS, OP_SYNC_STEPS, OP_MEMORY, OP_MEM_DEVICES, OP_MEM_SERIES, OP_MEM_STEPS,
  OP_PARAM_SET, OP_PARAM_GET, OP_SUMMARY, NOPS
};
static const char *const op_names[NOPS] = {
    "fsdpa_trace_info_set", "fsdpa_trace_info_get", "fsdpa_stats_get", "fsdpa_step_list",
    "fsdpa_stream_list", "fsdpa_timeline_query", "fsdpa_launch_gaps_query", "fsdpa_launch_latency_query",
    "fsdpa_launch_queue_query", "fsdpa_overlap_query", "fsdpa_comm_split_list", "fsdpa_fsdp_unit_list",
    "fsdpa_backward_get", "fsdpa_backward_step_list", "fsdpa_backward_unit_list", "fsdpa_sync_wait_list",
    "fsdpa_sync_call_list", "fsdpa_sync_step_list", "fsdpa_memory_query", "fsdpa_memory_device_list",
    "fsdpa_memory_series_list", "fsdpa_memory_step_list", "fsdpa_param_set", "fsdpa_param_get",
    "fsdpa_summary_write"};
#define NO_VARIANT ((fsdpa_status)1)

/* A query with a struct result: 1 NULL out, 2 query size too small, 3 out
 * size too small, 4 step past the end. */
#define STRUCT_QUERY(T, fn)                                          \
  do {                                                               \
    T o_ = {sizeof o_};                                              \
    if (v == 3) o_.size = sizeof(size_t);                            \
    if (v <= 4) st = fn(c, qp, v == 1 ? NULL : &o_);                 \
  } while (0)
/* A query with a list result: 1 NULL out, 2 query size too small, 3 step
 * past the end. */
#define LIST_QUERY(fn)                                               \
  do {                                                               \
    if (v <= 3) st = fn(c, qp, v == 1 ? NULL : &l);                  \
  } while (0)

static fsdpa_status probe(fsdpa_ctx *c, int op, int v) {
  fsdpa_query q = FSDPA_QUERY_INIT, small = FSDPA_QUERY_INIT, bad_step = FSDPA_QUERY_INIT;
  small.size = sizeof(size_t);
  bad_step.fields = FSDPA_QUERY_STEP;
  bad_step.step = 1 << 20;
  int list_query = op == OP_SPLITS || op == OP_UNITS || op == OP_SYNC_WAITS || op == OP_SYNC_CALLS ||
                   op == OP_SYNC_STEPS || op == OP_MEM_DEVICES || op == OP_MEM_SERIES || op == OP_MEM_STEPS;
  const fsdpa_query *qp = v == 2 ? &small : (v == (list_query ? 3 : 4)) ? &bad_step : &q;
  fsdpa_list *l = NULL;
  fsdpa_status st = NO_VARIANT;
  switch (op) {
    case OP_TRACE_INFO_SET: {
      fsdpa_trace_info ti;
      fsdpa_trace_info_init(&ti);  /* all absent: changes nothing */
      if (v == 2) ti.size = sizeof(size_t);
      if (v <= 2) st = fsdpa_trace_info_set(c, v == 1 ? NULL : &ti);
      break;
    }
    case OP_TRACE_INFO_GET: {
      fsdpa_trace_info ti = {sizeof ti};
      if (v == 2) ti.size = sizeof(size_t);
      if (v <= 2) st = fsdpa_trace_info_get(c, v == 1 ? NULL : &ti);
      break;
    }
    case OP_STATS: {
      fsdpa_stats s = {sizeof s};
      if (v == 2) s.size = sizeof(size_t);
      if (v <= 2) st = fsdpa_stats_get(c, v == 1 ? NULL : &s);
      break;
    }
    case OP_STEPS:
      if (v <= 1) st = fsdpa_step_list(c, v == 1 ? NULL : &l);
      break;
    case OP_STREAMS:
      if (v <= 1) st = fsdpa_stream_list(c, v == 1 ? NULL : &l);
      break;
    case OP_TIMELINE: STRUCT_QUERY(fsdpa_timeline, fsdpa_timeline_query); break;
    case OP_GAPS: STRUCT_QUERY(fsdpa_launch_gaps, fsdpa_launch_gaps_query); break;
    case OP_LATENCY: STRUCT_QUERY(fsdpa_launch_latency, fsdpa_launch_latency_query); break;
    case OP_QUEUE: STRUCT_QUERY(fsdpa_launch_queue, fsdpa_launch_queue_query); break;
    case OP_OVERLAP: STRUCT_QUERY(fsdpa_overlap, fsdpa_overlap_query); break;
    case OP_MEMORY: STRUCT_QUERY(fsdpa_memory_summary, fsdpa_memory_query); break;
    case OP_SPLITS:
      /* 4: an unknown grouping */
      if (v <= 4)
        st = fsdpa_comm_split_list(c, qp, v == 4 ? (fsdpa_comm_split_by)7 : FSDPA_SPLIT_COLLECTIVE, v == 1 ? NULL : &l);
      break;
    case OP_UNITS: LIST_QUERY(fsdpa_fsdp_unit_list); break;
    case OP_SYNC_WAITS: LIST_QUERY(fsdpa_sync_wait_list); break;
    case OP_SYNC_CALLS: LIST_QUERY(fsdpa_sync_call_list); break;
    case OP_SYNC_STEPS: LIST_QUERY(fsdpa_sync_step_list); break;
    case OP_MEM_DEVICES: LIST_QUERY(fsdpa_memory_device_list); break;
    case OP_MEM_STEPS: LIST_QUERY(fsdpa_memory_step_list); break;
    case OP_MEM_SERIES:
      /* 4: no buckets */
      if (v <= 4) st = fsdpa_memory_series_list(c, qp, FSDPA_ABSENT, v == 4 ? 0 : 8, v == 1 ? NULL : &l);
      break;
    case OP_BACKWARD: {
      fsdpa_backward b = {sizeof b};
      if (v == 2) b.size = sizeof(size_t);
      if (v <= 2) st = fsdpa_backward_get(c, v == 1 ? NULL : &b);
      break;
    }
    case OP_BWD_STEPS:
      if (v <= 1) st = fsdpa_backward_step_list(c, v == 1 ? NULL : &l);
      break;
    case OP_BWD_UNITS:
      /* 2: a backward step past the end */
      if (v <= 2) st = fsdpa_backward_unit_list(c, v == 2 ? (size_t)1 << 20 : 0, v == 1 ? NULL : &l);
      break;
    case OP_PARAM_SET: {
      static const char *const key[] = {"launch.kernel_wait_ns", "no.such", "launch.kernel_wait_ns", NULL,
                                        "launch.kernel_wait_ns", "launch.kernel_wait_ns"};
      static const char *const val[] = {"30000", "1", "3e4", "1", NULL, "-1"};
      if (v <= 5) st = fsdpa_param_set(c, key[v], val[v]);
      break;
    }
    case OP_PARAM_GET: {
      int64_t x;
      static const char *const key[] = {"launch.kernel_wait_ns", "no.such", NULL, "launch.kernel_wait_ns"};
      if (v <= 3) st = fsdpa_param_get(c, key[v], v == 3 ? NULL : &x);
      break;
    }
    case OP_SUMMARY: {
      char *out = NULL;
      size_t n = 0;
      if (v <= 1) st = fsdpa_summary_write(c, "t", v == 1 ? NULL : &out, &n);
      fsdpa_free(out);
      break;
    }
  }
  fsdpa_list_free(l);
  return st;
}

static void assert_clear(const fsdpa_ctx *c, const char *what, int v) {
  ck_assert_msg(!strcmp(fsdpa_errmsg(c), ""), "%s after variant %d: message [%s] left after a success", what, v,
                fsdpa_errmsg(c));
  ck_assert_msg(fsdpa_error_offset(c) == FSDPA_ABSENT, "%s after variant %d: offset %" PRId64 " left", what, v,
                fsdpa_error_offset(c));
}

/* The error channel of a context: each call clears it on entry, so after a
 * success following a failure the message is "" and the offset ABSENT; each
 * EINVAL path says why. */
START_TEST(t_errors_clear_on_success) {
  /* the queries on a context whose input failed (they still answer) */
  for (int op = 0; op < NOPS; op++) {
    fsdpa_ctx *c = broken_sample_ctx();
    fsdpa_status st = probe(c, op, 0);
    ck_assert_msg(st == FSDPA_OK, "%s: %s (%s)", op_names[op], fsdpa_status_str(st), fsdpa_errmsg(c));
    assert_clear(c, op_names[op], 0);
    int v = 1;
    for (;; v++) {
      st = probe(c, op, v);
      if (st == NO_VARIANT) break;
      ck_assert_msg(st == FSDPA_EINVAL, "%s variant %d: %s", op_names[op], v, fsdpa_status_str(st));
      ck_assert_msg(fsdpa_errmsg(c)[0] != 0, "%s variant %d: EINVAL without a message", op_names[op], v);
      st = probe(c, op, 0);
      ck_assert_msg(st == FSDPA_OK, "%s: %s (%s)", op_names[op], fsdpa_status_str(st), fsdpa_errmsg(c));
      assert_clear(c, op_names[op], v);
    }
    ck_assert_msg(v > 1, "%s: no EINVAL path probed", op_names[op]);
    fsdpa_ctx_free(c);
  }
  /* the input calls, on healthy contexts */
  fsdpa_ctx *c = tu_new_ctx();
  ck_assert_int_eq(fsdpa_feed(c, NULL, 1), FSDPA_EINVAL);
  ck_assert_str_ne(fsdpa_errmsg(c), "");
  ck_assert_int_eq(fsdpa_feed(c, "[", 1), FSDPA_OK);
  assert_clear(c, "fsdpa_feed", 1);
  ck_assert_int_eq(fsdpa_feed(c, "]", 1), FSDPA_OK);
  ck_assert_int_eq(fsdpa_param_set(c, "no.such", "1"), FSDPA_EINVAL);
  ck_assert_str_ne(fsdpa_errmsg(c), "");
  ck_assert_int_eq(fsdpa_finish(c), FSDPA_OK);
  assert_clear(c, "fsdpa_finish", 1);
  fsdpa_ctx_free(c);
  char missing[4200];
  snprintf(missing, sizeof missing, "%s/tests/no-such-trace.json", tu_build_root());
  c = tu_new_ctx();
  ck_assert_int_eq(fsdpa_feed_file(c, NULL), FSDPA_EINVAL);
  ck_assert_str_ne(fsdpa_errmsg(c), "");
  ck_assert_int_eq(fsdpa_feed_file(c, sample_path()), FSDPA_OK);
  assert_clear(c, "fsdpa_feed_file", 1);
  fsdpa_ctx_free(c);
  /* a file that cannot be opened is an input error: the context refuses
   * more input, and its next successful call still clears the message */
  c = tu_new_ctx();
  ck_assert_int_eq(fsdpa_feed_file(c, missing), FSDPA_EIO);
  ck_assert_ptr_nonnull(strstr(fsdpa_errmsg(c), "no-such-trace.json"));
  ck_assert_int_eq(fsdpa_feed_file(c, sample_path()), FSDPA_ESTATE);
  ck_assert_str_ne(fsdpa_errmsg(c), "");
  fsdpa_stats s = {sizeof s};
  ck_assert_int_eq(fsdpa_stats_get(c, &s), FSDPA_OK);
  assert_clear(c, "fsdpa_stats_get after EIO", 0);
  fsdpa_ctx_free(c);
  c = tu_new_ctx();
  ck_assert_int_eq(fsdpa_event_add(c, NULL), FSDPA_EINVAL);
  ck_assert_str_ne(fsdpa_errmsg(c), "");
  fsdpa_event e = tu_x("kernel", "k", 0, 7, 100, 10, 1);
  ck_assert_int_eq(fsdpa_event_add(c, &e), FSDPA_OK);
  assert_clear(c, "fsdpa_event_add", 1);
  e.size = sizeof(size_t);
  ck_assert_int_eq(fsdpa_event_add(c, &e), FSDPA_EINVAL);
  ck_assert_str_ne(fsdpa_errmsg(c), "");
  e.size = sizeof e;
  ck_assert_int_eq(fsdpa_event_add(c, &e), FSDPA_OK);
  assert_clear(c, "fsdpa_event_add", 2);
  fsdpa_ctx_free(c);
  ck_assert_str_eq(fsdpa_errmsg(NULL), "");
}
END_TEST

/* A list is a snapshot: later feeds do not change it, and it outlives its
 * context, strings included. */
START_TEST(t_lists_are_snapshots) {
  fsdpa_ctx *c = tu_new_ctx();
  tu_add_x(c, "user_annotation", "ProfilerStep#1", 10, 10, 0, 1000, FSDPA_ABSENT);
  tu_add_x(c, "user_annotation", "ProfilerStep#2", 10, 10, 1000, 1000, FSDPA_ABSENT);
  tu_add_x(c, "kernel", "k1", 0, 7, 100, 200, 1);
  fsdpa_list *steps = NULL, *streams = NULL, *waits = NULL, *later = NULL;
  ck_assert_int_eq(fsdpa_step_list(c, &steps), FSDPA_OK);
  ck_assert_int_eq(fsdpa_stream_list(c, &streams), FSDPA_OK);
  ck_assert_uint_eq(fsdpa_list_count(steps), 2);
  ck_assert_uint_eq(fsdpa_list_count(streams), 1);
  fsdpa_step s0, s1;
  TU_ITEM(steps, 0, s0);
  TU_ITEM(steps, 1, s1);
  fsdpa_stream_info si0;
  TU_ITEM(streams, 0, si0);
  /* more events: a step before the others, more work on stream 7, a new stream */
  tu_add_x(c, "user_annotation", "ProfilerStep#0", 10, 10, -1000, 1000, FSDPA_ABSENT);
  tu_add_x(c, "kernel", "k2", 0, 7, 400, 200, 2);
  tu_add_x(c, "kernel", "k3", 0, 9, 400, 200, 3);
  tu_build_sync_inferred(c);
  ck_assert_int_eq(fsdpa_step_list(c, &later), FSDPA_OK);
  ck_assert_uint_eq(fsdpa_list_count(later), 4);
  fsdpa_list_free(later);
  ck_assert_int_eq(fsdpa_stream_list(c, &later), FSDPA_OK);
  ck_assert_uint_eq(fsdpa_list_count(later), 2);
  fsdpa_list_free(later);
  ck_assert_uint_eq(fsdpa_list_count(steps), 2);
  ck_assert_uint_eq(fsdpa_list_count(streams), 1);
  fsdpa_step t;
  TU_ITEM(steps, 0, t);
  ck_assert(t.number == s0.number && t.start_ns == s0.start_ns && t.dur_ns == s0.dur_ns);
  ck_assert_int_eq(t.number, 1);
  TU_ITEM(steps, 1, t);
  ck_assert(t.number == s1.number && t.start_ns == s1.start_ns && t.dur_ns == s1.dur_ns);
  fsdpa_stream_info si;
  TU_ITEM(streams, 0, si);
  ck_assert_int_eq(si.busy_ns, si0.busy_ns);
  ck_assert_int_eq(si.busy_ns, 200);
  ck_assert_uint_eq(si.kernels, 1);
  /* a list with strings, kept past the context */
  ck_assert_int_eq(fsdpa_sync_wait_list(c, NULL, &waits), FSDPA_OK);
  size_t nw = fsdpa_list_count(waits);
  ck_assert_uint_eq(nw, 2);
  char names[2][64];
  uint64_t counts[2];
  for (size_t i = 0; i < nw; i++) {
    fsdpa_sync_wait w;
    TU_ITEM(waits, i, w);
    ck_assert_ptr_nonnull(w.api);
    snprintf(names[i], sizeof names[i], "%s", w.api);
    counts[i] = w.count;
  }
  fsdpa_ctx_free(c);
  ck_assert_int_eq(fsdpa_list_type(steps), FSDPA_LIST_STEPS);
  ck_assert_uint_eq(fsdpa_list_count(steps), 2);
  TU_ITEM(steps, 1, t);
  ck_assert(t.number == s1.number && t.start_ns == s1.start_ns && t.dur_ns == s1.dur_ns);
  TU_ITEM(streams, 0, si);
  ck_assert_int_eq(si.busy_ns, si0.busy_ns);
  for (size_t i = 0; i < nw; i++) {
    fsdpa_sync_wait w;
    TU_ITEM(waits, i, w);
    ck_assert_str_eq(w.api, names[i]);
    ck_assert_uint_eq(w.count, counts[i]);
  }
  ck_assert(!strcmp(names[0], "cudaStreamSynchronize") || !strcmp(names[1], "cudaStreamSynchronize"));
  fsdpa_list_free(steps);
  fsdpa_list_free(streams);
  fsdpa_list_free(waits);
}
END_TEST

/* fsdpa_list_get() checks its arguments: index, item and size. */
START_TEST(t_list_get_rejects_bad_index_and_size) {
  fsdpa_ctx *c = tu_new_ctx();
  tu_add_x(c, "user_annotation", "ProfilerStep#1", 10, 10, 0, 1000, FSDPA_ABSENT);
  tu_add_x(c, "user_annotation", "ProfilerStep#2", 10, 10, 1000, 1000, FSDPA_ABSENT);
  fsdpa_list *l = NULL;
  ck_assert_int_eq(fsdpa_step_list(c, &l), FSDPA_OK);
  fsdpa_ctx_free(c);
  ck_assert_uint_eq(fsdpa_list_count(l), 2);
  fsdpa_step s = {sizeof s};
  ck_assert_int_eq(fsdpa_list_get(l, 1, &s), FSDPA_OK);
  ck_assert_int_eq(s.number, 2);
  ck_assert_int_eq(fsdpa_list_get(l, 2, &s), FSDPA_EINVAL);
  ck_assert_int_eq(fsdpa_list_get(l, SIZE_MAX, &s), FSDPA_EINVAL);
  ck_assert_int_eq(fsdpa_list_get(l, 0, NULL), FSDPA_EINVAL);
  ck_assert_int_eq(fsdpa_list_get(NULL, 0, &s), FSDPA_EINVAL);
  /* sizes below the first released size, 0 included (no "0 = current") */
  size_t bad[] = {0, sizeof(size_t), sizeof s - 1};
  for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
    fsdpa_step b;
    memset(&b, 0x5a, sizeof b);
    b.size = bad[k];
    ck_assert_msg(fsdpa_list_get(l, 0, &b) == FSDPA_EINVAL, "size %zu accepted", bad[k]);
    ck_assert_int_eq(b.number, (int64_t)0x5a5a5a5a5a5a5a5aLL);  /* nothing written */
  }
  /* a caller's struct larger than the library's: the bytes past it stay */
  struct {
    fsdpa_step s;
    unsigned char tail[24];
  } big;
  memset(&big, 0xa5, sizeof big);
  big.s.size = sizeof big;
  ck_assert_int_eq(fsdpa_list_get(l, 0, &big), FSDPA_OK);
  ck_assert_uint_eq(big.s.size, sizeof big);
  ck_assert_int_eq(big.s.number, 1);
  ck_assert_int_eq(big.s.dur_ns, 1000);
  for (size_t k = 0; k < sizeof big.tail; k++) ck_assert_uint_eq(big.tail[k], 0xa5);
  fsdpa_list_free(l);
  ck_assert_uint_eq(fsdpa_list_count(NULL), 0);
  ck_assert_int_eq(fsdpa_list_type(NULL), 0);
  fsdpa_list_free(NULL);
}
END_TEST

/* Calls over several contexts report through fsdpa_error: filled by a
 * failure, cleared by the next success. */
START_TEST(t_fsdpa_error_filled_and_cleared) {
  fsdpa_ctx *c = sample_ctx();
  fsdpa_ctx *ctxs[2] = {c, NULL};
  fsdpa_error err;
  fsdpa_error_init(&err);
  ck_assert_uint_eq(err.size, sizeof err);
  ck_assert_int_eq(err.status, FSDPA_OK);
  ck_assert_str_eq(err.message, "");
  ck_assert_int_eq(err.input, FSDPA_ABSENT);
  ck_assert_int_eq(err.offset, FSDPA_ABSENT);
  char *out = (char *)"unchanged";
  size_t len = 0;
  for (int round = 0; round < 2; round++) {
    ck_assert_int_eq(fsdpa_report(ctxs, NULL, 2, NULL, &out, &len, &err), FSDPA_EINVAL);
    ck_assert_int_eq(err.status, FSDPA_EINVAL);
    ck_assert_int_eq(err.input, 1);
    ck_assert_str_ne(err.message, "");
    ck_assert_int_eq(fsdpa_report(ctxs, NULL, 1, NULL, &out, &len, &err), FSDPA_OK);
    ck_assert_int_eq(err.status, FSDPA_OK);
    ck_assert_str_eq(err.message, "");
    ck_assert_uint_eq(strlen(out), len);
    fsdpa_free(out);
  }
  /* the same for the typed findings and the cross-rank calls */
  fsdpa_list *l = NULL;
  ck_assert_int_eq(fsdpa_report_findings(ctxs, 2, &l, &err), FSDPA_EINVAL);
  ck_assert_int_eq(err.status, FSDPA_EINVAL);
  ck_assert_int_eq(err.input, 1);
  ck_assert_str_ne(err.message, "");
  ck_assert_int_eq(fsdpa_report_findings(ctxs, 1, &l, &err), FSDPA_OK);
  ck_assert_int_eq(err.status, FSDPA_OK);
  ck_assert_str_eq(err.message, "");
  fsdpa_list_free(l);
  fsdpa_crossrank xr = {sizeof xr};
  ck_assert_int_eq(fsdpa_crossrank_query(ctxs, 2, &xr, &err), FSDPA_EINVAL);
  ck_assert_str_ne(err.message, "");
  ck_assert_int_eq(fsdpa_crossrank_query(ctxs, 1, &xr, &err), FSDPA_OK);
  ck_assert_int_eq(err.status, FSDPA_OK);
  ck_assert_str_eq(err.message, "");
  ck_assert_int_eq(fsdpa_crossrank_rank_list(ctxs, 2, &l, &err), FSDPA_EINVAL);
  ck_assert_str_ne(err.message, "");
  ck_assert_int_eq(fsdpa_crossrank_rank_list(ctxs, 1, &l, &err), FSDPA_OK);
  ck_assert_int_eq(err.status, FSDPA_OK);
  ck_assert_str_eq(err.message, "");
  fsdpa_list_free(l);
  /* a NULL error is allowed, and so is a failure without one */
  ck_assert_int_eq(fsdpa_report(ctxs, NULL, 2, NULL, &out, &len, NULL), FSDPA_EINVAL);
  ck_assert_int_eq(fsdpa_report(ctxs, NULL, 1, NULL, &out, NULL, NULL), FSDPA_OK);
  fsdpa_free(out);
  /* an error struct smaller than its first size is refused */
  fsdpa_error tiny;
  fsdpa_error_init(&tiny);
  tiny.size = sizeof(size_t);
  ck_assert_int_eq(fsdpa_report(ctxs, NULL, 1, NULL, &out, NULL, &tiny), FSDPA_EINVAL);
  fsdpa_ctx_free(c);
}
END_TEST

/* fsdpa_report_findings() on generated jobs: the same findings, field for
 * field, in the same order as findings[] of the JSON report, and
 * fsdpa_findings_worst() is the worst severity there. */
/* JSON text without the whitespace between tokens (the report is indented,
 * evidence_json is not). */
static char *squeeze(const char *s, size_t n) {
  char *o = malloc(n + 1);
  ck_assert_ptr_nonnull(o);
  size_t k = 0;
  int in_str = 0;
  for (size_t i = 0; i < n; i++) {
    char ch = s[i];
    if (in_str) {
      o[k++] = ch;
      if (ch == '\\' && i + 1 < n) o[k++] = s[++i];
      else if (ch == '"') in_str = 0;
    } else if (ch == '"') {
      in_str = 1;
      o[k++] = ch;
    } else if (ch != ' ' && ch != '\n' && ch != '\t' && ch != '\r') {
      o[k++] = ch;
    }
  }
  o[k] = 0;
  return o;
}

static void check_findings_match(fsdpa_ctx **c, size_t n, const char *what) {
  char *rep = tu_report_json(c, n, NULL, NULL);
  ck_assert_ptr_nonnull(rep);
  fsdpa_list *l = NULL;
  fsdpa_error err;
  fsdpa_error_init(&err);
  ck_assert_msg(fsdpa_report_findings(c, n, &l, &err) == FSDPA_OK, "%s: %s", what, err.message);
  ck_assert_int_eq(fsdpa_list_type(l), FSDPA_LIST_FINDINGS);
  size_t nf = tj_count(rep, "findings");
  ck_assert_msg(fsdpa_list_count(l) == nf, "%s: %zu typed findings, %zu in the report", what, fsdpa_list_count(l), nf);
  ck_assert_uint_gt(nf, 0);
  int worst = -1;
  for (size_t i = 0; i < nf; i++) {
    char path[64];
    snprintf(path, sizeof path, "findings.%zu", i);
    const char *b, *e;
    ck_assert(tj_find(rep, path, &b, &e));
    char *js = strndup(b, (size_t)(e - b));  /* one finding: cheaper lookups */
    ck_assert_ptr_nonnull(js);
    fsdpa_finding f;
    TU_ITEM(l, i, f);
    ck_assert_msg(tj_str_is(js, "id", f.id), "%s finding %zu: id %s", what, i, f.id);
    ck_assert_msg(tj_str_is(js, "severity", fsdpa_severity_name(f.severity)), "%s %s: severity %s", what, f.id,
                  fsdpa_severity_name(f.severity));
    static const char *const sev[] = {"info", "warning", "critical"};
    for (int k = 0; k < 3; k++)
      if (tj_str_is(js, "severity", sev[k]) && k > worst) worst = k;
    ck_assert_msg(tj_i64(js, "rank") == f.rank, "%s %s: rank %" PRId64, what, f.id, f.rank);
    ck_assert_msg(tj_i64(js, "step") == f.step, "%s %s: step %" PRId64, what, f.id, f.step);
    ck_assert_msg(tj_i64(js, "cost_ns") == f.cost_ns, "%s %s: cost %" PRId64 ", report %" PRId64, what, f.id,
                  f.cost_ns, tj_i64(js, "cost_ns"));
    ck_assert_msg(tj_str_is(js, "title", f.title), "%s %s: title %s", what, f.id, f.title);
    ck_assert_msg(tj_str_is(js, "detail", f.detail), "%s %s: detail differs", what, f.id);
    ck_assert_msg(tj_str_is(js, "advice", f.advice), "%s %s: advice differs", what, f.id);
    size_t nr = tj_has(js, "evidence.ranges") ? tj_count(js, "evidence.ranges") : 0;
    ck_assert_msg(f.nranges == nr, "%s %s: %zu ranges, report %zu", what, f.id, f.nranges, nr);
    ck_assert(nr == 0 ? f.ranges == NULL : f.ranges != NULL);
    for (size_t k = 0; k < nr; k++) {
      char rp[96];
      snprintf(rp, sizeof rp, "evidence.ranges.%zu.start_ns", k);
      ck_assert_int_eq(tj_i64(js, rp), f.ranges[k].start_ns);
      snprintf(rp, sizeof rp, "evidence.ranges.%zu.end_ns", k);
      ck_assert_int_eq(tj_i64(js, rp), f.ranges[k].end_ns);
    }
    /* the evidence text is the report's evidence object */
    ck_assert_ptr_nonnull(f.evidence_json);
    ck_assert(tj_valid(f.evidence_json, strlen(f.evidence_json)));
    ck_assert(tj_find(js, "evidence", &b, &e));
    char *ev = squeeze(b, (size_t)(e - b)), *fe = squeeze(f.evidence_json, strlen(f.evidence_json));
    ck_assert_msg(!strcmp(ev, fe), "%s %s: evidence %s, report %s", what, f.id, fe, ev);
    if (nr) ck_assert_uint_eq(tj_count(f.evidence_json, "ranges"), nr);
    free(ev);
    free(fe);
    free(js);
  }
  ck_assert_int_eq(fsdpa_findings_worst(l), worst);
  printf("# %s: %zu typed findings equal the report's, worst %s\n", what, nf, fsdpa_severity_name(worst));
  fsdpa_list_free(l);
  fsdpa_free(rep);
}

START_TEST(t_typed_findings_match_the_report) {
  char *p = tu_tracegen("mixed", "--steps 4 --layers 2 --seed 3", "core_mixed.json");
  char *r0 = tu_tracegen("straggler", "--ranks 2 --steps 4 --layers 2 --seed 3", "core_straggler.json");
  if (!p || !r0) {
    printf("# SKIP typed findings: tools/tracegen failed\n");
    free(p);
    free(r0);
    return;
  }
  fsdpa_ctx *c = tu_new_ctx();
  ck_assert_msg(fsdpa_feed_file(c, p) == FSDPA_OK, "%s", fsdpa_errmsg(c));
  check_findings_match(&c, 1, "mixed");
  fsdpa_ctx_free(c);
  /* two ranks: per-rank findings of both and the cross-rank one */
  fsdpa_ctx *cs[2];
  char *dot = strstr(r0, ".json");
  ck_assert_ptr_nonnull(dot);
  for (int r = 0; r < 2; r++) {
    char path[4200];
    snprintf(path, sizeof path, "%.*s.rank%d.json", (int)(dot - r0), r0, r);
    cs[r] = tu_new_ctx();
    ck_assert_msg(fsdpa_feed_file(cs[r], path) == FSDPA_OK, "%s", fsdpa_errmsg(cs[r]));
  }
  check_findings_match(cs, 2, "straggler x2");
  fsdpa_list *l = NULL;
  ck_assert_int_eq(fsdpa_report_findings(cs, 2, &l, NULL), FSDPA_OK);
  int straggler = 0;
  for (size_t i = 0; i < fsdpa_list_count(l); i++) {
    fsdpa_finding f;
    TU_ITEM(l, i, f);
    straggler += !strcmp(f.id, "straggler-rank");
  }
  ck_assert_int_eq(straggler, 1);
  fsdpa_list_free(l);
  fsdpa_ctx_free(cs[0]);
  fsdpa_ctx_free(cs[1]);
  /* no findings: worst is -1; a list of another kind is not findings */
  c = tu_new_ctx();
  tu_add_x(c, "kernel", "k", 0, 7, 1, 2, FSDPA_ABSENT);
  ck_assert_int_eq(fsdpa_report_findings(&c, 1, &l, NULL), FSDPA_OK);
  ck_assert_uint_eq(fsdpa_list_count(l), 0);
  ck_assert_int_eq(fsdpa_findings_worst(l), -1);
  fsdpa_list_free(l);
  ck_assert_int_eq(fsdpa_step_list(c, &l), FSDPA_OK);
  ck_assert_int_eq(fsdpa_findings_worst(l), -1);
  fsdpa_list_free(l);
  ck_assert_int_eq(fsdpa_findings_worst(NULL), -1);
  fsdpa_ctx_free(c);
  ck_assert_str_eq(fsdpa_severity_name(FSDPA_SEVERITY_CRITICAL), "critical");
  ck_assert_str_eq(fsdpa_severity_name((fsdpa_severity)9), "");
  free(p);
  free(r0);
}
END_TEST

int main(void) {
  Suite *s = suite_create("core");
  TU_CASE(s, "core", 0, NULL, t_union_merges_overlap_and_touching, t_intersect_subtract_gaps,
          t_intern_dedups_and_grows, t_classify_kernels_and_apis, t_struct_feed_steps_streams_density,
          t_params, t_param_list_get_set_agree, t_bad_args_and_null_safety, t_allocator_failure_and_cap,
          t_big_blocks, t_sort_matches_qsort);
  TU_CASE(s, "api", 600, NULL, t_zeroed_queries_are_the_whole_trace, t_selectors_need_their_bit,
          t_errors_clear_on_success, t_lists_are_snapshots, t_list_get_rejects_bad_index_and_size,
          t_fsdpa_error_filled_and_cleared, t_typed_findings_match_the_report);
  return tu_run_suite(s);
}
