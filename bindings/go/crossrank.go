package fsdpa

/*
#include <stdlib.h>
#include <fsdpa/fsdpa.h>
*/
import "C"

import (
	"runtime"
	"unsafe"
)

// Cross-rank analysis and mergeable summaries (the crossrank group of
// fsdpa.h).  The functions over several analyzers take the ranks of one job
// in report order, as ReportMany does; they and the summary functions have
// no single context, so their errors come from the fsdpa_error the library
// fills (message, status, and which analyzer or summary it is about).

// CrossRank is fsdpa_crossrank: the same collectives matched across the
// ranks of one job, clocks aligned, transfer / wait split and the straggler.
// With fewer than 2 analyzers or nothing matched the counts are 0 and the
// pointers nil.
type CrossRank struct {
	Ranks                uint64 // analyzers given
	Collectives          uint64 // matched collectives that ended together (the measured ones)
	Unmatched            uint64 // per-rank collective kernels whose identity no other rank has
	Unaligned            uint64 // matched per-rank kernels of ranks that could not be aligned
	Unsynchronized       uint64 // matched collectives that did not end together (left out)
	ReferenceRank        *int64 // rank whose clock the others are aligned to
	TransferNs           *int64 // Σ transfer, once per collective
	WaitNs               *int64 // Σ over collectives and their ranks of wait
	EndSpreadP50Ns       *int64 // lower median of the end spread
	EndSpreadMaxNs       *int64
	Steps                uint64 // steps holding matched collectives
	StragglerRank        *int64 // rank named by straggler-rank; nil if the rule does not fire
	StragglerLateSteps   uint64 // steps in which the straggler arrived latest (0 if none)
	StragglerMeanDelayNs *int64
	StragglerMaxDelayNs  *int64
	StragglerLostNs      *int64 // time the others lost waiting for it
}

// CrossRankRank is fsdpa_crossrank_rank: one rank's part of the analysis.
type CrossRankRank struct {
	Rank          int64  // distributedInfo.rank, else the analyzer's index
	ClockOffsetNs *int64 // own clock - reference clock; nil if the rank could not be aligned
	Collectives   uint64 // measured collectives it took part in
	TransferNs    *int64 // Σ transfer of those; nil if none
	WaitNs        *int64 // Σ of its wait in them; nil if none
	LastCount     uint64 // matched collectives at which it arrived last
	LateSteps     uint64 // steps in which it was the latest arriver
	MeanDelayNs   *int64 // over those steps; nil if none
	MaxDelayNs    *int64
	LostNs        int64 // time the other ranks lost waiting for it
}

// QueryCrossRank runs the cross-rank analysis over the analyzers of one
// job, one per rank, on the events fed so far (fsdpa_crossrank_query).
// Parameters (crossrank.*) are read from as[0].
func QueryCrossRank(as []*Analyzer) (CrossRank, error) {
	base, ctxs, done, err := ctxArray(as)
	if err != nil {
		return CrossRank{}, err
	}
	defer done()
	var c C.fsdpa_crossrank
	c.size = C.size_t(unsafe.Sizeof(c))
	e := newJobError()
	if err := jobError(C.fsdpa_crossrank_query(base, C.size_t(len(ctxs)), &c, e), e); err != nil {
		return CrossRank{}, err
	}
	return CrossRank{Ranks: uint64(c.ranks), Collectives: uint64(c.collectives), Unmatched: uint64(c.unmatched),
		Unaligned: uint64(c.unaligned), Unsynchronized: uint64(c.unsynchronized),
		ReferenceRank: optInt(c.reference_rank), TransferNs: optInt(c.transfer_ns), WaitNs: optInt(c.wait_ns),
		EndSpreadP50Ns: optInt(c.end_spread_p50_ns), EndSpreadMaxNs: optInt(c.end_spread_max_ns),
		Steps: uint64(c.steps), StragglerRank: optInt(c.straggler_rank),
		StragglerLateSteps:   uint64(c.straggler_late_steps),
		StragglerMeanDelayNs: optInt(c.straggler_mean_delay_ns),
		StragglerMaxDelayNs:  optInt(c.straggler_max_delay_ns), StragglerLostNs: optInt(c.straggler_lost_ns)}, nil
}

// QueryCrossRankRanks returns each rank's part of the cross-rank analysis,
// in the order of as (fsdpa_crossrank_rank_list).
func QueryCrossRankRanks(as []*Analyzer) ([]CrossRankRank, error) {
	base, ctxs, done, err := ctxArray(as)
	if err != nil {
		return nil, err
	}
	defer done()
	var l *C.fsdpa_list
	e := newJobError()
	if err := jobError(C.fsdpa_crossrank_rank_list(base, C.size_t(len(ctxs)), &l, e), e); err != nil {
		C.fsdpa_list_free(l)
		return nil, err
	}
	return takeList(l, C.FSDPA_LIST_CROSSRANK_RANKS, func(r *C.fsdpa_crossrank_rank) CrossRankRank {
		return CrossRankRank{Rank: int64(r.rank), ClockOffsetNs: optInt(r.clock_offset_ns),
			Collectives: uint64(r.collectives), TransferNs: optInt(r.transfer_ns), WaitNs: optInt(r.wait_ns),
			LastCount: uint64(r.last_count), LateSteps: uint64(r.late_steps), MeanDelayNs: optInt(r.mean_delay_ns),
			MaxDelayNs: optInt(r.max_delay_ns), LostNs: int64(r.lost_ns)}
	})
}

