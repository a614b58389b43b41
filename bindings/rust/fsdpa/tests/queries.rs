//! The analysis queries on the hand-written trace (bindings/testdata), whose
//! numbers follow from fsdpa.h's definitions by hand.  In µs from the base:
//!
//!   op (stream)        launch call      GPU          latency (start − call end)
//!   gemm (7)           [10, 15)         [20, 120)    5
//!   AllGather (20)     [90, 95)         [100, 300)   5
//!   sgemm (7)          [120, 125)       [150, 200)   25
//!   memcpy (7)         [1090, 1094)     [1100, 1110) 6
//!   gemm (7)           [1150, 1155)     [1200, 1500) 45
//!
//! Stream 7 gaps: [120,150) 30 (its call started *at* the gap start, not
//! after: not host wait; 30 is not < 30: other), [200,1100) 900 and
//! [1110,1200) 90 (calls started after the gap began: host wait).  GPU gaps
//! (both streams unioned): [300,1100) 800 and [1110,1200) 90, host wait.
mod common;
use common::BASE;
use fsdpa::{
    sys, Analyzer, BackwardPattern, LaunchGaps, MemoryStep, Query, SplitBy, Status, SyncStep,
    GAP_BINS, GAP_EDGES,
};

fn tiny() -> Analyzer {
    let mut a = Analyzer::new().unwrap();
    a.feed_file(common::tiny()).unwrap();
    a
}

/// 1 µs … 1 s in 1-2-5 steps, written out from the header's description.
fn edges() -> [i64; GAP_EDGES] {
    let mut e = [0i64; GAP_EDGES];
    let mut decade = 1000i64;
    for (i, x) in e.iter_mut().enumerate() {
        *x = decade * [1, 2, 5][i % 3];
        if i % 3 == 2 {
            decade *= 10;
        }
    }
    e
}

/// Histogram of values by the header's bins: [edges[i−1], edges[i]).
fn bins(values: &[i64]) -> [u64; GAP_BINS] {
    let e = edges();
    let mut c = [0u64; GAP_BINS];
    for &v in values {
        c[e.iter().take_while(|&&x| x <= v).count()] += 1;
    }
    c
}

