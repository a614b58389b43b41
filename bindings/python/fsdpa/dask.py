"""Scale-out over Dask: each rank's trace is summarized where it lives (on a
Dask worker), the summaries are merged in a tree on the workers, and the
report is built from the merged summary.

    from dask.distributed import Client
    import fsdpa.dask

    client = Client("tcp://scheduler:8786")        # or Client() for a local cluster
    report = fsdpa.dask.analyze(["/data/rank0.json.gz", "/data/rank1.json.gz"], client)
    print(report.findings_by_id("straggler-rank"))

The report is byte-identical to ``fsdpa.analyze(paths)`` and to
``fsdpa analyze -f json PATHS`` on one machine: a summary (``fsdpa.summary/1``,
docs/summary-format.md) carries each rank's part of the report as the library
wrote it, and merging is associative, so the grouping of the merge tree does
not matter.  Only summaries (tens of kB per rank) travel, never traces.

The summary functions (fsdpa_summary_write/merge/report) are called through
ctypes here.  ``dask.distributed`` is imported only by :func:`analyze`, so
:func:`summarize`, :func:`merge` and :func:`report` work without Dask (e.g. in
any other scheduler, or from the ``fsdpa summarize`` / ``fsdpa merge`` CLI).
"""
import ctypes
import functools
import os
from typing import Dict, List, Optional, Sequence, Union

from . import _lib
from .analyzer import Analyzer
from .errors import check, error_for
from .report import Report

L = _lib.lib
_P = ctypes.POINTER
PathLike = Union[str, bytes, os.PathLike]


try:  # the declarations generated from fsdpa.h, when the binding has them
    from ._capi import SIGNATURES as _GEN, fsdpa_summary_options
except ImportError:
    _GEN = {}

if "fsdpa_summary_write" not in _GEN:
    class fsdpa_summary_options(ctypes.Structure):  # noqa: F811  (mirrors fsdpa.h)
        _fields_ = [("size", ctypes.c_size_t), ("allocator", _P(_lib.fsdpa_allocator)),
                    ("max_memory_bytes", ctypes.c_uint64), ("errbuf", ctypes.c_void_p),
                    ("errbuf_len", ctypes.c_size_t)]

    _SIGNATURES = {
        "fsdpa_summary_options_init": (None, [_P(fsdpa_summary_options)]),
        # char **out as void ** so the buffer reaches fsdpa_free() unconverted
        "fsdpa_summary_write": (_lib.fsdpa_status, [_lib.ctx_p, ctypes.c_char_p,
                                                    _P(ctypes.c_void_p), _P(ctypes.c_size_t)]),
        "fsdpa_summary_merge": (_lib.fsdpa_status, [_P(ctypes.c_char_p), _P(ctypes.c_size_t),
                                                    ctypes.c_size_t, _P(fsdpa_summary_options),
                                                    _P(ctypes.c_void_p), _P(ctypes.c_size_t)]),
        "fsdpa_summary_report": (_lib.fsdpa_status, [ctypes.c_char_p, ctypes.c_size_t,
                                                     _P(fsdpa_summary_options),
                                                     _P(_lib.fsdpa_report_options),
                                                     _P(ctypes.c_void_p), _P(ctypes.c_size_t)]),
    }
    for _name, (_res, _args) in _SIGNATURES.items():
        _f = getattr(L, _name)
        _f.restype = _res
        _f.argtypes = _args


def _take(out: ctypes.c_void_p, n: ctypes.c_size_t) -> bytes:
    try:
        return ctypes.string_at(out, n.value)
    finally:
        L.fsdpa_free(out)


def _options(max_memory_bytes: int = 0):
    o = fsdpa_summary_options()
    L.fsdpa_summary_options_init(ctypes.byref(o))
    o.max_memory_bytes = max_memory_bytes
    err = ctypes.create_string_buffer(256)
    o.errbuf = ctypes.cast(err, ctypes.c_void_p)
    o.errbuf_len = len(err)
    return o, err


def _raise(status: int, err) -> None:
    e = error_for(status)
    if err.value:
        e = type(e)(status, err.value.decode("utf-8", "replace"))
    raise e


