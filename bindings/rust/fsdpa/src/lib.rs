//! Safe Rust binding of libfsdpa (`libfsdpa.so.2`, C API 0.2): reads
//! PyTorch-profiler (Kineto) traces of distributed training and says, with
//! numbers, why the GPUs are not busy.
//!
//! ```no_run
//! let report = fsdpa::analyze(&["rank0.json.gz"])?;
//! for f in report.findings() {
//!     println!("{} {} {}", f.severity, f.id, f.title);
//! }
//! let mut a = fsdpa::Analyzer::new()?;          // incremental
//! a.feed(br#"{"traceEvents": []}"#)?;
//! a.finish()?;
//! println!("{} steps, {:?}", a.steps().len(), a.timeline(&fsdpa::Query::all())?);
//! # Ok::<(), fsdpa::Error>(())
//! ```
//!
//! The analysis queries return typed results (definitions: the groups of
//! `include/fsdpa/fsdpa.h`); a [`Query`] selects the window and tracks:
//!
//! ```no_run
//! use fsdpa::{Analyzer, Query, SplitBy};
//! let mut a = Analyzer::new()?;
//! a.feed_file("rank0.json.gz")?;
//! let g = a.launch_gaps(&Query::all())?;           // idle by cause, percentiles, histogram
//! println!("{} gaps, p90 {:?} ns", g.gaps, g.p90_ns);
//! for s in a.comm_split(&Query::step(1).device(0), SplitBy::Collective)? {
//!     println!("{} exposed {} ns", s.name, s.exposed_ns);
//! }
//! println!("backward: {}", a.backward()?.pattern);
//! for w in a.sync_waits(&Query::all())? { println!("{} x{}", w.api, w.count); }
//! println!("{:?}", a.memory(&Query::all().window(0, i64::MAX))?.peak_reserved_bytes);
//! for f in a.findings()? { println!("{} {:?} saves {:?}", f.id, f.cost_ns, f.saving_ns); }
//! let summary = a.summary()?;                       // mergeable per-rank summary
//! let report = fsdpa::summary_report(fsdpa::summary_merge(&[summary])?)?;
//! # Ok::<(), fsdpa::Error>(())
//! ```
//!
//! Times are integer nanoseconds; values the C API marks absent
//! (`FSDPA_ABSENT`, a negative ratio, a NULL string, -1 for "not evaluated")
//! are `None`.  Every list the C API returns (`fsdpa_list`) is read into a
//! `Vec` or an iterator; [`List`] owns one and frees it on drop.
//!
//! Features: `experimental` (on by default) adds what the C header keeps
//! under `FSDPA_EXPERIMENTAL`, which may change in any release: the
//! annotate functions (`annotate_events`, `annotate_file`).  Build with
//! `default-features = false` to keep to the stable API.
#![warn(missing_docs)]

#[cfg(feature = "experimental")]
mod diff;
mod efficiency;
pub mod error;
mod job;
pub mod list;
mod queries;
pub mod report;

#[cfg(feature = "experimental")]
pub use diff::{diff, Diff, DiffOptions};
pub use efficiency::Device;
#[cfg(feature = "experimental")]
pub use efficiency::{DevicePeak, Efficiency, KernelStat, OpStat};
pub use error::{Error, Result, Status};
pub use fsdpa_sys as sys;
#[cfg(feature = "experimental")]
pub use job::{annotate_events, annotate_file, AnnotateOptions};
pub use job::{
    crossrank, crossrank_ranks, render, report_findings, report_findings_list, summary_findings,
    summary_findings_with, summary_merge, summary_merge_with, summary_report, summary_report_with,
    CrossRank, CrossRankRank, SummaryOptions,
};
pub use list::{List, ListItem};
pub use queries::{
    Backward, BackwardPattern, BackwardStep, BackwardUnit, CommSplit, FsdpUnit, LaunchGaps,
    LaunchLatency, LaunchQueue, MemoryDevice, MemoryPoint, MemoryStep, MemorySummary, Phase,
    SplitBy, SyncCall, SyncStep, SyncWait, WaitSource, GAP_BINS, GAP_EDGES,
};
pub use report::{Finding, Range, Report, Severity};

use error::{check, cstr, with_error};
use list::list_item;
use std::ffi::CString;
use std::io::Read;
use std::os::raw::c_char;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;
use std::ptr::{self, NonNull};

fn opt(v: i64) -> Option<i64> {
    (v != sys::FSDPA_ABSENT).then_some(v)
}
fn abs(v: Option<i64>) -> i64 {
    v.unwrap_or(sys::FSDPA_ABSENT)
}
fn c_string(s: &[u8]) -> Result<CString> {
    CString::new(s).map_err(|_| Error::new(Status::InvalidArgument, "string contains a NUL byte"))
}

