"""Analyzer: one fsdpa_ctx (one trace, one rank), fed incrementally, and its
queries."""
import ctypes
import json
import os
import warnings
from typing import (Any, Callable, Dict, Iterable, List, Optional, Protocol, Sequence, Tuple,
                    TypeVar, Union)

from . import _capi as C
from . import _lib
from .errors import EmptyTraceError, InvalidArgumentError, NotATraceError, StateError, check, \
    check_err, error_for, error_from, new_error
from .lists import ListView, RecordList, Rows
from .query import Query
from .report import Finding, Findings, Report
from .types import (Backward, BackwardStep, BackwardUnit, CommSplit, CrossRank, CrossRankRank,
                    DeviceInfo, DevicePeak, Efficiency, Event, FsdpUnit, KernelStat, OpStat, LaunchGaps, LaunchLatency, LaunchQueue, MemoryDevice,
                    MemoryPoint, MemoryStep, MemorySummary, Overlap, Param, Stats, Step, Stream,
                    SyncCall, SyncStep, SyncWait, Timeline, TraceInfo)

L = _lib.lib
F = _lib.func
PathLike = Union[str, bytes, "os.PathLike[str]", "os.PathLike[bytes]"]
# A parameter value: an integer, or its text as `fsdpa params` prints it.
ParamValue = Union[int, str]
# A summary (Analyzer.summary(), summary_merge()) as text or UTF-8 bytes.
Summary = Union[str, bytes, bytearray, memoryview]
ABSENT = _lib.ABSENT
R = TypeVar("R")


class Readable(Protocol):
    """What Analyzer.read() reads: a binary file object."""

    def read(self, __n: int) -> bytes: ...

FORMATS = {v: k for k, v in C.ENUM_NAMES["fsdpa_format"].items()}          # "json" -> 0
SPLITS = {v: k for k, v in C.ENUM_NAMES["fsdpa_comm_split_by"].items()}    # "collective" -> 0


def _i64(v: Optional[int]) -> int:
    return ABSENT if v is None else int(v)


def _new(cls: Any) -> Any:
    """A zeroed C struct of `cls` with its size field set."""
    s = cls()
    s.size = ctypes.sizeof(cls)
    return s


def _query(query: Optional[Query] = None, t0_ns: Optional[int] = None,
           t1_ns: Optional[int] = None, step: Optional[int] = None,
           device: Optional[int] = None, stream: Optional[int] = None) -> Any:
    """The query argument of a C call: NULL (the whole trace) when nothing
    is selected, else a pointer to the fsdpa_query with the bits of the
    selectors given.  `query` (a Query) and the keywords are alternatives."""
    kws = (t0_ns, t1_ns, step, device, stream)
    if query is not None:
        if any(v is not None for v in kws):
            raise _einval("give either query= or the window keywords, not both")
        if not isinstance(query, Query):
            raise _einval("query must be an fsdpa.Query")
        return ctypes.byref(query.to_c())
    if all(v is None for v in kws):
        return None
    return ctypes.byref(Query(t0_ns, t1_ns, step, device, stream).to_c())


def _einval(msg: str) -> InvalidArgumentError:
    return InvalidArgumentError(_lib.STATUS["FSDPA_EINVAL"], msg)


