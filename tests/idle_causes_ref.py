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
collective kernel) or unknown.  Per wait, not per trace: a runtime wait call (cudaStreamWaitEvent /
hipStreamWaitEvent) whose correlation id is that of such a cuda_sync event is that event and is
not read again; every other one (its cuda_sync has wait_on_stream -1, or it has none) is read
from the runtime calls: the launching thread's last such call after its previous launch waits on its last
cudaEventRecord before (or the wait itself when the trace has no record call), recorded on the
stream of the thread's last launch before that onto another stream of the device (looking back
at most 64 launches).  Times are integer ns exactly (Decimal).
"""
import bisect
import gzip
import json
import sys
from decimal import Decimal

GPU_CATS = {"kernel", "gpu_memcpy", "gpu_memset", "Kernel", "Memcpy", "Memset"}
KERNEL_CATS = {"kernel", "Kernel"}
RUNTIME_CATS = {"cuda_runtime", "cuda_driver", "Runtime"}
WAIT_CALLS = {"cudaStreamWaitEvent", "hipStreamWaitEvent", "cuStreamWaitEvent"}
RECORD_CALLS = {"cudaEventRecord", "hipEventRecord", "cuEventRecord", "cudaEventRecordWithFlags",
                "hipEventRecordWithFlags"}


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
    rtwait = {}    # CPU thread -> [(ts, corr)] of cudaStreamWaitEvent calls
    named = set()  # correlation ids of the cuda_sync waits that name their stream
    rtrec = {}     # CPU thread -> [ts] of cudaEventRecord calls
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
        elif cat in RUNTIME_CATS:
            thr = (e.get("pid"), e.get("tid"))
            if corr is not None:
                rt.setdefault(corr, (ts, end, thr))
            name = e.get("name", "")
            if name in WAIT_CALLS:
                rtwait.setdefault(thr, []).append((ts, corr))
            elif name in RECORD_CALLS:
                rtrec.setdefault(thr, []).append(ts)
        elif cat == "cuda_sync":
            ws = args.get("wait_on_stream")
            if isinstance(ws, int) and ws >= 0:
                key = (as_int(e.get("pid")), as_int(e.get("tid")))
                waits.setdefault(key, []).append((ts, ws, args.get("wait_on_cuda_event_record_corr_id")))
                if corr is not None:
                    named.add(corr)
    for v in streams.values():
        v.sort(key=lambda o: (o["ts"], o["end"]))
        for i, o in enumerate(v):
            o["i"] = i
    for v in waits.values():
        v.sort()
    rtwait = {thr: [t for t, c in v if c is None or c not in named] for thr, v in rtwait.items()}
    rtwait = {thr: v for thr, v in rtwait.items() if v}
    for v in list(rtwait.values()) + list(rtrec.values()):
        v.sort()
    order = {sk: i for i, sk in enumerate(sorted(streams, key=lambda k: (k[0], k[1])))}
    launches = {}  # CPU thread -> [(ts, stream order, stream)] one per linked op
    for sk, v in streams.items():
        for o in v:
            l = rt.get(o["corr"]) if o["corr"] is not None else None
            if l:
                launches.setdefault(l[2], []).append((l[0], order[sk], sk))
    for v in launches.values():
        v.sort(key=lambda x: (x[0], x[1]))
    rtw = None
    if rtwait:
        rtw = (rtwait, rtrec, launches, bool(rtrec))
    def launch(o):
        return rt.get(o["corr"]) if o["corr"] is not None else None

    def key(o):
        l = launch(o)
        return l[0] if l else o["ts"]

    def attribute(keys):
        return split(keys, streams, waits, rt, launch, key, rtw)

    res = attribute(sorted(streams, key=str))
    res["streams"] = {"%s:%s" % sk: attribute([sk]) for sk in sorted(streams, key=str)}
    print(json.dumps(res, sort_keys=True))


_LAUNCHED = {}  # id(ops) -> (launch starts, [(launch start, stream index, op)]) sorted


def last_launched(ops, t, launch):
    """The op whose launch call started last before t (ties: later in stream order); ops
    without a launch call do not count.  The ops with a launch call are sorted once per
    stream by (launch start, stream index), so the answer is the last one starting before t."""
    idx = _LAUNCHED.get(id(ops))
    if idx is None:
        lst = sorted((l[0], o["i"], o) for o in ops for l in [launch(o)] if l)
        idx = _LAUNCHED[id(ops)] = ([x[0] for x in lst], lst)
    k = bisect.bisect_left(idx[0], t) - 1
    return idx[1][k][2] if k >= 0 else None


def before(lst, t):
    """Index of the last item < t in a sorted list of numbers (or first fields), or -1."""
    lo, hi = 0, len(lst)
    while lo < hi:
        mid = (lo + hi) // 2
        v = lst[mid] if not isinstance(lst[mid], tuple) else lst[mid][0]
        if v < t:
            lo = mid + 1
        else:
            hi = mid
    return lo - 1


def split(keys, streams, waits, rt, launch, key, rtw):
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
            a = last_launched(streams[wk], rts, launch)
            if a is None:
                continue
            if a["end"] > q and (A is None or a["end"] > A["end"]):
                A = a
        if rtw is not None:
            # the waits no cuda_sync names: the runtime calls of K's launching thread
            rtwait, rtrec, launches, has_rec = rtw
            thr = L[2]
            ll = launches.get(thr, [])
            ip = before(ll, L[0])
            ws_ = rtwait.get(thr, [])
            iw = before(ws_, L[0] + 1)
            if iw >= 0 and (ip < 0 or ws_[iw] > ll[ip][0]):
                wts = ws_[iw]
                at = wts
                if has_rec:
                    rr = rtrec.get(thr, [])
                    ir = before(rr, wts)
                    if ir >= 0:
                        at = rr[ir]
                i = before(ll, at)
                back = 0
                while i >= 0 and back < 64:
                    wk = ll[i][2]
                    if wk != sk and wk[0] == sk[0]:
                        a = last_launched(streams[wk], at, launch)
                        if a is not None and a["end"] > q and (A is None or a["end"] > A["end"]):
                            A = a
                        break
                    i -= 1
                    back += 1
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
