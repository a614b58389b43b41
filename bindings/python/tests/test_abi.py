"""The ctypes declarations (fsdpa/_capi.py, generated from fsdpa.h by
gen_ctypes.py) match the C header as the C compiler sees it: struct sizes and
offsets, enum values, constants and function signatures, compared with the
table that a C program generated from fsdpa.h prints (bindings/abi/).  This
catches a stale _capi.py after a header change, and any place where ctypes
would lay a struct out differently from C.  Every struct, enum, opaque
handle and function of the header must be mirrored (the experimental ones
too, marked as such), every field's kind (pointer, integer, float, array)
must be C's, and the whole-trace query the binding builds must be the
FSDPA_QUERY_INIT of the C compiler.  The header's static inline wrappers
(the *_init helpers) are not symbols: the binding calls the exported
*_init_sized with its own ctypes size of the struct, and the library writes
nothing past that size."""
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
# the `size` field every versioned struct starts with
SIZE_T = ctypes.sizeof(ctypes.c_size_t)


def c_kind(spelling, enums):
    """(kind, size) of a canonical C spelling ('const char * const *',
    'void * (*)(void *, size_t)', 'enum fsdpa_query_field')."""
    toks = [t for t in spelling.split() if t not in ("const", "enum", "struct")]
    if "*" in toks or "(*)(" in spelling.replace(" ", ""):
        return ("ptr", ctypes.sizeof(ctypes.c_void_p))
    (base,) = toks
    if base in enums:
        return ("int", enums[base]["size"])
    return C_SCALARS[base]


def c_field_kind(f, enums, structs):
    """(kind, size) of a field of the table: arrays by element and count,
    structs by name."""
    t = f["type"]
    if "count" in f:
        elem = t[:t.index("[")].strip()
        return ("array", c_field_kind({"type": elem}, enums, structs), f["count"])
    if "*" not in t and t in structs:
        return ("struct", t)
    return c_kind(t, enums)


