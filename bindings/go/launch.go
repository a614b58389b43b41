package fsdpa

/*
#include <fsdpa/fsdpa.h>
*/
import "C"

import (
	"runtime"
	"unsafe"
)

// Launch gaps, idle attribution, launch latency and queue depth (the
// launch_gaps group of fsdpa.h, which defines every number: gaps, closing
// ops, idle categories, nearest-rank percentiles, the fixed histogram).

// Histogram shape of the gap and latency histograms (FSDPA_GAP_EDGES,
// FSDPA_GAP_BINS): edges 1 µs … 1 s in 1-2-5 steps; Counts[0] counts values
// below EdgesNs[0], Counts[i] values in [EdgesNs[i-1], EdgesNs[i]),
// Counts[GapBins-1] values at or above the last edge.
const (
	GapEdges = 19
	GapBins  = GapEdges + 1
)

// LaunchGaps is fsdpa_launch_gaps: gaps between consecutive GPU ops of the
// selected streams in the window, their idle categories (HTA's host wait,
// kernel wait, other) and the GPU-level (busy union) figures.  Durations
// are clipped to the window; counts, categories, bins and percentiles use
// full gap lengths.
type LaunchGaps struct {
	KernelWaitThresholdNs int64  // launch.kernel_wait_ns used for the categories
	SmallGapThresholdNs   int64  // launch.small_gap_ns used for SmallLaunch*
	Streams               uint64 // selected streams that have GPU ops
	Gaps                  uint64 // stream gaps intersecting the window
	IdleNs                int64  // = HostWaitNs + KernelWaitNs + OtherNs
	HostWaitNs            int64
	KernelWaitNs          int64
	OtherNs               int64
	HostWaitGaps          uint64
	KernelWaitGaps        uint64
	OtherGaps             uint64
	UnlinkedGaps          uint64 // closing ops without a launch call
	UnlinkedNs            int64
	SmallLaunchGaps       uint64 // launch-bound gaps no longer than SmallGapThresholdNs
	SmallLaunchNs         int64
	P50Ns, P90Ns, P99Ns   *int64 // full gap lengths, nearest rank; nil without gaps
	MaxNs                 *int64 // nil without gaps
	EdgesNs               [GapEdges]int64
	Counts                [GapBins]uint64 // gaps per bin of full length
	BinIdleNs             [GapBins]int64  // idle (clipped) of the gaps of each bin
	SpanNs                *int64          // as Timeline.SpanNs
	BusyNs                int64
	Density               *float64 // BusyNs / SpanNs; nil if the span is absent or 0
	GPUWindowNs           *int64   // [first start, last end) of the trace's selected activity ∩ window
	Utilization           *float64 // BusyNs / GPUWindowNs; nil if absent or 0
	GPUGaps               uint64   // gaps of the busy union of the selected streams
	GPUIdleNs             int64    // = GPUWindowNs - BusyNs
	GPUHostWaitNs         int64
	GPUKernelWaitNs       int64
	GPUOtherNs            int64
	GPUSmallLaunchNs      int64
}

// LaunchGaps returns the gap statistics, idle attribution and density of
// the selected streams in the window (fsdpa_launch_gaps_query).
func (a *Analyzer) LaunchGaps(q Query) (LaunchGaps, error) { return a.launchGaps(q.c()) }

// launchGaps is LaunchGaps for a C query (nil: a NULL query).
func (a *Analyzer) launchGaps(cq *C.fsdpa_query) (LaunchGaps, error) {
	p, err := a.ctx()
	if err != nil {
		return LaunchGaps{}, err
	}
	defer runtime.KeepAlive(a) // the finalizer must not free the context during the call
	var g C.fsdpa_launch_gaps
	g.size = C.size_t(unsafe.Sizeof(g))
	if err := ctxError(C.fsdpa_launch_gaps_query(p, cq, &g), p, false); err != nil {
		return LaunchGaps{}, err
	}
	out := LaunchGaps{
		KernelWaitThresholdNs: int64(g.kernel_wait_threshold_ns), SmallGapThresholdNs: int64(g.small_gap_threshold_ns),
		Streams: uint64(g.streams), Gaps: uint64(g.gaps), IdleNs: int64(g.idle_ns),
		HostWaitNs: int64(g.host_wait_ns), KernelWaitNs: int64(g.kernel_wait_ns), OtherNs: int64(g.other_ns),
		HostWaitGaps: uint64(g.host_wait_gaps), KernelWaitGaps: uint64(g.kernel_wait_gaps),
		OtherGaps: uint64(g.other_gaps), UnlinkedGaps: uint64(g.unlinked_gaps), UnlinkedNs: int64(g.unlinked_ns),
		SmallLaunchGaps: uint64(g.small_launch_gaps), SmallLaunchNs: int64(g.small_launch_ns),
		P50Ns: optInt(g.p50_ns), P90Ns: optInt(g.p90_ns), P99Ns: optInt(g.p99_ns), MaxNs: optInt(g.max_ns),
		SpanNs: optInt(g.span_ns), BusyNs: int64(g.busy_ns), Density: optRatio(g.density),
		GPUWindowNs: optInt(g.gpu_window_ns), Utilization: optRatio(g.utilization),
		GPUGaps: uint64(g.gpu_gaps), GPUIdleNs: int64(g.gpu_idle_ns), GPUHostWaitNs: int64(g.gpu_host_wait_ns),
		GPUKernelWaitNs: int64(g.gpu_kernel_wait_ns), GPUOtherNs: int64(g.gpu_other_ns),
		GPUSmallLaunchNs: int64(g.gpu_small_launch_ns),
	}
	for i := range out.EdgesNs {
		out.EdgesNs[i] = int64(g.edges_ns[i])
	}
	for i := range out.Counts {
		out.Counts[i] = uint64(g.counts[i])
		out.BinIdleNs[i] = int64(g.bin_idle_ns[i])
	}
	return out, nil
}

