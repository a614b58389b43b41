//! fsdpa-sys matches the C header: every struct (size, alignment, each
//! field's name, offset, size and C type), enum values, constants, the
//! whole-trace query initialiser, the opaque handles, function signatures
//! and the header's inline wrappers (the `*_init` helpers, which must pass
//! fsdpa-sys's own struct sizes), compared with the table a C program
//! generated from fsdpa.h prints (bindings/abi/); and the library loaded is
//! that header's (`libfsdpa.so.2`, version 0.2).
mod common;
use common::json::Value;
use fsdpa::sys;

fn abi() -> Value {
    Value::parse(&common::abi_json()).unwrap()
}

/// Whether the table marks a declaration experimental (inside
/// `#ifdef FSDPA_EXPERIMENTAL`).
fn experimental(v: &Value) -> bool {
    v.get("experimental") == &Value::Bool(true)
}

/// A declaration of the header fsdpa-sys must mirror: every stable one.
/// Experimental ones are mirrored when the binding offers them (annotate,
/// behind the `experimental` feature) and then checked like the others; a
/// new experimental declaration need not be bound before it is stable.
fn must_mirror(v: &Value) -> bool {
    !experimental(v)
}

/// The C type of a field as the table spells it, with an array's length
/// expression (`int64_t [FSDPA_GAP_BINS]`) replaced by the length the
/// compiler computed (`count`), as fsdpa-sys spells it.
fn field_type(f: &Value) -> String {
    let t = f.get("type").as_str().unwrap().to_string();
    match (t.find(" ["), f.get("count").as_i64()) {
        (Some(i), Some(n)) => format!("{} [{n}]", &t[..i]),
        _ => t,
    }
}

#[test]
fn every_struct_matches_header() {
    let abi = abi();
    let structs = abi.get("structs");
    let layouts = sys::layouts();
    for (name, size, align, fields) in &layouts {
        let c = structs.get(name);
        assert!(!c.is_null(), "{name} is not in fsdpa.h any more");
        assert_eq!(Some(*size as i64), c.get("size").as_i64(), "sizeof({name})");
        assert_eq!(
            Some(*align as i64),
            c.get("align").as_i64(),
            "_Alignof({name})"
        );
        let theirs: Vec<(String, i64, i64, String)> = c
            .get("fields")
            .as_array()
            .iter()
            .map(|f| {
                (
                    f.get("name").as_str().unwrap().to_string(),
                    f.get("offset").as_i64().unwrap(),
                    f.get("size").as_i64().unwrap(),
                    field_type(f),
                )
            })
            .collect();
        let mine: Vec<(String, i64, i64, String)> = fields
            .iter()
            .map(|(n, o, s, t)| (n.to_string(), *o as i64, *s as i64, t.clone()))
            .collect();
        assert_eq!(mine, theirs, "fields of {name} (name, offset, size, type)");
        assert_eq!(
            sys::experimental().contains(name),
            experimental(c),
            "{name}: experimental in fsdpa-sys as in the header"
        );
    }
    // no struct of the header is left out: a struct the header gains fails
    // here until fsdpa-sys declares it (and this test checks its layout)
    let mirrored: Vec<&str> = layouts.iter().map(|l| l.0).collect();
    let missing: Vec<&str> = structs
        .as_object()
        .iter()
        .filter(|(k, v)| must_mirror(v) && !mirrored.contains(&k.as_str()))
        .map(|(k, _)| k.as_str())
        .collect();
    assert!(
        missing.is_empty(),
        "header structs fsdpa-sys does not declare: {missing:?}"
    );
    assert!(mirrored.len() >= 33, "{mirrored:?}");
    // the opaque handles, by name
    let opaque: Vec<&str> = abi
        .get("opaque")
        .as_array()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    assert_eq!(sys::opaque(), opaque);
}

