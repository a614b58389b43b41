//! The JSON report (schema `fsdpa.report/1`, docs/report-contract.md) with
//! typed accessors for what bindings need most; the rest is reachable as
//! [`json::Value`](crate::json::Value).
use crate::error::{Error, Result, Status};
use crate::json::Value;

/// Severity of a finding.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Severity {
    /// "info"
    Info,
    /// "warning"
    Warning,
    /// "critical"
    Critical,
}

/// A time range a viewer should jump to: absolute ns, `[start_ns, end_ns)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Range {
    /// start (absolute ns)
    pub start_ns: i64,
    /// end (absolute ns, exclusive)
    pub end_ns: i64,
}

/// One finding (ids and meanings: docs/report-contract.md).
#[derive(Clone, Debug, PartialEq)]
pub struct Finding {
    /// stable id, e.g. "exposed-comm"
    pub id: String,
    /// severity
    pub severity: Severity,
    /// rank the finding is about
    pub rank: i64,
    /// step number, `None` for rank-wide findings
    pub step: Option<i64>,
    /// one line
    pub title: String,
    /// the numbers, in words
    pub detail: String,
    /// what to do
    pub advice: String,
    /// the time the problem costs (ns), if known
    pub cost_ns: Option<i64>,
    /// the evidence object (includes "ranges")
    pub evidence: Value,
    /// evidence.ranges, worst first
    pub ranges: Vec<Range>,
}

/// `inputs[]`: one per rank.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Input {
    /// name given for the input
    pub path: String,
    /// rank
    pub rank: i64,
    /// world size, if the trace says
    pub world_size: Option<i64>,
    /// events seen
    pub events: i64,
    /// input bytes fed (compressed, as given)
    pub bytes: i64,
}

/// `ranks[].steps[]`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReportStep {
    /// "ProfilerStep#N"
    pub name: String,
    /// absolute start
    pub start_ns: i64,
    /// CPU duration
    pub dur_ns: i64,
}

/// `ranks[].streams[]`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReportStream {
    /// device
    pub device: i64,
    /// stream id
    pub stream: i64,
    /// "compute", "communication", "memory" or "mixed"
    pub role: String,
    /// kernel events
    pub kernels: i64,
    /// |union of GPU activity|
    pub busy_ns: i64,
}

/// One rank's part.
#[derive(Clone, Debug, PartialEq)]
pub struct RankReport {
    /// rank
    pub rank: i64,
    /// last GPU end − first GPU start, if any GPU activity
    pub span_ns: Option<i64>,
    /// CPU steps
    pub steps: Vec<ReportStep>,
    /// GPU streams
    pub streams: Vec<ReportStream>,
    /// the whole rank object (launch_gaps, overlap, fsdp, sync_waits, allocator, ...)
    pub value: Value,
}

/// The parsed report.
#[derive(Clone, Debug, PartialEq)]
pub struct Report {
    /// the library's text, byte for byte
    pub json: String,
    /// the whole document
    pub value: Value,
    /// "fsdpa.report/1"
    pub schema: String,
    /// library version
    pub version: String,
    /// one per rank
    pub inputs: Vec<Input>,
    /// one per rank
    pub ranks: Vec<RankReport>,
    /// all findings, ordered by the time they cost
    pub findings: Vec<Finding>,
}

fn bad(what: &str) -> Error {
    Error::new(Status::Other(0), format!("report JSON: {what}"))
}
fn int(v: &Value, what: &str) -> Result<i64> {
    v.as_i64().ok_or_else(|| bad(what))
}
fn opt_int(v: &Value, what: &str) -> Result<Option<i64>> {
    if v.is_null() {
        Ok(None)
    } else {
        int(v, what).map(Some)
    }
}
fn string(v: &Value, what: &str) -> Result<String> {
    v.as_str().map(str::to_owned).ok_or_else(|| bad(what))
}