def ctypes_field_kind(t):
    if isinstance(t, type) and issubclass(t, ctypes.Array):
        return ("array", ctypes_field_kind(t._type_), t._length_)
    if isinstance(t, type) and issubclass(t, ctypes.Structure):
        return ("struct", t.__name__)
    return ctypes_kind(t)


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
                for (fname, ftype), f in zip(cls._fields_, c["fields"]):
                    self.assertEqual(ctypes_field_kind(ftype),
                                     c_field_kind(f, self.abi["enums"], structs),
                                     f"{name}.{fname}: {f['type']}")
        missing = sorted(set(structs) - set(_capi.STRUCTS))
        self.assertEqual(missing, [], "header structs missing from _capi.py (run gen_ctypes.py)")

    def test_new_structs_are_covered(self):
        """The structs 0.2 added (the error channel, typed findings and their
        ranges, parameters, the query with its fields mask) are in the table
        and mirrored, and their pointer fields are pointers for ctypes too."""
        structs = self.abi["structs"]
        for name in ("fsdpa_error", "fsdpa_finding", "fsdpa_range", "fsdpa_param",
                     "fsdpa_query"):
            with self.subTest(struct=name):
                self.assertIn(name, structs)
                self.assertIn(name, _capi.STRUCTS)
        ptr = ("ptr", ctypes.sizeof(ctypes.c_void_p))
        f = dict(_capi.fsdpa_finding._fields_)
        for k in ("id", "title", "detail", "advice", "evidence_json", "ranges"):
            self.assertEqual(ctypes_kind(f[k]), ptr, f"fsdpa_finding.{k}")
        self.assertIs(f["ranges"]._type_, _capi.fsdpa_range)
        self.assertEqual(_capi.fsdpa_error.message.size, 512)
        self.assertEqual([x[0] for x in _capi.fsdpa_range._fields_], ["start_ns", "end_ns"])
        self.assertEqual(dict(_capi.fsdpa_query._fields_)["fields"], ctypes.c_uint32)

    def test_opaque_handles(self):
        self.assertEqual(sorted(self.abi["opaque"]), ["fsdpa_ctx", "fsdpa_list"])
        for name in self.abi["opaque"]:
            cls = getattr(_capi, name)
            self.assertEqual(cls._fields_ if hasattr(cls, "_fields_") else [], [], name)
            self.assertIs(getattr(_capi, name[len("fsdpa_"):] + "_p")._type_, cls)
        self.assertNotIn("fsdpa_list", self.abi["structs"])

    def test_list_kinds(self):
        """Every kind of list names the struct fsdpa_list_get() fills, and
        the binding has a dataclass for each."""
        kinds = self.abi["enums"]["fsdpa_list_kind"]["values"]
        self.assertEqual(sorted(_capi.LIST_ITEMS), sorted(kinds.values()))
        for v, struct in _capi.LIST_ITEMS.items():
            self.assertIn(struct.__name__, self.abi["structs"])
            self.assertIs(_capi.RESULTS[struct.__name__]._c, struct)

    def test_query_initializer(self):
        """FSDPA_QUERY_INIT as the C compiler fills it, the library's
        defaults (fsdpa_query_init_sized() with the binding's size, as the
        header's inline fsdpa_query_init() passes its caller's) and the
        binding's whole-trace Query() are the same bytes."""
        from fsdpa import Query
        init = self.abi["initializers"]["FSDPA_QUERY_INIT"]
        self.assertEqual(init["struct"], "fsdpa_query")
        self.assertEqual(_capi.INITIALIZERS, {"FSDPA_QUERY_INIT": "fsdpa_query"})
        mine = Query().to_c()
        self.assertEqual({k: getattr(mine, k) for k, _t in _capi.fsdpa_query._fields_},
                         init["values"])
        theirs = _capi.fsdpa_query()
        theirs.fields, theirs.step = 31, 7
        _lib.init(theirs)
        self.assertEqual(bytes(mine), bytes(theirs))
        self.assertEqual(init["values"]["size"], ctypes.sizeof(_capi.fsdpa_query))
        self.assertEqual(init["values"]["fields"], 0)

    def test_experimental(self):
        """The declarations under FSDPA_EXPERIMENTAL are probed and marked;
        the binding knows which they are."""
        exp = set(self.abi["experimental"])
        self.assertEqual(set(_capi.EXPERIMENTAL), exp)
        self.assertIn("fsdpa_annotate_file", exp)
        for kind in ("structs", "enums", "functions", "inline"):
            for name, d in self.abi[kind].items():
                self.assertEqual(d["experimental"], name in exp, f"{kind} {name}")
        stable = [n for n, d in self.abi["functions"].items() if not d["experimental"]]
        self.assertIn("fsdpa_report_findings", stable)

    def test_enums(self):
        enums = self.abi["enums"]
        for name, values in _capi.ENUMS.items():
            with self.subTest(enum=name):
                self.assertIn(name, enums)
                self.assertEqual(enums[name]["size"], ctypes.sizeof(ctypes.c_int))
                for k, v in values.items():
                    self.assertEqual(enums[name]["values"].get(k), v, k)
                extra = set(enums[name]["values"]) - set(values)
                self.assertEqual(sorted(extra), [], f"{name} values missing from _capi.py")
        self.assertEqual(sorted(set(enums) - set(_capi.ENUMS)), [],
                         "header enums missing from _capi.py (run gen_ctypes.py)")
        # the one enum that is not a typedef: bits of fsdpa_query.fields
        qf = enums["fsdpa_query_field"]
        self.assertEqual((qf["typedef"], qf["c_type"]), (False, "enum fsdpa_query_field"))
        self.assertEqual(qf["values"], {"FSDPA_QUERY_T0": 1, "FSDPA_QUERY_T1": 2,
                                        "FSDPA_QUERY_STEP": 4, "FSDPA_QUERY_DEVICE": 8,
                                        "FSDPA_QUERY_STREAM": 16})

    def test_constants(self):
        for k in self.abi["constants"]:
            self.assertTrue(hasattr(_capi, k), f"{k} missing from _capi.py")
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
        self.assertEqual(unwrapped, [], "header functions missing from _capi.py "
                         "(run gen_ctypes.py)")
        if _lib.MISSING:
            print(f"\n# note: functions the loaded library lacks: {_lib.MISSING}")

    def test_inline_wrappers(self):
        """The header's static inline wrappers are in the table apart from
        the functions, _capi.py knows each with what it calls, none is a
        symbol of the loaded library (so no binding can call one), and each
        *_init wrapper passes the size of the struct it fills."""
        inline = self.abi["inline"]
        self.assertEqual({n: (d["calls"], d["sizeof"]) for n, d in inline.items()},
                         _capi.INLINE)
        self.assertEqual(sorted(n for n in inline if n.endswith("_init")),
                         sorted(f"{s}_init" for s in _capi.INIT_SIZED))
        for name, d in inline.items():
            with self.subTest(wrapper=name):
                self.assertNotIn(name, self.abi["functions"])
                self.assertNotIn(name, _capi.SIGNATURES)
                self.assertIn(d["calls"], self.abi["functions"])
                with self.assertRaises(AttributeError, msg=f"libfsdpa exports {name}"):
                    getattr(_lib.lib, name)
                if name.endswith("_init"):
                    struct = name[:-len("_init")]
                    self.assertEqual((d["calls"], d["sizeof"]), (f"{struct}_init_sized", struct))
                    self.assertEqual(d["params"], [f"{struct} *"])
                    self.assertEqual(d["args"], [d["param_names"][0],
                                                 f"sizeof *{d['param_names'][0]}"])
                    self.assertEqual(self.abi["functions"][d["calls"]]["params"],
                                     [f"{struct} *", "size_t"])
                    self.assertEqual(_capi.INIT_SIZED[struct], d["calls"])

    def test_init_passes_own_size(self):
        """Every default-filling call of the binding passes ctypes' size of
        the struct it fills: in a buffer with room to spare, the struct's
        size field is that size and the bytes past it are untouched; a
        binding generated from an older, smaller struct (the first fields
        only) gets the defaults of those fields and nothing past them; and
        fsdpa_<x>_init_sized() at every field boundary below the library's
        size writes the defaults of the fields before it and nothing else."""
        spare = 64
        for name, fn in _capi.INIT_SIZED.items():
            cls = _capi.STRUCTS[name]
            size = ctypes.sizeof(cls)
            full = _lib.init(cls())
            self.assertEqual(full.size, size, name)
            with self.subTest(struct=name, caller="this binding"):
                buf = bytearray(b"\xaa" * (size + spare))
                obj = _lib.init(cls.from_buffer(buf))
                self.assertEqual(obj.size, size)
                self.assertEqual(bytes(buf[:size]), bytes(full))
                self.assertEqual(bytes(buf[size:]), b"\xaa" * spare, "written past sizeof")
            # an older binding: the longest prefix of fields that is smaller
            for k in range(len(cls._fields_) - 1, 0, -1):
                older = type(name, (ctypes.Structure,), {"_fields_": cls._fields_[:k]})
                if ctypes.sizeof(older) < size:
                    break
            osize = ctypes.sizeof(older)
            with self.subTest(struct=name, caller=f"older binding, {k} fields, {osize} bytes"):
                self.assertLess(osize, size)
                buf = bytearray(b"\xaa" * (size + spare))
                obj = _lib.init(older.from_buffer(buf), struct=name)
                self.assertEqual(obj.size, osize)
                ends = max(getattr(cls, f[0]).offset + getattr(cls, f[0]).size
                           for f in cls._fields_[:k])
                self.assertEqual(bytes(buf[SIZE_T:ends]), bytes(full)[SIZE_T:ends], "defaults")
                self.assertEqual(bytes(buf[osize:]), b"\xaa" * (size + spare - osize),
                                 "written past the older binding's struct")
            sized = _lib.func(fn)
            for fname, _t in cls._fields_[1:]:
                cut = getattr(cls, fname).offset
                with self.subTest(struct=name, size=cut):
                    buf = bytearray(b"\xaa" * (size + spare))
                    sized(ctypes.cast((ctypes.c_char * len(buf)).from_buffer(buf),
                                      ctypes.POINTER(cls)), cut)
                    self.assertEqual(int.from_bytes(buf[:SIZE_T], sys.byteorder), cut, "size field")
                    self.assertEqual(bytes(buf[SIZE_T:cut]), bytes(full)[SIZE_T:cut], "defaults")
                    self.assertEqual(bytes(buf[cut:]), b"\xaa" * (size + spare - cut),
                                     f"{fn}(p, {cut}) wrote past {cut} bytes")

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