/// Every struct with a `size` field gets it from `sized()`, and `sized()`
/// zeroes the rest (the blank every query and list item starts from).
#[test]
fn sized_sets_the_size() {
    fn check<T: sys::Layout>(s: T, size: usize) {
        assert_eq!(size, std::mem::size_of::<T>(), "{}", T::NAME);
        let bytes = unsafe {
            std::slice::from_raw_parts(&s as *const T as *const u8, std::mem::size_of::<T>())
        };
        assert!(
            bytes[std::mem::size_of::<usize>()..]
                .iter()
                .all(|&b| b == 0),
            "{}",
            T::NAME
        );
    }
    macro_rules! each {
        ($($t:ident),*) => {$( { let s = sys::$t::sized(); let n = s.size; check(s, n); } )*};
    }
    each!(
        fsdpa_allocator,
        fsdpa_options,
        fsdpa_error,
        fsdpa_event,
        fsdpa_trace_info,
        fsdpa_stats,
        fsdpa_step,
        fsdpa_stream_info,
        fsdpa_query,
        fsdpa_timeline,
        fsdpa_launch_gaps,
        fsdpa_launch_latency,
        fsdpa_launch_queue,
        fsdpa_overlap,
        fsdpa_comm_split,
        fsdpa_fsdp_unit,
        fsdpa_backward,
        fsdpa_backward_step,
        fsdpa_backward_unit,
        fsdpa_sync_wait,
        fsdpa_sync_call,
        fsdpa_sync_step,
        fsdpa_memory_summary,
        fsdpa_memory_device,
        fsdpa_memory_point,
        fsdpa_memory_step,
        fsdpa_report_options,
        fsdpa_finding,
        fsdpa_param,
        fsdpa_crossrank,
        fsdpa_crossrank_rank,
        fsdpa_summary_options
    );
}

#[test]
fn enums_and_constants_match_header() {
    let abi = abi();
    let enums = abi.get("enums");
    let mut declared = Vec::new();
    for (name, size, values) in sys::enums() {
        declared.push(name);
        let c = enums.get(name);
        assert!(!c.is_null(), "enum {name} is not in fsdpa.h any more");
        assert_eq!(Some(size as i64), c.get("size").as_i64(), "sizeof({name})");
        let theirs: Vec<(&str, Option<i64>)> = c
            .get("values")
            .as_object()
            .iter()
            .map(|(k, v)| (k.as_str(), v.as_i64()))
            .collect();
        let mine: Vec<(&str, Option<i64>)> =
            values.iter().map(|&(k, v)| (k, Some(v as i64))).collect();
        assert_eq!(mine, theirs, "values of {name}");
    }
    let unmirrored: Vec<&str> = enums
        .as_object()
        .iter()
        .filter(|(k, v)| must_mirror(v) && !declared.contains(&k.as_str()))
        .map(|(k, _)| k.as_str())
        .collect();
    if !unmirrored.is_empty() {
        println!("# note: header enums fsdpa-sys does not mirror: {unmirrored:?}");
    }
    assert_eq!(
        enums.get("fsdpa_query_field").get("c_type").as_str(),
        Some("enum fsdpa_query_field")
    );

    let k = abi.get("constants");
    let mine: [(&str, i64); 7] = [
        ("FSDPA_ABSENT", sys::FSDPA_ABSENT),
        ("FSDPA_VERSION_MAJOR", sys::FSDPA_VERSION_MAJOR),
        ("FSDPA_VERSION_MINOR", sys::FSDPA_VERSION_MINOR),
        ("FSDPA_VERSION_PATCH", sys::FSDPA_VERSION_PATCH),
        ("FSDPA_VERSION_HEX", sys::FSDPA_VERSION_HEX as i64),
        ("FSDPA_GAP_EDGES", sys::FSDPA_GAP_EDGES as i64),
        ("FSDPA_GAP_BINS", sys::FSDPA_GAP_BINS as i64),
    ];
    for (name, v) in mine {
        assert_eq!(k.get(name).as_i64(), Some(v), "{name}");
    }
    assert_eq!(k.as_object().len(), mine.len(), "constants of the header");
    assert_eq!(fsdpa::GAP_BINS, sys::FSDPA_GAP_BINS);
}

