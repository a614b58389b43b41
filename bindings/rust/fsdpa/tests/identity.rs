//! The binding's JSON report is byte-for-byte the CLI's
//! (`fsdpa analyze --format json`), modulo inputs[].path, and its typed
//! findings are the report's `findings[]`.
mod common;
use common::json::Value;
use fsdpa::{report_many, Analyzer, Format, Options};

fn fed_in_chunks(path: &str, chunk: usize) -> String {
    let mut a = Analyzer::with_options(&Options {
        name: Some(path.into()),
        ..Options::default()
    })
    .unwrap();
    a.read_from(std::fs::File::open(path).unwrap(), chunk)
        .unwrap();
    a.finish().unwrap();
    a.report(Format::Json).unwrap()
}

#[test]
fn tiny_same_as_cli() {
    let t = common::tiny();
    let r = fsdpa::analyze(&[&t]).unwrap();
    let cli = common::cli_report(&[&t]);
    common::assert_same(&r.json, &cli);
    common::assert_findings_match("tiny", &r.findings, &Value::parse(&cli).unwrap());
}

#[test]
fn sample_same_as_cli() {
    let p = common::sample();
    println!("# sample trace: {p}");
    let cli = common::cli_report(&[&p]);
    let r = fsdpa::analyze(&[&p]).unwrap();
    assert_eq!(
        r.json, cli,
        "same path string: identical bytes, path included"
    );
    common::assert_same(&fed_in_chunks(&p, 4096), &cli);
    // the overlap query and the report's overlap section agree
    let mut a = Analyzer::new().unwrap();
    a.feed_file(&p).unwrap();
    let o = a.overlap(&fsdpa::Query::all()).unwrap();
    let report = Value::parse(&r.json).unwrap();
    common::assert_findings_match("sample", &r.findings, &report);
    assert!(!r.findings.is_empty(), "the sample trace has findings");
    let ov = report.get("ranks").at(0).get("overlap");
    assert_eq!(o.comm_ns, ov.get("comm_ns").as_i64());
    assert_eq!(o.compute_ns, ov.get("compute_ns").as_i64());
    assert_eq!(o.exposed_comm_ns, ov.get("exposed_comm_ns").as_i64());
    common::assert_same(&fed_in_chunks(&p, 65521), &cli);
    let r2 = fsdpa::analyze_reader(std::fs::File::open(&p).unwrap(), "reader").unwrap();
    common::assert_same(&r2.json, &cli);
    assert_eq!(
        Value::parse(&r2.json)
            .unwrap()
            .get("inputs")
            .at(0)
            .get("path")
            .as_str(),
        Some("reader")
    );
    assert_eq!(r2.findings, r.findings);
}

#[test]
fn multi_rank_same_as_cli() {
    let (t, p) = (common::tiny(), common::sample());
    let cli = common::cli_report(&[&t, &p]);
    let r = fsdpa::analyze(&[&t, &p]).unwrap();
    common::assert_same(&r.json, &cli);
    let report = Value::parse(&cli).unwrap();
    assert_eq!(report.get("inputs").as_array().len(), 2);
    common::assert_findings_match("tiny + sample", &r.findings, &report);
    // the same through report_many over analyzers fed by hand
    let mut a = Analyzer::new().unwrap();
    a.feed_file(&t).unwrap();
    let mut b = Analyzer::new().unwrap();
    b.feed_file(&p).unwrap();
    let text = report_many(&mut [&mut a, &mut b], &[None, None], Format::Json).unwrap();
    common::assert_same(&text, &cli);
    assert_eq!(
        fsdpa::report_findings(&mut [&mut a, &mut b]).unwrap(),
        r.findings
    );
    // the worst severity: the list's (fsdpa_findings_worst) = the report's
    let list = fsdpa::report_findings_list(&mut [&mut a, &mut b]).unwrap();
    assert_eq!(list.to_vec(), r.findings);
    assert_eq!(list.worst(), r.worst());
    assert!(r.worst().is_some());
    let empty = unsafe { fsdpa::List::<fsdpa::Finding>::from_raw(std::ptr::null_mut()) }.unwrap();
    assert_eq!(empty.worst(), None);
}
