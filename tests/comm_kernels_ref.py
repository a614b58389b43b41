#!/usr/bin/env python3
"""Independent reference for the classification of communication kernels (docs/report-contract.md,
"Communication"): reads a Kineto trace with Python's json (no libfsdpa code) and says which kernels
are communication and why, by the three rules of the contract written out here on purpose:

  name        a communication library's kernel, by its qualified function name;
  user        (not used on the corpus: no patterns are set);
  provenance  launched (runtime call, by correlation id) inside a communication CPU op or user
              annotation on the launching thread, or lying inside a communication
              gpu_user_annotation on its own stream; GEMM kernels never.

  comm_kernels_ref.py TRACE       prints the families as JSON (the report's comm_families) plus
                                  comm_ns (|union of communication kernels|) and the stream roles
  comm_kernels_ref.py --check     runs over the generator's ep_moe and custom_ar (three formats each)
                                  and the corpus
                                  ($FSDPA_TRACE_CORPUS, else $FSDPA_DEFAULT_CORPUS; said when
                                  absent) and compares with `$FSDPA_CLI analyze --format json`
"""
import bisect
import gzip
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from decimal import Decimal

FAMILIES = [  # (family, regex on the qualified function name); first match wins, NCCL forks first
    ("nccl", re.compile(r"^(?i:nccl)|ncclKernel|ncclDevKernel")),
    ("rccl", re.compile(r"^(?i:rccl)")),
    ("msccl", re.compile(r"^(?i:msccl)(?!pp)")),
    ("mscclpp", re.compile(r"mscclpp::|^mscclpp")),
    # DeepEP under its own namespace or a fork's (DeepSeek's dpsk::ep::internode::dispatch):
    # ep:: with one of DeepEP's three transports
    ("deep_ep", re.compile(r"^(?!.*(get_dispatch_layout|::layout::)).*(deep_ep::|ep::(intranode|internode|internode_ll)::)")),
    ("custom_allreduce", re.compile(r"cross_device_reduce_[12]stage")),
    ("quickreduce", re.compile(r"allreduce_prototype_")),
    ("trtllm_allreduce", re.compile(r"oneShotAllReduceKernel|twoShotAllReduceKernel|allReduceFusionKernel|"
                                    r"allreduce_fusion_kernel|tensorrt_llm::.*lamport|^lamport")),
    ("nvshmem", re.compile(r"c10d::nvshmem_extension::|^(?i:nvshmem)")),
    ("symm_mem", re.compile(r"\(anonymous namespace\)::multimem_|^multimem_|one_shot_all_reduce_kernel|"
                            r"two_shot_all_reduce_kernel|c10d::symmetric_memory::")),
    ("userbuffers", re.compile(r"userbuffers_")),
]
GEMM = re.compile(r"(?i)gemm|cutlass|xmma|nvjet|cublas|kernel2")
COMM_OP = re.compile(r"^(record_param_comms$|nccl:|rccl:|c10d::|_c10d_functional::|c10d_functional::|symm_mem::|"
                     r"_C_custom_ar::|vllm::all_reduce|sgl_kernel::all_reduce|trtllm::allreduce)")
COMM_WORDS = {"dispatch", "combine", "all_reduce", "allreduce", "all_gather", "allgather", "reduce_scatter",
              "all_to_all", "alltoall", "moe_dispatch", "moe_combine", "ep_dispatch", "ep_combine"}
KERNEL_CATS = {"kernel", "Kernel"}
GPU_CATS = KERNEL_CATS | {"gpu_memcpy", "Memcpy", "gpu_memset", "Memset"}
RUNTIME_CATS = {"cuda_runtime", "cuda_driver", "Runtime"}
CPU_CATS = {"cpu_op", "user_annotation", "Operator"}
RULE_ORDER = {"name": 0, "user": 1, "provenance": 2}


def ns(v):
    return int(Decimal(v) * 1000)