/// `FSDPA_QUERY_INIT` as the compiler sees it: sys's constant, and the
/// crate's whole-trace query, are the same bytes.
#[test]
fn query_initializer_matches_header() {
    let abi = abi();
    let init = abi.get("initializers").get("FSDPA_QUERY_INIT");
    assert_eq!(init.get("struct").as_str(), Some("fsdpa_query"));
    let v = init.get("values");
    for q in [sys::FSDPA_QUERY_INIT, fsdpa::Query::all().raw()] {
        let mine = [
            ("size", q.size as i64),
            ("fields", q.fields as i64),
            ("t0_ns", q.t0_ns),
            ("t1_ns", q.t1_ns),
            ("step", q.step),
            ("device", q.device),
            ("stream", q.stream),
        ];
        assert_eq!(v.as_object().len(), mine.len());
        for (f, x) in mine {
            assert_eq!(v.get(f).as_i64(), Some(x), "FSDPA_QUERY_INIT.{f}");
        }
    }
    let mut q = sys::fsdpa_query::sized();
    q.fields = 31;
    q.step = 7;
    unsafe { sys::fsdpa_query_init(&mut q) };
    assert_eq!(
        format!("{q:?}"),
        format!("{:?}", sys::FSDPA_QUERY_INIT),
        "fsdpa_query_init() = FSDPA_QUERY_INIT"
    );
}

/// The header's spelling of a type with `struct T` written as `T` where `T`
/// is one of its structs: every public struct is `typedef struct T {..} T`,
/// so both name the same type.
fn canonical(c_type: &str, structs: &Value) -> String {
    let mut out = String::new();
    let mut rest = c_type;
    while let Some(i) = rest.find("struct ") {
        let after = &rest[i + "struct ".len()..];
        let ident: String = after
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect();
        let word_start = i == 0 || !rest.as_bytes()[i - 1].is_ascii_alphanumeric();
        out.push_str(&rest[..i]);
        let a_header_struct = word_start && !structs.get(&ident).is_null();
        if !a_header_struct {
            out.push_str("struct ");
        }
        rest = after;
    }
    out.push_str(rest);
    out
}

#[test]
fn canonical_spelling() {
    let abi = abi();
    let s = abi.get("structs");
    assert_eq!(
        canonical("const struct fsdpa_report_options *", s),
        "const fsdpa_report_options *"
    );
    assert_eq!(
        canonical("struct not_in_header *", s),
        "struct not_in_header *"
    );
    assert_eq!(canonical("fsdpa_ctx * const *", s), "fsdpa_ctx * const *");
}

#[test]
fn signatures_match_header() {
    let abi = abi();
    let funcs = abi.get("functions");
    let structs = abi.get("structs");
    let mut declared = Vec::new();
    for (name, ret, params) in sys::signatures() {
        declared.push(name);
        let c = funcs.get(name);
        assert!(!c.is_null(), "{name} is not in fsdpa.h any more");
        assert_eq!(
            Some(ret),
            c.get("ret").as_str().map(|r| canonical(r, structs)),
            "{name} return type"
        );
        let theirs: Vec<String> = c
            .get("params")
            .as_array()
            .iter()
            .map(|p| canonical(p.as_str().unwrap(), structs))
            .collect();
        assert_eq!(params, theirs, "{name} parameters");
        assert_eq!(
            sys::experimental().contains(&name),
            experimental(c),
            "{name}: experimental in fsdpa-sys as in the header"
        );
    }
    let unwrapped: Vec<&str> = funcs
        .as_object()
        .iter()
        .filter(|(k, v)| must_mirror(v) && !declared.contains(&k.as_str()))
        .map(|(k, _)| k.as_str())
        .collect();
    if !unwrapped.is_empty() {
        println!("# note: header functions fsdpa-sys does not declare: {unwrapped:?}");
    }
    // what fsdpa-sys marks experimental is exactly the header's list
    let mut theirs: Vec<&str> = abi
        .get("experimental")
        .as_array()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    let mut mine = sys::experimental();
    theirs.sort();
    mine.sort();
    if cfg!(feature = "experimental") {
        assert_eq!(mine, theirs);
    } else {
        assert!(mine.is_empty());
    }
}

