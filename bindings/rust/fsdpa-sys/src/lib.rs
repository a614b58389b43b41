//! Raw declarations of libfsdpa's C API (`include/fsdpa/fsdpa.h`, version
//! 0.2: `libfsdpa.so.2`), written by hand (no bindgen, no crates).  The
//! struct layouts and function signatures are recorded as data ([`Layout`],
//! [`layouts`], [`enums`], [`signatures`], [`inline_wrappers`]) so the
//! `fsdpa` crate's tests compare them with the table generated from the C
//! header: an ABI change fails those tests instead of corrupting memory.
//!
//! The header's `*_init()` helpers are `static inline` (not symbols of the
//! library): they are Rust functions here that call the exported
//! `*_init_sized()` with this crate's `size_of`, as the C helpers pass
//! their caller's `sizeof`.
//!
//! The header's experimental declarations (`#ifdef FSDPA_EXPERIMENTAL`: the
//! annotate functions) are here only with the cargo feature `experimental`,
//! the counterpart of defining `FSDPA_EXPERIMENTAL` before including it.
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

impl CType for () {
    fn c() -> String {
        "void".into()
    }
}
impl<T: CType, const N: usize> CType for [T; N] {
    /// `elem [N]`: the header writes the length as an expression
    /// (`FSDPA_GAP_BINS`); the ABI table gives its value too.
    fn c() -> String {
        format!("{} [{N}]", T::c())
    }
}
/// `ret (*)(params)`: the function-pointer members of `fsdpa_allocator`.
macro_rules! fnptr_ctype {
    ($($a:ident),*) => {
        impl<R: CType, $($a: CType),*> CType for Option<unsafe extern "C" fn($($a),*) -> R> {
            fn c() -> String {
                let params: Vec<String> = vec![$($a::c()),*];
                format!("{} (*)({})", R::c(), params.join(", "))
            }
        }
    };
}
fnptr_ctype!(A);
fnptr_ctype!(A, B);
fnptr_ctype!(A, B, C);
fnptr_ctype!(A, B, C, D);

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
/// (field name, offset, size, C type) in declaration order.
pub trait Layout {
    /// The C name of the struct.
    const NAME: &'static str;
    /// (name, offset, size, C spelling of the type) of each field.
    fn fields() -> Vec<FieldLayout>;
}

#[doc(hidden)]
pub fn field_size<S, F>(_: fn(&S) -> &F) -> usize {
    std::mem::size_of::<F>()
}