#[test]
fn launch_gaps_exact() {
    let mut a = tiny();
    assert_eq!(edges()[GAP_EDGES - 1], 1_000_000_000);
    let g = a.launch_gaps(&Query::all()).unwrap();
    let mut counts = bins(&[30_000, 900_000, 90_000]);
    let mut bin_idle = [0i64; GAP_BINS];
    for v in [30_000i64, 900_000, 90_000] {
        bin_idle[bins(&[v]).iter().position(|&c| c == 1).unwrap()] += v;
    }
    assert_eq!(
        g,
        LaunchGaps {
            kernel_wait_threshold_ns: 30_000,
            small_gap_threshold_ns: 20_000,
            streams: 2,
            gaps: 3,
            idle_ns: 1_020_000,
            host_wait_ns: 990_000,
            kernel_wait_ns: 0,
            other_ns: 30_000,
            host_wait_gaps: 2,
            kernel_wait_gaps: 0,
            other_gaps: 1,
            unlinked_gaps: 0,
            unlinked_ns: 0,
            small_launch_gaps: 0,
            small_launch_ns: 0,
            p50_ns: Some(90_000), // nearest rank: 2nd of 3
            p90_ns: Some(900_000),
            p99_ns: Some(900_000),
            max_ns: Some(900_000),
            edges_ns: edges(),
            counts,
            bin_idle_ns: bin_idle,
            span_ns: Some(1_480_000),
            busy_ns: 590_000,
            density: Some(590_000.0 / 1_480_000.0),
            gpu_window_ns: Some(1_480_000),
            utilization: Some(590_000.0 / 1_480_000.0),
            gpu_gaps: 2,
            gpu_idle_ns: 890_000,
            gpu_host_wait_ns: 890_000,
            gpu_kernel_wait_ns: 0,
            gpu_other_ns: 0,
            gpu_small_launch_ns: 0,
        }
    );
    // step index 1 = [1000, 2000) µs: the 900 µs gap counts clipped (100 µs)
    // in the sums, by its full length in the bins and percentiles
    let s = a.launch_gaps(&Query::step(1)).unwrap();
    counts = bins(&[900_000, 90_000]);
    assert_eq!(
        (s.gaps, s.idle_ns, s.host_wait_ns, s.other_ns, s.counts),
        (2, 190_000, 190_000, 0, counts)
    );
    assert_eq!((s.p50_ns, s.max_ns), (Some(90_000), Some(900_000)));
    assert_eq!(s.bin_idle_ns.iter().sum::<i64>(), 190_000);
    assert_eq!(
        (s.span_ns, s.busy_ns, s.gpu_window_ns),
        (Some(400_000), 310_000, Some(500_000))
    );
    assert_eq!(
        (s.density, s.utilization),
        (Some(310.0 / 400.0), Some(310.0 / 500.0))
    );
    // stream 20 alone: one op, no gap
    let c = a
        .launch_gaps(&Query {
            stream: Some(20),
            ..Query::all()
        })
        .unwrap();
    assert_eq!((c.streams, c.gaps, c.idle_ns), (1, 0, 0));
    assert_eq!((c.p50_ns, c.p99_ns, c.max_ns), (None, None, None));
    // a window after all activity: no span (absent, not 0); the whole
    // trace's [first start, last end) meets it in 0 ns, so utilization
    // (busy / gpu_window = 0 / 0) is absent
    let e = a
        .launch_gaps(&Query {
            t0_ns: Some(BASE + 2_000_000),
            t1_ns: Some(BASE + 3_000_000),
            ..Query::all()
        })
        .unwrap();
    assert_eq!(
        (e.gaps, e.span_ns, e.density, e.gpu_window_ns),
        (0, None, None, Some(0))
    );
    assert_eq!(e.utilization, None);
    // a stream with no activity at all: no GPU window either
    let none = a
        .launch_gaps(&Query {
            stream: Some(99),
            ..Query::all()
        })
        .unwrap();
    assert_eq!(
        (none.streams, none.span_ns, none.gpu_window_ns),
        (0, None, None)
    );
}

#[test]
fn launch_latency_and_queue_exact() {
    let mut a = tiny();
    let l = a.launch_latency(&Query::all()).unwrap();
    assert_eq!((l.ops, l.linked), (5, 5));
    // sorted latencies 5, 5, 6, 25, 45 µs
    assert_eq!(
        (l.min_ns, l.p50_ns, l.p90_ns, l.p99_ns, l.max_ns, l.total_ns),
        (
            Some(5_000),
            Some(6_000),
            Some(45_000),
            Some(45_000),
            Some(45_000),
            Some(86_000)
        )
    );
    assert_eq!(l.edges_ns, edges());
    assert_eq!(l.counts, bins(&[5_000, 5_000, 6_000, 25_000, 45_000]));
    // memcpy excluded; every kernel runs longer than its 5 µs launch call
    assert_eq!(
        (l.kernels, l.kernels_linked, l.kernels_shorter_than_launch),
        (4, 4, 0)
    );
    assert_eq!(l.short_kernel_share, Some(0.0));
    let s1 = a.launch_latency(&Query::step(1)).unwrap();
    assert_eq!(
        (s1.ops, s1.min_ns, s1.max_ns, s1.total_ns),
        (2, Some(6_000), Some(45_000), Some(51_000))
    );
    let none = a
        .launch_latency(&Query {
            t0_ns: Some(BASE + 2_000_000),
            ..Query::all()
        })
        .unwrap();
    assert_eq!(
        (none.ops, none.linked, none.min_ns, none.total_ns),
        (0, 0, None, None)
    );
    assert_eq!(none.short_kernel_share, None);

    // queued intervals [call start, op start) met by the range [20, 1500):
    // [90,100), [120,150), [1090,1100), [1150,1200) (gemm's [10,20) ends at 20)
    let q = a.launch_queue(&Query::all()).unwrap();
    assert_eq!(
        (q.ops, q.range_ns, q.max_depth),
        (4, Some(1_480_000), Some(1))
    );
    assert_eq!((q.depth0_ns, q.starved_ns), (1_380_000, 790_000 + 40_000));
    assert_eq!(q.mean_depth, Some(100.0 / 1480.0));
    let e = a
        .launch_queue(&Query {
            t0_ns: Some(BASE + 2_000_000),
            ..Query::all()
        })
        .unwrap();
    assert_eq!((e.range_ns, e.max_depth, e.mean_depth), (None, None, None));
}

