//! The analysis queries of one analyzer: launch gaps / latency / queue,
//! communication split, FSDP units, backward schedule, blocking calls and
//! device memory.  Every number is defined in `include/fsdpa/fsdpa.h` (the
//! group of each query); values the header documents as absent
//! (`FSDPA_ABSENT`, a negative ratio, -1 for "not evaluated", a NULL string)
//! are `None`, never 0.
use crate::error::{check, cstr, Result};
use crate::list::{list_item, ListItem};
use crate::{opt, sys, Analyzer, Query};
use std::ffi::CStr;
use std::fmt;
use std::os::raw::{c_char, c_int};

/// Number of histogram edges (`FSDPA_GAP_EDGES`: 1 µs … 1 s in 1-2-5 steps).
pub const GAP_EDGES: usize = sys::FSDPA_GAP_EDGES;
/// Number of histogram bins (`FSDPA_GAP_BINS`): below the first edge,
/// between edges, at or above the last.
pub const GAP_BINS: usize = sys::FSDPA_GAP_BINS;

/// A ratio the header documents as "-1 if absent" (any negative value).
fn ratio(v: f64) -> Option<f64> {
    (v >= 0.0).then_some(v)
}
/// A flag documented as 1 / 0 / -1 (not evaluated or unknown).
fn tri(v: c_int) -> Option<bool> {
    match v {
        1 => Some(true),
        0 => Some(false),
        _ => None,
    }
}
/// A fixed `char[N]` field, up to its NUL.
fn chars(a: &[c_char]) -> String {
    let bytes: Vec<u8> = a
        .iter()
        .take_while(|&&c| c != 0)
        .map(|&c| c as u8)
        .collect();
    String::from_utf8_lossy(&bytes).into_owned()
}
/// A string of a list item, copied (`None` for NULL).
unsafe fn opt_cstr(p: *const c_char) -> Option<String> {
    (!p.is_null()).then(|| cstr(p))
}

// ---------------------------------------------------------------- enums

/// How [`Analyzer::comm_split`] groups communication kernels.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SplitBy {
    /// by collective type, in the order AllGather, ReduceScatter, AllReduce,
    /// Broadcast, Reduce, AllToAll, SendRecv, Send, Recv, Barrier, Generic, Other
    Collective,
    /// by `Process Group Name`, sorted by name
    ProcessGroup,
}

impl SplitBy {
    fn raw(self) -> sys::fsdpa_comm_split_by {
        match self {
            SplitBy::Collective => sys::FSDPA_SPLIT_COLLECTIVE,
            SplitBy::ProcessGroup => sys::FSDPA_SPLIT_PROCESS_GROUP,
        }
    }
}

/// Forward or backward pass of an FSDP unit.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Phase {
    /// forward pass
    Forward,
    /// backward pass
    Backward,
    /// a value this binding does not know
    Other(i32),
}

impl Phase {
    fn from_raw(p: sys::fsdpa_fsdp_phase) -> Phase {
        match p {
            sys::FSDPA_PHASE_FORWARD => Phase::Forward,
            sys::FSDPA_PHASE_BACKWARD => Phase::Backward,
            other => Phase::Other(other.0),
        }
    }
    /// "forward" / "backward", as the JSON report writes it.
    pub fn as_str(self) -> &'static str {
        match self {
            Phase::Forward => "forward",
            Phase::Backward => "backward",
            Phase::Other(_) => "unknown",
        }
    }
}

/// Backward schedule pattern (see the backward group of fsdpa.h).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BackwardPattern {
    /// not enough units to tell
    Unknown,
    /// every unit's all-gather was prefetched under the previous unit's compute
    Zigzag,
    /// some all-gathers start only after the previous unit finished
    NoPrefetch,
    /// no communication runs beside compute at all
    Serialized,
    /// a value this binding does not know
    Other(i32),
}

impl BackwardPattern {
    fn from_raw(p: sys::fsdpa_backward_pattern) -> BackwardPattern {
        match p {
            sys::FSDPA_BWD_UNKNOWN => BackwardPattern::Unknown,
            sys::FSDPA_BWD_ZIGZAG => BackwardPattern::Zigzag,
            sys::FSDPA_BWD_NO_PREFETCH => BackwardPattern::NoPrefetch,
            sys::FSDPA_BWD_SERIALIZED => BackwardPattern::Serialized,
            other => BackwardPattern::Other(other.0),
        }
    }
    /// The C value.
    pub fn raw(self) -> sys::fsdpa_backward_pattern {
        match self {
            BackwardPattern::Unknown => sys::FSDPA_BWD_UNKNOWN,
            BackwardPattern::Zigzag => sys::FSDPA_BWD_ZIGZAG,
            BackwardPattern::NoPrefetch => sys::FSDPA_BWD_NO_PREFETCH,
            BackwardPattern::Serialized => sys::FSDPA_BWD_SERIALIZED,
            BackwardPattern::Other(v) => sys::fsdpa_backward_pattern(v),
        }
    }
    /// The library's name (`fsdpa_backward_pattern_name()`): "unknown",
    /// "zigzag", "no_prefetch", "serialized", as in the JSON report.
    pub fn name(self) -> &'static str {
        // SAFETY: the function returns a static NUL-terminated string (or NULL).
        let p = unsafe { sys::fsdpa_backward_pattern_name(self.raw()) };
        if p.is_null() {
            return "";
        }
        unsafe { CStr::from_ptr(p) }.to_str().unwrap_or("")
    }
}

impl fmt::Display for BackwardPattern {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// How the waited-for GPU work of a blocking call was found.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum WaitSource {
    /// nothing found
    Unknown,
    /// from the call's `cuda_sync` event
    CudaSync,
    /// the call's own GPU op (a synchronous copy)
    OwnOp,
    /// inferred from the thread's last launch
    Inferred,
    /// a value this binding does not know
    Other(i32),
}

