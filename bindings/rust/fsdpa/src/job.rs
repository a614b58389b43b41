//! Functions over the analyzers of one job (one per rank): the findings of
//! their report, the cross-rank analysis, mergeable summaries
//! (`fsdpa.summary/1`) and annotated copies of the traces (experimental).
//! See the report, crossrank and annotate groups of fsdpa.h.  These calls
//! have no single context: their errors come from the `fsdpa_error` they
//! fill ([`Error::input`] says which analyzer or summary).
use crate::error::{check, with_error, Error, Result, Status};
use crate::list::{list_item, List};
use crate::report::Finding;
use crate::{c_string, opt, sys, take_string, Analyzer, Report};
use std::os::raw::c_char;
#[cfg(feature = "experimental")]
use std::os::raw::c_int;
#[cfg(feature = "experimental")]
use std::os::unix::ffi::OsStrExt;
#[cfg(feature = "experimental")]
use std::path::Path;
use std::ptr;

/// Cross-rank analysis of the collectives of one job (`fsdpa_crossrank`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CrossRank {
    /// analyzers given
    pub ranks: u64,
    /// matched collectives that ended together (0 with fewer than 2 ranks)
    pub collectives: u64,
    /// collective kernels (per rank) whose identity no other rank has
    pub unmatched: u64,
    /// matched per-rank kernels left out because their rank could not be aligned
    pub unaligned: u64,
    /// matched collectives whose end spread exceeds their transfer and
    /// `crossrank.end_tolerance_ns` (left out of the other figures)
    pub unsynchronized: u64,
    /// rank whose clock the others are aligned to; `None` if nothing matched
    pub reference_rank: Option<i64>,
    /// Σ over matched collectives of transfer; `None` if none
    pub transfer_ns: Option<i64>,
    /// Σ over matched collectives and their ranks of wait; `None` if none
    pub wait_ns: Option<i64>,
    /// lower median of the end spread; `None` if none
    pub end_spread_p50_ns: Option<i64>,
    /// largest end spread; `None` if none
    pub end_spread_max_ns: Option<i64>,
    /// steps holding matched collectives
    pub steps: u64,
    /// rank named by `straggler-rank`; `None` if the rule does not fire
    pub straggler_rank: Option<i64>,
    /// steps in which the straggler was the latest arriver (0 if none)
    pub straggler_late_steps: u64,
    /// mean of its delay over those steps (floor); `None` if none
    pub straggler_mean_delay_ns: Option<i64>,
    /// its largest delay in a step; `None` if none
    pub straggler_max_delay_ns: Option<i64>,
    /// time the other ranks lost waiting for it; `None` if none
    pub straggler_lost_ns: Option<i64>,
}

/// One rank's part of the cross-rank analysis (`fsdpa_crossrank_rank`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CrossRankRank {
    /// rank (distributedInfo.rank, else the analyzer's index)
    pub rank: i64,
    /// own clock − reference clock; `None` if the rank could not be aligned
    pub clock_offset_ns: Option<i64>,
    /// measured collectives the rank took part in
    pub collectives: u64,
    /// Σ transfer of those collectives; `None` if none
    pub transfer_ns: Option<i64>,
    /// Σ of its wait in them; `None` if none
    pub wait_ns: Option<i64>,
    /// matched collectives at which it arrived last
    pub last_count: u64,
    /// steps in which it was the latest arriver
    pub late_steps: u64,
    /// mean delay over those steps (floor); `None` if none
    pub mean_delay_ns: Option<i64>,
    /// largest delay over those steps; `None` if none
    pub max_delay_ns: Option<i64>,
    /// time the other ranks lost waiting for it (0 if never last)
    pub lost_ns: i64,
}

impl From<&sys::fsdpa_crossrank_rank> for CrossRankRank {
    fn from(x: &sys::fsdpa_crossrank_rank) -> CrossRankRank {
        CrossRankRank {
            rank: x.rank,
            clock_offset_ns: opt(x.clock_offset_ns),
            collectives: x.collectives,
            transfer_ns: opt(x.transfer_ns),
            wait_ns: opt(x.wait_ns),
            last_count: x.last_count,
            late_steps: x.late_steps,
            mean_delay_ns: opt(x.mean_delay_ns),
            max_delay_ns: opt(x.max_delay_ns),
            lost_ns: x.lost_ns,
        }
    }
}
list_item!(
    CrossRankRank,
    sys::fsdpa_crossrank_rank,
    sys::FSDPA_LIST_CROSSRANK_RANKS
);

