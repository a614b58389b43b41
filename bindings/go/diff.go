package fsdpa

// Two runs compared (the diff group of fsdpa.h).  Experimental in the C
// API: the metrics compared may grow, so this file defines
// FSDPA_EXPERIMENTAL before including the header.

/*
#define FSDPA_EXPERIMENTAL 1
#include <stdlib.h>
#include <fsdpa/fsdpa.h>
*/
import "C"

// DiffOptions are the options of Diff (fsdpa_diff_options); the zero value
// is the library default with no gate.
type DiffOptions struct {
	Format              Format // FormatJSON (fsdpa.diff/1), FormatText or FormatHTML
	FailOnRegressionPPM *int64 // the gate, ppm of the base (50000 = 5 %); nil: no gate
	MinChangePPM        *int64 // the smallest change called worse / better, ppm; nil: the library's 5 %
	Width               int    // text: columns (40 .. 1000); 0 = 100
	Color               bool   // text: ANSI colors
	MaxMemoryBytes      uint64 // refuse to hold more than this (ErrLimit); 0 = no cap
}

// DiffResult is the comparison: the library's text and the gate's verdict.
type DiffResult struct {
	Text      string // fsdpa.diff/1 JSON, text or HTML, as asked
	Regressed bool   // the gate was set and the job's step time or exposed communication crossed it
}

// Diff compares two runs, each a JSON report (fsdpa.report/1) or a summary
// (fsdpa_diff).  A run that is neither is an *Error with StatusParse, the
// library's message, Input 0 (base) or 1 (next) and the byte offset.
// docs/report-contract.md ("Diff") defines every number.
func Diff(base, next []byte, o DiffOptions) (DiffResult, error) {
	var opts C.fsdpa_diff_options
	C.fsdpa_diff_options_init(&opts)
	opts.format = C.fsdpa_format(o.Format)
	if o.FailOnRegressionPPM != nil {
		opts.fail_on_regression_ppm = C.int64_t(*o.FailOnRegressionPPM)
	}
	if o.MinChangePPM != nil {
		opts.min_change_ppm = C.int64_t(*o.MinChangePPM)
	}
	opts.width = C.int(o.Width)
	if o.Color {
		opts.color = 1
	}
	opts.max_memory_bytes = C.uint64_t(o.MaxMemoryBytes)
	b, n := C.CBytes(base), C.CBytes(next)
	defer C.free(b)
	defer C.free(n)
	var out *C.char
	var outLen C.size_t
	var reg C.int
	e := newJobError()
	st := C.fsdpa_diff((*C.char)(b), C.size_t(len(base)), (*C.char)(n), C.size_t(len(next)), &opts, &out, &outLen,
		&reg, e)
	if err := jobError(st, e); err != nil {
		return DiffResult{}, err
	}
	return DiffResult{Text: takeBuffer(out, outLen), Regressed: reg != 0}, nil
}
