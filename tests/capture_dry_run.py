#!/usr/bin/env python3
"""tools/capture/capture.py without a GPU or torch: its --dry-run (the scenario table, the child
command lines and environments, the archive cap, the trace facts on a trace of known overlap), and
its real runner against a stand-in `torch` that fails or hangs, so that statuses, the fallback to
world size 1, the timeout kill and the archive rewritten after every scenario are checked too.
What needs torch and a GPU (the scenarios themselves) is not checked here.

Exit 0 = all hold, 1 = a difference.
"""
import json
import os
import subprocess
import sys
import tarfile
import tempfile

ROOT = os.environ.get("FSDPA_SOURCE_ROOT") or os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CAPTURE = os.path.join(ROOT, "tools", "capture", "capture.py")
FAILS = []


def check(cond, what):
    if not cond:
        FAILS.append(what)
        print("FAIL:", what)


def run(args, tmp, mode):
    env = dict(os.environ, PYTHONPATH=os.path.join(tmp, "fake"), FAKE_TORCH=mode)
    env.pop("OUT", None)
    return subprocess.run([sys.executable, CAPTURE] + args, env=env, capture_output=True, text=True,
                          timeout=300)


def main():
    with tempfile.TemporaryDirectory() as tmp:
        # a `torch` that fails at import (or hangs first): the dry run must never touch it
        os.makedirs(os.path.join(tmp, "fake", "torch"))
        with open(os.path.join(tmp, "fake", "torch", "__init__.py"), "w") as f:
            f.write("import os, time\n"
                    "if os.environ.get('FAKE_TORCH') == 'hang':\n    time.sleep(120)\n"
                    "raise ImportError('stand-in torch: none on this machine')\n")

        out = os.path.join(tmp, "dry")
        p = run(["--dry-run", "--out", out], tmp, "fail")
        check(p.returncode == 0, f"dry run exits 0 (got {p.returncode}: {p.stderr[-500:]})")
        d = json.loads(p.stdout)
        check(d["table_errors"] == [], f"table errors: {d['table_errors']}")
        check(d["timeouts_sum_s"] <= d["budget_s"] <= 480, "timeouts within the budget, budget within 8 minutes")
        want = {"healthy", "no_bwd_prefetch", "host_sync", "empty_cache", "empty_cache_expandable",
                "launch_bound_eager", "launch_bound_compile", "cuda_graphs", "fsdp1", "ddp", "healthy_world1"}
        check(set(d["order"]) == want, f"scenarios {d['order']}")
        with open(os.path.join(out, "manifest.json")) as f:
            m = json.load(f)
        check(set(m["scenarios"]) == want and all(s["status"] == "planned" for s in m["scenarios"].values()),
              "manifest lists every scenario as planned")
        timeouts = [m["scenarios"][n]["timeout_s"] for n in d["order"]]
        check(timeouts == sorted(timeouts), f"cheapest first: {timeouts}")

        for r, child in enumerate(d["children"]["healthy"]):
            env = child["env"]
            check(env["RANK"] == str(r) and env["WORLD_SIZE"] == "2" and env["MASTER_ADDR"] == "127.0.0.1",
                  f"rank {r} env {env}")
            check(env.get("NCCL_HOSTID") == f"fsdpa-capture-rank{r}", f"rank {r} has its own NCCL_HOSTID")
            check(all(env.get(k) == v for k, v in [("NCCL_P2P_DISABLE", "1"), ("NCCL_SHM_DISABLE", "1"),
                                                    ("NCCL_SOCKET_IFNAME", "lo")]), f"rank {r} NCCL sockets")
            check(child["cmd"][child["cmd"].index("--child") + 1] == "healthy", "child names its scenario")
        hosts = {c["env"]["NCCL_HOSTID"] for c in d["children"]["ddp"]}
        check(len(hosts) == 2, "two ranks, two host ids")
        check(len(d["children"]["launch_bound_eager"]) == 1
              and "NCCL_HOSTID" not in d["children"]["launch_bound_eager"][0]["env"], "world 1: one child")
        check(d["children"]["empty_cache_expandable"][0]["env"].get("PYTORCH_CUDA_ALLOC_CONF")
              == "expandable_segments:True", "expandable segments set before CUDA starts")
        check("--snapshot" in d["children"]["empty_cache"][0]["cmd"]
              and "--snapshot" not in d["children"]["healthy"][0]["cmd"], "snapshots for memory scenarios only")

        pk = d["pack"]
        check(pk["cap_15MiB_dropped"] == [], "nothing dropped under 15 MiB")
        check(pk["cap_700000_dropped"] == ["empty_cache/rank0.snapshot.pickle"] and pk["cap_700000_bytes"] <= 700000,
              f"the snapshot goes first: {pk}")
        check(pk["cap_400000_dropped"] == ["empty_cache/rank0.snapshot.pickle", "healthy/rank0.json.gz"]
              and pk["cap_400000_bytes"] <= 400000, f"then the largest trace: {pk}")
        f = d["trace_facts_fake"]
        check(f["backward_allgather_kernels"] == 2 and f["backward_allgather_ns"] == 20000
              and f["backward_allgather_overlapped_ns"] == 10000 and f["backward_allgather_overlap"] == 0.5,
              f"backward all-gather overlap of the known trace: {f}")
        check(f["cumem_calls"] == {"cuMemMap": 1} and f["nccl_kernels"] == 3, f"cuMem* and NCCL counts: {f}")

        # the runner itself, every child failing at `import torch`: the fallback runs because
        # 'healthy' failed, the archive holds each scenario's logs and the manifest
        out = os.path.join(tmp, "real")
        p = run(["--out", out, "--only", "launch_bound_eager,healthy,healthy_world1,ddp"], tmp, "fail")
        check(p.returncode == 0, f"runner exits 0 (got {p.returncode}: {p.stderr[-500:]})")
        if p.returncode != 0:
            return 1
        with open(os.path.join(out, "manifest.json")) as fh:
            m = json.load(fh)
        st = {n: s["status"] for n, s in m["scenarios"].items()}
        check(st == {"launch_bound_eager": "failed", "healthy": "failed", "healthy_world1": "failed",
                     "ddp": "failed"}, f"statuses {st}")
        check("stand-in torch" in m["scenarios"]["healthy"].get("error", ""), "the error tail is recorded")
        check("unvalidated" in m["scenarios"]["healthy_world1"].get("note", ""), "world 1 says comm is unvalidated")
        with tarfile.open(os.path.join(out, "capture.tar.gz")) as tar:
            names = set(tar.getnames())
        check({"manifest.json", "healthy/rank0.log", "healthy/rank1.log", "ddp/rank1.log"} <= names,
              f"archive members {sorted(names)}")
        check(sorted(os.listdir(out)) == ["capture.tar.gz", "manifest.json"], f"$OUT holds {os.listdir(out)}")

        # a hanging child is killed at its timeout, and what ran before stays in the archive
        out = os.path.join(tmp, "hang")
        p = run(["--out", out, "--only", "launch_bound_eager,healthy", "--timeout-scale", "0.04"], tmp, "hang")
        with open(os.path.join(out, "manifest.json")) as fh:
            m = json.load(fh)
        for n in ("launch_bound_eager", "healthy"):
            s = m["scenarios"][n]
            check(s["status"] == "timeout" and s["seconds"] < 10, f"{n} timed out and was killed: {s}")
    print("capture dry run:", "FAIL" if FAILS else "ok")
    return 1 if FAILS else 0


if __name__ == "__main__":
    sys.exit(main())
