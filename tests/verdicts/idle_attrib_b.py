#!/usr/bin/env python3
"""Idle-by-cause attribution of the all-stream GPU idle of one Kineto trace.

Standard library only; written for the verdicts of param/resnet_kineto and
param/linear_kineto, independent of libfsdpa and of facts.py (a second,
separately written reading of the raw JSON).  Named idle_attrib.py in the
version that added it; renamed idle_attrib_b.py at the merge (idle_attrib.py
next to it is version A's front end of facts.IdleAttrib, other rules).  Its
counterpart in facts.py is the calc `idle_cause_b` (windows {"iterations_b": ...}).

    python3 idle_attrib_b.py TRACE [--json] [--top N]

Exact integer nanoseconds: the JSON is parsed with parse_float=Decimal and
ns = us * 1000 (every time of these traces has at most 3 decimals; a value
with more is rejected, not rounded).

THE RULES (every ns of idle gets exactly one cause; the causes sum exactly to
the idle of the window, which the script asserts)

GPU activity = X events of cat kernel / gpu_memcpy / gpu_memset (legacy
Kernel / Memcpy / Memset).  busy = |union of [ts, ts+dur)| (zero-length ops
add nothing); a GAP is the time between two consecutive busy intervals; idle
of a window W = sum of |gap ∩ W|.  Windows:
  whole   = the GPU span (first GPU start .. last GPU end);
  warmup  = the first iteration;  steady = second iteration start .. last
            iteration end (both clipped to the GPU span).
Iterations (the rule of the report contract when a trace has no
ProfilerStep, which is the case here): ProfilerStep#N ranges if any; else
Optimizer.step#<name> annotations of the first optimizer name seen: an
iteration ends where its optimizer step ends and starts where the previous
one ended; the first starts at the first CPU event (cpu_op, user_annotation,
runtime call) of that thread.

For each gap [a, b): the closing op K = among the GPU ops (dur > 0) that
start at b and have a launch call (cuda_runtime / cuda_driver event with the
same args.correlation), the one whose launch call started first (ties: lower
correlation).  No such op -> the whole gap is (f) undecidable, what = "closing
op has no launch call".  L = [tL, tE) = K's launch call, T = L's thread.
The gap is cut into three parts, each clipped to the window:

 P1 = [a, min(tL, b)): K was not launched yet.  P1 is cut further by what T
      was doing: the INNERMOST traced CPU event of T covering each instant
      (cpu_op, user_annotation, python_function, cuda_runtime, cuda_driver;
      innermost = latest start, ties: earliest end, then file order).
      - inside the warm-up iteration (whole-span breakdown only: the steady
        breakdown never contains it) ..................... (e) first_use,
        what = the mechanism it would otherwise get, prefixed "warmup:";
      - innermost is a runtime call that is a first-use call (cudaMalloc,
        cudaHostAlloc / cudaMallocHost, cudaStreamCreate*, cudaGetDevice-
        Properties, or the first launch of a kernel name lasting >= 1 ms:
        module load) ...................................... (e) first_use;
      - innermost is a runtime call that blocks the host (cuda*Synchronize,
        cudaMemcpy / cudaMemset (synchronous), cudaFree / cudaFreeHost, a
        cudaMemcpyAsync / cudaMemsetAsync lasting >= 50 us, any other
        runtime call lasting >= 1 ms) ..................... (b) host_blocked,
        what = the call (a cudaMemcpyAsync is named with its own op's copy
        kind, e.g. "cudaMemcpyAsync [Memcpy HtoD (Pageable -> Device)]");
      - otherwise ............................................ (a) host_not_launched,
        what = the innermost op's name (a short runtime call: its name;
        "(no traced event on thread T)" when T is inside no traced event:
        Python code between ops, as the trace has no python_function
        events; the report adds, for this untraced time, the event of T that
        ended last before it: what the untraced code came after); the
        DataLoader is named through any enclosing
        enumerate(DataLoader)#... annotation: what = that annotation when it
        is the innermost event, "<annotation> > <op>" when an op inside it is.
 P2 = [max(a, tL), min(tE, b)): K's launch call is still running.
      - warm-up iteration (whole span) ......................... (e) first_use;
      - L is K's kernel name's first launch and lasts >= 1 ms .. (e) first_use;
      - L is cudaMemcpyAsync / cudaMemsetAsync / cudaMemcpy / cudaMemset and
        lasts >= 50 us, or L lasts >= 1 ms ..................... (b) host_blocked
        (a pageable copy: the call holds the thread until the DMA has
        staged the data);
      - otherwise ............................................. (a) host_not_launched,
        what = "launch call <name>" (the launch's own CPU cost).
 P3 = [max(a, tE), b): K was queued and had not started.
      - a cudaStreamWaitEvent call of T (or a cuda_sync "Stream Wait Event"
        whose correlation's runtime call is on T) that started after the start
        of T's previous launch (latest runtime call of T with a GPU op, started
        before tL) and at or before tL .......................... (c) stream_wait
        (none exists in these two traces);
      - K is a communication kernel (nccl/rccl...) ........... (d) rank_wait;
      - otherwise ............................................. (f) undecidable,
        what = "queued, not started": the trace holds no stream-wait, event
        or cross-rank evidence, so GPU-side dispatch latency cannot be told
        from an unrecorded dependency (warm-up iteration, whole span: (e)).

Causes: host_not_launched (a), host_blocked (b), stream_wait (c), rank_wait
(d), first_use (e), undecidable (f).  ppm = floor(1e6 * ns / idle of window).
"""
import bisect
import decimal
import gzip
import json
import re
import sys