class Analyzer:
    """Analysis context for one trace (one rank).

        a = Analyzer("rank0.json.gz")
        for chunk in chunks:
            a.feed(chunk)
        a.finish()
        print(a.steps(), a.timeline(step=0).density, a.result().findings)

    Queries work between feeds, on the events decoded so far (the input
    decodes in batches).  Window arguments: t0_ns/t1_ns (absolute ns, None =
    open), step (a step index, see steps(): its CPU range is the window),
    device, stream; or query=fsdpa.Query(...) instead.  Each one given
    selects; none = the whole trace.  Not thread-safe (one thread at a
    time; any thread).  Call close() or use `with`; the finalizer is a
    safety net.
    """

    def __init__(self, name: Optional[str] = None, *, rank: Optional[int] = None,
                 max_memory_bytes: int = 0, max_input_bytes: int = 0,
                 params: Optional[Dict[str, ParamValue]] = None,
                 _allocator: Optional["CountingAllocator"] = None) -> None:
        self._p = C.ctx_p()
        self.name = name
        opts = C.fsdpa_options()
        _lib.init(opts)
        opts.max_memory_bytes = max_memory_bytes
        opts.max_input_bytes = max_input_bytes
        opts.rank = _i64(rank)
        if name is not None:
            opts.name = os.fsencode(name)
        # The library copies the allocator struct; the Python callbacks it
        # points to must outlive the context, so the object is kept here.
        self._allocator = _allocator
        if _allocator is not None:
            opts.allocator = ctypes.pointer(_allocator.c_struct())
        check(L.fsdpa_ctx_new(ctypes.byref(self._p), ctypes.byref(opts)))
        for k, v in (params or {}).items():
            self.set_param(k, v)

    # ---- lifetime ----
    def close(self) -> None:
        """Free the context (idempotent).  Lists already read stay valid."""
        if self._p:
            L.fsdpa_ctx_free(self._p)
            self._p = C.ctx_p()

    def __enter__(self) -> "Analyzer":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __del__(self) -> None:
        try:
            self.close()
        except Exception:  # interpreter shutdown: module globals may be gone
            pass

    def _ctx(self) -> Any:
        if not self._p:
            raise StateError(_lib.STATUS["FSDPA_ESTATE"], "analyzer is closed")
        return self._p

    # ---- feeding ----
    def feed(self, data: Union[bytes, bytearray, memoryview]) -> None:
        """Feed the next bytes (bytes, bytearray, memoryview; any chunking).
        Raises ParseError/NotATraceError/LimitError with `.offset`."""
        p = self._ctx()
        buf: Any
        if isinstance(data, bytes):
            buf, n = data, len(data)
        else:
            mv = memoryview(data).cast("B")
            n = mv.nbytes
            buf = (ctypes.c_char * n).from_buffer(mv) if not mv.readonly else bytes(mv)
        if n:
            check(L.fsdpa_feed(p, buf, n), p)

    def feed_file(self, path: PathLike) -> None:
        """Feed a whole file (plain or gzip; "-" = stdin) and finish."""
        p = self._ctx()
        check(L.fsdpa_feed_file(p, os.fsencode(path)), p)

    def read(self, f: Readable, chunk_size: int = 1 << 20) -> None:
        """Feed everything from a binary file object (does not finish)."""
        while True:
            b = f.read(chunk_size)
            if not b:
                return
            self.feed(b)

    def finish(self) -> None:
        """End of input: raises TruncatedError/NotATraceError if the document
        is incomplete or is not a trace."""
        p = self._ctx()
        check(L.fsdpa_finish(p), p)

    def add_event(self, ev: Event) -> None:
        """Add one structured event (same results as the event fed as JSON)."""
        p = self._ctx()
        c, keep = ev._to_c(L)
        check(L.fsdpa_event_add(p, ctypes.byref(c)), p)
        del keep

    def set_trace_info(self, rank: Optional[int] = None, world_size: Optional[int] = None,
                       base_time_ns: Optional[int] = None) -> None:
        """Set trace metadata; None leaves a field unchanged."""
        p = self._ctx()
        i = C.fsdpa_trace_info()
        _lib.init(i)
        i.rank, i.world_size, i.base_time_ns = _i64(rank), _i64(world_size), _i64(base_time_ns)
        check(L.fsdpa_trace_info_set(p, ctypes.byref(i)), p)

    def set_param(self, key: str, value: ParamValue) -> None:
        """Set an analysis threshold by name (see fsdpa.params())."""
        p = self._ctx()
        check(L.fsdpa_param_set(p, key.encode(), str(value).encode()), p)

    def get_param(self, key: str) -> int:
        """The value a parameter has in this context."""
        p = self._ctx()
        v = ctypes.c_int64()
        check(L.fsdpa_param_get(p, key.encode(), ctypes.byref(v)), p)
        return v.value

    # ---- generic query shapes ----
    def _one(self, fname: str, cls: Callable[..., R], *args: Any) -> R:
        """fsdpa_X_query(ctx, args..., out) -> one dataclass."""
        p = self._ctx()
        out = _new(cls._c)  # type: ignore[attr-defined]
        check(F(fname)(p, *args, ctypes.byref(out)), p)
        r: R = cls._from_c(out)  # type: ignore[attr-defined]
        return r

    def _view(self, fname: str, cls: Any, *args: Any) -> ListView[Any]:
        """fsdpa_X_list(ctx, args..., &list) -> the list as a ListView."""
        p = self._ctx()
        return ListView.from_call(lambda out: check(F(fname)(p, *args, out), p), cls)

    def _list(self, fname: str, cls: Any, *args: Any, lazy: bool = False) -> Rows[Any]:
        """fsdpa_X_list(ctx, args..., &list) -> a Python list of dataclasses,
        or with lazy=True the ListView itself (the caller closes it)."""
        v = self._view(fname, cls, *args)
        return v if lazy else v.to_list()

    def _sel(self, query: Optional[Query], t0_ns: Optional[int], t1_ns: Optional[int],
             step: Optional[int], device: Optional[int], stream: Optional[int]) -> Any:
        """The query argument, after refusing a device or stream the trace
        does not have: as a step out of range raises, so does a selection
        that could only ever be empty (the C API answers it with an empty
        result; the binding says it is a mistake)."""
        q = query if query is not None else Query(t0_ns, t1_ns, step, device, stream)
        if q.device is not None or q.stream is not None:
            self._check_selectable(q.device, q.stream)
        return _query(query, t0_ns, t1_ns, step, device, stream)

    def _check_selectable(self, device: Optional[int], stream: Optional[int]) -> None:
        """Raise InvalidArgumentError unless the trace so far has GPU work or
        a synchronization on (device, stream), or for a device alone a
        [memory] event: what the queries' results are about."""
        places = [(s.device, s.stream) for s in self.streams()]
        places += [(k.device, k.stream) for k in self.sync_calls()]

        def has(dev: Optional[int], st: Optional[int]) -> bool:
            return any((dev is None or d == dev) and (st is None or s_ == st) for d, s_ in places)

        if has(device, stream):
            return
        if stream is None and any(m.device == device for m in self.memory_devices()):
            return
        what = " ".join(x for x in (f"device {device}" if device is not None else "",
                                    f"stream {stream}" if stream is not None else "") if x)
        known = sorted({f"{d}/{s_}" for d, s_ in places if d is not None and s_ is not None})
        raise _einval(f"query {what} out of range: the trace has no GPU activity there "
                      f"(its device/stream pairs: {', '.join(known) or 'none'})")

    # ---- tracks ----
    @property
    def trace_info(self) -> TraceInfo:
        p = self._ctx()
        i = C.fsdpa_trace_info()
        _lib.init(i)
        check(L.fsdpa_trace_info_get(p, ctypes.byref(i)), p)
        return TraceInfo._from_c(i)

    def stats(self) -> Stats:
        """Event counts so far."""
        return self._one("fsdpa_stats_get", Stats)

    def steps(self, *, lazy: bool = False) -> Rows[Step]:
        """ProfilerStep#N ranges seen so far, in start order."""
        return self._list("fsdpa_step_list", Step, lazy=lazy)

    def streams(self, *, lazy: bool = False) -> Rows[Stream]:
        """GPU streams seen so far, by device then stream."""
        return self._list("fsdpa_stream_list", Stream, lazy=lazy)

    def timeline(self, t0_ns: Optional[int] = None, t1_ns: Optional[int] = None, *,
                 step: Optional[int] = None, device: Optional[int] = None,
                 stream: Optional[int] = None, query: Optional[Query] = None) -> Timeline:
        """GPU timeline span and density over the window (all selected
        streams unioned: overlapping work counts once)."""
        return self._one("fsdpa_timeline_query", Timeline,
                         self._sel(query, t0_ns, t1_ns, step, device, stream))

    # ---- launch gaps ----
    def launch_gaps(self, t0_ns: Optional[int] = None, t1_ns: Optional[int] = None, *,
                    step: Optional[int] = None, device: Optional[int] = None,
                    stream: Optional[int] = None,
                    query: Optional[Query] = None) -> LaunchGaps:
        """Idle gaps between GPU ops by cause (HTA's categories) and histogram."""
        return self._one("fsdpa_launch_gaps_query", LaunchGaps,
                         self._sel(query, t0_ns, t1_ns, step, device, stream))

    def launch_latency(self, t0_ns: Optional[int] = None, t1_ns: Optional[int] = None, *,
                       step: Optional[int] = None, device: Optional[int] = None,
                       stream: Optional[int] = None,
                       query: Optional[Query] = None) -> LaunchLatency:
        """Launch call -> GPU start latencies."""
        return self._one("fsdpa_launch_latency_query", LaunchLatency,
                         self._sel(query, t0_ns, t1_ns, step, device, stream))

    def launch_queue(self, t0_ns: Optional[int] = None, t1_ns: Optional[int] = None, *,
                     step: Optional[int] = None, device: Optional[int] = None,
                     stream: Optional[int] = None,
                     query: Optional[Query] = None) -> LaunchQueue:
        """Depth of the queue of launched-but-not-started ops."""
        return self._one("fsdpa_launch_queue_query", LaunchQueue,
                         self._sel(query, t0_ns, t1_ns, step, device, stream))

    # ---- overlap and FSDP ----
    def overlap(self, t0_ns: Optional[int] = None, t1_ns: Optional[int] = None, *,
                step: Optional[int] = None, device: Optional[int] = None,
                stream: Optional[int] = None, query: Optional[Query] = None) -> Overlap:
        """Communication / compute overlap (HTA's definition)."""
        return self._one("fsdpa_overlap_query", Overlap,
                         self._sel(query, t0_ns, t1_ns, step, device, stream))

    def comm_split(self, by: str = "collective", t0_ns: Optional[int] = None,
                   t1_ns: Optional[int] = None, *, step: Optional[int] = None,
                   device: Optional[int] = None, stream: Optional[int] = None,
                   query: Optional[Query] = None, lazy: bool = False) -> Rows[CommSplit]:
        """Communication split by collective type or process group
        (by="collective" or "process_group")."""
        if by not in SPLITS:
            raise _einval(f"by must be one of {sorted(SPLITS)}")
        return self._list("fsdpa_comm_split_list", CommSplit,
                          self._sel(query, t0_ns, t1_ns, step, device, stream), SPLITS[by], lazy=lazy)

    def fsdp_version(self) -> Optional[int]:
        """2 (FSDP2 / fully_shard), 1 (FullyShardedDataParallel) or None."""
        v = F("fsdpa_fsdp_version")(self._ctx())
        return v or None

    def fsdp_units(self, t0_ns: Optional[int] = None, t1_ns: Optional[int] = None, *,
                   step: Optional[int] = None, device: Optional[int] = None,
                   stream: Optional[int] = None, query: Optional[Query] = None,
                   lazy: bool = False) -> Rows[FsdpUnit]:
        """Per FSDP unit and phase: communication, compute and exposed time
        (whole trace, or the instances inside the window; the entries and
        their order are the same either way)."""
        return self._list("fsdpa_fsdp_unit_list", FsdpUnit,
                          self._sel(query, t0_ns, t1_ns, step, device, stream), lazy=lazy)

    # ---- backward prefetch ----
    def backward(self) -> Backward:
        """The backward pattern (zigzag, no_prefetch, serialized, unknown)."""
        return self._one("fsdpa_backward_get", Backward)

    def backward_steps(self, *, lazy: bool = False) -> Rows[BackwardStep]:
        """One entry per step with backward units."""
        return self._list("fsdpa_backward_step_list", BackwardStep, lazy=lazy)

    def backward_units(self, step_index: int, *, lazy: bool = False) -> Rows[BackwardUnit]:
        """The units of backward step `step_index` (see backward_steps()), in
        backward order, with their prefetch links."""
        if step_index < 0:
            raise _einval("step_index must be >= 0")
        return self._list("fsdpa_backward_unit_list", BackwardUnit, step_index, lazy=lazy)

    # ---- blocking calls ----
    def sync_waits(self, t0_ns: Optional[int] = None, t1_ns: Optional[int] = None, *,
                   step: Optional[int] = None, device: Optional[int] = None,
                   stream: Optional[int] = None, query: Optional[Query] = None,
                   lazy: bool = False) -> Rows[SyncWait]:
        """Blocking calls per API, largest total first."""
        return self._list("fsdpa_sync_wait_list", SyncWait,
                          self._sel(query, t0_ns, t1_ns, step, device, stream), lazy=lazy)

    def sync_calls(self, t0_ns: Optional[int] = None, t1_ns: Optional[int] = None, *,
                   step: Optional[int] = None, device: Optional[int] = None,
                   stream: Optional[int] = None, query: Optional[Query] = None,
                   lazy: bool = False) -> Rows[SyncCall]:
        """Every blocking call, with what it waited for."""
        return self._list("fsdpa_sync_call_list", SyncCall,
                          self._sel(query, t0_ns, t1_ns, step, device, stream), lazy=lazy)

    def sync_steps(self, t0_ns: Optional[int] = None, t1_ns: Optional[int] = None, *,
                   step: Optional[int] = None, device: Optional[int] = None,
                   stream: Optional[int] = None, query: Optional[Query] = None,
                   lazy: bool = False) -> Rows[SyncStep]:
        """Blocking time per step."""
        return self._list("fsdpa_sync_step_list", SyncStep,
                          self._sel(query, t0_ns, t1_ns, step, device, stream), lazy=lazy)

    # ---- allocator and memory ----
    def memory(self, t0_ns: Optional[int] = None, t1_ns: Optional[int] = None, *,
               step: Optional[int] = None, device: Optional[int] = None,
               stream: Optional[int] = None, query: Optional[Query] = None) -> MemorySummary:
        """Allocator calls, memory levels and fragmentation over the window."""
        return self._one("fsdpa_memory_query", MemorySummary,
                         self._sel(query, t0_ns, t1_ns, step, device, stream))

    def memory_devices(self, t0_ns: Optional[int] = None, t1_ns: Optional[int] = None, *,
                       step: Optional[int] = None, device: Optional[int] = None,
                       stream: Optional[int] = None, query: Optional[Query] = None,
                       lazy: bool = False) -> Rows[MemoryDevice]:
        """Memory levels per device."""
        return self._list("fsdpa_memory_device_list", MemoryDevice,
                          self._sel(query, t0_ns, t1_ns, step, device, stream), lazy=lazy)

    def memory_series(self, buckets: int, memory_device: Optional[int] = None,
                      t0_ns: Optional[int] = None, t1_ns: Optional[int] = None, *,
                      step: Optional[int] = None, query: Optional[Query] = None,
                      lazy: bool = False) -> Rows[MemoryPoint]:
        """Allocated/reserved timeline of one device (None = the primary one),
        downsampled into at most `buckets` buckets (the query's device and
        stream are ignored)."""
        if buckets < 1:
            raise _einval("buckets must be >= 1")
        return self._list("fsdpa_memory_series_list", MemoryPoint,
                          _query(query, t0_ns, t1_ns, step), _i64(memory_device), buckets,
                          lazy=lazy)

    def memory_steps(self, t0_ns: Optional[int] = None, t1_ns: Optional[int] = None, *,
                     step: Optional[int] = None, device: Optional[int] = None,
                     stream: Optional[int] = None, query: Optional[Query] = None,
                     lazy: bool = False) -> Rows[MemoryStep]:
        """Allocator activity and memory levels per step."""
        return self._list("fsdpa_memory_step_list", MemoryStep,
                          self._sel(query, t0_ns, t1_ns, step, device, stream), lazy=lazy)

    # ---- reports ----
    def devices(self, *, lazy: bool = False) -> Rows[DeviceInfo]:
        """The devices described so far (the trace's deviceProperties, or
        set_device()), by device (fsdpa_device_list())."""
        return self._list("fsdpa_device_list", DeviceInfo, lazy=lazy)

    def set_device(self, device: int, name: str = "", sms: Optional[int] = None,
                   compute_major: Optional[int] = None, compute_minor: Optional[int] = None,
                   total_memory_bytes: Optional[int] = None) -> None:
        """Describe a device as a deviceProperties entry does, for structured
        events (fsdpa_device_info_set()); replaces an earlier description."""
        p = self._ctx()
        d = C.fsdpa_device_info()
        _lib.init(d)
        d.device = device
        d.name = name.encode("utf-8")[:63]
        d.sms, d.compute_major = _i64(sms), _i64(compute_major)
        d.compute_minor, d.total_memory_bytes = _i64(compute_minor), _i64(total_memory_bytes)
        check(L.fsdpa_device_info_set(p, ctypes.byref(d)), p)

    def kernels(self, t0_ns: Optional[int] = None, t1_ns: Optional[int] = None, *,
                step: Optional[int] = None, device: Optional[int] = None, stream: Optional[int] = None,
                query: Optional[Query] = None, fsdp_unit: Optional[int] = None, max_rows: int = 0,
                lazy: bool = False) -> Rows[KernelStat]:
        """The kernel table of the window and streams (fsdpa_kernel_list(),
        experimental): GPU ops by name, largest total first.  fsdp_unit: the
        position of one entry of fsdp_units() (a unit in one phase);
        max_rows > 0 folds the rest into one row."""
        sel = C.fsdpa_kernel_select()
        _lib.init(sel)
        sel.fsdp_unit = -1 if fsdp_unit is None else fsdp_unit
        sel.max_rows = max_rows
        return self._list("fsdpa_kernel_list", KernelStat,
                          self._sel(query, t0_ns, t1_ns, step, device, stream), ctypes.byref(sel), lazy=lazy)

    def ops(self, t0_ns: Optional[int] = None, t1_ns: Optional[int] = None, *,
            step: Optional[int] = None, device: Optional[int] = None, stream: Optional[int] = None,
            query: Optional[Query] = None, max_rows: int = 0, lazy: bool = False) -> Rows[OpStat]:
        """The op table of the window and streams (fsdpa_op_list(),
        experimental): calls by (op, shapes), with FLOPs, bytes and achieved
        TFLOP/s, TB/s where a model exists."""
        return self._list("fsdpa_op_list", OpStat,
                          self._sel(query, t0_ns, t1_ns, step, device, stream), max_rows, lazy=lazy)

    def efficiency(self, t0_ns: Optional[int] = None, t1_ns: Optional[int] = None, *,
                   step: Optional[int] = None, device: Optional[int] = None, stream: Optional[int] = None,
                   query: Optional[Query] = None) -> Efficiency:
        """Busy-time efficiency and MFU of the window (fsdpa_efficiency_query(),
        experimental)."""
        return self._one("fsdpa_efficiency_query", Efficiency,
                         self._sel(query, t0_ns, t1_ns, step, device, stream))

    def efficiency_steps(self, t0_ns: Optional[int] = None, t1_ns: Optional[int] = None, *,
                         device: Optional[int] = None, stream: Optional[int] = None,
                         query: Optional[Query] = None, lazy: bool = False) -> Rows[Efficiency]:
        """Efficiency per ProfilerStep (fsdpa_efficiency_step_list(), experimental)."""
        return self._list("fsdpa_efficiency_step_list", Efficiency,
                          self._sel(query, t0_ns, t1_ns, None, device, stream), lazy=lazy)

    def device_peak(self, device: Optional[int] = None) -> DevicePeak:
        """The peak-table row of a device (None: the rank's device)
        (fsdpa_device_peak_get(), experimental)."""
        return self._one("fsdpa_device_peak_get", DevicePeak, _i64(device))

    def report(self, fmt: str = "json", *, path: Optional[str] = None, color: bool = False,
               html_step: Optional[int] = None) -> str:
        """The report of this trace alone (fmt: json, text, html), as text."""
        return report_text([self], [path if path is not None else self.name], fmt=fmt,
                           color=color, html_step=html_step)

    def findings(self) -> Findings:
        """The findings of this trace's report, typed (fsdpa_report_findings())."""
        return report_findings([self])

    def result(self, path: Optional[str] = None, *, html: bool = True) -> Report:
        """The JSON report of this trace as dataclasses (the findings typed,
        from the library, not re-read from the JSON).  With html (the
        default) the report also keeps the HTML report of the same state
        (`Report.html`, what a Jupyter cell shows)."""
        return Report.from_json(self.report("json", path=path), findings=self.findings(),
                                html=self.report("html", path=path) if html else None)

    def summary(self, path: Optional[str] = None) -> str:
        """This rank's summary (fsdpa.summary/1): merge the ranks' summaries
        with summary_merge() and turn them into the report with
        summary_report(), without holding every trace at once."""
        p = self._ctx()
        name = path if path is not None else self.name
        return _take_buffer(lambda out, n: F("fsdpa_summary_write")(
            p, os.fsencode(name) if name is not None else None, out, n), ctx=p)