/// The header's `static inline` wrappers are in the table apart from the
/// exported functions; fsdpa-sys mirrors every one as a Rust function with
/// the same signature that calls the same exported function, which it
/// declares, with the size of the struct the wrapper fills.
#[test]
fn inline_wrappers_match_header() {
    let abi = abi();
    let inline = abi.get("inline");
    let funcs = abi.get("functions");
    let structs = abi.get("structs");
    let declared = sys::signatures();
    let mut mirrored = Vec::new();
    for (name, calls, ret, params, sizeof) in sys::inline_wrappers() {
        mirrored.push(name);
        let c = inline.get(name);
        assert!(!c.is_null(), "{name} is not an inline wrapper of fsdpa.h any more");
        assert!(funcs.get(name).is_null(), "{name} is in the table as an exported function");
        assert_eq!(c.get("calls").as_str(), Some(calls), "{name} calls");
        assert_eq!(
            c.get("ret").as_str().map(|r| canonical(r, structs)),
            Some(ret),
            "{name} return type"
        );
        let theirs: Vec<String> = c
            .get("params")
            .as_array()
            .iter()
            .map(|p| canonical(p.as_str().unwrap(), structs))
            .collect();
        assert_eq!(params, theirs, "{name} parameters");
        assert_eq!(c.get("sizeof").as_str(), Some(sizeof), "{name} passes sizeof");
        let (_, _, sized_params) = declared
            .iter()
            .find(|d| d.0 == calls)
            .unwrap_or_else(|| panic!("{name} calls {calls}, which fsdpa-sys does not declare"));
        assert_eq!(
            sized_params,
            &vec![format!("{sizeof} *"), "size_t".to_string()],
            "{calls} parameters"
        );
        assert_eq!(
            sys::experimental().contains(&name),
            experimental(c),
            "{name}: experimental in fsdpa-sys as in the header"
        );
    }
    let missing: Vec<&str> = inline
        .as_object()
        .iter()
        .filter(|(k, v)| must_mirror(v) && !mirrored.contains(&k.as_str()))
        .map(|(k, _)| k.as_str())
        .collect();
    assert!(
        missing.is_empty(),
        "inline wrappers of the header fsdpa-sys does not mirror: {missing:?}"
    );
    assert!(mirrored.len() >= 7, "{mirrored:?}");
}

/// The wrappers are not symbols of the loaded library (nothing can link
/// them); the functions they call are.
#[cfg(target_os = "linux")]
#[test]
fn inline_wrappers_are_not_exported() {
    extern "C" {
        fn dlsym(handle: *mut std::os::raw::c_void, name: *const std::os::raw::c_char)
            -> *mut std::os::raw::c_void;
    }
    // make sure the library is mapped (RTLD_DEFAULT searches what is)
    let _ = fsdpa::version();
    for (name, calls, ..) in sys::inline_wrappers() {
        let sym = |s: &str| {
            let c = std::ffi::CString::new(s).unwrap();
            // SAFETY: RTLD_DEFAULT (a null handle on glibc) and a C string
            unsafe { dlsym(std::ptr::null_mut(), c.as_ptr()) }
        };
        assert!(sym(name).is_null(), "libfsdpa exports {name}");
        assert!(!sym(calls).is_null(), "libfsdpa does not export {calls}");
    }
}

