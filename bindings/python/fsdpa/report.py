"""The JSON report (schema fsdpa.report/1, docs/report-contract.md) as
dataclasses.  Every object keeps the JSON it came from: `to_dict()` returns
exactly that (fields the contract adds later included), `Report.json` the
library's text byte for byte."""
import copy
import json
from dataclasses import dataclass, field, fields
from typing import Any, Dict, List, Optional


class _FromJson:
    _raw: Dict[str, Any]

    @classmethod
    def _from(cls, d: Dict[str, Any], **conv):
        vals = {}
        for f in fields(cls):
            if f.name.startswith("_"):
                continue
            v = d.get(f.name)
            vals[f.name] = conv[f.name](v) if f.name in conv and v is not None else v
        obj = cls(**vals)
        object.__setattr__(obj, "_raw", d)
        return obj

    def to_dict(self) -> Dict[str, Any]:
        """The JSON object this was read from (a deep copy)."""
        return copy.deepcopy(self._raw)


def _list(cls, **conv):
    return lambda xs: [cls._from(x, **conv) for x in xs]


@dataclass(frozen=True)
class Range(_FromJson):
    """A time range a viewer should jump to (absolute ns, [start, end))."""
    start_ns: int
    end_ns: int
    _raw: Dict[str, Any] = field(default=None, repr=False, compare=False)


@dataclass(frozen=True)
class Finding(_FromJson):
    """One finding (ids and meanings: docs/report-contract.md)."""
    id: str
    severity: str                  # "info", "warning" or "critical"
    rank: int
    step: Optional[int]            # step number, None for rank-wide findings
    title: str
    detail: str
    advice: str
    cost_ns: Optional[int]         # time the problem costs
    evidence: Optional[Dict[str, Any]]   # the numbers that triggered it (incl. "ranges")
    _raw: Dict[str, Any] = field(default=None, repr=False, compare=False)

    @property
    def ranges(self) -> List[Range]:
        """evidence.ranges: where to look, worst first."""
        return [Range._from(r) for r in (self.evidence or {}).get("ranges", [])]


@dataclass(frozen=True)
class InputInfo(_FromJson):
    path: str
    rank: int
    world_size: Optional[int]
    events: int
    bytes: int                     # input bytes fed (compressed, as given)
    _raw: Dict[str, Any] = field(default=None, repr=False, compare=False)


@dataclass(frozen=True)
class ReportStep(_FromJson):
    name: str                      # "ProfilerStep#N"
    start_ns: int
    dur_ns: int
    _raw: Dict[str, Any] = field(default=None, repr=False, compare=False)


@dataclass(frozen=True)
class ReportStream(_FromJson):
    device: int
    stream: int
    role: str
    kernels: int
    busy_ns: int
    _raw: Dict[str, Any] = field(default=None, repr=False, compare=False)


@dataclass(frozen=True)
class RankReport(_FromJson):
    """One rank's part of the report.  The analysis sections are the JSON
    objects of the contract, as dicts."""
    rank: int
    span_ns: Optional[int]
    steps: List[ReportStep]
    streams: List[ReportStream]
    launch_gaps: Optional[Dict[str, Any]]
    overlap: Optional[Dict[str, Any]]
    fsdp: Optional[Dict[str, Any]]
    sync_waits: Optional[List[Dict[str, Any]]]
    allocator: Optional[Dict[str, Any]]
    _raw: Dict[str, Any] = field(default=None, repr=False, compare=False)


@dataclass(frozen=True)
class Report(_FromJson):
    """The whole report over one or more ranks."""
    schema: str
    version: str
    inputs: List[InputInfo]
    ranks: List[RankReport]
    cross_rank: Optional[Any]
    findings: List[Finding]
    json: str = field(default="", repr=False, compare=False)   # the library's text
    _raw: Dict[str, Any] = field(default=None, repr=False, compare=False)

    @classmethod
    def from_json(cls, text: str) -> "Report":
        d = json.loads(text)
        r = cls._from(d, inputs=_list(InputInfo),
                      ranks=_list(RankReport, steps=_list(ReportStep),
                                  streams=_list(ReportStream)),
                      findings=_list(Finding))
        object.__setattr__(r, "json", text)
        return r

    def findings_by_id(self, finding_id: str) -> List[Finding]:
        return [f for f in self.findings if f.id == finding_id]
