//! Paths and helpers shared by the integration tests (meson sets the
//! variables; bindings/run_suite.py sets them for runs by hand).
#![allow(dead_code)]
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

/// `fsdpa analyze --format json PATHS`.
pub fn cli_report(paths: &[&str]) -> String {
    let cli = env::var_os("FSDPA_CLI")
        .map(PathBuf::from)
        .unwrap_or_else(|| build_root().join("tools/fsdpa/fsdpa"));
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

use fsdpa::json::Value;
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
