//! The functions over the ranks of one job, on a generated 3-rank trace
//! (tools/tracegen `straggler`: rank 2 starts every step 1.5 ms late, each
//! rank on its own clock): the cross-rank analysis against the report's
//! `cross_rank` section, the generator's truth and the Python binding; the
//! typed findings (straggler-rank included) against the report's;
//! summaries against the CLI report; annotated copies (experimental)
//! against the findings.
mod common;
use common::json::Value;
use common::{assert_values_eq, ToValue};
#[cfg(feature = "experimental")]
use fsdpa::AnnotateOptions;
use fsdpa::{Analyzer, Options, Status, SummaryOptions};

fn job() -> Vec<(String, Value)> {
    let ranks = common::tracegen(
        "straggler",
        &["--ranks", "3", "--steps", "3", "--layers", "3"],
    );
    assert_eq!(ranks.len(), 3);
    ranks
}

/// One analyzer per rank, named by its path (as `fsdpa analyze` names inputs).
fn analyzers(paths: &[&str]) -> Vec<Analyzer> {
    paths
        .iter()
        .map(|p| {
            let mut a = Analyzer::with_options(&Options {
                name: Some(p.to_string()),
                ..Options::default()
            })
            .unwrap();
            a.feed_file(p).unwrap();
            a
        })
        .collect()
}

fn refs(v: &mut [Analyzer]) -> Vec<&mut Analyzer> {
    v.iter_mut().collect()
}

#[test]
fn crossrank_matches_report_truth_and_python() {
    let job = job();
    let paths: Vec<&str> = job.iter().map(|(p, _)| p.as_str()).collect();
    let mut az = analyzers(&paths);
    let x = fsdpa::crossrank(&mut refs(&mut az)).unwrap();
    let ranks = fsdpa::crossrank_ranks(&mut refs(&mut az)).unwrap();

    let report = Value::parse(&common::cli_report(&paths)).unwrap();
    let cr = report.get("cross_rank");
    let xv = x.v();
    for k in [
        "ranks",
        "reference_rank",
        "collectives",
        "unmatched",
        "unaligned",
        "unsynchronized",
        "transfer_ns",
        "wait_ns",
        "end_spread_p50_ns",
        "end_spread_max_ns",
    ] {
        assert_values_eq(k, xv.get(k), cr.get(k));
    }
    let st = cr.get("straggler");
    for (rk, mk) in [
        ("rank", "straggler_rank"),
        ("late_steps", "straggler_late_steps"),
        ("steps", "steps"),
        ("mean_delay_ns", "straggler_mean_delay_ns"),
        ("max_delay_ns", "straggler_max_delay_ns"),
        ("lost_ns", "straggler_lost_ns"),
    ] {
        assert_values_eq(rk, xv.get(mk), st.get(rk));
    }
    let per_rank = cr.get("per_rank").as_array();
    assert_eq!(per_rank.len(), ranks.len());
    for (m, r) in ranks.iter().zip(per_rank) {
        let mv = m.v();
        for k in [
            "rank",
            "clock_offset_ns",
            "collectives",
            "transfer_ns",
            "wait_ns",
            "last_count",
            "late_steps",
            "mean_delay_ns",
            "max_delay_ns",
            "lost_ns",
        ] {
            assert_values_eq(&format!("rank {}: {k}", m.rank), mv.get(k), r.get(k));
        }
    }

    // what the generator planted: the straggler and its delay, and each
    // rank's clock relative to the reference rank's
    let planted = job[0].1.get("straggler");
    assert_eq!(x.straggler_rank, planted.get("rank").as_i64());
    assert_eq!(x.straggler_mean_delay_ns, planted.get("delay_ns").as_i64());
    assert_eq!(x.straggler_max_delay_ns, planted.get("delay_ns").as_i64());
    assert_eq!(x.straggler_late_steps, 3);
    let reference = x.reference_rank.expect("reference rank") as usize;
    let ref_clock = job[reference].1.get("clock_offset_ns").as_i64().unwrap();
    for (m, (_, t)) in ranks.iter().zip(&job) {
        assert_eq!(Some(m.rank), t.get("rank").as_i64());
        assert_eq!(
            m.clock_offset_ns,
            Some(t.get("clock_offset_ns").as_i64().unwrap() - ref_clock)
        );
    }
    assert_eq!(x.ranks, 3);

    const SCRIPT: &str = r#"
import json, sys
import fsdpa
az = []
for p in sys.argv[1:]:
    a = fsdpa.Analyzer(p); a.feed_file(p); az.append(a)
print(json.dumps({"crossrank": fsdpa.crossrank(az).to_dict(),
                  "ranks": [r.to_dict() for r in fsdpa.crossrank_ranks(az)],
                  "annotate": [fsdpa.annotate_events(az, i) for i in range(len(az))]}))
"#;
    let py = common::python_json(SCRIPT, &paths);
    assert_values_eq("crossrank", &x.v(), py.get("crossrank"));
    assert_values_eq("crossrank_ranks", &ranks.v(), py.get("ranks"));
    #[cfg(feature = "experimental")]
    for i in 0..az.len() {
        let ev = Value::parse(&fsdpa::annotate_events(&mut refs(&mut az), i).unwrap()).unwrap();
        assert_values_eq(
            &format!("annotate_events {i}"),
            &ev,
            py.get("annotate").at(i),
        );
    }
}