def function_name(name):
    """Without 'void ', template arguments and parameters; '(anonymous namespace)' kept."""
    if name.startswith("void "):
        name = name[5:]
    out = re.match(r"((?:\(anonymous namespace\)|[^(<])*)", name)
    return out.group(1)


def family_of(name):
    f = function_name(name)
    for fam, rx in FAMILIES:
        if fam in ("nccl", "rccl", "msccl"):
            if rx.search(name) and not name.lower().startswith("mscclpp"):
                return fam
        elif rx.search(f):
            return fam
    return None


def is_comm_op(name):
    if COMM_OP.match(name):
        return True
    return name.strip(" #").lower() in COMM_WORDS


def union(iv):
    tot, ce = 0, None
    for s, e in sorted(iv):
        if ce is None or s > ce:
            tot += e - s
            ce = e
        elif e > ce:
            tot += e - ce
            ce = e
    return tot


def covers(ops):
    """Per track: sorted disjoint [s, e] of communication ops, named by the op opening each."""
    out = {}
    for tr, lst in ops.items():
        lst.sort(key=lambda x: (x[0], -x[1], x[2]))
        m = []
        for s, e, n in lst:
            if m and s <= m[-1][1]:
                m[-1][1] = max(m[-1][1], e)
            else:
                m.append([s, e, n])
        out[tr] = ([x[0] for x in m], m)
    return out


def find(cov, tr, t0, t1):
    c = cov.get(tr)
    if not c:
        return None
    i = bisect.bisect_right(c[0], t0) - 1
    if i >= 0 and c[1][i][0] <= t0 and t1 <= c[1][i][1]:
        return c[1][i][2]
    return None


def classify(path):
    op = gzip.open if path.endswith(".gz") else open
    with op(path, "rb") as fh:
        doc = json.loads(fh.read(), parse_float=str)
    evs = doc.get("traceEvents") if isinstance(doc, dict) else doc
    if not isinstance(evs, list):
        return None
    runtime, kernels, cpu_ops, gpu_ops = {}, [], {}, {}
    streams = {}
    for e in evs:
        if not isinstance(e, dict) or e.get("ph") != "X" or "ts" not in e:
            continue
        cat, name = e.get("cat"), e.get("name", "")
        if not isinstance(name, str):
            continue
        t = ns(e["ts"])
        d = max(0, ns(e.get("dur", 0)))
        tr = (str(e.get("pid")), str(e.get("tid")))
        corr = (e.get("args") or {}).get("correlation")
        if cat in RUNTIME_CATS:
            if corr is not None:
                runtime.setdefault(corr, (tr, t))
        elif cat in CPU_CATS and is_comm_op(name):
            cpu_ops.setdefault(tr, []).append((t, t + d, name))
        elif cat == "gpu_user_annotation" and is_comm_op(name):
            gpu_ops.setdefault(tr, []).append((t, t + d, name))
        if cat in GPU_CATS:
            st = streams.setdefault(tr, [0, 0])
            if cat in KERNEL_CATS:
                st[0] += 1
                kernels.append((tr, t, t + d, name, corr))
    cc, gc = covers(cpu_ops), covers(gpu_ops)
    fams, comm_iv, why = {}, [], {}
    for tr, s, e, name, corr in kernels:
        fam = family_of(name)
        key = None
        if fam:
            key = ("name", fam)
        elif not GEMM.search(name):
            via = None
            if corr is not None and corr in runtime:
                rtr, rt = runtime[corr]
                via = find(cc, rtr, rt, rt)
            if via is None:
                via = find(gc, tr, s, e)
            if via is not None:
                key = ("provenance", via)
        if key is None:
            continue
        streams[tr][1] += 1
        x = fams.setdefault(key, {"iv": [], "first": None})
        x["iv"].append((s, e))
        if x["first"] is None or (s, e) < x["first"][0]:
            x["first"] = ((s, e), name)
        comm_iv.append((s, e))
        why.setdefault(name, key)
    rows = [{"family": k[1], "rule": k[0], "kernels": len(v["iv"]), "busy_ns": union(v["iv"]),
             "example": v["first"][1]} for k, v in fams.items()]
    rows.sort(key=lambda r: (RULE_ORDER[r["rule"]], r["family"].encode()))
    roles = {}
    for tr, (k, c) in streams.items():
        roles[tr] = "mixed" if 0 < c < k else "communication" if c else "compute" if k else "memory"
    return {"comm_families": rows, "comm_ns": union(comm_iv) if comm_iv else None, "roles": roles,
            "why": {n: list(k) for n, k in sorted(why.items())}}