fn ctxs(analyzers: &[&mut Analyzer]) -> Result<Vec<*mut sys::fsdpa_ctx>> {
    if analyzers.is_empty() {
        return Err(Error::new(Status::InvalidArgument, "no analyzers"));
    }
    Ok(analyzers.iter().map(|a| a.p()).collect())
}

#[cfg(feature = "experimental")]
fn index_ok(i: usize, n: usize) -> Result<()> {
    if i < n {
        Ok(())
    } else {
        Err(Error::new(
            Status::InvalidArgument,
            format!("index {i} out of range ({n} analyzers)"),
        ))
    }
}

/// Run `f(&mut list, err)` (a C function over several inputs that returns a
/// list) and own the list.
fn list_with_error<T: crate::ListItem>(
    f: impl FnOnce(*mut *mut sys::fsdpa_list, *mut sys::fsdpa_error) -> sys::fsdpa_status,
) -> Result<List<T>> {
    let mut p: *mut sys::fsdpa_list = ptr::null_mut();
    // on failure the library leaves *out NULL: nothing to free
    with_error(|err| f(&mut p, err))?;
    // SAFETY: p is the list the call handed over.
    unsafe { List::from_raw(p) }
}

/// The findings of the report over these analyzers (one per rank), typed:
/// the same findings in the same order (cost, then severity, rank, step,
/// id) as `findings[]` of [`report_many`](crate::report_many) over them,
/// the cross-rank ones (straggler-rank) included.
pub fn report_findings(analyzers: &mut [&mut Analyzer]) -> Result<Vec<Finding>> {
    Ok(report_findings_list(analyzers)?.to_vec())
}

/// [`report_findings`] as the library's list (`fsdpa_report_findings()`),
/// e.g. for [`List::worst`](crate::List::worst).
pub fn report_findings_list(analyzers: &mut [&mut Analyzer]) -> Result<List<Finding>> {
    let c = ctxs(analyzers)?;
    list_with_error(|out, err| unsafe { sys::fsdpa_report_findings(c.as_ptr(), c.len(), out, err) })
}

/// Cross-rank analysis over the ranks of one job (collective matching,
/// clock alignment, straggler), on the events fed so far.  Parameters
/// (`crossrank.*`) are read from the first analyzer.
pub fn crossrank(analyzers: &mut [&mut Analyzer]) -> Result<CrossRank> {
    let c = ctxs(analyzers)?;
    let mut x = sys::fsdpa_crossrank::sized();
    with_error(|err| unsafe { sys::fsdpa_crossrank_query(c.as_ptr(), c.len(), &mut x, err) })?;
    Ok(CrossRank {
        ranks: x.ranks,
        collectives: x.collectives,
        unmatched: x.unmatched,
        unaligned: x.unaligned,
        unsynchronized: x.unsynchronized,
        reference_rank: opt(x.reference_rank),
        transfer_ns: opt(x.transfer_ns),
        wait_ns: opt(x.wait_ns),
        end_spread_p50_ns: opt(x.end_spread_p50_ns),
        end_spread_max_ns: opt(x.end_spread_max_ns),
        steps: x.steps,
        straggler_rank: opt(x.straggler_rank),
        straggler_late_steps: x.straggler_late_steps,
        straggler_mean_delay_ns: opt(x.straggler_mean_delay_ns),
        straggler_max_delay_ns: opt(x.straggler_max_delay_ns),
        straggler_lost_ns: opt(x.straggler_lost_ns),
    })
}

/// Each rank's part of [`crossrank`], in the order given
/// (`fsdpa_crossrank_rank_list()`).
pub fn crossrank_ranks(analyzers: &mut [&mut Analyzer]) -> Result<Vec<CrossRankRank>> {
    let c = ctxs(analyzers)?;
    let l: List<CrossRankRank> = list_with_error(|out, err| unsafe {
        sys::fsdpa_crossrank_rank_list(c.as_ptr(), c.len(), out, err)
    })?;
    Ok(l.to_vec())
}

