"""The tables of a report, as the library writes them (fsdpa_report_render()
with FSDPA_FORMAT_CSV, `fsdpa render -f csv --table NAME`): the same table
for the CLI's CSV and a DataFrame.

    rep = fsdpa.analyze("traces/")
    rep.per_rank.to_pandas()          # a row per rank: step time, busy, idle by cause, ...
    rep.table("streams").to_pandas()  # every rank's GPU streams
    rep.findings.to_pandas()          # the findings (typed, from the library)

Table names: ranks, findings, job_findings, streams, idle_causes,
not_judged; their columns are documented with fsdpa_report_options.table
in include/fsdpa/fsdpa.h."""
import csv
import ctypes
import io
from typing import TYPE_CHECKING, Any, Dict, Iterator, List, Optional, Sequence, Tuple

from . import _capi as C
from . import _lib
from .errors import error_from, new_error
from .lists import _import_pandas

if TYPE_CHECKING:  # pandas is optional: only type checkers import it here
    import pandas  # type: ignore[import]

TABLES = ("ranks", "findings", "job_findings", "streams", "idle_causes", "not_judged")
FORMATS = {"text": 1, "html": 2, "csv": 3}


def render(report_json: str, fmt: str = "text", *, table: Optional[str] = None, width: int = 0,
           color: bool = False) -> str:
    """A JSON report (fsdpa.report/1) as text, the HTML page or one CSV
    table (fsdpa_report_render(), `fsdpa render`): the text is the bytes
    `fsdpa analyze -f text` prints for the same traces; the page lacks the
    views that need the events.  Raises InvalidArgumentError for a document
    that is not such a report (ParseError for malformed JSON)."""
    if fmt not in FORMATS:
        raise ValueError(f"unknown format {fmt!r} (text, html or csv)")
    data = report_json.encode("utf-8")
    o = C.fsdpa_report_options()
    _lib.init(o)
    o.format = FORMATS[fmt]
    o.width = width
    o.color = 1 if color else 0
    tb = table.encode() if table is not None else None
    o.table = tb
    out = ctypes.c_void_p()
    n = ctypes.c_size_t()
    err = new_error()
    st = _lib.func("fsdpa_report_render")(data, len(data), ctypes.byref(o), ctypes.byref(out), ctypes.byref(n),
                                          ctypes.byref(err))
    if st != 0:
        raise error_from(st, err)
    try:
        return ctypes.string_at(out, n.value).decode("utf-8")
    finally:
        _lib.lib.fsdpa_free(out)


def _cell(v: str) -> Any:
    """A CSV cell as the JSON value it was: empty = None, integers exact,
    true/false, else a number or the text."""
    if v == "":
        return None
    if v in ("true", "false"):
        return v == "true"
    try:
        return int(v)
    except ValueError:
        pass
    try:
        return float(v)
    except ValueError:
        return v


class Table:
    """One table of a report: `columns`, `rows` (tuples of values: ints,
    floats, strings, booleans, None for empty), `to_pandas()`, `to_csv()`
    (the library's text, byte for byte what the CLI writes)."""

    def __init__(self, name: str, text: str) -> None:
        self.name = name
        self._csv = text
        rd = list(csv.reader(io.StringIO(text, newline="")))
        self.columns: List[str] = rd[0] if rd else []
        self.rows: List[Tuple[Any, ...]] = [tuple(_cell(v) for v in r) for r in rd[1:]]

    def __len__(self) -> int:
        return len(self.rows)

    def __iter__(self) -> Iterator[Tuple[Any, ...]]:
        return iter(self.rows)

    def __getitem__(self, i: int) -> Tuple[Any, ...]:
        return self.rows[i]

    def __repr__(self) -> str:
        return f"<fsdpa.Table {self.name}: {len(self.rows)} rows x {len(self.columns)} columns>"

    def to_dicts(self) -> List[Dict[str, Any]]:
        return [dict(zip(self.columns, r)) for r in self.rows]

    def to_csv(self) -> str:
        return self._csv

    def to_pandas(self) -> "pandas.DataFrame":
        """The table as a DataFrame: one column per CSV column; integer
        columns with empty cells are pandas' nullable Int64, so nanosecond
        values stay exact."""
        pd = _import_pandas()
        data: Dict[str, Any] = {}
        for k, c in enumerate(self.columns):
            vals: Sequence[Any] = [r[k] if k < len(r) else None for r in self.rows]
            known = [v for v in vals if v is not None]
            if known and all(isinstance(v, int) and not isinstance(v, bool) for v in known):
                data[c] = pd.array(vals, dtype="Int64")
            else:
                data[c] = pd.Series(vals, dtype=object) if not known else list(vals)
        return pd.DataFrame(data, columns=self.columns)


def table(report_json: str, name: str) -> Table:
    """Table `name` of a JSON report."""
    return Table(name, render(report_json, "csv", table=name))
