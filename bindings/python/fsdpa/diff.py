"""Two runs compared (fsdpa_diff(), experimental in the C API: the metrics
compared may grow).

    d = fsdpa.diff("runs/before/", "runs/after/", fail_on_regression=5)
    d.regressed                  # the gate: step time or exposed comm grew > 5 % beyond the spread
    d.job["step_time_ns"]        # {"base", "new", "delta", "change_pct", "spread", "status", ...}
    d.kernels.to_pandas()        # the kernel table's changes, one row per kernel
    d.ops.to_pandas(); d.findings.to_pandas()
    print(d.text())              # what `fsdpa diff -f text` prints

A run is a trace path, a list of the ranks' trace paths, a directory of
traces or of summaries (*.fsum), a summary or a JSON report (a path, or the
text / bytes), or a `Report` (fsdpa.analyze()).  The structure is the JSON
the library writes (`fsdpa.diff/1`, docs/diff.schema.json); docs/report-
contract.md ("Diff") defines every number.
"""
import ctypes
import json
import os
from typing import TYPE_CHECKING, Any, Dict, List, Optional, Sequence, Tuple, Union, cast

from . import _capi as C
from . import _lib
from .analyzer import FORMATS, ParamValue, PathLike, _einval, _take_buffer, analyze, summary_merge
from .errors import new_error
from .lists import to_pandas
from .report import Report

if TYPE_CHECKING:  # pandas is optional: only type checkers import it here
    import pandas  # type: ignore[import]

Run = Union[PathLike, Sequence[PathLike], bytearray, Report]


class _Row(dict):  # type: ignore[type-arg]
    def to_dict(self) -> Dict[str, Any]:
        return dict(self)


class Table(List[Dict[str, Any]]):
    """Rows of one part of the diff (plain dicts, as in the JSON), with
    `to_pandas()`: one row per item, one column per key (nullable Int64 for
    integer columns with nulls, so nanoseconds stay exact)."""

    def to_pandas(self) -> "pandas.DataFrame":
        return to_pandas([_Row(r) for r in self])


def _ours(head: bytes) -> bool:
    return b'"fsdpa.summary/' in head or b'"fsdpa.report/' in head


def _run_text(run: Run, params: Optional[Dict[str, ParamValue]], max_memory_bytes: int) -> bytes:
    """A run as the text fsdpa_diff() takes: a JSON report or a summary."""
    if isinstance(run, Report):
        return run.json.encode("utf-8")
    if isinstance(run, (bytes, bytearray)) and bytes(run).lstrip().startswith(b"{"):
        return bytes(run)
    if isinstance(run, str) and run.lstrip().startswith("{"):
        return run.encode("utf-8")
    if isinstance(run, (str, bytes, os.PathLike)):
        path = os.fsdecode(run)
        if os.path.isdir(path):
            names = sorted(n for n in os.listdir(path) if not n.startswith("."))
            sums = [os.path.join(path, n) for n in names if n.endswith(".fsum")]
            if sums:
                texts = []
                for s in sums:
                    with open(s, "rb") as f:
                        texts.append(f.read())
                return summary_merge(texts, max_memory_bytes).encode("utf-8")
            traces = [os.path.join(path, n) for n in names if n.endswith((".json", ".json.gz"))
                      and os.path.isfile(os.path.join(path, n))]
            if not traces:
                raise _einval("%s: no traces or summaries in this directory" % path)
            return analyze(traces, params=params, max_memory_bytes=max_memory_bytes,
                           html=False).json.encode("utf-8")
        with open(path, "rb") as f:
            head = f.read(512)
        if not head.startswith(b"\x1f\x8b") and _ours(head):
            with open(path, "rb") as f:
                return f.read()
        return analyze(path, params=params, max_memory_bytes=max_memory_bytes,
                       html=False).json.encode("utf-8")
    paths: List[PathLike] = list(cast(Sequence[PathLike], run))
    return analyze(paths, params=params, max_memory_bytes=max_memory_bytes,
                   html=False).json.encode("utf-8")