// LaunchLatency is fsdpa_launch_latency: op start − end of its launch
// call, clipped at 0, over the GPU ops of the selected streams that start
// in the window.  The distribution fields are nil when Linked is 0.
type LaunchLatency struct {
	Ops                      uint64 // GPU ops starting in the window
	Linked                   uint64 // of which have a launch call (the sample)
	MinNs, P50Ns, P90Ns      *int64
	P99Ns, MaxNs             *int64
	TotalNs                  *int64 // Σ latency (see MeanNs)
	EdgesNs                  [GapEdges]int64
	Counts                   [GapBins]uint64 // latencies per bin (0 falls in the first)
	Kernels                  uint64          // kernels among Ops
	KernelsLinked            uint64
	KernelsShorterThanLaunch uint64   // linked kernels shorter than their launch call
	ShortKernelShare         *float64 // KernelsShorterThanLaunch / KernelsLinked; nil if none linked
}

// MeanNs is TotalNs / Linked (integer division, as the report writes
// mean_ns); nil when nothing is linked.
func (l LaunchLatency) MeanNs() *int64 {
	if l.TotalNs == nil || l.Linked == 0 {
		return nil
	}
	m := *l.TotalNs / int64(l.Linked)
	return &m
}

// LaunchLatency returns the launch latency distribution of the selected
// streams in the window (fsdpa_launch_latency_query).
func (a *Analyzer) LaunchLatency(q Query) (LaunchLatency, error) { return a.launchLatency(q.c()) }

// launchLatency is LaunchLatency for a C query (nil: a NULL query).
func (a *Analyzer) launchLatency(cq *C.fsdpa_query) (LaunchLatency, error) {
	p, err := a.ctx()
	if err != nil {
		return LaunchLatency{}, err
	}
	defer runtime.KeepAlive(a) // the finalizer must not free the context during the call
	var l C.fsdpa_launch_latency
	l.size = C.size_t(unsafe.Sizeof(l))
	if err := ctxError(C.fsdpa_launch_latency_query(p, cq, &l), p, false); err != nil {
		return LaunchLatency{}, err
	}
	out := LaunchLatency{Ops: uint64(l.ops), Linked: uint64(l.linked), MinNs: optInt(l.min_ns),
		P50Ns: optInt(l.p50_ns), P90Ns: optInt(l.p90_ns), P99Ns: optInt(l.p99_ns), MaxNs: optInt(l.max_ns),
		TotalNs: optInt(l.total_ns), Kernels: uint64(l.kernels), KernelsLinked: uint64(l.kernels_linked),
		KernelsShorterThanLaunch: uint64(l.kernels_shorter_than_launch),
		ShortKernelShare:         optRatio(l.short_kernel_share)}
	for i := range out.EdgesNs {
		out.EdgesNs[i] = int64(l.edges_ns[i])
	}
	for i := range out.Counts {
		out.Counts[i] = uint64(l.counts[i])
	}
	return out, nil
}

// LaunchQueue is fsdpa_launch_queue: the depth of the queue of launched
// but not yet started ops of the selected streams, over the span
// Timeline(q) measures.
type LaunchQueue struct {
	Ops       uint64   // linked ops whose queued time meets the range
	RangeNs   *int64   // length of the measured range; nil without GPU activity
	MaxDepth  *int64   // largest depth held for a positive time; nil without a range
	MeanDepth *float64 // ∫ depth dt / RangeNs; nil without a range
	Depth0Ns  int64    // time with nothing queued
	StarvedNs int64    // time with nothing queued and nothing running
}

// LaunchQueue returns launch-queue depth statistics (fsdpa_launch_queue_query).
func (a *Analyzer) LaunchQueue(q Query) (LaunchQueue, error) { return a.launchQueue(q.c()) }

// launchQueue is LaunchQueue for a C query (nil: a NULL query).
func (a *Analyzer) launchQueue(cq *C.fsdpa_query) (LaunchQueue, error) {
	p, err := a.ctx()
	if err != nil {
		return LaunchQueue{}, err
	}
	defer runtime.KeepAlive(a) // the finalizer must not free the context during the call
	var l C.fsdpa_launch_queue
	l.size = C.size_t(unsafe.Sizeof(l))
	if err := ctxError(C.fsdpa_launch_queue_query(p, cq, &l), p, false); err != nil {
		return LaunchQueue{}, err
	}
	return LaunchQueue{Ops: uint64(l.ops), RangeNs: optInt(l.range_ns), MaxDepth: optInt(l.max_depth),
		MeanDepth: optRatio(l.mean_depth), Depth0Ns: int64(l.depth0_ns), StarvedNs: int64(l.starved_ns)}, nil
}
