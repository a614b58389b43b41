/* Shared by tests/test_abi.c and tests/abi/abi_probe.c: the layout of every
 * public size-first struct, and one run over every public call that reads
 * or writes one, with each struct in a box that has canary bytes right
 * after the caller's struct.
 *
 * The run writes a dump: every status and every output field, by name
 * (never a pointer or a padding byte), so two runs compare as text: the
 * same calls with exact sizes and with sizes larger than the library's
 * (test_abi.c), or through the real library and through a copy built with
 * every struct one field longer (abi_probe.c).  Every broken promise of
 * the versioned-struct rule goes to env->on_fail, and the run goes on. */
#ifndef FSDPA_TESTS_ABI_CORE_H
#define FSDPA_TESTS_ABI_CORE_H
/* the annotate structs and calls are experimental */
#ifndef FSDPA_EXPERIMENTAL
#define FSDPA_EXPERIMENTAL
#endif
#include <fsdpa/fsdpa.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ------------------------------------------------------------------ */
/* struct layouts                                                      */

/* Every field of every struct that starts with `size`, in order, as in
 * include/fsdpa/fsdpa.h (test_abi.c fails when a struct has bytes no field
 * here covers, so a new field cannot go unnoticed: add it here).
 * ABI_STRUCTS names, per struct, the last field of its first release
 * (0.2.0), where its first size ends: keep that name when a struct grows. */
#define ABI_F_fsdpa_allocator(F, T) F(T, size) F(T, malloc_fn) F(T, realloc_fn) F(T, free_fn) F(T, ud)
#define ABI_F_fsdpa_options(F, T) F(T, size) F(T, allocator) F(T, max_memory_bytes) \
    F(T, max_input_bytes) F(T, name) F(T, rank)
#define ABI_F_fsdpa_error(F, T) F(T, size) F(T, status) F(T, input) F(T, offset) F(T, message)
#define ABI_F_fsdpa_event(F, T) F(T, size) F(T, ph) F(T, cat) F(T, cat_len) F(T, name) F(T, name_len) \
    F(T, pid) F(T, tid) F(T, ts_ns) F(T, dur_ns) F(T, correlation) F(T, external_id) F(T, stream) \
    F(T, device) F(T, bytes) F(T, total_allocated) F(T, total_reserved) F(T, device_type) \
    F(T, device_id) F(T, in_msg_nelems) F(T, out_msg_nelems) F(T, group_size) F(T, seq) \
    F(T, wait_on_stream) F(T, wait_on_event_corr) F(T, collective) F(T, collective_len) F(T, dtype) \
    F(T, dtype_len) F(T, pg_name) F(T, pg_name_len) F(T, sync_kind) F(T, sync_kind_len) F(T, label) \
    F(T, label_len) F(T, input_dims) F(T, input_dims_len) F(T, input_types) F(T, input_types_len) \
    F(T, concrete_inputs) F(T, concrete_inputs_len)
#define ABI_F_fsdpa_trace_info(F, T) F(T, size) F(T, rank) F(T, world_size) F(T, base_time_ns)
#define ABI_F_fsdpa_stats(F, T) F(T, size) F(T, input_bytes) F(T, json_bytes) F(T, events) \
    F(T, retained) F(T, kernels) F(T, gpu_memcpy) F(T, gpu_memset) F(T, runtime) F(T, cpu_ops) \
    F(T, annotations) F(T, gpu_annotations) F(T, memory) F(T, cuda_sync) F(T, other) F(T, memory_bytes) \
    F(T, names)
#define ABI_F_fsdpa_step(F, T) F(T, size) F(T, number) F(T, start_ns) F(T, dur_ns)
#define ABI_F_fsdpa_stream_info(F, T) F(T, size) F(T, device) F(T, stream) F(T, role) F(T, kernels) \
    F(T, comm_kernels) F(T, memops) F(T, busy_ns) F(T, first_ns) F(T, last_ns)
#define ABI_F_fsdpa_query(F, T) F(T, size) F(T, fields) F(T, t0_ns) F(T, t1_ns) F(T, step) F(T, device) \
    F(T, stream)
#define ABI_F_fsdpa_timeline(F, T) F(T, size) F(T, span_ns) F(T, busy_ns) F(T, density) F(T, activities)
#define ABI_F_fsdpa_launch_gaps(F, T) F(T, size) F(T, kernel_wait_threshold_ns) \
    F(T, small_gap_threshold_ns) F(T, streams) F(T, gaps) F(T, idle_ns) F(T, host_wait_ns) \
    F(T, kernel_wait_ns) F(T, other_ns) F(T, host_wait_gaps) F(T, kernel_wait_gaps) F(T, other_gaps) \
    F(T, unlinked_gaps) F(T, unlinked_ns) F(T, small_launch_gaps) F(T, small_launch_ns) F(T, p50_ns) \
    F(T, p90_ns) F(T, p99_ns) F(T, max_ns) F(T, edges_ns) F(T, counts) F(T, bin_idle_ns) F(T, span_ns) \
    F(T, busy_ns) F(T, density) F(T, gpu_window_ns) F(T, utilization) F(T, gpu_gaps) F(T, gpu_idle_ns) \
    F(T, gpu_host_wait_ns) F(T, gpu_kernel_wait_ns) F(T, gpu_other_ns) F(T, gpu_small_launch_ns)
#define ABI_F_fsdpa_launch_latency(F, T) F(T, size) F(T, ops) F(T, linked) F(T, min_ns) F(T, p50_ns) \
    F(T, p90_ns) F(T, p99_ns) F(T, max_ns) F(T, total_ns) F(T, edges_ns) F(T, counts) F(T, kernels) \
    F(T, kernels_linked) F(T, kernels_shorter_than_launch) F(T, short_kernel_share)
#define ABI_F_fsdpa_launch_queue(F, T) F(T, size) F(T, ops) F(T, range_ns) F(T, max_depth) \
    F(T, mean_depth) F(T, depth0_ns) F(T, starved_ns)
#define ABI_F_fsdpa_overlap(F, T) F(T, size) F(T, comm_ns) F(T, compute_ns) F(T, overlap_ns) \
    F(T, exposed_comm_ns) F(T, overlap_pct) F(T, comm_kernels) F(T, compute_kernels)
#define ABI_F_fsdpa_comm_split(F, T) F(T, size) F(T, name) F(T, count) F(T, comm_ns) F(T, overlap_ns) \
    F(T, exposed_ns) F(T, bytes) F(T, timed_ns) F(T, algbw_gbps) F(T, busbw_gbps)
#define ABI_F_fsdpa_fsdp_unit(F, T) F(T, size) F(T, name) F(T, name_len) F(T, phase) F(T, instances) \
    F(T, comm_ns) F(T, compute_ns) F(T, exposed_ns) F(T, exposed_sum_ns) F(T, exposed_measured_ns) \
    F(T, allgather_ns) F(T, reducescatter_ns) F(T, comm_kernels) F(T, compute_kernels)
#define ABI_F_fsdpa_backward(F, T) F(T, size) F(T, pattern) F(T, steps) F(T, units) \
    F(T, prefetched_units) F(T, links) F(T, broken_links) F(T, idle_ns)
#define ABI_F_fsdpa_backward_step(F, T) F(T, size) F(T, step) F(T, pattern) F(T, units) F(T, links) \
    F(T, prefetched_links) F(T, rs_hidden_links) F(T, idle_ns) F(T, start_ns) F(T, end_ns) \
    F(T, overlap_pct)
#define ABI_F_fsdpa_backward_unit(F, T) F(T, size) F(T, name) F(T, name_len) F(T, position) \
    F(T, prefetched) F(T, rs_hidden) F(T, idle_ns) F(T, ag_start_ns) F(T, ag_end_ns) F(T, ag_stream) \
    F(T, compute_start_ns) F(T, compute_end_ns) F(T, compute_stream) F(T, rs_start_ns) F(T, rs_end_ns) \
    F(T, rs_stream)
#define ABI_F_fsdpa_sync_wait(F, T) F(T, size) F(T, api) F(T, count) F(T, total_ns) F(T, max_ns) \
    F(T, in_steps) F(T, threads) F(T, gpu_idle_during_ns) F(T, gpu_idle_after_ns) F(T, idle_after_calls) \
    F(T, gpu_idle_ns)