def _take_buffer(call: Callable[[Any, Any], int], ctx: Any = None, err: Any = None) -> str:
    """Run `call(char **out, size_t *len)`, return the text and free it.
    Errors: from `err` (an fsdpa_error the call filled) if given, else from
    the context `ctx`."""
    out = ctypes.c_void_p()
    n = ctypes.c_size_t()
    st = call(ctypes.byref(out), ctypes.byref(n))
    if st != 0:
        raise error_from(st, err) if err is not None else error_for(st, ctx)
    try:
        return ctypes.string_at(out, n.value).decode("utf-8")
    finally:
        L.fsdpa_free(out)


def _ctx_array(analyzers: Sequence[Analyzer]) -> Any:
    if not analyzers:
        raise _einval("no analyzers")
    return (C.ctx_p * len(analyzers))(*[a._ctx() for a in analyzers])


def report_text(analyzers: Sequence[Analyzer], paths: Optional[Sequence[Optional[str]]] = None,
                fmt: str = "json", *, color: bool = False,
                html_step: Optional[int] = None) -> str:
    """Report over several analyzers (the ranks of one job) as text."""
    if fmt not in FORMATS:
        raise _einval(f"unknown format '{fmt}' (json, text, html)")
    ctxs = _ctx_array(analyzers)
    n = len(analyzers)
    names = (ctypes.c_char_p * n)()
    if paths is not None:
        if len(paths) != n:
            raise _einval("one path per analyzer")
        for i, pth in enumerate(paths):
            names[i] = os.fsencode(pth) if pth is not None else None
    o = _report_options(fmt, color, html_step)
    err = new_error()
    return _take_buffer(lambda out, ln: L.fsdpa_report(ctxs, names, n, ctypes.byref(o), out, ln,
                                                       ctypes.byref(err)), err=err)


