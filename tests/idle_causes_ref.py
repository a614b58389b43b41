#!/usr/bin/env python3
"""Independent reference for the idle-cause attribution (tests/test_idle_causes.c): reads a Kineto
trace with Python's json (no libfsdpa code) and prints one JSON object for the whole trace, all
GPU streams together:

  {"gaps": N, "idle_ns": ..., "pre_ns": ..., "stream_wait_ns": ..., "rank_wait_ns": ...,
   "unknown_ns": ...,
   "streams": {"DEVICE:STREAM": {the same for that stream alone}, ...}}

idle_ns is the sum of the all-stream gaps; every gap [g0, g1) is split as the report contract
("Idle causes") says: pre_ns is the part before the op that ends the gap was on its stream, i.e.
host_not_launched + host_blocked (which of the two depends on the list of blocking calls, kept in
one place in the library, so it is not recomputed here); the queued rest is stream_wait (a
cuda_sync stream wait on the op's stream, issued after the launch of the op before it, whose
awaited op on the other stream was still to end), rank_wait (awaited op or the op itself a
collective kernel) or unknown.  Times are integer ns exactly (Decimal).
"""
import bisect
import gzip
import json
import sys
from decimal import Decimal

GPU_CATS = {"kernel", "gpu_memcpy", "gpu_memset", "Kernel", "Memcpy", "Memset"}
KERNEL_CATS = {"kernel", "Kernel"}
RUNTIME_CATS = {"cuda_runtime", "cuda_driver", "Runtime"}


def ns(v):
    return int(Decimal(v) * 1000)


def is_comm(name):
    low = name.lower()
    return low.startswith(("nccl", "rccl", "msccl")) or "ncclKernel" in name or "ncclDevKernel" in name


def as_int(v):
    if isinstance(v, int):
        return v
    if isinstance(v, str):
        s = v.strip()
        if s.startswith("stream "):
            s = s[7:]
        try:
            return int(s)
        except ValueError:
            return None
    return None


def main(path):
    op = gzip.open if path.endswith(".gz") else open
    with op(path, "rb") as fh:
        doc = json.loads(fh.read(), parse_float=str)
    evs = doc.get("traceEvents") if isinstance(doc, dict) else doc
    streams = {}   # (device, stream) -> [op]
    rt = {}        # correlation -> (ts, end), the first one
    waits = {}     # (device, stream) -> [(ts, wait_stream, record corr)]
    for e in evs:
        if not isinstance(e, dict) or e.get("ph") != "X" or "ts" not in e:
            continue
        cat = e.get("cat")
        args = e.get("args") or {}
        ts = ns(e["ts"])
        end = ts + max(0, ns(e.get("dur", 0)))
        corr = args.get("correlation")
        if cat in GPU_CATS:
            dev = as_int(e.get("pid"))
            st = as_int(e.get("tid"))
            if dev is None:
                dev = args.get("device")
            if st is None:
                st = args.get("stream")
            streams.setdefault((dev, st), []).append(
                {"ts": ts, "end": end, "corr": corr, "kernel": cat in KERNEL_CATS,
                 "name": e.get("name", "")})
        elif cat in RUNTIME_CATS and corr is not None:
            rt.setdefault(corr, (ts, end))
        elif cat == "cuda_sync":
            ws = args.get("wait_on_stream")
            if isinstance(ws, int) and ws >= 0:
                key = (as_int(e.get("pid")), as_int(e.get("tid")))
                waits.setdefault(key, []).append((ts, ws, args.get("wait_on_cuda_event_record_corr_id")))
    for v in streams.values():
        v.sort(key=lambda o: (o["ts"], o["end"]))
        for i, o in enumerate(v):
            o["i"] = i
    for v in waits.values():
        v.sort()

    def launch(o):
        return rt.get(o["corr"]) if o["corr"] is not None else None

    def key(o):
        l = launch(o)
        return l[0] if l else o["ts"]

    def attribute(keys):
        return split(keys, streams, waits, rt, launch, key)

    res = attribute(sorted(streams, key=str))
    res["streams"] = {"%s:%s" % sk: attribute([sk]) for sk in sorted(streams, key=str)}
    print(json.dumps(res, sort_keys=True))


def split(keys, streams, waits, rt, launch, key):
    """The attribution over the union of the streams `keys`."""
    busy = sorted((o["ts"], o["end"]) for sk in keys for o in streams[sk] if o["end"] > o["ts"])
    union = []
    for s, e in busy:
        if union and s <= union[-1][1]:
            union[-1][1] = max(union[-1][1], e)
        else:
            union.append([s, e])
    starts = {}
    for sk in keys:
        for o in streams[sk]:
            if o["end"] > o["ts"]:
                starts.setdefault(o["ts"], []).append((sk, o))
    out = {"gaps": 0, "idle_ns": 0, "pre_ns": 0, "stream_wait_ns": 0, "rank_wait_ns": 0, "unknown_ns": 0}
    for k in range(len(union) - 1):
        g0, g1 = union[k][1], union[k + 1][0]
        out["gaps"] += 1
        out["idle_ns"] += g1 - g0
        best = None
        for sk, o in sorted(starts.get(g1, []), key=lambda x: (x[0], x[1]["i"])):
            l = launch(o)
            if l and (best is None or l[0] < best[2][0]):
                best = (sk, o, l)
        if best is None:
            out["unknown_ns"] += g1 - g0
            continue
        sk, K, L = best
        q = min(max(L[1], g0), g1)
        out["pre_ns"] += q - g0
        if q >= g1:
            continue
        prev = key(streams[sk][K["i"] - 1]) if K["i"] else None
        A = None
        for (wts, ws, rc) in waits.get(sk, []):
            if wts > L[0] or (prev is not None and wts <= prev):
                continue
            wk = (sk[0], ws)
            if wk == sk or wk not in streams:  # the awaited stream need not be among keys
                continue
            rts = rt[rc][0] if rc in rt else wts
            cand = [o for o in streams[wk] if key(o) < rts]
            if not cand:
                continue
            a = cand[-1]
            if a["end"] > q and (A is None or a["end"] > A["end"]):
                A = a
        if A is not None:
            e = min(A["end"], g1)
            qa = q
            la = launch(A)
            if la and A["ts"] > q:
                qa = min(max(la[1], q), min(A["ts"], e))
                out["pre_ns"] += qa - q
            c = "rank_wait_ns" if A["kernel"] and is_comm(A["name"]) else "stream_wait_ns"
            out[c] += e - qa
            q = e
        if q < g1:
            c = "rank_wait_ns" if K["kernel"] and is_comm(K["name"]) else "unknown_ns"
            out[c] += g1 - q
    return out


if __name__ == "__main__":
    main(sys.argv[1])
