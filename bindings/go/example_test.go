package fsdpa_test

import (
	"fmt"
	"os"

	"libfsdpa.dev/fsdpa"
)

func ExampleAnalyze() {
	rep, err := fsdpa.Analyze("rank0.json.gz", "rank1.json.gz")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return
	}
	for _, f := range rep.Findings {
		fmt.Println(f.Severity, f.ID, f.Title)
	}
}

func ExampleAnalyzer_ReadFrom() {
	a, err := fsdpa.New()
	if err != nil {
		return
	}
	defer a.Close()
	f, _ := os.Open("rank0.json.gz")
	defer f.Close()
	if _, err := a.ReadFrom(f); err != nil { // or io.Copy(a, f)
		fmt.Println(err)
		return
	}
	if err := a.Finish(); err != nil {
		fmt.Println(err)
		return
	}
	tl, _ := a.Timeline(fsdpa.Query{})
	fmt.Println(tl.BusyNs)
}

func ExampleAnalyzer_LaunchGaps() {
	a, err := fsdpa.New()
	if err != nil {
		return
	}
	defer a.Close()
	if err := a.FeedFile("rank0.json.gz"); err != nil {
		fmt.Println(err)
		return
	}
	steps, _ := a.Steps()
	for i, s := range steps {
		g, err := a.LaunchGaps(fsdpa.Query{}.WithStep(int64(i)))
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("ProfilerStep#%d: GPU idle %d ns, %d ns waiting for the host\n", s.Number, g.GPUIdleNs, g.GPUHostWaitNs)
	}
	calls, _ := a.SyncCalls(fsdpa.Query{})
	for _, c := range calls {
		if c.WaitedOp != nil {
			fmt.Printf("%s blocked %d ns waiting for %s\n", c.API, c.DurNs, *c.WaitedOp)
		}
	}
}

func ExampleSummaryMerge() {
	var sums []string
	for _, path := range []string{"rank0.json.gz", "rank1.json.gz"} { // usually on the ranks' own hosts
		a, err := fsdpa.NewWithOptions(fsdpa.Options{Name: path})
		if err != nil {
			return
		}
		if err := a.FeedFile(path); err != nil {
			fmt.Println(err)
			a.Close()
			return
		}
		s, _ := a.Summary()
		a.Close()
		sums = append(sums, s)
	}
	merged, err := fsdpa.SummaryMerge(sums...)
	if err != nil {
		fmt.Println(err)
		return
	}
	rep, _ := fsdpa.SummaryReport(merged) // the report of both traces
	fmt.Println(len(rep.Findings))
}

func ExampleReportFindings() {
	var as []*fsdpa.Analyzer
	for _, path := range []string{"rank0.json.gz", "rank1.json.gz"} {
		a, err := fsdpa.NewWithOptions(fsdpa.Options{Name: path})
		if err != nil {
			return
		}
		defer a.Close()
		if err := a.FeedFile(path); err != nil {
			fmt.Println(err)
			return
		}
		as = append(as, a)
	}
	fl, err := fsdpa.ReportFindings(as) // typed: no JSON written or parsed
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, f := range fl.Items {
		rs, _ := f.Ranges()
		saves := "no what-if"
		if f.SavingNs != nil {
			saves = fmt.Sprintf("fixing it saves %d ns", *f.SavingNs)
		}
		fmt.Printf("%s %s rank %d: %s (%d ns, %s, %d ranges)\n", f.Severity, f.ID, f.Rank, f.Title, *f.CostNs, saves, len(rs))
	}
	if fl.Worst != nil && fl.Worst.Level() >= fsdpa.SeverityWarning.Level() {
		os.Exit(1)
	}
}
