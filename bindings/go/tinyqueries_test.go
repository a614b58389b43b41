package fsdpa

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// Exact values of the analysis queries on hand-written traces, derived by
// hand from the definitions in fsdpa.h (bindings/testdata/README.md has the
// tiny trace's table).

func TestTinyLaunchQueries(t *testing.T) {
	a, _ := New()
	defer a.Close()
	if err := a.FeedFile(tinyPath()); err != nil {
		t.Fatal(err)
	}
	// latency = op start - end of its launch call (µs): gemm 20-15, sgemm
	// 150-125, nccl 100-95, memcpy 1100-1094, gemm 1200-1155
	l := must(a.LaunchLatency(Query{}))(t)
	if l.Ops != 5 || l.Linked != 5 || *l.MinNs != 5_000 || *l.P50Ns != 6_000 || *l.P90Ns != 45_000 ||
		*l.P99Ns != 45_000 || *l.MaxNs != 45_000 || *l.TotalNs != 86_000 || *l.MeanNs() != 17_200 ||
		l.Kernels != 4 || l.KernelsLinked != 4 || l.KernelsShorterThanLaunch != 0 || *l.ShortKernelShare != 0 {
		t.Fatalf("latency %+v", l)
	}
	// 1-2-5 edges from 1 µs: 5, 5, 6 µs in [5 µs, 10 µs) = bin 3; 25, 45 µs in [20 µs, 50 µs) = bin 5
	var wantCounts [GapBins]uint64
	wantCounts[3], wantCounts[5] = 3, 2
	if l.Counts != wantCounts || l.EdgesNs[0] != 1_000 || l.EdgesNs[2] != 5_000 || l.EdgesNs[GapEdges-1] != 1_000_000_000 {
		t.Fatalf("latency histogram %v edges %v", l.Counts, l.EdgesNs)
	}
	// stream gaps (stream 7: [120,150) [200,1100) [1110,1200) µs; stream 20 none)
	g := must(a.LaunchGaps(Query{}))(t)
	if g.Streams != 2 || g.Gaps != 3 || g.IdleNs != 1_020_000 || *g.P50Ns != 90_000 || *g.P90Ns != 900_000 ||
		*g.MaxNs != 900_000 || g.IdleNs != g.HostWaitNs+g.KernelWaitNs+g.OtherNs ||
		g.HostWaitGaps+g.KernelWaitGaps+g.OtherGaps != g.Gaps || g.UnlinkedGaps != 0 || g.SmallLaunchGaps != 0 {
		t.Fatalf("gaps %+v", g)
	}
	var wantGaps [GapBins]uint64
	wantGaps[5], wantGaps[6], wantGaps[9] = 1, 1, 1 // 30 µs, 90 µs, 900 µs
	if g.Counts != wantGaps || g.BinIdleNs[5] != 30_000 || g.BinIdleNs[6] != 90_000 || g.BinIdleNs[9] != 900_000 {
		t.Fatalf("gap histogram %v %v", g.Counts, g.BinIdleNs)
	}
	// the busy union of both streams: GPU gaps [300,1100) and [1110,1200) µs,
	// each closed by an op whose launch call began after the gap began
	if *g.SpanNs != 1_480_000 || g.BusyNs != 590_000 || *g.GPUWindowNs != 1_480_000 || g.GPUGaps != 2 ||
		g.GPUIdleNs != 890_000 || g.GPUHostWaitNs != 890_000 || g.GPUKernelWaitNs != 0 || g.GPUOtherNs != 0 ||
		math.Abs(*g.Utilization-*g.Density) > 1e-15 {
		t.Fatalf("GPU gaps %+v", g)
	}
	// stream 20 alone: one op, no gap
	g20 := must(a.LaunchGaps(Query{Stream: i64(20)}))(t)
	if g20.Streams != 1 || g20.Gaps != 0 || g20.P50Ns != nil || g20.MaxNs != nil || g20.IdleNs != 0 {
		t.Fatalf("stream 20 gaps %+v", g20)
	}
	// queue: depth 1 during [90,100) [120,150) [1090,1100) [1150,1200) µs of
	// the range [20, 1500); starved = idle GPU time with nothing queued
	q := must(a.LaunchQueue(Query{}))(t)
	if *q.RangeNs != 1_480_000 || *q.MaxDepth != 1 || math.Abs(*q.MeanDepth-100_000.0/1_480_000.0) > 1e-12 ||
		q.Depth0Ns != 1_380_000 || q.StarvedNs != 830_000 {
		t.Fatalf("queue %+v", q)
	}
	// an empty window: no span, no range
	empty := Query{T0Ns: i64(base + 1_600_000), T1Ns: i64(base + 1_700_000)}
	if q := must(a.LaunchQueue(empty))(t); q.RangeNs != nil || q.MaxDepth != nil || q.MeanDepth != nil {
		t.Fatalf("empty window queue %+v", q)
	}
	if l := must(a.LaunchLatency(empty))(t); l.Ops != 0 || l.MinNs != nil || l.MeanNs() != nil || l.ShortKernelShare != nil {
		t.Fatalf("empty window latency %+v", l)
	}
	if _, err := a.LaunchGaps(Query{Step: i64(9)}); !errors.Is(err, ErrInvalid) {
		t.Fatalf("bad step: %v", err)
	}
}

