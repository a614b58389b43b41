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
}


def calc(t, c):
    fn = CALCS.get(c.get("fn"))
    if fn is None:
        raise ValueError("unknown calc fn %r" % (c.get("fn"),))
    return fn(t, c)


KNOWN_IDS = {"gpu-starvation", "launch-overhead", "comm-serialized", "exposed-comm",
             "backward-prefetch-missing", "cpu-sync-stall", "allocator-thrash",
             "allocator-fragmentation", "straggler-rank", "inefficient-compute"}
NEW_IDS = {"dataloader-stall"}  # defined in README.md
PARALLELISM = {"FSDP1", "FSDP2", "DDP", "tensor_parallel", "sequence_parallel", "expert_parallel",
               "pipeline", "embedding_all_to_all", "single_gpu", "unknown"}
MODES = {"train", "prefill", "decode", "mixed", "unknown"}
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
