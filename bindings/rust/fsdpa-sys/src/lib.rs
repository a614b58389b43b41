//! Raw declarations of libfsdpa's C API (`include/fsdpa/fsdpa.h`), written by
//! hand (no bindgen, no crates).  The struct layouts and function signatures
//! are recorded as data ([`Layout`], [`signatures`]) so the `fsdpa` crate's
//! tests compare them with the table generated from the C header: an ABI
//! change fails those tests instead of corrupting memory.
//!
//! Everything here is `unsafe` to call; use the `fsdpa` crate.
#![allow(non_camel_case_types)]

use std::os::raw::{c_char, c_int, c_void};

/// C spelling of a Rust type, as `bindings/abi/gen_probe.py` writes it
/// (`const char * const *`): used to compare signatures with the header.
pub trait CType {
    /// Whether the type is a pointer (decides where `const` goes).
    const PTR: bool = false;
    /// The canonical C spelling.
    fn c() -> String;
}

macro_rules! ctype {
    ($($t:ty => $s:expr),* $(,)?) => { $(impl CType for $t { fn c() -> String { $s.into() } })* };
}
ctype!(c_void => "void", c_char => "char", c_int => "int", u32 => "uint32_t",
       i64 => "int64_t", u64 => "uint64_t", usize => "size_t", f64 => "double");

impl<T: CType> CType for *mut T {
    const PTR: bool = true;
    fn c() -> String {
        format!("{} *", T::c())
    }
}
impl<T: CType> CType for *const T {
    const PTR: bool = true;
    fn c() -> String {
        if T::PTR {
            format!("{} const *", T::c())
        } else {
            format!("const {} *", T::c())
        }
    }
}

/// Layout of a `#[repr(C)]` struct as this crate declares it:
/// (field name, offset, size) in declaration order.
pub trait Layout {
    /// The C name of the struct.
    const NAME: &'static str;
    /// (name, offset, size) of each field.
    fn fields() -> Vec<FieldLayout>;
}

#[doc(hidden)]
pub fn field_size<S, F>(_: fn(&S) -> &F) -> usize {
    std::mem::size_of::<F>()
}

