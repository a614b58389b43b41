package fsdpa

import (
	"encoding/json"
)

// Report is the JSON report (schema fsdpa.report/1, docs/report-contract.md).
// Sections owned by the analyses are kept as raw JSON for json.Unmarshal
// into the caller's own types.
type Report struct {
	Schema    string          `json:"schema"`
	Version   string          `json:"version"`
	Inputs    []Input         `json:"inputs"`
	Ranks     []RankReport    `json:"ranks"`
	CrossRank json.RawMessage `json:"cross_rank"`
	Findings  []Finding       `json:"findings"`
	JSON      string          `json:"-"` // the library's text, byte for byte
}

// Input is one inputs[] entry (one per rank).
type Input struct {
	Path      string `json:"path"`
	Rank      int64  `json:"rank"`
	WorldSize *int64 `json:"world_size"`
	Events    int64  `json:"events"`
	Bytes     int64  `json:"bytes"` // input bytes fed (compressed, as given)
}

// RankReport is one rank's part.  The sections are those of
// docs/report-contract.md (the authority).  0.2 added the sections from
// CommFamilies on (nil in a report without them), and inside the 0.1 ones
// launch_gaps.idle_causes (the GPU idle split into host_not_launched,
// host_blocked, stream_wait, rank_wait and unknown), launch_gaps.warmup (the
// warm-up iteration the findings leave out), launch_gaps.sampling and
// allocator.backend (native, expandable_segments, cudaMallocAsync) with its
// evidence, vmm, async_pool, pinned_host and by_api; and the finding ids
// dataloader-stall and pinned-host-churn.
type RankReport struct {
	Rank       int64           `json:"rank"`
	SpanNs     *int64          `json:"span_ns"` // last GPU end - first GPU start; nil if no GPU activity
	Steps      []ReportStep    `json:"steps"`
	Streams    []ReportStream  `json:"streams"`
	LaunchGaps json.RawMessage `json:"launch_gaps"`
	Overlap    json.RawMessage `json:"overlap"`
	FSDP       json.RawMessage `json:"fsdp"`
	SyncWaits  json.RawMessage `json:"sync_waits"`
	Allocator  json.RawMessage `json:"allocator"`

	CommFamilies json.RawMessage `json:"comm_families"` // communication kernel families and the rule that found them
	SyncClasses  json.RawMessage `json:"sync_classes"`  // runtime calls by API class, blocking by name or by behaviour
	OtherDevices json.RawMessage `json:"other_devices"` // device backends present but not analyzed
	Dataloader   json.RawMessage `json:"dataloader"`    // DataLoader ranges and the GPU idle inside them
	Workload     json.RawMessage `json:"workload"`      // parallelism labels, mode (train/prefill/decode/mixed/inference), evidence
	Iterations   json.RawMessage `json:"iterations"`    // how the iterations were found (source, rule), count, ranges
}

// ReportStep is ranks[].steps[].
type ReportStep struct {
	Name    string `json:"name"` // "ProfilerStep#N"
	StartNs int64  `json:"start_ns"`
	DurNs   int64  `json:"dur_ns"`
}

// ReportStream is ranks[].streams[].
type ReportStream struct {
	Device  int64  `json:"device"`
	Stream  int64  `json:"stream"`
	Role    string `json:"role"`
	Kernels int64  `json:"kernels"`
	BusyNs  int64  `json:"busy_ns"`
}

// Finding is one finding (ids and meanings: docs/report-contract.md): an
// element of the JSON report's findings[] (Report.Findings), or the same
// finding typed by the library (ReportFindings, fsdpa_finding).
type Finding struct {
	ID       string   `json:"id"`
	Severity Severity `json:"severity"` // "info", "warning" or "critical"
	Rank     int64    `json:"rank"`     // the rank it is about (typed findings: -1 for a job-wide one)
	Step     *int64   `json:"step"`     // ProfilerStep number; nil for rank-wide findings
	Title    string   `json:"title"`
	Detail   string   `json:"detail"`
	Advice   string   `json:"advice"`
	CostNs   *int64   `json:"cost_ns"` // the time the problem costs
	// CostBytes is a memory finding's cost in bytes (allocator-fragmentation); nil on others.
	CostBytes *int64 `json:"cost_bytes,omitempty"`
	// SavingNs is what fixing it would save: the latest end of the work of
	// its judged window as recorded, minus the same after replaying the
	// rank's dependency graph with the finding's edges removed (recomputed
	// through every dependency; docs/report-contract.md "What-if"); nil where
	// the fix is not replayed (cross-rank findings, memory costs, the
	// backward schedule).  SavingWindowNs is the window's length.
	SavingNs *int64 `json:"saving_ns"`
	// SavingShare is SavingNs over the window's length, as the report writes
	// it (6 decimals); nil with SavingNs, and for a negative saving.
	SavingShare *float64        `json:"saving_share"`
	Evidence    json.RawMessage `json:"evidence"` // the numbers that triggered it (incl. "ranges"), as JSON text

	typed        bool    // read from fsdpa_finding: ranges and savingWindow hold its own values
	ranges       []Range // typed ranges, worst first
	savingWindow *int64  // typed fsdpa_finding.saving_window_ns
}

// Range is a time range a viewer should jump to: absolute ns, [StartNs, EndNs).
type Range struct {
	StartNs int64 `json:"start_ns"`
	EndNs   int64 `json:"end_ns"`
}

// Ranges returns evidence.ranges, worst first: for a typed finding the
// library's fsdpa_finding.ranges, for a finding of the JSON report its
// evidence parsed.
func (f *Finding) Ranges() ([]Range, error) {
	if f.typed {
		return append([]Range(nil), f.ranges...), nil
	}
	var ev struct {
		Ranges []Range `json:"ranges"`
	}
	if len(f.Evidence) == 0 || string(f.Evidence) == "null" {
		return nil, nil
	}
	err := json.Unmarshal(f.Evidence, &ev)
	return ev.Ranges, err
}

// SavingWindowNs returns the length of the window SavingNs was measured
// over, nil with SavingNs: for a typed finding the library's
// fsdpa_finding.saving_window_ns, for a finding of the JSON report its
// evidence.saving_window_ns.
func (f *Finding) SavingWindowNs() (*int64, error) {
	if f.typed {
		return f.savingWindow, nil
	}
	if f.SavingNs == nil || len(f.Evidence) == 0 || string(f.Evidence) == "null" {
		return nil, nil
	}
	var ev struct {
		SavingWindowNs *int64 `json:"saving_window_ns"`
	}
	err := json.Unmarshal(f.Evidence, &ev)
	return ev.SavingWindowNs, err
}

// ParseReport parses the text fsdpa_report() wrote in JSON format.
func ParseReport(s string) (*Report, error) {
	r := &Report{JSON: s}
	if err := json.Unmarshal([]byte(s), r); err != nil {
		return nil, err
	}
	return r, nil
}
