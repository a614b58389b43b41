"""A parser for the regular subset of C that include/fsdpa/fsdpa.h is written
in: `typedef struct NAME {...} NAME;` (scalar, pointer, array and
function-pointer members, each with its `/**< doc */`), `typedef enum NAME
{...} NAME;`, object-like `#define FSDPA_X value` and `FSDPA_API`
prototypes.  Used by gen_probe.py (the ABI table) and by the bindings'
generators.  It fails loudly on anything it does not understand."""
import re
from dataclasses import dataclass, field
from typing import Dict, List, Optional

_DOC = "\x00DOC{}\x00"
_DOC_RE = re.compile(r"\x00DOC(\d+)\x00")


@dataclass
class Member:
    name: str
    ctype: str              # canonical spelling of the element type ('const char *')
    array: Optional[str]    # array length expression, or None
    fnptr: Optional[tuple]  # (return type, [param types]) for function pointers
    doc: str = ""


@dataclass
class Struct:
    name: str
    members: List[Member]


@dataclass
class Enum:
    name: str
    items: List[tuple]      # (name, doc, value expression)


@dataclass
class Function:
    name: str
    ret: str
    params: List[str]       # canonical types
    param_names: List[str]


@dataclass
class Header:
    structs: List[Struct] = field(default_factory=list)
    enums: List[Enum] = field(default_factory=list)
    functions: List[Function] = field(default_factory=list)
    defines: Dict[str, str] = field(default_factory=dict)

    def struct(self, name):
        return next((s for s in self.structs if s.name == name), None)

    def enum(self, name):
        return next((e for e in self.enums if e.name == name), None)

    def constant(self, expr):
        """Value of an integer constant expression over the header's macros."""
        std = {"INT64_MIN": "(-9223372036854775807 - 1)", "INT64_MAX": "9223372036854775807",
               "UINT64_MAX": "18446744073709551615", "INT32_MAX": "2147483647",
               "INT32_MIN": "(-2147483647 - 1)", "SIZE_MAX": "18446744073709551615"}
        expr = re.sub(r"\b[A-Z0-9_]+_(?:MIN|MAX)\b", lambda m: std.get(m.group(0), m.group(0)), expr)
        for _ in range(8):
            new = re.sub(r"\bFSDPA_\w+\b", lambda m: f"({self.defines[m.group(0)]})"
                         if m.group(0) in self.defines else m.group(0), expr)
            if new == expr:
                break
            expr = new
        if not re.fullmatch(r"[\d\s()+\-*/<>|]+", expr):
            raise ValueError(f"not an integer constant expression: {expr}")
        return int(eval(expr))  # digits and operators only (checked above)


def c_type(decl, named):
    """Canonical spelling: identifiers and '*' separated by one space, the
    name dropped: `const char *const *paths` -> `const char * const *`."""
    toks = re.findall(r"\w+|\*", decl)
    if named and len(toks) > 1 and re.match(r"\w", toks[-1]):
        toks = toks[:-1]
    return " ".join(toks)


def _split_params(s):
    s = " ".join(s.split())
    if s in ("", "void"):
        return [], []
    types, names = [], []
    for p in s.split(","):
        types.append(c_type(p, True))
        m = re.search(r"(\w+)\s*$", p)
        names.append(m.group(1) if m else "")
    return types, names


def parse(text):
    docs = []

    def keep_doc(m):
        docs.append(" ".join(m.group(1).split()))
        return _DOC.format(len(docs) - 1)

    text = re.sub(r"\\\n", " ", text)
    text = re.sub(r"/\*\*<(.*?)\*/", keep_doc, text, flags=re.S)
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    text = re.sub(r"//[^\n]*", " ", text)
    h = Header()
    for m in re.finditer(r"^[ \t]*#[ \t]*define[ \t]+(FSDPA_\w+)[ \t]+(\S.*)$", text, re.M):
        if m.group(1) not in ("FSDPA_API", "FSDPA_FSDPA_H"):
            h.defines[m.group(1)] = _DOC_RE.sub("", m.group(2)).strip()

    for m in re.finditer(r"typedef\s+struct\s+(\w+)\s*\{(.*?)\}\s*(\w+)\s*;", text, re.S):
        members = []
        for seg in m.group(2).split(";"):
            lead = _DOC_RE.match(seg.strip())
            if lead and members:
                members[-1].doc = docs[int(lead.group(1))]
            decl = " ".join(_DOC_RE.sub(" ", seg).split())
            if not decl:
                continue
            fp = re.match(r"(.*?)\(\s*\*\s*(\w+)\s*\)\s*\((.*)\)$", decl)
            if fp:
                ptypes, _ = _split_params(fp.group(3))
                members.append(Member(fp.group(2), "fnptr", None, (c_type(fp.group(1), False), ptypes)))
                continue
            if "," in decl:
                raise SystemExit(f"header.py: one member per declaration please: '{decl}'")
            arr = re.search(r"\[([^\]]*)\]\s*$", decl)
            base = decl[:arr.start()] if arr else decl
            nm = re.search(r"(\w+)\s*$", base)
            if not nm:
                raise SystemExit(f"header.py: cannot parse member '{decl}'")
            members.append(Member(nm.group(1), c_type(base, True), arr.group(1).strip() if arr else None, None))
        h.structs.append(Struct(m.group(3), members))

    for m in re.finditer(r"typedef\s+enum\s+(\w+)\s*\{(.*?)\}\s*(\w+)\s*;", text, re.S):
        items = []
        for seg in m.group(2).split(","):
            plain = _DOC_RE.sub(" ", seg)
            ident = re.search(r"([A-Za-z_]\w*)\s*(?:=\s*([^=]+?))?\s*$", plain.strip())
            if plain.strip() and not ident:
                raise SystemExit(f"header.py: cannot parse enumerator '{plain.strip()}'")
            pos = seg.index(ident.group(1)) if ident else len(seg)
            for d in _DOC_RE.finditer(seg):
                if d.start() < pos and items:
                    items[-1] = (items[-1][0], docs[int(d.group(1))], items[-1][2])
            if ident:
                if ident.group(2):
                    value = ident.group(2).strip()
                else:
                    value = f"({items[-1][2]}) + 1" if items else "0"
                after = [docs[int(d.group(1))] for d in _DOC_RE.finditer(seg) if d.start() > pos]
                items.append((ident.group(1), after[0] if after else "", value))
        h.enums.append(Enum(m.group(3), items))

    clean = _DOC_RE.sub(" ", text)
    for m in re.finditer(r"FSDPA_API\s+([^;{}()]*?)\b(fsdpa_\w+)\s*\(([^;{}]*?)\)\s*;", clean, re.S):
        if "(" in m.group(3):
            raise SystemExit(f"header.py: function-pointer parameter in {m.group(2)}")
        types, names = _split_params(m.group(3))
        h.functions.append(Function(m.group(2), c_type(m.group(1), False), types, names))
    if not h.structs or not h.enums or not h.functions:
        raise SystemExit("header.py: found no structs/enums/functions; did the header's style change?")
    return h


def read(path):
    with open(path, encoding="utf-8") as f:
        return parse(f.read())
