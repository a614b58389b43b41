//! Devices and (with the `experimental` feature) the kernel and op tables,
//! MFU and the peak table: a hand-built step with known answers
//! (`record_shapes` included), and the tables of a trace against the CLI's
//! JSON report.
mod common;

use fsdpa::{Analyzer, Device, Event};

const BF16: &str = r#"["c10::BFloat16", "c10::BFloat16"]"#;

/// One 1 ms ProfilerStep holding one bf16 4096^3 GEMM of 200 us on an H100.
fn one_gemm_step() -> Analyzer {
    let mut a = Analyzer::new().unwrap();
    a.set_device(&Device {
        device: 0,
        name: "NVIDIA H100 80GB HBM3".into(),
        sms: Some(132),
        compute_major: Some(9),
        compute_minor: Some(0),
        total_memory_bytes: None,
    })
    .unwrap();
    let x = b'X';
    for e in [
        Event {
            ph: x,
            cat: Some("user_annotation"),
            name: Some("ProfilerStep#1"),
            pid: Some(10),
            tid: Some(1),
            ts_ns: Some(0),
            dur_ns: Some(1_000_000),
            ..Event::default()
        },
        Event {
            ph: x,
            cat: Some("cpu_op"),
            name: Some("aten::mm"),
            pid: Some(10),
            tid: Some(1),
            ts_ns: Some(1000),
            dur_ns: Some(50),
            input_dims: Some("[[4096, 4096], [4096, 4096]]"),
            input_types: Some(BF16),
            ..Event::default()
        },
        Event {
            ph: x,
            cat: Some("cuda_runtime"),
            name: Some("cudaLaunchKernel"),
            pid: Some(10),
            tid: Some(1),
            ts_ns: Some(1010),
            dur_ns: Some(5),
            correlation: Some(1),
            ..Event::default()
        },
        Event {
            ph: x,
            cat: Some("kernel"),
            name: Some("sm90_gemm"),
            pid: Some(0),
            tid: Some(7),
            ts_ns: Some(10_000),
            dur_ns: Some(200_000),
            correlation: Some(1),
            ..Event::default()
        },
    ] {
        a.add_event(&e).unwrap();
    }
    a
}

#[test]
fn devices_round_trip() {
    let mut a = one_gemm_step();
    let d = a.devices().unwrap();
    assert_eq!(d.len(), 1);
    assert_eq!(
        (
            d[0].device,
            d[0].name.as_str(),
            d[0].sms,
            d[0].compute_major
        ),
        (0, "NVIDIA H100 80GB HBM3", Some(132), Some(9))
    );
    assert_eq!(d[0].total_memory_bytes, None);
}

#[cfg(feature = "experimental")]
#[test]
fn known_answers() {
    use fsdpa::Query;
    let mut a = one_gemm_step();
    let p = a.device_peak(None).unwrap();
    assert_eq!(p.model.as_deref(), Some("H100 SXM"));
    assert_eq!(p.bf16_tflops, Some(989.4));
    assert_eq!(a.device_peak(Some(3)).unwrap().model, None);

    let flops = 2 * 4096i64.pow(3);
    let ops = a.ops(&Query::all(), 0).unwrap();
    assert_eq!(ops.len(), 1);
    let o = &ops[0];
    assert_eq!(
        (
            o.name.as_deref(),
            o.category.as_deref(),
            o.model.as_deref(),
            o.dtype.as_deref()
        ),
        (Some("aten::mm"), Some("gemm"), Some("gemm"), Some("bf16"))
    );
    assert_eq!(o.input_dims.as_deref(), Some("[[4096,4096],[4096,4096]]"));
    assert_eq!(
        (o.flops, o.bytes, o.kernel_ns),
        (Some(flops), Some(3 * 4096 * 4096 * 2), 200_000)
    );
    let t = o.tflops_per_s.unwrap();
    assert!((t - flops as f64 / 200_000.0 / 1000.0).abs() < 1e-9, "{t}");

    let e = a.efficiency(&Query::step(0)).unwrap();
    assert_eq!(
        (e.window_ns, e.kernel_ns, e.gemm_ns, e.flops),
        (Some(1_000_000), 200_000, 200_000, flops)
    );
    let mfu = e.mfu.unwrap();
    assert!(
        (mfu - flops as f64 / (989.4 * 1000.0) / 1_000_000.0).abs() < 1e-12,
        "{mfu}"
    );
    let steps: Vec<_> = a
        .efficiency_steps(&Query::all())
        .unwrap()
        .iter()
        .map(|s| s.step)
        .collect();
    assert_eq!(steps, vec![Some(1)]);

    let k = a.kernels(&Query::all(), None, 0).unwrap();
    assert_eq!(k.len(), 1);
    assert_eq!(
        (
            k[0].name.as_deref(),
            k[0].kernel_class.as_deref(),
            k[0].count,
            k[0].total_ns
        ),
        (Some("sm90_gemm"), Some("compute"), 1, 200_000)
    );
    // no FSDP units in this trace
    assert!(a.kernels(&Query::all(), Some(0), 0).is_err());
}

#[cfg(feature = "experimental")]
#[test]
fn tables_match_the_report() {
    use common::json::Value;
    use fsdpa::Query;
    let rep = Value::parse(&common::cli_report(&[&common::tiny()])).unwrap();
    let rank = rep.get("ranks").at(0);
    let mut a = Analyzer::new().unwrap();
    a.feed_file(common::tiny()).unwrap();
    let ks = a.kernels(&Query::all(), None, 40).unwrap();
    let want: Vec<_> = rank
        .get("kernels")
        .as_array()
        .iter()
        .map(|k| {
            (
                k.get("name").as_str().map(String::from),
                k.get("count").as_i64(),
                k.get("total_ns").as_i64(),
                k.get("p50_ns").as_i64(),
            )
        })
        .collect();
    let got: Vec<_> = ks
        .iter()
        .map(|k| {
            (
                k.name.clone(),
                Some(k.count as i64),
                Some(k.total_ns),
                k.p50_ns,
            )
        })
        .collect();
    assert!(!want.is_empty());
    assert_eq!(got, want);
    let ops = a.ops(&Query::all(), 40).unwrap();
    let want: Vec<_> = rank
        .get("ops")
        .as_array()
        .iter()
        .map(|o| {
            (
                o.get("name").as_str().map(String::from),
                o.get("category").as_str().map(String::from),
                o.get("kernel_ns").as_i64(),
            )
        })
        .collect();
    let got: Vec<_> = ops
        .iter()
        .map(|o| (o.name.clone(), o.category.clone(), Some(o.kernel_ns)))
        .collect();
    assert_eq!(got, want);
}
