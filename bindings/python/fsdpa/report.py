"""The JSON report (schema fsdpa.report/1, docs/report-contract.md) as
dataclasses.  Every object keeps the JSON it came from: `to_dict()` returns
exactly that (fields the contract adds later included), `Report.json` the
library's text byte for byte.  The findings of a report the binding makes
come typed from the library (fsdpa_report_findings(): the same list, in the
same order, as the JSON's `findings[]`); their `to_dict()` is that JSON
object.  A report made from traces also keeps the library's HTML report
(`Report.html`), which is what a Jupyter cell shows for it."""
import copy
import html as _html
import json
from dataclasses import dataclass, field, fields
from typing import TYPE_CHECKING, Any, Callable, Dict, Iterable, List, Optional, Type, TypeVar

from .lists import to_pandas
from .tables import Table, table as _table

if TYPE_CHECKING:  # pandas is optional: only type checkers import it here
    import pandas  # type: ignore[import]

J = TypeVar("J", bound="_FromJson")


class _FromJson:
    _raw: Dict[str, Any]

    @classmethod
    def _from(cls: Type[J], d: Dict[str, Any], **conv: Callable[[Any], Any]) -> J:
        vals = {}
        for f in fields(cls):
            if f.name.startswith("_"):
                continue
            v = d.get(f.name)
            vals[f.name] = conv[f.name](v) if f.name in conv and v is not None else v
        obj = cls(**vals)  # type: ignore[call-arg]
        object.__setattr__(obj, "_raw", d)
        return obj

    def to_dict(self) -> Dict[str, Any]:
        """The JSON object this was read from (a deep copy)."""
        return copy.deepcopy(self._raw)


def _list(cls: Type[J], **conv: Callable[[Any], Any]) -> Callable[[Any], List[J]]:
    return lambda xs: [cls._from(x, **conv) for x in xs]


@dataclass(frozen=True)
class Range(_FromJson):
    """A time range a viewer should jump to (absolute ns, [start, end))."""
    start_ns: int
    end_ns: int
    _raw: Dict[str, Any] = field(default_factory=dict, repr=False, compare=False)


# The order of a finding's keys in the JSON report (report/findings.c).
_FINDING_KEYS = ("id", "severity", "rank", "step", "title", "detail", "advice", "cost_ns",
                 "saving_ns", "saving_share", "evidence")
# a memory finding's cost_bytes comes between these two parts when it has one
_AFTER_COST = _FINDING_KEYS.index("cost_ns") + 1


@dataclass(frozen=True)
class Finding(_FromJson):
    """One finding (ids and meanings: docs/report-contract.md)."""
    id: str
    severity: str                  # "info", "warning" or "critical"
    rank: Optional[int]            # the rank it is about; None for a job-wide finding
    step: Optional[int]            # step number, None for rank-wide findings
    title: str
    detail: str
    advice: str
    cost_ns: Optional[int]         # time the problem costs
    cost_bytes: Optional[int]      # memory findings only: the bytes it costs (else None)
    # what fixing it would save: the rank's dependency graph replayed with
    # the finding's edges removed (docs/report-contract.md "What-if"), over
    # saving_window_ns; None where the fix is not replayed
    saving_ns: Optional[int]
    saving_share: Optional[float]  # saving_ns / saving_window_ns; None with saving_ns
    evidence: Optional[Dict[str, Any]]   # the numbers that triggered it (incl. "ranges")
    _raw: Dict[str, Any] = field(default_factory=dict, repr=False, compare=False)
    _ranges: Optional[tuple] = field(default=None, repr=False, compare=False)
    _typed: bool = field(default=False, repr=False, compare=False)
    _saving_window_ns: Optional[int] = field(default=None, repr=False, compare=False)

    @property
    def ranges(self) -> List[Range]:
        """Where to look, worst first: the typed ranges of the library's
        finding (fsdpa_finding.ranges), else evidence.ranges of the JSON."""
        if self._ranges is not None:
            return list(self._ranges)
        return [Range._from(r) for r in (self.evidence or {}).get("ranges", [])]

    @property
    def saving_window_ns(self) -> Optional[int]:
        """The length of the window saving_ns was measured over, None with
        saving_ns: the library's fsdpa_finding.saving_window_ns, else
        evidence.saving_window_ns of the JSON."""
        if self._typed:
            return self._saving_window_ns
        if self.saving_ns is None or not isinstance(self.evidence, dict):
            return None
        return self.evidence.get("saving_window_ns")

    @classmethod
    def _from_item(cls, item: Any) -> "Finding":
        """From the typed fsdpa_finding (a FindingItem): the same values, and
        the same dict, as the JSON report's finding."""
        evidence = json.loads(item.evidence_json) if item.evidence_json is not None else None
        d = {"id": item.id, "severity": item.severity, "rank": item.rank, "step": item.step,
             "title": item.title, "detail": item.detail, "advice": item.advice,
             "cost_ns": item.cost_ns, "saving_ns": item.saving_ns,
             "saving_share": _saving_share(item.saving_ns, item.saving_window_ns),
             "evidence": evidence}
        raw = {k: d[k] for k in _FINDING_KEYS[:_AFTER_COST]}
        # the library writes a memory finding's byte cost from its evidence
        # (fsdpa_finding has no field for it), right after cost_ns
        if isinstance(evidence, dict) and evidence.get("cost_bytes") is not None:
            raw["cost_bytes"] = evidence["cost_bytes"]
        for k in _FINDING_KEYS[_AFTER_COST:]:
            raw[k] = d[k]
        f = cls._from(raw)
        ranges = tuple(Range._from({"start_ns": r.start_ns, "end_ns": r.end_ns})
                       for r in item.ranges)
        object.__setattr__(f, "_ranges", ranges)
        object.__setattr__(f, "_typed", True)
        object.__setattr__(f, "_saving_window_ns", item.saving_window_ns)
        return f


