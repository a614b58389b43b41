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
wrote it, and merging is associative and commutative, so neither the grouping
of the merge tree nor the order of the traces matters.  Only summaries (tens of kB per rank) travel, never traces.

The summary functions (fsdpa_summary_write/merge/report/findings) are called
through the binding (fsdpa/analyzer.py).  ``dask.distributed`` is imported
only by :func:`analyze`, so :func:`summarize`, :func:`merge` and
:func:`report` work without Dask (e.g. in any other scheduler, or from the
``fsdpa summarize`` / ``fsdpa merge`` CLI).
"""
import functools
import os
from typing import Any, Dict, List, Optional, Sequence, Union

from . import analyzer as _an
from .analyzer import Analyzer
from .report import Report

PathLike = Union[str, bytes, "os.PathLike[str]", "os.PathLike[bytes]"]


def summarize(path: PathLike, *, rank: Optional[int] = None,
              params: Optional[Dict[str, Union[int, str]]] = None,
              max_memory_bytes: int = 0, name: Optional[str] = None) -> bytes:
    """Read one rank's trace and return its summary (JSON bytes).

    ``name`` is the path recorded in the report's ``inputs`` (default: the
    path as given, like ``fsdpa analyze``).  ``rank`` overrides the trace's
    ``distributedInfo.rank``; a trace without one is rank 0.
    """
    label = name if name is not None else os.fsdecode(path)
    with Analyzer(label, rank=rank, params=params, max_memory_bytes=max_memory_bytes) as a:
        a.feed_file(path)
        return a.summary(label).encode("utf-8")


def merge(summaries: Sequence[bytes], *, max_memory_bytes: int = 0) -> bytes:
    """Merge summaries (single ranks or earlier merges); the ranks come out in
    rank order (equal ranks in the order given).  Associative:
    merge([merge([a, b]), c]) == merge([a, merge([b, c])]), and for distinct
    ranks commutative: merge([b, a]) == merge([a, b]).
    A bad summary raises ParseError naming it (`.input`: its index,
    `.offset`: the byte offset inside it)."""
    items = [bytes(s) for s in summaries]
    if not items:
        raise ValueError("merge needs at least one summary")
    return _an.summary_merge(items, max_memory_bytes=max_memory_bytes).encode("utf-8")


def report_json(summary: bytes, *, max_memory_bytes: int = 0) -> str:
    """The JSON report (fsdpa.report/1 text) of a (merged) summary."""
    return _an.summary_report_json(bytes(summary), max_memory_bytes)


def report(summary: bytes) -> Report:
    """The report of a (merged) summary (findings typed, from
    fsdpa_summary_findings())."""
    return _an.summary_report(bytes(summary))


def _merge_tree(client: Any, futures: List[Any], split_every: int) -> Any:
    level = list(futures)
    while len(level) > 1:
        level = [client.submit(merge, level[i:i + split_every], pure=False)
                 for i in range(0, len(level), split_every)]
    return level[0]


def analyze(paths: Sequence[PathLike], client: Any = None, *,
            params: Optional[Dict[str, Union[int, str]]] = None,
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
