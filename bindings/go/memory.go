package fsdpa

/*
#include <fsdpa/fsdpa.h>
*/
import "C"

import (
	"runtime"
	"unsafe"
)

// Device memory and the caching allocator (the allocator group of fsdpa.h:
// allocator calls, warm-up, device memory levels, fragmentation).

// MemorySummary is fsdpa_memory_summary: allocator activity and memory
// levels over a window.  The level fields describe Device (Query.Device,
// else the primary device).
type MemorySummary struct {
	MallocCalls                  uint64 // malloc calls starting in the window
	FreeCalls                    uint64
	MallocNs                     int64 // Σ CPU time of those malloc calls
	FreeNs                       int64
	MallocBytes                  *int64 // Σ bytes of malloc calls that carry it; nil if none does
	WarmupSteps                  int64  // warm-up steps (whole trace)
	SteadySteps                  uint64 // steps after warm-up whose start lies in the window
	SteadyStateMallocCalls       uint64
	SteadyStateFreeCalls         uint64
	GPUIdleNs                    int64  // GPU idle of the window's malloc and free calls
	Device                       *int64 // Device Id the level fields describe; nil without device memory events
	MemoryEvents                 uint64 // that device's memory events in the window
	OOMEvents                    uint64 // [OutOfMemory] events in the window, all non-CPU devices
	AllocatedIsRelative          bool   // allocated levels are growth since the device's first event
	StartAllocatedBytes          *int64
	EndAllocatedBytes            *int64
	MinAllocatedBytes            *int64
	PeakAllocatedBytes           *int64 // without Query.Device: max over all non-relative devices
	PeakAllocatedDeltaBytes      *int64 // relative device only
	PeakReservedBytes            *int64 // without Query.Device: max over all devices
	AllocatedAtPeakReservedBytes *int64
	Fragmentation                *float64 // 1 - A/R of the device (0..1); nil if unknown
	MeanUnallocatedShare         *float64 // time-weighted (reserved - allocated) / reserved; nil if unknown
}

// Memory returns the allocator summary of the window (Query.Stream is
// ignored) (fsdpa_memory_query).
func (a *Analyzer) Memory(q Query) (MemorySummary, error) { return a.memory(q.c()) }

// memory is Memory for a C query (nil: a NULL query).
func (a *Analyzer) memory(cq *C.fsdpa_query) (MemorySummary, error) {
	p, err := a.ctx()
	if err != nil {
		return MemorySummary{}, err
	}
	defer runtime.KeepAlive(a) // the finalizer must not free the context during the call
	var m C.fsdpa_memory_summary
	m.size = C.size_t(unsafe.Sizeof(m))
	if err := ctxError(C.fsdpa_memory_query(p, cq, &m), p, false); err != nil {
		return MemorySummary{}, err
	}
	return MemorySummary{MallocCalls: uint64(m.malloc_calls), FreeCalls: uint64(m.free_calls),
		MallocNs: int64(m.malloc_ns), FreeNs: int64(m.free_ns), MallocBytes: optInt(m.malloc_bytes),
		WarmupSteps: int64(m.warmup_steps), SteadySteps: uint64(m.steady_steps),
		SteadyStateMallocCalls: uint64(m.steady_state_malloc_calls),
		SteadyStateFreeCalls:   uint64(m.steady_state_free_calls), GPUIdleNs: int64(m.gpu_idle_ns),
		Device: optInt(m.device), MemoryEvents: uint64(m.memory_events), OOMEvents: uint64(m.oom_events),
		AllocatedIsRelative: m.allocated_is_relative != 0,
		StartAllocatedBytes: optInt(m.start_allocated_bytes), EndAllocatedBytes: optInt(m.end_allocated_bytes),
		MinAllocatedBytes: optInt(m.min_allocated_bytes), PeakAllocatedBytes: optInt(m.peak_allocated_bytes),
		PeakAllocatedDeltaBytes:      optInt(m.peak_allocated_delta_bytes),
		PeakReservedBytes:            optInt(m.peak_reserved_bytes),
		AllocatedAtPeakReservedBytes: optInt(m.allocated_at_peak_reserved_bytes),
		Fragmentation:                optRatio(m.fragmentation),
		MeanUnallocatedShare:         optRatio(m.mean_unallocated_share)}, nil
}

// MemoryDevice is fsdpa_memory_device: the memory levels of one device over
// the window.
type MemoryDevice struct {
	DeviceType                   int64 // c10::DeviceType (1 = CUDA, also on ROCm)
	Device                       int64 // Device Id
	Relative                     bool  // no Total Allocated: levels are growth since the first event
	Primary                      bool
	Events                       uint64 // memory events in the window
	OOMEvents                    uint64
	PeakAllocatedBytes           *int64 // nil if relative or no levels in the window
	PeakAllocatedDeltaBytes      *int64 // relative only
	PeakReservedBytes            *int64 // nil without Total Reserved
	AllocatedAtPeakReservedBytes *int64
	Fragmentation                *float64
	MeanUnallocatedShare         *float64
}

// MemoryDevices returns the devices with memory events, by device type then
// id, with their levels over the window (fsdpa_memory_device_list).
func (a *Analyzer) MemoryDevices(q Query) ([]MemoryDevice, error) {
	return a.memoryDevices(q.c())
}

