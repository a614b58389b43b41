#!/usr/bin/env python3
"""Independent reference for the idle causes (tests/test_idle_causes.c): reads a Kineto trace with
Python's json (no libfsdpa code) and prints one JSON object for the whole trace, all GPU streams
together, and for each stream alone:

  {"gaps": N, "idle_ns", "host_not_launched_ns", "host_blocked_ns", "pre_ns", "stream_wait_ns",
   "rank_wait_ns", "dispatch_ns", "unknown_ns", "outside_trace_ns", "inferred_ns",
   "streams": {"DEVICE:STREAM": {the same for that stream alone}, ...}}

written from docs/report-contract.md alone ("Idle causes": "The dependency graph", "The walk
back"; "Blocking calls" for which runtime calls held their thread).  The six causes sum to
idle_ns; pre_ns = host_not_launched + host_blocked (the part before the op ending a gap was on
its stream).  Times are integer ns exactly (Decimal).

Where the contract leaves a choice open, the reading taken here is named READING in a comment.  Each reading that a corpus trace or a generator scenario tells
apart is the library's; the others (the depth limit, the own op of a graph launch, several ops
ending within the inferred lag, "queued" as strictly before) no trace here distinguishes.

  idle_causes_ref.py TRACE [--explain [DEV:STREAM]]   --explain: one line per gap of the whole-trace
  window (or of that stream); IDLE_REF_DEBUG=1 adds the walk of each gap
"""
import bisect
import gzip
import json
import os
import sys
from decimal import Decimal

GPU_CATS = {"kernel", "gpu_memcpy", "gpu_memset", "Kernel", "Memcpy", "Memset"}
KERNEL_CATS = {"kernel", "Kernel"}
RUNTIME_CATS = {"cuda_runtime", "cuda_driver", "Runtime"}
WAIT_CALLS = {"cudaStreamWaitEvent", "hipStreamWaitEvent", "cuStreamWaitEvent"}
RECORD_CALLS = {"cudaEventRecord", "hipEventRecord", "cuEventRecord", "cudaEventRecordWithFlags",
                "hipEventRecordWithFlags", "cuEventRecordWithFlags"}

# parameters (libfsdpa/params.def defaults, as the contract names them)
SLOW_LAUNCH_NS = 1000000      # idle.slow_launch_ns
DISPATCH_MAX_NS = 20000       # idle.dispatch_max_ns
INFERRED_LAG_NS = 5000        # depgraph.inferred_lag_ns
DEBUG = os.environ.get("IDLE_REF_DEBUG") == "1"
WALK_DEPTH = 8                # "at most 8 deep"
LOOK_BACK = 64                # "at most 64 launches are looked back at"
WAKE_TOL_NS = 30000           # sync.block_wake_tolerance_ns
BLOCK_FAST_NS = 50000         # sync.block_launch_ns, sync.block_copy_ns
BLOCK_SLOW_NS = 1000000       # sync.block_alloc_ns, sync.block_other_ns

# "Blocking calls": the classes that block by name
BLOCK_BY_NAME = {
    # sync
    "cudaStreamSynchronize", "cudaEventSynchronize", "cudaDeviceSynchronize", "cuCtxSynchronize",
    "hipStreamSynchronize", "hipEventSynchronize", "hipDeviceSynchronize", "hipCtxSynchronize",
    # sync_copy
    "cudaMemcpy", "cudaMemcpy2D", "cudaMemset", "hipMemcpy", "hipMemset",
    # free (the synchronizing ones: the stream-ordered cudaFreeAsync / cuMemFreeAsync /
    # hipFreeAsync and cuMemRelease are of the alloc class, blocking only by behaviour)
    "cudaFree", "cudaFreeHost", "cuMemFree_v2", "hipFree", "hipFreeHost", "hipHostFree"}
# the behaviour classes with the 50 us threshold: kernel / graph launches and async copies
ASYNC_COPY = {"cudaMemcpyAsync", "cudaMemsetAsync", "cudaMemcpy2DAsync", "cuMemcpyAsync", "hipMemcpyAsync",
              "hipMemsetAsync", "hipMemcpyWithStream"}


def block_threshold(name):
    """None for a call blocking by name, else its class's threshold (alloc and other share 1 ms,
    launch and async_copy 50 us, so those two pairs need not be told apart)."""
    if name in BLOCK_BY_NAME:
        return None
    if name in ASYNC_COPY or (name.startswith("cuMemsetD") and name.endswith("Async")):
        return BLOCK_FAST_NS
    if "LaunchKernel" in name or "GraphLaunch" in name or name in ("cudaLaunch", "cuLaunch") \
            or name.startswith("cudaLaunchCooperativeKernel"):
        return BLOCK_FAST_NS
    return BLOCK_SLOW_NS