/// Copy a caller-owned buffer the library returned (`len` bytes) and release
/// it with `fsdpa_free()`.
///
/// SAFETY: `out` is NULL or a buffer from the library holding `len` bytes.
unsafe fn take_string(out: *mut c_char, len: usize) -> String {
    if out.is_null() {
        return String::new();
    }
    let text = std::slice::from_raw_parts(out as *const u8, len);
    let s = String::from_utf8_lossy(text).into_owned();
    sys::fsdpa_free(out.cast());
    s
}

/// Version string of the loaded library.
pub fn version() -> String {
    unsafe { cstr(sys::fsdpa_version_string()) }
}

/// One analysis parameter (`fsdpa_param`): every threshold the analyses
/// use has a name, a default and a range.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Param {
    /// e.g. "launch.kernel_wait_ns"
    pub name: String,
    /// its default
    pub default_value: i64,
    /// smallest value [`Analyzer::set_param`] accepts
    pub min_value: i64,
    /// largest value [`Analyzer::set_param`] accepts
    pub max_value: i64,
    /// what it sets, its unit and whose rule the default follows
    pub description: String,
}

impl ListItem for Param {
    type Raw = sys::fsdpa_param;
    const KIND: sys::fsdpa_list_kind = sys::FSDPA_LIST_PARAMS;
    fn blank() -> sys::fsdpa_param {
        sys::fsdpa_param::sized()
    }
    unsafe fn from_raw(p: &sys::fsdpa_param) -> Param {
        Param {
            name: cstr(p.name),
            default_value: p.default_value,
            min_value: p.min_value,
            max_value: p.max_value,
            description: cstr(p.description),
        }
    }
}

/// Every analysis parameter, in the library's fixed order
/// (`fsdpa_param_list()`).
pub fn params() -> Result<Vec<Param>> {
    let l: List<Param> = List::call(
        |out| unsafe { sys::fsdpa_param_list(out) },
        |st| check(st, ptr::null(), false),
    )?;
    Ok(l.to_vec())
}

/// The analysis parameters as text: one `name=default  description` line
/// per parameter, what `fsdpa params` prints ("" if the list cannot be
/// built: see [`params`] for the error).
pub fn param_list() -> String {
    params()
        .unwrap_or_default()
        .iter()
        .map(|p| format!("{}={}  {}\n", p.name, p.default_value, p.description))
        .collect()
}

/// Options for [`Analyzer::with_options`].
#[derive(Clone, Debug, Default)]
pub struct Options {
    /// input name used in error messages and, by default, in the report
    pub name: Option<String>,
    /// rank of this trace; `None` = from the trace's `distributedInfo`
    pub rank: Option<i64>,
    /// refuse to grow past this many bytes (0 = no cap)
    pub max_memory_bytes: u64,
    /// refuse more (decompressed) input bytes than this (0 = no cap)
    pub max_input_bytes: u64,
    /// allocator callbacks (see `fsdpa_allocator`); must stay valid, with
    /// whatever `ud` points to, until the analyzer and every report string
    /// it produced are gone
    pub allocator: Option<sys::fsdpa_allocator>,
}

/// Output format of a report.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// the report contract (`fsdpa.report/1`)
    Json,
    /// for people
    Text,
    /// one self-contained page
    Html,
    /// one table of the report ([`ReportOptions::table`]) as CSV
    Csv,
}

impl Format {
    pub(crate) fn raw(self) -> sys::fsdpa_format {
        match self {
            Format::Json => sys::FSDPA_FORMAT_JSON,
            Format::Text => sys::FSDPA_FORMAT_TEXT,
            Format::Html => sys::FSDPA_FORMAT_HTML,
            Format::Csv => sys::FSDPA_FORMAT_CSV,
        }
    }
}

/// A table of a report, as CSV ([`Format::Csv`]); the columns are documented
/// with `fsdpa_report_options.table` in the header.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Table {
    /// `job.per_rank`: a row per rank
    Ranks,
    /// `findings[]`
    Findings,
    /// `job.findings[]`: the findings grouped by id across ranks
    JobFindings,
    /// every rank's GPU streams
    Streams,
    /// every rank's GPU idle by cause
    IdleCauses,
    /// `not_judged[]`
    NotJudged,
}

impl Table {
    fn name(self) -> &'static std::ffi::CStr {
        match self {
            Table::Ranks => c"ranks",
            Table::Findings => c"findings",
            Table::JobFindings => c"job_findings",
            Table::Streams => c"streams",
            Table::IdleCauses => c"idle_causes",
            Table::NotJudged => c"not_judged",
        }
    }
}