def _report_options(fmt: str, color: bool = False, html_step: Optional[int] = None) -> Any:
    o = C.fsdpa_report_options()
    _lib.init(o)
    o.format = FORMATS[fmt]
    o.color = 1 if color else 0
    o.html_step = _i64(html_step)
    return o


def _findings(call: Callable[[Any], Any]) -> Findings:
    """Run `call(fsdpa_list **out)` (raising on failure) and read the list
    of fsdpa_finding into Findings (their worst severity from the library)."""
    view: ListView[Any]
    with ListView.from_call(call, C.RESULTS["fsdpa_finding"]) as view:
        worst = L.fsdpa_findings_worst(view._h)
        items: List[Any] = list(view)
    return Findings([Finding._from_item(x) for x in items],
                    worst=C.ENUM_NAMES["fsdpa_severity"].get(worst) if worst >= 0 else None)


def report_findings(analyzers: Sequence[Analyzer]) -> Findings:
    """The findings of the report over these analyzers (the ranks of one
    job), typed, in the report's order (fsdpa_report_findings())."""
    ctxs = _ctx_array(analyzers)
    err = new_error()
    return _findings(lambda out: check_err(
        L.fsdpa_report_findings(ctxs, len(analyzers), out, ctypes.byref(err)), err))


def crossrank(analyzers: Sequence[Analyzer]) -> CrossRank:
    """Cross-rank analysis over the ranks of one job (collective matching,
    clock alignment, straggler)."""
    ctxs = _ctx_array(analyzers)
    out = _new(C.fsdpa_crossrank)
    err = new_error()
    check_err(F("fsdpa_crossrank_query")(ctxs, len(analyzers), ctypes.byref(out),
                                         ctypes.byref(err)), err)
    return CrossRank._from_c(out)