// Summary writes the summary (fsdpa.summary/1, docs/summary-format.md) of
// this trace: its inputs entry (named after Options.Name), its rank section
// and findings exactly as the report writes them, its collective table and
// crossrank parameters, for merging with the other ranks' elsewhere
// (fsdpa_summary_write).  A trace without a rank is written as rank 0.
func (a *Analyzer) Summary() (string, error) {
	p, err := a.ctx()
	if err != nil {
		return "", err
	}
	defer runtime.KeepAlive(a) // the finalizer must not free the context during the call
	var name *C.char
	if a.name != "" {
		name = C.CString(a.name)
		defer C.free(unsafe.Pointer(name))
	}
	var out *C.char
	var n C.size_t
	if err := ctxError(C.fsdpa_summary_write(p, name, &out, &n), p, false); err != nil {
		return "", err
	}
	return takeBuffer(out, n), nil
}

// SummaryOptions are the options of the summary functions that have no
// analyzer (fsdpa_summary_options); the zero value is the library default.
type SummaryOptions struct {
	MaxMemoryBytes uint64 // refuse to hold more than this (ErrLimit); 0 = no cap
	allocator      *C.fsdpa_allocator
}

// cOptions fills the C options.
func (o SummaryOptions) cOptions() C.fsdpa_summary_options {
	var so C.fsdpa_summary_options
	C.fsdpa_summary_options_init(&so)
	so.max_memory_bytes = C.uint64_t(o.MaxMemoryBytes)
	so.allocator = o.allocator
	return so
}

// Merge merges summaries (each one rank or an earlier merge) into one: the
// rank lists are concatenated in the order given, so merging is associative
// byte for byte (fsdpa_summary_merge).  An input that is not a valid
// summary is an *Error with StatusParse, the library's message, the index
// of that summary (Input) and the byte offset in it (Offset).
func (o SummaryOptions) Merge(sums ...string) (string, error) {
	if len(sums) == 0 {
		return "", newError(StatusInvalid, "no summary given")
	}
	n := len(sums)
	// pointers and lengths in C memory: C reads an array of pointers
	ptrs := unsafe.Slice((**C.char)(C.calloc(C.size_t(n), C.size_t(unsafe.Sizeof((*C.char)(nil))))), n)
	lens := unsafe.Slice((*C.size_t)(C.calloc(C.size_t(n), C.size_t(unsafe.Sizeof(C.size_t(0))))), n)
	defer C.free(unsafe.Pointer(&ptrs[0]))
	defer C.free(unsafe.Pointer(&lens[0]))
	for i, s := range sums {
		ptrs[i] = (*C.char)(C.CBytes([]byte(s)))
		lens[i] = C.size_t(len(s))
	}
	defer func() {
		for i := range ptrs {
			C.free(unsafe.Pointer(ptrs[i]))
		}
	}()
	so := o.cOptions()
	var out *C.char
	var outLen C.size_t
	e := newJobError()
	st := C.fsdpa_summary_merge(&ptrs[0], &lens[0], C.size_t(n), &so, &out, &outLen, e)
	if err := jobError(st, e); err != nil {
		return "", err
	}
	return takeBuffer(out, outLen), nil
}

// Report returns the JSON report of a (merged) summary, parsed: the same
// bytes ReportMany (and `fsdpa analyze --format json`) writes over the
// ranks' traces in the summary's order (fsdpa_summary_report; its text,
// page or tables: Render of the report's JSON).
func (o SummaryOptions) Report(sum string) (*Report, error) {
	cs := C.CBytes([]byte(sum))
	defer C.free(cs)
	so := o.cOptions()
	var ro C.fsdpa_report_options
	C.fsdpa_report_options_init(&ro)
	ro.format = C.FSDPA_FORMAT_JSON
	var out *C.char
	var outLen C.size_t
	e := newJobError()
	st := C.fsdpa_summary_report((*C.char)(cs), C.size_t(len(sum)), &so, &ro, &out, &outLen, e)
	if err := jobError(st, e); err != nil {
		return nil, err
	}
	return ParseReport(takeBuffer(out, outLen))
}

// Findings returns the findings of the report of a (merged) summary,
// typed: the same list, in the same order, as ReportFindings over the
// ranks' traces (fsdpa_summary_findings).
func (o SummaryOptions) Findings(sum string) (FindingList, error) {
	cs := C.CBytes([]byte(sum))
	defer C.free(cs)
	so := o.cOptions()
	var l *C.fsdpa_list
	e := newJobError()
	if err := jobError(C.fsdpa_summary_findings((*C.char)(cs), C.size_t(len(sum)), &so, &l, e), e); err != nil {
		C.fsdpa_list_free(l)
		return FindingList{}, err
	}
	return takeFindings(l)
}

// SummaryMerge is SummaryOptions{}.Merge.
func SummaryMerge(sums ...string) (string, error) { return SummaryOptions{}.Merge(sums...) }

// SummaryReport is SummaryOptions{}.Report.
func SummaryReport(sum string) (*Report, error) { return SummaryOptions{}.Report(sum) }

// SummaryFindings is SummaryOptions{}.Findings.
func SummaryFindings(sum string) (FindingList, error) { return SummaryOptions{}.Findings(sum) }
