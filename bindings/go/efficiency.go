package fsdpa

// Devices (deviceProperties) and what the busy time went to: the kernel
// table, the op table with FLOPs and achieved rates, MFU per window and
// step, and the peak table (the efficiency group of fsdpa.h).  The tables
// and MFU are experimental in the C API (their peak table and op models may
// grow), so this file defines FSDPA_EXPERIMENTAL before including the header.

/*
#define FSDPA_EXPERIMENTAL 1
#include <stdlib.h>
#include <fsdpa/fsdpa.h>
*/
import "C"

import (
	"runtime"
	"unsafe"
)

// Device is fsdpa_device_info: a GPU as the trace's deviceProperties
// describe it.  Nil: absent.
type Device struct {
	Device           int64
	Name             string // at most 63 bytes
	SMs              *int64 // numSms (compute units on ROCm)
	ComputeMajor     *int64
	ComputeMinor     *int64
	TotalMemoryBytes *int64
}

// Devices returns the devices described so far, by device (fsdpa_device_list).
func (a *Analyzer) Devices() ([]Device, error) {
	return ctxList(a, C.FSDPA_LIST_DEVICES, func(p *C.fsdpa_ctx, l **C.fsdpa_list) C.fsdpa_status {
		return C.fsdpa_device_list(p, l)
	}, func(d *C.fsdpa_device_info) Device {
		return Device{Device: int64(d.device), Name: C.GoString(&d.name[0]), SMs: optInt(d.sms),
			ComputeMajor: optInt(d.compute_major), ComputeMinor: optInt(d.compute_minor),
			TotalMemoryBytes: optInt(d.total_memory_bytes)}
	})
}

// SetDevice describes a device, as a deviceProperties entry does (for
// structured events); it replaces an earlier description of the same
// device (fsdpa_device_info_set).
func (a *Analyzer) SetDevice(d Device) error {
	p, err := a.ctx()
	if err != nil {
		return err
	}
	defer runtime.KeepAlive(a)
	var i C.fsdpa_device_info
	C.fsdpa_device_info_init(&i)
	i.device = C.int64_t(d.Device)
	for k := 0; k < len(d.Name) && k < len(i.name)-1; k++ {
		i.name[k] = C.char(d.Name[k])
	}
	i.sms, i.compute_major, i.compute_minor = cInt(d.SMs), cInt(d.ComputeMajor), cInt(d.ComputeMinor)
	i.total_memory_bytes = cInt(d.TotalMemoryBytes)
	return ctxError(C.fsdpa_device_info_set(p, &i), p, false)
}

// KernelStat is fsdpa_kernel_stat: one row of the kernel table.
type KernelStat struct {
	Name        *string // nil for the folded row
	ShortName   string  // "(other)" for the folded row
	KernelClass *string // "compute", "communication", "memcpy", "memset"; nil for the folded row
	Family      *string // communication: its comm_families family
	Count       uint64
	Names       uint64 // names in the row (the folded row's count)
	TotalNs     int64
	MeanNs      int64
	P50Ns       *int64 // nil for the folded row
	MinNs       int64
	MaxNs       int64
	Share       *float64 // total / busy of the selection
}

// Kernels returns the kernel table of the query's window and streams
// (fsdpa_kernel_list); fsdpUnit >= 0 selects that entry of FSDPUnits (a
// unit in one phase), maxRows > 0 folds the rows past it into one.
func (a *Analyzer) Kernels(q Query, fsdpUnit int64, maxRows uint64) ([]KernelStat, error) {
	var sel C.fsdpa_kernel_select
	C.fsdpa_kernel_select_init(&sel)
	sel.fsdp_unit = C.int64_t(fsdpUnit)
	sel.max_rows = C.uint64_t(maxRows)
	cq := q.c()
	return ctxList(a, C.FSDPA_LIST_KERNELS, func(p *C.fsdpa_ctx, l **C.fsdpa_list) C.fsdpa_status {
		return C.fsdpa_kernel_list(p, cq, &sel, l)
	}, func(k *C.fsdpa_kernel_stat) KernelStat {
		return KernelStat{Name: optStr(k.name), ShortName: C.GoString(k.short_name), KernelClass: optStr(k.kernel_class),
			Family: optStr(k.family), Count: uint64(k.count), Names: uint64(k.names), TotalNs: int64(k.total_ns),
			MeanNs: int64(k.mean_ns), P50Ns: optInt(k.p50_ns), MinNs: int64(k.min_ns), MaxNs: int64(k.max_ns),
			Share: optRatio(k.share)}
	})
}

// OpStat is fsdpa_op_stat: one row of the op table.
type OpStat struct {
	Name           *string // the CPU op; nil for unattributed GPU ops and the folded row
	GPUOp          *string // unattributed rows: the GPU op name
	Category       *string // "gemm", "attention", ...; nil for the folded row
	InputDims      *string // JSON text
	InputTypes     *string
	ConcreteInputs *string
	Model          *string // the FLOPs model applied
	Dtype          *string // compute dtype
	Count          uint64
	GPUOps         uint64
	Names          uint64
	KernelNs       int64
	Flops          *int64 // per call (the folded row: Σ over its calls)
	Bytes          *int64 // per call
	TflopsPerS     *float64
	TbPerS         *float64
	PeakShare      *float64
}

