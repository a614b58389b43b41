package fsdpa

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"
)

// The hand-written trace whose numbers are known exactly
// (bindings/testdata/README.md).
func checkTiny(t *testing.T, a *Analyzer) {
	t.Helper()
	ti, err := a.TraceInfo()
	if err != nil || *ti.Rank != 1 || *ti.WorldSize != 2 || *ti.BaseTimeNs != base {
		t.Fatalf("trace info %+v %v", ti, err)
	}
	steps, err := a.Steps()
	want := []Step{{5, base, 1_000_000}, {6, base + 1_000_000, 1_000_000}}
	if err != nil || !reflect.DeepEqual(steps, want) {
		t.Fatalf("steps %+v %v", steps, err)
	}
	streams, err := a.Streams()
	wantS := []Stream{
		{0, 7, RoleCompute, 3, 0, 1, 460_000, i64(base + 20_000), i64(base + 1_500_000)},
		{0, 20, RoleCommunication, 1, 1, 0, 200_000, i64(base + 100_000), i64(base + 300_000)},
	}
	if err != nil || !reflect.DeepEqual(streams, wantS) {
		t.Fatalf("streams %+v %v", streams, err)
	}
	tl, err := a.Timeline(Query{})
	if err != nil || *tl.SpanNs != 1_480_000 || tl.BusyNs != 590_000 || tl.Activities != 5 ||
		math.Abs(*tl.Density-590_000.0/1_480_000.0) > 1e-12 {
		t.Fatalf("timeline %+v %v", tl, err)
	}
	t0, err := a.Timeline(Query{Step: i64(0)})
	if err != nil || *t0.SpanNs != 280_000 || t0.BusyNs != 280_000 || t0.Activities != 3 || *t0.Density != 1.0 {
		t.Fatalf("step 0 timeline %+v %v", t0, err)
	}
	t20, err := a.Timeline(Query{Stream: i64(20)})
	if err != nil || *t20.SpanNs != 200_000 || t20.BusyNs != 200_000 || t20.Activities != 1 {
		t.Fatalf("stream 20 timeline %+v %v", t20, err)
	}
	empty, err := a.Timeline(Query{T0Ns: i64(base + 2_000_000), T1Ns: i64(base + 3_000_000)})
	if err != nil || empty.SpanNs != nil || empty.Density != nil || empty.BusyNs != 0 {
		t.Fatalf("empty window %+v %v", empty, err)
	}
	st, err := a.Stats()
	if err != nil || st.Events != 13 || st.Kernels != 4 || st.GPUMemcpy != 1 || st.Runtime != 5 {
		t.Fatalf("stats %+v %v", st, err)
	}
}

