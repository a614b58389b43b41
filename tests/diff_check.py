#!/usr/bin/env python3
"""`fsdpa diff` on generated runs with exactly known answers (tools/tracegen/tracegen.py):

  - identical inputs: exit 0 with --fail-on-regression 0, every metric, table row and finding "same";
  - a known regression (fsdp2_healthy -> network_bound, same seed: communication three times the
    compute): exit 1 with --fail-on-regression 5, the gate naming the step time and the exposed
    communication on stderr, the step time of each run and its run-to-run spread equal to what the
    generator's truth files give (the mean of each rank's steady steps, the steps after the first,
    then the mean over the ranks; half the range of the steady steps, the larger run's), and the
    new exposed-comm finding; the other way round exit 0 and "better";
  - run-to-run noise (the same scenario, another seed): the step time called worse or better exactly
    when the truth's change exceeds both the spread and --min-change, and the gate at 0 % crossed
    exactly when the step time or the exposed communication grew beyond its spread;
  - the same bytes from traces, from directories of per-rank summaries, from a merged summary and
    from JSON reports; text and HTML written; bad inputs exit 3 naming the file, bad usage 2;
  - every JSON output validates against docs/diff.schema.json (python3-jsonschema; said when it is
    missing), which rejects broken copies.

Exit 0 = all as stated, 1 = a difference, 77 = the generator could not run.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

from verdictlib import CLI, ROOT, TRACEGEN

try:
    import jsonschema
except ImportError:
    jsonschema = None

STEPS, LAYERS, RANKS = 5, 4, 2


def gen(d, scenario, seed):
    out = os.path.join(d, "%s-%d" % (scenario, seed))
    os.makedirs(out)
    subprocess.run([sys.executable, TRACEGEN, scenario, "-o", os.path.join(out, "r.json"), "--steps", str(STEPS),
                    "--layers", str(LAYERS), "--ranks", str(RANKS), "--seed", str(seed)],
                   check=True, capture_output=True)
    truths = sorted(os.path.join(out, f) for f in os.listdir(out) if f.endswith(".truth.json"))
    tdir = os.path.join(d, "truth-%s-%d" % (scenario, seed))
    os.makedirs(tdir)
    for t in truths:  # the run's directory holds its traces only
        shutil.move(t, tdir)
    return out, [json.load(open(os.path.join(tdir, f))) for f in sorted(os.listdir(tdir))]


def truth_step(truths):
    """The step time and spread the contract defines, from the generator's truth."""
    means, spreads = [], []
    for t in truths:
        d = [s["dur_ns"] for s in t["steps"]][1:]
        means.append(sum(d) // len(d))
        spreads.append((max(d) - min(d)) // 2)
    return sum(means) // len(means), max(spreads)


def diff(*args):
    r = subprocess.run([CLI, "diff", "--no-progress"] + list(args), capture_output=True, text=True)
    return r.returncode, r.stdout, r.stderr


def metric(rep, name):
    return next(m for m in rep["job"] if m["metric"] == name)


def schema_errors(outputs):
    """Problems of the outputs against docs/diff.schema.json; broken copies must fail."""
    if jsonschema is None:
        print("# SKIP schema validation: python3-jsonschema is not installed")
        return []
    with open(os.path.join(ROOT, "docs", "diff.schema.json")) as f:
        v = jsonschema.Draft202012Validator(json.load(f))
    bad = []
    for name, out in outputs:
        for e in v.iter_errors(json.loads(out)):
            bad.append("schema (%s): %s at %s" % (name, e.message[:200], list(e.absolute_path)))
    rep = json.loads(outputs[-1][1])
    broken = [dict(rep, gate={"regressed": False}), dict(rep, schema="fsdpa.diff/2"),
              dict(rep, job=[dict(rep["job"][0], status="bogus")] + rep["job"][1:]),
              dict(rep, job=[dict(rep["job"][0], base=1.5)] + rep["job"][1:])]
    for i, b in enumerate(broken):
        if v.is_valid(b):
            bad.append("schema accepts broken copy %d" % i)
    return bad


def main():
    if not CLI:
        print("FSDPA_CLI not set")
        return 2
    bad = []
    with tempfile.TemporaryDirectory() as d:
        try:
            base, tb = gen(d, "fsdp2_healthy", 1)
            slow, ts = gen(d, "network_bound", 1)
            noisy, tn = gen(d, "fsdp2_healthy", 2)
        except subprocess.CalledProcessError as e:
            print("tracegen failed: %s" % e.stderr[-300:])
            return 77

        outputs = []
        # identical
        rc, out, err = diff("--fail-on-regression", "0", "-f", "json", base, base)
        outputs.append(("identical", out))
        rep = json.loads(out)
        if rc != 0 or rep["gate"]["regressed"]:
            bad.append("identical runs: exit %d, gate %s" % (rc, rep["gate"]))
        for part in ("job", "kernels", "ops", "collectives", "fsdp_units", "findings"):
            changed = [x for x in rep[part] if x["status"] != "same"]
            if changed:
                bad.append("identical runs: %s changed: %s" % (part, changed[:2]))
        if not rep["kernels"] or not rep["fsdp_units"]:
            bad.append("identical runs: empty kernel or unit tables")

        # a known regression
        rc, out, err = diff("--fail-on-regression", "5", "-f", "json", base, slow)
        outputs.append(("regression", out))
        rep = json.loads(out)
        st = metric(rep, "step_time_ns")
        want_b, spread_b = truth_step(tb)
        want_n, spread_n = truth_step(ts)
        if rc != 1 or not rep["gate"]["regressed"] or rep["gate"]["crossed"] != ["step_time_ns", "exposed_comm_ns"]:
            bad.append("regression: exit %d, gate %s" % (rc, rep["gate"]))
        if (st["base"], st["new"], st["spread"]) != (want_b, want_n, max(spread_b, spread_n)):
            bad.append("regression: step time %s, the truth gives %d -> %d spread %d" %
                       (st, want_b, want_n, max(spread_b, spread_n)))
        if st["status"] != "worse" or not st["crossed_gate"]:
            bad.append("regression: step time %s" % st)
        if "Regression gate 5%: REGRESSED" not in err or "step time +" not in err or "exposed comm" not in err:
            bad.append("regression: stderr does not name what crossed: %r" % err)
        if not any(f["id"] == "exposed-comm" and f["status"] == "new" for f in rep["findings"]):
            bad.append("regression: no new exposed-comm finding: %s" % rep["findings"])
        ar = [c for c in rep["collectives"] if c["status"] == "worse"]
        if len(ar) != 2:
            bad.append("regression: collectives %s" % rep["collectives"])
        rc, out, err = diff("--fail-on-regression", "5", "-f", "json", slow, base)
        st = metric(json.loads(out), "step_time_ns")
        if rc != 0 or st["status"] != "better":
            bad.append("improvement: exit %d, step time %s" % (rc, st))

        # run-to-run noise
        want_n, spread_n = truth_step(tn)
        delta, spread = want_n - want_b, max(spread_b, spread_n)
        for min_change in ("0", "5"):
            rc, out, err = diff("--fail-on-regression", "0", "--min-change", min_change, "-f", "json", base, noisy)
            outputs.append(("noise", out))
            rep = json.loads(out)
            st, ex = metric(rep, "step_time_ns"), metric(rep, "exposed_comm_ns")
            big = abs(delta) > spread and abs(delta) * 100 >= float(min_change) * want_b
            want_status = ("worse" if delta > 0 else "better") if big and delta else "same"
            # the gate at 0 %: either gated metric grew beyond its spread
            ex_grew = ex["delta"] > 0 and (ex["spread"] is None or ex["delta"] > ex["spread"])
            want_rc = 1 if delta > spread or ex_grew else 0
            if st["crossed_gate"] != (delta > spread) or ex["crossed_gate"] != ex_grew:
                bad.append("noise: crossed_gate %s / %s" % (st, ex))
            if st["status"] != want_status or rc != want_rc or st["beyond_spread"] != (abs(delta) > spread):
                bad.append("noise (--min-change %s): delta %d, spread %d: status %s exit %d, want %s exit %d" %
                           (min_change, delta, spread, st["status"], rc, want_status, want_rc))
        print("# noise: step time %+d ns against a run-to-run spread of %d ns" % (delta, spread))

        # the same bytes from summaries and reports
        want = diff("-f", "json", base, slow)[1]
        sums = {}
        for name, run in (("base", base), ("slow", slow)):
            sd = os.path.join(d, "sum-" + name)
            os.makedirs(sd)
            for f in sorted(os.listdir(run)):
                # the summary names the input as given, so the paths match the traces'
                subprocess.run([CLI, "summarize", os.path.join(run, f), "-o", os.path.join(sd, f + ".fsum")],
                               check=True)
            sums[name] = sd
        merged = os.path.join(d, "base.fsum")
        subprocess.run([CLI, "merge", "--summary", sums["base"], "-o", merged], check=True)
        report = os.path.join(d, "slow.report.json")
        subprocess.run([CLI, "analyze", "--no-progress", "-f", "json", "-o", report, slow], check=True)
        for what, a, b in (("summary directories", sums["base"], sums["slow"]), ("a merged summary", merged, slow),
                           ("a JSON report", base, report)):
            got = diff("-f", "json", a, b)[1]
            if got != want:
                bad.append("diff from %s differs from the traces'" % what)

        bad += schema_errors(outputs)

        # text and HTML
        rc, out, err = diff("--fail-on-regression", "5", "-f", "text", base, slow)
        if rc != 1 or "Regression gate 5%: REGRESSED" not in out or "Kernels" not in out:
            bad.append("text: exit %d: %s" % (rc, out[:300]))
        html = os.path.join(d, "d.html")
        rc, out, err = diff("-o", html, base, slow)
        page = open(html).read() if os.path.exists(html) else ""
        if rc != 0 or not page.startswith("<!DOCTYPE html>") or "step time" not in page:
            bad.append("html: exit %d, %d bytes" % (rc, len(page)))

        # bad inputs and usage
        junk = os.path.join(d, "junk.fsum")
        with open(junk, "w") as f:
            f.write('{"schema": "fsdpa.summary/1", "ranks": [')
        rc, out, err = diff(junk, base)
        if rc != 3 or junk not in err:
            bad.append("a broken summary: exit %d: %s" % (rc, err))
        rc, out, err = diff(base, os.path.join(d, "missing.json"))
        if rc != 3 or "missing.json" not in err:
            bad.append("a missing input: exit %d: %s" % (rc, err))
        for args in ([base], [base, base, base], ["--fail-on-regression", "five", base, base]):
            rc, out, err = diff(*args)
            if rc != 2:
                bad.append("usage %s: exit %d" % (args, rc))

    for b in bad:
        print("FAIL:", b)
    print("diff: %d problem%s" % (len(bad), "" if len(bad) == 1 else "s"))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