def ns(v):
    return int(Decimal(v) * 1000)


# "Communication" (name rule): the kernel's qualified function name, without `void `, template
# arguments and parameters
COMM_PREFIX = ("nccl", "rccl", "msccl")
COMM_QUALIFIED = ("mscclpp::", "deep_ep::intranode::", "deep_ep::internode::", "deep_ep::internode_ll::",
                  "nvshmem", "c10d::nvshmem_extension::", "c10d::symmetric_memory::",
                  "userbuffers_")
COMM_FUNCS = ("cross_device_reduce_1stage", "cross_device_reduce_2stage", "oneShotAllReduceKernel",
              "twoShotAllReduceKernel", "one_shot_all_reduce_kernel", "two_shot_all_reduce_kernel")


def qualified(name):
    s = name.strip()
    if s.startswith("void "):
        s = s[5:]
    out, depth = [], 0
    for ch in s:
        if ch == "<":
            depth += 1
        elif ch == ">":
            depth = max(0, depth - 1)
        elif ch == "(" and depth == 0:
            break
        elif depth == 0:
            out.append(ch)
    return "".join(out).strip()


# DeepEP's forks keep its kernels under their own top namespace (`<ns>::ep::internode::`, as
# DeepSeek's `dpsk::ep::internode::dispatch`)
EP_FORK = ("ep::intranode::", "ep::internode::", "ep::internode_ll::")


def is_comm(name):
    low = name.lower()
    if low.startswith(COMM_PREFIX):
        return True
    q = qualified(name)
    if "get_dispatch_layout" in q:
        return False
    base = q.rsplit("::", 1)[-1]
    return q.startswith(COMM_QUALIFIED) or base in COMM_FUNCS or "multimem_" in q \
        or any(("::" + f) in q for f in EP_FORK) \
        or base.startswith(("allreduce_prototype_", "allReduceFusionKernel", "allreduce_fusion_kernel"))


def as_int(v):
    if isinstance(v, bool):
        return None
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


class Op:
    __slots__ = ("ts", "end", "corr", "kernel", "comm", "name", "sk", "i", "L", "waits", "inf", "inf_done")

    def __repr__(self):
        return "Op(%s %s %d-%d)" % (self.sk, self.name[:30], self.ts, self.end)


class Call:
    __slots__ = ("ts", "end", "thr", "name", "corr", "blocking")


