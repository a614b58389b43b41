/* Strings the structured-event fuzz target (fuzz_events.c) picks by index:
 * every category, name and argument value the library matches on, so that
 * the fuzzer reaches the analyses instead of building unknown events.
 * make_corpus.py reads this table (between the BEGIN/END lines) to encode
 * real trace events; append only, or the committed corpus changes meaning. */
#ifndef FSDPA_FUZZ_EVENTS_TABLES_H
#define FSDPA_FUZZ_EVENTS_TABLES_H
/* BEGIN FZ_STRINGS */
static const char *const FZ_STRINGS[] = {
    "kernel", "Kernel", "gpu_memcpy", "Memcpy", "gpu_memset", "Memset", "cuda_runtime",
    "cuda_driver", "Runtime", "cpu_op", "Operator", "user_annotation", "gpu_user_annotation",
    "[memory]", "[OutOfMemory]", "cuda_sync", "python_function", "ac2g", "Trace",
    "ProfilerStep#0", "ProfilerStep#1", "ProfilerStep#2", "ProfilerStep#3",
    "cudaLaunchKernel", "cuLaunchKernel", "cudaLaunchKernelExC", "hipLaunchKernel",
    "hipExtModuleLaunchKernel", "cudaGraphLaunch", "cudaMemcpyAsync", "cudaMemsetAsync",
    "cudaStreamSynchronize", "cudaDeviceSynchronize", "cudaEventSynchronize", "cudaStreamWaitEvent",
    "cudaEventRecord", "cudaMalloc", "cudaFree", "cudaMallocAsync", "hipMalloc", "hipFree",
    "cudaHostAlloc", "emptyCache",
    "ncclDevKernel_AllGather_RING_LL(ncclDevKernelArgsStorage<4096ul>)",
    "ncclDevKernel_ReduceScatter_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)",
    "ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*, unsigned long, ncclWork*)",
    "ncclDevKernel_Generic(ncclDevKernelArgsStorage<4096ul>)",
    "ncclDevKernel_SendRecv(ncclDevKernelArgsStorage<4096ul>)", "ncclKernel_Broadcast_RING_LL",
    "void at::native::elementwise_kernel<128, 2>(int, Reduce)", "ampere_sgemm_128x64_tn",
    "Memcpy HtoD (Pageable -> Device)", "Memcpy DtoD (Device -> Device)", "Memset (Device)",
    "record_param_comms", "nccl:all_gather", "nccl:reduce_scatter", "nccl:all_reduce",
    "c10d::allgather_", "aten::mm", "aten::copy_", "aten::empty",
    "autograd::engine::evaluate_function: MmBackward0",
    "FSDP::pre_forward (layers.0)", "FSDP::post_forward (layers.0)",
    "FSDP::pre_backward (layers.0)", "FSDP::post_backward_reduce (layers.0)",
    "FSDP::post_backward_reshard (layers.0)", "FSDP::all_gather (layers.0)",
    "FSDP::all_gather_copy_in", "FSDP::all_gather_copy_out", "FSDP::forward_prefetch",
    "FSDP::backward_prefetch", "FSDP::root_pre_forward", "FSDP::root_post_backward_callback",
    "FSDP::pre_forward (layers.1)", "FSDP::pre_backward (layers.1)",
    "FSDP::post_backward_reduce (layers.1)",
    "FullyShardedDataParallel.forward", "FullyShardedDataParallel._pre_forward",
    "FullyShardedDataParallel._post_forward", "FullyShardedDataParallel._pre_backward_hook",
    "FullyShardedDataParallel._post_backward_hook", "FullyShardedDataParallel._post_backward_prefetch",
    "allgather", "reduce_scatter", "allreduce", "all_to_all", "broadcast", "send", "recv", "barrier",
    "_allgather_base", "Float", "BFloat16", "Half", "Int", "Long", "Byte", "Double",
    "0", "1", "default_pg", "Stream Sync", "Event Sync", "Context Sync", "Wait Event",
    "python", "process_name", "thread_name", "process_labels", "thread_sort_index", "GPU 0",
    "stream 7", "stream 20 ", "", "Step", "Backward", "Forward",
};
/* END FZ_STRINGS */
#define FZ_NSTRINGS (sizeof FZ_STRINGS / sizeof FZ_STRINGS[0])
#endif