def crossrank_ranks(analyzers: Sequence[Analyzer]) -> RecordList[CrossRankRank]:
    """Per-rank part of the cross-rank analysis, in the order given."""
    ctxs = _ctx_array(analyzers)
    err = new_error()
    return ListView.from_call(lambda out: check_err(F("fsdpa_crossrank_rank_list")(
        ctxs, len(analyzers), out, ctypes.byref(err)), err), CrossRankRank).to_list()


def annotate_events(analyzers: Sequence[Analyzer], i: int = 0) -> List[Dict[str, Any]]:
    """Experimental (FSDPA_EXPERIMENTAL in the C API: may change in any
    release).  The trace events fsdpa_annotate_file() adds to trace i of
    the job (the findings as Perfetto / chrome://tracing events), parsed
    from JSON."""
    ctxs = _ctx_array(analyzers)
    if not 0 <= i < len(analyzers):
        raise _einval("index out of range")
    err = new_error()
    text = _take_buffer(lambda out, ln: F("fsdpa_annotate_events")(
        ctxs, len(analyzers), i, out, ln, ctypes.byref(err)), err=err)
    events: List[Dict[str, Any]] = json.loads(text)
    return events


def annotate_file(analyzers: Sequence[Analyzer], i: int, in_path: PathLike, out_path: PathLike,
                  *, gzip: Optional[bool] = None, level: int = 0) -> None:
    """Experimental (FSDPA_EXPERIMENTAL in the C API: may change in any
    release).  Write a copy of trace i (`in_path`, the file analyzers[i]
    was fed) to `out_path` with the findings added as events.  gzip: None =
    by the output name (".gz"), level: 1..9 (0 = 6)."""
    ctxs = _ctx_array(analyzers)
    if not 0 <= i < len(analyzers):
        raise _einval("index out of range")
    o = C.fsdpa_annotate_options()
    _lib.init(o)
    o.gzip = -1 if gzip is None else int(bool(gzip))
    o.level = level
    err = new_error()
    check_err(F("fsdpa_annotate_file")(ctxs, len(analyzers), i, os.fsencode(in_path),
                                       os.fsencode(out_path), ctypes.byref(o),
                                       ctypes.byref(err)), err)


