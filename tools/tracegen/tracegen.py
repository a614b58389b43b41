#!/usr/bin/env python3
"""tracegen: synthetic PyTorch-profiler (Kineto) Chrome traces of FSDP training
with exactly known ground truth.

Python 3 standard library only.  Usage:

    python3 tools/tracegen/tracegen.py SCENARIO -o OUT.json[.gz] [--ranks N]
        [--steps N] [--layers N] [--seed S] [--target-bytes BYTES]
        [--format new|old|legacy19] [--nccl-names new|old]

or, as a module:

    import tracegen
    truth = tracegen.generate("fsdp2_healthy", "out.json.gz", steps=4)

Every trace gets a `<name>.truth.json` next to it (see README.md).  The
simulation works in integer nanoseconds; the trace is streamed to disk one
profiler step at a time and the ground truth is computed from the intervals
actually emitted (own interval-union code, independent of libfsdpa).
"""

import argparse
import bisect
import contextlib
import gzip
import fnmatch
import json
import os
import random
import sys
import tempfile
import time
import zlib

US = 1000          # ns per microsecond
MS = 1000 * US
MIB = 1 << 20
GIB = 1 << 30
INF = 1 << 62

KW_THRESHOLD_NS = 30 * US   # HTA consecutive_kernel_delay (30 us)

# --------------------------------------------------------------------------
# Kernel catalogue: name -> (regs/thread, shared mem, grid, block, blocks/SM,
# warps/SM, est. occupancy).  Names copied from real traces / libraries.
# --------------------------------------------------------------------------

K_LN = ("void at::native::(anonymous namespace)::vectorized_layer_norm_kernel"
        "<c10::BFloat16, float>(int, float, c10::BFloat16 const*, c10::BFloat16 const*, "
        "c10::BFloat16 const*, float*, float*, c10::BFloat16*)")
K_GEMM = "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64_warpgroupsize1x1x1_execute_segment_k_off_kernel__5x_cublas"
K_GEMM_NT = "sm90_xmma_gemm_bf16bf16_bf16f32_f32_nt_n_tilesize128x256x64_warpgroupsize2x1x1_execute_segment_k_off_kernel__5x_cublas"
K_GEMM_NN = "sm90_xmma_gemm_bf16bf16_bf16f32_f32_nn_n_tilesize256x128x64_warpgroupsize2x1x1_execute_segment_k_off_kernel__5x_cublas"
K_FLASH = ("void pytorch_flash::flash_fwd_kernel<Flash_fwd_kernel_traits<128, 128, 64, 4, false, false, "
           "cutlass::bfloat16_t, Flash_kernel_traits<128, 128, 64, 4, cutlass::bfloat16_t> >, false, true, "
           "false, false, true, true, false, false>(pytorch_flash::Flash_fwd_params)")
K_FLASH_BWD = ("void pytorch_flash::flash_bwd_dq_dk_dv_loop_seqk_parallel_kernel<Flash_bwd_kernel_traits<128, 64, 128, 8, "
               "2, 4, 2, false, false, cutlass::bfloat16_t, Flash_kernel_traits<128, 64, 128, 8, cutlass::bfloat16_t> >, "
               "true, false, false, false, false, true, false, false>(pytorch_flash::Flash_bwd_params)")
K_FLASH_DOT = ("void pytorch_flash::flash_bwd_dot_do_o_kernel<true, Flash_bwd_kernel_traits<128, 64, 128, 8, 2, 4, 2, "
               "false, false, cutlass::bfloat16_t, Flash_kernel_traits<128, 64, 128, 8, cutlass::bfloat16_t> > >"
               "(pytorch_flash::Flash_bwd_params)")
K_ADD = ("void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<c10::BFloat16>, "
         "std::array<char*, 3ul> >(int, at::native::CUDAFunctor_add<c10::BFloat16>, std::array<char*, 3ul>)")
K_GELU = ("void at::native::vectorized_elementwise_kernel<4, at::native::GeluCUDAKernelImpl(at::TensorIteratorBase&, "
          "at::native::GeluType)::{lambda()#2}::operator()() const::{lambda()#4}::operator()() const::"
          "{lambda(c10::BFloat16)#1}, std::array<char*, 2ul> >(int, at::native::GeluCUDAKernelImpl("
          "at::TensorIteratorBase&, at::native::GeluType)::{lambda()#2}::operator()() const::{lambda()#4}::"
          "operator()() const::{lambda(c10::BFloat16)#1}, std::array<char*, 2ul>)")
K_GELU_BWD = ("void at::native::vectorized_elementwise_kernel<4, at::native::GeluBackwardCUDAKernelImpl("
              "at::TensorIteratorBase&, at::native::GeluType)::{lambda()#2}::operator()() const::{lambda()#4}::"
              "operator()() const::{lambda(c10::BFloat16, c10::BFloat16)#1}, std::array<char*, 3ul> >(int, "
              "at::native::GeluBackwardCUDAKernelImpl(at::TensorIteratorBase&, at::native::GeluType)::"
              "{lambda()#2}::operator()() const::{lambda()#4}::operator()() const::"
              "{lambda(c10::BFloat16, c10::BFloat16)#1}, std::array<char*, 3ul>)")
K_LN_BWD = ("void at::native::(anonymous namespace)::layer_norm_grad_input_kernel_vectorized<c10::BFloat16, float>"
            "(c10::BFloat16 const*, c10::BFloat16 const*, float const*, float const*, c10::BFloat16 const*, "
            "c10::BFloat16*, int)")
K_LN_GB = ("void at::native::(anonymous namespace)::GammaBetaBackwardCUDAKernelTemplate<c10::BFloat16, float, "
           "32u, 32u, 256u, false, true>(long, long, c10::BFloat16 const*, c10::BFloat16 const*, float const*, "
           "float const*, c10::BFloat16*, c10::BFloat16*)")
K_INDEX = ("void at::native::(anonymous namespace)::indexSelectLargeIndex<c10::BFloat16, long, unsigned int, 2, 2, "
           "-2, true>(at::cuda::detail::TensorInfo<c10::BFloat16, unsigned int>, "
           "at::cuda::detail::TensorInfo<c10::BFloat16, unsigned int>, at::cuda::detail::TensorInfo<long, unsigned int>, "
           "int, int, unsigned int, unsigned int, long)")
K_EMB_BWD = ("void at::native::(anonymous namespace)::embedding_backward_feature_kernel<c10::BFloat16, float, long>"
             "(long const*, c10::BFloat16 const*, c10::BFloat16*, int, long, int, int)")
K_LOGSOFTMAX = ("void at::native::(anonymous namespace)::cunn_SoftMaxForward<4, c10::BFloat16, float, c10::BFloat16, "
                "at::native::(anonymous namespace)::LogSoftMaxForwardEpilogue>(c10::BFloat16*, c10::BFloat16 const*, int)")
K_LOGSOFTMAX_BWD = ("void at::native::(anonymous namespace)::cunn_SoftMaxBackward<4, c10::BFloat16, float, "
                    "c10::BFloat16, at::native::(anonymous namespace)::LogSoftMaxBackwardEpilogue>(c10::BFloat16*, "
                    "c10::BFloat16 const*, c10::BFloat16 const*, long)")
K_NLL = ("void at::native::(anonymous namespace)::nll_loss_forward_reduce_cuda_kernel_2d<c10::BFloat16, float, long>"
         "(c10::BFloat16*, c10::BFloat16*, c10::BFloat16 const*, long const*, c10::BFloat16 const*, bool, long, long, long, long)")
K_NLL_BWD = ("void at::native::(anonymous namespace)::nll_loss_backward_reduce_cuda_kernel_2d<c10::BFloat16, long>"
             "(c10::BFloat16*, c10::BFloat16 const*, long const*, c10::BFloat16 const*, c10::BFloat16 const*, bool, int, int, long, long)")
K_COPY_IN = ("void at::native::(anonymous namespace)::CatArrayBatchedCopy_aligned16_contig<at::native::"
             "(anonymous namespace)::OpaqueType<2u>, unsigned int, 1, 128, 1>(at::native::(anonymous namespace)::"
             "OpaqueType<2u>*, at::native::(anonymous namespace)::CatArrInputTensorMetadata<at::native::"
             "(anonymous namespace)::OpaqueType<2u>, unsigned int, 128, 1>, at::native::(anonymous namespace)::"
             "TensorSizeStride<unsigned int, 4u>, int, unsigned int)")
K_SPLIT = ("void at::native::(anonymous namespace)::split_with_sizes_copy_out_contiguous_no_cast_kernel"
           "<(unsigned int)128>(char**, char**, long const*, long const*, long const*, long, long, long)")
K_CHUNK_CAT = ("void at::native::(anonymous namespace)::chunk_cat_cuda_kernel<float, float>(at::native::"
               "(anonymous namespace)::CatArrInputTensorMetadata<float, long, 128, 1>, long, long, long, long, "
               "float*, long)")
K_MTA = ("void at::native::(anonymous namespace)::multi_tensor_apply_kernel<at::native::(anonymous namespace)::"
         "TensorListMetadata<4>, at::native::(anonymous namespace)::FusedAdamMathFunctor<float, 4, "
         "(at::native::ADAM_MODE)1, false>, double*, double, double, double, double, double, bool, double*, "
         "double*>(at::native::(anonymous namespace)::TensorListMetadata<4>, at::native::(anonymous namespace)::"
         "FusedAdamMathFunctor<float, 4, (at::native::ADAM_MODE)1, false>, double*, double, double, double, double, "
         "double, bool, double*, double*)")
K_FILL = ("void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>, std::array<char*, 1ul> >"
          "(int, at::native::FillFunctor<float>, std::array<char*, 1ul>)")
K_MUL = ("void at::native::vectorized_elementwise_kernel<4, at::native::AUnaryFunctor<float, float, float, "
         "at::native::binary_internal::MulFunctor<float> >, std::array<char*, 2ul> >(int, at::native::AUnaryFunctor"
         "<float, float, float, at::native::binary_internal::MulFunctor<float> >, std::array<char*, 2ul>)")
K_RELU = ("void at::native::vectorized_elementwise_kernel<4, at::native::(anonymous namespace)::launch_clamp_scalar("
          "at::TensorIteratorBase&, c10::Scalar, c10::Scalar, at::native::detail::ClampLimits)::{lambda()#1}::"
          "operator()() const::{lambda()#7}::operator()() const::{lambda(float)#1}, std::array<char*, 2ul> >(int, "
          "at::native::(anonymous namespace)::launch_clamp_scalar(at::TensorIteratorBase&, c10::Scalar, c10::Scalar, "
          "at::native::detail::ClampLimits)::{lambda()#1}::operator()() const::{lambda()#7}::operator()() const::"
          "{lambda(float)#1}, std::array<char*, 2ul>)")
K_SUM = ("void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float, at::native::func_wrapper_t<float, "
         "at::native::sum_functor<float, float, float>::operator()(at::TensorIterator&)::{lambda(float, float)#1}>, "
         "unsigned int, float, 4, 4> >(at::native::ReduceOp<float, at::native::func_wrapper_t<float, "
         "at::native::sum_functor<float, float, float>::operator()(at::TensorIterator&)::{lambda(float, float)#1}>, "
         "unsigned int, float, 4, 4>)")
K_SIGMOID = ("void at::native::vectorized_elementwise_kernel<4, at::native::sigmoid_kernel_cuda(at::TensorIteratorBase&)"
             "::{lambda()#2}::operator()() const::{lambda()#3}::operator()() const::{lambda(float)#1}, "
             "std::array<char*, 2ul> >(int, at::native::sigmoid_kernel_cuda(at::TensorIteratorBase&)::{lambda()#2}::"
             "operator()() const::{lambda()#3}::operator()() const::{lambda(float)#1}, std::array<char*, 2ul>)")
K_TRITON_1 = "triton_red_fused__to_copy_add_mean_mul_pow_rsqrt_0"
K_TRITON_2 = "triton_poi_fused__unsafe_view_add_gelu_mul_view_1"
K_TRITON_3 = "triton_per_fused__log_softmax__to_copy_nll_loss_forward_2"
K_SGEMM = "void cutlass::Kernel2<cutlass_80_tensorop_s1688gemm_256x128_16x3_nt_align4>(cutlass_80_tensorop_s1688gemm_256x128_16x3_nt_align4::Params)"

# Expert-parallel MoE serving step (scenario ep_moe): communication that is
# not NCCL.  Names as the libraries' sources give them (DeepEP
# csrc/kernels/internode.cu, vLLM moe routing, flash-attention split-kv).
K_EP_LAYOUT = ("void deep_ep::layout::get_dispatch_layout<256, 32, 8>(long const*, int*, int*, int*, bool*, "
               "int, int, int, int)")
K_EP_NOTIFY = ("void deep_ep::internode::notify_dispatch<true>(int const*, int*, int, int const*, int*, int, "
               "bool const*, int*, int*, int, int, int, int, int, int, int*, int*, int*, int*, void*, int, int, "
               "void**, int, int)")
K_EP_DISPATCH = ("void deep_ep::internode::dispatch<false, 8, 2, 4, 1, 2, 24, 8, 4>(int4*, float*, long*, float*, "
                 "void*, int4 const*, float const*, long const*, float const*, int, int, int, int, int, bool, "
                 "void*, int, int, int, void**, int, int)")
K_EP_COMBINE = ("void deep_ep::internode::combine<__nv_bfloat16, 8, 2, 4, 24, 8, 4>(int4*, float*, bool const*, "
                "void const*, float const*, int4 const*, int, int, int, void*, int, int, int, void**, int, int)")
K_ROUTING = "_combined_routing_compute"
K_SPLITKV_COMBINE = ("void flash_fwd_splitkv_combine_kernel<Flash_fwd_kernel_traits<128, 64, 128, 4, false, false, "
                     "cutlass::bfloat16_t, Flash_kernel_traits<128, 64, 128, 4, cutlass::bfloat16_t> >, 4, 3, true>"
                     "(Flash_fwd_params)")
# a custom all-reduce whose name no rule knows: communication only by
# provenance (launched inside _C_custom_ar::all_reduce)
K_INHOUSE_AR = "void inhouse::fused_ring_reduce<__nv_bfloat16, 8>(__nv_bfloat16*, __nv_bfloat16 const*, int)"
# an in-house transfer kernel outside any communication op: compute unless a
# user pattern names it (truth "overlap_user": comm.kernel_patterns=*inhouse_ep::*)
K_INHOUSE_XFER = "void inhouse_ep::ring_xfer_kernel<8>(int*, int)"
EP_USER_PATTERN = "*inhouse_ep::*"
# the collective kernel of an in-house c10d backend (scenario custom_ar)
K_HOUSE_C10D = "void house_ccl::ring_allreduce_kernel<float, 4>(float*, float const*, long)"

# the job scenarios (JobWorkload): FBGEMM table-batched embedding kernels, the all-to-all kernel of
# NCCL's point-to-point path, greedy sampling's argmax
K_TBE_FWD = ("void fbgemm_gpu::split_embedding_codegen_forward_unweighted_kernel<float, float, float, long, 1, 32, "
             "8>(at::PackedTensorAccessor64<float, 1, at::RestrictPtrTraits>, int, int, long, long)")
K_TBE_BWD = ("void fbgemm_gpu::split_embedding_backward_codegen_rowwise_adagrad_unweighted_kernel_warp_per_row_1"
             "<float, float, float, long, 8, 32>(at::PackedTensorAccessor64<float, 2, at::RestrictPtrTraits>, int)")
K_SENDRECV = "ncclDevKernel_SendRecv(ncclDevKernelArgsStorage<4096ul>)"
K_PERMUTE_LENGTHS = "void fbgemm_gpu::permute_2D_lengths_kernel<int>(int, int, int const*, int const*, int*)"
K_PERMUTE_DATA = ("void fbgemm_gpu::permute_2D_data_kernel<false, int, int, decltype(nullptr)>(int, int, int, int const*, "
                  "decltype(nullptr) const*, int const*, int const*, int const*, int*, decltype(nullptr)*)")
K_ARGMAX = ("void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float, at::native::ArgMaxOps<float>, "
            "unsigned int, long, 4, 4> >(at::native::ReduceOp<float, at::native::ArgMaxOps<float>, unsigned int, "
            "long, 4, 4>)")

NCCL_NEW = {
    "AllGather": "ncclDevKernel_AllGather_RING_LL(ncclDevKernelArgsStorage<4096ul>)",
    "ReduceScatter": "ncclDevKernel_ReduceScatter_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)",
    "AllReduce": "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)",
}
NCCL_OLD = {
    "AllGather": "ncclKernel_AllGather_RING_LL_Sum_int8_t(ncclDevComm*, unsigned long, ncclWork*)",
    "ReduceScatter": "ncclKernel_ReduceScatter_RING_LL_Sum_float(ncclDevComm*, unsigned long, ncclWork*)",
    "AllReduce": "ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*, unsigned long, ncclWork*)",
}

_KPROF = {
    K_LN: (24, 0, (16384, 1, 1), (128, 1, 1), 124.121216, 496.484863, 100),
    K_GEMM: (168, 232448, (132, 1, 1), (384, 1, 1), 1.0, 12.0, 0),
    K_GEMM_NT: (168, 232448, (132, 1, 1), (384, 1, 1), 1.0, 12.0, 0),
    K_GEMM_NN: (168, 232448, (132, 1, 1), (384, 1, 1), 1.0, 12.0, 0),
    K_FLASH: (255, 49152, (16, 32, 8), (128, 1, 1), 31.030302, 124.121216, 12),
    K_FLASH_BWD: (255, 98304, (8, 8, 32), (256, 1, 1), 15.515151, 124.121216, 12),
    K_FLASH_DOT: (32, 0, (32, 8, 32), (128, 1, 1), 62.060608, 248.121216, 100),
    K_ADD: (18, 0, (4096, 1, 1), (128, 1, 1), 31.030302, 124.121216, 100),
    K_GELU: (22, 0, (8192, 1, 1), (128, 1, 1), 62.060608, 248.242432, 100),
    K_GELU_BWD: (26, 0, (8192, 1, 1), (128, 1, 1), 62.060608, 248.242432, 100),
    K_LN_BWD: (40, 0, (16384, 1, 1), (128, 1, 1), 124.121216, 496.484863, 100),
    K_LN_GB: (64, 16896, (128, 1, 1), (32, 32, 1), 0.969697, 31.030302, 48),
    K_INDEX: (30, 0, (1024, 1, 1), (128, 1, 1), 7.757576, 31.030302, 100),
    K_EMB_BWD: (40, 8192, (64, 1, 1), (32, 32, 1), 0.484848, 15.515152, 48),
    K_LOGSOFTMAX: (38, 0, (4096, 1, 1), (1024, 1, 1), 31.030302, 992.969727, 100),
    K_LOGSOFTMAX_BWD: (38, 0, (4096, 1, 1), (1024, 1, 1), 31.030302, 992.969727, 100),
    K_NLL: (32, 0, (1, 1, 1), (32, 1, 1), 0.007576, 0.007576, 0),
    K_NLL_BWD: (32, 0, (1, 1, 1), (32, 1, 1), 0.007576, 0.007576, 0),
    K_COPY_IN: (30, 0, (264, 1, 1), (128, 1, 1), 2.0, 8.0, 100),
    K_SPLIT: (32, 0, (528, 1, 1), (128, 1, 1), 4.0, 16.0, 100),
    K_CHUNK_CAT: (36, 0, (528, 1, 1), (256, 1, 1), 4.0, 32.0, 100),
    K_MTA: (96, 0, (320, 1, 1), (512, 1, 1), 2.424242, 38.787880, 100),
    K_FILL: (16, 0, (1024, 1, 1), (128, 1, 1), 7.757576, 31.030302, 100),
    K_MUL: (16, 0, (1, 1, 1), (128, 1, 1), 0.007576, 0.030303, 0),
    K_RELU: (16, 0, (1, 1, 1), (128, 1, 1), 0.007576, 0.030303, 0),
    K_SUM: (32, 16, (1, 1, 1), (32, 16, 1), 0.007576, 0.121212, 0),
    K_SIGMOID: (16, 0, (1, 1, 1), (128, 1, 1), 0.007576, 0.030303, 0),
    K_TRITON_1: (32, 0, (8192, 1, 1), (256, 1, 1), 62.060608, 496.484863, 100),
    K_TRITON_2: (30, 0, (65536, 1, 1), (512, 1, 1), 496.484863, 7943.757812, 100),
    K_TRITON_3: (40, 8, (4096, 1, 1), (1024, 1, 1), 31.030302, 992.969727, 100),
    K_SGEMM: (222, 81920, (16, 1, 32), (128, 1, 1), 3.878788, 15.515152, 0),
}
for _n in (K_EP_LAYOUT, K_EP_NOTIFY, K_EP_DISPATCH, K_EP_COMBINE, K_ROUTING, K_SPLITKV_COMBINE, K_INHOUSE_AR,
           K_INHOUSE_XFER, K_HOUSE_C10D):
    _KPROF[_n] = (64, 32768, (132, 1, 1), (768, 1, 1), 1.0, 24.0, 75)
for _n in (K_TBE_FWD, K_TBE_BWD, K_ARGMAX, K_PERMUTE_LENGTHS, K_PERMUTE_DATA):
    _KPROF[_n] = (48, 16384, (1024, 1, 1), (256, 1, 1), 8.0, 64.0, 100)
for _n in list(NCCL_NEW.values()) + list(NCCL_OLD.values()) + [K_SENDRECV]:
    _KPROF[_n] = (96, 103808, (24, 1, 1), (512, 1, 1), 0.181818, 2.909091, 0)

COMM_PREFIXES = ("nccl", "rccl", "msccl")


def is_comm_name(name):
    return name.lower().startswith(COMM_PREFIXES)


# Name with JSON escapes (quote, backslash, non-ASCII) used once per step.
ESCAPE_OP = 'my_ext::fused_op "caf\u00e9" C:\\kernels\\v2'

DEVICE_PROPS = {
    "name": "NVIDIA H100 80GB HBM3", "totalGlobalMem": 85029158912, "computeMajor": 9, "computeMinor": 0,
    "maxThreadsPerBlock": 1024, "maxThreadsPerMultiprocessor": 2048, "regsPerBlock": 65536,
    "regsPerMultiprocessor": 65536, "warpSize": 32, "sharedMemPerBlock": 49152,
    "sharedMemPerMultiprocessor": 233472, "numSms": 132, "sharedMemPerBlockOptin": 232448,
}

# --------------------------------------------------------------------------
# Scenarios
# --------------------------------------------------------------------------

# a sentence that calls a host-to-device copy a device-to-host one or .item() (verdict text_lacks)
H2D_AS_D2H = (r"(HtoD|host-to-device|Pageable -> Device)[^\n]*(device-to-host|\.item\(\))"
              r"|(device-to-host|\.item\(\))[^\n]*(HtoD|host-to-device|Pageable -> Device)")

ALL_FINDINGS = ["gpu-starvation", "launch-overhead", "comm-serialized", "exposed-comm",
                "backward-prefetch-missing", "cpu-sync-stall", "allocator-thrash",
                "allocator-fragmentation", "pinned-host-churn", "dataloader-stall", "queued-idle-unexplained",
                "host-spin-wait", "straggler-rank"]

