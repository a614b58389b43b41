#!/usr/bin/env python3
"""Generate fsdpa/_capi.py (ctypes declarations and result dataclasses) from
include/fsdpa/fsdpa.h, so the Python binding follows the C API without
anyone retyping 30 structs.  The output is committed (the package must work
where no header is installed); tests/test_abi.py checks it against the
C compiler's view of the header and names what is missing.

    python3 bindings/python/gen_ctypes.py [fsdpa.h] [out.py]
"""
import os
import re
import sys
import textwrap

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "bindings", "abi"))
import header  # noqa: E402

SCALARS = {"size_t": "c_size_t", "int64_t": "c_int64", "uint64_t": "c_uint64",
           "uint32_t": "c_uint32", "int": "c_int", "double": "c_double", "char": "c_char",
           "void": "None"}
# Result structs whose Python class name is not the CamelCase of the C name.
# The typed finding and its ranges are read into the report's Finding and
# Range (fsdpa/report.py), which keep those names.
CLASS_NAMES = {"fsdpa_stream_info": "Stream", "fsdpa_crossrank": "CrossRank",
               "fsdpa_crossrank_rank": "CrossRankRank", "fsdpa_finding": "FindingItem",
               "fsdpa_range": "RangeItem"}
# The exported defaults functions (fsdpa_<x>_init_sized) fill input-only
# structs: no result dataclass for what only they write.
INIT_SUFFIX = "_init_sized"
# Out-parameters that are not results: the error channel of the calls
# without one context (the binding raises from it).
NOT_RESULTS = {"fsdpa_error"}
# The enum whose enumerators name the item struct of each kind of list.
LIST_KIND_ENUM = "fsdpa_list_kind"


def opaque_pointer(name):
    """fsdpa_ctx -> ctx_p, fsdpa_list -> list_p."""
    return name[len("fsdpa_"):] + "_p"


def class_name(struct):
    return CLASS_NAMES.get(struct, "".join(p.capitalize() for p in struct[len("fsdpa_"):].split("_")))


def enum_short_names(e):
    """FSDPA_BWD_NO_PREFETCH -> no_prefetch: the enumerators without their
    common underscore-separated prefix, lower case (the report's spelling)."""
    toks = [n.split("_") for n, _d, _v in e.items]
    k = 0
    while all(len(t) > k + 1 for t in toks) and len({t[k] for t in toks}) == 1:
        k += 1
    return ["_".join(t[k:]).lower() for t in toks]