#[test]
fn summaries_give_the_report() {
    let job = job();
    let paths: Vec<&str> = job.iter().map(|(p, _)| p.as_str()).collect();
    let cli = common::cli_report(&paths);
    let mut az = analyzers(&paths);
    let sums: Vec<String> = az.iter_mut().map(|a| a.summary().unwrap()).collect();
    for s in &sums {
        assert_eq!(
            Value::parse(s).unwrap().get("schema").as_str(),
            Some("fsdpa.summary/1")
        );
    }
    let merged = fsdpa::summary_merge(&sums).unwrap();
    let r = fsdpa::summary_report(&merged).unwrap();
    assert_eq!(
        r.json, cli,
        "report of the merged summaries = the CLI's, byte for byte"
    );
    let report = Value::parse(&cli).unwrap();
    assert_eq!(report.get("ranks").as_array().len(), 3);
    assert!(r
        .findings()
        .any(|f| f.id == "straggler-rank" && f.rank == Some(2)));
    // the summary's typed findings are the report's, and those of the
    // analyzers the summaries were written from
    common::assert_findings_match("merged summary", &r.findings, &report);
    assert_eq!(fsdpa::summary_findings(&merged).unwrap(), r.findings);
    assert_eq!(
        fsdpa::report_findings(&mut refs(&mut az)).unwrap(),
        r.findings
    );
    let left = fsdpa::summary_merge(&[fsdpa::summary_merge(&sums[..2]).unwrap(), sums[2].clone()])
        .unwrap();
    let right = fsdpa::summary_merge(&[sums[0].clone(), fsdpa::summary_merge(&sums[1..]).unwrap()])
        .unwrap();
    assert_eq!(left, merged, "merge is associative, byte for byte");
    assert_eq!(right, merged);
    // one rank alone: the report of that trace
    let one = fsdpa::summary_report(fsdpa::summary_merge(&sums[..1]).unwrap()).unwrap();
    assert_eq!(one.json, common::cli_report(&paths[..1]));
    assert_eq!(
        fsdpa::summary_report(sums[0].as_bytes()).unwrap().json,
        one.json
    );

    // errors of calls without one context come from their fsdpa_error:
    // the message, which input, where in it
    let e = fsdpa::summary_merge(&["{not a summary"]).unwrap_err();
    assert_eq!(e.status, Status::Parse);
    assert!(e.message.starts_with("input 0"), "{}", e.message);
    assert_eq!(e.input, Some(0));
    let off = e.offset.expect("byte offset in the summary");
    assert!((0..=14).contains(&off), "{off}");
    let e = fsdpa::summary_merge(&[sums[0].as_str(), "[1, 2]"]).unwrap_err();
    assert_eq!((e.status, e.input), (Status::Parse, Some(1)));
    assert!(e.message.starts_with("input 1"), "{}", e.message);
    let e = fsdpa::summary_report("{not a summary").unwrap_err();
    assert_eq!(e.status, Status::Parse);
    assert!(!e.message.is_empty());
    let e = fsdpa::summary_findings("{not a summary").unwrap_err();
    assert_eq!(e.status, Status::Parse);
    assert_eq!(
        fsdpa::summary_merge::<&str>(&[]).unwrap_err().status,
        Status::InvalidArgument
    );
    let capped = SummaryOptions {
        max_memory_bytes: 4096,
        ..SummaryOptions::default()
    };
    let e = fsdpa::summary_report_with(&merged, &capped).unwrap_err();
    assert_eq!(e.status, Status::Limit, "{}", e.message);
    assert!(fsdpa::summary_merge_with(&sums, &capped).is_err());
    let e = fsdpa::summary_findings_with(&merged, &capped).unwrap_err();
    assert_eq!(e.status, Status::Limit, "{}", e.message);
}

