#!/usr/bin/env python3
"""First-use cost (docs/report-contract.md, "First-use cost") recomputed from
the raw traces of the real corpus without the library, against the report's
ranks[0].launch_gaps.first_use:

- first launches: for every kernel name, the launch call (runtime event of the
  same correlation) that starts first among that name's kernels (ties: the
  earlier event in the file); kept when it lasts at least 1 ms; a call that is
  the first of several names counts once;
- allocator calls: runtime calls named as device / pinned / pool / VMM
  allocations (cudaMalloc, hipMalloc, cudaHostAlloc, cuMemCreate ...);
- the window: the whole trace without iterations, the reported warm-up range
  with one, nothing with a single iteration;
- idle_ns: all-stream GPU gaps of the window (tests/verdicts/facts.py's
  definition) inside the union of both kinds of call; host_wait_ns: of the
  host-wait gaps only (facts.py's HTA rule); the counts: calls starting in
  the window.

Exit 0 = all equal, 1 = a difference, 77 = no corpus or CLI."""
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "verdicts"))
import facts  # noqa: E402  (the verdicts' independent loading and interval code)

CLI = os.environ.get("FSDPA_CLI")
CORPUS = os.environ.get("FSDPA_TRACE_CORPUS") or os.environ.get("FSDPA_DEFAULT_CORPUS") or \
    os.path.join(HERE, "..", "..", "shared", "traces")
SLOW_NS = 1000000
ALLOC = {"cudaMalloc", "hipMalloc", "cudaMallocManaged", "hipMallocManaged", "cuMemAlloc_v2", "cuMemAlloc",
         "hipExtMallocWithFlags", "cudaMallocPitch", "hipMallocPitch",
         "cudaHostAlloc", "cudaMallocHost", "hipHostMalloc", "hipHostAlloc", "hipMallocHost", "cuMemHostAlloc",
         "cuMemAllocHost_v2", "cuMemAllocHost",
         "cudaMallocAsync", "hipMallocAsync", "cudaMallocFromPoolAsync", "hipMallocFromPoolAsync",
         "cuMemAllocAsync", "cuMemAllocFromPoolAsync", "cuMemCreate", "hipMemCreate"}
# must differ from zero on these (the cases the numbers were made for)
NONZERO = {"switchtransformers/trace.json.gz"}


def traces():
    out = []
    vdir = os.path.join(HERE, "verdicts")
    for f in sorted(os.listdir(vdir)):
        if f.endswith(".json"):
            v = json.load(open(os.path.join(vdir, f)))
            if not v.get("expect_rejected"):
                out.append(v["trace"])
    return out


def first_use(t, w):
    pos = {id(e): i for i, e in enumerate(t.rt)}
    first = {}
    for k in t.gpu:
        if k.get("cat") not in ("kernel", "Kernel"):
            continue
        ln = t.corr.get((k.get("args") or {}).get("correlation"))
        if ln is None:
            continue
        key = (ln["_s"], pos[id(ln)])
        name = k.get("name", "")
        if name not in first or key < first[name][0]:
            first[name] = (key, ln)
    launches = {id(ln): ln for _, ln in first.values() if ln["_e"] - ln["_s"] >= SLOW_NS}
    allocs = []
    for e in t.rt:
        n = str(e.get("name", ""))
        if n.endswith("_ptsz"):
            n = n[:-5]
        if n in ALLOC:
            allocs.append(e)
    calls = list(launches.values()) + allocs
    u = facts.union([(e["_s"], e["_e"]) for e in calls])
    t0, t1 = w
    gaps = facts.clipw(t.gaps(), [[t0, t1]])
    host = facts.clipw([g for g in t.gaps() if t.gap_category(g) == "host_wait"], [[t0, t1]])

    def starting(es):
        return sum(1 for e in es if t0 <= e["_s"] < t1)
    return {"first_launches": starting(launches.values()), "allocator_calls": starting(allocs),
            "idle_ns": facts.ulen(facts.inter(gaps, u)), "host_wait_ns": facts.ulen(facts.inter(host, u))}


def main():
    if not CLI or not os.path.isdir(CORPUS):
        print("# SKIP needs FSDPA_CLI and the corpus (FSDPA_TRACE_CORPUS)")
        return 77
    facts.TRACES_ROOT[0] = CORPUS
    bad = checked = 0
    for rel in traces():
        path = os.path.join(CORPUS, rel)
        r = subprocess.run([CLI, "analyze", "--format", "json", path], capture_output=True, text=True)
        if r.returncode not in (0, 1):
            print("FAIL %s: fsdpa exit %d" % (rel, r.returncode))
            bad += 1
            continue
        lg = json.loads(r.stdout)["ranks"][0]["launch_gaps"]
        if lg is None:
            continue
        fu = lg["first_use"]
        t = facts.Trace(path)
        base = int(t.top.get("baseTimeNanoseconds") or 0)
        st = t.steps()
        diffs = []
        if st and fu["window"] != ("warmup" if len(st) >= 2 else "none"):
            diffs.append("window %r with %d ProfilerSteps" % (fu["window"], len(st)))
        if fu["window"] == "whole_trace":
            want = first_use(t, (-(1 << 62), 1 << 62))
        elif fu["window"] == "warmup":
            want = first_use(t, (fu["start_ns"] - base, fu["end_ns"] - base))
        else:
            want = {"first_launches": 0, "allocator_calls": 0, "idle_ns": 0, "host_wait_ns": 0}
        diffs += ["%s: report %r, raw %r" % (k, fu.get(k), v) for k, v in want.items() if fu.get(k) != v]
        if rel in NONZERO and not (want["first_launches"] and want["idle_ns"]):
            diffs.append("no first-use idle found where the verdict says there is")
        checked += 1
        if diffs:
            bad += 1
            print("FAIL %s: %s" % (rel, "; ".join(diffs)))
        else:
            print("ok   %s (%s: %d first launches, %d allocator calls, idle %d ns, host-wait %d ns)" % (
                rel, fu["window"], want["first_launches"], want["allocator_calls"], want["idle_ns"],
                want["host_wait_ns"]))
    print("%d traces checked, %d differ" % (checked, bad))
    return 1 if bad or not checked else 0


if __name__ == "__main__":
    sys.exit(main())
