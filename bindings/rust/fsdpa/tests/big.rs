//! A multi-MB trace fed in 4 KiB chunks: same report as the CLI, and every
//! byte the context allocated is given back (counted through fsdpa_allocator).
mod common;
use fsdpa::{sys, Analyzer, Format, Options};
use std::io::Read;
use std::os::raw::c_void;
use std::sync::atomic::{AtomicI64, Ordering::Relaxed};

extern "C" {
    fn malloc(n: usize) -> *mut c_void;
    fn realloc(p: *mut c_void, n: usize) -> *mut c_void;
    fn free(p: *mut c_void);
}

#[derive(Default)]
struct Counts {
    live_bytes: AtomicI64,
    live_blocks: AtomicI64,
    calls: AtomicI64,
}

unsafe extern "C" fn c_malloc(ud: *mut c_void, n: usize) -> *mut c_void {
    let c = &*(ud as *const Counts);
    let p = malloc(n);
    if !p.is_null() {
        c.live_bytes.fetch_add(n as i64, Relaxed);
        c.live_blocks.fetch_add(1, Relaxed);
        c.calls.fetch_add(1, Relaxed);
    }
    p
}
unsafe extern "C" fn c_realloc(
    ud: *mut c_void,
    p: *mut c_void,
    old_n: usize,
    new_n: usize,
) -> *mut c_void {
    let c = &*(ud as *const Counts);
    let q = realloc(p, new_n);
    if !q.is_null() {
        c.live_bytes.fetch_add(new_n as i64 - old_n as i64, Relaxed);
        c.calls.fetch_add(1, Relaxed);
    }
    q
}
unsafe extern "C" fn c_free(ud: *mut c_void, p: *mut c_void, n: usize) {
    let c = &*(ud as *const Counts);
    if !p.is_null() {
        c.live_bytes.fetch_sub(n as i64, Relaxed);
        c.live_blocks.fetch_sub(1, Relaxed);
        c.calls.fetch_add(1, Relaxed);
    }
    free(p)
}

#[test]
fn big_trace_in_4k_chunks_frees_everything() {
    let Some(path) = common::big() else { return };
    let counts = Box::new(Counts::default());
    let alloc = sys::fsdpa_allocator {
        size: std::mem::size_of::<sys::fsdpa_allocator>(),
        malloc_fn: Some(c_malloc),
        realloc_fn: Some(c_realloc),
        free_fn: Some(c_free),
        ud: &*counts as *const Counts as *mut c_void,
    };
    let mut a = Analyzer::with_options(&Options {
        name: Some(path.clone()),
        allocator: Some(alloc),
        ..Options::default()
    })
    .unwrap();
    let mut f = std::fs::File::open(&path).unwrap();
    let mut buf = [0u8; 4096];
    let mut feeds = 0;
    let mut seen = Vec::new();
    loop {
        let n = f.read(&mut buf).unwrap();
        if n == 0 {
            break;
        }
        a.feed(&buf[..n]).unwrap();
        feeds += 1;
        if feeds % 64 == 0 {
            // queries between feeds see the events decoded so far
            seen.push(a.stats().unwrap().kernels);
            a.timeline(&fsdpa::Query::all()).unwrap();
        }
    }
    a.finish().unwrap();
    let st = a.stats().unwrap();
    let mine = a.report(Format::Json).unwrap();
    let held = counts.live_bytes.load(Relaxed);
    drop(a);
    println!(
        "# {path}: {feeds} feeds, {} B in, {} B JSON, {} events, {} B held before drop, {} calls; after drop {} B in {} blocks",
        st.input_bytes, st.json_bytes, st.events, held, counts.calls.load(Relaxed),
        counts.live_bytes.load(Relaxed), counts.live_blocks.load(Relaxed)
    );
    assert!(st.json_bytes > 4 << 20, "not a multi-MB trace");
    assert_eq!(st.input_bytes, std::fs::metadata(&path).unwrap().len());
    assert!(held > 0);
    assert_eq!(
        (
            counts.live_bytes.load(Relaxed),
            counts.live_blocks.load(Relaxed)
        ),
        (0, 0)
    );
    assert!(seen.windows(2).all(|w| w[0] <= w[1]), "{seen:?}");
    assert!(
        seen.iter().any(|&k| k > 0 && k < st.kernels),
        "{seen:?} / {}",
        st.kernels
    );
    common::assert_same(&mine, &common::cli_report(&[&path]));
}
