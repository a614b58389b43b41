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
        a.overlap(query=fsdpa.Query(step=1, device=0))   # the same selection as a value
        a.steps().to_pandas()                        # list results as DataFrames (pandas)

    report                                           # in Jupyter: the HTML report

`python -m fsdpa TRACE...` is `fsdpa analyze TRACE...` (the CLI installed with
the package).  The library: the copy installed with the package
(fsdpa/libfsdpa.so.2, `pip install .`), else $FSDPA_LIBRARY (full path of
libfsdpa.so.2, e.g. in a build tree), else ctypes.util.find_library("fsdpa"),
else libfsdpa.so.2.
"""
from ._base import ABSENT
from .analyzer import (Analyzer, CountingAllocator, analyze, annotate_events, annotate_file,
                       crossrank, crossrank_ranks, param_list, params, report_findings,
                       report_text, summary_findings, summary_merge, summary_report,
                       summary_report_json, version)
from .diff import Diff, diff
from .errors import (BufferTooSmallError, EmptyTraceError, FileReadError, FsdpaError,
                     InvalidArgumentError,
                     LimitError, NotATraceError, OutOfMemoryError, ParseError, StateError,
                     TruncatedError)
from .lists import ListView, RecordList
from .query import Query
from .report import (Finding, Findings, InputInfo, RankReport, Range, Report, ReportStep,
                     ReportStream)
from .types import (Backward, BackwardStep, BackwardUnit, CommSplit, CrossRank, CrossRankRank,
                    DeviceInfo, DevicePeak, Efficiency, Event, FsdpUnit, KernelStat, OpStat, LaunchGaps, LaunchLatency, LaunchQueue, MemoryDevice,
                    MemoryPoint, MemoryStep, MemorySummary, Overlap, Param, Stats, Step, Stream,
                    SyncCall, SyncStep, SyncWait, Timeline, TraceInfo)

Error = FsdpaError
# The version of the loaded library ("0.2.0"); an installed package's is
# also its distribution's version (meson's project version, pyproject.toml).
__version__: str = version()

__all__ = [
    "ABSENT", "analyze", "Analyzer", "annotate_events", "annotate_file", "Backward",
    "BackwardStep", "BackwardUnit", "BufferTooSmallError", "CommSplit", "CountingAllocator",
    "CrossRank", "crossrank", "crossrank_ranks", "CrossRankRank", "DeviceInfo", "DevicePeak",
    "Diff", "diff",
    "Efficiency", "EmptyTraceError", "Error", "Event", "KernelStat", "OpStat",
    "FileReadError", "Finding", "Findings", "FsdpaError", "FsdpUnit", "InputInfo",
    "InvalidArgumentError", "LaunchGaps", "LaunchLatency", "LaunchQueue", "LimitError",
    "ListView", "MemoryDevice", "MemoryPoint", "MemoryStep", "MemorySummary", "NotATraceError",
    "OutOfMemoryError", "Overlap", "Param", "param_list", "params", "ParseError", "Query",
    "Range", "RankReport", "RecordList", "Report", "report_findings", "report_text",
    "ReportStep", "ReportStream", "StateError", "Stats", "Step", "Stream", "summary_findings",
    "summary_merge", "summary_report", "summary_report_json", "SyncCall", "SyncStep",
    "SyncWait", "Timeline", "TraceInfo", "TruncatedError", "version",
]