impl WaitSource {
    fn from_raw(s: sys::fsdpa_wait_source) -> WaitSource {
        match s {
            sys::FSDPA_WAIT_UNKNOWN => WaitSource::Unknown,
            sys::FSDPA_WAIT_CUDA_SYNC => WaitSource::CudaSync,
            sys::FSDPA_WAIT_OWN_OP => WaitSource::OwnOp,
            sys::FSDPA_WAIT_INFERRED => WaitSource::Inferred,
            other => WaitSource::Other(other.0),
        }
    }
    /// "unknown", "cuda_sync", "own_op", "inferred", as the JSON report writes it.
    pub fn as_str(self) -> &'static str {
        match self {
            WaitSource::CudaSync => "cuda_sync",
            WaitSource::OwnOp => "own_op",
            WaitSource::Inferred => "inferred",
            WaitSource::Unknown | WaitSource::Other(_) => "unknown",
        }
    }
}

// ---------------------------------------------------------------- results

/// Gaps between consecutive GPU ops and their idle attribution
/// (`fsdpa_launch_gaps`).  Per-stream fields are sums over the selected
/// streams; `gpu_*` and the timeline fields are over their busy union.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LaunchGaps {
    /// `launch.kernel_wait_ns` used for the categories
    pub kernel_wait_threshold_ns: i64,
    /// `launch.small_gap_ns` used for `small_launch_*`
    pub small_gap_threshold_ns: i64,
    /// selected streams that have GPU ops (anywhere in the trace)
    pub streams: u64,
    /// stream gaps intersecting the window, all selected streams
    pub gaps: u64,
    /// Σ |gap ∩ window| = host_wait_ns + kernel_wait_ns + other_ns
    pub idle_ns: i64,
    /// idle in host-wait gaps (clipped to the window)
    pub host_wait_ns: i64,
    /// idle in kernel-wait gaps (clipped)
    pub kernel_wait_ns: i64,
    /// idle in other gaps (clipped)
    pub other_ns: i64,
    /// number of host-wait gaps
    pub host_wait_gaps: u64,
    /// number of kernel-wait gaps
    pub kernel_wait_gaps: u64,
    /// number of other gaps
    pub other_gaps: u64,
    /// gaps whose closing ops have no launch call
    pub unlinked_gaps: u64,
    /// their idle (clipped)
    pub unlinked_ns: i64,
    /// launch-bound gaps no longer than `small_gap_threshold_ns`
    pub small_launch_gaps: u64,
    /// their idle (clipped)
    pub small_launch_ns: i64,
    /// median full gap length; `None` without gaps
    pub p50_ns: Option<i64>,
    /// 90th percentile of full gap lengths; `None` without gaps
    pub p90_ns: Option<i64>,
    /// 99th percentile of full gap lengths; `None` without gaps
    pub p99_ns: Option<i64>,
    /// longest full gap; `None` without gaps
    pub max_ns: Option<i64>,
    /// histogram edges (fixed: 1 µs … 1 s)
    pub edges_ns: [i64; GAP_EDGES],
    /// gaps per bin of full gap length
    pub counts: [u64; GAP_BINS],
    /// idle (clipped) of the gaps of each bin
    pub bin_idle_ns: [i64; GAP_BINS],
    /// as [`Analyzer::timeline`]; `None` if no activity
    pub span_ns: Option<i64>,
    /// |busy union of the selected streams ∩ window|
    pub busy_ns: i64,
    /// busy_ns / span_ns; `None` if the span is absent or 0
    pub density: Option<f64>,
    /// |[first start, last end) of the selected activity ∩ window|; `None` if no activity
    pub gpu_window_ns: Option<i64>,
    /// busy_ns / gpu_window_ns; `None` if absent or 0
    pub utilization: Option<f64>,
    /// GPU gaps (busy union of the selected streams) intersecting the window
    pub gpu_gaps: u64,
    /// Σ |GPU gap ∩ window| = gpu_window_ns − busy_ns
    pub gpu_idle_ns: i64,
    /// of which host wait
    pub gpu_host_wait_ns: i64,
    /// of which kernel wait
    pub gpu_kernel_wait_ns: i64,
    /// of which other
    pub gpu_other_ns: i64,
    /// idle (clipped) in launch-bound GPU gaps no longer than `small_gap_threshold_ns`
    pub gpu_small_launch_ns: i64,
}

/// Launch latency of the GPU ops starting in the window
/// (`fsdpa_launch_latency`): op start − end of its launch call, clipped at 0.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LaunchLatency {
    /// GPU ops of the selected streams starting in the window
    pub ops: u64,
    /// of which have a launch call (the latency sample)
    pub linked: u64,
    /// smallest latency; `None` if `linked == 0` (same for the next five)
    pub min_ns: Option<i64>,
    /// median latency (nearest rank)
    pub p50_ns: Option<i64>,
    /// 90th percentile
    pub p90_ns: Option<i64>,
    /// 99th percentile
    pub p99_ns: Option<i64>,
    /// largest latency
    pub max_ns: Option<i64>,
    /// Σ latency (mean = total_ns / linked)
    pub total_ns: Option<i64>,
    /// histogram edges (fixed)
    pub edges_ns: [i64; GAP_EDGES],
    /// latencies per bin (0 falls in the first bin)
    pub counts: [u64; GAP_BINS],
    /// kernels among `ops`
    pub kernels: u64,
    /// kernels with a launch call
    pub kernels_linked: u64,
    /// linked kernels whose duration is below their launch call's duration
    pub kernels_shorter_than_launch: u64,
    /// kernels_shorter_than_launch / kernels_linked; `None` if none linked
    pub short_kernel_share: Option<f64>,
}

/// Launch-queue depth over the range of the query (`fsdpa_launch_queue`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LaunchQueue {
    /// linked ops whose queued time meets the range
    pub ops: u64,
    /// length of the measured range; `None` if no GPU activity is selected
    pub range_ns: Option<i64>,
    /// largest depth held for a positive time; `None` if no range
    pub max_depth: Option<i64>,
    /// ∫ depth dt / range_ns; `None` if no range
    pub mean_depth: Option<f64>,
    /// time in the range with depth 0
    pub depth0_ns: i64,
    /// time with depth 0 while no selected stream runs anything
    pub starved_ns: i64,
}

