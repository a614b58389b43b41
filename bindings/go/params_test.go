package fsdpa

import (
	"errors"
	"math"
	"reflect"
	"strconv"
	"testing"
)

// Parameters as a typed list (fsdpa_param_list), read back per context
// (fsdpa_param_get), set within their range (fsdpa_param_set).
func TestParams(t *testing.T) {
	ps := must(Params())(t)
	if len(ps) == 0 {
		t.Fatal("no parameters")
	}
	seen := map[string]bool{}
	for _, p := range ps {
		if p.Name == "" || seen[p.Name] || p.Description == "" || p.Min > p.Default || p.Default > p.Max {
			t.Errorf("parameter %+v", p)
		}
		seen[p.Name] = true
	}
	// the fixed order: twice the same list
	if again := must(Params())(t); !reflect.DeepEqual(again, ps) {
		t.Error("two parameter lists differ")
	}
	// the text is `fsdpa params`, line for line
	if cli := string(runCLI(t, "params")); ParamList() != cli {
		t.Errorf("ParamList differs from `fsdpa params`:\n%s\n--- CLI:\n%s", ParamList(), cli)
	}
	a, _ := New()
	defer a.Close()
	for _, p := range ps {
		if v := must(a.Param(p.Name))(t); v != p.Default {
			t.Errorf("%s = %d in a new context, default %d", p.Name, v, p.Default)
		}
	}
	for _, p := range ps {
		for _, v := range []int64{p.Min, p.Max, p.Default} {
			if err := a.SetParam(p.Name, strconv.FormatInt(v, 10)); err != nil {
				t.Errorf("%s=%d: %v", p.Name, v, err)
			} else if got := must(a.Param(p.Name))(t); got != v {
				t.Errorf("%s set to %d reads %d", p.Name, v, got)
			}
		}
		// out of range or not an integer: refused, the value kept
		var bad []string
		if p.Max < math.MaxInt64 {
			bad = append(bad, strconv.FormatInt(p.Max+1, 10))
		}
		if p.Min > math.MinInt64 {
			bad = append(bad, strconv.FormatInt(p.Min-1, 10))
		}
		bad = append(bad, "12abc", "")
		for _, v := range bad {
			if err := a.SetParam(p.Name, v); !errors.Is(err, ErrInvalid) {
				t.Errorf("%s=%q: %v", p.Name, v, err)
			}
			if got := must(a.Param(p.Name))(t); got != p.Default {
				t.Errorf("%s=%q refused, yet it reads %d (was %d)", p.Name, v, got, p.Default)
			}
		}
	}
	if _, err := a.Param("no.such.param"); !errors.Is(err, ErrInvalid) {
		t.Errorf("unknown parameter: %v", err)
	}
	// a parameter is what the analyses use
	if err := a.FeedFile(tinyPath()); err != nil {
		t.Fatal(err)
	}
	kw := must(a.Param("launch.kernel_wait_ns"))(t)
	if g := must(a.LaunchGaps(Query{}))(t); g.KernelWaitThresholdNs != kw {
		t.Errorf("kernel wait threshold %d, parameter %d", g.KernelWaitThresholdNs, kw)
	}
	if err := a.SetParam("launch.kernel_wait_ns", "1000"); err != nil {
		t.Fatal(err)
	}
	if g := must(a.LaunchGaps(Query{}))(t); g.KernelWaitThresholdNs != 1000 {
		t.Errorf("kernel wait threshold %d after setting 1000", g.KernelWaitThresholdNs)
	}
	// another context keeps its own value
	b, _ := New()
	defer b.Close()
	if v := must(b.Param("launch.kernel_wait_ns"))(t); v != kw {
		t.Errorf("a new context reads %d", v)
	}
	a.Close()
	if _, err := a.Param("launch.kernel_wait_ns"); !errors.Is(err, ErrState) {
		t.Errorf("closed: %v", err)
	}
}
