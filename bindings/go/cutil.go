package fsdpa

/*
#include <stdlib.h>
#include <fsdpa/fsdpa.h>
*/
import "C"

import (
	"fmt"
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

// takeList copies the items of a list result out into Go values and frees
// the list (the one list protocol of fsdpa.h): each item is read with
// fsdpa_list_get() into a C struct T whose `size` (the first member of
// every list item) is sizeof(T) as cgo sees the header, then converted by
// conv.  Strings inside the items belong to the list, so conv copies them
// (C.GoString) before the list goes.  The item lives in Go memory: it
// holds no Go pointer, only the C pointers the library writes into it.
// The list's kind is checked first, so a list of another struct is never
// read as T.
func takeList[T, G any](l *C.fsdpa_list, kind C.fsdpa_list_kind, conv func(*T) G) ([]G, error) {
	defer C.fsdpa_list_free(l)
	if got := C.fsdpa_list_type(l); got != kind {
		return nil, newError(StatusInvalid, fmt.Sprintf("list of kind %d where kind %d was expected", int(got), int(kind)))
	}
	n := int(C.fsdpa_list_count(l))
	out := make([]G, 0, n)
	for i := 0; i < n; i++ {
		var item T
		*(*C.size_t)(unsafe.Pointer(&item)) = C.size_t(unsafe.Sizeof(item))
		if st := C.fsdpa_list_get(l, C.size_t(i), unsafe.Pointer(&item)); st != C.FSDPA_OK {
			return nil, newError(Status(st), fmt.Sprintf("fsdpa_list_get(%d of %d): %s", i, n, Status(st)))
		}
		out = append(out, conv(&item))
	}
	return out, nil
}

// ctxList runs a list function of one context and copies its items out
// (takeList); a failure is the context's error (fsdpa_errmsg()).
func ctxList[T, G any](a *Analyzer, kind C.fsdpa_list_kind, call func(p *C.fsdpa_ctx, out **C.fsdpa_list) C.fsdpa_status,
	conv func(*T) G) ([]G, error) {
	p, err := a.ctx()
	if err != nil {
		return nil, err
	}
	defer runtime.KeepAlive(a) // the finalizer must not free the context during the call
	var l *C.fsdpa_list
	if err := ctxError(call(p, &l), p, false); err != nil {
		C.fsdpa_list_free(l) // NULL after a failure; freeing it is harmless either way
		return nil, err
	}
	return takeList(l, kind, conv)
}

// ctxArray copies the contexts of as into C memory (the C API reads an
// array of context pointers, which the library may look at for the whole
// call).  Call done after the C call; it frees the array and keeps the
// analyzers alive until then.
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