SCENARIOS = {
    "fsdp2_healthy": dict(
        kind="fsdp", version=2, desc="FSDP2, forward AG(i+1) under compute(i), backward zigzag; malloc only in step 0",
        expected=[], absent=["gpu-starvation", "launch-overhead", "comm-serialized", "exposed-comm",
                             "backward-prefetch-missing", "cpu-sync-stall", "allocator-thrash"]),
    "fsdp2_no_prefetch": dict(
        kind="fsdp", version=2, prefetch="none", desc="FSDP2, backward AG(i-1) only after compute(i) and RS(i)",
        expected=["backward-prefetch-missing"], absent=["launch-overhead", "cpu-sync-stall", "allocator-thrash"]),
    "fsdp1_serialized": dict(
        kind="fsdp", version=1, serial=True, ag_scale=0.6, rs_scale=0.6,
        desc="FSDP1, one NCCL stream, comm strictly after compute",
        expected=["comm-serialized", "exposed-comm", "backward-prefetch-missing"],
        absent=["launch-overhead", "cpu-sync-stall", "allocator-thrash"]),
    "network_bound": dict(
        kind="fsdp", version=2, ag_scale=3.0, rs_scale=3.0 * 2.0 / 0.9,
        desc="FSDP2 with T_comm ~ 3x T_compute per unit",
        expected=["exposed-comm"], absent=["launch-overhead", "cpu-sync-stall", "allocator-thrash",
                                           "backward-prefetch-missing"]),
    "comm_on_compute_stream": dict(
        kind="fsdp", version=2, comm_on_compute=True,
        desc="FSDP2-like, NCCL kernels on compute stream 7 (PyTorch >= 2.8 sync collectives)",
        expected=["comm-serialized"], absent=["launch-overhead", "cpu-sync-stall", "allocator-thrash"]),
    "launch_bound": dict(
        kind="launch", desc="eager loop of thousands of tiny kernels with host-bound gaps",
        expected=["gpu-starvation", "launch-overhead"],
        absent=["comm-serialized", "exposed-comm", "backward-prefetch-missing", "allocator-thrash",
                "cpu-sync-stall"]),
    "first_use": dict(
        kind="first_use", one_pass=True,
        desc="one cold forward without ProfilerStep: the first launch of some kernel names loads its module "
             "(2-20 ms launch calls), cudaMalloc while the caching allocator fills; few later launches are slow",
        expected=["gpu-starvation"], absent=["launch-overhead", "comm-serialized", "exposed-comm",
                                             "backward-prefetch-missing", "allocator-thrash"]),
    "fused_healthy": dict(
        kind="fused", desc="few large kernels back to back, launches queued well ahead",
        expected=[], absent=["gpu-starvation", "launch-overhead", "comm-serialized", "exposed-comm",
                             "backward-prefetch-missing", "allocator-thrash", "cpu-sync-stall"]),
    "sync_stall": dict(
        kind="sync", desc="cudaStreamSynchronize every step (+cudaDeviceSynchronize on odd steps), GPU idle after",
        expected=["cpu-sync-stall"], absent=["launch-overhead", "comm-serialized", "exposed-comm",
                                             "allocator-thrash"]),
    "blocking_copy": dict(
        kind="sync", blocking_copy=True,
        desc="no sync API: a pageable cudaMemcpyAsync DtoH that returns with its copy every step, a cudaMemcpy "
             "on odd steps and a cudaLaunchKernel that waits for the queue to drain on even steps",
        expected=["cpu-sync-stall"], absent=["launch-overhead", "comm-serialized", "exposed-comm",
                                             "allocator-thrash"]),
    "stream_wait": dict(
        kind="sync", stream_wait=True,
        desc="single GPU, compute stream 7 and side stream 20: every step stream 7 waits for a side-stream op "
             "(cudaEventRecord + cudaStreamWaitEvent, cuda_sync Stream Wait Event), the host blocks in "
             "cudaEventSynchronize on another one (Event Sync), in cudaStreamSynchronize (Stream Sync) and on "
             "odd steps in cudaDeviceSynchronize (Context Sync)",
        expected=["cpu-sync-stall"], absent=["launch-overhead", "comm-serialized", "exposed-comm",
                                             "allocator-thrash"]),
    "sync_optimizer": dict(
        kind="sync", no_step="optimizer", alloc_per_iter=True,
        desc="sync_stall without ProfilerStep: each iteration ends with an Optimizer.step#SGD.step annotation "
             "(iterations inferred from it) and makes one cudaMalloc and one cudaFree after the first",
        expected=["cpu-sync-stall", "allocator-thrash"], absent=["launch-overhead", "comm-serialized",
                                                                 "exposed-comm"]),
    "sync_dataloader": dict(
        kind="sync", no_step="dataloader", alloc_per_iter=True,
        desc="sync_optimizer without the optimizer mark: the iterations are inferred from the DataLoader "
             "__next__ annotations (each starts one, lasting until the next; the last ends at the main "
             "thread's last CPU event)",
        expected=["cpu-sync-stall", "allocator-thrash"], absent=["launch-overhead", "comm-serialized",
                                                                 "exposed-comm"]),
    "sync_no_iterations": dict(
        kind="sync", no_step="none", alloc_per_iter=True,
        desc="sync_optimizer with no iteration mark at all (no ProfilerStep, optimizer or DataLoader "
             "annotation): judged over the whole trace, whose cudaMalloc calls are warm-up by default",
        expected=["cpu-sync-stall"], absent=["launch-overhead", "comm-serialized", "exposed-comm",
                                             "allocator-thrash"]),
    "allocator_thrash": dict(
        kind="fsdp", version=2, thrash_segments=INF,
        desc="FSDP2 with cudaFree/cudaMalloc every steady-state step",
        expected=["allocator-thrash"], absent=["launch-overhead", "backward-prefetch-missing"]),
    "allocator_healthy": dict(
        kind="fsdp", version=2, lazy_optimizer=True,
        desc="FSDP2, cudaMalloc only in steps 0 and 1 (lazy optimizer state), sawtooth back to baseline",
        expected=[], absent=["allocator-thrash", "allocator-fragmentation", "launch-overhead",
                             "backward-prefetch-missing", "cpu-sync-stall"]),
    "allocator_thrash_expandable": dict(
        kind="fsdp", version=2, thrash_segments=INF, alloc_backend="vmm",
        desc="allocator_thrash under expandable_segments:True: cuMemCreate/cuMemMap/cuMemSetAccess and "
             "cuMemUnmap/cuMemRelease (cuda_driver) every steady-state step",
        expected=["allocator-thrash"], absent=["launch-overhead", "backward-prefetch-missing"]),
    "allocator_thrash_async": dict(
        kind="fsdp", version=2, thrash_segments=INF, alloc_backend="async",
        desc="allocator_thrash under the cudaMallocAsync backend: cudaMallocAsync/cudaFreeAsync every "
             "steady-state step",
        expected=["allocator-thrash"], absent=["launch-overhead", "backward-prefetch-missing"]),
    "pinned_host": dict(
        kind="fsdp", version=2, lazy_optimizer=True, pinned_per_step=2,
        desc="allocator_healthy plus 2 pinned host staging buffers (cudaHostAlloc/cudaFreeHost) per step: "
             "pinned host memory, not device mallocs",
        expected=["pinned-host-churn"], absent=["allocator-thrash", "allocator-fragmentation", "launch-overhead",
                             "backward-prefetch-missing"]),
    "mtia_only": dict(
        kind="xdev", desc="a loop whose device work runs on an MTIA device (mtia_runtime, mtia_ccp_events): "
                          "no CUDA GPU activity, a device present and not analyzed",
        expected=[], absent=["gpu-starvation", "launch-overhead", "allocator-thrash", "cpu-sync-stall"]),
    "straggler": dict(
        kind="fsdp", version=2, ranks=4, straggler_delay=1500 * US,
        desc="N ranks, one rank late by a known delay every step; others wait inside the first collective",
        expected=[], absent=["launch-overhead", "allocator-thrash", "backward-prefetch-missing"]),
    "ep_moe": dict(
        kind="ep", desc="expert-parallel MoE step: DeepEP dispatch/combine on a comm stream, a custom all-reduce "
                        "known only by the op it runs in, routing and split-kv combine kernels that are compute",
        expected=[], absent=["launch-overhead", "cpu-sync-stall", "allocator-thrash", "backward-prefetch-missing"]),
    "custom_ar": dict(
        kind="ep", provenance_only=True,
        desc="tensor-parallel decode step whose only communication has names no rule knows: all-reduce kernels "
             "known by the ops they run in (vllm::all_reduce, an in-house c10d backend under record_param_comms)",
        expected=[], absent=["launch-overhead", "cpu-sync-stall", "allocator-thrash", "backward-prefetch-missing"]),
    "ddp": dict(
        kind="job", job="ddp", world=4,
        desc="DDP training, 4 ranks: forward under DistributedDataParallel.forward, backward on the autograd "
             "thread with the reducer's bucket all-reduce on NCCL's stream under the next layers' gradients",
        expected=[], absent=["backward-prefetch-missing", "allocator-thrash", "cpu-sync-stall", "comm-serialized",
                             "exposed-comm"],
        verdict=dict(parallelism=["DDP"], mode="train", iterations_from="ProfilerStep")),
    "ddp_alloc_off": dict(
        kind="job", job="ddp", world=4, alloc_off=True, no_step="optimizer",
        desc="ddp with the caching allocator off (PYTORCH_NO_CUDA_MEMORY_CACHING=1) and no ProfilerStep: a "
             "cudaMalloc for every tensor and a cudaFree, which waits for the device to drain, for every one "
             "that dies; iterations inferred from Optimizer.step",
        expected=["allocator-thrash"], absent=["backward-prefetch-missing", "dataloader-stall"],
        verdict=dict(parallelism=["DDP"], mode="train", iterations_from="optimizer_step",
                     costliest="allocator-thrash", min_severity={"allocator-thrash": "critical"},
                     advice_has={"allocator-thrash": "PYTORCH_NO_CUDA_MEMORY_CACHING"},
                     explained_by={"gpu-starvation": "allocator-thrash", "cpu-sync-stall": "allocator-thrash"})),
    "embedding_a2a": dict(
        kind="job", job="rec", world=4,
        desc="TorchRec DLRM-style training, 4 ranks: KJT and pooled-embedding all-to-alls around FBGEMM "
             "table-batched embedding kernels, the dense part under DDP",
        expected=[], absent=["backward-prefetch-missing", "allocator-thrash", "cpu-sync-stall"],
        verdict=dict(parallelism=["DDP", "embedding_all_to_all"], mode="train", iterations_from="ProfilerStep")),
    "tp_train": dict(
        kind="job", job="tp_train", world=2,
        desc="DTensor tensor-parallel training, 2 ranks: every layer's row-parallel output all-reduced by "
             "_c10d_functional::all_reduce (forward on the main thread, input gradients on the autograd "
             "thread), no FSDP, no DDP",
        expected=[], absent=["backward-prefetch-missing", "allocator-thrash", "cpu-sync-stall"],
        verdict=dict(parallelism=["tensor_parallel"], mode="train", iterations_from="ProfilerStep")),
    "decode_tp": dict(
        kind="job", job="decode_tp", world=2, engine_steps=True,
        desc="tensor-parallel decode on a serving engine, 2 ranks, eager: execute_8_context_0_generation_8 "
             "step annotations (no ProfilerStep, no DataLoader), two all-reduces per layer on the compute "
             "stream, the sampled tokens read back at the end of every step",
        expected=[], absent=["backward-prefetch-missing", "allocator-thrash", "dataloader-stall"],
        verdict=dict(parallelism=["tensor_parallel"], mode="decode", iterations_from="engine_step")),
    "tiny_cost": dict(
        kind="job", job="tiny",
        desc="single GPU, ms-long kernels launched well ahead; a loss.item() every step idles the GPU for "
             "the microseconds the host takes to launch again, one cudaMalloc/cudaFree pair in step 2: "
             "problems too small to be more than info",
        expected=[], absent=["launch-overhead", "comm-serialized", "exposed-comm", "backward-prefetch-missing"],
        verdict=dict(parallelism=["single_gpu"], mode="train", iterations_from="ProfilerStep",
                     max_severity={"*": "info"},
                     # step 2's one cudaFree is no allocator-thrash, so nothing names it
                     explained_by={"cpu-sync-stall": None})),
    "external_wait": dict(
        kind="gap", gap="external_wait", oplog=True, engine_steps=True, wait_forms=("cuda_sync", "rocm"),
        switch="the event already recorded when the stream waits for it: nothing outside the trace holds the step",
        desc="decode loop (sglang-style execute_32_... steps): the compute stream waits 300-500 ms for an event "
             "recorded by work outside the trace (cudaStreamWaitEvent with a cuda_sync Stream Wait Event whose "
             "record correlation is -1; --wait-form rocm: hipStreamWaitEvent and no record call at all) while the "
             "host blocks in a synchronous 256-byte D2H copy queued behind the wait",
        expected=["queued-idle-unexplained"],
        absent=["gpu-starvation", "launch-overhead", "comm-serialized", "exposed-comm", "allocator-thrash",
                "backward-prefetch-missing", "dataloader-stall"],
        # the GPU waits for the outside event, not for its host; the thread blocked in the copy is
        # a consequence of that wait, so the sync finding is the outside wait's and costs no idle
        verdict=dict(parallelism=["single_gpu"], mode="decode", iterations_from="engine_step",
                     costliest="queued-idle-unexplained",
                     min_severity={"queued-idle-unexplained": "critical"},
                     max_severity={"cpu-sync-stall": "info"},
                     explained_by={"cpu-sync-stall": "queued-idle-unexplained"},
                     # the replay's change (queued work starts when the dependencies the trace
                     # shows allow) is the switch itself; they differ by dispatch latency only
                     saving=[dict(id="queued-idle-unexplained", steps="steady", tol_ns_per_step=20 * US)])),
    "pageable_copy": dict(
        kind="gap", gap="pageable_copy", oplog=True,
        switch="pinned memory and non_blocking copies: the metric read back without blocking the host",
        desc="recommendation trainer: pageable H2D input copies (queued, not blocking), then every step a "
             "cudaMemcpyAsync D2H to pageable memory that returns only after all the queued GPU work; the host "
             "logs 1-2 ms afterwards with the GPU idle",
        expected=["cpu-sync-stall"], absent=["launch-overhead", "comm-serialized", "exposed-comm",
                                             "allocator-thrash", "backward-prefetch-missing",
                                             "queued-idle-unexplained"],
        # the metric's blocking copy takes the host's lead: the 1-2 ms of logging after it idle
        # the GPU, which a non-blocking copy would hide (the switch saves ~20 % of the step), so
        # the sync is the root cause of the starvation and at least a warning; the small H2D input
        # copies from pageable memory are queued, never blocking: no finding calls them a
        # device-to-host copy or .item()
        verdict=dict(parallelism=["single_gpu"], mode="train", iterations_from="ProfilerStep",
                     costliest="cpu-sync-stall", min_severity={"cpu-sync-stall": "warning"},
                     explained_by={"gpu-starvation": "cpu-sync-stall"},
                     text_lacks={"*": [["any_sentence", H2D_AS_D2H]],
                                 "cpu-sync-stall": [["evidence", r'"waited_op": "Memcpy HtoD']]},
                     waited_ops_from_truth=True,
                     # the replay makes the flagged calls wait for nothing; the switch pins the
                     # metric's buffer: they differ by the host's wake-up after each blocking call
                     # (4-9 us) and dispatch (up to 20 us), two calls a step
                     saving=[dict(id="cpu-sync-stall", steps="all", tol_ns_per_step=50 * US)])),
    "rank_skew": dict(
        kind="gap", gap="rank_skew", oplog=True, ranks=4, skew=True,
        switch="no rank late in its DataLoader: every rank enters the step's collectives together",
        desc="N ranks (files) entering every step's first all_to_all up to 7 ms apart (one rank late in its "
             "DataLoader, a different one each step): the early ranks' tiny all_to_all kernels (6144 elements) last "
             "until the late rank arrives, the same all_to_all later in the step and the gradient all-reduce take "
             "their transfer time only",
        expected=["exposed-comm"],
        # the late rank changes every step (1, 3, 1, 3 with 4 ranks and 4 steps): no rank is the
        # latest arriver in more than half of the steps, so there is no straggler to name
        absent=["launch-overhead", "allocator-thrash", "backward-prefetch-missing", "straggler-rank",
                "cpu-sync-stall", "queued-idle-unexplained"],
        verdict=dict(parallelism=["DDP", "embedding_all_to_all"], mode="train", iterations_from="ProfilerStep",
                     explained_by={"gpu-starvation": "dataloader-stall"},
                     # every rank's collective time is 80-90 % waiting for the late rank (the
                     # truth's collective table): exposed-comm must say so and lead with the late
                     # rank, not with DDP buckets or bandwidth
                     truth_comm_wait_share_min=0.5,
                     text_has={"exposed-comm": [["detail_sentence", r"\bwait.*\branks?\b|\branks?\b.*\bwait"],
                                                ["advice_first", r"\brank|skew|straggl|arriv"]]},
                     text_lacks={"exposed-comm": [["advice_first",
                                                   r"bucket_cap_mb|gradient_as_bucket_view|bandwidth|NVLink|NCCL_"]]},
                     cross_rank_late=True,
                     # late: ranks late in a judged step (after the first); early: never late there,
                     # so their own DataLoader time only makes them wait longer in the all_to_all
                     per_rank={"late": dict(expected=["dataloader-stall"], min_severity={"dataloader-stall": "warning"}),
                               "early": dict(max_severity={"dataloader-stall": "info", "gpu-starvation": "info"})},
                     # the switch (no rank late) shortens every rank's step by the late rank's delay:
                     # a job's saving, which a per-rank replay cannot see; an early rank's own
                     # DataLoader fix saves nothing (its collective ends when the late rank's does).
                     # 300 us a step: the DataLoader time the switch keeps and a cut removes
                     saving=[dict(id="*", ranks="job", steps="steady", tol_ns_per_step=300 * US),
                             dict(id="dataloader-stall", ranks="early", truth="zero", steps="steady",
                                  tol_ns_per_step=300 * US)])),
    "host_preprocess": dict(
        kind="gap", gap="host_preprocess", oplog=True,
        switch="the preprocessing done ahead by a DataLoader worker: the step only fetches its result",
        desc="vision-language inference: every step decodes a clip (video_decode) and preprocesses it "
             "(image_processor: CPU ops) for ~240 ms before its first kernel, then ~50 ms of GPU work",
        expected=["gpu-starvation"],
        absent=["launch-overhead", "comm-serialized", "exposed-comm", "allocator-thrash",
                "backward-prefetch-missing", "dataloader-stall", "queued-idle-unexplained"],
        # the first token read back at the end of each step (.item()) waits for a busy GPU and opens
        # no idle of its own, but it keeps the next clip's preprocessing from starting under the
        # GPU work: cpu-sync-stall may say so, never as the main cost.  The step is a vision
        # encoder and a language model's prefill (`## prefill ##`, argmax of the first token)
        verdict=dict(parallelism=["single_gpu"], mode="prefill", iterations_from="ProfilerStep",
                     costliest="gpu-starvation", min_severity={"gpu-starvation": "critical"},
                     max_severity={"cpu-sync-stall": "warning"},
                     text_has={"gpu-starvation": [["detail", r"video_decode|image_processor"],
                                                  ["advice", r"worker|ahead|background|prefetch|overlap"]]},
                     text_lacks={"gpu-starvation": [["detail", r"mostly in aten::copy_"],
                                                    ["advice", r"CUDA graphs|torch\.compile|fewer launches"]]},
                     # the replay removes every CPU cost, the switch the preprocessing only (a
                     # 100-200 us DataLoader fetch and the launches stay): 500 us a step
                     saving=[dict(id="gpu-starvation", steps="steady", tol_ns_per_step=500 * US)])),
    "graph_capture": dict(
        kind="gap", gap="graph_capture", oplog=True,
        switch="the graph captured before the profiled window: step 1 replays it like the others",
        desc="serving decode under CUDA graphs: step 0 eager, step 1 captures the graph (capture_32_DECODE: "
             "cudaStreamBeginCapture, the forward's launches recorded and not run, cudaStreamEndCapture, "
             "cudaGraphInstantiate; ~25 ms of CPU, ~10 us of GPU work), later steps replay it (cudaGraphLaunch)",
        # the replays keep the GPU 80-95 % busy: with the capture step judged apart, nothing starves
        expected=[], absent=["gpu-starvation", "launch-overhead", "comm-serialized", "exposed-comm",
                             "allocator-thrash", "backward-prefetch-missing", "queued-idle-unexplained",
                             "dataloader-stall"],
        verdict=dict(parallelism=["single_gpu"], mode="decode", iterations_from="ProfilerStep",
                     max_severity={"cpu-sync-stall": "info"},
                     # the capture is a one-time cost: not a steady step, and no finding's saving
                     # may claim it (the switch's saving is all in the capture step)
                     steps_steady={"capture": False, "replay": True},
                     saving_max={"*": 0.5},
                     # it replays CUDA graphs already
                     text_lacks={"*": [["advice", r"CUDA graphs"]]})),
    "mixed": dict(
        kind="fsdp", version=2, broken_units=(2, 5), sync_stall=True, thrash_segments=1,
        desc="FSDP2 healthy forward, missing backward prefetch on some units, sync stall, a few steady-state mallocs",
        expected=["backward-prefetch-missing", "cpu-sync-stall", "allocator-thrash"],
        absent=["launch-overhead"]),
}


# --------------------------------------------------------------------------
# Interval helpers (own implementation, exact integer ns)
# --------------------------------------------------------------------------

def merge_intervals(iv):
    """Sorted, disjoint union of (start, end) pairs."""
    if not iv:
        return []
    iv = sorted(iv)
    out = []
    cs, ce = iv[0]
    for s, e in iv:
        if s <= ce:
            if e > ce:
                ce = e
        else:
            out.append((cs, ce))
            cs, ce = s, e
    out.append((cs, ce))
    return out


def union_len(iv):
    return sum(e - s for s, e in merge_intervals(iv))


def inter_len(a, b):
    """|A ∩ B| of two sorted disjoint lists."""
    i = j = 0
    tot = 0
    while i < len(a) and j < len(b):
        s = max(a[i][0], b[j][0])
        e = min(a[i][1], b[j][1])
        if e > s:
            tot += e - s
        if a[i][1] < b[j][1]:
            i += 1
        else:
            j += 1
    return tot


class StreamingUnion:
    """Union of intervals fed in batches; cut(safe) finalises everything
    before `safe` (no later interval may start before it)."""

    def __init__(self):
        self.pend = []
        self.total = 0

    def add(self, s, e):
        self.pend.append((s, e))

    def cut(self, safe):
        if not self.pend:
            return []
        m = merge_intervals(self.pend)
        fin, rest = [], []
        for s, e in m:
            if e <= safe:
                fin.append((s, e))
            elif s >= safe:
                rest.append((s, e))
            else:
                fin.append((s, safe))
                rest.append((safe, e))
        self.pend = rest
        for s, e in fin:
            self.total += e - s
        return fin


# --------------------------------------------------------------------------
# Output
# --------------------------------------------------------------------------

class Writer:
    def __init__(self, path, gz_level=6):
        self.path = path
        self.raw = open(path, "wb")
        if path.endswith(".gz"):
            self.out = gzip.GzipFile(filename="", mode="wb", fileobj=self.raw,
                                     compresslevel=gz_level, mtime=0)
        else:
            self.out = self.raw
        self.ubytes = 0
        self.first_event = True

    def write(self, s):
        b = s.encode("ascii")
        self.ubytes += len(b)
        self.out.write(b)

    def size(self):
        """Bytes of the output file so far (compressed size for .gz)."""
        if self.out is self.raw:
            return self.ubytes
        return self.raw.tell()

    def close(self):
        if self.out is not self.raw:
            self.out.close()
        self.raw.close()


_JCACHE = {}


def jstr(s):
    r = _JCACHE.get(s)
    if r is None:
        r = json.dumps(s)  # ensure_ascii: \u00e9, \" and \\ escapes
        if len(_JCACHE) < 50000:
            _JCACHE[s] = r
    return r