/// Options of a report ([`report_many_with`], [`Analyzer::report_with`]):
/// `fsdpa_report_options`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ReportOptions {
    /// output format
    pub format: Format,
    /// text: ANSI colors
    pub color: bool,
    /// html: step index for the Gantt view; `None` = the busiest steady step
    pub html_step: Option<i64>,
    /// text: the columns every line fits in (40 .. 1000); 0 = 100
    pub width: u32,
    /// csv: the table
    pub table: Table,
}

impl Default for ReportOptions {
    /// JSON, no color, the library's choice of step, 100 columns.
    fn default() -> ReportOptions {
        ReportOptions {
            format: Format::Json,
            color: false,
            html_step: None,
            width: 0,
            table: Table::Ranks,
        }
    }
}

impl From<Format> for ReportOptions {
    fn from(format: Format) -> ReportOptions {
        ReportOptions {
            format,
            ..ReportOptions::default()
        }
    }
}

impl ReportOptions {
    pub(crate) fn raw_options(&self) -> Result<sys::fsdpa_report_options> {
        self.raw()
    }

    fn raw(&self) -> Result<sys::fsdpa_report_options> {
        let mut o = sys::fsdpa_report_options::sized();
        unsafe { sys::fsdpa_report_options_init(&mut o) };
        o.format = self.format.raw();
        o.color = self.color as i32;
        o.html_step = abs(self.html_step);
        o.width = i32::try_from(self.width)
            .map_err(|_| Error::new(Status::InvalidArgument, "report width out of range"))?;
        o.table = self.table.name().as_ptr();
        Ok(o)
    }
}

/// A `ProfilerStep#N` range on the CPU.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Step {
    /// N of ProfilerStep#N
    pub number: i64,
    /// absolute start (trace clock, baseTimeNanoseconds added)
    pub start_ns: i64,
    /// CPU duration of the annotation
    pub dur_ns: i64,
}

/// Role of a GPU stream, from what runs on it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    /// only compute kernels (memcpy/memset allowed)
    Compute,
    /// only collective kernels (memcpy/memset allowed)
    Communication,
    /// only memcpy/memset
    Memory,
    /// compute and collective kernels
    Mixed,
    /// a value this binding does not know
    Other(i32),
}

impl Role {
    /// "compute", "communication", "memory", "mixed" (as the JSON report
    /// writes it), "unknown" for a value this binding does not know.
    pub fn as_str(self) -> &'static str {
        match self {
            Role::Compute => "compute",
            Role::Communication => "communication",
            Role::Memory => "memory",
            Role::Mixed => "mixed",
            Role::Other(_) => "unknown",
        }
    }
}

/// One GPU stream.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Stream {
    /// device index
    pub device: i64,
    /// stream id
    pub stream: i64,
    /// role
    pub role: Role,
    /// kernel events on the stream
    pub kernels: u64,
    /// of which collective kernels
    pub comm_kernels: u64,
    /// gpu_memcpy + gpu_memset events
    pub memops: u64,
    /// |union of the stream's GPU activity|
    pub busy_ns: i64,
    /// earliest start of GPU activity (absolute)
    pub first_ns: Option<i64>,
    /// latest end of GPU activity (absolute)
    pub last_ns: Option<i64>,
}

impl From<&sys::fsdpa_step> for Step {
    fn from(s: &sys::fsdpa_step) -> Step {
        Step {
            number: s.number,
            start_ns: s.start_ns,
            dur_ns: s.dur_ns,
        }
    }
}
list_item!(Step, sys::fsdpa_step, sys::FSDPA_LIST_STEPS);

impl From<&sys::fsdpa_stream_info> for Stream {
    fn from(s: &sys::fsdpa_stream_info) -> Stream {
        let role = match s.role {
            sys::FSDPA_ROLE_COMPUTE => Role::Compute,
            sys::FSDPA_ROLE_COMMUNICATION => Role::Communication,
            sys::FSDPA_ROLE_MEMORY => Role::Memory,
            sys::FSDPA_ROLE_MIXED => Role::Mixed,
            other => Role::Other(other.0),
        };
        Stream {
            device: s.device,
            stream: s.stream,
            role,
            kernels: s.kernels,
            comm_kernels: s.comm_kernels,
            memops: s.memops,
            busy_ns: s.busy_ns,
            first_ns: opt(s.first_ns),
            last_ns: opt(s.last_ns),
        }
    }
}
list_item!(Stream, sys::fsdpa_stream_info, sys::FSDPA_LIST_STREAMS);