D = decimal.Decimal
GPU_CATS = {"kernel", "gpu_memcpy", "gpu_memset", "Kernel", "Memcpy", "Memset"}
RT_CATS = {"cuda_runtime", "cuda_driver", "Runtime"}
CPU_CATS = {"cpu_op", "user_annotation", "python_function", "Operator"} | RT_CATS
SYNC_CALLS = re.compile(r"^(cuda|hip)(Stream|Event|Device|Ctx)Synchronize$|^cuCtxSynchronize$")
SYNC_COPY = {"cudaMemcpy", "cudaMemset", "cudaMemcpy2D", "hipMemcpy", "hipMemset"}
ASYNC_COPY = {"cudaMemcpyAsync", "cudaMemsetAsync", "cudaMemcpy2DAsync", "hipMemcpyAsync",
              "hipMemsetAsync", "hipMemcpyWithStream"}
FREE_CALLS = {"cudaFree", "cudaFreeHost", "hipFree", "hipHostFree", "cuMemFree_v2"}
FIRST_USE_CALLS = re.compile(r"^(cudaMalloc|cudaHostAlloc|cudaMallocHost|cudaStreamCreate\w*|"
                             r"cudaGetDeviceProperties|hipMalloc|hipHostMalloc|hipStreamCreate\w*)$")
LAUNCH_NAMES = re.compile(r"^(cudaLaunchKernel|cudaLaunchKernelExC|cuLaunchKernel|hipLaunchKernel|"
                          r"hipExtLaunchKernel|cudaLaunchCooperativeKernel)$")
COMM = re.compile(r"^(nccl|rccl|msccl)|ncclkernel|nccldevkernel", re.I)
DL = re.compile(r"^enumerate\(DataLoader\)")
STEP_RE = re.compile(r"^ProfilerStep#\d+$")
ASYNC_COPY_BLOCK_NS = 50000
SLOW_CALL_NS = 1000000
CAUSES = ["host_not_launched", "host_blocked", "stream_wait", "rank_wait", "first_use", "undecidable"]


def ns(v):
    x = D(v) * 1000
    if x != x.to_integral_value():
        raise ValueError("time with more than 3 decimals: %r" % (v,))
    return int(x)


def union(iv):
    out = []
    for a, b in sorted((a, b) for a, b in iv if b > a):
        if out and a <= out[-1][1]:
            out[-1][1] = max(out[-1][1], b)
        else:
            out.append([a, b])
    return out


