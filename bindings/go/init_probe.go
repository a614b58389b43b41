package fsdpa

/*
#define _GNU_SOURCE 1
#define FSDPA_EXPERIMENTAL 1 // the annotate, kernel-table and diff inits are experimental
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>
#include <fsdpa/fsdpa.h>

// Whether the process resolves `name`: libfsdpa is linked in, so its
// exported functions are found, and the header's static inline wrappers
// must not be.
static int probe_has_symbol(const char *name) { return dlsym(RTLD_DEFAULT, name) != NULL; }
*/
import "C"

import "unsafe"

// Test support (unexported), kept out of the ABI test's count of the calls
// the package makes: it calls every *_init_sized with sizes of its choosing.
//
// The header's fsdpa_<x>_init() helpers are static inline: the package
// calls them like any C caller, and cgo compiles them with the header's
// `sizeof *p`, the size of the very struct cgo lays out for the package.

// initProbe fills a C buffer of the struct's size plus `spare` bytes, all
// 0xAA, with the struct's defaults: through the header's inline
// fsdpa_<x>_init(), as the package calls it, when size < 0; else through
// the exported fsdpa_<x>_init_sized(p, size).  It returns the buffer, or
// false for a struct without an init.
func initProbe(name string, size int, spare int) ([]byte, bool) {
	typ, ok := cStructs()[name]
	if !ok {
		return nil, false
	}
	n := int(typ.Size()) + spare
	p := C.malloc(C.size_t(n))
	defer C.free(p)
	C.memset(p, 0xAA, C.size_t(n))
	sz, wrapper := C.size_t(size), size < 0
	switch name {
	case "fsdpa_options":
		if wrapper {
			C.fsdpa_options_init((*C.fsdpa_options)(p))
		} else {
			C.fsdpa_options_init_sized((*C.fsdpa_options)(p), sz)
		}
	case "fsdpa_error":
		if wrapper {
			C.fsdpa_error_init((*C.fsdpa_error)(p))
		} else {
			C.fsdpa_error_init_sized((*C.fsdpa_error)(p), sz)
		}
	case "fsdpa_event":
		if wrapper {
			C.fsdpa_event_init((*C.fsdpa_event)(p))
		} else {
			C.fsdpa_event_init_sized((*C.fsdpa_event)(p), sz)
		}
	case "fsdpa_trace_info":
		if wrapper {
			C.fsdpa_trace_info_init((*C.fsdpa_trace_info)(p))
		} else {
			C.fsdpa_trace_info_init_sized((*C.fsdpa_trace_info)(p), sz)
		}
	case "fsdpa_query":
		if wrapper {
			C.fsdpa_query_init((*C.fsdpa_query)(p))
		} else {
			C.fsdpa_query_init_sized((*C.fsdpa_query)(p), sz)
		}
	case "fsdpa_report_options":
		if wrapper {
			C.fsdpa_report_options_init((*C.fsdpa_report_options)(p))
		} else {
			C.fsdpa_report_options_init_sized((*C.fsdpa_report_options)(p), sz)
		}
	case "fsdpa_summary_options":
		if wrapper {
			C.fsdpa_summary_options_init((*C.fsdpa_summary_options)(p))
		} else {
			C.fsdpa_summary_options_init_sized((*C.fsdpa_summary_options)(p), sz)
		}
	case "fsdpa_annotate_options":
		if wrapper {
			C.fsdpa_annotate_options_init((*C.fsdpa_annotate_options)(p))
		} else {
			C.fsdpa_annotate_options_init_sized((*C.fsdpa_annotate_options)(p), sz)
		}
	case "fsdpa_device_info":
		if wrapper {
			C.fsdpa_device_info_init((*C.fsdpa_device_info)(p))
		} else {
			C.fsdpa_device_info_init_sized((*C.fsdpa_device_info)(p), sz)
		}
	case "fsdpa_kernel_select":
		if wrapper {
			C.fsdpa_kernel_select_init((*C.fsdpa_kernel_select)(p))
		} else {
			C.fsdpa_kernel_select_init_sized((*C.fsdpa_kernel_select)(p), sz)
		}
	case "fsdpa_diff_options":
		if wrapper {
			C.fsdpa_diff_options_init((*C.fsdpa_diff_options)(p))
		} else {
			C.fsdpa_diff_options_init_sized((*C.fsdpa_diff_options)(p), sz)
		}
	default:
		return nil, false
	}
	return C.GoBytes(p, C.int(n)), true
}

// hasSymbol says whether the process resolves the C symbol `name`.
func hasSymbol(name string) bool {
	cs := C.CString(name)
	defer C.free(unsafe.Pointer(cs))
	return C.probe_has_symbol(cs) != 0
}
