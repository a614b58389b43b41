#!/usr/bin/env python3
"""Recompute every fact of every verdict file from the raw traces.

Independent of libfsdpa: Python standard library only, no import of the
library, its bindings or its tools.  Usage:

    python3 tests/verdicts/facts.py [--traces DIR] [--verdicts DIR] [-v]
    python3 tests/verdicts/facts.py --eval TRACE 'CALC-JSON'   # explore one calc

DIR defaults: traces = ../shared/traces relative to the repository root
(this file is tests/verdicts/facts.py), or $FSDPA_TRACES; verdicts = the
folder of this file.  Exit status 0 when every stored value is reproduced,
1 when one differs or cannot be computed, 2 on bad usage or a missing trace.
One line per verdict file is printed.

Time conversion (exact, no floats): the JSON is parsed with
parse_float=decimal.Decimal and integers stay int, so `ts` / `dur` keep the
digits written in the file.  Kineto writes microseconds; ns = value * 1000.
Every trace of the corpus has at most 3 decimals, so this product is an exact
integer; a value with more decimals would be rounded half-to-even to an
integer ns and counted in the `inexact_times` of the trace (printed with -v).
Durations are the event's own `dur` (absent = 0), ends are start + dur, so
all interval arithmetic is on exact integers.

Tolerance: every fact is compared exactly (counts, integer-ns sums, ppm
ratios computed with integer floor division from exact ns, lists and
strings).  Each fact stores "tolerance": "exact"; a fact may instead carry
{"abs": N} to allow |diff| <= N (none does today).

A fact's "calc" object says what to compute; the functions are documented
in CALCS below and in tests/verdicts/README.md.

Added (additively, for the deepseek/, sglang, negative_queue_length and
ddp_resnet18 verdicts -- "version A"): the calcs `idle_cause` (the
idle-by-cause split of idle_attrib.py, engine = class IdleAttrib below),
`iterations`, `overlap_re`, `self_time` and the window
{"iterations": "all"|"after_first"|"first"|[i, ...]} (IdleAttrib's
iterations: ProfilerStep, else engine-step annotations, else Optimizer.step#).

Added (additively, for the param/ verdicts -- "version B"): the window
{"iterations_b": "all"|"after_first"|"first"|[i, ...]} (the report contract's
iterations: ProfilerStep, else Optimizer.step#), the calc `iterations_b`
(source / count / durs / bounds) and the calc `idle_cause_b` (the idle-by-cause
attribution of idle_attrib_b.py, a second implementation of its rules).
Version B named these `iterations`, `idle_cause` and {"iterations": ...};
they were renamed when both versions were merged because version A's calcs
of the same names follow different rules (A's iterations also accept
engine-step annotations; A's idle_cause has other causes and rules).
"""
import bisect
import decimal
import gzip
import json
import os
import re
import sys

D = decimal.Decimal

GPU_CATS = {"kernel", "gpu_memcpy", "gpu_memset", "Kernel", "Memcpy", "Memset"}
KERNEL_CATS = {"kernel", "Kernel"}
RT_CATS = {"cuda_runtime", "cuda_driver", "Runtime"}
CPU_CATS = {"cpu_op", "user_annotation", "python_function", "Operator",
            "cuda_runtime", "cuda_driver", "Runtime", "overhead"}
STEP_RE = re.compile(r"ProfilerStep#\d+$")


def is_comm(name):
    low = name.lower()
    return (low.startswith("nccl") or low.startswith("rccl") or low.startswith("msccl")
            or "ncclkernel" in low or "nccldevkernel" in low)


# ---------------------------------------------------------------- intervals
def union(iv):
    iv = sorted((a, b) for a, b in iv if b > a)
    out = []
    for a, b in iv:
        if out and a <= out[-1][1]:
            if b > out[-1][1]:
                out[-1][1] = b
        else:
            out.append([a, b])
    return out


def ulen(u):
    return sum(b - a for a, b in u)


def inter(u, v):
    i = j = 0
    out = []
    while i < len(u) and j < len(v):
        a = max(u[i][0], v[j][0])
        b = min(u[i][1], v[j][1])
        if a < b:
            out.append([a, b])
        if u[i][1] < v[j][1]:
            i += 1
        else:
            j += 1
    return out


def minus(u, v):
    """u minus v (both unions)."""
    out = []
    j = 0
    for a, b in u:
        cur = a
        while j < len(v) and v[j][1] <= cur:
            j += 1
        k = j
        while k < len(v) and v[k][0] < b:
            if v[k][0] > cur:
                out.append([cur, v[k][0]])
            cur = max(cur, v[k][1])
            k += 1
        if cur < b:
            out.append([cur, b])
    return out


# ---------------------------------------------------------------- loading
class Trace:
    def __init__(self, path):
        self.path = path
        self.inexact = 0
        opener = gzip.open if path.endswith(".gz") else open
        with opener(path, "rb") as f:
            data = json.loads(f.read(), parse_float=D)
        if isinstance(data, dict):
            self.top = data
            evs = data.get("traceEvents")
        else:
            self.top = {}
            evs = data
        if not isinstance(evs, list):
            raise ValueError("no traceEvents list: not a Kineto/Chrome trace")
        self.events = evs
        self.X = []
        for e in evs:
            if not isinstance(e, dict):
                continue
            if e.get("ph") == "X" and "ts" in e:
                s = self.ns(e["ts"])
                e["_s"] = s
                e["_e"] = s + self.ns(e.get("dur") or 0)
                self.X.append(e)
            elif e.get("ph") == "i" and "ts" in e:
                e["_s"] = self.ns(e["ts"])
        self.gpu = [e for e in self.X if e.get("cat") in GPU_CATS]
        self.rt = [e for e in self.X if e.get("cat") in RT_CATS]
        self.corr = {}
        for e in self.rt:
            c = (e.get("args") or {}).get("correlation")
            if c is not None and c not in self.corr:
                self.corr[c] = e
        counts = {}
        for e in self.rt:
            k = (e.get("pid"), e.get("tid"))
            counts[k] = counts.get(k, 0) + 1
        # main thread = the thread with the most runtime calls (ties: smallest key repr)
        self.main = (sorted(counts.items(), key=lambda kv: (-kv[1], repr(kv[0])))[0][0]
                     if counts else None)
        self._cache = {}

    def ns(self, v):
        if isinstance(v, bool):
            raise ValueError("bool time")
        if isinstance(v, int):
            return v * 1000
        if isinstance(v, str):
            v = D(v)
        x = D(v) * 1000
        if x != x.to_integral_value():
            self.inexact += 1
        return int(x.to_integral_value(rounding=decimal.ROUND_HALF_EVEN))

    # GPU activity ---------------------------------------------------------
    def gpu_union(self, streams=None, kind="all"):
        key = ("gu", repr(streams), kind)
        if key not in self._cache:
            sel = self.gpu
            if kind == "comm":
                sel = [e for e in sel if e.get("cat") in KERNEL_CATS and is_comm(e.get("name", ""))]
            elif kind == "compute":
                sel = [e for e in sel if e.get("cat") in KERNEL_CATS and not is_comm(e.get("name", ""))]
            elif kind == "kernel":
                sel = [e for e in sel if e.get("cat") in KERNEL_CATS]
            if streams is not None:
                ss = {tuple(s) for s in streams}
                sel = [e for e in sel if (e.get("pid"), e.get("tid")) in ss]
            self._cache[key] = union([(e["_s"], e["_e"]) for e in sel])
        return self._cache[key]

    def gpu_window(self):
        u = self.gpu_union()
        if not u:
            return None
        return [[u[0][0], u[-1][1]]]

    def gaps(self):
        """GPU gaps over all streams: (start, end) between busy intervals."""
        if "gaps" not in self._cache:
            u = self.gpu_union()
            self._cache["gaps"] = [[u[i][1], u[i + 1][0]] for i in range(len(u) - 1)]
        return self._cache["gaps"]

    def starts_at(self):
        if "starts" not in self._cache:
            m = {}
            for e in self.gpu:
                if e["_e"] > e["_s"]:
                    m.setdefault(e["_s"], []).append(e)
            self._cache["starts"] = m
        return self._cache["starts"]

    def gap_category(self, g, kernel_wait_ns=30000):
        a, b = g
        closing = self.starts_at().get(b, [])
        launches = [self.corr.get((x.get("args") or {}).get("correlation")) for x in closing]
        if closing and all(l is not None for l in launches):
            if all(l["_s"] > a for l in launches):
                return "host_wait"
        return "kernel_wait" if b - a < kernel_wait_ns else "other"

    # steps ----------------------------------------------------------------
    def steps(self):
        if "steps" not in self._cache:
            st = [e for e in self.X if STEP_RE.match(str(e.get("name", "")))
                  and e.get("cat") in ("user_annotation", "cpu_op", "Operator")]
            st.sort(key=lambda e: e["_s"])
            self._cache["steps"] = st
        return self._cache["steps"]