func TestTinyCommAndFSDP(t *testing.T) {
	a, _ := New()
	defer a.Close()
	a.FeedFile(tinyPath())
	// one AllGather: out 2048 Float elements = 8192 B in 200 µs; bus factor (n-1)/n = 1/2
	cs := must(a.CommSplit(Query{}, SplitCollective))(t)
	if len(cs) != 1 || cs[0].Name != "AllGather" || cs[0].Count != 1 || cs[0].CommNs != 200_000 ||
		cs[0].OverlapNs != 70_000 || cs[0].ExposedNs != 130_000 || *cs[0].Bytes != 8192 || *cs[0].TimedNs != 200_000 ||
		math.Abs(*cs[0].AlgBWGBps-8192.0/200_000) > 1e-12 || math.Abs(*cs[0].BusBWGBps-8192.0/200_000/2) > 1e-12 {
		t.Fatalf("split by collective %+v", cs)
	}
	pg := must(a.CommSplit(Query{}, SplitProcessGroup))(t)
	if len(pg) != 1 || pg[0].Name != "" || pg[0].CommNs != 200_000 {
		t.Fatalf("split by process group %+v", pg)
	}
	if s := must(a.CommSplit(Query{Step: i64(1)}, SplitCollective))(t); len(s) != 0 {
		t.Fatalf("step 1 has no communication: %+v", s)
	}
	if _, err := a.CommSplit(Query{}, SplitBy(7)); !errors.Is(err, ErrInvalid) {
		t.Fatalf("bad split: %v", err)
	}
	// no FSDP annotations
	if u := must(a.FSDPUnits())(t); len(u) != 0 {
		t.Fatal(u)
	}
	if u := must(a.FSDPUnitsIn(Query{Step: i64(0)}))(t); len(u) != 0 {
		t.Fatal(u)
	}
	bw := must(a.Backward())(t)
	if bw != (Backward{Pattern: BackwardUnknown}) || bw.Pattern.String() != "unknown" {
		t.Fatalf("%+v %s", bw, bw.Pattern)
	}
	if s := must(a.BackwardSteps())(t); len(s) != 0 {
		t.Fatal(s)
	}
	if _, err := a.BackwardUnits(0); !errors.Is(err, ErrInvalid) {
		t.Fatalf("backward units of a missing step: %v", err)
	}
	for p, name := range map[BackwardPattern]string{BackwardZigzag: "zigzag", BackwardNoPrefetch: "no_prefetch",
		BackwardSerialized: "serialized"} {
		if p.String() != name {
			t.Errorf("%d: %q", int(p), p.String())
		}
	}
}