#[test]
fn comm_split_exact() {
    let mut a = tiny();
    let by_coll = a.comm_split(&Query::all(), SplitBy::Collective).unwrap();
    let by_pg = a.comm_split(&Query::all(), SplitBy::ProcessGroup).unwrap();
    assert_eq!(by_coll.len(), 1);
    assert_eq!(by_pg.len(), 1);
    let (ag, pg) = (&by_coll[0], &by_pg[0]);
    assert_eq!(
        (
            ag.name.as_str(),
            ag.count,
            ag.comm_ns,
            ag.overlap_ns,
            ag.exposed_ns
        ),
        ("AllGather", 1, 200_000, 70_000, 130_000)
    );
    // AllGather algorithm bytes = Out msg nelems × sizeof(Float) = 2048 × 4
    assert_eq!((ag.bytes, ag.timed_ns), (Some(8192), Some(200_000)));
    assert_eq!(ag.algbw_gbps, Some(8192.0 / 200_000.0));
    // bus factor (n−1)/n with Group size 2
    assert_eq!(ag.busbw_gbps, Some(8192.0 / 200_000.0 * 0.5));
    // no Process Group Name in the trace: one group named ""
    assert_eq!(pg.name, "");
    assert_eq!((pg.count, pg.comm_ns, pg.bytes), (1, 200_000, Some(8192)));
    // step index 1 has no communication at all
    assert!(a
        .comm_split(&Query::step(1), SplitBy::Collective)
        .unwrap()
        .is_empty());
    assert_eq!(
        a.comm_split(&Query::step(9), SplitBy::Collective)
            .unwrap_err()
            .status,
        Status::InvalidArgument
    );
}

#[test]
fn fsdp_and_backward_absent() {
    let mut a = tiny();
    assert!(a.fsdp_units().unwrap().is_empty());
    assert!(a.fsdp_units_in(&Query::step(0)).unwrap().is_empty());
    let b = a.backward().unwrap();
    assert_eq!(b.pattern, BackwardPattern::Unknown);
    assert_eq!(b.pattern.name(), "unknown");
    assert_eq!(
        (b.steps, b.units, b.links, b.broken_links, b.idle_ns),
        (0, 0, 0, 0, 0)
    );
    assert!(a.backward_steps().unwrap().is_empty());
    let e = a.backward_units(0).unwrap_err();
    assert_eq!(e.status, Status::InvalidArgument);
    assert!(!e.message.is_empty());
    assert_eq!(
        [
            BackwardPattern::Zigzag,
            BackwardPattern::NoPrefetch,
            BackwardPattern::Serialized
        ]
        .map(|p| p.to_string()),
        ["zigzag", "no_prefetch", "serialized"]
    );
}

