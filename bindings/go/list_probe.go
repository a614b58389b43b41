package fsdpa

/*
#include <stdlib.h>
#include <string.h>
#include <fsdpa/fsdpa.h>
*/
import "C"

import (
	"runtime"
	"unsafe"
)

// Test support (unexported): a list held across other calls, to test what
// fsdpa.h promises about lists (a snapshot that later feeds and freeing the
// context do not change, read at the caller's struct size).  The public
// functions never keep a list: they copy it into a slice and free it.

type heldList struct{ l *C.fsdpa_list }

// holdStepList takes the analyzer's step list without copying it.
func (a *Analyzer) holdStepList() (*heldList, error) {
	p, err := a.ctx()
	if err != nil {
		return nil, err
	}
	defer runtime.KeepAlive(a)
	var l *C.fsdpa_list
	if err := ctxError(C.fsdpa_step_list(p, &l), p, false); err != nil {
		return nil, err
	}
	return &heldList{l}, nil
}

func (h *heldList) count() int { return int(C.fsdpa_list_count(h.l)) }

// steps reads every item (the list stays held).
func (h *heldList) steps() ([]Step, error) {
	var out []Step
	for i := 0; i < h.count(); i++ {
		var s C.fsdpa_step
		s.size = C.size_t(unsafe.Sizeof(s))
		if st := C.fsdpa_list_get(h.l, C.size_t(i), unsafe.Pointer(&s)); st != C.FSDPA_OK {
			return nil, newError(Status(st), "fsdpa_list_get")
		}
		out = append(out, Step{int64(s.number), int64(s.start_ns), int64(s.dur_ns)})
	}
	return out, nil
}

// getSized reads item i into a buffer of bufSize bytes (at least
// sizeof(fsdpa_step)) whose size field says size, every other byte 0xA5
// first.  It returns the status, the item as read, and whether the bytes
// from size on (those a caller's struct of that size does not have) are
// still 0xA5.
func (h *heldList) getSized(i int, size, bufSize uintptr) (Status, Step, bool) {
	buf := (*C.char)(C.malloc(C.size_t(bufSize)))
	defer C.free(unsafe.Pointer(buf))
	C.memset(unsafe.Pointer(buf), 0xA5, C.size_t(bufSize))
	*(*C.size_t)(unsafe.Pointer(buf)) = C.size_t(size)
	st := Status(C.fsdpa_list_get(h.l, C.size_t(i), unsafe.Pointer(buf)))
	s := (*C.fsdpa_step)(unsafe.Pointer(buf))
	untouched := true
	for k := size; k < bufSize; k++ {
		if k >= unsafe.Sizeof(C.size_t(0)) && *(*byte)(unsafe.Add(unsafe.Pointer(buf), k)) != 0xA5 {
			untouched = false
		}
	}
	return st, Step{int64(s.number), int64(s.start_ns), int64(s.dur_ns)}, untouched
}

// kind is fsdpa_list_type of the held list.
func (h *heldList) kind() int { return int(C.fsdpa_list_type(h.l)) }

func (h *heldList) free() { C.fsdpa_list_free(h.l); h.l = nil }

// stepStructSize is sizeof(fsdpa_step) as cgo sees the header.
const stepStructSize = unsafe.Sizeof(C.fsdpa_step{})

// nullListProbe is what the list functions say about a NULL list: its
// type, its count and the status of fsdpa_list_get on it; freeing it is a
// no-op.
func nullListProbe() (kind, count int, get Status) {
	var s C.fsdpa_step
	s.size = C.size_t(unsafe.Sizeof(s))
	C.fsdpa_list_free(nil)
	return int(C.fsdpa_list_type(nil)), int(C.fsdpa_list_count(nil)), Status(C.fsdpa_list_get(nil, 0, unsafe.Pointer(&s)))
}

// listKindSteps is FSDPA_LIST_STEPS.
const listKindSteps = int(C.FSDPA_LIST_STEPS)

// withSize returns cq with its size field set to n (a struct size the
// library must refuse when below the first released size).
func withSize(cq *C.fsdpa_query, n uintptr) *C.fsdpa_query { cq.size = C.size_t(n); return cq }