func TestTinySyncAndMemoryAbsent(t *testing.T) {
	a, _ := New()
	defer a.Close()
	a.FeedFile(tinyPath())
	if w := must(a.SyncWaits(Query{}))(t); len(w) != 0 {
		t.Fatal(w)
	}
	if c := must(a.SyncCalls(Query{}))(t); len(c) != 0 {
		t.Fatal(c)
	}
	rows := must(a.SyncSteps(Query{}))(t)
	zero := 0.0
	want := []SyncStep{{Index: 0, Number: 5, StepDurNs: 1_000_000, Share: &zero},
		{Index: 1, Number: 6, StepDurNs: 1_000_000, Share: &zero}}
	if !reflect.DeepEqual(rows, want) {
		t.Fatalf("sync steps %+v", rows)
	}
	if r := must(a.SyncSteps(Query{Step: i64(1)}))(t); len(r) != 1 || r[0].Number != 6 {
		t.Fatalf("step 1 %+v", r)
	}
	// no [memory] events: levels absent, not 0; without reserved figures
	// warm-up is one step
	m := must(a.Memory(Query{}))(t)
	if m.MallocCalls != 0 || m.Device != nil || m.PeakAllocatedBytes != nil || m.PeakReservedBytes != nil ||
		m.Fragmentation != nil || m.MeanUnallocatedShare != nil || m.MallocBytes != nil || m.WarmupSteps != 1 ||
		m.SteadySteps != 1 || m.StartAllocatedBytes != nil {
		t.Fatalf("memory %+v", m)
	}
	if d := must(a.MemoryDevices(Query{}))(t); len(d) != 0 {
		t.Fatal(d)
	}
	if p := must(a.MemorySeries(Query{}, nil, 8))(t); len(p) != 0 {
		t.Fatal(p)
	}
	if _, err := a.MemorySeries(Query{}, nil, 0); !errors.Is(err, ErrInvalid) {
		t.Fatalf("0 buckets: %v", err)
	}
	ms := must(a.MemorySteps(Query{}))(t)
	if len(ms) != 2 || !ms[0].Warmup || ms[1].Warmup || ms[0].ReturnsToBaseline != nil || ms[1].PeakAllocatedBytes != nil ||
		ms[0].Number != 5 || ms[1].Index != 1 {
		t.Fatalf("memory steps %+v", ms)
	}
	// a closed analyzer refuses every query
	a.Close()
	if _, err := a.LaunchGaps(Query{}); !errors.Is(err, ErrState) {
		t.Fatal(err)
	}
	if _, err := a.SyncCalls(Query{}); !errors.Is(err, ErrState) {
		t.Fatal(err)
	}
	if _, err := a.Summary(); !errors.Is(err, ErrState) {
		t.Fatal(err)
	}
	if _, err := QueryCrossRank([]*Analyzer{a}); !errors.Is(err, ErrState) {
		t.Fatal(err)
	}
}

