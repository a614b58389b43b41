"""A parser for the regular subset of C that include/fsdpa/fsdpa.h is written
in: `typedef struct NAME {...} NAME;` (scalar, pointer, array and
function-pointer members, each with its `/**< doc */`), opaque handles
(`typedef struct NAME NAME;`), `typedef enum NAME {...} NAME;` and tagged
enums that are not typedefs (`enum NAME {...};`, used for bit values whose
type is a fixed-width integer elsewhere), object-like `#define FSDPA_X value`
(integer constants) and `#define FSDPA_X_INIT {...}` (initialisers of the
struct fsdpa_x), `FSDPA_API` prototypes (the exported functions), and
one-line `static inline` definitions that call one of them (the `*_init`
helpers, which pass the caller's `sizeof` to `*_init_sized`: inline
wrappers, compiled into the caller, not symbols of the library).  Every declaration records
whether it lies inside `#ifdef FSDPA_EXPERIMENTAL`.  Used by gen_probe.py
(the ABI table) and by the bindings' generators.  It fails loudly on
anything it does not understand."""
import re
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Set

_DOC = "\x00DOC{}\x00"
_DOC_RE = re.compile(r"\x00DOC(\d+)\x00")

# The macro that switches the experimental declarations on.
EXPERIMENTAL_MACRO = "FSDPA_EXPERIMENTAL"


@dataclass
class Member:
    name: str
    ctype: str              # canonical spelling of the element type ('const char *')
    array: Optional[str]    # array length expression, or None
    fnptr: Optional[tuple]  # (return type, [param types]) for function pointers
    doc: str = ""

    def spelling(self):
        """The member's type as one C type name: 'const char *', 'char [512]',
        'void * (*)(void *, size_t)'."""
        if self.fnptr:
            ret, params = self.fnptr
            return f"{ret} (*)({', '.join(params) or 'void'})"
        return f"{self.ctype} [{self.array}]" if self.array else self.ctype


@dataclass
class Struct:
    name: str
    members: List[Member]
    experimental: bool = False


@dataclass
class Enum:
    name: str
    items: List[tuple]      # (name, doc, value expression)
    experimental: bool = False
    typedef: bool = True    # False: `enum NAME {...};`, spelled `enum NAME` in C

    @property
    def ctype(self):
        """How C code names the type."""
        return self.name if self.typedef else f"enum {self.name}"


@dataclass
class Initializer:
    name: str               # FSDPA_QUERY_INIT
    struct: str             # the struct it initialises (fsdpa_query)
    value: str              # the brace-enclosed initialiser text
    experimental: bool = False


@dataclass
class Function:
    name: str
    ret: str
    params: List[str]       # canonical types
    param_names: List[str]
    experimental: bool = False


@dataclass
class Inline:
    """`static inline RET NAME(PARAMS) { [return] CALLS(ARGS); }`: compiled
    into the caller, so not a symbol of the library."""
    name: str
    ret: str
    params: List[str]       # canonical types
    param_names: List[str]
    calls: str              # the exported function it calls
    args: List[str]         # the argument expressions, spaces normalised
    # the struct whose `sizeof *p` (p a parameter) it passes, or None
    sizeof: Optional[str] = None
    experimental: bool = False


@dataclass
class Header:
    structs: List[Struct] = field(default_factory=list)
    enums: List[Enum] = field(default_factory=list)
    functions: List[Function] = field(default_factory=list)
    inline: List[Inline] = field(default_factory=list)        # static inline wrappers
    defines: Dict[str, str] = field(default_factory=dict)     # integer constants only
    initializers: List[Initializer] = field(default_factory=list)
    opaque: List[str] = field(default_factory=list)           # typedef struct T T;
    # names declared inside #ifdef FSDPA_EXPERIMENTAL
    experimental: Set[str] = field(default_factory=set)

    def struct(self, name):
        return next((s for s in self.structs if s.name == name), None)

    def enum(self, name):
        return next((e for e in self.enums if e.name == name), None)

    def function(self, name):
        return next((f for f in self.functions if f.name == name), None)

    def stable(self):
        """A copy without the experimental declarations: what a program
        sees that does not define FSDPA_EXPERIMENTAL."""
        h = Header(structs=[s for s in self.structs if not s.experimental],
                   enums=[e for e in self.enums if not e.experimental],
                   functions=[f for f in self.functions if not f.experimental],
                   inline=[i for i in self.inline if not i.experimental],
                   defines={k: v for k, v in self.defines.items() if k not in self.experimental},
                   initializers=[i for i in self.initializers if not i.experimental],
                   opaque=[o for o in self.opaque if o not in self.experimental])
        return h

    def constant(self, expr):
        """Value of an integer constant expression over the header's macros
        (and enumerators: pass them in `defines` form).  Integer suffixes
        (`1u << 3`, `10ULL`) are dropped: the value is the same."""
        std = {"INT64_MIN": "(-9223372036854775807 - 1)", "INT64_MAX": "9223372036854775807",
               "UINT64_MAX": "18446744073709551615", "INT32_MAX": "2147483647",
               "INT32_MIN": "(-2147483647 - 1)", "SIZE_MAX": "18446744073709551615",
               "UINT32_MAX": "4294967295"}
        expr = re.sub(r"\b[A-Z0-9_]+_(?:MIN|MAX)\b", lambda m: std.get(m.group(0), m.group(0)), expr)
        for _ in range(8):
            new = re.sub(r"\bFSDPA_\w+\b", lambda m: f"({self.defines[m.group(0)]})"
                         if m.group(0) in self.defines else m.group(0), expr)
            if new == expr:
                break
            expr = new
        expr = re.sub(r"\b(0[xX][0-9a-fA-F]+|\d+)[uUlL]+\b", r"\1", expr)
        if not re.fullmatch(r"(?:\s|0[xX][0-9a-fA-F]+|\d+|<<|>>|[()+\-*|&~])*", expr):
            raise ValueError(f"not an integer constant expression: {expr}")
        return int(eval(expr))  # integer literals and operators only (checked above)


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


