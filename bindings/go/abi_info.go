package fsdpa

/*
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
	}
}
