#!/usr/bin/env python3
"""Independent reference for tests/test_crossrank.c: reads the traces of one job with Python's
json (no libfsdpa code), matches their collectives across ranks by the rules of the `crossrank`
group in include/fsdpa/fsdpa.h, and prints one JSON object of facts:

  ranks, reference_rank, offsets {rank: ns}, seen, matched, measured,
  left_out {unmatched, no_seq, clipped, unaligned, unsynchronized},
  last_count {rank: n}, lost {rank: ns}

The traces may be given in any order: the facts are computed in rank order (ties broken by the
lowest rank), which is what the library promises. Times are integer ns (Decimal, exact).
"""
import gzip
import json
import sys
from decimal import Decimal

END_TOL = 100000  # crossrank.end_tolerance_ns


def ns(v):
    return int(Decimal(str(v)) * 1000)


def load(path):
    op = gzip.open if path.endswith(".gz") else open
    with op(path, "rt", encoding="utf-8") as f:
        return json.load(f)


def is_comm(name):
    low = name.lower()
    return (low.startswith("nccl") or low.startswith("rccl") or low.startswith("msccl")
            or "ncclKernel" in name or "ncclDevKernel" in name)


P2P = ("sendrecv", "send", "recv")


def p2p_arg(s):
    """Whether a collective name (Collective name, nccl:<op>) is point-to-point."""
    s = s.lstrip("_").lower()
    return s.startswith(P2P)


def p2p_kernel(name):
    k = name.split("(")[0]
    for part in ("SendRecv", "_Send", "_Recv"):
        if part in k:
            return True
    return False


def coll_class(s):
    """Equality class of a collective type, as documented: send, recv and SendRecv are one."""
    s = s.lstrip("_").lower()
    for p, c in (("allgather", "AG"), ("all_gather", "AG"), ("reduce_scatter", "RS"),
                 ("reducescatter", "RS"), ("allreduce", "AR"), ("all_reduce", "AR"),
                 ("broadcast", "BC"), ("alltoall", "A2A"), ("all_to_all", "A2A"),
                 ("sendrecv", "P2P"), ("send", "P2P"), ("recv", "P2P"), ("barrier", "BAR"),
                 ("reduce", "RED")):
        if s.startswith(p):
            return c
    return "OTHER"


def kernel_class(name):
    k = name.split("(")[0]
    for word, c in (("AllGather", "AG"), ("ReduceScatter", "RS"), ("AllReduce", "AR"),
                    ("Broadcast", "BC"), ("AllToAll", "A2A"), ("SendRecv", "P2P"), ("Send", "P2P"),
                    ("Recv", "P2P"), ("Reduce", "RED")):
        if word in k:
            return c
    return "OTHER"


def rank_table(path, index):
    d = load(path)
    evs = d["traceEvents"] if isinstance(d, dict) else d
    info = d.get("distributedInfo") or {}
    rank = info.get("rank", index)
    base = int(d.get("baseTimeNanoseconds", 0) or 0)
    steps, annots, runtime, kernels = [], {}, {}, []
    for e in evs:
        if e.get("ph") != "X":
            continue
        cat, name = e.get("cat", ""), e.get("name", "")
        args = e.get("args") or {}
        ts, dur = ns(e["ts"]), ns(e.get("dur", 0))
        if name.startswith("ProfilerStep#") and cat in ("user_annotation", "cpu_op"):
            steps.append((ts, ts + dur, int(name.split("#")[1])))
        elif cat in ("cpu_op", "user_annotation") and (name.startswith("nccl:") or name == "record_param_comms"):
            annots.setdefault((e.get("pid"), e.get("tid")), []).append((ts, ts + dur, name, args))
        elif cat in ("cuda_runtime", "cuda_driver") and "correlation" in args:
            runtime[args["correlation"]] = (ts, e.get("pid"), e.get("tid"))
        elif cat == "kernel" and is_comm(name):
            kernels.append((ts, ts + dur, name, args))
    rows = []
    for ts, end, name, args in kernels:
        rt = runtime.get(args.get("correlation"))
        launch = rt[0] if rt else ts
        inner = {}
        if rt:  # the innermost nccl:<op> / record_param_comms holding the launch, on its thread
            for a0, a1, an, aa in annots.get((rt[1], rt[2]), []):
                if a0 <= launch <= a1:
                    kind = "rpc" if an == "record_param_comms" else "annot"
                    if kind not in inner or a0 > inner[kind][0]:
                        inner[kind] = (a0, an, aa)
        rpc = inner.get("rpc", (0, "", {}))[2]
        seq = args.get("Seq", rpc.get("Seq"))
        pg = args.get("Process Group Name", rpc.get("Process Group Name"))
        cname = args.get("Collective name") or rpc.get("Collective name")
        if cname:
            cls, p2p = coll_class(cname), p2p_arg(cname)
        elif "annot" in inner:
            op = inner["annot"][1][5:]
            cls, p2p = coll_class(op), p2p_arg(op)
        else:
            cls, p2p = kernel_class(name), p2p_kernel(name)
        step = None
        for s0, s1, num in sorted(steps):
            if s0 <= launch < s1:
                step = num  # the latest-starting one wins
        rows.append({"s": ts + base, "e": end + base, "seq": seq, "pg": pg, "cls": cls, "p2p": p2p,
                     "step": step})
    keyed = []
    ordinals = {}
    for r in sorted(rows, key=lambda r: (r["s"], r["e"])):
        if r["seq"] is not None:
            key = ("seq", r["pg"], r["p2p"], r["seq"])
        else:
            g = (r["pg"], r["cls"], r["step"])
            ordinals[g] = ordinals.get(g, -1) + 1
            key = ("ord",) + g + (ordinals[g],)
        keyed.append((key, r))
    return rank, keyed