def summary_options(max_memory_bytes: int = 0) -> Any:
    """fsdpa_summary_options with defaults and the cap."""
    o = C.fsdpa_summary_options()
    _lib.init(o)
    o.max_memory_bytes = max_memory_bytes
    return o


def _summary_bytes(s: Summary) -> bytes:
    return s.encode("utf-8") if isinstance(s, str) else bytes(s)


def summary_merge(summaries: Sequence[Summary], max_memory_bytes: int = 0) -> str:
    """Merge rank summaries (Analyzer.summary()) or earlier merges."""
    if not summaries:
        raise _einval("no summaries")
    bs = [_summary_bytes(s) for s in summaries]
    n = len(bs)
    ptrs = (ctypes.c_char_p * n)(*bs)
    lens = (ctypes.c_size_t * n)(*[len(b) for b in bs])
    o = summary_options(max_memory_bytes)
    err = new_error()
    return _take_buffer(lambda out, ln: F("fsdpa_summary_merge")(
        ptrs, lens, n, ctypes.byref(o), out, ln, ctypes.byref(err)), err=err)


def summary_report_json(summary: Summary, max_memory_bytes: int = 0) -> str:
    """The JSON report text (fsdpa.report/1) of a (merged) summary."""
    b = _summary_bytes(summary)
    o = summary_options(max_memory_bytes)
    ro = _report_options("json")
    err = new_error()
    return _take_buffer(lambda out, ln: F("fsdpa_summary_report")(
        b, len(b), ctypes.byref(o), ctypes.byref(ro), out, ln, ctypes.byref(err)), err=err)


