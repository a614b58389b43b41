#!/usr/bin/env python3
"""Independent reference for the kernel table (fsdpa.h, group "efficiency"; docs/report-contract.md,
"Kernels"): reads each trace of the corpus with Python's json (no libfsdpa code) and recomputes, per
GPU op name, the count, total, minimum, maximum and nearest-rank median of the durations in exact
integer nanoseconds, and the rank's GPU busy time (|union of every GPU op|) the shares divide by.
Then runs `$FSDPA_CLI analyze --format json` twice -- all rows (`--set report.kernel_rows=0`) and
the default folding -- and requires the report's `ranks[0].kernels` to equal the reference: every
name, every number, the order (total descending, then name), the shares, and the folded row's sums.

    kernel_table_ref.py [TRACE...]     (default: every trace of the corpus, $FSDPA_TRACE_CORPUS, else
                                        $FSDPA_DEFAULT_CORPUS; prints "# SKIP" when it is absent)

Rules written out here on purpose, from the contract: a GPU op is an event with ph "X" and category
kernel / Kernel / gpu_memcpy / Memcpy / gpu_memset / Memset and a ts; ts and dur are microseconds
with up to three decimals, exact in ns; a missing or negative dur is 0; |ts| or dur past 2^61 ns
drops the event.  The report splits a name by class (a kernel launched both inside and outside a
communication op); the reference compares per name, summing the report's rows of one name.
"""
import gzip
import json
import os
import subprocess
import sys
from decimal import Decimal

GPU_CATS = {"kernel", "Kernel", "gpu_memcpy", "Memcpy", "gpu_memset", "Memset"}
MAX_T = 1 << 61


def ns(v):
    if v is None:
        return None
    if isinstance(v, str):
        try:
            v = Decimal(v.strip())
        except Exception:
            return None
    if isinstance(v, bool):
        return None
    return int(Decimal(v) * 1000)


def load(path):
    op = gzip.open if path.endswith(".gz") else open
    with op(path, "rb") as f:
        doc = json.loads(f.read(), parse_float=Decimal)
    return doc["traceEvents"] if isinstance(doc, dict) else doc


def reference(path):
    per = {}
    ivs = []
    for e in load(path):
        if not isinstance(e, dict) or e.get("ph") != "X" or e.get("cat") not in GPU_CATS:
            continue
        ts = ns(e.get("ts"))
        if ts is None:
            continue
        d = ns(e.get("dur"))
        if d is None or d < 0:
            d = 0
        if abs(ts) > MAX_T or d > MAX_T:
            continue
        per.setdefault(e.get("name", ""), []).append(d)
        ivs.append((ts, ts + d))
    ivs.sort()
    busy, end = 0, None
    for s, e in ivs:
        if e <= s:
            continue
        if end is None or s > end:
            busy += e - s
            end = e
        elif e > end:
            busy += e - end
            end = e
    rows = []
    for name, ds in per.items():
        ds.sort()
        rows.append({"name": name, "count": len(ds), "total_ns": sum(ds), "min_ns": ds[0], "max_ns": ds[-1],
                     "p50_ns": ds[(len(ds) + 1) // 2 - 1]})
    rows.sort(key=lambda r: (-r["total_ns"], r["name"].encode()))
    return rows, busy


def report(path, rows_arg):
    cli = os.environ.get("FSDPA_CLI")
    args = [cli, "analyze", "--format", "json"] + (["--set", "report.kernel_rows=%d" % rows_arg] if rows_arg is not None else []) + [path]
    r = subprocess.run(args, capture_output=True)
    if r.returncode not in (0, 1):
        raise SystemExit("%s: fsdpa exit %d: %s" % (path, r.returncode, r.stderr.decode()[:300]))
    return json.loads(r.stdout)


def share(total, busy):
    return None if busy <= 0 else float("%.6f" % (total / busy))


def check(path):
    ref, busy = reference(path)
    rep = report(path, 0)
    if not rep["ranks"]:
        return 0 if not ref else "no rank but %d GPU op names" % len(ref)
    got = rep["ranks"][0]["kernels"]
    # one name, several classes: summed (the reference does not classify)
    merged = {}
    for g in got:
        m = merged.setdefault(g["name"], {"name": g["name"], "count": 0, "total_ns": 0, "min_ns": None, "max_ns": None,
                                          "durs": []})
        m["count"] += g["count"]
        m["total_ns"] += g["total_ns"]
        m["min_ns"] = g["min_ns"] if m["min_ns"] is None else min(m["min_ns"], g["min_ns"])
        m["max_ns"] = g["max_ns"] if m["max_ns"] is None else max(m["max_ns"], g["max_ns"])
        m["rows"] = m.get("rows", 0) + 1
        m["p50_ns"] = g["p50_ns"]
        if g["share"] != share(g["total_ns"], busy):
            return "%s: share %s, reference %s" % (g["name"][:60], g["share"], share(g["total_ns"], busy))
        if g["mean_ns"] != g["total_ns"] // g["count"]:
            return "%s: mean_ns %s" % (g["name"][:60], g["mean_ns"])
    if len(merged) != len(ref):
        return "%d names, reference %d" % (len(merged), len(ref))
    for r in ref:
        m = merged.get(r["name"])
        if m is None:
            return "missing %r" % r["name"][:80]
        for k in ("count", "total_ns", "min_ns", "max_ns"):
            if m[k] != r[k]:
                return "%s: %s %s, reference %s" % (r["name"][:60], k, m[k], r[k])
        if m["rows"] == 1 and m["p50_ns"] != r["p50_ns"]:
            return "%s: p50_ns %s, reference %s" % (r["name"][:60], m["p50_ns"], r["p50_ns"])
    # order: total descending, then name
    keys = [(-g["total_ns"], g["name"].encode()) for g in got]
    if keys != sorted(keys):
        return "rows not sorted by total_ns, then name"
    # the default folding: the first rows, then one row with the rest's sums
    folded = report(path, None)["ranks"][0]["kernels"]
    limit = 40
    if len(got) > limit:
        if len(folded) != limit + 1 or folded[:limit] != got[:limit]:
            return "folding: %d rows" % len(folded)
        o = folded[-1]
        tail = got[limit:]
        if (o["name"] is not None or o["names"] != len(tail) or o["count"] != sum(t["count"] for t in tail) or
                o["total_ns"] != sum(t["total_ns"] for t in tail) or o["max_ns"] != max(t["max_ns"] for t in tail) or
                o["min_ns"] != min(t["min_ns"] for t in tail) or o["p50_ns"] is not None):
            return "folded row %r" % o
    elif folded != got:
        return "unfolded table differs from rows=0"
    return 0


def corpus_traces(root):
    out = []
    for d, _, files in os.walk(root):
        for f in sorted(files):
            if (f.endswith(".json") or f.endswith(".json.gz")) and "execution_trace" not in d:
                out.append(os.path.join(d, f))
    return sorted(out)


def main():
    if len(sys.argv) > 1:
        paths = sys.argv[1:]
    else:
        root = os.environ.get("FSDPA_TRACE_CORPUS") or os.environ.get("FSDPA_DEFAULT_CORPUS")
        if not root or not os.path.isdir(root):
            print("# SKIP kernel_table_ref: trace corpus not found at %r (set FSDPA_TRACE_CORPUS)" % root)
            return 77
        paths = corpus_traces(root)
    bad = 0
    for p in paths:
        why = check(p)
        print("%s %s%s" % ("ok  " if not why else "FAIL", p, "" if not why else ": " + why))
        bad += bool(why)
    print("%d traces, %d failed" % (len(paths), bad))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