class Trace:
    def __init__(self, path):
        op = gzip.open if path.endswith(".gz") else open
        with op(path, "rb") as f:
            data = json.loads(f.read(), parse_float=D)
        evs = data["traceEvents"] if isinstance(data, dict) else data
        self.X = []
        for i, e in enumerate(evs):
            if isinstance(e, dict) and e.get("ph") == "X" and "ts" in e:
                e["_s"] = ns(e["ts"])
                e["_e"] = e["_s"] + ns(e.get("dur") or 0)
                e["_i"] = i
                self.X.append(e)
        self.gpu = [e for e in self.X if e.get("cat") in GPU_CATS]
        self.rt = [e for e in self.X if e.get("cat") in RT_CATS]
        self.corr = {}
        for e in self.rt:
            c = (e.get("args") or {}).get("correlation")
            if c is not None and c not in self.corr:
                self.corr[c] = e
        self.op_of_corr = {}
        for e in self.gpu:
            c = (e.get("args") or {}).get("correlation")
            if c is not None and c not in self.op_of_corr:
                self.op_of_corr[c] = e
        self.busy = union([(e["_s"], e["_e"]) for e in self.gpu])
        self.gaps = [(self.busy[i][1], self.busy[i + 1][0]) for i in range(len(self.busy) - 1)]
        self.starts = {}
        for e in self.gpu:
            if e["_e"] > e["_s"]:
                self.starts.setdefault(e["_s"], []).append(e)
        # first launch of each kernel name (launch call with the earliest start)
        first = {}
        for e in self.gpu:
            if e.get("cat") not in ("kernel", "Kernel"):
                continue
            l = self.corr.get((e.get("args") or {}).get("correlation"))
            if l is None:
                continue
            n = e.get("name")
            if n not in first or (l["_s"], l["_i"]) < (first[n]["_s"], first[n]["_i"]):
                first[n] = l
        self.first_launch_ids = {id(l) for l in first.values()}
        # per-thread CPU events, for the innermost-event timeline
        self.cpu = {}
        for e in self.X:
            if e.get("cat") in CPU_CATS:
                self.cpu.setdefault((e.get("pid"), e.get("tid")), []).append(e)
        self._tl = {}
        # stream waits: cudaStreamWaitEvent calls (their thread), and cuda_sync
        # "Stream Wait Event" records (the thread of the runtime call with
        # their correlation; start = that call's start)
        self.waits = []
        for e in self.rt:
            if e.get("name") in ("cudaStreamWaitEvent", "hipStreamWaitEvent"):
                self.waits.append({"_th": (e.get("pid"), e.get("tid")), "_s": e["_s"]})
        for e in self.X:
            if e.get("cat") == "cuda_sync" and e.get("name") == "Stream Wait Event":
                l = self.corr.get((e.get("args") or {}).get("correlation"))
                if l is not None:
                    self.waits.append({"_th": (l.get("pid"), l.get("tid")), "_s": l["_s"]})
        self.launch_calls = {}
        for c, l in self.corr.items():
            if c in self.op_of_corr:
                self.launch_calls.setdefault((l.get("pid"), l.get("tid")), []).append(l)
        self.iters = self.iterations()

    # -------------------------------------------------------------- iterations
    def iterations(self):
        st = sorted([e for e in self.X if STEP_RE.match(str(e.get("name", "")))
                     and e.get("cat") in ("user_annotation", "cpu_op", "Operator")], key=lambda e: e["_s"])
        if st:
            return "ProfilerStep", [(e["_s"], e["_e"]) for e in st]
        opt = sorted([e for e in self.X if e.get("cat") in ("user_annotation", "Operator", "cpu_op")
                      and str(e.get("name", "")).startswith("Optimizer.step#")], key=lambda e: (e["_s"], e["_i"]))
        if not opt:
            return "none", []
        name = opt[0]["name"]
        opt = [e for e in opt if e["name"] == name]
        th = (opt[0].get("pid"), opt[0].get("tid"))
        first_cpu = min(e["_s"] for e in self.cpu[th])
        out, prev = [], first_cpu
        for e in opt:
            out.append((prev, e["_e"]))
            prev = e["_e"]
        return "optimizer_step", out

    # -------------------------------------------------------------- CPU timeline
    def timeline(self, th):
        """Piecewise innermost event of thread th: sorted list of (x, y, event)."""
        if th in self._tl:
            return self._tl[th]
        evs = sorted(self.cpu.get(th, []), key=lambda e: (e["_s"], -e["_e"], e["_i"]))
        pts = sorted({e["_s"] for e in evs} | {e["_e"] for e in evs})
        segs = []
        # sweep over the elementary intervals: the innermost covering event is
        # the one with the latest start (ties: earliest end, then file order);
        # a heap keyed that way, ended events dropped lazily when on top
        import heapq
        active = []
        j = 0
        for k in range(len(pts) - 1):
            x, y = pts[k], pts[k + 1]
            while j < len(evs) and evs[j]["_s"] <= x:
                e = evs[j]
                heapq.heappush(active, (-e["_s"], e["_e"], e["_i"], e))
                j += 1
            while active and active[0][1] <= x:
                heapq.heappop(active)
            segs.append((x, y, active[0][3] if active else None))
        # merge equal neighbours
        out = []
        for s in segs:
            if out and out[-1][2] is s[2] and out[-1][1] == s[0]:
                out[-1] = (out[-1][0], s[1], s[2])
            else:
                out.append(s)
        self._tl[th] = out
        self._tl[(th, "x")] = [s[0] for s in out]
        return out

    def enclosing_dl(self, th, t):
        """The enumerate(DataLoader)#... annotation of thread th containing t (or None)."""
        key = (th, "dl")
        if key not in self._tl:
            dl = sorted([e for e in self.cpu.get(th, []) if e.get("cat") in ("user_annotation", "Operator")
                         and DL.match(str(e.get("name", "")))], key=lambda e: e["_s"])
            self._tl[key] = (dl, [e["_s"] for e in dl])
        dl, xs = self._tl[key]
        i = bisect.bisect_right(xs, t) - 1
        while i >= 0:
            if dl[i]["_s"] <= t < dl[i]["_e"]:
                return dl[i]
            i -= 1
            if i >= 0 and dl[i]["_e"] <= t and i < len(dl) - 1:
                break
        return None

    def last_ended(self, th, t):
        """The event of thread th that ended last at or before t (ties: the
        earliest start, i.e. the outermost)."""
        key = (th, "ends")
        if key not in self._tl:
            evs = sorted(self.cpu.get(th, []), key=lambda e: (e["_e"], -e["_s"], -e["_i"]))
            self._tl[key] = (evs, [e["_e"] for e in evs])
        evs, ends = self._tl[key]
        i = bisect.bisect_right(ends, t) - 1
        if i < 0:
            return None
        j = i
        while j > 0 and ends[j - 1] == ends[i]:
            j -= 1
        return min(evs[j:i + 1], key=lambda e: (e["_s"], e["_i"]))

    def pieces(self, th, a, b):
        """Yield (x, y, innermost event or None) covering [a, b) on thread th."""
        if b <= a:
            return
        tl = self.timeline(th)
        xs = self._tl[(th, "x")]
        i = max(0, bisect.bisect_right(xs, a) - 1)
        cur = a
        while cur < b:
            if i < len(tl) and tl[i][0] <= cur < tl[i][1]:
                y = min(b, tl[i][1])
                yield cur, y, tl[i][2]
                cur = y
                i += 1
            elif i < len(tl) and tl[i][0] > cur:
                y = min(b, tl[i][0])
                yield cur, y, None
                cur = y
            elif i < len(tl) and tl[i][1] <= cur:
                i += 1
            else:
                yield cur, b, None
                cur = b


