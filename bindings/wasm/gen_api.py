#!/usr/bin/env python3
"""Generate the JavaScript binding's tables from include/fsdpa/fsdpa.h.

    gen_api.py exports fsdpa.h exports.json
        the EXPORTED_FUNCTIONS of the wasm module: every FSDPA_API function
        of the header (bindings/abi/header.py), with malloc and free.
    gen_api.py table fsdpa.h abi.json abi_table.js fsdpa.d.ts
        abi.json is the ABI table (bindings/abi/gen_probe.py's program) as
        the wasm32 compiler sees the header, run under node: struct sizes
        and offsets come from emcc, not from this script.  Writes the table
        api.js reads structs with (abi_table.js) and the TypeScript
        declarations.

The methods of Analyzer are derived from the functions' shapes, so a query,
list or getter added to the header appears in JavaScript without anyone
editing this file:

    fsdpa_<x>_query(ctx, const fsdpa_query *, T *out)       -> x(query)
    fsdpa_<x>_list(ctx, [const fsdpa_query *,] args..., fsdpa_list **out)
                                                            -> xs(query, args...)
    fsdpa_<x>_get(ctx, T *out)                              -> x()
    int fsdpa_<x>(const fsdpa_ctx *)                        -> x()
    fsdpa_<x>_query / _list(fsdpa_ctx *const *ctxs, size_t n, ..., fsdpa_error *)
                                                            -> module functions over analyzers

Functions of other shapes are wrapped by hand in api.js (HAND) or named in
NOT_WRAPPED with the reason; tests/wasm/node_test.mjs fails on a function
that is none of these.
"""
import json
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "abi"))
sys.path.insert(0, os.path.join(HERE, "..", "python"))
import header  # noqa: E402
# enum names as the report spells them (FSDPA_BWD_NO_PREFETCH -> no_prefetch),
# the Python binding's rule
from gen_ctypes import enum_short_names  # noqa: E402

# Wrapped by hand in api.js.
HAND = {
    "fsdpa_options_init_sized", "fsdpa_version_string", "fsdpa_status_str", "fsdpa_ctx_new",
    "fsdpa_ctx_free", "fsdpa_feed", "fsdpa_finish", "fsdpa_errmsg", "fsdpa_error_offset",
    "fsdpa_error_init_sized", "fsdpa_free", "fsdpa_list_type", "fsdpa_list_count", "fsdpa_list_get",
    "fsdpa_list_free", "fsdpa_trace_info_init_sized", "fsdpa_trace_info_set", "fsdpa_query_init_sized",
    "fsdpa_report_options_init_sized", "fsdpa_report", "fsdpa_report_findings", "fsdpa_param_list",
    "fsdpa_param_set", "fsdpa_param_get", "fsdpa_summary_write", "fsdpa_version",
}
# Not in JavaScript, and why.
NOT_WRAPPED = {
    "fsdpa_feed_file": "reads a path of the wasm file system; feed() the bytes instead",
    "fsdpa_event_init_sized": "structured events come from a profiler that links the C library",
    "fsdpa_event_add": "structured events come from a profiler that links the C library",
    "fsdpa_findings_worst": "findings() returns the severities; Math.max over them",
    "fsdpa_backward_pattern_name": "enum fields are read as their names already",
    "fsdpa_severity_name": "enum fields are read as their names already",
    "fsdpa_summary_options_init_sized": "summaries are merged where the traces live (the CLI)",
    "fsdpa_summary_merge": "summaries are merged where the traces live (the CLI)",
    "fsdpa_summary_report": "summaries are merged where the traces live (the CLI)",
    "fsdpa_summary_findings": "summaries are merged where the traces live (the CLI)",
    "fsdpa_annotate_options_init_sized": "experimental; writes files",
    "fsdpa_annotate_events": "experimental; writes files",
    "fsdpa_annotate_file": "experimental; writes files",
    "fsdpa_device_info_init_sized": "device descriptions come with structured events, from a profiler that links "
                                    "the C library; a JSON trace's deviceProperties set them",
    "fsdpa_device_info_set": "device descriptions come with structured events, from a profiler that links "
                             "the C library; a JSON trace's deviceProperties set them",
    "fsdpa_kernel_select_init_sized": "experimental; its selection struct is no generated shape: the report's "
                                      "ranks[].kernels is the table",
    "fsdpa_kernel_list": "experimental; its selection struct is no generated shape: the report's "
                         "ranks[].kernels is the table",
    "fsdpa_device_peak_get": "a getter with an argument is no generated shape: the report's "
                             "ranks[].efficiency.device.peaks is the row",
    "fsdpa_diff_options_init_sized": "experimental; two runs are compared where their reports are (the CLI's "
                                     "fsdpa diff)",
    "fsdpa_diff": "experimental; two runs are compared where their reports are (the CLI's fsdpa diff)",
}