/// Declares a `#[repr(C)]` struct and its [`Layout`] from one field list,
/// so the two cannot disagree.  For structs without a `size` field.
macro_rules! c_plain_struct {
    ($(#[$m:meta])* pub struct $name:ident { $($(#[$fm:meta])* pub $f:ident : $t:ty),* $(,)? }) => {
        $(#[$m])*
        #[repr(C)]
        #[derive(Clone, Copy, Debug)]
        pub struct $name { $($(#[$fm])* pub $f: $t),* }
        impl Layout for $name {
            const NAME: &'static str = stringify!($name);
            fn fields() -> Vec<FieldLayout> {
                vec![$((stringify!($f), std::mem::offset_of!($name, $f),
                        field_size(|s: &$name| &s.$f), <$t as CType>::c())),*]
            }
        }
        impl CType for $name { fn c() -> String { stringify!($name).into() } }
    };
}

/// [`c_plain_struct!`] for a versioned struct (first field `size`), with
/// `sized()`.
macro_rules! c_struct {
    ($(#[$m:meta])* pub struct $name:ident { $($body:tt)* }) => {
        c_plain_struct!($(#[$m])* pub struct $name { $($body)* });
        impl $name {
            /// All fields zero (integers 0, null pointers, no callbacks) and
            /// `size` = `sizeof`: a blank caller-owned struct, e.g. the output
            /// of a query or the item of `fsdpa_list_get`.  (The library
            /// copies `min(size, its own size)` bytes, and refuses a size
            /// below the struct's first released size: 0 is not "current".)
            pub fn sized() -> Self {
                // SAFETY: the fields of every struct declared with this macro
                // are integers, doubles, raw pointers, `Option<fn>`, `c_int`
                // enums or arrays of those, for which all-zero bytes are valid.
                let mut s: Self = unsafe { std::mem::zeroed() };
                s.size = std::mem::size_of::<Self>();
                s
            }
        }
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
/// `FSDPA_VERSION_MINOR` of the header these declarations follow.
pub const FSDPA_VERSION_MINOR: i64 = 2;
/// `FSDPA_VERSION_PATCH` of the header these declarations follow.
pub const FSDPA_VERSION_PATCH: i64 = 0;
/// `FSDPA_VERSION_HEX`: (major << 16) | (minor << 8) | patch, what
/// `fsdpa_version()` returns for the same version.
pub const FSDPA_VERSION_HEX: u32 =
    ((FSDPA_VERSION_MAJOR << 16) | (FSDPA_VERSION_MINOR << 8) | FSDPA_VERSION_PATCH) as u32;
/// The shared library these declarations link against: its SONAME.
pub const SONAME: &str = "libfsdpa.so.2";
/// `FSDPA_GAP_EDGES`: histogram edges (1 µs … 1 s in 1-2-5 steps).
pub const FSDPA_GAP_EDGES: usize = 19;
/// `FSDPA_GAP_BINS`: histogram bins (below the first edge, between edges, at
/// or above the last).
pub const FSDPA_GAP_BINS: usize = FSDPA_GAP_EDGES + 1;

c_enum!(
    /// `fsdpa_status`: 0 = success, negative = error.
    fsdpa_status {
    FSDPA_OK = 0, FSDPA_ENOMEM = -1, FSDPA_EINVAL = -2, FSDPA_EPARSE = -3,
    FSDPA_ENOTTRACE = -4, FSDPA_ETRUNCATED = -5, FSDPA_ELIMIT = -6, FSDPA_ESTATE = -7,
    FSDPA_EBUFS = -8, FSDPA_EIO = -9,
});
c_enum!(
    /// `fsdpa_list_kind`: the struct `fsdpa_list_get` fills for a list.
    fsdpa_list_kind {
    FSDPA_LIST_STEPS = 1, FSDPA_LIST_STREAMS = 2, FSDPA_LIST_COMM_SPLITS = 3,
    FSDPA_LIST_FSDP_UNITS = 4, FSDPA_LIST_BACKWARD_STEPS = 5, FSDPA_LIST_BACKWARD_UNITS = 6,
    FSDPA_LIST_SYNC_WAITS = 7, FSDPA_LIST_SYNC_CALLS = 8, FSDPA_LIST_SYNC_STEPS = 9,
    FSDPA_LIST_MEMORY_DEVICES = 10, FSDPA_LIST_MEMORY_POINTS = 11, FSDPA_LIST_MEMORY_STEPS = 12,
    FSDPA_LIST_CROSSRANK_RANKS = 13, FSDPA_LIST_FINDINGS = 14, FSDPA_LIST_PARAMS = 15,
    FSDPA_LIST_DEVICES = 16, FSDPA_LIST_KERNELS = 17, FSDPA_LIST_OPS = 18, FSDPA_LIST_EFFICIENCY_STEPS = 19,
});
c_enum!(
    /// `fsdpa_stream_role`.
    fsdpa_stream_role {
    FSDPA_ROLE_COMPUTE = 0, FSDPA_ROLE_COMMUNICATION = 1, FSDPA_ROLE_MEMORY = 2,
    FSDPA_ROLE_MIXED = 3,
});
c_enum!(
    /// `fsdpa_format`.
    fsdpa_format { FSDPA_FORMAT_JSON = 0, FSDPA_FORMAT_TEXT = 1, FSDPA_FORMAT_HTML = 2, FSDPA_FORMAT_CSV = 3 });
c_enum!(
    /// `fsdpa_comm_split_by`: how `fsdpa_comm_split_list` groups communication.
    fsdpa_comm_split_by { FSDPA_SPLIT_COLLECTIVE = 0, FSDPA_SPLIT_PROCESS_GROUP = 1 });
c_enum!(
    /// `fsdpa_fsdp_phase`.
    fsdpa_fsdp_phase { FSDPA_PHASE_FORWARD = 0, FSDPA_PHASE_BACKWARD = 1 });
c_enum!(
    /// `fsdpa_backward_pattern`.
    fsdpa_backward_pattern {
    FSDPA_BWD_UNKNOWN = 0, FSDPA_BWD_ZIGZAG = 1, FSDPA_BWD_NO_PREFETCH = 2,
    FSDPA_BWD_SERIALIZED = 3,
});
c_enum!(
    /// `fsdpa_wait_source`: how the waited-for work of a blocking call was found.
    fsdpa_wait_source {
    FSDPA_WAIT_UNKNOWN = 0, FSDPA_WAIT_CUDA_SYNC = 1, FSDPA_WAIT_OWN_OP = 2,
    FSDPA_WAIT_INFERRED = 3,
});
c_enum!(
    /// `fsdpa_severity`: how much a finding matters.
    fsdpa_severity {
    FSDPA_SEVERITY_INFO = 0, FSDPA_SEVERITY_WARNING = 1, FSDPA_SEVERITY_CRITICAL = 2,
});

/// `enum fsdpa_query_field`: the bits of [`fsdpa_query::fields`] (a
/// `uint32_t`, so the constants are `u32`).  A selector of a query counts
/// only when its bit is set: a zeroed query is the whole trace.
pub mod fsdpa_query_field {
    /// `t0_ns` bounds the window from below.
    pub const FSDPA_QUERY_T0: u32 = 1 << 0;
    /// `t1_ns` bounds the window from above.
    pub const FSDPA_QUERY_T1: u32 = 1 << 1;
    /// `step` selects a step's CPU range as the window.
    pub const FSDPA_QUERY_STEP: u32 = 1 << 2;
    /// `device` selects one device.
    pub const FSDPA_QUERY_DEVICE: u32 = 1 << 3;
    /// `stream` selects one stream (id).
    pub const FSDPA_QUERY_STREAM: u32 = 1 << 4;
    /// (C name, value) of every bit.
    pub const VALUES: &[(&str, std::os::raw::c_int)] = &[
        ("FSDPA_QUERY_T0", FSDPA_QUERY_T0 as _),
        ("FSDPA_QUERY_T1", FSDPA_QUERY_T1 as _),
        ("FSDPA_QUERY_STEP", FSDPA_QUERY_STEP as _),
        ("FSDPA_QUERY_DEVICE", FSDPA_QUERY_DEVICE as _),
        ("FSDPA_QUERY_STREAM", FSDPA_QUERY_STREAM as _),
    ];
}
pub use fsdpa_query_field::{
    FSDPA_QUERY_DEVICE, FSDPA_QUERY_STEP, FSDPA_QUERY_STREAM, FSDPA_QUERY_T0, FSDPA_QUERY_T1,
};

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

/// Opaque list (a caller-owned snapshot: `fsdpa_list_free`).
#[repr(C)]
pub struct fsdpa_list {
    _private: [u8; 0],
}
impl CType for fsdpa_list {
    fn c() -> String {
        "fsdpa_list".into()
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
    /// What went wrong in a call with no single context (the trailing
    /// `fsdpa_error *err` of the multi-context and summary functions).
    pub struct fsdpa_error {
        pub size: usize,
        pub status: fsdpa_status,
        pub input: i64,
        pub offset: i64,
        pub message: [c_char; 512],
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
        pub input_dims: *const c_char,
        pub input_dims_len: usize,
        pub input_types: *const c_char,
        pub input_types_len: usize,
        pub concrete_inputs: *const c_char,
        pub concrete_inputs_len: usize,
    }
);
c_struct!(
    /// A GPU as the trace's `deviceProperties` describes it.
    pub struct fsdpa_device_info {
        pub size: usize,
        pub device: i64,
        pub name: [c_char; 64],
        pub sms: i64,
        pub compute_major: i64,
        pub compute_minor: i64,
        pub total_memory_bytes: i64,
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
        pub fields: u32,
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
        pub width: c_int,
        /// csv: the table's name (NUL-terminated), null = "ranks"
        pub table: *const c_char,
    }
);

c_plain_struct!(
    /// A time range on the trace's clock (absolute ns, end exclusive); no
    /// `size` field: it is only read through a finding's `ranges`.
    pub struct fsdpa_range {
        pub start_ns: i64,
        pub end_ns: i64,
    }
);
c_struct!(
    /// One finding (its strings and ranges belong to the list).
    pub struct fsdpa_finding {
        pub size: usize,
        pub id: *const c_char,
        pub severity: fsdpa_severity,
        pub rank: i64,
        pub step: i64,
        pub cost_ns: i64,
        pub title: *const c_char,
        pub detail: *const c_char,
        pub advice: *const c_char,
        pub evidence_json: *const c_char,
        pub nranges: usize,
        pub ranges: *const fsdpa_range,
        // since 0.3: what fixing it would save (FSDPA_ABSENT where the fix is
        // not replayed) and the length of the window it was measured over
        pub saving_ns: i64,
        pub saving_window_ns: i64,
    }
);
c_struct!(
    /// One analysis parameter (its strings belong to the list).
    pub struct fsdpa_param {
        pub size: usize,
        pub name: *const c_char,
        pub default_value: i64,
        pub min_value: i64,
        pub max_value: i64,
        pub description: *const c_char,
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
c_struct!(
    /// Launch gaps, idle attribution and density over a window.
    pub struct fsdpa_launch_gaps {
        pub size: usize,
        pub kernel_wait_threshold_ns: i64,
        pub small_gap_threshold_ns: i64,
        pub streams: u64,
        pub gaps: u64,
        pub idle_ns: i64,
        pub host_wait_ns: i64,
        pub kernel_wait_ns: i64,
        pub other_ns: i64,
        pub host_wait_gaps: u64,
        pub kernel_wait_gaps: u64,
        pub other_gaps: u64,
        pub unlinked_gaps: u64,
        pub unlinked_ns: i64,
        pub small_launch_gaps: u64,
        pub small_launch_ns: i64,
        pub p50_ns: i64,
        pub p90_ns: i64,
        pub p99_ns: i64,
        pub max_ns: i64,
        pub edges_ns: [i64; FSDPA_GAP_EDGES],
        pub counts: [u64; FSDPA_GAP_BINS],
        pub bin_idle_ns: [i64; FSDPA_GAP_BINS],
        pub span_ns: i64,
        pub busy_ns: i64,
        pub density: f64,
        pub gpu_window_ns: i64,
        pub utilization: f64,
        pub gpu_gaps: u64,
        pub gpu_idle_ns: i64,
        pub gpu_host_wait_ns: i64,
        pub gpu_kernel_wait_ns: i64,
        pub gpu_other_ns: i64,
        pub gpu_small_launch_ns: i64,
    }
);
c_struct!(
    /// Launch latency of the GPU ops starting in a window.
    pub struct fsdpa_launch_latency {
        pub size: usize,
        pub ops: u64,
        pub linked: u64,
        pub min_ns: i64,
        pub p50_ns: i64,
        pub p90_ns: i64,
        pub p99_ns: i64,
        pub max_ns: i64,
        pub total_ns: i64,
        pub edges_ns: [i64; FSDPA_GAP_EDGES],
        pub counts: [u64; FSDPA_GAP_BINS],
        pub kernels: u64,
        pub kernels_linked: u64,
        pub kernels_shorter_than_launch: u64,
        pub short_kernel_share: f64,
    }
);
c_struct!(
    /// Launch-queue depth statistics.
    pub struct fsdpa_launch_queue {
        pub size: usize,
        pub ops: u64,
        pub range_ns: i64,
        pub max_depth: i64,
        pub mean_depth: f64,
        pub depth0_ns: i64,
        pub starved_ns: i64,
    }
);
c_struct!(
    /// The communication of one collective type or one process group.
    pub struct fsdpa_comm_split {
        pub size: usize,
        pub name: [c_char; 64],
        pub count: u64,
        pub comm_ns: i64,
        pub overlap_ns: i64,
        pub exposed_ns: i64,
        pub bytes: i64,
        pub timed_ns: i64,
        pub algbw_gbps: f64,
        pub busbw_gbps: f64,
    }
);
c_struct!(
    /// One FSDP unit in one phase, summed over its instances.
    pub struct fsdpa_fsdp_unit {
        pub size: usize,
        pub name: [c_char; 256],
        pub name_len: usize,
        pub phase: fsdpa_fsdp_phase,
        pub instances: u64,
        pub comm_ns: i64,
        pub compute_ns: i64,
        pub exposed_ns: i64,
        pub exposed_sum_ns: i64,
        pub exposed_measured_ns: i64,
        pub allgather_ns: i64,
        pub reducescatter_ns: i64,
        pub comm_kernels: u64,
        pub compute_kernels: u64,
    }
);
c_struct!(
    /// Backward schedule over the whole trace.
    pub struct fsdpa_backward {
        pub size: usize,
        pub pattern: fsdpa_backward_pattern,
        pub steps: u64,
        pub units: u64,
        pub prefetched_units: u64,
        pub links: u64,
        pub broken_links: u64,
        pub idle_ns: i64,
    }
);
c_struct!(
    /// Backward schedule of one step.
    pub struct fsdpa_backward_step {
        pub size: usize,
        pub step: i64,
        pub pattern: fsdpa_backward_pattern,
        pub units: u64,
        pub links: u64,
        pub prefetched_links: u64,
        pub rs_hidden_links: u64,
        pub idle_ns: i64,
        pub start_ns: i64,
        pub end_ns: i64,
        pub overlap_pct: f64,
    }
);
c_struct!(
    /// One unit of one step's backward, with its schedule.
    pub struct fsdpa_backward_unit {
        pub size: usize,
        pub name: [c_char; 256],
        pub name_len: usize,
        pub position: u32,
        pub prefetched: c_int,
        pub rs_hidden: c_int,
        pub idle_ns: i64,
        pub ag_start_ns: i64,
        pub ag_end_ns: i64,
        pub ag_stream: i64,
        pub compute_start_ns: i64,
        pub compute_end_ns: i64,
        pub compute_stream: i64,
        pub rs_start_ns: i64,
        pub rs_end_ns: i64,
        pub rs_stream: i64,
    }
);
c_struct!(
    /// Blocking calls of one API (`api` belongs to the list).
    pub struct fsdpa_sync_wait {
        pub size: usize,
        pub api: *const c_char,
        pub count: u64,
        pub total_ns: i64,
        pub max_ns: i64,
        pub in_steps: u64,
        pub threads: u64,
        pub gpu_idle_during_ns: i64,
        pub gpu_idle_after_ns: i64,
        pub idle_after_calls: u64,
        pub gpu_idle_ns: i64,
    }
);
c_struct!(
    /// One blocking call (its strings belong to the list).
    pub struct fsdpa_sync_call {
        pub size: usize,
        pub api: *const c_char,
        pub pid: i64,
        pub tid: i64,
        pub start_ns: i64,
        pub dur_ns: i64,
        pub step: i64,
        pub source: fsdpa_wait_source,
        pub device_wide: c_int,
        pub sync_kind: *const c_char,
        pub device: i64,
        pub stream: i64,
        pub waited_op: *const c_char,
        pub waited_op_stream: i64,
        pub waited_op_start_ns: i64,
        pub waited_op_end_ns: i64,
        pub gpu_idle_during_ns: i64,
        pub gpu_idle_after_ns: i64,
    }
);
c_struct!(
    /// Blocking calls of one step.
    pub struct fsdpa_sync_step {
        pub size: usize,
        pub index: i64,
        pub number: i64,
        pub step_dur_ns: i64,
        pub count: u64,
        pub total_ns: i64,
        pub max_ns: i64,
        pub worst_thread_ns: i64,
        pub worst_pid: i64,
        pub worst_tid: i64,
        pub share: f64,
        pub gpu_idle_ns: i64,
        pub flagged: c_int,
    }
);
c_struct!(
    /// Allocator activity and memory levels for a window.
    pub struct fsdpa_memory_summary {
        pub size: usize,
        pub malloc_calls: u64,
        pub free_calls: u64,
        pub malloc_ns: i64,
        pub free_ns: i64,
        pub malloc_bytes: i64,
        pub warmup_steps: i64,
        pub steady_steps: u64,
        pub steady_state_malloc_calls: u64,
        pub steady_state_free_calls: u64,
        pub gpu_idle_ns: i64,
        pub device: i64,
        pub memory_events: u64,
        pub oom_events: u64,
        pub allocated_is_relative: c_int,
        pub start_allocated_bytes: i64,
        pub end_allocated_bytes: i64,
        pub min_allocated_bytes: i64,
        pub peak_allocated_bytes: i64,
        pub peak_allocated_delta_bytes: i64,
        pub peak_reserved_bytes: i64,
        pub allocated_at_peak_reserved_bytes: i64,
        pub fragmentation: f64,
        pub mean_unallocated_share: f64,
    }
);
c_struct!(
    /// Memory levels of one device over a window.
    pub struct fsdpa_memory_device {
        pub size: usize,
        pub device_type: i64,
        pub device: i64,
        pub relative: c_int,
        pub primary: c_int,
        pub events: u64,
        pub oom_events: u64,
        pub peak_allocated_bytes: i64,
        pub peak_allocated_delta_bytes: i64,
        pub peak_reserved_bytes: i64,
        pub allocated_at_peak_reserved_bytes: i64,
        pub fragmentation: f64,
        pub mean_unallocated_share: f64,
    }
);
c_struct!(
    /// One bucket of the downsampled memory timeline.
    pub struct fsdpa_memory_point {
        pub size: usize,
        pub t0_ns: i64,
        pub t1_ns: i64,
        pub events: u64,
        pub allocated_min: i64,
        pub allocated_max: i64,
        pub allocated_last: i64,
        pub reserved_min: i64,
        pub reserved_max: i64,
        pub reserved_last: i64,
    }
);
c_struct!(
    /// Allocator activity and memory levels of one step.
    pub struct fsdpa_memory_step {
        pub size: usize,
        pub index: i64,
        pub number: i64,
        pub warmup: c_int,
        pub malloc_calls: u64,
        pub free_calls: u64,
        pub malloc_ns: i64,
        pub free_ns: i64,
        pub gpu_idle_ns: i64,
        pub start_allocated_bytes: i64,
        pub end_allocated_bytes: i64,
        pub min_allocated_bytes: i64,
        pub peak_allocated_bytes: i64,
        pub peak_reserved_bytes: i64,
        pub returns_to_baseline: c_int,
    }
);
c_struct!(
    /// Cross-rank analysis over the contexts of one job.
    pub struct fsdpa_crossrank {
        pub size: usize,
        pub ranks: u64,
        pub collectives: u64,
        pub unmatched: u64,
        pub unaligned: u64,
        pub unsynchronized: u64,
        pub reference_rank: i64,
        pub transfer_ns: i64,
        pub wait_ns: i64,
        pub end_spread_p50_ns: i64,
        pub end_spread_max_ns: i64,
        pub steps: u64,
        pub straggler_rank: i64,
        pub straggler_late_steps: u64,
        pub straggler_mean_delay_ns: i64,
        pub straggler_max_delay_ns: i64,
        pub straggler_lost_ns: i64,
    }
);
c_struct!(
    /// One rank's part of the cross-rank analysis.
    pub struct fsdpa_crossrank_rank {
        pub size: usize,
        pub rank: i64,
        pub clock_offset_ns: i64,
        pub collectives: u64,
        pub transfer_ns: i64,
        pub wait_ns: i64,
        pub last_count: u64,
        pub late_steps: u64,
        pub mean_delay_ns: i64,
        pub max_delay_ns: i64,
        pub lost_ns: i64,
    }
);
c_struct!(
    /// Options of the summary functions that have no context.
    pub struct fsdpa_summary_options {
        pub size: usize,
        pub allocator: *const fsdpa_allocator,
        pub max_memory_bytes: u64,
    }
);

/// `FSDPA_QUERY_INIT`: a whole-trace query (no selector bit set).
pub const FSDPA_QUERY_INIT: fsdpa_query = fsdpa_query {
    size: std::mem::size_of::<fsdpa_query>(),
    fields: 0,
    t0_ns: 0,
    t1_ns: 0,
    step: 0,
    device: 0,
    stream: 0,
};

#[cfg(feature = "experimental")]
c_struct!(
    /// Options of `fsdpa_annotate_file` (experimental).
    pub struct fsdpa_annotate_options {
        pub size: usize,
        pub gzip: c_int,
        pub level: c_int,
    }
);
#[cfg(feature = "experimental")]
c_struct!(
    /// Which GPU ops `fsdpa_kernel_list` tables (experimental).
    pub struct fsdpa_kernel_select {
        pub size: usize,
        pub fsdp_unit: i64,
        pub max_rows: u64,
    }
);
#[cfg(feature = "experimental")]
c_struct!(
    /// One row of the kernel table (experimental).
    pub struct fsdpa_kernel_stat {
        pub size: usize,
        pub name: *const c_char,
        pub short_name: *const c_char,
        pub kernel_class: *const c_char,
        pub family: *const c_char,
        pub count: u64,
        pub names: u64,
        pub total_ns: i64,
        pub mean_ns: i64,
        pub p50_ns: i64,
        pub min_ns: i64,
        pub max_ns: i64,
        pub share: f64,
    }
);
#[cfg(feature = "experimental")]
c_struct!(
    /// One row of the op table (experimental).
    pub struct fsdpa_op_stat {
        pub size: usize,
        pub name: *const c_char,
        pub gpu_op: *const c_char,
        pub category: *const c_char,
        pub input_dims: *const c_char,
        pub input_types: *const c_char,
        pub concrete_inputs: *const c_char,
        pub model: *const c_char,
        pub dtype: *const c_char,
        pub count: u64,
        pub gpu_ops: u64,
        pub names: u64,
        pub kernel_ns: i64,
        pub flops: i64,
        pub bytes: i64,
        pub tflops_per_s: f64,
        pub tb_per_s: f64,
        pub peak_share: f64,
    }
);
#[cfg(feature = "experimental")]
c_struct!(
    /// Busy-time efficiency of a window (experimental).
    pub struct fsdpa_efficiency {
        pub size: usize,
        pub step: i64,
        pub window_ns: i64,
        pub kernel_ns: i64,
        pub modelled_ns: i64,
        pub modelled_share: f64,
        pub gemm_ns: i64,
        pub attention_ns: i64,
        pub conv_ns: i64,
        pub elementwise_ns: i64,
        pub reduction_ns: i64,
        pub normalization_ns: i64,
        pub copy_ns: i64,
        pub communication_ns: i64,
        pub other_ns: i64,
        pub flops: i64,
        pub mfu: f64,
        pub device: i64,
    }
);
#[cfg(feature = "experimental")]
c_struct!(
    /// A device's dense peaks from the peak table (experimental).
    pub struct fsdpa_device_peak {
        pub size: usize,
        pub device: i64,
        pub model: [c_char; 32],
        pub fp64_tflops: f64,
        pub fp32_tflops: f64,
        pub tf32_tflops: f64,
        pub fp16_tflops: f64,
        pub bf16_tflops: f64,
        pub fp8_tflops: f64,
        pub hbm_tb_per_s: f64,
    }
);
#[cfg(feature = "experimental")]
c_struct!(
    /// Options of `fsdpa_diff` (experimental).
    pub struct fsdpa_diff_options {
        pub size: usize,
        pub format: fsdpa_format,
        pub fail_on_regression_ppm: i64,
        pub min_change_ppm: i64,
        pub width: c_int,
        pub color: c_int,
        pub allocator: *const fsdpa_allocator,
        pub max_memory_bytes: u64,
    }
);

/// (field name, offset, size, C type).
pub type FieldLayout = (&'static str, usize, usize, String);
/// (struct name, size, alignment, fields).
pub type StructLayout = (&'static str, usize, usize, Vec<FieldLayout>);

/// (enum name, size, (constant, value) pairs).
pub type EnumLayout = (&'static str, usize, &'static [(&'static str, c_int)]);

fn one<T: Layout>() -> StructLayout {
    (
        T::NAME,
        std::mem::size_of::<T>(),
        std::mem::align_of::<T>(),
        T::fields(),
    )
}

/// Layouts of every struct declared here (for the ABI test).
pub fn layouts() -> Vec<StructLayout> {
    #[allow(unused_mut)]
    let mut v = vec![
        one::<fsdpa_allocator>(),
        one::<fsdpa_options>(),
        one::<fsdpa_error>(),
        one::<fsdpa_event>(),
        one::<fsdpa_trace_info>(),
        one::<fsdpa_stats>(),
        one::<fsdpa_step>(),
        one::<fsdpa_stream_info>(),
        one::<fsdpa_query>(),
        one::<fsdpa_timeline>(),
        one::<fsdpa_report_options>(),
        one::<fsdpa_range>(),
        one::<fsdpa_finding>(),
        one::<fsdpa_param>(),
        one::<fsdpa_overlap>(),
        one::<fsdpa_launch_gaps>(),
        one::<fsdpa_launch_latency>(),
        one::<fsdpa_launch_queue>(),
        one::<fsdpa_comm_split>(),
        one::<fsdpa_fsdp_unit>(),
        one::<fsdpa_backward>(),
        one::<fsdpa_backward_step>(),
        one::<fsdpa_backward_unit>(),
        one::<fsdpa_sync_wait>(),
        one::<fsdpa_sync_call>(),
        one::<fsdpa_sync_step>(),
        one::<fsdpa_memory_summary>(),
        one::<fsdpa_memory_device>(),
        one::<fsdpa_memory_point>(),
        one::<fsdpa_memory_step>(),
        one::<fsdpa_crossrank>(),
        one::<fsdpa_crossrank_rank>(),
        one::<fsdpa_summary_options>(),
        one::<fsdpa_device_info>(),
    ];
    #[cfg(feature = "experimental")]
    v.extend([
        one::<fsdpa_annotate_options>(),
        one::<fsdpa_kernel_select>(),
        one::<fsdpa_kernel_stat>(),
        one::<fsdpa_op_stat>(),
        one::<fsdpa_efficiency>(),
        one::<fsdpa_device_peak>(),
        one::<fsdpa_diff_options>(),
    ]);
    v
}

/// The opaque handles declared here (they have no layout).
pub fn opaque() -> Vec<&'static str> {
    vec!["fsdpa_ctx", "fsdpa_list"]
}

/// The names of the experimental declarations this crate has (structs,
/// functions and inline wrappers), empty without the `experimental` feature.
pub fn experimental() -> Vec<&'static str> {
    #[allow(unused_mut)]
    let mut v: Vec<&'static str> = Vec::new();
    #[cfg(feature = "experimental")]
    {
        v.extend([
            fsdpa_annotate_options::NAME,
            fsdpa_kernel_select::NAME,
            fsdpa_kernel_stat::NAME,
            fsdpa_op_stat::NAME,
            fsdpa_efficiency::NAME,
            fsdpa_device_peak::NAME,
            fsdpa_diff_options::NAME,
        ]);
        v.extend(signatures_experimental().iter().map(|s| s.0));
        v.extend(inline_experimental().iter().map(|s| s.0));
    }
    v
}

macro_rules! enum_layout {
    ($t:ident) => {
        (stringify!($t), std::mem::size_of::<$t>(), $t::VALUES)
    };
}

/// (C name, enum size, values) of every enum declared here.
pub fn enums() -> Vec<EnumLayout> {
    vec![
        enum_layout!(fsdpa_status),
        enum_layout!(fsdpa_list_kind),
        enum_layout!(fsdpa_stream_role),
        // a tagged enum whose values go into a uint32_t: its size is the
        // C enum's (int), its constants are u32 here
        (
            "fsdpa_query_field",
            std::mem::size_of::<c_int>(),
            fsdpa_query_field::VALUES,
        ),
        enum_layout!(fsdpa_comm_split_by),
        enum_layout!(fsdpa_fsdp_phase),
        enum_layout!(fsdpa_backward_pattern),
        enum_layout!(fsdpa_wait_source),
        enum_layout!(fsdpa_format),
        enum_layout!(fsdpa_severity),
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
/// tokens, in a function named `$sigs`.
macro_rules! api {
    ($sigs:ident; $($(#[$m:meta])* pub fn $name:ident($($arg:ident: $ty:ty),* $(,)?) $(-> $ret:ty)?;)*) => {
        extern "C" {
            $($(#[$m])* pub fn $name($($arg: $ty),*) $(-> $ret)?;)*
        }
        fn $sigs() -> Vec<(&'static str, String, Vec<String>)> {
            vec![$((stringify!($name), ret_c!($($ret)?), vec![$(<$ty as CType>::c()),*])),*]
        }
    };
}

/// (name, C return type, C parameter types) of every declared function.
pub fn signatures() -> Vec<(&'static str, String, Vec<String>)> {
    #[allow(unused_mut)]
    let mut v = signatures_stable();
    #[cfg(feature = "experimental")]
    v.extend(signatures_experimental());
    v
}

api! { signatures_stable;
    /// Fill options with defaults: writes at most `size` bytes and sets `size` to it
    /// (the header's inline `fsdpa_options_init()` passes `sizeof`; so does [`fsdpa_options_init`]).
    pub fn fsdpa_options_init_sized(opts: *mut fsdpa_options, size: usize);
    /// `FSDPA_VERSION_HEX` of the loaded library.
    pub fn fsdpa_version() -> u32;
    /// Version string, e.g. "0.2.0" (static).
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
    /// Message of the last failed call on ctx ("" after a successful one).
    pub fn fsdpa_errmsg(ctx: *const fsdpa_ctx) -> *const c_char;
    /// Byte offset of the last input error, or `FSDPA_ABSENT`.
    pub fn fsdpa_error_offset(ctx: *const fsdpa_ctx) -> i64;
    /// Reset an error to "no error" and set its size: writes at most `size` bytes and sets `size` to it
    /// (the header's inline `fsdpa_error_init()` passes `sizeof`; so does [`fsdpa_error_init`]).
    pub fn fsdpa_error_init_sized(err: *mut fsdpa_error, size: usize);
    /// Release a buffer returned by the library.
    pub fn fsdpa_free(p: *mut c_void);
    /// What a list holds (0 for NULL).
    pub fn fsdpa_list_type(list: *const fsdpa_list) -> fsdpa_list_kind;
    /// Number of items (0 for NULL).
    pub fn fsdpa_list_count(list: *const fsdpa_list) -> usize;
    /// Copy item i into `item` (a struct of the list's kind, size set).
    pub fn fsdpa_list_get(list: *const fsdpa_list, i: usize, item: *mut c_void) -> fsdpa_status;
    /// Release a list and everything its items point to (NULL is a no-op).
    pub fn fsdpa_list_free(list: *mut fsdpa_list);
    /// Initialise an event (all absent): writes at most `size` bytes and sets `size` to it
    /// (the header's inline `fsdpa_event_init()` passes `sizeof`; so does [`fsdpa_event_init`]).
    pub fn fsdpa_event_init_sized(ev: *mut fsdpa_event, size: usize);
    /// Add one event.
    pub fn fsdpa_event_add(ctx: *mut fsdpa_ctx, ev: *const fsdpa_event) -> fsdpa_status;
    /// Initialise trace info (all absent): writes at most `size` bytes and sets `size` to it
    /// (the header's inline `fsdpa_trace_info_init()` passes `sizeof`; so does [`fsdpa_trace_info_init`]).
    pub fn fsdpa_trace_info_init_sized(info: *mut fsdpa_trace_info, size: usize);
    /// Set trace metadata.
    pub fn fsdpa_trace_info_set(ctx: *mut fsdpa_ctx, info: *const fsdpa_trace_info) -> fsdpa_status;
    /// Read trace metadata.
    pub fn fsdpa_trace_info_get(ctx: *mut fsdpa_ctx, info: *mut fsdpa_trace_info) -> fsdpa_status;
    /// Event counts.
    pub fn fsdpa_stats_get(ctx: *mut fsdpa_ctx, out: *mut fsdpa_stats) -> fsdpa_status;
    /// Initialise a device description (all absent): writes at most `size` bytes and sets `size` to it
    /// (the header's inline `fsdpa_device_info_init()` passes `sizeof`; so does [`fsdpa_device_info_init`]).
    pub fn fsdpa_device_info_init_sized(info: *mut fsdpa_device_info, size: usize);
    /// Describe a device (as a `deviceProperties` entry does).
    pub fn fsdpa_device_info_set(ctx: *mut fsdpa_ctx, info: *const fsdpa_device_info) -> fsdpa_status;
    /// The devices described so far: a list of `fsdpa_device_info`.
    pub fn fsdpa_device_list(ctx: *mut fsdpa_ctx, out: *mut *mut fsdpa_list) -> fsdpa_status;
    /// The steps: a list of `fsdpa_step`.
    pub fn fsdpa_step_list(ctx: *mut fsdpa_ctx, out: *mut *mut fsdpa_list) -> fsdpa_status;
    /// The GPU streams: a list of `fsdpa_stream_info`.
    pub fn fsdpa_stream_list(ctx: *mut fsdpa_ctx, out: *mut *mut fsdpa_list) -> fsdpa_status;
    /// Whole trace, all devices and streams (as `FSDPA_QUERY_INIT`): writes at most `size` bytes and sets `size` to it
    /// (the header's inline `fsdpa_query_init()` passes `sizeof`; so does [`fsdpa_query_init`]).
    pub fn fsdpa_query_init_sized(q: *mut fsdpa_query, size: usize);
    /// Timeline density over a window.
    pub fn fsdpa_timeline_query(ctx: *mut fsdpa_ctx, q: *const fsdpa_query, out: *mut fsdpa_timeline) -> fsdpa_status;
    /// Launch gaps, idle attribution and density over a window.
    pub fn fsdpa_launch_gaps_query(ctx: *mut fsdpa_ctx, q: *const fsdpa_query, out: *mut fsdpa_launch_gaps) -> fsdpa_status;
    /// Launch latency distribution over a window.
    pub fn fsdpa_launch_latency_query(ctx: *mut fsdpa_ctx, q: *const fsdpa_query, out: *mut fsdpa_launch_latency) -> fsdpa_status;
    /// Launch-queue depth statistics over a window.
    pub fn fsdpa_launch_queue_query(ctx: *mut fsdpa_ctx, q: *const fsdpa_query, out: *mut fsdpa_launch_queue) -> fsdpa_status;
    /// Communication / compute overlap (HTA's definition) over a window.
    pub fn fsdpa_overlap_query(ctx: *mut fsdpa_ctx, q: *const fsdpa_query, out: *mut fsdpa_overlap) -> fsdpa_status;
    /// The communication split: a list of `fsdpa_comm_split`.
    pub fn fsdpa_comm_split_list(ctx: *mut fsdpa_ctx, q: *const fsdpa_query, by: fsdpa_comm_split_by, out: *mut *mut fsdpa_list) -> fsdpa_status;
    /// FSDP version seen in the annotations: 2, 1, or 0 (none).
    pub fn fsdpa_fsdp_version(ctx: *const fsdpa_ctx) -> c_int;
    /// The FSDP units over the instances starting in the window: a list of `fsdpa_fsdp_unit`.
    pub fn fsdpa_fsdp_unit_list(ctx: *mut fsdpa_ctx, q: *const fsdpa_query, out: *mut *mut fsdpa_list) -> fsdpa_status;
    /// Static name of a backward pattern.
    pub fn fsdpa_backward_pattern_name(p: fsdpa_backward_pattern) -> *const c_char;
    /// Backward summary over the whole trace.
    pub fn fsdpa_backward_get(ctx: *mut fsdpa_ctx, out: *mut fsdpa_backward) -> fsdpa_status;
    /// The steps with backward units: a list of `fsdpa_backward_step`.
    pub fn fsdpa_backward_step_list(ctx: *mut fsdpa_ctx, out: *mut *mut fsdpa_list) -> fsdpa_status;
    /// The units of backward step `step_i`: a list of `fsdpa_backward_unit`.
    pub fn fsdpa_backward_unit_list(ctx: *mut fsdpa_ctx, step_i: usize, out: *mut *mut fsdpa_list) -> fsdpa_status;
    /// Blocking calls per API: a list of `fsdpa_sync_wait`.
    pub fn fsdpa_sync_wait_list(ctx: *mut fsdpa_ctx, q: *const fsdpa_query, out: *mut *mut fsdpa_list) -> fsdpa_status;
    /// The selected blocking calls: a list of `fsdpa_sync_call`.
    pub fn fsdpa_sync_call_list(ctx: *mut fsdpa_ctx, q: *const fsdpa_query, out: *mut *mut fsdpa_list) -> fsdpa_status;
    /// Blocking time per step: a list of `fsdpa_sync_step`.
    pub fn fsdpa_sync_step_list(ctx: *mut fsdpa_ctx, q: *const fsdpa_query, out: *mut *mut fsdpa_list) -> fsdpa_status;
    /// Allocator summary over a window.
    pub fn fsdpa_memory_query(ctx: *mut fsdpa_ctx, q: *const fsdpa_query, out: *mut fsdpa_memory_summary) -> fsdpa_status;
    /// Memory levels per device: a list of `fsdpa_memory_device`.
    pub fn fsdpa_memory_device_list(ctx: *mut fsdpa_ctx, q: *const fsdpa_query, out: *mut *mut fsdpa_list) -> fsdpa_status;
    /// Downsampled memory timeline of one device: a list of `fsdpa_memory_point`.
    pub fn fsdpa_memory_series_list(ctx: *mut fsdpa_ctx, q: *const fsdpa_query, device: i64, buckets: usize,
                                    out: *mut *mut fsdpa_list) -> fsdpa_status;
    /// Per-step allocator rows: a list of `fsdpa_memory_step`.
    pub fn fsdpa_memory_step_list(ctx: *mut fsdpa_ctx, q: *const fsdpa_query, out: *mut *mut fsdpa_list) -> fsdpa_status;
    /// Report defaults: writes at most `size` bytes and sets `size` to it
    /// (the header's inline `fsdpa_report_options_init()` passes `sizeof`; so does [`fsdpa_report_options_init`]).
    pub fn fsdpa_report_options_init_sized(opts: *mut fsdpa_report_options, size: usize);
    /// Write the report over n contexts.
    pub fn fsdpa_report(ctxs: *const *mut fsdpa_ctx, paths: *const *const c_char, n: usize,
                        opts: *const fsdpa_report_options, out: *mut *mut c_char,
                        out_len: *mut usize, err: *mut fsdpa_error) -> fsdpa_status;
    /// The text, HTML page or CSV table of a JSON report.
    pub fn fsdpa_report_render(json: *const c_char, len: usize, opts: *const fsdpa_report_options,
                               out: *mut *mut c_char, out_len: *mut usize, err: *mut fsdpa_error) -> fsdpa_status;
    /// Static name of a severity ("" if unknown).
    pub fn fsdpa_severity_name(s: fsdpa_severity) -> *const c_char;
    /// The findings of the report over n contexts: a list of `fsdpa_finding`.
    pub fn fsdpa_report_findings(ctxs: *const *mut fsdpa_ctx, n: usize, out: *mut *mut fsdpa_list,
                                 err: *mut fsdpa_error) -> fsdpa_status;
    /// Highest severity in a list of findings, or -1.
    pub fn fsdpa_findings_worst(findings: *const fsdpa_list) -> c_int;
    /// Every parameter: a list of `fsdpa_param`.
    pub fn fsdpa_param_list(out: *mut *mut fsdpa_list) -> fsdpa_status;
    /// Set a parameter by name.
    pub fn fsdpa_param_set(ctx: *mut fsdpa_ctx, key: *const c_char, value: *const c_char) -> fsdpa_status;
    /// The value a parameter has in ctx.
    pub fn fsdpa_param_get(ctx: *mut fsdpa_ctx, key: *const c_char, value: *mut i64) -> fsdpa_status;
    /// Cross-rank analysis over n contexts.
    pub fn fsdpa_crossrank_query(ctxs: *const *mut fsdpa_ctx, n: usize, out: *mut fsdpa_crossrank,
                                 err: *mut fsdpa_error) -> fsdpa_status;
    /// Every rank's part of the cross-rank analysis: a list of `fsdpa_crossrank_rank`.
    pub fn fsdpa_crossrank_rank_list(ctxs: *const *mut fsdpa_ctx, n: usize, out: *mut *mut fsdpa_list,
                                     err: *mut fsdpa_error) -> fsdpa_status;
    /// Summary defaults: writes at most `size` bytes and sets `size` to it
    /// (the header's inline `fsdpa_summary_options_init()` passes `sizeof`; so does [`fsdpa_summary_options_init`]).
    pub fn fsdpa_summary_options_init_sized(opts: *mut fsdpa_summary_options, size: usize);
    /// Write the summary (`fsdpa.summary/1`) of one context.
    pub fn fsdpa_summary_write(ctx: *mut fsdpa_ctx, path: *const c_char, out: *mut *mut c_char, out_len: *mut usize) -> fsdpa_status;
    /// Merge n summaries.
    pub fn fsdpa_summary_merge(sums: *const *const c_char, lens: *const usize, n: usize, opts: *const fsdpa_summary_options,
                               out: *mut *mut c_char, out_len: *mut usize, err: *mut fsdpa_error) -> fsdpa_status;
    /// The JSON report of a (merged) summary.
    pub fn fsdpa_summary_report(sum: *const c_char, len: usize, opts: *const fsdpa_summary_options,
                                ropts: *const fsdpa_report_options, out: *mut *mut c_char, out_len: *mut usize,
                                err: *mut fsdpa_error) -> fsdpa_status;
    /// The findings of the report of a (merged) summary: a list of `fsdpa_finding`.
    pub fn fsdpa_summary_findings(sum: *const c_char, len: usize, opts: *const fsdpa_summary_options,
                                  out: *mut *mut fsdpa_list, err: *mut fsdpa_error) -> fsdpa_status;
}

#[cfg(feature = "experimental")]
api! { signatures_experimental;
    /// Annotate defaults (experimental): writes at most `size` bytes and sets `size` to it
    /// (the header's inline `fsdpa_annotate_options_init()` passes `sizeof`; so does [`fsdpa_annotate_options_init`]).
    pub fn fsdpa_annotate_options_init_sized(opts: *mut fsdpa_annotate_options, size: usize);
    /// The events `fsdpa_annotate_file` adds to trace i, as a JSON array (experimental).
    pub fn fsdpa_annotate_events(ctxs: *const *mut fsdpa_ctx, n: usize, i: usize, out: *mut *mut c_char,
                                 out_len: *mut usize, err: *mut fsdpa_error) -> fsdpa_status;
    /// Write a copy of trace i with the findings added as events (experimental).
    pub fn fsdpa_annotate_file(ctxs: *const *mut fsdpa_ctx, n: usize, i: usize, in_path: *const c_char,
                               out_path: *const c_char, opts: *const fsdpa_annotate_options,
                               err: *mut fsdpa_error) -> fsdpa_status;
    /// Kernel-table defaults (experimental): writes at most `size` bytes and sets `size` to it
    /// (the header's inline `fsdpa_kernel_select_init()` passes `sizeof`; so does [`fsdpa_kernel_select_init`]).
    pub fn fsdpa_kernel_select_init_sized(sel: *mut fsdpa_kernel_select, size: usize);
    /// The kernel table of a window: a list of `fsdpa_kernel_stat` (experimental).
    pub fn fsdpa_kernel_list(ctx: *mut fsdpa_ctx, q: *const fsdpa_query, sel: *const fsdpa_kernel_select,
                             out: *mut *mut fsdpa_list) -> fsdpa_status;
    /// The op table of a window: a list of `fsdpa_op_stat` (experimental).
    pub fn fsdpa_op_list(ctx: *mut fsdpa_ctx, q: *const fsdpa_query, max_rows: u64, out: *mut *mut fsdpa_list) -> fsdpa_status;
    /// Busy-time efficiency of a window (experimental).
    pub fn fsdpa_efficiency_query(ctx: *mut fsdpa_ctx, q: *const fsdpa_query, out: *mut fsdpa_efficiency) -> fsdpa_status;
    /// Efficiency per ProfilerStep: a list of `fsdpa_efficiency` (experimental).
    pub fn fsdpa_efficiency_step_list(ctx: *mut fsdpa_ctx, q: *const fsdpa_query, out: *mut *mut fsdpa_list) -> fsdpa_status;
    /// A device's row of the peak table (experimental).
    pub fn fsdpa_device_peak_get(ctx: *mut fsdpa_ctx, device: i64, out: *mut fsdpa_device_peak) -> fsdpa_status;
    /// Diff defaults (experimental): writes at most `size` bytes and sets `size` to it
    /// (the header's inline `fsdpa_diff_options_init()` passes `sizeof`; so does [`fsdpa_diff_options_init`]).
    pub fn fsdpa_diff_options_init_sized(opts: *mut fsdpa_diff_options, size: usize);
    /// Compare two runs, each a JSON report or a summary (experimental).
    pub fn fsdpa_diff(base: *const c_char, base_len: usize, next: *const c_char, next_len: usize,
                      opts: *const fsdpa_diff_options, out: *mut *mut c_char, out_len: *mut usize,
                      regressed: *mut c_int, err: *mut fsdpa_error) -> fsdpa_status;
}

/// (name, exported function it calls, C return type, C parameter types,
/// the struct whose size it passes) of one of the header's `static inline`
/// wrappers.
pub type InlineWrapper = (&'static str, &'static str, String, Vec<String>, &'static str);

/// The header's `*_init` helpers are `static inline`, compiled into each C
/// caller, and not symbols of the library: each is a Rust function here
/// that does what the C one does, `*_init_sized(p, sizeof *p)`, with
/// `size_of` of this crate's struct, so a library whose struct grew never
/// writes past it.  What each mirrors is recorded in `$list`.
macro_rules! inline_init {
    ($list:ident; $($(#[$m:meta])* pub fn $name:ident($arg:ident: *mut $t:ident) => $sized:ident;)*) => {
        $(
            $(#[$m])*
            ///
            /// # Safety
            /// The pointer must be valid for writes of the struct's size.
            #[inline]
            pub unsafe fn $name($arg: *mut $t) {
                $sized($arg, std::mem::size_of::<$t>())
            }
        )*
        fn $list() -> Vec<InlineWrapper> {
            vec![$((stringify!($name), stringify!($sized), String::from("void"),
                    vec![<*mut $t as CType>::c()], stringify!($t))),*]
        }
    };
}

inline_init! { inline_stable;
    /// Fill options with defaults (`fsdpa_options_init`, inline in C).
    pub fn fsdpa_options_init(opts: *mut fsdpa_options) => fsdpa_options_init_sized;
    /// Reset an error to "no error" and set its size (`fsdpa_error_init`, inline in C).
    pub fn fsdpa_error_init(err: *mut fsdpa_error) => fsdpa_error_init_sized;
    /// Initialise an event, all absent (`fsdpa_event_init`, inline in C).
    pub fn fsdpa_event_init(ev: *mut fsdpa_event) => fsdpa_event_init_sized;
    /// Initialise trace info, all absent (`fsdpa_trace_info_init`, inline in C).
    pub fn fsdpa_trace_info_init(info: *mut fsdpa_trace_info) => fsdpa_trace_info_init_sized;
    /// Whole trace, as `FSDPA_QUERY_INIT` (`fsdpa_query_init`, inline in C).
    pub fn fsdpa_query_init(q: *mut fsdpa_query) => fsdpa_query_init_sized;
    /// Report defaults (`fsdpa_report_options_init`, inline in C).
    pub fn fsdpa_report_options_init(opts: *mut fsdpa_report_options) => fsdpa_report_options_init_sized;
    /// Summary defaults (`fsdpa_summary_options_init`, inline in C).
    pub fn fsdpa_summary_options_init(opts: *mut fsdpa_summary_options) => fsdpa_summary_options_init_sized;
    /// A device description, all absent (`fsdpa_device_info_init`, inline in C).
    pub fn fsdpa_device_info_init(info: *mut fsdpa_device_info) => fsdpa_device_info_init_sized;
}

#[cfg(feature = "experimental")]
inline_init! { inline_experimental;
    /// Annotate defaults (`fsdpa_annotate_options_init`, inline in C; experimental).
    pub fn fsdpa_annotate_options_init(opts: *mut fsdpa_annotate_options) => fsdpa_annotate_options_init_sized;
    /// Kernel-table defaults (`fsdpa_kernel_select_init`, inline in C; experimental).
    pub fn fsdpa_kernel_select_init(sel: *mut fsdpa_kernel_select) => fsdpa_kernel_select_init_sized;
    /// Diff defaults (`fsdpa_diff_options_init`, inline in C; experimental).
    pub fn fsdpa_diff_options_init(opts: *mut fsdpa_diff_options) => fsdpa_diff_options_init_sized;
}

/// Every `static inline` wrapper of the header mirrored here (for the ABI
/// test; experimental ones with the feature).
pub fn inline_wrappers() -> Vec<InlineWrapper> {
    #[allow(unused_mut)]
    let mut v = inline_stable();
    #[cfg(feature = "experimental")]
    v.extend(inline_experimental());
    v
}
