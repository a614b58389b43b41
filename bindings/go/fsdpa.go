// Package fsdpa binds libfsdpa with cgo (standard library only): it reads
// PyTorch-profiler (Kineto) traces of distributed training and says, with
// numbers and evidence, why the GPUs are not busy.
//
//	rep, err := fsdpa.Analyze("rank0.json.gz")   // or several ranks' traces
//	for _, f := range rep.Findings {
//		fmt.Println(f.Severity, f.ID, f.Title)
//	}
//
// An Analyzer is one trace (one rank) fed incrementally (Feed, Write,
// ReadFrom); its queries work between feeds: the tracks (Steps, Streams,
// Timeline, Stats) and every analysis of the report (LaunchGaps,
// LaunchLatency, LaunchQueue, Overlap, CommSplit, FSDPUnits, Backward*,
// Sync*, Memory*), each over a Query window (the zero Query is the whole
// trace).  The ranks of one job combine through ReportMany, ReportFindings
// (typed findings), QueryCrossRank, the summaries (Summary, SummaryMerge,
// SummaryReport, SummaryFindings) and AnnotateFile.  Times are integer
// nanoseconds; values the C API marks absent are nil pointers (or -1 for
// Offset and Input).  Every list the library returns (fsdpa_list) comes back
// as a Go slice whose strings are copied.  libfsdpa (libfsdpa.so.2, API 0.2)
// is found with pkg-config (`#cgo pkg-config: fsdpa`; in a build tree
// <build>/libfsdpa holds fsdpa-uninstalled.pc).
package fsdpa

/*
#cgo pkg-config: fsdpa
#include <stdlib.h>
#include <fsdpa/fsdpa.h>
*/
import "C"

import (
	"fmt"
	"io"
	"math"
	"runtime"
	"strings"
	"unsafe"
)

const absent = math.MinInt64 // FSDPA_ABSENT

func optInt(v C.int64_t) *int64 {
	if int64(v) == absent {
		return nil
	}
	x := int64(v)
	return &x
}

func cInt(p *int64) C.int64_t {
	if p == nil {
		return C.int64_t(absent)
	}
	return C.int64_t(*p)
}

// Version is the version string of the loaded library.
func Version() string { return C.GoString(C.fsdpa_version_string()) }

// VersionNumber is the version of the loaded library as one number,
// (major << 16) | (minor << 8) | patch (fsdpa_version, FSDPA_VERSION_HEX).
func VersionNumber() uint32 { return uint32(C.fsdpa_version()) }

// Param is one analysis parameter (fsdpa_param): every threshold the
// analyses use has a name, a default and the range SetParam accepts.
type Param struct {
	Name        string // e.g. "launch.kernel_wait_ns"
	Default     int64  // its default
	Min, Max    int64  // the values SetParam accepts
	Description string // what it sets, its unit and whose rule the default follows
}

// Params lists every analysis parameter, in the library's fixed order
// (fsdpa_param_list).
func Params() ([]Param, error) {
	var l *C.fsdpa_list
	if st := C.fsdpa_param_list(&l); st != C.FSDPA_OK {
		C.fsdpa_list_free(l)
		return nil, newError(Status(st), "fsdpa_param_list: "+Status(st).String())
	}
	return takeList(l, C.FSDPA_LIST_PARAMS, func(p *C.fsdpa_param) Param {
		return Param{Name: C.GoString(p.name), Default: int64(p.default_value), Min: int64(p.min_value),
			Max: int64(p.max_value), Description: C.GoString(p.description)}
	})
}

// ParamList lists the analysis parameters as `fsdpa params` prints them:
// one "name=default  description" per line ("" if the list cannot be made).
func ParamList() string {
	ps, err := Params()
	if err != nil {
		return ""
	}
	var b strings.Builder
	for _, p := range ps {
		fmt.Fprintf(&b, "%s=%d  %s\n", p.Name, p.Default, p.Description)
	}
	return b.String()
}

