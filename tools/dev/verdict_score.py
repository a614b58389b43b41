#!/usr/bin/env python3
"""How far the report's findings are from the expert verdicts (tests/verdicts/):
for every trace, each expected finding (present, severity within bounds) and
each forbidden one (absent, or below its min_severity), plus the job-level
expectations of the two-rank trace_filter pair.  Prints one line per miss and
the totals; exit 0 always (a measure of progress, not a gate: the gates are
the tests).

    tools/dev/verdict_score.py [--cli build/tools/fsdpa/fsdpa] [--traces DIR] [-v]
"""
import argparse
import json
import os
import subprocess
import sys

SEV = {"info": 0, "warning": 1, "critical": 2}
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def findings(cli, paths):
    r = subprocess.run([cli, "analyze", "--format", "json"] + paths, capture_output=True, text=True)
    if r.returncode not in (0, 1):
        return None
    rep = json.loads(r.stdout)
    out = {}
    for f in rep["findings"]:
        out[f["id"]] = max(out.get(f["id"], -1), SEV[f["severity"]])
    return out


def judge(name, got, exp, forb, misses):
    ok = n = 0
    for e in exp:
        n += 1
        s = got.get(e["id"])
        lo, hi = SEV[e.get("min_severity", "info")], SEV[e.get("max_severity", "critical")]
        if s is None:
            misses.append("%s: expected %s missing" % (name, e["id"]))
        elif not lo <= s <= hi:
            misses.append("%s: expected %s at %s..%s, got %s" % (name, e["id"], e.get("min_severity", "info"),
                                                                e.get("max_severity", "critical"),
                                                                [k for k, v in SEV.items() if v == s][0]))
        else:
            ok += 1
    for e in forb:
        n += 1
        s = got.get(e["id"])
        lim = SEV[e["min_severity"]] if "min_severity" in e else 0
        if s is not None and s >= lim:
            misses.append("%s: forbidden %s fires (%s)" % (name, e["id"], [k for k, v in SEV.items() if v == s][0]))
        else:
            ok += 1
    return ok, n


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cli", default=os.path.join(ROOT, "build", "tools", "fsdpa", "fsdpa"))
    ap.add_argument("--traces", default=os.environ.get("FSDPA_TRACE_CORPUS") or os.path.join(ROOT, "..", "shared", "traces"))
    ap.add_argument("-v", action="store_true")
    a = ap.parse_args()
    vdir = os.path.join(ROOT, "tests", "verdicts")
    tot_ok = tot = traces_ok = traces = 0
    misses = []
    for f in sorted(os.listdir(vdir)):
        if not f.endswith(".json"):
            continue
        v = json.load(open(os.path.join(vdir, f)))
        if v.get("expect_rejected"):
            continue
        got = findings(a.cli, [os.path.join(a.traces, v["trace"])])
        if got is None:
            misses.append("%s: the report failed" % v["trace"])
            continue
        before = len(misses)
        ok, n = judge(v["trace"], got, v.get("expected_findings", []), v.get("forbidden_findings", []), misses)
        job = v.get("job")
        if job:
            jg = findings(a.cli, [os.path.join(a.traces, t) for t in job["traces"]])
            o2, n2 = judge(v["trace"] + " (job)", jg or {}, job.get("expected_findings", []),
                           job.get("forbidden_findings", []), misses)
            ok, n = ok + o2, n + n2
        tot_ok, tot = tot_ok + ok, tot + n
        traces += 1
        traces_ok += len(misses) == before
        if a.v:
            print("%-70s %d/%d" % (v["trace"][:70], ok, n))
    for m in misses:
        print("MISS " + m)
    print("verdicts: %d of %d expectations met; %d of %d traces without a miss" % (tot_ok, tot, traces_ok, traces))
    return 0


if __name__ == "__main__":
    sys.exit(main())