class Trace:
    def __init__(self, path):
        op = gzip.open if path.endswith(".gz") else open
        with op(path, "rb") as fh:
            doc = json.loads(fh.read(), parse_float=str)
        evs = doc.get("traceEvents", []) if isinstance(doc, dict) else doc
        self.streams = {}      # (device, stream) -> [Op] in stream order
        self.rt = {}           # correlation -> the first runtime call with it
        self.calls = {}        # CPU thread -> [Call] by start
        self.syncs = []        # cuda_sync waits: (waiting stream key, ts, end, wait_on_stream, record corr)
        self.sync_corrs = set()
        for e in evs:
            if not isinstance(e, dict) or e.get("ph") != "X" or "ts" not in e:
                continue
            cat = e.get("cat")
            args = e.get("args") or {}
            ts = ns(e["ts"])
            end = ts + max(0, ns(e.get("dur", 0)))
            corr = args.get("correlation")
            name = e.get("name", "")
            if cat in GPU_CATS:
                dev = as_int(e.get("pid"))
                st = as_int(e.get("tid"))
                if dev is None:
                    dev = args.get("device")
                if st is None:
                    st = args.get("stream")
                o = Op()
                o.ts, o.end, o.corr, o.name = ts, end, corr, name
                o.kernel = cat in KERNEL_CATS
                o.comm = o.kernel and is_comm(name)
                o.sk = (dev, st)
                o.L, o.waits, o.inf, o.inf_done = None, [], None, False
                self.streams.setdefault(o.sk, []).append(o)
            elif cat in RUNTIME_CATS:
                c = Call()
                c.ts, c.end, c.thr, c.name, c.corr = ts, end, (e.get("pid"), e.get("tid")), name, corr
                c.blocking = False
                if corr is not None:
                    self.rt.setdefault(corr, c)
                self.calls.setdefault(c.thr, []).append(c)
            elif cat == "cuda_sync":
                ws = args.get("wait_on_stream")
                ws = ws if isinstance(ws, int) and not isinstance(ws, bool) else -1
                if name == "Stream Wait Event" or ws >= 0:
                    own = args.get("stream")
                    own = own if isinstance(own, int) and not isinstance(own, bool) else as_int(e.get("tid"))
                    self.syncs.append(((as_int(e.get("pid")), own), ts, end, ws,
                                       args.get("wait_on_cuda_event_record_corr_id")))
                    if corr is not None:
                        self.sync_corrs.add(corr)
        for v in self.streams.values():
            v.sort(key=lambda o: (o.ts, o.end))
            for i, o in enumerate(v):
                o.i = i
                o.L = self.rt.get(o.corr) if o.corr is not None else None
        for v in self.calls.values():
            v.sort(key=lambda c: (c.ts, c.end))
        self.order = {sk: i for i, sk in enumerate(sorted(self.streams, key=str))}
        # per thread, every launch: (call start, stream order, op), one per linked op
        self.launches = {}
        for sk, v in self.streams.items():
            for o in v:
                if o.L is not None:
                    self.launches.setdefault(o.L.thr, []).append((o.L.ts, self.order[sk], o.i, o))
        for v in self.launches.values():
            v.sort(key=lambda x: x[:3])
        self.launch_ts = {thr: [x[0] for x in v] for thr, v in self.launches.items()}
        # per stream, its launched ops by launch start (for "the op whose launch started last before t")
        self.by_launch = {}
        for sk, v in self.streams.items():
            lv = sorted(((o.L.ts, o.i, o) for o in v if o.L is not None), key=lambda x: x[:2])
            self.by_launch[sk] = ([x[0] for x in lv], [x[2] for x in lv])
        # per device, every op by end (inferred edges, blocking candidates) and the device's busy union
        self.dev_ops = {}
        for sk, v in self.streams.items():
            self.dev_ops.setdefault(sk[0], []).extend(v)
        self.dev_ends = {}
        self.dev_busy = {}
        for d, v in self.dev_ops.items():
            v.sort(key=lambda o: (o.end, self.order[o.sk], o.i))
            self.dev_ends[d] = [o.end for o in v]
            self.dev_busy[d] = union([(o.ts, o.end) for o in v if o.end > o.ts])
        self.has_records = any(c.name in RECORD_CALLS for v in self.calls.values() for c in v)
        self.mark_blocking()
        self.blocked = {thr: [(c.ts, c.end) for c in v if c.blocking] for thr, v in self.calls.items()}
        self.build_waits()

    # ---- "Blocking calls" ------------------------------------------------------------------
    def last_launch_before(self, thr, t):
        """The thread's last launch (call start < t): (call start, order, idx, op) or None."""
        ts = self.launch_ts.get(thr)
        if not ts:
            return None
        j = bisect.bisect_left(ts, t) - 1
        return self.launches[thr][j] if j >= 0 else None

    def queued_on_stream(self, sk, t):
        """The last op queued on stream sk before t (launch call started before t)."""
        ts, ops = self.by_launch.get(sk, ([], []))
        j = bisect.bisect_left(ts, t) - 1
        return ops[j] if j >= 0 else None

    def queued_on_device(self, dev, t):
        """The latest-ending op queued on the device before t (READING: ops without a launch call
        in the trace are not known to be queued and are left out)."""
        best = None
        for sk in self.streams:
            if sk[0] != dev:
                continue
            ts, ops = self.by_launch[sk]
            j = bisect.bisect_left(ts, t)
            for o in ops[:j]:
                if best is None or o.end > best.end:
                    best = o
        return best

    def busy_in(self, dev, a, b):
        tot = 0
        for s, e in self.dev_busy.get(dev, ()):
            if e <= a:
                continue
            if s >= b:
                break
            tot += min(e, b) - max(s, a)
        return tot

    def mark_blocking(self):
        own = {}
        for v in self.streams.values():
            for o in v:
                if o.corr is not None:
                    own.setdefault(o.corr, []).append(o)
        for thr, v in self.calls.items():
            for c in v:
                th = block_threshold(c.name)
                if th is None:
                    c.blocking = True
                    continue
                if c.end - c.ts <= th:
                    continue
                mine = own.get(c.corr, []) if c.corr is not None and self.rt.get(c.corr) is c else []
                # READING: with several ops of its correlation (a graph launch) the own op is the
                # latest-ending one
                mo = max(mine, key=lambda o: (o.end, self.order[o.sk], o.i)) if mine else None
                if mo is not None:
                    sk = mo.sk
                else:
                    ll = self.last_launch_before(thr, c.ts)
                    sk = ll[3].sk if ll else None
                cands = []
                if mo is not None and not mo.kernel:
                    cands.append(mo)
                if sk is not None:
                    cands.append(self.queued_on_stream(sk, c.ts))
                    cands.append(self.queued_on_device(sk[0], c.ts))
                if mo is not None and mo.kernel:
                    cands.append(mo)
                for o in cands:
                    if o is None:
                        continue
                    if abs(o.end - c.end) > WAKE_TOL_NS:
                        continue
                    if o.end - c.ts < th or o.ts >= c.end:
                        continue
                    # condition (3) does not apply to a copy call's own copy / memset: it waited
                    # for it, however idle the device was meanwhile (the copy may sit queued
                    # behind work that waits on something else)
                    if o is mo and not mo.kernel:
                        c.blocking = True
                        break
                    hi = min(o.end, c.end)
                    busy = self.busy_in(o.sk[0], c.ts, hi)
                    if busy >= th and busy * 10 >= (hi - c.ts) * 9:
                        c.blocking = True
                        break

    # ---- "The dependency graph": event waits ---------------------------------------------
    def held_op(self, sk, w_ts, w_end):
        """The first op enqueued on the waiting stream after the wait call (enqueued = its launch
        call started).  READING: "after the wait call" = the launch call started at or after the
        wait call's start."""
        ts, ops = self.by_launch.get(sk, ([], []))
        j = bisect.bisect_left(ts, w_ts)
        return ops[j] if j < len(ops) else None

    def recording_stream(self, thr, t, dev, not_sk):
        """The stream of the thread's last launch before t onto another stream of the device
        (at most LOOK_BACK launch calls looked back at): (stream, that launch's op) or None."""
        ts = self.launch_ts.get(thr)
        if not ts:
            return None
        j = bisect.bisect_left(ts, t) - 1
        seen = 0
        last_call = None
        while j >= 0:
            o = self.launches[thr][j][3]
            if o.L is not last_call:
                seen += 1
                last_call = o.L
                if seen > LOOK_BACK:
                    return None
            if o.sk[0] == dev and o.sk != not_sk:
                return o.sk, o
            j -= 1
        return None

    def build_waits(self):
        self.stream_waits = {"cuda_sync": 0, "runtime": 0, "guessed": 0, "outside": 0}
        for (wsk, w_ts, w_end, ws, rc) in self.syncs:
            K = self.held_op(wsk, w_ts, w_end)
            rec = self.rt.get(rc) if rc is not None and rc != -1 else None
            if rec is None:
                self.stream_waits["outside"] += 1
                if K is not None:
                    K.waits.append(("outside", None))
                continue
            self.stream_waits["cuda_sync"] += 1
            if ws >= 0:
                ask = (wsk[0], ws)
            else:
                r = self.recording_stream(rec.thr, rec.ts, wsk[0], wsk)
                ask = r[0] if r else None
            A = self.queued_on_stream(ask, rec.ts) if ask is not None else None
            if K is not None and A is not None:
                K.waits.append(("cuda_sync", A))
        for thr, v in self.calls.items():
            recs = [c.ts for c in v if c.name in RECORD_CALLS]
            for c in v:
                if c.name not in WAIT_CALLS or (c.corr is not None and c.corr in self.sync_corrs):
                    continue
                # the waiting stream: the thread's next launch after the wait
                ts = self.launch_ts.get(thr, [])
                j = bisect.bisect_left(ts, c.ts)
                if j >= len(ts):
                    continue
                wsk = self.launches[thr][j][3].sk
                K = self.held_op(wsk, c.ts, c.end)
                if self.has_records:
                    k = bisect.bisect_left(recs, c.ts) - 1
                    if k < 0:
                        self.stream_waits["outside"] += 1
                        if K is not None:
                            K.waits.append(("outside", None))
                        continue
                    self.stream_waits["runtime"] += 1
                    r = self.recording_stream(thr, recs[k], wsk[0], wsk)
                    A = self.queued_on_stream(r[0], recs[k]) if r else None
                    if K is not None and A is not None:
                        K.waits.append(("runtime", A))
                else:
                    self.stream_waits["guessed"] += 1
                    r = self.recording_stream(thr, c.ts, wsk[0], wsk)
                    if K is not None:
                        # READING: the launch standing in for the record is the awaited op itself
                        K.waits.append(("guessed", r[1] if r else None))

    # ---- inferred edges --------------------------------------------------------------------
    def known_ready(self, K, raw=False):
        """When K's known dependencies were done: its launch call, the op before it on its stream,
        the ops its event waits name.  (r, the last dependency: None, "launch", "prev" or the
        wait tuple)."""
        r, last = None, None
        if K.L is not None:
            r, last = K.L.end, "launch"
        if K.i:
            p = self.streams[K.sk][K.i - 1]
            if r is None or p.end > r:
                r, last = p.end, "prev"
        for w in K.waits:
            # READING: an awaited op that ended with the launch call or the op before K is
            # the last dependency (a tie goes to the wait)
            if w[1] is not None and (raw or w[1].end <= K.ts) and (r is None or w[1].end >= r):
                r, last = w[1].end, w
        return r, last

    def inferred(self, K):
        """The inferred edge of K, or None."""
        if K.inf_done:
            return K.inf
        K.inf_done = True
        if K.L is None or K.L.end >= K.ts:
            return None   # READING: queued = its launch call ended strictly before it started
        r, _ = self.known_ready(K, raw=True)
        # READING: the known edges account for K's start when the last of them was done at most
        # depgraph.inferred_lag_ns before K started (an awaited op that ended after K started
        # counts here too: the trace names it, though it cannot have held K)
        if r is not None and K.ts - r <= INFERRED_LAG_NS:
            return None
        lo = K.ts - INFERRED_LAG_NS
        ends = self.dev_ends[K.sk[0]]
        ops = self.dev_ops[K.sk[0]]
        j = bisect.bisect_right(ends, K.ts) - 1
        while j >= 0 and ends[j] >= lo:
            o = ops[j]
            if o.sk != K.sk:
                K.inf = o
                return o
            j -= 1
        return None

    # ---- "The walk back" --------------------------------------------------------------------
    def host(self, K, a, b, out):
        """Rules 1 and 2 for K over [a, b): returns where K's queued time begins."""
        L = K.L
        pos = a
        pre = min(max(L.ts, a), b)
        if pre > pos:
            blk = self.blocked.get(L.thr, ())
            j = bisect.bisect_left(blk, (pos,)) - 1
            j = max(j, 0)
            while j < len(blk) and blk[j][0] < pre:
                s, e = max(blk[j][0], pos), min(blk[j][1], pre)
                if e > s:
                    out["host_not_launched_ns"] += s - pos
                    out["host_blocked_ns"] += e - s
                    pos = e
                j += 1
            out["host_not_launched_ns"] += pre - pos
            pos = pre
        ie = min(max(L.end, pos), b)
        if ie > pos:
            if L.end - L.ts >= SLOW_LAUNCH_NS or L.blocking:
                out["host_blocked_ns"] += ie - pos
            else:
                # "else as 1": the thread is inside L itself, no other blocking call
                out["host_not_launched_ns"] += ie - pos
            pos = ie
        return pos

    def walk(self, K, a, b, depth, out):
        """[a, b) of idle before op K started (b <= K.ts)."""
        if DEBUG:
            sys.stdout.write("  %swalk %s [%d, %d) L=%s waits=%s inf=%s\n" % (
                "  " * depth, K, a, b, (K.L.ts, K.L.end, K.L.name) if K.L else None,
                [(w[0], w[1]) for w in K.waits], self.inferred(K)))
        pos = a
        if K.L is not None:
            pos = self.host(K, a, b, out)
        if pos >= b:
            return
        # rule 3: the latest-ending op K depends on that ended after pos: an op it waits for, or
        # the op before it on its own stream (still running only when the walk came to K from
        # another stream's op, in a window that does not hold K's stream)
        # READING: an awaited op that ended after K started cannot have held it (the edge is
        # contradicted by the timing): it is left out, as if the wait named no op
        cands = [(w[1], w[0]) for w in K.waits if w[1] is not None and w[1].end <= K.ts]
        inf = self.inferred(K)
        if inf is not None:
            cands.append((inf, "inferred"))
        # READING: ties go to the awaited op (listed first), the op before K last
        if K.i:
            p = self.streams[K.sk][K.i - 1]
            if p.end <= K.ts:
                cands.append((p, "prev"))
        A, kind = None, None
        for o, k in cands:
            if o.end > pos and (A is None or o.end > A.end):
                A, kind = o, k
        if A is not None:
            e = min(A.end, b)
            # READING: inferred_ns counts the waits that rest on a guessed or inferred edge
            # themselves, not what the walk finds behind the awaited op
            soft = kind in ("guessed", "inferred")
            qa = pos
            if A.ts > pos:
                if depth < WALK_DEPTH:
                    qa = min(A.ts, e)
                    self.walk(A, pos, qa, depth + 1, out)
                # READING: past the depth limit, the rest until A ended is waiting for A
            c = "rank_wait_ns" if A.comm else "stream_wait_ns"
            out[c] += e - qa
            if soft:
                out["inferred_ns"] += e - qa
            pos = e
        if pos >= b:
            return
        # rule 4: the rest
        r, last = self.known_ready(K)
        if inf is not None and (r is None or inf.end >= r):
            r, last = inf.end, ("inferred", inf)
        # READING: "the rest [r, g1)" lasts |[r, g1) within [pos, b)|, and all of [pos, b) takes
        # its cause (r > pos only inside a walk, where A's stream predecessor ran until r)
        # READING: without any known dependency (no launch call, first on its stream, no wait)
        # the rest has no beginning and is never the device's latency
        if r is not None and b - max(pos, r) <= DISPATCH_MAX_NS:
            if isinstance(last, tuple) and last[1] is not None and last[1].sk != K.sk:
                out["stream_wait_ns"] += b - pos
                if last[0] in ("guessed", "inferred"):
                    out["inferred_ns"] += b - pos
            else:
                out["dispatch_ns"] += b - pos
        elif any(w[0] in ("outside", "guessed") for w in K.waits):
            out["stream_wait_ns"] += b - pos
            out["outside_trace_ns"] += b - pos
        elif K.comm:
            out["rank_wait_ns"] += b - pos
        else:
            out["unknown_ns"] += b - pos

    def attribute(self, keys, explain=False):
        ops = [o for sk in keys for o in self.streams[sk]]
        busy = union([(o.ts, o.end) for o in ops if o.end > o.ts])
        starts = {}
        for o in ops:
            if o.end > o.ts:
                starts.setdefault(o.ts, []).append(o)
        out = {"gaps": 0, "idle_ns": 0, "host_not_launched_ns": 0, "host_blocked_ns": 0, "stream_wait_ns": 0,
               "rank_wait_ns": 0, "dispatch_ns": 0, "unknown_ns": 0, "outside_trace_ns": 0, "inferred_ns": 0}
        for k in range(len(busy) - 1):
            g0, g1 = busy[k][1], busy[k + 1][0]
            out["gaps"] += 1
            out["idle_ns"] += g1 - g0
            K = None
            for o in sorted(starts[g1], key=lambda o: (self.order[o.sk], o.i)):
                # the one whose launch call started first; READING: ops without a launch call
                # come after those with one
                if K is None or (o.L is not None and (K.L is None or o.L.ts < K.L.ts)):
                    K = o
            before = dict(out) if explain else None
            self.walk(K, g0, g1, 0, out)
            if explain:
                d = {c: out[c] - before[c] for c in out if out[c] != before[c] and c not in ("gaps", "idle_ns")}
                if callable(explain):
                    explain(g0, g1, K, d)
                else:
                    sys.stdout.write("gap %d..%d (%d) %s: %s\n" % (g0, g1, g1 - g0, K, d))
        return out


def union(iv):
    iv = sorted(iv)
    out = []
    for s, e in iv:
        if out and s <= out[-1][1]:
            if e > out[-1][1]:
                out[-1][1] = e
        else:
            out.append([s, e])
    return out


def finish(res):
    res["pre_ns"] = res["host_not_launched_ns"] + res["host_blocked_ns"]
    parts = ("host_not_launched_ns", "host_blocked_ns", "stream_wait_ns", "rank_wait_ns", "dispatch_ns",
             "unknown_ns")
    assert sum(res[c] for c in parts) == res["idle_ns"], res
    return res


def main(argv):
    tr = Trace(argv[1])
    keys = sorted(tr.streams, key=str)
    if "--explain" in argv:
        i = argv.index("--explain")
        if i + 1 < len(argv):
            d, st = argv[i + 1].split(":")
            keys = [k for k in keys if str(k[0]) == d and str(k[1]) == st]
        tr.attribute(keys, explain=True)
        return
    res = finish(tr.attribute(keys))
    res["streams"] = {"%s:%s" % sk: finish(tr.attribute([sk])) for sk in keys}
    res["stream_waits"] = tr.stream_waits
    print(json.dumps(res, sort_keys=True))


if __name__ == "__main__":
    main(sys.argv)