def _header_module():
    sys.path.insert(0, os.path.join(support.BINDINGS, "abi"))
    try:
        import header
    finally:
        sys.path.pop(0)
    return header


SMALL = """
#ifndef X_H
#define X_H
#if defined(_WIN32)
#  define FSDPA_API __declspec(dllimport)
#else
#  define FSDPA_API
#endif
#define FSDPA_N 4
typedef struct fsdpa_h fsdpa_h;
enum fsdpa_bits {
  FSDPA_B0 = 1u << 0,  /**< zero */
  FSDPA_B1 = 1u << 1   /**< one */
};
typedef enum fsdpa_kind { FSDPA_K_A = 1, FSDPA_K_B } fsdpa_kind;
typedef struct fsdpa_q {
  size_t size;          /**< sizeof */
  uint32_t fields;      /**< bits */
  int64_t v[FSDPA_N];   /**< values */
  const char *name;     /**< a name */
} fsdpa_q;
#define FSDPA_Q_INIT {sizeof(fsdpa_q), 0, {0}, 0}
FSDPA_API int fsdpa_q_get(const fsdpa_h *h, fsdpa_q *out);
FSDPA_API void fsdpa_q_init_sized(fsdpa_q *q, size_t size);
static inline void fsdpa_q_init(fsdpa_q *q) { fsdpa_q_init_sized(q, sizeof *q); }
#ifdef FSDPA_EXPERIMENTAL
typedef struct fsdpa_x { size_t size; /**< s */ } fsdpa_x;
#define FSDPA_X_MAX 9
FSDPA_API int fsdpa_x_run(fsdpa_h *const *hs, size_t n, fsdpa_x *x);
#endif /* FSDPA_EXPERIMENTAL */
#endif
"""