# What the ES module exports besides one function per call over several analyzers.
FIXED_EXPORTS = ["Analyzer", "FsdpaError", "report", "reportBytes", "findings", "params", "version",
                 "heapBytes", "Status"]

SCALAR = {"int64_t": "i64", "uint64_t": "u64", "size_t": "usize", "uint32_t": "u32", "int": "i32",
          "double": "f64", "const char *": "str"}
TS = {"i64": "bigint | null", "u64": "bigint", "usize": "number", "u32": "number", "i32": "number",
      "f64": "number", "str": "string | null", "chars": "string"}


def camel(snake):
    p = snake.split("_")
    return p[0] + "".join(w.capitalize() for w in p[1:])


def plural(name):
    return name if name.endswith("s") else name + "s"


def field_kind(f, fields, abi):
    """How api.js reads (and writes) one struct field: a short code."""
    t = f["type"]
    if t in SCALAR:
        return SCALAR[t]
    if t in abi["enums"]:
        return "enum:" + t
    m = re.match(r"^(char|int64_t|uint64_t|double|int|uint32_t) \[(.+)\]$", t)
    if m:
        return "chars" if m.group(1) == "char" else "arr:" + SCALAR[m.group(1)]
    m = re.match(r"^const (fsdpa_\w+) \*$", t)
    if m and m.group(1) in abi["structs"] and any(g["name"] == "n" + f["name"] for g in fields):
        return "ptrarr:" + m.group(1) + ":n" + f["name"]
    return "skip"  # allocator callbacks, user data: not for JavaScript


def list_kinds(h):
    """FSDPA_LIST_* value -> the struct its items are (the enumerator's doc
    names it first: `::fsdpa_step (fsdpa_step_list())`)."""
    e = h.enum("fsdpa_list_kind")
    out = {}
    for name, doc, _v in e.items:
        m = re.search(r"::(fsdpa_\w+)", doc)
        if not m:
            raise SystemExit(f"gen_api: {name}: its doc names no item struct")
        out[name] = m.group(1)
    return out


def methods(abi):
    """Analyzer methods and module functions from the functions' shapes."""
    out, multi = [], []
    for name, fn in abi["functions"].items():
        if name in HAND or name in NOT_WRAPPED:
            continue
        ps, pn = fn["params"], fn["param_names"]
        base = name[len("fsdpa_"):]
        if ps and ps[0] in ("fsdpa_ctx *", "const fsdpa_ctx *"):
            rest, rest_n = ps[1:], pn[1:]
            query = bool(rest) and rest[0] == "const fsdpa_query *"
            if query:
                rest, rest_n = rest[1:], rest_n[1:]
            if fn["ret"] == "int" and not rest:
                out.append({"js": camel(base), "c": name, "kind": "int", "query": False, "args": []})
                continue
            if fn["ret"] != "fsdpa_status" or not rest:
                raise SystemExit(f"gen_api: {name}: a shape the JavaScript binding does not know")
            last = rest[-1]
            args = [{"name": n, "kind": SCALAR.get(t) or ("enum:" + t if t in abi["enums"] else None)}
                    for t, n in zip(rest[:-1], rest_n[:-1])]
            if any(a["kind"] is None for a in args):
                raise SystemExit(f"gen_api: {name}: an argument type the JavaScript binding does not know")
            if base.endswith("_list") and last == "fsdpa_list * *":
                js = camel(plural(base[:-len("_list")]))
                out.append({"js": js, "c": name, "kind": "list", "query": query, "args": args})
            elif (base.endswith("_query") or base.endswith("_get")) and last.endswith(" *") \
                    and last[:-2] in abi["structs"] and not args:
                js = camel(base.rsplit("_", 1)[0])
                out.append({"js": js, "c": name, "kind": "struct", "struct": last[:-2], "query": query,
                            "args": []})
            else:
                raise SystemExit(f"gen_api: {name}: a shape the JavaScript binding does not know")
        elif ps[:2] == ["fsdpa_ctx * const *", "size_t"] and ps[-1] == "fsdpa_error *" and len(ps) == 4:
            last = ps[2]
            if base.endswith("_list") and last == "fsdpa_list * *":
                multi.append({"js": camel(plural(base[:-len("_list")])), "c": name, "kind": "list"})
            elif base.endswith("_query") and last[:-2] in abi["structs"]:
                multi.append({"js": camel(base[:-len("_query")]), "c": name, "kind": "struct",
                              "struct": last[:-2]})
            else:
                raise SystemExit(f"gen_api: {name}: a shape the JavaScript binding does not know")
        else:
            raise SystemExit(f"gen_api: {name}: not wrapped: add it to HAND (api.js) or NOT_WRAPPED")
    return out, multi