def copy_name(t, call):
    op = t.op_of_corr.get((call.get("args") or {}).get("correlation"))
    return "%s [%s]" % (call["name"], op["name"]) if op is not None else call["name"]


def classify_call(t, e, warm):
    """Cause of time spent with the thread inside runtime call e (not K's launch)."""
    n = e.get("name", "")
    d = e["_e"] - e["_s"]
    if warm:
        return "first_use", "warmup: " + n
    if FIRST_USE_CALLS.match(n) or (LAUNCH_NAMES.match(n) and id(e) in t.first_launch_ids and d >= SLOW_CALL_NS):
        return "first_use", n
    if SYNC_CALLS.match(n) or n in SYNC_COPY or n in FREE_CALLS:
        return "host_blocked", n
    if n in ASYNC_COPY and d >= ASYNC_COPY_BLOCK_NS:
        return "host_blocked", copy_name(t, e)
    if d >= SLOW_CALL_NS:
        return "host_blocked", n
    return "host_not_launched", n


def attribute(t, win_lo, win_hi, warm_rng, untraced_after=None):
    """Return {(cause, what): ns} over the idle inside [win_lo, win_hi).
    With untraced_after (a dict), also add there, for the host_not_launched
    time when the launching thread was inside no traced event, the ns by the
    name of the event of that thread that ended last before it (the
    outermost on equal ends): what the untraced Python code came after."""
    out = {}
    if untraced_after is None:
        untraced_after = {}

    def add(c, w, x, y):
        x, y = max(x, win_lo), min(y, win_hi)
        if y > x:
            out[(c, w)] = out.get((c, w), 0) + (y - x)

    def in_warm(x):
        return warm_rng is not None and warm_rng[0] <= x < warm_rng[1]

    for a, b in t.gaps:
        if b <= win_lo or a >= win_hi:
            continue
        cands = []
        for k in t.starts.get(b, []):
            l = t.corr.get((k.get("args") or {}).get("correlation"))
            if l is not None:
                cands.append((l["_s"], (k.get("args") or {}).get("correlation"), id(k), k, l))
        if not cands:
            add("undecidable", "closing op has no launch call", a, b)
            continue
        cands.sort(key=lambda c: (c[0], c[1] if isinstance(c[1], int) else 0, c[2]))
        _, _, _, K, L = cands[0]
        tL, tE = L["_s"], L["_e"]
        th = (L.get("pid"), L.get("tid"))
        # P1
        for x, y, e in t.pieces(th, a, min(tL, b)):
            # split at the warm-up boundary so each piece is on one side
            cuts = [x, y]
            if warm_rng is not None:
                for c in warm_rng:
                    if x < c < y:
                        cuts.insert(-1, c)
            for x2, y2 in zip(cuts, cuts[1:]):
                warm = in_warm(x2)
                if e is not None and e.get("cat") in RT_CATS:
                    c, w = classify_call(t, e, warm)
                    if c == "host_not_launched":
                        dl = t.enclosing_dl(th, x2)
                        w = "%s > %s" % (dl["name"], w) if dl is not None else w
                    add(c, w, x2, y2)
                    continue
                if e is None:
                    w = "(no traced event on thread %s)" % (th[1],)
                    if not warm:
                        pe = t.last_ended(th, x2)
                        k = pe["name"] if pe is not None else "(nothing)"
                        untraced_after[k] = untraced_after.get(k, 0) + max(0, min(y2, win_hi) - max(x2, win_lo))
                elif DL.match(str(e.get("name", ""))):
                    w = e["name"]
                else:
                    dl = t.enclosing_dl(th, x2)
                    w = "%s > %s" % (dl["name"], e["name"]) if dl is not None else e["name"]
                add("first_use" if warm else "host_not_launched", ("warmup: " + w) if warm else w, x2, y2)
        # P2
        p2a, p2b = max(a, tL), min(tE, b)
        if p2b > p2a:
            d = tE - tL
            n = L.get("name", "")
            cuts = [p2a, p2b]
            if warm_rng is not None:
                for c in warm_rng:
                    if p2a < c < p2b:
                        cuts.insert(-1, c)
            for x2, y2 in zip(cuts, cuts[1:]):
                if in_warm(x2):
                    add("first_use", "warmup: launch call " + n, x2, y2)
                elif id(L) in t.first_launch_ids and d >= SLOW_CALL_NS:
                    add("first_use", "first launch (module load) " + n, x2, y2)
                elif ((n in ASYNC_COPY or n in SYNC_COPY) and d >= ASYNC_COPY_BLOCK_NS) or d >= SLOW_CALL_NS:
                    add("host_blocked", copy_name(t, L), x2, y2)
                else:
                    add("host_not_launched", "launch call " + n, x2, y2)
        # P3
        p3a = max(a, tE)
        if b > p3a:
            # T's previous launch: the latest runtime call of T that has a GPU
            # op (same correlation) and started before tL
            waited = []
            if t.waits:
                prev = [l["_s"] for l in t.launch_calls.get(th, []) if l["_s"] < tL]
                p0 = max(prev) if prev else None
                waited = [w for w in t.waits if w["_th"] == th and w["_s"] <= tL and (p0 is None or w["_s"] > p0)]
            cuts = [p3a, b]
            if warm_rng is not None:
                for c in warm_rng:
                    if p3a < c < b:
                        cuts.insert(-1, c)
            for x2, y2 in zip(cuts, cuts[1:]):
                if in_warm(x2):
                    add("first_use", "warmup: queued, not started", x2, y2)
                elif waited:
                    add("stream_wait", "stream wait", x2, y2)
                elif COMM.search(K.get("name", "")):
                    add("rank_wait", K["name"], x2, y2)
                else:
                    add("undecidable", "queued, not started (no stream-wait/event evidence)", x2, y2)
    return out