class Gen:
    def __init__(self, h):
        self.h = h
        self.structs = {s.name for s in h.structs}
        self.enums = {e.name for e in h.enums}
        self.opaque = set(h.opaque)
        self.values = {}
        for e in h.enums:
            vals = {}
            for n, _d, v in e.items:
                expr = v
                for prev, pv in vals.items():
                    expr = re.sub(rf"\b{prev}\b", str(pv), expr)
                vals[n] = h.constant(expr)
            self.values[e.name] = vals

    def base(self, ctype):
        toks = [t for t in ctype.split() if t not in ("const", "struct")]
        return toks

    def member_type(self, m):
        if m.fnptr:
            ret, params = m.fnptr
            return "CFUNCTYPE(%s)" % ", ".join([self.scalar_or_ptr(ret)] +
                                               [self.scalar_or_ptr(p) for p in params])
        t = self.scalar_or_ptr(m.ctype)
        if m.array:
            return f"({t} * {self.h.constant(m.array)})"
        return t

    def scalar_or_ptr(self, ctype):
        toks = self.base(ctype)
        stars = toks.count("*")
        name = toks[0]
        if stars == 0:
            if name in SCALARS:
                return SCALARS[name]
            if name in self.enums:
                return name
            if name in self.structs:
                return name
            raise SystemExit(f"gen_ctypes: unknown type {ctype}")
        if name in self.opaque:
            if stars > 2:
                raise SystemExit(f"gen_ctypes: unsupported type {ctype}")
            return opaque_pointer(name) if stars == 1 else f"POINTER({opaque_pointer(name)})"
        if stars == 1:
            if name == "char":
                # const char * reads as a string; a writable char * stays a
                # raw address (out-buffers are freed with fsdpa_free()).
                return "c_char_p" if ctype.startswith("const") else "c_void_p"
            if name == "void":
                return "c_void_p"
            if name in self.structs:
                return f"POINTER({name})"
            return f"POINTER({self.scalar_or_ptr(name)})"
        if stars == 2 and name == "char":
            return "POINTER(c_char_p)" if ctype.startswith("const char * const") else "POINTER(c_void_p)"
        raise SystemExit(f"gen_ctypes: unsupported type {ctype}")

    def counted_items(self, s, m):
        """For `const T *X` with a `size_t nX` member before it (a struct
        array the result points into): T, else None."""
        toks = self.base(m.ctype)
        if len(toks) == 2 and toks[1] == "*" and toks[0] in self.structs:
            if any(o.name == "n" + m.name and o.ctype == "size_t" for o in s.members):
                return toks[0]
        return None

    def kind(self, s, m):
        if m.fnptr:
            return None
        if m.array:
            return "chars" if m.ctype == "char" else "array"
        if m.ctype == "int64_t":
            return "opt"
        if m.ctype == "double":
            return "ratio"
        if m.ctype == "const char *":
            return "cstr"
        if m.ctype in self.enums:
            return "enum:" + m.ctype
        items = self.counted_items(s, m)
        if items:
            return f"items:{items}:n{m.name}"
        if "*" in m.ctype:
            # a result must not hand out a pointer the list or the call owns
            raise SystemExit(f"gen_ctypes: cannot convert pointer member {s.name}.{m.name} "
                             f"({m.ctype}) of a result")
        return "int"

    def list_items(self):
        """{list kind value: item struct} from the enumerators' docs
        (`::fsdpa_step (fsdpa_step_list())`)."""
        e = self.h.enum(LIST_KIND_ENUM)
        if e is None:
            return {}
        out = {}
        for n, doc, _v in e.items:
            m = re.search(r"::(fsdpa_\w+)", doc)
            if not m or m.group(1) not in self.structs:
                raise SystemExit(f"gen_ctypes: the doc of {n} does not name its item struct "
                                 f"(::fsdpa_...): '{doc}'")
            out[self.values[e.name][n]] = m.group(1)
        return out

    def result_structs(self):
        """Structs a function fills (a non-const pointer parameter of a
        function that is not an *_init_sized defaults function), the items of every kind of
        list, and the structs their counted pointers lead to; in header
        order."""
        want = set(self.list_items().values())
        for f in self.h.functions:
            if f.name.endswith(INIT_SUFFIX):
                continue
            for p in f.params:
                toks = p.split()
                if not p.startswith("const") and toks[0] in self.structs and toks[-1] == "*" \
                        and toks[0] not in NOT_RESULTS:
                    want.add(toks[0])
        grew = True
        while grew:
            grew = False
            for s in self.h.structs:
                if s.name in want:
                    for m in s.members:
                        t = None if m.fnptr else self.counted_items(s, m)
                        if t and t not in want:
                            want.add(t)
                            grew = True
        return [s.name for s in self.h.structs if s.name in want]

    def pytype(self, kind, m):
        if kind == "array":
            return "Tuple[float, ...]" if m.ctype == "double" else "Tuple[int, ...]"
        if kind.startswith("items:"):
            return f"Tuple[{class_name(kind.split(':')[1])}, ...]"
        return {"opt": "Optional[int]", "ratio": "Optional[float]", "cstr": "Optional[str]",
                "chars": "str", "int": "int"}.get(kind, "str")

    def run(self):
        h = self.h
        o = []
        w = o.append
        w('"""Generated by bindings/python/gen_ctypes.py from include/fsdpa/fsdpa.h: do not edit.')
        w("")
        w("ctypes declarations of every struct, enum and function of the C API, and a")
        w("dataclass for every struct a query fills.  Regenerate after changing the")
        w('header:  python3 bindings/python/gen_ctypes.py"""')
        w("# flake8: noqa")
        w("from ctypes import (CFUNCTYPE, POINTER, Structure, c_char, c_char_p, c_double, c_int,")
        w("                    c_int64, c_size_t, c_uint32, c_uint64, c_void_p)")
        w("from dataclasses import dataclass")
        w("from typing import Optional, Tuple")
        w("")
        w("from ._base import Record")
        w("")
        w("")
        w("# ---- opaque handles")
        for name in h.opaque:
            w(f"class {name}(Structure):")
            w('    """Opaque."""')
            w("")
            w("")
            w(f"{opaque_pointer(name)} = POINTER({name})")
            w("")
            w("")
        w("# ---- constants (object-like macros)")
        for k, v in h.defines.items():
            w(f"{k} = {h.constant(v)}")
        w("# initialiser macros: name -> the struct they initialise")
        w("INITIALIZERS = {" + ", ".join(f"{i.name!r}: {i.struct!r}" for i in h.initializers) + "}")
        w("# declared inside #ifdef FSDPA_EXPERIMENTAL: may change in any release")
        w("EXPERIMENTAL = frozenset({" + ", ".join(repr(n) for n in sorted(h.experimental)) + "})")
        w("")
        w("# ---- enums: C type (int-sized; the ABI test checks), values, short names")
        w("ENUMS = {}")
        w("ENUM_NAMES = {}")
        for e in h.enums:
            w(f"{e.name} = c_int")
            vals = self.values[e.name]
            w(f"ENUMS[{e.name!r}] = {{" + ", ".join(f"{n!r}: {v}" for n, v in vals.items()) + "}")
            shorts = enum_short_names(e)
            w(f"ENUM_NAMES[{e.name!r}] = {{" + ", ".join(
                f"{vals[n]}: {s!r}" for (n, _d, _v), s in zip(e.items, shorts)) + "}")
        w("")
        w("# ---- structs")
        for s in h.structs:
            w(f"class {s.name}(Structure):")
            w("    pass")
            w("")
            w("")
        for s in h.structs:
            w(f"{s.name}._fields_ = [")
            for m in s.members:
                w(f"    ({m.name!r}, {self.member_type(m)}),")
            w("]")
        w("STRUCTS = {" + ", ".join(f"{s.name!r}: {s.name}" for s in h.structs) + "}")
        w("")
        w("# ---- lists: fsdpa_list_kind value -> the struct fsdpa_list_get() fills")
        w("LIST_ITEMS = {" + ", ".join(f"{k}: {v}" for k, v in self.list_items().items()) + "}")
        w("")
        w("# ---- functions: name -> (restype, argtypes)")
        w("SIGNATURES = {")
        for f in h.functions:
            args = ", ".join(self.scalar_or_ptr(p) for p in f.params)
            w(f"    {f.name!r}: ({self.scalar_or_ptr(f.ret)}, [{args}]),")
        w("}")
        w("")
        w("# ---- the header's static inline wrappers: not symbols of the library, so")
        w("# the binding calls what they call.  name -> (exported function, the struct")
        w("# whose size they pass or None); INIT_SIZED: struct -> its *_init_sized.")
        w("INLINE = {")
        for f in h.inline:
            w(f"    {f.name!r}: ({f.calls!r}, {f.sizeof!r}),")
        w("}")
        w("INIT_SIZED = {")
        for f in h.inline:
            if f.sizeof and f.calls.endswith(INIT_SUFFIX):
                w(f"    {f.sizeof!r}: {f.calls!r},")
        w("}")
        w("")
        w("# ---- result dataclasses: None where the C API says absent (FSDPA_ABSENT")
        w("# integers, negative ratios, NULL strings); enums as their short names.")
        names = {}
        for sname in self.result_structs():
            s = h.struct(sname)
            cls = class_name(sname)
            names[sname] = cls
            w("")
            w("")
            w("@dataclass(frozen=True)")
            w(f"class {cls}(Record):")
            w(f'    """{sname} (see fsdpa.h for the definition of every number)."""')
            kinds = {}
            for m in s.members:
                if m.name == "size":
                    continue
                k = self.kind(s, m)
                kinds[m.name] = k
                line = f"    {m.name}: {self.pytype(k, m)}"
                doc = f"  # {m.doc}" if m.doc else ""
                if len(line + doc) <= 100:
                    w(line + doc)
                else:
                    for d in textwrap.wrap(m.doc, 94):
                        w(f"    # {d}")
                    w(line)
            w(f"    _c = {sname}")
            w(f"    _kinds = {kinds!r}")
        w("")
        w("RESULTS = {" + ", ".join(f"{k!r}: {v}" for k, v in names.items()) + "}")
        return "\n".join(o) + "\n"


def main():
    src = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "include", "fsdpa", "fsdpa.h")
    out = sys.argv[2] if len(sys.argv) > 2 else os.path.join(HERE, "fsdpa", "_capi.py")
    text = Gen(header.read(src)).run()
    with open(out, "w", encoding="utf-8") as f:
        f.write(text)


if __name__ == "__main__":
    main()