def _split_args(s):
    """Split a call's argument list at its top-level commas."""
    out, depth, cur = [], 0, ""
    for ch in s:
        if ch == "," and depth == 0:
            out.append(cur)
            cur = ""
            continue
        if ch in "([":
            depth += 1
        elif ch in ")]":
            depth -= 1
        cur += ch
    if cur.strip() or out:
        out.append(cur)
    return [" ".join(a.split()) for a in out]


def _experimental_regions(text):
    """[start, end) offsets of `text` that lie inside `#ifdef
    FSDPA_EXPERIMENTAL` (or `#if defined(FSDPA_EXPERIMENTAL)`).  Other
    conditionals (include guard, export macro, extern "C") hold declarations
    every compiler sees, so they only need to nest right."""
    regions = []
    stack = []  # (is_experimental, start offset)
    exp_if = re.compile(r"#\s*(?:ifdef\s+%s\b|if\s+defined\s*\(?\s*%s\s*\)?\s*$)"
                        % (EXPERIMENTAL_MACRO, EXPERIMENTAL_MACRO))
    pos = 0
    for line in text.splitlines(keepends=True):
        d = line.strip()
        if d.startswith("#"):
            word = re.match(r"#\s*(\w+)", d)
            kw = word.group(1) if word else ""
            if kw in ("if", "ifdef", "ifndef"):
                if kw == "ifndef" and re.search(rf"\b{EXPERIMENTAL_MACRO}\b", d):
                    raise SystemExit(f"header.py: '#ifndef {EXPERIMENTAL_MACRO}' is not supported: "
                                     "stable declarations must not depend on it")
                is_exp = bool(exp_if.match(d))
                if not is_exp and re.search(rf"\b{EXPERIMENTAL_MACRO}\b", d):
                    raise SystemExit(f"header.py: cannot read the condition '{d}'")
                stack.append((is_exp, pos + len(line)))
            elif kw in ("else", "elif"):
                if not stack:
                    raise SystemExit(f"header.py: '{d}' without #if")
                if stack[-1][0]:
                    raise SystemExit(f"header.py: '{d}' in the {EXPERIMENTAL_MACRO} section is "
                                     "not supported")
            elif kw == "endif":
                if not stack:
                    raise SystemExit("header.py: #endif without #if")
                is_exp, start = stack.pop()
                if is_exp:
                    if any(e for e, _ in stack):
                        raise SystemExit(f"header.py: nested {EXPERIMENTAL_MACRO} sections")
                    regions.append((start, pos))
        pos += len(line)
    if stack:
        raise SystemExit("header.py: unterminated #if")
    return regions