def table(h, abi):
    structs = {}
    for sname, s in abi["structs"].items():
        fields = []
        for f in s["fields"]:
            k = field_kind(f, s["fields"], abi)
            e = {"name": f["name"], "offset": f["offset"], "size": f["size"], "k": k}
            if "count" in f:
                e["count"] = f["count"]
            fields.append(e)
        structs[sname] = {"size": s["size"], "fields": fields}
    enums = {}
    for ename, e in abi["enums"].items():
        he = h.enum(ename)
        names = dict(zip([n for n, _d, _v in he.items], enum_short_names(he)))
        enums[ename] = {"values": e["values"], "short": {str(v): names[k] for k, v in e["values"].items()}}
    kinds = {str(abi["enums"]["fsdpa_list_kind"]["values"][k]): s for k, s in list_kinds(h).items()}
    ms, multi = methods(abi)
    return {"version": abi["header_version"], "structs": structs, "enums": enums,
            "constants": {k: str(v) for k, v in abi["constants"].items()},
            "list_kinds": kinds, "methods": ms, "multi": multi,
            "functions": sorted(abi["functions"]), "hand": sorted(HAND), "not_wrapped": NOT_WRAPPED}


def ts_type(f, t):
    k = f["k"]
    if k.startswith("enum:"):
        return " | ".join(json.dumps(v) for v in t["enums"][k[5:]]["short"].values())
    if k.startswith("arr:"):
        return "(" + TS[k[4:]] + ")[]"
    if k.startswith("ptrarr:"):
        return ts_name(k.split(":")[1]) + "[]"
    return TS[k]


def ts_name(struct):
    return "".join(p.capitalize() for p in struct[len("fsdpa_"):].split("_"))


