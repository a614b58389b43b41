package fsdpa

/*
#include <stdlib.h>
#include <fsdpa/fsdpa.h>
*/
import "C"

import (
	"encoding/json"
	"runtime"
	"unsafe"
)

// Cross-rank analysis, mergeable summaries and annotated traces (the
// crossrank and annotate groups of fsdpa.h).  The functions over several
// analyzers take the ranks of one job in report order, as ReportMany does.

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
// job, one per rank, on the events fed so far (fsdpa_query_crossrank).
// Parameters (crossrank.*) are read from as[0].
func QueryCrossRank(as []*Analyzer) (CrossRank, error) {
	base, ctxs, done, err := ctxArray(as)
	if err != nil {
		return CrossRank{}, err
	}
	defer done()
	var c C.fsdpa_crossrank
	c.size = C.size_t(unsafe.Sizeof(c))
	if err := ctxError(C.fsdpa_query_crossrank(base, C.size_t(len(ctxs)), &c), ctxs[0], false); err != nil {
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
// in the order of as (fsdpa_query_crossrank_rank for every index).
func QueryCrossRankRanks(as []*Analyzer) ([]CrossRankRank, error) {
	base, ctxs, done, err := ctxArray(as)
	if err != nil {
		return nil, err
	}
	defer done()
	out := make([]CrossRankRank, 0, len(ctxs))
	for i := range ctxs {
		var r C.fsdpa_crossrank_rank
		r.size = C.size_t(unsafe.Sizeof(r))
		st := C.fsdpa_query_crossrank_rank(base, C.size_t(len(ctxs)), C.size_t(i), &r)
		if err := ctxError(st, ctxs[0], false); err != nil {
			return nil, err
		}
		out = append(out, CrossRankRank{Rank: int64(r.rank), ClockOffsetNs: optInt(r.clock_offset_ns),
			Collectives: uint64(r.collectives), TransferNs: optInt(r.transfer_ns), WaitNs: optInt(r.wait_ns),
			LastCount: uint64(r.last_count), LateSteps: uint64(r.late_steps), MeanDelayNs: optInt(r.mean_delay_ns),
			MaxDelayNs: optInt(r.max_delay_ns), LostNs: int64(r.lost_ns)})
	}
	return out, nil
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

const errbufLen = 1024

// cSummaryOptions fills the C options; errbuf (C memory, receives the
// message of a failure) is freed by the caller.
func (o SummaryOptions) cOptions() (C.fsdpa_summary_options, *C.char) {
	var so C.fsdpa_summary_options
	C.fsdpa_summary_options_init(&so)
	so.max_memory_bytes = C.uint64_t(o.MaxMemoryBytes)
	so.allocator = o.allocator
	errbuf := (*C.char)(C.calloc(errbufLen, 1))
	if errbuf != nil {
		so.errbuf = errbuf
		so.errbuf_len = errbufLen
	}
	return so, errbuf
}

func summaryError(st C.fsdpa_status, errbuf *C.char) error {
	if st == C.FSDPA_OK {
		return nil
	}
	msg := ""
	if errbuf != nil {
		msg = C.GoString(errbuf)
	}
	if msg == "" {
		msg = Status(st).String()
	}
	return &Error{Status: Status(st), Message: msg, Offset: -1}
}

// Merge merges summaries (each one rank or an earlier merge) into one: the
// rank lists are concatenated in the order given, so merging is associative
// byte for byte (fsdpa_summary_merge).  An input that is not a valid
// summary is an *Error with StatusParse and the library's message.
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
	so, errbuf := o.cOptions()
	defer C.free(unsafe.Pointer(errbuf))
	var out *C.char
	var outLen C.size_t
	st := C.fsdpa_summary_merge(&ptrs[0], &lens[0], C.size_t(n), &so, &out, &outLen)
	if err := summaryError(st, errbuf); err != nil {
		return "", err
	}
	return takeBuffer(out, outLen), nil
}

// Report returns the JSON report of a (merged) summary, parsed: the same
// bytes ReportMany (and `fsdpa analyze --format json`) writes over the
// ranks' traces in the summary's order (fsdpa_summary_report; JSON only,
// the other formats need the events).
func (o SummaryOptions) Report(sum string) (*Report, error) {
	cs := C.CBytes([]byte(sum))
	defer C.free(cs)
	so, errbuf := o.cOptions()
	defer C.free(unsafe.Pointer(errbuf))
	var ro C.fsdpa_report_options
	C.fsdpa_report_options_init(&ro)
	ro.format = C.FSDPA_FORMAT_JSON
	var out *C.char
	var outLen C.size_t
	st := C.fsdpa_summary_report((*C.char)(cs), C.size_t(len(sum)), &so, &ro, &out, &outLen)
	if err := summaryError(st, errbuf); err != nil {
		return nil, err
	}
	return ParseReport(takeBuffer(out, outLen))
}

// SummaryMerge is SummaryOptions{}.Merge.
func SummaryMerge(sums ...string) (string, error) { return SummaryOptions{}.Merge(sums...) }

// SummaryReport is SummaryOptions{}.Report.
func SummaryReport(sum string) (*Report, error) { return SummaryOptions{}.Report(sum) }

// AnnotateEvents returns the trace events AnnotateFile adds to trace i of
// the job (the findings of the report over as whose rank is that trace's,
// as Perfetto / chrome://tracing events): a JSON array (fsdpa_annotate_events).
func AnnotateEvents(as []*Analyzer, i int) (json.RawMessage, error) {
	base, ctxs, done, err := ctxArray(as)
	if err != nil {
		return nil, err
	}
	defer done()
	if i < 0 || i >= len(ctxs) {
		return nil, newError(StatusInvalid, "trace index out of range")
	}
	var out *C.char
	var n C.size_t
	if err := ctxError(C.fsdpa_annotate_events(base, C.size_t(len(ctxs)), C.size_t(i), &out, &n), ctxs[i], false); err != nil {
		return nil, err
	}
	return json.RawMessage(takeBuffer(out, n)), nil
}

// AnnotateOptions are the options of AnnotateFile; the zero value is the
// library default (gzip when the output name ends in ".gz", level 6).
type AnnotateOptions struct {
	Gzip  *bool // true: gzip the output, false: plain JSON, nil: by the output name
	Level int   // gzip level 1..9; 0 = 6
}

// AnnotateFile writes a copy of trace i (inPath, plain or gzip: the file
// as[i] was fed) to outPath ("-" = standard output) with the findings added
// as trace events; every byte of the input is kept.  On failure no output
// file is left (fsdpa_annotate_file).
func AnnotateFile(as []*Analyzer, i int, inPath, outPath string, o AnnotateOptions) error {
	base, ctxs, done, err := ctxArray(as)
	if err != nil {
		return err
	}
	defer done()
	if i < 0 || i >= len(ctxs) {
		return newError(StatusInvalid, "trace index out of range")
	}
	var ao C.fsdpa_annotate_options
	C.fsdpa_annotate_options_init(&ao)
	if o.Gzip != nil {
		ao.gzip = 0
		if *o.Gzip {
			ao.gzip = 1
		}
	}
	ao.level = C.int(o.Level)
	in, out := C.CString(inPath), C.CString(outPath)
	defer C.free(unsafe.Pointer(in))
	defer C.free(unsafe.Pointer(out))
	return ctxError(C.fsdpa_annotate_file(base, C.size_t(len(ctxs)), C.size_t(i), in, out, &ao), ctxs[i], false)
}