class HeaderParserTest(unittest.TestCase):
    """bindings/abi/header.py on the header's constructs, and its refusals."""

    def test_constructs(self):
        h = _header_module().parse(SMALL)
        self.assertEqual(h.opaque, ["fsdpa_h"])
        self.assertEqual([(e.name, e.ctype, e.typedef) for e in h.enums],
                         [("fsdpa_bits", "enum fsdpa_bits", False),
                          ("fsdpa_kind", "fsdpa_kind", True)])
        self.assertEqual([h.constant(v) for _n, _d, v in h.enum("fsdpa_bits").items], [1, 2])
        self.assertEqual(h.enum("fsdpa_bits").items[1][1], "one")
        self.assertEqual(h.defines, {"FSDPA_N": "4", "FSDPA_X_MAX": "9"})
        (init,) = h.initializers
        self.assertEqual((init.name, init.struct, init.experimental),
                         ("FSDPA_Q_INIT", "fsdpa_q", False))
        q = h.struct("fsdpa_q")
        self.assertEqual([m.spelling() for m in q.members],
                         ["size_t", "uint32_t", "int64_t [FSDPA_N]", "const char *"])
        self.assertEqual(h.experimental, {"fsdpa_x", "FSDPA_X_MAX", "fsdpa_x_run"})
        self.assertEqual([(f.name, f.experimental) for f in h.functions],
                         [("fsdpa_q_get", False), ("fsdpa_q_init_sized", False),
                          ("fsdpa_x_run", True)])
        self.assertEqual(h.functions[2].params, ["fsdpa_h * const *", "size_t", "fsdpa_x *"])
        # the inline wrapper is not a function of the library
        (w,) = h.inline
        self.assertEqual((w.name, w.ret, w.params, w.param_names, w.calls, w.args, w.sizeof,
                          w.experimental),
                         ("fsdpa_q_init", "void", ["fsdpa_q *"], ["q"], "fsdpa_q_init_sized",
                          ["q", "sizeof *q"], "fsdpa_q", False))
        st = h.stable()
        self.assertEqual([s.name for s in st.structs], ["fsdpa_q"])
        self.assertEqual(list(st.defines), ["FSDPA_N"])

    def test_refusals(self):
        header = _header_module()
        bad = {
            "an enum without a tag": SMALL.replace("enum fsdpa_bits {", "enum {"),
            "a struct defined another way": SMALL.replace(
                "typedef struct fsdpa_h fsdpa_h;", "struct fsdpa_s { int a; };"),
            "#else in the experimental section": SMALL.replace(
                "#endif /* FSDPA_EXPERIMENTAL */", "#else\n#endif"),
            "a function-like macro": SMALL.replace("#define FSDPA_N 4",
                                                   "#define FSDPA_N 4\n#define FSDPA_F(x) x"),
            "an initialiser of no struct": SMALL.replace("FSDPA_Q_INIT", "FSDPA_Z_INIT"),
            "an unterminated #if": SMALL + "#ifdef FOO\n",
            "an inline wrapper over several lines": SMALL.replace(
                "{ fsdpa_q_init_sized(q, sizeof *q); }", "{\n  fsdpa_q_init_sized(q, sizeof *q);\n}"),
            "an inline wrapper of no exported function": SMALL.replace(
                "{ fsdpa_q_init_sized(q,", "{ fsdpa_q_reset(q,"),
            "an inline wrapper passing the wrong number of arguments": SMALL.replace(
                "fsdpa_q_init_sized(q, sizeof *q); }", "fsdpa_q_init_sized(q); }"),
            "an inline wrapper that does more": SMALL.replace(
                "{ fsdpa_q_init_sized(q, sizeof *q); }", "{ q->fields = 1; fsdpa_q_init_sized(q, 8); }"),
            "a static variable": SMALL.replace("#define FSDPA_N 4",
                                               "#define FSDPA_N 4\nstatic const int fsdpa_k = 1;"),
            "a function defined with FSDPA_API": SMALL.replace(
                "FSDPA_API int fsdpa_q_get(const fsdpa_h *h, fsdpa_q *out);",
                "FSDPA_API int fsdpa_q_get(const fsdpa_h *h, fsdpa_q *out) { return 0; }"),
        }
        for what, text in bad.items():
            with self.subTest(what), self.assertRaises(SystemExit):
                header.parse(text)


if __name__ == "__main__":
    unittest.main()
