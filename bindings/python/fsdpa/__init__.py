"""Python binding of libfsdpa over ctypes (standard library only).

    import fsdpa
    report = fsdpa.analyze("rank0.json.gz")          # or a list of ranks' traces
    for f in report.findings:
        print(f.severity, f.id, f.title)

    with fsdpa.Analyzer("stream") as a:              # incremental
        for chunk in chunks:
            a.feed(chunk)
        a.finish()
        a.steps(); a.streams(); a.timeline(step=0); a.overlap(); a.launch_gaps()

The library is found through $FSDPA_LIBRARY (full path of libfsdpa.so, e.g.
in a build tree) or else ctypes.util.find_library("fsdpa").
"""
from ._base import ABSENT
from .analyzer import (Analyzer, CountingAllocator, analyze, annotate_events, annotate_file,
                       crossrank, crossrank_ranks, params, report_text, summary_merge,
                       summary_report, version)
from .errors import (BufferTooSmallError, FileReadError, FsdpaError, InvalidArgumentError,
                     LimitError, NotATraceError, OutOfMemoryError, ParseError, StateError,
                     TruncatedError)
from .report import (Finding, InputInfo, RankReport, Range, Report, ReportStep, ReportStream)
from .types import (Backward, BackwardStep, BackwardUnit, CommSplit, CrossRank, CrossRankRank,
                    Event, FsdpUnit, LaunchGaps, LaunchLatency, LaunchQueue, MemoryDevice,
                    MemoryPoint, MemoryStep, MemorySummary, Overlap, Stats, Step, Stream,
                    SyncCall, SyncStep, SyncWait, Timeline, TraceInfo)

Error = FsdpaError

__all__ = [
    "ABSENT", "analyze", "Analyzer", "annotate_events", "annotate_file", "Backward",
    "BackwardStep", "BackwardUnit", "BufferTooSmallError", "CommSplit", "CountingAllocator",
    "CrossRank", "crossrank", "crossrank_ranks", "CrossRankRank", "Error", "Event",
    "FileReadError", "Finding", "FsdpaError", "FsdpUnit", "InputInfo", "InvalidArgumentError",
    "LaunchGaps", "LaunchLatency", "LaunchQueue", "LimitError", "MemoryDevice", "MemoryPoint",
    "MemoryStep", "MemorySummary", "NotATraceError", "OutOfMemoryError", "Overlap", "params",
    "ParseError", "Range", "RankReport", "Report", "report_text", "ReportStep", "ReportStream",
    "StateError", "Stats", "Step", "Stream", "summary_merge", "summary_report", "SyncCall",
    "SyncStep", "SyncWait", "Timeline", "TraceInfo", "TruncatedError", "version",
]
