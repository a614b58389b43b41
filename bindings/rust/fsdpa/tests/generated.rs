//! The analysis queries on a generated trace (tools/tracegen `mixed`: FSDP2,
//! a backward unit without prefetch, a cudaStreamSynchronize every step,
//! cudaFree/cudaMalloc in steady state), three ways:
//!
//! - the numbers the generator wrote into its `.truth.json` (it knows them
//!   exactly, without libfsdpa);
//! - the report `fsdpa analyze --format json` writes for the same file
//!   (the library's serialization, independent of this crate's structs);
//! - the Python binding's results for the same queries, field by field.
mod common;
use common::json::Value;
use common::{assert_values_eq, ratio_eq, ToValue};
use fsdpa::{Analyzer, Query, SplitBy};
use std::collections::BTreeMap;

fn mixed() -> (String, Value) {
    common::tracegen("mixed", &["--steps", "4", "--layers", "4"])
        .pop()
        .unwrap()
}

fn analyzer(path: &str) -> Analyzer {
    let mut a = Analyzer::new().unwrap();
    a.feed_file(path).unwrap();
    a
}

/// ranks[0] of the CLI's JSON report.
fn report_rank(path: &str) -> Value {
    let r = Value::parse(&common::cli_report(&[path])).unwrap();
    r.get("ranks").at(0).clone()
}

/// Compare fields of `mine` (a [`ToValue`] object) with the report's object:
/// `"key"` or `"report_key=my_key"`.  Doubles within the report's rounding;
/// report booleans against 1/0, a report null against an absent value or a
/// tri-state's -1.
fn same(what: &str, mine: &Value, report: &Value, keys: &[&str]) {
    for k in keys {
        let (rk, mk) = k.split_once('=').unwrap_or((k, k));
        let (m, r) = (mine.get(mk), report.get(rk));
        let ctx = format!("{what}: {rk}");
        let has = |v: &Value, k: &str| v.as_object().iter().any(|(n, _)| n == k);
        assert!(has(mine, mk), "{ctx}: the binding has no field {mk}");
        assert!(has(report, rk), "{ctx}: the report has no {rk}");
        match (m, r) {
            (Value::Float(x), _) => assert!(ratio_eq(Some(*x), r), "{ctx}: {x} vs {r:?}"),
            (Value::Null, _) => assert!(r.is_null(), "{ctx}: None vs {r:?}"),
            (Value::Int(x), Value::Bool(b)) => assert_eq!(*x, *b as i64, "{ctx}"),
            (Value::Int(-1), Value::Null) => {}
            _ => assert_values_eq(&ctx, m, r),
        }
    }
}

const GAP_KEYS: &[&str] = &[
    "gaps",
    "p50_ns",
    "p90_ns",
    "p99_ns",
    "max_ns",
    "idle_ns",
    "host_wait_ns",
    "kernel_wait_ns",
    "other_ns",
    "host_wait_gaps",
    "kernel_wait_gaps",
    "other_gaps",
    "unlinked_gaps",
    "unlinked_ns",
    "small_launch_gaps",
    "small_launch_ns",
    "span_ns",
    "busy_ns",
    "density",
];
const GPU_KEYS: &[&str] = &[
    "span_ns",
    "busy_ns",
    "density",
    "gpu_window_ns",
    "utilization",
    "gpu_gaps",
    "gpu_idle_ns",
    "gpu_host_wait_ns",
    "gpu_kernel_wait_ns",
    "gpu_other_ns",
    "gpu_small_launch_ns",
    "host_wait_ns",
    "kernel_wait_ns",
    "other_ns",
];
const LATENCY_KEYS: &[&str] = &[
    "ops",
    "linked",
    "min_ns",
    "p50_ns",
    "p90_ns",
    "p99_ns",
    "max_ns",
    "kernels_linked",
    "kernels_shorter_than_launch",
    "short_kernel_share",
];

