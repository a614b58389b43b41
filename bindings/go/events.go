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

// Event is one structured trace event for AddEvent; nil = absent.  Times are
// ns relative to the trace clock base.
type Event struct {
	Ph                                                  byte
	Cat, Name, Collective, Dtype, PGName, SyncKind      *string
	Label                                               *string // metadata events: args.name
	Pid, Tid, TsNs, DurNs                               *int64
	Correlation, ExternalID                             *int64
	Stream, Device, Bytes                               *int64
	TotalAllocated, TotalReserved, DeviceType, DeviceID *int64
	InMsgNelems, OutMsgNelems, GroupSize, Seq           *int64
	WaitOnStream, WaitOnEventCorr                       *int64
	// record_shapes arguments of a cpu_op, as JSON text: args["Input Dims"],
	// args["Input type"], args["Concrete Inputs"]
	InputDims, InputTypes, ConcreteInputs *string
}

// AddEvent adds one event (same results as the event fed as JSON) (fsdpa_event_add).
func (a *Analyzer) AddEvent(e Event) error {
	p, err := a.ctx()
	if err != nil {
		return err
	}
	defer runtime.KeepAlive(a) // the finalizer must not free the context during the call
	// The struct holds pointers to the strings, so both live in C memory
	// (cgo forbids passing Go memory that contains Go pointers).
	ev := (*C.fsdpa_event)(C.malloc(C.size_t(unsafe.Sizeof(C.fsdpa_event{}))))
	defer C.free(unsafe.Pointer(ev))
	C.fsdpa_event_init(ev)
	ev.ph = C.char(e.Ph)
	str := func(s *string, dst **C.char, n *C.size_t) {
		if s != nil {
			*dst = (*C.char)(C.CBytes([]byte(*s)))
			*n = C.size_t(len(*s))
		}
	}
	str(e.Cat, &ev.cat, &ev.cat_len)
	str(e.Name, &ev.name, &ev.name_len)
	str(e.Collective, &ev.collective, &ev.collective_len)
	str(e.Dtype, &ev.dtype, &ev.dtype_len)
	str(e.Label, &ev.label, &ev.label_len)
	str(e.PGName, &ev.pg_name, &ev.pg_name_len)
	str(e.SyncKind, &ev.sync_kind, &ev.sync_kind_len)
	str(e.InputDims, &ev.input_dims, &ev.input_dims_len)
	str(e.InputTypes, &ev.input_types, &ev.input_types_len)
	str(e.ConcreteInputs, &ev.concrete_inputs, &ev.concrete_inputs_len)
	defer func() {
		for _, s := range []*C.char{ev.cat, ev.name, ev.collective, ev.dtype, ev.label, ev.pg_name, ev.sync_kind,
			ev.input_dims, ev.input_types, ev.concrete_inputs} {
			C.free(unsafe.Pointer(s))
		}
	}()
	ev.pid, ev.tid, ev.ts_ns, ev.dur_ns = cInt(e.Pid), cInt(e.Tid), cInt(e.TsNs), cInt(e.DurNs)
	ev.correlation, ev.external_id = cInt(e.Correlation), cInt(e.ExternalID)
	ev.stream, ev.device, ev.bytes = cInt(e.Stream), cInt(e.Device), cInt(e.Bytes)
	ev.in_msg_nelems, ev.out_msg_nelems = cInt(e.InMsgNelems), cInt(e.OutMsgNelems)
	ev.group_size, ev.seq = cInt(e.GroupSize), cInt(e.Seq)
	ev.total_allocated, ev.total_reserved = cInt(e.TotalAllocated), cInt(e.TotalReserved)
	ev.device_type, ev.device_id = cInt(e.DeviceType), cInt(e.DeviceID)
	ev.wait_on_stream, ev.wait_on_event_corr = cInt(e.WaitOnStream), cInt(e.WaitOnEventCorr)
	return ctxError(C.fsdpa_event_add(p, ev), p, false)
}
