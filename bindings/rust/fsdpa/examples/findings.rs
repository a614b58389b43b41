//! Print the findings of a trace:  cargo run --example findings -- TRACE [TRACE ...]
fn main() {
    let paths: Vec<String> = std::env::args().skip(1).collect();
    if paths.is_empty() {
        eprintln!("usage: findings TRACE [TRACE ...]   (one trace per rank)");
        std::process::exit(2);
    }
    let report = match fsdpa::analyze(&paths) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("findings: {e}");
            std::process::exit(3);
        }
    };
    for rank in &report.ranks {
        let span = rank.span_ns.map_or("-".to_string(), |s| s.to_string());
        println!(
            "rank {}: {} steps, {} GPU streams, span {span} ns",
            rank.rank,
            rank.steps.len(),
            rank.streams.len()
        );
    }
    if report.findings.is_empty() {
        println!("no findings");
    }
    for f in report.findings() {
        let step = f.step.map_or("-".to_string(), |s| s.to_string());
        println!(
            "{:<8} {:<26} rank {} step {:>3}  {}",
            format!("{:?}", f.severity).to_lowercase(),
            f.id,
            f.rank,
            step,
            f.title
        );
        println!("         {}", f.detail);
    }
}
