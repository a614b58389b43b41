#!/usr/bin/env python3
"""The warm-up cut and the sampling signal of the launch-gaps findings
(docs/report-contract.md, "Warm-up and steady state"), recomputed from the raw
traces of the real corpus without the library, against the report's
ranks[0].launch_gaps.warmup and .sampling:

- with two or more ProfilerStep ranges the warm-up is [start of the first,
  start of the second) and the steady range [start of the second, last end);
  with one the steady range is it, without any (and no inferred iterations)
  the whole trace; ProfilerStep ranges at the start holding a CUDA/HIP
  graph-capture call (stream begin-capture, graph instantiate) are set-up
  too, as long as a later step remains;
- GPU idle and host-wait idle in those ranges (any iteration source: the
  reported ranges) as tests/verdicts/facts.py measures them;
- the runtime calls with a correlation id, the span of their ids, and
  sampled = span > launch.sampled_corr_ratio (100) x calls: true exactly on
  the two hta/trace_filter traces, which are known to be sampled.

Exit 0 = all equal, 1 = a difference, 2 = no CLI, 77 = no corpus."""
import sys

from verdictlib import each_verdict_trace, load_facts, run

facts = load_facts()  # the verdicts' independent recomputation
SAMPLED = {"hta/trace_filter/sampled_rank-0.json.gz", "hta/trace_filter/sampled_rank-1.json.gz"}
RATIO = 100
CAPTURE = tuple(a + b for a in ("cuda", "cu", "hip") for b in ("StreamBeginCapture", "GraphInstantiate"))


def judge(rel, path, rep):
    lg = rep["ranks"][0]["launch_gaps"]
    if lg is None:
        return None
    t = facts.Trace(path)
    smp = lg["sampling"]
    # the report's times are on the trace clock: baseTimeNanoseconds
    # added to the events' ts
    base = int(t.top.get("baseTimeNanoseconds") or 0)
    w = {k: (v - base if k.endswith(("_start_ns", "_end_ns")) and v is not None else v)
         for k, v in lg["warmup"].items()}
    want = {}
    st = t.steps()
    if st:
        want["iterations_from"] = "ProfilerStep"
        want["iterations"] = len(st)
        k = 1 if len(st) >= 2 else 0
        cap = [any(s["_s"] <= e["_s"] < s["_e"] and e["name"].startswith(CAPTURE) for e in t.rt) for s in st]
        while k < len(st) - 1 and cap[k]:
            k += 1
        want["warmup_iterations"] = k
        want["capture_iterations"] = sum(cap[:k])
        want["steady_start_ns"] = st[k]["_s"]
        want["steady_end_ns"] = max(e["_e"] for e in st[k:])
        if k:
            want["warmup_start_ns"] = st[0]["_s"]
            want["warmup_end_ns"] = st[1]["_s"]
    if w["warmup_iterations"]:
        rng = [w["warmup_start_ns"], w["warmup_end_ns"]]
        want["warmup_gpu_idle_ns"] = facts.calc(t, {"fn": "gpu_idle", "window": {"range": rng}})
        want["warmup_gpu_host_wait_ns"] = facts.calc(
            t, {"fn": "idle_category", "category": "host_wait", "window": {"range": rng}})
    sw = {"range": [w["steady_start_ns"], w["steady_end_ns"]]} if w["steady_start_ns"] is not None else None
    want["steady_gpu_idle_ns"] = facts.calc(t, {"fn": "gpu_idle", "window": sw})
    want["steady_gpu_host_wait_ns"] = facts.calc(t, {"fn": "idle_category", "category": "host_wait", "window": sw})
    ids = [(e.get("args") or {}).get("correlation") for e in t.rt]
    ids = [i for i in ids if isinstance(i, int)]
    span = max(ids) - min(ids) + 1 if ids else 0
    got_s = {"runtime_calls": len(ids), "correlation_span": span, "max_ratio": RATIO,
             "sampled": len(ids) >= 2 and span > RATIO * len(ids)}
    diffs = ["%s: report %r, raw %r" % (k, w.get(k), v) for k, v in want.items() if w.get(k) != v]
    diffs += ["sampling.%s: report %r, raw %r" % (k, smp.get(k), v) for k, v in got_s.items() if smp.get(k) != v]
    if got_s["sampled"] != (rel in SAMPLED):
        diffs.append("sampled %r but the trace is %s" % (got_s["sampled"], "sampled" if rel in SAMPLED else "complete"))
    return diffs, "%s, %d iterations, warm-up idle %s, steady idle %s" % (
        w["iterations_from"], w["iterations"], w["warmup_gpu_idle_ns"], w["steady_gpu_idle_ns"])


if __name__ == "__main__":
    sys.exit(run(each_verdict_trace(judge)))
