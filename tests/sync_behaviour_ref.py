#!/usr/bin/env python3
"""Independent reference for the runtime calls that block by behaviour (docs/report-contract.md,
"Blocking calls"): reads the raw Kineto JSON with Python's json (no libfsdpa code) and decides,
for every runtime call of a behaviour class (launch, async_copy, alloc, other) longer than its
class threshold, whether GPU work it waited for ended with it.  Used by tests/sync_alloc_ref.py
(which adds the blocking ones to its per-API counts) and runnable alone:

  sync_behaviour_ref.py TRACE   ->  one line per blocking call, longest first:
  behaviour CLASS API DUR_NS SOURCE SCOPE QUEUE_OPS WAITED_OP_NAME

The API name lists are the documented ones, written out here on purpose rather than taken from
the library's classifier; the thresholds are the documented defaults.
"""
import gzip
import json
import sys
from bisect import bisect_left
from decimal import Decimal

SYNC = {"cudaStreamSynchronize", "cudaEventSynchronize", "cudaDeviceSynchronize", "hipStreamSynchronize",
        "hipEventSynchronize", "hipDeviceSynchronize", "cuStreamSynchronize", "cuEventSynchronize",
        "cuCtxSynchronize"}
SYNC_COPY = {"cudaMemcpy", "hipMemcpy", "cudaMemcpy2D", "cudaMemset", "hipMemset"}
FREE = {"cudaFree", "hipFree", "cudaFreeAsync", "hipFreeAsync", "cudaFreeHost", "hipHostFree", "cuMemFree_v2",
        "cuMemRelease"}
ASYNC_COPY = {"cudaMemcpyAsync", "cudaMemsetAsync", "hipMemcpyAsync", "hipMemsetAsync", "hipMemcpyWithStream",
              "cudaMemcpy2DAsync", "cuMemcpyAsync", "cuMemsetD8Async", "cuMemsetD32Async"}
LAUNCH = {"cuLaunchKernel", "cuLaunchKernelEx", "hipModuleLaunchKernel", "hipExtModuleLaunchKernel",
          "cudaGraphLaunch", "hipGraphLaunch", "cuGraphLaunch"}
MALLOC = {"cudaMalloc", "hipMalloc", "cudaMallocAsync", "hipMallocAsync", "cudaHostAlloc", "hipHostMalloc",
          "cudaMallocHost", "cudaMallocManaged", "hipMallocManaged", "cuMemAlloc_v2", "cuMemCreate",
          "hipExtMallocWithFlags"}
THRESHOLD = {"launch": 50000, "async_copy": 50000, "alloc": 1000000, "other": 1000000}
TOL = 30000
RUNTIME_CATS = {"cuda_runtime", "cuda_driver", "Runtime"}
GPU_CATS = {"kernel": "kernel", "Kernel": "kernel", "gpu_memcpy": "memcpy", "Memcpy": "memcpy",
            "gpu_memset": "memset", "Memset": "memset"}


def ns(v):
    return int(Decimal(v) * 1000)


def api_class(name):
    if name in SYNC:
        return "sync"
    if name in SYNC_COPY:
        return "sync_copy"
    if name in FREE:
        return "free"
    if name in ASYNC_COPY:
        return "async_copy"
    if name in LAUNCH or (name[:1] in ("c", "h") and "LaunchKernel" in name) or \
            name.startswith("cudaLaunchCooperativeKernel"):
        return "launch"
    if name in MALLOC:
        return "alloc"
    return "other"


def as_int(v):
    if isinstance(v, int):
        return v
    try:
        return int(str(v).split()[-1])
    except ValueError:
        return -1


def busy_in(u, s, e):
    """|[s, e) ∩ union u| (u sorted, disjoint)."""
    tot = 0
    for a, b in u[max(0, bisect_left([x[1] for x in u], s) - 1):]:
        if a >= e:
            break
        lo, hi = max(a, s), min(b, e)
        if hi > lo:
            tot += hi - lo
    return tot