fn histogram(what: &str, edges: &[i64], counts: &[u64], idle: Option<&[i64]>, h: &Value) {
    assert_values_eq(
        &format!("{what} edges"),
        &edges.to_vec().v(),
        h.get("edges_ns"),
    );
    assert_values_eq(
        &format!("{what} counts"),
        &counts.to_vec().v(),
        h.get("counts"),
    );
    if let Some(idle) = idle {
        assert_values_eq(
            &format!("{what} idle"),
            &idle.to_vec().v(),
            h.get("idle_ns"),
        );
    }
}

#[test]
fn launch_family_matches_report_and_truth() {
    let (path, truth) = mixed();
    let rank = report_rank(&path);
    let rep = rank.get("launch_gaps");
    let mut a = analyzer(&path);

    let g = a.launch_gaps(&Query::all()).unwrap();
    same("launch_gaps", &g.v(), rep, GAP_KEYS);
    same("launch_gaps", &g.v(), rep, GPU_KEYS);
    same(
        "launch_gaps",
        &g.v(),
        rep,
        &["kernel_wait_threshold_ns", "small_gap_threshold_ns"],
    );
    histogram(
        "launch_gaps",
        &g.edges_ns,
        &g.counts,
        Some(&g.bin_idle_ns),
        rep.get("histogram"),
    );
    assert_eq!(g.idle_ns, g.host_wait_ns + g.kernel_wait_ns + g.other_ns);
    assert_eq!(g.counts.iter().sum::<u64>(), g.gaps);
    let t = truth.get("launch");
    assert_eq!(Some(g.host_wait_ns), t.get("host_wait_ns").as_i64());
    assert_eq!(Some(g.kernel_wait_ns), t.get("kernel_wait_ns").as_i64());
    assert_eq!(Some(g.other_ns), t.get("other_ns").as_i64());

    let l = a.launch_latency(&Query::all()).unwrap();
    let rl = rep.get("latency");
    same("latency", &l.v(), rl, LATENCY_KEYS);
    histogram("latency", &l.edges_ns, &l.counts, None, rl.get("histogram"));
    assert_eq!(
        rl.get("mean_ns").as_i64(),
        Some(l.total_ns.unwrap() / l.linked as i64)
    );

    // per stream: gaps, latency and queue of {device, stream}
    let streams = rep.get("streams").as_array();
    assert_eq!(streams.len(), a.streams().len());
    assert_eq!(streams.len() as u64, g.streams);
    for s in streams {
        let q = Query {
            device: s.get("device").as_i64(),
            stream: s.get("stream").as_i64(),
            ..Query::all()
        };
        let what = format!("stream {:?}", q.stream);
        let gs = a.launch_gaps(&q).unwrap();
        same(&what, &gs.v(), s, GAP_KEYS);
        histogram(
            &what,
            &gs.edges_ns,
            &gs.counts,
            Some(&gs.bin_idle_ns),
            s.get("histogram"),
        );
        let ls = a.launch_latency(&q).unwrap();
        same(&what, &ls.v(), s.get("latency"), LATENCY_KEYS);
        let qu = a.launch_queue(&q).unwrap();
        let rq = s.get("queue");
        same(
            &what,
            &qu.v(),
            rq,
            &["range_ns", "max_depth", "depth0_ns", "starved_ns"],
        );
        // written with 3 decimals
        let md = rq.get("mean_depth").as_f64().unwrap();
        assert!(
            (qu.mean_depth.unwrap() - md).abs() <= 5e-4,
            "{what} mean_depth"
        );
        // the queue is measured over the timeline span of the same query
        assert_eq!(qu.range_ns, a.timeline(&q).unwrap().span_ns);
    }
    // per device and per step (the CPU range of step index i)
    for d in rep.get("devices").as_array() {
        let q = Query {
            device: d.get("device").as_i64(),
            ..Query::all()
        };
        let gd = a.launch_gaps(&q).unwrap();
        same("device", &gd.v(), d, GPU_KEYS);
        same("device", &gd.v(), d, &["streams"]);
    }
    let steps = rep.get("steps").as_array();
    assert_eq!(steps.len(), a.steps().len());
    for (i, s) in steps.iter().enumerate() {
        let gs = a.launch_gaps(&Query::step(i as i64)).unwrap();
        same(&format!("step {i}"), &gs.v(), s, GPU_KEYS);
    }
}