/// The communication of one collective type or process group
/// (`fsdpa_comm_split`).
#[derive(Clone, Debug, PartialEq)]
pub struct CommSplit {
    /// "AllGather", ... or the process-group name ("" = not in the trace);
    /// the library truncates it to 63 bytes
    pub name: String,
    /// its comm kernels overlapping the window
    pub count: u64,
    /// |union of its kernels ∩ window|
    pub comm_ns: i64,
    /// |that union ∩ P| (P: all selected compute kernels)
    pub overlap_ns: i64,
    /// comm_ns − overlap_ns
    pub exposed_ns: i64,
    /// Σ algorithm bytes of its kernels that carry sizes; `None` if none does
    pub bytes: Option<i64>,
    /// Σ full durations of those kernels; `None` if none
    pub timed_ns: Option<i64>,
    /// bytes / timed_ns in GB/s; `None` if absent
    pub algbw_gbps: Option<f64>,
    /// Σ (bytes × bus factor) / timed_ns in GB/s; `None` if absent or the group size is unknown
    pub busbw_gbps: Option<f64>,
}

/// One FSDP unit in one phase, summed over its instances (`fsdpa_fsdp_unit`).
#[derive(Clone, Debug, PartialEq)]
pub struct FsdpUnit {
    /// unit name (the library truncates it to 255 bytes: compare with `name_len`)
    pub name: String,
    /// full length of the name in bytes
    pub name_len: usize,
    /// forward or backward
    pub phase: Phase,
    /// instances counted (steps in which the unit ran this phase, in the window)
    pub instances: u64,
    /// T_comm: Σ over instances of |union of the instance's comm kernels|
    pub comm_ns: i64,
    /// T_compute: Σ over instances of |union of its compute kernels|
    pub compute_ns: i64,
    /// T_exposed = max(0, T_comm − T_compute) on these sums
    pub exposed_ns: i64,
    /// Σ over instances of max(0, comm − compute)
    pub exposed_sum_ns: i64,
    /// Σ over instances of |comm union − every compute kernel of the trace|
    pub exposed_measured_ns: i64,
    /// Σ over instances of |union of its AllGather kernels|
    pub allgather_ns: i64,
    /// Σ over instances of |union of its ReduceScatter kernels|
    pub reducescatter_ns: i64,
    /// its comm kernels
    pub comm_kernels: u64,
    /// its compute kernels
    pub compute_kernels: u64,
}

/// Backward schedule over the whole trace (`fsdpa_backward`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Backward {
    /// the pattern most steps show (ties go to the worse)
    pub pattern: BackwardPattern,
    /// steps with at least one backward unit
    pub steps: u64,
    /// distinct units seen in backward
    pub units: u64,
    /// units whose prefetch link held in every step where it was evaluated
    pub prefetched_units: u64,
    /// prefetch links evaluated, all steps
    pub links: u64,
    /// of which broken
    pub broken_links: u64,
    /// Σ idle of the broken links
    pub idle_ns: i64,
}

/// Backward schedule of one step (`fsdpa_backward_step`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BackwardStep {
    /// ProfilerStep number; `None` for units before the first step or without steps
    pub step: Option<i64>,
    /// the step's pattern
    pub pattern: BackwardPattern,
    /// backward units in the step
    pub units: u64,
    /// prefetch links evaluated
    pub links: u64,
    /// of which held
    pub prefetched_links: u64,
    /// rs_hidden links that held
    pub rs_hidden_links: u64,
    /// Σ idle of its broken links
    pub idle_ns: i64,
    /// first start of any kernel of its backward units (absolute)
    pub start_ns: i64,
    /// last end of any kernel of its backward units (absolute)
    pub end_ns: i64,
    /// 100·|C ∩ P| / |C| over the CPU step range; `None` without communication
    pub overlap_pct: Option<f64>,
}

/// One unit of one step's backward (`fsdpa_backward_unit`).  Times are
/// absolute; a missing set (no AG / compute / RS kernel) has `None` start,
/// end and stream.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BackwardUnit {
    /// unit name (truncated to 255 bytes: compare with `name_len`)
    pub name: String,
    /// full length of the name in bytes
    pub name_len: usize,
    /// 0 = first unit in backward order
    pub position: u32,
    /// its AG overlapped the previous unit's compute (`Some(false)`: broken
    /// link; `None`: not evaluated)
    pub prefetched: Option<bool>,
    /// its RS overlapped the next unit's compute (`None`: not evaluated)
    pub rs_hidden: Option<bool>,
    /// idle the broken link into this unit costs (0 when prefetched);
    /// `None` when not evaluated
    pub idle_ns: Option<i64>,
    /// first AG kernel start
    pub ag_start_ns: Option<i64>,
    /// last AG kernel end
    pub ag_end_ns: Option<i64>,
    /// stream of its first AG kernel
    pub ag_stream: Option<i64>,
    /// first compute kernel start
    pub compute_start_ns: Option<i64>,
    /// last compute kernel end
    pub compute_end_ns: Option<i64>,
    /// stream of its first compute kernel
    pub compute_stream: Option<i64>,
    /// first RS kernel start
    pub rs_start_ns: Option<i64>,
    /// last RS kernel end
    pub rs_end_ns: Option<i64>,
    /// stream of its first RS kernel
    pub rs_stream: Option<i64>,
}

