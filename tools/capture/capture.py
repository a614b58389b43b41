#!/usr/bin/env python3
"""Real FSDP2 captures on one GPU: every scenario in its own subprocess, cheapest first, the
archive rewritten after each one so that a timeout still leaves what was done.

    python3 tools/capture/capture.py [--out DIR] [--budget-s S] [--only A,B] [--dry-run]

The parent never imports torch; each scenario's ranks are children (`--child NAME --rank R`)
started here with the environment torchrun would give them, so a hang or crash costs only that
scenario. `--dry-run` checks the scenario table, builds every child's command line and
environment, and runs the packing and trace-measuring code on fake files, without torch.

Written to DIR: capture.tar.gz (at most --archive-cap bytes: snapshots dropped first, then the
largest traces) and manifest.json (per scenario: status, seconds, error tail, files, versions).
"""
import argparse
import decimal
import gzip
import io
import json
import os
import signal
import socket
import subprocess
import sys
import tarfile
import tempfile
import time

MiB = 1 << 20
TRACE_LIMIT = 600 * 1000      # the ceiling per rank trace (gz)
SNAPSHOT_LIMIT = 1 * MiB      # per memory snapshot
ARCHIVE_CAP = 15 * MiB        # what one device call can bring back in one file
DEFAULT_BUDGET_S = 450        # one command of at most 8 minutes, with room to pack
EXIT_SKIP = 77                # a child that finds its API missing (FSDP1 gone, say)


class Scenario:
    def __init__(self, name, world, timeout_s, what, env=None, snapshot=False, fallback_for=None):
        self.name, self.world, self.timeout_s, self.what = name, world, timeout_s, what
        self.env = env or {}
        self.snapshot = snapshot
        # run only when that scenario failed (two ranks on one GPU refused by NCCL, say)
        self.fallback_for = fallback_for


# Cheapest first (non-decreasing timeout; checked), so a run cut short loses the dear ones.
SCENARIOS = [
    Scenario("launch_bound_eager", 1, 25, "many tiny layers, small batch, eager"),
    Scenario("healthy", 2, 35, "FSDP2 fully_shard per layer, default prefetch"),
    Scenario("healthy_world1", 1, 35, "FSDP2 on one rank (no real collectives): only if 'healthy' failed",
             fallback_for="healthy"),
    Scenario("host_sync", 2, 35, "FSDP2 with loss.item() every step"),
    Scenario("no_bwd_prefetch", 2, 35, "FSDP2 with backward prefetch really off (_backward_prefetch patched)"),
    Scenario("ddp", 2, 35, "DistributedDataParallel on the same model"),
    Scenario("fsdp1", 2, 35, "FullyShardedDataParallel (FSDP1) on the same model"),
    Scenario("empty_cache", 2, 40, "FSDP2 with torch.cuda.empty_cache() every step", snapshot=True),
    Scenario("empty_cache_expandable", 2, 40, "empty_cache with expandable segments",
             env={"PYTORCH_CUDA_ALLOC_CONF": "expandable_segments:True"}, snapshot=True),
    Scenario("cuda_graphs", 1, 40, "the launch-bound model replayed as one CUDA graph per step"),
    Scenario("launch_bound_compile", 1, 75, "the launch-bound model under torch.compile"),
]


def check_table(budget_s=None):
    """Problems with the scenario table (empty list when fine); the timeouts' sum against budget_s
    when given (a real run with a smaller budget trims the timeouts instead)."""
    errs = []
    names = [s.name for s in SCENARIOS]
    if len(set(names)) != len(names):
        errs.append("scenario names are not unique")
    for a, b in zip(SCENARIOS, SCENARIOS[1:]):
        if b.timeout_s < a.timeout_s:
            errs.append(f"not cheapest first: {b.name} ({b.timeout_s} s) after {a.name} ({a.timeout_s} s)")
    for s in SCENARIOS:
        if s.name not in CHILDREN:
            errs.append(f"{s.name} has no child function")
        if s.world not in (1, 2):
            errs.append(f"{s.name}: world size {s.world}")
        if s.fallback_for is not None and s.fallback_for not in names[:names.index(s.name)]:
            errs.append(f"{s.name} falls back for {s.fallback_for}, which does not run before it")
    total = sum(s.timeout_s for s in SCENARIOS)
    if budget_s is not None and total > budget_s:
        errs.append(f"timeouts sum to {total} s, over the budget of {budget_s} s")
    return errs


