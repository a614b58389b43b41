//! Paths and helpers shared by the integration tests (meson sets the
//! variables; bindings/run_suite.py sets them for runs by hand).
#![allow(dead_code)]
pub mod json;
use std::env;
use std::path::PathBuf;
use std::process::Command;

pub const BASE: i64 = 1_000_000_000_000; // baseTimeNanoseconds of tiny_trace.json

pub fn bindings_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

pub fn build_root() -> PathBuf {
    env::var_os("FSDPA_BUILD_ROOT")
        .map(PathBuf::from)
        .unwrap_or_else(|| bindings_dir().join("../build"))
}

pub fn tiny() -> String {
    bindings_dir()
        .join("testdata/tiny_trace.json")
        .canonicalize()
        .unwrap()
        .to_string_lossy()
        .into_owned()
}

pub fn sample() -> String {
    env::var("FSDPA_SAMPLE_TRACE").unwrap_or_else(|_| tiny())
}

/// The multi-MB trace, or None with a printed reason.
pub fn big() -> Option<String> {
    let p = env::var("FSDPA_BIG_TRACE").ok().or_else(|| {
        env::var("FSDPA_TRACE_CORPUS")
            .or_else(|_| env::var("FSDPA_DEFAULT_CORPUS"))
            .ok()
            .map(|c| format!("{c}/hta/trace_diff/control/control.json.gz"))
    });
    match p {
        Some(p) if std::path::Path::new(&p).exists() => Some(p),
        other => {
            println!("# SKIP big-trace test: no multi-MB trace ({other:?})");
            None
        }
    }
}

pub fn abi_json() -> String {
    let p = env::var_os("FSDPA_ABI_JSON")
        .map(PathBuf::from)
        .unwrap_or_else(|| build_root().join("bindings/abi.json"));
    std::fs::read_to_string(&p).unwrap_or_else(|e| {
        panic!(
            "ABI table {} missing ({e}): build it with ninja or set FSDPA_ABI_JSON",
            p.display()
        )
    })
}

/// The `fsdpa` command-line tool of the build.
pub fn cli() -> PathBuf {
    env::var_os("FSDPA_CLI")
        .map(PathBuf::from)
        .unwrap_or_else(|| build_root().join("tools/fsdpa/fsdpa"))
}