# ---------------------------------------------------------------- filters
def match(t, e, flt):
    if not flt:
        return True
    if "ph" in flt and e.get("ph") != flt["ph"]:
        return False
    if "cat" in flt:
        cats = flt["cat"] if isinstance(flt["cat"], list) else [flt["cat"]]
        if e.get("cat") not in cats:
            return False
    name = str(e.get("name", ""))
    if "name" in flt and name != flt["name"]:
        return False
    if "name_re" in flt and not re.search(flt["name_re"], name):
        return False
    if flt.get("comm") is True and not is_comm(name):
        return False
    if flt.get("comm") is False and is_comm(name):
        return False
    if "thread" in flt:
        th = flt["thread"]
        key = (e.get("pid"), e.get("tid"))
        if th == "main":
            if key != t.main:
                return False
        elif th == "not_main":
            if key == t.main:
                return False
        elif key != tuple(th):
            return False
    if "stream" in flt and (e.get("pid"), e.get("tid")) != tuple(flt["stream"]):
        return False
    if "min_dur_ns" in flt and e.get("_e", 0) - e.get("_s", 0) < flt["min_dur_ns"]:
        return False
    if "max_dur_ns" in flt and e.get("_e", 0) - e.get("_s", 0) > flt["max_dur_ns"]:
        return False
    if "args" in flt:
        args = e.get("args") or {}
        for k, v in flt["args"].items():
            if args.get(k) != v:
                return False
    if "args_ne" in flt:
        args = e.get("args") or {}
        for k, v in flt["args_ne"].items():
            if args.get(k) == v:
                return False
    return True


def window(t, w):
    """A window as a union of [a, b) ns intervals, or None = unbounded."""
    if w is None or w == "all":
        return None
    if isinstance(w, dict):
        if "steps" in w:
            st = t.steps()
            which = w["steps"]
            if which == "all":
                sel = st
            elif which == "after_first":
                sel = st[1:]
            elif which == "first":
                sel = st[:1]
            elif isinstance(which, list):
                sel = [st[i] for i in which]
            else:
                raise ValueError("bad steps window %r" % (which,))
            return union([(e["_s"], e["_e"]) for e in sel])
        if "events" in w:
            return union([(e["_s"], e["_e"]) for e in t.X if match(t, e, w["events"])])
        if "range" in w:
            return [list(w["range"])]
        if "iterations" in w:
            # Added: the iterations of IdleAttrib (ProfilerStep, else engine-step
            # annotations execute_..., else Optimizer.step#... iterations: end
            # of the previous step to the end of this one, the first from the
            # first CPU event of the optimizer's thread).
            it = attrib(t).iters
            which = w["iterations"]
            if which == "all":
                sel = it
            elif which == "after_first":
                sel = it[1:]
            elif which == "first":
                sel = it[:1]
            elif isinstance(which, list):
                sel = [it[i] for i in which]
            else:
                raise ValueError("bad iterations window %r" % (which,))
            return union([tuple(x) for x in sel])
        if "iterations_b" in w:
            # Added (version B, named {"iterations": ...} there): the report
            # contract's iterations of iterations_b() (ProfilerStep, else
            # Optimizer.step#...; no engine-step annotations).
            its = iterations_b(t)[1]
            which = w["iterations_b"]
            if which == "all":
                sel = its
            elif which == "after_first":
                sel = its[1:]
            elif which == "first":
                sel = its[:1]
            elif isinstance(which, list):
                sel = [its[i] for i in which]
            else:
                raise ValueError("bad iterations_b window %r" % (which,))
            return union(sel)
    raise ValueError("bad window %r" % (w,))


def clipw(u, w):
    return u if w is None else inter(u, w)


def in_window(e, w):
    if w is None:
        return True
    s = e["_s"]
    i = bisect.bisect_right([a for a, _ in w], s) - 1
    return i >= 0 and w[i][0] <= s < w[i][1]


# ---------------------------------------------------------------- calcs
def c_count(t, c):
    w = window(t, c.get("window"))
    src = t.events if c.get("all_phases") else t.X
    if c.get("instant"):
        src = [e for e in t.events if isinstance(e, dict) and e.get("ph") == "i" and "_s" in e]
    return sum(1 for e in src if isinstance(e, dict) and match(t, e, c.get("filter"))
               and (w is None or in_window(e, w)))


def c_sum_dur(t, c):
    w = window(t, c.get("window"))
    return sum(e["_e"] - e["_s"] for e in t.X if match(t, e, c.get("filter")) and (w is None or in_window(e, w)))


def c_max_dur(t, c):
    w = window(t, c.get("window"))
    v = [e["_e"] - e["_s"] for e in t.X if match(t, e, c.get("filter")) and (w is None or in_window(e, w))]
    return max(v) if v else None


def c_union_dur(t, c):
    """|union of the filtered events' [start, end)|, clipped to the window."""
    w = window(t, c.get("window"))
    u = union([(e["_s"], e["_e"]) for e in t.X if match(t, e, c.get("filter"))])
    return ulen(clipw(u, w))


def c_gpu_span(t, c):
    gw = t.gpu_window()
    if gw is None:
        return None
    w = window(t, c.get("window"))
    return ulen(clipw(gw, w))


def c_gpu_busy(t, c):
    u = t.gpu_union(c.get("streams"), c.get("kind", "all"))
    return ulen(clipw(u, window(t, c.get("window"))))


def c_gpu_idle(t, c):
    """|GPU window ∩ W| - |busy ∩ W| = Σ of the all-stream GPU gaps inside W."""
    gw = t.gpu_window()
    if gw is None:
        return None
    w = window(t, c.get("window"))
    return ulen(clipw(gw, w)) - ulen(clipw(t.gpu_union(), w))


def c_overlap(t, c):
    w = window(t, c.get("window"))
    C = clipw(t.gpu_union(None, "comm"), w)
    P = clipw(t.gpu_union(None, "compute"), w)
    what = c["what"]
    if what == "comm_ns":
        return ulen(C) if C or t.gpu_union(None, "comm") else None
    if what == "compute_ns":
        return ulen(P)
    if what == "overlap_ns":
        return ulen(inter(C, P))
    if what == "exposed_comm_ns":
        return ulen(C) - ulen(inter(C, P))
    raise ValueError(what)


def c_idle_category(t, c):
    """Σ |gap ∩ W| over all-stream GPU gaps of one category (host_wait /
    kernel_wait / other), HTA's rule applied to the all-stream gaps."""
    w = window(t, c.get("window"))
    kw = c.get("kernel_wait_ns", 30000)
    tot = 0
    for g in t.gaps():
        if t.gap_category(g, kw) == c["category"]:
            tot += ulen(clipw([g], w))
    return tot


def c_idle_within(t, c):
    """GPU idle (all-stream gaps, clipped to W) covered by the union of the
    filtered CPU events: how much of the idle happened while the CPU was
    inside them."""
    w = window(t, c.get("window"))
    gaps = clipw(t.gaps(), w)
    u = union([(e["_s"], e["_e"]) for e in t.X if match(t, e, c.get("filter"))])
    return ulen(inter(gaps, u))