/// Window and selection of a query (`fsdpa_query`).  Each selector that is
/// `Some` sets its bit of `fsdpa_query.fields` (`FSDPA_QUERY_T0`, `_T1`,
/// `_STEP`, `_DEVICE`, `_STREAM`); `Query::default()` = [`Query::all()`]
/// sets none: the whole trace, every device and stream.  An activity counts
/// inside the window by its clipped part `[max(start, t0), min(end, t1))`;
/// with both a step and bounds the window is their intersection.
///
/// Build one with [`Query::all`] or [`Query::step`] and the methods
/// [`window`](Query::window), [`since`](Query::since),
/// [`until`](Query::until), [`in_step`](Query::in_step),
/// [`device`](Query::device) and [`stream`](Query::stream), or write the
/// fields: `Query { stream: Some(7), ..Query::all() }`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Query {
    /// window start (absolute ns); `None` = unbounded
    pub t0_ns: Option<i64>,
    /// window end (absolute ns, exclusive); `None` = unbounded
    pub t1_ns: Option<i64>,
    /// index of a step (position in [`Analyzer::steps`]) whose CPU range is
    /// the window
    pub step: Option<i64>,
    /// only this device
    pub device: Option<i64>,
    /// only this stream (id)
    pub stream: Option<i64>,
}

impl Query {
    /// Whole trace, all devices and streams (no bit set).
    pub fn all() -> Query {
        Query::default()
    }
    /// The CPU range of step index `i`.
    pub fn step(i: i64) -> Query {
        Query::all().in_step(i)
    }
    /// The window `[t0_ns, t1_ns)` (absolute ns).
    pub fn window(self, t0_ns: i64, t1_ns: i64) -> Query {
        self.since(t0_ns).until(t1_ns)
    }
    /// The window starts at `t0_ns` (absolute ns).
    pub fn since(self, t0_ns: i64) -> Query {
        Query {
            t0_ns: Some(t0_ns),
            ..self
        }
    }
    /// The window ends at `t1_ns` (absolute ns, exclusive).
    pub fn until(self, t1_ns: i64) -> Query {
        Query {
            t1_ns: Some(t1_ns),
            ..self
        }
    }
    /// The CPU range of step index `i` (intersected with any bounds).
    pub fn in_step(self, i: i64) -> Query {
        Query {
            step: Some(i),
            ..self
        }
    }
    /// Only device `d`.
    pub fn device(self, d: i64) -> Query {
        Query {
            device: Some(d),
            ..self
        }
    }
    /// Only stream `s`.
    pub fn stream(self, s: i64) -> Query {
        Query {
            stream: Some(s),
            ..self
        }
    }
    /// The `FSDPA_QUERY_*` bits of the selectors that are set.
    pub fn fields(&self) -> u32 {
        [
            (self.t0_ns, sys::FSDPA_QUERY_T0),
            (self.t1_ns, sys::FSDPA_QUERY_T1),
            (self.step, sys::FSDPA_QUERY_STEP),
            (self.device, sys::FSDPA_QUERY_DEVICE),
            (self.stream, sys::FSDPA_QUERY_STREAM),
        ]
        .iter()
        .filter(|(v, _)| v.is_some())
        .fold(0, |m, (_, bit)| m | bit)
    }
    /// The C query: the selectors that are set and their bits (an unset
    /// selector is 0: it does not count without its bit).
    pub fn raw(&self) -> sys::fsdpa_query {
        sys::fsdpa_query {
            fields: self.fields(),
            t0_ns: self.t0_ns.unwrap_or(0),
            t1_ns: self.t1_ns.unwrap_or(0),
            step: self.step.unwrap_or(0),
            device: self.device.unwrap_or(0),
            stream: self.stream.unwrap_or(0),
            ..sys::FSDPA_QUERY_INIT
        }
    }
}

/// GPU timeline summary over a window.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Timeline {
    /// last end − first start of selected activity, clipped; `None` if none
    pub span_ns: Option<i64>,
    /// |union of selected activity ∩ window|
    pub busy_ns: i64,
    /// busy_ns / span_ns; `None` if the span is absent or 0
    pub density: Option<f64>,
    /// kernel + memcpy + memset events overlapping the window
    pub activities: u64,
}

/// Communication / compute overlap over a window (see `fsdpa_overlap` in
/// fsdpa.h): C = union of the selected communication (collective) kernels,
/// P = union of the selected compute kernels, both clipped to the window.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Overlap {
    /// |C|; `None` when no communication kernel is selected
    pub comm_ns: Option<i64>,
    /// |P|
    pub compute_ns: Option<i64>,
    /// |C ∩ P|; `None` without communication
    pub overlap_ns: Option<i64>,
    /// |C| − |C ∩ P|; `None` without communication
    pub exposed_comm_ns: Option<i64>,
    /// 100·overlap_ns / comm_ns; `None` when comm_ns is absent or 0
    pub overlap_pct: Option<f64>,
    /// communication kernels overlapping the window
    pub comm_kernels: u64,
    /// compute kernels overlapping the window
    pub compute_kernels: u64,
}