// Ops returns the op table of the query's window and streams (fsdpa_op_list).
func (a *Analyzer) Ops(q Query, maxRows uint64) ([]OpStat, error) {
	cq := q.c()
	return ctxList(a, C.FSDPA_LIST_OPS, func(p *C.fsdpa_ctx, l **C.fsdpa_list) C.fsdpa_status {
		return C.fsdpa_op_list(p, cq, C.uint64_t(maxRows), l)
	}, func(o *C.fsdpa_op_stat) OpStat {
		return OpStat{Name: optStr(o.name), GPUOp: optStr(o.gpu_op), Category: optStr(o.category),
			InputDims: optStr(o.input_dims), InputTypes: optStr(o.input_types), ConcreteInputs: optStr(o.concrete_inputs),
			Model: optStr(o.model), Dtype: optStr(o.dtype), Count: uint64(o.count), GPUOps: uint64(o.gpu_ops),
			Names: uint64(o.names), KernelNs: int64(o.kernel_ns), Flops: optInt(o.flops), Bytes: optInt(o.bytes),
			TflopsPerS: optRatio(o.tflops_per_s), TbPerS: optRatio(o.tb_per_s), PeakShare: optRatio(o.peak_share)}
	})
}

// Efficiency is fsdpa_efficiency: the busy-time efficiency of a window or step.
type Efficiency struct {
	Step                                       *int64
	WindowNs                                   *int64
	KernelNs, ModelledNs                       int64
	ModelledShare                              *float64
	GemmNs, AttentionNs, ConvNs, ElementwiseNs int64
	ReductionNs, NormalizationNs, CopyNs       int64
	CommunicationNs, OtherNs                   int64
	Flops                                      int64
	MFU                                        *float64 // a lower bound; nil without a peak
	Device                                     *int64
}

func efficiencyOf(e *C.fsdpa_efficiency) Efficiency {
	return Efficiency{Step: optInt(e.step), WindowNs: optInt(e.window_ns), KernelNs: int64(e.kernel_ns),
		ModelledNs: int64(e.modelled_ns), ModelledShare: optRatio(e.modelled_share), GemmNs: int64(e.gemm_ns),
		AttentionNs: int64(e.attention_ns), ConvNs: int64(e.conv_ns), ElementwiseNs: int64(e.elementwise_ns),
		ReductionNs: int64(e.reduction_ns), NormalizationNs: int64(e.normalization_ns), CopyNs: int64(e.copy_ns),
		CommunicationNs: int64(e.communication_ns), OtherNs: int64(e.other_ns), Flops: int64(e.flops),
		MFU: optRatio(e.mfu), Device: optInt(e.device)}
}

// Efficiency returns the busy-time efficiency and MFU of the query's window
// (fsdpa_efficiency_query).
func (a *Analyzer) Efficiency(q Query) (Efficiency, error) {
	p, err := a.ctx()
	if err != nil {
		return Efficiency{}, err
	}
	defer runtime.KeepAlive(a)
	e := (*C.fsdpa_efficiency)(C.calloc(1, C.size_t(unsafe.Sizeof(C.fsdpa_efficiency{}))))
	defer C.free(unsafe.Pointer(e))
	e.size = C.size_t(unsafe.Sizeof(C.fsdpa_efficiency{}))
	if err := ctxError(C.fsdpa_efficiency_query(p, q.c(), e), p, false); err != nil {
		return Efficiency{}, err
	}
	return efficiencyOf(e), nil
}

// EfficiencySteps returns the efficiency of each ProfilerStep
// (fsdpa_efficiency_step_list).
func (a *Analyzer) EfficiencySteps(q Query) ([]Efficiency, error) {
	cq := q.c()
	return ctxList(a, C.FSDPA_LIST_EFFICIENCY_STEPS, func(p *C.fsdpa_ctx, l **C.fsdpa_list) C.fsdpa_status {
		return C.fsdpa_efficiency_step_list(p, cq, l)
	}, efficiencyOf)
}

// DevicePeak is fsdpa_device_peak: a device's dense peaks (TFLOP/s, TB/s);
// nil where the device has none or is unknown.
type DevicePeak struct {
	Device                                       *int64
	Model                                        string // "" if unknown
	FP64, FP32, TF32, FP16, BF16, FP8, HBMTbPerS *float64
}

// DevicePeak returns the peak-table row of device (nil: the rank's device)
// (fsdpa_device_peak_get).
func (a *Analyzer) DevicePeak(device *int64) (DevicePeak, error) {
	p, err := a.ctx()
	if err != nil {
		return DevicePeak{}, err
	}
	defer runtime.KeepAlive(a)
	var d C.fsdpa_device_peak
	d.size = C.size_t(unsafe.Sizeof(d))
	if err := ctxError(C.fsdpa_device_peak_get(p, cInt(device), &d), p, false); err != nil {
		return DevicePeak{}, err
	}
	return DevicePeak{Device: optInt(d.device), Model: C.GoString(&d.model[0]), FP64: optRatio(d.fp64_tflops),
		FP32: optRatio(d.fp32_tflops), TF32: optRatio(d.tf32_tflops), FP16: optRatio(d.fp16_tflops),
		BF16: optRatio(d.bf16_tflops), FP8: optRatio(d.fp8_tflops), HBMTbPerS: optRatio(d.hbm_tb_per_s)}, nil
}