def parse(text):
    docs = []

    def keep_doc(m):
        docs.append(" ".join(m.group(1).split()))
        return _DOC.format(len(docs) - 1)

    text = re.sub(r"\\\n", " ", text)
    text = re.sub(r"/\*\*<(.*?)\*/", keep_doc, text, flags=re.S)
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    text = re.sub(r"//[^\n]*", " ", text)
    regions = _experimental_regions(text)

    def exp(pos):
        return any(a <= pos < b for a, b in regions)

    h = Header()

    def mark(name, pos):
        if exp(pos):
            h.experimental.add(name)
            return True
        return False

    for m in re.finditer(r"^[ \t]*#[ \t]*define[ \t]+(FSDPA_\w+)(\(?)[ \t]*(.*)$", text, re.M):
        name, value = m.group(1), _DOC_RE.sub("", m.group(3)).strip()
        if name in ("FSDPA_API", "FSDPA_FSDPA_H"):
            continue
        if m.group(2):
            raise SystemExit(f"header.py: function-like macro {name} is not supported")
        if not value:
            raise SystemExit(f"header.py: macro {name} has no value")
        x = mark(name, m.start())
        if value.startswith("{"):
            if not value.endswith("}"):
                raise SystemExit(f"header.py: cannot read the initialiser {name} = {value}")
            im = re.fullmatch(r"FSDPA_(\w+)_INIT", name)
            target = "fsdpa_" + im.group(1).lower() if im else None
            first = re.match(r"\{\s*sizeof\s*\(\s*(\w+)\s*\)", value)
            if first and target and first.group(1) != target:
                raise SystemExit(f"header.py: {name} starts with sizeof({first.group(1)}), "
                                 f"expected sizeof({target})")
            if not target:
                raise SystemExit(f"header.py: initialiser macro {name} is not named "
                                 "FSDPA_<STRUCT>_INIT")
            h.initializers.append(Initializer(name, target, value, x))
        else:
            h.defines[name] = value

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
            if re.search(r"\b(struct|union|enum)\b.*\{", decl):
                raise SystemExit(f"header.py: nested type definition in a member: '{decl}'")
            arr = re.search(r"\[([^\]]*)\]\s*$", decl)
            base = decl[:arr.start()] if arr else decl
            nm = re.search(r"(\w+)\s*$", base)
            if not nm:
                raise SystemExit(f"header.py: cannot parse member '{decl}'")
            members.append(Member(nm.group(1), c_type(base, True), arr.group(1).strip() if arr else None, None))
        if m.group(1) != m.group(3):
            raise SystemExit(f"header.py: typedef struct {m.group(1)} {{...}} {m.group(3)}: "
                             "tag and name must be the same")
        h.structs.append(Struct(m.group(3), members, mark(m.group(3), m.start())))

    for m in re.finditer(r"typedef\s+struct\s+(\w+)\s+(\w+)\s*;", text):
        if m.group(1) != m.group(2):
            raise SystemExit(f"header.py: typedef struct {m.group(1)} {m.group(2)}: "
                             "tag and name must be the same")
        h.opaque.append(m.group(1))
        mark(m.group(1), m.start())

    # A struct or union defined any other way would be missing from the table.
    known = {s.name for s in h.structs}
    for m in re.finditer(r"\b(struct|union)\s+(\w*)\s*\{", text):
        if m.group(1) == "union" or m.group(2) not in known or \
                not re.search(r"typedef\s+$", text[max(0, m.start() - 16):m.start()]):
            raise SystemExit(f"header.py: cannot read '{m.group(0)}': only "
                             "`typedef struct NAME {...} NAME;` is understood")

    for m in re.finditer(r"\b(typedef\s+)?enum\s+(\w*)\s*\{(.*?)\}\s*(\w*)\s*;", text, re.S):
        is_typedef = bool(m.group(1))
        tag, tdname = m.group(2), m.group(4)
        if is_typedef:
            if not tdname:
                raise SystemExit(f"header.py: typedef enum {tag} without a name")
            if tag and tag != tdname:
                raise SystemExit(f"header.py: typedef enum {tag} {{...}} {tdname}: "
                                 "tag and name must be the same")
            name = tdname
        else:
            if tdname:
                raise SystemExit(f"header.py: enum {tag} {{...}} {tdname}; declares a variable")
            if not tag:
                raise SystemExit("header.py: an enum needs a tag (enum fsdpa_NAME {...};) "
                                 "to appear in the ABI table")
            name = tag
        items = []
        for seg in m.group(3).split(","):
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
        x = mark(name, m.start())
        for it in items:
            if x:
                h.experimental.add(it[0])
        h.enums.append(Enum(name, items, x, is_typedef))

    # blank the doc markers without moving anything, so offsets stay those of `text`
    clean = _DOC_RE.sub(lambda d: " " * len(d.group(0)), text)
    for m in re.finditer(r"FSDPA_API\s+([^;{}()]*?)\b(fsdpa_\w+)\s*\(([^;{}]*?)\)\s*;", clean, re.S):
        if "(" in m.group(3):
            raise SystemExit(f"header.py: function-pointer parameter in {m.group(2)}")
        types, names = _split_params(m.group(3))
        h.functions.append(Function(m.group(2), c_type(m.group(1), False), types, names,
                                    mark(m.group(2), m.start())))
    # Every FSDPA_API outside its own #define must be a prototype read above.
    api_uses = [m.start() for m in re.finditer(r"\bFSDPA_API\b", clean)
                if not re.match(r"[ \t]*#", clean[clean.rfind("\n", 0, m.start()) + 1:m.start()])]
    read_at = {m.start() for m in re.finditer(
        r"FSDPA_API\s+([^;{}()]*?)\b(fsdpa_\w+)\s*\(([^;{}]*?)\)\s*;", clean, re.S)}
    for pos in api_uses:
        if pos not in read_at:
            line = clean[pos:clean.find("\n", pos)].strip()
            raise SystemExit(f"header.py: cannot read the declaration '{line}': only "
                             "`FSDPA_API RET fsdpa_NAME(PARAMS);` is understood")

    # The inline wrappers: one line each, calling one exported function.
    inline_re = re.compile(r"^[ \t]*static[ \t]+inline[ \t]+([^;{}()\n]*?)\b(fsdpa_\w+)[ \t]*"
                           r"\(([^;{}()\n]*)\)[ \t]*\{[ \t]*(return[ \t]+)?(fsdpa_\w+)[ \t]*"
                           r"\(((?:[^;{}()\n]|\([^;{}()\n]*\))*)\)[ \t]*;[ \t]*\}[ \t]*$", re.M)
    inline_at = set()
    for m in inline_re.finditer(clean):
        inline_at.add(m.start(0) + len(m.group(0)) - len(m.group(0).lstrip()))
        name, ret = m.group(2), c_type(m.group(1), False)
        types, names = _split_params(m.group(3))
        callee, args = m.group(5), _split_args(m.group(6))
        target = h.function(callee)
        if target is None:
            raise SystemExit(f"header.py: inline {name} calls {callee}, which is not an "
                             "FSDPA_API function of the header")
        if bool(m.group(4)) != (ret != "void"):
            raise SystemExit(f"header.py: inline {name} returns {ret} but "
                             f"{'returns' if m.group(4) else 'does not return'} {callee}()")
        if ret != target.ret:
            raise SystemExit(f"header.py: inline {name} returns {ret}, {callee} {target.ret}")
        if len(args) != len(target.params):
            raise SystemExit(f"header.py: inline {name} passes {len(args)} arguments to "
                             f"{callee}, which takes {len(target.params)}")
        sizeof = None
        for a in args:
            sm = re.fullmatch(r"sizeof\s*\(?\s*\*\s*(\w+)\s*\)?", a)
            if sm:
                if sm.group(1) not in names:
                    raise SystemExit(f"header.py: inline {name}: {a} is not of a parameter")
                ptype = types[names.index(sm.group(1))].split()
                if len(ptype) != 2 or ptype[1] != "*" or not h.struct(ptype[0]):
                    raise SystemExit(f"header.py: inline {name}: {a} is not the size of a "
                                     "header struct")
                sizeof = ptype[0]
        x = mark(name, m.start())
        h.inline.append(Inline(name, ret, types, names, callee, args, sizeof, x))
        if x != target.experimental:
            raise SystemExit(f"header.py: inline {name} and {callee} must both be stable "
                             "or both experimental")
    # Any other `static` or `inline` (a multi-line body, a static variable)
    # would be compiled into callers without being in the table.
    for m in re.finditer(r"\b(static|inline)\b", clean):
        start = clean.rfind("\n", 0, m.start()) + 1
        first = start + len(clean[start:m.start()]) - len(clean[start:m.start()].lstrip())
        if first not in inline_at:
            line = clean[start:clean.find("\n", m.start())].strip()
            raise SystemExit(f"header.py: cannot read '{line}': only one-line "
                             "`static inline RET fsdpa_NAME(PARAMS) { [return] fsdpa_F(ARGS); }` "
                             "wrappers of an FSDPA_API function are understood")
    if not h.structs or not h.enums or not h.functions:
        raise SystemExit("header.py: found no structs/enums/functions; did the header's style change?")
    names = [s.name for s in h.structs] + [e.name for e in h.enums] + \
        [f.name for f in h.functions] + [i.name for i in h.inline] + list(h.defines) + \
        [i.name for i in h.initializers]
    dup = sorted({n for n in names if names.count(n) > 1})
    if dup:
        raise SystemExit(f"header.py: declared twice: {dup}")
    for i in h.initializers:
        if not h.struct(i.struct):
            raise SystemExit(f"header.py: {i.name} initialises {i.struct}, which the header "
                             "does not define")
    return h


def read(path):
    with open(path, encoding="utf-8") as f:
        return parse(f.read())
