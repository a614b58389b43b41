#!/usr/bin/env python3
"""Independent reference for tests/test_sync.c and tests/test_allocator.c: reads a Kineto trace
with Python's json (no libfsdpa code) and prints, one fact per line:

  steps N
  sync API COUNT TOTAL_NS MAX_NS            blocking calls per API, whole trace
  stepsync NUMBER API COUNT TOTAL_NS        per ProfilerStep containing the call's start
  linked N                                  blocking calls whose correlation has a usable cuda_sync event
  behaviour CLASS API DUR SOURCE SCOPE Q OP calls that blocked by behaviour (tests/sync_behaviour_ref.py),
                                            longest first; those of class alloc are not in the sync counts
  malloc N / free N                         device allocator runtime calls (not pinned host memory)
  dev TYPE ID EVENTS PEAK_ALLOC PEAK_RES ALLOC_AT_PEAK_RES REL_PEAK   (None -> -)

Times are converted to integer ns exactly (Decimal), as the library does.
The API name lists are the documented ones (fsdpa.h), written out here on
purpose rather than taken from the library's classifier.
"""
import gzip
import json
import os
import sys
from decimal import Decimal

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import sync_behaviour_ref  # noqa: E402

BLOCKING = {
    "cudaStreamSynchronize", "cudaEventSynchronize", "cudaDeviceSynchronize",
    "hipStreamSynchronize", "hipEventSynchronize", "hipDeviceSynchronize",
    "cuStreamSynchronize", "cuEventSynchronize", "cuCtxSynchronize",
    "cudaMemcpy", "hipMemcpy", "cudaMemcpy2D", "cudaMemset", "hipMemset",
    "cudaFree", "hipFree", "cudaFreeAsync", "hipFreeAsync", "cudaFreeHost", "hipHostFree",
    "cuMemFree_v2", "cuMemFree", "cuMemRelease", "hipMemRelease", "cuMemFreeAsync", "hipFreeHost",
    "cuMemFreeHost",
}
# device memory only: pinned host allocations (cudaHostAlloc, cudaFreeHost ...) are counted apart
# (tests/alloc_classes_ref.py)
MALLOC = {
    "cudaMalloc", "hipMalloc", "cudaMallocAsync", "hipMallocAsync", "cudaMallocManaged", "hipMallocManaged",
    "cuMemAlloc_v2", "cuMemAlloc", "cuMemCreate", "hipMemCreate", "hipExtMallocWithFlags", "cudaMallocPitch",
    "hipMallocPitch", "cudaMallocFromPoolAsync", "hipMallocFromPoolAsync", "cuMemAllocAsync",
    "cuMemAllocFromPoolAsync",
}
FREE = {"cudaFree", "hipFree", "cudaFreeAsync", "hipFreeAsync", "cuMemFree_v2", "cuMemFree", "cuMemRelease",
        "hipMemRelease", "cuMemFreeAsync"}
RUNTIME_CATS = {"cuda_runtime", "cuda_driver", "Runtime"}


def ns(v):
    if v is None:
        return None
    return int(Decimal(v) * 1000)