def _saving_share(saving_ns: Optional[int], window_ns: Optional[int]) -> Optional[float]:
    """The report's saving_share: saving_ns over the window it was measured
    over, as the library writes a ratio (6 decimals; null when absent or
    negative), so the typed finding's dict is the JSON's."""
    if saving_ns is None or not window_ns:
        return None
    share = saving_ns / window_ns
    return float(f"{share:.6f}") if share >= 0 else None


_SEVERITY_ORDER = ("info", "warning", "critical")


class Findings(List[Finding]):
    """A list of Finding, worst cost first, with `worst`: the highest
    severity among them ("info", "warning", "critical"), None if empty."""

    def __init__(self, items: Iterable[Finding] = (), worst: Optional[str] = None) -> None:
        super().__init__(items)
        if worst is None and self:
            worst = max((f.severity for f in self), key=_SEVERITY_ORDER.index)
        self.worst = worst

    def by_id(self, finding_id: str) -> List[Finding]:
        return [f for f in self if f.id == finding_id]

    def to_pandas(self) -> "pandas.DataFrame":
        """The findings as a pandas DataFrame, one row per finding, the
        columns those of the JSON report's findings (id, severity, rank,
        step, title, detail, advice, cost_ns, cost_bytes, saving_ns,
        saving_share, evidence); see
        fsdpa.lists.to_pandas."""
        return to_pandas(self, Finding)


@dataclass(frozen=True)
class InputInfo(_FromJson):
    path: str
    rank: int
    world_size: Optional[int]
    events: int
    bytes: int                     # input bytes fed (compressed, as given)
    _raw: Dict[str, Any] = field(default_factory=dict, repr=False, compare=False)


@dataclass(frozen=True)
class ReportStep(_FromJson):
    name: str                      # "ProfilerStep#N"
    start_ns: int
    dur_ns: int
    _raw: Dict[str, Any] = field(default_factory=dict, repr=False, compare=False)


@dataclass(frozen=True)
class ReportStream(_FromJson):
    device: int
    stream: int
    role: str
    kernels: int
    busy_ns: int
    _raw: Dict[str, Any] = field(default_factory=dict, repr=False, compare=False)


@dataclass(frozen=True)
class RankReport(_FromJson):
    """One rank's part of the report.  The analysis sections are the JSON
    objects of the contract (docs/report-contract.md, the authority), as
    dicts.  Sections added in 0.2 (None when the report has no such key, as
    one written by 0.1):

    - `workload`: `parallelism` labels (FSDP1, FSDP2, DDP, tensor_parallel,
      ...), `mode` (train / prefill / decode / mixed / inference / unknown), `evidence`;
    - `iterations`: `source` (ProfilerStep, engine_step, optimizer_step,
      benchmark_annotation, dataloader, none), `rule`, `count`, `ranges`;
    - `comm_families`: communication kernel families and the rule (name,
      user, provenance) that classified them;
    - `sync_classes`: runtime calls by API class, blocking by name or by
      behaviour (`classes`, `by_behaviour`);
    - `other_devices`: events of device backends present but not analyzed;
    - `dataloader`: DataLoader ranges and the GPU idle inside them.

    Inside the 0.1 sections, 0.2 added `launch_gaps.idle_causes` (the GPU
    idle split into host_not_launched, host_blocked, stream_wait, rank_wait
    and unknown), `launch_gaps.warmup` (the warm-up iteration the findings
    leave out), `launch_gaps.sampling`, and `allocator.backend` (native,
    expandable_segments, cudaMallocAsync) with `backend_evidence`, `vmm`,
    `async_pool`, `pinned_host`, `by_api`.  New finding ids:
    `dataloader-stall`, `pinned-host-churn`."""
    rank: int
    span_ns: Optional[int]
    steps: List[ReportStep]
    streams: List[ReportStream]
    launch_gaps: Optional[Dict[str, Any]]
    overlap: Optional[Dict[str, Any]]
    fsdp: Optional[Dict[str, Any]]
    sync_waits: Optional[List[Dict[str, Any]]]
    allocator: Optional[Dict[str, Any]]
    comm_families: Optional[List[Dict[str, Any]]] = None
    sync_classes: Optional[Dict[str, Any]] = None
    other_devices: Optional[List[Dict[str, Any]]] = None
    dataloader: Optional[Dict[str, Any]] = None
    workload: Optional[Dict[str, Any]] = None
    iterations: Optional[Dict[str, Any]] = None
    _raw: Dict[str, Any] = field(default_factory=dict, repr=False, compare=False)


