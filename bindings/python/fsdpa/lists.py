"""The list protocol of the C API (fsdpa_list) as a Python sequence.

Every list result of libfsdpa is an `fsdpa_list *`: a snapshot the caller
owns, read with fsdpa_list_count() / fsdpa_list_get() (O(1) per item) and
released with fsdpa_list_free().  ListView wraps one: len(), indexing
(negative indices and slices too), iteration, and close() (or `with`; the
finalizer is a safety net).  Items are converted to dataclasses when read,
strings copied, so an item outlives its list.  The Analyzer methods return
plain Python lists (list(view), the view closed at once); a ListView is for
callers that want to read a long list lazily.

Both are tables: `to_pandas()` turns one into a pandas DataFrame, one row
per item and one column per field (pandas is optional: without it
to_pandas() raises ImportError saying so).
"""
import ctypes
import dataclasses
from typing import (TYPE_CHECKING, Any, Callable, Dict, Iterable, Iterator, List, Optional,
                    Sequence, Type, TypeVar, Union, overload)

from . import _capi as C
from . import _lib
from .errors import check

if TYPE_CHECKING:  # pandas is optional: only type checkers import it here
    import pandas  # type: ignore[import]

L = _lib.lib
T = TypeVar("T")

PANDAS_MISSING = ("fsdpa: to_pandas() needs pandas, which is not installed "
                  "(pip install pandas, or apt-get install python3-pandas)")


def _import_pandas() -> Any:
    try:
        import pandas
    except ImportError as e:
        raise ImportError(PANDAS_MISSING) from e
    return pandas


def columns_of(item_type: Optional[type]) -> Optional[List[str]]:
    """The public fields of a result dataclass, in declaration order."""
    if item_type is None or not dataclasses.is_dataclass(item_type):
        return None
    return [f.name for f in dataclasses.fields(item_type) if not f.name.startswith("_")]


def to_pandas(items: Iterable[Any], item_type: Optional[type] = None) -> "pandas.DataFrame":
    """A DataFrame of result records: one row per item (its to_dict()), one
    column per field of `item_type` (so an empty list still has its
    columns).  Integer columns with absent values (None) are pandas'
    nullable Int64, so nanosecond timestamps stay exact instead of turning
    into floats; enums are their names; nested values (arrays, ranges,
    evidence) are Python objects."""
    pd = _import_pandas()
    rows: List[Dict[str, Any]] = [x.to_dict() for x in items]
    cols = columns_of(item_type) or (list(rows[0]) if rows else [])
    data: Dict[str, Any] = {}
    for c in cols:
        vals = [r.get(c) for r in rows]
        ints = [v for v in vals if v is not None]
        if (ints and len(ints) < len(vals)
                and all(isinstance(v, int) and not isinstance(v, bool) for v in ints)):
            data[c] = pd.array(vals, dtype="Int64")
        elif not ints or any(isinstance(v, (tuple, list, dict)) for v in ints):
            data[c] = pd.Series(vals, dtype=object)   # nothing to infer, or nested
        else:
            data[c] = vals
    return pd.DataFrame(data, columns=cols)


class RecordList(List[T]):
    """The items of one C list, copied out (a plain list), with `to_pandas()`.
    `item_type`: the dataclass of the items (their columns)."""

    def __init__(self, items: Iterable[T] = (), item_type: Optional[type] = None) -> None:
        super().__init__(items)
        self.item_type = item_type

    def to_pandas(self) -> "pandas.DataFrame":
        """The list as a pandas DataFrame (see fsdpa.lists.to_pandas)."""
        return to_pandas(self, self.item_type)


def _item_cls(kind: int) -> type:
    struct = C.LIST_ITEMS.get(kind)
    if struct is None:
        raise TypeError(f"fsdpa: list of unknown kind {kind} (a newer library?)")
    return C.RESULTS[struct.__name__]


class ListView(Sequence[T]):
    """A caller-owned fsdpa_list read as a sequence of dataclasses."""

    def __init__(self, handle: Any, expect: Optional[Type[T]] = None) -> None:
        """`handle`: an fsdpa_list pointer the view now owns.  `expect`: the
        dataclass the caller asked for; a list of another kind is a
        TypeError (the view frees it first)."""
        self._h = handle
        self._cls: Any = None
        try:
            self._cls = _item_cls(L.fsdpa_list_type(handle))
            if expect is not None and self._cls is not expect:
                raise TypeError(f"fsdpa: expected a list of {expect.__name__}, "
                                f"the library returned {self._cls.__name__}")
        except BaseException:
            self.close()
            raise
        self._n: int = L.fsdpa_list_count(handle)

    @classmethod
    def from_call(cls, call: Callable[[Any], Any], expect: Optional[Type[T]] = None
                  ) -> "ListView[T]":
        """Run `call(fsdpa_list **out)` (which raises on failure) and wrap
        the list it returns."""
        h = C.list_p()
        call(ctypes.byref(h))
        return cls(h, expect)

    @property
    def item_type(self) -> type:
        return self._cls

    def __len__(self) -> int:
        return self._n

    def _get(self, i: int) -> T:
        if not self._h:
            raise ValueError("fsdpa: the list is closed")
        item = self._cls._c()
        item.size = ctypes.sizeof(item)
        check(L.fsdpa_list_get(self._h, i, ctypes.byref(item)))
        out: T = self._cls._from_c(item)
        return out

    @overload
    def __getitem__(self, i: int) -> T: ...

    @overload
    def __getitem__(self, i: slice) -> List[T]: ...

    def __getitem__(self, i: Union[int, slice]) -> Union[T, List[T]]:
        if isinstance(i, slice):
            return [self._get(k) for k in range(*i.indices(self._n))]
        if i < 0:
            i += self._n
        if not 0 <= i < self._n:
            raise IndexError("fsdpa list index out of range")
        return self._get(i)

    def __iter__(self) -> Iterator[T]:
        for i in range(self._n):
            yield self._get(i)

    def to_list(self) -> RecordList[T]:
        """Every item (a RecordList), and the list released."""
        try:
            return RecordList(self, self._cls)
        finally:
            self.close()

    def to_pandas(self) -> "pandas.DataFrame":
        """Every item as a pandas DataFrame (see fsdpa.lists.to_pandas); the
        view stays open."""
        return to_pandas(self, self._cls)

    def close(self) -> None:
        """Release the C list (idempotent)."""
        if self._h:
            L.fsdpa_list_free(self._h)
            self._h = C.list_p()

    def __enter__(self) -> "ListView[T]":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __del__(self) -> None:
        try:
            self.close()
        except Exception:  # interpreter shutdown: module globals may be gone
            pass

    def __repr__(self) -> str:
        return f"<fsdpa.ListView of {self._n} {self._cls.__name__}>"


# What the list methods return: a RecordList, or a ListView with lazy=True.
Rows = Union[RecordList[T], ListView[T]]