#[test]
fn sync_and_memory_without_calls() {
    let mut a = tiny();
    // cudaLaunchKernel and cudaMemcpyAsync do not block
    assert!(a.sync_waits(&Query::all()).unwrap().is_empty());
    assert!(a.sync_calls(&Query::all()).unwrap().is_empty());
    let quiet = |index: i64, number: i64| SyncStep {
        index,
        number,
        step_dur_ns: 1_000_000,
        count: 0,
        total_ns: 0,
        max_ns: 0,
        worst_thread_ns: 0,
        worst_pid: None,
        worst_tid: None,
        share: Some(0.0),
        gpu_idle_ns: 0,
        flagged: false,
    };
    assert_eq!(
        a.sync_steps(&Query::all()).unwrap(),
        vec![quiet(0, 5), quiet(1, 6)]
    );
    assert_eq!(a.sync_steps(&Query::step(1)).unwrap(), vec![quiet(1, 6)]);

    // no [memory] events, no allocator calls; warm-up is 1 step without
    // reserved figures, so step 6 is the one steady step
    let m = a.memory(&Query::all()).unwrap();
    assert_eq!((m.malloc_calls, m.free_calls, m.malloc_bytes), (0, 0, None));
    assert_eq!((m.warmup_steps, m.steady_steps), (1, 1));
    assert_eq!(
        (m.device, m.memory_events, m.allocated_is_relative),
        (None, 0, false)
    );
    assert_eq!(
        (m.peak_allocated_bytes, m.peak_reserved_bytes),
        (None, None)
    );
    assert_eq!((m.fragmentation, m.mean_unallocated_share), (None, None));
    assert!(a.memory_devices(&Query::all()).unwrap().is_empty());
    assert!(a.memory_series(&Query::all(), None, 8).unwrap().is_empty());
    let row = |index: i64, number: i64, warmup: bool| MemoryStep {
        index,
        number,
        warmup,
        malloc_calls: 0,
        free_calls: 0,
        malloc_ns: 0,
        free_ns: 0,
        gpu_idle_ns: 0,
        start_allocated_bytes: None,
        end_allocated_bytes: None,
        min_allocated_bytes: None,
        peak_allocated_bytes: None,
        peak_reserved_bytes: None,
        returns_to_baseline: None,
    };
    assert_eq!(
        a.memory_steps(&Query::all()).unwrap(),
        vec![row(0, 5, true), row(1, 6, false)]
    );
    let e = a.memory_series(&Query::all(), None, 0).unwrap_err();
    assert_eq!(e.status, Status::InvalidArgument);
}

#[test]
fn crossrank_of_one_rank() {
    let mut a = tiny();
    let x = fsdpa::crossrank(&mut [&mut a]).unwrap();
    assert_eq!((x.ranks, x.collectives, x.steps), (1, 0, 0));
    assert_eq!(
        (x.reference_rank, x.transfer_ns, x.straggler_rank),
        (None, None, None)
    );
    let r = fsdpa::crossrank_ranks(&mut [&mut a]).unwrap();
    assert_eq!(r.len(), 1);
    assert_eq!(
        (r[0].rank, r[0].clock_offset_ns, r[0].collectives),
        (1, None, 0)
    );
    assert_eq!(
        fsdpa::crossrank(&mut []).unwrap_err().status,
        Status::InvalidArgument
    );
}

/// The queries answer between feeds, on the events decoded so far (all of
/// them once the scanner has passed the end of the event array).
#[test]
fn queries_between_feeds() {
    let data = std::fs::read(common::tiny()).unwrap();
    let cut = data.iter().rposition(|&b| b == b'}').unwrap();
    let mut a = Analyzer::new().unwrap();
    a.feed(&data[..cut]).unwrap();
    let before = a.launch_gaps(&Query::all()).unwrap();
    let split = a.comm_split(&Query::all(), SplitBy::Collective).unwrap();
    a.feed(&data[cut..]).unwrap();
    a.finish().unwrap();
    assert_eq!(before, a.launch_gaps(&Query::all()).unwrap());
    assert_eq!(before.gaps, 3);
    assert_eq!(
        split,
        a.comm_split(&Query::all(), SplitBy::Collective).unwrap()
    );
}