// syncTrace is a small trace with every kind of blocking call (a cuda_sync
// event of each kind, a synchronous copy with its own memcpy, a device
// free with nothing to link) and device memory events, in µs: one step
// [0, 2000) on thread 10/10; stream 20 runs before_record [150, 400) and
// after_record [400, 900), stream 7 a copy [1250, 1400).
const syncTrace = `{"schemaVersion": 1, "distributedInfo": {"rank": 0, "world_size": 1},
 "baseTimeNanoseconds": 1000000000000, "traceEvents": [
 {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1", "pid": 10, "tid": 10, "ts": 0, "dur": 2000},
 {"ph": "X", "cat": "cuda_runtime", "name": "cudaMalloc", "pid": 10, "tid": 10, "ts": 40, "dur": 20, "args": {"correlation": 30}},
 {"ph": "i", "s": "t", "cat": "cpu_instant_event", "name": "[memory]", "pid": 10, "tid": 10, "ts": 60,
  "args": {"Bytes": 1000000, "Total Allocated": 1000000, "Total Reserved": 2097152, "Device Type": 1, "Device Id": 0}},
 {"ph": "i", "s": "t", "cat": "cpu_instant_event", "name": "[memory]", "pid": 10, "tid": 10, "ts": 70,
  "args": {"Bytes": 4096, "Total Allocated": 4096, "Total Reserved": 0, "Device Type": 0, "Device Id": -1}},
 {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 10, "tid": 10, "ts": 100, "dur": 5, "args": {"correlation": 11}},
 {"ph": "X", "cat": "kernel", "name": "before_record", "pid": 0, "tid": 20, "ts": 150, "dur": 250, "args": {"device": 0, "stream": 20, "correlation": 11}},
 {"ph": "X", "cat": "cuda_runtime", "name": "cudaEventRecord", "pid": 10, "tid": 10, "ts": 200, "dur": 5, "args": {"correlation": 12}},
 {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 10, "tid": 10, "ts": 300, "dur": 5, "args": {"correlation": 13}},
 {"ph": "X", "cat": "kernel", "name": "after_record", "pid": 0, "tid": 20, "ts": 400, "dur": 500, "args": {"device": 0, "stream": 20, "correlation": 13}},
 {"ph": "X", "cat": "cuda_runtime", "name": "cudaEventSynchronize", "pid": 10, "tid": 10, "ts": 350, "dur": 100, "args": {"correlation": 14}},
 {"ph": "X", "cat": "cuda_sync", "name": "Event Sync", "pid": 0, "tid": 20, "ts": 351, "dur": 98,
  "args": {"cuda_sync_kind": "Event Sync", "correlation": 14, "device": 0, "wait_on_stream": 20, "wait_on_cuda_event_record_corr_id": 12}},
 {"ph": "i", "s": "t", "cat": "cpu_instant_event", "name": "[memory]", "pid": 10, "tid": 10, "ts": 500,
  "args": {"Bytes": 500000, "Total Allocated": 1500000, "Total Reserved": 2097152, "Device Type": 1, "Device Id": 0}},
 {"ph": "X", "cat": "cuda_runtime", "name": "cudaStreamSynchronize", "pid": 10, "tid": 10, "ts": 1000, "dur": 10, "args": {"correlation": 15}},
 {"ph": "X", "cat": "cuda_sync", "name": "Stream Sync", "pid": 0, "tid": 20, "ts": 1001, "dur": 8,
  "args": {"cuda_sync_kind": "Stream Sync", "correlation": 15, "device": 0, "stream": 20}},
 {"ph": "X", "cat": "cuda_runtime", "name": "cudaDeviceSynchronize", "pid": 10, "tid": 10, "ts": 1100, "dur": 10, "args": {"correlation": 16}},
 {"ph": "X", "cat": "cuda_sync", "name": "Context Sync", "pid": 0, "tid": 20, "ts": 1101, "dur": 8,
  "args": {"cuda_sync_kind": "Context Sync", "correlation": 16, "device": 0}},
 {"ph": "X", "cat": "cuda_runtime", "name": "cudaMemcpy", "pid": 10, "tid": 10, "ts": 1200, "dur": 300, "args": {"correlation": 17}},
 {"ph": "X", "cat": "gpu_memcpy", "name": "Memcpy DtoH (Device -> Pageable)", "pid": 0, "tid": 7, "ts": 1250, "dur": 150,
  "args": {"device": 0, "stream": 7, "correlation": 17, "bytes": 4194304}},
 {"ph": "i", "s": "t", "cat": "cpu_instant_event", "name": "[memory]", "pid": 10, "tid": 10, "ts": 1700,
  "args": {"Bytes": -1500000, "Total Allocated": 0, "Total Reserved": 2097152, "Device Type": 1, "Device Id": 0}},
 {"ph": "X", "cat": "cuda_runtime", "name": "cudaFree", "pid": 10, "tid": 10, "ts": 1800, "dur": 30, "args": {"correlation": 31}}
]}`