// Options for NewWithOptions.
type Options struct {
	Name           string // input name for messages and the report ("" = "<input>")
	Rank           *int64 // rank of this trace; nil = from distributedInfo
	MaxMemoryBytes uint64 // refuse to grow past this (0 = no cap)
	MaxInputBytes  uint64 // refuse more (decompressed) input than this (0 = no cap)
	allocator      *C.fsdpa_allocator
}

// Analyzer is the analysis context of one trace (one rank).  Not safe for
// concurrent use; it may move between goroutines.  Call Close (a finalizer
// is only a safety net).
type Analyzer struct {
	p    *C.fsdpa_ctx
	name string
}

// New creates an analyzer with default options.
func New() (*Analyzer, error) { return NewWithOptions(Options{}) }

// NewWithOptions creates an analyzer.
func NewWithOptions(o Options) (*Analyzer, error) {
	var opts C.fsdpa_options
	C.fsdpa_options_init(&opts)
	opts.max_memory_bytes = C.uint64_t(o.MaxMemoryBytes)
	opts.max_input_bytes = C.uint64_t(o.MaxInputBytes)
	opts.rank = cInt(o.Rank)
	opts.allocator = o.allocator
	if o.Name != "" {
		cs := C.CString(o.Name)
		defer C.free(unsafe.Pointer(cs))
		opts.name = cs
	}
	var p *C.fsdpa_ctx
	if err := ctxError(C.fsdpa_ctx_new(&p, &opts), nil, false); err != nil {
		return nil, err
	}
	a := &Analyzer{p: p, name: o.Name}
	runtime.SetFinalizer(a, (*Analyzer).Close)
	return a, nil
}

// Close releases the context; safe to call twice.
func (a *Analyzer) Close() {
	if a.p != nil {
		C.fsdpa_ctx_free(a.p)
		a.p = nil
	}
	runtime.SetFinalizer(a, nil)
}

func (a *Analyzer) ctx() (*C.fsdpa_ctx, error) {
	if a.p == nil {
		return nil, newError(StatusState, "analyzer is closed")
	}
	return a.p, nil
}

// Feed passes the next bytes, in any chunking.  The library copies what it
// keeps, so b may be reused at once.
func (a *Analyzer) Feed(b []byte) error {
	p, err := a.ctx()
	if err != nil || len(b) == 0 {
		return err
	}
	defer runtime.KeepAlive(a) // the finalizer must not free the context during the call
	st := C.fsdpa_feed(p, unsafe.Pointer(&b[0]), C.size_t(len(b)))
	runtime.KeepAlive(b)
	return ctxError(st, p, true)
}

// Write implements io.Writer (= Feed), so io.Copy(a, r) feeds a reader.
func (a *Analyzer) Write(b []byte) (int, error) {
	if err := a.Feed(b); err != nil {
		return 0, err
	}
	return len(b), nil
}

// ReadFrom implements io.ReaderFrom: feeds everything r yields in 1 MiB
// reads (does not finish).  A read error comes back as an *Error with
// StatusIO.
func (a *Analyzer) ReadFrom(r io.Reader) (int64, error) {
	return a.readFrom(r, 1<<20)
}

func (a *Analyzer) readFrom(r io.Reader, chunk int) (int64, error) {
	buf := make([]byte, chunk)
	var n int64
	for {
		k, err := r.Read(buf)
		if k > 0 {
			if ferr := a.Feed(buf[:k]); ferr != nil {
				return n, ferr
			}
			n += int64(k)
		}
		if err == io.EOF {
			return n, nil
		}
		if err != nil {
			return n, newError(StatusIO, "read: "+err.Error())
		}
	}
}

// FeedFile feeds a whole file (plain or gzip; "-" = stdin) and finishes.
func (a *Analyzer) FeedFile(path string) error {
	p, err := a.ctx()
	if err != nil {
		return err
	}
	defer runtime.KeepAlive(a) // the finalizer must not free the context during the call
	cs := C.CString(path)
	defer C.free(unsafe.Pointer(cs))
	return ctxError(C.fsdpa_feed_file(p, cs), p, true)
}

