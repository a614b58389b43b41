"""The ctypes declarations (fsdpa/_capi.py, generated from fsdpa.h by
gen_ctypes.py) match the C header as the C compiler sees it: struct sizes and
offsets, enum values, constants and function signatures, compared with the
table that a C program generated from fsdpa.h prints (bindings/abi/).  This
catches a stale _capi.py after a header change, and any place where ctypes
would lay a struct out differently from C."""
import ctypes
import os
import sys
import unittest

from fsdpa import _capi, _lib

from . import support

# ctypes type -> (kind, size) for comparing with C spellings.  Names differ
# (size_t vs uint64_t are both c_ulong here), the ABI does not.
C_SCALARS = {
    "void": None, "char": ("int", 1), "int": ("int", ctypes.sizeof(ctypes.c_int)),
    "size_t": ("uint", ctypes.sizeof(ctypes.c_size_t)), "int64_t": ("int", 8),
    "uint64_t": ("uint", 8), "uint32_t": ("uint", 4), "double": ("float", 8),
}


def c_kind(spelling, enums):
    """(kind, size) of a canonical C spelling ('const char * const *')."""
    toks = [t for t in spelling.split() if t != "const"]
    if "*" in toks:
        return ("ptr", ctypes.sizeof(ctypes.c_void_p))
    (base,) = toks
    if base in enums:
        return ("int", enums[base]["size"])
    return C_SCALARS[base]


def ctypes_kind(t):
    if t is None:
        return None
    if t in (ctypes.c_char_p, ctypes.c_void_p) or issubclass(t, ctypes._Pointer) \
            or issubclass(t, ctypes._CFuncPtr):
        return ("ptr", ctypes.sizeof(ctypes.c_void_p))
    if t is ctypes.c_double:
        return ("float", 8)
    if t is ctypes.c_char:
        return ("int", 1)
    signed = t(-1).value == -1
    return ("int" if signed else "uint", ctypes.sizeof(t))


class AbiTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.abi = support.abi_table()

    def test_structs(self):
        structs = self.abi["structs"]
        for name, cls in _capi.STRUCTS.items():
            with self.subTest(struct=name):
                self.assertIn(name, structs, f"{name} is not in fsdpa.h any more")
                c = structs[name]
                self.assertEqual(ctypes.sizeof(cls), c["size"], f"sizeof({name})")
                self.assertEqual(ctypes.alignment(cls), c["align"], f"_Alignof({name})")
                mine = [(f[0], getattr(cls, f[0]).offset, getattr(cls, f[0]).size)
                        for f in cls._fields_]
                theirs = [(f["name"], f["offset"], f["size"]) for f in c["fields"]]
                self.assertEqual(mine, theirs, f"fields of {name} (name, offset, size)")
        missing = sorted(set(structs) - set(_capi.STRUCTS))
        if missing:
            print(f"\n# note: header structs missing from _capi.py (run gen_ctypes.py): {missing}")

    def test_enums(self):
        enums = self.abi["enums"]
        for name, values in _capi.ENUMS.items():
            with self.subTest(enum=name):
                self.assertIn(name, enums)
                self.assertEqual(enums[name]["size"], ctypes.sizeof(ctypes.c_int))
                for k, v in values.items():
                    self.assertEqual(enums[name]["values"].get(k), v, k)
                extra = set(enums[name]["values"]) - set(values)
                if extra:
                    print(f"\n# note: {name} values missing from _capi.py: {sorted(extra)}")

    def test_constants(self):
        for k in self.abi["constants"]:
            if hasattr(_capi, k):
                self.assertEqual(self.abi["constants"][k], getattr(_capi, k), k)

    def test_signatures(self):
        funcs = self.abi["functions"]
        enums = self.abi["enums"]
        for name, (res, args) in _capi.SIGNATURES.items():
            with self.subTest(function=name):
                self.assertIn(name, funcs, f"{name} is not in fsdpa.h any more")
                c = funcs[name]
                self.assertEqual(ctypes_kind(res), c_kind(c["ret"], enums), f"{name} return")
                self.assertEqual(len(args), len(c["params"]), f"{name} parameter count")
                for i, (a, p) in enumerate(zip(args, c["params"])):
                    self.assertEqual(ctypes_kind(a), c_kind(p, enums), f"{name} parameter {i}: {p}")
        unwrapped = sorted(set(funcs) - set(_capi.SIGNATURES))
        if unwrapped:
            print(f"\n# note: header functions missing from _capi.py (run gen_ctypes.py): {unwrapped}")
        if _lib.MISSING:
            print(f"\n# note: functions the loaded library lacks: {_lib.MISSING}")

    def test_generated_file_is_current(self):
        """_capi.py is what gen_ctypes.py writes for the header in this tree
        (a difference is reported; the layout tests above decide whether it
        breaks anything)."""
        hdr = os.path.join(support.ROOT, "include", "fsdpa", "fsdpa.h")
        if not os.path.exists(hdr):
            self.skipTest("no fsdpa.h in this tree")
        sys.path.insert(0, os.path.dirname(support.HERE))
        try:
            import gen_ctypes
        finally:
            sys.path.pop(0)
        fresh = gen_ctypes.Gen(gen_ctypes.header.read(hdr)).run()
        with open(_capi.__file__, encoding="utf-8") as f:
            current = f.read()
        if fresh != current:
            print("\n# note: fsdpa/_capi.py is older than include/fsdpa/fsdpa.h: "
                  "run python3 bindings/python/gen_ctypes.py")

    def test_loaded_library_version(self):
        hdr = self.abi["header_version"]
        self.assertEqual(_lib.lib.fsdpa_version_string().decode(), hdr,
                         "the loaded libfsdpa is not the one the header in this tree describes")


if __name__ == "__main__":
    unittest.main()
