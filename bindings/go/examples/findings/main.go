// Command findings prints the findings of a trace (one trace per rank):
//
//	go run ./examples/findings TRACE [TRACE ...]
package main

import (
	"fmt"
	"os"

	"libfsdpa.dev/fsdpa"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: findings TRACE [TRACE ...]   (one trace per rank)")
		os.Exit(2)
	}
	rep, err := fsdpa.Analyze(os.Args[1:]...)
	if err != nil {
		fmt.Fprintln(os.Stderr, "findings:", err)
		os.Exit(3)
	}
	for _, r := range rep.Ranks {
		span := "-"
		if r.SpanNs != nil {
			span = fmt.Sprint(*r.SpanNs)
		}
		fmt.Printf("rank %d: %d steps, %d GPU streams, span %s ns\n", r.Rank, len(r.Steps), len(r.Streams), span)
	}
	if len(rep.Findings) == 0 {
		fmt.Println("no findings")
	}
	for _, f := range rep.Findings {
		step := "-"
		if f.Step != nil {
			step = fmt.Sprint(*f.Step)
		}
		fmt.Printf("%-8s %-26s rank %d step %3s  %s\n         %s\n", f.Severity, f.ID, f.Rank, step, f.Title, f.Detail)
	}
}