# ---------------------------------------------------------------- children (need torch)

NOTES = {}  # what a child learned about its own run, for info.json


def _torch_info(torch):
    info = {"torch": torch.__version__, "cuda": torch.version.cuda,
            "gpu": torch.cuda.get_device_name(0) if torch.cuda.is_available() else None}
    try:
        v = torch.cuda.nccl.version()
        info["nccl"] = ".".join(map(str, v)) if isinstance(v, tuple) else str(v)
    except Exception as e:  # NCCL missing from this build: say so rather than stop
        info["nccl"] = f"unknown ({e})"
    return info


def _transformer(torch, a):
    nn, F = torch.nn, torch.nn.functional

    class Block(nn.Module):
        def __init__(self, d, heads):
            super().__init__()
            self.heads = heads
            self.ln1, self.ln2 = nn.LayerNorm(d), nn.LayerNorm(d)
            self.qkv, self.proj = nn.Linear(d, 3 * d), nn.Linear(d, d)
            self.up, self.down = nn.Linear(d, 4 * d), nn.Linear(4 * d, d)

        def forward(self, x):
            b, t, d = x.shape
            q, k, v = self.qkv(self.ln1(x)).view(b, t, 3, self.heads, d // self.heads).unbind(2)
            y = F.scaled_dot_product_attention(q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2),
                                               is_causal=True)
            x = x + self.proj(y.transpose(1, 2).reshape(b, t, d))
            return x + self.down(F.gelu(self.up(self.ln2(x))))

    class Model(nn.Module):
        def __init__(self):
            super().__init__()
            self.emb = nn.Embedding(a.vocab, a.hidden)
            self.layers = nn.ModuleList(Block(a.hidden, a.heads) for _ in range(a.layers))
            self.norm, self.head = nn.LayerNorm(a.hidden), nn.Linear(a.hidden, a.vocab)

        def forward(self, tok):
            x = self.emb(tok)
            for layer in self.layers:
                x = layer(x)
            return self.head(self.norm(x))

    torch.manual_seed(0)
    return Model().to(device="cuda", dtype=torch.bfloat16), Block


def _tiny(torch, a):
    """The launch-bound model: many layers far too small to fill an H100."""
    nn = torch.nn
    torch.manual_seed(0)
    mods = []
    for _ in range(a.tiny_layers):
        mods += [nn.Linear(a.tiny_width, a.tiny_width), nn.ReLU()]
    return nn.Sequential(*mods).cuda()


def _setup(torch, a):
    torch.cuda.set_device(0)  # every rank on the one GPU; NCCL_HOSTID makes them look apart
    torch.cuda.init()  # so DeviceMesh keeps device 0 rather than choosing one itself
    if a.world > 1 or a.child in ("healthy_world1",):
        import torch.distributed as dist
        dist.init_process_group("nccl", rank=a.rank, world_size=a.world)


def _profiled_loop(torch, a, step, snapshot_path=None):
    """1 unprofiled step, then the schedule's 1 warm-up + `--active` active steps, exported gzipped."""
    prof_mod = torch.profiler
    trace = os.path.join(a.dir, f"rank{a.rank}.json.gz")
    if snapshot_path:
        torch.cuda.memory._record_memory_history(max_entries=a.snapshot_entries, stacks="python")
    with prof_mod.profile(
            activities=[prof_mod.ProfilerActivity.CPU, prof_mod.ProfilerActivity.CUDA],
            schedule=prof_mod.schedule(wait=1, warmup=1, active=a.active, repeat=1),
            on_trace_ready=lambda p: p.export_chrome_trace(trace),
            record_shapes=True, profile_memory=True, with_stack=False) as prof:
        for _ in range(2 + a.active):
            step()
            prof.step()
    torch.cuda.synchronize()
    if snapshot_path:
        torch.cuda.memory._dump_snapshot(snapshot_path)
        if os.path.getsize(snapshot_path) > SNAPSHOT_LIMIT:
            _trim_snapshot(torch, snapshot_path)
        torch.cuda.memory._record_memory_history(enabled=None)


