#!/usr/bin/env python3
"""cpu-sync-stall's severity follows the GPU idle the blocking calls caused
(docs/report-contract.md): on every corpus trace where it fires,

  - gpu_idle_caused_ns = min(gpu_idle_opened_ns, saving_ns) (the idle the
    waits opened, as far as the replay without them removes it), cost_ns is
    it and the title leads with it;
  - the severity is critical / warning / info by gpu_idle_caused_ppm against
    severity.critical_ppm / severity.warning_ppm (30 % / 5 %), and that ppm
    (and gpu_idle_opened_ppm) is the idle over judged_ns;
  - where every window (every ProfilerStep, or the whole trace when there are
    no iterations) is flagged and every flagged call blocked by name (so the
    calls judged are exactly the listed APIs' calls), gpu_idle_opened_ns equals
    what tests/verdicts/facts.py computes from the raw JSON without the library:
    the full length of the GPU gaps that begin while one of those calls runs.

Exit 0 = all agree, 1 = a difference, 77 = no corpus.
"""
import json
import os
import subprocess
import sys

ROOT = os.environ.get("FSDPA_SOURCE_ROOT") or os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CLI = os.environ.get("FSDPA_CLI")
CORPUS = os.environ.get("FSDPA_TRACE_CORPUS") or os.environ.get("FSDPA_DEFAULT_CORPUS") or \
    os.path.join(ROOT, "..", "shared", "traces")
WARNING_PPM, CRITICAL_PPM = 50000, 300000


def main():
    if not CLI or not os.access(CLI, os.X_OK):
        print("FSDPA_CLI must name the fsdpa executable", file=sys.stderr)
        return 2
    if not os.path.isdir(CORPUS):
        print("# SKIP: no trace corpus at %s" % CORPUS)
        return 77
    bad, n, recomputed = [], 0, 0
    for d, _, files in sorted(os.walk(CORPUS)):
        for f in sorted(files):
            if not (f.endswith(".json") or f.endswith(".json.gz")):
                continue
            path = os.path.join(d, f)
            name = os.path.relpath(path, CORPUS)
            r = subprocess.run([CLI, "analyze", "--format", "json", path], capture_output=True, text=True)
            if r.returncode not in (0, 1):
                continue
            for x in json.loads(r.stdout)["findings"]:
                if x["id"] != "cpu-sync-stall":
                    continue
                n += 1
                e = x["evidence"]
                for key in ("gpu_idle_opened", "gpu_idle_caused"):
                    want_ppm = int(1e6 * e[key + "_ns"] / e["judged_ns"]) if e["judged_ns"] > 0 else 0
                    if abs(e[key + "_ppm"] - want_ppm) > 1:
                        bad.append("%s: %s_ppm %d, %s_ns/judged gives %d" % (name, key, e[key + "_ppm"], key, want_ppm))
                saving = x.get("saving_ns")
                caused = e["gpu_idle_opened_ns"] if saving is None else min(e["gpu_idle_opened_ns"], max(saving, 0))
                if e["gpu_idle_caused_ns"] != caused:
                    bad.append("%s: gpu_idle_caused_ns %d, min(opened %d, saving %s) gives %d" %
                               (name, e["gpu_idle_caused_ns"], e["gpu_idle_opened_ns"], saving, caused))
                if x["cost_ns"] != e["gpu_idle_caused_ns"]:
                    bad.append("%s: cost_ns %d is not the idle the waits caused, %d" %
                               (name, x["cost_ns"], e["gpu_idle_caused_ns"]))
                if not x["title"].startswith("CPU waits cost %.2f ms of GPU idle" % (x["cost_ns"] / 1e6)):
                    bad.append("%s: the title does not lead with the idle caused: %s" % (name, x["title"]))
                ppm = e["gpu_idle_caused_ppm"]
                sev = "critical" if ppm >= CRITICAL_PPM else "warning" if ppm >= WARNING_PPM else "info"
                if x["severity"] != sev:
                    bad.append("%s: severity %s, %d ppm of idle caused says %s" % (name, x["severity"], ppm, sev))
                if e["behaviour_calls"] or e["flagged_steps"] != e["steps"]:
                    continue
                # the windows facts.py can express: every ProfilerStep, or the whole
                # trace; inferred iterations are checked against the generator's truth
                # (tests/test_sync.c, scenario sync_optimizer)
                if e["judged"] == "iterations" and e["iterations_from"] != "ProfilerStep":
                    print("# %s: judged on inferred %s iterations, not recomputed here" % (name, e["iterations_from"]))
                    continue
                apis = "|".join(a["api"] for a in e["by_api"])
                calc = {"fn": "idle_opened_by", "filter": {"name_re": "^(%s)$" % apis}}
                if e["judged"] == "iterations":
                    calc["window"] = {"steps": "all"}
                v = subprocess.run([sys.executable, os.path.join(ROOT, "tests", "verdicts", "facts.py"), "--eval",
                                    path, json.dumps(calc)], capture_output=True, text=True, check=True)
                got = int(v.stdout.strip())
                recomputed += 1
                if got != e["gpu_idle_opened_ns"]:
                    bad.append("%s: gpu_idle_opened_ns %d, recomputed from the raw JSON %d" %
                               (name, e["gpu_idle_opened_ns"], got))
                else:
                    print("# %s: %d ns opened, %s" % (name, got, x["severity"]))
    print("# %d cpu-sync-stall findings, %d recomputed from the raw JSON" % (n, recomputed))
    for b in bad:
        print("FAIL " + b)
    if not recomputed:
        print("FAIL no finding could be recomputed: the check would prove nothing")
        return 1
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