def dts(h, t):
    o = []
    w = o.append
    w("// Generated by bindings/wasm/gen_api.py from include/fsdpa/fsdpa.h: do not edit.")
    w("// Objects that mirror a C struct keep its field names; int64_t/uint64_t fields are bigint")
    w("// (exact nanoseconds), FSDPA_ABSENT is null, enums are their names.  The meaning of every")
    w("// number is documented in fsdpa.h (the library's API reference).")
    w("")
    docs = {s.name: {m.name: m.doc for m in s.members} for s in h.structs}
    used = set()
    for m in t["methods"] + t["multi"]:
        if m["kind"] == "struct":
            used.add(m["struct"])
    used |= set(t["list_kinds"].values())
    used |= {"fsdpa_range", "fsdpa_trace_info"}
    for sname in t["structs"]:
        if sname not in used:
            continue
        w(f"/** {sname} */")
        w(f"export interface {ts_name(sname)} {{")
        for f in t["structs"][sname]["fields"]:
            if f["name"] == "size" or f["k"] == "skip" or f["k"].startswith("u") and f["name"].startswith("n") \
                    and any(g["k"].startswith("ptrarr:") and g["k"].endswith(":" + f["name"])
                            for g in t["structs"][sname]["fields"]):
                continue
            doc = " ".join(docs.get(sname, {}).get(f["name"], "").split())
            if doc:
                w(f"  /** {doc} */")
            opt = "?" if sname in ("fsdpa_query", "fsdpa_trace_info") else ""
            ty = ts_type(f, t)
            if opt:
                ty = ty.replace("bigint | null", "bigint | number | null")
            w(f"  {f['name']}{opt}: {ty};")
        w("}")
        w("")
    w("/** The selectors of fsdpa_query: each one given counts (its bit in `fields` is set); none, or")
    w(" *  a null query, is the whole trace.  Times are absolute ns; step is a step index. */")
    w("export interface QuerySelectors {")
    for f in t["structs"]["fsdpa_query"]["fields"]:
        if f["name"] in ("size", "fields"):
            continue
        doc = " ".join(docs["fsdpa_query"].get(f["name"], "").split())
        w(f"  /** {doc} */")
        w(f"  {f['name']}?: bigint | number;")
    w("}")
    w("export type Query = QuerySelectors | null | undefined;")
    w("export type Format = 'json' | 'text' | 'html';")
    w("")
    w("export interface AnalyzerOptions {")
    w("  /** input name used in error messages (and the report's inputs) */")
    w("  name?: string;")
    w("  /** refuse to grow past this many bytes (FsdpaError FSDPA_ELIMIT); 0 = no cap */")
    w("  maxMemoryBytes?: number | bigint;")
    w("  /** refuse more (decompressed) input bytes than this; 0 = no cap */")
    w("  maxInputBytes?: number | bigint;")
    w("  /** rank of this trace (default: the trace's distributedInfo) */")
    w("  rank?: number | bigint;")
    w("  /** analysis parameters, as `fsdpa analyze --set KEY=VALUE` */")
    w("  params?: Record<string, string | number>;")
    w("}")
    w("")
    w("export interface ReportOptions {")
    w("  /** input names for the report's inputs (default: each analyzer's name) */")
    w("  paths?: (string | null)[];")
    w("  /** text: columns every line fits in, 40..1000 (default 100) */")
    w("  width?: number;")
    w("  /** text: ANSI colors */")
    w("  color?: boolean;")
    w("  /** html: step index for the Gantt view (default: the busiest steady step) */")
    w("  htmlStep?: number | bigint | null;")
    w("}")
    w("")
    w("/** A failed call: status is the fsdpa_status (negative), code its name, offset the input")
    w(" *  byte offset of a parse error (in the decompressed stream for gzip), input the index of")
    w(" *  the analyzer a call over several was failed by. */")
    w("export class FsdpaError extends Error {")
    w("  status: number;")
    w("  code: string;")
    w("  offset: number | null;")
    w("  input: number | null;")
    w("}")
    w("")
    w("export class Analyzer {")
    w("  constructor(options?: AnalyzerOptions);")
    w("  /** Feed the next bytes (any chunking; plain JSON or gzip).  Copied through a fixed")
    w("   *  staging buffer: the wasm heap never holds more than one chunk of input. */")
    w("  feed(data: Uint8Array | ArrayBuffer | ArrayBufferView | string): void;")
    w("  /** End of input (FsdpaError FSDPA_ETRUNCATED for a document that ended early). */")
    w("  finish(): void;")
    w("  setParam(key: string, value: string | number): void;")
    w("  getParam(key: string): bigint;")
    w("  setTraceInfo(info: Partial<TraceInfo>): void;")
    w("  /** The report over this analyzer alone, as `fsdpa analyze -f FORMAT` writes it. */")
    w("  report(format?: Format, options?: ReportOptions): string;")
    w("  reportBytes(format?: Format, options?: ReportOptions): Uint8Array;")
    w("  findings(): Finding[];")
    w("  /** A mergeable summary (docs/summary-format.md). */")
    w("  summary(path?: string): string;")
    w("  /** Release the context (also done by a FinalizationRegistry when collected). */")
    w("  free(): void;")
    for m in t["methods"]:
        args = []
        if m["query"]:
            args.append("query?: Query" if not m["args"] else "query: Query")
        for a in m["args"]:
            k = a["kind"]
            ty = " | ".join(json.dumps(v) for v in t["enums"][k[5:]]["short"].values()) + " | number" \
                if k.startswith("enum:") else ("number | bigint" if k in ("i64", "u64") else "number")
            args.append(f"{camel(a['name'])}: {ty}")
        if m["kind"] == "int":
            ret = "number"
        elif m["kind"] == "list":
            ret = "unknown[]"
            for kname, sname in list_kinds(h).items():
                doc = dict((n, d) for n, d, _v in h.enum("fsdpa_list_kind").items)[kname]
                if m["c"] + "()" in doc:
                    ret = ts_name(sname) + "[]"
        else:
            ret = ts_name(m["struct"])
        w(f"  /** {m['c']}() */")
        w(f"  {m['js']}({', '.join(args)}): {ret};")
    w("}")
    w("")
    w("/** The report over several analyzers (the ranks of one job), as `fsdpa analyze -f FORMAT")
    w(" *  rank0 rank1 ...` writes it. */")
    w("export function report(analyzers: Analyzer[], format?: Format, options?: ReportOptions): string;")
    w("export function reportBytes(analyzers: Analyzer[], format?: Format, options?: ReportOptions): Uint8Array;")
    w("export function findings(analyzers: Analyzer[]): Finding[];")
    for m in t["multi"]:
        ret = ts_name(m["struct"]) if m["kind"] == "struct" else "unknown[]"
        if m["kind"] == "list":
            for kname, sname in list_kinds(h).items():
                doc = dict((n, d) for n, d, _v in h.enum("fsdpa_list_kind").items)[kname]
                if m["c"] + "()" in doc:
                    ret = ts_name(sname) + "[]"
        w(f"/** {m['c']}() */")
        w(f"export function {m['js']}(analyzers: Analyzer[]): {ret};")
    w("/** Every analysis parameter with its default (fsdpa_param_list()). */")
    w("export function params(): Param[];")
    w("/** The library's version, e.g. \"0.2.0\". */")
    w("export const version: string;")
    w("/** Bytes of the wasm heap now (it grows, never shrinks). */")
    w("export function heapBytes(): number;")
    w("/** The FSDPA_* status codes by name. */")
    w("export const Status: Record<string, number>;")
    w("")
    return "\n".join(o)