/// A `Query` sets the `fields` bit of each selector it has, and nothing
/// else: the builder, the fields and the C struct agree.
#[test]
fn query_fields_mask() {
    assert_eq!(Query::default(), Query::all());
    assert_eq!(Query::all().fields(), 0);
    assert_eq!(Query::all().raw().fields, 0);
    assert_eq!(
        Query::step(2).raw().fields,
        sys::FSDPA_QUERY_STEP,
        "Query::step sets the step bit"
    );
    assert_eq!(Query::step(2).raw().step, 2);
    let q = Query::all()
        .window(BASE, BASE + 5)
        .in_step(1)
        .device(0)
        .stream(7);
    assert_eq!(
        q,
        Query {
            t0_ns: Some(BASE),
            t1_ns: Some(BASE + 5),
            step: Some(1),
            device: Some(0),
            stream: Some(7),
        }
    );
    let r = q.raw();
    assert_eq!(r.fields, 0x1f);
    assert_eq!(
        (r.size, r.t0_ns, r.t1_ns, r.step, r.device, r.stream),
        (
            std::mem::size_of::<sys::fsdpa_query>(),
            BASE,
            BASE + 5,
            1,
            0,
            7
        )
    );
    for (q, bit) in [
        (Query::all().since(1), sys::FSDPA_QUERY_T0),
        (Query::all().until(1), sys::FSDPA_QUERY_T1),
        (Query::all().in_step(0), sys::FSDPA_QUERY_STEP),
        (Query::all().device(0), sys::FSDPA_QUERY_DEVICE),
        (Query::all().stream(0), sys::FSDPA_QUERY_STREAM),
    ] {
        assert_eq!(q.fields(), bit, "{q:?}");
    }
    // device 0 and stream 0 are selections, not "unset": with their bits a
    // zero selects device 0 (the tiny trace's only one) or stream 0 (none)
    let mut a = tiny();
    assert_eq!(
        a.timeline(&Query::all().device(0)).unwrap(),
        a.timeline(&Query::all()).unwrap()
    );
    assert_eq!(a.timeline(&Query::all().device(1)).unwrap().activities, 0);
    assert_eq!(a.timeline(&Query::all().stream(0)).unwrap().activities, 0);
    // a step combined with bounds: their intersection (step 1 = [1000,
    // 2000) us; from 1150 us: only the last gemm)
    let t = a.timeline(&Query::step(1).since(BASE + 1_150_000)).unwrap();
    assert_eq!((t.busy_ns, t.activities), (300_000, 1));
}

#[test]
fn zero_query_is_no_query() {
    common::assert_zero_query_is_no_query(&tiny());
}

use common::{bytes, first_size, padded};

