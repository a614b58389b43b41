package fsdpa

import (
	"encoding/json"
	"fmt"
	"reflect"
	"testing"
)

// The typed findings (fsdpa_report_findings, fsdpa_summary_findings) are
// the JSON report's findings[]: same list, same order, every field, the
// evidence and its ranges included.  Only here, to compare with the report,
// is JSON parsed: the typed path itself never writes or reads JSON.

// normJSON renders a JSON text canonically (keys sorted, numbers as
// written), so two writers of the same object compare equal.
func normJSON(t *testing.T, s []byte) string {
	t.Helper()
	b, err := json.Marshal(decodeJSON(t, s))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// checkFindings compares a typed finding list with findings[] of a JSON
// report (decoded with decodeJSON) and returns the number of values compared.
func checkFindings(t *testing.T, where string, fl FindingList, rep jobj) int {
	t.Helper()
	list, ok := rep["findings"].([]interface{})
	if !ok {
		t.Fatalf("%s: the report has no findings array", where)
	}
	if len(list) != len(fl.Items) {
		t.Fatalf("%s: %d typed findings, the report has %d", where, len(fl.Items), len(list))
	}
	n := 0
	worst := -1
	for i, f := range fl.Items {
		c := cmp{t, fmt.Sprintf("%s.findings[%d]", where, i), list[i].(jobj), &n}
		c.eq("id", f.ID)
		c.eq("severity", string(f.Severity))
		if f.Rank == -1 {
			c.eq("rank", (*int64)(nil))
		} else {
			c.eq("rank", f.Rank)
		}
		c.eq("step", f.Step)
		c.eq("title", f.Title)
		c.eq("detail", f.Detail)
		c.eq("advice", f.Advice)
		c.eq("cost_ns", f.CostNs)
		c.eq("saving_ns", f.SavingNs)
		c.ratio("saving_share", f.SavingShare, 6)
		// the saving's window is the evidence's, absent with the saving
		var window *int64
		if f.SavingNs != nil {
			if ev, ok := c.raw("evidence").(jobj); ok {
				if w, ok := ev["saving_window_ns"].(json.Number); ok {
					x, err := w.Int64()
					if err != nil {
						t.Errorf("%s.evidence.saving_window_ns: %v", c.where, err)
					}
					window = &x
				}
			}
		}
		n++
		if got := gtext(must(f.SavingWindowNs())(t)); got != gtext(window) {
			t.Errorf("%s: saving window %s, the report's evidence has %s", c.where, got, gtext(window))
		}
		// the evidence object is the report's, as JSON text
		want, _ := json.Marshal(c.raw("evidence"))
		n++
		if got := normJSON(t, f.Evidence); got != normJSON(t, want) {
			t.Errorf("%s.evidence:\n  typed:  %s\n  report: %s", c.where, got, want)
		}
		// and the typed ranges are its evidence.ranges, worst first
		rs := must(f.Ranges())(t)
		var got []string
		for _, r := range rs {
			if r.StartNs > r.EndNs {
				t.Errorf("%s: range %+v", c.where, r)
			}
			got = append(got, fmt.Sprintf(`{"end_ns":%d,"start_ns":%d}`, r.EndNs, r.StartNs))
		}
		var wantR []string
		if ev, ok := c.raw("evidence").(jobj); ok {
			if l, ok := ev["ranges"].([]interface{}); ok {
				for _, r := range l {
					b, _ := json.Marshal(r)
					wantR = append(wantR, string(b))
				}
			}
		}
		n++
		if !reflect.DeepEqual(got, wantR) {
			t.Errorf("%s ranges:\n  typed:  %v\n  report: %v", c.where, got, wantR)
		}
		if l := f.Severity.Level(); l < 0 {
			t.Errorf("%s: severity %q is not one of the library's", c.where, f.Severity)
		} else if l > worst {
			worst = l
		}
	}
	n++
	if worst < 0 {
		if fl.Worst != nil {
			t.Errorf("%s: no findings, yet worst %q", where, *fl.Worst)
		}
	} else if fl.Worst == nil || fl.Worst.Level() != worst {
		t.Errorf("%s: worst %v, the findings' highest severity has level %d", where, fl.Worst, worst)
	}
	return n
}

// checkParsedFindings compares the typed findings with Report.Findings of
// the same report parsed by ParseReport (the Go types of the two roads).
func checkParsedFindings(t *testing.T, where string, fl FindingList, r *Report) {
	t.Helper()
	if len(r.Findings) != len(fl.Items) {
		t.Fatalf("%s: %d typed findings, %d parsed", where, len(fl.Items), len(r.Findings))
	}
	for i, f := range fl.Items {
		p := r.Findings[i]
		if f.ID != p.ID || f.Severity != p.Severity || f.Rank != p.Rank || gtext(f.Step) != gtext(p.Step) ||
			f.Title != p.Title || f.Detail != p.Detail || f.Advice != p.Advice || gtext(f.CostNs) != gtext(p.CostNs) || gtext(f.CostBytes) != gtext(p.CostBytes) ||
			gtext(f.SavingNs) != gtext(p.SavingNs) || fixed(f.SavingShare, -1) != fixed(p.SavingShare, -1) ||
			gtext(must(f.SavingWindowNs())(t)) != gtext(must(p.SavingWindowNs())(t)) ||
			normJSON(t, f.Evidence) != normJSON(t, p.Evidence) {
			t.Errorf("%s finding %d:\n  typed  %+v\n  parsed %+v", where, i, f, p)
		}
		tr, pr := must(f.Ranges())(t), must(p.Ranges())(t)
		if len(tr) != len(pr) || (len(tr) > 0 && !reflect.DeepEqual(tr, pr)) {
			t.Errorf("%s finding %d ranges: typed %v, parsed %v", where, i, tr, pr)
		}
	}
}

func TestFindingsMatchJSONReport(t *testing.T) {
	paths := []string{tinyPath(), samplePath()}
	for i := range scenarios {
		paths = append(paths, genScenario(t, i))
	}
	total, replayed := 0, 0
	for _, p := range paths {
		a, err := NewWithOptions(Options{Name: p})
		if err != nil {
			t.Fatal(err)
		}
		if err := a.FeedFile(p); err != nil {
			t.Fatal(err)
		}
		rep := decodeJSON(t, runCLI(t, "analyze", "--format", "json", "--no-progress", p)).(jobj)
		fl := must(a.Findings())(t)
		total += checkFindings(t, p, fl, rep)
		checkParsedFindings(t, p, fl, must(a.Result())(t))
		for _, f := range fl.Items {
			if f.SavingNs != nil {
				replayed++
			}
		}
		if again := must(ReportFindings([]*Analyzer{a}))(t); !reflect.DeepEqual(again, fl) {
			t.Errorf("%s: ReportFindings of the analyzer alone differs from Findings()", p)
		}
		a.Close()
	}
	// the what-if savings were compared, not only their absence
	if replayed == 0 {
		t.Error("no finding of the single traces carries a saving")
	}
	// several ranks: the job's findings, cross-rank ones included
	jobPaths, as := stragglerJob(t)
	rep := decodeJSON(t, runCLI(t, append([]string{"analyze", "--format", "json", "--no-progress"}, jobPaths...)...)).(jobj)
	fl := must(ReportFindings(as))(t)
	total += checkFindings(t, "straggler job", fl, rep)
	checkParsedFindings(t, "straggler job", fl, must(ParseReport(must(ReportMany(as, jobPaths, FormatJSON))(t)))(t))
	straggler := false
	for _, f := range fl.Items {
		straggler = straggler || f.ID == "straggler-rank"
	}
	if !straggler {
		t.Errorf("the straggler job has no straggler-rank finding: %+v", fl.Items)
	}
	// a merged summary has the same typed findings as the traces
	var sums []string
	for _, a := range as {
		sums = append(sums, must(a.Summary())(t))
	}
	merged := must(SummaryMerge(sums...))(t)
	sf := must(SummaryFindings(merged))(t)
	if !reflect.DeepEqual(sf, fl) {
		t.Errorf("summary findings differ from the traces':\n  summary %+v\n  traces  %+v", sf, fl)
	}
	total += checkFindings(t, "merged summary", sf, rep)
	ca := newCountingAllocator()
	defer ca.release()
	var o SummaryOptions
	o.useAllocator(ca)
	if of := must(o.Findings(merged))(t); !reflect.DeepEqual(of, sf) || ca.calls() == 0 || ca.liveBytes() != 0 {
		t.Errorf("summary findings through an allocator: %d calls, %d B left", ca.calls(), ca.liveBytes())
	}
	if _, err := SummaryFindings("{not a summary"); err == nil {
		t.Error("findings of a bad summary")
	}
	// two ranks in the other order: other ranks, same report as the CLI's
	two := []*Analyzer{as[2], as[0]}
	rep2 := decodeJSON(t, runCLI(t, "analyze", "--format", "json", "--no-progress", jobPaths[2], jobPaths[0])).(jobj)
	total += checkFindings(t, "ranks 2,0", must(ReportFindings(two))(t), rep2)
	fmt.Printf("# typed findings: %d values equal to the JSON reports' (%d replayed savings)\n", total, replayed)
}

// A trace without findings: an empty list, no worst severity.
func TestFindingsEmpty(t *testing.T) {
	a, _ := New()
	defer a.Close()
	if err := a.Feed([]byte(`{"traceEvents": []}`)); err != nil {
		t.Fatal(err)
	}
	if err := a.Finish(); err != nil {
		t.Fatal(err)
	}
	fl := must(a.Findings())(t)
	if len(fl.Items) != 0 || fl.Worst != nil {
		t.Fatalf("empty trace: %+v", fl)
	}
	if r := must(a.Result())(t); len(r.Findings) != 0 {
		t.Fatalf("empty trace: the report has %d findings", len(r.Findings))
	}
	if _, err := ReportFindings(nil); err == nil {
		t.Fatal("findings of no analyzer")
	}
}