def _trim_snapshot(torch, path):
    """Keep the newest history entries that fit SNAPSHOT_LIMIT: what a smaller max_entries would
    have kept (the history is a ring of the newest events). Live segments are never cut."""
    import pickle
    snap = torch.cuda.memory._snapshot()
    traces = snap.get("device_traces", [])
    keep = max((len(t) for t in traces), default=0)
    while keep > 0:
        keep //= 2
        trimmed = dict(snap, device_traces=[t[len(t) - keep:] if keep else [] for t in traces])
        blob = pickle.dumps(trimmed)
        if len(blob) <= SNAPSHOT_LIMIT or keep == 0:
            with open(path, "wb") as f:
                f.write(blob)
            NOTES["snapshot_history_entries_kept"] = keep
            print(f"snapshot over {SNAPSHOT_LIMIT} B: kept the newest {keep} history entries "
                  f"({len(blob)} B)", flush=True)
            return


def _lm_step(torch, a, model, opt, sync=False, empty_cache=False):
    tok = torch.randint(0, a.vocab, (a.batch, a.seq), device="cuda")

    def step():
        logits = model(tok)
        loss = torch.nn.functional.cross_entropy(logits.view(-1, a.vocab).float(), tok.view(-1))
        loss.backward()
        opt.step()
        opt.zero_grad(set_to_none=True)
        if sync:
            loss.item()
        if empty_cache:
            torch.cuda.empty_cache()
    return step


def child_fsdp2(torch, a, sync=False, empty_cache=False, no_bwd_prefetch=False):
    from torch.distributed.fsdp import fully_shard
    if no_bwd_prefetch:
        # An empty set_modules_to_backward_prefetch([]) leaves the default prefetch on (FSDPState.
        # _pre_backward passes default_prefetch = len(...) == 0), so the default one is stubbed.
        from torch.distributed.fsdp._fully_shard._fsdp_param_group import FSDPParamGroup
        if not hasattr(FSDPParamGroup, "_backward_prefetch"):
            raise RuntimeError("FSDPParamGroup._backward_prefetch is gone: cannot turn backward prefetch off")
        def no_prefetch(self):  # counted: the proof that the default path was reached and cut
            NOTES["backward_prefetches_suppressed"] = NOTES.get("backward_prefetches_suppressed", 0) + 1
        FSDPParamGroup._backward_prefetch = no_prefetch
    model, _ = _transformer(torch, a)
    for layer in model.layers:
        fully_shard(layer)
    fully_shard(model)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4, foreach=True)
    snap = os.path.join(a.dir, f"rank{a.rank}.snapshot.pickle") if a.snapshot else None
    _profiled_loop(torch, a, _lm_step(torch, a, model, opt, sync, empty_cache), snap)


def child_fsdp1(torch, a):
    try:
        from torch.distributed.fsdp import FullyShardedDataParallel as FSDP
        from torch.distributed.fsdp.wrap import ModuleWrapPolicy
    except ImportError as e:
        print(f"FSDP1 not importable: {e}", file=sys.stderr)
        sys.exit(EXIT_SKIP)
    model, Block = _transformer(torch, a)
    model = FSDP(model, auto_wrap_policy=ModuleWrapPolicy({Block}), device_id=0, use_orig_params=True)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4, foreach=True)
    _profiled_loop(torch, a, _lm_step(torch, a, model, opt))


def child_ddp(torch, a):
    from torch.nn.parallel import DistributedDataParallel as DDP
    model, _ = _transformer(torch, a)
    model = DDP(model, device_ids=[0])
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4, foreach=True)
    _profiled_loop(torch, a, _lm_step(torch, a, model, opt))