impl Report {
    /// Parse the text `fsdpa_report()` wrote in JSON format.
    pub fn parse(json: String) -> Result<Report> {
        let value = Value::parse(&json).map_err(|e| bad(&e.to_string()))?;
        let inputs = value
            .get("inputs")
            .as_array()
            .iter()
            .map(|i| {
                Ok(Input {
                    path: string(i.get("path"), "inputs[].path")?,
                    rank: int(i.get("rank"), "inputs[].rank")?,
                    world_size: opt_int(i.get("world_size"), "inputs[].world_size")?,
                    events: int(i.get("events"), "inputs[].events")?,
                    bytes: int(i.get("bytes"), "inputs[].bytes")?,
                })
            })
            .collect::<Result<Vec<_>>>()?;
        let ranks = value
            .get("ranks")
            .as_array()
            .iter()
            .map(|r| {
                let steps = r
                    .get("steps")
                    .as_array()
                    .iter()
                    .map(|s| {
                        Ok(ReportStep {
                            name: string(s.get("name"), "steps[].name")?,
                            start_ns: int(s.get("start_ns"), "steps[].start_ns")?,
                            dur_ns: int(s.get("dur_ns"), "steps[].dur_ns")?,
                        })
                    })
                    .collect::<Result<Vec<_>>>()?;
                let streams = r
                    .get("streams")
                    .as_array()
                    .iter()
                    .map(|s| {
                        Ok(ReportStream {
                            device: int(s.get("device"), "streams[].device")?,
                            stream: int(s.get("stream"), "streams[].stream")?,
                            role: string(s.get("role"), "streams[].role")?,
                            kernels: int(s.get("kernels"), "streams[].kernels")?,
                            busy_ns: int(s.get("busy_ns"), "streams[].busy_ns")?,
                        })
                    })
                    .collect::<Result<Vec<_>>>()?;
                Ok(RankReport {
                    rank: int(r.get("rank"), "ranks[].rank")?,
                    span_ns: opt_int(r.get("span_ns"), "ranks[].span_ns")?,
                    steps,
                    streams,
                    value: r.clone(),
                })
            })
            .collect::<Result<Vec<_>>>()?;
        let findings = value
            .get("findings")
            .as_array()
            .iter()
            .map(|f| {
                let severity = match f.get("severity").as_str() {
                    Some("info") => Severity::Info,
                    Some("warning") => Severity::Warning,
                    Some("critical") => Severity::Critical,
                    _ => return Err(bad("findings[].severity")),
                };
                let evidence = f.get("evidence").clone();
                let ranges = evidence
                    .get("ranges")
                    .as_array()
                    .iter()
                    .map(|r| {
                        Ok(Range {
                            start_ns: int(r.get("start_ns"), "ranges[].start_ns")?,
                            end_ns: int(r.get("end_ns"), "ranges[].end_ns")?,
                        })
                    })
                    .collect::<Result<Vec<_>>>()?;
                Ok(Finding {
                    id: string(f.get("id"), "findings[].id")?,
                    severity,
                    rank: int(f.get("rank"), "findings[].rank")?,
                    step: opt_int(f.get("step"), "findings[].step")?,
                    title: string(f.get("title"), "findings[].title")?,
                    detail: string(f.get("detail"), "findings[].detail")?,
                    advice: string(f.get("advice"), "findings[].advice")?,
                    cost_ns: opt_int(f.get("cost_ns"), "findings[].cost_ns")?,
                    evidence,
                    ranges,
                })
            })
            .collect::<Result<Vec<_>>>()?;
        Ok(Report {
            schema: string(value.get("schema"), "schema")?,
            version: string(value.get("version"), "version")?,
            inputs,
            ranks,
            findings,
            value,
            json,
        })
    }

    /// Iterator over the findings (ordered by the time they cost).
    pub fn findings(&self) -> std::slice::Iter<'_, Finding> {
        self.findings.iter()
    }
}
