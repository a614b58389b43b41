package fsdpa

/*
#include <stdlib.h>
#include <fsdpa/fsdpa.h>
*/
import "C"

import (
	"runtime"
	"unsafe"
)

// Conversions shared by the query wrappers: the C API marks an absent
// integer with FSDPA_ABSENT, an absent ratio with a negative value, an
// unknown tri-state with -1 and an absent string with NULL; Go sees nil.

func optRatio(d C.double) *float64 {
	if float64(d) < 0 {
		return nil
	}
	x := float64(d)
	return &x
}

func optBool(v C.int) *bool { // 1 / 0 / -1 (not evaluated, unknown)
	if v < 0 {
		return nil
	}
	b := v != 0
	return &b
}

func optStr(s *C.char) *string {
	if s == nil {
		return nil
	}
	x := C.GoString(s)
	return &x
}

// fixedString reads a NUL-terminated name out of a fixed char array.
func fixedString(b []C.char) string {
	n := 0
	for n < len(b) && b[n] != 0 {
		n++
	}
	out := make([]byte, n)
	for i := range out {
		out[i] = byte(b[i])
	}
	return string(out)
}

// cArray runs the array protocol of fsdpa_query_sync_waits() and the other
// row queries: *inout_n is the capacity in, the number of rows out, and
// FSDPA_EBUFS says the capacity was short (the needed count is written
// back).  It asks with capacity 0 first, then with the count the library
// gave, growing until the call is not FSDPA_EBUFS.  The rows live in C
// memory during the call (some hold C pointers the library writes) and
// come back as a Go copy.
func cArray[T any](p *C.fsdpa_ctx, call func(out *T, n *C.size_t) C.fsdpa_status) ([]T, error) {
	var zero T
	elem := C.size_t(unsafe.Sizeof(zero))
	var buf *T
	defer func() { C.free(unsafe.Pointer(buf)) }()
	capacity := C.size_t(0)
	for {
		n := capacity
		st := call(buf, &n)
		switch {
		case st == C.FSDPA_OK && n <= capacity:
			if n == 0 {
				return []T{}, nil
			}
			out := make([]T, int(n))
			copy(out, unsafe.Slice(buf, int(n)))
			return out, nil
		case st == C.FSDPA_EBUFS && n > capacity:
			C.free(unsafe.Pointer(buf))
			capacity = n
			buf = (*T)(C.calloc(capacity, elem))
			if buf == nil {
				return nil, newError(StatusOutOfMemory, "out of memory (row buffer)")
			}
			*(*C.size_t)(unsafe.Pointer(buf)) = elem // out[0].size: the element stride
		case st == C.FSDPA_OK || st == C.FSDPA_EBUFS:
			return nil, newError(StatusBufferTooSmall, "row count inconsistent with the capacity")
		default:
			return nil, ctxError(st, p, false)
		}
	}
}

// ctxArray copies the contexts of as into C memory (the C API reads an
// array of context pointers: it may not live in Go memory).  Call done
// after the C call; it frees the array and keeps the analyzers alive.
func ctxArray(as []*Analyzer) (**C.fsdpa_ctx, []*C.fsdpa_ctx, func(), error) {
	if len(as) == 0 {
		return nil, nil, nil, newError(StatusInvalid, "no analyzers")
	}
	n := len(as)
	base := (**C.fsdpa_ctx)(C.malloc(C.size_t(n) * C.size_t(unsafe.Sizeof((*C.fsdpa_ctx)(nil)))))
	if base == nil {
		return nil, nil, nil, newError(StatusOutOfMemory, "out of memory (context array)")
	}
	ctxs := unsafe.Slice(base, n)
	for i, a := range as {
		p, err := a.ctx()
		if err != nil {
			C.free(unsafe.Pointer(base))
			return nil, nil, nil, err
		}
		ctxs[i] = p
	}
	done := func() {
		C.free(unsafe.Pointer(base))
		for _, a := range as {
			runtime.KeepAlive(a)
		}
	}
	return base, ctxs, done, nil
}

// takeBuffer copies a buffer the library handed over (char **out, size_t
// *out_len) and releases it with fsdpa_free().
func takeBuffer(out *C.char, n C.size_t) string {
	defer C.fsdpa_free(unsafe.Pointer(out))
	return C.GoStringN(out, C.int(n))
}
