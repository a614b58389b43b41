package fsdpa

/*
#include <fsdpa/fsdpa.h>
*/
import "C"

import (
	"runtime"
	"unsafe"
)

// Communication split, FSDP units and the backward schedule (the overlap
// and backward groups of fsdpa.h).

// SplitBy says how CommSplit groups communication kernels.
type SplitBy int

// Values of fsdpa_comm_split_by.
const (
	SplitCollective   SplitBy = 0 // by collective type: AllGather, ReduceScatter, AllReduce, ... in that fixed order
	SplitProcessGroup SplitBy = 1 // by Process Group Name, sorted by name
)

// String is the report's key suffix: "collective" or "process_group".
func (b SplitBy) String() string {
	switch b {
	case SplitCollective:
		return "collective"
	case SplitProcessGroup:
		return "process_group"
	}
	return "unknown"
}

// CommSplit is fsdpa_comm_split: the communication of one collective type
// or one process group in the window.
type CommSplit struct {
	Name      string   // "AllGather", ... or the process group ("" = not in the trace); at most 63 bytes
	Count     uint64   // its comm kernels overlapping the window
	CommNs    int64    // |union of its kernels ∩ window|
	OverlapNs int64    // |that union ∩ all selected compute|
	ExposedNs int64    // CommNs - OverlapNs (splits may overlap each other)
	Bytes     *int64   // Σ algorithm bytes of its kernels that carry sizes; nil if none does
	TimedNs   *int64   // Σ full durations of those kernels; nil if none
	AlgBWGBps *float64 // Bytes / TimedNs in GB/s; nil if absent
	BusBWGBps *float64 // bus bandwidth (nccl-tests factors) in GB/s; nil if absent or the group size is unknown
}

// CommSplit returns the split of the selection's communication by
// collective type or process group (fsdpa_comm_split_list).
func (a *Analyzer) CommSplit(q Query, by SplitBy) ([]CommSplit, error) { return a.commSplit(q.c(), by) }

// commSplit is CommSplit for a C query (nil: a NULL query).
func (a *Analyzer) commSplit(cq *C.fsdpa_query, by SplitBy) ([]CommSplit, error) {
	return ctxList(a, C.FSDPA_LIST_COMM_SPLITS, func(p *C.fsdpa_ctx, l **C.fsdpa_list) C.fsdpa_status {
		return C.fsdpa_comm_split_list(p, cq, C.fsdpa_comm_split_by(by), l)
	}, func(s *C.fsdpa_comm_split) CommSplit {
		return CommSplit{Name: fixedString(s.name[:]), Count: uint64(s.count),
			CommNs: int64(s.comm_ns), OverlapNs: int64(s.overlap_ns), ExposedNs: int64(s.exposed_ns),
			Bytes: optInt(s.bytes), TimedNs: optInt(s.timed_ns), AlgBWGBps: optRatio(s.algbw_gbps),
			BusBWGBps: optRatio(s.busbw_gbps)}
	})
}

// Phase is a pass of a training step.
type Phase int

// Values of fsdpa_fsdp_phase.
const (
	PhaseForward  Phase = 0
	PhaseBackward Phase = 1
)

// String is the phase as the report writes it: "forward" or "backward".
func (p Phase) String() string {
	switch p {
	case PhaseForward:
		return "forward"
	case PhaseBackward:
		return "backward"
	}
	return "unknown"
}

// FSDPUnit is fsdpa_fsdp_unit: one FSDP unit in one phase, summed over its
// instances (one per step in which the unit ran that phase).
type FSDPUnit struct {
	Name              string // FSDP2: module FQN ("(root)" for the root); FSDP1: unit0, unit1, ...
	NameLen           int    // full length of the name (> len(Name) when the C API truncated it to 255 bytes)
	Phase             Phase
	Instances         uint64 // instances counted
	CommNs            int64  // T_comm: Σ |union of the instance's comm kernels|
	ComputeNs         int64  // T_compute: Σ |union of the instance's compute kernels|
	ExposedNs         int64  // T_exposed = max(0, T_comm - T_compute) on the sums
	ExposedSumNs      int64  // Σ over instances of max(0, comm - compute)
	ExposedMeasuredNs int64  // Σ |comm union - every compute kernel of the trace|
	AllGatherNs       int64
	ReduceScatterNs   int64
	CommKernels       uint64
	ComputeKernels    uint64
}

