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

// Error is a failed libfsdpa call.
type Error struct {
	Status  Status
	Message string // fsdpa_errmsg() of the context, or the status name
	Offset  int64  // byte offset of an input error (decompressed stream); -1 if none
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
	ErrOutOfMemory = &Error{Status: StatusOutOfMemory, Offset: -1}
	ErrInvalid     = &Error{Status: StatusInvalid, Offset: -1}
	ErrParse       = &Error{Status: StatusParse, Offset: -1}
	ErrNotATrace   = &Error{Status: StatusNotATrace, Offset: -1}
	ErrTruncated   = &Error{Status: StatusTruncated, Offset: -1}
	ErrLimit       = &Error{Status: StatusLimit, Offset: -1}
	ErrState       = &Error{Status: StatusState, Offset: -1}
	ErrIO          = &Error{Status: StatusIO, Offset: -1}
)

// ctxError builds the error of status st on ctx (may be nil).  The offset is
// read only after input calls: it belongs to the last input error.
func ctxError(st C.fsdpa_status, ctx *C.fsdpa_ctx, input bool) error {
	if st == C.FSDPA_OK {
		return nil
	}
	e := &Error{Status: Status(st), Offset: -1}
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

func newError(s Status, msg string) error {
	return &Error{Status: s, Message: msg, Offset: -1}
}
