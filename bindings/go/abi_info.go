package fsdpa

/*
#define FSDPA_EXPERIMENTAL 1 // fsdpa_annotate_options (annotate.go) is experimental
#include <fsdpa/fsdpa.h>
*/
import "C"

import "reflect"

// cStructs are the C structs this package passes to libfsdpa, as cgo laid
// them out from the header it compiled against.  The ABI test compares them
// with the table generated from the header in this tree, which catches cgo
// picking up a different (say, an older installed) fsdpa.h.
func cStructs() map[string]reflect.Type {
	return map[string]reflect.Type{
		"fsdpa_allocator":      reflect.TypeOf(C.fsdpa_allocator{}),
		"fsdpa_error":          reflect.TypeOf(C.fsdpa_error{}),
		"fsdpa_options":        reflect.TypeOf(C.fsdpa_options{}),
		"fsdpa_event":          reflect.TypeOf(C.fsdpa_event{}),
		"fsdpa_trace_info":     reflect.TypeOf(C.fsdpa_trace_info{}),
		"fsdpa_stats":          reflect.TypeOf(C.fsdpa_stats{}),
		"fsdpa_step":           reflect.TypeOf(C.fsdpa_step{}),
		"fsdpa_stream_info":    reflect.TypeOf(C.fsdpa_stream_info{}),
		"fsdpa_query":          reflect.TypeOf(C.fsdpa_query{}),
		"fsdpa_timeline":       reflect.TypeOf(C.fsdpa_timeline{}),
		"fsdpa_report_options": reflect.TypeOf(C.fsdpa_report_options{}),
		"fsdpa_overlap":        reflect.TypeOf(C.fsdpa_overlap{}),
		// the analysis queries
		"fsdpa_launch_gaps":      reflect.TypeOf(C.fsdpa_launch_gaps{}),
		"fsdpa_launch_latency":   reflect.TypeOf(C.fsdpa_launch_latency{}),
		"fsdpa_launch_queue":     reflect.TypeOf(C.fsdpa_launch_queue{}),
		"fsdpa_comm_split":       reflect.TypeOf(C.fsdpa_comm_split{}),
		"fsdpa_fsdp_unit":        reflect.TypeOf(C.fsdpa_fsdp_unit{}),
		"fsdpa_backward":         reflect.TypeOf(C.fsdpa_backward{}),
		"fsdpa_backward_step":    reflect.TypeOf(C.fsdpa_backward_step{}),
		"fsdpa_backward_unit":    reflect.TypeOf(C.fsdpa_backward_unit{}),
		"fsdpa_sync_wait":        reflect.TypeOf(C.fsdpa_sync_wait{}),
		"fsdpa_sync_call":        reflect.TypeOf(C.fsdpa_sync_call{}),
		"fsdpa_sync_step":        reflect.TypeOf(C.fsdpa_sync_step{}),
		"fsdpa_memory_summary":   reflect.TypeOf(C.fsdpa_memory_summary{}),
		"fsdpa_memory_device":    reflect.TypeOf(C.fsdpa_memory_device{}),
		"fsdpa_memory_point":     reflect.TypeOf(C.fsdpa_memory_point{}),
		"fsdpa_memory_step":      reflect.TypeOf(C.fsdpa_memory_step{}),
		"fsdpa_range":            reflect.TypeOf(C.fsdpa_range{}),
		"fsdpa_finding":          reflect.TypeOf(C.fsdpa_finding{}),
		"fsdpa_param":            reflect.TypeOf(C.fsdpa_param{}),
		"fsdpa_crossrank":        reflect.TypeOf(C.fsdpa_crossrank{}),
		"fsdpa_crossrank_rank":   reflect.TypeOf(C.fsdpa_crossrank_rank{}),
		"fsdpa_summary_options":  reflect.TypeOf(C.fsdpa_summary_options{}),
		"fsdpa_annotate_options": reflect.TypeOf(C.fsdpa_annotate_options{}),
		// devices and the efficiency group (efficiency.go)
		"fsdpa_device_info":   reflect.TypeOf(C.fsdpa_device_info{}),
		"fsdpa_kernel_select": reflect.TypeOf(C.fsdpa_kernel_select{}),
		"fsdpa_kernel_stat":   reflect.TypeOf(C.fsdpa_kernel_stat{}),
		"fsdpa_op_stat":       reflect.TypeOf(C.fsdpa_op_stat{}),
		"fsdpa_efficiency":    reflect.TypeOf(C.fsdpa_efficiency{}),
		"fsdpa_device_peak":   reflect.TypeOf(C.fsdpa_device_peak{}),
		"fsdpa_diff_options":  reflect.TypeOf(C.fsdpa_diff_options{}),
	}
}
