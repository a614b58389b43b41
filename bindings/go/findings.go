package fsdpa

/*
#include <stdlib.h>
#include <fsdpa/fsdpa.h>
*/
import "C"

import (
	"encoding/json"
	"strconv"
	"unsafe"
)

// Typed findings (fsdpa_report_findings, fsdpa_summary_findings): the
// findings of a report as the library holds them, without writing or
// parsing JSON; the same list, in the same order, as the report's
// findings[].

// Severity is how much a finding matters, by the name the report writes
// ("info", "warning", "critical"), so it reads and compares as the JSON
// report's string does.
type Severity string

// The severities (fsdpa_severity_name of the values of fsdpa_severity).
const (
	SeverityInfo     Severity = "info"     // worth knowing; nothing to fix
	SeverityWarning  Severity = "warning"  // costs time worth recovering
	SeverityCritical Severity = "critical" // the main reason the GPUs are not busy
)

// Level is the severity's value in fsdpa_severity (info 0, warning 1,
// critical 2), so severities order; -1 for a name the library does not have.
func (s Severity) Level() int {
	switch s {
	case SeverityInfo:
		return 0
	case SeverityWarning:
		return 1
	case SeverityCritical:
		return 2
	}
	return -1
}

// severityOf is the name the library gives a severity value.
func severityOf(v C.fsdpa_severity) Severity {
	return Severity(C.GoString(C.fsdpa_severity_name(v)))
}

// severityName (test support) is fsdpa_severity_name(level).
func severityName(level int) Severity { return severityOf(C.fsdpa_severity(level)) }

// FindingList is the typed findings of a report.
type FindingList struct {
	Items []Finding // in report order: cost, then severity, rank, step, id
	Worst *Severity // the highest severity among them; nil without findings (fsdpa_findings_worst)
}

// goFinding copies one fsdpa_finding: its strings and ranges belong to the
// list, so everything is copied before the list is freed.
func goFinding(f *C.fsdpa_finding) Finding {
	out := Finding{ID: C.GoString(f.id), Severity: severityOf(f.severity), Rank: int64(f.rank),
		Step: optInt(f.step), CostNs: optInt(f.cost_ns), Title: C.GoString(f.title),
		Detail: C.GoString(f.detail), Advice: C.GoString(f.advice), typed: true,
		SavingNs: optInt(f.saving_ns), SavingShare: savingShare(f.saving_ns, f.saving_window_ns),
		savingWindow: optInt(f.saving_window_ns)}
	if out.Rank == absent {
		out.Rank = -1
	}
	if f.evidence_json != nil {
		out.Evidence = json.RawMessage(C.GoString(f.evidence_json))
		// a memory finding's byte cost is in its evidence (fsdpa_finding
		// has no field for it); the JSON report writes it beside cost_ns
		var ev struct {
			CostBytes *int64 `json:"cost_bytes"`
		}
		if json.Unmarshal(out.Evidence, &ev) == nil {
			out.CostBytes = ev.CostBytes
		}
	}
	if n := int(f.nranges); n > 0 && f.ranges != nil {
		out.ranges = make([]Range, n)
		for i, r := range unsafe.Slice(f.ranges, n) {
			out.ranges[i] = Range{StartNs: int64(r.start_ns), EndNs: int64(r.end_ns)}
		}
	}
	return out
}

// savingShare is the report's saving_share: the saving over the window it
// was measured over, rounded as the report writes a ratio (6 decimals), so a
// typed finding carries the value its JSON twin parses to; nil without a
// saving, and for a negative one (the report's null).
func savingShare(saving, window C.int64_t) *float64 {
	if int64(saving) == absent || window <= 0 || saving < 0 {
		return nil
	}
	x, _ := strconv.ParseFloat(strconv.FormatFloat(float64(saving)/float64(window), 'f', 6, 64), 64)
	return &x
}

// takeFindings copies a list of findings and its worst severity, and frees it.
func takeFindings(l *C.fsdpa_list) (FindingList, error) {
	worst := int(C.fsdpa_findings_worst(l)) // before takeList frees the list
	items, err := takeList(l, C.FSDPA_LIST_FINDINGS, goFinding)
	if err != nil {
		return FindingList{}, err
	}
	out := FindingList{Items: items}
	if worst >= 0 {
		w := severityOf(C.fsdpa_severity(worst))
		out.Worst = &w
	}
	return out, nil
}

// ReportFindings returns the findings of the report over the analyzers
// (the ranks of one job, in report order), typed: the same findings in the
// same order as ReportMany's findings[], cross-rank ones included
// (fsdpa_report_findings).
func ReportFindings(as []*Analyzer) (FindingList, error) {
	base, ctxs, done, err := ctxArray(as)
	if err != nil {
		return FindingList{}, err
	}
	defer done()
	var l *C.fsdpa_list
	e := newJobError()
	if err := jobError(C.fsdpa_report_findings(base, C.size_t(len(ctxs)), &l, e), e); err != nil {
		C.fsdpa_list_free(l)
		return FindingList{}, err
	}
	return takeFindings(l)
}

// Findings returns the findings of this trace's report, typed
// (ReportFindings of this analyzer alone).
func (a *Analyzer) Findings() (FindingList, error) { return ReportFindings([]*Analyzer{a}) }
