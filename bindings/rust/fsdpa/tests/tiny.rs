//! The hand-written trace whose numbers are known exactly
//! (bindings/testdata/README.md), fed in several chunkings; errors; events.
mod common;
use common::BASE;
use fsdpa::{Analyzer, Event, Options, Query, Role, Status, Step, Stream, TraceInfo};

fn check_tiny(a: &mut Analyzer) {
    assert_eq!(
        a.trace_info(),
        TraceInfo {
            rank: Some(1),
            world_size: Some(2),
            base_time_ns: Some(BASE)
        }
    );
    let steps: Vec<Step> = a.steps().collect();
    assert_eq!(
        steps,
        vec![
            Step {
                number: 5,
                start_ns: BASE,
                dur_ns: 1_000_000
            },
            Step {
                number: 6,
                start_ns: BASE + 1_000_000,
                dur_ns: 1_000_000
            }
        ]
    );
    let streams: Vec<Stream> = a.streams().collect();
    assert_eq!(
        streams,
        vec![
            Stream {
                device: 0,
                stream: 7,
                role: Role::Compute,
                kernels: 3,
                comm_kernels: 0,
                memops: 1,
                busy_ns: 460_000,
                first_ns: Some(BASE + 20_000),
                last_ns: Some(BASE + 1_500_000)
            },
            Stream {
                device: 0,
                stream: 20,
                role: Role::Communication,
                kernels: 1,
                comm_kernels: 1,
                memops: 0,
                busy_ns: 200_000,
                first_ns: Some(BASE + 100_000),
                last_ns: Some(BASE + 300_000)
            },
        ]
    );
    let t = a.timeline(&Query::all()).unwrap();
    assert_eq!(
        (t.span_ns, t.busy_ns, t.activities),
        (Some(1_480_000), 590_000, 5)
    );
    assert!((t.density.unwrap() - 590_000.0 / 1_480_000.0).abs() < 1e-12);
    let t0 = a.timeline(&Query::step(0)).unwrap();
    assert_eq!(
        (t0.span_ns, t0.busy_ns, t0.activities, t0.density),
        (Some(280_000), 280_000, 3, Some(1.0))
    );
    let t20 = a
        .timeline(&Query {
            stream: Some(20),
            ..Query::all()
        })
        .unwrap();
    assert_eq!(
        (t20.span_ns, t20.busy_ns, t20.activities),
        (Some(200_000), 200_000, 1)
    );
    let empty = a
        .timeline(&Query {
            t0_ns: Some(BASE + 2_000_000),
            t1_ns: Some(BASE + 3_000_000),
            ..Query::all()
        })
        .unwrap();
    assert_eq!(
        (empty.span_ns, empty.density, empty.busy_ns),
        (None, None, 0)
    );
    let s = a.stats().unwrap();
    assert_eq!(
        (s.events, s.kernels, s.gpu_memcpy, s.runtime),
        (13, 4, 1, 5)
    );
}

fn tiny_bytes() -> Vec<u8> {
    std::fs::read(common::tiny()).unwrap()
}

#[test]
fn chunkings() {
    let data = tiny_bytes();
    for chunk in [1usize, 7, 4096, data.len()] {
        let mut a = Analyzer::new().unwrap();
        for c in data.chunks(chunk) {
            a.feed(c).unwrap();
        }
        a.finish().unwrap();
        check_tiny(&mut a);
    }
}

#[test]
fn feed_file_and_reader() {
    let mut a = Analyzer::new().unwrap();
    a.feed_file(common::tiny()).unwrap();
    check_tiny(&mut a);
    let mut b = Analyzer::new().unwrap();
    assert_eq!(
        b.read_from(std::fs::File::open(common::tiny()).unwrap(), 100)
            .unwrap(),
        tiny_bytes().len() as u64
    );
    b.finish().unwrap();
    check_tiny(&mut b);
}

/// The input decodes events in batches (when its 512 KiB window fills, or
/// once its scanner has passed the end of the event array): with all but the
/// closing brace fed, every event is queryable before finish().
#[test]
fn queries_between_feeds() {
    let data = tiny_bytes();
    let cut = data.iter().rposition(|&b| b == b'}').unwrap();
    let mut a = Analyzer::new().unwrap();
    a.feed(&data[..cut]).unwrap();
    check_tiny(&mut a);
    a.feed(&data[cut..]).unwrap();
    a.finish().unwrap();
    check_tiny(&mut a);
}

#[test]
fn report_accessors() {
    let mut a = Analyzer::with_options(&Options {
        name: Some("tiny".into()),
        ..Options::default()
    })
    .unwrap();
    a.feed_file(common::tiny()).unwrap();
    let r = a.result().unwrap();
    assert_eq!(r.schema, "fsdpa.report/1");
    assert_eq!(r.version, fsdpa::version());
    assert_eq!(
        (
            r.inputs[0].path.as_str(),
            r.inputs[0].rank,
            r.inputs[0].world_size
        ),
        ("tiny", 1, Some(2))
    );
    let rank = &r.ranks[0];
    assert_eq!(rank.span_ns, Some(1_480_000));
    let steps: Vec<(&str, i64, i64)> = rank
        .steps
        .iter()
        .map(|s| (s.name.as_str(), s.start_ns, s.dur_ns))
        .collect();
    assert_eq!(
        steps,
        vec![
            ("ProfilerStep#5", BASE, 1_000_000),
            ("ProfilerStep#6", BASE + 1_000_000, 1_000_000)
        ]
    );
    let streams: Vec<(i64, &str, i64, i64)> = rank
        .streams
        .iter()
        .map(|s| (s.stream, s.role.as_str(), s.kernels, s.busy_ns))
        .collect();
    assert_eq!(
        streams,
        vec![
            (7, "compute", 3, 460_000),
            (20, "communication", 1, 200_000)
        ]
    );
    for f in r.findings() {
        for rg in &f.ranges {
            assert!(rg.start_ns <= rg.end_ns);
        }
    }
    assert!(a
        .report(fsdpa::Format::Text)
        .unwrap()
        .contains("ProfilerStep"));
}