/// Trace metadata; `None` where unknown.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TraceInfo {
    /// distributedInfo.rank (or the option)
    pub rank: Option<i64>,
    /// distributedInfo.world_size
    pub world_size: Option<i64>,
    /// baseTimeNanoseconds
    pub base_time_ns: Option<i64>,
}

/// Event counts (see `fsdpa_stats` in fsdpa.h).
pub type Stats = sys::fsdpa_stats;

/// One structured event for [`Analyzer::add_event`]; `None` = absent.
/// Times are ns relative to the trace clock base.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[allow(missing_docs)]
pub struct Event<'a> {
    pub ph: u8,
    pub cat: Option<&'a str>,
    pub name: Option<&'a str>,
    pub pid: Option<i64>,
    pub tid: Option<i64>,
    pub ts_ns: Option<i64>,
    pub dur_ns: Option<i64>,
    pub correlation: Option<i64>,
    pub external_id: Option<i64>,
    pub stream: Option<i64>,
    pub device: Option<i64>,
    pub bytes: Option<i64>,
    pub total_allocated: Option<i64>,
    pub total_reserved: Option<i64>,
    pub device_type: Option<i64>,
    pub device_id: Option<i64>,
    pub in_msg_nelems: Option<i64>,
    pub out_msg_nelems: Option<i64>,
    pub group_size: Option<i64>,
    pub seq: Option<i64>,
    pub wait_on_stream: Option<i64>,
    pub wait_on_event_corr: Option<i64>,
    pub collective: Option<&'a str>,
    pub dtype: Option<&'a str>,
    pub pg_name: Option<&'a str>,
    pub sync_kind: Option<&'a str>,
    pub label: Option<&'a str>,
    /// `args["Input Dims"]` of a cpu_op as JSON text (`record_shapes`)
    pub input_dims: Option<&'a str>,
    /// `args["Input type"]` as JSON text
    pub input_types: Option<&'a str>,
    /// `args["Concrete Inputs"]` as JSON text
    pub concrete_inputs: Option<&'a str>,
}

/// Analysis context for one trace (one rank), fed incrementally.  Queries
/// work between feeds, on the events decoded so far.  `Send` (any thread),
/// not `Sync` (one thread at a time).
pub struct Analyzer {
    ctx: NonNull<sys::fsdpa_ctx>,
    name: Option<String>,
}

// SAFETY: a context may be used from any thread, one at a time (fsdpa.h).
unsafe impl Send for Analyzer {}

impl Drop for Analyzer {
    fn drop(&mut self) {
        unsafe { sys::fsdpa_ctx_free(self.ctx.as_ptr()) }
    }
}

impl Analyzer {
    /// A context with default options.
    pub fn new() -> Result<Analyzer> {
        Analyzer::with_options(&Options::default())
    }

    /// A context with options.
    pub fn with_options(o: &Options) -> Result<Analyzer> {
        let name = o
            .name
            .as_deref()
            .map(|n| c_string(n.as_bytes()))
            .transpose()?;
        let mut opts = std::mem::MaybeUninit::<sys::fsdpa_options>::uninit();
        let mut opts = unsafe {
            sys::fsdpa_options_init(opts.as_mut_ptr());
            opts.assume_init()
        };
        opts.max_memory_bytes = o.max_memory_bytes;
        opts.max_input_bytes = o.max_input_bytes;
        opts.rank = abs(o.rank);
        opts.name = name.as_ref().map_or(ptr::null(), |n| n.as_ptr());
        opts.allocator = o.allocator.as_ref().map_or(ptr::null(), |a| a as *const _);
        let mut p = ptr::null_mut();
        // SAFETY: the library copies the name and the allocator struct.
        check(
            unsafe { sys::fsdpa_ctx_new(&mut p, &opts) },
            ptr::null(),
            false,
        )?;
        let ctx = NonNull::new(p).ok_or_else(|| Error::new(Status::OutOfMemory, "no context"))?;
        Ok(Analyzer {
            ctx,
            name: o.name.clone(),
        })
    }

    fn p(&self) -> *mut sys::fsdpa_ctx {
        self.ctx.as_ptr()
    }

    /// Feed the next bytes (any chunking; copied before return).
    pub fn feed(&mut self, data: &[u8]) -> Result<()> {
        if data.is_empty() {
            return Ok(());
        }
        check(
            unsafe { sys::fsdpa_feed(self.p(), data.as_ptr().cast(), data.len()) },
            self.p(),
            true,
        )
    }