/// The typed findings are the report's `findings[]` (the cpu-sync-stall
/// evidence and the rest), and a zero query is the whole trace for every
/// query on this trace, which has something in each family.
#[test]
fn findings_and_zero_query() {
    let (path, _) = mixed();
    let report = Value::parse(&common::cli_report(&[&path])).unwrap();
    let mut a = analyzer(&path);
    let f = a.findings().unwrap();
    assert!(f.iter().any(|f| f.id == "cpu-sync-stall"), "{f:?}");
    common::assert_findings_match("mixed", &f, &report);
    common::assert_zero_query_is_no_query(&a);

    // the item sizes of the list kinds the tiny trace leaves empty
    // (tests/queries.rs has the others)
    use common::assert_item_sizes as items;
    use fsdpa::sys;
    let (ctx, q) = (a.as_ptr(), std::ptr::null());
    let mut l = std::ptr::null_mut();
    let ok = |st: sys::fsdpa_status| assert_eq!(st, sys::FSDPA_OK);
    ok(unsafe { sys::fsdpa_fsdp_unit_list(ctx, q, &mut l) });
    items::<sys::fsdpa_fsdp_unit>(l);
    ok(unsafe { sys::fsdpa_backward_step_list(ctx, &mut l) });
    items::<sys::fsdpa_backward_step>(l);
    ok(unsafe { sys::fsdpa_backward_unit_list(ctx, 0, &mut l) });
    items::<sys::fsdpa_backward_unit>(l);
    ok(unsafe { sys::fsdpa_sync_wait_list(ctx, q, &mut l) });
    items::<sys::fsdpa_sync_wait>(l);
    ok(unsafe { sys::fsdpa_sync_call_list(ctx, q, &mut l) });
    items::<sys::fsdpa_sync_call>(l);
    ok(unsafe { sys::fsdpa_memory_device_list(ctx, q, &mut l) });
    items::<sys::fsdpa_memory_device>(l);
    ok(unsafe { sys::fsdpa_memory_series_list(ctx, q, sys::FSDPA_ABSENT, 8, &mut l) });
    items::<sys::fsdpa_memory_point>(l);
}

#[test]
fn comm_split_matches_report() {
    let (path, _) = mixed();
    let rank = report_rank(&path);
    let mut a = analyzer(&path);
    const KEYS: &[&str] = &[
        "count",
        "comm_ns",
        "overlap_ns",
        "exposed_ns",
        "bytes",
        "algbw_gbps",
        "busbw_gbps",
    ];
    for (by, key, name) in [
        (SplitBy::Collective, "by_collective", "collective"),
        (SplitBy::ProcessGroup, "by_process_group", "process_group"),
    ] {
        let mine = a.comm_split(&Query::all(), by).unwrap();
        let theirs = rank.get("overlap").get(key).as_array();
        assert_eq!(mine.len(), theirs.len(), "{key}");
        assert!(!mine.is_empty());
        for (m, r) in mine.iter().zip(theirs) {
            assert_eq!(Some(m.name.as_str()), r.get(name).as_str(), "{key}");
            same(key, &m.v(), r, KEYS);
        }
        // the entries partition the communication kernels
        let o = a.overlap(&Query::all()).unwrap();
        assert_eq!(mine.iter().map(|s| s.count).sum::<u64>(), o.comm_kernels);
    }
    let names: Vec<String> = a
        .comm_split(&Query::all(), SplitBy::Collective)
        .unwrap()
        .into_iter()
        .map(|s| s.name)
        .collect();
    assert_eq!(names, ["AllGather", "ReduceScatter"]);
}

