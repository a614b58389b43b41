"""Loading libfsdpa and declaring its functions (fsdpa/_capi.py, generated
from include/fsdpa/fsdpa.h, holds the declarations)."""
import ctypes
import ctypes.util
import os

from . import _capi
from . import _base

# The header version the declarations were generated from: a library with a
# different major version may have changed the structs.
ABSENT = _base.ABSENT
HEADER_MAJOR = _capi.FSDPA_VERSION_MAJOR


def _load():
    path = os.environ.get("FSDPA_LIBRARY")
    tried = []
    if path:
        candidates = [path]
    else:
        candidates = [n for n in (ctypes.util.find_library("fsdpa"), "libfsdpa.so.1",
                                  "libfsdpa.so") if n]
    for name in candidates:
        try:
            return ctypes.CDLL(name)
        except OSError as e:
            tried.append(f"{name}: {e}")
    raise ImportError("fsdpa: cannot load libfsdpa (set FSDPA_LIBRARY to the full path of "
                      "libfsdpa.so, or install the library): " + "; ".join(tried or ["not found"]))


lib = _load()

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


def func(name):
    if name in MISSING:
        raise NotImplementedError(f"the loaded libfsdpa has no {name} (older than the binding)")
    return getattr(lib, name)


def check_version():
    v = lib.fsdpa_version()
    if (v >> 16) != HEADER_MAJOR:
        raise ImportError(f"fsdpa: loaded libfsdpa {lib.fsdpa_version_string().decode()} has "
                          f"major version {v >> 16}; this binding was generated for {HEADER_MAJOR}")


check_version()

STATUS = _capi.ENUMS["fsdpa_status"]
ctx_p = _capi.ctx_p