/// Text, HTML and CSV are made from the JSON report alone: the text of the
/// merged summaries' report is the text of the traces' report, and a CSV
/// table has a row per rank.
#[test]
fn render_from_json() {
    let job = job();
    let paths: Vec<&str> = job.iter().map(|(p, _)| p.as_str()).collect();
    let mut az = analyzers(&paths);
    let named: Vec<Option<&str>> = paths.iter().map(|p| Some(*p)).collect();
    let text = fsdpa::report_many_with(
        &mut refs(&mut az),
        &named,
        &fsdpa::ReportOptions::from(fsdpa::Format::Text),
    )
    .unwrap();
    let sums: Vec<String> = az.iter_mut().map(|a| a.summary().unwrap()).collect();
    let merged = fsdpa::summary_report(fsdpa::summary_merge(&sums).unwrap()).unwrap();
    let o = fsdpa::ReportOptions::from(fsdpa::Format::Text);
    assert_eq!(fsdpa::render(&merged.json, &o).unwrap(), text, "text from the JSON = the text of the traces");
    assert!(text.contains("== job: 3 ranks"), "{text}");
    let csv = fsdpa::render(
        &merged.json,
        &fsdpa::ReportOptions {
            format: fsdpa::Format::Csv,
            table: fsdpa::Table::Ranks,
            ..fsdpa::ReportOptions::default()
        },
    )
    .unwrap();
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(lines.len(), 4, "{csv}");
    assert!(lines[0].starts_with("rank,iterations,"), "{csv}");
    let page = fsdpa::render(&merged.json, &fsdpa::ReportOptions::from(fsdpa::Format::Html)).unwrap();
    assert!(page.contains("id=\"fsdpa-viz\">null</script>"));
    let e = fsdpa::render("{\"schema\":\"other\"}", &o).unwrap_err();
    assert_eq!(e.status, Status::InvalidArgument, "{}", e.message);
    let e = fsdpa::render(&merged.json, &fsdpa::ReportOptions::from(fsdpa::Format::Json)).unwrap_err();
    assert_eq!(e.status, Status::InvalidArgument, "{}", e.message);
}

/// The typed findings of the job are the report's `findings[]`, the
/// cross-rank straggler-rank included; one rank alone has its own.
#[test]
fn job_findings_match_report() {
    let job = job();
    let paths: Vec<&str> = job.iter().map(|(p, _)| p.as_str()).collect();
    let report = Value::parse(&common::cli_report(&paths)).unwrap();
    let mut az = analyzers(&paths);
    let f = fsdpa::report_findings(&mut refs(&mut az)).unwrap();
    common::assert_findings_match("job", &f, &report);
    let s = f
        .iter()
        .find(|f| f.id == "straggler-rank")
        .expect("straggler-rank");
    assert_eq!(s.rank, Some(2));
    let r = fsdpa::analyze(&paths).unwrap();
    assert_eq!(r.findings, f);
    for (i, a) in az.iter_mut().enumerate() {
        let one = Value::parse(&common::cli_report(&paths[i..i + 1])).unwrap();
        common::assert_findings_match(&format!("rank {i} alone"), &a.findings().unwrap(), &one);
    }
    // a context that is not there: the error names the input
    let ctxs = [az[0].as_ptr(), std::ptr::null_mut()];
    let mut err = fsdpa::sys::fsdpa_error::sized();
    let mut out = std::ptr::null_mut();
    let st = unsafe { fsdpa::sys::fsdpa_report_findings(ctxs.as_ptr(), 2, &mut out, &mut err) };
    assert_eq!(st, fsdpa::sys::FSDPA_EINVAL);
    assert!(out.is_null());
    assert_eq!(err.status, fsdpa::sys::FSDPA_EINVAL);
    assert_ne!(err.message[0], 0, "a message");
    // a NULL fsdpa_error is allowed
    let st = unsafe {
        fsdpa::sys::fsdpa_report_findings(ctxs.as_ptr(), 2, &mut out, std::ptr::null_mut())
    };
    assert_eq!(st, fsdpa::sys::FSDPA_EINVAL);
}

/// µs with three decimals on the trace's clock (relative to its base) → ns.
#[cfg(feature = "experimental")]
fn ns(us: &Value, base: i64) -> i64 {
    (us.as_f64().unwrap() * 1000.0).round() as i64 + base
}

