package fsdpa

/*
#include <fsdpa/fsdpa.h>
*/
import "C"

// CPU sync stalls (the sync_waits group of fsdpa.h: blocking calls, what
// they waited for, the GPU idle they cost).  A query selects the calls whose
// start lies in the window, whose device equals Query.Device and whose
// waited stream equals Query.Stream (when set).

// WaitSource says how the waited-for GPU work of a blocking call was found.
type WaitSource int

// Values of fsdpa_wait_source.
const (
	WaitUnknown  WaitSource = 0 // nothing found
	WaitCudaSync WaitSource = 1 // from the call's cuda_sync event
	WaitOwnOp    WaitSource = 2 // the call's own GPU op (a synchronous copy)
	WaitInferred WaitSource = 3 // inferred from the thread's last launch
)

// String is the source as the report writes it.
func (s WaitSource) String() string {
	switch s {
	case WaitUnknown:
		return "unknown"
	case WaitCudaSync:
		return "cuda_sync"
	case WaitOwnOp:
		return "own_op"
	case WaitInferred:
		return "inferred"
	}
	return "unknown"
}

// SyncWait is fsdpa_sync_wait: the selected blocking calls of one API.
type SyncWait struct {
	API             string // e.g. "cudaStreamSynchronize"
	Count           uint64
	TotalNs         int64  // Σ call duration
	MaxNs           int64  // longest call
	InSteps         uint64 // calls whose start lies inside a step
	Threads         uint64 // distinct (pid, tid) making these calls
	GPUIdleDuringNs int64  // Σ GPU idle during the calls
	GPUIdleAfterNs  int64  // Σ GPU idle after the calls (where defined)
	IdleAfterCalls  uint64 // calls whose idle-after is defined
	GPUIdleNs       int64  // GPU idle (cost) of these calls, overlaps counted once
}

// SyncWaits returns the blocking calls per API, largest total first, then
// by name (fsdpa_sync_wait_list).
func (a *Analyzer) SyncWaits(q Query) ([]SyncWait, error) {
	return a.syncWaits(q.c())
}

// syncWaits is SyncWaits for a C query (nil: a NULL query).
func (a *Analyzer) syncWaits(cq *C.fsdpa_query) ([]SyncWait, error) {
	return ctxList(a, C.FSDPA_LIST_SYNC_WAITS, func(p *C.fsdpa_ctx, l **C.fsdpa_list) C.fsdpa_status {
		return C.fsdpa_sync_wait_list(p, cq, l)
	}, func(w *C.fsdpa_sync_wait) SyncWait {
		return SyncWait{API: C.GoString(w.api), Count: uint64(w.count), TotalNs: int64(w.total_ns),
			MaxNs: int64(w.max_ns), InSteps: uint64(w.in_steps), Threads: uint64(w.threads),
			GPUIdleDuringNs: int64(w.gpu_idle_during_ns), GPUIdleAfterNs: int64(w.gpu_idle_after_ns),
			IdleAfterCalls: uint64(w.idle_after_calls), GPUIdleNs: int64(w.gpu_idle_ns)}
	})
}

// SyncCall is fsdpa_sync_call: one blocking call, what it waited for and
// what it cost the GPU.
type SyncCall struct {
	API             string
	Pid, Tid        int64  // the calling thread
	StartNs         int64  // absolute start
	DurNs           int64  // time blocked
	Step            *int64 // N of the ProfilerStep#N containing the start; nil if none
	Source          WaitSource
	DeviceWide      bool    // waited for every stream of the device
	SyncKind        *string // cuda_sync_kind of the linked cuda_sync event; nil if none
	Device          *int64  // device of the call; nil if unknown
	Stream          *int64  // waited stream; nil if device-wide or unknown
	WaitedOp        *string // name of the waited-for GPU op; nil if none was found
	WaitedOpStream  *int64
	WaitedOpStartNs *int64
	WaitedOpEndNs   *int64
	GPUIdleDuringNs int64
	GPUIdleAfterNs  *int64 // nil when no GPU activity follows
}

// SyncCalls returns the selected blocking calls, sorted by start
// (fsdpa_sync_call_list).
func (a *Analyzer) SyncCalls(q Query) ([]SyncCall, error) {
	return a.syncCalls(q.c())
}

// syncCalls is SyncCalls for a C query (nil: a NULL query).
func (a *Analyzer) syncCalls(cq *C.fsdpa_query) ([]SyncCall, error) {
	return ctxList(a, C.FSDPA_LIST_SYNC_CALLS, func(p *C.fsdpa_ctx, l **C.fsdpa_list) C.fsdpa_status {
		return C.fsdpa_sync_call_list(p, cq, l)
	}, func(r *C.fsdpa_sync_call) SyncCall {
		return SyncCall{API: C.GoString(r.api), Pid: int64(r.pid), Tid: int64(r.tid),
			StartNs: int64(r.start_ns), DurNs: int64(r.dur_ns), Step: optInt(r.step),
			Source: WaitSource(r.source), DeviceWide: r.device_wide != 0, SyncKind: optStr(r.sync_kind),
			Device: optInt(r.device), Stream: optInt(r.stream), WaitedOp: optStr(r.waited_op),
			WaitedOpStream: optInt(r.waited_op_stream), WaitedOpStartNs: optInt(r.waited_op_start_ns),
			WaitedOpEndNs: optInt(r.waited_op_end_ns), GPUIdleDuringNs: int64(r.gpu_idle_during_ns),
			GPUIdleAfterNs: optInt(r.gpu_idle_after_ns)}
	})
}

// SyncStep is fsdpa_sync_step: the blocking calls of one step.
type SyncStep struct {
	Index         int64 // step index (see Steps)
	Number        int64 // N of ProfilerStep#N
	StepDurNs     int64 // CPU duration of the step
	Count         uint64
	TotalNs       int64    // Σ durations, all threads
	MaxNs         int64    // longest call; 0 if none
	WorstThreadNs int64    // largest per-thread Σ duration
	WorstPid      *int64   // that thread; nil if no call
	WorstTid      *int64   // nil if no call
	Share         *float64 // WorstThreadNs / StepDurNs; nil if the step has no duration
	GPUIdleNs     int64    // GPU idle (cost) of the step's calls
	Flagged       bool     // the step meets the cpu-sync-stall thresholds
}

// SyncSteps returns per-step blocking time for the steps whose start lies
// in the window, in step order (fsdpa_sync_step_list).
func (a *Analyzer) SyncSteps(q Query) ([]SyncStep, error) {
	return a.syncSteps(q.c())
}

// syncSteps is SyncSteps for a C query (nil: a NULL query).
func (a *Analyzer) syncSteps(cq *C.fsdpa_query) ([]SyncStep, error) {
	return ctxList(a, C.FSDPA_LIST_SYNC_STEPS, func(p *C.fsdpa_ctx, l **C.fsdpa_list) C.fsdpa_status {
		return C.fsdpa_sync_step_list(p, cq, l)
	}, func(s *C.fsdpa_sync_step) SyncStep {
		return SyncStep{Index: int64(s.index), Number: int64(s.number), StepDurNs: int64(s.step_dur_ns),
			Count: uint64(s.count), TotalNs: int64(s.total_ns), MaxNs: int64(s.max_ns),
			WorstThreadNs: int64(s.worst_thread_ns), WorstPid: optInt(s.worst_pid), WorstTid: optInt(s.worst_tid),
			Share: optRatio(s.share), GPUIdleNs: int64(s.gpu_idle_ns), Flagged: s.flagged != 0}
	})
}