def main():
    if len(sys.argv) >= 2 and sys.argv[1] == "exports" and len(sys.argv) == 4:
        h = header.read(sys.argv[2])
        names = ["_" + f.name for f in h.functions] + ["_malloc", "_free"]
        with open(sys.argv[3], "w") as f:
            json.dump(names, f)
        return
    if len(sys.argv) >= 2 and sys.argv[1] == "table" and len(sys.argv) == 6:
        h = header.read(sys.argv[2])
        with open(sys.argv[3]) as f:
            abi = json.load(f)
        t = table(h, abi)
        with open(sys.argv[4], "w") as f:
            f.write("/* Generated by bindings/wasm/gen_api.py from fsdpa.h and the wasm32 ABI table: */\n")
            f.write("/* do not edit. */\n")
            f.write("var FSDPA_ABI = " + json.dumps(t, separators=(",", ":"), sort_keys=True) + ";\n")
        with open(sys.argv[5], "w") as f:
            f.write(dts(h, t))
        return
    if len(sys.argv) >= 2 and sys.argv[1] == "cat" and len(sys.argv) >= 4:
        # concatenate the parts of the code emcc appends (--extern-post-js);
        # "@exports" stands for the ES module's export list (the fixed API
        # and one function per call over several analyzers)
        out = []
        for part in sys.argv[3:]:
            if part.startswith("@exports="):
                with open(part[len("@exports="):]) as f:
                    t = json.loads(f.read().split("var FSDPA_ABI = ", 1)[1].rstrip().rstrip(";"))
                names = FIXED_EXPORTS + [m["js"] for m in t["multi"]]
                out.append("export const {" + ", ".join(names) + "} = fsdpaApi;\n")
            else:
                with open(part) as f:
                    out.append(f.read())
        with open(sys.argv[2], "w") as f:
            f.write("".join(out))
        return
    raise SystemExit(__doc__)


if __name__ == "__main__":
    main()
