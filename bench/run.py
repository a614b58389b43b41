#!/usr/bin/env python3
"""bench/run.py: throughput and memory of `fsdpa analyze` against its floors
and its peers, side by side, on large generated traces.

    python3 bench/run.py                       # 100 MB and 1 GB traces
    python3 bench/run.py --sizes 200M --repeat 5 --json out.json
    python3 bench/run.py --quick               # 50 MB, what `meson test --benchmark` runs

What runs, per trace (every row on the same file, page cache warm, one
core: `taskset -c 0` unless --no-pin):

  fsdpa analyze         the CLI, every analysis on, JSON report to /dev/null
  fsdpa-ingest views    input + event store + sorted views, no analysis
  fsdpa-ingest floor    input layer only (inflate, splitter, simdjson decode
                        of every event) into a no-op sink: the floor
  gzip -dc              inflate alone (the .gz target's yardstick)
  python json.load      CPython's json of the whole file (what HTA does
                        first; the proxy lower bound when HTA is absent)
  HTA                   Holistic Trace Analysis, if `import hta` works or
                        HTA_SRC points at a source checkout

Sizes are decimal (1 MB = 10^6 bytes); MB/s is uncompressed JSON bytes per
second for every row, .gz rows included.  Peak RSS is the child's
ru_maxrss from wait4(2).  Times are the best of --repeat runs (Python and
HTA run once: they take long and vary little).  See bench/README.md.
"""

import argparse
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
TRACEGEN = os.path.join(ROOT, "tools", "tracegen", "tracegen.py")
MB = 1e6
TIME = "/usr/bin/time" if os.access("/usr/bin/time", os.X_OK) else None

# Performance targets (one core, uncompressed unless said).
T_MBPS = 500.0          # fsdpa analyze, MB/s
T_GZ_RATIO = 1.3        # fsdpa analyze .gz time / gzip -dc time
T_RSS_RATIO = 0.25      # peak RSS / JSON bytes
T_HTA_SPEED = 50.0      # HTA time / fsdpa time
T_HTA_MEM = 20.0        # HTA RSS / fsdpa RSS


def parse_size(s):
    s = s.strip().upper().rstrip("B")
    mult = {"K": 1e3, "M": 1e6, "G": 1e9}.get(s[-1:], 1)
    if s[-1:] in "KMG":
        s = s[:-1]
    return int(float(s) * mult)


def size_name(n):
    return "%gGB" % (n / 1e9) if n >= 1e9 else "%gMB" % (n / 1e6)


def log(*a):
    print(*a, file=sys.stderr, flush=True)


class Runner:
    def __init__(self, pin):
        self.pin = pin if shutil.which("taskset") else None

    def run(self, cmd, cpus=None, stdout_file=False):
        """Run cmd; return dict(seconds, rss_bytes, rc, stdout, ...).

        Peak RSS goes through /usr/bin/time: a child's ru_maxrss starts from
        the high-water mark of the process that exec'd it (Linux carries it
        over exec), and Python's own RSS would otherwise floor every row."""
        cpus = cpus if cpus is not None else self.pin
        full = (["taskset", "-c", cpus] if cpus else []) + cmd
        with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err, \
                tempfile.NamedTemporaryFile("r") as tf:
            if TIME:
                full = [TIME, "-f", "%M %U %S", "-o", tf.name] + full
            t0 = time.perf_counter()
            p = subprocess.Popen(full, stdout=out if stdout_file else subprocess.DEVNULL,
                                 stderr=err, stdin=subprocess.DEVNULL)
            _, status, ru = os.wait4(p.pid, 0)
            dt = time.perf_counter() - t0
            rc = os.waitstatus_to_exitcode(status)
            out.seek(0)
            err.seek(0)
            text = out.read().decode("utf-8", "replace")
            etext = err.read().decode("utf-8", "replace")
            rss, ut, st = ru.ru_maxrss * 1024, ru.ru_utime, ru.ru_stime
            if TIME:
                # last line; a failing command adds "Command exited with ..." before it
                lines = [l for l in tf.read().splitlines() if l.strip()]
                last = lines[-1].split() if lines else []
                try:
                    rss, ut, st = int(last[0]) * 1024, float(last[1]), float(last[2])
                except (ValueError, IndexError):
                    pass
        return {"seconds": dt, "rss_bytes": rss, "rc": rc, "stdout": text, "stderr": etext[-2000:],
                "user_s": ut, "sys_s": st}

    def best(self, cmd, repeat, ok_rc=(0,), cpus=None, stdout_file=False):
        runs = []
        for _ in range(repeat):
            r = self.run(cmd, cpus=cpus, stdout_file=stdout_file)
            if r["rc"] not in ok_rc:
                raise RuntimeError("%s exited %d:\n%s" % (" ".join(cmd), r["rc"], r["stderr"]))
            runs.append(r)
        b = dict(min(runs, key=lambda r: r["seconds"]))
        b["all_seconds"] = [round(r["seconds"], 4) for r in runs]
        # CPU time: the best run's by CPU, so a loaded machine shows in wall time only
        c = min(runs, key=lambda r: r["user_s"] + r["sys_s"])
        b["user_s"], b["sys_s"] = c["user_s"], c["sys_s"]
        b["rss_bytes"] = max(r["rss_bytes"] for r in runs)
        return b