#[test]
fn parse_error_has_offset() {
    let bad = br#"{"traceEvents": [{"ph": "X", "name": "a", "ts": 1, "dur": }]}"#;
    let mut a = Analyzer::with_options(&Options {
        name: Some("bad.json".into()),
        ..Options::default()
    })
    .unwrap();
    let e = a.feed(bad).and_then(|_| a.finish()).unwrap_err();
    assert_eq!(e.status, Status::Parse);
    let off = e.offset.expect("offset");
    assert!((0..=bad.len() as i64).contains(&off), "{off}");
    assert!(e.message.contains("bad.json"), "{}", e.message);
    assert_eq!(a.feed(b"[]").unwrap_err().status, Status::State);
    assert_eq!(a.stats().unwrap().kernels, 0);
}

#[test]
fn other_errors() {
    let mut a = Analyzer::new().unwrap();
    a.feed(&tiny_bytes()[..200]).unwrap();
    assert_eq!(a.finish().unwrap_err().status, Status::Truncated);

    let mut a = Analyzer::new().unwrap();
    let e = a
        .feed(br#"{"hello": "world"}"#)
        .and_then(|_| a.finish())
        .unwrap_err();
    assert_eq!(e.status, Status::NotATrace);

    let mut a = Analyzer::new().unwrap();
    let e = a.set_param("no.such.param", "1").unwrap_err();
    assert_eq!((e.status, e.offset), (Status::InvalidArgument, None));
    a.feed_file(common::tiny()).unwrap();
    assert_eq!(
        a.timeline(&Query::step(99)).unwrap_err().status,
        Status::InvalidArgument
    );
    assert_eq!(a.feed(b" ").unwrap_err().status, Status::State);

    let mut a = Analyzer::new().unwrap();
    let e = a.feed_file("/nonexistent/trace.json").unwrap_err();
    assert_eq!(e.status, Status::Io);
    assert!(e.to_string().contains("/nonexistent/trace.json"));
    assert_eq!(
        fsdpa::analyze(&["/nonexistent/trace.json"])
            .unwrap_err()
            .status,
        Status::Io
    );

    let e = Analyzer::with_options(&Options {
        max_memory_bytes: 4096,
        ..Options::default()
    })
    .and_then(|mut a| a.feed_file(common::tiny()))
    .unwrap_err();
    assert_eq!(e.status, Status::Limit);
}

#[test]
fn events_match_json() {
    let text = std::fs::read_to_string(common::tiny()).unwrap();
    let doc = fsdpa::json::Value::parse(&text).unwrap();
    let mut a = Analyzer::new().unwrap();
    a.set_trace_info(TraceInfo {
        rank: Some(1),
        world_size: Some(2),
        base_time_ns: Some(BASE),
    })
    .unwrap();
    let us = |v: &fsdpa::json::Value| v.as_f64().map(|x| (x * 1000.0).round() as i64);
    for e in doc.get("traceEvents").as_array() {
        let args = e.get("args");
        let ph = e.get("ph").as_str().unwrap();
        a.add_event(&Event {
            ph: ph.as_bytes()[0],
            cat: e.get("cat").as_str(),
            name: e.get("name").as_str(),
            pid: e.get("pid").as_i64(),
            tid: e.get("tid").as_i64(),
            ts_ns: us(e.get("ts")),
            dur_ns: us(e.get("dur")),
            correlation: args.get("correlation").as_i64(),
            external_id: args.get("External id").as_i64(),
            stream: args.get("stream").as_i64(),
            device: args.get("device").as_i64(),
            bytes: args.get("bytes").as_i64(),
            in_msg_nelems: args.get("In msg nelems").as_i64(),
            out_msg_nelems: args.get("Out msg nelems").as_i64(),
            group_size: args.get("Group size").as_i64(),
            collective: args.get("Collective name").as_str(),
            dtype: args.get("dtype").as_str(),
            label: if ph == "M" {
                args.get("name").as_str()
            } else {
                None
            },
            ..Event::default()
        })
        .unwrap();
    }
    check_tiny(&mut a);
}

#[test]
fn overlap_exact() {
    // comm C = [100,300) us; compute P = [20,120) u [150,200) u [1200,1500) us
    let mut a = Analyzer::new().unwrap();
    a.feed_file(common::tiny()).unwrap();
    let o = a.overlap(&Query::all()).unwrap();
    assert_eq!(
        (
            o.comm_ns,
            o.compute_ns,
            o.overlap_ns,
            o.exposed_comm_ns,
            o.comm_kernels,
            o.compute_kernels
        ),
        (
            Some(200_000),
            Some(450_000),
            Some(70_000),
            Some(130_000),
            1,
            3
        )
    );
    assert!((o.overlap_pct.unwrap() - 35.0).abs() < 1e-9);
    let o1 = a.overlap(&Query::step(1)).unwrap();
    assert_eq!(
        (o1.comm_ns, o1.overlap_pct, o1.compute_ns),
        (None, None, Some(300_000))
    );
    assert_eq!(a.fsdp_version(), None);
}

#[test]
fn analyzer_is_send() {
    let mut a = Analyzer::new().unwrap();
    a.feed(&tiny_bytes()).unwrap();
    let mut a = std::thread::spawn(move || {
        a.finish().unwrap();
        a
    })
    .join()
    .unwrap();
    check_tiny(&mut a);
}
