package fsdpa

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"testing"
)

// The query's fields mask (fsdpa.h: a selector counts only when its bit is
// set, a zeroed query is the whole trace, NULL means the same), through
// every query family: the Go zero Query, a NULL query and a query whose
// unset selectors hold nonsense give the same answers.

// queryCalls is every query of an analyzer that takes an fsdpa_query.
func queryCalls(a *Analyzer) map[string]func(cQueryPtr) (interface{}, error) {
	return map[string]func(cQueryPtr) (interface{}, error){
		"timeline":  func(q cQueryPtr) (interface{}, error) { return a.timeline(q) },
		"overlap":   func(q cQueryPtr) (interface{}, error) { return a.overlap(q) },
		"gaps":      func(q cQueryPtr) (interface{}, error) { return a.launchGaps(q) },
		"latency":   func(q cQueryPtr) (interface{}, error) { return a.launchLatency(q) },
		"queue":     func(q cQueryPtr) (interface{}, error) { return a.launchQueue(q) },
		"split_ct":  func(q cQueryPtr) (interface{}, error) { return a.commSplit(q, SplitCollective) },
		"split_pg":  func(q cQueryPtr) (interface{}, error) { return a.commSplit(q, SplitProcessGroup) },
		"units":     func(q cQueryPtr) (interface{}, error) { return a.fsdpUnits(q) },
		"waits":     func(q cQueryPtr) (interface{}, error) { return a.syncWaits(q) },
		"calls":     func(q cQueryPtr) (interface{}, error) { return a.syncCalls(q) },
		"syncsteps": func(q cQueryPtr) (interface{}, error) { return a.syncSteps(q) },
		"memory":    func(q cQueryPtr) (interface{}, error) { return a.memory(q) },
		"mdevices":  func(q cQueryPtr) (interface{}, error) { return a.memoryDevices(q) },
		"series":    func(q cQueryPtr) (interface{}, error) { return a.memorySeries(q, nil, 40) },
		"msteps":    func(q cQueryPtr) (interface{}, error) { return a.memorySteps(q) },
	}
}

func sortedCalls(m map[string]func(cQueryPtr) (interface{}, error)) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// Nonsense for the selectors whose bit is not set: honoured, each would
// change the answer (an empty window, a step that does not exist, a device
// and a stream no trace has).
const (
	junkT0     = int64(1) << 62
	junkT1     = int64(5)
	junkStep   = int64(9999)
	junkDevice = int64(7777)
	junkStream = int64(8888)
)

func checkZeroQuery(t *testing.T, path string) {
	a, err := NewWithOptions(Options{Name: path})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	if err := a.FeedFile(path); err != nil {
		t.Fatal(err)
	}
	calls := queryCalls(a)
	steps := must(a.Steps())(t)
	streams := must(a.Streams())(t)
	n := 0
	for _, name := range sortedCalls(calls) {
		f := calls[name]
		null, nerr := f(nil)
		zero, zerr := f(Query{}.c())
		junk, jerr := f(rawQuery(0, junkT0, junkT1, junkStep, junkDevice, junkStream))
		if nerr != nil || zerr != nil || jerr != nil {
			t.Fatalf("%s: NULL %v, zero %v, junk %v", name, nerr, zerr, jerr)
		}
		if !reflect.DeepEqual(null, zero) || !reflect.DeepEqual(null, junk) {
			t.Errorf("%s: NULL query %+v\n  zero query %+v\n  unset selectors with values %+v", name, null, zero, junk)
		}
		n++
		// each selector by its bit alone: the other members' values are ignored
		if len(steps) > 0 {
			i := int64(len(steps) - 1)
			want, werr := f(Query{}.WithStep(i).c())
			got, gerr := f(rawQuery(QueryStep, junkT0, junkT1, i, junkDevice, junkStream))
			if werr != nil || gerr != nil || !reflect.DeepEqual(want, got) {
				t.Errorf("%s step %d: %+v (%v) vs raw %+v (%v)", name, i, want, werr, got, gerr)
			}
			t0, t1 := steps[0].StartNs, steps[i].StartNs+steps[i].DurNs/2
			want, werr = f(Query{}.WithWindow(t0, t1).c())
			got, gerr = f(rawQuery(QueryT0|QueryT1, t0, t1, junkStep, junkDevice, junkStream))
			if werr != nil || gerr != nil || !reflect.DeepEqual(want, got) {
				t.Errorf("%s window: %+v (%v) vs raw %+v (%v)", name, want, werr, got, gerr)
			}
			n += 2
		}
		if len(streams) > 0 {
			s := streams[len(streams)-1]
			want, werr := f(Query{}.WithDevice(s.Device).WithStream(s.Stream).c())
			got, gerr := f(rawQuery(QueryDevice|QueryStream, junkT0, junkT1, junkStep, s.Device, s.Stream))
			if werr != nil || gerr != nil || !reflect.DeepEqual(want, got) {
				t.Errorf("%s device/stream: %+v (%v) vs raw %+v (%v)", name, want, werr, got, gerr)
			}
			n++
		}
	}
	// the junk step, once its bit is set, is refused: the ignored values above
	// were not harmless by accident
	if _, err := a.timeline(rawQuery(QueryStep, 0, 0, junkStep, 0, 0)); !errors.Is(err, ErrInvalid) {
		t.Errorf("step %d with its bit: %v", junkStep, err)
	}
	// the FSDP units without a query are the whole trace's
	if in, whole := must(a.FSDPUnitsIn(Query{}))(t), must(a.FSDPUnits())(t); !reflect.DeepEqual(in, whole) {
		t.Errorf("FSDPUnitsIn(Query{}) %+v != FSDPUnits() %+v", in, whole)
	}
	fmt.Printf("# %s: %d query families, %d comparisons of NULL / zero / raw queries\n",
		filepath.Base(path), len(calls), n)
}