def warm(path):
    """Read the file once so every row sees the page cache the same way."""
    with open(path, "rb") as f:
        while f.read(1 << 24):
            pass


def ensure_trace(data_dir, size, regen, ranks=1, seed=1):
    """Generate (or reuse) a `mixed` trace of about `size` JSON bytes per
    rank and its .gz (gzip -6).  Returns list of plain paths (one per rank)."""
    base = os.path.join(data_dir, "mixed-%s%s-s%d.json" % (size_name(size), "-r%d" % ranks if ranks > 1 else "", seed))
    stem = base[: -len(".json")]
    paths = [base] if ranks == 1 else ["%s.rank%d.json" % (stem, r) for r in range(ranks)]
    stamp = stem + ".stamp"
    gen_id = "%d:%d" % (os.path.getmtime(TRACEGEN), os.path.getsize(TRACEGEN))
    fresh = (not regen and all(os.path.exists(p) and os.path.exists(p + ".gz") for p in paths)
             and os.path.exists(stamp) and open(stamp).read() == gen_id)
    if fresh:
        return paths
    os.makedirs(data_dir, exist_ok=True)
    log("generating %s (%d rank(s), ~%s each) ..." % (base, ranks, size_name(size)))
    cmd = [sys.executable, TRACEGEN, "mixed", "-o", base, "--target-bytes", str(size), "--seed", str(seed)]
    if ranks > 1:
        cmd += ["--ranks", str(ranks)]
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    for p in paths:
        with open(p + ".gz.tmp", "wb") as out:
            subprocess.run(["gzip", "-6", "-c", p], check=True, stdout=out)
        os.replace(p + ".gz.tmp", p + ".gz")
    with open(stamp, "w") as f:
        f.write(gen_id)
    return paths


def hta_command(python, trace):
    """Command that runs HTA's TraceAnalysis on one trace, or (None, why)."""
    src = os.environ.get("HTA_SRC")
    env_ok = False
    if src:
        env_ok = os.path.isdir(os.path.join(src, "hta"))
        if not env_ok:
            return None, "HTA_SRC=%s has no hta/ package" % src
    else:
        r = subprocess.run([python, "-c", "import hta"], capture_output=True)
        env_ok = r.returncode == 0
        if not env_ok:
            return None, ("HTA not installed (`%s -c 'import hta'` fails and HTA_SRC is unset); "
                          "python json.load is the proxy lower bound" % python)
    return [python, os.path.join(HERE, "hta_run.py"), trace], None


def hta_version(python):
    """HTA's version tuple as text ("0.6.0"), or "?" (printed next to its row)."""
    env = dict(os.environ)
    if env.get("HTA_SRC"):
        env["PYTHONPATH"] = env["HTA_SRC"] + os.pathsep + env.get("PYTHONPATH", "")
    r = subprocess.run([python, "-c", "from hta.version import __version_tuple__ as v; print('.'.join(map(str, v)))"],
                       capture_output=True, text=True, env=env)
    return r.stdout.strip() if r.returncode == 0 and r.stdout.strip() else "?"


def row(name, r, json_bytes, events):
    s = r["seconds"]
    cpu = r["user_s"] + r["sys_s"]
    return {"tool": name, "seconds": round(s, 4), "all_seconds": r.get("all_seconds", [round(s, 4)]),
            "cpu_s": round(cpu, 3), "mb_per_cpu_s": round(json_bytes / MB / cpu, 1) if cpu > 0 else None,
            "mb_per_s": round(json_bytes / MB / s, 1), "mevents_per_s": round(events / 1e6 / s, 3),
            "peak_rss_mb": round(r["rss_bytes"] / MB, 1),
            "rss_over_json": round(r["rss_bytes"] / json_bytes, 4),
            "user_s": round(r["user_s"], 3), "sys_s": round(r["sys_s"], 3)}