def _tiny_step(torch, a, model, opt):
    x = torch.randn(a.tiny_batch, a.tiny_width, device="cuda")

    def step():
        model(x).square().mean().backward()
        opt.step()
        opt.zero_grad(set_to_none=True)
    return step


def child_launch_bound(torch, a, compile_=False):
    model = _tiny(torch, a)
    opt = torch.optim.SGD(model.parameters(), lr=1e-3)
    if compile_:
        model = torch.compile(model)
    _profiled_loop(torch, a, _tiny_step(torch, a, model, opt))


def child_cuda_graphs(torch, a):
    # Whole-step capture as in the CUDA Graphs notes of torch.cuda: warm up on a side stream,
    # capture forward, backward and optimizer step, then replay one graph per step.
    model = _tiny(torch, a)
    opt = torch.optim.SGD(model.parameters(), lr=1e-3)
    static_x = torch.randn(a.tiny_batch, a.tiny_width, device="cuda")
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        for _ in range(3):
            opt.zero_grad(set_to_none=True)
            model(static_x).square().mean().backward()
            opt.step()
    torch.cuda.current_stream().wait_stream(s)
    g = torch.cuda.CUDAGraph()
    opt.zero_grad(set_to_none=True)
    with torch.cuda.graph(g):
        model(static_x).square().mean().backward()
        opt.step()
    _profiled_loop(torch, a, g.replay)


CHILDREN = {
    "launch_bound_eager": lambda t, a: child_launch_bound(t, a),
    "healthy": lambda t, a: child_fsdp2(t, a),
    "healthy_world1": lambda t, a: child_fsdp2(t, a),
    "host_sync": lambda t, a: child_fsdp2(t, a, sync=True),
    "no_bwd_prefetch": lambda t, a: child_fsdp2(t, a, no_bwd_prefetch=True),
    "ddp": child_ddp,
    "fsdp1": child_fsdp1,
    "empty_cache": lambda t, a: child_fsdp2(t, a, empty_cache=True),
    "empty_cache_expandable": lambda t, a: child_fsdp2(t, a, empty_cache=True),
    "cuda_graphs": child_cuda_graphs,
    "launch_bound_compile": lambda t, a: child_launch_bound(t, a, compile_=True),
}


def run_child(a):
    import torch  # only here: the parent and --dry-run never import it
    t0 = time.time()
    _setup(torch, a)
    CHILDREN[a.child](torch, a)
    if a.rank == 0:
        info = _torch_info(torch)
        info["child_seconds"] = round(time.time() - t0, 1)
        info.update(NOTES)
        with open(os.path.join(a.dir, "info.json"), "w") as f:
            json.dump(info, f, indent=1)
    import torch.distributed as dist
    if dist.is_initialized():
        dist.destroy_process_group()


# ---------------------------------------------------------------- parent (standard library only)

def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def child_plan(s, a, sdir, port):
    """The command line and environment of each rank of scenario s: what torchrun would set, plus
    what lets two ranks share one GPU (NCCL refuses two ranks of one host on one GPU: 'Duplicate GPU
    detected'; a host id per rank makes them two hosts talking over sockets on loopback)."""
    plans = []
    for r in range(s.world):
        cmd = [sys.executable, os.path.abspath(__file__), "--child", s.name, "--rank", str(r),
               "--world", str(s.world), "--dir", sdir, "--layers", str(a.layers), "--hidden", str(a.hidden),
               "--active", str(a.active), "--snapshot-entries", str(a.snapshot_entries)]
        if s.snapshot:
            cmd.append("--snapshot")
        # LOCAL_RANK is the device a launcher would give the rank: 0 for all, since there is one GPU
        # (DeviceMesh would call set_device(LOCAL_RANK) on a rank that has not picked its device)
        env = {"RANK": str(r), "LOCAL_RANK": "0", "WORLD_SIZE": str(s.world),
               "MASTER_ADDR": "127.0.0.1", "MASTER_PORT": str(port), "PYTHONUNBUFFERED": "1"}
        if s.world > 1:
            env.update({"NCCL_HOSTID": f"fsdpa-capture-rank{r}", "NCCL_P2P_DISABLE": "1",
                        "NCCL_SHM_DISABLE": "1", "NCCL_IB_DISABLE": "1", "NCCL_SOCKET_IFNAME": "lo"})
        env.update(s.env)
        plans.append((cmd, env))
    return plans