/// Blocking calls of one API (`fsdpa_sync_wait`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SyncWait {
    /// API name, e.g. "cudaStreamSynchronize"
    pub api: String,
    /// selected calls
    pub count: u64,
    /// Σ call duration
    pub total_ns: i64,
    /// longest call
    pub max_ns: i64,
    /// calls whose start lies inside a step
    pub in_steps: u64,
    /// distinct CPU threads making these calls
    pub threads: u64,
    /// Σ GPU idle during the calls
    pub gpu_idle_during_ns: i64,
    /// Σ GPU idle after the calls (calls where it is defined)
    pub gpu_idle_after_ns: i64,
    /// calls whose idle-after is defined
    pub idle_after_calls: u64,
    /// GPU idle (cost) of these calls, overlaps counted once
    pub gpu_idle_ns: i64,
}

/// One blocking call with what it waited for and what it cost the GPU
/// (`fsdpa_sync_call`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SyncCall {
    /// API name
    pub api: String,
    /// CPU process of the calling thread
    pub pid: i64,
    /// CPU thread
    pub tid: i64,
    /// absolute start
    pub start_ns: i64,
    /// duration (time blocked)
    pub dur_ns: i64,
    /// N of the ProfilerStep#N containing the start; `None` if none
    pub step: Option<i64>,
    /// how the waited-for work was found
    pub source: WaitSource,
    /// waited for every stream of the device (else one stream, or unknown)
    pub device_wide: bool,
    /// `cuda_sync_kind` of the linked cuda_sync event
    pub sync_kind: Option<String>,
    /// device of the call; `None` if unknown
    pub device: Option<i64>,
    /// waited stream; `None` if device-wide or unknown
    pub stream: Option<i64>,
    /// name of the waited-for GPU op, if one was found
    pub waited_op: Option<String>,
    /// its stream
    pub waited_op_stream: Option<i64>,
    /// its absolute start
    pub waited_op_start_ns: Option<i64>,
    /// its absolute end
    pub waited_op_end_ns: Option<i64>,
    /// GPU idle during the call
    pub gpu_idle_during_ns: i64,
    /// GPU idle after the call; `None` if no GPU activity follows
    pub gpu_idle_after_ns: Option<i64>,
}

/// Blocking calls of one step (`fsdpa_sync_step`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SyncStep {
    /// step index (see [`Analyzer::steps`])
    pub index: i64,
    /// N of ProfilerStep#N
    pub number: i64,
    /// CPU duration of the step
    pub step_dur_ns: i64,
    /// blocking calls
    pub count: u64,
    /// Σ their durations, all threads
    pub total_ns: i64,
    /// longest call; 0 if none
    pub max_ns: i64,
    /// largest per-thread Σ duration
    pub worst_thread_ns: i64,
    /// that thread's pid; `None` if no call
    pub worst_pid: Option<i64>,
    /// that thread's tid; `None` if no call
    pub worst_tid: Option<i64>,
    /// worst_thread_ns / step_dur_ns; `None` if the step has no duration
    pub share: Option<f64>,
    /// GPU idle (cost) of the step's blocking calls
    pub gpu_idle_ns: i64,
    /// the step meets the cpu-sync-stall thresholds
    pub flagged: bool,
}

/// Allocator activity and memory levels for a window
/// (`fsdpa_memory_summary`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MemorySummary {
    /// malloc calls starting in the window
    pub malloc_calls: u64,
    /// free calls starting in the window
    pub free_calls: u64,
    /// Σ duration of those malloc calls (CPU time)
    pub malloc_ns: i64,
    /// Σ duration of those free calls (CPU time)
    pub free_ns: i64,
    /// Σ `bytes` of malloc calls that carry it; `None` if none does
    pub malloc_bytes: Option<i64>,
    /// warm-up steps (whole trace)
    pub warmup_steps: i64,
    /// steps after warm-up whose start lies in the window
    pub steady_steps: u64,
    /// malloc calls of the window in steady-state steps
    pub steady_state_malloc_calls: u64,
    /// free calls of the window in steady-state steps
    pub steady_state_free_calls: u64,
    /// GPU idle of the window's malloc and free calls
    pub gpu_idle_ns: i64,
    /// Device Id the level fields describe; `None` without device memory events
    pub device: Option<i64>,
    /// that device's memory events in the window
    pub memory_events: u64,
    /// `[OutOfMemory]` events in the window, all non-CPU devices
    pub oom_events: u64,
    /// that device is relative (allocated levels are growth since its first event)
    pub allocated_is_relative: bool,
    /// start allocated level; `None` if unknown
    pub start_allocated_bytes: Option<i64>,
    /// end allocated level; `None` if unknown
    pub end_allocated_bytes: Option<i64>,
    /// min allocated level; `None` if unknown
    pub min_allocated_bytes: Option<i64>,
    /// peak allocated level (without a device selected: the max over all
    /// non-relative devices); `None` if relative or no events
    pub peak_allocated_bytes: Option<i64>,
    /// relative device: peak of its running Σ Bytes; `None` otherwise
    pub peak_allocated_delta_bytes: Option<i64>,
    /// peak reserved level (without a device selected: the max over all
    /// devices); `None` without Total Reserved
    pub peak_reserved_bytes: Option<i64>,
    /// allocated level at peak reserved; `None` if unknown
    pub allocated_at_peak_reserved_bytes: Option<i64>,
    /// 1 − A / R (0..1); `None` if unknown
    pub fragmentation: Option<f64>,
    /// time-weighted (reserved − allocated) / reserved; `None` if unknown
    pub mean_unallocated_share: Option<f64>,
}

/// Memory levels of one device over a window (`fsdpa_memory_device`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MemoryDevice {
    /// c10::DeviceType (1 = CUDA, also on ROCm)
    pub device_type: i64,
    /// Device Id
    pub device: i64,
    /// relative (no Total Allocated)
    pub relative: bool,
    /// the primary device
    pub primary: bool,
    /// memory events in the window
    pub events: u64,
    /// of which `[OutOfMemory]`
    pub oom_events: u64,
    /// `None` if relative or no levels in the window
    pub peak_allocated_bytes: Option<i64>,
    /// relative only: peak running Σ Bytes; else `None`
    pub peak_allocated_delta_bytes: Option<i64>,
    /// `None` without Total Reserved
    pub peak_reserved_bytes: Option<i64>,
    /// see fragmentation; `None` if unknown
    pub allocated_at_peak_reserved_bytes: Option<i64>,
    /// 1 − A / R; `None` if unknown
    pub fragmentation: Option<f64>,
    /// `None` if unknown
    pub mean_unallocated_share: Option<f64>,
}