def bench_trace(R, args, path):
    gz = path + ".gz"
    json_bytes = os.path.getsize(path)
    gz_bytes = os.path.getsize(gz)
    warm(path)
    warm(gz)
    res = {"trace": path, "json_bytes": json_bytes, "gz_bytes": gz_bytes, "rows": [], "skipped": []}

    floor = R.best([args.ingest, "floor", path], args.repeat, stdout_file=True)
    fl = json.loads(floor["stdout"])
    events = fl["events"]
    res["events"] = events
    res["bytes_per_event"] = round(json_bytes / events, 1) if events else None
    res["simd_splitter"] = fl.get("simd_splitter")
    res["json_impl"] = fl.get("json_impl")
    analyze = [args.fsdpa, "analyze", "-f", "json", "-o", "/dev/null", "--no-progress"]

    rows = {}
    log("  fsdpa analyze ...")
    rows["analyze"] = row("fsdpa analyze", R.best(analyze + [path], args.repeat, ok_rc=(0, 1)), json_bytes, events)
    log("  fsdpa-ingest views / floor ...")
    v = R.best([args.ingest, "views", path], args.repeat, stdout_file=True)
    rows["views"] = row("fsdpa-ingest views (no analysis)", v, json_bytes, events)
    res["memory"] = json.loads(v["stdout"])
    rows["floor"] = row("fsdpa-ingest floor", floor, json_bytes, events)
    log("  .gz rows ...")
    rows["analyze_gz"] = row("fsdpa analyze .gz", R.best(analyze + [gz], args.repeat, ok_rc=(0, 1)), json_bytes, events)
    rows["floor_gz"] = row("fsdpa-ingest floor .gz", R.best([args.ingest, "floor", gz], args.repeat, stdout_file=True),
                           json_bytes, events)
    rows["gzip"] = row("gzip -dc", R.best(["gzip", "-dc", gz], args.repeat), json_bytes, events)

    if args.skip_python:
        res["skipped"].append("python json.load: --skip-python")
    else:
        log("  python json.load ...")
        code = "import json,sys\nwith open(sys.argv[1],'rb') as f: d=json.load(f)\nprint(len(d['traceEvents']))"
        rows["python"] = row("python json.load", R.best([args.python, "-c", code, path], 1), json_bytes, events)
    if args.skip_hta:
        res["skipped"].append("HTA: --skip-hta")
    else:
        cmd, why = hta_command(args.python, path)
        if cmd is None:
            res["skipped"].append("HTA: " + why)
        else:
            log("  HTA ...")
            try:
                rows["hta"] = row("HTA %s TraceAnalysis" % hta_version(args.python),
                                  R.best(cmd, 1, stdout_file=True), json_bytes, events)
            except RuntimeError as e:
                res["skipped"].append("HTA failed: %s" % str(e)[-500:])
    res["rows"] = list(rows.values())

    a, f = rows["analyze"], rows["floor"]
    # time basis of the targets: "cpu" (user+sys: a single-threaded tool's time on
    # one core, robust when other work shares the machine) or "wall"
    tm = (lambda r: r["cpu_s"]) if args.basis == "cpu" else (lambda r: r["seconds"])
    ratios = {
        "basis": args.basis,
        "analyze_over_floor_time": round(tm(a) / tm(f), 3),
        "analyze_gz_over_gzip_time": round(tm(rows["analyze_gz"]) / tm(rows["gzip"]), 3),
        "floor_gz_over_gzip_time": round(tm(rows["floor_gz"]) / tm(rows["gzip"]), 3),
        "analyze_rss_over_json": a["rss_over_json"],
        "analyze_gz_rss_over_json": rows["analyze_gz"]["rss_over_json"],
    }
    peer = rows.get("hta") or rows.get("python")
    if peer:
        ratios["peer"] = peer["tool"]
        ratios["peer_over_analyze_time"] = round(tm(peer) / tm(a), 2)
        ratios["peer_over_analyze_rss"] = round(peer["peak_rss_mb"] / a["peak_rss_mb"], 2)
    res["ratios"] = ratios

    t = []
    mbps = json_bytes / MB / tm(a)
    t.append(("fsdpa analyze >= %g MB/s (uncompressed, all analyses, %s time)" % (T_MBPS, args.basis),
              mbps >= T_MBPS, "%.0f MB/s" % mbps))
    t.append((".gz analyze <= %.1fx gzip -dc" % T_GZ_RATIO, ratios["analyze_gz_over_gzip_time"] <= T_GZ_RATIO,
              "%.2fx" % ratios["analyze_gz_over_gzip_time"]))
    t.append(("peak RSS <= %.2fx JSON size" % T_RSS_RATIO, a["rss_over_json"] <= T_RSS_RATIO,
              "%.3fx (%.0f MB)" % (a["rss_over_json"], a["peak_rss_mb"])))
    if peer:
        proxy = "" if peer is rows.get("hta") else " (json.load proxy: HTA does json.load and more, so HTA is slower and larger still)"
        t.append((">= %gx faster than %s%s" % (T_HTA_SPEED, peer["tool"], proxy),
                  ratios["peer_over_analyze_time"] >= T_HTA_SPEED, "%.1fx" % ratios["peer_over_analyze_time"]))
        t.append((">= %gx less memory than %s" % (T_HTA_MEM, peer["tool"]),
                  ratios["peer_over_analyze_rss"] >= T_HTA_MEM, "%.1fx" % ratios["peer_over_analyze_rss"]))
    res["targets"] = [{"target": n, "met": bool(ok), "value": val} for n, ok, val in t]
    return res