#[test]
fn fsdp_and_backward_match_report_and_truth() {
    let (path, truth) = mixed();
    let rank = report_rank(&path);
    let fsdp = rank.get("fsdp");
    let mut a = analyzer(&path);
    assert_eq!(a.fsdp_version(), Some(2));
    assert_eq!(fsdp.get("version").as_str(), Some("fsdp2"));

    let units = a.fsdp_units().unwrap();
    let rep_units = fsdp.get("units").as_array();
    let truth_units = truth.get("fsdp").get("units").as_array();
    assert_eq!(units.len(), rep_units.len());
    assert_eq!(units.len(), truth_units.len());
    for (u, r) in units.iter().zip(rep_units) {
        assert_eq!(Some(u.name.as_str()), r.get("name").as_str());
        assert_eq!(Some(u.phase.as_str()), r.get("phase").as_str());
        // the generator lists backward units in backward order
        let t = truth_units
            .iter()
            .find(|t| {
                t.get("name").as_str() == Some(u.name.as_str())
                    && t.get("phase").as_str() == Some(u.phase.as_str())
            })
            .expect("unit in the truth");
        assert_eq!(u.name_len, u.name.len());
        let what = format!("{} {}", u.name, u.phase.as_str());
        same(
            &what,
            &u.v(),
            r,
            &[
                "comm_ns",
                "compute_ns",
                "exposed_ns",
                "exposed_sum_of_steps_ns=exposed_sum_ns",
                "exposed_measured_ns",
                "allgather_ns",
                "reducescatter_ns",
                "steps=instances",
            ],
        );
        same(
            &what,
            &u.v(),
            t,
            &[
                "comm_ns",
                "compute_ns",
                "exposed_ns",
                "exposed_sum_of_steps_ns=exposed_sum_ns",
            ],
        );
    }
    // the whole-trace window holds every instance
    assert_eq!(a.fsdp_units_in(&Query::all()).unwrap(), units);

    let b = a.backward().unwrap();
    let rb = fsdp.get("backward");
    same(
        "backward",
        &b.v(),
        rb,
        &[
            "pattern",
            "prefetched_units",
            "units",
            "links",
            "broken_links",
            "idle_ns",
        ],
    );
    assert_eq!(
        Some(b.pattern.name()),
        truth.get("fsdp").get("backward").get("pattern").as_str()
    );
    assert_eq!(b.pattern, fsdpa::BackwardPattern::NoPrefetch);

    let steps = a.backward_steps().unwrap();
    let rsteps = rb.get("steps").as_array();
    assert_eq!(steps.len(), rsteps.len());
    assert_eq!(steps.len() as u64, b.steps);
    for (s, r) in steps.iter().zip(rsteps) {
        same(
            "backward step",
            &s.v(),
            r,
            &[
                "step",
                "pattern",
                "units",
                "links",
                "prefetched_links",
                "rs_hidden_links",
                "idle_ns",
                "start_ns",
                "end_ns",
                "overlap_pct",
            ],
        );
    }

    // the report's schedule of one step, unit by unit
    let sched = rb.get("schedule");
    let si = steps
        .iter()
        .position(|s| s.step == sched.get("step").as_i64())
        .expect("scheduled step");
    let bu = a.backward_units(si).unwrap();
    let ru = sched.get("units").as_array();
    assert_eq!(bu.len(), ru.len());
    for (u, r) in bu.iter().zip(ru) {
        same(
            &u.name,
            &u.v(),
            r,
            &["name", "position", "prefetched", "rs_hidden", "idle_ns"],
        );
        for (set, start, end, stream) in [
            ("ag", u.ag_start_ns, u.ag_end_ns, u.ag_stream),
            (
                "compute",
                u.compute_start_ns,
                u.compute_end_ns,
                u.compute_stream,
            ),
            ("rs", u.rs_start_ns, u.rs_end_ns, u.rs_stream),
        ] {
            let x = r.get(set);
            assert_eq!(
                (start, end, stream),
                (
                    x.get("start_ns").as_i64(),
                    x.get("end_ns").as_i64(),
                    x.get("stream").as_i64()
                ),
                "{} {set}",
                u.name
            );
        }
    }

    // the generator's prefetched flags: a unit's link held in every step
    // where it was evaluated
    let mut held: BTreeMap<String, bool> = BTreeMap::new();
    for (i, step) in steps.iter().enumerate() {
        let us = a.backward_units(i).unwrap();
        assert_eq!(us.len() as u64, step.units);
        for (j, u) in us.iter().enumerate() {
            assert_eq!(u.position as usize, j);
            if let Some(p) = u.prefetched {
                *held.entry(u.name.clone()).or_insert(true) &= p;
            }
        }
    }
    let want: BTreeMap<String, bool> = truth
        .get("fsdp")
        .get("backward")
        .get("prefetched")
        .as_object()
        .iter()
        .map(|(k, v)| (k.clone(), v == &Value::Bool(true)))
        .collect();
    assert_eq!(held, want);
}