/// Every `*_init` call of fsdpa-sys passes the size of its own struct: in
/// a buffer with room to spare, the defaults fill exactly `size_of` bytes
/// (the `size` field says so) and the bytes past it are untouched; and the
/// exported `*_init_sized` at every field boundary below the library's size
/// (what a caller built against an older, smaller struct passes) writes
/// the defaults of the fields before it, that size, and nothing past it.
#[test]
fn init_passes_own_size() {
    const SPARE: usize = 64;
    const SIZE_T: usize = std::mem::size_of::<usize>();
    fn bytes(b: &[u64]) -> Vec<u8> {
        b.iter().flat_map(|w| w.to_ne_bytes()).collect()
    }
    fn size_field(b: &[u8]) -> usize {
        usize::from_ne_bytes(b[..SIZE_T].try_into().unwrap())
    }
    fn check<T: sys::Layout>(init: unsafe fn(*mut T), sized: unsafe extern "C" fn(*mut T, usize)) {
        let size = std::mem::size_of::<T>();
        assert!(std::mem::align_of::<T>() <= 8, "{}", T::NAME);
        // u64 words: aligned for every struct of the header
        let fresh = || vec![0xAAAA_AAAA_AAAA_AAAAu64; (size + SPARE + 7) / 8];
        let mut f = vec![0u64; (size + SPARE + 7) / 8];
        // SAFETY: the buffer is larger than T and aligned for it
        unsafe { init(f.as_mut_ptr() as *mut T) };
        let full = bytes(&f);
        assert_eq!(size_field(&full), size, "{}: size", T::NAME);

        let mut b = fresh();
        unsafe { init(b.as_mut_ptr() as *mut T) };
        let got = bytes(&b);
        assert_eq!(&got[..size], &full[..size], "{}: defaults", T::NAME);
        assert!(
            got[size..].iter().all(|&x| x == 0xAA),
            "{}: written past size_of",
            T::NAME
        );

        for (field, cut, ..) in T::fields().iter().skip(1) {
            let cut = *cut;
            let mut b = fresh();
            // SAFETY: as above; the library writes at most `cut` bytes
            unsafe { sized(b.as_mut_ptr() as *mut T, cut) };
            let got = bytes(&b);
            let what = format!("{}: size {cut} (up to {field})", T::NAME);
            assert_eq!(size_field(&got), cut, "{what}: size field");
            assert_eq!(&got[SIZE_T..cut], &full[SIZE_T..cut], "{what}: defaults");
            assert!(got[cut..].iter().all(|&x| x == 0xAA), "{what}: written past it");
        }
    }
    let mut n = 0;
    macro_rules! each {
        ($($t:ident: $init:ident, $sized:ident);* $(;)?) => {$( check::<sys::$t>(sys::$init, sys::$sized); n += 1; )*};
    }
    each!(
        fsdpa_options: fsdpa_options_init, fsdpa_options_init_sized;
        fsdpa_error: fsdpa_error_init, fsdpa_error_init_sized;
        fsdpa_event: fsdpa_event_init, fsdpa_event_init_sized;
        fsdpa_trace_info: fsdpa_trace_info_init, fsdpa_trace_info_init_sized;
        fsdpa_query: fsdpa_query_init, fsdpa_query_init_sized;
        fsdpa_report_options: fsdpa_report_options_init, fsdpa_report_options_init_sized;
        fsdpa_summary_options: fsdpa_summary_options_init, fsdpa_summary_options_init_sized;
        fsdpa_device_info: fsdpa_device_info_init, fsdpa_device_info_init_sized;
    );
    #[cfg(feature = "experimental")]
    each!(
        fsdpa_annotate_options: fsdpa_annotate_options_init, fsdpa_annotate_options_init_sized;
        fsdpa_kernel_select: fsdpa_kernel_select_init, fsdpa_kernel_select_init_sized;
        fsdpa_diff_options: fsdpa_diff_options_init, fsdpa_diff_options_init_sized;
    );
    assert_eq!(n, sys::inline_wrappers().len(), "every *_init wrapper is checked");
}

/// The library this test runs against is the header's: same version, and
/// the shared object mapped into the process is `libfsdpa.so.2` (the SONAME
/// of 0.2; 0.1 was `libfsdpa.so.1`).
#[test]
fn loaded_library_is_this_header() {
    let abi = abi();
    assert_eq!(
        Some(fsdpa::version().as_str()),
        abi.get("header_version").as_str()
    );
    assert_eq!(unsafe { sys::fsdpa_version() }, sys::FSDPA_VERSION_HEX);
    let maps = std::fs::read_to_string("/proc/self/maps").unwrap();
    let libs: Vec<&str> = maps
        .lines()
        .filter_map(|l| l.split_whitespace().nth(5))
        .filter(|p| p.contains("libfsdpa"))
        .collect();
    assert!(!libs.is_empty(), "libfsdpa is not mapped");
    for p in &libs {
        // the loader opens the SONAME, a link to libfsdpa.so.2.0.0
        assert!(
            p.ends_with("libfsdpa.so.2.0.0") || p.ends_with(sys::SONAME),
            "{p}"
        );
    }
}
