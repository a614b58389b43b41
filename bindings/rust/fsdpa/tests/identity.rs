//! The binding's JSON report is byte-for-byte the CLI's
//! (`fsdpa analyze --format json`), modulo inputs[].path.
mod common;
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
    common::assert_same(
        &fsdpa::analyze(&[&t]).unwrap().json,
        &common::cli_report(&[&t]),
    );
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
    let ov = r.ranks[0].value.get("overlap");
    assert_eq!(o.comm_ns, ov.get("comm_ns").as_i64());
    assert_eq!(o.compute_ns, ov.get("compute_ns").as_i64());
    assert_eq!(o.exposed_comm_ns, ov.get("exposed_comm_ns").as_i64());
    common::assert_same(&fed_in_chunks(&p, 65521), &cli);
    let r2 = fsdpa::analyze_reader(std::fs::File::open(&p).unwrap(), "reader").unwrap();
    common::assert_same(&r2.json, &cli);
    assert_eq!(r2.inputs[0].path, "reader");
}

#[test]
fn multi_rank_same_as_cli() {
    let (t, p) = (common::tiny(), common::sample());
    let cli = common::cli_report(&[&t, &p]);
    let r = fsdpa::analyze(&[&t, &p]).unwrap();
    common::assert_same(&r.json, &cli);
    assert_eq!(r.inputs.len(), 2);
    // the same through report_many over analyzers fed by hand
    let mut a = Analyzer::new().unwrap();
    a.feed_file(&t).unwrap();
    let mut b = Analyzer::new().unwrap();
    b.feed_file(&p).unwrap();
    let text = report_many(&mut [&mut a, &mut b], &[None, None], Format::Json).unwrap();
    common::assert_same(&text, &cli);
}
