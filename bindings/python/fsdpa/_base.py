"""Base of the result dataclasses: conversion from the C structs."""
from dataclasses import asdict, fields
from typing import Any, ClassVar, Dict, Type, TypeVar

ABSENT = -(1 << 63)  # FSDPA_ABSENT (INT64_MIN)

R = TypeVar("R", bound="Record")


class Record:
    _c: ClassVar[Any] = None              # the ctypes struct (set by the generated subclasses)
    _kinds: ClassVar[Dict[str, str]] = {}  # field -> how to convert it

    def to_dict(self) -> Dict[str, Any]:
        """The fields as a dict (nested records as dicts too)."""
        return asdict(self)  # type: ignore[call-overload]

    @classmethod
    def _from_c(cls: Type[R], s: Any) -> R:
        from ._capi import ENUM_NAMES, RESULTS  # the generated module imports this one
        vals = {}
        for f in fields(cls):  # type: ignore[arg-type]
            v = getattr(s, f.name)
            k = cls._kinds.get(f.name, "int")
            if k == "opt":
                v = None if v == ABSENT else v
            elif k == "ratio":
                v = None if v < 0 else v
            elif k == "cstr":
                v = None if v is None else v.decode("utf-8", "replace")
            elif k == "chars":
                v = v.decode("utf-8", "replace")
            elif k == "array":
                v = tuple(v)
            elif k.startswith("enum:"):
                v = ENUM_NAMES[k[5:]].get(v, f"unknown({v})")
            elif k.startswith("items:"):
                # a counted array the result points into (owned by the list):
                # copied out now, while the list is alive
                _, struct, count = k.split(":")
                n = getattr(s, count)
                item: Any = RESULTS[struct]
                v = tuple(item._from_c(v[i]) for i in range(n)) if n and v else ()
            vals[f.name] = v
        return cls(**vals)  # type: ignore[call-arg]
