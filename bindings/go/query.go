package fsdpa

/*
#include <fsdpa/fsdpa.h>
*/
import "C"

// Query selects a window and tracks for the analysis queries.  The zero
// value is the whole trace, every device and every stream (as a NULL query
// or a zeroed fsdpa_query in C).  A selector counts only when it is set
// (non-nil): it sets its bit in fsdpa_query.fields.  An activity counts by
// its part inside the window [T0Ns, T1Ns); with both a step and bounds the
// window is their intersection; an end at or before the start is an empty
// window.  Set the selectors directly or with the With* methods:
//
//	q := fsdpa.Query{}.WithStep(2).WithDevice(0)
type Query struct {
	T0Ns, T1Ns *int64 // window [T0Ns, T1Ns), absolute ns; nil = open on that side
	Step       *int64 // index of a step (position in Steps) whose CPU range is the window
	Device     *int64 // only this device
	Stream     *int64 // only this stream (id)
}

// QueryField is a bit of fsdpa_query.fields: which selectors a query sets.
type QueryField uint32

// Values of enum fsdpa_query_field.
const (
	QueryT0     QueryField = 1 << 0 // T0Ns bounds the window from below
	QueryT1     QueryField = 1 << 1 // T1Ns bounds the window from above
	QueryStep   QueryField = 1 << 2 // Step selects a step's CPU range as the window
	QueryDevice QueryField = 1 << 3 // Device selects one device
	QueryStream QueryField = 1 << 4 // Stream selects one stream
)

// Fields is the fsdpa_query.fields mask of q: the bits of the selectors it sets.
func (q Query) Fields() QueryField {
	var f QueryField
	for _, s := range []struct {
		set bool
		bit QueryField
	}{{q.T0Ns != nil, QueryT0}, {q.T1Ns != nil, QueryT1}, {q.Step != nil, QueryStep},
		{q.Device != nil, QueryDevice}, {q.Stream != nil, QueryStream}} {
		if s.set {
			f |= s.bit
		}
	}
	return f
}

// WithWindow returns q with the window [t0, t1) (absolute ns).
func (q Query) WithWindow(t0, t1 int64) Query { q.T0Ns, q.T1Ns = &t0, &t1; return q }

// WithT0 returns q with the window bounded from below by t0 (absolute ns).
func (q Query) WithT0(t0 int64) Query { q.T0Ns = &t0; return q }

// WithT1 returns q with the window bounded from above by t1 (absolute ns, exclusive).
func (q Query) WithT1(t1 int64) Query { q.T1Ns = &t1; return q }

// WithStep returns q with the CPU range of step index i (see Steps) as its window.
func (q Query) WithStep(i int64) Query { q.Step = &i; return q }

// WithDevice returns q selecting only device d.
func (q Query) WithDevice(d int64) Query { q.Device = &d; return q }

// WithStream returns q selecting only stream s.
func (q Query) WithStream(s int64) Query { q.Stream = &s; return q }

// c is q as the C API reads it: fsdpa_query_init() (the whole trace), then
// each set selector with its bit.  The struct is Go memory (it holds no
// pointer); the library reads it during the call only.
func (q Query) c() *C.fsdpa_query {
	cq := new(C.fsdpa_query)
	C.fsdpa_query_init(cq)
	set := func(v *int64, bit QueryField, dst *C.int64_t) {
		if v != nil {
			*dst = C.int64_t(*v)
			cq.fields |= C.uint32_t(bit)
		}
	}
	set(q.T0Ns, QueryT0, &cq.t0_ns)
	set(q.T1Ns, QueryT1, &cq.t1_ns)
	set(q.Step, QueryStep, &cq.step)
	set(q.Device, QueryDevice, &cq.device)
	set(q.Stream, QueryStream, &cq.stream)
	return cq
}

// cQueryPtr is the C query the unexported query methods take (nil: a NULL
// query); the tests name it.
type cQueryPtr = *C.fsdpa_query

// rawQuery (test support) is an fsdpa_query with any fields mask and any
// values, including values in selectors whose bit is not set, which the
// library must ignore.  A nil *C.fsdpa_query passed to the unexported query
// methods is a NULL query.
func rawQuery(fields QueryField, t0, t1, step, device, stream int64) *C.fsdpa_query {
	cq := new(C.fsdpa_query)
	cq.size = C.size_t(C.sizeof_fsdpa_query)
	cq.fields = C.uint32_t(fields)
	cq.t0_ns, cq.t1_ns, cq.step = C.int64_t(t0), C.int64_t(t1), C.int64_t(step)
	cq.device, cq.stream = C.int64_t(device), C.int64_t(stream)
	return cq
}

// cQueryMembers (test support) is the C form of q member by member, to be
// compared with the header's FSDPA_QUERY_INIT.
func cQueryMembers(q Query) map[string]int64 {
	cq := q.c()
	return map[string]int64{"size": int64(cq.size), "fields": int64(cq.fields), "t0_ns": int64(cq.t0_ns),
		"t1_ns": int64(cq.t1_ns), "step": int64(cq.step), "device": int64(cq.device), "stream": int64(cq.stream)}
}
