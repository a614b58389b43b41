#!/usr/bin/env python3
"""How far the report's findings are from the expert verdicts (tests/verdicts/):
for every trace, each expected finding (present, severity within bounds) and
each forbidden one (absent, or below its min_severity), plus the job-level
expectations of the two-rank trace_filter pair.  Prints one line per miss and
the totals, the held-out half (tests/verdicts/HELDOUT) marked; exit 0 always
(a measure of progress, not a gate: the gate is tests/verdict_findings.py).

    tools/dev/verdict_score.py [--cli build/tools/fsdpa/fsdpa] [--traces DIR] [--verdicts DIR]
                               [--only LIST] [-v]
"""
import argparse
import json
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tests"))
import verdictlib  # noqa: E402  (the judge the tests use)


def findings(cli, paths):
    r = subprocess.run([cli, "analyze", "--format", "json"] + paths, capture_output=True, text=True)
    if r.returncode not in (0, 1):
        return None
    return json.loads(r.stdout)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cli", default=os.path.join(ROOT, "build", "tools", "fsdpa", "fsdpa"))
    ap.add_argument("--traces", default=os.environ.get("FSDPA_TRACE_CORPUS") or os.path.join(ROOT, "..", "shared", "traces"))
    ap.add_argument("--verdicts", default=os.path.join(ROOT, "tests", "verdicts"),
                    help="directory of verdict files (default tests/verdicts)")
    ap.add_argument("--only", default=None, help="a file listing the verdict files to score (one name a line)")
    ap.add_argument("-v", action="store_true")
    a = ap.parse_args()
    verdictlib.CORPUS = a.traces
    only = set(open(a.only).read().split()) if a.only else None
    held = verdictlib.heldout_names(a.verdicts)
    tot_ok = tot = traces_ok = traces = 0
    misses = []
    for f, v in verdictlib.verdicts("all", a.verdicts):
        if v.get("expect_rejected") or (only is not None and f not in only):
            continue
        before = len(misses)
        ok, n = verdictlib.score_verdict(v, lambda p: findings(a.cli, p), misses)
        tot_ok, tot = tot_ok + ok, tot + n
        traces += 1
        traces_ok += len(misses) == before
        if a.v:
            print("%-70s %d/%d%s" % (v["trace"][:70], ok, n, "  (held out)" if f in held else ""))
    for m in misses:
        print("MISS " + m)
    print("verdicts: %d of %d expectations met; %d of %d traces without a miss" % (tot_ok, tot, traces_ok, traces))
    return 0


if __name__ == "__main__":
    sys.exit(main())
