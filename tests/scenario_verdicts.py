#!/usr/bin/env python3
"""The generator's job scenarios against the verdict an expert gives them (the scenario's `verdict`
in tools/tracegen/tracegen.py, copied into its truth file): what kind of job it is, which findings
must and must not fire, how severe they may be, which one is the root cause, and the numbers the
findings rest on against the truth the generator computed from what it wrote.

Per scenario with a verdict:
  - ranks[].workload: parallelism labels and mode exactly as the verdict says;
  - ranks[].iterations: the source, and as many ranges as the generator made iterations;
  - findings: every expected id present, no absent id; each finding within `min_severity` /
    `max_severity` ("*": every finding);
  - `costliest`: that finding comes first, and no finding costs more unless its evidence names it
    as what explains it (explained_by);
  - `explained_by`: where that finding fires, its evidence names that cause;
  - `advice_has`: the finding's advice contains the words;
  - exact: GPU busy time and communication time (launch_gaps.busy_ns, overlap.comm_ns) as the
    truth's; allocator-thrash's steady malloc / free calls as the truth's iterations after the
    first; all device malloc / free calls as the truth's; cpu-sync-stall's cost as the GPU idle
    the generator's blocking calls opened;
  - the same bytes: a two-rank job of the scenario analyzed in one process, with -j 2, with
    --low-memory, and summarized rank by rank then merged.

Exit 0 = every verdict holds, 1 = a difference, 77 = the generator could not run.
"""
import json
import os
import subprocess
import sys
import tempfile

from verdictlib import CLI, generate, report, run, tracegen

STEPS, LAYERS = 4, 4
SEV = {"info": 0, "warning": 1, "critical": 2}


def bound(v, fid, key):
    b = v.get(key, {})
    return b.get(fid, b.get("*"))


def check_findings(sc, v, truth, rep, bad):
    fs = rep["findings"]
    ids = [f["id"] for f in fs]
    for e in truth["expected_findings"]:
        if e not in ids:
            bad.append("%s: expected %s, got %s" % (sc, e, ids))
    for a in truth["absent_findings"]:
        if a in ids:
            bad.append("%s: %s must be absent" % (sc, a))
    for f in fs:
        lo, hi = bound(v, f["id"], "min_severity"), bound(v, f["id"], "max_severity")
        s = SEV[f["severity"]]
        if (lo and s < SEV[lo]) or (hi and s > SEV[hi]):
            bad.append("%s: %s is %s, the verdict allows %s..%s (cost %s ns)" %
                       (sc, f["id"], f["severity"], lo or "info", hi or "critical", f.get("cost_ns")))
    root = v.get("costliest")
    if root:
        if not fs or fs[0]["id"] != root:
            bad.append("%s: %s must come first, the findings are %s" % (sc, root, ids))
        else:
            c0 = fs[0].get("cost_ns") or 0
            for f in fs[1:]:
                if (f.get("cost_ns") or 0) > c0 and f["evidence"].get("explained_by") != root:
                    bad.append("%s: %s costs %d ns > %s's %d and does not name it as its cause" %
                               (sc, f["id"], f["cost_ns"], root, c0))
    for fid, cause in v.get("explained_by", {}).items():
        for f in fs:
            if f["id"] == fid and f["evidence"].get("explained_by") != cause:
                bad.append("%s: %s must name %s as its cause, evidence says %s" %
                           (sc, fid, cause, f["evidence"].get("explained_by")))
    for fid, words in v.get("advice_has", {}).items():
        f = next((f for f in fs if f["id"] == fid), None)
        if f is None or words not in (f.get("advice") or ""):
            bad.append("%s: %s advice lacks %r" % (sc, fid, words))