impl Analyzer {
    /// This rank's summary (`fsdpa.summary/1`, docs/summary-format.md): its
    /// `inputs` entry (named after [`Options::name`](crate::Options::name),
    /// as [`Analyzer::report`] names it), rank section and findings, its
    /// collective table and crossrank parameters.  Merge the summaries of the
    /// ranks with [`summary_merge`] and get the report with
    /// [`summary_report`], without holding every trace at once.
    pub fn summary(&mut self) -> Result<String> {
        let name = self
            .name
            .as_deref()
            .map(|n| c_string(n.as_bytes()))
            .transpose()?;
        let mut out: *mut c_char = ptr::null_mut();
        let mut len = 0usize;
        let st = unsafe {
            sys::fsdpa_summary_write(
                self.p(),
                name.as_ref().map_or(ptr::null(), |n| n.as_ptr()),
                &mut out,
                &mut len,
            )
        };
        check(st, self.p(), false)?;
        // SAFETY: out holds len bytes until fsdpa_free().
        Ok(unsafe { take_string(out, len) })
    }
}

/// Options of [`summary_merge_with`], [`summary_report_with`] and
/// [`summary_findings_with`] (`fsdpa_summary_options`).
#[derive(Clone, Debug, Default)]
pub struct SummaryOptions {
    /// refuse to hold more than this many bytes (0 = no cap)
    pub max_memory_bytes: u64,
    /// allocator callbacks (see `fsdpa_allocator`); must stay valid during the call
    pub allocator: Option<sys::fsdpa_allocator>,
}

impl SummaryOptions {
    fn raw(&self) -> sys::fsdpa_summary_options {
        let mut opts = sys::fsdpa_summary_options::sized();
        unsafe { sys::fsdpa_summary_options_init(&mut opts) };
        opts.max_memory_bytes = self.max_memory_bytes;
        opts.allocator = self
            .allocator
            .as_ref()
            .map_or(ptr::null(), |a| a as *const _);
        opts
    }
}

/// Calls `f(out, out_len, err)` (a C function that returns a buffer) and
/// returns the text, or the error with the details the library filled in.
pub(crate) fn text_with_error(
    f: impl FnOnce(*mut *mut c_char, *mut usize, *mut sys::fsdpa_error) -> sys::fsdpa_status,
) -> Result<String> {
    let mut out: *mut c_char = ptr::null_mut();
    let mut len = 0usize;
    with_error(|err| f(&mut out, &mut len, err))?;
    // SAFETY: out holds len bytes until fsdpa_free().
    Ok(unsafe { take_string(out, len) })
}

/// Merge rank summaries ([`Analyzer::summary`]) or earlier merges into one:
/// the rank lists are concatenated in the order given (associative, byte
/// for byte).  Each input is validated (`Status::Parse` if one is not a
/// summary, with the library's message, [`Error::input`] its index and
/// [`Error::offset`] the byte offset in it).
pub fn summary_merge<S: AsRef<[u8]>>(summaries: &[S]) -> Result<String> {
    summary_merge_with(summaries, &SummaryOptions::default())
}

/// [`summary_merge`] with options.
pub fn summary_merge_with<S: AsRef<[u8]>>(summaries: &[S], o: &SummaryOptions) -> Result<String> {
    if summaries.is_empty() {
        return Err(Error::new(Status::InvalidArgument, "no summaries"));
    }
    let ptrs: Vec<*const c_char> = summaries
        .iter()
        .map(|s| s.as_ref().as_ptr().cast())
        .collect();
    let lens: Vec<usize> = summaries.iter().map(|s| s.as_ref().len()).collect();
    let opts = o.raw();
    text_with_error(|out, len, err| unsafe {
        sys::fsdpa_summary_merge(
            ptrs.as_ptr(),
            lens.as_ptr(),
            ptrs.len(),
            &opts,
            out,
            len,
            err,
        )
    })
}