def run_scenario(s, a, sdir, timeout_s):
    os.makedirs(sdir, exist_ok=True)
    procs, logs = [], []
    t0 = time.time()
    for r, (cmd, env) in enumerate(child_plan(s, a, sdir, free_port())):
        log = open(os.path.join(sdir, f"rank{r}.log"), "wb")
        logs.append(log)
        procs.append(subprocess.Popen(cmd, env={**os.environ, **env}, stdout=log, stderr=subprocess.STDOUT,
                                      start_new_session=True))
    status, failed_at = "ok", None
    while any(p.poll() is None for p in procs):
        now = time.time()
        if now - t0 > timeout_s:
            status = "timeout"
            break
        if failed_at is None and any(p.poll() not in (None, 0) for p in procs):
            failed_at = now  # a rank died: its peers would wait for it until the timeout
        if failed_at is not None and now - failed_at > 5:
            break
        time.sleep(0.2)
    for p in procs:
        try:  # our own child's session: the rank and what it started (compile workers, say)
            os.killpg(p.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        p.wait()
    for log in logs:
        log.close()
    codes = [p.returncode for p in procs]
    if status == "ok" and EXIT_SKIP in codes:
        status = "skipped"
    elif status == "ok" and any(c != 0 for c in codes):
        status = "failed"
    return status, round(time.time() - t0, 1), codes


def tail(path, n=1500):
    try:
        with open(path, "rb") as f:
            f.seek(0, 2)
            f.seek(max(f.tell() - n, 0))
            return f.read().decode("utf-8", "replace")
    except OSError:
        return ""


def load_trace(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        return json.load(f, parse_float=decimal.Decimal)


def _ns(v):
    return int(decimal.Decimal(v) * 1000)


def _union(spans):
    out = []
    for b, e in sorted(spans):
        if out and b <= out[-1][1]:
            out[-1][1] = max(out[-1][1], e)
        else:
            out.append([b, e])
    return out


def _covered(b, e, merged):
    return sum(max(0, min(e, y) - max(b, x)) for x, y in merged if x < e and y > b)


def trace_facts(path):
    """What the capture must prove, read from the trace itself: the share of backward all-gather
    kernel time that compute kernels overlap (the no-prefetch scenario's proof), and the driver's
    cuMem* calls (expandable segments map memory with them; present or not, it is written down)."""
    doc = load_trace(path)
    ev = [e for e in doc.get("traceEvents", []) if e.get("ph") == "X"]
    launch = {}
    for e in ev:
        if e.get("cat") in ("cuda_runtime", "cuda_driver") and "correlation" in e.get("args", {}):
            launch[e["args"]["correlation"]] = _ns(e["ts"])
    steps = [(_ns(e["ts"]), _ns(e["ts"]) + _ns(e["dur"])) for e in ev
             if e.get("name", "").startswith("ProfilerStep#")]
    pre_bwd = sorted(_ns(e["ts"]) for e in ev if "pre_backward" in e.get("name", "")
                     and e.get("cat") in ("cpu_op", "user_annotation"))
    windows = []
    for b, e in steps:
        first = next((t for t in pre_bwd if b <= t < e), None)
        if first is not None:
            windows.append((first, e))
    kernels = [e for e in ev if e.get("cat") == "kernel"]
    compute = _union((_ns(k["ts"]), _ns(k["ts"]) + _ns(k["dur"])) for k in kernels
                     if "nccl" not in k["name"].lower())
    ag_ns = ag_cov = ag_n = 0
    for k in kernels:
        name = k["name"].lower()
        t = launch.get(k.get("args", {}).get("correlation"))
        if "nccl" in name and "allgather" in name and t is not None and any(b <= t < e for b, e in windows):
            b, e = _ns(k["ts"]), _ns(k["ts"]) + _ns(k["dur"])
            ag_n += 1
            ag_ns += e - b
            ag_cov += _covered(b, e, compute)
    cumem = {}
    for e in ev:
        if e.get("name", "").startswith("cuMem"):
            cumem[e["name"]] = cumem.get(e["name"], 0) + 1
    return {"backward_allgather_kernels": ag_n, "backward_allgather_ns": ag_ns,
            "backward_allgather_overlapped_ns": ag_cov,
            "backward_allgather_overlap": round(ag_cov / ag_ns, 4) if ag_ns else None,
            "cumem_calls": cumem,
            "nccl_kernels": sum(1 for k in kernels if "nccl" in k["name"].lower())}


def pack(out_dir, members, cap, manifest):
    """Write capture.tar.gz of members ([(path, arcname)]) within cap bytes: drop snapshots first
    (largest first), then traces (largest first); logs and info stay. Returns what was dropped."""
    def rank(m):
        name = m[1]
        size = os.path.getsize(m[0])
        return (0 if name.endswith(".pickle") else 1 if ".json" in name and "info" not in name else 2, -size)
    keep, dropped = list(members), []
    droppable = sorted((m for m in members if rank(m)[0] < 2), key=rank)
    final = os.path.join(out_dir, "capture.tar.gz")
    while True:
        manifest["dropped_from_archive"] = [m[1] for m in dropped]
        buf = io.BytesIO()
        with tarfile.open(fileobj=buf, mode="w:gz") as tar:
            for path, arc in keep:
                tar.add(path, arcname=arc)
            blob = json.dumps(manifest, indent=1).encode()
            ti = tarfile.TarInfo("manifest.json")
            ti.size = len(blob)
            tar.addfile(ti, io.BytesIO(blob))
        if buf.tell() <= cap or not droppable:
            break
        victim = droppable.pop(0)
        keep.remove(victim)
        dropped.append(victim)
    tmp = final + ".tmp"
    with open(tmp, "wb") as f:
        f.write(buf.getvalue())
    os.replace(tmp, final)  # a kill mid-write leaves the previous archive whole
    with open(os.path.join(out_dir, "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=1)
    return [m[1] for m in dropped], buf.tell()


def scenario_files(sdir, name):
    return sorted((os.path.join(sdir, f), f"{name}/{f}") for f in os.listdir(sdir))


def describe(sdir, name, entry):
    files = {}
    for path, arc in scenario_files(sdir, name):
        size = os.path.getsize(path)
        limit = TRACE_LIMIT if arc.endswith(".json.gz") else SNAPSHOT_LIMIT if arc.endswith(".pickle") else None
        files[arc] = {"bytes": size, **({"over_limit": size > limit} if limit else {})}
    entry["files"] = files
    info = os.path.join(sdir, "info.json")
    if os.path.exists(info):
        with open(info) as f:
            entry["versions"] = json.load(f)
    trace = os.path.join(sdir, "rank0.json.gz")
    if os.path.exists(trace):
        try:
            entry["facts"] = trace_facts(trace)
        except Exception as e:  # a truncated trace is still worth shipping; the reason is recorded
            entry["facts"] = {"error": f"{type(e).__name__}: {e}"}


def run_all(a):
    os.makedirs(a.out, exist_ok=True)
    work = a.work or tempfile.mkdtemp(prefix="fsdpa-capture-")
    chosen = [s for s in SCENARIOS if not a.only or s.name in a.only]
    manifest = {"command": " ".join(sys.argv), "started": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
                "budget_s": a.budget_s, "model": {"layers": a.layers, "hidden": a.hidden, "active_steps": a.active},
                "scenarios": {s.name: {"status": "planned", "world": s.world, "what": s.what} for s in chosen}}
    members, t_start = [], time.time()
    for s in chosen:
        entry = manifest["scenarios"][s.name]
        left = a.budget_s - (time.time() - t_start)
        if s.fallback_for and manifest["scenarios"].get(s.fallback_for, {}).get("status") == "ok":
            entry["status"] = "skipped"
            entry["error"] = f"not needed: {s.fallback_for} ran"
        elif s.fallback_for and s.fallback_for not in manifest["scenarios"]:
            entry["status"] = "skipped"
            entry["error"] = f"not needed: {s.fallback_for} was not chosen"
        elif left < 10:
            entry["status"] = "skipped"
            entry["error"] = f"budget spent ({left:.0f} s left)"
        else:
            sdir = os.path.join(work, s.name)
            status, secs, codes = run_scenario(s, a, sdir, min(s.timeout_s * a.timeout_scale, left))
            entry.update(status=status, seconds=secs, exit_codes=codes)
            if status != "ok":
                # the rank that failed by itself, rather than one killed after it
                bad = next((r for r, c in enumerate(codes) if c > 0),
                           next((r for r, c in enumerate(codes) if c != 0), 0))
                entry["error"] = f"rank{bad}: " + tail(os.path.join(sdir, f"rank{bad}.log"))
            if s.fallback_for:
                entry["note"] = ("world size 1: no real collective kernels; the communication numbers "
                                 "stay unvalidated")
            describe(sdir, s.name, entry)
            members += scenario_files(sdir, s.name)
        manifest["elapsed_s"] = round(time.time() - t_start, 1)
        dropped, size = pack(a.out, members, a.archive_cap, manifest)
        facts = entry.get("facts", {})
        print(f"{s.name}: {entry['status']} ({entry.get('seconds', 0)} s); archive {size} B"
              + (f"; backward all-gather overlap {facts['backward_allgather_overlap']}"
                 if facts.get("backward_allgather_overlap") is not None else "")
              + (f"; cuMem* calls {facts['cumem_calls']}" if facts.get("cumem_calls") else "")
              + (f"; dropped {dropped}" if dropped else ""), flush=True)
    return 0


def dry_run(a):
    """Everything but torch: the table, the child command lines, the packing cap, the trace facts."""
    errs = check_table(a.budget_s)
    plan = {}
    for s in SCENARIOS:
        plan[s.name] = [{"cmd": cmd, "env": env} for cmd, env in
                        child_plan(s, a, os.path.join(a.work or "WORK", s.name), 29500)]
    with tempfile.TemporaryDirectory() as tmp:
        rnd = os.urandom
        fake = []
        for name, size in [("healthy/rank0.json.gz", 300_000), ("healthy/rank1.json.gz", 200_000),
                           ("empty_cache/rank0.snapshot.pickle", 400_000), ("empty_cache/rank0.log", 1000)]:
            p = os.path.join(tmp, name.replace("/", "_"))
            with open(p, "wb") as f:
                f.write(rnd(size))  # random: gzip cannot shrink it, so sizes are predictable
            fake.append((p, name))
        out = os.path.join(tmp, "out")
        os.makedirs(out)
        m = {"scenarios": {}}
        dropped_a, _ = pack(out, fake, 15 * MiB, dict(m))
        dropped_b, size_b = pack(out, fake, 700_000, dict(m))
        dropped_c, size_c = pack(out, fake, 400_000, dict(m))
        # a trace of known overlap: two backward all-gathers of 10 us, compute covering one of them
        ev = [{"ph": "X", "name": "ProfilerStep#1", "cat": "user_annotation", "ts": 0, "dur": 1000},
              {"ph": "X", "name": "FSDP::pre_backward", "cat": "user_annotation", "ts": 100, "dur": 5},
              {"ph": "X", "name": "sm90_xmma_gemm", "cat": "kernel", "ts": 195, "dur": 20.5},
              {"ph": "X", "name": "cuMemMap", "cat": "cuda_driver", "ts": 5, "dur": 1}]
        for corr, launched, ran in [(1, 50, 60), (2, 110, 200), (3, 120, 300)]:  # the first in forward
            ev += [{"ph": "X", "name": "cudaLaunchKernel", "cat": "cuda_runtime", "ts": launched, "dur": 2,
                    "args": {"correlation": corr}},
                   {"ph": "X", "name": "ncclDevKernel_AllGather_RING_LL", "cat": "kernel", "ts": ran, "dur": 10,
                    "args": {"correlation": corr}}]
        tp = os.path.join(tmp, "t.json.gz")
        with gzip.open(tp, "wt") as f:
            json.dump({"traceEvents": ev}, f)
        facts = trace_facts(tp)
    print(json.dumps({"table_errors": errs, "budget_s": a.budget_s,
                      "timeouts_sum_s": sum(s.timeout_s for s in SCENARIOS),
                      "order": [s.name for s in SCENARIOS], "children": plan,
                      "pack": {"cap_15MiB_dropped": dropped_a, "cap_700000_dropped": dropped_b,
                               "cap_700000_bytes": size_b, "cap_400000_dropped": dropped_c,
                               "cap_400000_bytes": size_c},
                      "trace_facts_fake": facts}, indent=1))
    os.makedirs(a.out, exist_ok=True)
    manifest = {"dry_run": True, "scenarios": {s.name: {"status": "planned", "world": s.world,
                                                        "timeout_s": s.timeout_s, "what": s.what}
                                               for s in SCENARIOS}}
    with open(os.path.join(a.out, "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=1)
    return 1 if errs else 0


def parse(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--out", default=os.environ.get("OUT"), help="where capture.tar.gz and manifest.json go ($OUT)")
    p.add_argument("--work", help="where the scenarios write (default: a new folder in the temp dir)")
    p.add_argument("--budget-s", type=float, default=DEFAULT_BUDGET_S, help="all scenarios together")
    p.add_argument("--timeout-scale", type=float, default=1.0, help="multiply every scenario's timeout")
    p.add_argument("--only", type=lambda v: v.split(","), help="comma-separated scenario names")
    p.add_argument("--archive-cap", type=int, default=ARCHIVE_CAP)
    p.add_argument("--layers", type=int, default=8)
    p.add_argument("--hidden", type=int, default=1024)
    p.add_argument("--active", type=int, default=3, help="active profiled steps after 1 warm-up")
    p.add_argument("--snapshot-entries", type=int, default=1000, help="max_entries of the memory history")
    p.add_argument("--dry-run", action="store_true")
    # a child rank (started by this script)
    p.add_argument("--child", help=argparse.SUPPRESS)
    p.add_argument("--rank", type=int, default=0, help=argparse.SUPPRESS)
    p.add_argument("--world", type=int, default=1, help=argparse.SUPPRESS)
    p.add_argument("--dir", help=argparse.SUPPRESS)
    p.add_argument("--snapshot", action="store_true", help=argparse.SUPPRESS)
    a = p.parse_args(argv)
    a.heads, a.vocab, a.batch, a.seq = 8, 8192, 4, 512
    a.tiny_layers, a.tiny_width, a.tiny_batch = 64, 64, 8
    if a.only:
        unknown = set(a.only) - {s.name for s in SCENARIOS}
        if unknown:
            p.error(f"unknown scenario(s): {', '.join(sorted(unknown))}")
    if a.child and a.child not in CHILDREN:
        p.error(f"unknown child {a.child}")
    if not a.child and not a.out:
        p.error("--out is required when $OUT is not set")
    if a.hidden % a.heads:
        p.error(f"--hidden must be a multiple of {a.heads}")
    return a


def main(argv=None):
    a = parse(sys.argv[1:] if argv is None else argv)
    if a.child:
        run_child(a)
        return 0
    if a.dry_run:
        return dry_run(a)
    errs = check_table()
    if errs:
        print("\n".join(errs), file=sys.stderr)
        return 2
    return run_all(a)


if __name__ == "__main__":
    sys.exit(main())
