package fsdpa

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"reflect"
	"testing"
)

// The binding's JSON report is byte-for-byte the CLI's
// (`fsdpa analyze --format json`), modulo inputs[].path.

func fedInChunks(t *testing.T, path string, chunk int) string {
	a, _ := NewWithOptions(Options{Name: path})
	defer a.Close()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := a.readFrom(f, chunk); err != nil {
		t.Fatal(err)
	}
	if err := a.Finish(); err != nil {
		t.Fatal(err)
	}
	s, err := a.Report(FormatJSON)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestTinySameAsCLI(t *testing.T) {
	r, err := Analyze(tinyPath())
	if err != nil {
		t.Fatal(err)
	}
	assertSame(t, r.JSON, cliReport(t, tinyPath()))
}

func TestSampleSameAsCLI(t *testing.T) {
	p := samplePath()
	fmt.Printf("# sample trace: %s\n", p)
	cli := cliReport(t, p)
	r, err := Analyze(p)
	if err != nil {
		t.Fatal(err)
	}
	if r.JSON != cli {
		t.Error("same path string: the bytes should be identical, path included")
	}
	assertSame(t, fedInChunks(t, p, 4096), cli)
	// the overlap query and the report's overlap section agree
	var ov struct {
		CommNs        *int64 `json:"comm_ns"`
		ComputeNs     *int64 `json:"compute_ns"`
		ExposedCommNs *int64 `json:"exposed_comm_ns"`
	}
	if err := json.Unmarshal(r.Ranks[0].Overlap, &ov); err != nil {
		t.Fatal(err)
	}
	a, _ := New()
	defer a.Close()
	a.FeedFile(p)
	o, err := a.Overlap(Query{})
	if err != nil || !reflect.DeepEqual([]*int64{o.CommNs, o.ComputeNs, o.ExposedCommNs},
		[]*int64{ov.CommNs, ov.ComputeNs, ov.ExposedCommNs}) {
		t.Fatalf("overlap query %+v vs report %+v (%v)", o, ov, err)
	}
	assertSame(t, fedInChunks(t, p, 65521), cli)
	f, _ := os.Open(p)
	defer f.Close()
	r2, err := AnalyzeReader(io.LimitReader(f, 1<<40), "reader")
	if err != nil {
		t.Fatal(err)
	}
	assertSame(t, r2.JSON, cli)
	if r2.Inputs[0].Path != "reader" {
		t.Error(r2.Inputs[0].Path)
	}
}

func TestMultiRankSameAsCLI(t *testing.T) {
	tp, sp := tinyPath(), samplePath()
	cli := cliReport(t, tp, sp)
	r, err := Analyze(tp, sp)
	if err != nil {
		t.Fatal(err)
	}
	assertSame(t, r.JSON, cli)
	if len(r.Inputs) != 2 {
		t.Fatal(len(r.Inputs))
	}
	a, _ := New()
	defer a.Close()
	b, _ := New()
	defer b.Close()
	a.FeedFile(tp)
	b.FeedFile(sp)
	s, err := ReportMany([]*Analyzer{a, b}, []string{"", ""}, FormatJSON)
	if err != nil {
		t.Fatal(err)
	}
	assertSame(t, s, cli)
}