// Finish marks the end of input: an *Error with StatusTruncated or
// StatusNotATrace if the document is incomplete or not a trace.
func (a *Analyzer) Finish() error {
	p, err := a.ctx()
	if err != nil {
		return err
	}
	defer runtime.KeepAlive(a) // the finalizer must not free the context during the call
	return ctxError(C.fsdpa_finish(p), p, true)
}

// SetParam sets an analysis threshold by name (see Params); a value that
// is not an integer in [Min, Max] is ErrInvalid and the parameter keeps its
// value (fsdpa_param_set).
func (a *Analyzer) SetParam(key, value string) error {
	p, err := a.ctx()
	if err != nil {
		return err
	}
	defer runtime.KeepAlive(a) // the finalizer must not free the context during the call
	k, v := C.CString(key), C.CString(value)
	defer C.free(unsafe.Pointer(k))
	defer C.free(unsafe.Pointer(v))
	return ctxError(C.fsdpa_param_set(p, k, v), p, false)
}

// Param returns the value parameter key has in this analyzer (its default
// until SetParam changes it) (fsdpa_param_get).
func (a *Analyzer) Param(key string) (int64, error) {
	p, err := a.ctx()
	if err != nil {
		return 0, err
	}
	defer runtime.KeepAlive(a) // the finalizer must not free the context during the call
	k := C.CString(key)
	defer C.free(unsafe.Pointer(k))
	var v C.int64_t
	if err := ctxError(C.fsdpa_param_get(p, k, &v), p, false); err != nil {
		return 0, err
	}
	return int64(v), nil
}

// lastError (test support) is what the context says about its last call:
// fsdpa_errmsg() and fsdpa_error_offset() (FSDPA_ABSENT as -1).
func (a *Analyzer) lastError() (string, int64) {
	p, err := a.ctx()
	if err != nil {
		return "", -1
	}
	defer runtime.KeepAlive(a)
	off := int64(C.fsdpa_error_offset(p))
	if off == absent {
		off = -1
	}
	return C.GoString(C.fsdpa_errmsg(p)), off
}

// TraceInfo is trace metadata; nil where unknown.
type TraceInfo struct {
	Rank       *int64
	WorldSize  *int64
	BaseTimeNs *int64
}

// SetTraceInfo sets trace metadata; nil fields are left unchanged.
func (a *Analyzer) SetTraceInfo(t TraceInfo) error {
	p, err := a.ctx()
	if err != nil {
		return err
	}
	defer runtime.KeepAlive(a) // the finalizer must not free the context during the call
	var i C.fsdpa_trace_info
	C.fsdpa_trace_info_init(&i)
	i.rank, i.world_size, i.base_time_ns = cInt(t.Rank), cInt(t.WorldSize), cInt(t.BaseTimeNs)
	return ctxError(C.fsdpa_trace_info_set(p, &i), p, false)
}

// TraceInfo returns the trace metadata known so far.
func (a *Analyzer) TraceInfo() (TraceInfo, error) {
	p, err := a.ctx()
	if err != nil {
		return TraceInfo{}, err
	}
	defer runtime.KeepAlive(a) // the finalizer must not free the context during the call
	var i C.fsdpa_trace_info
	C.fsdpa_trace_info_init(&i)
	if err := ctxError(C.fsdpa_trace_info_get(p, &i), p, false); err != nil {
		return TraceInfo{}, err
	}
	return TraceInfo{optInt(i.rank), optInt(i.world_size), optInt(i.base_time_ns)}, nil
}

// Stats are event counts (see fsdpa_stats in fsdpa.h).
type Stats struct {
	InputBytes, JSONBytes, Events, Retained, Kernels, GPUMemcpy, GPUMemset, Runtime  uint64
	CPUOps, Annotations, GPUAnnotations, Memory, CudaSync, Other, MemoryBytes, Names uint64
}