#[test]
fn sync_matches_report_and_truth() {
    let (path, truth) = mixed();
    let rank = report_rank(&path);
    let mut a = analyzer(&path);
    let waits = a.sync_waits(&Query::all()).unwrap();
    let rw = rank.get("sync_waits").as_array();
    assert_eq!(waits.len(), rw.len());
    let calls = a.sync_calls(&Query::all()).unwrap();
    for (w, r) in waits.iter().zip(rw) {
        same(
            &w.api,
            &w.v(),
            r,
            &[
                "api",
                "count",
                "total_ns",
                "max_ns",
                "in_steps",
                "gpu_idle_during_ns",
                "gpu_idle_after_ns",
                "idle_after_calls",
                "gpu_idle_ns",
            ],
        );
        assert_eq!(w.threads as usize, r.get("threads").as_array().len());
        // the calls of this API, grouped by step, are the report's steps
        let mine: Vec<&fsdpa::SyncCall> = calls.iter().filter(|c| c.api == w.api).collect();
        assert_eq!(mine.len() as u64, w.count);
        assert_eq!(mine.iter().map(|c| c.dur_ns).sum::<i64>(), w.total_ns);
        for rs in r.get("steps").as_array() {
            let n = rs.get("step").as_i64();
            let d: Vec<i64> = mine
                .iter()
                .filter(|c| c.step == n)
                .map(|c| c.dur_ns)
                .collect();
            assert_eq!(Some(d.len() as i64), rs.get("count").as_i64());
            assert_eq!(Some(d.iter().sum::<i64>()), rs.get("total_ns").as_i64());
            assert_eq!(d.iter().max().copied(), rs.get("max_ns").as_i64());
        }
        // the worst call, every field
        let worst = r.get("worst");
        let c = mine
            .iter()
            .find(|c| Some(c.start_ns) == worst.get("start_ns").as_i64())
            .expect("worst call");
        same(
            "worst",
            &c.v(),
            worst,
            &[
                "api",
                "pid",
                "tid",
                "start_ns",
                "dur_ns",
                "step",
                "source",
                "kind=sync_kind",
                "device",
                "stream",
                "waited_op",
                "waited_op_stream",
                "waited_op_end_ns",
                "gpu_idle_during_ns",
                "gpu_idle_after_ns",
            ],
        );
        assert_eq!(c.device_wide, worst.get("scope").as_str() == Some("device"));
    }
    // the generator's blocking calls (those it planted on purpose)
    let planted = truth.get("sync").as_object();
    assert!(!planted.is_empty());
    for (api, t) in planted {
        let w = waits.iter().find(|w| &w.api == api).expect("planted API");
        same("truth", &w.v(), t, &["count", "total_ns", "max_ns"]);
    }

    // per step: the calls whose start the step holds, and the
    // cpu-sync-stall finding's evidence
    let steps: Vec<fsdpa::Step> = a.steps().collect();
    let ss = a.sync_steps(&Query::all()).unwrap();
    assert_eq!(ss.len(), steps.len());
    for (i, s) in ss.iter().enumerate() {
        assert_eq!(
            (s.index, s.number, s.step_dur_ns),
            (i as i64, steps[i].number, steps[i].dur_ns)
        );
        let mine: Vec<&fsdpa::SyncCall> =
            calls.iter().filter(|c| c.step == Some(s.number)).collect();
        assert_eq!(s.count, mine.len() as u64);
        assert_eq!(s.total_ns, mine.iter().map(|c| c.dur_ns).sum::<i64>());
        assert_eq!(s.max_ns, mine.iter().map(|c| c.dur_ns).max().unwrap_or(0));
        let mut per_thread: BTreeMap<(i64, i64), i64> = BTreeMap::new();
        for c in &mine {
            *per_thread.entry((c.pid, c.tid)).or_default() += c.dur_ns;
        }
        let worst = per_thread.iter().max_by_key(|(_, &d)| d);
        assert_eq!(s.worst_thread_ns, worst.map_or(0, |(_, &d)| d));
        assert_eq!(
            (s.worst_pid, s.worst_tid),
            worst.map_or((None, None), |(&(p, t), _)| (Some(p), Some(t)))
        );
        assert_eq!(
            s.share,
            Some(s.worst_thread_ns as f64 / s.step_dur_ns as f64)
        );
        assert_eq!(a.sync_steps(&Query::step(i as i64)).unwrap(), vec![*s]);
    }
    let r = Value::parse(&common::cli_report(&[&path])).unwrap();
    let stall = r
        .get("findings")
        .as_array()
        .iter()
        .find(|f| f.get("id").as_str() == Some("cpu-sync-stall"))
        .expect("cpu-sync-stall finding")
        .get("evidence")
        .clone();
    let flagged: Vec<&fsdpa::SyncStep> = ss.iter().filter(|s| s.flagged).collect();
    assert_eq!(
        Some(flagged.len() as i64),
        stall.get("flagged_steps").as_i64()
    );
    assert_eq!(
        Some(flagged.iter().map(|s| s.total_ns).sum::<i64>()),
        stall.get("flagged_sync_ns").as_i64()
    );
    assert_eq!(
        Some(flagged.iter().map(|s| s.step_dur_ns).sum::<i64>()),
        stall.get("flagged_steps_dur_ns").as_i64()
    );
    let w = flagged.iter().max_by_key(|s| s.worst_thread_ns).unwrap();
    same(
        "worst step",
        &w.v(),
        &stall,
        &[
            "worst_step=number",
            "worst_step_dur_ns=step_dur_ns",
            "worst_thread_sync_ns=worst_thread_ns",
            "worst_thread_pid=worst_pid",
            "worst_thread_tid=worst_tid",
            "worst_share=share",
        ],
    );
}

