#!/usr/bin/env python3
"""Run Holistic Trace Analysis on one trace, the analyses closest to what
`fsdpa analyze` reports, for bench/run.py.  Uses HTA_SRC (a source
checkout) if set, else an installed `hta`.

    python3 bench/hta_run.py TRACE.json

Prints one JSON line: which analyses ran and the seconds each took."""
import json
import os
import sys
import tempfile
import time


def main():
    trace = os.path.abspath(sys.argv[1])
    src = os.environ.get("HTA_SRC")
    if src:
        sys.path.insert(0, src)
    t0 = time.perf_counter()
    from hta.trace_analysis import TraceAnalysis  # noqa: E402  (path set above)

    out = {"import_s": round(time.perf_counter() - t0, 3), "ran": [], "failed": []}
    with tempfile.TemporaryDirectory() as d:
        # HTA reads every trace file in a directory (rank from distributedInfo)
        os.symlink(trace, os.path.join(d, "rank0.json.gz" if trace.endswith(".gz") else "rank0.json"))
        t1 = time.perf_counter()
        ta = TraceAnalysis(trace_dir=d)
        out["parse_s"] = round(time.perf_counter() - t1, 3)
        calls = [
            ("temporal_breakdown", lambda: ta.get_temporal_breakdown(visualize=False)),
            ("idle_time_breakdown", lambda: ta.get_idle_time_breakdown(visualize=False)),
            ("comm_comp_overlap", lambda: ta.get_comm_comp_overlap(visualize=False)),
            ("gpu_kernel_breakdown", lambda: ta.get_gpu_kernel_breakdown(visualize=False)),
            ("cuda_kernel_launch_stats", lambda: ta.get_cuda_kernel_launch_stats(visualize=False)),
            ("queue_length_summary", lambda: ta.get_queue_length_summary(ranks=[0])),
        ]
        for name, fn in calls:
            t = time.perf_counter()
            try:
                fn()
                out["ran"].append([name, round(time.perf_counter() - t, 3)])
            except Exception as e:  # an analysis HTA cannot do on this trace: note it, go on
                out["failed"].append([name, repr(e)[:200]])
    out["total_s"] = round(time.perf_counter() - t0, 3)
    print(json.dumps(out))


if __name__ == "__main__":
    main()