func goFSDPUnit(u *C.fsdpa_fsdp_unit) FSDPUnit {
	return FSDPUnit{Name: fixedString(u.name[:]), NameLen: int(u.name_len), Phase: Phase(u.phase),
		Instances: uint64(u.instances), CommNs: int64(u.comm_ns), ComputeNs: int64(u.compute_ns),
		ExposedNs: int64(u.exposed_ns), ExposedSumNs: int64(u.exposed_sum_ns),
		ExposedMeasuredNs: int64(u.exposed_measured_ns), AllGatherNs: int64(u.allgather_ns),
		ReduceScatterNs: int64(u.reducescatter_ns), CommKernels: uint64(u.comm_kernels),
		ComputeKernels: uint64(u.compute_kernels)}
}

// FSDPUnits returns the (unit, phase) entries with at least one instance,
// summed over the whole trace: each unit's forward entry in the order the
// units are first named, then the backward entries in the same order
// (fsdpa_fsdp_unit_list with a NULL query).
func (a *Analyzer) FSDPUnits() ([]FSDPUnit, error) {
	return a.fsdpUnits(nil)
}

// FSDPUnitsIn returns the same entries summed over the instances that start
// inside the query window (device and stream selection are ignored); an
// entry without an instance there has Instances == 0 and zero times
// (fsdpa_fsdp_unit_list).
func (a *Analyzer) FSDPUnitsIn(q Query) ([]FSDPUnit, error) {
	return a.fsdpUnits(q.c())
}

// fsdpUnits is FSDPUnitsIn for a C query (nil: a NULL query, the whole trace).
func (a *Analyzer) fsdpUnits(cq *C.fsdpa_query) ([]FSDPUnit, error) {
	return ctxList(a, C.FSDPA_LIST_FSDP_UNITS, func(p *C.fsdpa_ctx, l **C.fsdpa_list) C.fsdpa_status {
		return C.fsdpa_fsdp_unit_list(p, cq, l)
	}, goFSDPUnit)
}

// BackwardPattern is the FSDP backward schedule pattern of a step or a trace.
type BackwardPattern int

// Values of fsdpa_backward_pattern.
const (
	BackwardUnknown    BackwardPattern = 0 // not enough units to tell
	BackwardZigzag     BackwardPattern = 1 // every all-gather prefetched under the previous unit's compute
	BackwardNoPrefetch BackwardPattern = 2 // some all-gathers start only after the previous unit finished
	BackwardSerialized BackwardPattern = 3 // no communication runs beside compute at all
)

// String is the library's name of the pattern (fsdpa_backward_pattern_name):
// "unknown", "zigzag", "no_prefetch", "serialized", as the report writes it.
func (b BackwardPattern) String() string {
	return C.GoString(C.fsdpa_backward_pattern_name(C.fsdpa_backward_pattern(b)))
}

// Backward is fsdpa_backward: the backward schedule over the whole trace.
type Backward struct {
	Pattern         BackwardPattern // the pattern most steps show (ties go to the worse)
	Steps           uint64          // steps with at least one backward unit
	Units           uint64          // distinct units seen in backward
	PrefetchedUnits uint64          // units whose prefetch link held wherever it was evaluated
	Links           uint64          // prefetch links evaluated, all steps
	BrokenLinks     uint64
	IdleNs          int64 // Σ idle of the broken links
}

// Backward returns the backward summary of the events so far
// (fsdpa_backward_get).
func (a *Analyzer) Backward() (Backward, error) {
	p, err := a.ctx()
	if err != nil {
		return Backward{}, err
	}
	defer runtime.KeepAlive(a) // the finalizer must not free the context during the call
	var b C.fsdpa_backward
	b.size = C.size_t(unsafe.Sizeof(b))
	if err := ctxError(C.fsdpa_backward_get(p, &b), p, false); err != nil {
		return Backward{}, err
	}
	return Backward{Pattern: BackwardPattern(b.pattern), Steps: uint64(b.steps), Units: uint64(b.units),
		PrefetchedUnits: uint64(b.prefetched_units), Links: uint64(b.links),
		BrokenLinks: uint64(b.broken_links), IdleNs: int64(b.idle_ns)}, nil
}