/// One bucket of the downsampled memory timeline (`fsdpa_memory_point`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MemoryPoint {
    /// absolute bucket start
    pub t0_ns: i64,
    /// absolute bucket end (exclusive)
    pub t1_ns: i64,
    /// memory events in the bucket
    pub events: u64,
    /// smallest allocated level; `None` before the first event
    pub allocated_min: Option<i64>,
    /// largest allocated level; `None` before the first event
    pub allocated_max: Option<i64>,
    /// level at the bucket's end; `None` before the first event
    pub allocated_last: Option<i64>,
    /// smallest reserved level; `None` without Total Reserved
    pub reserved_min: Option<i64>,
    /// largest reserved level
    pub reserved_max: Option<i64>,
    /// reserved level at the bucket's end
    pub reserved_last: Option<i64>,
}

/// Allocator activity and memory levels of one step (`fsdpa_memory_step`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MemoryStep {
    /// step index (see [`Analyzer::steps`])
    pub index: i64,
    /// N of ProfilerStep#N
    pub number: i64,
    /// the step is in warm-up
    pub warmup: bool,
    /// malloc calls starting in the step
    pub malloc_calls: u64,
    /// free calls starting in the step
    pub free_calls: u64,
    /// their CPU time
    pub malloc_ns: i64,
    /// their CPU time
    pub free_ns: i64,
    /// GPU idle of those malloc and free calls
    pub gpu_idle_ns: i64,
    /// level at the step's start; `None` if unknown
    pub start_allocated_bytes: Option<i64>,
    /// level at the step's end; `None` if unknown
    pub end_allocated_bytes: Option<i64>,
    /// `None` if unknown
    pub min_allocated_bytes: Option<i64>,
    /// `None` if unknown
    pub peak_allocated_bytes: Option<i64>,
    /// `None` without Total Reserved
    pub peak_reserved_bytes: Option<i64>,
    /// end − start <= peak / 100 (healthy sawtooth); `None` if unknown
    pub returns_to_baseline: Option<bool>,
}

// ---------------------------------------------------------------- conversions

impl From<&sys::fsdpa_launch_gaps> for LaunchGaps {
    fn from(g: &sys::fsdpa_launch_gaps) -> LaunchGaps {
        LaunchGaps {
            kernel_wait_threshold_ns: g.kernel_wait_threshold_ns,
            small_gap_threshold_ns: g.small_gap_threshold_ns,
            streams: g.streams,
            gaps: g.gaps,
            idle_ns: g.idle_ns,
            host_wait_ns: g.host_wait_ns,
            kernel_wait_ns: g.kernel_wait_ns,
            other_ns: g.other_ns,
            host_wait_gaps: g.host_wait_gaps,
            kernel_wait_gaps: g.kernel_wait_gaps,
            other_gaps: g.other_gaps,
            unlinked_gaps: g.unlinked_gaps,
            unlinked_ns: g.unlinked_ns,
            small_launch_gaps: g.small_launch_gaps,
            small_launch_ns: g.small_launch_ns,
            p50_ns: opt(g.p50_ns),
            p90_ns: opt(g.p90_ns),
            p99_ns: opt(g.p99_ns),
            max_ns: opt(g.max_ns),
            edges_ns: g.edges_ns,
            counts: g.counts,
            bin_idle_ns: g.bin_idle_ns,
            span_ns: opt(g.span_ns),
            busy_ns: g.busy_ns,
            density: ratio(g.density),
            gpu_window_ns: opt(g.gpu_window_ns),
            utilization: ratio(g.utilization),
            gpu_gaps: g.gpu_gaps,
            gpu_idle_ns: g.gpu_idle_ns,
            gpu_host_wait_ns: g.gpu_host_wait_ns,
            gpu_kernel_wait_ns: g.gpu_kernel_wait_ns,
            gpu_other_ns: g.gpu_other_ns,
            gpu_small_launch_ns: g.gpu_small_launch_ns,
        }
    }
}

impl From<&sys::fsdpa_launch_latency> for LaunchLatency {
    fn from(l: &sys::fsdpa_launch_latency) -> LaunchLatency {
        LaunchLatency {
            ops: l.ops,
            linked: l.linked,
            min_ns: opt(l.min_ns),
            p50_ns: opt(l.p50_ns),
            p90_ns: opt(l.p90_ns),
            p99_ns: opt(l.p99_ns),
            max_ns: opt(l.max_ns),
            total_ns: opt(l.total_ns),
            edges_ns: l.edges_ns,
            counts: l.counts,
            kernels: l.kernels,
            kernels_linked: l.kernels_linked,
            kernels_shorter_than_launch: l.kernels_shorter_than_launch,
            short_kernel_share: ratio(l.short_kernel_share),
        }
    }
}

impl From<&sys::fsdpa_launch_queue> for LaunchQueue {
    fn from(q: &sys::fsdpa_launch_queue) -> LaunchQueue {
        LaunchQueue {
            ops: q.ops,
            range_ns: opt(q.range_ns),
            max_depth: opt(q.max_depth),
            mean_depth: ratio(q.mean_depth),
            depth0_ns: q.depth0_ns,
            starved_ns: q.starved_ns,
        }
    }
}

impl From<&sys::fsdpa_comm_split> for CommSplit {
    fn from(s: &sys::fsdpa_comm_split) -> CommSplit {
        CommSplit {
            name: chars(&s.name),
            count: s.count,
            comm_ns: s.comm_ns,
            overlap_ns: s.overlap_ns,
            exposed_ns: s.exposed_ns,
            bytes: opt(s.bytes),
            timed_ns: opt(s.timed_ns),
            algbw_gbps: ratio(s.algbw_gbps),
            busbw_gbps: ratio(s.busbw_gbps),
        }
    }
}