def check_numbers(sc, truth, rank, rep, bad):
    lg, ov = rank["launch_gaps"], rank["overlap"]
    if lg["busy_ns"] != truth["gpu"]["busy_ns"]:
        bad.append("%s: GPU busy %d ns, truth %d" % (sc, lg["busy_ns"], truth["gpu"]["busy_ns"]))
    tc = truth["overlap"]["comm_ns"]
    if (ov["comm_ns"] or None) != tc:
        bad.append("%s: communication %s ns, truth %s" % (sc, ov["comm_ns"], tc))
    al = rank["allocator"]
    got = (al["malloc_calls"], al["free_calls"])
    want = (truth["allocator"]["malloc_calls"], truth["allocator"]["free_calls"])
    if got != want:
        bad.append("%s: malloc/free calls %s, truth %s" % (sc, got, want))
    by = {f["id"]: f for f in rep["findings"]}
    th = by.get("allocator-thrash")
    if th and truth.get("no_step"):
        its = truth["no_step"]["iterations"][1:]
        want = (sum(i["malloc_calls"] for i in its), sum(i["free_calls"] for i in its))
        got = (th["evidence"]["steady_malloc_calls"], th["evidence"]["steady_free_calls"])
        if got != want:
            bad.append("%s: allocator-thrash steady malloc/free %s, truth %s" % (sc, got, want))
    ss = by.get("cpu-sync-stall")
    if ss and ss["cost_ns"] != truth["job"]["sync_gpu_idle_opened_ns"]:
        bad.append("%s: cpu-sync-stall cost %d ns, the idle the synchronizes opened is %d" %
                   (sc, ss["cost_ns"], truth["job"]["sync_gpu_idle_opened_ns"]))


def cli(*args):
    r = subprocess.run([CLI] + list(args), capture_output=True)
    if r.returncode not in (0, 1):
        raise RuntimeError("%s: exit %d: %s" % (args, r.returncode, r.stderr.decode()[:300]))
    return r.stdout


def check_modes(sc, d, bad):
    """One report whichever way the job is read."""
    paths = generate(os.path.join(d, "job"), sc, steps=STEPS, layers=LAYERS, ranks=2)
    base = cli("analyze", "--format", "json", *paths)
    sums = []
    for i, p in enumerate(paths):
        sums.append(os.path.join(d, "r%d.fsum" % i))
        cli("summarize", p, "-o", sums[-1])
    for what, out in (("-j 2", cli("analyze", "--format", "json", "-j", "2", *paths)),
                      ("--low-memory", cli("analyze", "--format", "json", "--low-memory", *paths)),
                      ("summarize + merge", cli("merge", "--format", "json", *sums))):
        if out != base:
            bad.append("%s: the report %s differs from analyze's" % (sc, what))


def iterations_made(truth, v):
    src = v["iterations_from"]
    if src == "ProfilerStep":
        return len(truth["steps"])
    if src in ("optimizer_step", "dataloader"):
        return len(truth["no_step"]["iterations"])
    return STEPS  # one engine step annotation a generated step


def generator(bad):
    tg = tracegen()
    n = 0
    with tempfile.TemporaryDirectory() as d:
        for sc in sorted(s for s, x in tg.SCENARIOS.items() if x.get("verdict")):
            paths = generate(d, sc, steps=STEPS, layers=LAYERS)
            truth = json.load(open(tg.truth_path(paths[0])))
            v = truth["verdict"]
            rep = report(paths[:1])
            rank = rep["ranks"][0]
            wl, it = rank["workload"], rank["iterations"]
            got = (sorted(wl["parallelism"]), wl["mode"])
            if got != (sorted(v["parallelism"]), v["mode"]):
                bad.append("%s: workload %s, the verdict says %s" % (sc, got, (v["parallelism"], v["mode"])))
            want_it = (v["iterations_from"], iterations_made(truth, v))
            if (it["source"], len(it["ranges"])) != want_it:
                bad.append("%s: iterations %s x %d, the verdict says %s x %d" %
                           ((sc, it["source"], len(it["ranges"])) + want_it))
            check_findings(sc, v, truth, rep, bad)
            check_numbers(sc, truth, rank, rep, bad)
            check_modes(sc, os.path.join(d, sc + "_modes"), bad)
            print("# %s: %s %s, findings %s" % (sc, got[0], got[1],
                                                [(f["id"], f["severity"]) for f in rep["findings"]]))
            n += 1
    print("# generator: %d scenarios with a verdict" % n)
    return n


if __name__ == "__main__":
    sys.exit(run(generator))