def c_gaps(t, c):
    """Count (what=count) or Σ length (what=sum) of all-stream GPU gaps whose
    full length is within [min_ns, max_ns] and that intersect W."""
    w = window(t, c.get("window"))
    lo = c.get("min_ns", 0)
    hi = c.get("max_ns", 1 << 62)
    sel = [g for g in t.gaps() if lo <= g[1] - g[0] <= hi and (w is None or clipw([g], w))]
    if c.get("what", "count") == "count":
        return len(sel)
    return sum(g[1] - g[0] for g in sel)


def c_max_gap(t, c):
    w = window(t, c.get("window"))
    v = [g[1] - g[0] for g in t.gaps() if w is None or clipw([g], w)]
    return max(v) if v else None


def c_steps(t, c):
    st = t.steps()
    what = c.get("what", "names")
    if what == "names":
        return [e["name"] for e in st]
    if what == "durs":
        return [e["_e"] - e["_s"] for e in st]
    if what == "count":
        return len(st)
    raise ValueError(what)


def c_ppm(t, c):
    n = calc(t, c["num"])
    d = calc(t, c["den"])
    if n is None or d is None or d == 0:
        return None
    return n * 1000000 // d


def c_sum(t, c):
    vals = [calc(t, x) for x in c["of"]]
    if any(v is None for v in vals):
        return None
    return sum(vals)


def c_diff(t, c):
    a = calc(t, c["a"])
    b = calc(t, c["b"])
    if a is None or b is None:
        return None
    return a - b


def c_memory_peak(t, c):
    """max of args[field] over [memory] instant events whose Device Type is not
    0 (CPU); None without such events."""
    field = c.get("field", "Total Allocated")
    v = [e["args"][field] for e in t.events if isinstance(e, dict) and e.get("name") == "[memory]"
         and (e.get("args") or {}).get("Device Type", 0) != 0 and field in e["args"]]
    return max(v) if v else None


def c_distinct(t, c):
    """Sorted distinct values of a key (name / cat / stream) among filtered X events."""
    key = c.get("key", "name")
    vals = set()
    for e in t.X:
        if match(t, e, c.get("filter")):
            if key == "stream":
                vals.add("%s/%s" % (e.get("pid"), e.get("tid")))
            elif key == "thread":
                vals.add("%s/%s" % (e.get("pid"), e.get("tid")))
            else:
                vals.add(str(e.get(key)))
    return sorted(vals)


def c_top(t, c):
    """Metadata of the trace: the value of a top-level key (or a dotted path)."""
    cur = t.top
    for k in c["key"].split("."):
        if not isinstance(cur, dict) or k not in cur:
            return None
        cur = cur[k]
    if isinstance(cur, D):
        return str(cur)
    return cur


def c_launch_thread(t, c):
    """Σ over all-stream GPU gaps (clipped to W) of the gap time, counted only
    for gaps whose closing ops were all launched from `thread` ("main" or
    [pid, tid])."""
    w = window(t, c.get("window"))
    th = c["thread"]
    want = t.main if th == "main" else tuple(th)
    tot = 0
    for g in t.gaps():
        cl = t.starts_at().get(g[1], [])
        ls = [t.corr.get((x.get("args") or {}).get("correlation")) for x in cl]
        if cl and all(l is not None and (l.get("pid"), l.get("tid")) == want for l in ls):
            tot += ulen(clipw([g], w))
    return tot