@dataclass(frozen=True)
class Report(_FromJson):
    """The whole report over one or more ranks."""
    schema: str
    version: str
    inputs: List[InputInfo]
    ranks: List[RankReport]
    cross_rank: Optional[Any]
    findings: Findings
    # the rules that could not judge: [{rule, ranks, reason, would_judge}]
    not_judged: Optional[List[Dict[str, Any]]] = None
    # the whole job: per_rank rows and the findings grouped by id
    job: Optional[Dict[str, Any]] = None
    json: str = field(default="", repr=False, compare=False)   # the library's text
    # The library's HTML report of the same analysis (`fsdpa analyze
    # --format html`), when the report was made from the traces (analyze(),
    # Analyzer.result()); None for one read from JSON or a summary.
    html: Optional[str] = field(default=None, repr=False, compare=False)
    _raw: Dict[str, Any] = field(default_factory=dict, repr=False, compare=False)

    @classmethod
    def from_json(cls, text: str, findings: Optional[List[Finding]] = None,
                  html: Optional[str] = None) -> "Report":
        """Parse the report text.  `findings`: the typed findings of the same
        report (fsdpa_report_findings()) to use instead of reading them from
        the JSON; without them (a report from elsewhere) they are read from
        the text.  `html`: the HTML report of the same analysis, if any."""
        d = json.loads(text)
        r = cls._from(d, inputs=_list(InputInfo),
                      ranks=_list(RankReport, steps=_list(ReportStep),
                                  streams=_list(ReportStream)),
                      findings=lambda xs: Findings(Finding._from(x) for x in xs))
        if findings is not None:
            object.__setattr__(r, "findings", findings if isinstance(findings, Findings)
                               else Findings(findings))
        object.__setattr__(r, "json", text)
        object.__setattr__(r, "html", html)
        return r

    def findings_by_id(self, finding_id: str) -> List[Finding]:
        return [f for f in self.findings if f.id == finding_id]

    def table(self, name: str) -> Table:
        """One table of the report, as `fsdpa render -f csv --table NAME`
        writes it (ranks, findings, job_findings, streams, idle_causes,
        not_judged), with to_pandas() and to_csv()."""
        return _table(self.json, name)

    @property
    def per_rank(self) -> Table:
        """A row per rank: step time, GPU busy, idle by cause, exposed
        communication, top finding (job.per_rank)."""
        return self.table("ranks")

    @property
    def job_findings(self) -> Table:
        """The findings grouped by id across ranks (job.findings)."""
        return self.table("job_findings")

    @property
    def streams(self) -> Table:
        """Every rank's GPU streams and their launch gaps."""
        return self.table("streams")

    @property
    def idle_causes(self) -> Table:
        """Every rank's GPU idle split by cause."""
        return self.table("idle_causes")

    @property
    def not_judged_table(self) -> Table:
        """The rules that could not judge, why, and what would let them."""
        return self.table("not_judged")

    def text(self, width: int = 0, color: bool = False) -> str:
        """The text report (`fsdpa analyze -f text`), made from this JSON."""
        from .tables import render
        return render(self.json, "text", width=width, color=color)

    def _repr_html_(self) -> Optional[str]:
        """What Jupyter shows for the report: the library's HTML report
        (`html`), in an iframe of its own, since the page is a whole
        document whose styles and scripts must not reach the notebook's.
        None (Jupyter then shows the repr) when the report has no HTML."""
        if self.html is None:
            return None
        return ('<iframe class="fsdpa-report" style="width: 100%; height: 800px; border: 0" '
                'sandbox="allow-scripts" srcdoc="' + _html.escape(self.html, quote=True)
                + '"></iframe>')