#define ABI_F_fsdpa_sync_call(F, T) F(T, size) F(T, api) F(T, pid) F(T, tid) F(T, start_ns) F(T, dur_ns) \
    F(T, step) F(T, source) F(T, device_wide) F(T, sync_kind) F(T, device) F(T, stream) F(T, waited_op) \
    F(T, waited_op_stream) F(T, waited_op_start_ns) F(T, waited_op_end_ns) F(T, gpu_idle_during_ns) \
    F(T, gpu_idle_after_ns)
#define ABI_F_fsdpa_sync_step(F, T) F(T, size) F(T, index) F(T, number) F(T, step_dur_ns) F(T, count) \
    F(T, total_ns) F(T, max_ns) F(T, worst_thread_ns) F(T, worst_pid) F(T, worst_tid) F(T, share) \
    F(T, gpu_idle_ns) F(T, flagged)
#define ABI_F_fsdpa_memory_summary(F, T) F(T, size) F(T, malloc_calls) F(T, free_calls) F(T, malloc_ns) \
    F(T, free_ns) F(T, malloc_bytes) F(T, warmup_steps) F(T, steady_steps) \
    F(T, steady_state_malloc_calls) F(T, steady_state_free_calls) F(T, gpu_idle_ns) F(T, device) \
    F(T, memory_events) F(T, oom_events) F(T, allocated_is_relative) F(T, start_allocated_bytes) \
    F(T, end_allocated_bytes) F(T, min_allocated_bytes) F(T, peak_allocated_bytes) \
    F(T, peak_allocated_delta_bytes) F(T, peak_reserved_bytes) F(T, allocated_at_peak_reserved_bytes) \
    F(T, fragmentation) F(T, mean_unallocated_share)
#define ABI_F_fsdpa_memory_device(F, T) F(T, size) F(T, device_type) F(T, device) F(T, relative) \
    F(T, primary) F(T, events) F(T, oom_events) F(T, peak_allocated_bytes) \
    F(T, peak_allocated_delta_bytes) F(T, peak_reserved_bytes) F(T, allocated_at_peak_reserved_bytes) \
    F(T, fragmentation) F(T, mean_unallocated_share)
#define ABI_F_fsdpa_memory_point(F, T) F(T, size) F(T, t0_ns) F(T, t1_ns) F(T, events) \
    F(T, allocated_min) F(T, allocated_max) F(T, allocated_last) F(T, reserved_min) F(T, reserved_max) \
    F(T, reserved_last)
#define ABI_F_fsdpa_memory_step(F, T) F(T, size) F(T, index) F(T, number) F(T, warmup) \
    F(T, malloc_calls) F(T, free_calls) F(T, malloc_ns) F(T, free_ns) F(T, gpu_idle_ns) \
    F(T, start_allocated_bytes) F(T, end_allocated_bytes) F(T, min_allocated_bytes) \
    F(T, peak_allocated_bytes) F(T, peak_reserved_bytes) F(T, returns_to_baseline)
#define ABI_F_fsdpa_report_options(F, T) F(T, size) F(T, format) F(T, color) F(T, html_step) F(T, width) F(T, table)
#define ABI_F_fsdpa_finding(F, T) F(T, size) F(T, id) F(T, severity) F(T, rank) F(T, step) F(T, cost_ns) \
    F(T, title) F(T, detail) F(T, advice) F(T, evidence_json) F(T, nranges) F(T, ranges) F(T, saving_ns) \
    F(T, saving_window_ns)
#define ABI_F_fsdpa_param(F, T) F(T, size) F(T, name) F(T, default_value) F(T, min_value) \
    F(T, max_value) F(T, description)
#define ABI_F_fsdpa_crossrank(F, T) F(T, size) F(T, ranks) F(T, collectives) F(T, unmatched) \
    F(T, unaligned) F(T, unsynchronized) F(T, reference_rank) F(T, transfer_ns) F(T, wait_ns) \
    F(T, end_spread_p50_ns) F(T, end_spread_max_ns) F(T, steps) F(T, straggler_rank) \
    F(T, straggler_late_steps) F(T, straggler_mean_delay_ns) F(T, straggler_max_delay_ns) \
    F(T, straggler_lost_ns)
#define ABI_F_fsdpa_crossrank_rank(F, T) F(T, size) F(T, rank) F(T, clock_offset_ns) F(T, collectives) \
    F(T, transfer_ns) F(T, wait_ns) F(T, last_count) F(T, late_steps) F(T, mean_delay_ns) \
    F(T, max_delay_ns) F(T, lost_ns)
#define ABI_F_fsdpa_summary_options(F, T) F(T, size) F(T, allocator) F(T, max_memory_bytes)
#define ABI_F_fsdpa_annotate_options(F, T) F(T, size) F(T, gzip) F(T, level)
#define ABI_F_fsdpa_device_info(F, T) F(T, size) F(T, device) F(T, name) F(T, sms) F(T, compute_major) \
    F(T, compute_minor) F(T, total_memory_bytes)
#define ABI_F_fsdpa_kernel_select(F, T) F(T, size) F(T, fsdp_unit) F(T, max_rows)
#define ABI_F_fsdpa_kernel_stat(F, T) F(T, size) F(T, name) F(T, short_name) F(T, kernel_class) F(T, family) \
    F(T, count) F(T, names) F(T, total_ns) F(T, mean_ns) F(T, p50_ns) F(T, min_ns) F(T, max_ns) F(T, share)
#define ABI_F_fsdpa_op_stat(F, T) F(T, size) F(T, name) F(T, gpu_op) F(T, category) F(T, input_dims) \
    F(T, input_types) F(T, concrete_inputs) F(T, model) F(T, dtype) F(T, count) F(T, gpu_ops) F(T, names) \
    F(T, kernel_ns) F(T, flops) F(T, bytes) F(T, tflops_per_s) F(T, tb_per_s) F(T, peak_share)
#define ABI_F_fsdpa_efficiency(F, T) F(T, size) F(T, step) F(T, window_ns) F(T, kernel_ns) F(T, modelled_ns) \
    F(T, modelled_share) F(T, gemm_ns) F(T, attention_ns) F(T, conv_ns) F(T, elementwise_ns) F(T, reduction_ns) \
    F(T, normalization_ns) F(T, copy_ns) F(T, communication_ns) F(T, other_ns) F(T, flops) F(T, mfu) F(T, device)
#define ABI_F_fsdpa_diff_options(F, T) F(T, size) F(T, format) F(T, fail_on_regression_ppm) F(T, min_change_ppm) \
    F(T, width) F(T, color) F(T, allocator) F(T, max_memory_bytes)
#define ABI_F_fsdpa_device_peak(F, T) F(T, size) F(T, device) F(T, model) F(T, fp64_tflops) F(T, fp32_tflops) \
    F(T, tf32_tflops) F(T, fp16_tflops) F(T, bf16_tflops) F(T, fp8_tflops) F(T, hbm_tb_per_s)

#define ABI_STRUCTS(X) \
  X(fsdpa_allocator, ud) \
  X(fsdpa_options, rank) \
  X(fsdpa_error, message) \
  X(fsdpa_event, label_len) \
  X(fsdpa_trace_info, base_time_ns) \
  X(fsdpa_stats, names) \
  X(fsdpa_step, dur_ns) \
  X(fsdpa_stream_info, last_ns) \
  X(fsdpa_query, stream) \
  X(fsdpa_timeline, activities) \
  X(fsdpa_launch_gaps, gpu_small_launch_ns) \
  X(fsdpa_launch_latency, short_kernel_share) \
  X(fsdpa_launch_queue, starved_ns) \
  X(fsdpa_overlap, compute_kernels) \
  X(fsdpa_comm_split, busbw_gbps) \
  X(fsdpa_fsdp_unit, compute_kernels) \
  X(fsdpa_backward, idle_ns) \
  X(fsdpa_backward_step, overlap_pct) \
  X(fsdpa_backward_unit, rs_stream) \
  X(fsdpa_sync_wait, gpu_idle_ns) \
  X(fsdpa_sync_call, gpu_idle_after_ns) \
  X(fsdpa_sync_step, flagged) \
  X(fsdpa_memory_summary, mean_unallocated_share) \
  X(fsdpa_memory_device, mean_unallocated_share) \
  X(fsdpa_memory_point, reserved_last) \
  X(fsdpa_memory_step, returns_to_baseline) \
  X(fsdpa_report_options, width) \
  X(fsdpa_finding, ranges) \
  X(fsdpa_param, description) \
  X(fsdpa_crossrank, straggler_lost_ns) \
  X(fsdpa_crossrank_rank, lost_ns) \
  X(fsdpa_summary_options, max_memory_bytes) \
  X(fsdpa_annotate_options, level) \
  X(fsdpa_device_info, total_memory_bytes) \
  X(fsdpa_kernel_select, max_rows) \
  X(fsdpa_kernel_stat, share) \
  X(fsdpa_op_stat, peak_share) \
  X(fsdpa_efficiency, device) \
  X(fsdpa_device_peak, hbm_tb_per_s) \
  X(fsdpa_diff_options, max_memory_bytes)

