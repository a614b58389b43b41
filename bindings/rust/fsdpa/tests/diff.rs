//! `fsdpa::diff` (experimental): the same bytes as `fsdpa diff -f json`,
//! a summary as a run, the gate on hand-written reports with known step
//! times, and the errors.
#![cfg(feature = "experimental")]
mod common;

use fsdpa::{diff, Analyzer, DiffOptions, Format, Options, Status};
use std::process::Command;

fn report(steps: &[i64]) -> String {
    let s: Vec<String> = steps
        .iter()
        .enumerate()
        .map(|(i, d)| {
            format!(
                "{{\"name\": \"ProfilerStep#{}\", \"start_ns\": 0, \"dur_ns\": {d}}}",
                i + 1
            )
        })
        .collect();
    format!(
        "{{\"schema\": \"fsdpa.report/1\", \"ranks\": [{{\"rank\": 0, \"iterations\": {{\"count\": {}}}, \"steps\": [{}]}}]}}",
        steps.len(),
        s.join(", ")
    )
}

#[test]
fn same_bytes_as_the_cli() {
    let tiny = common::tiny();
    let rep = common::cli_report(&[&tiny]);
    let d = diff(&rep, &rep, &DiffOptions::default()).unwrap();
    let out = Command::new(common::cli())
        .args(["diff", "--no-progress", "-f", "json", &tiny, &tiny])
        .output()
        .unwrap();
    assert!(out.status.success());
    assert_eq!(d.text, String::from_utf8(out.stdout).unwrap());
    assert!(!d.regressed);
    // a summary is a run too
    let mut a = Analyzer::with_options(&Options {
        name: Some(tiny.clone()),
        ..Options::default()
    })
    .unwrap();
    a.feed_file(&tiny).unwrap();
    let sum = a.summary().unwrap();
    assert_eq!(
        diff(&sum, &rep, &DiffOptions::default()).unwrap().text,
        d.text
    );
}

#[test]
fn gate_and_formats() {
    // steady steps 1000, 1010 (spread 5) -> 1100, 1110: +9.95 %
    let (b, n) = (report(&[50, 1000, 1010]), report(&[50, 1100, 1110]));
    let gate = |ppm| DiffOptions {
        fail_on_regression_ppm: Some(ppm),
        ..DiffOptions::default()
    };
    let d = diff(&b, &n, &gate(50_000)).unwrap();
    assert!(d.regressed);
    assert!(d.text.contains("\"base\": 1005,\n      \"new\": 1105,\n      \"delta\": 100,\n      \"change_pct\": 9.950"), "{}", d.text);
    assert!(!diff(&b, &n, &gate(100_000)).unwrap().regressed);
    assert!(!diff(&n, &b, &gate(0)).unwrap().regressed);
    let t = diff(
        &b,
        &n,
        &DiffOptions {
            format: Format::Text,
            ..gate(50_000)
        },
    )
    .unwrap();
    assert!(
        t.text.contains("Regression gate 5%: REGRESSED"),
        "{}",
        t.text
    );
    let h = diff(
        &b,
        &n,
        &DiffOptions {
            format: Format::Html,
            ..DiffOptions::default()
        },
    )
    .unwrap();
    assert!(h.text.starts_with("<!DOCTYPE html>"));
}

#[test]
fn errors() {
    let b = report(&[1, 2]);
    let e = diff(
        &b,
        "{\"schema\": \"fsdpa.report/1\", \"ranks\": [",
        &DiffOptions::default(),
    )
    .unwrap_err();
    assert_eq!(e.status, Status::Parse);
    assert_eq!(e.input, Some(1));
    assert_eq!(e.offset, Some(39));
    let e = diff("{\"traceEvents\": []}", &b, &DiffOptions::default()).unwrap_err();
    assert_eq!((e.status, e.input), (Status::Parse, Some(0)));
    let e = diff(
        &b,
        &b,
        &DiffOptions {
            fail_on_regression_ppm: Some(-5),
            ..DiffOptions::default()
        },
    )
    .unwrap_err();
    assert_eq!(e.status, Status::InvalidArgument);
}