def summary_findings(summary: Summary, max_memory_bytes: int = 0) -> Findings:
    """The findings of the report of a (merged) summary, typed: the same as
    report_findings() over the ranks' traces (fsdpa_summary_findings())."""
    b = _summary_bytes(summary)
    o = summary_options(max_memory_bytes)
    err = new_error()
    return _findings(lambda out: check_err(F("fsdpa_summary_findings")(
        b, len(b), ctypes.byref(o), out, ctypes.byref(err)), err))


def summary_report(summary: Summary, max_memory_bytes: int = 0) -> Report:
    """The JSON report of a (merged) summary: the same as analyze() over the
    ranks' traces.  It has no HTML (`Report.html` is None): the HTML report
    needs the events, which a summary does not keep."""
    return Report.from_json(summary_report_json(summary, max_memory_bytes),
                            findings=summary_findings(summary, max_memory_bytes))


def _paths(path_or_paths: Union[PathLike, Iterable[PathLike]]) -> List[PathLike]:
    if isinstance(path_or_paths, (str, bytes, os.PathLike)):
        return [path_or_paths]
    return list(path_or_paths)


def expand_inputs(path_or_paths: Union[PathLike, Iterable[PathLike]]) -> List[Tuple[str, bool]]:
    """The traces the paths name, as `fsdpa analyze` takes them: a directory
    stands for its files whose names end in .json or .json.gz (not hidden
    ones, not its subdirectories), in byte order of their names; anything
    else is itself.  Each as (path, from_directory).  A directory without
    such files is an InvalidArgumentError (the CLI's usage error)."""
    out: List[Tuple[str, bool]] = []
    for p in _paths(path_or_paths):
        ps = os.fsdecode(p)
        if ps != "-" and os.path.isdir(ps):
            names = sorted((n for n in os.listdir(ps)
                            if not n.startswith(".") and (n.endswith(".json") or n.endswith(".json.gz"))
                            and len(n) > len(".json")),
                           key=os.fsencode)
            files = [os.path.join(ps.rstrip("/") or "/", n) for n in names]
            files = [f for f in files if os.path.isfile(f)]
            if not files:
                raise _einval(f"{ps}: no traces in this directory (*.json, *.json.gz; "
                              "subdirectories are not searched)")
            out.extend((f, True) for f in files)
        else:
            out.append((ps, False))
    return out