#[test]
fn memory_matches_report_and_truth() {
    let (path, truth) = mixed();
    let rank = report_rank(&path);
    let al = rank.get("allocator");
    let mut a = analyzer(&path);
    let m = a.memory(&Query::all()).unwrap();
    same(
        "allocator",
        &m.v(),
        al,
        &[
            "malloc_calls",
            "free_calls",
            "steady_state_malloc_calls",
            "warmup_steps",
            "peak_allocated_bytes",
            "peak_reserved_bytes",
            "fragmentation",
            "steady_state_free_calls",
            "steady_steps",
            "malloc_ns",
            "free_ns",
            "malloc_bytes",
            "gpu_idle_ns",
            "oom_events",
            "primary_device=device",
            "peak_allocated_delta_bytes",
            "allocated_at_peak_reserved_bytes",
            "mean_unallocated_share",
        ],
    );
    let t = truth.get("allocator");
    same(
        "truth",
        &m.v(),
        t,
        &[
            "malloc_calls",
            "free_calls",
            "steady_state_malloc_calls",
            "warmup_steps",
            "peak_allocated_bytes",
            "peak_reserved_bytes",
        ],
    );

    let devs = a.memory_devices(&Query::all()).unwrap();
    let rd = al.get("devices").as_array();
    assert_eq!(devs.len(), rd.len());
    for (d, r) in devs.iter().zip(rd) {
        same(
            "device",
            &d.v(),
            r,
            &[
                "device_type",
                "device",
                "relative",
                "primary",
                "events",
                "oom_events",
                "peak_allocated_bytes",
                "peak_allocated_delta_bytes",
                "peak_reserved_bytes",
                "allocated_at_peak_reserved_bytes",
                "fragmentation",
                "mean_unallocated_share",
            ],
        );
        // the report's timeline: the device's series in 120 buckets
        let tl = r.get("timeline");
        let pts = a.memory_series(&Query::all(), Some(d.device), 120).unwrap();
        assert_eq!(Some(pts.len() as i64), tl.get("buckets").as_i64());
        assert_eq!(Some(pts[0].t0_ns), tl.get("start_ns").as_i64());
        let width = tl.get("bucket_ns").as_i64().unwrap();
        for (i, p) in pts.iter().enumerate() {
            assert_eq!(p.t0_ns, pts[0].t0_ns + i as i64 * width);
            assert!(p.t1_ns - p.t0_ns <= width && p.t0_ns < p.t1_ns);
        }
        let col =
            |f: fn(&fsdpa::MemoryPoint) -> Option<i64>| pts.iter().map(f).collect::<Vec<_>>().v();
        assert_values_eq(
            "allocated_min",
            &col(|p| p.allocated_min),
            tl.get("allocated_min"),
        );
        assert_values_eq(
            "allocated_max",
            &col(|p| p.allocated_max),
            tl.get("allocated_max"),
        );
        assert_values_eq(
            "reserved_max",
            &col(|p| p.reserved_max),
            tl.get("reserved_max"),
        );
        assert_eq!(pts.iter().map(|p| p.events).sum::<u64>(), d.events);
        // the max over buckets is the exact peak (see fsdpa_memory_point)
        assert_eq!(
            pts.iter().filter_map(|p| p.reserved_max).max(),
            d.peak_reserved_bytes
        );
        // the primary device is the default one
        if d.primary {
            assert_eq!(a.memory_series(&Query::all(), None, 120).unwrap(), pts);
        }
    }

    let ms = a.memory_steps(&Query::all()).unwrap();
    let rs = al.get("steps").as_array();
    assert_eq!(ms.len(), rs.len());
    for (s, r) in ms.iter().zip(rs) {
        same(
            "memory step",
            &s.v(),
            r,
            &[
                "step=number",
                "warmup",
                "malloc_calls",
                "free_calls",
                "malloc_ns",
                "free_ns",
                "gpu_idle_ns",
                "start_allocated_bytes",
                "end_allocated_bytes",
                "min_allocated_bytes",
                "peak_allocated_bytes",
                "peak_reserved_bytes",
                "returns_to_baseline",
            ],
        );
    }
    let by_step: Vec<u64> = ms.iter().map(|s| s.malloc_calls).collect();
    assert_values_eq(
        "malloc_calls_by_step",
        &by_step.v(),
        t.get("malloc_calls_by_step"),
    );
}

