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

Exit 0 = all equal, 1 = a difference, 2 = no CLI, 77 = no corpus."""
import sys

from verdictlib import each_verdict_trace, load_facts, run

facts = load_facts()  # the verdicts' independent loading and interval code
SLOW_NS = 1000000
ALLOC = {"cudaMalloc", "hipMalloc", "cudaMallocManaged", "hipMallocManaged", "cuMemAlloc_v2", "cuMemAlloc",
         "hipExtMallocWithFlags", "cudaMallocPitch", "hipMallocPitch",
         "cudaHostAlloc", "cudaMallocHost", "hipHostMalloc", "hipHostAlloc", "hipMallocHost", "cuMemHostAlloc",
         "cuMemAllocHost_v2", "cuMemAllocHost",
         "cudaMallocAsync", "hipMallocAsync", "cudaMallocFromPoolAsync", "hipMallocFromPoolAsync",
         "cuMemAllocAsync", "cuMemAllocFromPoolAsync", "cuMemCreate", "hipMemCreate"}
# must differ from zero on these (the cases the numbers were made for)
NONZERO = {"switchtransformers/trace.json.gz"}


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


def judge(rel, path, rep):
    lg = rep["ranks"][0]["launch_gaps"]
    if lg is None:
        return None
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
    return diffs, "%s: %d first launches, %d allocator calls, idle %d ns, host-wait %d ns" % (
        fu["window"], want["first_launches"], want["allocator_calls"], want["idle_ns"], want["host_wait_ns"])


if __name__ == "__main__":
    sys.exit(run(each_verdict_trace(judge)))