def lower_median(v):
    v = sorted(v)
    return v[(len(v) - 1) // 2]


def main(paths):
    tabs = sorted((rank_table(p, i) + (i,) for i, p in enumerate(paths)), key=lambda t: (t[0], t[2]))
    ranks = [t[0] for t in tabs]
    ids = {}  # key -> {rank index: (s, e)}, several kernels of a rank merged
    for ri, (_, keyed, _) in enumerate(tabs):
        for key, r in keyed:
            m = ids.setdefault(key, {})
            if ri in m:
                m[ri] = (min(m[ri][0], r["s"]), max(m[ri][1], r["e"]))
            else:
                m[ri] = (r["s"], r["e"])
    groups = {k: m for k, m in ids.items() if len(m) >= 2}
    lone = {k: m for k, m in ids.items() if len(m) == 1}
    count = [sum(1 for m in groups.values() if ri in m) for ri in range(len(ranks))]
    ref = max(range(len(ranks)), key=lambda i: (count[i], -i))
    off, done = {ref: 0}, {ref: 1}
    level = 1
    while True:
        level += 1
        diffs = {}
        for m in groups.values():
            anchors = [ri for ri in sorted(m) if ri in done and done[ri] < level]
            if not anchors:
                continue
            a = ref if ref in anchors else anchors[0]
            base = m[a][1] - off[a]
            for ri in m:
                if ri not in done:
                    diffs.setdefault(ri, []).append(m[ri][1] - base)
        if not diffs:
            break
        for ri, v in diffs.items():
            off[ri] = lower_median(v)
            done[ri] = level
    left = {"unmatched": 0, "no_seq": 0, "clipped": 0, "unaligned": 0, "unsynchronized": 0}
    measured = 0
    last_count = {r: 0 for r in ranks}
    lost = {r: 0 for r in ranks}
    for m in groups.values():
        kept = {ri: se for ri, se in m.items() if ri in off}
        if len(kept) < 2:
            left["unaligned"] += 1
            continue
        transfer = min(e - s for s, e in kept.values())
        ends = [e - off[ri] for ri, (s, e) in kept.items()]
        spread = max(ends) - min(ends)
        if spread > transfer and spread > END_TOL:
            left["unsynchronized"] += 1
            continue
        measured += 1
        arr = sorted((s - off[ri], ri) for ri, (s, e) in kept.items())
        if arr[-1][0] > arr[-2][0]:
            last = arr[-1][1]
            last_count[ranks[last]] += 1
            lost[ranks[last]] += sum(arr[-1][0] - a for a, _ in arr[:-1])
    ws, we = None, None
    for ri, (_, keyed, _) in enumerate(tabs):
        if ri not in off or not keyed:
            continue
        s = min(r["s"] for _, r in keyed) - off[ri]
        e = max(r["e"] for _, r in keyed) - off[ri]
        ws = s if ws is None else max(ws, s)
        we = e if we is None else min(we, e)
    for key, m in lone.items():
        (ri, (s, e)), = m.items()
        if ri in off and (s - off[ri] < ws or e - off[ri] > we):
            left["clipped"] += 1
        elif key[0] == "seq":
            left["unmatched"] += 1
        else:
            left["no_seq"] += 1
    print(json.dumps({
        "ranks": ranks, "reference_rank": ranks[ref] if groups else None,
        "offsets": {str(ranks[ri]): o for ri, o in sorted(off.items())},
        "seen": len(ids), "matched": len(groups), "measured": measured, "left_out": left,
        "last_count": {str(r): n for r, n in last_count.items()},
        "lost": {str(r): n for r, n in lost.items()},
    }, sort_keys=True))


if __name__ == "__main__":
    main(sys.argv[1:])