    /// Feed everything `r` yields, in `chunk`-byte reads (does not finish).
    /// Returns the number of bytes fed.
    pub fn read_from<R: Read>(&mut self, mut r: R, chunk: usize) -> Result<u64> {
        let mut buf = vec![0u8; chunk.max(1)];
        let mut total = 0u64;
        loop {
            let n = match r.read(&mut buf) {
                Ok(0) => return Ok(total),
                Ok(n) => n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e.into()),
            };
            self.feed(&buf[..n])?;
            total += n as u64;
        }
    }

    /// Feed a whole file (plain or gzip) and finish.
    pub fn feed_file<P: AsRef<Path>>(&mut self, path: P) -> Result<()> {
        let c = c_string(path.as_ref().as_os_str().as_bytes())?;
        check(
            unsafe { sys::fsdpa_feed_file(self.p(), c.as_ptr()) },
            self.p(),
            true,
        )
    }

    /// End of input: `Truncated` / `NotATrace` if the document is incomplete
    /// or not a trace.
    pub fn finish(&mut self) -> Result<()> {
        check(unsafe { sys::fsdpa_finish(self.p()) }, self.p(), true)
    }

    /// Add one structured event (same results as the event fed as JSON).
    pub fn add_event(&mut self, e: &Event<'_>) -> Result<()> {
        let mut ev = std::mem::MaybeUninit::<sys::fsdpa_event>::uninit();
        let mut ev = unsafe {
            sys::fsdpa_event_init(ev.as_mut_ptr());
            ev.assume_init()
        };
        ev.ph = e.ph as c_char;
        fn s(v: Option<&str>) -> (*const c_char, usize) {
            v.map_or((ptr::null(), 0), |s| (s.as_ptr().cast(), s.len()))
        }
        (ev.cat, ev.cat_len) = s(e.cat);
        (ev.name, ev.name_len) = s(e.name);
        (ev.collective, ev.collective_len) = s(e.collective);
        (ev.dtype, ev.dtype_len) = s(e.dtype);
        (ev.label, ev.label_len) = s(e.label);
        (ev.pg_name, ev.pg_name_len) = s(e.pg_name);
        (ev.sync_kind, ev.sync_kind_len) = s(e.sync_kind);
        (ev.input_dims, ev.input_dims_len) = s(e.input_dims);
        (ev.input_types, ev.input_types_len) = s(e.input_types);
        (ev.concrete_inputs, ev.concrete_inputs_len) = s(e.concrete_inputs);
        ev.pid = abs(e.pid);
        ev.tid = abs(e.tid);
        ev.ts_ns = abs(e.ts_ns);
        ev.dur_ns = abs(e.dur_ns);
        ev.correlation = abs(e.correlation);
        ev.external_id = abs(e.external_id);
        ev.stream = abs(e.stream);
        ev.device = abs(e.device);
        ev.bytes = abs(e.bytes);
        ev.in_msg_nelems = abs(e.in_msg_nelems);
        ev.out_msg_nelems = abs(e.out_msg_nelems);
        ev.group_size = abs(e.group_size);
        ev.total_allocated = abs(e.total_allocated);
        ev.total_reserved = abs(e.total_reserved);
        ev.device_type = abs(e.device_type);
        ev.device_id = abs(e.device_id);
        ev.seq = abs(e.seq);
        ev.wait_on_stream = abs(e.wait_on_stream);
        ev.wait_on_event_corr = abs(e.wait_on_event_corr);
        // SAFETY: the strings outlive the call; the library copies them.
        check(
            unsafe { sys::fsdpa_event_add(self.p(), &ev) },
            self.p(),
            false,
        )
    }

    /// Set trace metadata; `None` fields are left unchanged.
    pub fn set_trace_info(&mut self, t: TraceInfo) -> Result<()> {
        let i = sys::fsdpa_trace_info {
            size: std::mem::size_of::<sys::fsdpa_trace_info>(),
            rank: abs(t.rank),
            world_size: abs(t.world_size),
            base_time_ns: abs(t.base_time_ns),
        };
        check(
            unsafe { sys::fsdpa_trace_info_set(self.p(), &i) },
            self.p(),
            false,
        )
    }

    /// Set an analysis threshold by name to a decimal integer in its range
    /// (see [`params`]); an unknown name or a bad value is
    /// `Status::InvalidArgument` and the parameter keeps its value.
    pub fn set_param(&mut self, key: &str, value: &str) -> Result<()> {
        let (k, v) = (c_string(key.as_bytes())?, c_string(value.as_bytes())?);
        check(
            unsafe { sys::fsdpa_param_set(self.p(), k.as_ptr(), v.as_ptr()) },
            self.p(),
            false,
        )
    }

    /// The value parameter `key` has in this analyzer (`fsdpa_param_get()`).
    pub fn param(&self, key: &str) -> Result<i64> {
        let k = c_string(key.as_bytes())?;
        let mut v = 0i64;
        check(
            unsafe { sys::fsdpa_param_get(self.p(), k.as_ptr(), &mut v) },
            self.p(),
            false,
        )?;
        Ok(v)
    }

    /// Trace metadata known so far.
    pub fn trace_info(&self) -> TraceInfo {
        let mut i = sys::fsdpa_trace_info::sized();
        unsafe { sys::fsdpa_trace_info_init(&mut i) };
        unsafe { sys::fsdpa_trace_info_get(self.p(), &mut i) };
        TraceInfo {
            rank: opt(i.rank),
            world_size: opt(i.world_size),
            base_time_ns: opt(i.base_time_ns),
        }
    }

    /// Event counts so far.
    pub fn stats(&self) -> Result<Stats> {
        let mut s = Stats::sized();
        check(
            unsafe { sys::fsdpa_stats_get(self.p(), &mut s) },
            self.p(),
            false,
        )?;
        Ok(s)
    }

    /// Run `f(ctx, &mut list)` and own the list it returns.
    fn list<T: ListItem>(
        &self,
        f: impl FnOnce(*mut sys::fsdpa_ctx, *mut *mut sys::fsdpa_list) -> sys::fsdpa_status,
    ) -> Result<List<T>> {
        let p = self.p();
        List::call(|out| f(p, out), |st| check(st, p, false))
    }

    /// The `ProfilerStep#N` ranges so far, in start order (a snapshot:
    /// `fsdpa_step_list()`).  A step's position is its step index
    /// ([`Query::step`]).
    pub fn step_list(&self) -> Result<List<Step>> {
        self.list(|c, l| unsafe { sys::fsdpa_step_list(c, l) })
    }

    /// The GPU streams so far, by device then stream (`fsdpa_stream_list()`).
    pub fn stream_list(&self) -> Result<List<Stream>> {
        self.list(|c, l| unsafe { sys::fsdpa_stream_list(c, l) })
    }

    /// Iterator over [`Analyzer::step_list`] (no steps if the list cannot be
    /// built, which only an allocation failure causes).
    pub fn steps(&self) -> Steps {
        self.step_list()
            .map_or_else(|_| list::IntoIter::empty(), List::into_iter)
    }

    /// Iterator over [`Analyzer::stream_list`] (no streams if the list
    /// cannot be built).
    pub fn streams(&self) -> Streams {
        self.stream_list()
            .map_or_else(|_| list::IntoIter::empty(), List::into_iter)
    }

    /// GPU timeline density over a window (all selected streams unioned).
    pub fn timeline(&mut self, q: &Query) -> Result<Timeline> {
        let cq = q.raw();
        let mut t = sys::fsdpa_timeline::sized();
        check(
            unsafe { sys::fsdpa_timeline_query(self.p(), &cq, &mut t) },
            self.p(),
            false,
        )?;
        Ok(Timeline {
            span_ns: opt(t.span_ns),
            busy_ns: t.busy_ns,
            density: (t.density >= 0.0).then_some(t.density),
            activities: t.activities,
        })
    }

    /// Communication / compute overlap over a window.
    pub fn overlap(&mut self, q: &Query) -> Result<Overlap> {
        let cq = q.raw();
        let mut o = sys::fsdpa_overlap::sized();
        check(
            unsafe { sys::fsdpa_overlap_query(self.p(), &cq, &mut o) },
            self.p(),
            false,
        )?;
        Ok(Overlap {
            comm_ns: opt(o.comm_ns),
            compute_ns: opt(o.compute_ns),
            overlap_ns: opt(o.overlap_ns),
            exposed_comm_ns: opt(o.exposed_comm_ns),
            overlap_pct: (o.overlap_pct >= 0.0).then_some(o.overlap_pct),
            comm_kernels: o.comm_kernels,
            compute_kernels: o.compute_kernels,
        })
    }

    /// FSDP version seen in the annotations: `Some(2)` (FSDP2 / fully_shard),
    /// `Some(1)` (FullyShardedDataParallel), `None`.
    pub fn fsdp_version(&self) -> Option<i32> {
        let v = unsafe { sys::fsdpa_fsdp_version(self.p()) };
        (v != 0).then_some(v)
    }

    /// The report of this trace alone; the input is named after
    /// [`Options::name`].
    pub fn report(&mut self, format: Format) -> Result<String> {
        self.report_with(&format.into())
    }

    /// [`Analyzer::report`] with options (colors, text width, HTML step).
    pub fn report_with(&mut self, opts: &ReportOptions) -> Result<String> {
        let name = self.name.clone();
        report_many_with(&mut [self], &[name.as_deref()], opts)
    }

    /// The findings of this trace's report, typed
    /// (`fsdpa_report_findings()` over this analyzer alone).
    pub fn findings(&mut self) -> Result<Vec<Finding>> {
        report_findings(&mut [self])
    }

    /// The JSON report of this trace with its findings.
    pub fn result(&mut self) -> Result<Report> {
        Ok(Report {
            json: self.report(Format::Json)?,
            findings: self.findings()?,
        })
    }

    /// The C context, valid while the analyzer lives: for calling
    /// `fsdpa-sys` functions the safe API does not wrap.  Do not free it.
    pub fn as_ptr(&self) -> *mut sys::fsdpa_ctx {
        self.p()
    }
}

