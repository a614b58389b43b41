//! Print the findings of a trace:  cargo run --example findings -- TRACE [TRACE ...]
use fsdpa::{Analyzer, Options, Query};

fn run(paths: &[String]) -> fsdpa::Result<()> {
    let mut ranks = Vec::with_capacity(paths.len());
    for p in paths {
        let mut a = Analyzer::with_options(&Options {
            name: Some(p.clone()),
            ..Options::default()
        })?;
        a.feed_file(p)?;
        ranks.push(a);
    }
    for (i, a) in ranks.iter_mut().enumerate() {
        // the report numbers a rank by distributedInfo.rank, else its index
        let rank = a.trace_info().rank.unwrap_or(i as i64);
        let span = a.timeline(&Query::all())?.span_ns;
        let span = span.map_or("-".to_string(), |s| s.to_string());
        println!(
            "rank {rank}: {} steps, {} GPU streams, span {span} ns",
            a.steps().len(),
            a.streams().len()
        );
    }
    let mut refs: Vec<&mut Analyzer> = ranks.iter_mut().collect();
    let findings = fsdpa::report_findings(&mut refs)?;
    if findings.is_empty() {
        println!("no findings");
    }
    for f in &findings {
        let show = |v: Option<i64>| v.map_or("-".to_string(), |s| s.to_string());
        println!(
            "{:<8} {:<26} rank {} step {:>3}  {}",
            f.severity.name(),
            f.id,
            show(f.rank),
            show(f.step),
            f.title
        );
        println!("         {}", f.detail);
    }
    Ok(())
}

fn main() {
    let paths: Vec<String> = std::env::args().skip(1).collect();
    if paths.is_empty() {
        eprintln!("usage: findings TRACE [TRACE ...]   (one trace per rank)");
        std::process::exit(2);
    }
    if let Err(e) = run(&paths) {
        eprintln!("findings: {e}");
        std::process::exit(3);
    }
}