// memoryDevices is MemoryDevices for a C query (nil: a NULL query).
func (a *Analyzer) memoryDevices(cq *C.fsdpa_query) ([]MemoryDevice, error) {
	return ctxList(a, C.FSDPA_LIST_MEMORY_DEVICES, func(p *C.fsdpa_ctx, l **C.fsdpa_list) C.fsdpa_status {
		return C.fsdpa_memory_device_list(p, cq, l)
	}, func(d *C.fsdpa_memory_device) MemoryDevice {
		return MemoryDevice{DeviceType: int64(d.device_type), Device: int64(d.device),
			Relative: d.relative != 0, Primary: d.primary != 0, Events: uint64(d.events),
			OOMEvents: uint64(d.oom_events), PeakAllocatedBytes: optInt(d.peak_allocated_bytes),
			PeakAllocatedDeltaBytes:      optInt(d.peak_allocated_delta_bytes),
			PeakReservedBytes:            optInt(d.peak_reserved_bytes),
			AllocatedAtPeakReservedBytes: optInt(d.allocated_at_peak_reserved_bytes),
			Fragmentation:                optRatio(d.fragmentation),
			MeanUnallocatedShare:         optRatio(d.mean_unallocated_share)}
	})
}

// MemoryPoint is fsdpa_memory_point: one bucket of a downsampled memory
// timeline.  Min and max include the level in effect when the bucket
// begins, so a bucket's max is the exact peak of its time.
type MemoryPoint struct {
	T0Ns, T1Ns    int64  // absolute bucket [start, end)
	Events        uint64 // memory events in the bucket
	AllocatedMin  *int64 // nil before the device's first event
	AllocatedMax  *int64
	AllocatedLast *int64 // level at the bucket's end
	ReservedMin   *int64 // nil without Total Reserved
	ReservedMax   *int64
	ReservedLast  *int64
}

// MemorySeries returns the allocated/reserved timeline of one device
// (nil = the primary device) cut into at most buckets equal buckets of the
// device's range within the window (Query.Device and Query.Stream are
// ignored); no device or an empty range gives no rows
// (fsdpa_memory_series_list).
func (a *Analyzer) MemorySeries(q Query, device *int64, buckets int) ([]MemoryPoint, error) {
	return a.memorySeries(q.c(), device, buckets)
}

// memorySeries is MemorySeries for a C query (nil: a NULL query).
func (a *Analyzer) memorySeries(cq *C.fsdpa_query, device *int64, buckets int) ([]MemoryPoint, error) {
	if _, err := a.ctx(); err != nil {
		return nil, err
	}
	if buckets < 0 { // 0 goes to the library, which refuses it (FSDPA_EINVAL)
		return nil, newError(StatusInvalid, "buckets must be >= 1")
	}
	return ctxList(a, C.FSDPA_LIST_MEMORY_POINTS, func(p *C.fsdpa_ctx, l **C.fsdpa_list) C.fsdpa_status {
		return C.fsdpa_memory_series_list(p, cq, cInt(device), C.size_t(buckets), l)
	}, func(m *C.fsdpa_memory_point) MemoryPoint {
		return MemoryPoint{T0Ns: int64(m.t0_ns), T1Ns: int64(m.t1_ns), Events: uint64(m.events),
			AllocatedMin: optInt(m.allocated_min), AllocatedMax: optInt(m.allocated_max),
			AllocatedLast: optInt(m.allocated_last), ReservedMin: optInt(m.reserved_min),
			ReservedMax: optInt(m.reserved_max), ReservedLast: optInt(m.reserved_last)}
	})
}

// MemoryStep is fsdpa_memory_step: allocator activity and memory levels of
// one step (levels of Query.Device, else the primary device).
type MemoryStep struct {
	Index               int64 // step index (see Steps)
	Number              int64 // N of ProfilerStep#N
	Warmup              bool
	MallocCalls         uint64
	FreeCalls           uint64
	MallocNs            int64
	FreeNs              int64
	GPUIdleNs           int64
	StartAllocatedBytes *int64 // baseline at the step's start; nil if unknown
	EndAllocatedBytes   *int64
	MinAllocatedBytes   *int64
	PeakAllocatedBytes  *int64
	PeakReservedBytes   *int64 // nil without Total Reserved
	ReturnsToBaseline   *bool  // end - start <= peak/100 (healthy sawtooth); nil if unknown
}

// MemorySteps returns per-step allocator rows for the steps whose start
// lies in the window, in step order (fsdpa_memory_step_list).
func (a *Analyzer) MemorySteps(q Query) ([]MemoryStep, error) {
	return a.memorySteps(q.c())
}

// memorySteps is MemorySteps for a C query (nil: a NULL query).
func (a *Analyzer) memorySteps(cq *C.fsdpa_query) ([]MemoryStep, error) {
	return ctxList(a, C.FSDPA_LIST_MEMORY_STEPS, func(p *C.fsdpa_ctx, l **C.fsdpa_list) C.fsdpa_status {
		return C.fsdpa_memory_step_list(p, cq, l)
	}, func(s *C.fsdpa_memory_step) MemoryStep {
		return MemoryStep{Index: int64(s.index), Number: int64(s.number), Warmup: s.warmup != 0,
			MallocCalls: uint64(s.malloc_calls), FreeCalls: uint64(s.free_calls), MallocNs: int64(s.malloc_ns),
			FreeNs: int64(s.free_ns), GPUIdleNs: int64(s.gpu_idle_ns),
			StartAllocatedBytes: optInt(s.start_allocated_bytes), EndAllocatedBytes: optInt(s.end_allocated_bytes),
			MinAllocatedBytes: optInt(s.min_allocated_bytes), PeakAllocatedBytes: optInt(s.peak_allocated_bytes),
			PeakReservedBytes: optInt(s.peak_reserved_bytes), ReturnsToBaseline: optBool(s.returns_to_baseline)}
	})
}
