"""Query: the window and track selection of the analysis queries
(fsdpa_query).  Each keyword given sets its selector and its bit in
`fields`; a Query with none is the whole trace, every device and stream
(a zeroed fsdpa_query, as FSDPA_QUERY_INIT and fsdpa_query_init() make)."""
import ctypes
from dataclasses import dataclass
from typing import Optional

from . import _capi as C

# keyword -> (fsdpa_query member, FSDPA_QUERY_* bit)
_BITS = C.ENUMS["fsdpa_query_field"]
_SELECTORS = (("t0_ns", "t0_ns", _BITS["FSDPA_QUERY_T0"]),
              ("t1_ns", "t1_ns", _BITS["FSDPA_QUERY_T1"]),
              ("step", "step", _BITS["FSDPA_QUERY_STEP"]),
              ("device", "device", _BITS["FSDPA_QUERY_DEVICE"]),
              ("stream", "stream", _BITS["FSDPA_QUERY_STREAM"]))


@dataclass(frozen=True)
class Query:
    """t0_ns / t1_ns: window bounds (absolute ns, t1 exclusive); step: a
    step index (position in Analyzer.steps(), its CPU range is the window,
    intersected with the bounds); device; stream (id).  None = not set."""
    t0_ns: Optional[int] = None
    t1_ns: Optional[int] = None
    step: Optional[int] = None
    device: Optional[int] = None
    stream: Optional[int] = None

    @property
    def fields(self) -> int:
        """The FSDPA_QUERY_* bits of the selectors that are set."""
        bits = 0
        for kw, _member, bit in _SELECTORS:
            if getattr(self, kw) is not None:
                bits |= bit
        return bits

    def is_whole_trace(self) -> bool:
        return self.fields == 0

    def to_c(self) -> C.fsdpa_query:
        """The fsdpa_query: zeroed with its size set, then each selector
        given and its bit."""
        q = C.fsdpa_query()
        q.size = ctypes.sizeof(q)
        for kw, member, bit in _SELECTORS:
            v = getattr(self, kw)
            if v is not None:
                setattr(q, member, int(v))
                q.fields |= bit
        return q