def idle_in(t, lo, hi):
    tot = 0
    for a, b in t.gaps:
        x, y = max(a, lo), min(b, hi)
        if y > x:
            tot += y - x
    return tot


def report(path, top=12):
    t = Trace(path)
    src, its = t.iters
    g_lo, g_hi = t.busy[0][0], t.busy[-1][1]
    warm = its[0] if len(its) >= 2 else None
    wins = {"whole": (g_lo, g_hi, warm)}
    if len(its) >= 2:
        wins["warmup"] = (max(g_lo, its[0][0]), min(g_hi, its[0][1]), warm)
        wins["steady"] = (max(g_lo, its[1][0]), min(g_hi, its[-1][1]), None)
    res = {"trace": path, "iterations_from": src, "iterations": len(its),
           "gpu_span_ns": g_hi - g_lo, "stream_wait_evidence": len(t.waits), "windows": {}}
    for wname, (lo, hi, wr) in wins.items():
        ua = {}
        parts = attribute(t, lo, hi, wr, ua)
        idle = idle_in(t, lo, hi)
        tot = sum(parts.values())
        assert tot == idle, (wname, tot, idle)
        by = {c: 0 for c in CAUSES}
        for (c, w), v in parts.items():
            by[c] += v
        res["windows"][wname] = {
            "range_ns": [lo, hi], "window_ns": hi - lo, "idle_ns": idle,
            "by_cause_ns": by,
            "by_cause_ppm": {c: (v * 1000000 // idle if idle else None) for c, v in by.items()},
            "top": [{"cause": c, "what": w, "ns": v, "ppm": v * 1000000 // idle}
                    for (c, w), v in sorted(parts.items(), key=lambda kv: (-kv[1], kv[0]))[:top]],
            "untraced_after": [{"after": k, "ns": v} for k, v in
                               sorted(ua.items(), key=lambda kv: (-kv[1], kv[0]))[:top] if v],
        }
    return res


def main(argv):
    if not argv:
        print(__doc__)
        return 2
    top = 12
    if "--top" in argv:
        i = argv.index("--top")
        top = int(argv[i + 1])
        del argv[i:i + 2]
    as_json = "--json" in argv
    argv = [a for a in argv if a != "--json"]
    for p in argv:
        r = report(p, top)
        if as_json:
            print(json.dumps(r, indent=1))
            continue
        print("== %s  (iterations: %s, %d; GPU span %d ns; stream-wait evidence: %d)"
              % (p, r["iterations_from"], r["iterations"], r["gpu_span_ns"], r["stream_wait_evidence"]))
        for wn, w in r["windows"].items():
            print("  [%s] window %d ns, idle %d ns" % (wn, w["window_ns"], w["idle_ns"]))
            for c in CAUSES:
                print("     %-18s %14d ns %8s ppm" % (c, w["by_cause_ns"][c], w["by_cause_ppm"][c]))
            for x in w["top"]:
                print("       %-17s %12d ns %7d ppm  %s" % (x["cause"], x["ns"], x["ppm"], x["what"]))
            if w["untraced_after"]:
                print("     untraced launching-thread time, by the event it came after:")
                for x in w["untraced_after"]:
                    print("       %12d ns  after %s" % (x["ns"], x["after"]))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