impl From<&sys::fsdpa_fsdp_unit> for FsdpUnit {
    fn from(u: &sys::fsdpa_fsdp_unit) -> FsdpUnit {
        FsdpUnit {
            name: chars(&u.name),
            name_len: u.name_len,
            phase: Phase::from_raw(u.phase),
            instances: u.instances,
            comm_ns: u.comm_ns,
            compute_ns: u.compute_ns,
            exposed_ns: u.exposed_ns,
            exposed_sum_ns: u.exposed_sum_ns,
            exposed_measured_ns: u.exposed_measured_ns,
            allgather_ns: u.allgather_ns,
            reducescatter_ns: u.reducescatter_ns,
            comm_kernels: u.comm_kernels,
            compute_kernels: u.compute_kernels,
        }
    }
}

impl From<&sys::fsdpa_backward> for Backward {
    fn from(b: &sys::fsdpa_backward) -> Backward {
        Backward {
            pattern: BackwardPattern::from_raw(b.pattern),
            steps: b.steps,
            units: b.units,
            prefetched_units: b.prefetched_units,
            links: b.links,
            broken_links: b.broken_links,
            idle_ns: b.idle_ns,
        }
    }
}

impl From<&sys::fsdpa_backward_step> for BackwardStep {
    fn from(s: &sys::fsdpa_backward_step) -> BackwardStep {
        BackwardStep {
            step: opt(s.step),
            pattern: BackwardPattern::from_raw(s.pattern),
            units: s.units,
            links: s.links,
            prefetched_links: s.prefetched_links,
            rs_hidden_links: s.rs_hidden_links,
            idle_ns: s.idle_ns,
            start_ns: s.start_ns,
            end_ns: s.end_ns,
            overlap_pct: ratio(s.overlap_pct),
        }
    }
}

impl From<&sys::fsdpa_backward_unit> for BackwardUnit {
    fn from(u: &sys::fsdpa_backward_unit) -> BackwardUnit {
        BackwardUnit {
            name: chars(&u.name),
            name_len: u.name_len,
            position: u.position,
            prefetched: tri(u.prefetched),
            rs_hidden: tri(u.rs_hidden),
            idle_ns: opt(u.idle_ns),
            ag_start_ns: opt(u.ag_start_ns),
            ag_end_ns: opt(u.ag_end_ns),
            ag_stream: opt(u.ag_stream),
            compute_start_ns: opt(u.compute_start_ns),
            compute_end_ns: opt(u.compute_end_ns),
            compute_stream: opt(u.compute_stream),
            rs_start_ns: opt(u.rs_start_ns),
            rs_end_ns: opt(u.rs_end_ns),
            rs_stream: opt(u.rs_stream),
        }
    }
}

impl ListItem for SyncWait {
    type Raw = sys::fsdpa_sync_wait;
    const KIND: sys::fsdpa_list_kind = sys::FSDPA_LIST_SYNC_WAITS;
    fn blank() -> sys::fsdpa_sync_wait {
        sys::fsdpa_sync_wait::sized()
    }
    /// `w.api` is NULL or a string of the live list.
    unsafe fn from_raw(w: &sys::fsdpa_sync_wait) -> SyncWait {
        SyncWait {
            api: cstr(w.api),
            count: w.count,
            total_ns: w.total_ns,
            max_ns: w.max_ns,
            in_steps: w.in_steps,
            threads: w.threads,
            gpu_idle_during_ns: w.gpu_idle_during_ns,
            gpu_idle_after_ns: w.gpu_idle_after_ns,
            idle_after_calls: w.idle_after_calls,
            gpu_idle_ns: w.gpu_idle_ns,
        }
    }
}

impl ListItem for SyncCall {
    type Raw = sys::fsdpa_sync_call;
    const KIND: sys::fsdpa_list_kind = sys::FSDPA_LIST_SYNC_CALLS;
    fn blank() -> sys::fsdpa_sync_call {
        sys::fsdpa_sync_call::sized()
    }
    /// The strings are NULL or strings of the live list.
    unsafe fn from_raw(c: &sys::fsdpa_sync_call) -> SyncCall {
        SyncCall {
            api: cstr(c.api),
            pid: c.pid,
            tid: c.tid,
            start_ns: c.start_ns,
            dur_ns: c.dur_ns,
            step: opt(c.step),
            source: WaitSource::from_raw(c.source),
            device_wide: c.device_wide != 0,
            sync_kind: opt_cstr(c.sync_kind),
            device: opt(c.device),
            stream: opt(c.stream),
            waited_op: opt_cstr(c.waited_op),
            waited_op_stream: opt(c.waited_op_stream),
            waited_op_start_ns: opt(c.waited_op_start_ns),
            waited_op_end_ns: opt(c.waited_op_end_ns),
            gpu_idle_during_ns: c.gpu_idle_during_ns,
            gpu_idle_after_ns: opt(c.gpu_idle_after_ns),
        }
    }
}

impl From<&sys::fsdpa_sync_step> for SyncStep {
    fn from(s: &sys::fsdpa_sync_step) -> SyncStep {
        SyncStep {
            index: s.index,
            number: s.number,
            step_dur_ns: s.step_dur_ns,
            count: s.count,
            total_ns: s.total_ns,
            max_ns: s.max_ns,
            worst_thread_ns: s.worst_thread_ns,
            worst_pid: opt(s.worst_pid),
            worst_tid: opt(s.worst_tid),
            share: ratio(s.share),
            gpu_idle_ns: s.gpu_idle_ns,
            flagged: s.flagged != 0,
        }
    }
}