def analyze(path_or_paths: Union[PathLike, Iterable[PathLike]], *,
            params: Optional[Dict[str, ParamValue]] = None, max_memory_bytes: int = 0,
            html: bool = True, allow_empty: bool = False) -> Report:
    """Analyze one trace, or the traces of the ranks of one job, and return
    the report (its JSON text is the same bytes `fsdpa analyze --format
    json` writes for the same paths; the findings are typed, from
    fsdpa_report_findings()).  With html (the default) the report also
    keeps the HTML report, the bytes of `fsdpa analyze --format html`
    (`Report.html`; a Jupyter cell shows it).

    The inputs are the CLI's: a path may be a directory (its *.json and
    *.json.gz files, sorted by name; a file there that is not a trace is
    skipped with a warning), params take what --set takes ("30%" for a
    share), a trace without distributedInfo.rank is numbered by its
    position, a trace with no event raises EmptyTraceError unless
    allow_empty, and traces that are not one job (a rank twice, two world
    sizes) raise InvalidArgumentError."""
    inputs = expand_inputs(path_or_paths)
    if not inputs:
        raise _einval("no trace given")
    analyzers = []
    names: List[Optional[str]] = []
    try:
        for i, (pth, from_dir) in enumerate(inputs):
            a = Analyzer(pth, params=params, max_memory_bytes=max_memory_bytes)
            try:
                a.feed_file(pth)
            except NotATraceError as e:
                a.close()
                if not from_dir:
                    raise
                warnings.warn(f"skipped {e}", stacklevel=2)
                continue
            analyzers.append(a)
            names.append(pth)
            if not allow_empty and a.stats().events == 0:
                raise EmptyTraceError(_lib.STATUS["FSDPA_ENOTTRACE"],
                                      f"{pth}: empty trace: it holds no event (did the profiler "
                                      "record any step?); allow_empty=True reports it anyway")
            if a.trace_info.rank is None:
                a.set_trace_info(rank=i)
        sizes = {ws for ws in (a.trace_info.world_size for a in analyzers) if ws is not None}
        if len(sizes) > 1:
            warnings.warn("the traces are not one job: world sizes " +
                          ", ".join(str(x) for x in sorted(sizes)) +
                          "; the report treats them as the ranks of one job", stacklevel=2)
        if not analyzers:
            raise NotATraceError(_lib.STATUS["FSDPA_ENOTTRACE"],
                                 "no traces to analyze: every file of the directories given was skipped")
        text = report_text(analyzers, names)
        page = report_text(analyzers, names, "html") if html else None
        return Report.from_json(text, findings=report_findings(analyzers), html=page)
    finally:
        for a in analyzers:
            a.close()


def version() -> str:
    """Version string of the loaded library."""
    return L.fsdpa_version_string().decode()


def param_list() -> RecordList[Param]:
    """Every analysis parameter (fsdpa_param_list()), in the library's order."""
    return ListView.from_call(lambda out: check(L.fsdpa_param_list(out)), Param).to_list()


def params() -> Dict[str, Tuple[str, str]]:
    """Analysis parameters: {name: (default, description)}, the default as
    the decimal text `fsdpa params` prints (fsdpa_param_list())."""
    return {str(p.name): (str(p.default_value), str(p.description)) for p in param_list()}


class CountingAllocator:
    """An fsdpa_allocator over the C heap that counts live bytes and calls:
    lets a test prove a context frees everything it allocated."""

    def __init__(self) -> None:
        self.live_bytes = 0
        self.live_blocks = 0
        self.calls = 0
        self.peak_bytes = 0
        libc = ctypes.CDLL(None)
        self._malloc = libc.malloc
        self._malloc.restype, self._malloc.argtypes = ctypes.c_void_p, [ctypes.c_size_t]
        self._realloc = libc.realloc
        self._realloc.restype = ctypes.c_void_p
        self._realloc.argtypes = [ctypes.c_void_p, ctypes.c_size_t]
        self._free = libc.free
        self._free.restype, self._free.argtypes = None, [ctypes.c_void_p]
        f: Dict[str, Any] = dict(C.fsdpa_allocator._fields_)  # type: ignore[arg-type]
        self._cbs = (f["malloc_fn"](self._m), f["realloc_fn"](self._r), f["free_fn"](self._f))
        self._struct = C.fsdpa_allocator(ctypes.sizeof(C.fsdpa_allocator),  # type: ignore
                                         *self._cbs, None)

    def c_struct(self) -> Any:
        return self._struct

    def _m(self, ud: Any, n: int) -> Optional[int]:
        p = self._malloc(n)
        if p:
            self.calls += 1
            self.live_blocks += 1
            self.live_bytes += n
            self.peak_bytes = max(self.peak_bytes, self.live_bytes)
        return p

    def _r(self, ud: Any, p: Optional[int], old_n: int, new_n: int) -> Optional[int]:
        q = self._realloc(p, new_n)
        if q:
            self.calls += 1
            self.live_bytes += new_n - old_n
            self.peak_bytes = max(self.peak_bytes, self.live_bytes)
        return q

    def _f(self, ud: Any, p: Optional[int], n: int) -> None:
        if p:
            self.calls += 1
            self.live_blocks -= 1
            self.live_bytes -= n
        self._free(p)