func TestZeroQueryIsNoQuery(t *testing.T) {
	t.Run("tiny", func(t *testing.T) { checkZeroQuery(t, tinyPath()) })
	t.Run("sync_trace", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "sync_trace.json")
		if err := os.WriteFile(path, []byte(syncTrace), 0o644); err != nil {
			t.Fatal(err)
		}
		checkZeroQuery(t, path)
	})
	for i := range scenarios {
		i := i
		t.Run(scenarios[i].name, func(t *testing.T) { checkZeroQuery(t, genScenario(t, i)) })
	}
	t.Run("sample", func(t *testing.T) { checkZeroQuery(t, samplePath()) })
}

func TestQueryFields(t *testing.T) {
	if f := (Query{}).Fields(); f != 0 {
		t.Errorf("zero query fields %#x", f)
	}
	q := Query{}.WithWindow(10, 20).WithStep(1).WithDevice(0).WithStream(7)
	if q.Fields() != QueryT0|QueryT1|QueryStep|QueryDevice|QueryStream || *q.T0Ns != 10 || *q.T1Ns != 20 ||
		*q.Step != 1 || *q.Device != 0 || *q.Stream != 7 {
		t.Errorf("%+v fields %#x", q, q.Fields())
	}
	if q := (Query{}).WithT1(5); q.Fields() != QueryT1 || q.T0Ns != nil {
		t.Errorf("T1 only: %+v", q)
	}
	if q := (Query{}).WithT0(5); q.Fields() != QueryT0 || q.T1Ns != nil {
		t.Errorf("T0 only: %+v", q)
	}
	// the methods return a copy: the receiver is unchanged
	base := Query{}
	_ = base.WithStep(3)
	if base.Step != nil {
		t.Error("WithStep changed its receiver")
	}
	// device 0 is a selector like any other: set, it counts (its bit)
	if m := cQueryMembers(Query{}.WithDevice(0)); m["fields"] != int64(QueryDevice) || m["device"] != 0 {
		t.Errorf("device 0: %v", m)
	}
	a, _ := New()
	defer a.Close()
	if err := a.FeedFile(tinyPath()); err != nil {
		t.Fatal(err)
	}
	// a query struct below the first released size is refused (size 0 no
	// longer means "current")
	for _, n := range []uintptr{0, 8, 16} {
		if _, err := a.timeline(withSize(Query{}.c(), n)); !errors.Is(err, ErrInvalid) {
			t.Errorf("fsdpa_query.size %d: %v", n, err)
		}
	}
	// the tiny trace's step 1 through the methods, as by the fields
	if tl := must(a.Timeline(Query{}.WithStep(1)))(t); !reflect.DeepEqual(tl, must(a.Timeline(Query{Step: i64(1)}))(t)) {
		t.Errorf("WithStep(1) %+v", tl)
	}
	// a device no trace has: nothing selected (not the whole trace)
	if tl := must(a.Timeline(Query{}.WithDevice(junkDevice)))(t); tl.BusyNs != 0 || tl.Activities != 0 || tl.SpanNs != nil {
		t.Errorf("device %d: %+v", junkDevice, tl)
	}
}
