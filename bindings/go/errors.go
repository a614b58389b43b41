package fsdpa

/*
#include <fsdpa/fsdpa.h>
*/
import "C"

import (
	"fmt"
	"strings"
)

// Status is an fsdpa_status value: 0 = success, negative = error.
type Status int

// The status codes of fsdpa.h (values frozen by the C API; checked against
// the header by the ABI test).
const (
	StatusOK             Status = 0
	StatusOutOfMemory    Status = -1 // FSDPA_ENOMEM: an allocation failed
	StatusInvalid        Status = -2 // FSDPA_EINVAL: bad argument
	StatusParse          Status = -3 // FSDPA_EPARSE: malformed JSON or gzip
	StatusNotATrace      Status = -4 // FSDPA_ENOTTRACE: not a Kineto/Chrome trace
	StatusTruncated      Status = -5 // FSDPA_ETRUNCATED: input ended inside the document
	StatusLimit          Status = -6 // FSDPA_ELIMIT: a configured cap was reached
	StatusState          Status = -7 // FSDPA_ESTATE: call not valid now
	StatusBufferTooSmall Status = -8 // FSDPA_EBUFS: caller buffer too small
	StatusIO             Status = -9 // FSDPA_EIO: reading a file (or a Go reader) failed
)

// String is the library's name of the status ("FSDPA_EPARSE: malformed input").
func (s Status) String() string {
	return C.GoString(C.fsdpa_status_str(C.fsdpa_status(s)))
}

// Error is a failed libfsdpa call.  Calls on one analyzer take the message
// from fsdpa_errmsg() of its context; calls over several analyzers or over
// summaries (ReportMany, ReportFindings, QueryCrossRank*, the summary
// functions, AnnotateEvents/AnnotateFile) from the fsdpa_error the library
// fills, which also says which input the error is about.
type Error struct {
	Status  Status
	Message string // the library's message, or the status name
	Offset  int64  // byte offset of an input error (decompressed stream), or inside the summary Input names; -1 if none
	Input   int    // index of the analyzer or summary the error is about (job calls); -1 if none in particular
}

func (e *Error) Error() string {
	if e.Offset >= 0 && !strings.Contains(e.Message, "offset") {
		return fmt.Sprintf("%s (at byte %d)", e.Message, e.Offset)
	}
	return e.Message
}

// Is makes errors.Is(err, fsdpa.ErrParse) etc. work: same status.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Status == e.Status
}

// Sentinels for errors.Is.
var (
	ErrOutOfMemory = &Error{Status: StatusOutOfMemory, Offset: -1, Input: -1}
	ErrInvalid     = &Error{Status: StatusInvalid, Offset: -1, Input: -1}
	ErrParse       = &Error{Status: StatusParse, Offset: -1, Input: -1}
	ErrNotATrace   = &Error{Status: StatusNotATrace, Offset: -1, Input: -1}
	ErrTruncated   = &Error{Status: StatusTruncated, Offset: -1, Input: -1}
	ErrLimit       = &Error{Status: StatusLimit, Offset: -1, Input: -1}
	ErrState       = &Error{Status: StatusState, Offset: -1, Input: -1}
	ErrIO          = &Error{Status: StatusIO, Offset: -1, Input: -1}
)

// ctxError builds the error of status st on ctx (may be nil).  The offset is
// read only after input calls: it belongs to the last input error.
func ctxError(st C.fsdpa_status, ctx *C.fsdpa_ctx, input bool) error {
	if st == C.FSDPA_OK {
		return nil
	}
	e := &Error{Status: Status(st), Offset: -1, Input: -1}
	if ctx != nil {
		e.Message = C.GoString(C.fsdpa_errmsg(ctx))
		if input {
			if off := int64(C.fsdpa_error_offset(ctx)); off != absent {
				e.Offset = off
			}
		}
	}
	if e.Message == "" {
		e.Message = Status(st).String()
	}
	return e
}

// newJobError is the fsdpa_error of a call without one context, reset with
// fsdpa_error_init() (status OK, message "", input and offset absent).
func newJobError() *C.fsdpa_error {
	e := new(C.fsdpa_error) // Go memory: the struct holds no pointer
	C.fsdpa_error_init(e)
	return e
}

// jobErrorSeen, when set (tests only), receives the fsdpa_error of every
// job call as the library left it, next to the call's return value, so the
// tests can hold the library to what fsdpa.h promises about it.
var jobErrorSeen func(ret Status, left Error)

// jobError turns the outcome of a call without one context into an *Error
// with the status the call returned and the message, input index and
// offset the library wrote into e.
func jobError(st C.fsdpa_status, e *C.fsdpa_error) error {
	left := Error{Status: Status(e.status), Message: C.GoString(&e.message[0]), Offset: -1, Input: -1}
	if off := int64(e.offset); off != absent {
		left.Offset = off
	}
	if in := int64(e.input); in != absent {
		left.Input = int(in)
	}
	if jobErrorSeen != nil {
		jobErrorSeen(Status(st), left)
	}
	if st == C.FSDPA_OK {
		return nil
	}
	out := left
	out.Status = Status(st)
	if out.Message == "" {
		out.Message = Status(st).String()
	}
	return &out
}

func newError(s Status, msg string) error {
	return &Error{Status: s, Message: msg, Offset: -1, Input: -1}
}
