#!/usr/bin/env python3
"""Validate fsdpa JSON reports against docs/report.schema.json (run by
tests/test_schema.c).

    schema_check.py SCHEMA REPORT.json [REPORT.json ...]

Each report must validate (Draft 2020-12, python3-jsonschema) and keep the
contract's rules a schema cannot state: inputs and ranks line up, findings
are sorted worst first (cost_ns descending; a finding with evidence.explained_by right after its cause) and name a rank of the report,
evidence ranges have start <= end, histogram edges increase.  The schema
itself must reject broken copies of the first report (a wrong finding id, a
missing required key, a ratio above 1, a number where the contract says
null), so a schema that accepts anything cannot pass.

Exit status: 0 pass, 77 skip (jsonschema missing), 1 fail.
"""
import copy
import json
import sys

try:
    import jsonschema
except ImportError:
    print("# SKIP schema validation: python3-jsonschema is not installed (apt-get install python3-jsonschema)")
    sys.exit(77)


def _version():
    try:
        from importlib import metadata
        return metadata.version("jsonschema")
    except Exception:
        return "?"


def contract_rules(d):
    errs = []
    if len(d["inputs"]) != len(d["ranks"]):
        errs.append("%d inputs but %d ranks" % (len(d["inputs"]), len(d["ranks"])))
    for i, (a, r) in enumerate(zip(d["inputs"], d["ranks"])):
        if a["rank"] != r["rank"]:
            errs.append("inputs[%d].rank %s != ranks[%d].rank %s" % (i, a["rank"], i, r["rank"]))
        lg = r.get("launch_gaps") or {}
        for s in lg.get("streams", []):
            e = s["histogram"]["edges_ns"]
            if any(x >= y for x, y in zip(e, e[1:])):
                errs.append("rank %s stream %s: histogram edges do not increase" % (r["rank"], s["stream"]))
            if sum(s["histogram"]["counts"]) != s["gaps"]:
                errs.append("rank %s stream %s: histogram counts %d != gaps %d" % (
                    r["rank"], s["stream"], sum(s["histogram"]["counts"]), s["gaps"]))
    ranks = {r["rank"] for r in d["ranks"]}
    # by cost, worst first; a finding whose evidence names its cause
    # (explained_by) right after a finding of that id and rank (with other
    # symptoms of it in between), whatever it costs; it then sorts by its cost
    fs = d["findings"]

    def cause_of(f):
        return (f.get("evidence") or {}).get("explained_by")
    costs = []
    for i, f in enumerate(fs):
        cause = cause_of(f)
        cands = [j for j in range(len(fs)) if cause and fs[j]["rank"] == f["rank"] and fs[j]["id"] == cause]
        if not cands:
            costs.append(f["cost_ns"])
            continue
        ok = [j for j in cands if j < i and all(cause_of(fs[k]) == cause for k in range(j + 1, i))]
        if not ok:
            errs.append("finding %d (%s) is not listed right after its cause %s" % (i, f["id"], cause))
            costs.append(f["cost_ns"])
        else:
            costs.append(fs[ok[-1]]["cost_ns"])
    if costs != sorted(costs, reverse=True):
        errs.append("findings are not sorted by cost_ns (a symptom by its cause's), worst first: %s" % costs)
    for k, f in enumerate(d["findings"]):
        if f["rank"] is not None and f["rank"] not in ranks:
            errs.append("findings[%d] names rank %s, not in the report" % (k, f["rank"]))
        for r in f["evidence"]["ranges"]:
            if r["start_ns"] > r["end_ns"]:
                errs.append("findings[%d]: range %s starts after it ends" % (k, r))
    return errs


def mutants(d):
    """Broken copies the schema must reject, with what was broken."""
    out = []
    m = copy.deepcopy(d)
    m["schema"] = "fsdpa.report/2"
    out.append(("wrong schema string", m))
    m = copy.deepcopy(d)
    del m["ranks"][0]["overlap"]
    out.append(("missing ranks[0].overlap", m))
    m = copy.deepcopy(d)
    m["ranks"][0]["streams"] = [{"device": 0, "stream": 7, "role": "gpu", "kernels": 1, "busy_ns": 1}]
    out.append(("unknown stream role", m))
    m = copy.deepcopy(d)
    m["ranks"][0]["span_ns"] = 1.5
    out.append(("span_ns not an integer", m))
    if d["findings"]:
        m = copy.deepcopy(d)
        m["findings"][0]["id"] = "gpu-sadness"
        out.append(("unknown finding id", m))
        m = copy.deepcopy(d)
        m["findings"][0]["severity"] = "fatal"
        out.append(("unknown severity", m))
        m = copy.deepcopy(d)
        del m["findings"][0]["evidence"]["ranges"]
        out.append(("finding without evidence.ranges", m))
    lg = d["ranks"][0].get("launch_gaps")
    if lg:
        m = copy.deepcopy(d)
        m["ranks"][0]["launch_gaps"]["density"] = 1.5
        out.append(("density above 1", m))
    ov = d["ranks"][0].get("overlap")
    if ov and ov.get("comm_ns") is None:
        m = copy.deepcopy(d)
        m["ranks"][0]["overlap"]["exposed_comm_ns"] = 0
        out.append(("exposed_comm_ns 0 without communication (must be null)", m))
    elif ov:
        m = copy.deepcopy(d)
        m["ranks"][0]["overlap"]["overlap_pct"] = 120.0
        out.append(("overlap_pct above 100", m))
    return out


def main(argv):
    if len(argv) < 3:
        print(__doc__)
        return 2
    with open(argv[1]) as f:
        schema = json.load(f)
    jsonschema.Draft202012Validator.check_schema(schema)
    v = jsonschema.Draft202012Validator(schema)
    failed = 0
    first = None
    for path in argv[2:]:
        with open(path) as f:
            d = json.load(f)
        if first is None:
            first = (path, d)
        errs = ["%s: %s" % ("/".join(str(p) for p in e.absolute_path) or "(top)", e.message[:300])
                for e in sorted(v.iter_errors(d), key=lambda e: list(map(str, e.absolute_path)))]
        if not errs:
            errs = contract_rules(d)
        if errs:
            failed += 1
            print("# FAIL %s" % path)
            for e in errs[:20]:
                print("#   " + e)
    if first:
        for what, m in mutants(first[1]):
            if v.is_valid(m):
                failed += 1
                print("# FAIL the schema accepts a broken report (%s) derived from %s" % (what, first[0]))
    print("# %d reports validated against %s (jsonschema %s), %d failed" % (
        len(argv) - 2, argv[1], _version(), failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
