/* Size-versioned structs across the ABI (the rule is in fsdpa.h's file
 * documentation).  Every public struct starts with `size_t size`; its
 * **first size** is where its last field of the first release (0.2.0) ends:
 * a caller compiled against that release passes at least this much.  The
 * library copies min(caller's size, its own size) in and out, so older
 * callers keep working when a struct grows, and bytes a newer caller has
 * past our struct are ignored on input and never written on output. */
#ifndef FSDPA_UTIL_ABI_H
#define FSDPA_UTIL_ABI_H
#include <stddef.h>
#include <string.h>
#include "fsdpa/fsdpa.h"

#define ABI_END(T, f) (offsetof(T, f) + sizeof(((T *)0)->f))

/* First sizes, named after the struct: ABI_FIRST(fsdpa_query). */
#define ABI_FIRST(T) ABI_FIRST_##T
#define ABI_FIRST_fsdpa_allocator ABI_END(fsdpa_allocator, ud)
#define ABI_FIRST_fsdpa_options ABI_END(fsdpa_options, rank)
#define ABI_FIRST_fsdpa_error ABI_END(fsdpa_error, message)
#define ABI_FIRST_fsdpa_event ABI_END(fsdpa_event, label_len)
#define ABI_FIRST_fsdpa_trace_info ABI_END(fsdpa_trace_info, base_time_ns)
#define ABI_FIRST_fsdpa_stats ABI_END(fsdpa_stats, names)
#define ABI_FIRST_fsdpa_step ABI_END(fsdpa_step, dur_ns)
#define ABI_FIRST_fsdpa_stream_info ABI_END(fsdpa_stream_info, last_ns)
#define ABI_FIRST_fsdpa_query ABI_END(fsdpa_query, stream)
#define ABI_FIRST_fsdpa_timeline ABI_END(fsdpa_timeline, activities)
#define ABI_FIRST_fsdpa_launch_gaps ABI_END(fsdpa_launch_gaps, gpu_small_launch_ns)
#define ABI_FIRST_fsdpa_launch_latency ABI_END(fsdpa_launch_latency, short_kernel_share)
#define ABI_FIRST_fsdpa_launch_queue ABI_END(fsdpa_launch_queue, starved_ns)
#define ABI_FIRST_fsdpa_overlap ABI_END(fsdpa_overlap, compute_kernels)
#define ABI_FIRST_fsdpa_comm_split ABI_END(fsdpa_comm_split, busbw_gbps)
#define ABI_FIRST_fsdpa_fsdp_unit ABI_END(fsdpa_fsdp_unit, compute_kernels)
#define ABI_FIRST_fsdpa_backward ABI_END(fsdpa_backward, idle_ns)
#define ABI_FIRST_fsdpa_backward_step ABI_END(fsdpa_backward_step, overlap_pct)
#define ABI_FIRST_fsdpa_backward_unit ABI_END(fsdpa_backward_unit, rs_stream)
#define ABI_FIRST_fsdpa_sync_wait ABI_END(fsdpa_sync_wait, gpu_idle_ns)
#define ABI_FIRST_fsdpa_sync_call ABI_END(fsdpa_sync_call, gpu_idle_after_ns)
#define ABI_FIRST_fsdpa_sync_step ABI_END(fsdpa_sync_step, flagged)
#define ABI_FIRST_fsdpa_memory_summary ABI_END(fsdpa_memory_summary, mean_unallocated_share)
#define ABI_FIRST_fsdpa_memory_device ABI_END(fsdpa_memory_device, mean_unallocated_share)
#define ABI_FIRST_fsdpa_memory_point ABI_END(fsdpa_memory_point, reserved_last)
#define ABI_FIRST_fsdpa_memory_step ABI_END(fsdpa_memory_step, returns_to_baseline)
#define ABI_FIRST_fsdpa_report_options ABI_END(fsdpa_report_options, width)
#define ABI_FIRST_fsdpa_finding ABI_END(fsdpa_finding, ranges)
#define ABI_FIRST_fsdpa_param ABI_END(fsdpa_param, description)
#define ABI_FIRST_fsdpa_crossrank ABI_END(fsdpa_crossrank, straggler_lost_ns)
#define ABI_FIRST_fsdpa_crossrank_rank ABI_END(fsdpa_crossrank_rank, lost_ns)
#define ABI_FIRST_fsdpa_summary_options ABI_END(fsdpa_summary_options, max_memory_bytes)
#define ABI_FIRST_fsdpa_annotate_options ABI_END(fsdpa_annotate_options, level)
/* added after 0.2.0: first size = whole struct */
#define ABI_FIRST_fsdpa_device_info ABI_END(fsdpa_device_info, total_memory_bytes)
#define ABI_FIRST_fsdpa_kernel_select ABI_END(fsdpa_kernel_select, max_rows)
#define ABI_FIRST_fsdpa_kernel_stat ABI_END(fsdpa_kernel_stat, share)
#define ABI_FIRST_fsdpa_op_stat ABI_END(fsdpa_op_stat, peak_share)
#define ABI_FIRST_fsdpa_efficiency ABI_END(fsdpa_efficiency, device)
#define ABI_FIRST_fsdpa_device_peak ABI_END(fsdpa_device_peak, hbm_tb_per_s)
#define ABI_FIRST_fsdpa_diff_options ABI_END(fsdpa_diff_options, max_memory_bytes)

/* The caller's size field, or 0 for a NULL struct. */
static inline size_t abi_size(const void *theirs) { return theirs ? *(const size_t *)theirs : 0; }

/* Input: `ours` holds our defaults; the caller's fields it knows overwrite
 * them.  0 (nothing copied) when the caller's size is below `first`. */
static inline int abi_copy_in(void *ours, size_t ours_size, const void *theirs, size_t first) {
  size_t given = abi_size(theirs);
  if (given < first) return 0;
  size_t n = given < ours_size ? given : ours_size;
  memcpy((char *)ours + sizeof(size_t), (const char *)theirs + sizeof(size_t), n - sizeof(size_t));
  return 1;
}
#define ABI_IN(T, ours, theirs) abi_copy_in((ours), sizeof(T), (theirs), ABI_FIRST(T))

/* Output: the fields the caller knows, from `ours`; its size field and any
 * bytes past ours stay as they are.  0 (nothing written) when its size is
 * below `first`. */
static inline int abi_copy_out(void *theirs, const void *ours, size_t ours_size, size_t first) {
  size_t given = abi_size(theirs);
  if (given < first) return 0;
  size_t n = given < ours_size ? given : ours_size;
  memcpy((char *)theirs + sizeof(size_t), (const char *)ours + sizeof(size_t), n - sizeof(size_t));
  return 1;
}
#define ABI_OUT(T, theirs, ours) abi_copy_out((theirs), (ours), sizeof(T), ABI_FIRST(T))
/* Whether the caller's struct is large enough to be written (checked before
 * computing, so a bad size costs nothing). */
#define ABI_OK(T, theirs) (abi_size(theirs) >= ABI_FIRST(T))
#endif