/// Iterator over the steps (see [`Analyzer::steps`]); it owns its list, so
/// it does not borrow the analyzer.
pub type Steps = list::IntoIter<Step>;
/// Iterator over the GPU streams (see [`Analyzer::streams`]).
pub type Streams = list::IntoIter<Stream>;

/// The report over several analyzers (the ranks of one job), one name per
/// analyzer (`None` = "<input>").
pub fn report_many(
    analyzers: &mut [&mut Analyzer],
    paths: &[Option<&str>],
    format: Format,
) -> Result<String> {
    report_many_with(analyzers, paths, &format.into())
}

/// [`report_many`] with options (colors, text width, HTML step).
pub fn report_many_with(
    analyzers: &mut [&mut Analyzer],
    paths: &[Option<&str>],
    opts: &ReportOptions,
) -> Result<String> {
    if analyzers.is_empty() || paths.len() != analyzers.len() {
        return Err(Error::new(
            Status::InvalidArgument,
            "one path (or None) per analyzer, at least one",
        ));
    }
    let ctxs: Vec<*mut sys::fsdpa_ctx> = analyzers.iter().map(|a| a.p()).collect();
    let names = paths
        .iter()
        .map(|p| p.map(|s| c_string(s.as_bytes())).transpose())
        .collect::<Result<Vec<_>>>()?;
    let name_ptrs: Vec<*const c_char> = names
        .iter()
        .map(|n| n.as_ref().map_or(ptr::null(), |c| c.as_ptr()))
        .collect();
    let opts = opts.raw()?;
    let mut out: *mut c_char = ptr::null_mut();
    let mut len = 0usize;
    with_error(|err| unsafe {
        sys::fsdpa_report(
            ctxs.as_ptr(),
            name_ptrs.as_ptr(),
            ctxs.len(),
            &opts,
            &mut out,
            &mut len,
            err,
        )
    })?;
    // SAFETY: out holds len bytes (plus a NUL) until fsdpa_free().
    Ok(unsafe { take_string(out, len) })
}

