#!/usr/bin/env python3
"""Self-check for tracegen (stdlib unittest).

    python3 tools/tracegen/test_tracegen.py [-v]

Every scenario and format is generated, parsed back with json.load and the
truth file is compared with an independent recount made from the parsed
events only (no tracegen internals are used for the recount).
"""

import gzip
import hashlib
import json
import os
import re
import shutil
import sys
import tempfile
import time
import unittest
from decimal import Decimal

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import tracegen  # noqa: E402

GPU_CATS = {"kernel", "gpu_memcpy", "gpu_memset", "Kernel", "Memcpy", "Memset"}
KERNEL_CATS = {"kernel", "Kernel"}
RUNTIME_CATS = {"cuda_runtime", "cuda_driver", "Runtime"}
SYNC_APIS = {"cudaStreamSynchronize", "cudaDeviceSynchronize", "cudaEventSynchronize"}


def load(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8") as fh:
        return json.load(fh, parse_float=Decimal)


def read_bytes(path):
    with open(path, "rb") as fh:
        return fh.read()


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


def ulen(iv):
    return sum(e - s for s, e in union(iv))


def inter(a, b):
    a, b = union(a), union(b)
    i = j = t = 0
    while i < len(a) and j < len(b):
        s, e = max(a[i][0], b[j][0]), min(a[i][1], b[j][1])
        if e > s:
            t += e - s
        if a[i][1] < b[j][1]:
            i += 1
        else:
            j += 1
    return t


def recount(path):
    """Metrics recomputed from the trace file alone."""
    d = load(path)
    base = int(d.get("baseTimeNanoseconds", 0))

    def ns(v):
        return base + int(Decimal(v) * 1000)

    evs = d["traceEvents"]
    cats = {}
    for e in evs:
        c = e.get("cat", "")
        cats[c] = cats.get(c, 0) + 1
    runtime = {}
    gpu = []
    steps = []
    sync = {}
    mallocs = []
    frees = 0
    peak_a = peak_r = None
    cpu = []
    for e in evs:
        c = e.get("cat", "")
        a = e.get("args", {})
        if c in RUNTIME_CATS:
            runtime[a["correlation"]] = e
            if e["name"] in SYNC_APIS:
                s = sync.setdefault(e["name"], [0, 0, 0])
                dd = int(Decimal(e["dur"]) * 1000)
                s[0] += 1
                s[1] += dd
                s[2] = max(s[2], dd)
            # device memory of every allocator backend the generator writes
            if e["name"] in ("cudaMalloc", "cuMemCreate", "cudaMallocAsync"):
                mallocs.append(ns(e["ts"]))
            if e["name"] in ("cudaFree", "cuMemRelease", "cudaFreeAsync"):
                frees += 1
        elif c in GPU_CATS:
            gpu.append(e)
        if e.get("name", "").startswith("ProfilerStep#") and e.get("ph") == "X" and c in ("user_annotation",
                                                                                          "Operator"):
            steps.append({"name": e["name"], "start_ns": ns(e["ts"]), "dur_ns": int(Decimal(e["dur"]) * 1000)})
        if e.get("name") == "[memory]" and a.get("Device Type") not in (0, None) and "Total Allocated" in a:
            peak_a = max(peak_a or 0, a["Total Allocated"])
            peak_r = max(peak_r or 0, a["Total Reserved"])
        if c in ("cpu_op", "user_annotation", "Operator"):
            cpu.append(e)
    all_iv, comm_iv, comp_iv = [], [], []
    per_stream = {}
    # communication that is not NCCL-named (ep_moe, custom_ar): DeepEP's
    # internode kernels by name, and whatever a custom all-reduce op or
    # record_param_comms launched (no GEMM is launched in them but the fused
    # all-gather+matmul's, which runs under symm_mem::, not listed here)
    ar_ops = [(o["tid"], ns(o["ts"]), ns(o["ts"]) + int(Decimal(o["dur"]) * 1000)) for o in cpu
              if o["name"] in ("_C_custom_ar::all_reduce", "vllm::all_reduce", "record_param_comms")]

    def launched_in_ar(rt):
        t = ns(rt["ts"])
        return any(str(tid) == str(rt["tid"]) and s0 <= t <= e0 for tid, s0, e0 in ar_ops)

    for e in gpu:
        s = ns(e["ts"])
        en = s + int(Decimal(e["dur"]) * 1000)
        st = e["args"]["stream"]
        ps = per_stream.setdefault(st, {"iv": [], "kernels": 0, "ops": []})
        ps["iv"].append((s, en))
        ps["ops"].append((s, en, runtime[e["args"]["correlation"]]))
        all_iv.append((s, en))
        if e["cat"] in KERNEL_CATS:
            ps["kernels"] += 1
            if (e["name"].lower().startswith(("nccl", "rccl", "msccl")) or "deep_ep::internode::" in e["name"]
                    or (ar_ops and launched_in_ar(runtime[e["args"]["correlation"]]))):
                comm_iv.append((s, en))
            else:
                comp_iv.append((s, en))
    span = max(x[1] for x in all_iv) - min(x[0] for x in all_iv) if all_iv else 0
    busy = ulen(all_iv)
    hw = kw = ot = 0
    for st, ps in per_stream.items():
        ops = sorted(ps["ops"], key=lambda x: x[0])
        for prev, cur in zip(ops, ops[1:]):
            gap = cur[0] - prev[1]
            if ns(cur[2]["ts"]) > prev[1]:
                hw += gap
            elif gap < 30000:
                kw += gap
            else:
                ot += gap
    steps.sort(key=lambda s: s["start_ns"])
    out = {
        "events_by_cat": cats,
        "steps": steps,
        "span_ns": span, "busy_ns": busy,
        "streams": {st: (ps["kernels"], ulen(ps["iv"])) for st, ps in per_stream.items()},
        "comm_ns": ulen(comm_iv) if comm_iv else None,
        "compute_ns": ulen(comp_iv),
        "overlap_ns": inter(comm_iv, comp_iv) if comm_iv else None,
        "launch": (hw, kw, ot),
        "sync": sync,
        "malloc_calls": len(mallocs), "free_calls": frees,
        "malloc_ts": mallocs,
        "peak_alloc": peak_a, "peak_res": peak_r,
        "doc": d,
        "gpu": gpu, "runtime": runtime, "cpu": cpu, "ns": ns,
    }
    return out


def recount_fsdp2_units(rc):
    """Per-unit comm/compute for FSDP2 traces, from annotations only."""
    ns = rc["ns"]
    doc = rc["doc"]
    cpu = rc["cpu"]
    main_tid = None
    for e in cpu:
        if e["name"].startswith("ProfilerStep#"):
            main_tid = e["tid"]
    by_ext = {}
    anns = {}
    for e in cpu:
        a = e["args"]
        by_ext[a["External id"]] = e
        s = ns(e["ts"])
        anns.setdefault(e["tid"], []).append((s, s + int(Decimal(e["dur"]) * 1000), e))
    res = {}
    # comm: kernel -> record_param_comms (External id) -> enclosing FSDP annotation
    pat_ag = re.compile(r"^FSDP::all_gather \((.*)\)$")
    pat_rs = re.compile(r"^FSDP::post_backward_reduce \((.*)\)$")
    for k in rc["gpu"]:
        if not k["name"].startswith("nccl"):
            continue
        op = by_ext[k["args"]["External id"]]
        assert op["name"] == "record_param_comms"
        t = ns(op["ts"])
        unit = None
        for s, e, ev in anns[op["tid"]]:
            if s <= t <= e and ev["cat"] == "user_annotation":
                m = pat_ag.match(ev["name"]) or pat_rs.match(ev["name"])
                if m:
                    unit = m.group(1)
        assert unit is not None, op
        phase = "forward" if op["tid"] == main_tid else "backward"
        ks = ns(k["ts"])
        res.setdefault((unit, phase), {"comm": [], "compute": []})["comm"].append(
            (ks, ks + int(Decimal(k["dur"]) * 1000)))
    # compute windows: pre_forward end .. post_forward start (main thread),
    # pre_backward end .. post_backward_reshard start (autograd thread)
    windows = []
    for tid, lst in anns.items():
        lst.sort(key=lambda x: x[0])
        open_ = {}
        for s, e, ev in lst:
            n = ev["name"]
            for pre, post, phase in (("FSDP::pre_forward (", "FSDP::post_forward (", "forward"),
                                     ("FSDP::pre_backward (", "FSDP::post_backward_reshard (", "backward")):
                if n.startswith(pre):
                    open_[(n[len(pre):-1], phase)] = e
                elif n.startswith(post):
                    key = (n[len(post):-1], phase)
                    windows.append((tid, open_.pop(key), s, key))
    for k in rc["gpu"]:
        if k["cat"] != "kernel" or k["name"].startswith("nccl"):
            continue
        rt = rc["runtime"][k["args"]["correlation"]]
        t = ns(rt["ts"])
        for tid, ws, we, key in windows:
            if rt["tid"] == tid and ws <= t <= we:
                ks = ns(k["ts"])
                res.setdefault(key, {"comm": [], "compute": []})["compute"].append(
                    (ks, ks + int(Decimal(k["dur"]) * 1000)))
    return {key: (ulen(v["comm"]), ulen(v["compute"])) for key, v in res.items()}


class TraceGenTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="tracegen_test_")

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def gen(self, scenario, name, **kw):
        path = os.path.join(self.tmp, name)
        t = tracegen.generate(scenario, path, **kw)
        return path, t

    def check_truth(self, path, t, fsdp2_units=False):
        rc = recount(path)
        doc = rc["doc"]
        self.assertEqual(t["events_by_cat"], rc["events_by_cat"])
        self.assertEqual(t["steps"], rc["steps"])
        self.assertEqual(t["gpu"]["span_ns"], rc["span_ns"])
        self.assertEqual(t["gpu"]["busy_ns"], rc["busy_ns"])
        if rc["span_ns"]:
            self.assertAlmostEqual(t["gpu"]["density"], rc["busy_ns"] / rc["span_ns"], places=12)
        else:
            self.assertIsNone(t["gpu"]["density"])
        got = {s["stream"]: (s["kernels"], s["busy_ns"]) for s in t["gpu"]["streams"]}
        self.assertEqual(got, rc["streams"])
        ov = t["overlap"]
        self.assertEqual(ov["comm_ns"], rc["comm_ns"])
        self.assertEqual(ov["compute_ns"], rc["compute_ns"])
        self.assertEqual(ov["overlap_ns"], rc["overlap_ns"])
        if rc["comm_ns"] is not None:
            self.assertEqual(ov["exposed_comm_ns"], rc["comm_ns"] - rc["overlap_ns"])
        la = t["launch"]
        self.assertEqual((la["host_wait_ns"], la["kernel_wait_ns"], la["other_ns"]), rc["launch"])
        # calls the generator made block: each must be in the trace, ending
        # 4-9 us after the op it names (its own op: same correlation)
        sync = {k: list(v) for k, v in rc["sync"].items()}
        ns = rc["ns"]
        rts = [e for e in rc["runtime"].values()]
        for b in t.get("blocking", []):
            hits = [e for e in rts if e["name"] == b["api"] and int(Decimal(e["dur"]) * 1000) == b["dur_ns"]]
            self.assertTrue(hits, b)
            e = hits[0]
            end = ns(e["ts"]) + b["dur_ns"]
            ops = [g for g in rc["gpu"] if g["name"] == b["waited_op"] and
                   4000 <= end - ns(g["ts"]) - int(Decimal(g["dur"]) * 1000) <= 9000]
            if b["source"] == "own_op":
                ops = [g for g in ops if g["args"]["correlation"] == e["args"]["correlation"]]
            self.assertTrue(ops, b)
            s = sync.setdefault(b["api"], [0, 0, 0])
            s[0] += 1
            s[1] += b["dur_ns"]
            s[2] = max(s[2], b["dur_ns"])
        self.assertEqual({k: [v["count"], v["total_ns"], v["max_ns"]] for k, v in t["sync"].items()}, sync)
        al = t["allocator"]
        self.assertEqual(al["malloc_calls"], rc["malloc_calls"])
        self.assertEqual(al["free_calls"], rc["free_calls"])
        self.assertEqual(al["peak_allocated_bytes"], rc["peak_alloc"])
        self.assertEqual(al["peak_reserved_bytes"], rc["peak_res"])
        warm = al["warmup_steps"]
        steps = rc["steps"]
        if len(steps) > warm:
            t0 = steps[warm]["start_ns"]
            self.assertEqual(al["steady_state_malloc_calls"], sum(1 for x in rc["malloc_ts"] if x >= t0))
        self.assertEqual(t["base_time_ns"], int(doc.get("baseTimeNanoseconds", 0)))
        if "distributedInfo" in doc:
            self.assertEqual(t["rank"], doc["distributedInfo"]["rank"])
            self.assertEqual(t["world_size"], doc["distributedInfo"]["world_size"])
        for f in t["expected_findings"] + t["absent_findings"]:
            self.assertIn(f, tracegen.ALL_FINDINGS)
        self.assertFalse(set(t["expected_findings"]) & set(t["absent_findings"]))
        if fsdp2_units:
            units = recount_fsdp2_units(rc)
            got = {(u["name"], u["phase"]): (u["comm_ns"], u["compute_ns"]) for u in t["fsdp"]["units"]}
            self.assertEqual(got, units)
        return rc

    def test_all_scenarios_all_formats(self):
        for fmt in ("new", "old", "legacy19"):
            for sc in sorted(tracegen.SCENARIOS):
                with self.subTest(scenario=sc, format=fmt):
                    ext = ".json.gz" if fmt == "new" else ".json"
                    nr = 2 if sc == "straggler" else None
                    path, t = self.gen(sc, "%s_%s%s" % (sc, fmt, ext), steps=3, layers=4, format=fmt, ranks=nr)
                    ts = t if isinstance(t, list) else [t]
                    for r, tr in enumerate(ts):
                        p = tracegen.rank_path(path, r, len(ts))
                        self.assertTrue(os.path.exists(tracegen.truth_path(p)))
                        with open(tracegen.truth_path(p)) as fh:
                            self.assertEqual(json.load(fh), json.loads(json.dumps(tr)))
                        fsdp2 = (fmt != "legacy19" and tr["fsdp"]["version"] == "fsdp2")
                        rc = self.check_truth(p, tr, fsdp2_units=fsdp2)
                        if fmt != "new":
                            for e in rc["doc"]["traceEvents"]:
                                if "ts" in e:
                                    self.assertIsInstance(e["ts"], int)
                        ns = tracegen.SCENARIOS[sc].get("no_step")
                        names = [e.get("name", "") for e in rc["doc"]["traceEvents"]
                                 if e.get("ph") == "X" and e.get("cat") != "gpu_user_annotation"]
                        if tracegen.SCENARIOS[sc].get("engine_steps"):
                            # a serving engine's step annotations instead of ProfilerStep
                            self.assertEqual(tr["steps"], [])
                            self.assertEqual(sum(1 for n in names if n.startswith("execute_")), 3)
                            continue
                        if not ns:
                            # a one-pass scenario (first_use) has no ProfilerStep at all
                            self.assertEqual(len(tr["steps"]), 0 if tracegen.SCENARIOS[sc].get("one_pass") else 3)
                            continue
                        # no ProfilerStep: the iterations are the Optimizer.step# marks (or none at all)
                        self.assertEqual(tr["steps"], [])
                        self.assertFalse(any(n.startswith("ProfilerStep#") for n in names))
                        marks = sum(1 for n in names if n.startswith("Optimizer.step#"))
                        self.assertEqual(marks, 3 if ns == "optimizer" else 0)
                        loads = sum(1 for n in names if n.startswith("enumerate(DataLoader)#"))
                        self.assertEqual(len(tr["no_step"]["iterations"]), loads if ns == "dataloader" else marks)
                        if ns == "none":
                            self.assertFalse(any("DataLoader" in n for n in names))

    def test_scenario_properties(self):
        res = {}
        for sc in sorted(tracegen.SCENARIOS):
            path, t = self.gen(sc, sc + ".json", steps=4, ranks=1)
            res[sc] = t
        h = res["fsdp2_healthy"]
        self.assertEqual(h["fsdp"]["backward"]["pattern"], "zigzag")
        self.assertTrue(all(h["fsdp"]["backward"]["prefetched"].values()))
        self.assertGreater(h["overlap"]["overlap_pct"], 80)
        self.assertGreater(h["gpu"]["density"], 0.95)
        self.assertEqual(h["allocator"]["malloc_calls_by_step"][1:], [0, 0, 0])
        self.assertEqual(h["sync"], {})
        npf = res["fsdp2_no_prefetch"]
        self.assertFalse(any(npf["fsdp"]["backward"]["prefetched"].values()))
        s1 = res["fsdp1_serialized"]
        self.assertEqual(s1["overlap"]["overlap_ns"], 0)
        self.assertEqual(s1["fsdp"]["version"], "fsdp1")
        nb = res["network_bound"]
        self.assertGreater(nb["overlap"]["exposed_comm_ns"], 0.3 * nb["overlap"]["comm_ns"])
        for u in nb["fsdp"]["units"]:
            self.assertGreater(u["comm_ns"], 2.5 * u["compute_ns"])
        coc = res["comm_on_compute_stream"]
        self.assertEqual(coc["overlap"]["overlap_ns"], 0)
        self.assertEqual([s["role"] for s in coc["gpu"]["streams"]], ["mixed"])
        lb = res["launch_bound"]
        self.assertLess(lb["gpu"]["density"], 0.4)
        self.assertGreater(lb["launch"]["host_wait_ns"], 0.95 * sum(lb["launch"].values()))
        fh = res["fused_healthy"]
        self.assertGreater(fh["gpu"]["density"], 0.95)
        ss = res["sync_stall"]
        self.assertEqual(ss["sync"]["cudaStreamSynchronize"]["count"], 4)
        self.assertEqual(ss["sync"]["cudaDeviceSynchronize"]["count"], 2)
        th = res["allocator_thrash"]
        self.assertTrue(all(x > 0 for x in th["allocator"]["malloc_calls_by_step"]))
        self.assertGreater(th["allocator"]["free_calls"], 0)
        ah = res["allocator_healthy"]
        self.assertEqual(ah["allocator"]["warmup_steps"], 2)
        self.assertGreater(ah["allocator"]["malloc_calls_by_step"][1], 0)
        self.assertEqual(ah["allocator"]["steady_state_malloc_calls"], 0)
        mx = res["mixed"]
        self.assertIn(False, mx["fsdp"]["backward"]["prefetched"].values())
        self.assertIn(True, mx["fsdp"]["backward"]["prefetched"].values())
        self.assertGreater(mx["allocator"]["steady_state_malloc_calls"], 0)
        self.assertIn("cudaStreamSynchronize", mx["sync"])

    def test_stream_wait_evidence(self):
        """stream_wait writes the waits in every form Kineto does: cuda_sync activities (new, old)
        linked to the runtime calls by correlation, or the runtime calls alone (legacy19)."""
        for fmt in ("new", "old", "legacy19"):
            with self.subTest(format=fmt):
                path, t = self.gen("stream_wait", "sw_%s.json" % fmt, steps=3, format=fmt)
                with open(path) as fh:
                    evs = json.load(fh)["traceEvents"]
                rt = {e["args"]["correlation"]: e for e in evs
                      if e.get("cat") in ("cuda_runtime", "Runtime") and "correlation" in e.get("args", {})}
                names = sorted({e["name"] for e in rt.values()})
                for api in ("cudaEventRecord", "cudaStreamWaitEvent", "cudaEventSynchronize",
                            "cudaStreamSynchronize", "cudaDeviceSynchronize"):
                    self.assertIn(api, names)
                syncs = [e for e in evs if e.get("cat") == "cuda_sync"]
                if fmt == "legacy19":
                    self.assertEqual(syncs, [])
                    continue
                kinds = {}
                for e in syncs:
                    a = e["args"]
                    self.assertEqual(a["cuda_sync_kind"], e["name"])
                    kinds.setdefault(e["name"], []).append(e)
                    call = rt[a["correlation"]]
                    self.assertEqual(call["name"], {"Stream Wait Event": "cudaStreamWaitEvent",
                                                    "Event Sync": "cudaEventSynchronize",
                                                    "Stream Sync": "cudaStreamSynchronize",
                                                    "Context Sync": "cudaDeviceSynchronize"}[e["name"]])
                    self.assertEqual((e["ts"], e["dur"]), (call["ts"], call["dur"]))
                    if e["name"] == "Stream Sync":
                        self.assertNotIn("wait_on_stream", a)
                        self.assertEqual(e["tid"], 7 + (1000000 if fmt == "new" else 0))
                    elif e["name"] == "Context Sync":
                        self.assertNotIn("wait_on_stream", a)
                        self.assertEqual((e["tid"], a["stream"]), (-1, -1))
                    else:
                        self.assertEqual(a["wait_on_stream"], 20)
                        self.assertEqual(rt[a["wait_on_cuda_event_record_corr_id"]]["name"], "cudaEventRecord")
                        self.assertEqual((e["tid"], a["stream"]),
                                         (7, 7) if e["name"] == "Stream Wait Event" else (-1, -1))
                self.assertEqual({k: len(v) for k, v in kinds.items()},
                                 {"Stream Wait Event": 3, "Event Sync": 3, "Stream Sync": 3, "Context Sync": 1})
                ic = t["idle_causes"]
                for w in [ic["all"]] + list(ic["streams"].values()):
                    self.assertEqual(w["idle_ns"], sum(w[c + "_ns"] for c in tracegen.IDLE_CAUSES))
                    self.assertLessEqual(w["outside_trace_ns"], w["stream_wait_ns"])
                    self.assertLessEqual(w["inferred_ns"], w["stream_wait_ns"] + w["rank_wait_ns"])
                self.assertGreater(ic["streams"]["0:7"]["stream_wait_ns"], 0)
                self.assertGreater(ic["all"]["host_blocked_ns"], 0)
        self.assertIsNone(self.gen("sync_stall", "ss_ic.json", steps=2)[1]["idle_causes"])

    def test_memory_sawtooth(self):
        path, t = self.gen("fsdp2_healthy", "saw.json", steps=3, layers=4)
        d = load(path)
        steps = t["steps"]
        base = int(d["baseTimeNanoseconds"])
        mem = [(base + int(Decimal(e["ts"]) * 1000), e["args"]) for e in d["traceEvents"]
               if e.get("name") == "[memory]" and e["args"]["Device Type"] == 1]
        mem.sort(key=lambda x: x[0])
        lasts = []
        for s in steps:
            inside = [a for ts, a in mem if s["start_ns"] <= ts < s["start_ns"] + s["dur_ns"]]
            self.assertGreater(max(a["Total Allocated"] for a in inside), inside[0]["Total Allocated"])
            lasts.append(inside[-1]["Total Allocated"])
        self.assertEqual(len(set(lasts)), 1)  # back to the same baseline each step
        addrs = {}
        for ts, a in mem:
            if a["Bytes"] > 0:
                addrs[a["Addr"]] = a["Bytes"]
            else:
                self.assertEqual(addrs.pop(a["Addr"]), -a["Bytes"])

    def test_escapes_and_shapes(self):
        path, t = self.gen("mixed", "shape.json", steps=2, layers=3)
        raw = read_bytes(path).decode("ascii")
        self.assertIn('\\"caf\\u00e9\\"', raw)
        self.assertIn("C:\\\\kernels", raw)
        self.assertIn('"name": "stream 7 "', raw)
        self.assertIn("pt_autograd_0", raw)
        self.assertIn('"pid": "Spans"', raw)
        d = load(path)
        names = {e.get("name") for e in d["traceEvents"]}
        for n in ("FSDP::root_pre_forward", "FSDP::pre_forward (layers.0)", "FSDP::all_gather (layers.1)",
                  "fsdp::all_gather_copy_in", "record_param_comms", "nccl:_all_gather_base",
                  "FSDP::all_gather_copy_out (layers.0)", "FSDP::post_forward (layers.0)",
                  "FSDP::pre_backward (layers.2)", "FSDP::backward_prefetch for layers.0",
                  "FSDP::post_backward_reduce (layers.0)", "FSDP::root_post_backward_callback",
                  "autograd::engine::evaluate_function: MmBackward0", "MmBackward0", "cudaLaunchKernel",
                  "cudaMalloc", "Record Window End", tracegen.ESCAPE_OP,
                  "ncclDevKernel_AllGather_RING_LL(ncclDevKernelArgsStorage<4096ul>)",
                  "ncclDevKernel_ReduceScatter_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)"):
            self.assertIn(n, names)
        self.assertEqual(d["traceEvents"][-1]["name"], "Record Window End")
        keys = list(d.keys())
        self.assertLess(keys.index("baseTimeNanoseconds"), keys.index("traceEvents"))
        self.assertLess(keys.index("traceEvents"), keys.index("traceName"))
        for e in d["traceEvents"]:
            if e.get("cat") == "kernel" and e["name"].startswith("nccl"):
                for k in ("Collective name", "In msg nelems", "Out msg nelems", "Group size", "dtype",
                          "Process Group Name", "Seq", "External id", "correlation"):
                    self.assertIn(k, e["args"])
            if "ts" in e and isinstance(e["ts"], Decimal):
                self.assertRegex(str(e["ts"]), r"^\d+\.\d{3}$")
        # pretty-printing: one key line per event like kineto
        self.assertIn('  {\n    "ph": "X", "cat": "kernel"', raw)
        # old NCCL names + FSDP1 annotations
        path, t = self.gen("fsdp1_serialized", "f1.json", steps=2, layers=3, nccl_names="old")
        d = load(path)
        names = {e.get("name") for e in d["traceEvents"]}
        for n in ("FullyShardedDataParallel.forward", "FullyShardedDataParallel._pre_forward",
                  "FullyShardedDataParallel._pre_backward_hook", "FullyShardedDataParallel._post_backward_hook",
                  "ncclKernel_AllGather_RING_LL_Sum_int8_t(ncclDevComm*, unsigned long, ncclWork*)",
                  "ncclKernel_ReduceScatter_RING_LL_Sum_float(ncclDevComm*, unsigned long, ncclWork*)"):
            self.assertIn(n, names)
        streams = {e["tid"] for e in d["traceEvents"] if e.get("cat") == "kernel" and e["name"].startswith("nccl")}
        self.assertEqual(streams, {13})

    def test_legacy_shapes(self):
        path, t = self.gen("fsdp2_healthy", "leg.json", steps=2, layers=3, format="legacy19")
        d = load(path)
        cats = {e.get("cat") for e in d["traceEvents"]}
        self.assertTrue({"Operator", "Runtime", "Kernel"} <= cats)
        self.assertFalse({"cpu_op", "kernel", "cuda_runtime"} & cats)
        k = next(e for e in d["traceEvents"] if e.get("cat") == "Kernel")
        self.assertIsInstance(k["tid"], str)
        self.assertTrue(k["tid"].startswith("stream "))
        self.assertIn("external id", k["args"])
        self.assertNotIn("distributedInfo", d)
        self.assertNotIn("baseTimeNanoseconds", d)

    def test_determinism(self):
        a = os.path.join(self.tmp, "da")
        b = os.path.join(self.tmp, "db")
        os.makedirs(a)
        os.makedirs(b)
        for d in (a, b):
            tracegen.generate("mixed", os.path.join(d, "x.json.gz"), steps=3, layers=4, seed=7)
        for f in ("x.json.gz", "x.truth.json"):
            ha = hashlib.sha256(read_bytes(os.path.join(a, f))).hexdigest()
            hb = hashlib.sha256(read_bytes(os.path.join(b, f))).hexdigest()
            self.assertEqual(ha, hb, f)
        tracegen.generate("mixed", os.path.join(b, "x.json.gz"), steps=3, layers=4, seed=8)
        self.assertNotEqual(read_bytes(os.path.join(a, "x.json.gz")), read_bytes(os.path.join(b, "x.json.gz")))

    def test_straggler(self):
        path, ts = self.gen("straggler", "strag.json.gz", steps=4, layers=4)
        self.assertEqual(len(ts), 4)
        sr = ts[0]["straggler"]["rank"]
        delay = ts[0]["straggler"]["delay_ns"]
        offsets = [t["clock_offset_ns"] for t in ts]
        self.assertEqual(len(set(offsets)), 4)
        ends = {}
        durs = {}
        for r, t in enumerate(ts):
            p = tracegen.rank_path(path, r, 4)
            self.check_truth(p, t, fsdp2_units=True)
            d = load(p)
            self.assertEqual(d["distributedInfo"]["rank"], r)
            base = int(d["baseTimeNanoseconds"])
            for e in d["traceEvents"]:
                if e.get("cat") == "kernel" and e["name"].startswith("nccl"):
                    a = e["args"]
                    s = base + int(Decimal(e["ts"]) * 1000)
                    du = int(Decimal(e["dur"]) * 1000)
                    key = (a["Process Group Name"], a["Seq"])
                    ends.setdefault(key, {})[r] = s + du - offsets[r]
                    durs.setdefault(r, 0)
                    durs[r] += du
        for key, per in ends.items():
            self.assertEqual(len(per), 4)
            self.assertEqual(len(set(per.values())), 1, key)   # collectives end together (true time)
        for r in range(4):
            if r != sr:
                self.assertGreaterEqual(durs[r] - durs[sr], delay * 4)

    # ---- the gap scenarios: each truth recounted from the trace file alone ----
    def events(self, path):
        d = load(path)
        base = int(d.get("baseTimeNanoseconds", 0))
        out = []
        for e in d["traceEvents"]:
            if e.get("ph") == "X" and "ts" in e:
                s = base + int(Decimal(e["ts"]) * 1000)
                out.append((s, s + int(Decimal(e.get("dur", 0)) * 1000), e))
        return d, sorted(out, key=lambda x: (x[0], x[1]))

    def step_durs(self, path):
        d, evs = self.events(path)
        return [b - a for a, b, e in evs if e["name"].startswith(("ProfilerStep#", "execute_"))
                and e.get("cat") in ("user_annotation", "Operator")]

    def check_what_if(self, scenario, path, t, nranks=1, **kw):
        """--switch-off writes the same scenario without its problem; the truth's step times and
        saving are those of the two files' step annotations (rank 0's)."""
        on = tracegen.rank_path(path, 0, nranks)
        self.assertEqual(t["what_if"]["steps_ns"], self.step_durs(on))
        off, to = self.gen(scenario, "off_" + os.path.basename(path), switch_off=True, **kw)
        to = to if isinstance(to, dict) else to[0]
        off = tracegen.rank_path(off, 0, nranks)
        self.assertEqual(to["generator"]["switch_off"], True)
        self.assertEqual(t["what_if"]["steps_off_ns"], self.step_durs(off))
        self.assertEqual(t["what_if"]["saving_ns"], sum(self.step_durs(on)) - sum(self.step_durs(off)))
        self.assertEqual(to["what_if"]["saving_ns"], t["what_if"]["saving_ns"])
        self.assertGreater(t["what_if"]["saving_ns"], 0)
        return off

    def idle_sums(self, t):
        for w in [t["idle_causes"]["all"]] + list(t["idle_causes"]["streams"].values()):
            self.assertEqual(w["idle_ns"], sum(w[c + "_ns"] for c in tracegen.IDLE_CAUSES))

    def test_external_wait(self):
        for form in ("cuda_sync", "rocm"):
            with self.subTest(form=form):
                path, t = self.gen("external_wait", "ew_%s.json.gz" % form, steps=3, wait_form=form)
                self.check_truth(path, t)
                self.idle_sums(t)
                d, evs = self.events(path)
                names = [e["name"] for _, _, e in evs]
                hip = form == "rocm"
                wait = "hipStreamWaitEvent" if hip else "cudaStreamWaitEvent"
                self.assertFalse(any("EventRecord" in n for n in names))   # recorded outside the trace
                syncs = [e for _, _, e in evs if e.get("cat") == "cuda_sync"]
                if hip:
                    self.assertEqual(syncs, [])
                    self.assertIn("hipMemcpyWithStream", names)
                    self.assertFalse(any(n.startswith("cuda") for n in names))
                else:
                    sw = [e for e in syncs if e["name"] == "Stream Wait Event"]
                    self.assertEqual(len(sw), 3)
                    for e in sw:
                        self.assertEqual(e["args"]["wait_on_cuda_event_record_corr_id"], -1)
                        self.assertEqual(e["args"]["wait_on_stream"], -1)
                # the kernel launched right after each wait starts when the outside event fired
                waits = [(a, b) for a, b, e in evs if e["name"] == wait]
                ops = sorted((a, b, e) for a, b, e in evs if e.get("cat") in GPU_CATS)
                rt = {e["args"]["correlation"]: (a, b) for a, b, e in evs if e.get("cat") in RUNTIME_CATS}
                outside = 0
                for (ws, we), f in zip(waits, t["external_wait"]["steps"]):
                    held = min((o for o in ops if rt[o[2]["args"]["correlation"]][0] > we), key=lambda o: o[0])
                    self.assertEqual(held[0], f["held_kernel_start_ns"])
                    self.assertGreaterEqual(held[0] - we, 300 * tracegen.MS)
                    before = max(o[1] for o in ops if o[1] <= held[0])
                    outside += held[0] - before
                ic = t["idle_causes"]["all"]
                self.assertEqual(ic["outside_trace_ns"], ic["stream_wait_ns"])
                # the wait's gaps are all outside but the host's microseconds around them
                self.assertLessEqual(ic["outside_trace_ns"], outside)
                self.assertGreater(ic["outside_trace_ns"], outside - 3 * 100 * tracegen.US)
                self.check_what_if("external_wait", path, t, steps=3, wait_form=form)

    def test_pageable_copy(self):
        path, t = self.gen("pageable_copy", "pc.json.gz", steps=3)
        self.check_truth(path, t)
        self.idle_sums(t)
        d, evs = self.events(path)
        rt = {e["args"]["correlation"]: (a, b, e) for a, b, e in evs if e.get("cat") in RUNTIME_CATS}
        h2d = d2h = 0
        for a, b, e in evs:
            if e.get("cat") != "gpu_memcpy":
                continue
            ca, cb, call = rt[e["args"]["correlation"]]
            self.assertEqual(call["name"], "cudaMemcpyAsync")
            if e["name"] == "Memcpy HtoD (Pageable -> Device)":
                h2d += 1
                self.assertLess(cb - ca, 50 * tracegen.US)   # staged and returned: not a blocking copy
            elif e["name"] == "Memcpy DtoH (Device -> Pageable)":
                d2h += 1
                self.assertTrue(4 * tracegen.US <= cb - b <= 9 * tracegen.US)   # returned with its copy
                self.assertGreater(cb - ca, 100 * tracegen.US)
        self.assertEqual((h2d, d2h), (12, 6))
        self.assertGreater(t["idle_causes"]["all"]["host_blocked_ns"], 0)
        off = self.check_what_if("pageable_copy", path, t, steps=3)
        names = [e["name"] for _, _, e in self.events(off)[1]]
        self.assertEqual(names.count("Memcpy DtoH (Device -> Pageable)"), 3)   # the lengths' copies stay
        self.assertEqual(names.count("Memcpy HtoD (Pageable -> Device)"), 0)

    def test_rank_skew(self):
        path, ts = self.gen("rank_skew", "rs.json.gz", steps=3, layers=4)
        self.assertEqual(len(ts), 4)
        kern = {}
        for r, t in enumerate(ts):
            p = tracegen.rank_path(path, r, 4)
            self.check_truth(p, t)
            self.idle_sums(t)
            self.assertEqual(t["rank_skew"], ts[0]["rank_skew"])
            for a, b, e in self.events(p)[1]:
                if e.get("cat") == "kernel" and e["name"].startswith("nccl"):
                    kern.setdefault(e["args"]["Seq"], {})[r] = (a - t["clock_offset_ns"], b - t["clock_offset_ns"],
                                                                e["args"]["In msg nelems"])
        table = ts[0]["rank_skew"]["collectives"]
        self.assertEqual(len(table), 9)
        for c in table:
            per = kern[c["seq"]]
            self.assertEqual(len({b for a, b, n in per.values()}), 1)   # they end together (true time)
            last = max(a for a, b, n in per.values())
            for row in c["ranks"]:
                a, b, n = per[row["rank"]]
                self.assertEqual(n, c["in_msg_nelems"])
                self.assertEqual(row["dur_ns"], b - a)
                self.assertEqual(row["wait_ns"], last - a)
                self.assertEqual(row["dur_ns"] - row["wait_ns"], c["transfer_ns"])
            arrivals = [per[r][0] for r in range(4)]
            self.assertEqual(c["late_rank"], arrivals.index(last) if c["spread_ns"] else None)
        first = [c for c in table if c["seq"] % 3 == 1]
        for k, c in enumerate(first):   # each step's first all_to_all: several ms of skew, the late rank named
            self.assertEqual(c["collective"], "all_to_all")
            self.assertEqual(c["late_rank"], ts[0]["rank_skew"]["steps"][k]["late_rank"])
            self.assertGreater(c["spread_ns"], 2 * tracegen.MS)
            self.assertLess(c["transfer_ns"], 150 * tracegen.US)
        for c in table:   # the same bytes later in the step: transfer only
            if c["seq"] % 3 == 2:
                self.assertEqual(c["spread_ns"], 0)
                self.assertEqual(c["in_msg_nelems"], 6144)
        self.check_what_if("rank_skew", path, ts[0], nranks=4, steps=3, layers=4)
        # every rank waits for the late one: fixing the skew saves the late rank's delay, step by step
        self.assertEqual(ts[0]["what_if"]["saving_by_step_ns"],
                         [max(st["delays_ns"]) for st in ts[0]["rank_skew"]["steps"]])

    def test_host_preprocess(self):
        path, t = self.gen("host_preprocess", "hp.json.gz", steps=3)
        self.check_truth(path, t)
        self.idle_sums(t)
        d, evs = self.events(path)
        gpu = sorted(a for a, b, e in evs if e.get("cat") in GPU_CATS)
        steps = [(a, b) for a, b, e in evs if e["name"].startswith("ProfilerStep#") and e["cat"] == "user_annotation"]
        ann = {}
        for a, b, e in evs:
            if e["name"] in ("video_decode", "image_processor"):
                ann.setdefault(e["name"], []).append(b - a)
        for k, f in enumerate(t["host_preprocess"]["steps"]):
            first = min(g for g in gpu if g >= steps[k][0])
            self.assertEqual(f["first_kernel_ns"], first)
            self.assertEqual(f["host_before_first_kernel_ns"], first - steps[k][0])
            self.assertEqual([c["ns"] for c in f["cpu"]], [ann["video_decode"][k], ann["image_processor"][k]])
            # most of the step's time is preprocessing on the CPU, before any kernel
            self.assertGreater(f["preprocess_ns"], 0.6 * (steps[k][1] - steps[k][0]))
        self.assertGreater(t["idle_causes"]["all"]["host_not_launched_ns"], 0.99 * t["idle_causes"]["all"]["idle_ns"])
        self.check_what_if("host_preprocess", path, t, steps=3)

    def test_graph_capture(self):
        path, t = self.gen("graph_capture", "gc.json.gz", steps=4)
        self.check_truth(path, t)
        self.idle_sums(t)
        d, evs = self.events(path)
        gpu_corr = {e["args"]["correlation"] for a, b, e in evs if e.get("cat") in GPU_CATS}
        steps = [(a, b) for a, b, e in evs if e["name"].startswith("ProfilerStep#") and e["cat"] == "user_annotation"]
        kinds = [f["kind"] for f in t["graph_capture"]["steps"]]
        self.assertEqual(kinds, ["eager", "capture", "replay", "replay"])
        for (s0, s1), f in zip(steps, t["graph_capture"]["steps"]):
            inside = [(a, b, e) for a, b, e in evs if s0 <= a < s1]
            names = [e["name"] for a, b, e in inside]
            launches = [e for a, b, e in inside if e["name"] == "cudaLaunchKernel"]
            busy = ulen([(a, b) for a, b, e in inside if e.get("cat") in GPU_CATS])
            self.assertEqual(f["gpu_busy_ns"], busy)
            if f["kind"] == "capture":
                for n in ("cudaStreamBeginCapture", "cudaStreamEndCapture", "cudaGraphInstantiate",
                          "capture_32_DECODE"):
                    self.assertIn(n, names)
                captured = [e for e in launches if e["args"]["correlation"] not in gpu_corr]
                self.assertEqual(len(captured), f["captured_launches"])
                self.assertLess(busy, 20 * tracegen.US)
                self.assertGreater(s1 - s0, 20 * tracegen.MS)
            elif f["kind"] == "replay":
                g = [e for a, b, e in inside if e["name"] == "cudaGraphLaunch"]
                self.assertEqual(len(g), 1)
                ks = [e for a, b, e in inside if e.get("cat") == "kernel"
                      and e["args"]["correlation"] == g[0]["args"]["correlation"]]
                self.assertEqual(len(ks), 4 * 8)
                self.assertEqual({e["args"]["graph id"] for e in ks}, {1})
        self.check_what_if("graph_capture", path, t, steps=4)

    def test_target_bytes(self):
        path = os.path.join(self.tmp, "big.json")
        t0 = time.time()
        tracegen.generate("fsdp2_healthy", path, target_bytes=20000000)
        dt = time.time() - t0
        size = os.path.getsize(path)
        self.assertLess(abs(size - 20000000), 2000000)
        with open(path) as fh:
            json.load(fh)
        sys.stderr.write("\n[tracegen] 20 MB JSON in %.2fs: %.1f MB/s\n" % (dt, size / 1e6 / dt))
        path = os.path.join(self.tmp, "big.json.gz")
        t0 = time.time()
        t = tracegen.generate("fsdp2_healthy", path, target_bytes=20000000)
        dt = time.time() - t0
        u = t["generator"]["bytes_uncompressed"]
        self.assertLess(abs(u - 20000000), 2000000)
        sys.stderr.write("[tracegen] 20 MB JSON gzipped to %.1f MB in %.2fs: %.1f MB/s of JSON\n"
                         % (os.path.getsize(path) / 1e6, dt, u / 1e6 / dt))

    def test_cli(self):
        import subprocess
        out = os.path.join(self.tmp, "cli.json.gz")
        r = subprocess.run([sys.executable, os.path.join(HERE, "tracegen.py"), "network_bound", "-o", out,
                            "--steps", "2", "--layers", "3", "--ranks", "2", "--seed", "3", "--format", "new",
                            "--nccl-names", "old"], capture_output=True, text=True)
        self.assertEqual(r.returncode, 0, r.stderr)
        for rk in (0, 1):
            p = os.path.join(self.tmp, "cli.rank%d.json.gz" % rk)
            self.assertTrue(os.path.exists(p))
            self.assertTrue(os.path.exists(os.path.join(self.tmp, "cli.rank%d.truth.json" % rk)))
            with open(os.path.join(self.tmp, "cli.rank%d.truth.json" % rk)) as fh:
                self.check_truth(p, json.load(fh), fsdp2_units=True)


if __name__ == "__main__":
    unittest.main()
