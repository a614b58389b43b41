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
        impl $name {
            /// All fields zero (integers 0, null pointers, no callbacks) and
            /// `size` = `sizeof`: a blank caller-owned struct, e.g. the output
            /// buffer of a query.
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
    /// `fsdpa_stream_role`.
    fsdpa_stream_role {
    FSDPA_ROLE_COMPUTE = 0, FSDPA_ROLE_COMMUNICATION = 1, FSDPA_ROLE_MEMORY = 2,
    FSDPA_ROLE_MIXED = 3,
});
c_enum!(
    /// `fsdpa_format`.
    fsdpa_format { FSDPA_FORMAT_JSON = 0, FSDPA_FORMAT_TEXT = 1, FSDPA_FORMAT_HTML = 2 });
c_enum!(
    /// `fsdpa_comm_split_by`: how `fsdpa_query_comm_split` groups communication.
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
    /// Blocking calls of one API (`api` is owned by the context).
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
    /// One blocking call (strings are owned by the context).
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
        pub errbuf: *mut c_char,
        pub errbuf_len: usize,
    }
);
c_struct!(
    /// Options of `fsdpa_annotate_file`.
    pub struct fsdpa_annotate_options {
        pub size: usize,
        pub gzip: c_int,
        pub level: c_int,
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
        one::<fsdpa_annotate_options>(),
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
        (
            "fsdpa_comm_split_by",
            std::mem::size_of::<fsdpa_comm_split_by>(),
            fsdpa_comm_split_by::VALUES,
        ),
        (
            "fsdpa_fsdp_phase",
            std::mem::size_of::<fsdpa_fsdp_phase>(),
            fsdpa_fsdp_phase::VALUES,
        ),
        (
            "fsdpa_backward_pattern",
            std::mem::size_of::<fsdpa_backward_pattern>(),
            fsdpa_backward_pattern::VALUES,
        ),
        (
            "fsdpa_wait_source",
            std::mem::size_of::<fsdpa_wait_source>(),
            fsdpa_wait_source::VALUES,
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
    /// Launch gaps, idle attribution and density over a window.
    pub fn fsdpa_query_launch_gaps(ctx: *mut fsdpa_ctx, q: *const fsdpa_query, out: *mut fsdpa_launch_gaps) -> fsdpa_status;
    /// Launch latency distribution over a window.
    pub fn fsdpa_query_launch_latency(ctx: *mut fsdpa_ctx, q: *const fsdpa_query, out: *mut fsdpa_launch_latency) -> fsdpa_status;
    /// Launch-queue depth statistics over a window.
    pub fn fsdpa_query_launch_queue(ctx: *mut fsdpa_ctx, q: *const fsdpa_query, out: *mut fsdpa_launch_queue) -> fsdpa_status;
    /// Number of entries of the communication split.
    pub fn fsdpa_comm_split_count(ctx: *mut fsdpa_ctx, q: *const fsdpa_query, by: fsdpa_comm_split_by, n: *mut usize) -> fsdpa_status;
    /// Entry i of the communication split.
    pub fn fsdpa_query_comm_split(ctx: *mut fsdpa_ctx, q: *const fsdpa_query, by: fsdpa_comm_split_by, i: usize, out: *mut fsdpa_comm_split) -> fsdpa_status;
    /// Number of (unit, phase) entries.
    pub fn fsdpa_fsdp_unit_count(ctx: *mut fsdpa_ctx) -> usize;
    /// Entry i over the whole trace.
    pub fn fsdpa_get_fsdp_unit(ctx: *mut fsdpa_ctx, i: usize, out: *mut fsdpa_fsdp_unit) -> fsdpa_status;
    /// Entry i over the instances starting inside the query window.
    pub fn fsdpa_query_fsdp_unit(ctx: *mut fsdpa_ctx, q: *const fsdpa_query, i: usize, out: *mut fsdpa_fsdp_unit) -> fsdpa_status;
    /// Static name of a backward pattern.
    pub fn fsdpa_backward_pattern_name(p: fsdpa_backward_pattern) -> *const c_char;
    /// Backward summary over the whole trace.
    pub fn fsdpa_query_backward(ctx: *mut fsdpa_ctx, out: *mut fsdpa_backward) -> fsdpa_status;
    /// Number of steps with backward units.
    pub fn fsdpa_backward_step_count(ctx: *mut fsdpa_ctx) -> usize;
    /// Backward step i.
    pub fn fsdpa_get_backward_step(ctx: *mut fsdpa_ctx, i: usize, out: *mut fsdpa_backward_step) -> fsdpa_status;
    /// Number of units in backward step i.
    pub fn fsdpa_backward_unit_count(ctx: *mut fsdpa_ctx, step_i: usize, n: *mut usize) -> fsdpa_status;
    /// Unit j of backward step i.
    pub fn fsdpa_get_backward_unit(ctx: *mut fsdpa_ctx, step_i: usize, j: usize, out: *mut fsdpa_backward_unit) -> fsdpa_status;
    /// Blocking calls per API (array protocol).
    pub fn fsdpa_query_sync_waits(ctx: *mut fsdpa_ctx, q: *const fsdpa_query, out: *mut fsdpa_sync_wait, inout_n: *mut usize) -> fsdpa_status;
    /// The selected blocking calls (array protocol).
    pub fn fsdpa_query_sync_calls(ctx: *mut fsdpa_ctx, q: *const fsdpa_query, out: *mut fsdpa_sync_call, inout_n: *mut usize) -> fsdpa_status;
    /// Blocking time per step (array protocol).
    pub fn fsdpa_query_sync_steps(ctx: *mut fsdpa_ctx, q: *const fsdpa_query, out: *mut fsdpa_sync_step, inout_n: *mut usize) -> fsdpa_status;
    /// Allocator summary over a window.
    pub fn fsdpa_query_memory(ctx: *mut fsdpa_ctx, q: *const fsdpa_query, out: *mut fsdpa_memory_summary) -> fsdpa_status;
    /// Memory levels per device (array protocol).
    pub fn fsdpa_query_memory_devices(ctx: *mut fsdpa_ctx, q: *const fsdpa_query, out: *mut fsdpa_memory_device, inout_n: *mut usize) -> fsdpa_status;
    /// Downsampled memory timeline of one device (array protocol).
    pub fn fsdpa_query_memory_series(ctx: *mut fsdpa_ctx, q: *const fsdpa_query, device: i64, buckets: usize,
                                     out: *mut fsdpa_memory_point, inout_n: *mut usize) -> fsdpa_status;
    /// Per-step allocator rows (array protocol).
    pub fn fsdpa_query_memory_steps(ctx: *mut fsdpa_ctx, q: *const fsdpa_query, out: *mut fsdpa_memory_step, inout_n: *mut usize) -> fsdpa_status;
    /// Cross-rank analysis over n contexts.
    pub fn fsdpa_query_crossrank(ctxs: *const *mut fsdpa_ctx, n: usize, out: *mut fsdpa_crossrank) -> fsdpa_status;
    /// The part of rank index i of the cross-rank analysis.
    pub fn fsdpa_query_crossrank_rank(ctxs: *const *mut fsdpa_ctx, n: usize, i: usize, out: *mut fsdpa_crossrank_rank) -> fsdpa_status;
    /// Summary defaults.
    pub fn fsdpa_summary_options_init(opts: *mut fsdpa_summary_options);
    /// Write the summary (`fsdpa.summary/1`) of one context.
    pub fn fsdpa_summary_write(ctx: *mut fsdpa_ctx, path: *const c_char, out: *mut *mut c_char, out_len: *mut usize) -> fsdpa_status;
    /// Merge n summaries.
    pub fn fsdpa_summary_merge(sums: *const *const c_char, lens: *const usize, n: usize, opts: *const fsdpa_summary_options,
                               out: *mut *mut c_char, out_len: *mut usize) -> fsdpa_status;
    /// The JSON report of a (merged) summary.  The header spells the fourth
    /// parameter `const struct fsdpa_report_options *` (the same type).
    pub fn fsdpa_summary_report(sum: *const c_char, len: usize, opts: *const fsdpa_summary_options,
                                ropts: *const fsdpa_report_options, out: *mut *mut c_char, out_len: *mut usize) -> fsdpa_status;
    /// Annotate defaults.
    pub fn fsdpa_annotate_options_init(opts: *mut fsdpa_annotate_options);
    /// The events `fsdpa_annotate_file` adds to trace i, as a JSON array.
    pub fn fsdpa_annotate_events(ctxs: *const *mut fsdpa_ctx, n: usize, i: usize, out: *mut *mut c_char, out_len: *mut usize) -> fsdpa_status;
    /// Write a copy of trace i with the findings added as events.
    pub fn fsdpa_annotate_file(ctxs: *const *mut fsdpa_ctx, n: usize, i: usize, in_path: *const c_char,
                               out_path: *const c_char, opts: *const fsdpa_annotate_options) -> fsdpa_status;
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