func TestSyncSourcesAndMemoryExact(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sync_trace.json")
	if err := os.WriteFile(path, []byte(syncTrace), 0o644); err != nil {
		t.Fatal(err)
	}
	a, _ := NewWithOptions(Options{Name: path})
	defer a.Close()
	if err := a.FeedFile(path); err != nil {
		t.Fatal(err)
	}
	calls := must(a.SyncCalls(Query{}))(t)
	type row struct {
		api      string
		source   WaitSource
		kind     string
		wide     bool
		stream   string
		waitedOp string
	}
	str := func(s *string) string {
		if s == nil {
			return "<nil>"
		}
		return *s
	}
	var got []row
	for _, c := range calls {
		got = append(got, row{c.API, c.Source, str(c.SyncKind), c.DeviceWide, gtext(c.Stream), str(c.WaitedOp)})
		if *c.Step != 1 || *c.Device != 0 || c.Pid != 10 || c.Tid != 10 {
			t.Errorf("call %+v", c)
		}
	}
	want := []row{
		// Event Sync: the stream as it was at cudaEventRecord (200 µs): before_record
		{"cudaEventSynchronize", WaitCudaSync, "Event Sync", false, "20", "before_record"},
		{"cudaStreamSynchronize", WaitCudaSync, "Stream Sync", false, "20", "after_record"},
		{"cudaDeviceSynchronize", WaitCudaSync, "Context Sync", true, "null", "after_record"},
		{"cudaMemcpy", WaitOwnOp, "<nil>", false, "7", "Memcpy DtoH (Device -> Pageable)"},
		{"cudaFree", WaitInferred, "<nil>", true, "null", "Memcpy DtoH (Device -> Pageable)"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("calls:\n got  %+v\n want %+v", got, want)
	}
	c0 := calls[0]
	if c0.StartNs != base+350_000 || c0.DurNs != 100_000 || *c0.WaitedOpStartNs != base+150_000 ||
		*c0.WaitedOpEndNs != base+400_000 || *c0.WaitedOpStream != 20 {
		t.Fatalf("first call %+v", c0)
	}
	// GPU idle during the synchronous copy [1200, 1500): the copy runs
	// [1250, 1400), nothing else: 50 + 100 µs; after it nothing runs again
	if m := calls[3]; m.GPUIdleDuringNs != 150_000 || m.GPUIdleAfterNs != nil {
		t.Fatalf("cudaMemcpy idle %+v", m)
	}
	// stream / device selection
	if s := must(a.SyncCalls(Query{Stream: i64(20)}))(t); len(s) != 2 {
		t.Fatalf("stream 20: %d calls", len(s))
	}
	if s := must(a.SyncCalls(Query{Device: i64(1)}))(t); len(s) != 0 {
		t.Fatalf("device 1: %d calls", len(s))
	}
	// memory: the CPU event (Device Type 0) is not a device's
	mem := must(a.Memory(Query{}))(t)
	frag := 1 - 1_500_000.0/2_097_152.0
	if mem.MallocCalls != 1 || mem.FreeCalls != 1 || *mem.Device != 0 || mem.MemoryEvents != 3 ||
		*mem.PeakAllocatedBytes != 1_500_000 || *mem.PeakReservedBytes != 2_097_152 ||
		*mem.AllocatedAtPeakReservedBytes != 1_500_000 || math.Abs(*mem.Fragmentation-frag) > 1e-12 ||
		*mem.EndAllocatedBytes != 0 || *mem.MinAllocatedBytes != 0 || mem.AllocatedIsRelative {
		t.Fatalf("memory %+v", mem)
	}
	devs := must(a.MemoryDevices(Query{}))(t)
	if len(devs) != 1 || devs[0].DeviceType != 1 || devs[0].Device != 0 || !devs[0].Primary || devs[0].Events != 3 {
		t.Fatalf("devices %+v", devs)
	}
	// one bucket: its max is the exact peak, its last the final level
	pts := must(a.MemorySeries(Query{}, nil, 1))(t)
	if len(pts) != 1 || *pts[0].AllocatedMax != 1_500_000 || *pts[0].AllocatedLast != 0 ||
		*pts[0].ReservedMax != 2_097_152 || pts[0].Events != 3 || pts[0].T0Ns != base+60_000 {
		t.Fatalf("series %+v", pts)
	}
	if p := must(a.MemorySeries(Query{}, i64(5), 4))(t); len(p) != 0 {
		t.Fatalf("device 5 has no events: %+v", p)
	}
	// many buckets: the array protocol grows past its first answer
	if p := must(a.MemorySeries(Query{}, i64(0), 1000))(t); len(p) < 2 || len(p) > 1000 {
		t.Fatalf("%d points", len(p))
	}
	// and the whole report agrees with every query
	checkTraceAgainstCLI(t, path)
}

func TestQueriesChunkedFeeding(t *testing.T) {
	// queries answer between feeds; the trace fed in 8 KiB chunks gives the
	// same answers as the file read by the library
	path := genScenario(t, 0) // mixed
	a, _ := New()
	defer a.Close()
	if err := a.FeedFile(path); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	b, _ := New()
	defer b.Close()
	buf := make([]byte, 8192)
	seen := 0
	for {
		n, rerr := f.Read(buf)
		if n > 0 {
			if err := b.Feed(buf[:n]); err != nil {
				t.Fatal(err)
			}
			// queries answer between feeds, on the events so far
			if _, err := b.LaunchGaps(Query{}); err != nil {
				t.Fatal(err)
			}
			if c, err := b.SyncCalls(Query{}); err != nil {
				t.Fatal(err)
			} else if len(c) < seen {
				t.Fatalf("blocking calls went from %d to %d", seen, len(c))
			} else {
				seen = len(c)
			}
		}
		if rerr != nil {
			break
		}
	}
	if err := b.Finish(); err != nil {
		t.Fatal(err)
	}
	for _, q := range []Query{{}, {Step: i64(2)}, {Device: i64(0), Stream: i64(7)}} {
		for name, f := range map[string]func(*Analyzer) (interface{}, error){
			"gaps":    func(x *Analyzer) (interface{}, error) { return x.LaunchGaps(q) },
			"latency": func(x *Analyzer) (interface{}, error) { return x.LaunchLatency(q) },
			"queue":   func(x *Analyzer) (interface{}, error) { return x.LaunchQueue(q) },
			"split":   func(x *Analyzer) (interface{}, error) { return x.CommSplit(q, SplitCollective) },
			"units":   func(x *Analyzer) (interface{}, error) { return x.FSDPUnitsIn(q) },
			"waits":   func(x *Analyzer) (interface{}, error) { return x.SyncWaits(q) },
			"calls":   func(x *Analyzer) (interface{}, error) { return x.SyncCalls(q) },
			"steps":   func(x *Analyzer) (interface{}, error) { return x.SyncSteps(q) },
			"memory":  func(x *Analyzer) (interface{}, error) { return x.Memory(q) },
			"msteps":  func(x *Analyzer) (interface{}, error) { return x.MemorySteps(q) },
			"series":  func(x *Analyzer) (interface{}, error) { return x.MemorySeries(q, nil, 50) },
		} {
			va, ea := f(a)
			vb, eb := f(b)
			if ea != nil || eb != nil || !reflect.DeepEqual(va, vb) {
				t.Errorf("%s %+v: file %+v (%v)\n  chunks %+v (%v)", name, q, va, ea, vb, eb)
			}
		}
	}
	if seen == 0 {
		t.Fatal("no blocking call seen")
	}
	// the scenario's planted fault: some backward all-gathers not prefetched
	if bw := must(a.Backward())(t); bw.Pattern != BackwardNoPrefetch || bw.BrokenLinks == 0 {
		t.Errorf("mixed: backward %+v", bw)
	}
}