def c_launch_delay(t, c):
    """Over filtered GPU ops that have a launch call (same correlation):
    what = max / sum / count of (op start - launch call start), or
    p50 (nearest-rank lower median)."""
    v = []
    for e in t.gpu:
        if not match(t, e, c.get("filter")):
            continue
        l = t.corr.get((e.get("args") or {}).get("correlation"))
        if l is not None:
            v.append(e["_s"] - l["_s"])
    if not v:
        return None
    what = c.get("what", "max")
    if what == "max":
        return max(v)
    if what == "sum":
        return sum(v)
    if what == "count":
        return len(v)
    if what == "p50":
        v.sort()
        return v[(len(v) - 1) // 2]
    raise ValueError(what)


def nearest_rank(v, pct):
    """Nearest-rank percentile: the smallest value with at least pct % of
    the values <= it (exact integers, no interpolation)."""
    if not v:
        return None
    v = sorted(v)
    k = max(1, -(-pct * len(v) // 100))
    return v[k - 1]


def c_dur_pct(t, c):
    """Nearest-rank percentile `pct` of the dur of filtered X events."""
    w = window(t, c.get("window"))
    return nearest_rank([e["_e"] - e["_s"] for e in t.X if match(t, e, c.get("filter"))
                         and (w is None or in_window(e, w))], c.get("pct", 50))


def c_gap_pct(t, c):
    """Nearest-rank percentile `pct` of the full lengths of the all-stream
    GPU gaps that intersect the window."""
    w = window(t, c.get("window"))
    return nearest_rank([g[1] - g[0] for g in t.gaps() if w is None or clipw([g], w)], c.get("pct", 50))


def c_idle_opened_by(t, c):
    """Σ full length of the all-stream GPU gaps (intersecting the window)
    that BEGIN while one of the filtered CPU events is in progress
    (start <= gap start < end): the GPU ran dry while the thread was blocked
    in / busy with that call, and stayed idle until the next op started."""
    w = window(t, c.get("window"))
    u = union([(e["_s"], e["_e"]) for e in t.X if match(t, e, c.get("filter"))])
    starts = [a for a, _ in u]
    tot = 0
    for g in t.gaps():
        if w is not None and not clipw([g], w):
            continue
        i = bisect.bisect_right(starts, g[0]) - 1
        if i >= 0 and u[i][0] <= g[0] < u[i][1]:
            tot += g[1] - g[0]
    return tot


# ---------------------------------------------------------------- idle attribution
# Added (additive): the idle-by-cause split of idle_attrib.py, kept here so
# that the `idle_cause` calc needs nothing but this file.  The exact rule for
# each ns is the docstring of idle_attrib.py.
BLOCK_NAME = re.compile(
    r"(Synchronize$|^(cuda|hip)Memcpy(2D)?$|^hipMemcpyWithStream$|^(cuda|hip)Memset$|"
    r"^(cuda|hip)Free(Host)?$|^hipHostFree$|^(cuda|hip)Malloc$|^cudaHostAlloc$|^cudaMallocHost$|"
    r"^hipHostMalloc$|^hipExtMallocWithFlags$)")
ALLOC_NAME = re.compile(r"^((cuda|hip)Malloc|cudaHostAlloc|cudaMallocHost|hipHostMalloc|hipExtMallocWithFlags)$")
ASYNC_COPY = re.compile(r"^(cuda|hip)(Memcpy|Memset)(2D)?Async$")
LAUNCH = re.compile(r"(LaunchKernel|GraphLaunch|LaunchCooperativeKernel|ModuleLaunchKernel|^cuLaunch)")
WAIT = re.compile(r"^(cuda|hip)StreamWaitEvent$")
RECORD = re.compile(r"^(cuda|hip)EventRecord")
RUN_BACKWARD = re.compile(r"(run_backward|_engine_run_backward|torch/autograd/__init__\.py\(\d+\): backward)")
IA_CPU_CATS = {"cpu_op", "user_annotation", "python_function", "Operator",
            "cuda_runtime", "cuda_driver", "Runtime"}
BLOCK_ASYNC_NS = 50000
SLOW_CALL_NS = 1000000
LATENCY_NS = 30000


class IdleAttrib:
    """Idle-by-cause attribution of the all-stream GPU gaps.  The rules are
    documented at the top of idle_attrib.py (next to this file), which is its
    command-line front end; `t` is a Trace (or a path)."""

    def __init__(self, t):
        if not isinstance(t, Trace):
            t = Trace(t)
        self.t = t
        self.by_thread = {}
        for e in t.X:
            if e.get("cat") in IA_CPU_CATS:
                self.by_thread.setdefault((e.get("pid"), e.get("tid")), []).append(e)
        self._flat = {}
        self.rt_by_thread = {}
        for e in t.rt:
            self.rt_by_thread.setdefault((e.get("pid"), e.get("tid")), []).append(e)
        for v in self.rt_by_thread.values():
            v.sort(key=lambda e: e["_s"])
        self.rt_starts = {k: [e["_s"] for e in v] for k, v in self.rt_by_thread.items()}
        cors = [(e.get("args") or {}).get("correlation") for e in t.rt]
        cors = [c for c in cors if isinstance(c, int)]
        self.min_corr = min(cors) if cors else None
        self.ops_by_corr = {}
        for e in t.gpu:
            self.ops_by_corr.setdefault((e.get("args") or {}).get("correlation"), []).append(e)
        # first launch of each kernel name
        self.first_launch = {}
        for e in t.gpu:
            if e.get("cat") not in KERNEL_CATS:
                continue
            l = t.corr.get((e.get("args") or {}).get("correlation"))
            if l is None:
                continue
            n = e.get("name")
            if n not in self.first_launch or l["_s"] < self.first_launch[n]["_s"]:
                self.first_launch[n] = l
        self.first_launch_ids = {id(l) for l in self.first_launch.values()}
        self.record_calls = sorted(e["_s"] for e in t.rt if RECORD.search(e.get("name", "")))
        self.iters = self._iterations()
        # allocator calls per iteration (for first-use)
        self.alloc_first_use = False
        if len(self.iters) >= 2:
            later = union(self.iters[1:])
            n_later = sum(1 for e in t.rt if ALLOC_NAME.search(e.get("name", "")) and inside(e["_s"], later))
            self.alloc_first_use = (n_later == 0)

    # ------------------------------------------------------------ windows
    def _iterations(self):
        t = self.t
        st = t.steps()
        if st:
            self.iter_source = "ProfilerStep"
            return [[e["_s"], e["_e"]] for e in st]
        eng = sorted([e for e in t.X if e.get("cat") in ("user_annotation", "Operator")
                      and re.match(r"execute_\d+_context_\d+", str(e.get("name", "")))], key=lambda e: e["_s"])
        if eng:
            self.iter_source = "engine_step"
            return [[e["_s"], e["_e"]] for e in eng]
        opt = [e for e in t.X if e.get("cat") in ("user_annotation", "cpu_op", "Operator")
               and str(e.get("name", "")).startswith("Optimizer.step#")]
        if opt:
            first_name = sorted(opt, key=lambda e: e["_s"])[0]["name"]
            opt = sorted([e for e in opt if e["name"] == first_name], key=lambda e: e["_s"])
            th = (opt[0].get("pid"), opt[0].get("tid"))
            start = min(e["_s"] for e in self.by_thread.get(th, opt))
            out = []
            for e in opt:
                out.append([start, e["_e"]])
                start = e["_e"]
            self.iter_source = "optimizer_step"
            return out
        self.iter_source = "none"
        return []

    def window(self, w):
        if w in (None, "all"):
            return None
        if w == "steady":
            return union(self.iters[1:]) if len(self.iters) >= 2 else []
        if w == "first":
            return [list(self.iters[0])] if self.iters else []
        if w.startswith("range:"):
            _, a, b = w.split(":")
            return [[int(a), int(b)]]
        raise ValueError(w)

    # ------------------------------------------------------------ threads
    def flat(self, th):
        """Innermost-event timeline of a thread: sorted [s, e, event]."""
        if th in self._flat:
            return self._flat[th]
        evs = sorted(self.by_thread.get(th, []), key=lambda e: (e["_s"], -e["_e"]))
        out = []
        stack = []  # [end, event]
        cur = None

        def emit(a, b, ev):
            if b > a:
                out.append((a, b, ev))

        for ev in evs:
            s = ev["_s"]
            while stack and stack[-1][0] <= s:
                end, top = stack.pop()
                emit(cur, end, top)
                cur = end
            if stack:
                emit(cur, s, stack[-1][1])
            cur = s
            end = ev["_e"]
            if stack and end > stack[-1][0]:
                end = stack[-1][0]  # improper nesting: clip to the parent
            if end > s:
                stack.append([end, ev])
        while stack:
            end, top = stack.pop()
            emit(cur, end, top)
            cur = end
        starts = [a for a, _, _ in out]
        self._flat[th] = (out, starts)
        return self._flat[th]

    def outer_annotation(self, th, a, b):
        """Innermost user_annotation of th covering [a, b), or None."""
        best = None
        for e in self.by_thread.get(th, []):
            if e.get("cat") == "user_annotation" and e["_s"] <= a and e["_e"] >= b:
                if best is None or e["_e"] - e["_s"] < best["_e"] - best["_s"]:
                    best = e
        return best["name"] if best else None

    def call_label(self, ev):
        """(cause, what) for time spent inside runtime call ev (not K's launch)."""
        name = ev.get("name", "")
        d = ev["_e"] - ev["_s"]
        if "GraphLaunch" in name:
            return "a_host_not_launched", name + " (graph submission)"
        if LAUNCH.search(name):
            if d >= SLOW_CALL_NS:
                if id(ev) in self.first_launch_ids:
                    return "e_first_use", name + " (first launch of a kernel name, >= 1 ms: module load)"
                return "b_host_blocked", name + " (launch call >= 1 ms)"
            return "a_host_not_launched", name + " (runtime call)"
        if ALLOC_NAME.search(name):
            if self.alloc_first_use and self.iters and inside(ev["_s"], [self.iters[0]]):
                return "e_first_use", name + " (allocator warm-up: none in later iterations)"
            return "b_host_blocked", name
        if BLOCK_NAME.search(name):
            return "b_host_blocked", name
        if ASYNC_COPY.search(name) and d >= BLOCK_ASYNC_NS:
            ops = self.ops_by_corr.get((ev.get("args") or {}).get("correlation"), [])
            kind = ops[0].get("name") if ops else "own op not in trace"
            return "b_host_blocked", "%s >= 50 us (blocked by behaviour; own op: %s)" % (name, kind)
        if d >= SLOW_CALL_NS:
            return "b_host_blocked", name + " (>= 1 ms)"
        return "a_host_not_launched", name + " (runtime call)"

    def thread_state(self, th, a, b, depth=0):
        """Split [a, b) by what thread th was doing: list of (a, b, cause, what)."""
        out = []
        flat, starts = self.flat(th)
        i = max(0, bisect.bisect_right(starts, a) - 1)
        cur = a
        while cur < b:
            while i < len(flat) and flat[i][1] <= cur:
                i += 1
            if i >= len(flat) or flat[i][0] >= b:
                out.append((cur, b) + self.untraced(th, cur, b))
                break
            s, e, ev = flat[i]
            if s > cur:
                out.append((cur, s) + self.untraced(th, cur, s))
                cur = s
                continue
            end = min(e, b)
            if ev.get("cat") in RT_CATS:
                c, w = self.call_label(ev)
                out.append((cur, end, c, w))
            elif RUN_BACKWARD.search(str(ev.get("name"))) and self.autograd_threads(th) and depth == 0:
                # the launching thread waits for the autograd engine: what
                # the autograd thread(s) did decides
                ag = self.autograd_threads(th)[0]
                for x in self.thread_state(ag, cur, end, depth=1):
                    out.append((x[0], x[1], x[2], "%s [autograd thread %s/%s, while the launching thread waits in %s]"
                                % (x[3], ag[0], ag[1], short(ev.get("name")))))
            else:
                out.append((cur, end, "a_host_not_launched", ev.get("name")))
            cur = end
            i += 1
        return out

    def autograd_threads(self, th):
        """Threads other than th that run autograd engine functions, most first."""
        if not hasattr(self, "_ag"):
            cnt = {}
            for k, evs in self.by_thread.items():
                n = sum(1 for e in evs if str(e.get("name", "")).startswith("autograd::engine::evaluate_function"))
                if n:
                    cnt[k] = n
            self._ag = sorted(cnt, key=lambda k: (-cnt[k], repr(k)))
        return [k for k in self._ag if k != th]

    def untraced(self, th, a, b):
        ann = self.outer_annotation(th, a, b)
        return ("a_host_not_launched", "untraced time on the launching thread" +
                (" (inside %s)" % ann if ann else ""))

    # ------------------------------------------------------------ gaps
    def wait_before(self, th, tL):
        """A stream-wait call of th after its previous launch and at or before tL."""
        rts = self.rt_by_thread.get(th, [])
        starts = self.rt_starts.get(th, [])
        i = bisect.bisect_right(starts, tL) - 1
        # i = the launch call itself (or the last call before tL)
        j = i - 1
        while j >= 0:
            e = rts[j]
            if WAIT.search(e.get("name", "")):
                return e
            if LAUNCH.search(e.get("name", "")) or ASYNC_COPY.search(e.get("name", "")):
                return None
            j -= 1
        return None

    def gap_parts(self, g):
        """[(a, b, cause, what)] covering the whole gap g."""
        t = self.t
        g0, g1 = g
        closing = t.starts_at().get(g1, [])
        cand = []
        nolaunch = []
        for x in closing:
            l = t.corr.get((x.get("args") or {}).get("correlation"))
            if l is None:
                nolaunch.append(x)
            else:
                cand.append((l["_s"], id(l), l, x))
        if not cand:
            x = nolaunch[0] if nolaunch else None
            c = (x.get("args") or {}).get("correlation") if x else None
            if isinstance(c, int) and self.min_corr is not None and c < self.min_corr:
                return [(g0, g1, "f_unknown", "queued before the profiling window (no launch call in the trace)")]
            return [(g0, g1, "f_unknown", "no launch record")]
        cand.sort(key=lambda z: (z[0], z[1]))
        _, _, L, K = cand[0]
        th = (L.get("pid"), L.get("tid"))
        tL, tE = L["_s"], L["_e"]
        parts = []
        if tL > g0:
            parts += self.thread_state(th, g0, min(tL, g1))
        a, b = max(g0, tL), min(g1, tE)
        if b > a:
            name = L.get("name", "")
            d = tE - tL
            if BLOCK_NAME.search(name):
                parts.append((a, b, "b_host_blocked", name + " (K's own launch: a synchronous call)"))
            elif "GraphLaunch" in name:
                parts.append((a, b, "a_host_not_launched", name + " (graph submission)"))
            elif d >= SLOW_CALL_NS:
                if id(L) in self.first_launch_ids:
                    parts.append((a, b, "e_first_use", name + " (first launch of a kernel name, >= 1 ms: module load)"))
                else:
                    parts.append((a, b, "b_host_blocked", name + " (launch call >= 1 ms)"))
            else:
                parts.append((a, b, "a_host_not_launched", name + " (launch)"))
        a = max(g0, tE)
        if g1 > a:
            w = self.wait_before(th, tL)
            if g1 - a < LATENCY_NS:
                parts.append((a, g1, "g_device_latency",
                              "queued op started < 30 us after its launch returned or the gap began"))
            elif w is not None:
                rec = bisect.bisect_right(self.record_calls, w["_s"]) > 0
                parts.append((a, g1, "c_stream_wait", "%s before %s: %s" % (
                    w.get("name"), short(K.get("name")),
                    "event record call in the trace before it" if rec else
                    "no EventRecord call in the trace before it; no GPU op of the trace ran during the wait, "
                    "so the awaited work is outside the trace")))
            else:
                parts.append((a, g1, "f_unknown", "queued %s (%s): waited >= 30 us with nothing running in the trace "
                              "and no stream-wait call before its launch" % (short(K.get("name")), L.get("name"))))
        return parts

    def run(self, w=None, top=12):
        W = self.window(w)
        res = {}
        whats = {}
        total = 0
        for g in self.t.gaps():
            if W is not None and not clipw([g], W):
                continue
            for a, b, c, what in self.gap_parts(g):
                n = ulen(clipw([[a, b]], W))
                if n <= 0:
                    continue
                total += n
                res[c] = res.get(c, 0) + n
                whats[(c, what)] = whats.get((c, what), 0) + n
        gw = self.t.gpu_window() or []
        idle = ulen(clipw(gw, W)) - ulen(clipw(self.t.gpu_union(), W))
        assert idle == total, (idle, total)
        out = {"window": w or "all", "iterations": self.iter_source, "iteration_count": len(self.iters),
               "idle_ns": total,
               "causes_ns": dict(sorted(res.items())),
               "causes_ppm": {k: v * 1000000 // total for k, v in sorted(res.items())} if total else {},
               "top": [{"cause": c, "what": wt, "ns": n, "ppm_of_idle": n * 1000000 // total}
                       for (c, wt), n in sorted(whats.items(), key=lambda kv: (-kv[1], kv[0]))[:top]]}
        return out


def short(n):
    n = str(n)
    return n if len(n) <= 90 else n[:87] + "..."


def inside(x, u):
    for a, b in u:
        if a <= x < b:
            return True
    return False


_OTHER = {}


def c_xrank(t, c):
    """Cross-rank: pair this trace's communication kernels with those of the
    trace at c["other"] (path relative to the traces root) that run on the
    same stream id (tid) and END within tol_ns (default 1 ms) of each other
    (a collective ends together on all its ranks; the trace may be sampled,
    so ordinals cannot be used).  Each kernel is paired at most once, with
    the closest end.  what = count (pairs), later (pairs where this rank
    started strictly later), margin_sum / margin_max (Σ / max over pairs of
    max(0, this start - other start)), or steps_later (ProfilerStep names of
    this trace in which this rank started later in every pair whose start
    lies in the step)."""
    other = _OTHER.get(c["other"])
    if other is None:
        other = Trace(os.path.join(TRACES_ROOT[0], c["other"]))
        _OTHER[c["other"]] = other
    tol = c.get("tol_ns", 1000000)
    mine = [e for e in t.gpu if e.get("cat") in KERNEL_CATS and is_comm(e.get("name", ""))]
    theirs = [e for e in other.gpu if e.get("cat") in KERNEL_CATS and is_comm(e.get("name", ""))]
    used = set()
    pairs = []
    for e in sorted(mine, key=lambda x: x["_e"]):
        best = None
        for j, o in enumerate(theirs):
            if j in used or o.get("tid") != e.get("tid"):
                continue
            d = abs(o["_e"] - e["_e"])
            if d <= tol and (best is None or d < best[0]):
                best = (d, j)
        if best is not None:
            used.add(best[1])
            pairs.append((e, theirs[best[1]]))
    what = c.get("what", "count")
    if what == "count":
        return len(pairs)
    if what == "later":
        return sum(1 for e, o in pairs if e["_s"] > o["_s"])
    margins = [max(0, e["_s"] - o["_s"]) for e, o in pairs]
    if what == "margin_sum":
        return sum(margins)
    if what == "margin_max":
        return max(margins) if margins else None
    if what == "steps_later":
        out = []
        for st in t.steps():
            inside = [(e, o) for e, o in pairs if st["_s"] <= e["_s"] < st["_e"]]
            if inside and all(e["_s"] > o["_s"] for e, o in inside):
                out.append(st["name"])
        return out
    raise ValueError(what)


def c_arg_span(t, c):
    """max - min + 1 of an integer args[key] over filtered X events (e.g. the
    range of External ids or correlation ids the events were drawn from)."""
    v = [(e.get("args") or {}).get(c["key"]) for e in t.X if match(t, e, c.get("filter"))]
    v = [x for x in v if isinstance(x, int)]
    return (max(v) - min(v) + 1) if v else None


# ---------------------------------------------------------------- added calcs
def attrib(t):
    """The IdleAttrib of a trace (built once per Trace)."""
    if "attrib" not in t._cache:
        t._cache["attrib"] = IdleAttrib(t)
    return t._cache["attrib"]


def c_idle_cause(t, c):
    """Added.  Σ ns of the all-stream GPU idle (clipped to the window) that
    the idle_attrib.py rules give to `cause` (a_host_not_launched,
    b_host_blocked, c_stream_wait, e_first_use, f_unknown, g_device_latency;
    "all" = every cause), optionally only the parts whose label (the `what`:
    innermost CPU op / blocking call / awaited op) matches the regex
    `what_re`.  The causes of one window sum exactly to gpu_idle."""
    A = attrib(t)
    if "parts" not in t._cache:
        t._cache["parts"] = [(g, A.gap_parts(g)) for g in t.gaps()]
    w = window(t, c.get("window"))
    want = c.get("cause", "all")
    rx = re.compile(c["what_re"]) if c.get("what_re") else None
    tot = 0
    for g, parts in t._cache["parts"]:
        if w is not None and not clipw([g], w):
            continue
        for a, b, cause, what in parts:
            if want != "all" and cause != want:
                continue
            if rx is not None and not rx.search(str(what)):
                continue
            tot += ulen(clipw([[a, b]], w))
    return tot


def c_iterations(t, c):
    """Added.  The iterations IdleAttrib finds: what = source (ProfilerStep /
    engine_step / optimizer_step / none), count, durs (ns, in time order)."""
    A = attrib(t)
    what = c.get("what", "count")
    if what == "source":
        return A.iter_source
    if what == "count":
        return len(A.iters)
    if what == "durs":
        return [b - a for a, b in A.iters]
    raise ValueError(what)


def c_overlap_re(t, c):
    """Added.  As `overlap`, but a kernel is communication when is_comm(name)
    holds OR its name matches the regex `comm_re` (e.g. expert-parallel
    kernels such as dpsk::ep::internode::dispatch that are not NCCL-named);
    compute = every other kernel.  what = comm_ns / compute_ns / overlap_ns /
    exposed_comm_ns, clipped to the window."""
    rx = re.compile(c["comm_re"])
    key = ("ore", c["comm_re"])
    if key not in t._cache:
        ks = [e for e in t.gpu if e.get("cat") in KERNEL_CATS]
        cm = [e for e in ks if is_comm(e.get("name", "")) or rx.search(e.get("name", ""))]
        ids = {id(e) for e in cm}
        t._cache[key] = (union([(e["_s"], e["_e"]) for e in cm]),
                         union([(e["_s"], e["_e"]) for e in ks if id(e) not in ids]))
    C, P = t._cache[key]
    w = window(t, c.get("window"))
    C, P = clipw(C, w), clipw(P, w)
    what = c["what"]
    if what == "comm_ns":
        return ulen(C)
    if what == "compute_ns":
        return ulen(P)
    if what == "overlap_ns":
        return ulen(inter(C, P))
    if what == "exposed_comm_ns":
        return ulen(C) - ulen(inter(C, P))
    raise ValueError(what)


def c_self_time(t, c):
    """Added.  Σ over the filtered CPU events of the time in which the event is
    the innermost traced event of its thread (no traced child: cpu_op,
    user_annotation, python_function or runtime call), clipped to the window:
    e.g. the untraced time a thread spends inside an annotation (a host
    spin-wait the profiler does not see).  Uses IdleAttrib's flattening."""
    A = attrib(t)
    w = window(t, c.get("window"))
    sel = [e for e in t.X if match(t, e, c.get("filter")) and e.get("cat") in IA_CPU_CATS]
    ids = {id(e) for e in sel}
    tot = 0
    for th in {(e.get("pid"), e.get("tid")) for e in sel}:
        flat, _ = A.flat(th)
        tot += ulen(clipw(union([(a, b) for a, b, ev in flat if id(ev) in ids]), w))
    return tot


# ---------------------------------------------------------------- iterations (added)
def iterations_b(t):
    """(source, [[start, end], ...]): the iterations of the report contract.
    ProfilerStep#N ranges when the trace has any (source "ProfilerStep");
    else the Optimizer.step#<name> annotations (user_annotation / cpu_op /
    Operator) of the first optimizer name seen (source "optimizer_step"):
    each iteration ends where its optimizer step ends and starts where the
    previous one ended, the first at the first CPU event (cpu_op,
    user_annotation, python_function, Operator, runtime call) of the
    optimizer's thread; else ("none", [])."""
    if "iters" in t._cache:
        return t._cache["iters"]
    st = t.steps()
    if st:
        res = ("ProfilerStep", [[e["_s"], e["_e"]] for e in st])
    else:
        opt = [e for e in t.X if e.get("cat") in ("user_annotation", "cpu_op", "Operator")
               and str(e.get("name", "")).startswith("Optimizer.step#")]
        if not opt:
            res = ("none", [])
        else:
            first = min(opt, key=lambda e: (e["_s"], t.X.index(e)))
            opt = sorted([e for e in opt if e["name"] == first["name"]], key=lambda e: e["_s"])
            th = (first.get("pid"), first.get("tid"))
            c0 = min(e["_s"] for e in t.X if e.get("cat") in _CAUSE_CPU and (e.get("pid"), e.get("tid")) == th)
            out, prev = [], c0
            for e in opt:
                out.append([prev, e["_e"]])
                prev = e["_e"]
            res = ("optimizer_step", out)
    t._cache["iters"] = res
    return res


def c_iterations_b(t, c):
    """Iterations (see iterations_b()): what = source / count / durs / bounds
    ([first start, last end])."""
    src, its = iterations_b(t)
    what = c.get("what", "count")
    if what == "source":
        return src
    if what == "count":
        return len(its)
    if what == "durs":
        return [b - a for a, b in its]
    if what == "bounds":
        return [its[0][0], its[-1][1]] if its else None
    raise ValueError(what)


# ---------------------------------------------------------------- idle by cause (added)
_SYNC_RE = re.compile(r"^(cuda|hip)(Stream|Event|Device|Ctx)Synchronize$|^cuCtxSynchronize$")
_SYNC_COPY = {"cudaMemcpy", "cudaMemset", "cudaMemcpy2D", "hipMemcpy", "hipMemset"}
_ASYNC_COPY = {"cudaMemcpyAsync", "cudaMemsetAsync", "cudaMemcpy2DAsync", "hipMemcpyAsync",
               "hipMemsetAsync", "hipMemcpyWithStream"}
_FREES = {"cudaFree", "cudaFreeHost", "hipFree", "hipHostFree", "cuMemFree_v2"}
_FIRST_USE_RE = re.compile(r"^(cudaMalloc|cudaHostAlloc|cudaMallocHost|cudaStreamCreate\w*|"
                           r"cudaGetDeviceProperties|hipMalloc|hipHostMalloc|hipStreamCreate\w*)$")
_LAUNCH_RE = re.compile(r"^(cudaLaunchKernel|cudaLaunchKernelExC|cuLaunchKernel|hipLaunchKernel|"
                        r"hipExtLaunchKernel|cudaLaunchCooperativeKernel)$")
_DL_RE = re.compile(r"^enumerate\(DataLoader\)")
_CAUSE_CPU = {"cpu_op", "user_annotation", "python_function", "Operator", "cuda_runtime",
              "cuda_driver", "Runtime"}
_LONG = 1000000


def _idle_parts_b(t):
    """Every all-stream GPU gap cut into (start, end, cause, what) parts:
    the rules of idle_attrib_b.py (its docstring is the reference; this is a
    second, separately written implementation).  Causes: host_not_launched,
    host_blocked, stream_wait, rank_wait, first_use, undecidable.  The first
    iteration (iterations_b(), when there are two or more) is first_use
    ("warmup: ..." whats)."""
    if "idle_parts" in t._cache:
        return t._cache["idle_parts"]
    idx = {id(e): i for i, e in enumerate(t.X)}
    src, its = iterations_b(t)
    warm = its[0] if len(its) >= 2 else None
    ops = {}
    for e in t.gpu:
        c = (e.get("args") or {}).get("correlation")
        if c is not None and c not in ops:
            ops[c] = e
    first = {}
    for e in t.gpu:
        if e.get("cat") in KERNEL_CATS:
            l = t.corr.get((e.get("args") or {}).get("correlation"))
            if l is not None:
                n = e.get("name")
                if n not in first or (l["_s"], idx[id(l)]) < (first[n]["_s"], idx[id(first[n])]):
                    first[n] = l
    firsts = {id(l) for l in first.values()}
    bythread = {}
    for e in t.X:
        if e.get("cat") in _CAUSE_CPU:
            bythread.setdefault((e.get("pid"), e.get("tid")), []).append(e)
    shorts, longs = {}, {}
    for th, evs in bythread.items():
        s = sorted([e for e in evs if e["_e"] - e["_s"] < _LONG], key=lambda e: e["_s"])
        shorts[th] = (s, [e["_s"] for e in s])
        longs[th] = [e for e in evs if e["_e"] - e["_s"] >= _LONG]
    dls = {th: [e for e in evs if e.get("cat") in ("user_annotation", "Operator")
                and _DL_RE.match(str(e.get("name", "")))] for th, evs in bythread.items()}
    waits = []
    for e in t.rt:
        if e.get("name") in ("cudaStreamWaitEvent", "hipStreamWaitEvent"):
            waits.append(((e.get("pid"), e.get("tid")), e["_s"]))
    for e in t.X:
        if e.get("cat") == "cuda_sync" and e.get("name") == "Stream Wait Event":
            l = t.corr.get((e.get("args") or {}).get("correlation"))
            if l is not None:
                waits.append(((l.get("pid"), l.get("tid")), l["_s"]))
    launches = {}
    for c, l in t.corr.items():
        if c in ops:
            launches.setdefault((l.get("pid"), l.get("tid")), []).append(l["_s"])

    def cands(th, x, y):
        s, starts = shorts.get(th, ([], []))
        lo = bisect.bisect_left(starts, x - _LONG)
        hi = bisect.bisect_left(starts, y)
        out = [e for e in s[lo:hi] if e["_e"] > x]
        out += [e for e in longs.get(th, []) if e["_s"] < y and e["_e"] > x]
        return out

    def innermost_pieces(th, x, y):
        cs = cands(th, x, y)
        pts = sorted({x, y} | {p for e in cs for p in (e["_s"], e["_e"]) if x < p < y})
        res = []
        for p, q in zip(pts, pts[1:]):
            cov = [e for e in cs if e["_s"] <= p < e["_e"]]
            inn = max(cov, key=lambda e: (e["_s"], -e["_e"], -idx[id(e)])) if cov else None
            if res and res[-1][2] is inn and res[-1][1] == p:
                res[-1][1] = q
            else:
                res.append([p, q, inn])
        return res

    def dl_at(th, p):
        for e in dls.get(th, []):
            if e["_s"] <= p < e["_e"]:
                return e
        return None

    def copyname(call):
        op = ops.get((call.get("args") or {}).get("correlation"))
        return "%s [%s]" % (call["name"], op["name"]) if op is not None else call["name"]

    def warm_cut(x, y):
        pts = [x, y]
        if warm is not None:
            pts = sorted({x, y} | {p for p in warm if x < p < y})
        return [(p, q, warm is not None and warm[0] <= p < warm[1]) for p, q in zip(pts, pts[1:])]

    parts = []
    for a, b in t.gaps():
        cl = []
        for k in t.starts_at().get(b, []):
            c = (k.get("args") or {}).get("correlation")
            l = t.corr.get(c)
            if l is not None:
                cl.append((l["_s"], c if isinstance(c, int) else 0, k, l))
        if not cl:
            parts.append((a, b, "undecidable", "closing op has no launch call"))
            continue
        cl.sort(key=lambda z: (z[0], z[1]))
        _, _, K, L = cl[0]
        tL, tE = L["_s"], L["_e"]
        th = (L.get("pid"), L.get("tid"))
        if tL > a:
            for x, y, e in innermost_pieces(th, a, min(tL, b)):
                for p, q, w in warm_cut(x, y):
                    if e is not None and e.get("cat") in RT_CATS:
                        n = e.get("name", "")
                        d = e["_e"] - e["_s"]
                        if w:
                            cause, what = "first_use", "warmup: " + n
                        elif _FIRST_USE_RE.match(n) or (_LAUNCH_RE.match(n) and id(e) in firsts and d >= _LONG):
                            cause, what = "first_use", n
                        elif _SYNC_RE.match(n) or n in _SYNC_COPY or n in _FREES:
                            cause, what = "host_blocked", n
                        elif n in _ASYNC_COPY and d >= 50000:
                            cause, what = "host_blocked", copyname(e)
                        elif d >= _LONG:
                            cause, what = "host_blocked", n
                        else:
                            dl = dl_at(th, p)
                            cause, what = "host_not_launched", ("%s > %s" % (dl["name"], n) if dl else n)
                    else:
                        if e is None:
                            what = "(no traced event on thread %s)" % (th[1],)
                        elif _DL_RE.match(str(e.get("name", ""))):
                            what = e["name"]
                        else:
                            dl = dl_at(th, p)
                            what = "%s > %s" % (dl["name"], e["name"]) if dl else e["name"]
                        cause = "first_use" if w else "host_not_launched"
                        what = ("warmup: " + what) if w else what
                    parts.append((p, q, cause, what))
        x, y = max(a, tL), min(tE, b)
        if y > x:
            n = L.get("name", "")
            d = tE - tL
            for p, q, w in warm_cut(x, y):
                if w:
                    parts.append((p, q, "first_use", "warmup: launch call " + n))
                elif id(L) in firsts and d >= _LONG:
                    parts.append((p, q, "first_use", "first launch (module load) " + n))
                elif ((n in _ASYNC_COPY or n in _SYNC_COPY) and d >= 50000) or d >= _LONG:
                    parts.append((p, q, "host_blocked", copyname(L)))
                else:
                    parts.append((p, q, "host_not_launched", "launch call " + n))
        x = max(a, tE)
        if b > x:
            waited = False
            if waits:
                prev = [s for s in launches.get(th, []) if s < tL]
                p0 = max(prev) if prev else None
                waited = any(wt == th and s <= tL and (p0 is None or s > p0) for wt, s in waits)
            for p, q, w in warm_cut(x, b):
                if w:
                    parts.append((p, q, "first_use", "warmup: queued, not started"))
                elif waited:
                    parts.append((p, q, "stream_wait", "stream wait"))
                elif is_comm(K.get("name", "")):
                    parts.append((p, q, "rank_wait", K["name"]))
                else:
                    parts.append((p, q, "undecidable", "queued, not started (no stream-wait/event evidence)"))
    t._cache["idle_parts"] = parts
    return parts


def c_idle_cause_b(t, c):
    """GPU idle (all-stream gaps, clipped to the window) of one cause of the
    idle-by-cause attribution (see _idle_parts_b and idle_attrib_b.py): cause =
    host_not_launched / host_blocked / stream_wait / rank_wait / first_use /
    undecidable / all; optional what_re: only parts whose `what` label
    matches this regex (re.search)."""
    w = window(t, c.get("window"))
    cause = c.get("cause", "all")
    rx = re.compile(c["what_re"]) if "what_re" in c else None
    tot = 0
    for a, b, cs, what in _idle_parts_b(t):
        if cause != "all" and cs != cause:
            continue
        if rx is not None and not rx.search(what):
            continue
        tot += ulen(clipw([[a, b]], w))
    return tot


CALCS = {
    "count": c_count,             # number of events matching filter (X events; instant=true: ph i)
    "sum_dur": c_sum_dur,         # Σ dur (ns) of matching X events whose start is in the window
    "max_dur": c_max_dur,         # longest matching X event
    "union_dur": c_union_dur,     # |∪ matching X events ∩ window|
    "gpu_span": c_gpu_span,       # last GPU end - first GPU start (∩ window)
    "gpu_busy": c_gpu_busy,       # |∪ GPU activity| (kind: all/kernel/comm/compute; streams)
    "gpu_idle": c_gpu_idle,       # span - busy (∩ window)
    "overlap": c_overlap,         # comm_ns / compute_ns / overlap_ns / exposed_comm_ns
    "idle_category": c_idle_category,
    "idle_within": c_idle_within,
    "gaps": c_gaps,
    "max_gap": c_max_gap,
    "steps": c_steps,
    "ppm": c_ppm,                 # floor(num * 1e6 / den)
    "sum": c_sum,
    "diff": c_diff,
    "memory_peak": c_memory_peak,
    "distinct": c_distinct,
    "top": c_top,
    "idle_launched_by": c_launch_thread,
    "launch_delay": c_launch_delay,
    "idle_opened_by": c_idle_opened_by,  # gaps that begin inside the filtered events
    "arg_span": c_arg_span,       # max - min + 1 of an integer arg
    "xrank": c_xrank,             # pair collectives with another rank's trace
    "dur_pct": c_dur_pct,         # nearest-rank percentile of event durations
    "gap_pct": c_gap_pct,         # nearest-rank percentile of GPU gap lengths  # GPU op start - its launch call start
    # added (additive; existing calcs unchanged):
    "idle_cause": c_idle_cause,   # idle ns of one cause of idle_attrib.py (optionally by label regex)
    "iterations": c_iterations,   # IdleAttrib's iterations: source / count / durs
    "overlap_re": c_overlap_re,   # overlap with extra communication kernels by regex
    "self_time": c_self_time,     # time the filtered CPU events have no traced child
    # added (version B; named iterations / idle_cause there, renamed at the merge):
    "iterations_b": c_iterations_b,   # (added) contract iterations: source / count / durs / bounds
    "idle_cause_b": c_idle_cause_b,   # (added) idle-by-cause attribution (idle_attrib_b.py rules)
}


def calc(t, c):
    fn = CALCS.get(c.get("fn"))
    if fn is None:
        raise ValueError("unknown calc fn %r" % (c.get("fn"),))
    return fn(t, c)


KNOWN_IDS = {"gpu-starvation", "launch-overhead", "comm-serialized", "exposed-comm",
             "backward-prefetch-missing", "cpu-sync-stall", "allocator-thrash",
             "allocator-fragmentation", "straggler-rank", "inefficient-compute"}
KNOWN_IDS |= {"pinned-host-churn"}  # (added) a contract id (report-contract.md), used in forbidden_findings
NEW_IDS = {"dataloader-stall",  # defined in README.md
           "host-spin-wait", "queued-idle-unexplained"}  # added, README.md
NEW_IDS |= {"pageable-h2d-copy"}  # (added) defined in README.md ("New finding ids")
PARALLELISM = {"FSDP1", "FSDP2", "DDP", "tensor_parallel", "sequence_parallel", "expert_parallel",
               "pipeline", "embedding_all_to_all", "single_gpu", "unknown"}
MODES = {"train", "prefill", "decode", "mixed", "inference", "unknown"}
CAUSES = {"host_not_launched", "host_blocked", "stream_wait", "rank_wait", "unknown", "none", "n/a"}
SEV = ["info", "warning", "critical"]


def check_shape(v):
    """Structural rules of a verdict file; returns a list of problems."""
    bad = []
    for k in ("trace", "what", "workload", "iterations", "warmup", "expected_findings",
              "forbidden_findings", "top_idle_cause", "facts"):
        if k not in v:
            bad.append("missing key %s" % k)
    wl = v.get("workload", {})
    labels = set(wl.get("parallelism", []))
    if not labels or not labels <= PARALLELISM:
        bad.append("bad parallelism %r" % (sorted(labels),))
    if wl.get("mode") not in MODES:
        bad.append("bad mode %r" % (wl.get("mode"),))
    ev = wl.get("evidence", {})
    for lab in labels | {wl.get("mode")}:
        if not ev.get(lab):
            bad.append("label %s has no evidence" % lab)
    names = {f["name"] for f in v.get("facts", [])}
    if len(names) != len(v.get("facts", [])):
        bad.append("duplicate fact names")
    groups = [("", v)] + ([("job.", v["job"])] if "job" in v else [])
    for pre, g in groups:
        exp = {e["id"] for e in g.get("expected_findings", [])}
        for e in g.get("expected_findings", []):
            if e["id"] not in KNOWN_IDS and not (e["id"] in NEW_IDS and e.get("new")):
                bad.append("%sunknown expected id %s" % (pre, e["id"]))
            if SEV.index(e["min_severity"]) > SEV.index(e["max_severity"]):
                bad.append("%s%s: min_severity above max_severity" % (pre, e["id"]))
            if not e.get("why"):
                bad.append("%s%s: no why" % (pre, e["id"]))
        for e in g.get("forbidden_findings", []):
            if e["id"] not in KNOWN_IDS | NEW_IDS:
                bad.append("%sunknown forbidden id %s" % (pre, e["id"]))
            if "min_severity" in e and e["min_severity"] not in SEV:
                bad.append("%s%s: bad min_severity" % (pre, e["id"]))
            if e["id"] in exp and "min_severity" not in e:
                bad.append("%s%s both expected and forbidden" % (pre, e["id"]))
            if not e.get("why"):
                bad.append("%s%s: no why" % (pre, e["id"]))
    tic = v.get("top_idle_cause", {})
    if tic.get("cause") not in CAUSES:
        bad.append("bad top_idle_cause %r" % (tic.get("cause"),))
    ref = tic.get("share_of_idle_ppm_fact")
    if ref is not None and ref not in names:
        bad.append("top_idle_cause refers to missing fact %s" % ref)
    # optional keys: notes, job, expect_rejected and (added, version B's param/
    # verdicts) idle_by_cause: idle_attrib_b.py's breakdown, an object
    if "idle_by_cause" in v and not isinstance(v["idle_by_cause"], dict):
        bad.append("idle_by_cause is not an object")
    for f in v.get("facts", []):
        for k in ("name", "value", "unit", "how", "calc", "tolerance"):
            if k not in f:
                bad.append("fact %s lacks %s" % (f.get("name"), k))
    return bad


def same(stored, got, tol):
    if isinstance(tol, dict) and isinstance(stored, int) and isinstance(got, int):
        return abs(stored - got) <= tol.get("abs", 0)
    return stored == got


TRACES_ROOT = [None]


def repo_root():
    return os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def main(argv):
    traces = (os.environ.get("FSDPA_TRACE_CORPUS") or os.environ.get("FSDPA_DEFAULT_CORPUS")
              or os.path.join(repo_root(), "..", "shared", "traces"))
    vdir = os.path.dirname(os.path.abspath(__file__))
    verbose = False
    args = list(argv)
    TRACES_ROOT[0] = traces
    if args[:1] == ["--eval"] and len(args) == 3:
        t = Trace(args[1])
        print(json.dumps(calc(t, json.loads(args[2]))))
        return 0
    while args:
        a = args.pop(0)
        if a == "--traces":
            traces = args.pop(0)
        elif a == "--verdicts":
            vdir = args.pop(0)
        elif a == "-v":
            verbose = True
        else:
            print("usage: facts.py [--traces DIR] [--verdicts DIR] [-v] | --eval TRACE CALC", file=sys.stderr)
            return 2
    TRACES_ROOT[0] = traces
    if not os.path.isdir(traces):
        print("# SKIP the real-trace corpus is not at %s (set FSDPA_TRACE_CORPUS)" % traces)
        return 77
    files = sorted(f for f in os.listdir(vdir) if f.endswith(".json"))
    if not files:
        print("no verdict files in %s" % vdir, file=sys.stderr)
        return 2
    bad = 0
    for f in files:
        with open(os.path.join(vdir, f)) as fh:
            v = json.load(fh)
        problems = check_shape(v)
        for p in problems:
            print("  SHAPE %s: %s" % (f, p))
        bad += len(problems)
        path = os.path.join(traces, v["trace"])
        if not os.path.exists(path):
            print("MISSING %s: trace %s not found" % (f, path))
            return 2
        facts = v.get("facts", [])
        try:
            t = Trace(path)
        except Exception as exc:  # a non-trace input: its facts must say so
            if v.get("expect_rejected"):
                print("ok   %-70s rejected as expected (%s)" % (v["trace"], exc))
                continue
            print("FAIL %-70s cannot load: %s" % (v["trace"], exc))
            bad += 1
            continue
        if v.get("expect_rejected"):
            print("FAIL %-70s loads as a trace but the verdict expects rejection" % v["trace"])
            bad += 1
            continue
        nbad = 0
        for fact in facts:
            try:
                got = calc(t, fact["calc"])
            except Exception as exc:
                got = "ERROR %s" % exc
            if not same(fact["value"], got, fact.get("tolerance")):
                nbad += 1
                print("  MISMATCH %s / %s: stored %r, recomputed %r" % (f, fact["name"], fact["value"], got))
            elif verbose:
                print("  %s = %r %s" % (fact["name"], got, fact.get("unit", "")))
        status = "ok  " if nbad == 0 else "FAIL"
        extra = " (inexact times: %d)" % t.inexact if (verbose and t.inexact) else ""
        print("%s %-70s %d/%d facts%s" % (status, v["trace"], len(facts) - nbad, len(facts), extra))
        bad += nbad
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