def summarize(path: PathLike, *, rank: Optional[int] = None, params: Optional[Dict] = None,
              max_memory_bytes: int = 0, name: Optional[str] = None) -> bytes:
    """Read one rank's trace and return its summary (JSON bytes).

    ``name`` is the path recorded in the report's ``inputs`` (default: the
    path as given, like ``fsdpa analyze``).  ``rank`` overrides the trace's
    ``distributedInfo.rank``; a trace without one is rank 0.
    """
    label = name if name is not None else os.fsdecode(path)
    with Analyzer(label, rank=rank, params=params, max_memory_bytes=max_memory_bytes) as a:
        a.feed_file(path)
        p = a._ctx()
        out, n = ctypes.c_void_p(), ctypes.c_size_t()
        check(L.fsdpa_summary_write(p, os.fsencode(label), ctypes.byref(out), ctypes.byref(n)), p)
        return _take(out, n)


def merge(summaries: Sequence[bytes], *, max_memory_bytes: int = 0) -> bytes:
    """Merge summaries (single ranks or earlier merges), keeping their order.
    Associative: merge([merge([a, b]), c]) == merge([a, merge([b, c])])."""
    items = [bytes(s) for s in summaries]
    if not items:
        raise ValueError("merge needs at least one summary")
    k = len(items)
    ptrs = (ctypes.c_char_p * k)(*items)
    lens = (ctypes.c_size_t * k)(*[len(s) for s in items])
    o, err = _options(max_memory_bytes)
    out, n = ctypes.c_void_p(), ctypes.c_size_t()
    st = L.fsdpa_summary_merge(ptrs, lens, k, ctypes.byref(o), ctypes.byref(out), ctypes.byref(n))
    if st:
        _raise(st, err)
    return _take(out, n)


def report_json(summary: bytes, *, max_memory_bytes: int = 0) -> str:
    """The JSON report (fsdpa.report/1 text) of a (merged) summary."""
    s = bytes(summary)
    o, err = _options(max_memory_bytes)
    out, n = ctypes.c_void_p(), ctypes.c_size_t()
    st = L.fsdpa_summary_report(s, len(s), ctypes.byref(o), None, ctypes.byref(out),
                                ctypes.byref(n))
    if st:
        _raise(st, err)
    return _take(out, n).decode("utf-8")


def report(summary: bytes) -> Report:
    """The parsed report of a (merged) summary."""
    return Report.from_json(report_json(summary))


def _merge_tree(client, futures: List, split_every: int):
    level = list(futures)
    while len(level) > 1:
        level = [client.submit(merge, level[i:i + split_every], pure=False)
                 for i in range(0, len(level), split_every)]
    return level[0]


def analyze(paths: Sequence[PathLike], client=None, *, params: Optional[Dict] = None,
            max_memory_bytes: int = 0, split_every: int = 8,
            workers: Optional[Sequence[Optional[str]]] = None) -> Report:
    """Analyze the ranks' traces of one job on a Dask cluster.

    paths:    one trace per rank, as the workers see them (a shared file
              system, or each path on the worker named in ``workers``)
    client:   a ``distributed.Client``; None = the current default client
    workers:  optional worker address per path, for traces that only one
              worker can read (the task is pinned there)
    split_every: summaries merged per task in the merge tree (>= 2)

    Returns the same Report as ``fsdpa.analyze(paths)``.
    """
    if client is None:
        from distributed import get_client  # only here: Dask is optional
        client = get_client()
    paths = list(paths)
    if not paths:
        raise ValueError("analyze needs at least one trace")
    if split_every < 2:
        raise ValueError("split_every must be at least 2")
    if workers is not None and len(workers) != len(paths):
        raise ValueError("one worker (or None) per path")
    fn = functools.partial(summarize, params=params, max_memory_bytes=max_memory_bytes)
    futures = []
    for i, p in enumerate(paths):
        w = workers[i] if workers is not None else None
        futures.append(client.submit(fn, p, pure=False, workers=[w] if w else None,
                                     allow_other_workers=False))
    merged = _merge_tree(client, futures, split_every).result()
    return report(merged)