#[cfg(feature = "experimental")]
#[test]
fn annotations_are_the_findings() {
    let job = job();
    let paths: Vec<&str> = job.iter().map(|(p, _)| p.as_str()).collect();
    let mut az = analyzers(&paths);
    let names: Vec<Option<&str>> = paths.iter().map(|p| Some(*p)).collect();
    let text = fsdpa::report_many(&mut refs(&mut az), &names, fsdpa::Format::Json).unwrap();
    let report_v = Value::parse(&text).unwrap();
    let report = fsdpa::Report {
        json: text,
        findings: fsdpa::report_findings(&mut refs(&mut az)).unwrap(),
    };
    let i = 2;
    let base = az[i].trace_info().base_time_ns.unwrap_or(0);
    let text = fsdpa::annotate_events(&mut refs(&mut az), i).unwrap();
    let events = Value::parse(&text).unwrap();
    let events = events.as_array();
    let proc = events
        .iter()
        .find(|e| e.get("name").as_str() == Some("process_name"))
        .unwrap();
    assert_eq!(
        proc.get("args").get("name").as_str(),
        Some("fsdpa findings")
    );
    // one slice per evidence range of each finding of rank 2, at its range
    let mine: Vec<&fsdpa::Finding> = report.findings().filter(|f| f.rank == Some(2)).collect();
    assert!(mine.iter().any(|f| f.id == "straggler-rank"));
    for f in &mine {
        let slices: Vec<&Value> = events
            .iter()
            .filter(|e| e.get("cat").as_str() == Some("fsdpa"))
            .filter(|e| e.get("args").get("id").as_str() == Some(f.id.as_str()))
            .filter(|e| e.get("name").as_str() == Some(f.title.as_str()))
            .collect();
        if f.ranges.is_empty() {
            assert_eq!(slices.len(), 1);
            assert_eq!(slices[0].get("ph").as_str(), Some("i"));
            continue;
        }
        let mut got: Vec<(i64, i64)> = slices
            .iter()
            .map(|e| {
                assert_eq!(e.get("ph").as_str(), Some("X"));
                let t0 = ns(e.get("ts"), base);
                (
                    t0,
                    t0 + (e.get("dur").as_f64().unwrap() * 1000.0).round() as i64,
                )
            })
            .collect();
        let mut want: Vec<(i64, i64)> = f.ranges.iter().map(|r| (r.start_ns, r.end_ns)).collect();
        got.sort();
        want.sort();
        assert_eq!(got, want, "{}", f.id);
    }

    // the annotated copy reads back to the same analysis, with the added
    // events more
    let tmp = common::TempDir::new("annotate");
    let out = tmp.path("rank2.annotated.json");
    fsdpa::annotate_file(
        &mut refs(&mut az),
        i,
        paths[i],
        &out,
        &AnnotateOptions::default(),
    )
    .unwrap();
    assert_eq!(
        std::fs::read(&out).unwrap()[0],
        b'{',
        "plain JSON for a .json name"
    );
    let mut copy = analyzers(&[paths[0], paths[1], &out]);
    let names = [Some(paths[0]), Some(paths[1]), Some(paths[2])];
    let again = fsdpa::report_many(&mut refs(&mut copy), &names, fsdpa::Format::Json).unwrap();
    let again_v = Value::parse(&again).unwrap();
    assert_eq!(again_v.get("ranks"), report_v.get("ranks"));
    assert_eq!(
        fsdpa::report_findings(&mut refs(&mut copy)).unwrap(),
        report.findings
    );
    assert_eq!(again_v.get("findings"), report_v.get("findings"));
    assert_eq!(again_v.get("cross_rank"), report_v.get("cross_rank"));
    let input_events = |v: &Value| v.get("inputs").at(2).get("events").as_i64().unwrap();
    assert_eq!(
        input_events(&again_v),
        input_events(&report_v) + events.len() as i64
    );

    // gzip by name, forced on and off
    let gz = tmp.path("rank2.annotated.json.gz");
    fsdpa::annotate_file(
        &mut refs(&mut az),
        i,
        paths[i],
        &gz,
        &AnnotateOptions::default(),
    )
    .unwrap();
    assert_eq!(&std::fs::read(&gz).unwrap()[..2], &[0x1f, 0x8b]);
    let forced = tmp.path("forced.json");
    let o = AnnotateOptions {
        gzip: Some(true),
        level: 9,
    };
    fsdpa::annotate_file(&mut refs(&mut az), i, paths[i], &forced, &o).unwrap();
    assert_eq!(&std::fs::read(&forced).unwrap()[..2], &[0x1f, 0x8b]);
    let plain = tmp.path("plain.json.gz");
    let o = AnnotateOptions {
        gzip: Some(false),
        level: 0,
    };
    fsdpa::annotate_file(&mut refs(&mut az), i, paths[i], &plain, &o).unwrap();
    assert_eq!(std::fs::read(&plain).unwrap()[0], b'{');
    for p in [&gz, &forced, &plain] {
        let mut b = Analyzer::new().unwrap();
        b.feed_file(p).unwrap();
        assert_eq!(b.stats().unwrap().events as i64, input_events(&again_v));
    }

    // not the trace analyzer i read: refused, nothing written
    let wrong = tmp.path("wrong.json");
    let e = fsdpa::annotate_file(
        &mut refs(&mut az),
        i,
        common::tiny(),
        &wrong,
        &AnnotateOptions::default(),
    )
    .unwrap_err();
    assert_eq!(e.status, Status::InvalidArgument, "{}", e.message);
    assert!(!common::exists(&wrong));
    assert!(!e.message.is_empty());
    let e = fsdpa::annotate_events(&mut refs(&mut az), 3).unwrap_err();
    assert_eq!(e.status, Status::InvalidArgument);
}
