//! Reports and findings.  The report is the library's text (JSON schema
//! `fsdpa.report/1`, docs/report-contract.md; or text, or HTML); the
//! findings are typed, read from `fsdpa_report_findings()` /
//! `fsdpa_summary_findings()`: the same list, in the same order, as the JSON
//! report's `findings[]`, with nothing parsed here.
use crate::error::cstr;
use crate::list::{List, ListItem};
use crate::sys;
use std::fmt;

/// Severity of a finding (`fsdpa_severity`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Severity {
    /// "info": worth knowing; nothing to fix
    Info,
    /// "warning": costs time worth recovering
    Warning,
    /// "critical": the main reason the GPUs are not busy
    Critical,
}

impl Severity {
    /// The severity of a C value.  A value this binding does not know (a
    /// newer library) is read as the nearest known one, so an unknown
    /// higher severity still sorts above `Warning`.
    pub fn from_raw(s: sys::fsdpa_severity) -> Severity {
        match s.0 {
            i32::MIN..=0 => Severity::Info,
            1 => Severity::Warning,
            _ => Severity::Critical,
        }
    }
    /// The C value.
    pub fn raw(self) -> sys::fsdpa_severity {
        match self {
            Severity::Info => sys::FSDPA_SEVERITY_INFO,
            Severity::Warning => sys::FSDPA_SEVERITY_WARNING,
            Severity::Critical => sys::FSDPA_SEVERITY_CRITICAL,
        }
    }
    /// The library's name (`fsdpa_severity_name()`): "info", "warning",
    /// "critical", as in the JSON report.
    pub fn name(self) -> &'static str {
        // SAFETY: the function returns a static NUL-terminated string.
        let p = unsafe { sys::fsdpa_severity_name(self.raw()) };
        if p.is_null() {
            return "";
        }
        unsafe { std::ffi::CStr::from_ptr(p) }
            .to_str()
            .unwrap_or("")
    }
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A time range a viewer should jump to: absolute ns, `[start_ns, end_ns)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Range {
    /// start (absolute ns)
    pub start_ns: i64,
    /// end (absolute ns, exclusive)
    pub end_ns: i64,
}

/// One finding (`fsdpa_finding`; ids and what each cost measures:
/// docs/report-contract.md).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Finding {
    /// stable id, e.g. "exposed-comm", "straggler-rank"
    pub id: String,
    /// severity
    pub severity: Severity,
    /// the rank the finding is about; `None` for a job-wide finding
    pub rank: Option<i64>,
    /// ProfilerStep number it is about; `None` = the whole trace
    pub step: Option<i64>,
    /// one line
    pub title: String,
    /// the numbers it rests on, in sentences
    pub detail: String,
    /// what to do, chosen from the evidence
    pub advice: String,
    /// the time it costs (the finding's own definition; findings are
    /// ordered by it); `None` if the library marks it absent
    pub cost_ns: Option<i64>,
    /// what fixing it would save: the latest end of the work of its judged
    /// window as recorded, minus the same after replaying the rank's
    /// dependency graph with the finding's edges removed (recomputed through
    /// every dependency; docs/report-contract.md "What-if"); `None` where
    /// the fix is not replayed (cross-rank findings, memory costs, the
    /// backward schedule): the report's `saving_ns`
    pub saving_ns: Option<i64>,
    /// the length of the window `saving_ns` was measured over (the
    /// evidence's `saving_window_ns`); `None` with `saving_ns`
    pub saving_window_ns: Option<i64>,
    /// its `evidence` object as the library's JSON text (ranges included)
    pub evidence_json: String,
    /// the evidence time ranges, worst first
    pub ranges: Vec<Range>,
}

impl ListItem for Finding {
    type Raw = sys::fsdpa_finding;
    const KIND: sys::fsdpa_list_kind = sys::FSDPA_LIST_FINDINGS;
    fn blank() -> sys::fsdpa_finding {
        sys::fsdpa_finding::sized()
    }
    unsafe fn from_raw(f: &sys::fsdpa_finding) -> Finding {
        let ranges = if f.nranges == 0 || f.ranges.is_null() {
            Vec::new()
        } else {
            std::slice::from_raw_parts(f.ranges, f.nranges)
                .iter()
                .map(|r| Range {
                    start_ns: r.start_ns,
                    end_ns: r.end_ns,
                })
                .collect()
        };
        let opt = |v: i64| (v != sys::FSDPA_ABSENT).then_some(v);
        Finding {
            id: cstr(f.id),
            severity: Severity::from_raw(f.severity),
            rank: opt(f.rank),
            step: opt(f.step),
            title: cstr(f.title),
            detail: cstr(f.detail),
            advice: cstr(f.advice),
            cost_ns: opt(f.cost_ns),
            saving_ns: opt(f.saving_ns),
            saving_window_ns: opt(f.saving_window_ns),
            evidence_json: cstr(f.evidence_json),
            ranges,
        }
    }
}

impl Finding {
    /// The report's `saving_share`: `saving_ns` over `saving_window_ns`
    /// (the report writes it with 6 decimals); `None` with `saving_ns`, and
    /// where the replay ends later than recorded (a negative saving), as the
    /// report's null.
    pub fn saving_share(&self) -> Option<f64> {
        match (self.saving_ns, self.saving_window_ns) {
            (Some(s), Some(w)) if w > 0 && s >= 0 => Some(s as f64 / w as f64),
            _ => None,
        }
    }
}

impl List<Finding> {
    /// The highest severity among the findings (`fsdpa_findings_worst()`),
    /// `None` if there are none.
    pub fn worst(&self) -> Option<Severity> {
        // SAFETY: the list is alive (or NULL: -1).
        let w = unsafe { sys::fsdpa_findings_worst(self.as_ptr()) };
        (w >= 0).then(|| Severity::from_raw(sys::fsdpa_severity(w)))
    }
}

/// A JSON report and its findings.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Report {
    /// the library's text, byte for byte (`fsdpa.report/1`: what
    /// `fsdpa analyze --format json` writes for the same inputs)
    pub json: String,
    /// the findings of the same report, typed, in its order (by the time
    /// they cost)
    pub findings: Vec<Finding>,
}

impl Report {
    /// Iterator over the findings (ordered by the time they cost).
    pub fn findings(&self) -> std::slice::Iter<'_, Finding> {
        self.findings.iter()
    }

    /// The highest severity among the findings, `None` if there are none
    /// (what `fsdpa analyze --fail-on` compares).
    pub fn worst(&self) -> Option<Severity> {
        self.findings.iter().map(|f| f.severity).max()
    }
}