func tinyBytes(t *testing.T) []byte {
	b, err := os.ReadFile(tinyPath())
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestChunkings(t *testing.T) {
	data := tinyBytes(t)
	for _, chunk := range []int{1, 7, 4096} {
		a, err := New()
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < len(data); i += chunk {
			j := i + chunk
			if j > len(data) {
				j = len(data)
			}
			if err := a.Feed(data[i:j]); err != nil {
				t.Fatal(err)
			}
		}
		if err := a.Finish(); err != nil {
			t.Fatal(err)
		}
		checkTiny(t, a)
		a.Close()
	}
}

func TestReaderWriterFile(t *testing.T) {
	a, _ := New()
	defer a.Close()
	if err := a.FeedFile(tinyPath()); err != nil {
		t.Fatal(err)
	}
	checkTiny(t, a)

	b, _ := New()
	defer b.Close()
	n, err := b.readFrom(bytes.NewReader(tinyBytes(t)), 100)
	if err != nil || n != int64(len(tinyBytes(t))) {
		t.Fatal(n, err)
	}
	b.Finish()
	checkTiny(t, b)

	c, _ := New()
	defer c.Close()
	f, _ := os.Open(tinyPath())
	defer f.Close()
	if _, err := c.ReadFrom(f); err != nil { // what io.Copy(c, f) calls
		t.Fatal(err)
	}
	c.Finish()
	checkTiny(t, c)
}

// The input decodes events in batches (when its 512 KiB window fills, or
// once its scanner has passed the end of the event array): with all but the
// closing brace fed, every event is queryable before Finish.
func TestQueriesBetweenFeeds(t *testing.T) {
	data := tinyBytes(t)
	cut := bytes.LastIndexByte(data, '}')
	a, _ := New()
	defer a.Close()
	a.Feed(data[:cut])
	checkTiny(t, a)
	a.Feed(data[cut:])
	if err := a.Finish(); err != nil {
		t.Fatal(err)
	}
	checkTiny(t, a)
}

func TestReportAccessors(t *testing.T) {
	a, _ := NewWithOptions(Options{Name: "tiny"})
	defer a.Close()
	a.FeedFile(tinyPath())
	r, err := a.Result()
	if err != nil {
		t.Fatal(err)
	}
	if r.Schema != "fsdpa.report/1" || r.Version != Version() || r.Inputs[0].Path != "tiny" ||
		r.Inputs[0].Rank != 1 || *r.Inputs[0].WorldSize != 2 {
		t.Fatalf("header %+v", r)
	}
	rk := r.Ranks[0]
	if *rk.SpanNs != 1_480_000 || !reflect.DeepEqual(rk.Steps, []ReportStep{
		{"ProfilerStep#5", base, 1_000_000}, {"ProfilerStep#6", base + 1_000_000, 1_000_000}}) ||
		!reflect.DeepEqual(rk.Streams, []ReportStream{{0, 7, "compute", 3, 460_000}, {0, 20, "communication", 1, 200_000}}) {
		t.Fatalf("rank %+v", rk)
	}
	for _, f := range r.Findings {
		rs, err := f.Ranges()
		if err != nil {
			t.Fatal(err)
		}
		for _, x := range rs {
			if x.StartNs > x.EndNs {
				t.Fatal(f.ID, x)
			}
		}
	}
	var generic map[string]interface{}
	if err := json.Unmarshal([]byte(r.JSON), &generic); err != nil {
		t.Fatal(err)
	}
	txt, err := a.Report(FormatText)
	if err != nil || !strings.Contains(txt, "ProfilerStep") {
		t.Fatal(txt, err)
	}
}

func TestParseErrorOffset(t *testing.T) {
	bad := []byte(`{"traceEvents": [{"ph": "X", "name": "a", "ts": 1, "dur": }]}`)
	a, _ := NewWithOptions(Options{Name: "bad.json"})
	defer a.Close()
	err := a.Feed(bad)
	if err == nil {
		err = a.Finish()
	}
	var e *Error
	if !errors.As(err, &e) || !errors.Is(err, ErrParse) || e.Status != StatusParse {
		t.Fatalf("want a parse error, got %v", err)
	}
	if e.Offset < 0 || e.Offset > int64(len(bad)) || !strings.Contains(e.Message, "bad.json") {
		t.Fatalf("offset %d message %q", e.Offset, e.Message)
	}
	if err := a.Feed([]byte("[]")); !errors.Is(err, ErrState) {
		t.Fatalf("feed after error: %v", err)
	}
	if st, _ := a.Stats(); st.Kernels != 0 {
		t.Fatal(st)
	}
}

func TestOtherErrors(t *testing.T) {
	a, _ := New()
	a.Feed(tinyBytes(t)[:200])
	if err := a.Finish(); !errors.Is(err, ErrTruncated) {
		t.Fatalf("truncated: %v", err)
	}
	a.Close()

	a, _ = New()
	err := a.Feed([]byte(`{"hello": "world"}`))
	if err == nil {
		err = a.Finish()
	}
	if !errors.Is(err, ErrNotATrace) {
		t.Fatalf("not a trace: %v", err)
	}
	a.Close()

	a, _ = New()
	err = a.SetParam("no.such.param", "1")
	var e *Error
	if !errors.As(err, &e) || e.Status != StatusInvalid || e.Offset != -1 || e.Input != -1 {
		t.Fatalf("bad param: %v", err)
	}
	a.FeedFile(tinyPath())
	if _, err := a.Timeline(Query{Step: i64(99)}); !errors.Is(err, ErrInvalid) {
		t.Fatalf("bad step: %v", err)
	}
	if _, err := a.Timeline(Query{}.WithStep(-1)); !errors.Is(err, ErrInvalid) {
		t.Fatalf("step -1: %v", err)
	}
	if err := a.Feed([]byte(" ")); !errors.Is(err, ErrState) {
		t.Fatalf("feed after finish: %v", err)
	}
	a.Close()
	a.Close()
	if _, err := a.Steps(); !errors.Is(err, ErrState) {
		t.Fatalf("closed: %v", err)
	}

	a, _ = New()
	if err := a.FeedFile("/nonexistent/trace.json"); !errors.Is(err, ErrIO) ||
		!strings.Contains(err.Error(), "/nonexistent/trace.json") {
		t.Fatalf("missing file: %v", err)
	}
	a.Close()
	if _, err := Analyze("/nonexistent/trace.json"); !errors.Is(err, ErrIO) {
		t.Fatalf("Analyze missing file: %v", err)
	}

	a, err = NewWithOptions(Options{MaxMemoryBytes: 4096})
	if err == nil {
		err = a.FeedFile(tinyPath())
		a.Close()
	}
	if !errors.Is(err, ErrLimit) {
		t.Fatalf("memory cap: %v", err)
	}
}

func TestEventsMatchJSON(t *testing.T) {
	var doc struct {
		TraceEvents []struct {
			Ph   string                 `json:"ph"`
			Cat  *string                `json:"cat"`
			Name *string                `json:"name"`
			Pid  *int64                 `json:"pid"`
			Tid  *int64                 `json:"tid"`
			Ts   *float64               `json:"ts"`
			Dur  *float64               `json:"dur"`
			Args map[string]interface{} `json:"args"`
		} `json:"traceEvents"`
	}
	if err := json.Unmarshal(tinyBytes(t), &doc); err != nil {
		t.Fatal(err)
	}
	a, _ := New()
	defer a.Close()
	a.SetTraceInfo(TraceInfo{Rank: i64(1), WorldSize: i64(2), BaseTimeNs: i64(base)})
	ns := func(f *float64) *int64 {
		if f == nil {
			return nil
		}
		return i64(int64(math.Round(*f * 1000)))
	}
	num := func(args map[string]interface{}, k string) *int64 {
		if v, ok := args[k].(float64); ok {
			return i64(int64(v))
		}
		return nil
	}
	str := func(args map[string]interface{}, k string) *string {
		if v, ok := args[k].(string); ok {
			return &v
		}
		return nil
	}
	for _, e := range doc.TraceEvents {
		ev := Event{Ph: e.Ph[0], Cat: e.Cat, Name: e.Name, Pid: e.Pid, Tid: e.Tid, TsNs: ns(e.Ts),
			DurNs: ns(e.Dur), Correlation: num(e.Args, "correlation"), ExternalID: num(e.Args, "External id"),
			Stream: num(e.Args, "stream"), Device: num(e.Args, "device"), Bytes: num(e.Args, "bytes"),
			InMsgNelems: num(e.Args, "In msg nelems"), OutMsgNelems: num(e.Args, "Out msg nelems"),
			GroupSize: num(e.Args, "Group size"), Collective: str(e.Args, "Collective name"),
			Dtype: str(e.Args, "dtype")}
		if e.Ph == "M" {
			ev.Label = str(e.Args, "name")
		}
		if err := a.AddEvent(ev); err != nil {
			t.Fatal(err)
		}
	}
	checkTiny(t, a)
	// a context given structured events only has no trace file to annotate
	out := filepath.Join(t.TempDir(), "annotated.json")
	if err := AnnotateFile([]*Analyzer{a}, 0, tinyPath(), out, AnnotateOptions{}); !errors.Is(err, ErrNotATrace) {
		t.Errorf("annotating a context fed events only: %v", err)
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("a failed annotation left its output")
	}
}

func TestCountingAllocatorAndFinalizer(t *testing.T) {
	ca := newCountingAllocator()
	defer ca.release()
	o := Options{}
	o.useAllocator(ca)
	a, err := NewWithOptions(o)
	if err != nil {
		t.Fatal(err)
	}
	a.FeedFile(tinyPath())
	if _, err := a.Result(); err != nil {
		t.Fatal(err)
	}
	if ca.liveBytes() <= 0 || ca.calls() == 0 {
		t.Fatal("the counting allocator saw nothing")
	}
	a.Close()
	if ca.liveBytes() != 0 || ca.liveBlocks() != 0 {
		t.Fatalf("after Close: %d bytes in %d blocks", ca.liveBytes(), ca.liveBlocks())
	}
	// the finalizer frees a forgotten analyzer
	func() {
		b, _ := NewWithOptions(o)
		b.Feed(tinyBytes(t))
	}()
	for i := 0; i < 10 && ca.liveBytes() != 0; i++ {
		runtime.GC()
	}
	if ca.liveBytes() != 0 {
		t.Fatalf("finalizer did not free: %d bytes", ca.liveBytes())
	}
}

func TestOverlapExact(t *testing.T) {
	// comm C = [100,300) us; compute P = [20,120) u [150,200) u [1200,1500) us
	a, _ := New()
	defer a.Close()
	a.FeedFile(tinyPath())
	o, err := a.Overlap(Query{})
	if err != nil || *o.CommNs != 200_000 || *o.ComputeNs != 450_000 || *o.OverlapNs != 70_000 ||
		*o.ExposedCommNs != 130_000 || math.Abs(*o.OverlapPct-35) > 1e-9 || o.CommKernels != 1 || o.ComputeKernels != 3 {
		t.Fatalf("%+v %v", o, err)
	}
	o1, err := a.Overlap(Query{Step: i64(1)})
	if err != nil || o1.CommNs != nil || o1.OverlapPct != nil || *o1.ComputeNs != 300_000 {
		t.Fatalf("step 1: %+v %v", o1, err)
	}
	if v, _ := a.FSDPVersion(); v != 0 {
		t.Fatal(v)
	}
}