enum { AK_CHAR, AK_INT, AK_UINT, AK_DBL, AK_CHARS, AK_STR, AK_ARR_I, AK_ARR_U, AK_RANGES, AK_PTR };
/* What a field holds, from its type (arrays decay: char[N] is AK_CHARS). */
#define ABI_KIND(x)                                                                                    \
  _Generic((x), char: AK_CHAR, signed char: AK_INT, int: AK_INT, long: AK_INT, long long: AK_INT,         \
           unsigned: AK_UINT, unsigned long: AK_UINT, unsigned long long: AK_UINT, double: AK_DBL,       \
           char *: AK_CHARS, const char *: AK_STR, int64_t *: AK_ARR_I, uint64_t *: AK_ARR_U,            \
           const fsdpa_range *: AK_RANGES, default: AK_PTR)

typedef struct abi_field {
  const char *name;
  size_t off, size;
  int kind;
} abi_field;

typedef struct abi_struct {
  const char *name;
  size_t size;   /* sizeof in the header this file is compiled with */
  size_t first;  /* its first size (the end of its 0.2.0 fields) */
  const abi_field *f;
  size_t nf;
} abi_struct;

#define ABI_FIELD(T, m) {#m, offsetof(T, m), sizeof(((T *)0)->m), ABI_KIND(((T *)0)->m)},
#define ABI_TABLE(T, last) static const abi_field abi_f_##T[] = {ABI_F_##T(ABI_FIELD, T)};
ABI_STRUCTS(ABI_TABLE)
#define ABI_DESC(T, last)                                                                              \
  static const abi_struct abi_##T = {#T, sizeof(T), offsetof(T, last) + sizeof(((T *)0)->last), abi_f_##T, \
                                     sizeof abi_f_##T / sizeof abi_f_##T[0]};
ABI_STRUCTS(ABI_DESC)
#define ABI_REF(T, last) &abi_##T,
static const abi_struct *const abi_all[] = {ABI_STRUCTS(ABI_REF)};
#define ABI_NSTRUCTS (sizeof abi_all / sizeof abi_all[0])

/* The item struct of each list kind. */
static const abi_struct *const abi_kind_struct[] = {
    [FSDPA_LIST_STEPS] = &abi_fsdpa_step,
    [FSDPA_LIST_STREAMS] = &abi_fsdpa_stream_info,
    [FSDPA_LIST_COMM_SPLITS] = &abi_fsdpa_comm_split,
    [FSDPA_LIST_FSDP_UNITS] = &abi_fsdpa_fsdp_unit,
    [FSDPA_LIST_BACKWARD_STEPS] = &abi_fsdpa_backward_step,
    [FSDPA_LIST_BACKWARD_UNITS] = &abi_fsdpa_backward_unit,
    [FSDPA_LIST_SYNC_WAITS] = &abi_fsdpa_sync_wait,
    [FSDPA_LIST_SYNC_CALLS] = &abi_fsdpa_sync_call,
    [FSDPA_LIST_SYNC_STEPS] = &abi_fsdpa_sync_step,
    [FSDPA_LIST_MEMORY_DEVICES] = &abi_fsdpa_memory_device,
    [FSDPA_LIST_MEMORY_POINTS] = &abi_fsdpa_memory_point,
    [FSDPA_LIST_MEMORY_STEPS] = &abi_fsdpa_memory_step,
    [FSDPA_LIST_CROSSRANK_RANKS] = &abi_fsdpa_crossrank_rank,
    [FSDPA_LIST_FINDINGS] = &abi_fsdpa_finding,
    [FSDPA_LIST_PARAMS] = &abi_fsdpa_param,
    [FSDPA_LIST_DEVICES] = &abi_fsdpa_device_info,
    [FSDPA_LIST_KERNELS] = &abi_fsdpa_kernel_stat,
    [FSDPA_LIST_OPS] = &abi_fsdpa_op_stat,
    [FSDPA_LIST_EFFICIENCY_STEPS] = &abi_fsdpa_efficiency,
};
#define ABI_NKINDS (sizeof abi_kind_struct / sizeof abi_kind_struct[0])

/* ------------------------------------------------------------------ */
/* boxes: a struct with canary bytes after it                          */

#define ABI_CANARY 64    /* bytes after each struct that must stay as they are */
#define ABI_MAXSIZE 1024 /* more than any public struct (test_abi.c checks) */
#define ABI_OUT_FILL 0xEE
#define ABI_OUT_CANARY 0xC3
#define ABI_IN_CANARY 0x5A

typedef struct abi_env {
  int big;                     /* 1: every size is sizeof(T) + ABI_CANARY: a caller newer than the library */
  unsigned garbage;            /* big: seed of the bytes past each input struct */
  int portable;                /* leave out what depends on the library's own layout (its memory use) */
  FILE *out;                   /* the dump */
  const char *tmpdir;          /* for fsdpa_annotate_file() outputs */
  void (*on_fail)(struct abi_env *e, const char *msg);
  unsigned failures;
  size_t items[ABI_NKINDS];    /* list items read, by kind */
} abi_env;

