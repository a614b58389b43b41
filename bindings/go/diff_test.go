package fsdpa

import (
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"testing"
)

// stepReport is a one-rank report whose ProfilerSteps last these many ns
// (the first is the warm-up).
func stepReport(steps ...int64) []byte {
	var s []string
	for i, d := range steps {
		s = append(s, fmt.Sprintf(`{"name": "ProfilerStep#%d", "start_ns": 0, "dur_ns": %d}`, i+1, d))
	}
	return []byte(fmt.Sprintf(`{"schema": "fsdpa.report/1", "ranks": [{"rank": 0, "iterations": {"count": %d}, "steps": [%s]}]}`,
		len(steps), strings.Join(s, ", ")))
}

func TestDiffSameBytesAsTheCLI(t *testing.T) {
	rep := []byte(cliReport(t, tinyPath()))
	d, err := Diff(rep, rep, DiffOptions{})
	if err != nil || d.Regressed {
		t.Fatalf("%v %v", d.Regressed, err)
	}
	out, err := exec.Command(cliPath(), "diff", "--no-progress", "-f", "json", tinyPath(), tinyPath()).Output()
	if err != nil {
		t.Fatal(err)
	}
	if d.Text != string(out) {
		t.Errorf("Diff differs from fsdpa diff:\n%s\n---\n%s", d.Text, out)
	}
}

func TestDiffGate(t *testing.T) {
	// steady steps 1000, 1010 (spread 5) -> 1100, 1110: +9.95 %
	b, n := stepReport(50, 1000, 1010), stepReport(50, 1100, 1110)
	gate := func(ppm int64) DiffOptions { return DiffOptions{FailOnRegressionPPM: &ppm} }
	d, err := Diff(b, n, gate(50000))
	if err != nil || !d.Regressed ||
		!strings.Contains(d.Text, "\"base\": 1005,\n      \"new\": 1105,\n      \"delta\": 100,\n      \"change_pct\": 9.950") {
		t.Fatalf("regressed %v (%v): %s", d.Regressed, err, d.Text)
	}
	if d, _ := Diff(b, n, gate(100000)); d.Regressed {
		t.Error("a 10 % gate crossed by 9.95 %")
	}
	if d, _ := Diff(n, b, gate(0)); d.Regressed {
		t.Error("an improvement crossed the gate")
	}
	o := gate(50000)
	o.Format = FormatText
	if d, err := Diff(b, n, o); err != nil || !strings.Contains(d.Text, "Regression gate 5%: REGRESSED") {
		t.Errorf("text: %v %s", err, d.Text)
	}
	if d, err := Diff(b, n, DiffOptions{Format: FormatHTML}); err != nil || !strings.HasPrefix(d.Text, "<!DOCTYPE html>") {
		t.Errorf("html: %v", err)
	}
}

func TestDiffErrors(t *testing.T) {
	b := stepReport(1, 2)
	_, err := Diff(b, []byte(`{"schema": "fsdpa.report/1", "ranks": [`), DiffOptions{})
	var e *Error
	if !errors.As(err, &e) || e.Status != StatusParse || e.Input != 1 || e.Offset != 39 {
		t.Errorf("a broken report: %v", err)
	}
	if _, err := Diff([]byte(`{"traceEvents": []}`), b, DiffOptions{}); !errors.As(err, &e) || e.Input != 0 {
		t.Errorf("not a report: %v", err)
	}
	neg := int64(-5)
	if _, err := Diff(b, b, DiffOptions{FailOnRegressionPPM: &neg}); !errors.As(err, &e) || e.Status != StatusInvalid {
		t.Errorf("a negative gate: %v", err)
	}
}
