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
