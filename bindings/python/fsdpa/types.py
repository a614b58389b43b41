"""Result dataclasses (generated from fsdpa.h into _capi.py) and the input
Event.  Integers the C API marks absent (FSDPA_ABSENT), negative "no value"
ratios and NULL strings become None; enums are their short lower-case names
("compute", "zigzag", ...), as in the JSON report."""
import builtins
from dataclasses import dataclass
from typing import Any, List, Optional, Tuple

from . import _capi, _lib
from ._base import Record
from ._capi import (Backward, BackwardStep, BackwardUnit, CommSplit, CrossRank,  # noqa: F401
                    CrossRankRank, DeviceInfo, DevicePeak, Efficiency, FsdpUnit, KernelStat,
                    LaunchGaps, LaunchLatency, LaunchQueue, MemoryDevice, MemoryPoint, MemoryStep,
                    MemorySummary, OpStat, Overlap, Param, Stats, Step, Stream, SyncCall, SyncStep,
                    SyncWait, Timeline, TraceInfo)

__all__ = ["Backward", "BackwardStep", "BackwardUnit", "CommSplit", "CrossRank", "CrossRankRank",
           "DeviceInfo", "DevicePeak", "Efficiency", "Event", "FsdpUnit", "KernelStat", "OpStat", "LaunchGaps", "LaunchLatency", "LaunchQueue", "MemoryDevice",
           "MemoryPoint", "MemoryStep", "MemorySummary", "Overlap", "Param", "Stats", "Step",
           "Stream",
           "SyncCall", "SyncStep", "SyncWait", "Timeline", "TraceInfo"]



def _step_name(self: Step) -> str:
    return f"ProfilerStep#{self.number}"


Step.name = property(_step_name,  # type: ignore[attr-defined]
                     doc='"ProfilerStep#N", as the report names the step')

_EVENT_INTS = ("pid", "tid", "ts_ns", "dur_ns", "correlation", "external_id", "stream",
               "device", "bytes", "total_allocated", "total_reserved", "device_type",
               "device_id", "in_msg_nelems", "out_msg_nelems", "group_size", "seq",
               "wait_on_stream", "wait_on_event_corr")
_EVENT_STRS = ("cat", "name", "collective", "dtype", "pg_name", "sync_kind", "label", "input_dims",
               "input_types", "concrete_inputs")


@dataclass
class Event(Record):
    """One trace event for Analyzer.add_event() (fsdpa_event).  None = absent.
    Times are integer ns relative to the trace clock base."""
    ph: str = ""
    cat: Optional[str] = None
    name: Optional[str] = None
    pid: Optional[int] = None
    tid: Optional[int] = None
    ts_ns: Optional[int] = None
    dur_ns: Optional[int] = None
    correlation: Optional[int] = None
    external_id: Optional[int] = None
    stream: Optional[int] = None
    device: Optional[int] = None
    bytes: Optional[int] = None
    total_allocated: Optional[int] = None
    total_reserved: Optional[int] = None
    device_type: Optional[int] = None
    device_id: Optional[int] = None
    in_msg_nelems: Optional[int] = None
    out_msg_nelems: Optional[int] = None
    group_size: Optional[int] = None
    seq: Optional[int] = None
    wait_on_stream: Optional[int] = None
    wait_on_event_corr: Optional[int] = None
    collective: Optional[str] = None
    dtype: Optional[str] = None
    pg_name: Optional[str] = None
    sync_kind: Optional[str] = None
    label: Optional[str] = None
    input_dims: Optional[str] = None       # args["Input Dims"] of a cpu_op, JSON text (record_shapes)
    input_types: Optional[str] = None      # args["Input type"], JSON text
    concrete_inputs: Optional[str] = None  # args["Concrete Inputs"], JSON text

    # (`bytes` is a field here: the type is builtins.bytes)
    def _to_c(self, lib: Any) -> Tuple[Any, List[builtins.bytes]]:
        """The C struct plus the byte strings it points into (keep both alive
        for the call; the library copies them)."""
        ev = _lib.init(_capi.fsdpa_event())
        keep: List[builtins.bytes] = []
        if self.ph:
            ev.ph = self.ph.encode()[:1]
        for f in _EVENT_INTS:
            v = getattr(self, f)
            if v is not None:
                setattr(ev, f, v)
        for f in _EVENT_STRS:
            v = getattr(self, f)
            if v is not None:
                b = v.encode("utf-8") if isinstance(v, str) else bytes(v)
                keep.append(b)
                setattr(ev, f, b)
                setattr(ev, f + "_len", len(b))
        return ev, keep