def main(path):
    op = gzip.open if path.endswith(".gz") else open
    with op(path, "rb") as fh:
        # floats stay text until needed: exact, and far faster than Decimal for every number
        doc = json.loads(fh.read(), parse_float=str)
    evs = doc.get("traceEvents") if isinstance(doc, dict) else doc
    if not isinstance(evs, list):
        print("not-a-trace")
        return
    steps = []
    calls = []
    syncs = {}
    nmalloc = nfree = 0
    mem = {}
    for i, e in enumerate(evs):
        if not isinstance(e, dict):
            continue
        name = e.get("name", "")
        cat = e.get("cat")
        ph = e.get("ph")
        if ph == "X" and cat in ("user_annotation", "cpu_op", "Operator") and isinstance(name, str) \
                and name.startswith("ProfilerStep#") and "ts" in e:
            t = ns(e["ts"])
            steps.append((t, t + max(0, ns(e.get("dur", 0))), int(name[13:].split()[0] or -1)))
        if ph == "X" and cat in RUNTIME_CATS and "ts" in e:
            if name in BLOCKING:
                t = ns(e["ts"])
                d = max(0, ns(e.get("dur", 0)))
                calls.append((t, d, name, (e.get("args") or {}).get("correlation")))
            if name in MALLOC:
                nmalloc += 1
            elif name in FREE:
                nfree += 1
        if ph == "X" and cat == "cuda_sync":
            a = e.get("args") or {}
            kind = a.get("cuda_sync_kind")
            tid = e.get("tid")
            usable = (kind == "Stream Sync" and isinstance(tid, int) and tid >= 0) or \
                     (kind == "Event Sync" and isinstance(a.get("wait_on_stream"), int) and a["wait_on_stream"] >= 0) or \
                     kind == "Context Sync"
            if a.get("correlation") is not None and usable:
                syncs.setdefault(a["correlation"], True)
        if ph in ("i", "I") and name in ("[memory]", "[OutOfMemory]"):
            a = e.get("args") or {}
            dt = a.get("Device Type")
            if dt is None or dt == 0:
                continue
            key = (dt, a.get("Device Id", -1))
            mem.setdefault(key, []).append((ns(e["ts"]), i, a, name == "[OutOfMemory]"))
    steps.sort()
    print("steps", len(steps))
    named = len(calls)
    behaved = [x for x in sync_behaviour_ref.analyse(evs) if x["blocking"]]
    calls += [(x["ts"], x["end"] - x["ts"], x["name"], None) for x in behaved if x["cls"] != "alloc"]
    per = {}
    for t, d, n, _ in calls:
        c = per.setdefault(n, [0, 0, 0])
        c[0] += 1
        c[1] += d
        c[2] = max(c[2], d)
    for n in sorted(per):
        print("sync", n, *per[n])
    ps = {}
    for t, d, n, _ in calls:
        step = None
        for (s0, s1, num) in steps:  # latest-starting step containing t
            if s0 <= t < s1:
                step = num
        if step is None:
            continue
        c = ps.setdefault((step, n), [0, 0])
        c[0] += 1
        c[1] += d
    for (st, n) in sorted(ps):
        print("stepsync", st, n, *ps[(st, n)])
    linked = sum(1 for c in calls[:named] if c[3] is not None and c[3] in syncs and c[2] not in ("cudaMemcpy", "hipMemcpy"))
    print("linked", linked)
    behaved.sort(key=lambda x: (-(x["end"] - x["ts"]), x["ts"]))
    for x in behaved:
        print("behaviour", x["cls"], x["name"], x["end"] - x["ts"], x["source"], x["scope"], x["queue"],
              x["op"]["name"])
    print("malloc", nmalloc)
    print("free", nfree)
    for key in sorted(mem):
        ev = sorted(mem[key], key=lambda x: (x[0], x[1]))
        has_tot = all("Total Allocated" in a for _, _, a, _ in ev)
        has_res = all("Total Reserved" in a for _, _, a, _ in ev)
        pa = max(a["Total Allocated"] for _, _, a, _ in ev) if has_tot else None
        pr = max(a["Total Reserved"] for _, _, a, _ in ev) if has_res else None
        apr = None
        if has_tot and has_res:
            apr = max(a["Total Allocated"] for _, _, a, _ in ev if a["Total Reserved"] == pr)
        rel = None
        if not has_tot:
            run = 0
            rel = None
            for _, _, a, oom in ev:
                if not oom:
                    run += a.get("Bytes", 0)
                rel = run if rel is None else max(rel, run)
        f = lambda v: "-" if v is None else str(v)
        print("dev", key[0], key[1], len(ev), f(pa), f(pr), f(apr), f(rel))


if __name__ == "__main__":
    main(sys.argv[1])