/// The JSON report over several analyzers (one per rank, each named by its
/// entry of `paths`) with its findings.
fn report_of(analyzers: &mut [&mut Analyzer], paths: &[Option<&str>]) -> Result<Report> {
    let json = report_many(analyzers, paths, Format::Json)?;
    Ok(Report {
        json,
        findings: report_findings(analyzers)?,
    })
}

/// Analyze one trace per rank of a job (files, plain or gzip) and return the
/// JSON report (the same bytes `fsdpa analyze --format json` writes for the
/// same paths) with its findings.
pub fn analyze<P: AsRef<Path>>(paths: &[P]) -> Result<Report> {
    let mut analyzers = Vec::with_capacity(paths.len());
    let mut names = Vec::with_capacity(paths.len());
    for p in paths {
        let name = p.as_ref().to_string_lossy().into_owned();
        let mut a = Analyzer::with_options(&Options {
            name: Some(name.clone()),
            ..Options::default()
        })?;
        a.feed_file(p)?;
        analyzers.push(a);
        names.push(name);
    }
    let mut refs: Vec<&mut Analyzer> = analyzers.iter_mut().collect();
    let paths: Vec<Option<&str>> = names.iter().map(|n| Some(n.as_str())).collect();
    report_of(&mut refs, &paths)
}

/// Analyze a trace read from `r` (plain or gzip), fed in 1 MiB chunks.
pub fn analyze_reader<R: Read>(r: R, name: &str) -> Result<Report> {
    let mut a = Analyzer::with_options(&Options {
        name: Some(name.into()),
        ..Options::default()
    })?;
    a.read_from(r, 1 << 20)?;
    a.finish()?;
    a.result()
}
