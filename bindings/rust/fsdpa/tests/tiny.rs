//! The hand-written trace whose numbers are known exactly
//! (bindings/testdata/README.md), fed in several chunkings; errors (one
//! channel per kind of call); events; lists; parameters.
mod common;
use common::json::Value;
use common::BASE;
use fsdpa::{sys, Analyzer, Event, Options, Query, Role, Status, Step, Stream, TraceInfo};
use std::ffi::CStr;

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
    // the report is the library's JSON text; the figures the 0.1 crate
    // parsed out of it are the analyzer's queries, and equal it
    let v = Value::parse(&r.json).unwrap();
    assert_eq!(v.get("schema").as_str(), Some("fsdpa.report/1"));
    assert_eq!(v.get("version").as_str(), Some(fsdpa::version().as_str()));
    let input = v.get("inputs").at(0);
    assert_eq!(
        (
            input.get("path").as_str(),
            input.get("rank").as_i64(),
            input.get("world_size").as_i64()
        ),
        (Some("tiny"), Some(1), Some(2))
    );
    let stats = a.stats().unwrap();
    assert_eq!(input.get("events").as_i64(), Some(stats.events as i64));
    assert_eq!(input.get("bytes").as_i64(), Some(stats.input_bytes as i64));
    let rank = v.get("ranks").at(0);
    assert_eq!(rank.get("span_ns").as_i64(), Some(1_480_000));
    assert_eq!(
        rank.get("span_ns").as_i64(),
        a.timeline(&Query::all()).unwrap().span_ns
    );
    let steps: Vec<(String, i64, i64)> = rank
        .get("steps")
        .as_array()
        .iter()
        .map(|s| {
            (
                s.get("name").as_str().unwrap().to_string(),
                s.get("start_ns").as_i64().unwrap(),
                s.get("dur_ns").as_i64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        steps,
        vec![
            ("ProfilerStep#5".to_string(), BASE, 1_000_000),
            ("ProfilerStep#6".to_string(), BASE + 1_000_000, 1_000_000)
        ]
    );
    let mine: Vec<(String, i64, i64)> = a
        .steps()
        .map(|s| (format!("ProfilerStep#{}", s.number), s.start_ns, s.dur_ns))
        .collect();
    assert_eq!(mine, steps);
    let streams: Vec<(i64, String, i64, i64)> = rank
        .get("streams")
        .as_array()
        .iter()
        .map(|s| {
            (
                s.get("stream").as_i64().unwrap(),
                s.get("role").as_str().unwrap().to_string(),
                s.get("kernels").as_i64().unwrap(),
                s.get("busy_ns").as_i64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        streams,
        vec![
            (7, "compute".to_string(), 3, 460_000),
            (20, "communication".to_string(), 1, 200_000)
        ]
    );
    let mine: Vec<(i64, String, i64, i64)> = a
        .streams()
        .map(|s| {
            (
                s.stream,
                s.role.as_str().to_string(),
                s.kernels as i64,
                s.busy_ns,
            )
        })
        .collect();
    assert_eq!(mine, streams);
    // the typed findings are the report's, field by field
    common::assert_findings_match("tiny", &r.findings, &v);
    assert_eq!(r.findings, a.findings().unwrap());
    for f in r.findings() {
        assert_eq!(f.rank, Some(1));
        for rg in &f.ranges {
            assert!(rg.start_ns <= rg.end_ns);
        }
    }
    // both fixes are replayed over the judged step (ProfilerStep#6, 1 ms)
    let savings: Vec<(&str, Option<i64>, Option<i64>, Option<f64>)> = r
        .findings()
        .map(|f| {
            (
                f.id.as_str(),
                f.saving_ns,
                f.saving_window_ns,
                f.saving_share(),
            )
        })
        .collect();
    assert_eq!(
        savings,
        vec![
            ("gpu-starvation", Some(990_000), Some(1_000_000), Some(0.99)),
            (
                "queued-idle-unexplained",
                Some(50_000),
                Some(1_000_000),
                Some(0.05)
            )
        ]
    );
    assert!(a
        .report(fsdpa::Format::Text)
        .unwrap()
        .contains("ProfilerStep"));
}

/// Lists are snapshots the caller owns: they keep their items when more
/// events arrive and after the analyzer is gone.
#[test]
fn lists_are_snapshots() {
    let data = tiny_bytes();
    let mut a = Analyzer::new().unwrap();
    // before any event: empty lists, not errors
    let none = a.step_list().unwrap();
    assert!(none.is_empty() && none.get(0).is_none());
    a.feed(&data).unwrap();
    a.finish().unwrap();
    let steps = a.step_list().unwrap();
    let streams = a.stream_list().unwrap();
    assert_eq!(
        unsafe { sys::fsdpa_list_type(steps.as_ptr()) },
        sys::FSDPA_LIST_STEPS
    );
    assert_eq!(unsafe { sys::fsdpa_list_count(steps.as_ptr()) }, 2);
    assert_eq!(none.len(), 0, "a list taken earlier does not grow");
    let want: Vec<Step> = a.steps().collect();
    drop(a);
    assert_eq!(steps.to_vec(), want, "the list outlives its analyzer");
    assert_eq!(steps.len(), 2);
    assert_eq!(steps.get(1).map(|s| s.number), Some(6));
    assert!(steps.get(2).is_none());
    assert_eq!(
        steps.iter().rev().map(|s| s.number).collect::<Vec<_>>(),
        [6, 5]
    );
    assert_eq!(streams.iter().len(), 2);
    assert_eq!(
        (&streams).into_iter().map(|s| s.stream).collect::<Vec<_>>(),
        [7, 20]
    );
    // a list is Send and Sync: read from another thread
    let n = std::thread::spawn(move || streams.into_iter().map(|s| s.kernels).sum::<u64>())
        .join()
        .unwrap();
    assert_eq!(n, 4);
    // the kind is checked: a list of steps is not read as streams
    let mut raw = std::ptr::null_mut();
    let mut b = Analyzer::new().unwrap();
    b.feed_file(common::tiny()).unwrap();
    assert_eq!(
        unsafe { sys::fsdpa_step_list(b.as_ptr(), &mut raw) },
        sys::FSDPA_OK
    );
    let e = unsafe { fsdpa::List::<Stream>::from_raw(raw) }.unwrap_err();
    assert_eq!(e.status, Status::InvalidArgument);
}

/// The message of a failed call on one analyzer is the context's
/// (`fsdpa_errmsg()`), cleared on entry of the next call: "" (and no
/// offset) after a successful one.
#[test]
fn context_error_is_cleared_by_the_next_call() {
    let errmsg = |a: &Analyzer| unsafe {
        CStr::from_ptr(sys::fsdpa_errmsg(a.as_ptr()))
            .to_string_lossy()
            .into_owned()
    };
    let offset = |a: &Analyzer| unsafe { sys::fsdpa_error_offset(a.as_ptr()) };
    let mut a = Analyzer::new().unwrap();
    let e = a.set_param("no.such.param", "1").unwrap_err();
    assert_eq!(e.status, Status::InvalidArgument);
    assert!(!e.message.is_empty());
    assert_eq!(errmsg(&a), e.message);
    a.feed_file(common::tiny()).unwrap();
    assert_eq!(errmsg(&a), "");
    let e = a.timeline(&Query::step(99)).unwrap_err();
    assert_eq!(errmsg(&a), e.message);
    a.stats().unwrap();
    assert_eq!(errmsg(&a), "");

    let mut b = Analyzer::new().unwrap();
    let e = b
        .feed(b"{\"traceEvents\": [}")
        .and_then(|_| b.finish())
        .unwrap_err();
    assert_eq!(e.status, Status::Parse);
    assert!(e.offset.is_some());
    assert_eq!(Some(offset(&b)), e.offset);
    assert_eq!(errmsg(&b), e.message);
    // queries still answer after an input error, and clear it
    b.stats().unwrap();
    assert_eq!((errmsg(&b), offset(&b)), (String::new(), sys::FSDPA_ABSENT));
}

#[test]
fn params() {
    let ps = fsdpa::params().unwrap();
    assert!(ps.len() >= 10, "{ps:?}");
    let mut names: Vec<&str> = ps.iter().map(|p| p.name.as_str()).collect();
    names.sort();
    names.dedup();
    assert_eq!(names.len(), ps.len(), "unique names");
    // the text form is what `fsdpa params` prints
    let cli = std::process::Command::new(common::cli())
        .arg("params")
        .output()
        .unwrap();
    assert!(cli.status.success());
    assert_eq!(fsdpa::param_list(), String::from_utf8(cli.stdout).unwrap());
    let mut a = Analyzer::new().unwrap();
    for p in &ps {
        assert!(
            p.min_value <= p.default_value && p.default_value <= p.max_value,
            "{p:?}"
        );
        assert!(!p.description.is_empty(), "{}", p.name);
        assert_eq!(a.param(&p.name).unwrap(), p.default_value, "{}", p.name);
    }
    // set and read back; out of range or not an integer: refused, value kept
    let kw = ps
        .iter()
        .find(|p| p.name == "launch.kernel_wait_ns")
        .unwrap();
    a.set_param(&kw.name, "1000").unwrap();
    assert_eq!(a.param(&kw.name).unwrap(), 1000);
    for bad in ["x", "1.5", ""] {
        let e = a.set_param(&kw.name, bad).unwrap_err();
        assert_eq!(e.status, Status::InvalidArgument, "{bad:?}");
    }
    if kw.min_value > i64::MIN {
        let below = (kw.min_value - 1).to_string();
        assert_eq!(
            a.set_param(&kw.name, &below).unwrap_err().status,
            Status::InvalidArgument
        );
    }
    if kw.max_value < i64::MAX {
        let above = (kw.max_value as i128 + 1).to_string();
        assert_eq!(
            a.set_param(&kw.name, &above).unwrap_err().status,
            Status::InvalidArgument
        );
    }
    assert_eq!(a.param(&kw.name).unwrap(), 1000);
    // a parameter changes the analysis: the launch gaps use it
    a.feed_file(common::tiny()).unwrap();
    assert_eq!(
        a.launch_gaps(&Query::all())
            .unwrap()
            .kernel_wait_threshold_ns,
        1000
    );
    let e = a.param("no.such.param").unwrap_err();
    assert_eq!(e.status, Status::InvalidArgument);
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
    let doc = Value::parse(&text).unwrap();
    let mut a = Analyzer::new().unwrap();
    a.set_trace_info(TraceInfo {
        rank: Some(1),
        world_size: Some(2),
        base_time_ns: Some(BASE),
    })
    .unwrap();
    let us = |v: &Value| v.as_f64().map(|x| (x * 1000.0).round() as i64);
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

/// Report options: the text fits the width asked for (100 columns by
/// default), colors are ANSI escapes, and a width outside 40 .. 1000 is
/// refused.
#[test]
fn report_options() {
    let mut a = Analyzer::new().unwrap();
    a.feed_file(common::sample()).unwrap();
    let cols = |t: &str| t.lines().map(|l| l.chars().count()).max().unwrap_or(0);
    let plain = a.report(fsdpa::Format::Text).unwrap();
    assert!(cols(&plain) <= 100, "{}", cols(&plain));
    let opts = |width: u32, color: bool| fsdpa::ReportOptions {
        format: fsdpa::Format::Text,
        width,
        color,
        ..fsdpa::ReportOptions::default()
    };
    assert_eq!(a.report_with(&opts(100, false)).unwrap(), plain);
    assert_eq!(a.report_with(&opts(0, false)).unwrap(), plain);
    for w in [40u32, 60, 160] {
        let t = a.report_with(&opts(w, false)).unwrap();
        assert!(cols(&t) <= w as usize, "width {w}: {}", cols(&t));
    }
    assert!(!plain.contains('\u{1b}'));
    assert!(a.report_with(&opts(0, true)).unwrap().contains("\u{1b}["));
    for w in [1u32, 39, 1001] {
        let e = a.report_with(&opts(w, false)).unwrap_err();
        assert_eq!(e.status, Status::InvalidArgument, "width {w}");
    }
    let html = a.report(fsdpa::Format::Html).unwrap();
    assert!(html.contains("<html") || html.contains("<!DOCTYPE"), "HTML");
    assert_eq!(
        a.report_with(&fsdpa::ReportOptions::default()).unwrap(),
        a.report(fsdpa::Format::Json).unwrap()
    );
}
