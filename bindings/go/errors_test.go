package fsdpa

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The two error channels of fsdpa.h: calls on one context leave their
// message in fsdpa_errmsg() (cleared on entry of every call); calls without
// one context fill an fsdpa_error (status, message, input, offset) on
// failure and leave it "no error" on success.

func TestContextErrorClearedOnEntry(t *testing.T) {
	a, _ := NewWithOptions(Options{Name: "tiny"})
	defer a.Close()
	if err := a.FeedFile(tinyPath()); err != nil {
		t.Fatal(err)
	}
	if msg, off := a.lastError(); msg != "" || off != -1 {
		t.Fatalf("after a successful feed: %q at %d", msg, off)
	}
	err := a.SetParam("no.such.param", "1")
	var e *Error
	if !errors.As(err, &e) || e.Status != StatusInvalid || e.Input != -1 || e.Offset != -1 ||
		!strings.Contains(e.Message, "no.such.param") {
		t.Fatalf("bad param: %#v", err)
	}
	if msg, _ := a.lastError(); msg != e.Message {
		t.Fatalf("errmsg %q, error %q", msg, e.Message)
	}
	// any successful call clears it: a query, a list, a getter
	for name, call := range map[string]func() error{
		"Steps":    func() error { _, err := a.Steps(); return err },
		"Timeline": func() error { _, err := a.Timeline(Query{}); return err },
		"Stats":    func() error { _, err := a.Stats(); return err },
		"Param":    func() error { _, err := a.Param("launch.kernel_wait_ns"); return err },
	} {
		a.SetParam("no.such.param", "1")
		if err := call(); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if msg, off := a.lastError(); msg != "" || off != -1 {
			t.Errorf("after %s: errmsg %q, offset %d", name, msg, off)
		}
	}
	// an input error names the input and the offset; the next successful
	// call (a query on the events decoded before it) clears both
	b, _ := NewWithOptions(Options{Name: "bad.json"})
	defer b.Close()
	bad := []byte(`{"traceEvents": [{"ph": "X", "name": "a", "ts": 1, "dur": }]}`)
	ferr := b.Feed(bad)
	if ferr == nil {
		ferr = b.Finish()
	}
	if !errors.As(ferr, &e) || e.Status != StatusParse || e.Offset < 0 {
		t.Fatalf("parse error: %#v", ferr)
	}
	if msg, off := b.lastError(); !strings.Contains(msg, "bad.json") || off != e.Offset {
		t.Fatalf("after the parse error: %q at %d (error at %d)", msg, off, e.Offset)
	}
	if _, err := b.Stats(); err != nil {
		t.Fatal(err)
	}
	if msg, off := b.lastError(); msg != "" || off != -1 {
		t.Errorf("after a query following the parse error: %q at %d", msg, off)
	}
	if err := b.Feed([]byte("[]")); !errors.Is(err, ErrState) {
		t.Errorf("feed after an input error: %v", err)
	}
}

// Every job call (no single context) through the fsdpa_error channel, as
// the library leaves the struct: OK and "" after a success, every field
// after a failure, the status equal to the return value.
func TestJobErrors(t *testing.T) {
	type seen struct {
		ret  Status
		left Error
	}
	var calls []seen
	jobErrorSeen = func(ret Status, left Error) { calls = append(calls, seen{ret, left}) }
	defer func() { jobErrorSeen = nil }()

	dir := t.TempDir()
	sync := filepath.Join(dir, "sync_trace.json")
	if err := os.WriteFile(sync, []byte(syncTrace), 0o644); err != nil {
		t.Fatal(err)
	}
	paths := []string{tinyPath(), sync}
	var as []*Analyzer
	for _, p := range paths {
		a, _ := NewWithOptions(Options{Name: p})
		defer a.Close()
		if err := a.FeedFile(p); err != nil {
			t.Fatal(err)
		}
		as = append(as, a)
	}
	// successes
	must(ReportMany(as, paths, FormatText))(t)
	must(ReportFindings(as))(t)
	must(QueryCrossRank(as))(t)
	must(QueryCrossRankRanks(as))(t)
	s0, s1 := must(as[0].Summary())(t), must(as[1].Summary())(t)
	merged := must(SummaryMerge(s0, s1))(t)
	must(SummaryReport(merged))(t)
	must(SummaryFindings(merged))(t)
	must(AnnotateEvents(as, 1))(t)
	if err := AnnotateFile(as, 1, sync, filepath.Join(dir, "annotated.json"), AnnotateOptions{}); err != nil {
		t.Fatal(err)
	}
	ok := len(calls)
	if ok != 9 {
		t.Fatalf("%d job calls seen, 9 made", ok)
	}

	expect := func(what string, err error, st Status) *Error {
		t.Helper()
		var e *Error
		if !errors.As(err, &e) || e.Status != st || e.Message == "" || e.Message == st.String() {
			t.Errorf("%s: want %s with the library's message, got %#v", what, st, err)
			return &Error{Input: -2, Offset: -2}
		}
		return e
	}
	// a bad summary: which one, where in it, what
	bad := `{"schema": "fsdpa.summary/1", "ranks": [}`
	if e := expect("merge good+bad", must2(SummaryMerge(s0, bad)), StatusParse); e.Input != 1 ||
		e.Offset < 0 || e.Offset > int64(len(bad)) {
		t.Errorf("merge of a bad second summary: input %d offset %d (%q)", e.Input, e.Offset, e.Message)
	}
	if e := expect("merge bad", must2(SummaryMerge("{not a summary")), StatusParse); e.Input != 0 || e.Offset < 0 {
		t.Errorf("merge of a bad first summary: input %d offset %d", e.Input, e.Offset)
	}
	if e := expect("report of a bad summary", must2(SummaryReport("[]")), StatusParse); e.Offset < 0 {
		t.Errorf("report of a bad summary: offset %d", e.Offset)
	}
	expect("findings of a bad summary", must2(SummaryFindings(bad)), StatusParse)
	expect("merge over the cap", must2((SummaryOptions{MaxMemoryBytes: 4096}).Merge(s0, s1)), StatusLimit)
	// annotate: not the trace the context read, an index past the contexts
	expect("annotate another trace", AnnotateFile(as, 1, tinyPath(), filepath.Join(dir, "x.json"), AnnotateOptions{}),
		StatusInvalid)
	expect("annotate index 2 of 2", must2(AnnotateEvents(as, 2)), StatusInvalid)
	expect("annotate a missing file", AnnotateFile(as, 1, filepath.Join(dir, "missing.json"), filepath.Join(dir, "y.json"),
		AnnotateOptions{}), StatusIO)
	// a report format the library does not have
	expect("report format 9", must2(ReportMany(as, paths, Format(9))), StatusInvalid)

	for i, c := range calls {
		switch {
		case i < ok && (c.ret != StatusOK || c.left.Status != StatusOK || c.left.Message != ""):
			t.Errorf("call %d succeeded (%s), fsdpa_error left %+v", i, c.ret, c.left)
		case i >= ok && (c.ret == StatusOK || c.left.Status != c.ret || c.left.Message == ""):
			t.Errorf("call %d failed with %s, fsdpa_error left %+v", i, c.ret, c.left)
		}
	}
	if len(calls) != ok+9 {
		t.Errorf("%d failing job calls reached the library, 9 made", len(calls)-ok)
	}
}

// must2 is the error of a (value, error) pair.
func must2[T any](_ T, err error) error { return err }
