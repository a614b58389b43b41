"""Loading libfsdpa and declaring its functions (fsdpa/_capi.py, generated
from include/fsdpa/fsdpa.h, holds the declarations)."""
import ctypes
import ctypes.util
import os
import re
from typing import Any, Callable, List, Tuple

from . import _capi
from . import _base

ABSENT = _base.ABSENT
# The header version the declarations were generated from.
HEADER_VERSION = (_capi.FSDPA_VERSION_MAJOR, _capi.FSDPA_VERSION_MINOR, _capi.FSDPA_VERSION_PATCH)
# From 0.2.0 on the ABI changes only by addition (fsdpa.h): a library of the
# same major version and at least this version has every struct layout the
# declarations assume.  Its file name carries the SONAME (libfsdpa.so.2).
FIRST_STABLE = (0, 2)
SONAME = "libfsdpa.so.2"


# The copy `pip install .` puts in the package (bindings/python/meson.build).
PACKAGED = os.path.join(os.path.dirname(os.path.abspath(__file__)), SONAME)


def _candidates() -> Tuple[List[str], List[str]]:
    """The libraries to try, in order, and the reasons others were passed
    over: the packaged copy (an installed package uses its own library),
    else $FSDPA_LIBRARY (a build tree's library, for development), else the
    installed library."""
    if os.path.exists(PACKAGED):
        return [PACKAGED], []
    path = os.environ.get("FSDPA_LIBRARY")
    if path:
        return [path], []
    # find_library finds the installed library (ldconfig's cache,
    # LD_LIBRARY_PATH); a name with another SONAME (an older
    # libfsdpa.so.1) is skipped rather than loaded and refused.
    tried = []
    found = ctypes.util.find_library("fsdpa")
    candidates = []
    if found and (not re.search(r"\.so\.\d+$", found) or found.endswith(SONAME)):
        candidates.append(found)
    elif found:
        tried.append(f"{found}: not {SONAME}")
    candidates.append(SONAME)
    return candidates, tried


def _load() -> ctypes.CDLL:
    candidates, tried = _candidates()
    for name in candidates:
        try:
            return ctypes.CDLL(name)
        except OSError as e:
            tried.append(f"{name}: {e}")
    if candidates == [PACKAGED]:
        raise ImportError("fsdpa: cannot load the libfsdpa installed with the package "
                          "(reinstall it): " + "; ".join(tried))
    raise ImportError(f"fsdpa: cannot load libfsdpa (set FSDPA_LIBRARY to the full path of "
                      f"{SONAME}, or install the library): " + "; ".join(tried or ["not found"]))


lib = _load()
# What was loaded: the packaged copy's path, $FSDPA_LIBRARY, or the name
# the dynamic loader resolved.
LOADED = lib._name

# Functions the header declares but the loaded library lacks (an older
# library): calling one raises instead of failing at import.
MISSING = []
for _name, (_res, _args) in _capi.SIGNATURES.items():
    try:
        _f = getattr(lib, _name)
    except AttributeError:
        MISSING.append(_name)
        continue
    _f.restype = _res
    _f.argtypes = _args


def func(name: str) -> Callable[..., Any]:
    if name in MISSING:
        raise NotImplementedError(f"the loaded libfsdpa has no {name} (older than the binding)")
    return getattr(lib, name)


def init(obj: Any, struct: str = "") -> Any:
    """Fill the ctypes struct `obj` with the library's defaults, as the
    header's inline fsdpa_<x>_init(p) does: fsdpa_<x>_init_sized(p, sizeof *p)
    with ctypes' size of `obj` (the struct this binding was generated from,
    never the library's), so a library whose struct grew writes nothing past
    it.  `struct` names the C struct when obj's class is not the _capi one
    of that name (a struct of another size, as an older binding has);
    returns obj."""
    name = struct or type(obj).__name__
    c = _capi.STRUCTS[name]
    p = ctypes.byref(obj) if type(obj) is c else ctypes.cast(ctypes.pointer(obj), ctypes.POINTER(c))
    func(_capi.INIT_SIZED[name])(p, ctypes.sizeof(obj))
    return obj


def check_version() -> None:
    v = lib.fsdpa_version()
    major, minor = v >> 16, (v >> 8) & 0xFF
    if major != HEADER_VERSION[0] or (major, minor) < FIRST_STABLE:
        raise ImportError(f"fsdpa: loaded libfsdpa {lib.fsdpa_version_string().decode()} is not "
                          f"ABI-compatible with the header this binding was generated from "
                          f"({'.'.join(map(str, HEADER_VERSION))}): it needs "
                          f"{HEADER_VERSION[0]}.x >= {'.'.join(map(str, FIRST_STABLE))}")


check_version()

STATUS = _capi.ENUMS["fsdpa_status"]
ctx_p = _capi.ctx_p
list_p = _capi.list_p