// Stats returns the event counts so far.
func (a *Analyzer) Stats() (Stats, error) {
	p, err := a.ctx()
	if err != nil {
		return Stats{}, err
	}
	defer runtime.KeepAlive(a) // the finalizer must not free the context during the call
	var s C.fsdpa_stats
	s.size = C.size_t(unsafe.Sizeof(s))
	if err := ctxError(C.fsdpa_stats_get(p, &s), p, false); err != nil {
		return Stats{}, err
	}
	return Stats{uint64(s.input_bytes), uint64(s.json_bytes), uint64(s.events), uint64(s.retained),
		uint64(s.kernels), uint64(s.gpu_memcpy), uint64(s.gpu_memset), uint64(s.runtime),
		uint64(s.cpu_ops), uint64(s.annotations), uint64(s.gpu_annotations), uint64(s.memory),
		uint64(s.cuda_sync), uint64(s.other), uint64(s.memory_bytes), uint64(s.names)}, nil
}

// Step is a ProfilerStep#N range on the CPU.
type Step struct {
	Number  int64 // N of ProfilerStep#N
	StartNs int64 // absolute start (trace clock, baseTimeNanoseconds added)
	DurNs   int64 // CPU duration of the annotation
}

// Steps returns the ProfilerStep#N ranges so far, in start order; a
// step's position is its step index (Query.Step) (fsdpa_step_list).
func (a *Analyzer) Steps() ([]Step, error) {
	return ctxList(a, C.FSDPA_LIST_STEPS, func(p *C.fsdpa_ctx, l **C.fsdpa_list) C.fsdpa_status {
		return C.fsdpa_step_list(p, l)
	}, func(s *C.fsdpa_step) Step { return Step{int64(s.number), int64(s.start_ns), int64(s.dur_ns)} })
}

// Role of a GPU stream, derived from what runs on it.
type Role int

// Stream roles (values of fsdpa_stream_role).
const (
	RoleCompute       Role = 0 // only compute kernels (memcpy/memset allowed)
	RoleCommunication Role = 1 // only collective kernels (memcpy/memset allowed)
	RoleMemory        Role = 2 // only memcpy/memset
	RoleMixed         Role = 3 // compute and collective kernels
)

// String is the role as the JSON report writes it.
func (r Role) String() string {
	switch r {
	case RoleCompute:
		return "compute"
	case RoleCommunication:
		return "communication"
	case RoleMemory:
		return "memory"
	case RoleMixed:
		return "mixed"
	}
	return "unknown"
}

// Stream is one GPU stream.
type Stream struct {
	Device, Stream int64
	Role           Role
	Kernels        uint64 // kernel events on the stream
	CommKernels    uint64 // of which collective kernels
	Memops         uint64 // gpu_memcpy + gpu_memset events
	BusyNs         int64  // |union of the stream's GPU activity|
	FirstNs        *int64 // earliest start of GPU activity (absolute)
	LastNs         *int64 // latest end of GPU activity (absolute)
}

// Streams returns the GPU streams so far, by device then stream
// (fsdpa_stream_list).
func (a *Analyzer) Streams() ([]Stream, error) {
	return ctxList(a, C.FSDPA_LIST_STREAMS, func(p *C.fsdpa_ctx, l **C.fsdpa_list) C.fsdpa_status {
		return C.fsdpa_stream_list(p, l)
	}, func(s *C.fsdpa_stream_info) Stream {
		return Stream{int64(s.device), int64(s.stream), Role(s.role), uint64(s.kernels),
			uint64(s.comm_kernels), uint64(s.memops), int64(s.busy_ns), optInt(s.first_ns), optInt(s.last_ns)}
	})
}

// Timeline is the GPU timeline summary over a window.
type Timeline struct {
	SpanNs     *int64   // last end - first start of selected activity, clipped; nil if none
	BusyNs     int64    // |union of selected activity ∩ window|
	Density    *float64 // BusyNs / SpanNs; nil if the span is absent or 0
	Activities uint64   // kernel + memcpy + memset events overlapping the window
}

// Timeline returns the GPU timeline density over a window (all selected
// streams unioned: overlapping work counts once) (fsdpa_timeline_query).
func (a *Analyzer) Timeline(q Query) (Timeline, error) { return a.timeline(q.c()) }