static void abi_failf(abi_env *e, const char *fmt, ...) {
  char m[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(m, sizeof m, fmt, ap);
  va_end(ap);
  e->failures++;
  e->on_fail(e, m);
}

typedef struct abi_box {
  const abi_struct *s;
  size_t given;  /* the size field the library sees */
  int input;
  union {
    max_align_t align;
    unsigned char b[ABI_MAXSIZE + ABI_CANARY];
  } u;
  unsigned char snap[ABI_MAXSIZE + ABI_CANARY];  /* the box as handed to the library */
} abi_box;

static void abi_canary(abi_env *e, abi_box *b) {
  unsigned char *c = b->u.b + b->s->size;
  uint32_t x = e->garbage * 2654435761u + 12345u;
  for (size_t i = 0; i < ABI_CANARY; i++) {
    x = x * 1103515245u + 12345u;
    c[i] = !b->input ? ABI_OUT_CANARY : e->big ? (unsigned char)(x >> 16) : ABI_IN_CANARY;
  }
}

static void abi_setsize(abi_box *b, size_t n) { memcpy(b->u.b, &n, sizeof n); }
static size_t abi_getsize(const abi_box *b) {
  size_t n;
  memcpy(&n, b->u.b, sizeof n);
  return n;
}

/* An input struct, zeroed; fill it (its *_init() first), then abi_seal(). */
static void *abi_in(abi_env *e, abi_box *b, const abi_struct *s) {
  b->s = s;
  b->input = 1;
  b->given = e->big ? s->size + ABI_CANARY : s->size;
  memset(b->u.b, 0, s->size);
  abi_canary(e, b);
  return b->u.b;
}

/* The canary bytes `got` against `want`: which of them a call wrote. */
static void abi_past(abi_env *e, const unsigned char *got, const unsigned char *want, const abi_box *b,
                     const char *fn) {
  size_t lo = ABI_CANARY, hi = 0;
  for (size_t i = 0; i < ABI_CANARY; i++)
    if (got[i] != want[i]) {
      if (lo == ABI_CANARY) lo = i;
      hi = i;
    }
  if (lo < ABI_CANARY)
    abi_failf(e, "%s wrote past the end of the caller's %s of %zu bytes (size field %zu): bytes %zu..%zu after it",
              fn, b->s->name, b->s->size, b->given, lo, hi);
}

/* After a *_init() on the box: it sets the caller's size and writes
 * nothing past the caller's struct (it cannot know a larger one). */
static void abi_inited(abi_env *e, abi_box *b, const char *fn) {
  if (abi_getsize(b) != b->s->size)
    abi_failf(e, "%s set size %zu in a caller's %s of %zu bytes", fn, abi_getsize(b), b->s->name, b->s->size);
  unsigned char got[ABI_CANARY];
  memcpy(got, b->u.b + b->s->size, ABI_CANARY);
  abi_canary(e, b);
  abi_past(e, got, b->u.b + b->s->size, b, fn);
  /* so one broken init does not hide what the calls do */
  abi_setsize(b, b->s->size);
  abi_canary(e, b);
}

static void abi_seal(abi_box *b) {
  abi_setsize(b, b->given);
  memcpy(b->snap, b->u.b, b->s->size + ABI_CANARY);
}

/* The library reads input structs only. */
static void abi_unchanged(abi_env *e, const abi_box *b, const char *fn) {
  for (size_t i = 0; i < b->s->size + ABI_CANARY; i++)
    if (b->u.b[i] != b->snap[i]) {
      abi_failf(e, "%s changed byte %zu of its input %s (size %zu)", fn, i, b->s->name, b->given);
      return;
    }
}

/* An output struct: its bytes a fill pattern, canaries after it. */
static void *abi_out(abi_env *e, abi_box *b, const abi_struct *s) {
  b->s = s;
  b->input = 0;
  b->given = e->big ? s->size + ABI_CANARY : s->size;
  memset(b->u.b, ABI_OUT_FILL, s->size);
  abi_canary(e, b);
  abi_seal(b);
  return b->u.b;
}

/* After the call: the size field and every byte past the caller's struct
 * are as they were. */
static void abi_done(abi_env *e, const abi_box *b, const char *fn) {
  if (abi_getsize(b) != b->given)
    abi_failf(e, "%s changed the size field of its %s from %zu to %zu", fn, b->s->name, b->given, abi_getsize(b));
  abi_past(e, b->u.b + b->s->size, b->snap + b->s->size, b, fn);
}

/* ------------------------------------------------------------------ */
/* the dump                                                            */

static void abi_put_str(FILE *f, const char *s, size_t max) {
  if (!s) {
    fputs("(null)", f);
    return;
  }
  fputc('"', f);
  for (size_t i = 0; i < max && s[i]; i++) {
    unsigned char ch = (unsigned char)s[i];
    if (ch == '"' || ch == '\\') fprintf(f, "\\%c", ch);
    else if (ch < 0x20 || ch >= 0x7f) fprintf(f, "\\x%02x", ch);
    else fputc(ch, f);
  }
  fputc('"', f);
}

static uint64_t abi_fnv(const void *p, size_t n) {
  const unsigned char *s = p;
  uint64_t k = 1469598103934665603ull;
  for (size_t i = 0; i < n; i++) k = (k ^ s[i]) * 1099511628211ull;
  return k;
}

static int64_t abi_sint(const unsigned char *p, size_t n) {
  if (n == 1) return (signed char)p[0];
  if (n == 4) {
    int32_t v;
    memcpy(&v, p, 4);
    return v;
  }
  int64_t v;
  memcpy(&v, p, 8);
  return v;
}

static uint64_t abi_uint(const unsigned char *p, size_t n) {
  if (n == 4) {
    uint32_t v;
    memcpy(&v, p, 4);
    return v;
  }
  uint64_t v;
  memcpy(&v, p, 8);
  return v;
}

/* Every field of the caller's struct but its size (which differs between
 * callers), one per line. */
static void abi_dump(abi_env *e, const abi_box *b) {
  const abi_struct *s = b->s;
  const unsigned char *p = b->u.b;
  uint64_t nranges = 0;
  for (size_t i = 0; i < s->nf; i++)
    if (!strcmp(s->f[i].name, "nranges")) nranges = abi_uint(p + s->f[i].off, s->f[i].size);
  for (size_t i = 0; i < s->nf; i++) {
    const abi_field *f = &s->f[i];
    const unsigned char *v = p + f->off;
    if (!strcmp(f->name, "size")) continue;
    if (e->portable && s == &abi_fsdpa_stats && !strcmp(f->name, "memory_bytes")) continue;
    fprintf(e->out, "  %s.%s=", s->name, f->name);
    switch (f->kind) {
      case AK_CHAR: fprintf(e->out, "%d", (int)(signed char)v[0]); break;
      case AK_INT: fprintf(e->out, "%lld", (long long)abi_sint(v, f->size)); break;
      case AK_UINT: fprintf(e->out, "%llu", (unsigned long long)abi_uint(v, f->size)); break;
      case AK_DBL: {
        double d;
        memcpy(&d, v, sizeof d);
        fprintf(e->out, "%.17g", d);
        break;
      }
      case AK_CHARS: abi_put_str(e->out, (const char *)v, f->size); break;
      case AK_STR: {
        const char *str;
        memcpy(&str, v, sizeof str);
        abi_put_str(e->out, str, SIZE_MAX);
        break;
      }
      case AK_ARR_I:
        for (size_t k = 0; k < f->size / 8; k++)
          fprintf(e->out, "%s%lld", k ? "," : "", (long long)abi_sint(v + 8 * k, 8));
        break;
      case AK_ARR_U:
        for (size_t k = 0; k < f->size / 8; k++)
          fprintf(e->out, "%s%llu", k ? "," : "", (unsigned long long)abi_uint(v + 8 * k, 8));
        break;
      case AK_RANGES: {
        const fsdpa_range *r;
        memcpy(&r, v, sizeof r);
        if (!r) fputs("(null)", e->out);
        for (uint64_t k = 0; r && k < nranges; k++)
          fprintf(e->out, "%s[%lld,%lld)", k ? "," : "", (long long)r[k].start_ns, (long long)r[k].end_ns);
        break;
      }
      default: {
        const void *ptr;
        memcpy(&ptr, v, sizeof ptr);
        fputs(ptr ? "(set)" : "(null)", e->out);
        break;
      }
    }
    fputc('\n', e->out);
  }
}

static void abi_status(abi_env *e, const char *where, const char *fn, fsdpa_status st) {
  fprintf(e->out, "%s %s: %s\n", where, fn, fsdpa_status_str(st));
}

/* A call on one context that must work: OK, and its message "" after. */
static void abi_ctx_ok(abi_env *e, fsdpa_ctx *c, fsdpa_status st, const char *where, const char *fn) {
  abi_status(e, where, fn, st);
  if (st != FSDPA_OK) abi_failf(e, "%s %s: %s: %s", where, fn, fsdpa_status_str(st), fsdpa_errmsg(c));
  else if (fsdpa_errmsg(c)[0]) abi_failf(e, "%s %s succeeded and left the message '%s'", where, fn, fsdpa_errmsg(c));
}

/* The same for a call with an fsdpa_error (in box eb). */
static void abi_err_ok(abi_env *e, abi_box *eb, fsdpa_status st, const char *where, const char *fn) {
  abi_status(e, where, fn, st);
  abi_done(e, eb, fn);
  const fsdpa_error *er = (const fsdpa_error *)eb->u.b;
  if (st != FSDPA_OK) abi_failf(e, "%s %s: %s: %s", where, fn, fsdpa_status_str(st), er->message);
  abi_dump(e, eb);
}

static void abi_buf(abi_env *e, const char *what, const char *p, size_t len) {
  fprintf(e->out, "  %s: %zu bytes, fnv %016llx\n", what, len, (unsigned long long)(p ? abi_fnv(p, len) : 0));
}

/* Every item of a list, each into a box of its kind; the list is freed. */
static size_t abi_items(abi_env *e, fsdpa_list *l, fsdpa_list_kind kind, const char *where, const char *fn) {
  if (fsdpa_list_type(l) != kind) {
    abi_failf(e, "%s %s: a list of kind %d, not %d", where, fn, (int)fsdpa_list_type(l), (int)kind);
    fsdpa_list_free(l);
    return 0;
  }
  size_t n = fsdpa_list_count(l);
  fprintf(e->out, "  %zu items\n", n);
  for (size_t i = 0; i < n; i++) {
    abi_box b;
    void *item = abi_out(e, &b, abi_kind_struct[kind]);
    fsdpa_status st = fsdpa_list_get(l, i, item);
    if (st != FSDPA_OK) abi_failf(e, "%s %s: fsdpa_list_get(%zu): %s", where, fn, i, fsdpa_status_str(st));
    abi_done(e, &b, "fsdpa_list_get");
    fprintf(e->out, "  [%zu]\n", i);
    abi_dump(e, &b);
  }
  e->items[kind] += n;
  fsdpa_list_free(l);
  return n;
}

/* ------------------------------------------------------------------ */
/* the run                                                             */

/* An allocator that counts live bytes (all of a run's contexts, lists and
 * summaries use it: 0 at the end). */
typedef struct abi_heap {
  long long live;
} abi_heap;
static void *abi_malloc(void *ud, size_t n) {
  ((abi_heap *)ud)->live += (long long)n;
  return malloc(n ? n : 1);
}
static void *abi_realloc(void *ud, void *p, size_t old_n, size_t new_n) {
  void *q = realloc(p, new_n ? new_n : 1);
  if (q) ((abi_heap *)ud)->live += (long long)new_n - (long long)old_n;
  return q;
}
static void abi_free(void *ud, void *p, size_t n) {
  ((abi_heap *)ud)->live -= (long long)n;
  free(p);
}

/* A query box for window w of a context (0 = NULL, 1 = the whole trace,
 * 2 = the first step, 3 = the first stream, 4 = the first half of the first
 * step by time); NULL when the context has no such window. */
static const fsdpa_query *abi_window(abi_env *e, abi_box *qb, int w, const fsdpa_step *s0, size_t nsteps,
                                     const fsdpa_stream_info *t0, size_t nstreams) {
  if (w == 0) return NULL;
  if ((w == 2 || w == 4) && !nsteps) return NULL;
  if (w == 3 && !nstreams) return NULL;
  fsdpa_query *q = abi_in(e, qb, &abi_fsdpa_query);
  fsdpa_query_init(q);
  abi_inited(e, qb, "fsdpa_query_init");
  if (w == 2) {
    q->fields = FSDPA_QUERY_STEP;
    q->step = 0;
  } else if (w == 3) {
    q->fields = FSDPA_QUERY_DEVICE | FSDPA_QUERY_STREAM;
    q->device = t0->device;
    q->stream = t0->stream;
  } else if (w == 4) {
    q->fields = FSDPA_QUERY_T0 | FSDPA_QUERY_T1;
    q->t0_ns = s0->start_ns;
    q->t1_ns = s0->start_ns + s0->dur_ns / 2;
  }
  abi_seal(qb);
  return q;
}

/* A query that fills one struct of type T. */
#define ABI_Q(fn, T)                                                                 \
  do {                                                                               \
    abi_box ob_;                                                                     \
    T *o_ = abi_out(e, &ob_, &abi_##T);                                              \
    fsdpa_status st_ = fn(c, q, o_);                                                 \
    abi_ctx_ok(e, c, st_, where, #fn);                                               \
    abi_done(e, &ob_, #fn);                                                          \
    if (q) abi_unchanged(e, qb, #fn);                                                \
    abi_dump(e, &ob_);                                                               \
  } while (0)
/* A call that returns a list in l_ (the call names &l_). */
#define ABI_L(call, kind)                                                            \
  do {                                                                               \
    fsdpa_list *l_ = NULL;                                                           \
    fsdpa_status st_ = (call);                                                       \
    abi_ctx_ok(e, c, st_, where, #call);                                             \
    if (q) abi_unchanged(e, qb, #call);                                              \
    if (st_ == FSDPA_OK) abi_items(e, l_, kind, where, #call);                       \
  } while (0)

static void abi_windowed(abi_env *e, fsdpa_ctx *c, const fsdpa_query *q, const abi_box *qb, const char *where) {
  ABI_Q(fsdpa_timeline_query, fsdpa_timeline);
  ABI_Q(fsdpa_launch_gaps_query, fsdpa_launch_gaps);
  ABI_Q(fsdpa_launch_latency_query, fsdpa_launch_latency);
  ABI_Q(fsdpa_launch_queue_query, fsdpa_launch_queue);
  ABI_Q(fsdpa_overlap_query, fsdpa_overlap);
  ABI_Q(fsdpa_memory_query, fsdpa_memory_summary);
  ABI_L(fsdpa_comm_split_list(c, q, FSDPA_SPLIT_COLLECTIVE, &l_), FSDPA_LIST_COMM_SPLITS);
  ABI_L(fsdpa_comm_split_list(c, q, FSDPA_SPLIT_PROCESS_GROUP, &l_), FSDPA_LIST_COMM_SPLITS);
  ABI_L(fsdpa_fsdp_unit_list(c, q, &l_), FSDPA_LIST_FSDP_UNITS);
  ABI_L(fsdpa_sync_wait_list(c, q, &l_), FSDPA_LIST_SYNC_WAITS);
  ABI_L(fsdpa_sync_call_list(c, q, &l_), FSDPA_LIST_SYNC_CALLS);
  ABI_L(fsdpa_sync_step_list(c, q, &l_), FSDPA_LIST_SYNC_STEPS);
  ABI_L(fsdpa_memory_device_list(c, q, &l_), FSDPA_LIST_MEMORY_DEVICES);
  ABI_L(fsdpa_memory_series_list(c, q, FSDPA_ABSENT, 8, &l_), FSDPA_LIST_MEMORY_POINTS);
  ABI_L(fsdpa_memory_step_list(c, q, &l_), FSDPA_LIST_MEMORY_STEPS);
  ABI_Q(fsdpa_efficiency_query, fsdpa_efficiency);
  ABI_L(fsdpa_efficiency_step_list(c, q, &l_), FSDPA_LIST_EFFICIENCY_STEPS);
  ABI_L(fsdpa_op_list(c, q, 0, &l_), FSDPA_LIST_OPS);
  ABI_L(fsdpa_op_list(c, q, 2, &l_), FSDPA_LIST_OPS);
  ABI_L(fsdpa_kernel_list(c, q, NULL, &l_), FSDPA_LIST_KERNELS);
  {
    abi_box sb_;
    fsdpa_kernel_select *ks_ = abi_in(e, &sb_, &abi_fsdpa_kernel_select);
    fsdpa_kernel_select_init(ks_);
    abi_inited(e, &sb_, "fsdpa_kernel_select_init");
    ks_->max_rows = 2;
    abi_seal(&sb_);
    ABI_L(fsdpa_kernel_list(c, q, ks_, &l_), FSDPA_LIST_KERNELS);
    abi_unchanged(e, &sb_, "fsdpa_kernel_list");
  }
}

/* Everything one context answers by itself. */
static void abi_one_ctx(abi_env *e, fsdpa_ctx *c, const char *where) {
  const fsdpa_query *q = NULL; /* for ABI_Q / ABI_L: the calls below take none */
  const abi_box *qb = NULL;
  abi_box ob;
  fsdpa_stats *stats = abi_out(e, &ob, &abi_fsdpa_stats);
  abi_ctx_ok(e, c, fsdpa_stats_get(c, stats), where, "fsdpa_stats_get");
  abi_done(e, &ob, "fsdpa_stats_get");
  abi_dump(e, &ob);
  fsdpa_trace_info *ti = abi_out(e, &ob, &abi_fsdpa_trace_info);
  abi_ctx_ok(e, c, fsdpa_trace_info_get(c, ti), where, "fsdpa_trace_info_get");
  abi_done(e, &ob, "fsdpa_trace_info_get");
  abi_dump(e, &ob);
  fsdpa_backward *bw = abi_out(e, &ob, &abi_fsdpa_backward);
  abi_ctx_ok(e, c, fsdpa_backward_get(c, bw), where, "fsdpa_backward_get");
  abi_done(e, &ob, "fsdpa_backward_get");
  abi_dump(e, &ob);
  fprintf(e->out, "%s fsdpa_fsdp_version: %d\n", where, fsdpa_fsdp_version(c));
  fsdpa_device_peak *pk = abi_out(e, &ob, &abi_fsdpa_device_peak);
  abi_ctx_ok(e, c, fsdpa_device_peak_get(c, FSDPA_ABSENT, pk), where, "fsdpa_device_peak_get");
  abi_done(e, &ob, "fsdpa_device_peak_get");
  abi_dump(e, &ob);

  /* the first step and stream, for the windows; read at the exact size
   * (the boxes of abi_items() are checked there) */
  fsdpa_step s0;
  fsdpa_stream_info t0;
  memset(&s0, 0, sizeof s0);
  memset(&t0, 0, sizeof t0);
  s0.size = sizeof s0;
  t0.size = sizeof t0;
  fsdpa_list *l = NULL;
  size_t nsteps = 0, nstreams = 0, nbwd = 0;
  if (fsdpa_step_list(c, &l) == FSDPA_OK) {
    nsteps = fsdpa_list_count(l);
    if (nsteps && fsdpa_list_get(l, 0, &s0) != FSDPA_OK) abi_failf(e, "%s: first step", where);
    fsdpa_list_free(l);
  }
  if (fsdpa_stream_list(c, &l) == FSDPA_OK) {
    nstreams = fsdpa_list_count(l);
    if (nstreams && fsdpa_list_get(l, 0, &t0) != FSDPA_OK) abi_failf(e, "%s: first stream", where);
    fsdpa_list_free(l);
  }
  ABI_L(fsdpa_step_list(c, &l_), FSDPA_LIST_STEPS);
  ABI_L(fsdpa_stream_list(c, &l_), FSDPA_LIST_STREAMS);
  ABI_L(fsdpa_device_list(c, &l_), FSDPA_LIST_DEVICES);
  if (fsdpa_backward_step_list(c, &l) == FSDPA_OK) {
    nbwd = fsdpa_list_count(l);
    fsdpa_list_free(l);
  }
  ABI_L(fsdpa_backward_step_list(c, &l_), FSDPA_LIST_BACKWARD_STEPS);
  for (size_t j = 0; j < nbwd; j++) ABI_L(fsdpa_backward_unit_list(c, j, &l_), FSDPA_LIST_BACKWARD_UNITS);
  /* a bad index: the message is part of the result */
  l = NULL;
  fsdpa_status st = fsdpa_backward_unit_list(c, nbwd + 1000, &l);
  abi_status(e, where, "fsdpa_backward_unit_list(bad index)", st);
  fprintf(e->out, "  message ");
  abi_put_str(e->out, fsdpa_errmsg(c), SIZE_MAX);
  fputc('\n', e->out);
  if (st != FSDPA_EINVAL || l) abi_failf(e, "%s fsdpa_backward_unit_list(bad index): %s", where, fsdpa_status_str(st));
  fsdpa_list_free(l);

  for (int w = 0; w < 5; w++) {
    abi_box wb;
    const fsdpa_query *wq = abi_window(e, &wb, w, &s0, nsteps, &t0, nstreams);
    if (w && !wq) continue;
    char wh[256];
    snprintf(wh, sizeof wh, "%s window %d", where, w);
    abi_windowed(e, c, wq, &wb, wh);
  }
}

/* The events of a small trace, each given through fsdpa_event_add() in a
 * box (times relative, ns). */
static fsdpa_event *abi_ev(abi_env *e, abi_box *b, char ph, const char *cat, const char *name, int64_t pid,
                           int64_t tid, int64_t ts, int64_t dur) {
  fsdpa_event *ev = abi_in(e, b, &abi_fsdpa_event);
  fsdpa_event_init(ev);
  abi_inited(e, b, "fsdpa_event_init");
  ev->ph = ph;
  ev->cat = cat;
  ev->cat_len = cat ? strlen(cat) : 0;
  ev->name = name;
  ev->name_len = name ? strlen(name) : 0;
  ev->pid = pid;
  ev->tid = tid;
  ev->ts_ns = ts;
  ev->dur_ns = dur;
  return ev;
}
#define ABI_SETS(ev, f, s) ((ev)->f = (s), (ev)->f##_len = strlen(s))

static void abi_ev_add(abi_env *e, fsdpa_ctx *c, abi_box *b) {
  abi_seal(b);
  fsdpa_status st = fsdpa_event_add(c, (const fsdpa_event *)b->u.b);
  abi_ctx_ok(e, c, st, "events", "fsdpa_event_add");
  abi_unchanged(e, b, "fsdpa_event_add");
}

static void abi_events(abi_env *e, fsdpa_ctx *c) {
  abi_box b;
  fsdpa_event *ev = abi_ev(e, &b, 'M', NULL, "thread_name", 10, 1, 0, FSDPA_ABSENT);
  ABI_SETS(ev, label, "python main");
  abi_ev_add(e, c, &b);
  for (int s = 0; s < 2; s++) {
    int64_t at = s * 1000000;
    char step[32];
    snprintf(step, sizeof step, "ProfilerStep#%d", 5 + s);
    abi_ev(e, &b, 'X', "user_annotation", step, 10, 1, at, 900000);
    abi_ev_add(e, c, &b);
    ev = abi_ev(e, &b, 'X', "cpu_op", "aten::mm", 10, 1, at + 500, 6000);
    ABI_SETS(ev, input_dims, "[[512, 1024], [1024, 256]]");
    ABI_SETS(ev, input_types, "[\"float\", \"float\"]");
    ABI_SETS(ev, concrete_inputs, "[\"\", \"\"]");
    abi_ev_add(e, c, &b);
    ev = abi_ev(e, &b, 'X', "cuda_runtime", "cudaLaunchKernel", 10, 1, at + 1000, 4000);
    ev->correlation = 100 + 2 * s;
    ev->external_id = 7;
    abi_ev_add(e, c, &b);
    ev = abi_ev(e, &b, 'X', "kernel", "ampere_sgemm_128x64_tn", 0, 7, at + 10000, 300000);
    ev->correlation = 100 + 2 * s;
    ev->device = 0;
    ev->stream = 7;
    abi_ev_add(e, c, &b);
    ev = abi_ev(e, &b, 'X', "cuda_runtime", "cudaLaunchKernel", 10, 1, at + 6000, 3000);
    ev->correlation = 101 + 2 * s;
    abi_ev_add(e, c, &b);
    ev = abi_ev(e, &b, 'X', "kernel", "ncclDevKernel_AllGather_RING_LL", 0, 20, at + 200000, 250000);
    ev->correlation = 101 + 2 * s;
    ev->device = 0;
    ev->stream = 20;
    ABI_SETS(ev, collective, "_allgather_base");
    ABI_SETS(ev, dtype, "Float");
    ABI_SETS(ev, pg_name, "0");
    ev->in_msg_nelems = 1 << 20;
    ev->out_msg_nelems = 1 << 21;
    ev->group_size = 2;
    ev->seq = s;
    abi_ev_add(e, c, &b);
    ev = abi_ev(e, &b, 'i', "cpu_instant_event", "[memory]", 10, 1, at + 2000, FSDPA_ABSENT);
    ev->bytes = 1 << 20;
    ev->total_allocated = (int64_t)(s + 1) << 20;
    ev->total_reserved = (int64_t)4 << 20;
    ev->device_type = 1;
    ev->device_id = 0;
    abi_ev_add(e, c, &b);
    ev = abi_ev(e, &b, 'X', "cuda_runtime", "cudaStreamSynchronize", 10, 1, at + 500000, 100000);
    ev->correlation = 200 + s;
    abi_ev_add(e, c, &b);
    ev = abi_ev(e, &b, 'X', "cuda_sync", "Stream Sync", 0, 7, at + 500000, 100000);
    ev->correlation = 200 + s;
    ev->device = 0;
    ev->stream = 7;
    ev->wait_on_stream = 7;
    ev->wait_on_event_corr = 100 + 2 * s;
    ABI_SETS(ev, sync_kind, "Stream Sync");
    abi_ev_add(e, c, &b);
    ev = abi_ev(e, &b, 'X', "gpu_memcpy", "Memcpy HtoD (Pageable -> Device)", 0, 7, at + 700000, 5000);
    ev->bytes = 4096;
    ev->device = 0;
    ev->stream = 7;
    abi_ev_add(e, c, &b);
  }
  abi_box db;
  fsdpa_device_info *di = abi_in(e, &db, &abi_fsdpa_device_info);
  fsdpa_device_info_init(di);
  abi_inited(e, &db, "fsdpa_device_info_init");
  di->device = 0;
  snprintf(di->name, sizeof di->name, "NVIDIA A100-SXM4-80GB");
  di->sms = 108;
  di->compute_major = 8;
  di->compute_minor = 0;
  abi_seal(&db);
  abi_ctx_ok(e, c, fsdpa_device_info_set(c, di), "events", "fsdpa_device_info_set");
  abi_unchanged(e, &db, "fsdpa_device_info_set");
  abi_box tb;
  fsdpa_trace_info *ti = abi_in(e, &tb, &abi_fsdpa_trace_info);
  fsdpa_trace_info_init(ti);
  abi_inited(e, &tb, "fsdpa_trace_info_init");
  ti->world_size = 8;
  ti->base_time_ns = 1700000000000000000;
  abi_seal(&tb);
  abi_ctx_ok(e, c, fsdpa_trace_info_set(c, ti), "events", "fsdpa_trace_info_set");
  abi_unchanged(e, &tb, "fsdpa_trace_info_set");
}

/* A report of n contexts with these options (NULL: none), into the dump. */
static void abi_report(abi_env *e, fsdpa_ctx *const *c, size_t n, int format, int color, int64_t html_step,
                       const char *where) {
  abi_box rb, eb;
  fsdpa_report_options *ro = NULL;
  if (format >= 0) {
    ro = abi_in(e, &rb, &abi_fsdpa_report_options);
    fsdpa_report_options_init(ro);
    abi_inited(e, &rb, "fsdpa_report_options_init");
    ro->format = (fsdpa_format)format;
    ro->color = color;
    ro->html_step = html_step;
    ro->width = format == FSDPA_FORMAT_TEXT ? 80 : 0;
    abi_seal(&rb);
  }
  fsdpa_error *er = abi_out(e, &eb, &abi_fsdpa_error);
  char *out = NULL;
  size_t len = 0;
  fsdpa_status st = fsdpa_report(c, NULL, n, ro, &out, &len, er);
  abi_err_ok(e, &eb, st, where, "fsdpa_report");
  if (ro) abi_unchanged(e, &rb, "fsdpa_report");
  abi_buf(e, "report", out, len);
  fsdpa_free(out);
}

static fsdpa_summary_options *abi_sum_opts(abi_env *e, abi_box *b, const fsdpa_allocator *al) {
  fsdpa_summary_options *so = abi_in(e, b, &abi_fsdpa_summary_options);
  fsdpa_summary_options_init(so);
  abi_inited(e, b, "fsdpa_summary_options_init");
  so->allocator = al;
  so->max_memory_bytes = (uint64_t)1 << 30;
  abi_seal(b);
  return so;
}

/* Summaries of every context, their merge, its report and findings; a
 * damaged summary (the error's every field). */
static void abi_summaries(abi_env *e, fsdpa_ctx *const *c, size_t n, const fsdpa_allocator *al) {
  char *sums[4] = {NULL, NULL, NULL, NULL};
  size_t lens[4] = {0, 0, 0, 0};
  for (size_t i = 0; i < n && i < 4; i++) {
    abi_ctx_ok(e, c[i], fsdpa_summary_write(c[i], "rank", &sums[i], &lens[i]), "summary", "fsdpa_summary_write");
    abi_buf(e, "summary", sums[i], lens[i]);
  }
  abi_box sb, eb, rb;
  fsdpa_summary_options *so = abi_sum_opts(e, &sb, al);
  fsdpa_error *er = abi_out(e, &eb, &abi_fsdpa_error);
  char *m = NULL, *r = NULL;
  size_t ml = 0, rl = 0;
  fsdpa_status st = fsdpa_summary_merge((const char *const *)sums, lens, n, so, &m, &ml, er);
  abi_err_ok(e, &eb, st, "summary", "fsdpa_summary_merge");
  abi_unchanged(e, &sb, "fsdpa_summary_merge");
  abi_buf(e, "merged", m, ml);
  fsdpa_report_options *ro = abi_in(e, &rb, &abi_fsdpa_report_options);
  fsdpa_report_options_init(ro);
  abi_inited(e, &rb, "fsdpa_report_options_init");
  abi_seal(&rb);
  er = abi_out(e, &eb, &abi_fsdpa_error);
  st = fsdpa_summary_report(m, ml, so, ro, &r, &rl, er);
  abi_err_ok(e, &eb, st, "summary", "fsdpa_summary_report");
  abi_unchanged(e, &sb, "fsdpa_summary_report");
  abi_unchanged(e, &rb, "fsdpa_summary_report");
  abi_buf(e, "report", r, rl);
  /* the merged summary against its own report: nothing changed */
  abi_box db;
  fsdpa_diff_options *dopt = abi_in(e, &db, &abi_fsdpa_diff_options);
  fsdpa_diff_options_init(dopt);
  abi_inited(e, &db, "fsdpa_diff_options_init");
  dopt->fail_on_regression_ppm = 0;
  dopt->allocator = al;
  abi_seal(&db);
  er = abi_out(e, &eb, &abi_fsdpa_error);
  char *dout = NULL;
  size_t dl = 0;
  int reg = -1;
  st = fsdpa_diff(m, ml, r, rl, dopt, &dout, &dl, &reg, er);
  abi_err_ok(e, &eb, st, "summary", "fsdpa_diff");
  abi_unchanged(e, &db, "fsdpa_diff");
  fprintf(e->out, "  regressed %d\n", reg);
  if (st == FSDPA_OK && reg != 0) abi_failf(e, "fsdpa_diff of a summary and its own report regressed");
  abi_buf(e, "diff", dout, dl);
  fsdpa_free(dout);
  fsdpa_free(r);
  fsdpa_list *l = NULL;
  er = abi_out(e, &eb, &abi_fsdpa_error);
  st = fsdpa_summary_findings(m, ml, so, &l, er);
  abi_err_ok(e, &eb, st, "summary", "fsdpa_summary_findings");
  abi_unchanged(e, &sb, "fsdpa_summary_findings");
  if (st == FSDPA_OK) {
    fprintf(e->out, "  worst %d\n", fsdpa_findings_worst(l));
    abi_items(e, l, FSDPA_LIST_FINDINGS, "summary", "fsdpa_summary_findings");
  }
  fsdpa_free(m);
  /* the last summary damaged in its middle: which input, where, what */
  if (n >= 2) {
    char *bad = malloc(lens[n - 1] + 1);
    memcpy(bad, sums[n - 1], lens[n - 1] + 1);
    bad[lens[n - 1] / 2] = '\x01';
    const char *in[4];
    for (size_t i = 0; i < n; i++) in[i] = sums[i];
    in[n - 1] = bad;
    er = abi_out(e, &eb, &abi_fsdpa_error);
    m = NULL;
    st = fsdpa_summary_merge(in, lens, n, so, &m, &ml, er);
    abi_status(e, "summary", "fsdpa_summary_merge(damaged)", st);
    abi_done(e, &eb, "fsdpa_summary_merge(damaged)");
    abi_dump(e, &eb);
    if (st != FSDPA_EPARSE || m) abi_failf(e, "fsdpa_summary_merge of a damaged summary: %s", fsdpa_status_str(st));
    fsdpa_free(m);
    free(bad);
  }
  for (size_t i = 0; i < n && i < 4; i++) fsdpa_free(sums[i]);
}

/* fsdpa_annotate_events() and fsdpa_annotate_file() (plain and gzip; the
 * gzip copy is read back). */
static void abi_annotate(abi_env *e, fsdpa_ctx *const *c, size_t n, const char *const *paths) {
  abi_box eb, ab, ob;
  for (size_t i = 0; i < n; i++) {
    fsdpa_error *er = abi_out(e, &eb, &abi_fsdpa_error);
    char *out = NULL;
    size_t len = 0;
    fsdpa_status st = fsdpa_annotate_events(c, n, i, &out, &len, er);
    abi_err_ok(e, &eb, st, "annotate", "fsdpa_annotate_events");
    abi_buf(e, "events", out, len);
    fsdpa_free(out);
    for (int gz = 0; gz < 2; gz++) {
      char dst[4096];
      snprintf(dst, sizeof dst, "%s/abi-annotated-%d-%zu.json%s", e->tmpdir, (int)getpid(), i, gz ? ".gz" : "");
      fsdpa_annotate_options *ao = abi_in(e, &ab, &abi_fsdpa_annotate_options);
      fsdpa_annotate_options_init(ao);
      abi_inited(e, &ab, "fsdpa_annotate_options_init");
      ao->gzip = gz;
      ao->level = gz ? 1 : 0;
      abi_seal(&ab);
      er = abi_out(e, &eb, &abi_fsdpa_error);
      st = fsdpa_annotate_file(c, n, i, paths[i], dst, ao, er);
      abi_err_ok(e, &eb, st, "annotate", "fsdpa_annotate_file");
      abi_unchanged(e, &ab, "fsdpa_annotate_file");
      /* its size tells plain from gzip at the level asked for */
      FILE *f = fopen(dst, "rb");
      long fsize = -1;
      if (f && fseek(f, 0, SEEK_END) == 0) fsize = ftell(f);
      if (f) fclose(f);
      fprintf(e->out, "  %s: %ld bytes\n", gz ? "gzip copy" : "plain copy", fsize);
      /* read back through the library: what a viewer would load */
      fsdpa_ctx *rc = NULL;
      if (fsdpa_ctx_new(&rc, NULL) == FSDPA_OK) {
        abi_ctx_ok(e, rc, fsdpa_feed_file(rc, dst), "annotate", "fsdpa_feed_file(annotated)");
        fsdpa_stats *s = abi_out(e, &ob, &abi_fsdpa_stats);
        abi_ctx_ok(e, rc, fsdpa_stats_get(rc, s), "annotate", "fsdpa_stats_get");
        abi_done(e, &ob, "fsdpa_stats_get");
        fprintf(e->out, "  read back: %llu json bytes, %llu events, %llu retained\n", (unsigned long long)s->json_bytes,
                (unsigned long long)s->events, (unsigned long long)s->retained);
        fsdpa_ctx_free(rc);
      }
      remove(dst);
    }
  }
}

/* Calls over several contexts. */
static void abi_multi(abi_env *e, fsdpa_ctx *const *c, size_t n) {
  abi_box ob, eb;
  fsdpa_crossrank *xr = abi_out(e, &ob, &abi_fsdpa_crossrank);
  fsdpa_error *er = abi_out(e, &eb, &abi_fsdpa_error);
  fsdpa_status st = fsdpa_crossrank_query(c, n, xr, er);
  abi_err_ok(e, &eb, st, "ranks", "fsdpa_crossrank_query");
  abi_done(e, &ob, "fsdpa_crossrank_query");
  abi_dump(e, &ob);
  fsdpa_list *l = NULL;
  er = abi_out(e, &eb, &abi_fsdpa_error);
  st = fsdpa_crossrank_rank_list(c, n, &l, er);
  abi_err_ok(e, &eb, st, "ranks", "fsdpa_crossrank_rank_list");
  if (st == FSDPA_OK) abi_items(e, l, FSDPA_LIST_CROSSRANK_RANKS, "ranks", "fsdpa_crossrank_rank_list");
  l = NULL;
  er = abi_out(e, &eb, &abi_fsdpa_error);
  st = fsdpa_report_findings(c, n, &l, er);
  abi_err_ok(e, &eb, st, "ranks", "fsdpa_report_findings");
  if (st == FSDPA_OK) {
    fprintf(e->out, "  worst %d\n", fsdpa_findings_worst(l));
    abi_items(e, l, FSDPA_LIST_FINDINGS, "ranks", "fsdpa_report_findings");
  }
  /* no context at all: every field of the error */
  er = abi_out(e, &eb, &abi_fsdpa_error);
  char *out = NULL;
  st = fsdpa_report(c, NULL, 0, NULL, &out, NULL, er);
  abi_status(e, "ranks", "fsdpa_report(no contexts)", st);
  abi_done(e, &eb, "fsdpa_report(no contexts)");
  abi_dump(e, &eb);
  if (st != FSDPA_EINVAL || out) abi_failf(e, "fsdpa_report over no contexts: %s", fsdpa_status_str(st));
  fsdpa_free(out);
}

/* The whole run: contexts for the n trace files and one built from events,
 * every call in turn; every allocation is returned at the end. */
static void abi_run(abi_env *e, const char *const *paths, size_t n) {
  enum { MAXC = 4 };
  abi_heap heap = {0};
  abi_box ab;
  fsdpa_allocator *al = abi_in(e, &ab, &abi_fsdpa_allocator);
  al->malloc_fn = abi_malloc;
  al->realloc_fn = abi_realloc;
  al->free_fn = abi_free;
  al->ud = &heap;
  abi_seal(&ab);
  fsdpa_ctx *c[MAXC] = {NULL, NULL, NULL, NULL};
  if (n + 1 > MAXC) n = MAXC - 1;
  static const char *const names[MAXC] = {"rank0", "rank1", "rank2", "events"};
  for (size_t i = 0; i <= n; i++) {
    abi_box ob;
    fsdpa_options *o = abi_in(e, &ob, &abi_fsdpa_options);
    fsdpa_options_init(o);
    abi_inited(e, &ob, "fsdpa_options_init");
    o->allocator = al;
    o->max_memory_bytes = (uint64_t)1 << 30;
    o->max_input_bytes = (uint64_t)1 << 30;
    o->name = i < n ? names[i] : names[MAXC - 1];
    o->rank = i < n ? FSDPA_ABSENT : 5;
    abi_seal(&ob);
    fsdpa_status st = fsdpa_ctx_new(&c[i], o);
    abi_status(e, o->name, "fsdpa_ctx_new", st);
    abi_unchanged(e, &ob, "fsdpa_ctx_new");
    abi_unchanged(e, &ab, "fsdpa_ctx_new (its allocator)");
    if (st != FSDPA_OK) {
      abi_failf(e, "fsdpa_ctx_new: %s", fsdpa_status_str(st));
      goto out;
    }
  }
  for (size_t i = 0; i < n; i++) abi_ctx_ok(e, c[i], fsdpa_feed_file(c[i], paths[i]), names[i], "fsdpa_feed_file");
  abi_events(e, c[n]);
  for (size_t i = 0; i <= n; i++) abi_one_ctx(e, c[i], i < n ? names[i] : "events");
  abi_multi(e, c, n);
  abi_report(e, c, n, -1, 0, 0, "report default");
  abi_report(e, c, n, FSDPA_FORMAT_JSON, 0, FSDPA_ABSENT, "report json");
  abi_report(e, c, n, FSDPA_FORMAT_TEXT, 1, FSDPA_ABSENT, "report text");
  abi_report(e, c, n, FSDPA_FORMAT_HTML, 0, 0, "report html");
  abi_report(e, c + n, 1, FSDPA_FORMAT_JSON, 0, FSDPA_ABSENT, "report events");
  abi_summaries(e, c, n, al);
  abi_annotate(e, c, n, paths);
  {
    /* the params list needs no context */
    fsdpa_list *l = NULL;
    fsdpa_status st = fsdpa_param_list(&l);
    abi_status(e, "params", "fsdpa_param_list", st);
    if (st != FSDPA_OK) abi_failf(e, "fsdpa_param_list: %s", fsdpa_status_str(st));
    else abi_items(e, l, FSDPA_LIST_PARAMS, "params", "fsdpa_param_list");
    /* fsdpa_error_init() on a caller's struct */
    abi_box eb;
    fsdpa_error *er = abi_in(e, &eb, &abi_fsdpa_error);
    fsdpa_error_init(er);
    abi_inited(e, &eb, "fsdpa_error_init");
  }
out:
  for (size_t i = 0; i < MAXC; i++) fsdpa_ctx_free(c[i]);
  abi_unchanged(e, &ab, "the run (its allocator)");
  if (heap.live != 0) abi_failf(e, "%lld bytes not returned to the allocator", heap.live);
}
#endif