def check():
    corpus = os.environ.get("FSDPA_TRACE_CORPUS") or os.environ.get("FSDPA_DEFAULT_CORPUS")
    cli = os.environ.get("FSDPA_CLI")
    if not cli:
        print("FSDPA_CLI not set")
        return 1
    # the generator's ep_moe (DeepEP by name, a custom all-reduce by provenance, look-alikes that are
    # compute) and custom_ar (provenance only) in the three formats: the corpus itself has only NCCL
    tmp = tempfile.mkdtemp(prefix="comm_ref_")
    gen = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tools", "tracegen", "tracegen.py")
    paths = []
    for scen in ("ep_moe", "custom_ar"):
        for fmt, ext in (("new", ".json.gz"), ("old", ".json"), ("legacy19", ".json")):
            out = os.path.join(tmp, scen + "_" + fmt + ext)
            subprocess.run([sys.executable, gen, scen, "-o", out, "--steps", "2", "--layers", "3", "--format", fmt],
                           check=True, capture_output=True)
            paths.append(out)
    if not corpus or not os.path.isdir(corpus):
        print("# SKIP corpus: trace corpus not found at %r (set FSDPA_TRACE_CORPUS); generated traces only" % corpus)
        corpus = tmp
    else:
        paths += sorted(os.path.join(d, f) for d, _, fs in os.walk(corpus) for f in fs
                        if f.endswith((".json", ".json.gz")))
    compared = families = bad = 0
    for p in paths:
        if os.path.getsize(p) > 80_000_000:
            continue
        ref = classify(p)
        r = subprocess.run([cli, "analyze", "--format", "json", p], capture_output=True)
        if ref is None or r.returncode != 0:
            if (ref is None) != (r.returncode != 0):
                print("FAIL %s: reference %s, library exit %d" % (p, "rejects" if ref is None else "reads",
                                                                  r.returncode))
                bad += 1
            continue
        rank = json.loads(r.stdout)["ranks"][0]
        got = rank["comm_families"]
        if got != ref["comm_families"]:
            print("FAIL %s: comm_families\n  library   %s\n  reference %s" % (p, got, ref["comm_families"]))
            bad += 1
        if rank["overlap"]["comm_ns"] != ref["comm_ns"]:
            print("FAIL %s: comm_ns %s vs reference %s" % (p, rank["overlap"]["comm_ns"], ref["comm_ns"]))
            bad += 1
        for s in rank["streams"]:
            want = [v for (pid, tid), v in ref["roles"].items() if pid == str(s["device"]) and tid == str(s["stream"])]
            if want and want[0] != s["role"]:
                print("FAIL %s: stream %s:%s role %s vs reference %s" % (p, s["device"], s["stream"], s["role"],
                                                                         want[0]))
                bad += 1
        compared += 1
        families += len(got)
        print("# %s: %d families %s" % (os.path.relpath(p, tmp if p.startswith(tmp) else corpus), len(got),
                                         ", ".join("%s/%s" % (x["family"], x["rule"]) for x in got)))
    shutil.rmtree(tmp, ignore_errors=True)
    print("# %d traces compared, %d families" % (compared, families))
    if compared == 0 or families == 0:
        print("FAIL: nothing compared")
        return 1
    return 1 if bad else 0


if __name__ == "__main__":
    if sys.argv[1:] == ["--check"]:
        sys.exit(check())
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    res = classify(sys.argv[1])
    if res is not None:
        res["roles"] = {"%s:%s" % k: v for k, v in res["roles"].items()}
    json.dump(res, sys.stdout, indent=1)
    print()
