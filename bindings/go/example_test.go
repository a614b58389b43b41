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