// BackwardStep is fsdpa_backward_step: the backward schedule of one step.
type BackwardStep struct {
	Step            *int64 // ProfilerStep number; nil for units outside any step
	Pattern         BackwardPattern
	Units           uint64   // backward units in the step
	Links           uint64   // prefetch links evaluated
	PrefetchedLinks uint64   // of which held
	RSHiddenLinks   uint64   // rs_hidden links that held
	IdleNs          int64    // Σ idle of its broken links
	StartNs         int64    // first start of any kernel of its backward units (absolute)
	EndNs           int64    // last end of any kernel of its backward units (absolute)
	OverlapPct      *float64 // 100·|C ∩ P| / |C| over the CPU step range; nil without communication
}

// BackwardSteps returns one entry per step with backward units, in time
// order; a step's position is its backward step index (BackwardUnits)
// (fsdpa_backward_step_list).
func (a *Analyzer) BackwardSteps() ([]BackwardStep, error) {
	return ctxList(a, C.FSDPA_LIST_BACKWARD_STEPS, func(p *C.fsdpa_ctx, l **C.fsdpa_list) C.fsdpa_status {
		return C.fsdpa_backward_step_list(p, l)
	}, func(s *C.fsdpa_backward_step) BackwardStep {
		return BackwardStep{Step: optInt(s.step), Pattern: BackwardPattern(s.pattern),
			Units: uint64(s.units), Links: uint64(s.links), PrefetchedLinks: uint64(s.prefetched_links),
			RSHiddenLinks: uint64(s.rs_hidden_links), IdleNs: int64(s.idle_ns), StartNs: int64(s.start_ns),
			EndNs: int64(s.end_ns), OverlapPct: optRatio(s.overlap_pct)}
	})
}

// Span is the kernels of one set (AG, compute, RS) of a backward unit:
// first start and last end (absolute), and the stream of its first kernel.
type Span struct {
	Stream  int64
	StartNs int64
	EndNs   int64
}

func optSpan(start, end, stream C.int64_t) *Span {
	if int64(start) == absent {
		return nil
	}
	return &Span{Stream: int64(stream), StartNs: int64(start), EndNs: int64(end)}
}

// BackwardUnit is fsdpa_backward_unit: one unit of one step's backward,
// with its schedule and its two links.
type BackwardUnit struct {
	Name       string
	NameLen    int    // full length of the name (> len(Name) when truncated to 255 bytes)
	Position   int    // 0 = first unit in backward order
	Prefetched *bool  // its AG overlapped the previous unit's compute; nil: not evaluated
	RSHidden   *bool  // its RS overlapped the next unit's compute; nil: not evaluated
	IdleNs     *int64 // idle the broken link into this unit costs (0 when prefetched); nil: not evaluated
	AG         *Span  // its AllGather kernels; nil if it has none in backward
	Compute    *Span  // its compute kernels; nil if none
	RS         *Span  // its ReduceScatter kernels; nil if none
}

// BackwardUnits returns the units of backward step i (an index into
// BackwardSteps), in backward order (fsdpa_backward_unit_list); an index
// past the last step is ErrInvalid.
func (a *Analyzer) BackwardUnits(i int) ([]BackwardUnit, error) {
	if _, err := a.ctx(); err != nil {
		return nil, err
	}
	if i < 0 {
		return nil, newError(StatusInvalid, "negative backward step index")
	}
	return ctxList(a, C.FSDPA_LIST_BACKWARD_UNITS, func(p *C.fsdpa_ctx, l **C.fsdpa_list) C.fsdpa_status {
		return C.fsdpa_backward_unit_list(p, C.size_t(i), l)
	}, func(u *C.fsdpa_backward_unit) BackwardUnit {
		return BackwardUnit{Name: fixedString(u.name[:]), NameLen: int(u.name_len),
			Position: int(u.position), Prefetched: optBool(u.prefetched), RSHidden: optBool(u.rs_hidden),
			IdleNs: optInt(u.idle_ns), AG: optSpan(u.ag_start_ns, u.ag_end_ns, u.ag_stream),
			Compute: optSpan(u.compute_start_ns, u.compute_end_ns, u.compute_stream),
			RS:      optSpan(u.rs_start_ns, u.rs_end_ns, u.rs_stream)}
	})
}
