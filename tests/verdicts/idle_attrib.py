#!/usr/bin/env python3
"""Split the all-stream GPU idle of a Kineto / PyTorch-profiler trace by cause.

Python standard library only; no libfsdpa, no fsdpa tool.  The engine is the
class IdleAttrib in facts.py next to this file (so that facts.py's calc
`idle_cause` needs nothing else); this file is its front end and the
reference for its rules.  Usage:

    python3 idle_attrib.py TRACE [--window all|steady|first] [--json] [--top N]
    python3 idle_attrib.py TRACE --window range:A:B        # absolute ns [A, B)

Times are integer ns exactly as facts.py reads them (JSON parsed with
parse_float=Decimal, ns = us * 1000).  "Idle" is facts.py's all-stream idle:
the gaps between consecutive intervals of the union of every kernel /
gpu_memcpy / gpu_memset event (any stream, any device of the file).  Every
ns of every gap (clipped to the window) gets exactly ONE cause below, so the
causes sum exactly to gpu_idle of the same window.

Windows
-------
  all     the whole GPU span.
  steady  the iterations after the first: ProfilerStep#N ranges after the
          first (facts.py's {"steps": "after_first"}); without ProfilerStep,
          inference-engine step annotations execute_<n>_context_<c>_
          generation_<g>...; without those, Optimizer.step#... iterations
          of the first optimizer name seen (iteration i = end of step i-1
          to end of step i, the first one starting at the first CPU event
          of the optimizer's thread); the window is iterations 2..n;
          without any, none (one pass, no steady state).  facts.py's
          window {"iterations": ...} is the same.
  first   the first iteration (same definitions).
  These are CPU-side ranges: where the GPU runs behind the CPU the GPU work
  of an iteration falls in a later window (said in the verdicts).

The rule for each gap [g0, g1)
------------------------------
K = the op that ends the gap: among the GPU ops (dur > 0) that start at g1,
the one whose launch call (runtime event with the same correlation id)
started first; L = [tL, tE) its launch call, th = L's (pid, tid).

 0. K has no launch call in the trace:
      - its correlation id is below every runtime call's correlation id
        (it was launched before the profiling window began):
        f_unknown / "queued before the profiling window"
      - otherwise f_unknown / "no launch record"
 1. [g0, tL)  K not launched yet.  Each sub-interval gets the state of
    thread th there (the innermost traced event of th, from a stack
    flattening of th's cpu_op / user_annotation / python_function /
    runtime events):
      - inside a BLOCKING runtime call -> b_host_blocked / that call:
          by name: *Synchronize, cudaMemcpy / hipMemcpy / *Memcpy2D /
          hipMemcpyWithStream / cudaMemset / hipMemset (synchronous),
          cudaFree / hipFree / cudaFreeHost / hipHostFree,
          cudaMalloc / hipMalloc / cudaHostAlloc / cudaMallocHost /
          hipHostMalloc (allocator);
          by behaviour: cudaMemcpyAsync / hipMemcpyAsync / cudaMemsetAsync
          lasting >= 50 us (the label adds its own copy's kind, e.g.
          "DtoH (Device -> Pageable)"); a kernel launch call lasting >= 1 ms;
          any other runtime call lasting >= 1 ms.  Graph launches
          (cudaGraphLaunch / hipGraphLaunch) are host work submitting the
          graph: a_host_not_launched whatever their length.
        EXCEPT first use -> e_first_use / that call: a launch call >= 1 ms
          that is the first launch of its kernel name in the trace (module
          load), and allocator calls (malloc family) inside the first
          iteration when no allocator call happens in the later ones
          (the cache filled once); every call when the trace has no
          iteration at all is NOT counted first-use (undecidable: said so).
      - inside a short runtime call (launches, queries) ->
        a_host_not_launched / "<call> (runtime call)"
      - inside another traced event -> a_host_not_launched / innermost
        event name (CPU op, annotation or Python function)
      - the innermost event is the autograd entry (Python run_backward /
        _engine_run_backward / torch.autograd.backward) and another thread
        runs autograd::engine::evaluate_function ops: the launching thread
        is waiting for that autograd thread, so the sub-interval is split
        again by the autograd thread's state with these same rules (one
        level; the label names both threads)
      - no traced event of th spans it -> a_host_not_launched /
        "untraced time on the launching thread (inside <innermost
        enclosing user annotation>)" (the thread
        is busy in code the profiler did not record, e.g. a Python loop
        without with_stack, or a host spin-wait)
 2. [tL, tE)  inside K's own launch call: b_host_blocked / call when the
    call is blocking by name (hipMemcpyWithStream, cudaMemcpy ...);
    a_host_not_launched / "<call> (graph submission)" for a graph launch;
    else, when it lasted >= 1 ms, b_host_blocked (e_first_use when it is
    the first launch of K's name); else a_host_not_launched /
    "<call> (launch)".
 3. [max(g0, tE), g1)  K launched and queued, not started, while NO op ran
    on any stream (an all-stream gap: nothing in the trace was running, so
    K was not waiting for traced GPU work that was still running):
      - shorter than 30 us: g_device_latency (the GPU front end picking up
        an op already queued: kernel-to-kernel latency)
      - else, when the launching thread issued a stream-wait call
        (cudaStreamWaitEvent / hipStreamWaitEvent) after its previous
        launch or async copy / memset call and before L: c_stream_wait.  Since nothing of the
        trace ran on any stream during it, the awaited work is outside the
        trace (recorded before the window, by a thread / process not
        traced, or GPU work the profiler did not capture); the label says
        whether an EventRecord call precedes the wait in the trace at all
        (Kineto of these traces records none: cudaEventRecord /
        hipEventRecord are absent from all four; with Python stacks the
        record may still show as a torch/cuda/streams.py record_event
        frame, as in the sglang trace, which the verdict reads apart).
      - else f_unknown / "queued <K>: waited >= 30 us with nothing running
        in the trace and no stream-wait call" (graph-internal dependency,
        untraced GPU work, another process on the device: undecidable).
    A queued communication kernel is NOT rank wait here: NCCL/RCCL and
    DeepEP kernels wait for their peers while running (busy time, counted
    in exposed communication), not before they start.

Exposed communication (collective kernels with no compute kernel beside
them) is not idle; it is reported apart (d/f: transfer vs waiting for
peers cannot be split from one rank's trace).
"""

import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import facts  # noqa: E402  (standard library only; it holds the engine, facts.IdleAttrib)

Attrib = facts.IdleAttrib


def main(argv):
    if not argv:
        print(__doc__)
        return 2
    path = argv[0]
    w = "all"
    top = 12
    as_json = False
    i = 1
    while i < len(argv):
        if argv[i] == "--window":
            w = argv[i + 1]
            i += 2
        elif argv[i] == "--top":
            top = int(argv[i + 1])
            i += 2
        elif argv[i] == "--json":
            as_json = True
            i += 1
        else:
            print("unknown argument %s" % argv[i], file=sys.stderr)
            return 2
    A = Attrib(path)
    r = A.run(w, top)
    if as_json:
        print(json.dumps(r, indent=1))
    else:
        print("%s  window=%s  iterations=%s (%d)  idle=%d ns" % (path, r["window"], r["iterations"],
                                                                 r["iteration_count"], r["idle_ns"]))
        for k, v in r["causes_ns"].items():
            print("  %-20s %14d ns  %7d ppm" % (k, v, r["causes_ppm"][k]))
        for x in r["top"]:
            print("    %-20s %14d ns %7d ppm  %s" % (x["cause"], x["ns"], x["ppm_of_idle"], x["what"]))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
