package fsdpa

import (
	"encoding/json"
	"math"
	"testing"
)

// oneGEMMStep is one 1 ms ProfilerStep holding one bf16 4096^3 GEMM of
// 200 us on an H100, with record_shapes arguments.
func oneGEMMStep(t *testing.T) *Analyzer {
	t.Helper()
	a, err := New()
	if err != nil {
		t.Fatal(err)
	}
	if err := a.SetDevice(Device{Device: 0, Name: "NVIDIA H100 80GB HBM3", SMs: i64(132),
		ComputeMajor: i64(9), ComputeMinor: i64(0)}); err != nil {
		t.Fatal(err)
	}
	s := func(v string) *string { return &v }
	bf16 := `["c10::BFloat16", "c10::BFloat16"]`
	for _, e := range []Event{
		{Ph: 'X', Cat: s("user_annotation"), Name: s("ProfilerStep#1"), Pid: i64(10), Tid: i64(1), TsNs: i64(0),
			DurNs: i64(1_000_000)},
		{Ph: 'X', Cat: s("cpu_op"), Name: s("aten::mm"), Pid: i64(10), Tid: i64(1), TsNs: i64(1000), DurNs: i64(50),
			InputDims: s("[[4096, 4096], [4096, 4096]]"), InputTypes: s(bf16)},
		{Ph: 'X', Cat: s("cuda_runtime"), Name: s("cudaLaunchKernel"), Pid: i64(10), Tid: i64(1), TsNs: i64(1010),
			DurNs: i64(5), Correlation: i64(1)},
		{Ph: 'X', Cat: s("kernel"), Name: s("sm90_gemm"), Pid: i64(0), Tid: i64(7), TsNs: i64(10_000),
			DurNs: i64(200_000), Correlation: i64(1)},
	} {
		if err := a.AddEvent(e); err != nil {
			t.Fatal(err)
		}
	}
	return a
}

func sOr(p *string) string {
	if p == nil {
		return "<nil>"
	}
	return *p
}

func TestEfficiencyKnownAnswers(t *testing.T) {
	a := oneGEMMStep(t)
	defer a.Close()
	d, err := a.Devices()
	if err != nil || len(d) != 1 || d[0].Name != "NVIDIA H100 80GB HBM3" || *d[0].SMs != 132 || d[0].TotalMemoryBytes != nil {
		t.Fatalf("devices %+v %v", d, err)
	}
	p, err := a.DevicePeak(nil)
	if err != nil || p.Model != "H100 SXM" || *p.BF16 != 989.4 {
		t.Fatalf("peak %+v %v", p, err)
	}
	if p3, err := a.DevicePeak(i64(3)); err != nil || p3.Model != "" || p3.BF16 != nil {
		t.Errorf("unknown device's peak %+v %v", p3, err)
	}
	flops := int64(2 * 4096 * 4096 * 4096)
	ops, err := a.Ops(Query{}, 0)
	if err != nil || len(ops) != 1 {
		t.Fatalf("ops %+v %v", ops, err)
	}
	o := ops[0]
	if sOr(o.Name) != "aten::mm" || sOr(o.Category) != "gemm" || sOr(o.Model) != "gemm" || sOr(o.Dtype) != "bf16" ||
		sOr(o.InputDims) != "[[4096,4096],[4096,4096]]" || *o.Flops != flops || *o.Bytes != 3*4096*4096*2 ||
		o.KernelNs != 200_000 || math.Abs(*o.TflopsPerS-float64(flops)/200_000/1000) > 1e-9 {
		t.Errorf("op row %+v", o)
	}
	e, err := a.Efficiency(Query{Step: i64(0)})
	if err != nil || *e.WindowNs != 1_000_000 || e.KernelNs != 200_000 || e.GemmNs != 200_000 || e.Flops != flops ||
		math.Abs(*e.MFU-float64(flops)/(989.4*1000)/1_000_000) > 1e-12 {
		t.Errorf("efficiency %+v %v", e, err)
	}
	steps, err := a.EfficiencySteps(Query{})
	if err != nil || len(steps) != 1 || *steps[0].Step != 1 {
		t.Errorf("efficiency steps %+v %v", steps, err)
	}
	k, err := a.Kernels(Query{}, -1, 0)
	if err != nil || len(k) != 1 || sOr(k[0].Name) != "sm90_gemm" || sOr(k[0].KernelClass) != "compute" ||
		k[0].Count != 1 || k[0].TotalNs != 200_000 {
		t.Errorf("kernels %+v %v", k, err)
	}
	if _, err := a.Kernels(Query{}, 0, 0); err == nil {
		t.Error("an FSDP unit of a trace without units is accepted")
	}
}

func TestEfficiencyTablesMatchTheReport(t *testing.T) {
	var rep struct {
		Ranks []struct {
			Kernels []struct {
				Name    *string
				Count   uint64
				TotalNs int64  `json:"total_ns"`
				P50Ns   *int64 `json:"p50_ns"`
			}
			Ops []struct {
				Name     *string
				Category *string
				KernelNs int64 `json:"kernel_ns"`
			}
		}
	}
	if err := json.Unmarshal([]byte(cliReport(t, tinyPath())), &rep); err != nil {
		t.Fatal(err)
	}
	a, err := New()
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	if err := a.FeedFile(tinyPath()); err != nil {
		t.Fatal(err)
	}
	ks, err := a.Kernels(Query{}, -1, 40)
	want := rep.Ranks[0].Kernels
	if err != nil || len(ks) != len(want) || len(ks) == 0 {
		t.Fatalf("kernels %d rows, report %d (%v)", len(ks), len(want), err)
	}
	for i, k := range ks {
		w := want[i]
		if sOr(k.Name) != sOr(w.Name) || k.Count != w.Count || k.TotalNs != w.TotalNs || *k.P50Ns != *w.P50Ns {
			t.Errorf("kernel row %d: %+v, report %+v", i, k, w)
		}
	}
	ops, err := a.Ops(Query{}, 40)
	wo := rep.Ranks[0].Ops
	if err != nil || len(ops) != len(wo) {
		t.Fatalf("ops %d rows, report %d (%v)", len(ops), len(wo), err)
	}
	for i, o := range ops {
		if sOr(o.Name) != sOr(wo[i].Name) || sOr(o.Category) != sOr(wo[i].Category) || o.KernelNs != wo[i].KernelNs {
			t.Errorf("op row %d: %+v, report %+v", i, o, wo[i])
		}
	}
}