/// `fsdpa analyze --format json PATHS`.
pub fn cli_report(paths: &[&str]) -> String {
    let cli = cli();
    let out = Command::new(&cli)
        .args(["analyze", "--format", "json", "--no-progress"])
        .args(paths)
        .output()
        .unwrap_or_else(|e| panic!("cannot run {}: {e}", cli.display()));
    assert!(
        out.status.success(),
        "fsdpa analyze failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// The report text with every `"path": "..."` value blanked.
pub fn without_paths(s: &str) -> String {
    let key = "\"path\": \"";
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(i) = rest.find(key) {
        out.push_str(&rest[..i + key.len()]);
        rest = &rest[i + key.len()..];
        let mut end = 0;
        let b = rest.as_bytes();
        while end < b.len() && b[end] != b'"' {
            end += if b[end] == b'\\' { 2 } else { 1 };
        }
        rest = &rest[end..];
    }
    out.push_str(rest);
    out
}

pub fn assert_same(mine: &str, cli: &str) {
    let (a, b) = (without_paths(mine), without_paths(cli));
    if a != b {
        let i = a
            .bytes()
            .zip(b.bytes())
            .position(|(x, y)| x != y)
            .unwrap_or(a.len().min(b.len()));
        let ctx = |s: &str| {
            s.get(i.saturating_sub(80)..(i + 80).min(s.len()))
                .unwrap_or("")
                .to_string()
        };
        panic!(
            "reports differ at byte {i}:\nbinding: {}\nCLI:     {}",
            ctx(&a),
            ctx(&b)
        );
    }
}

// ---------------------------------------------------------------------------
// Generated traces, the Python binding, and comparing results as JSON values.

use json::Value;
use std::path::Path;

fn work_dir() -> PathBuf {
    env::var_os("FSDPA_BINDINGS_WORK")
        .map(PathBuf::from)
        .unwrap_or_else(|| build_root().join("bindings/work"))
        .join("rust")
}

fn python() -> String {
    env::var("FSDPA_PYTHON").unwrap_or_else(|_| "python3".into())
}

static TRACEGEN: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// A generated trace: `tools/tracegen/tracegen.py SCENARIO --seed 1 ARGS`,
/// cached under the bindings work dir.  One (trace path, truth) per rank, in
/// rank order; the truth is what the generator knows exactly.
pub fn tracegen(scenario: &str, args: &[&str]) -> Vec<(String, Value)> {
    let _guard = TRACEGEN.lock().unwrap_or_else(|e| e.into_inner());
    let key: String = std::iter::once(scenario)
        .chain(args.iter().copied())
        .collect::<Vec<_>>()
        .join("_")
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect();
    let root = work_dir().join("tracegen");
    let dir = root.join(&key);
    if !dir.exists() {
        let src = env::var_os("FSDPA_SOURCE_ROOT")
            .map(PathBuf::from)
            .unwrap_or_else(|| bindings_dir().join(".."));
        let gen = src.join("tools/tracegen/tracegen.py");
        let tmp = root.join(format!("{key}.tmp{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&tmp);
        std::fs::create_dir_all(&tmp).unwrap();
        let out = Command::new(python())
            .arg(&gen)
            .args([scenario, "-o"])
            .arg(tmp.join("trace.json.gz"))
            .args(["--seed", "1"])
            .args(args)
            .output()
            .unwrap_or_else(|e| panic!("cannot run {} {}: {e}", python(), gen.display()));
        assert!(
            out.status.success(),
            "tracegen {scenario} failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        // another test binary may have won the race: keep its files
        if std::fs::rename(&tmp, &dir).is_err() {
            assert!(dir.exists());
            let _ = std::fs::remove_dir_all(&tmp);
        }
    }
    let mut ranks: Vec<(String, Value)> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.to_string_lossy().ends_with(".json.gz"))
        .map(|p| {
            let s = p.to_string_lossy().into_owned();
            let truth_path = s.trim_end_matches(".json.gz").to_string() + ".truth.json";
            let truth = Value::parse(&std::fs::read_to_string(&truth_path).unwrap()).unwrap();
            (s, truth)
        })
        .collect();
    ranks.sort_by_key(|(_, t)| t.get("rank").as_i64());
    assert!(
        !ranks.is_empty(),
        "tracegen wrote nothing in {}",
        dir.display()
    );
    println!("# {scenario}: {}", ranks[0].0);
    ranks
}

/// Run a Python script with the Python binding importable; its stdout is JSON.
pub fn python_json(script: &str, args: &[&str]) -> Value {
    let pypath = bindings_dir().join("python");
    let lib = env::var_os("FSDPA_LIBRARY")
        .map(PathBuf::from)
        .unwrap_or_else(|| build_root().join("libfsdpa/libfsdpa.so"));
    let out = Command::new(python())
        .arg("-c")
        .arg(script)
        .args(args)
        .env("PYTHONPATH", &pypath)
        .env("FSDPA_LIBRARY", &lib)
        .output()
        .unwrap_or_else(|e| panic!("cannot run {}: {e}", python()));
    assert!(
        out.status.success(),
        "python binding script failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    Value::parse(std::str::from_utf8(&out.stdout).unwrap()).unwrap()
}

/// A temporary directory removed on drop.
pub struct TempDir(pub PathBuf);
impl TempDir {
    pub fn new(tag: &str) -> TempDir {
        let d = work_dir().join(format!("tmp-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        TempDir(d)
    }
    pub fn path(&self, name: &str) -> String {
        self.0.join(name).to_string_lossy().into_owned()
    }
}
impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

pub fn exists(p: &str) -> bool {
    Path::new(p).exists()
}

/// A double the report rounded to 6 decimals (or 6 significant digits).
pub fn ratio_eq(mine: Option<f64>, report: &Value) -> bool {
    match (mine, report.as_f64()) {
        (None, None) => report.is_null(),
        (Some(a), Some(b)) => (a - b).abs() <= 5e-7 + 5e-6 * a.abs().max(b.abs()),
        _ => false,
    }
}

/// Conversion of the binding's results to JSON values with the Python
/// binding's field names and conventions (`None` = null, flags as 0/1 and
/// tri-states as 1/0/-1, enums by their report names).
pub trait ToValue {
    fn v(&self) -> Value;
}
impl ToValue for i64 {
    fn v(&self) -> Value {
        Value::Int(*self)
    }
}
impl ToValue for u64 {
    fn v(&self) -> Value {
        Value::Int(i64::try_from(*self).unwrap())
    }
}
impl ToValue for usize {
    fn v(&self) -> Value {
        Value::Int(i64::try_from(*self).unwrap())
    }
}
impl ToValue for u32 {
    fn v(&self) -> Value {
        Value::Int(*self as i64)
    }
}
impl ToValue for f64 {
    fn v(&self) -> Value {
        Value::Float(*self)
    }
}
impl ToValue for bool {
    fn v(&self) -> Value {
        Value::Int(*self as i64)
    }
}
impl ToValue for Option<bool> {
    fn v(&self) -> Value {
        Value::Int(match self {
            Some(true) => 1,
            Some(false) => 0,
            None => -1,
        })
    }
}
impl ToValue for String {
    fn v(&self) -> Value {
        Value::Str(self.clone())
    }
}
impl ToValue for fsdpa::Phase {
    fn v(&self) -> Value {
        Value::Str(self.as_str().into())
    }
}
impl ToValue for fsdpa::BackwardPattern {
    fn v(&self) -> Value {
        Value::Str(self.name().into())
    }
}
impl ToValue for fsdpa::WaitSource {
    fn v(&self) -> Value {
        Value::Str(self.as_str().into())
    }
}
macro_rules! opt_to_value {
    ($($t:ty),*) => {$(
        impl ToValue for Option<$t> {
            fn v(&self) -> Value {
                self.as_ref().map_or(Value::Null, |x| x.v())
            }
        }
    )*};
}
opt_to_value!(i64, f64, String);
impl<T: ToValue, const N: usize> ToValue for [T; N] {
    fn v(&self) -> Value {
        Value::Array(self.iter().map(ToValue::v).collect())
    }
}
impl<T: ToValue> ToValue for Vec<T> {
    fn v(&self) -> Value {
        Value::Array(self.iter().map(ToValue::v).collect())
    }
}

/// Every field, by destructuring without `..`: a field missing from the list
/// does not compile.
macro_rules! record {
    ($t:ident { $($f:ident),* $(,)? }) => {
        impl ToValue for fsdpa::$t {
            fn v(&self) -> Value {
                let fsdpa::$t { $($f),* } = self;
                Value::Object(vec![$((stringify!($f).to_string(), $f.v())),*])
            }
        }
    };
}
record!(LaunchGaps {
    kernel_wait_threshold_ns,
    small_gap_threshold_ns,
    streams,
    gaps,
    idle_ns,
    host_wait_ns,
    kernel_wait_ns,
    other_ns,
    host_wait_gaps,
    kernel_wait_gaps,
    other_gaps,
    unlinked_gaps,
    unlinked_ns,
    small_launch_gaps,
    small_launch_ns,
    p50_ns,
    p90_ns,
    p99_ns,
    max_ns,
    edges_ns,
    counts,
    bin_idle_ns,
    span_ns,
    busy_ns,
    density,
    gpu_window_ns,
    utilization,
    gpu_gaps,
    gpu_idle_ns,
    gpu_host_wait_ns,
    gpu_kernel_wait_ns,
    gpu_other_ns,
    gpu_small_launch_ns
});
record!(LaunchLatency {
    ops,
    linked,
    min_ns,
    p50_ns,
    p90_ns,
    p99_ns,
    max_ns,
    total_ns,
    edges_ns,
    counts,
    kernels,
    kernels_linked,
    kernels_shorter_than_launch,
    short_kernel_share
});
record!(LaunchQueue {
    ops,
    range_ns,
    max_depth,
    mean_depth,
    depth0_ns,
    starved_ns
});
record!(CommSplit {
    name,
    count,
    comm_ns,
    overlap_ns,
    exposed_ns,
    bytes,
    timed_ns,
    algbw_gbps,
    busbw_gbps
});
record!(FsdpUnit {
    name,
    name_len,
    phase,
    instances,
    comm_ns,
    compute_ns,
    exposed_ns,
    exposed_sum_ns,
    exposed_measured_ns,
    allgather_ns,
    reducescatter_ns,
    comm_kernels,
    compute_kernels
});
record!(Backward {
    pattern,
    steps,
    units,
    prefetched_units,
    links,
    broken_links,
    idle_ns
});
record!(BackwardStep {
    step,
    pattern,
    units,
    links,
    prefetched_links,
    rs_hidden_links,
    idle_ns,
    start_ns,
    end_ns,
    overlap_pct
});
record!(BackwardUnit {
    name,
    name_len,
    position,
    prefetched,
    rs_hidden,
    idle_ns,
    ag_start_ns,
    ag_end_ns,
    ag_stream,
    compute_start_ns,
    compute_end_ns,
    compute_stream,
    rs_start_ns,
    rs_end_ns,
    rs_stream
});
record!(SyncWait {
    api,
    count,
    total_ns,
    max_ns,
    in_steps,
    threads,
    gpu_idle_during_ns,
    gpu_idle_after_ns,
    idle_after_calls,
    gpu_idle_ns
});
record!(SyncCall {
    api,
    pid,
    tid,
    start_ns,
    dur_ns,
    step,
    source,
    device_wide,
    sync_kind,
    device,
    stream,
    waited_op,
    waited_op_stream,
    waited_op_start_ns,
    waited_op_end_ns,
    gpu_idle_during_ns,
    gpu_idle_after_ns
});
record!(SyncStep {
    index,
    number,
    step_dur_ns,
    count,
    total_ns,
    max_ns,
    worst_thread_ns,
    worst_pid,
    worst_tid,
    share,
    gpu_idle_ns,
    flagged
});
record!(MemorySummary {
    malloc_calls,
    free_calls,
    malloc_ns,
    free_ns,
    malloc_bytes,
    warmup_steps,
    steady_steps,
    steady_state_malloc_calls,
    steady_state_free_calls,
    gpu_idle_ns,
    device,
    memory_events,
    oom_events,
    allocated_is_relative,
    start_allocated_bytes,
    end_allocated_bytes,
    min_allocated_bytes,
    peak_allocated_bytes,
    peak_allocated_delta_bytes,
    peak_reserved_bytes,
    allocated_at_peak_reserved_bytes,
    fragmentation,
    mean_unallocated_share
});
record!(MemoryDevice {
    device_type,
    device,
    relative,
    primary,
    events,
    oom_events,
    peak_allocated_bytes,
    peak_allocated_delta_bytes,
    peak_reserved_bytes,
    allocated_at_peak_reserved_bytes,
    fragmentation,
    mean_unallocated_share
});
record!(MemoryPoint {
    t0_ns,
    t1_ns,
    events,
    allocated_min,
    allocated_max,
    allocated_last,
    reserved_min,
    reserved_max,
    reserved_last
});
record!(MemoryStep {
    index,
    number,
    warmup,
    malloc_calls,
    free_calls,
    malloc_ns,
    free_ns,
    gpu_idle_ns,
    start_allocated_bytes,
    end_allocated_bytes,
    min_allocated_bytes,
    peak_allocated_bytes,
    peak_reserved_bytes,
    returns_to_baseline
});
record!(CrossRank {
    ranks,
    collectives,
    unmatched,
    unaligned,
    unsynchronized,
    reference_rank,
    transfer_ns,
    wait_ns,
    end_spread_p50_ns,
    end_spread_max_ns,
    steps,
    straggler_rank,
    straggler_late_steps,
    straggler_mean_delay_ns,
    straggler_max_delay_ns,
    straggler_lost_ns
});
record!(CrossRankRank {
    rank,
    clock_offset_ns,
    collectives,
    transfer_ns,
    wait_ns,
    last_count,
    late_steps,
    mean_delay_ns,
    max_delay_ns,
    lost_ns
});

/// Deep equality of two JSON values: objects with the same keys (any order),
/// numbers equal as numbers (exact: both sides hold the same double).
pub fn assert_values_eq(path: &str, mine: &Value, theirs: &Value) {
    match (mine, theirs) {
        (Value::Object(a), Value::Object(b)) => {
            let mut ka: Vec<&str> = a.iter().map(|(k, _)| k.as_str()).collect();
            let mut kb: Vec<&str> = b.iter().map(|(k, _)| k.as_str()).collect();
            ka.sort();
            kb.sort();
            assert_eq!(ka, kb, "{path}: fields");
            for (k, v) in a {
                assert_values_eq(&format!("{path}.{k}"), v, theirs.get(k));
            }
        }
        (Value::Array(a), Value::Array(b)) => {
            assert_eq!(a.len(), b.len(), "{path}: length");
            for (i, (x, y)) in a.iter().zip(b).enumerate() {
                assert_values_eq(&format!("{path}[{i}]"), x, y);
            }
        }
        (Value::Int(x), Value::Int(y)) => assert_eq!(x, y, "{path}"),
        (x, y) if x.as_f64().is_some() && y.as_f64().is_some() => {
            assert_eq!(x.as_f64(), y.as_f64(), "{path}")
        }
        (x, y) => assert_eq!(x, y, "{path}"),
    }
}

/// The typed findings equal the JSON report's `findings[]`, in order, field
/// by field: id, severity name, rank and step (null = `None`), cost, the
/// what-if saving (its share, and its window from the evidence), texts,
/// the evidence object (the typed finding's JSON text, parsed) and its
/// `ranges` (the typed ranges).
pub fn assert_findings_match(what: &str, mine: &[fsdpa::Finding], report: &Value) {
    let theirs = report.get("findings").as_array();
    let ids = |v: &[Value]| -> Vec<String> {
        v.iter()
            .map(|f| f.get("id").as_str().unwrap_or("?").to_string())
            .collect()
    };
    let my_ids: Vec<String> = mine.iter().map(|f| f.id.clone()).collect();
    assert_eq!(my_ids, ids(theirs), "{what}: finding ids in order");
    for (i, (m, r)) in mine.iter().zip(theirs).enumerate() {
        let w = format!("{what}: findings[{i}] {}", m.id);
        assert_eq!(
            Some(m.severity.name()),
            r.get("severity").as_str(),
            "{w}: severity"
        );
        assert_eq!(m.rank, r.get("rank").as_i64(), "{w}: rank");
        assert_eq!(m.rank.is_none(), r.get("rank").is_null(), "{w}: rank null");
        assert_eq!(m.step, r.get("step").as_i64(), "{w}: step");
        assert_eq!(m.step.is_none(), r.get("step").is_null(), "{w}: step null");
        assert_eq!(m.cost_ns, r.get("cost_ns").as_i64(), "{w}: cost_ns");
        assert_eq!(m.saving_ns, r.get("saving_ns").as_i64(), "{w}: saving_ns");
        assert_eq!(
            m.saving_ns.is_none(),
            r.get("saving_ns").is_null(),
            "{w}: saving_ns null"
        );
        assert!(
            ratio_eq(m.saving_share(), r.get("saving_share")),
            "{w}: saving_share {:?}, the report has {:?}",
            m.saving_share(),
            r.get("saving_share")
        );
        // the report writes both keys on every finding (null where the fix
        // is not replayed), the window in the evidence beside the saving
        for k in ["saving_ns", "saving_share"] {
            assert!(
                r.as_object().iter().any(|(key, _)| key == k),
                "{w}: the report has no {k}"
            );
        }
        let window = if r.get("saving_ns").is_null() {
            None
        } else {
            r.get("evidence").get("saving_window_ns").as_i64()
        };
        assert_eq!(m.saving_window_ns, window, "{w}: saving_window_ns");
        assert_eq!(
            Some(m.title.as_str()),
            r.get("title").as_str(),
            "{w}: title"
        );
        assert_eq!(
            Some(m.detail.as_str()),
            r.get("detail").as_str(),
            "{w}: detail"
        );
        assert_eq!(
            Some(m.advice.as_str()),
            r.get("advice").as_str(),
            "{w}: advice"
        );
        let ev = Value::parse(&m.evidence_json)
            .unwrap_or_else(|e| panic!("{w}: evidence_json is not JSON: {e}"));
        assert_values_eq(&format!("{w}: evidence"), &ev, r.get("evidence"));
        let ranges: Vec<(Option<i64>, Option<i64>)> = r
            .get("evidence")
            .get("ranges")
            .as_array()
            .iter()
            .map(|x| (x.get("start_ns").as_i64(), x.get("end_ns").as_i64()))
            .collect();
        let my_ranges: Vec<(Option<i64>, Option<i64>)> = m
            .ranges
            .iter()
            .map(|x| (Some(x.start_ns), Some(x.end_ns)))
            .collect();
        assert_eq!(my_ranges, ranges, "{w}: ranges");
    }
}

/// A zeroed query is the whole trace, the same as no query (NULL), as
/// `FSDPA_QUERY_INIT`, `fsdpa_query_init()` and `Query::all()`, and
/// selectors whose bit is not set in `fields` do not count: every function
/// that takes a query gives the same result for all of them.
pub fn assert_zero_query_is_no_query(a: &fsdpa::Analyzer) {
    use fsdpa::{sys, List, ListItem};
    use std::fmt::Debug;
    let ctx = a.as_ptr();
    let zeroed = sys::fsdpa_query::sized();
    let mut init = sys::fsdpa_query {
        fields: 0x1f,
        step: 3,
        device: 5,
        ..sys::fsdpa_query::sized()
    };
    unsafe { sys::fsdpa_query_init(&mut init) };
    let all = fsdpa::Query::all().raw();
    let unset = sys::fsdpa_query {
        fields: 0,
        t0_ns: i64::MAX,
        t1_ns: i64::MIN,
        step: 1 << 40,
        device: 99,
        stream: 99,
        ..sys::fsdpa_query::sized()
    };
    let queries: [(&str, *const sys::fsdpa_query); 6] = [
        ("NULL", std::ptr::null()),
        ("zeroed", &zeroed),
        ("FSDPA_QUERY_INIT", &sys::FSDPA_QUERY_INIT),
        ("fsdpa_query_init", &init),
        ("Query::all", &all),
        ("selectors without their bits", &unset),
    ];
    fn same(what: &str, results: Vec<(&str, String)>) {
        for (name, r) in &results[1..] {
            assert_eq!(r, &results[0].1, "{what}: {name} vs {}", results[0].0);
        }
    }
    macro_rules! one {
        ($f:ident, $t:ident) => {{
            let r = queries
                .iter()
                .map(|&(name, q)| {
                    let mut out = sys::$t::sized();
                    let st = unsafe { sys::$f(ctx, q, &mut out) };
                    assert_eq!(st, sys::FSDPA_OK, "{}: {name}", stringify!($f));
                    (name, format!("{out:?}"))
                })
                .collect();
            same(stringify!($f), r);
        }};
    }
    one!(fsdpa_timeline_query, fsdpa_timeline);
    one!(fsdpa_launch_gaps_query, fsdpa_launch_gaps);
    one!(fsdpa_launch_latency_query, fsdpa_launch_latency);
    one!(fsdpa_launch_queue_query, fsdpa_launch_queue);
    one!(fsdpa_overlap_query, fsdpa_overlap);
    one!(fsdpa_memory_query, fsdpa_memory_summary);
    fn items<T: ListItem + Debug>(
        what: &str,
        name: &str,
        f: impl FnOnce(*mut *mut sys::fsdpa_list) -> sys::fsdpa_status,
    ) -> String {
        let mut l = std::ptr::null_mut();
        assert_eq!(f(&mut l), sys::FSDPA_OK, "{what}: {name}");
        let l: List<T> = unsafe { List::from_raw(l) }.unwrap();
        format!("{:?}", l.to_vec())
    }
    macro_rules! list {
        ($t:ty, $what:expr, |$q:ident, $l:ident| $call:expr) => {{
            let r = queries
                .iter()
                .map(|&(name, $q)| (name, items::<$t>($what, name, |$l| unsafe { $call })))
                .collect();
            same($what, r);
        }};
    }
    for by in [sys::FSDPA_SPLIT_COLLECTIVE, sys::FSDPA_SPLIT_PROCESS_GROUP] {
        list!(fsdpa::CommSplit, "fsdpa_comm_split_list", |q, l| {
            sys::fsdpa_comm_split_list(ctx, q, by, l)
        });
    }
    list!(fsdpa::FsdpUnit, "fsdpa_fsdp_unit_list", |q, l| {
        sys::fsdpa_fsdp_unit_list(ctx, q, l)
    });
    list!(fsdpa::SyncWait, "fsdpa_sync_wait_list", |q, l| {
        sys::fsdpa_sync_wait_list(ctx, q, l)
    });
    list!(fsdpa::SyncCall, "fsdpa_sync_call_list", |q, l| {
        sys::fsdpa_sync_call_list(ctx, q, l)
    });
    list!(fsdpa::SyncStep, "fsdpa_sync_step_list", |q, l| {
        sys::fsdpa_sync_step_list(ctx, q, l)
    });
    list!(fsdpa::MemoryDevice, "fsdpa_memory_device_list", |q, l| {
        sys::fsdpa_memory_device_list(ctx, q, l)
    });
    list!(fsdpa::MemoryStep, "fsdpa_memory_step_list", |q, l| {
        sys::fsdpa_memory_step_list(ctx, q, l)
    });
    for device in [sys::FSDPA_ABSENT, 0] {
        list!(fsdpa::MemoryPoint, "fsdpa_memory_series_list", |q, l| {
            sys::fsdpa_memory_series_list(ctx, q, device, 16, l)
        });
    }
    // the same selectors with their bits set do count: a step index
    // past the end is refused
    let bad = sys::fsdpa_query {
        fields: sys::FSDPA_QUERY_STEP,
        ..unset
    };
    let mut t = sys::fsdpa_timeline::sized();
    let st = unsafe { sys::fsdpa_timeline_query(ctx, &bad, &mut t) };
    assert_eq!(st, sys::FSDPA_EINVAL, "a step index past the end");
}

// ---------------------------------------------------------------------------
// Struct sizes across the ABI.

/// A buffer of `size_of::<T>() + 64` bytes, all 0xAB, with `size` written
/// first: a caller compiled against a newer, larger struct.
pub fn padded<T>(size: usize) -> Vec<u64> {
    let n = std::mem::size_of::<T>() + 64;
    let mut v = vec![0xABAB_ABAB_ABAB_ABABu64; n.div_ceil(8)];
    v[0] = size as u64;
    v
}
pub fn bytes(v: &[u64]) -> &[u8] {
    unsafe { std::slice::from_raw_parts(v.as_ptr() as *const u8, v.len() * 8) }
}
/// The first field each struct gained after its first release (0.2.0), as
/// `include/fsdpa/fsdpa.h` marks them ("since 0.3"): its first size ends
/// before it (libfsdpa/util/abi.h, tests/abi/abi_core.h).
const GROWN_AT: &[(&str, &str)] = &[("fsdpa_finding", "saving_ns")];

/// T's first released size: where its 0.2.0 fields end (every struct's first
/// release), i.e. the start of its first later field, else its last field's
/// end.
pub fn first_size<T: fsdpa::sys::Layout>() -> usize {
    let f = T::fields();
    if let Some((_, grown)) = GROWN_AT.iter().find(|(t, _)| *t == T::NAME) {
        let i = f
            .iter()
            .position(|x| x.0 == *grown)
            .unwrap_or_else(|| panic!("{}: no field {grown}", T::NAME));
        let last = &f[i - 1];
        return last.1 + last.2;
    }
    let last = f.last().unwrap();
    last.1 + last.2
}

/// `fsdpa_list_get` on item 0 of `list` (then freed) at every size that
/// matters: a larger caller struct is filled up to the library's size with
/// its tail left alone, the first size works and writes nothing past it,
/// smaller sizes (0 included) are refused without writing; an index past
/// the end and a NULL item are refused.
pub fn assert_item_sizes<T: fsdpa::sys::Layout>(list: *mut fsdpa::sys::fsdpa_list) {
    use fsdpa::sys;
    let name = T::NAME;
    let n = std::mem::size_of::<T>();
    let first = first_size::<T>();
    assert!(unsafe { sys::fsdpa_list_count(list) } > 0, "{name}: items");
    let mut exact = padded::<T>(n);
    let get = |buf: &mut Vec<u64>| unsafe { sys::fsdpa_list_get(list, 0, buf.as_mut_ptr().cast()) };
    assert_eq!(get(&mut exact), sys::FSDPA_OK, "{name}");
    let mut big = padded::<T>(n + 64);
    assert_eq!(get(&mut big), sys::FSDPA_OK, "{name}: larger");
    assert_eq!(&bytes(&big)[8..first], &bytes(&exact)[8..first], "{name}");
    assert!(bytes(&big)[n..].iter().all(|&b| b == 0xAB), "{name}: tail");
    let mut at_first = padded::<T>(first);
    assert_eq!(get(&mut at_first), sys::FSDPA_OK, "{name}: first size");
    assert_eq!(&bytes(&at_first)[8..first], &bytes(&exact)[8..first]);
    assert!(bytes(&at_first)[first..].iter().all(|&b| b == 0xAB));
    for size in [0, first - 1] {
        let mut small = padded::<T>(size);
        assert_eq!(get(&mut small), sys::FSDPA_EINVAL, "{name}: size {size}");
        assert!(bytes(&small)[8..].iter().all(|&b| b == 0xAB));
    }
    // past the end, NULL item: refused
    let mut item = padded::<T>(n);
    let count = unsafe { sys::fsdpa_list_count(list) };
    let st = unsafe { sys::fsdpa_list_get(list, count, item.as_mut_ptr().cast()) };
    assert_eq!(st, sys::FSDPA_EINVAL, "{name}: index past the end");
    let st = unsafe { sys::fsdpa_list_get(list, 0, std::ptr::null_mut()) };
    assert_eq!(st, sys::FSDPA_EINVAL, "{name}: NULL item");
    unsafe { sys::fsdpa_list_free(list) };
}