/// Every query, several windows: the Python binding's results for the same
/// trace, field by field (names, absent values, every number).
#[test]
fn python_binding_agrees() {
    let (path, _) = mixed();
    const SCRIPT: &str = r#"
import json, sys
import fsdpa
a = fsdpa.Analyzer(sys.argv[1]); a.feed_file(sys.argv[1])
s = a.streams()[0]
L = lambda xs: [x.to_dict() for x in xs]
out = {}
for w, kw in {"all": {}, "step1": {"step": 1}, "stream": {"device": s.device, "stream": s.stream}}.items():
    out["launch_gaps/" + w] = a.launch_gaps(**kw).to_dict()
    out["launch_latency/" + w] = a.launch_latency(**kw).to_dict()
    out["launch_queue/" + w] = a.launch_queue(**kw).to_dict()
    out["comm_split/collective/" + w] = L(a.comm_split("collective", **kw))
    out["comm_split/process_group/" + w] = L(a.comm_split("process_group", **kw))
    out["sync_waits/" + w] = L(a.sync_waits(**kw))
    out["sync_calls/" + w] = L(a.sync_calls(**kw))
    out["sync_steps/" + w] = L(a.sync_steps(**kw))
    out["memory/" + w] = a.memory(**kw).to_dict()
    out["memory_devices/" + w] = L(a.memory_devices(**kw))
    out["memory_steps/" + w] = L(a.memory_steps(**kw))
out["fsdp_units"] = L(a.fsdp_units())
out["fsdp_units/step1"] = L(a.fsdp_units(step=1))
out["backward"] = a.backward().to_dict()
steps = a.backward_steps()
out["backward_steps"] = L(steps)
for i in range(len(steps)):
    out["backward_units/%d" % i] = L(a.backward_units(i))
out["memory_series/16"] = L(a.memory_series(16))
out["memory_series/7/step2"] = L(a.memory_series(7, step=2))
print(json.dumps(out))
"#;
    let py = common::python_json(SCRIPT, &[&path]);
    let mut a = analyzer(&path);
    let s = a.streams().next().unwrap();
    let mut mine: Vec<(String, Value)> = Vec::new();
    let mut put = |k: String, v: Value| mine.push((k, v));
    for (w, q) in [
        ("all", Query::all()),
        ("step1", Query::step(1)),
        (
            "stream",
            Query {
                device: Some(s.device),
                stream: Some(s.stream),
                ..Query::all()
            },
        ),
    ] {
        put(format!("launch_gaps/{w}"), a.launch_gaps(&q).unwrap().v());
        put(
            format!("launch_latency/{w}"),
            a.launch_latency(&q).unwrap().v(),
        );
        put(format!("launch_queue/{w}"), a.launch_queue(&q).unwrap().v());
        put(
            format!("comm_split/collective/{w}"),
            a.comm_split(&q, SplitBy::Collective).unwrap().v(),
        );
        put(
            format!("comm_split/process_group/{w}"),
            a.comm_split(&q, SplitBy::ProcessGroup).unwrap().v(),
        );
        put(format!("sync_waits/{w}"), a.sync_waits(&q).unwrap().v());
        put(format!("sync_calls/{w}"), a.sync_calls(&q).unwrap().v());
        put(format!("sync_steps/{w}"), a.sync_steps(&q).unwrap().v());
        put(format!("memory/{w}"), a.memory(&q).unwrap().v());
        put(
            format!("memory_devices/{w}"),
            a.memory_devices(&q).unwrap().v(),
        );
        put(format!("memory_steps/{w}"), a.memory_steps(&q).unwrap().v());
    }
    put("fsdp_units".into(), a.fsdp_units().unwrap().v());
    put(
        "fsdp_units/step1".into(),
        a.fsdp_units_in(&Query::step(1)).unwrap().v(),
    );
    put("backward".into(), a.backward().unwrap().v());
    let steps = a.backward_steps().unwrap();
    put("backward_steps".into(), steps.v());
    for i in 0..steps.len() {
        put(
            format!("backward_units/{i}"),
            a.backward_units(i).unwrap().v(),
        );
    }
    put(
        "memory_series/16".into(),
        a.memory_series(&Query::all(), None, 16).unwrap().v(),
    );
    put(
        "memory_series/7/step2".into(),
        a.memory_series(&Query::step(2), None, 7).unwrap().v(),
    );
    // something to compare in every family
    for k in [
        "sync_calls/all",
        "memory_devices/all",
        "backward_units/0",
        "fsdp_units/step1",
    ] {
        assert!(
            !mine
                .iter()
                .find(|(n, _)| n == k)
                .unwrap()
                .1
                .as_array()
                .is_empty(),
            "{k}"
        );
    }
    assert_values_eq("python", &Value::Object(mine), &py);
}