/// Structs cross the ABI at `min(caller size, library size)`: a larger
/// caller struct is filled up to the library's size and its tail left
/// alone (input: ignored), the first size itself works, and a size below
/// it (0 included: it no longer means "current") is refused.
#[test]
fn struct_sizes() {
    let a = tiny();
    let ctx = a.as_ptr();
    let q = sys::FSDPA_QUERY_INIT;
    let n = std::mem::size_of::<sys::fsdpa_timeline>();
    let mut exact = sys::fsdpa_timeline::sized();
    assert_eq!(
        unsafe { sys::fsdpa_timeline_query(ctx, &q, &mut exact) },
        sys::FSDPA_OK
    );
    // output larger than the library's: filled, tail untouched
    let mut big = padded::<sys::fsdpa_timeline>(n + 64);
    let st = unsafe { sys::fsdpa_timeline_query(ctx, &q, big.as_mut_ptr().cast()) };
    assert_eq!(st, sys::FSDPA_OK);
    let exact_bytes = unsafe { std::slice::from_raw_parts(&exact as *const _ as *const u8, n) };
    assert_eq!(&bytes(&big)[8..n], &exact_bytes[8..]);
    assert!(bytes(&big)[n..].iter().all(|&b| b == 0xAB), "tail written");
    assert_eq!(big[0], (n + 64) as u64, "the size field is the caller's");
    // input larger than the library's: the bytes past it are ignored
    let mut qbig = padded::<sys::fsdpa_query>(std::mem::size_of::<sys::fsdpa_query>() + 64);
    unsafe {
        std::ptr::copy_nonoverlapping(
            (&Query::step(1).raw() as *const sys::fsdpa_query as *const u8).add(8),
            (qbig.as_mut_ptr() as *mut u8).add(8),
            std::mem::size_of::<sys::fsdpa_query>() - 8,
        )
    };
    let mut t1 = sys::fsdpa_timeline::sized();
    let st = unsafe { sys::fsdpa_timeline_query(ctx, qbig.as_ptr().cast(), &mut t1) };
    assert_eq!(st, sys::FSDPA_OK);
    let mut a2 = tiny();
    let want = a2.timeline(&Query::step(1)).unwrap();
    assert_eq!((t1.busy_ns, t1.activities), (want.busy_ns, want.activities));
    // too small: refused, nothing written
    for size in [0, first_size::<sys::fsdpa_timeline>() - 1] {
        let mut small = padded::<sys::fsdpa_timeline>(size);
        let st = unsafe { sys::fsdpa_timeline_query(ctx, &q, small.as_mut_ptr().cast()) };
        assert_eq!(st, sys::FSDPA_EINVAL, "output size {size}");
        assert!(bytes(&small)[8..].iter().all(|&b| b == 0xAB));
    }
    for size in [0, first_size::<sys::fsdpa_query>() - 1] {
        let small = sys::fsdpa_query {
            size,
            ..sys::FSDPA_QUERY_INIT
        };
        let mut t = sys::fsdpa_timeline::sized();
        let st = unsafe { sys::fsdpa_timeline_query(ctx, &small, &mut t) };
        assert_eq!(st, sys::FSDPA_EINVAL, "query size {size}");
    }

    // list items, every kind the tiny trace fills (generated.rs: the rest)
    use common::assert_item_sizes as items;
    let mut l = std::ptr::null_mut();
    assert_eq!(unsafe { sys::fsdpa_step_list(ctx, &mut l) }, sys::FSDPA_OK);
    items::<sys::fsdpa_step>(l);
    assert_eq!(
        unsafe { sys::fsdpa_stream_list(ctx, &mut l) },
        sys::FSDPA_OK
    );
    items::<sys::fsdpa_stream_info>(l);
    let st = unsafe { sys::fsdpa_comm_split_list(ctx, &q, sys::FSDPA_SPLIT_COLLECTIVE, &mut l) };
    assert_eq!(st, sys::FSDPA_OK);
    items::<sys::fsdpa_comm_split>(l);
    let st = unsafe { sys::fsdpa_sync_step_list(ctx, &q, &mut l) };
    assert_eq!(st, sys::FSDPA_OK);
    items::<sys::fsdpa_sync_step>(l);
    let st = unsafe { sys::fsdpa_memory_step_list(ctx, &q, &mut l) };
    assert_eq!(st, sys::FSDPA_OK);
    items::<sys::fsdpa_memory_step>(l);
    assert_eq!(unsafe { sys::fsdpa_param_list(&mut l) }, sys::FSDPA_OK);
    items::<sys::fsdpa_param>(l);
    let ctxs = [ctx];
    let st =
        unsafe { sys::fsdpa_crossrank_rank_list(ctxs.as_ptr(), 1, &mut l, std::ptr::null_mut()) };
    assert_eq!(st, sys::FSDPA_OK);
    items::<sys::fsdpa_crossrank_rank>(l);
    let st = unsafe { sys::fsdpa_report_findings(ctxs.as_ptr(), 1, &mut l, std::ptr::null_mut()) };
    assert_eq!(st, sys::FSDPA_OK);
    if unsafe { sys::fsdpa_list_count(l) } > 0 {
        items::<sys::fsdpa_finding>(l);
    } else {
        unsafe { sys::fsdpa_list_free(l) };
    }
    // NULL lists: no items, no kind, freeing is a no-op
    assert_eq!(unsafe { sys::fsdpa_list_count(std::ptr::null()) }, 0);
    assert_eq!(unsafe { sys::fsdpa_list_type(std::ptr::null()) }.0, 0);
    unsafe { sys::fsdpa_list_free(std::ptr::null_mut()) };
}