/// Declares a `#[repr(C)]` struct and its [`Layout`] from one field list,
/// so the two cannot disagree.
macro_rules! c_struct {
    ($(#[$m:meta])* pub struct $name:ident { $($(#[$fm:meta])* pub $f:ident : $t:ty),* $(,)? }) => {
        $(#[$m])*
        #[repr(C)]
        #[derive(Clone, Copy, Debug)]
        pub struct $name { $($(#[$fm])* pub $f: $t),* }
        impl Layout for $name {
            const NAME: &'static str = stringify!($name);
            fn fields() -> Vec<FieldLayout> {
                vec![$((stringify!($f), std::mem::offset_of!($name, $f),
                        field_size(|s: &$name| &s.$f))),*]
            }
        }
        impl CType for $name { fn c() -> String { stringify!($name).into() } }
    };
}

/// Declares a C enum as a transparent `c_int` newtype (an unknown value from
/// a newer library stays representable) with its constants.
macro_rules! c_enum {
    ($(#[$m:meta])* $name:ident { $($(#[$vm:meta])* $v:ident = $val:expr),* $(,)? }) => {
        $(#[$m])*
        #[repr(transparent)]
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub struct $name(pub c_int);
        $($(#[$vm])* pub const $v: $name = $name($val);)*
        impl $name {
            /// (C name, value) of every constant this crate knows.
            pub const VALUES: &'static [(&'static str, c_int)] = &[$((stringify!($v), $val)),*];
        }
        impl CType for $name { fn c() -> String { stringify!($name).into() } }
    };
}

/// `FSDPA_ABSENT`: an integer that is absent or cannot be computed.
pub const FSDPA_ABSENT: i64 = i64::MIN;
/// `FSDPA_VERSION_MAJOR` of the header these declarations follow.
pub const FSDPA_VERSION_MAJOR: i64 = 0;

c_enum!(
    /// `fsdpa_status`: 0 = success, negative = error.
    fsdpa_status {
    FSDPA_OK = 0, FSDPA_ENOMEM = -1, FSDPA_EINVAL = -2, FSDPA_EPARSE = -3,
    FSDPA_ENOTTRACE = -4, FSDPA_ETRUNCATED = -5, FSDPA_ELIMIT = -6, FSDPA_ESTATE = -7,
    FSDPA_EBUFS = -8, FSDPA_EIO = -9,
});
c_enum!(
    /// `fsdpa_stream_role`.
    fsdpa_stream_role {
    FSDPA_ROLE_COMPUTE = 0, FSDPA_ROLE_COMMUNICATION = 1, FSDPA_ROLE_MEMORY = 2,
    FSDPA_ROLE_MIXED = 3,
});
c_enum!(
    /// `fsdpa_format`.
    fsdpa_format { FSDPA_FORMAT_JSON = 0, FSDPA_FORMAT_TEXT = 1, FSDPA_FORMAT_HTML = 2 });

/// Opaque analysis context.
#[repr(C)]
pub struct fsdpa_ctx {
    _private: [u8; 0],
}
impl CType for fsdpa_ctx {
    fn c() -> String {
        "fsdpa_ctx".into()
    }
}

/// `malloc_fn` of [`fsdpa_allocator`].
pub type fsdpa_malloc_fn = Option<unsafe extern "C" fn(ud: *mut c_void, n: usize) -> *mut c_void>;
/// `realloc_fn` of [`fsdpa_allocator`].
pub type fsdpa_realloc_fn = Option<
    unsafe extern "C" fn(
        ud: *mut c_void,
        p: *mut c_void,
        old_n: usize,
        new_n: usize,
    ) -> *mut c_void,
>;
/// `free_fn` of [`fsdpa_allocator`].
pub type fsdpa_free_fn = Option<unsafe extern "C" fn(ud: *mut c_void, p: *mut c_void, n: usize)>;

c_struct!(
    /// Allocator callbacks (see fsdpa.h).
    pub struct fsdpa_allocator {
        pub size: usize,
        pub malloc_fn: fsdpa_malloc_fn,
        pub realloc_fn: fsdpa_realloc_fn,
        pub free_fn: fsdpa_free_fn,
        pub ud: *mut c_void,
    }
);
c_struct!(
    /// Options for `fsdpa_ctx_new`.
    pub struct fsdpa_options {
        pub size: usize,
        pub allocator: *const fsdpa_allocator,
        pub max_memory_bytes: u64,
        pub max_input_bytes: u64,
        pub name: *const c_char,
        pub rank: i64,
    }
);
c_struct!(
    /// One trace event (strings are pointer + length).
    pub struct fsdpa_event {
        pub size: usize,
        pub ph: c_char,
        pub cat: *const c_char,
        pub cat_len: usize,
        pub name: *const c_char,
        pub name_len: usize,
        pub pid: i64,
        pub tid: i64,
        pub ts_ns: i64,
        pub dur_ns: i64,
        pub correlation: i64,
        pub external_id: i64,
        pub stream: i64,
        pub device: i64,
        pub bytes: i64,
        pub total_allocated: i64,
        pub total_reserved: i64,
        pub device_type: i64,
        pub device_id: i64,
        pub in_msg_nelems: i64,
        pub out_msg_nelems: i64,
        pub group_size: i64,
        pub seq: i64,
        pub wait_on_stream: i64,
        pub wait_on_event_corr: i64,
        pub collective: *const c_char,
        pub collective_len: usize,
        pub dtype: *const c_char,
        pub dtype_len: usize,
        pub pg_name: *const c_char,
        pub pg_name_len: usize,
        pub sync_kind: *const c_char,
        pub sync_kind_len: usize,
        pub label: *const c_char,
        pub label_len: usize,
    }
);
c_struct!(
    /// Trace-level metadata.
    pub struct fsdpa_trace_info {
        pub size: usize,
        pub rank: i64,
        pub world_size: i64,
        pub base_time_ns: i64,
    }
);
c_struct!(
    /// Event counts.
    pub struct fsdpa_stats {
        pub size: usize,
        pub input_bytes: u64,
        pub json_bytes: u64,
        pub events: u64,
        pub retained: u64,
        pub kernels: u64,
        pub gpu_memcpy: u64,
        pub gpu_memset: u64,
        pub runtime: u64,
        pub cpu_ops: u64,
        pub annotations: u64,
        pub gpu_annotations: u64,
        pub memory: u64,
        pub cuda_sync: u64,
        pub other: u64,
        pub memory_bytes: u64,
        pub names: u64,
    }
);
c_struct!(
    /// A `ProfilerStep#N` range.
    pub struct fsdpa_step {
        pub size: usize,
        pub number: i64,
        pub start_ns: i64,
        pub dur_ns: i64,
    }
);
c_struct!(
    /// One GPU stream.
    pub struct fsdpa_stream_info {
        pub size: usize,
        pub device: i64,
        pub stream: i64,
        pub role: fsdpa_stream_role,
        pub kernels: u64,
        pub comm_kernels: u64,
        pub memops: u64,
        pub busy_ns: i64,
        pub first_ns: i64,
        pub last_ns: i64,
    }
);
c_struct!(
    /// Query window and selection.
    pub struct fsdpa_query {
        pub size: usize,
        pub t0_ns: i64,
        pub t1_ns: i64,
        pub step: i64,
        pub device: i64,
        pub stream: i64,
    }
);
c_struct!(
    /// Timeline summary.
    pub struct fsdpa_timeline {
        pub size: usize,
        pub span_ns: i64,
        pub busy_ns: i64,
        pub density: f64,
        pub activities: u64,
    }
);
c_struct!(
    /// Report options.
    pub struct fsdpa_report_options {
        pub size: usize,
        pub format: fsdpa_format,
        pub color: c_int,
        pub html_step: i64,
    }
);

c_struct!(
    /// Communication / compute overlap over a window.
    pub struct fsdpa_overlap {
        pub size: usize,
        pub comm_ns: i64,
        pub compute_ns: i64,
        pub overlap_ns: i64,
        pub exposed_comm_ns: i64,
        pub overlap_pct: f64,
        pub comm_kernels: u64,
        pub compute_kernels: u64,
    }
);

/// (field name, offset, size).
pub type FieldLayout = (&'static str, usize, usize);
/// (struct name, size, alignment, fields).
pub type StructLayout = (&'static str, usize, usize, Vec<FieldLayout>);

/// (enum name, size, (constant, value) pairs).
pub type EnumLayout = (&'static str, usize, &'static [(&'static str, c_int)]);

/// Layouts of every struct declared here (for the ABI test).
pub fn layouts() -> Vec<StructLayout> {
    fn one<T: Layout>() -> StructLayout {
        (
            T::NAME,
            std::mem::size_of::<T>(),
            std::mem::align_of::<T>(),
            T::fields(),
        )
    }
    vec![
        one::<fsdpa_allocator>(),
        one::<fsdpa_options>(),
        one::<fsdpa_event>(),
        one::<fsdpa_trace_info>(),
        one::<fsdpa_stats>(),
        one::<fsdpa_step>(),
        one::<fsdpa_stream_info>(),
        one::<fsdpa_query>(),
        one::<fsdpa_timeline>(),
        one::<fsdpa_report_options>(),
        one::<fsdpa_overlap>(),
    ]
}

/// (C name, enum size, values) of every enum declared here.
pub fn enums() -> Vec<EnumLayout> {
    vec![
        (
            "fsdpa_status",
            std::mem::size_of::<fsdpa_status>(),
            fsdpa_status::VALUES,
        ),
        (
            "fsdpa_stream_role",
            std::mem::size_of::<fsdpa_stream_role>(),
            fsdpa_stream_role::VALUES,
        ),
        (
            "fsdpa_format",
            std::mem::size_of::<fsdpa_format>(),
            fsdpa_format::VALUES,
        ),
    ]
}

macro_rules! ret_c {
    () => {
        String::from("void")
    };
    ($t:ty) => {
        <$t as CType>::c()
    };
}

/// Declares the functions and records their C signatures from the same
/// tokens.
macro_rules! api {
    ($($(#[$m:meta])* pub fn $name:ident($($arg:ident: $ty:ty),* $(,)?) $(-> $ret:ty)?;)*) => {
        extern "C" {
            $($(#[$m])* pub fn $name($($arg: $ty),*) $(-> $ret)?;)*
        }
        /// (name, C return type, C parameter types) of every declared function.
        pub fn signatures() -> Vec<(&'static str, String, Vec<String>)> {
            vec![$((stringify!($name), ret_c!($($ret)?), vec![$(<$ty as CType>::c()),*])),*]
        }
    };
}

api! {
    /// Fill options with defaults.
    pub fn fsdpa_options_init(opts: *mut fsdpa_options);
    /// `FSDPA_VERSION_HEX` of the loaded library.
    pub fn fsdpa_version() -> u32;
    /// Version string, e.g. "0.1.0" (static).
    pub fn fsdpa_version_string() -> *const c_char;
    /// Static name of a status code.
    pub fn fsdpa_status_str(st: fsdpa_status) -> *const c_char;
    /// Create a context.
    pub fn fsdpa_ctx_new(out: *mut *mut fsdpa_ctx, opts: *const fsdpa_options) -> fsdpa_status;
    /// Free a context (NULL is a no-op).
    pub fn fsdpa_ctx_free(ctx: *mut fsdpa_ctx);
    /// Feed bytes (copied before return).
    pub fn fsdpa_feed(ctx: *mut fsdpa_ctx, data: *const c_void, len: usize) -> fsdpa_status;
    /// End of input.
    pub fn fsdpa_finish(ctx: *mut fsdpa_ctx) -> fsdpa_status;
    /// Feed a whole file and finish.
    pub fn fsdpa_feed_file(ctx: *mut fsdpa_ctx, path: *const c_char) -> fsdpa_status;
    /// Message of the last failed call (owned by ctx).
    pub fn fsdpa_errmsg(ctx: *const fsdpa_ctx) -> *const c_char;
    /// Byte offset of the last input error, or `FSDPA_ABSENT`.
    pub fn fsdpa_error_offset(ctx: *const fsdpa_ctx) -> i64;
    /// Release a buffer returned by the library.
    pub fn fsdpa_free(p: *mut c_void);
    /// Initialise an event (all absent).
    pub fn fsdpa_event_init(ev: *mut fsdpa_event);
    /// Add one event.
    pub fn fsdpa_add_event(ctx: *mut fsdpa_ctx, ev: *const fsdpa_event) -> fsdpa_status;
    /// Initialise trace info (all absent).
    pub fn fsdpa_trace_info_init(info: *mut fsdpa_trace_info);
    /// Set trace metadata.
    pub fn fsdpa_set_trace_info(ctx: *mut fsdpa_ctx, info: *const fsdpa_trace_info) -> fsdpa_status;
    /// Read trace metadata.
    pub fn fsdpa_get_trace_info(ctx: *const fsdpa_ctx, info: *mut fsdpa_trace_info) -> fsdpa_status;
    /// Event counts.
    pub fn fsdpa_get_stats(ctx: *const fsdpa_ctx, out: *mut fsdpa_stats) -> fsdpa_status;
    /// Number of steps.
    pub fn fsdpa_step_count(ctx: *const fsdpa_ctx) -> usize;
    /// Step i.
    pub fn fsdpa_get_step(ctx: *const fsdpa_ctx, i: usize, out: *mut fsdpa_step) -> fsdpa_status;
    /// Number of GPU streams.
    pub fn fsdpa_stream_count(ctx: *const fsdpa_ctx) -> usize;
    /// Stream i.
    pub fn fsdpa_get_stream(ctx: *const fsdpa_ctx, i: usize, out: *mut fsdpa_stream_info) -> fsdpa_status;
    /// Whole trace, all devices and streams.
    pub fn fsdpa_query_init(q: *mut fsdpa_query);
    /// Timeline density over a window.
    pub fn fsdpa_query_timeline(ctx: *mut fsdpa_ctx, q: *const fsdpa_query, out: *mut fsdpa_timeline) -> fsdpa_status;
    /// Communication / compute overlap (HTA's definition) over a window.
    pub fn fsdpa_query_overlap(ctx: *mut fsdpa_ctx, q: *const fsdpa_query, out: *mut fsdpa_overlap) -> fsdpa_status;
    /// FSDP version seen in the annotations: 2, 1, or 0 (none).
    pub fn fsdpa_fsdp_version(ctx: *const fsdpa_ctx) -> c_int;
    /// Report defaults.
    pub fn fsdpa_report_options_init(opts: *mut fsdpa_report_options);
    /// Write the report over n contexts.
    pub fn fsdpa_report(ctxs: *const *mut fsdpa_ctx, paths: *const *const c_char, n: usize,
                        opts: *const fsdpa_report_options, out: *mut *mut c_char,
                        out_len: *mut usize) -> fsdpa_status;
    /// Set a parameter by name.
    pub fn fsdpa_set_param(ctx: *mut fsdpa_ctx, key: *const c_char, value: *const c_char) -> fsdpa_status;
    /// Static list of parameters.
    pub fn fsdpa_param_list() -> *const c_char;
}