def analyse(evs):
    """Every call tested, as dicts; 'blocking' says whether it blocked by behaviour."""
    rts, ops = [], []
    for e in evs:
        if not isinstance(e, dict) or e.get("ph") != "X" or "ts" not in e:
            continue
        cat = e.get("cat")
        a = e.get("args") or {}
        t = ns(e["ts"])
        d = max(0, ns(e.get("dur", 0)))
        if cat in RUNTIME_CATS:
            rts.append({"ts": t, "end": t + d, "name": e.get("name", ""), "corr": a.get("correlation"),
                        "thread": (e.get("pid"), e.get("tid"))})
        elif cat in GPU_CATS:
            ops.append({"ts": t, "end": t + d, "name": e.get("name", ""), "corr": a.get("correlation"),
                        "kind": GPU_CATS[cat], "dev": as_int(e.get("pid")), "stream": as_int(e.get("tid"))})
    by_corr = {}
    for r in rts:
        if r["corr"] is not None:
            by_corr.setdefault(r["corr"], r)
    own = {}  # id(runtime call) -> the latest-ending op it queued
    streams = {}
    for o in ops:
        r = by_corr.get(o["corr"]) if o["corr"] is not None else None
        o["queued"] = r["ts"] if r else o["ts"]
        if r is not None and (id(r) not in own or own[id(r)]["end"] < o["end"]):
            own[id(r)] = o
        streams.setdefault((o["dev"], o["stream"]), []).append(o)
    lmax = {}
    for k, v in streams.items():
        v.sort(key=lambda o: o["ts"])
        run, lm = None, []
        for i, o in enumerate(v):
            o["pos"] = i
            run = o["queued"] if run is None or o["queued"] > run else run
            lm.append(run)
        lmax[k] = lm
    unions = {}
    for k, v in streams.items():
        unions.setdefault(k[0], []).extend((o["ts"], o["end"]) for o in v)
    for d, iv in unions.items():
        iv.sort()
        u = []
        for a, b in iv:
            if u and a <= u[-1][1]:
                u[-1] = (u[-1][0], max(u[-1][1], b))
            else:
                u.append((a, b))
        unions[d] = u
    launches = {}  # thread -> sorted (ts, op) of its calls that queued an op
    for r in rts:
        if id(r) in own:
            launches.setdefault(r["thread"], []).append((r["ts"], own[id(r)]))
    for v in launches.values():
        v.sort(key=lambda x: x[0])

    def last_before(key, t):
        i = bisect_left(lmax[key], t)
        return streams[key][i - 1] if i else None

    def device_last(dev, t):
        best = None
        for key in sorted(streams):
            if dev is not None and key[0] != dev:
                continue
            o = last_before(key, t)
            if o is not None and (best is None or o["end"] > best["end"]):
                best = o
        return best

    def waited(r, o, thr, own_copy=False):
        if o is None or not (o["ts"] < r["end"] and r["end"] - TOL <= o["end"] <= r["end"] + TOL and
                             o["end"] - r["ts"] >= thr):
            return False
        if own_copy:  # condition (3) does not apply to a copy call's own copy
            return True
        we = min(o["end"], r["end"])
        b = busy_in(unions[o["dev"]], r["ts"], we)
        return b >= thr and b >= (we - r["ts"]) - (we - r["ts"]) // 10

    out = []
    for r in rts:
        cls = api_class(r["name"])
        if cls not in THRESHOLD or r["end"] - r["ts"] <= THRESHOLD[cls]:
            continue
        thr = THRESHOLD[cls]
        mine = own.get(id(r))
        ref = mine
        if ref is None:
            lv = launches.get(r["thread"], [])
            i = bisect_left([x[0] for x in lv], r["ts"])
            ref = lv[i - 1][1] if i else None
        key = (ref["dev"], ref["stream"]) if ref else None
        order = ["own", "stream", "device"] if mine is not None and mine["kind"] != "kernel" else \
            ["stream", "device", "own"]
        hit = None
        for what in order:
            if what == "own" and mine is not None and waited(r, mine, thr, mine["kind"] != "kernel"):
                hit = (mine, "own_op", "stream")
            elif what == "stream" and key is not None:
                o = last_before(key, r["ts"])
                if waited(r, o, thr):
                    hit = (o, "inferred", "stream")
            elif what == "device":
                o = device_last(ref["dev"] if ref else None, r["ts"])
                if waited(r, o, thr):
                    hit = (o, "inferred", "device")
            if hit:
                break
        row = dict(r, cls=cls, blocking=hit is not None)
        if hit:
            o = hit[0]
            v = streams[(o["dev"], o["stream"])]
            q = 0
            for j in range(o["pos"] - 1, -1, -1):
                if v[j]["end"] <= r["ts"]:
                    break
                q += 1
            row.update(op=o, source=hit[1], scope=hit[2], queue=q)
        out.append(row)
    return out


def load(path):
    op = gzip.open if path.endswith(".gz") else open
    with op(path, "rb") as fh:
        doc = json.loads(fh.read(), parse_float=str)
    return doc.get("traceEvents") if isinstance(doc, dict) else doc


def main(path):
    evs = load(path)
    if not isinstance(evs, list):
        print("not-a-trace")
        return
    rows = [x for x in analyse(evs) if x["blocking"]]
    rows.sort(key=lambda x: (-(x["end"] - x["ts"]), x["ts"]))
    for x in rows:
        print("behaviour", x["cls"], x["name"], x["end"] - x["ts"], x["source"], x["scope"], x["queue"],
              x["op"]["name"])


if __name__ == "__main__":
    main(sys.argv[1])
