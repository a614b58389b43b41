"""The list protocol of the C API (fsdpa_list) as a Python sequence.

Every list result of libfsdpa is an `fsdpa_list *`: a snapshot the caller
owns, read with fsdpa_list_count() / fsdpa_list_get() (O(1) per item) and
released with fsdpa_list_free().  ListView wraps one: len(), indexing
(negative indices and slices too), iteration, and close() (or `with`; the
finalizer is a safety net).  Items are converted to dataclasses when read,
strings copied, so an item outlives its list.  The Analyzer methods return
plain Python lists (list(view), the view closed at once); a ListView is for
callers that want to read a long list lazily.
"""
import ctypes
from collections.abc import Sequence

from . import _capi as C
from . import _lib
from .errors import check

L = _lib.lib


def _item_cls(kind):
    struct = C.LIST_ITEMS.get(kind)
    if struct is None:
        raise TypeError(f"fsdpa: list of unknown kind {kind} (a newer library?)")
    return C.RESULTS[struct.__name__]


class ListView(Sequence):
    """A caller-owned fsdpa_list read as a sequence of dataclasses."""

    def __init__(self, handle, expect=None):
        """`handle`: an fsdpa_list pointer the view now owns.  `expect`: the
        dataclass the caller asked for; a list of another kind is a
        TypeError (the view frees it first)."""
        self._h = handle
        try:
            self._cls = _item_cls(L.fsdpa_list_type(handle))
            if expect is not None and self._cls is not expect:
                raise TypeError(f"fsdpa: expected a list of {expect.__name__}, "
                                f"the library returned {self._cls.__name__}")
        except BaseException:
            self.close()
            raise
        self._n = L.fsdpa_list_count(handle)

    @classmethod
    def from_call(cls, call, expect=None):
        """Run `call(fsdpa_list **out)` (which raises on failure) and wrap
        the list it returns."""
        h = C.list_p()
        call(ctypes.byref(h))
        return cls(h, expect)

    @property
    def item_type(self):
        return self._cls

    def __len__(self):
        return self._n

    def _get(self, i):
        if not self._h:
            raise ValueError("fsdpa: the list is closed")
        item = self._cls._c()
        item.size = ctypes.sizeof(item)
        check(L.fsdpa_list_get(self._h, i, ctypes.byref(item)))
        return self._cls._from_c(item)

    def __getitem__(self, i):
        if isinstance(i, slice):
            return [self._get(k) for k in range(*i.indices(self._n))]
        if i < 0:
            i += self._n
        if not 0 <= i < self._n:
            raise IndexError("fsdpa list index out of range")
        return self._get(i)

    def __iter__(self):
        for i in range(self._n):
            yield self._get(i)

    def to_list(self):
        """Every item, and the list released."""
        try:
            return list(self)
        finally:
            self.close()

    def close(self):
        """Release the C list (idempotent)."""
        if self._h:
            L.fsdpa_list_free(self._h)
            self._h = C.list_p()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        try:
            self.close()
        except Exception:  # interpreter shutdown: module globals may be gone
            pass

    def __repr__(self):
        return f"<fsdpa.ListView of {self._n} {self._cls.__name__}>"