// timeline is Timeline for a C query (nil: a NULL query).
func (a *Analyzer) timeline(cq *C.fsdpa_query) (Timeline, error) {
	p, err := a.ctx()
	if err != nil {
		return Timeline{}, err
	}
	defer runtime.KeepAlive(a) // the finalizer must not free the context during the call
	var t C.fsdpa_timeline
	t.size = C.size_t(unsafe.Sizeof(t))
	if err := ctxError(C.fsdpa_timeline_query(p, cq, &t), p, false); err != nil {
		return Timeline{}, err
	}
	out := Timeline{SpanNs: optInt(t.span_ns), BusyNs: int64(t.busy_ns), Activities: uint64(t.activities)}
	if d := float64(t.density); d >= 0 {
		out.Density = &d
	}
	return out, nil
}

// Overlap is communication / compute overlap over a window (fsdpa_overlap):
// C = union of the selected communication (collective) kernels, P = union of
// the selected compute kernels, both clipped to the window.
type Overlap struct {
	CommNs         *int64   // |C|; nil when no communication kernel is selected
	ComputeNs      *int64   // |P|
	OverlapNs      *int64   // |C ∩ P|; nil without communication
	ExposedCommNs  *int64   // |C| - |C ∩ P|; nil without communication
	OverlapPct     *float64 // 100·OverlapNs / CommNs; nil when CommNs is nil or 0
	CommKernels    uint64   // communication kernels overlapping the window
	ComputeKernels uint64   // compute kernels overlapping the window
}

// Overlap returns the communication / compute overlap over a window (all
// devices unioned unless the query selects one) (fsdpa_overlap_query).
func (a *Analyzer) Overlap(q Query) (Overlap, error) { return a.overlap(q.c()) }

// overlap is Overlap for a C query (nil: a NULL query).
func (a *Analyzer) overlap(cq *C.fsdpa_query) (Overlap, error) {
	p, err := a.ctx()
	if err != nil {
		return Overlap{}, err
	}
	defer runtime.KeepAlive(a) // the finalizer must not free the context during the call
	var o C.fsdpa_overlap
	o.size = C.size_t(unsafe.Sizeof(o))
	if err := ctxError(C.fsdpa_overlap_query(p, cq, &o), p, false); err != nil {
		return Overlap{}, err
	}
	out := Overlap{CommNs: optInt(o.comm_ns), ComputeNs: optInt(o.compute_ns),
		OverlapNs: optInt(o.overlap_ns), ExposedCommNs: optInt(o.exposed_comm_ns),
		CommKernels: uint64(o.comm_kernels), ComputeKernels: uint64(o.compute_kernels)}
	if pct := float64(o.overlap_pct); pct >= 0 {
		out.OverlapPct = &pct
	}
	return out, nil
}

// FSDPVersion is the FSDP version seen in the annotations: 2 (FSDP2 /
// fully_shard), 1 (FullyShardedDataParallel) or 0 (none).
func (a *Analyzer) FSDPVersion() (int, error) {
	p, err := a.ctx()
	if err != nil {
		return 0, err
	}
	defer runtime.KeepAlive(a) // the finalizer must not free the context during the call
	return int(C.fsdpa_fsdp_version(p)), nil
}

// Format of a report.
type Format int

// Report formats (values of fsdpa_format).
const (
	FormatJSON Format = 0 // the report contract (fsdpa.report/1)
	FormatText Format = 1 // for people
	FormatHTML Format = 2 // one self-contained page
	FormatCSV  Format = 3 // one table of the report (Render's table)
)

// Render returns a JSON report (fsdpa.report/1) as text, the HTML page or a
// CSV table (fsdpa_report_render, `fsdpa render`): the text is the bytes
// ReportMany gives in FormatText for the same traces; the page lacks the
// views that need the events.  table names the CSV table (ranks, findings,
// job_findings, streams, idle_causes, not_judged; "" = ranks).
func Render(reportJSON string, f Format, table string) (string, error) {
	js := C.CBytes([]byte(reportJSON))
	defer C.free(js)
	var o C.fsdpa_report_options
	C.fsdpa_report_options_init(&o)
	o.format = C.fsdpa_format(f)
	if table != "" {
		ct := C.CString(table)
		defer C.free(unsafe.Pointer(ct))
		o.table = ct
	}
	var out *C.char
	var outLen C.size_t
	e := newJobError()
	st := C.fsdpa_report_render((*C.char)(js), C.size_t(len(reportJSON)), &o, &out, &outLen, e)
	if err := jobError(st, e); err != nil {
		return "", err
	}
	return takeBuffer(out, outLen), nil
}