class Fmt:
    """Event string builders for one trace format."""

    def __init__(self, fmt, base_ns):
        self.fmt = fmt
        self.base = base_ns
        self.new = fmt == "new"
        self.legacy = fmt == "legacy19"
        self.pretty = self.new
        self.q = 1 if self.new else 1000
        self.kcache = {}

    # time
    def ts(self, t):
        if self.new:
            r = t - self.base
            return "%d.%03d" % divmod(r, 1000)
        return str(t // 1000)

    def dur(self, d):
        if self.new:
            return "%d.%03d" % divmod(d, 1000)
        return str(d // 1000)

    def cat(self, c):
        if self.legacy:
            return LEGACY_CAT.get(c, c)
        return c

    def x(self, cat, name_j, pid, tid, t, d, args):
        if self.pretty:
            return ('  {\n    "ph": "X", "cat": "' + cat + '", "name": ' + name_j + ', "pid": ' + pid +
                    ', "tid": ' + tid + ',\n    "ts": ' + self.ts(t) + ', "dur": ' + self.dur(d) +
                    ',\n    "args": {\n      ' + args + '\n    }\n  }')
        return ('{"ph": "X", "cat": "' + cat + '", "name": ' + name_j + ', "pid": ' + pid + ', "tid": ' + tid +
                ', "ts": ' + self.ts(t) + ', "dur": ' + self.dur(d) + ', "args": {' + args + '}}')

    def x_noargs(self, cat, name_j, pid, tid, t, d):
        if self.pretty:
            return ('  {\n    "ph": "X", "cat": "' + cat + '", "name": ' + name_j + ', "pid": ' + pid +
                    ', "tid": ' + tid + ',\n    "ts": ' + self.ts(t) + ', "dur": ' + self.dur(d) + '\n  }')
        return ('{"ph": "X", "cat": "' + cat + '", "name": ' + name_j + ', "pid": ' + pid + ', "tid": ' + tid +
                ', "ts": ' + self.ts(t) + ', "dur": ' + self.dur(d) + '}')

    def flow(self, ph, fid, pid, tid, t):
        if self.legacy:
            cat = '"async", "name": "launch"'
        else:
            cat = '"ac2g", "name": "ac2g"'
        bp = ', "bp": "e"' if ph == "f" else ""
        if self.pretty:
            return ('  {\n    "ph": "' + ph + '", "id": ' + str(fid) + ', "pid": ' + pid + ', "tid": ' + tid +
                    ', "ts": ' + self.ts(t) + ',\n    "cat": ' + cat + bp + '\n  }')
        return ('{"ph": "' + ph + '", "id": ' + str(fid) + ', "pid": ' + pid + ', "tid": ' + tid +
                ', "ts": ' + self.ts(t) + ', "cat": ' + cat + bp + '}')

    def instant(self, name_j, pid, tid, t, args, cat=True):
        c = '"cat": "cpu_instant_event", ' if cat else ""
        if self.pretty:
            return ('  {\n    "ph": "i", ' + c + '"s": "t", "name": ' + name_j + ',\n    "pid": ' + pid +
                    ', "tid": ' + tid + ',\n    "ts": ' + self.ts(t) + ',\n    "args": {\n      ' + args +
                    '\n    }\n  }')
        return ('{"ph": "i", ' + c + '"s": "t", "name": ' + name_j + ', "pid": ' + pid + ', "tid": ' + tid +
                ', "ts": ' + self.ts(t) + ', "args": {' + args + '}}')

    def meta(self, name, pid, tid, t, args):
        if self.pretty:
            return ('  {\n    "name": "' + name + '", "ph": "M", "ts": ' + self.ts(t) + ', "pid": ' + pid +
                    ', "tid": ' + tid + ',\n    "args": {\n      ' + args + '\n    }\n  }')
        return ('{"name": "' + name + '", "ph": "M", "ts": ' + self.ts(t) + ', "pid": ' + pid + ', "tid": ' +
                tid + ', "args": {' + args + '}}')

    def sep(self):
        return ",\n"

    def ktail(self, kname):
        r = self.kcache.get(kname)
        if r is None:
            regs, smem, grid, block, bps, wps, occ = _KPROF[kname]
            sp = "      " if self.pretty else " "
            r = ('"registers per thread": %d,%s"shared memory": %d,%s"blocks per SM": %s,%s"warps per SM": %s,%s'
                 '"grid": [%d, %d, %d],%s"block": [%d, %d, %d],%s"est. achieved occupancy %%": %d'
                 % (regs, sp, smem, sp, _fnum(bps), sp, _fnum(wps), sp, grid[0], grid[1], grid[2], sp,
                    block[0], block[1], block[2], sp, occ))
            self.kcache[kname] = r
        return r


def _fnum(v):
    s = "%.6f" % v
    return s


LEGACY_CAT = {"cpu_op": "Operator", "user_annotation": "Operator", "cuda_runtime": "Runtime",
              "cuda_driver": "Runtime", "kernel": "Kernel", "gpu_memcpy": "Memcpy", "gpu_memset": "Memset"}

# --------------------------------------------------------------------------
# The simulator (one rank)
# --------------------------------------------------------------------------


def _crc(*parts):
    return zlib.crc32(("|".join(str(p) for p in parts)).encode())


class Rank:
    def __init__(self, scenario, sc, opts, rank, world, writer, fmt):
        self.scenario = scenario
        self.sc = sc
        self.o = opts
        self.rank = rank
        self.world = world
        self.w = writer
        self.f = fmt
        self.q = fmt.q
        self.legacy = fmt.legacy
        seed = opts["seed"]
        # duration RNG: identical for every rank (collectives line up)
        self.dr = random.Random(_crc("dur", seed, scenario))
        # cosmetic RNG: per rank
        self.cr = random.Random(_crc("cos", seed, scenario, rank))
        self.pid = 1000 + self.cr.randrange(1000, 3000000)
        self.tid_main = self.pid
        self.tid_bwd = self.pid + 7 + self.cr.randrange(20, 5000)
        self.device = rank % 8
        self.pid_s = str(self.pid)
        self.dev_s = str(self.device)
        self.tid_s = {}
        for th in (self.tid_main, self.tid_bwd):
            self.tid_s[th] = ('"%d"' % th) if self.legacy else str(th)
        self.tid_int_s = {th: str(th) for th in (self.tid_main, self.tid_bwd)}
        self.stream_tid = {}
        self.off = opts["clock_offsets"][rank]
        self.T0 = opts["t0"]
        self.t = {self.tid_main: self.T0, self.tid_bwd: self.T0}
        self.stack = {self.tid_main: [], self.tid_bwd: []}
        self.ready = {}
        self.ext = 0
        self.corr = 0
        self.rfid = 0
        self.evidx = 0
        self.seq = 0
        self.cpu_buf = []
        self.gpu_buf = []
        self.cats = {}
        self.nseq = 0
        # CPU overhead profile (us ranges)
        self.ov = dict(gap=(1, 3), entry=(2, 6), tail=(1, 4), pre=(1, 2), rt=(4, 8), lat=(2, 5), ig=(0.5, 1.5))
        # truth accumulators
        self.u_all = StreamingUnion()
        self.u_comm = StreamingUnion()
        self.u_comp = StreamingUnion()
        self.u_stream = {}
        self.overlap_ns = 0
        self.stream_kernels = {}
        self.stream_has = {}
        self.stream_last = {}
        self.host_wait = 0
        self.gap_log = []   # (start, end, host-wait) of every stream gap (first_use truth, one stream)
        self.fu_calls = []  # (start, end, "launch"|"alloc") of the first-use calls
        self.kernel_wait = 0
        self.other_wait = 0
        self.first_gpu = INF
        self.last_gpu = -INF
        self.steps = []
        self.sync = {}
        self.blocking = []      # launch(block=...) calls: what each waited for
        self.stream_last_name = {}
        self.malloc_calls = 0
        self.free_calls = 0
        # how the caching allocator gets device memory: native cudaMalloc, expandable segments
        # (cuMem* driver calls) or the cudaMallocAsync backend
        self.backend = sc.get("alloc_backend", "native")
        # PYTORCH_NO_CUDA_MEMORY_CACHING=1: a cudaMalloc for every tensor and a cudaFree, which
        # synchronizes the device, when it dies
        self.alloc_off = sc.get("alloc_off", False)
        self.free_wait = 0      # alloc_off: the part of cudaFree calls after the GPU had drained
        self.vmm = {"create_calls": 0, "map_calls": 0, "unmap_calls": 0, "release_calls": 0}
        self.async_pool = {"malloc_calls": 0, "free_calls": 0}
        self.pinned = {"alloc_calls": 0, "free_calls": 0}
        self.xdev_iv = {}      # (pid, tid) -> [(s, e)] of device events of a backend not analyzed
        self.xdev_rt = 0
        self.malloc_by_step = []
        self.cur_step_mallocs = 0
        # without ProfilerStep (no_step): the iterations the library must infer,
        # the named blocking calls (start, end) and device allocator calls (start, "malloc"|"free")
        self.no_step = sc.get("no_step")
        self.iters = []
        self.iter_marked = False  # the workload wrote this iteration's Optimizer.step# itself
        self.first_cpu_main = None
        self.last_cpu_main = None
        self.dl_starts = []
        self.block_log = []
        self.alloc_log = []
        self.peak_alloc = 0
        self.peak_res = 0
        self.unit_ctx = {self.tid_main: None, self.tid_bwd: None}
        self.unit_iv = {}
        self.unit_tot = {}
        self.unit_order = []
        self.prefetch_obs = {}
        # memory model
        self.allocated = 0
        self.reserved = 0
        self.segments = []
        self.addr_next = 0x7F2A00000000 + self.cr.randrange(0, 4096) * 2 * MIB
        self.cpu_alloc = 0
        self.cpu_last = 0
        self.coll_starts = {}
        self.peer_starts = opts.get("peer_starts")
        self.klog = [] if sc["kind"] == "ep" else None  # every kernel, for the ep truth
        self.gpu_iv = [] if sc["kind"] == "job" else None  # every GPU op (start, end), for the job truth
        # every GPU op with its launch call, the blocking calls per thread and the stream waits:
        # the idle-cause truth (stream_wait scenario)
        self.oplog = [] if sc.get("stream_wait") or sc.get("oplog") else None
        self.rtlog = []         # every runtime call (start, end, name, correlation, thread) with oplog
        self.step_log = []      # every step range (name, start, end), ProfilerStep or not
        self.pending_wait = {}  # stream -> the op its next op waits for (cudaStreamWaitEvent)
        self.last_op_on = {}
        # how the stream waits are written (--wait-form): the truth does not depend on it
        self.wait_form = opts.get("wait_form", "cuda_sync")
        self.hip = self.wait_form == "rocm"
        self.nwaits = 0

    # ---- random helpers (rank independent) --------------------------------
    def r(self, lo, hi):
        q = self.q
        a = max(1, lo // q)
        b = max(a, hi // q)
        return q * self.dr.randint(a, b)

    def rus(self, rng):
        return self.r(int(rng[0] * US), int(rng[1] * US))

    def jit(self, base, pct=0.08):
        return self.r(int(base * (1 - pct)), int(base * (1 + pct)))

    # ---- emission helpers -------------------------------------------------
    def count(self, cat, n=1):
        self.cats[cat] = self.cats.get(cat, 0) + n

    def stid(self, stream):
        s = self.stream_tid.get(stream)
        if s is None:
            s = ('"stream %d"' % stream) if self.legacy else str(stream)
            self.stream_tid[stream] = s
        return s

    def E(self, t):
        return t + self.off

    def cpu_args(self, ext, rfid, extra):
        self.evidx += 1
        if self.legacy:
            a = '"Device": %d, "External id": %d, "Trace name": "PyTorch Profiler", "Trace iteration": 0' % (
                self.pid, ext)
        else:
            a = '"External id": %d,"Record function id": %d, "Ev Idx": %d' % (ext, rfid, self.evidx)
        if extra:
            a += ", " + extra
        return a

    def push(self, th, cat, name, extra="", gap=None):
        t = self.t[th] + (self.rus(self.ov["gap"]) if gap is None else gap)
        self.ext += 1
        self.rfid += 1
        rec = [cat, name, t, self.ext, extra, None, self.rfid]
        if th == self.tid_main and self.first_cpu_main is None:
            self.first_cpu_main = t
        self.stack[th].append(rec)
        self.t[th] = t + self.rus(self.ov["entry"])
        return rec

    def pop(self, th, tail=None):
        rec = self.stack[th].pop()
        t = self.t[th] + (self.rus(self.ov["tail"]) if tail is None else tail)
        self.t[th] = t
        cat, name, start, ext, extra, ranges, rfid = rec
        if th == self.tid_main and cat in ("cpu_op", "user_annotation"):
            self.last_cpu_main = max(self.last_cpu_main or t, t)
            if self.no_step == "dataloader" and name.startswith("enumerate(DataLoader)#"):
                self.dl_starts.append(start)
        c = self.f.cat(cat)
        self.count(c)
        self.nseq += 1
        self.cpu_buf.append((start, start - t, self.nseq,
                             self.f.x(c, jstr(name), self.pid_s, self.tid_s[th], self.E(start), t - start,
                                      self.cpu_args(ext, rfid, extra))))
        if ranges and not self.legacy:
            q = self.q
            for stream, (s, e) in ranges.items():
                self.count("gpu_user_annotation")
                self.gpu_buf.append(self.f.x("gpu_user_annotation", jstr(name), self.dev_s, self.stid(stream),
                                             self.E(s - q), e - s + 2 * q, '"External id": %d' % ext))
        return start, t

    def op(self, th, name, cat="cpu_op", extra=""):
        """Empty op (no kernels)."""
        self.push(th, cat, name, extra)
        return self.pop(th)

    def cur_ext(self, th):
        st = self.stack[th]
        return st[-1][3] if st else 0

    def runtime(self, th, name, cbid, dur, ext=None, sync_api=False, cat="cuda_runtime"):
        name = self.api_name(name)
        start = self.t[th] + self.rus(self.ov["pre"])
        self.corr += 1
        if ext is None:
            ext = self.cur_ext(th)
        self.emit_runtime(th, cat, name, start, dur, cbid, self.corr, ext)
        self.t[th] = start + dur
        if sync_api:
            s = self.sync.setdefault(name, [0, 0, 0])
            s[0] += 1
            s[1] += dur
            s[2] = max(s[2], dur)
        return start, start + dur

    def emit_runtime(self, th, cat, name, start, dur, cbid, corr, ext):
        c = self.f.cat(cat)
        self.count(c)
        if self.oplog is not None:
            self.rtlog.append((self.E(start), self.E(start + dur), name, corr, th))
        if self.legacy:
            args = '"cbid": %d, "correlation": %d, "external id": %d, "external ts": %s' % (
                cbid, corr, ext, self.f.ts(self.E(start)))
        elif self.f.pretty:
            args = '"External id": %d,      "cbid": %d, "correlation": %d' % (ext, cbid, corr)
        else:
            args = '"External id": %d, "cbid": %d, "correlation": %d' % (ext, cbid, corr)
        self.gpu_buf.append(self.f.x(c, jstr(name), self.pid_s, self.tid_s[th], self.E(start), dur, args))

    def sync_call(self, th, name, cbid, until):
        """Blocking sync API: returns when `until` (GPU time) has passed."""
        name = self.api_name(name)
        start = self.t[th] + self.rus(self.ov["pre"])
        end = max(start + self.r(3 * US, 6 * US), until + self.r(4 * US, 9 * US))
        self.corr += 1
        self.emit_runtime(th, "cuda_runtime", name, start, end - start, cbid, self.corr, self.cur_ext(th))
        self.t[th] = end
        self.block_log.append((start, end))
        s = self.sync.setdefault(name, [0, 0, 0])
        s[0] += 1
        s[1] += end - start
        s[2] = max(s[2], end - start)
        return start, end

    def launch(self, th, stream, kname, dur, deps=(), kind="kernel", ext=None, extra="", align=None,
               api=("cudaLaunchKernel", 211, "cuda_runtime"), nbytes=0, block=None, family=None, rt_ns=None):
        """CPU launch call + GPU activity.  Returns (gpu_start, gpu_end).
        block="own": the call returns when its own op is done (a pageable or
        synchronous copy); block="queue": it returns when the work queued on
        the stream before it is done and only then queues its op (a launch
        that drains the GPU first); either way it counts as a blocking call."""
        api = (self.api_name(api[0]),) + tuple(api[1:])
        ov = self.ov
        rt_start = self.t[th] + self.rus(ov["pre"])
        rt_dur = self.rus(ov["rt"]) if rt_ns is None else rt_ns
        rd = self.ready.get(stream)
        pw = self.pending_wait.get(stream)
        if pw is not None and pw.get("real") is not None:
            # cudaStreamWaitEvent: the op starts after the one the event was recorded behind
            deps = tuple(deps) + (pw["real"]["e"] - self.off,)
        if block == "queue" and rd is not None:
            rt_dur = max(rt_dur, rd + self.r(4 * US, 9 * US) - rt_start)
        start = rt_start + (rt_dur if block == "queue" else 0) + self.rus(ov["lat"])
        ig = self.rus(ov["ig"])
        if rd is not None and rd + ig > start:
            start = rd + ig
        for d in deps:
            if d is not None and d + ig > start:
                start = d + ig
        # collectives: the kernel runs from this rank's arrival until the last
        # rank has arrived (`align`, true time) plus the transfer time
        end = (max(start, align) if align is not None else start) + dur
        if block == "own":
            rt_dur = max(rt_dur, end + self.r(4 * US, 9 * US) - rt_start)
        if block is not None:
            sy = self.sync.setdefault(api[0], [0, 0, 0])
            sy[0] += 1
            sy[1] += rt_dur
            sy[2] = max(sy[2], rt_dur)
            waited = kname if block == "own" else self.stream_last_name.get(stream)
            self.blocking.append({"api": api[0], "dur_ns": rt_dur, "waited_op": waited,
                                  "source": "own_op" if block == "own" else "inferred"})
        self.stream_last_name[stream] = kname
        self.ready[stream] = end
        self.t[th] = rt_start + rt_dur
        self.corr += 1
        corr = self.corr
        if ext is None:
            ext = self.cur_ext(th)
        self.gpu_op(th, stream, kname, start, end, kind, corr, ext, extra, nbytes, family, rt_start, rt_dur, api,
                    block)
        self.emit_runtime(th, api[2], api[0], rt_start, rt_dur, api[1], corr, ext)
        self.gpu_buf.append(self.f.flow("s", corr, self.pid_s, self.tid_int_s[th], self.E(rt_start)))
        self.count(self.f.cat("ac2g") if not self.legacy else "async", 2)
        return start, end

    def graph_launch(self, th, stream, kernels, api=("cudaGraphLaunch", 311, "cuda_runtime"), rt_ns=None,
                     graph_id=1):
        """A CUDA graph replay: one launch call whose kernels (name, dur) run back to back on `stream`,
        every one with the call's correlation id (and, in the new format, Kineto's graph id / graph
        node id).  Returns (first start, last end)."""
        api = (self.api_name(api[0]),) + tuple(api[1:])
        ov = self.ov
        rt_start = self.t[th] + self.rus(ov["pre"])
        rt_dur = self.rus((20, 40)) if rt_ns is None else rt_ns
        start = rt_start + self.rus(ov["lat"])
        ig = self.rus(ov["ig"])
        rd = self.ready.get(stream)
        if rd is not None and rd + ig > start:
            start = rd + ig
        self.t[th] = rt_start + rt_dur
        self.corr += 1
        corr = self.corr
        ext = self.cur_ext(th)
        first, t = start, start
        for node, (kname, dur) in enumerate(kernels):
            extra = (', "graph id": %d, "graph node id": %d' % (graph_id, (graph_id << 32) + node)) if self.f.new else ""
            self.gpu_op(th, stream, kname, t, t + dur, "kernel", corr, ext, extra, 0, None, rt_start, rt_dur, api,
                        None)
            self.stream_last_name[stream] = kname
            self.ready[stream] = t + dur
            t = t + dur + self.rus((0.5, 1.5))
        self.emit_runtime(th, api[2], api[0], rt_start, rt_dur, api[1], corr, ext)
        self.gpu_buf.append(self.f.flow("s", corr, self.pid_s, self.tid_int_s[th], self.E(rt_start)))
        self.count(self.f.cat("ac2g") if not self.legacy else "async", 1 + len(kernels))
        return first, self.ready[stream]

    def gpu_op(self, th, stream, kname, start, end, kind, corr, ext, extra, nbytes, family, rt_start, rt_dur, api,
               block):
        """One GPU activity launched by the call [rt_start, rt_start + rt_dur) of thread th: its event,
        its ac2g flow end and the truth's bookkeeping."""
        f = self.f
        stid = self.stid(stream)
        comm = False
        if kind == "kernel":
            # family: (name, rule) of communication that is not NCCL-named
            comm = is_comm_name(kname) or family is not None
            c = f.cat("kernel")
            if self.legacy:
                args = ('"queued": 0, "device": %d, "context": 1, "stream": %d, "correlation": %d, '
                        '"external id": %d, ' % (self.device, stream, corr, ext)) + f.ktail(kname)
            elif f.pretty:
                args = ('"External id": %d,      "queued": 0, "device": %d, "context": 1,      "stream": %d, '
                        '"correlation": %d,      ' % (ext, self.device, stream, corr)) + f.ktail(kname) + extra
            else:
                args = ('"External id": %d, "queued": 0, "device": %d, "context": 1, "stream": %d, '
                        '"correlation": %d, ' % (ext, self.device, stream, corr)) + f.ktail(kname) + extra
        else:
            c = f.cat(kind)
            bw = nbytes / max(1, (end - start))  # bytes/ns == GB/s
            ek = '"external id"' if self.legacy else '"External id"'
            if self.legacy:
                args = ('"device": %d, "context": 1, "stream": %d, "correlation": %d, %s: %d, "bytes": %d, '
                        '"memory bandwidth (GB/s)": %s' % (self.device, stream, corr, ek, ext, nbytes, repr(bw)))
            else:
                args = ('%s: %d,      "device": %d, "context": 1,      "stream": %d, "correlation": %d,      '
                        '"bytes": %d, "memory bandwidth (GB/s)": %s' % (ek, ext, self.device, stream, corr,
                                                                       nbytes, repr(bw)))
        self.count(c)
        gb = self.gpu_buf
        gb.append(f.x(c, jstr(kname), self.dev_s, stid, self.E(start), end - start, args))
        gb.append(f.flow("f", corr, self.dev_s, stid, self.E(start)))
        # ---- truth ----
        if self.gpu_iv is not None and end > start:
            self.gpu_iv.append((start, end))
        es, ee = self.E(start), self.E(end)
        self.u_all.add(es, ee)
        if kind == "kernel":
            (self.u_comm if comm else self.u_comp).add(es, ee)
            if self.klog is not None:
                self.klog.append((es, ee, kname, family))
            self.stream_kernels[stream] = self.stream_kernels.get(stream, 0) + 1
            h = self.stream_has.setdefault(stream, set())
            h.add("comm" if comm else "compute")
        else:
            self.stream_has.setdefault(stream, set()).add("memory")
        us = self.u_stream.get(stream)
        if us is None:
            us = self.u_stream[stream] = StreamingUnion()
        us.add(es, ee)
        last = self.stream_last.get(stream)
        if last is not None:
            gap = start - last
            if gap > 0:
                self.gap_log.append((last, start, rt_start > last))
            if rt_start > last:
                self.host_wait += gap
            elif gap < KW_THRESHOLD_NS:
                self.kernel_wait += gap
            else:
                self.other_wait += gap
        self.stream_last[stream] = end
        if es < self.first_gpu:
            self.first_gpu = es
        if ee > self.last_gpu:
            self.last_gpu = ee
        # gpu_user_annotation ranges
        for rec in self.stack[th]:
            if rec[0] == "user_annotation":
                rg = rec[5]
                if rg is None:
                    rg = rec[5] = {}
                cur = rg.get(stream)
                if cur is None:
                    rg[stream] = [start, end]
                else:
                    if end > cur[1]:
                        cur[1] = end
        u = self.unit_ctx[th]
        if u is not None and kind == "kernel" and not comm:
            self.unit_add(u, "compute", es, ee)
            self.unit_last_end[u] = end
        if self.oplog is not None:
            self.last_op = {"s": es, "e": ee, "stream": stream, "ls": self.E(rt_start),
                            "le": self.E(rt_start + rt_dur), "th": th, "api": api[0],
                            "comm": kind == "kernel" and comm, "corr": corr, "kernel": kind == "kernel"}
            w = self.pending_wait.pop(stream, None)
            # the op its stream wait names, as the trace shows it, or the event recorded outside
            self.last_op["wait"] = w["op"] if w else None
            self.last_op["outside"] = bool(w and w["outside"])
            self.oplog.append(self.last_op)
            self.last_op_on[stream] = self.last_op

    # ---- events, stream waits and the cuda_sync activities (Kineto's forms) ----
    def sync_args(self, kind, stream, corr, ext, wait=None):
        """Args of a cuda_sync event as kineto writes them: Event Sync and Stream Wait Event carry
        wait_on_stream / wait_on_cuda_event_record_corr_id / wait_on_cuda_event_id; stream is -1
        where CUPTI has none (Event Sync, Context Sync)."""
        a = '"External id": %d, "cuda_sync_kind": "%s", ' % (ext, kind)
        if wait is not None:
            a += ('"wait_on_stream": %d, "wait_on_cuda_event_record_corr_id": %d, "wait_on_cuda_event_id": %d, '
                  % wait)
        return a + '"stream": %d, "correlation": %d, "device": %d, "context": 1' % (stream, corr, self.device)

    def api_name(self, name):
        """The runtime call's name: its HIP twin in the ROCm form (--wait-form rocm)."""
        return HIP_NAMES.get(name, name) if self.hip else name

    def emit_sync(self, kind, tid, start, end, args):
        if self.legacy or self.hip:  # PyTorch 1.9 predates cuda_sync events, ROCm has none
            return
        self.count("cuda_sync")
        self.gpu_buf.append(self.f.x("cuda_sync", jstr(kind), self.dev_s, tid, self.E(start), end - start, args))

    def event_record(self, th, stream):
        """cudaEventRecord(ev, stream) right after the last op queued on `stream`: returns
        (record correlation, the op it orders, event id)."""
        self.runtime(th, "cudaEventRecord", 135, self.r(1 * US, 3 * US))
        self.nevent = getattr(self, "nevent", 0) + 1
        return (self.corr, stream, self.last_op_on[stream], self.nevent)

    def stream_wait_event(self, th, stream, ev):
        """cudaStreamWaitEvent(stream, ev): the next op queued on `stream` starts after the op the
        event was recorded behind (pass its end in `deps`)."""
        rec_corr, rec_stream, op, evid = ev
        s, e = self.runtime(th, "cudaStreamWaitEvent", 147, self.r(1 * US, 3 * US))
        # --wait-form: "unresolved" writes every Stream Wait Event without the waited-on stream
        # (wait_on_stream -1, as older Kineto does and as for an event recorded before the
        # profiling window); "mixed" cycles per wait through named, unresolved and no cuda_sync
        form = {"unresolved": 1, "mixed": self.nwaits % 3}.get(self.wait_form, 0)
        self.nwaits += 1
        # an unresolved Stream Wait Event (record correlation -1) says the event was recorded
        # before the profiling window: the trace shows no edge to `op`, only an event outside it
        unresolved = form == 1 and not (self.legacy or self.hip)
        self.pending_wait[stream] = {"op": None if unresolved else op, "outside": unresolved, "real": op}
        if form == 2:
            return
        wait = (rec_stream, rec_corr, evid) if form == 0 else (-1, -1, evid)
        self.emit_sync("Stream Wait Event", self.stid(stream), s, e,
                       self.sync_args("Stream Wait Event", stream, self.corr, self.cur_ext(th), wait))

    def event_sync(self, th, ev):
        """cudaEventSynchronize(ev): the host blocks until the op the event was recorded behind ends.
        Its cuda_sync Event Sync has no stream (tid -1) and names the recorded stream."""
        rec_corr, rec_stream, op, evid = ev
        s, e = self.sync_call(th, "cudaEventSynchronize", 137, op["e"] - self.off)
        self.emit_sync("Event Sync", "-1", s, e, self.sync_args("Event Sync", -1, self.corr, self.cur_ext(th),
                                                                 (rec_stream, rec_corr, evid)))

    def device_sync(self, th):
        """cudaDeviceSynchronize: blocks until every stream drains; its Context Sync has no stream."""
        s, e = self.sync_call(th, "cudaDeviceSynchronize", 165, max(self.ready.values()))
        self.emit_sync("Context Sync", "-1", s, e, self.sync_args("Context Sync", -1, self.corr, self.cur_ext(th)))

    def stream_sync(self, th, stream):
        """cudaStreamSynchronize(stream): blocks until the stream drains.  Kineto >= 2026-04 writes
        its Stream Sync on the row tid = stream + 1000000 (`stream N (sync)`), earlier ones on the
        stream's own row: the new format takes the newer form."""
        s, e = self.sync_call(th, "cudaStreamSynchronize", 131, self.ready[stream])
        tid = str(stream + 1000000) if self.f.new else self.stid(stream)
        self.emit_sync("Stream Sync", tid, s, e, self.sync_args("Stream Sync", stream, self.corr, self.cur_ext(th)))

    def unit_add(self, key, what, s, e):
        d = self.unit_iv.get(key)
        if d is None:
            d = self.unit_iv[key] = {"comm": [], "compute": []}
            if key not in self.unit_tot:
                self.unit_order.append(key)
        d[what].append((s, e))

    # ---- memory -----------------------------------------------------------
    def mem_event(self, th, addr, nbytes, device=True):
        t = self.t[th]
        if device:
            tot_a, tot_r, dt, di = self.allocated, self.reserved, 1, self.device
            if not self.legacy:
                self.peak_alloc = max(self.peak_alloc, tot_a)
                self.peak_res = max(self.peak_res, tot_r)
        else:
            tot_a, tot_r, dt, di = self.cpu_alloc, 0, 0, -1
        self.evidx += 1
        if self.legacy:
            args = '"Device Type": %d, "Device Id": %d, "Bytes": %d' % (dt, di, nbytes)
            s = self.f.instant('"[memory]"', self.pid_s, self.tid_int_s[th], self.E(t), args, cat=False)
            self.count("")
        else:
            args = ('"Total Reserved": %d, "Total Allocated": %d, "Bytes": %d, "Addr": %d, "Device Id": %d, '
                    '"Device Type": %d, "Ev Idx": %d' % (tot_r, tot_a, nbytes, addr, di, dt, self.evidx))
            s = self.f.instant('"[memory]"', self.pid_s, self.tid_int_s[th], self.E(t), args)
            self.count("cpu_instant_event")
        self.nseq += 1
        self.cpu_buf.append((t, 0, self.nseq, s))
        self.t[th] = t + self.q

    def alloc(self, th, nbytes):
        if self.alloc_off:
            self.device_malloc(th)
            self.malloc_calls += 1
            self.cur_step_mallocs += 1
            self.reserved += nbytes
        elif self.allocated + nbytes > self.reserved:
            need = self.allocated + nbytes - self.reserved
            seg = max(need, 64 * MIB)
            seg = (seg + 2 * MIB - 1) // (2 * MIB) * (2 * MIB)
            self.device_malloc(th)
            self.reserved += seg
            self.segments.append(seg)
            self.malloc_calls += 1
            self.cur_step_mallocs += 1
        self.allocated += nbytes
        addr = self.addr_next
        self.addr_next += (nbytes + 511) // 512 * 512
        self.mem_event(th, addr, nbytes)
        return (addr, nbytes)

    def device_malloc(self, th):
        """One growth of the caching allocator, by its backend."""
        if self.backend == "vmm":
            self.runtime(th, "cuMemCreate", 652, self.r(40 * US, 200 * US), cat="cuda_driver")
            self.runtime(th, "cuMemMap", 654, self.r(5 * US, 20 * US), cat="cuda_driver")
            self.runtime(th, "cuMemSetAccess", 658, self.r(20 * US, 80 * US), cat="cuda_driver")
            self.vmm["create_calls"] += 1
            self.vmm["map_calls"] += 2
        elif self.backend == "async":
            self.runtime(th, "cudaMallocAsync", 417, self.r(5 * US, 40 * US))
            self.async_pool["malloc_calls"] += 1
        else:
            a, _ = self.runtime(th, "cudaMalloc", 20, self.r(60 * US, 350 * US))
            self.alloc_log.append((a, "malloc"))

    def device_free(self, th):
        if self.backend == "vmm":
            self.runtime(th, "cuMemUnmap", 655, self.r(20 * US, 90 * US), cat="cuda_driver")
            self.runtime(th, "cuMemRelease", 653, self.r(30 * US, 150 * US), cat="cuda_driver")
            self.vmm["unmap_calls"] += 1
            self.vmm["release_calls"] += 1
        elif self.backend == "async":
            self.runtime(th, "cudaFreeAsync", 418, self.r(5 * US, 30 * US))
            self.async_pool["free_calls"] += 1
        elif self.alloc_off:
            # cudaFree waits for the device to drain before it returns the memory
            start = self.t[th] + self.rus(self.ov["pre"])
            drained = max(self.ready.values()) if self.ready else start
            b = max(start + self.r(30 * US, 80 * US), drained + self.r(20 * US, 60 * US))
            self.free_wait += b - max(start, drained)
            self.corr += 1
            self.emit_runtime(th, "cuda_runtime", "cudaFree", start, b - start, 22, self.corr, self.cur_ext(th))
            self.t[th] = b
            self.alloc_log.append((start, "free"))
            self.block_log.append((start, b))
        else:
            a, b = self.runtime(th, "cudaFree", 22, self.r(150 * US, 600 * US))
            self.alloc_log.append((a, "free"))
            self.block_log.append((a, b))  # cudaFree blocks by name

    def item(self, th, stream, deps=()):
        """tensor.item(): a 4-byte copy to pinned memory and cudaStreamSynchronize until it is done."""
        self.push(th, "cpu_op", "aten::item")
        self.push(th, "cpu_op", "aten::_local_scalar_dense")
        _, me = self.launch(th, stream, "Memcpy DtoH (Device -> Pinned)", self.r(2 * US, 3 * US), kind="gpu_memcpy",
                            api=("cudaMemcpyAsync", 41, "cuda_runtime"), nbytes=4, deps=deps)
        self.sync_call(th, "cudaStreamSynchronize", 131, me)
        self.pop(th)
        self.pop(th)

    def segment_roundtrip(self, th):
        """aten::empty growing the cache by one device segment, aten::empty_cache releasing it."""
        self.push(th, "cpu_op", "aten::empty")
        self.device_malloc(th)
        self.malloc_calls += 1
        self.cur_step_mallocs += 1
        self.pop(th)
        self.push(th, "cpu_op", "aten::empty_cache")
        self.device_free(th)
        self.free_calls += 1
        self.pop(th)

    def pinned_buffer(self, th, n):
        """A staging buffer in pinned host memory, allocated and freed again (not device memory)."""
        for _ in range(n):
            self.runtime(th, "cudaHostAlloc", 19, self.r(200 * US, 900 * US))
            self.runtime(th, "cudaFreeHost", 24, self.r(100 * US, 400 * US))
            self.pinned["alloc_calls"] += 1
            self.pinned["free_calls"] += 1

    def xdev_work(self, th, n, queues=(101, 102)):
        """MTIA-style work: host mtia_runtime launches and mtia_ccp_events device activity on queues
        of device pid 0; libfsdpa reads these as a device backend it does not analyze."""
        for j in range(n):
            start = self.t[th] + self.rus(self.ov["pre"])
            d = self.r(8 * US, 15 * US)
            self.gpu_buf.append(self.f.x("mtia_runtime", jstr("mtiaLaunchKernel"), self.pid_s, self.tid_s[th],
                                         self.E(start), d, '"correlation": %d' % (900000 + j)))
            self.count("mtia_runtime")
            self.xdev_rt += 1
            self.t[th] = start + d
            q = queues[j % len(queues)]
            ivs = self.xdev_iv.setdefault((0, q), [])
            ks = max(start + d + self.r(5 * US, 10 * US), ivs[-1][1] if ivs else 0)
            kd = self.r(50 * US, 300 * US)
            self.gpu_buf.append(self.f.x("mtia_ccp_events", jstr("mtia_kernel_%d" % (j % 5)), "0", str(q),
                                         self.E(ks), kd, '"device": 0, "queue": %d, "correlation": %d' %
                                         (q, 900000 + j)))
            self.count("mtia_ccp_events")
            ivs.append((ks, ks + kd))

    def free(self, th, h):
        if h is None:
            return
        addr, nbytes = h
        self.allocated -= nbytes
        self.mem_event(th, addr, -nbytes)
        if self.alloc_off:
            self.device_free(th)
            self.free_calls += 1
            self.reserved -= nbytes

    def release_cached(self, th, max_segments):
        """empty_cache-like: cudaFree unused segments (newest first)."""
        n = 0
        while self.segments and n < max_segments and len(self.segments) > 1:
            seg = self.segments[-1]
            if self.reserved - seg < self.allocated:
                break
            self.segments.pop()
            self.reserved -= seg
            self.device_free(th)
            self.free_calls += 1
            n += 1
        return n

    def cpu_mem(self, th, nbytes):
        self.cpu_alloc += nbytes
        self.mem_event(th, 0x55D0_0000_0000 + 4096 * (self.nseq % 4096 if nbytes > 0 else self.cpu_last),
                       nbytes, device=False)
        if nbytes > 0:
            self.cpu_last = self.nseq % 4096

    # ---- steps --------------------------------------------------------------
    def begin_step(self, k, name=None):
        th = self.tid_main
        self.unit_last_end = {}
        self.cur_step_mallocs = 0
        self.iter_marked = False
        if self.no_step:
            self.t[th] += self.r(2 * US, 4 * US)
            return
        self.step_name = name or "ProfilerStep#%d" % k
        self.step_rec = self.push(th, "user_annotation", self.step_name, gap=self.r(2 * US, 4 * US))

    def end_step(self, host_gap):
        th = self.tid_main
        gpu_done = max(self.ready.values()) if self.ready else self.t[th]
        if self.t[th] > gpu_done:
            gpu_done = self.t[th]
        end = gpu_done + host_gap
        self.t[th] = end
        if self.no_step:
            if self.no_step == "optimizer" and not self.iter_marked:
                # one Optimizer.step# annotation ends each iteration; the first
                # starts at the main thread's first CPU event
                self.push(th, "user_annotation", "Optimizer.step#SGD.step")
                self.t[th] += self.r(20 * US, 40 * US)
                _, oe = self.pop(th)
                self.iters.append((self.iters[-1][1] if self.iters else self.first_cpu_main, oe))
            self.malloc_by_step.append(self.cur_step_mallocs)
            self.flush(self.E(self.t[th]))
            return
        start, e2 = self.pop(th, tail=0)
        self.step_log.append({"name": self.step_name, "start_ns": self.E(start), "dur_ns": e2 - start})
        self.t[self.tid_bwd] = max(self.t[self.tid_bwd], end)
        if self.step_name.startswith("ProfilerStep#"):  # truth "steps": the ProfilerStep ranges only
            self.steps.append({"name": self.step_name, "start_ns": self.E(start), "dur_ns": e2 - start})
        self.malloc_by_step.append(self.cur_step_mallocs)
        self.flush(self.E(end))

    def flush(self, safe):
        buf = self.cpu_buf
        buf.sort(key=lambda x: (x[0], x[1], x[2]))
        parts = [x[3] for x in buf]
        parts.extend(self.gpu_buf)
        self.cpu_buf = []
        self.gpu_buf = []
        self.write_events(parts)
        # truth: unions up to `safe`
        fc = self.u_comm.cut(safe)
        fp = self.u_comp.cut(safe)
        self.overlap_ns += inter_len(fc, fp)
        self.u_all.cut(safe)
        for us in self.u_stream.values():
            us.cut(safe)
        # per unit
        for key, d in self.unit_iv.items():
            tot = self.unit_tot.setdefault(key, [0, 0, 0])
            c = union_len(d["comm"])
            p = union_len(d["compute"])
            tot[0] += c
            tot[1] += p
            tot[2] += max(0, c - p)
        self.unit_iv = {}

    def write_events(self, parts):
        if not parts:
            return
        w = self.w
        s = ",\n".join(parts)
        if w.first_event:
            w.first_event = False
            w.write("\n" + s)
        else:
            w.write(",\n" + s)


# --------------------------------------------------------------------------
# Workloads
# --------------------------------------------------------------------------

# forward layer ops: (outer op, inner op, kernel, share of layer fwd time, activation MiB, backward node)
FWD_OPS = [
    ("aten::layer_norm", "aten::native_layer_norm", K_LN, 0.04, 16, "NativeLayerNormBackward0"),
    ("aten::linear", "aten::mm", K_GEMM, 0.18, 48, "MmBackward0"),
    ("aten::scaled_dot_product_attention", "aten::_scaled_dot_product_flash_attention", K_FLASH, 0.22, 32,
     "ScaledDotProductFlashAttentionBackward0"),
    ("aten::linear", "aten::mm", K_GEMM, 0.08, 16, "MmBackward0"),
    ("aten::add", None, K_ADD, 0.03, 16, "AddBackward0"),
    ("aten::layer_norm", "aten::native_layer_norm", K_LN, 0.04, 16, "NativeLayerNormBackward0"),
    ("aten::linear", "aten::mm", K_GEMM, 0.17, 64, "MmBackward0"),
    ("aten::gelu", None, K_GELU, 0.05, 64, "GeluBackward0"),
    ("aten::linear", "aten::mm", K_GEMM, 0.16, 16, "MmBackward0"),
    ("aten::add", None, K_ADD, 0.03, 16, "AddBackward0"),
]

# backward kernels per node: list of (inner op, kernel, share relative to the fwd share)
BWD_KERNELS = {
    "NativeLayerNormBackward0": [("aten::native_layer_norm_backward", K_LN_BWD, 1.2),
                                 (None, K_LN_GB, 0.6)],
    "MmBackward0": [("aten::mm", K_GEMM_NT, 1.0), ("aten::mm", K_GEMM_NN, 1.0)],
    "ScaledDotProductFlashAttentionBackward0": [("aten::_scaled_dot_product_flash_attention_backward",
                                                 K_FLASH_DOT, 0.1),
                                                (None, K_FLASH_BWD, 2.0)],
    "AddBackward0": [],
    "GeluBackward0": [("aten::gelu_backward", K_GELU_BWD, 1.5)],
}


class Collectives:
    """c10d collectives as PyTorch records them (c10d op > record_param_comms > nccl: annotation >
    NCCL kernel), numbered by Seq; the workload has R, W (group size), pg_ranks and seq."""

    def coll_args(self, coll, dtype, in_n, out_n):
        self.seq += 1
        R = self.R
        if R.legacy:
            return "", ""
        a = ('"Collective name": "%s", "dtype": "%s", "In msg nelems": %d, "Out msg nelems": %d, "Group size": %d, '
             '"In split size": "[]", "Out split size": "[]", "Global rank start": 0, "Global rank stride": 1, '
             '"Process Group Name": "0", "Process Group Description": "default_pg", "Process Group Ranks": "%s", '
             '"Rank": %d' % (coll, dtype, in_n, out_n, self.W, self.pg_ranks, R.rank))
        k = (', "Collective name": "%s", "In msg nelems": %d, "Out msg nelems": %d, "Group size": %d, '
             '"dtype": "%s", "In split size": "[]", "Out split size": "[]", "Process Group Name": "0", '
             '"Process Group Description": "default_pg", "Process Group Ranks": "%s"'
             % (coll, in_n, out_n, self.W, dtype, self.pg_ranks))
        if R.f.new:
            a += ', "Seq": %d' % self.seq
            k += ', "Seq": %d' % self.seq
        return a, k

    def collective(self, th, c10d_op, coll, nccl_ann, kname, stream, dur, dtype, in_n, out_n, deps):
        R = self.R
        ra, ka = self.coll_args(coll, dtype, in_n, out_n)
        R.push(th, "cpu_op", c10d_op)
        rec = R.push(th, "cpu_op", "record_param_comms", ra)
        R.push(th, "user_annotation", nccl_ann)
        align = R.peer_starts.get(self.seq) if R.peer_starts is not None else None
        se = R.launch(th, stream, kname, dur, deps=deps, ext=rec[3], extra=ka, align=align,
                      api=("cudaLaunchKernelExC", 430, "cuda_runtime"))
        R.coll_starts[self.seq] = se[0]
        R.pop(th)
        R.pop(th)
        R.pop(th)
        return se


class FSDPWorkload(Collectives):
    def __init__(self, R, sc, opts):
        self.R = R
        self.sc = sc
        self.L = opts["layers"]
        self.W = R.world
        self.version = sc.get("version", 2)
        self.fwd_layer = 1200 * US
        self.ag_dur = int(self.fwd_layer * sc.get("ag_scale", 0.45))
        self.rs_dur = int(self.fwd_layer * sc.get("rs_scale", 0.9))
        coc = sc.get("comm_on_compute", False)
        if self.version == 1:
            self.s_comp, self.s_ag, self.s_rs, self.s_copyin = 7, 13, 13, 7
        elif coc:
            self.s_comp, self.s_ag, self.s_rs, self.s_copyin = 7, 7, 7, 7
        else:
            self.s_comp, self.s_ag, self.s_rs, self.s_copyin = 7, 20, 24, 16
        self.serial = sc.get("serial", False)
        broken = sc.get("broken_units")
        if sc.get("prefetch") == "none":
            self.prefetch = {i: False for i in range(self.L)}
        else:
            self.prefetch = {i: True for i in range(self.L)}
            if broken:
                for b in broken:
                    if b < self.L - 1:
                        self.prefetch[b] = False
        if self.serial:
            self.prefetch = {i: False for i in range(self.L)}
        nn = NCCL_OLD if opts["nccl_names"] == "old" else NCCL_NEW
        self.k_ag = nn["AllGather"]
        self.k_rs = nn["ReduceScatter"]
        self.param_elems = 50331648  # per layer (bf16 AG output)
        self.ag_bytes = self.param_elems * 2
        self.grad_bytes = self.param_elems * 4
        self.pg_ranks = "[" + ", ".join(str(i) for i in range(self.W)) + "]"
        self.seq = 0
        self.baseline = 6 * GIB + 123 * MIB
        self.states_bytes = 3 * GIB // 2
        self.lazy_opt = sc.get("lazy_optimizer", False)
        self.opt_states = None
        base = self.baseline if self.lazy_opt else self.baseline + self.states_bytes
        R.allocated = base
        R.reserved = (base + 2 * MIB - 1) // (2 * MIB) * (2 * MIB) + 20 * MIB
        R.segments = [R.reserved]
        self.delay = 0
        sd = sc.get("straggler_delay")
        if sd and R.rank == opts["straggler_rank"]:
            self.delay = sd
        self.thrash = sc.get("thrash_segments", 0)
        self.pinned_per_step = sc.get("pinned_per_step", 0)
        self.sync_stall = sc.get("sync_stall", False)
        self.unit_names = ["layers.%d" % i if self.version == 2 else "unit%d" % i for i in range(self.L)]

    def all_gather(self, i, th, phase, deps):
        """Issue AG of unit i; returns (handle of AG output, gpu (start,end))."""
        R = self.R
        v2 = self.version == 2
        if v2:
            R.push(th, "user_annotation", "FSDP::all_gather (%s)" % self.unit_names[i])
            R.push(th, "cpu_op", "fsdp::all_gather_copy_in")
            buf = R.alloc(th, self.ag_bytes)
            ci = R.launch(th, self.s_copyin, K_COPY_IN, self.jitd(self.ag_dur * 0.04 + 8 * US))
            R.pop(th)
            deps = list(deps) + [ci[1]]
            se = self.collective(th, "c10d::_allgather_base_", "_allgather_base", "nccl:_all_gather_base",
                                 self.k_ag, self.s_ag, self.jitd(self.ag_dur), "BFloat16",
                                 self.param_elems // self.W, self.param_elems, deps)
            R.pop(th)
        else:
            buf = R.alloc(th, self.ag_bytes)
            se = self.collective(th, "c10d::_allgather_base_", "_allgather_base", "nccl:_all_gather_base",
                                 self.k_ag, self.s_ag, self.jitd(self.ag_dur), "BFloat16",
                                 self.param_elems // self.W, self.param_elems, deps)
        R.unit_add((self.unit_names[i], phase), "comm", R.E(se[0]), R.E(se[1]))
        return buf, se

    def jitd(self, base):
        return self.R.jit(int(base))

    def copy_out(self, i, th, ag_end, buf):
        R = self.R
        v2 = self.version == 2
        if v2:
            R.push(th, "user_annotation", "FSDP::all_gather_copy_out (%s)" % self.unit_names[i])
        R.runtime(th, "cudaStreamWaitEvent", 147, R.rus((2, 4)))
        if v2:
            R.push(th, "cpu_op", "fsdp::split_with_sizes_copy")
            unsh = R.alloc(th, self.ag_bytes)
            R.launch(th, self.s_comp, K_SPLIT, self.jitd(self.ag_dur * 0.05 + 10 * US), deps=[ag_end])
            R.pop(th)
            R.free(th, buf)
            R.pop(th)
            return unsh, None
        return buf, ag_end

    def layer_forward(self, th, i):
        R = self.R
        acts = []
        dep0 = self.fsdp1_dep
        for outer, inner, k, share, amib, node in FWD_OPS:
            R.push(th, "cpu_op", outer)
            if outer == "aten::linear":
                R.op(th, "aten::t")
            if inner:
                R.push(th, "cpu_op", inner)
            acts.append(R.alloc(th, amib * MIB))
            R.launch(th, self.s_comp, k, self.jitd(self.fwd_layer * share),
                     deps=[dep0] if dep0 else (),
                     api=("cudaLaunchKernelExC", 430, "cuda_runtime") if k is K_FLASH else
                     ("cudaLaunchKernel", 211, "cuda_runtime"))
            dep0 = None
            if inner:
                R.pop(th)
            R.pop(th)
        self.fsdp1_dep = None
        return acts

    def layer_backward(self, th, i, acts):
        R = self.R
        seqn = 1000 + i * 20
        dep0 = self.fsdp1_dep
        for idx in range(len(FWD_OPS) - 1, -1, -1):
            outer, inner, k, share, amib, node = FWD_OPS[idx]
            extra = '"Sequence number": %d, "Fwd thread id": 1' % (seqn + idx) if not R.legacy else ""
            R.push(th, "cpu_op", "autograd::engine::evaluate_function: " + node, extra)
            R.push(th, "cpu_op", node, extra)
            g = None
            for (iop, kk, sh) in BWD_KERNELS[node]:
                if iop:
                    R.push(th, "cpu_op", iop)
                if g is None:
                    g = R.alloc(th, amib * MIB)
                R.launch(th, self.s_comp, kk, self.jitd(self.fwd_layer * share * sh),
                         deps=[dep0] if dep0 else ())
                dep0 = None
                if iop:
                    R.pop(th)
            R.pop(th)
            R.free(th, acts[idx])
            R.pop(th)
            if node == "MmBackward0":
                R.op(th, "autograd::engine::evaluate_function: TBackward0", extra=extra)
            R.free(th, g)
        self.fsdp1_dep = None

    # steps -------------------------------------------------------------------
    def step(self, k):
        R = self.R
        main, bwd = R.tid_main, R.tid_bwd
        v2 = self.version == 2
        L = self.L
        names = self.unit_names
        self.fsdp1_dep = None
        R.begin_step(k)
        if self.thrash and k >= 1:
            R.release_cached(main, self.thrash)
        if self.pinned_per_step:
            R.pinned_buffer(main, self.pinned_per_step)
        # data loading
        R.push(main, "user_annotation", "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__")
        R.cpu_mem(main, 1048576)
        R.t[main] += R.r(150 * US, 250 * US) + self.delay
        R.cpu_mem(main, -1048576)
        R.pop(main)
        # input copy
        R.push(main, "cpu_op", "aten::to")
        R.push(main, "cpu_op", "aten::_to_copy")
        inp = R.alloc(main, 65536)
        R.push(main, "cpu_op", "aten::copy_")
        R.launch(main, self.s_comp, "Memcpy HtoD (Pinned -> Device)", R.r(3 * US, 6 * US), kind="gpu_memcpy",
                 api=("cudaMemcpyAsync", 41, "cuda_runtime"), nbytes=65536)
        R.pop(main)
        R.pop(main)
        R.pop(main)
        # root pre-forward
        if v2:
            R.push(main, "user_annotation", "FSDP::root_pre_forward")
            R.op(main, "FSDP::inputs_to_device", cat="user_annotation")
            R.pop(main)
        else:
            R.push(main, "user_annotation", "FullyShardedDataParallel.forward")
            R.op(main, "FullyShardedDataParallel._root_pre_forward", cat="user_annotation")
        R.push(main, "cpu_op", "aten::embedding")
        R.push(main, "cpu_op", "aten::index_select")
        emb = R.alloc(main, 32 * MIB)
        R.launch(main, self.s_comp, K_INDEX, R.r(20 * US, 30 * US))
        R.pop(main)
        R.pop(main)
        # ---- forward ----
        comp_end_fwd = {}
        acts = {}
        for i in range(L):
            if v2:
                R.push(main, "user_annotation", "FSDP::pre_forward (%s)" % names[i])
                deps = [comp_end_fwd.get(i - 2)]
                buf, se = self.all_gather(i, main, "forward", deps)
                unsh, _ = self.copy_out(i, main, se[1], buf)
                R.pop(main)
            else:
                R.push(main, "user_annotation", "FullyShardedDataParallel.forward")
                R.push(main, "user_annotation", "FullyShardedDataParallel._pre_forward")
                deps = [R.ready.get(self.s_comp)] if self.serial else [comp_end_fwd.get(i - 2)]
                buf, se = self.all_gather(i, main, "forward", deps)
                R.runtime(main, "cudaStreamWaitEvent", 147, R.rus((2, 4)))
                unsh = buf
                self.fsdp1_dep = se[1]
                R.pop(main)
            if i == 0 and k % 2 == 0:
                R.op(main, ESCAPE_OP)
            key = (names[i], "forward")
            R.unit_ctx[main] = key
            acts[i] = self.layer_forward(main, i)
            R.unit_ctx[main] = None
            comp_end_fwd[i] = R.unit_last_end.get(key)
            if v2:
                R.push(main, "user_annotation", "FSDP::post_forward (%s)" % names[i])
                R.free(main, unsh)
                R.pop(main)
            else:
                R.push(main, "user_annotation", "FullyShardedDataParallel._post_forward")
                R.free(main, unsh)
                R.pop(main)
                R.pop(main)
        # head + loss
        R.push(main, "cpu_op", "aten::linear")
        R.op(main, "aten::t")
        R.push(main, "cpu_op", "aten::mm")
        logits = R.alloc(main, 256 * MIB)
        R.launch(main, self.s_comp, K_GEMM, self.jitd(self.fwd_layer * 0.6))
        R.pop(main)
        R.pop(main)
        R.push(main, "cpu_op", "aten::cross_entropy_loss")
        R.push(main, "cpu_op", "aten::log_softmax")
        lsm = R.alloc(main, 256 * MIB)
        R.launch(main, self.s_comp, K_LOGSOFTMAX, self.jitd(self.fwd_layer * 0.15))
        R.pop(main)
        R.push(main, "cpu_op", "aten::nll_loss_forward")
        loss = R.alloc(main, 512)
        R.launch(main, self.s_comp, K_NLL, R.r(4 * US, 8 * US))
        R.pop(main)
        R.pop(main)
        if not v2:
            R.op(main, "FullyShardedDataParallel._post_forward", cat="user_annotation")
            R.pop(main)  # root FullyShardedDataParallel.forward
        # ---- backward (autograd thread) ----
        R.t[bwd] = max(R.t[bwd], R.t[main]) + R.r(20 * US, 40 * US)
        g_nll = None
        for node, kk, share, hbytes in (("NllLossBackward0", K_NLL_BWD, 0.01, 256 * MIB),
                                        ("LogSoftmaxBackward0", K_LOGSOFTMAX_BWD, 0.15, 0),
                                        ("MmBackward0", K_GEMM_NT, 1.2, 0)):
            R.push(bwd, "cpu_op", "autograd::engine::evaluate_function: " + node)
            R.push(bwd, "cpu_op", node)
            if hbytes:
                g_nll = R.alloc(bwd, hbytes)
            R.launch(bwd, self.s_comp, kk, self.jitd(self.fwd_layer * share))
            R.pop(bwd)
            R.pop(bwd)
            if node == "LogSoftmaxBackward0":
                R.free(bwd, lsm)
                R.free(bwd, g_nll)
        R.free(bwd, logits)
        rs_end = {}
        comp_end_bwd = {}
        ag_issued = {}
        grads = []
        for i in range(L - 1, -1, -1):
            key = (names[i], "backward")
            if v2:
                R.push(bwd, "user_annotation", "FSDP::pre_backward (%s)" % names[i])
                if i not in ag_issued:
                    if i == L - 1:
                        deps = []
                    else:
                        deps = [comp_end_bwd.get(i + 1), rs_end.get(i + 1)]
                    ag_issued[i] = self.all_gather(i, bwd, "backward", deps)
                buf, se = ag_issued[i]
                unsh, _ = self.copy_out(i, bwd, se[1], buf)
                if i > 0 and self.prefetch.get(i - 1):
                    R.push(bwd, "user_annotation", "FSDP::backward_prefetch for %s" % names[i - 1])
                    ag_issued[i - 1] = self.all_gather(i - 1, bwd, "backward", [comp_end_bwd.get(i + 1)])
                    R.pop(bwd)
                R.pop(bwd)
            else:
                R.push(bwd, "user_annotation", "FullyShardedDataParallel._pre_backward_hook")
                if i == L - 1:
                    deps = [R.ready.get(self.s_comp)]
                else:
                    deps = [comp_end_bwd.get(i + 1), rs_end.get(i + 1)]
                buf, se = self.all_gather(i, bwd, "backward", deps)
                ag_issued[i] = (buf, se)
                R.runtime(bwd, "cudaStreamWaitEvent", 147, R.rus((2, 4)))
                unsh = buf
                self.fsdp1_dep = se[1]
                R.pop(bwd)
            R.unit_ctx[bwd] = key
            self.layer_backward(bwd, i, acts[i])
            R.unit_ctx[bwd] = None
            comp_end_bwd[i] = R.unit_last_end.get(key)
            # post backward: reshard + reduce-scatter
            if v2:
                R.push(bwd, "user_annotation", "FSDP::post_backward_reshard (%s)" % names[i])
                R.free(bwd, unsh)
                R.pop(bwd)
                R.push(bwd, "user_annotation", "FSDP::post_backward_reduce (%s)" % names[i])
                R.runtime(bwd, "cudaStreamWaitEvent", 147, R.rus((2, 4)))
                R.push(bwd, "cpu_op", "fsdp::chunk_cat")
                rs_in = R.alloc(bwd, self.grad_bytes)
                cc = R.launch(bwd, self.s_rs, K_CHUNK_CAT, self.jitd(self.rs_dur * 0.05 + 10 * US),
                              deps=[comp_end_bwd[i]])
                R.pop(bwd)
                rs_out = R.alloc(bwd, self.grad_bytes // self.W)
                se = self.collective(bwd, "c10d::_reduce_scatter_base_", "_reduce_scatter_base",
                                     "nccl:_reduce_scatter_base", self.k_rs, self.s_rs, self.jitd(self.rs_dur),
                                     "Float", self.param_elems, self.param_elems // self.W, [cc[1]])
                R.free(bwd, rs_in)
                R.pop(bwd)
            else:
                R.push(bwd, "user_annotation", "FullyShardedDataParallel._post_backward_hook")
                R.free(bwd, unsh)
                rs_in = R.alloc(bwd, self.grad_bytes)
                rs_out = R.alloc(bwd, self.grad_bytes // self.W)
                se = self.collective(bwd, "c10d::_reduce_scatter_base_", "_reduce_scatter_base",
                                     "nccl:_reduce_scatter_base", self.k_rs, self.s_rs, self.jitd(self.rs_dur),
                                     "Float", self.param_elems, self.param_elems // self.W, [comp_end_bwd[i]])
                R.free(bwd, rs_in)
                R.pop(bwd)
            grads.append(rs_out)
            rs_end[i] = se[1]
            R.unit_add(key, "comm", R.E(se[0]), R.E(se[1]))
        # observed prefetch: the backward AG of unit u started before the
        # backward compute of unit u+1 ended, on a stream other than compute
        for i in range(L - 1):
            ag = ag_issued[i][1]
            ok = ag[0] < comp_end_bwd[i + 1] and self.s_ag != self.s_comp
            R.prefetch_obs[names[i]] = R.prefetch_obs.get(names[i], True) and ok
        # embedding backward
        R.push(bwd, "cpu_op", "autograd::engine::evaluate_function: EmbeddingBackward0")
        R.push(bwd, "cpu_op", "EmbeddingBackward0")
        R.launch(bwd, self.s_comp, K_EMB_BWD, R.r(40 * US, 60 * US),
                 deps=[rs_end[0]] if self.serial else ())
        R.pop(bwd)
        R.pop(bwd)
        R.free(bwd, emb)
        all_rs = max(v for v in rs_end.values())
        if v2:
            R.push(bwd, "user_annotation", "FSDP::root_post_backward_callback")
            R.runtime(bwd, "cudaStreamWaitEvent", 147, R.rus((2, 4)))
            R.pop(bwd)
        R.t[main] = max(R.t[main], R.t[bwd]) + R.r(10 * US, 30 * US)
        # ---- optional sync stall: loss.item() ----
        if self.sync_stall:
            R.item(main, self.s_comp, deps=[all_rs])
            R.t[main] += R.r(400 * US, 700 * US)   # host-side logging: GPU idle
        # ---- optimizer ----
        R.push(main, "user_annotation", "Optimizer.step#AdamW.step")
        if self.lazy_opt and self.opt_states is None:
            self.opt_states = []
            for j in range(6):
                R.push(main, "cpu_op", "aten::zeros_like")
                R.push(main, "cpu_op", "aten::empty_like")
                self.opt_states.append(R.alloc(main, self.states_bytes // 6))
                R.pop(main)
                R.push(main, "cpu_op", "aten::zero_")
                R.launch(main, self.s_comp, K_FILL, R.r(30 * US, 60 * US), deps=[all_rs])
                R.pop(main)
                R.pop(main)
        R.push(main, "cpu_op", "aten::zero_")
        R.launch(main, self.s_comp, "Memset (Device)", R.r(2 * US, 4 * US), kind="gpu_memset",
                 api=("cudaMemsetAsync", 51, "cuda_runtime"), nbytes=4096, deps=[all_rs])
        R.pop(main)
        for j in range(4):
            R.push(main, "cpu_op", "aten::_fused_adamw_")
            R.launch(main, self.s_comp, K_MTA, self.jitd(self.fwd_layer * 0.2 * L / 4), deps=[all_rs])
            R.pop(main)
        R.pop(main)
        R.push(main, "user_annotation", "Optimizer.zero_grad#AdamW.zero_grad")
        for g in grads:
            R.free(main, g)
        R.pop(main)
        R.free(main, loss)
        R.free(main, inp)
        R.end_step(R.r(60 * US, 150 * US))

    def truth_fsdp(self):
        R = self.R
        units = []
        for key in R.unit_order:
            c, p, e = R.unit_tot.get(key, (0, 0, 0))
            units.append({"name": key[0], "phase": key[1], "comm_ns": c, "compute_ns": p,
                          "exposed_ns": max(0, c - p), "exposed_sum_of_steps_ns": e})
        if self.serial or self.s_ag == self.s_comp:
            pattern = "serialized"
        elif all(self.prefetch.get(i) for i in range(self.L - 1)):
            pattern = "zigzag"
        else:
            pattern = "no_prefetch"
        return {"version": "fsdp%d" % self.version, "units": units,
                "backward": {"pattern": pattern, "prefetched": dict(R.prefetch_obs)}}


class SimpleWorkload:
    """Non-FSDP single-GPU loops: launch_bound, fused_healthy, sync_stall."""

    def __init__(self, R, sc, opts):
        self.R = R
        self.kind = sc["kind"]
        self.sc = sc
        self.L = opts["layers"]
        self.blocking_copy = sc.get("blocking_copy", False)
        R.allocated = 2 * GIB
        R.reserved = 2 * GIB + 20 * MIB
        R.segments = [R.reserved]
        if self.kind == "launch":
            R.ov = dict(gap=(1, 3), entry=(3, 6), tail=(1, 2), pre=(1, 2), rt=(3, 5), lat=(2, 3), ig=(0.5, 1.5))

    def step(self, k):
        R = self.R
        main = R.tid_main
        if self.kind == "first_use":
            self.first_use(k)
            return
        R.begin_step(k)
        if R.no_step != "none":
            R.push(main, "user_annotation", "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__")
            R.t[main] += R.r(80 * US, 120 * US)
            R.pop(main)
        else:
            R.op(main, "aten::empty")
        if self.kind == "xdev":
            R.push(main, "cpu_op", "aten::linear")
            R.xdev_work(main, 6 * self.L)
            R.pop(main)
            R.end_step(R.r(60 * US, 120 * US))
            return
        R.push(main, "cpu_op", "aten::to")
        R.push(main, "cpu_op", "aten::copy_")
        inp = R.alloc(main, 4 * MIB)
        R.launch(main, 7, "Memcpy HtoD (Pinned -> Device)", R.r(20 * US, 30 * US), kind="gpu_memcpy",
                 api=("cudaMemcpyAsync", 41, "cuda_runtime"), nbytes=4 * MIB)
        R.pop(main)
        R.pop(main)
        if self.kind == "launch":
            self.launch_bound(k)
        elif self.kind == "fused":
            self.fused(k)
        elif self.kind == "ep" and self.sc.get("provenance_only"):
            self.custom_ar(k)
        elif self.kind == "ep":
            self.ep(k)
        else:
            self.sync(k)
        R.free(main, inp)
        R.end_step(R.r(60 * US, 120 * US))

    def first_use(self, k):
        """One cold forward (only the first pass of a run; no ProfilerStep: the
        range is one nn.Module annotation): 6 kernel names used 4 times each; the
        first launch of names 0, 2, 3 and 5 takes 2-20 ms (module loading), a
        later launch of name 1 takes 3 ms (slow, but not a first use); a
        cudaMalloc before every name's first use while the pool fills."""
        R = self.R
        main = R.tid_main
        R.begin_step(k, name="nn.Module: ColdModel_%d" % k)
        names = [K_ADD, K_MUL, K_RELU, K_SIGMOID, K_SUM, K_GEMM]
        seen = set()
        for rep_ in range(4):
            for i, kern in enumerate(names):
                R.push(main, "cpu_op", "aten::op%d" % i)
                if kern not in seen:
                    a, b = R.runtime(main, "cudaMalloc", 20, R.r(80 * US, 400 * US))
                    R.fu_calls.append((a, b, "alloc"))
                    R.malloc_calls += 1
                    R.cur_step_mallocs += 1
                rt = None
                if kern not in seen and i in (0, 2, 3, 5):
                    rt = R.r(2 * MS, 20 * MS)
                elif rep_ == 2 and i == 1:
                    rt = 3 * MS
                t0 = R.t[main] + 0
                R.launch(main, 7, kern, R.r(40 * US, 900 * US), rt_ns=rt)
                if kern not in seen and rt is not None:
                    # the call launch() just made: it started after t0 by the
                    # "pre" overhead and lasted rt
                    R.fu_calls.append((R.t[main] - rt, R.t[main], "launch"))
                assert R.t[main] > t0
                seen.add(kern)
                R.pop(main)
        R.end_step(R.r(60 * US, 120 * US))

    def truth_first_use(self):
        R = self.R
        u = merge_intervals([(a, b) for a, b, _ in R.fu_calls])
        gaps = [(a, b) for a, b, _ in R.gap_log]
        host = [(a, b) for a, b, h in R.gap_log if h]
        return {"first_launches": sum(1 for x in R.fu_calls if x[2] == "launch"),
                "allocator_calls": sum(1 for x in R.fu_calls if x[2] == "alloc"),
                "idle_ns": inter_len(merge_intervals(gaps), u), "host_wait_ns": inter_len(merge_intervals(host), u)}

    def launch_bound(self, k):
        R = self.R
        main = R.tid_main
        ops = [("aten::add", K_ADD), ("aten::mul", K_MUL), ("aten::relu", K_RELU), ("aten::sigmoid", K_SIGMOID),
               ("aten::sum", K_SUM), ("aten::mul", K_MUL), ("aten::add_", K_ADD)]
        n = 150 * self.L
        hs = []
        R.push(main, "user_annotation", "## forward ##")
        for j in range(n):
            name, kern = ops[j % len(ops)]
            R.push(main, "cpu_op", name)
            if j % 64 == 0:
                hs.append(R.alloc(main, 2 * MIB))
            R.launch(main, 7, kern, R.r(2 * US, 5 * US))
            R.pop(main)
            if j == 10 and k % 2 == 0:
                R.op(main, ESCAPE_OP)
        R.pop(main)
        for h in hs:
            R.free(main, h)

    def fused(self, k):
        R = self.R
        main = R.tid_main
        R.push(main, "user_annotation", "Torch-Compiled Region: 0/0")
        R.push(main, "cpu_op", "CompiledFunction")
        hs = []
        for j in range(3 * self.L):
            if j % 3 == 1:
                R.push(main, "cpu_op", "aten::mm")
                hs.append(R.alloc(main, 64 * MIB))
                R.launch(main, 7, K_SGEMM, R.r(1500 * US, 2500 * US))
                R.pop(main)
            else:
                kern = (K_TRITON_1, K_TRITON_2, K_TRITON_3)[j % 3]
                R.launch(main, 7, kern, R.r(400 * US, 900 * US),
                         api=("cuLaunchKernel", 307, "cuda_driver"))
            if j == 2 and k % 2 == 0:
                R.op(main, ESCAPE_OP)
        R.pop(main)
        R.pop(main)
        for h in hs:
            R.free(main, h)

    def ep(self, k):
        R = self.R
        main = R.tid_main
        comp, comm = 7, 20
        hs = []
        for j in range(self.L):
            R.push(main, "cpu_op", "aten::mm")
            hs.append(R.alloc(main, 16 * MIB))
            R.launch(main, comp, K_SGEMM, R.r(300 * US, 500 * US))
            R.pop(main)
            R.push(main, "cpu_op", "vllm::moe_routing")
            R.launch(main, comp, K_ROUTING, R.r(20 * US, 40 * US))
            R.pop(main)
            R.push(main, "cpu_op", "deep_ep::get_dispatch_layout")
            _, le = R.launch(main, comp, K_EP_LAYOUT, R.r(8 * US, 15 * US))
            R.pop(main)
            R.push(main, "cpu_op", "deep_ep::dispatch")
            R.launch(main, comm, K_EP_NOTIFY, R.r(10 * US, 20 * US), deps=(le,), family=("deep_ep", "name"))
            _, de = R.launch(main, comm, K_EP_DISPATCH, R.r(200 * US, 400 * US), family=("deep_ep", "name"))
            R.pop(main)
            R.push(main, "cpu_op", "aten::mm")
            _, ge = R.launch(main, comp, K_SGEMM, R.r(300 * US, 500 * US), deps=(de,))
            R.pop(main)
            R.push(main, "cpu_op", "deep_ep::combine")
            R.launch(main, comm, K_EP_COMBINE, R.r(200 * US, 300 * US), deps=(ge,), family=("deep_ep", "name"))
            R.pop(main)
            # shared expert under the combine: overlap
            R.push(main, "cpu_op", "aten::add")
            R.launch(main, comp, K_ADD, R.r(100 * US, 150 * US), deps=(ge,))
            R.pop(main)
            R.push(main, "cpu_op", "flash_attn::splitkv_combine")
            R.launch(main, comp, K_SPLITKV_COMBINE, R.r(30 * US, 60 * US))
            R.pop(main)
            R.push(main, "cpu_op", "_C_custom_ar::all_reduce")
            R.launch(main, comp, K_INHOUSE_AR, R.r(80 * US, 120 * US),
                     family=("_C_custom_ar::all_reduce", "provenance"))
            R.pop(main)
            R.push(main, "cpu_op", "symm_mem::fused_all_gather_matmul")
            R.launch(main, comp, K_SGEMM, R.r(200 * US, 300 * US))
            R.pop(main)
            R.push(main, "cpu_op", "inhouse_ep::xfer")
            R.launch(main, comm, K_INHOUSE_XFER, R.r(40 * US, 60 * US))
            R.pop(main)
        for h in hs:
            R.free(main, h)

    def custom_ar(self, k):
        R = self.R
        main = R.tid_main
        for j in range(self.L):
            R.push(main, "cpu_op", "aten::mm")
            _, ge = R.launch(main, 7, K_SGEMM, R.r(200 * US, 400 * US))
            R.pop(main)
            R.push(main, "cpu_op", "vllm::all_reduce")
            R.launch(main, 7, K_INHOUSE_AR, R.r(40 * US, 80 * US), family=("vllm::all_reduce", "provenance"))
            R.pop(main)
            R.push(main, "cpu_op", "aten::add")
            R.launch(main, 7, K_ADD, R.r(30 * US, 60 * US))
            R.pop(main)
            # an in-house c10d backend: the collective runs on its own stream beside the next GEMM
            R.push(main, "cpu_op", "c10d::allreduce_")
            R.push(main, "cpu_op", "record_param_comms")
            R.launch(main, 21, K_HOUSE_C10D, R.r(100 * US, 200 * US), deps=(ge,),
                     family=("c10d::allreduce_", "provenance"))
            R.pop(main)
            R.pop(main)
            R.push(main, "cpu_op", "symm_mem::fused_all_gather_matmul")
            R.launch(main, 7, K_SGEMM, R.r(200 * US, 300 * US))
            R.pop(main)

    def truth_ep(self):
        """Families and, with the user pattern, the overlap a second time."""
        R = self.R
        fam = {}
        for s, e, kname, f in R.klog:
            if f is None:
                continue
            x = fam.setdefault(f, {"iv": [], "first": None})
            x["iv"].append((s, e))
            if x["first"] is None or s < x["first"][0]:
                x["first"] = (s, kname)
        order = {"name": 0, "user": 1, "provenance": 2}
        fams = [{"family": f[0], "rule": f[1], "kernels": len(x["iv"]), "busy_ns": union_len(x["iv"]),
                 "example": x["first"][1]} for f, x in fam.items()]
        fams.sort(key=lambda r: (order[r["rule"]], r["family"]))
        pat = EP_USER_PATTERN
        comm = merge_intervals([(s, e) for s, e, kn, f in R.klog
                                if f is not None or fnmatch.fnmatchcase(kn, pat)])
        comp = merge_intervals([(s, e) for s, e, kn, f in R.klog
                                if f is None and not fnmatch.fnmatchcase(kn, pat)])
        cn = sum(e - s for s, e in comm)
        ov = inter_len(comm, comp)
        xf = [(s, e) for s, e, kn, f in R.klog if fnmatch.fnmatchcase(kn, pat)]
        urow = [{"family": pat, "rule": "user", "kernels": len(xf), "busy_ns": union_len(xf),
                 "example": K_INHOUSE_XFER}] if xf else []
        ufam = sorted(fams + urow, key=lambda r: (order[r["rule"]], r["family"]))
        return {"comm_families": fams,
                "user_pattern": pat,
                "overlap_user": {"comm_ns": cn, "compute_ns": sum(e - s for s, e in comp), "overlap_ns": ov,
                                 "exposed_comm_ns": cn - ov},
                "comm_families_user": ufam}

    def stream_wait(self, k):
        """Compute on stream 7 waits for a side-stream kernel (event record + stream wait), the
        host waits for a side-stream copy (cudaEventSynchronize) and for stream 7 (.item():
        cudaStreamSynchronize); short kernels between, launched ahead of the GPU."""
        R = self.R
        main = R.tid_main
        for j in range(self.L):
            R.push(main, "cpu_op", "aten::mm")
            R.launch(main, 7, K_SGEMM, R.r(20 * US, 40 * US))
            R.pop(main)
        R.push(main, "cpu_op", "aten::cat")
        R.launch(main, 20, K_COPY_IN, R.r(400 * US, 700 * US))
        R.pop(main)
        ev = R.event_record(main, 20)
        R.stream_wait_event(main, 7, ev)
        for j in range(4):
            R.push(main, "cpu_op", "aten::add")
            R.launch(main, 7, K_ADD, R.r(10 * US, 30 * US), deps=(ev[2]["e"] - R.off,) if j == 0 else ())
            R.pop(main)
        R.push(main, "cpu_op", "aten::copy_")
        R.launch(main, 20, "Memcpy DtoD (Device -> Device)", R.r(1000 * US, 1300 * US), kind="gpu_memcpy",
                 api=("cudaMemcpyAsync", 41, "cuda_runtime"), nbytes=64 * MIB)
        R.pop(main)
        ev2 = R.event_record(main, 20)
        R.event_sync(main, ev2)
        R.push(main, "cpu_op", "aten::index_put_")
        R.t[main] += R.r(400 * US, 600 * US)   # host work, GPU idle
        R.pop(main)
        for j in range(self.L // 2):
            R.push(main, "cpu_op", "aten::mul")
            R.launch(main, 7, K_MUL, R.r(30 * US, 60 * US))
            R.pop(main)
        R.push(main, "cpu_op", "aten::item")
        R.push(main, "cpu_op", "aten::_local_scalar_dense")
        R.launch(main, 7, "Memcpy DtoH (Device -> Pinned)", R.r(2 * US, 3 * US), kind="gpu_memcpy",
                 api=("cudaMemcpyAsync", 41, "cuda_runtime"), nbytes=4)
        R.stream_sync(main, 7)
        R.pop(main)
        R.pop(main)
        R.t[main] += R.r(800 * US, 1200 * US)   # host work, GPU idle
        for j in range(self.L // 2):
            R.push(main, "cpu_op", "aten::mul")
            R.launch(main, 7, K_MUL, R.r(30 * US, 60 * US))
            R.pop(main)
        if k % 2 == 1:   # torch.cuda.synchronize()
            R.device_sync(main)
            R.t[main] += R.r(300 * US, 500 * US)

    def sync(self, k):
        if self.sc.get("stream_wait"):
            return self.stream_wait(k)
        R = self.R
        main = R.tid_main
        hs = []
        for j in range(5 * self.L):
            R.push(main, "cpu_op", "aten::mm" if j % 2 else "aten::add")
            if j % 4 == 0:
                hs.append(R.alloc(main, 32 * MIB))
            R.launch(main, 7, K_SGEMM if j % 2 else K_ADD, R.r(150 * US, 600 * US) if j % 2 else R.r(30 * US, 60 * US))
            R.pop(main)
            if j == 3 and k % 2 == 0:
                R.op(main, ESCAPE_OP)
        if self.blocking_copy:
            # .cpu() into pageable memory: the async copy returns with the copy
            R.push(main, "cpu_op", "aten::to")
            R.push(main, "cpu_op", "aten::copy_")
            R.launch(main, 7, "Memcpy DtoH (Device -> Pageable)", R.r(40 * US, 80 * US), kind="gpu_memcpy",
                     api=("cudaMemcpyAsync", 41, "cuda_runtime"), nbytes=8 * MIB, block="own")
            R.pop(main)
            R.pop(main)
            for j in range(self.L):
                R.push(main, "cpu_op", "aten::mm")
                R.launch(main, 7, K_SGEMM, R.r(300 * US, 600 * US))
                R.pop(main)
            R.push(main, "cpu_op", "aten::mm")
            if k % 2 == 0:  # a launch that waits for the queue in front of it (implicit sync)
                R.launch(main, 7, K_SGEMM, R.r(150 * US, 300 * US), block="queue")
            else:  # a synchronous copy (named: blocking whatever its length)
                R.launch(main, 7, "Memcpy DtoH (Device -> Pageable)", R.r(10 * US, 20 * US), kind="gpu_memcpy",
                         api=("cudaMemcpy", 31, "cuda_runtime"), nbytes=1 * MIB, block="own")
            R.pop(main)
        else:
            R.item(main, 7)
        R.t[main] += R.r(1500 * US, 2500 * US)   # host work, GPU idle
        for j in range(self.L):
            R.push(main, "cpu_op", "aten::mul")
            R.launch(main, 7, K_MUL, R.r(100 * US, 200 * US))
            R.launch(main, 7, "Memset (Device)", R.r(3 * US, 6 * US), kind="gpu_memset",
                     api=("cudaMemsetAsync", 51, "cuda_runtime"), nbytes=1 * MIB)
            R.pop(main)
        if k % 2 == 1 and not self.blocking_copy:
            R.sync_call(main, "cudaDeviceSynchronize", 165, R.ready[7])
            R.t[main] += R.r(300 * US, 500 * US)
        if self.sc.get("alloc_per_iter"):
            R.segment_roundtrip(main)   # a segment allocated and released again every iteration
        for h in hs:
            R.free(main, h)

    def truth_fsdp(self):
        return {"version": None, "units": [], "backward": {"pattern": "unknown", "prefetched": {}}}


class JobWorkload(Collectives):
    """Jobs that are not FSDP, each of the shape an expert recognises at once: DDP with its caching
    allocator on or off, TorchRec embedding all-to-all beside a DDP dense part, DTensor tensor
    parallel training, tensor-parallel decode steps of a serving engine, and a healthy loop whose
    only problems are too small to matter.  Multi-rank jobs write rank 0 of `world` ranks."""

    def __init__(self, R, sc, opts):
        self.R = R
        self.sc = sc
        self.job = sc["job"]
        self.L = opts["layers"]
        self.W = R.world
        self.pg_ranks = "[" + ", ".join(str(i) for i in range(self.W)) + "]"
        self.seq = 0
        self.k_ar = (NCCL_OLD if opts["nccl_names"] == "old" else NCCL_NEW)["AllReduce"]
        R.allocated = 3 * GIB
        # allocator off: nothing cached; else a pool the steady state fits in after step 0
        R.reserved = R.allocated if R.alloc_off else R.allocated + 20 * MIB
        R.segments = [R.reserved]

    def step(self, k):
        R = self.R
        engine = self.sc.get("engine_steps")
        R.begin_step(k, name="execute_8_context_0_generation_8" if engine else None)
        getattr(self, self.job)(k)
        R.end_step(R.r(40 * US, 80 * US) if engine else R.r(60 * US, 120 * US))

    # ---- pieces -------------------------------------------------------------
    def dataloader(self, th):
        R = self.R
        R.push(th, "user_annotation", "enumerate(DataLoader)#_MultiProcessingDataLoaderIter.__next__")
        R.t[th] += R.r(60 * US, 120 * US)
        R.pop(th)

    def h2d(self, th, nbytes):
        R = self.R
        R.push(th, "cpu_op", "aten::to")
        R.push(th, "cpu_op", "aten::copy_")
        h = R.alloc(th, nbytes)
        R.launch(th, 7, "Memcpy HtoD (Pinned -> Device)", R.r(10 * US, 20 * US), kind="gpu_memcpy",
                 api=("cudaMemcpyAsync", 41, "cuda_runtime"), nbytes=nbytes)
        R.pop(th)
        R.pop(th)
        return h

    def kernel_op(self, th, op, kname, dur, nbytes=0, deps=(), stream=7):
        """One aten op launching one kernel; with nbytes, the output it allocates (returned)."""
        R = self.R
        R.push(th, "cpu_op", op)
        h = R.alloc(th, nbytes) if nbytes else None
        se = R.launch(th, stream, kname, dur, deps=deps)
        R.pop(th)
        return h, se

    def bwd_node(self, th, node, kernels, nbytes):
        """An autograd node on the backward thread: its kernels, the gradient it allocates."""
        R = self.R
        R.push(th, "cpu_op", "autograd::engine::evaluate_function: " + node)
        R.push(th, "cpu_op", node)
        g = R.alloc(th, nbytes)
        se = None
        for kname, dur in kernels:
            R.push(th, "cpu_op", "aten::mm")
            se = R.launch(th, 7, kname, dur)
            R.pop(th)
        R.pop(th)
        R.pop(th)
        return g, se

    def all_reduce(self, th, stream, dur, deps, functional=False):
        op = "_c10d_functional::all_reduce" if functional else "c10d::allreduce_"
        return self.collective(th, op, "allreduce", "nccl:all_reduce", self.k_ar, stream, dur, "Float",
                               4194304, 4194304, deps)

    def all_to_all(self, th, what, dur, deps):
        """A TorchRec all-to-all (input KJTs or pooled embeddings) on its own stream."""
        R = self.R
        R.push(th, "user_annotation", what)
        se = self.collective(th, "c10d::alltoall_", "all_to_all", "nccl:all_to_all", K_SENDRECV, 22, dur,
                             "Float", 1048576, 1048576, deps)
        R.pop(th)
        return se

    def optimizer(self, th, deps, name="SGD"):
        """Optimizer.step#: foreach kernels after the gradients; marks the iteration where
        iterations are inferred from it."""
        R = self.R
        R.push(th, "user_annotation", "Optimizer.step#%s.step" % name)
        for j in range(3):
            R.push(th, "cpu_op", "aten::_foreach_add_")
            R.launch(th, 7, K_MTA, R.r(80 * US, 160 * US), deps=deps)
            R.pop(th)
        _, oe = R.pop(th)
        if R.no_step == "optimizer":
            R.iters.append((R.iters[-1][1] if R.iters else R.first_cpu_main, oe))
            R.iter_marked = True

    def dense_forward(self, th, mark=None):
        """L layers of mm + gelu; the activations they keep for backward."""
        R = self.R
        if mark:
            R.push(th, "user_annotation", mark)
        acts = []
        for i in range(self.L):
            acts.append(self.kernel_op(th, "aten::mm", K_GEMM, R.r(200 * US, 350 * US), 32 * MIB)[0])
            acts.append(self.kernel_op(th, "aten::gelu", K_GELU, R.r(40 * US, 80 * US), 32 * MIB)[0])
        if mark:
            R.pop(th)
        return acts

    def ddp_backward(self, bwd, acts):
        """Backward on the autograd thread; the reducer all-reduces a bucket of two layers'
        gradients on NCCL's stream as soon as it is ready (overlapping the next layers)."""
        R = self.R
        grads, ar_end = [], None
        for i in range(self.L - 1, -1, -1):
            g, _ = self.bwd_node(bwd, "GeluBackward0", [(K_GELU_BWD, R.r(50 * US, 100 * US))], 32 * MIB)
            R.free(bwd, acts[2 * i + 1])
            gw, se = self.bwd_node(bwd, "MmBackward0", [(K_GEMM_NT, R.r(200 * US, 350 * US)),
                                                         (K_GEMM_NN, R.r(200 * US, 350 * US))], 16 * MIB)
            R.free(bwd, acts[2 * i])
            R.free(bwd, g)
            grads.append(gw)
            if i % 2 == 0:
                ar_end = self.all_reduce(bwd, 20, R.r(150 * US, 300 * US), [se[1]])[1]
        return grads, ar_end

    # ---- jobs -----------------------------------------------------------------
    def ddp(self, k):
        R = self.R
        main, bwd = R.tid_main, R.tid_bwd
        self.dataloader(main)
        inp = self.h2d(main, 4 * MIB)
        acts = self.dense_forward(main, "DistributedDataParallel.forward")
        loss, _ = self.kernel_op(main, "aten::cross_entropy_loss", K_LOGSOFTMAX, R.r(60 * US, 100 * US), 8 * MIB)
        R.t[bwd] = max(R.t[bwd], R.t[main]) + R.r(20 * US, 40 * US)
        grads, ar_end = self.ddp_backward(bwd, acts)
        R.t[main] = max(R.t[main], R.t[bwd]) + R.r(10 * US, 30 * US)
        self.optimizer(main, [ar_end])
        R.push(main, "user_annotation", "Optimizer.zero_grad#SGD.zero_grad")
        for g in grads:
            R.free(main, g)
        R.pop(main)
        R.free(main, loss)
        R.free(main, inp)

    def rec(self, k):
        """TorchRec's sparse-dist pipeline: the input KJTs' all-to-all, table-batched embedding
        lookups, the pooled embeddings' all-to-all under the dense bottom MLP, the DDP over-arch,
        and backward in reverse with the embedding update fused into its backward kernel."""
        R = self.R
        main, bwd = R.tid_main, R.tid_bwd
        self.dataloader(main)
        inp = self.h2d(main, 2 * MIB)
        R.push(main, "user_annotation", "## sparse_data_dist ##")
        kjt = self.all_to_all(main, "KJTAllToAll", R.r(80 * US, 150 * US), [])
        R.pop(main)
        R.push(main, "user_annotation", "## forward ##")
        R.push(main, "cpu_op", "fbgemm::split_embedding_codegen_lookup_rowwise_adagrad_function")
        emb = R.alloc(main, 64 * MIB)
        tbe = R.launch(main, 7, K_TBE_FWD, R.r(300 * US, 500 * US), deps=[kjt[1]])
        R.pop(main)
        pooled = self.all_to_all(main, "PooledEmbeddingsAllToAll", R.r(200 * US, 300 * US), [tbe[1]])
        bottom, _ = self.kernel_op(main, "aten::mm", K_GEMM, R.r(200 * US, 300 * US), 8 * MIB)
        R.push(main, "cpu_op", "aten::cat")
        R.launch(main, 7, K_COPY_IN, R.r(20 * US, 40 * US), deps=[pooled[1]])
        R.pop(main)
        acts = self.dense_forward(main, "DistributedDataParallel.forward")
        R.pop(main)
        loss, _ = self.kernel_op(main, "aten::binary_cross_entropy_with_logits", K_SIGMOID, R.r(20 * US, 40 * US),
                                 1 * MIB)
        R.t[bwd] = max(R.t[bwd], R.t[main]) + R.r(20 * US, 40 * US)
        grads, ar_end = self.ddp_backward(bwd, acts)
        R.push(bwd, "cpu_op", "autograd::engine::evaluate_function: PooledEmbeddingsAllToAllBackward")
        back = self.all_to_all(bwd, "PooledEmbeddingsAllToAll_backward", R.r(200 * US, 300 * US), [])
        R.pop(bwd)
        R.push(bwd, "cpu_op", "autograd::engine::evaluate_function: SplitLookupFunction_rowwise_adagrad_Op")
        R.launch(bwd, 7, K_TBE_BWD, R.r(400 * US, 600 * US), deps=[back[1]])
        R.pop(bwd)
        R.free(bwd, emb)
        R.t[main] = max(R.t[main], R.t[bwd]) + R.r(10 * US, 30 * US)
        self.optimizer(main, [ar_end])
        R.push(main, "user_annotation", "Optimizer.zero_grad#SGD.zero_grad")
        for g in grads:
            R.free(main, g)
        R.pop(main)
        for h in (bottom, loss, inp):
            R.free(main, h)

    def tp_train(self, k):
        """DTensor tensor parallelism: column- then row-parallel mm per layer, the partial sums
        all-reduced by a functional collective the next layer waits for (wait_tensor), in forward
        on the main thread and for the input gradients on the autograd thread."""
        R = self.R
        main, bwd = R.tid_main, R.tid_bwd
        self.dataloader(main)
        inp = self.h2d(main, 4 * MIB)
        acts, dep = [], None
        for i in range(self.L):
            a, _ = self.kernel_op(main, "aten::mm", K_GEMM, R.r(150 * US, 250 * US), 16 * MIB,
                                  deps=[dep] if dep else ())
            b, _ = self.kernel_op(main, "aten::gelu", K_GELU, R.r(30 * US, 60 * US), 16 * MIB)
            c, se = self.kernel_op(main, "aten::mm", K_GEMM_NN, R.r(150 * US, 250 * US), 16 * MIB)
            dep = self.all_reduce(main, 20, R.r(60 * US, 120 * US), [se[1]], functional=True)[1]
            R.op(main, "_c10d_functional::wait_tensor")
            acts += [a, b, c]
        loss, _ = self.kernel_op(main, "aten::cross_entropy_loss", K_LOGSOFTMAX, R.r(40 * US, 80 * US), 4 * MIB,
                                 deps=[dep])
        R.t[bwd] = max(R.t[bwd], R.t[main]) + R.r(20 * US, 40 * US)
        dep = None
        for i in range(self.L - 1, -1, -1):
            g, se = self.bwd_node(bwd, "MmBackward0", [(K_GEMM_NT, R.r(150 * US, 250 * US)),
                                                        (K_GEMM_NN, R.r(150 * US, 250 * US))], 16 * MIB)
            R.free(bwd, acts[3 * i + 2])
            R.free(bwd, acts[3 * i + 1])
            dep = self.all_reduce(bwd, 20, R.r(60 * US, 120 * US), [se[1]], functional=True)[1]
            R.op(bwd, "_c10d_functional::wait_tensor")
            R.free(bwd, acts[3 * i])
            R.free(bwd, g)
        R.t[main] = max(R.t[main], R.t[bwd]) + R.r(10 * US, 30 * US)
        self.optimizer(main, [dep], name="AdamW")
        R.free(main, loss)
        R.free(main, inp)

    def decode_tp(self, k):
        """One decode step of 8 requests on a tensor-parallel engine (eager, no CUDA graph): per
        layer attention and MLP, each ending in an all-reduce on the compute stream; greedy
        sampling; the scheduler reads the tokens back (a blocking copy + synchronize)."""
        R = self.R
        main = R.tid_main
        R.push(main, "cpu_op", "aten::embedding")
        R.launch(main, 7, K_INDEX, R.r(8 * US, 15 * US))
        R.pop(main)
        for i in range(self.L):
            self.kernel_op(main, "aten::mm", K_GEMM, R.r(25 * US, 45 * US))
            self.kernel_op(main, "vllm::unified_attention", K_SPLITKV_COMBINE, R.r(30 * US, 60 * US))
            _, se = self.kernel_op(main, "aten::mm", K_GEMM_NN, R.r(20 * US, 35 * US))
            self.all_reduce(main, 7, R.r(15 * US, 30 * US), [se[1]])
            self.kernel_op(main, "aten::mm", K_GEMM, R.r(40 * US, 70 * US))
            self.kernel_op(main, "aten::gelu", K_GELU, R.r(8 * US, 15 * US))
            _, se = self.kernel_op(main, "aten::mm", K_GEMM_NN, R.r(35 * US, 60 * US))
            self.all_reduce(main, 7, R.r(15 * US, 30 * US), [se[1]])
        self.kernel_op(main, "aten::mm", K_GEMM, R.r(60 * US, 100 * US))
        self.kernel_op(main, "aten::argmax", K_ARGMAX, R.r(8 * US, 15 * US))
        R.push(main, "cpu_op", "aten::to")
        R.push(main, "cpu_op", "aten::_local_scalar_dense")
        _, me = R.launch(main, 7, "Memcpy DtoH (Device -> Pinned)", R.r(2 * US, 3 * US), kind="gpu_memcpy",
                         api=("cudaMemcpyAsync", 41, "cuda_runtime"), nbytes=64)
        R.stream_sync(main, 7)
        R.pop(main)
        R.pop(main)
        R.t[main] += R.r(150 * US, 250 * US)   # the scheduler prepares the next batch: GPU idle

    def tiny(self, k):
        """Long fused kernels launched well ahead; the loss read back once a step (the GPU idles
        for the few microseconds the host takes to launch again) and, in step 2 only, one
        cudaMalloc + cudaFree pair: real, and too small to matter."""
        R = self.R
        main = R.tid_main
        for j in range(3 * self.L):
            self.kernel_op(main, "aten::mm", K_SGEMM, R.r(1500 * US, 2500 * US))
        R.item(main, 7)
        self.kernel_op(main, "aten::add", K_ADD, R.r(30 * US, 60 * US))
        if k == 2:
            R.segment_roundtrip(main)
        self.optimizer(main, [])

    def truth_fsdp(self):
        return {"version": None, "units": [], "backward": {"pattern": "unknown", "prefetched": {}}}

    def truth_job(self):
        """The GPU idle the blocking calls of the judged windows opened: the full length of every
        gap of the device (all streams together) that begins while one of them blocks, a call
        belonging to the window its start lies in (the ProfilerStep steps, else the iterations
        after the first); the part of cudaFree calls after the GPU had drained (allocator off)."""
        R = self.R
        if R.no_step == "optimizer":
            wins = R.iters[1:]
        else:
            wins = [(s["start_ns"] - R.off, s["start_ns"] - R.off + s["dur_ns"]) for s in R.steps]
        blocks = [(a, b) for a, b in R.block_log if any(s <= a < e for s, e in wins)]
        busy = merge_intervals(R.gpu_iv)
        gaps = [(busy[i][1], busy[i + 1][0]) for i in range(len(busy) - 1)]
        opened = sum(g1 - g0 for g0, g1 in gaps if any(a <= g0 < b for a, b in blocks))
        return {"sync_gpu_idle_opened_ns": opened, "free_wait_ns": R.free_wait}


class GapWorkload(Collectives):
    """Shapes of idle that real traces show and rules written from generated ones missed, each with
    its truth and, where fixing it makes sense, the same trace with the problem switched off
    (--switch-off; the random draws are the same, only their use changes):

    external_wait    a decode loop whose compute stream waits for an event recorded by work outside
                     the trace while the host blocks in a synchronous copy queued behind the wait
    pageable_copy    a trainer whose main thread blocks every step in a D2H copy to pageable memory
                     that waits for the queued GPU work; pageable H2D input copies beside it
    rank_skew        N ranks entering each step's collectives ms apart: tiny collectives whose
                     kernels on the early ranks last for the skew
    host_preprocess  an inference step that spends most of its CPU time preprocessing (video decode,
                     image processor) before its first kernel
    graph_capture    a step that captures a CUDA graph (a few us of GPU work in ~30 ms) beside
                     replay steps"""

    def __init__(self, R, sc, opts):
        self.R = R
        self.sc = sc
        self.gap = sc["gap"]
        self.L = opts["layers"]
        self.W = R.world
        self.pg_ranks = "[" + ", ".join(str(i) for i in range(self.W)) + "]"
        self.seq = 0
        self.off = opts.get("switch_off", False)
        self.facts = []          # per step: what the scenario did (its truth object)
        self.coll = []           # rank_skew: (seq, collective, kernel, in_nelems, arrival, transfer) of this rank
        R.allocated = 4 * GIB
        R.reserved = R.allocated + 20 * MIB
        R.segments = [R.reserved]
        self.cs = 7              # the compute stream (3 on ROCm, as HIP numbers its streams)
        if R.hip:
            self.cs = 3

    def step(self, k):
        getattr(self, self.gap)(k)

    @contextlib.contextmanager
    def side(self, k):
        """Draws of the problem and of what replaces it when it is switched off come from a side
        RNG, so that every other duration is the same with and without the problem."""
        R = self.R
        main = R.dr
        R.dr = random.Random(_crc("side", R.o["seed"], R.scenario, k))
        try:
            yield
        finally:
            R.dr = main

    def truth_fsdp(self):
        return {"version": None, "units": [], "backward": {"pattern": "unknown", "prefetched": {}}}

    # ---- pieces --------------------------------------------------------------
    def op_kernel(self, th, op, kname, dur, stream=None, deps=()):
        R = self.R
        R.push(th, "cpu_op", op)
        se = R.launch(th, self.cs if stream is None else stream, kname, dur, deps=deps)
        R.pop(th)
        return se

    def copy(self, th, direction, nbytes, dur, api="cudaMemcpyAsync", block=None, stream=None, deps=()):
        """tensor.to(...): aten::to > aten::_to_copy > aten::copy_ and its copy, named as CUPTI names
        the memory kinds (`Memcpy HtoD (Pageable -> Device)`)."""
        R = self.R
        cbid = {"cudaMemcpyAsync": 41, "cudaMemcpy": 31, "hipMemcpyWithStream": 41, "hipMemcpyAsync": 41}[api]
        R.push(th, "cpu_op", "aten::to")
        R.push(th, "cpu_op", "aten::_to_copy")
        R.op(th, "aten::empty_strided")
        R.push(th, "cpu_op", "aten::copy_")
        se = R.launch(th, self.cs if stream is None else stream, "Memcpy " + direction, dur, kind="gpu_memcpy",
                      api=(api, cbid, "cuda_runtime"), nbytes=nbytes, block=block, deps=deps)
        R.pop(th)
        R.pop(th)
        R.pop(th)
        return se

    def cpu_ops(self, th, names, total):
        """CPU-only ops (no kernel) lasting `total` ns together, in turn."""
        R = self.R
        per = total // len(names) // R.q * R.q
        for n in names:
            R.push(th, "cpu_op", n)
            R.t[th] += per
            R.pop(th)

    # ---- external_wait ----------------------------------------------------------
    def external_wait(self, k):
        """sglang-style decode step: the scheduler's stream waits (cudaStreamWaitEvent /
        hipStreamWaitEvent) for an event that work outside the trace records (another process's
        or thread's copy) 300-500 ms later; the kernels queued behind the wait and a synchronous
        256-byte D2H copy of the next tokens wait with it, the host blocked in the copy."""
        R = self.R
        th = R.tid_main
        cs = self.cs
        R.begin_step(k, name="execute_32_context_0(sq0sk0sqsq0sqsk0)_generation_32(sq32sk%dsqsq32sqsk%d)"
                     % (32785 + 32 * k, 32785 + 32 * k))
        R.op(th, "aten::empty")
        self.op_kernel(th, "aten::arange", K_FILL, R.r(2 * US, 3 * US))
        wait_ns = R.r(300 * MS, 500 * MS)        # drawn either way: --switch-off keeps the draws
        ready = R.t[th] + (0 if self.off else wait_ns)
        R.push(th, "cpu_op", "aten::_foreach_copy_")
        R.t[th] += R.r(10 * US, 20 * US)
        R.pop(th)
        ws, we = R.runtime(th, "cudaStreamWaitEvent", 147, R.r(5 * US, 10 * US))
        R.pending_wait[cs] = {"op": None, "outside": True}
        R.nevent = getattr(R, "nevent", 0) + 1
        R.emit_sync("Stream Wait Event", R.stid(cs), ws, we,
                    R.sync_args("Stream Wait Event", cs, R.corr, R.cur_ext(th), (-1, -1, R.nevent)))
        R.runtime(th, "cudaEventDestroy", 133, R.r(1 * US, 2 * US))
        held = R.launch(th, cs, K_ADD, R.r(3 * US, 5 * US), deps=(ready,))
        R.push(th, "user_annotation", "step[DECODE bs=32]")
        self.cpu_ops(th, ["aten::slice", "aten::as_strided", "aten::slice"], R.r(20 * US, 40 * US))
        self.op_kernel(th, "aten::_foreach_copy_", K_MUL, R.r(3 * US, 6 * US))
        # the next tokens, copied to the host: a synchronous copy queued behind the wait
        if R.hip:
            R.runtime(th, "hipStreamGetCaptureInfo", 324, R.r(1 * US, 2 * US))
            _, ce = self.copy(th, "DtoH (Device -> Host)", 256, R.r(4 * US, 6 * US), api="hipMemcpyWithStream",
                              block="own")
        else:
            _, ce = self.copy(th, "DtoH (Device -> Pageable)", 256, R.r(4 * US, 6 * US), block="own")
            R.sync_call(th, "cudaStreamSynchronize", 131, ce)
        # the forward of the step, eager
        for i in range(self.L):
            self.op_kernel(th, "aten::rms_norm", K_LN, R.r(8 * US, 12 * US))
            self.op_kernel(th, "aten::mm", K_GEMM, R.r(40 * US, 60 * US))
            self.op_kernel(th, "aten::_scaled_dot_product_flash_attention", K_FLASH, R.r(30 * US, 50 * US))
            self.op_kernel(th, "aten::mm", K_GEMM_NT, R.r(60 * US, 90 * US))
        self.op_kernel(th, "aten::argmax", K_ARGMAX, R.r(8 * US, 12 * US))
        self.copy(th, "DtoD (Device -> Device)", 256, R.r(3 * US, 5 * US),
                  api="hipMemcpyAsync" if R.hip else "cudaMemcpyAsync")
        R.pop(th)
        R.end_step(R.r(40 * US, 80 * US))
        self.facts.append({"step": k, "wait_call_ns": R.E(ws), "event_ns": R.E(ready) if not self.off else None,
                           "held_kernel_start_ns": R.E(held[0]), "copy_end_ns": R.E(ce),
                           "outside_wait_ns": 0 if self.off else wait_ns})

    # ---- pageable_copy ----------------------------------------------------------
    def pageable_copy(self, k):
        """A recommendation trainer (the shape of HTA's negative_queue_length trace): small input
        tensors copied from pageable memory (`Memcpy HtoD (Pageable -> Device)`: the call returns
        once the data is staged, the copy runs in stream order), the feature lengths read back
        (a short pageable D2H behind two permute kernels), forward and backward queued well
        ahead, then a metric copied to pageable memory (`Memcpy DtoH (Device -> Pageable)`) whose
        cudaMemcpyAsync returns only when the copy is done: after all the queued work.  The host
        then logs for 1-2 ms while the GPU idles.  Switched off: pinned memory and non_blocking
        copies (the metric read a step later), so the host's work overlaps the GPU's."""
        R = self.R
        th = R.tid_main
        cs = self.cs
        pin = self.off
        R.begin_step(k)
        R.push(th, "user_annotation", "enumerate(DataLoader)#_MultiProcessingDataLoaderIter.__next__")
        R.t[th] += R.r(150 * US, 250 * US)
        R.pop(th)
        R.push(th, "user_annotation", "## sparse_data_dist ##")
        for j in range(4):
            self.copy(th, "HtoD (Pinned -> Device)" if pin else "HtoD (Pageable -> Device)", 128 << j,
                      R.r(1 * US, 3 * US))
        R.pop(th)
        # the feature lengths, needed on the host at once: a short pageable D2H behind two permutes
        # (blocks for a few hundred us, under idle.slow_launch_ns); kept when the metric's is switched off
        R.push(th, "user_annotation", "## KJTAllToAllTensorsAwaitable wait() ##")
        self.op_kernel(th, "fbgemm::permute_2D_sparse_data", K_PERMUTE_LENGTHS, R.r(150 * US, 250 * US))
        self.op_kernel(th, "fbgemm::permute_2D_sparse_data", K_PERMUTE_DATA, R.r(150 * US, 250 * US))
        c0 = R.t[th]
        self.copy(th, "DtoH (Device -> Pageable)", 48, R.r(1 * US, 2 * US), block="own")
        lengths_call = R.t[th] - c0
        R.pop(th)
        R.push(th, "user_annotation", "## forward ##")
        for i in range(self.L):
            self.op_kernel(th, "aten::embedding_bag" if i == 0 else "aten::mm",
                           K_TBE_FWD if i == 0 else K_SGEMM, R.r(300 * US, 500 * US))
            self.op_kernel(th, "aten::relu", K_RELU, R.r(20 * US, 40 * US))
        R.pop(th)
        R.push(th, "user_annotation", "## backward ##")
        for i in range(self.L):
            self.op_kernel(th, "aten::mm", K_SGEMM, R.r(300 * US, 500 * US))
            self.op_kernel(th, "aten::mm", K_SGEMM, R.r(300 * US, 500 * US))
        R.pop(th)
        queued_until = R.ready[cs]
        R.push(th, "user_annotation", "## metrics ##")
        call0 = R.t[th]
        with self.side(k):
            _, ce = self.copy(th, "DtoH (Device -> Pinned)" if pin else "DtoH (Device -> Pageable)", 704,
                              R.r(2 * US, 3 * US), block=None if pin else "own")
        blocked = R.t[th] - call0
        log_ns = R.r(1000 * US, 2000 * US)
        self.cpu_ops(th, ["aten::sum", "aten::div", "aten::_local_scalar_dense"], log_ns)
        R.pop(th)
        R.push(th, "user_annotation", "Optimizer.step#SGD.step")
        for j in range(3):
            self.op_kernel(th, "aten::_foreach_add_", K_MTA, R.r(80 * US, 160 * US))
        R.pop(th)
        R.end_step(R.r(60 * US, 120 * US))
        self.facts.append({"step": k, "lengths_d2h_call_ns": lengths_call,
                           "d2h_api": "cudaMemcpyAsync", "d2h_memory": "Pinned" if pin else "Pageable",
                           "d2h_call_ns": blocked, "d2h_copy_end_ns": R.E(ce), "queue_end_ns": R.E(queued_until),
                           "h2d_copies": 4, "h2d_memory": "Pinned" if pin else "Pageable", "host_after_ns": log_ns})

    # ---- rank_skew ----------------------------------------------------------------
    def nccl(self, th, kind, nelems, dur, deps):
        """A c10d collective as ProcessGroupNCCL issues it: the NCCL stream waits for the compute
        stream (event record + stream wait), the kernel, the compute stream waits for it (work.wait());
        `kind` all_to_all (c10d::alltoall_base_, record_param_comms all_to_all) or allreduce."""
        R = self.R
        cs, ns = self.cs, 20
        ev = R.event_record(th, cs)
        R.stream_wait_event(th, ns, ev)
        if kind == "all_to_all":
            se = self.collective(th, "c10d::alltoall_base_", "all_to_all", "nccl:all_to_all", K_SENDRECV, ns,
                                 dur, "Float", nelems, nelems, deps=(ev[2]["e"] - R.off,) + tuple(deps))
        else:
            se = self.collective(th, "c10d::allreduce_", "allreduce", "nccl:all_reduce", NCCL_NEW["AllReduce"], ns,
                                 dur, "Float", nelems, nelems, deps=(ev[2]["e"] - R.off,) + tuple(deps))
        self.coll.append({"seq": self.seq, "collective": kind, "in_msg_nelems": nelems, "arrival": se[0],
                          "transfer_ns": dur})
        ev2 = R.event_record(th, ns)
        R.stream_wait_event(th, cs, ev2)
        return se

    def rank_skew(self, k):
        """DLRM-style step on every rank: the DataLoader (one rank, a different one each step, is
        several ms late in it), a tiny all_to_all of 6144 elements (the early ranks' kernels last
        until the late rank arrives, then 0.1 ms of transfer), embedding and dense compute, the same
        all_to_all again (every rank arrives together: 0.1 ms), backward, the gradient all-reduce
        and the optimizer.  Switched off: no rank late (the delays drawn, not slept)."""
        R = self.R
        th = R.tid_main
        cs = self.cs
        n = max(1, self.W)
        late = (1 + 2 * k) % n
        delays = []
        for r in range(n):     # every rank draws the whole row: the duration RNG stays rank-independent
            d = R.r(4 * MS, 7 * MS) if r == late else R.r(0, 1500 * US)
            delays.append(0 if self.off else d)
        R.begin_step(k)
        R.push(th, "user_annotation", "enumerate(DataLoader)#_MultiProcessingDataLoaderIter.__next__")
        R.t[th] += R.r(200 * US, 300 * US) + delays[R.rank]
        R.pop(th)
        R.push(th, "user_annotation", "## sparse_data_dist ##")
        self.copy(th, "HtoD (Pinned -> Device)", 6144 * 4, R.r(3 * US, 5 * US))
        a2a = R.r(100 * US, 130 * US)
        self.nccl(th, "all_to_all", 6144, a2a, ())
        R.pop(th)
        R.push(th, "user_annotation", "## forward ##")
        self.op_kernel(th, "aten::embedding_bag", K_TBE_FWD, R.r(400 * US, 600 * US))
        for i in range(self.L // 2):
            self.op_kernel(th, "aten::mm", K_SGEMM, R.r(200 * US, 300 * US))
        self.nccl(th, "all_to_all", 6144, a2a, ())
        for i in range(self.L // 2):
            self.op_kernel(th, "aten::mm", K_SGEMM, R.r(200 * US, 300 * US))
        R.pop(th)
        R.push(th, "user_annotation", "## backward ##")
        for i in range(self.L):
            self.op_kernel(th, "aten::mm", K_SGEMM, R.r(250 * US, 350 * US))
        self.op_kernel(th, "aten::embedding_dense_backward", K_TBE_BWD, R.r(300 * US, 500 * US))
        self.nccl(th, "allreduce", 1048576, R.r(300 * US, 400 * US), ())
        R.pop(th)
        R.push(th, "user_annotation", "Optimizer.step#SGD.step")
        self.op_kernel(th, "aten::_foreach_add_", K_MTA, R.r(80 * US, 160 * US))
        R.pop(th)
        R.end_step(R.r(60 * US, 120 * US))
        self.facts.append({"step": k, "late_rank": late if not self.off else None, "delays_ns": delays})

    # ---- host_preprocess --------------------------------------------------------------
    def host_preprocess(self, k):
        """A vision-language inference step: the clip decoded (`video_decode`) and preprocessed
        (`image_processor`: resize, rescale, normalize on the CPU) for ~70 % of the step before its
        first kernel, then the pixels copied in and the vision encoder and the language model's
        prefill run, the first token read back.  Switched off: the preprocessing done ahead by a
        DataLoader worker (the step only fetches its result)."""
        R = self.R
        th = R.tid_main
        R.begin_step(k)
        pre = {"video_decode": R.r(130 * MS, 170 * MS), "image_processor": R.r(90 * MS, 110 * MS)}
        t0 = R.t[th]
        cpu = []
        with self.side(k):
            if self.off:
                R.push(th, "user_annotation", "enumerate(DataLoader)#_MultiProcessingDataLoaderIter.__next__")
                R.t[th] += R.r(100 * US, 200 * US)
                R.pop(th)
            else:
                R.push(th, "user_annotation", "video_decode")
                R.op(th, "aten::empty")
                R.t[th] += pre["video_decode"] - 4 * MS
                self.cpu_ops(th, ["aten::stack", "aten::permute"], 4 * MS)
                a, b = R.pop(th)
                cpu.append({"name": "video_decode", "ns": b - a})
                R.push(th, "user_annotation", "image_processor")
                self.cpu_ops(th, ["aten::to", "aten::upsample_bicubic2d", "aten::div_", "aten::sub_", "aten::div_",
                                  "aten::reshape", "aten::contiguous"], pre["image_processor"])
                a, b = R.pop(th)
                cpu.append({"name": "image_processor", "ns": b - a})
        host_pre = R.t[th] - t0
        fk, _ = self.copy(th, "HtoD (Pinned -> Device)", 48 * MIB, R.r(1500 * US, 2000 * US))
        R.push(th, "user_annotation", "## vision_encoder ##")
        for i in range(self.L):
            self.op_kernel(th, "aten::layer_norm", K_LN, R.r(200 * US, 300 * US))
            self.op_kernel(th, "aten::mm", K_GEMM, R.r(1500 * US, 2000 * US))
            self.op_kernel(th, "aten::_scaled_dot_product_flash_attention", K_FLASH, R.r(1200 * US, 1600 * US))
            self.op_kernel(th, "aten::gelu", K_GELU, R.r(300 * US, 400 * US))
        R.pop(th)
        R.push(th, "user_annotation", "## prefill ##")
        for i in range(self.L):
            self.op_kernel(th, "aten::mm", K_GEMM_NT, R.r(1000 * US, 1500 * US))
            self.op_kernel(th, "aten::_scaled_dot_product_flash_attention", K_FLASH, R.r(800 * US, 1200 * US))
            self.op_kernel(th, "aten::add", K_ADD, R.r(50 * US, 80 * US))
        self.op_kernel(th, "aten::argmax", K_ARGMAX, R.r(20 * US, 40 * US))
        R.item(th, self.cs)
        R.pop(th)
        R.end_step(R.r(60 * US, 120 * US))
        st = R.step_log[-1]
        self.facts.append({"step": k, "step_start_ns": st["start_ns"], "first_kernel_ns": R.E(fk),
                           "host_before_first_kernel_ns": R.E(fk) - st["start_ns"],
                           "preprocess_ns": sum(c["ns"] for c in cpu), "host_before_launch_ns": host_pre,
                           "cpu": cpu})

    # ---- graph_capture --------------------------------------------------------------
    def decode_kernels(self):
        R = self.R
        ks = []
        for i in range(self.L):
            ks += [(K_LN, R.r(6 * US, 9 * US)), (K_GEMM, R.r(30 * US, 45 * US)),
                   (K_FLASH, R.r(25 * US, 40 * US)), (K_GEMM_NT, R.r(50 * US, 70 * US))]
        return ks

    def graph_capture(self, k):
        """Decode steps of a serving engine under CUDA graphs: step 0 runs eagerly (warm-up), step 1
        captures the graph for batch size 32 (`capture_32_DECODE`: cudaStreamBeginCapture, the
        forward's launches recorded, not run, cudaStreamEndCapture, cudaGraphInstantiate: ~30 ms
        of CPU and a few us of GPU work), every later step replays it (cudaGraphLaunch) and samples.
        Switched off: the graph captured before the profiled window (step 1 replays too)."""
        R = self.R
        th = R.tid_main
        cs = self.cs
        R.begin_step(k)
        kernels = self.decode_kernels()
        capture = k == 1 and not self.off
        side = self.side(k)
        if k == 1:
            side.__enter__()
        if k == 0:
            R.push(th, "user_annotation", "step[DECODE bs=32]")
            for i, (kn, d) in enumerate(kernels):
                self.op_kernel(th, ("aten::rms_norm", "aten::mm", "aten::_scaled_dot_product_flash_attention",
                                    "aten::mm")[i % 4], kn, d)
            kind = "eager"
        elif capture:
            R.push(th, "user_annotation", "capture_32_DECODE")
            R.push(th, "cpu_op", "aten::zero_")
            R.launch(th, cs, "Memset (Device)", R.r(2 * US, 3 * US), kind="gpu_memset",
                     api=("cudaMemsetAsync", 51, "cuda_runtime"), nbytes=4096)
            R.pop(th)
            self.op_kernel(th, "aten::fill_", K_FILL, R.r(3 * US, 5 * US))
            R.push(th, "cpu_op", "aten::zero_")
            R.launch(th, cs, "Memset (Device)", R.r(2 * US, 3 * US), kind="gpu_memset",
                     api=("cudaMemsetAsync", 51, "cuda_runtime"), nbytes=4096)
            R.pop(th)
            R.runtime(th, "cudaStreamBeginCapture", 315, R.r(5 * US, 10 * US))
            for i, (kn, d) in enumerate(kernels):
                R.push(th, "cpu_op", ("aten::rms_norm", "aten::mm", "aten::_scaled_dot_product_flash_attention",
                                      "aten::mm")[i % 4])
                R.runtime(th, "cudaLaunchKernel", 211, R.rus(R.ov["rt"]))
                R.t[th] += R.r(400 * US, 600 * US)     # Python between the captured ops
                R.pop(th)
            R.runtime(th, "cudaStreamEndCapture", 319, R.r(40 * US, 80 * US))
            R.runtime(th, "cudaGraphInstantiate", 310, R.r(6 * MS, 9 * MS))
            R.runtime(th, "cudaGraphUpload", 348, R.r(300 * US, 500 * US))
            kind = "capture"
        else:
            R.push(th, "user_annotation", "step[DECODE bs=32]")
            R.runtime(th, "cudaStreamIsCapturing", 317, R.r(1 * US, 2 * US))
            R.graph_launch(th, cs, kernels)
            kind = "replay"
        if not capture:
            self.op_kernel(th, "aten::argmax", K_ARGMAX, R.r(8 * US, 12 * US))
            R.item(th, cs)
        if k == 1:
            side.__exit__(None, None, None)
        R.pop(th)
        R.end_step(R.r(40 * US, 80 * US))
        st = R.step_log[-1]
        self.facts.append({"step": k, "kind": kind, "dur_ns": st["dur_ns"]})

    def truth_gap(self):
        R = self.R
        out = {"steps": self.facts}
        if self.gap == "external_wait":
            out["outside_wait_ns"] = sum(f["outside_wait_ns"] for f in self.facts)
        if self.gap == "graph_capture":
            busy = {}
            for o in R.oplog:
                for st in R.step_log:
                    if st["start_ns"] <= o["s"] < st["start_ns"] + st["dur_ns"]:
                        busy.setdefault(st["start_ns"], []).append((o["s"], o["e"]))
            for f, st in zip(self.facts, R.step_log):
                f["gpu_busy_ns"] = union_len(busy.get(st["start_ns"], []))
                f["captured_launches"] = 4 * self.L if f["kind"] == "capture" else 0
                f["graph_launches"] = 1 if f["kind"] == "replay" else 0
        if self.gap == "rank_skew":
            out["collectives"] = self.coll
        return out


# --------------------------------------------------------------------------
# Trace assembly
# --------------------------------------------------------------------------

BUCKET_S = 7889238
BASE_NS = 224 * BUCKET_S * 10 ** 9          # 1767189312000000000
T0_REL_NS = 1365627862757064               # ~15.8 days into the bucket


def header(R, fmtname, opts):
    parts = ['{\n  "schemaVersion": 1,\n  "deviceProperties": [\n']
    devs = []
    for d in range(8):
        p = dict(DEVICE_PROPS)
        devs.append('    {\n      "id": %d, ' % d + ", ".join('"%s": %s' % (k, json.dumps(v)) for k, v in p.items())
                    + "\n    }")
    parts.append(",\n".join(devs))
    parts.append("\n  ],\n")
    di = distributed_info(R, opts, ranks_as_string=(fmtname == "old"))
    if fmtname == "new":
        if di is not None:
            parts.append('  "distributedInfo": %s,\n' % json.dumps(di))
        parts.append('  "cupti_version": 24,\n  "cuda_runtime_version": 12060,\n  "cuda_driver_version": 12080,\n')
        parts.append('  "trace_id": "%032X",\n' % (_crc("tid", opts["seed"], R.rank) * 0x9E3779B97F4A7C15
                                                     % (1 << 128)))
        parts.append('  "displayTimeUnit": "ms",\n  "baseTimeNanoseconds": %d,\n' % BASE_NS)
    elif fmtname == "old":
        parts.append('  "record_shapes": 1,\n  "profile_memory": 1,\n')
    parts.append('  "traceEvents": [')
    return "".join(parts)


def distributed_info(R, opts, ranks_as_string=False):
    if not opts["distributed"]:
        return None
    ranks = list(range(R.world))
    return {"backend": "nccl", "rank": R.rank, "world_size": R.world, "pg_count": 1,
            "pg_config": [{"pg_name": "0", "pg_desc": "default_pg", "backend_config": "cuda:nccl",
                           "pg_size": R.world, "ranks": str(ranks) if ranks_as_string else ranks}],
            "nccl_version": "2.21.5"}


def trailer_events(R, t_start, t_end):
    """Metadata, spans, overhead, Record Window End (emitted after the steps)."""
    f = R.f
    ev = []
    tm = R.E(t_start)

    def meta(name, pid, tid, args):
        ev.append(f.meta(name, pid, tid, tm, args))
        R.count("")

    meta("process_name", R.pid_s, "0", '"name": "python3"')
    meta("process_labels", R.pid_s, "0", '"labels": "CPU"')
    meta("process_sort_index", R.pid_s, "0", '"sort_index": %d' % R.pid)
    for d in range(8):
        meta("process_name", str(d), "0", '"name": "python3"')
        meta("process_labels", str(d), "0", '"labels": "GPU %d"' % d)
        meta("process_sort_index", str(d), "0", '"sort_index": %d' % (16777216 + d))
    if not R.legacy:
        for s in sorted(R.stream_last):
            meta("thread_name", R.dev_s, str(s), '"name": "stream %d "' % s)
            meta("thread_sort_index", R.dev_s, str(s), '"sort_index": %d' % s)
    meta("thread_name", R.pid_s, R.tid_s[R.tid_main], '"name": "thread %d (pt_main_thread)"' % R.tid_main)
    meta("thread_sort_index", R.pid_s, R.tid_s[R.tid_main], '"sort_index": %d' % R.tid_main)
    meta("thread_name", R.pid_s, R.tid_s[R.tid_bwd], '"name": "thread %d (pt_main_thread)"' % R.tid_bwd)
    meta("thread_name", R.pid_s, R.tid_s[R.tid_bwd], '"name": "thread %d (pt_autograd_0)"' % R.tid_bwd)
    meta("thread_sort_index", R.pid_s, R.tid_s[R.tid_bwd], '"sort_index": %d' % R.tid_bwd)
    if not R.legacy:
        c = "overhead"
        ev.append(f.x_noargs(c, '"Activity Buffer Request"', "-1", "0", R.E(t_start + 40 * US), 1500 * US))
        R.count(c)
    span_pid = '"Traces"' if R.legacy else '"Spans"'
    ev.append(f.x("Trace", '"PyTorch Profiler (0)"', span_pid, '"PyTorch Profiler"', tm,
                  t_end - t_start, '"Op count": 0'))
    R.count("Trace")
    if not R.legacy:
        ev.append(f.meta("process_sort_index", '"Spans"', "0", tm, '"sort_index": 536870912'))
        R.count("")
    if f.pretty:
        ev.append('  {\n    "name": "Iteration Start: PyTorch Profiler", "ph": "i", "s": "g",\n    "pid": "Traces", '
                  '"tid": "Trace PyTorch Profiler", "ts": %s\n  }' % f.ts(tm))
        ev.append('  {\n    "name": "Record Window End", "ph": "i", "s": "g",\n    "pid": "", "tid": "", "ts": %s\n  }'
                  % f.ts(R.E(t_end)))
    else:
        ev.append('{"name": "Iteration Start: PyTorch Profiler", "ph": "i", "s": "g", "pid": "Traces", '
                  '"tid": "Trace PyTorch Profiler", "ts": %s}' % f.ts(tm))
        ev.append('{"name": "Record Window End", "ph": "i", "s": "g", "pid": "", "tid": "", "ts": %s}'
                  % f.ts(R.E(t_end)))
    R.count("", 2)
    return ev


def footer(R, fmtname, opts, trace_name):
    parts = ["\n  ]"]
    if fmtname == "new":
        parts.append(',\n  "traceName": %s\n}\n' % json.dumps(trace_name))
    elif fmtname == "old":
        di = distributed_info(R, opts, ranks_as_string=True)
        if di is not None:
            parts.append(',\n  "distributedInfo": %s' % json.dumps(di))
        parts.append(',\n  "traceName": %s\n}\n' % json.dumps(trace_name))
    else:
        parts.append("\n}\n")
    return "".join(parts)


def rank_path(path, rank, nranks):
    if nranks <= 1:
        return path
    for ext in (".json.gz", ".json", ".gz"):
        if path.endswith(ext):
            return path[: -len(ext)] + ".rank%d" % rank + ext
    return path + ".rank%d" % rank


def truth_path(trace_path):
    for ext in (".json.gz", ".json", ".gz"):
        if trace_path.endswith(ext):
            return trace_path[: -len(ext)] + ".truth.json"
    return trace_path + ".truth.json"


def _generate_rank(scenario, sc, path, opts, rank, world, steps, target):
    fmt = Fmt(opts["format"], BASE_NS if opts["format"] == "new" else 0)
    w = Writer(path, opts["gz_level"])
    R = Rank(scenario, sc, opts, rank, world, w, fmt)
    wl = {"fsdp": FSDPWorkload, "job": JobWorkload, "gap": GapWorkload}.get(sc["kind"], SimpleWorkload)(R, sc, opts)
    w.write(header(R, opts["format"], opts))
    t_start = R.T0
    R.t[R.tid_main] = R.T0 + 200 * US
    R.t[R.tid_bwd] = R.T0 + 200 * US
    tail_est = 40000 if fmt.pretty else 20000
    k = 0
    t_wall = time.time()
    while True:
        if target:
            if w.ubytes + tail_est >= target:
                break
        elif k >= steps:
            break
        wl.step(k)
        k += 1
    t_end = R.t[R.tid_main] + 50 * US
    R.write_events(trailer_events(R, t_start, t_end))
    w.write(footer(R, opts["format"], opts, "/tmp/" + os.path.basename(path)))
    w.close()
    elapsed = time.time() - t_wall
    truth = build_truth(R, wl, scenario, sc, opts, k)
    truth["generator"] = {"bytes_uncompressed": w.ubytes, "bytes_file": os.path.getsize(path),
                          "format": opts["format"],
                          "nccl_names": opts["nccl_names"], "seed": opts["seed"], "layers": opts["layers"]}
    if opts.get("wait_form", "cuda_sync") != "cuda_sync":
        truth["generator"]["wait_form"] = opts["wait_form"]
    if opts.get("switch_off"):
        truth["generator"]["switch_off"] = True
    with open(truth_path(path), "w") as fh:
        json.dump(truth, fh, indent=1, sort_keys=False)
        fh.write("\n")
    return truth, k, R.coll_starts


IDLE_CAUSES = ("host_not_launched", "host_blocked", "stream_wait", "rank_wait", "dispatch", "unknown")
# runtime calls the contract counts as blocking by name ("Blocking calls": sync, sync_copy, free)
BLOCKING_CALLS = {"cudaStreamSynchronize", "cudaEventSynchronize", "cudaDeviceSynchronize", "cudaMemcpy",
                  "cudaMemset", "cudaFree", "hipStreamSynchronize", "hipEventSynchronize",
                  "hipDeviceSynchronize", "hipMemcpy", "hipMemset", "hipFree"}
# the behaviour classes whose threshold is 50 us (launch, async_copy); every other call's is 1 ms
FAST_BLOCK_CALLS = {"cudaLaunchKernel", "cudaLaunchKernelExC", "cuLaunchKernel", "cudaGraphLaunch",
                    "hipLaunchKernel", "hipGraphLaunch", "hipModuleLaunchKernel", "cudaMemcpyAsync",
                    "cudaMemsetAsync", "hipMemcpyAsync", "hipMemsetAsync", "hipMemcpyWithStream"}
BLOCK_WAKE_NS = 30 * US        # sync.block_wake_tolerance_ns
SLOW_LAUNCH_NS = 1000 * US     # idle.slow_launch_ns
DISPATCH_MAX_NS = 20 * US      # idle.dispatch_max_ns
INFERRED_LAG_NS = 5 * US       # depgraph.inferred_lag_ns
WALK_DEPTH = 8


def idle_cause_truth(R):
    """The idle causes (docs/report-contract.md "Idle causes") of the whole trace and of each
    stream alone, from what the generator did: every op's launch call, the calls that blocked
    its thread, the op each stream wait made it wait for or the wait's event recorded by work
    outside the trace (known here, not read from cuda_sync events or runtime calls).  The
    contract's own hypotheses are applied where the trace gives the library nothing else: an
    inferred edge where a queued op starts at most depgraph.inferred_lag_ns after an op of
    another stream ended and its real dependencies were done before that."""
    ops = R.oplog
    blocking = contract_blocking(R)
    blk = {}
    for c in R.rtlog:
        if c in blocking:
            blk.setdefault(c[4], []).append((c[0], c[1], c[2]))
    blk = {th: sorted(v) for th, v in blk.items()}
    launch_blocks = {c[3] for c in blocking}
    by_stream = {}
    for o in sorted(ops, key=lambda o: (o["stream"], o["s"], o["e"])):
        by_stream.setdefault(o["stream"], []).append(o)
    for v in by_stream.values():
        for i, o in enumerate(v):
            o["idx"] = i
            o["prev"] = v[i - 1] if i else None
    by_end = sorted(ops, key=lambda o: o["e"])
    ends = [o["e"] for o in by_end]

    def ready(K):
        """When K's last real dependency was done, and which: (r, awaited op or None)."""
        r, last = K["le"], None
        if K["prev"] is not None and K["prev"]["e"] > r:
            r = K["prev"]["e"]
        A = K["wait"]
        if A is not None and A["e"] <= K["s"] and A["e"] >= r:
            r, last = A["e"], A
        return r, last

    def inferred(K):
        """The contract's inferred edge: K queued, its dependencies done more than the lag
        before it started, an op of another stream ending within the lag before it."""
        if "inf" in K:
            return K["inf"]
        K["inf"] = None
        r, _ = ready(K)
        if K["le"] < K["s"] and K["s"] - r > INFERRED_LAG_NS:
            j = bisect.bisect_right(ends, K["s"]) - 1
            while j >= 0 and ends[j] >= K["s"] - INFERRED_LAG_NS:
                if by_end[j]["stream"] != K["stream"]:
                    K["inf"] = by_end[j]
                    break
                j -= 1
        return K["inf"]

    def window(sel):
        out = dict.fromkeys(IDLE_CAUSES, 0)
        sub = {"outside_trace": 0, "inferred": 0}

        def host(o, a, b):
            """Rules 1-2: o's launch call over [a, b); returns when o was on its stream."""
            pre, pos = min(o["ls"], b), a
            if pre > a:
                for s, e, _ in blk.get(o["th"], ()):
                    s2, e2 = max(s, pos), min(e, pre)
                    if e2 > s2:
                        out["host_not_launched"] += s2 - pos
                        out["host_blocked"] += e2 - s2
                        pos = e2
                out["host_not_launched"] += pre - pos
                pos = pre
            ie = min(o["le"], b)
            if ie > pos:
                slow = o["le"] - o["ls"] >= SLOW_LAUNCH_NS or o["corr"] in launch_blocks
                out["host_blocked" if slow else "host_not_launched"] += ie - pos
                pos = ie
            return pos

        def walk(K, a, b, depth):
            """Rules 1-4 for the idle [a, b) before K started."""
            pos = host(K, a, b)
            if pos >= b:
                return
            A, soft = K["wait"], False
            if A is not None and A["e"] > K["s"]:
                A = None
            inf = inferred(K)
            if inf is not None and (A is None or inf["e"] > A["e"]):
                A, soft = inf, True
            # the op before K on its stream is a dependency too: still running here only when the
            # walk came to K from another stream's op (ties go to the awaited op)
            p = K["prev"]
            if p is not None and p["e"] <= K["s"] and p["e"] > pos and (A is None or p["e"] > A["e"]):
                A, soft = p, False
            if A is not None and A["e"] > pos:
                e = min(A["e"], b)
                qa = pos
                if A["s"] > pos and depth < WALK_DEPTH:
                    qa = min(A["s"], e)
                    walk(A, pos, qa, depth + 1)
                out["rank_wait" if A["comm"] else "stream_wait"] += e - qa
                if soft:
                    sub["inferred"] += e - qa
                pos = e
            if pos >= b:
                return
            r, last = ready(K)
            if inf is not None and inf["e"] >= r:
                r, last = inf["e"], inf
            if b - max(pos, r) <= DISPATCH_MAX_NS:
                if last is not None:
                    out["stream_wait"] += b - pos
                    if last is inf:
                        sub["inferred"] += b - pos
                else:
                    out["dispatch"] += b - pos
            elif K.get("outside"):
                out["stream_wait"] += b - pos
                sub["outside_trace"] += b - pos
            elif K["comm"]:
                out["rank_wait"] += b - pos
            else:
                out["unknown"] += b - pos

        live = [o for o in sel if o["e"] > o["s"]]
        busy = merge_intervals([(o["s"], o["e"]) for o in live])
        starts = {}
        for o in live:
            starts.setdefault(o["s"], []).append(o)
        idle = 0
        for k in range(len(busy) - 1):
            g0, g1 = busy[k][1], busy[k + 1][0]
            idle += g1 - g0
            K = None
            for o in sorted(starts[g1], key=lambda o: (o["stream"], o["idx"])):
                if K is None or o["ls"] < K["ls"]:
                    K = o
            walk(K, g0, g1, 0)
        assert sum(out.values()) == idle
        res = {"idle_ns": idle}
        res.update({c + "_ns": out[c] for c in IDLE_CAUSES})
        res.update({c + "_ns": sub[c] for c in sub})
        return res

    return {"all": window(ops),
            "streams": {"%d:%d" % (R.device, st): window(v) for st, v in sorted(by_stream.items())}}


def contract_blocking(R):
    """The runtime calls of the trace that held their thread until GPU work ended, as the contract
    ("Blocking calls") counts them: by name, or by behaviour: longer than their class's threshold and
    ending with an op they waited for: their own copy or memset, else (their own kernel last) the
    last op queued on their stream or the latest-ending op queued on their device while the device
    was busy for at least 9/10 of the wait.  The generator knows which calls it made block; this is
    the contract's reading of them: a call that waited for other work on an idle GPU does not count,
    a copy call that returned with its copy does, however long the copy sat queued behind a stream
    held by an event outside the trace."""
    ops = R.oplog
    busy = merge_intervals([(o["s"], o["e"]) for o in ops if o["e"] > o["s"]])

    def busy_in(a, b):
        return sum(max(0, min(e, b) - max(s, a)) for s, e in busy if e > a and s < b)

    own = {}
    for o in ops:
        own.setdefault(o["corr"], []).append(o)
    out = set()
    for c in R.rtlog:
        s, e, name, corr, th = c
        if name in BLOCKING_CALLS:
            out.add(c)
            continue
        thr = 50 * US if name in FAST_BLOCK_CALLS else 1000 * US
        if e - s <= thr:
            continue
        mine = own.get(corr, [])
        mo = max(mine, key=lambda o: o["e"]) if mine else None
        if mo is not None:
            stream = mo["stream"]
        else:
            mine_th = [o for o in ops if o["th"] == th and o["ls"] < s]
            stream = max(mine_th, key=lambda o: o["ls"])["stream"] if mine_th else None
        queued = [o for o in ops if o["ls"] < s]
        cands = [mo] if mo is not None and not mo["kernel"] else []
        if stream is not None:
            on = [o for o in queued if o["stream"] == stream]
            cands.append(max(on, key=lambda o: (o["ls"], o["s"])) if on else None)
            cands.append(max(queued, key=lambda o: o["e"]) if queued else None)
        if mo is not None and mo["kernel"]:
            cands.append(mo)
        for o in cands:
            if o is None or abs(o["e"] - e) > BLOCK_WAKE_NS or o["e"] - s < thr or o["s"] >= e:
                continue
            if o is mo and not mo["kernel"]:
                # its own copy, returned with: waited for, however idle the device meanwhile
                out.add(c)
                break
            hi = min(o["e"], e)
            b = busy_in(s, hi)
            if b >= thr and 10 * b >= 9 * (hi - s):
                out.add(c)
                break
    return out


def no_step_truth(R, sc):
    """A trace without ProfilerStep: the iterations the library infers (or
    none), and per iteration the main thread's time in named blocking calls
    (synchronize, cudaFree) and its device malloc / free calls, each call
    counted in the iteration its start lies in."""
    its = R.iters
    if sc["no_step"] == "dataloader":
        # each DataLoader __next__ starts an iteration lasting until the next one
        d = R.dl_starts
        its = [(d[i], d[i + 1] if i + 1 < len(d) else R.last_cpu_main) for i in range(len(d))]
    rows = []
    for i, (s, e) in enumerate(its):
        blocked = sum(b - a for a, b in R.block_log if s <= a < e)
        rows.append({"start_ns": R.E(s), "dur_ns": e - s, "blocked_ns": blocked,
                     "malloc_calls": sum(1 for a, w in R.alloc_log if w == "malloc" and s <= a < e),
                     "free_calls": sum(1 for a, w in R.alloc_log if w == "free" and s <= a < e)})
    return {"iterations_from": {"optimizer": "optimizer_step", "dataloader": "dataloader"}.get(sc["no_step"], "none"),
            "iterations": rows,
            "blocked_ns": sum(b - a for a, b in R.block_log),
            "malloc_calls": sum(1 for _, w in R.alloc_log if w == "malloc"),
            "free_calls": sum(1 for _, w in R.alloc_log if w == "free")}


def build_truth(R, wl, scenario, sc, opts, nsteps):
    span = (R.last_gpu - R.first_gpu) if R.last_gpu > R.first_gpu else 0
    busy = R.u_all.total
    streams = []
    for s in sorted(R.stream_last):
        has = R.stream_has.get(s, set())
        kinds = has - {"memory"}
        if kinds == {"comm"}:
            role = "communication"
        elif kinds == {"compute"}:
            role = "compute"
        elif kinds:
            role = "mixed"
        else:
            role = "memory"
        streams.append({"device": R.device, "stream": s, "kernels": R.stream_kernels.get(s, 0),
                        "busy_ns": R.u_stream[s].total, "role": role})
    comm = R.u_comm.total
    comp = R.u_comp.total
    if comm > 0:
        overlap = {"comm_ns": comm, "compute_ns": comp, "overlap_ns": R.overlap_ns,
                   "exposed_comm_ns": comm - R.overlap_ns, "overlap_pct": 100.0 * R.overlap_ns / comm}
    else:
        overlap = {"comm_ns": None, "compute_ns": comp, "overlap_ns": None, "exposed_comm_ns": None,
                   "overlap_pct": None}
    warm = 1
    if sc.get("lazy_optimizer"):
        warm = 2
    steady = sum(R.malloc_by_step[warm:])
    legacy = R.legacy
    truth = {
        "scenario": scenario,
        "description": sc["desc"],
        "rank": R.rank,
        "world_size": R.world,
        "base_time_ns": BASE_NS if opts["format"] == "new" else 0,
        "clock_offset_ns": R.off,
        "steps": R.steps,
        "events_by_cat": dict(sorted(R.cats.items())),
        "gpu": {"span_ns": span, "busy_ns": busy, "density": (busy / span) if span else None,
                "streams": streams},
        "overlap": overlap,
        "fsdp": wl.truth_fsdp(),
        "sync": {k: {"count": v[0], "total_ns": v[1], "max_ns": v[2]} for k, v in sorted(R.sync.items())},
        "blocking": R.blocking,
        "allocator": {"malloc_calls": R.malloc_calls, "free_calls": R.free_calls,
                      "steady_state_malloc_calls": steady, "warmup_steps": warm,
                      "malloc_calls_by_step": R.malloc_by_step,
                      # no device [memory] event (a device not analyzed): no peaks
                      "peak_allocated_bytes": None if legacy or not R.peak_res else R.peak_alloc,
                      "peak_reserved_bytes": None if legacy or not R.peak_res else R.peak_res,
                      "backend": ({"vmm": "expandable_segments", "async": "cudaMallocAsync"}.get(R.backend, "native")
                                  if R.malloc_calls + R.free_calls else None),
                      "vmm": dict(R.vmm), "async_pool": dict(R.async_pool), "pinned_host": dict(R.pinned)},
        "other_devices": ([{"device_type": "mtia", "events": sum(len(v) for v in R.xdev_iv.values()),
                            "runtime_events": R.xdev_rt, "streams": len(R.xdev_iv),
                            "busy_ns": union_len([x for v in R.xdev_iv.values() for x in v])}]
                          if R.xdev_rt else []),
        "launch": {"host_wait_ns": R.host_wait, "kernel_wait_ns": R.kernel_wait, "other_ns": R.other_wait},
        "expected_findings": list(sc["expected"]),
        "absent_findings": list(sc["absent"]),
        "straggler": None,
        "idle_causes": idle_cause_truth(R) if R.oplog is not None else None,
    }
    if sc.get("no_step"):
        truth["no_step"] = no_step_truth(R, sc)
    if sc["kind"] == "ep":
        truth["ep"] = wl.truth_ep()
    if sc["kind"] == "first_use":
        truth["first_use"] = wl.truth_first_use()
    if sc["kind"] == "job":
        truth["job"] = wl.truth_job()
    if sc["kind"] == "gap":
        truth[sc["gap"]] = wl.truth_gap()
        truth["step_ranges"] = R.step_log
    if sc.get("verdict"):
        truth["verdict"] = sc["verdict"]
    if sc.get("straggler_delay"):
        truth["straggler"] = {"rank": opts["straggler_rank"], "delay_ns": sc["straggler_delay"]}
    return truth


WAIT_FORMS = ("cuda_sync", "unresolved", "mixed", "rocm")
# the runtime calls the stream_wait scenario makes, as ROCm names them (--wait-form rocm)
HIP_NAMES = {"cudaLaunchKernel": "hipLaunchKernel", "cudaMemcpyAsync": "hipMemcpyAsync",
             "cudaEventRecord": "hipEventRecord", "cudaStreamWaitEvent": "hipStreamWaitEvent",
             "cudaEventSynchronize": "hipEventSynchronize", "cudaStreamSynchronize": "hipStreamSynchronize",
             "cudaDeviceSynchronize": "hipDeviceSynchronize", "cudaEventDestroy": "hipEventDestroy",
             "cudaStreamGetCaptureInfo": "hipStreamGetCaptureInfo"}


def generate(scenario, path, ranks=None, steps=4, layers=8, seed=1, target_bytes=None, format="new",
             nccl_names="new", gz_level=6, straggler_rank=None, wait_form="cuda_sync", switch_off=False,
             what_if=True):
    """Write trace(s) + truth file(s).  Returns the truth dict (one rank) or
    a list of truth dicts (several ranks).  switch_off: the scenario's problem removed (same seed);
    what_if: a scenario that can switch its problem off also simulates that trace and writes the
    step times of both and their difference (truth `what_if`)."""
    if scenario not in SCENARIOS:
        raise ValueError("unknown scenario %r (known: %s)" % (scenario, ", ".join(SCENARIOS)))
    if format not in ("new", "old", "legacy19"):
        raise ValueError("format must be new, old or legacy19")
    sc = SCENARIOS[scenario]
    if wait_form not in WAIT_FORMS:
        raise ValueError("wait_form must be one of " + ", ".join(WAIT_FORMS))
    if wait_form != "cuda_sync" and not sc.get("stream_wait") and wait_form not in sc.get("wait_forms", ()):
        raise ValueError("wait_form %s is not for scenario %s" % (wait_form, scenario))
    if switch_off and not sc.get("switch"):
        raise ValueError("scenario %s has no problem to switch off" % scenario)
    if sc.get("skew") and target_bytes:
        raise ValueError("rank_skew is made of --steps, not --target-bytes")
    if ranks is None:
        ranks = sc.get("ranks", 1)
    ranks = int(ranks)
    if layers < 2:
        raise ValueError("layers must be >= 2")
    world = ranks if ranks > 1 else (8 if sc["kind"] == "fsdp" else sc.get("world", 1))
    distributed = (sc["kind"] == "fsdp" or world > 1) and format != "legacy19"
    if straggler_rank is None:
        straggler_rank = min(2, ranks - 1) if ranks > 1 else 0
    q = 1 if format == "new" else 1000
    t0 = (BASE_NS + T0_REL_NS) // q * q if format == "new" else (1717559238502437 * 1000)
    offsets = [0] * ranks
    if ranks > 1:
        for r in range(ranks):
            offsets[r] = (r * 1234567891 + (r * r) * 7654321) // q * q
    opts = dict(seed=seed, layers=layers, format=format, nccl_names=nccl_names, gz_level=gz_level,
                clock_offsets=offsets, t0=t0, distributed=distributed, straggler_rank=straggler_rank,
                wait_form=wait_form, switch_off=switch_off)
    truths = [None] * ranks
    nsteps = steps
    if sc.get("one_pass"):  # a first pass has no steps to repeat
        nsteps, target_bytes = 1, None
    # The straggler (the last rank to arrive at every collective) is simulated
    # first; the other ranks' collective kernels then last until it arrived.
    order = list(range(ranks))
    if sc.get("straggler_delay") and ranks > 1:
        order.remove(straggler_rank)
        order.insert(0, straggler_rank)
    first = True
    if sc.get("skew"):
        truths = _generate_skewed(scenario, sc, path, opts, ranks, world, nsteps)
    else:
        for r in order:
            p = rank_path(path, r, ranks)
            tgt = target_bytes if first else None
            tr, k, starts = _generate_rank(scenario, sc, p, opts, r, world, nsteps, tgt)
            if first:
                nsteps = k
                if sc.get("straggler_delay") and ranks > 1:
                    opts["peer_starts"] = starts
                first = False
            truths[r] = tr
    if sc.get("switch") and what_if:
        _what_if(scenario, sc, path, truths, dict(ranks=ranks, steps=nsteps, layers=layers, seed=seed,
                                                  format=format, nccl_names=nccl_names, gz_level=gz_level,
                                                  wait_form=wait_form), switch_off)
    return truths[0] if ranks == 1 else truths


def _write_truths(path, truths):
    for r, t in enumerate(truths):
        with open(truth_path(rank_path(path, r, len(truths))), "w") as fh:
            json.dump(t, fh, indent=1, sort_keys=False)
            fh.write("\n")


def _generate_skewed(scenario, sc, path, opts, ranks, world, nsteps):
    """Ranks whose collectives wait for each other: every collective ends at the last rank's
    arrival (true time) plus its transfer.  A rank's arrival depends on the earlier collectives'
    ends, so the ranks are simulated again with the arrivals of the previous pass until no arrival
    moves (at most one pass per collective).  Returns the truths, each with the job's collective
    table (per collective: every rank's kernel, its wait and transfer parts, the late rank)."""
    align = None
    for _ in range(1000):
        truths, starts = [], []
        for r in range(ranks):
            tr, _, st = _generate_rank(scenario, sc, rank_path(path, r, ranks), opts, r, world, nsteps, None)
            truths.append(tr)
            starts.append(st)
        new = {}
        for st in starts:
            for seq, t in st.items():
                new[seq] = max(new.get(seq, t), t)
        if new == align:
            break
        align = new
        opts["peer_starts"] = align
    else:
        raise RuntimeError("rank_skew: the ranks' arrivals do not settle")
    table = []
    per_rank = [t[sc["gap"]]["collectives"] for t in truths]
    for i, c in enumerate(per_rank[0]):
        arr = [pr[i]["arrival"] for pr in per_rank]
        last = max(arr)
        late = arr.index(last)
        table.append({"seq": c["seq"], "collective": c["collective"], "in_msg_nelems": c["in_msg_nelems"],
                      "transfer_ns": c["transfer_ns"], "late_rank": late if last > min(arr) else None,
                      "spread_ns": last - min(arr),
                      "ranks": [{"rank": r, "start_ns": arr[r] + opts["clock_offsets"][r],
                                 "dur_ns": last - arr[r] + c["transfer_ns"], "wait_ns": last - arr[r]}
                                for r in range(ranks)]})
    for t in truths:
        t[sc["gap"]]["collectives"] = table
    _write_truths(path, truths)
    return truths


def _what_if(scenario, sc, path, truths, kw, switched_off):
    """The same trace with the problem switched off (same seed, --switch-off), simulated beside the
    first: its step times and the saving, step by step, into each rank's truth `what_if`."""
    with tempfile.TemporaryDirectory() as d:
        other = generate(scenario, os.path.join(d, os.path.basename(path)), switch_off=not switched_off,
                         what_if=False, **kw)
    other = other if isinstance(other, list) else [other]
    for t, o in zip(truths, other):
        on, off = (o, t) if switched_off else (t, o)
        a = [x["dur_ns"] for x in on["step_ranges"]]
        b = [x["dur_ns"] for x in off["step_ranges"]]
        t["what_if"] = {"switch": sc["switch"], "switched_off": bool(switched_off), "steps_ns": a,
                        "steps_off_ns": b, "saving_by_step_ns": [x - y for x, y in zip(a, b)],
                        "saving_ns": sum(a) - sum(b)}
    _write_truths(path, truths)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog="scenarios:\n" + "\n".join("  %-24s %s" % (k, v["desc"])
                                                                   for k, v in SCENARIOS.items()))
    ap.add_argument("scenario", choices=sorted(SCENARIOS))
    ap.add_argument("-o", "--output", required=True, help="OUT.json or OUT.json.gz")
    ap.add_argument("--ranks", type=int, default=None)
    ap.add_argument("--steps", type=int, default=4)
    ap.add_argument("--layers", type=int, default=8)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--target-bytes", type=lambda s: int(float(s)), default=None)
    ap.add_argument("--format", choices=["new", "old", "legacy19"], default="new")
    ap.add_argument("--nccl-names", choices=["new", "old"], default="new")
    ap.add_argument("--gz-level", type=int, default=6)
    ap.add_argument("--straggler-rank", type=int, default=None)
    ap.add_argument("--wait-form", choices=WAIT_FORMS, default="cuda_sync",
                    help="stream_wait, external_wait: how the stream waits are written (see README)")
    ap.add_argument("--switch-off", action="store_true",
                    help="the scenario's problem removed, same seed (scenarios with a `switch`, see README)")
    a = ap.parse_args(argv)
    t = time.time()
    res = generate(a.scenario, a.output, ranks=a.ranks, steps=a.steps, layers=a.layers, seed=a.seed,
                   target_bytes=a.target_bytes, format=a.format, nccl_names=a.nccl_names, gz_level=a.gz_level,
                   straggler_rank=a.straggler_rank, wait_form=a.wait_form, switch_off=a.switch_off)
    dt = time.time() - t
    res = res if isinstance(res, list) else [res]
    total_u = sum(r["generator"]["bytes_uncompressed"] for r in res)
    total_f = sum(r["generator"]["bytes_file"] for r in res)
    sys.stderr.write("tracegen: %s: %d file(s), %d steps, %.1f MB written (%.1f MB JSON) in %.2fs = %.1f MB/s JSON\n"
                     % (a.scenario, len(res), len(res[0]["steps"]), total_f / 1e6, total_u / 1e6, dt,
                        total_u / 1e6 / max(dt, 1e-9)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