def _options(fmt: str, fail_on_regression: Optional[float], min_change: Optional[float],
             width: int, max_memory_bytes: int) -> Any:
    if fmt not in FORMATS:
        raise _einval(f"unknown format '{fmt}' (json, text, html)")
    o = C.fsdpa_diff_options()
    _lib.init(o)
    o.format = FORMATS[fmt]
    if fail_on_regression is not None:
        if fail_on_regression < 0:
            raise _einval("fail_on_regression is a percentage >= 0")
        o.fail_on_regression_ppm = int(round(fail_on_regression * 10000))
    if min_change is not None:
        if min_change < 0:
            raise _einval("min_change is a percentage >= 0")
        o.min_change_ppm = int(round(min_change * 10000))
    o.width = width
    o.max_memory_bytes = max_memory_bytes
    return o


def _diff_call(b: bytes, n: bytes, o: Any) -> Tuple[str, bool]:
    reg = ctypes.c_int()
    err = new_error()
    text = _take_buffer(lambda out, ln: _lib.func("fsdpa_diff")(
        b, len(b), n, len(n), ctypes.byref(o), out, ln, ctypes.byref(reg), ctypes.byref(err)), err=err)
    return text, bool(reg.value)


class Diff:
    """The comparison of two runs: `json` (the library's text, fsdpa.diff/1)
    and its parts.  `job` and each rank's metrics are dicts by metric name;
    the tables are `Table`s (to_pandas())."""

    def __init__(self, text: str, base: bytes, new: bytes, options: Dict[str, Any]) -> None:
        self.json = text
        self._d: Dict[str, Any] = json.loads(text)
        self._runs = (base, new)
        self._options = options

    def to_dict(self) -> Dict[str, Any]:
        """The parsed JSON (a copy)."""
        d: Dict[str, Any] = json.loads(self.json)
        return d

    @property
    def regressed(self) -> bool:
        return bool(self._d["gate"]["regressed"])

    @property
    def gate(self) -> Dict[str, Any]:
        return dict(self._d["gate"])

    @property
    def job(self) -> Dict[str, Dict[str, Any]]:
        return {m["metric"]: dict(m) for m in self._d["job"]}

    @property
    def ranks(self) -> Dict[int, Dict[str, Dict[str, Any]]]:
        return {r["rank"]: {m["metric"]: dict(m) for m in r["metrics"]} for r in self._d["ranks"]}

    def _table(self, key: str) -> Table:
        t = Table()
        t.extend(dict(r) for r in self._d[key])
        return t

    @property
    def kernels(self) -> Table:
        return self._table("kernels")

    @property
    def ops(self) -> Table:
        return self._table("ops")

    @property
    def collectives(self) -> Table:
        return self._table("collectives")

    @property
    def fsdp_units(self) -> Table:
        return self._table("fsdp_units")

    @property
    def findings(self) -> Table:
        return self._table("findings")

    @property
    def metrics(self) -> Table:
        """The job's metrics as a table (one row per metric)."""
        return self._table("job")

    def text(self, width: int = 100) -> str:
        """What `fsdpa diff -f text` prints for the same runs."""
        return self._render("text", width)

    def html(self) -> str:
        """The HTML page of `fsdpa diff -f html`."""
        return self._render("html", 100)

    def _render(self, fmt: str, width: int) -> str:
        o = _options(fmt, width=width, **self._options)
        return _diff_call(self._runs[0], self._runs[1], o)[0]

    def _repr_html_(self) -> str:
        return self.html()

    def __repr__(self) -> str:
        st = self.job.get("step_time_ns", {})
        return "<fsdpa.Diff step time %s -> %s (%s)%s>" % (st.get("base"), st.get("new"), st.get("status"),
                                                           " REGRESSED" if self.regressed else "")


def diff(base: Run, new: Run, *, fail_on_regression: Optional[float] = None,
         min_change: Optional[float] = None, params: Optional[Dict[str, ParamValue]] = None,
         max_memory_bytes: int = 0) -> Diff:
    """Compare two runs (see the module).  fail_on_regression: the gate in
    percent (`--fail-on-regression`); min_change: the smallest change called
    worse / better, in percent (default 5); params: analysis thresholds for
    runs given as traces."""
    b = _run_text(base, params, max_memory_bytes)
    n = _run_text(new, params, max_memory_bytes)
    opts = {"fail_on_regression": fail_on_regression, "min_change": min_change,
            "max_memory_bytes": max_memory_bytes}
    text, _ = _diff_call(b, n, _options("json", fail_on_regression, min_change, 100, max_memory_bytes))
    return Diff(text, b, n, opts)


__all__ = ["Diff", "Table", "diff"]