/// The JSON report of a (merged) summary with its findings: the same bytes
/// as [`report_many`](crate::report_many) / [`analyze`](crate::analyze)
/// over the ranks' traces in the summary's order.
pub fn summary_report<S: AsRef<[u8]>>(summary: S) -> Result<Report> {
    summary_report_with(summary, &SummaryOptions::default())
}

/// [`summary_report`] with options.
pub fn summary_report_with<S: AsRef<[u8]>>(summary: S, o: &SummaryOptions) -> Result<Report> {
    let s = summary.as_ref();
    let mut ropts = sys::fsdpa_report_options::sized();
    unsafe { sys::fsdpa_report_options_init(&mut ropts) };
    ropts.format = sys::FSDPA_FORMAT_JSON;
    let opts = o.raw();
    let json = text_with_error(|out, len, err| unsafe {
        sys::fsdpa_summary_report(s.as_ptr().cast(), s.len(), &opts, &ropts, out, len, err)
    })?;
    Ok(Report {
        json,
        findings: summary_findings_with(s, o)?,
    })
}

/// The findings of the report of a (merged) summary, typed: the same list,
/// in the same order, as [`report_findings`] over the ranks' analyzers.
pub fn summary_findings<S: AsRef<[u8]>>(summary: S) -> Result<Vec<Finding>> {
    summary_findings_with(summary, &SummaryOptions::default())
}

/// [`summary_findings`] with options.
pub fn summary_findings_with<S: AsRef<[u8]>>(
    summary: S,
    o: &SummaryOptions,
) -> Result<Vec<Finding>> {
    let s = summary.as_ref();
    let opts = o.raw();
    let l: List<Finding> = list_with_error(|out, err| unsafe {
        sys::fsdpa_summary_findings(s.as_ptr().cast(), s.len(), &opts, out, err)
    })?;
    Ok(l.to_vec())
}

/// Options of [`annotate_file`] (`fsdpa_annotate_options`; experimental).
#[cfg(feature = "experimental")]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct AnnotateOptions {
    /// `Some(true)`: gzip the output; `Some(false)`: plain JSON; `None`
    /// (default): gzip when the output name ends in ".gz"
    pub gzip: Option<bool>,
    /// gzip level 1..9; 0 (default) = 6
    pub level: u32,
}

/// The trace events [`annotate_file`] adds to trace `i` of the job (the
/// findings of its rank as Perfetto / chrome://tracing events), as the
/// library's JSON array text.  Experimental: the added events' names and
/// arguments may change in any release.
#[cfg(feature = "experimental")]
pub fn annotate_events(analyzers: &mut [&mut Analyzer], i: usize) -> Result<String> {
    let c = ctxs(analyzers)?;
    index_ok(i, c.len())?;
    text_with_error(|out, len, err| unsafe {
        sys::fsdpa_annotate_events(c.as_ptr(), c.len(), i, out, len, err)
    })
}

/// Write a copy of trace `i` (`in_path`: the file `analyzers[i]` was fed,
/// plain or gzip) to `out_path` ("-" = standard output) with the findings
/// added as events.  The input is streamed; on failure no output file is
/// left.  Experimental, as [`annotate_events`].
#[cfg(feature = "experimental")]
pub fn annotate_file<P: AsRef<Path>, Q: AsRef<Path>>(
    analyzers: &mut [&mut Analyzer],
    i: usize,
    in_path: P,
    out_path: Q,
    opts: &AnnotateOptions,
) -> Result<()> {
    let c = ctxs(analyzers)?;
    index_ok(i, c.len())?;
    let level = c_int::try_from(opts.level)
        .map_err(|_| Error::new(Status::InvalidArgument, "gzip level out of range"))?;
    let mut o = sys::fsdpa_annotate_options::sized();
    unsafe { sys::fsdpa_annotate_options_init(&mut o) };
    o.gzip = match opts.gzip {
        None => -1,
        Some(true) => 1,
        Some(false) => 0,
    };
    o.level = level;
    let inp = c_string(in_path.as_ref().as_os_str().as_bytes())?;
    let outp = c_string(out_path.as_ref().as_os_str().as_bytes())?;
    with_error(|err| unsafe {
        sys::fsdpa_annotate_file(c.as_ptr(), c.len(), i, inp.as_ptr(), outp.as_ptr(), &o, err)
    })
}
