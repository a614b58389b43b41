package fsdpa

// Annotated traces: the findings written into a copy of a trace as trace
// events (the annotate group of fsdpa.h).  Experimental in the C API: the
// added events' names and arguments may change in any release, so only this
// file (and abi_info.go, for the layout check) defines FSDPA_EXPERIMENTAL
// before including the header.

/*
#define FSDPA_EXPERIMENTAL 1
#include <stdlib.h>
#include <fsdpa/fsdpa.h>
*/
import "C"

import (
	"encoding/json"
	"unsafe"
)

// AnnotateEvents returns the trace events AnnotateFile adds to trace i of
// the job (the findings of the report over as whose rank is that trace's,
// as Perfetto / chrome://tracing events): a JSON array (fsdpa_annotate_events;
// experimental).
func AnnotateEvents(as []*Analyzer, i int) (json.RawMessage, error) {
	base, ctxs, done, err := ctxArray(as)
	if err != nil {
		return nil, err
	}
	defer done()
	if i < 0 { // an index past the last context goes to the library, which refuses it
		return nil, newError(StatusInvalid, "negative trace index")
	}
	var out *C.char
	var n C.size_t
	e := newJobError()
	if err := jobError(C.fsdpa_annotate_events(base, C.size_t(len(ctxs)), C.size_t(i), &out, &n, e), e); err != nil {
		return nil, err
	}
	return json.RawMessage(takeBuffer(out, n)), nil
}

// AnnotateOptions are the options of AnnotateFile; the zero value is the
// library default (gzip when the output name ends in ".gz", level 6).
type AnnotateOptions struct {
	Gzip  *bool // true: gzip the output, false: plain JSON, nil: by the output name
	Level int   // gzip level 1..9; 0 = 6
}

// AnnotateFile writes a copy of trace i (inPath, plain or gzip: the file
// as[i] was fed) to outPath ("-" = standard output) with the findings added
// as trace events; every byte of the input is kept.  On failure no output
// file is left (fsdpa_annotate_file; experimental).
func AnnotateFile(as []*Analyzer, i int, inPath, outPath string, o AnnotateOptions) error {
	base, ctxs, done, err := ctxArray(as)
	if err != nil {
		return err
	}
	defer done()
	if i < 0 { // an index past the last context goes to the library, which refuses it
		return newError(StatusInvalid, "negative trace index")
	}
	var ao C.fsdpa_annotate_options
	C.fsdpa_annotate_options_init(&ao)
	if o.Gzip != nil {
		ao.gzip = 0
		if *o.Gzip {
			ao.gzip = 1
		}
	}
	ao.level = C.int(o.Level)
	in, out := C.CString(inPath), C.CString(outPath)
	defer C.free(unsafe.Pointer(in))
	defer C.free(unsafe.Pointer(out))
	e := newJobError()
	return jobError(C.fsdpa_annotate_file(base, C.size_t(len(ctxs)), C.size_t(i), in, out, &ao, e), e)
}