impl From<&sys::fsdpa_memory_summary> for MemorySummary {
    fn from(m: &sys::fsdpa_memory_summary) -> MemorySummary {
        MemorySummary {
            malloc_calls: m.malloc_calls,
            free_calls: m.free_calls,
            malloc_ns: m.malloc_ns,
            free_ns: m.free_ns,
            malloc_bytes: opt(m.malloc_bytes),
            warmup_steps: m.warmup_steps,
            steady_steps: m.steady_steps,
            steady_state_malloc_calls: m.steady_state_malloc_calls,
            steady_state_free_calls: m.steady_state_free_calls,
            gpu_idle_ns: m.gpu_idle_ns,
            device: opt(m.device),
            memory_events: m.memory_events,
            oom_events: m.oom_events,
            allocated_is_relative: m.allocated_is_relative != 0,
            start_allocated_bytes: opt(m.start_allocated_bytes),
            end_allocated_bytes: opt(m.end_allocated_bytes),
            min_allocated_bytes: opt(m.min_allocated_bytes),
            peak_allocated_bytes: opt(m.peak_allocated_bytes),
            peak_allocated_delta_bytes: opt(m.peak_allocated_delta_bytes),
            peak_reserved_bytes: opt(m.peak_reserved_bytes),
            allocated_at_peak_reserved_bytes: opt(m.allocated_at_peak_reserved_bytes),
            fragmentation: ratio(m.fragmentation),
            mean_unallocated_share: ratio(m.mean_unallocated_share),
        }
    }
}

impl From<&sys::fsdpa_memory_device> for MemoryDevice {
    fn from(d: &sys::fsdpa_memory_device) -> MemoryDevice {
        MemoryDevice {
            device_type: d.device_type,
            device: d.device,
            relative: d.relative != 0,
            primary: d.primary != 0,
            events: d.events,
            oom_events: d.oom_events,
            peak_allocated_bytes: opt(d.peak_allocated_bytes),
            peak_allocated_delta_bytes: opt(d.peak_allocated_delta_bytes),
            peak_reserved_bytes: opt(d.peak_reserved_bytes),
            allocated_at_peak_reserved_bytes: opt(d.allocated_at_peak_reserved_bytes),
            fragmentation: ratio(d.fragmentation),
            mean_unallocated_share: ratio(d.mean_unallocated_share),
        }
    }
}

impl From<&sys::fsdpa_memory_point> for MemoryPoint {
    fn from(p: &sys::fsdpa_memory_point) -> MemoryPoint {
        MemoryPoint {
            t0_ns: p.t0_ns,
            t1_ns: p.t1_ns,
            events: p.events,
            allocated_min: opt(p.allocated_min),
            allocated_max: opt(p.allocated_max),
            allocated_last: opt(p.allocated_last),
            reserved_min: opt(p.reserved_min),
            reserved_max: opt(p.reserved_max),
            reserved_last: opt(p.reserved_last),
        }
    }
}

impl From<&sys::fsdpa_memory_step> for MemoryStep {
    fn from(s: &sys::fsdpa_memory_step) -> MemoryStep {
        MemoryStep {
            index: s.index,
            number: s.number,
            warmup: s.warmup != 0,
            malloc_calls: s.malloc_calls,
            free_calls: s.free_calls,
            malloc_ns: s.malloc_ns,
            free_ns: s.free_ns,
            gpu_idle_ns: s.gpu_idle_ns,
            start_allocated_bytes: opt(s.start_allocated_bytes),
            end_allocated_bytes: opt(s.end_allocated_bytes),
            min_allocated_bytes: opt(s.min_allocated_bytes),
            peak_allocated_bytes: opt(s.peak_allocated_bytes),
            peak_reserved_bytes: opt(s.peak_reserved_bytes),
            returns_to_baseline: tri(s.returns_to_baseline),
        }
    }
}

list_item!(
    CommSplit,
    sys::fsdpa_comm_split,
    sys::FSDPA_LIST_COMM_SPLITS
);
list_item!(FsdpUnit, sys::fsdpa_fsdp_unit, sys::FSDPA_LIST_FSDP_UNITS);
list_item!(
    BackwardStep,
    sys::fsdpa_backward_step,
    sys::FSDPA_LIST_BACKWARD_STEPS
);
list_item!(
    BackwardUnit,
    sys::fsdpa_backward_unit,
    sys::FSDPA_LIST_BACKWARD_UNITS
);
list_item!(SyncStep, sys::fsdpa_sync_step, sys::FSDPA_LIST_SYNC_STEPS);
list_item!(
    MemoryDevice,
    sys::fsdpa_memory_device,
    sys::FSDPA_LIST_MEMORY_DEVICES
);
list_item!(
    MemoryPoint,
    sys::fsdpa_memory_point,
    sys::FSDPA_LIST_MEMORY_POINTS
);
list_item!(
    MemoryStep,
    sys::fsdpa_memory_step,
    sys::FSDPA_LIST_MEMORY_STEPS
);

// ---------------------------------------------------------------- queries

impl Analyzer {
    /// Run `f(ctx, out)` on a blank `T` (size set) and return it.
    fn one<T>(
        &mut self,
        blank: T,
        f: impl FnOnce(*mut sys::fsdpa_ctx, *mut T) -> sys::fsdpa_status,
    ) -> Result<T> {
        let mut out = blank;
        check(f(self.p(), &mut out), self.p(), false)?;
        Ok(out)
    }

    /// Run `f(ctx, &mut list)` and read the list it returns into a `Vec`
    /// (the list is freed before returning).
    fn vec<T: ListItem>(
        &mut self,
        f: impl FnOnce(*mut sys::fsdpa_ctx, *mut *mut sys::fsdpa_list) -> sys::fsdpa_status,
    ) -> Result<Vec<T>> {
        Ok(self.list(f)?.to_vec())
    }

    /// Launch gaps, idle attribution (HTA's host wait / kernel wait / other)
    /// and density of the selected streams in the window.
    pub fn launch_gaps(&mut self, q: &Query) -> Result<LaunchGaps> {
        let cq = q.raw();
        let g = self.one(sys::fsdpa_launch_gaps::sized(), |c, o| unsafe {
            sys::fsdpa_launch_gaps_query(c, &cq, o)
        })?;
        Ok((&g).into())
    }