// Report returns the report of this trace alone, the input named after
// Options.Name.
func (a *Analyzer) Report(f Format) (string, error) {
	return ReportMany([]*Analyzer{a}, []string{a.name}, f)
}

// Result returns the JSON report of this trace, parsed.
func (a *Analyzer) Result() (*Report, error) {
	s, err := a.Report(FormatJSON)
	if err != nil {
		return nil, err
	}
	return ParseReport(s)
}

// ReportMany writes the report over several analyzers (the ranks of one
// job), one input name per analyzer ("" = "<input>") (fsdpa_report; a
// failure carries the library's fsdpa_error).
func ReportMany(as []*Analyzer, paths []string, f Format) (string, error) {
	if len(as) == 0 || len(paths) != len(as) {
		return "", newError(StatusInvalid, "one path per analyzer, at least one")
	}
	// C memory for both arrays: they hold C pointers only, and C owns them
	// for the duration of the call.
	n := len(as)
	ctxs := unsafe.Slice((**C.fsdpa_ctx)(C.malloc(C.size_t(n)*C.size_t(unsafe.Sizeof((*C.fsdpa_ctx)(nil))))), n)
	names := unsafe.Slice((**C.char)(C.malloc(C.size_t(n)*C.size_t(unsafe.Sizeof((*C.char)(nil))))), n)
	defer C.free(unsafe.Pointer(&ctxs[0]))
	defer C.free(unsafe.Pointer(&names[0]))
	for i, a := range as {
		p, err := a.ctx()
		if err != nil {
			return "", err
		}
		ctxs[i] = p
		names[i] = nil
		if paths[i] != "" {
			names[i] = C.CString(paths[i])
			defer C.free(unsafe.Pointer(names[i]))
		}
	}
	var o C.fsdpa_report_options
	C.fsdpa_report_options_init(&o)
	o.format = C.fsdpa_format(f)
	var out *C.char
	var outLen C.size_t
	e := newJobError()
	st := C.fsdpa_report(&ctxs[0], &names[0], C.size_t(n), &o, &out, &outLen, e)
	for _, a := range as {
		runtime.KeepAlive(a)
	}
	if err := jobError(st, e); err != nil {
		return "", err
	}
	return takeBuffer(out, outLen), nil
}

// Analyze analyzes one trace per rank of a job (files, plain or gzip) and
// returns the parsed JSON report: the same bytes `fsdpa analyze --format
// json` writes for the same paths.
func Analyze(paths ...string) (*Report, error) {
	if len(paths) == 0 {
		return nil, newError(StatusInvalid, "no trace given")
	}
	as := make([]*Analyzer, 0, len(paths))
	defer func() {
		for _, a := range as {
			a.Close()
		}
	}()
	for _, path := range paths {
		a, err := NewWithOptions(Options{Name: path})
		if err != nil {
			return nil, err
		}
		as = append(as, a)
		if err := a.FeedFile(path); err != nil {
			return nil, err
		}
	}
	s, err := ReportMany(as, paths, FormatJSON)
	if err != nil {
		return nil, err
	}
	return ParseReport(s)
}

// AnalyzeReader analyzes a trace read from r (plain or gzip), named name in
// the report and in error messages.
func AnalyzeReader(r io.Reader, name string) (*Report, error) {
	a, err := NewWithOptions(Options{Name: name})
	if err != nil {
		return nil, err
	}
	defer a.Close()
	if _, err := a.ReadFrom(r); err != nil {
		return nil, err
	}
	if err := a.Finish(); err != nil {
		return nil, err
	}
	return a.Result()
}