def bench_jobs(R, args, paths):
    total = sum(os.path.getsize(p) for p in paths)
    for p in paths:
        warm(p)
    analyze = [args.fsdpa, "analyze", "-f", "json", "-o", "/dev/null", "--no-progress"]
    nj = min(len(paths), os.cpu_count() or 1)
    cpus = "0-%d" % (nj - 1)
    out = {"traces": paths, "json_bytes": total, "cpus": cpus, "rows": []}
    for j, extra in ((1, []), (nj, []), (nj, ["--low-memory"])):
        r = R.best(analyze + ["-j", str(j)] + extra + paths, args.repeat, ok_rc=(0, 1), cpus=cpus)
        out["rows"].append({"jobs": j, "options": " ".join(extra), "seconds": round(r["seconds"], 4),
                            "all_seconds": r["all_seconds"],
                            "mb_per_s": round(total / MB / r["seconds"], 1),
                            "peak_rss_mb": round(r["rss_bytes"] / MB, 1),
                            "cpu_s": round(r["user_s"] + r["sys_s"], 3)})
    out["speedup"] = round(out["rows"][0]["seconds"] / out["rows"][1]["seconds"], 3)
    return out


def print_trace(res):
    print()
    print("== %s: %.1f MB JSON, %.1f MB .gz, %.3f M events (%.0f B/event), splitter %s, simdjson %s" % (
        os.path.basename(res["trace"]), res["json_bytes"] / MB, res["gz_bytes"] / MB, res["events"] / 1e6,
        res["bytes_per_event"] or 0, "avx2" if res.get("simd_splitter") else "scalar", res.get("json_impl")))
    print("%-30s %8s %8s %8s %9s %7s %11s %8s" % ("tool", "wall s", "MB/s", "CPU s", "MB/CPU-s", "Mev/s",
                                                  "peak RSS MB", "RSS/JSON"))
    for r in res["rows"]:
        print("%-30s %8.3f %8.1f %8.3f %9.1f %7.2f %11.1f %8.3f" % (
            r["tool"], r["seconds"], r["mb_per_s"], r["cpu_s"], r["mb_per_cpu_s"] or 0,
            r["mevents_per_s"], r["peak_rss_mb"], r["rss_over_json"]))
    for s in res["skipped"]:
        print("  skipped: " + s)
    print("ratios: " + ", ".join("%s %s" % (k, v) for k, v in res["ratios"].items()))
    m = res.get("memory")
    if m and m.get("retained"):
        print("memory: %d retained of %d events; context holds %.1f MB = %.1f B/retained event "
              "(records %.1f B used / %.1f B held per retained event; %d names, %.0f B/name incl. table)" % (
                  m["retained"], m["events"], m["memory_bytes"] / MB, m["memory_bytes"] / m["retained"],
                  m["record_bytes_used"] / m["retained"], m["record_bytes_held"] / m["retained"], m["names"],
                  m["intern_bytes_held"] / max(1, m["names"])))
    for t in res["targets"]:
        print("  [%s] %s: %s" % ("PASS" if t["met"] else "MISS", t["target"], t["value"]))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--build", default=os.path.join(ROOT, "build"), help="meson build dir (default: build)")
    ap.add_argument("--sizes", default="100M,1G", help="comma list of JSON sizes per trace (default 100M,1G)")
    ap.add_argument("--jobs-size", default=None, help="per-rank size of the -j trace (default: half the smallest size)")
    ap.add_argument("--jobs-ranks", type=int, default=2, help="ranks of the -j trace (default 2); -j N uses min(ranks, CPUs)")
    ap.add_argument("--repeat", type=int, default=3, help="runs per row, best time kept (default 3)")
    ap.add_argument("--data-dir", default=os.environ.get("FSDPA_BENCH_DATA", os.path.join(tempfile.gettempdir(), "fsdpa-bench")))
    ap.add_argument("--regen", action="store_true", help="regenerate the traces")
    ap.add_argument("--no-pin", action="store_true", help="do not pin single-thread rows to CPU 0")
    ap.add_argument("--skip-python", action="store_true")
    ap.add_argument("--skip-hta", action="store_true")
    ap.add_argument("--skip-jobs", action="store_true")
    ap.add_argument("--python", default="/usr/bin/python3" if os.path.exists("/usr/bin/python3") else sys.executable,
                    help="interpreter for json.load and HTA (Debian's, for its pandas)")
    ap.add_argument("--quick", action="store_true", help="one 50 MB trace, one run per row")
    ap.add_argument("--json", metavar="OUT", help="also write the results as JSON")
    ap.add_argument("--strict", action="store_true", help="exit 1 if a target is missed")
    ap.add_argument("--basis", choices=("cpu", "wall"), default="cpu",
                    help="time the targets are judged on (default cpu: user+sys of the process)")
    args = ap.parse_args(argv)
    if args.quick:
        args.sizes, args.repeat = "50M", 1
    args.fsdpa = os.path.join(args.build, "tools", "fsdpa", "fsdpa")
    args.ingest = os.path.join(args.build, "bench", "fsdpa-ingest")
    for exe in (args.fsdpa, args.ingest):
        if not os.access(exe, os.X_OK):
            sys.exit("bench: %s missing: build first (ninja -C %s)" % (exe, args.build))
    sizes = [parse_size(s) for s in args.sizes.split(",") if s]
    R = Runner(None if args.no_pin else "0")

    results = {"machine": {"cpu": cpu_name(), "cores": os.cpu_count(), "kernel": platform.release(),
                           "pinned_cpu": R.pin, "loadavg_start": os.getloadavg()},
               "basis": args.basis,
               "repeat": args.repeat, "traces": [], "jobs": None}
    for size in sizes:
        path = ensure_trace(args.data_dir, size, args.regen)[0]
        log("benchmarking %s ..." % path)
        res = bench_trace(R, args, path)
        print_trace(res)
        results["traces"].append(res)
    if not args.skip_jobs:
        js = parse_size(args.jobs_size) if args.jobs_size else min(sizes) // 2
        paths = ensure_trace(args.data_dir, js, args.regen, ranks=max(2, args.jobs_ranks))
        if (os.cpu_count() or 1) < 2:
            print("\n-j: skipped (one CPU)")
        else:
            log("benchmarking -j on %s ..." % ", ".join(paths))
            jr = bench_jobs(R, args, paths)
            results["jobs"] = jr
            print("\n== -j: %d ranks, %.1f MB JSON in all, CPUs %s" % (len(paths), jr["json_bytes"] / MB, jr["cpus"]))
            for r in jr["rows"]:
                print("  -j %d%s: %.3f s, %.1f MB/s, peak RSS %.1f MB, CPU %.2f s" % (
                    r["jobs"], " " + r["options"] if r["options"] else "", r["seconds"], r["mb_per_s"],
                    r["peak_rss_mb"], r["cpu_s"]))
            print("  speedup -j%s over -j1: %.2fx" % (jr["rows"][1]["jobs"], jr["speedup"]))
    results["machine"]["loadavg_end"] = os.getloadavg()
    print("\nload average %.1f at start, %.1f at end on %d CPUs (wall times suffer above ~1); targets judged on %s time" % (
        results["machine"]["loadavg_start"][0], results["machine"]["loadavg_end"][0], os.cpu_count() or 0, args.basis))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=1)
            f.write("\n")
    missed = [t for r in results["traces"] for t in r["targets"] if not t["met"]]
    return 1 if (args.strict and missed) else 0


def cpu_name():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor()


if __name__ == "__main__":
    sys.exit(main())
