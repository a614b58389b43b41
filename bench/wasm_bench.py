#!/usr/bin/env python3
"""The WebAssembly module's throughput against the native CLI, in one run.

    python3 bench/wasm_bench.py --native build-release --wasm build-wasm [TRACE...] [--repeat 3]

For each trace (default: a generated `mixed` trace of --size JSON bytes, plain
and .gz, as bench/run.py makes them), the same work three ways: read the
file, analyze it, write the JSON report:
  native    `fsdpa analyze -f json TRACE`, CPU time (user + sys) of the process
  node      fsdpa.mjs in node (bench/wasm_node.mjs): Analyzer.feed() of 1 MiB
            chunks, finish(), reportBytes('json'); the process's CPU time over
            that work (module instantiation excluded)
  chromium  the viewer page's own worker code (fsdpa-worker.js) in headless
            Chromium: File.stream() of the file picked in an <input>, feed,
            finish, report; the CPU time of all of Chromium's processes over
            the run (/proc: the worker, and the browser process serving the
            file's blob), and the worker's own wall time (performance.now())
Best of --repeat runs each ("1st": the first run alone, which in a
browser includes V8 tiering the wasm up from its baseline compiler).  MB/s is uncompressed JSON bytes (10^6) per
second, .gz rows included.  Prints one row per trace and engine with the
ratio to native, and the machine's load average: under load, wall times
(Chromium's) grow with it and CPU times less so.  --json FILE writes the rows.
"""
import argparse
import json
import os
import re
import resource
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(ROOT, "tests", "wasm"))
import run as bench_run  # noqa: E402  (ensure_trace, parse_size)
import cdp  # noqa: E402

BENCH_WORKER = r"""
onmessage = async function (ev) {
  if (!ev.data || ev.data.type !== 'bench') return;
  const F = await fsdpaReady;
  const file = ev.data.file, times = [];
  let json = 0;
  {
    const t0 = performance.now();
    const a = new F.Analyzer({ name: file.name });
    const rd = file.stream().getReader();
    for (;;) { const x = await rd.read(); if (x.done) break; a.feed(x.value); }
    a.finish();
    a.reportBytes('json');
    times.push((performance.now() - t0) / 1000);
    json = Number(a.stats().json_bytes);
    a.free();
  }
  postMessage({ type: 'bench', times: times, json: json, heap: F.heapBytes() });
};
"""


def native_row(cli, trace, repeat):
    best = None
    for _ in range(repeat):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        with open(os.devnull, "wb") as dn:
            subprocess.run([cli, "analyze", "-f", "json", trace], stdout=dn, check=True)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        best = cpu if best is None else min(best, cpu)
    return best


def node_row(node, module, trace, repeat):
    out = subprocess.run(node.split() + [os.path.join(HERE, "wasm_node.mjs"), module, trace, str(repeat)],
                         check=True, stdout=subprocess.PIPE).stdout
    r = json.loads(out)
    return r["cpu"], r["json"], r["heap"]


def tree_cpu(pid):
    """CPU seconds (user + sys) of process `pid` and its descendants, so far."""
    tick = os.sysconf("SC_CLK_TCK")
    kids, total = {}, 0.0
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            st = open(f"/proc/{d}/stat").read()
        except OSError:
            continue
        f = st[st.rindex(")") + 2:].split()
        kids.setdefault(int(f[1]), []).append((int(d), (int(f[11]) + int(f[12])) / tick))
    todo = [pid]
    own = {}
    for lst in kids.values():
        for p, c in lst:
            own[p] = c
    total = own.get(pid, 0.0)
    while todo:
        for p, c in kids.get(todo.pop(), []):
            total += c
            todo.append(p)
    return total