    /// Launch-call → GPU-start latency of the ops starting in the window.
    pub fn launch_latency(&mut self, q: &Query) -> Result<LaunchLatency> {
        let cq = q.raw();
        let l = self.one(sys::fsdpa_launch_latency::sized(), |c, o| unsafe {
            sys::fsdpa_launch_latency_query(c, &cq, o)
        })?;
        Ok((&l).into())
    }

    /// Depth of the queue of launched-but-not-started ops.
    pub fn launch_queue(&mut self, q: &Query) -> Result<LaunchQueue> {
        let cq = q.raw();
        let l = self.one(sys::fsdpa_launch_queue::sized(), |c, o| unsafe {
            sys::fsdpa_launch_queue_query(c, &cq, o)
        })?;
        Ok((&l).into())
    }

    /// The selection's communication split by collective type or process
    /// group (`fsdpa_comm_split_list`, in the order of [`SplitBy`]).
    pub fn comm_split(&mut self, q: &Query, by: SplitBy) -> Result<Vec<CommSplit>> {
        let cq = q.raw();
        self.vec(|c, l| unsafe { sys::fsdpa_comm_split_list(c, &cq, by.raw(), l) })
    }

    /// Per FSDP unit and phase over the whole trace (`fsdpa_fsdp_unit_list`
    /// with a whole-trace query): units in the order they are first named,
    /// each unit's forward entry, then the backward entries in the same
    /// unit order.
    pub fn fsdp_units(&mut self) -> Result<Vec<FsdpUnit>> {
        self.vec(|c, l| unsafe { sys::fsdpa_fsdp_unit_list(c, std::ptr::null(), l) })
    }

    /// The same entries summed over the instances that start inside the
    /// query's window (`fsdpa_fsdp_unit_list`; device and stream are
    /// ignored); an entry without an instance there has `instances == 0`,
    /// so the positions match [`Analyzer::fsdp_units`].
    pub fn fsdp_units_in(&mut self, q: &Query) -> Result<Vec<FsdpUnit>> {
        let cq = q.raw();
        self.vec(|c, l| unsafe { sys::fsdpa_fsdp_unit_list(c, &cq, l) })
    }

    /// The backward schedule over the whole trace (zigzag, no_prefetch,
    /// serialized or unknown).
    pub fn backward(&mut self) -> Result<Backward> {
        let b = self.one(sys::fsdpa_backward::sized(), |c, o| unsafe {
            sys::fsdpa_backward_get(c, o)
        })?;
        Ok((&b).into())
    }

    /// One entry per step with backward units, in time order.
    pub fn backward_steps(&mut self) -> Result<Vec<BackwardStep>> {
        self.vec(|c, l| unsafe { sys::fsdpa_backward_step_list(c, l) })
    }

    /// The units of backward step `step_index` (an index into
    /// [`Analyzer::backward_steps`]), in backward order, with their links.
    pub fn backward_units(&mut self, step_index: usize) -> Result<Vec<BackwardUnit>> {
        self.vec(|c, l| unsafe { sys::fsdpa_backward_unit_list(c, step_index, l) })
    }

    /// Blocking calls (stream / event / device synchronize, synchronous
    /// copies, frees) per API, largest total first; the query selects calls
    /// by start, device and waited stream.
    pub fn sync_waits(&mut self, q: &Query) -> Result<Vec<SyncWait>> {
        let cq = q.raw();
        self.vec(|c, l| unsafe { sys::fsdpa_sync_wait_list(c, &cq, l) })
    }

    /// Every selected blocking call, by start, with what it waited for.
    pub fn sync_calls(&mut self, q: &Query) -> Result<Vec<SyncCall>> {
        let cq = q.raw();
        self.vec(|c, l| unsafe { sys::fsdpa_sync_call_list(c, &cq, l) })
    }

    /// Blocking time per step, for the steps whose start lies in the window.
    pub fn sync_steps(&mut self, q: &Query) -> Result<Vec<SyncStep>> {
        let cq = q.raw();
        self.vec(|c, l| unsafe { sys::fsdpa_sync_step_list(c, &cq, l) })
    }

    /// Allocator calls, memory levels and fragmentation over the window
    /// (`q.device` picks the device of the level fields; `q.stream` is ignored).
    pub fn memory(&mut self, q: &Query) -> Result<MemorySummary> {
        let cq = q.raw();
        let m = self.one(sys::fsdpa_memory_summary::sized(), |c, o| unsafe {
            sys::fsdpa_memory_query(c, &cq, o)
        })?;
        Ok((&m).into())
    }

    /// Memory levels per device with memory events (by Device Type, then Id).
    pub fn memory_devices(&mut self, q: &Query) -> Result<Vec<MemoryDevice>> {
        let cq = q.raw();
        self.vec(|c, l| unsafe { sys::fsdpa_memory_device_list(c, &cq, l) })
    }

    /// Allocated / reserved timeline of one device (`None` = the primary
    /// device) over the query's window (its device and stream are ignored),
    /// cut into at most `buckets` (>= 1) equal buckets.  No device or an
    /// empty range gives no rows.
    pub fn memory_series(
        &mut self,
        q: &Query,
        device: Option<i64>,
        buckets: usize,
    ) -> Result<Vec<MemoryPoint>> {
        let cq = q.raw();
        let dev = device.unwrap_or(sys::FSDPA_ABSENT);
        self.vec(|c, l| unsafe { sys::fsdpa_memory_series_list(c, &cq, dev, buckets, l) })
    }

    /// Allocator activity and memory levels per step, for the steps whose
    /// start lies in the window.
    pub fn memory_steps(&mut self, q: &Query) -> Result<Vec<MemoryStep>> {
        let cq = q.raw();
        self.vec(|c, l| unsafe { sys::fsdpa_memory_step_list(c, &cq, l) })
    }
}