def chromium_rows(chromium, page, traces, repeat):
    b = cdp.Browser(chromium)
    rows = {}
    try:
        b.navigate("file://" + os.path.abspath(page))
        if not b.wait_for("document.body.dataset.state === 'ready'", timeout=120):
            raise RuntimeError("the viewer page did not load")
        b.evaluate("""(function () {
            const i = document.createElement('input'); i.type = 'file'; i.id = 'bench-file';
            document.body.appendChild(i);
            const src = document.getElementById('fsdpa-worker-src').textContent + %s;
            window.benchWorker = new Worker(URL.createObjectURL(new Blob([src], {type: 'text/javascript'})));
            return true; })()""" % json.dumps(BENCH_WORKER))
        doc = b.call("DOM.getDocument", session=b.page)["root"]["nodeId"]
        node = b.call("DOM.querySelector", {"nodeId": doc, "selector": "#bench-file"}, session=b.page)["nodeId"]
        for t in traces:
            b.call("DOM.setFileInputFiles", {"files": [os.path.abspath(t)], "nodeId": node}, session=b.page)
            cpus, walls = [], []
            for _ in range(repeat):
                c0 = tree_cpu(b.proc.pid)
                r = b.evaluate("""new Promise(function (resolve) {
                    window.benchWorker.onmessage = function (e) { if (e.data.type === 'bench') resolve(e.data); };
                    window.benchWorker.postMessage({type: 'bench',
                                                    file: document.getElementById('bench-file').files[0]}); })""",
                               timeout=1800)
                cpus.append(tree_cpu(b.proc.pid) - c0)
                walls.append(r["times"][0])
            rows[t] = (cpus, walls, r["json"], r["heap"])
        version = b.call("Browser.getVersion")["product"]
    finally:
        b.close()
    return rows, version


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("traces", nargs="*")
    ap.add_argument("--native", default=os.path.join(ROOT, "build"), help="native build dir (its tools/fsdpa/fsdpa)")
    ap.add_argument("--wasm", default=os.path.join(ROOT, "build-wasm"), help="emscripten build dir")
    ap.add_argument("--size", default="100M", help="JSON size of the generated trace (default 100M)")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--node", action="append", help="node command(s) to run (default: node)")
    ap.add_argument("--chromium")
    ap.add_argument("--data-dir", default=os.environ.get("FSDPA_BENCH_DATA",
                                                         os.path.join(tempfile.gettempdir(), "fsdpa-bench")))
    ap.add_argument("--json")
    a = ap.parse_args()
    cli = os.path.join(a.native, "tools", "fsdpa", "fsdpa")
    module = os.path.abspath(os.path.join(a.wasm, "bindings", "wasm", "fsdpa.mjs"))
    page = os.path.join(a.wasm, "tools", "viewer", "fsdpa-viewer.html")
    traces = a.traces
    if not traces:
        p = bench_run.ensure_trace(a.data_dir, bench_run.parse_size(a.size), False)[0]
        traces = [p, p + ".gz"]
    load = open("/proc/loadavg").read().split()[:3]
    print(f"# load average {' '.join(load)} on {os.cpu_count()} CPUs; best of {a.repeat}")
    chromium = cdp.find_chromium(a.chromium)
    crows, cver = chromium_rows(chromium, page, traces, a.repeat) if chromium else ({}, None)
    out = []
    hdr = f"{'trace':<44} {'engine':<22} {'seconds':>8} {'MB/s':>7} {'x native':>8}"
    print(hdr)
    for t in traces:
        nat = native_row(cli, t, a.repeat)
        rows = []
        json_bytes = None
        heaps = []
        for node in a.node or ["node"]:
            cpu, json_bytes, heap = node_row(node, module, t, a.repeat)
            heaps.append(heap)
            nv = subprocess.run(node.split() + ["--version"], stdout=subprocess.PIPE, text=True).stdout.strip()
            rows.append((f"node {nv} CPU", min(cpu)))
            rows.append((f"node {nv} CPU 1st", cpu[0]))
        rows.insert(0, ("native CLI CPU", nat))
        if t in crows:
            major = cver.split("/")[-1].split(".")[0]
            cpus, walls, _j, heap = crows[t]
            heaps.append(heap)
            rows.append((f"chromium {major} CPU", min(cpus)))
            rows.append((f"chromium {major} CPU 1st", cpus[0]))
            rows.append((f"chromium {major} wall", min(walls)))
        for eng, s in rows:
            mbs = json_bytes / 1e6 / s if s > 0 else 0
            r = {"trace": t, "engine": eng, "seconds": round(s, 3), "mb_s": round(mbs, 1),
                 "vs_native": round(s / nat, 2) if nat > 0 else None, "json_bytes": json_bytes, "load": load}
            out.append(r)
            name = re.sub(r"^.*/", "", t)
            print(f"{name[:44]:<44} {eng:<22} {s:8.3f} {mbs:7.1f} {r['vs_native']:8.2f}")
        print(f"# {re.sub(r'^.*/', '', t)}: {json_bytes / 2 ** 20:.1f} MiB of JSON; the wasm heap after it: "
              + ", ".join(f"{h / 2 ** 20:.0f} MiB" for h in heaps) + " (node..., chromium)")
    if a.json:
        with open(a.json, "w") as f:
            json.dump(out, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
