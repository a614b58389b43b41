#!/usr/bin/env python3
"""Run one binding test suite for meson (`meson test --suite bindings`).

    run_suite.py python|python-pytest|rust|go

Exit status is the suite's, or 77 (meson's SKIP) with the reason printed
when the toolchain is missing.  Also usable by hand: without the variables
meson sets it falls back to the default build dir `build/`.
"""
import os
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
SKIP = 77
TINY = os.path.join(HERE, "testdata", "tiny_trace.json")


def skip(reason):
    print(f"# SKIP {reason}")
    sys.exit(SKIP)


def default_env():
    """What meson's test env provides, for runs by hand from a `build/` dir."""
    env = dict(os.environ)
    build = env.get("FSDPA_BUILD_ROOT") or os.path.join(ROOT, "build")
    bdir = os.path.join(build, "bindings")
    libdir = os.path.join(build, "libfsdpa")
    defaults = {
        "FSDPA_BUILD_ROOT": build,
        "FSDPA_SOURCE_ROOT": ROOT,
        "PKG_CONFIG_PATH": os.path.join(build, "libfsdpa"),
        "LD_LIBRARY_PATH": libdir,
        "FSDPA_LIBRARY": os.path.join(libdir, "libfsdpa.so.2"),
        "FSDPA_ABI_JSON": os.path.join(bdir, "abi.json"),
        "FSDPA_CLI": os.path.join(build, "tools", "fsdpa", "fsdpa"),
        "FSDPA_BINDINGS_WORK": os.path.join(bdir, "work"),
        "FSDPA_DEFAULT_CORPUS": os.path.join(os.path.dirname(ROOT), "shared", "traces"),
        "GOFLAGS": "-mod=mod",
        "GOPROXY": "off",
        "GOCACHE": os.path.join(bdir, "gocache"),
        "GOPATH": os.path.join(bdir, "gopath"),
        "CARGO_NET_OFFLINE": "true",
        "CARGO_TARGET_DIR": os.path.join(bdir, "cargo-target"),
        "PYTHONPATH": os.path.join(HERE, "python"),
        "PYTHONPYCACHEPREFIX": os.path.join(bdir, "pycache"),
    }
    for k, v in defaults.items():
        env.setdefault(k, v)
    # rustup's proxies find the toolchains through RUSTUP_HOME/CARGO_HOME,
    # which default to ~/.rustup and ~/.cargo: pin them before moving HOME.
    home = env.get("HOME") or os.path.expanduser("~")
    for var, sub in (("RUSTUP_HOME", ".rustup"), ("CARGO_HOME", ".cargo")):
        if var not in env and home and os.path.isdir(os.path.join(home, sub)):
            env[var] = os.path.join(home, sub)
    env["HOME"] = os.path.join(bdir, "home")
    os.makedirs(env["HOME"], exist_ok=True)
    os.makedirs(env["FSDPA_BINDINGS_WORK"], exist_ok=True)
    return env


def tracegen(env, scenario, out, *args):
    """Generate a trace with tools/tracegen; returns its path or None."""
    gen = os.path.join(env["FSDPA_SOURCE_ROOT"], "tools", "tracegen", "tracegen.py")
    if not os.path.exists(gen):
        return None
    if not os.path.exists(out):
        rc = subprocess.call([sys.executable, gen, scenario, "-o", out, "--seed", "1", *args],
                             stdout=subprocess.DEVNULL)
        if rc != 0 or not os.path.exists(out):
            print(f"tracegen {scenario} failed (exit {rc})")
            return None
    return out


def choose_traces(env, suite):
    """FSDPA_SAMPLE_TRACE: the realistic trace the report-identity tests use;
    FSDPA_BIG_TRACE: a multi-MB trace fed in 4 KiB chunks."""
    work = os.path.join(env["FSDPA_BINDINGS_WORK"], suite)
    os.makedirs(work, exist_ok=True)
    if not env.get("FSDPA_SAMPLE_TRACE"):
        sample = os.path.join(env["FSDPA_SOURCE_ROOT"], "tests", "data", "sample",
                              "fsdp2_sample.json.gz")
        if not os.path.exists(sample):
            print(f"# {sample} is not there: generating a stand-in with tools/tracegen")
            sample = tracegen(env, "fsdp2_healthy", os.path.join(work, "sample.json.gz"),
                              "--steps", "3", "--layers", "4")
        if not sample:
            sample = os.path.join(HERE, "testdata", "tiny_trace.json")
            print("# no tracegen either: the report-identity tests use the hand-written "
                  "bindings/testdata/tiny_trace.json")
        env["FSDPA_SAMPLE_TRACE"] = sample
    if not env.get("FSDPA_BIG_TRACE"):
        corpus = env.get("FSDPA_TRACE_CORPUS") or env.get("FSDPA_DEFAULT_CORPUS") or ""
        big = os.path.join(corpus, "hta", "trace_diff", "control", "control.json.gz")
        if not corpus or not os.path.exists(big):
            print(f"# {big or 'trace corpus'} not found: generating a multi-MB trace with tools/tracegen")
            big = tracegen(env, "fsdp2_healthy", os.path.join(work, "big.json.gz"),
                           "--target-bytes", "16000000")
        if big:
            env["FSDPA_BIG_TRACE"] = big
    print(f"# sample trace: {env['FSDPA_SAMPLE_TRACE']}")
    print(f"# big trace:    {env.get('FSDPA_BIG_TRACE', '(none: chunked-feed tests will skip)')}")


def run(cmd, env, cwd):
    print("+ " + " ".join(cmd), flush=True)
    return subprocess.call(cmd, env=env, cwd=cwd)


def find(prog, env):
    return shutil.which(prog, path=env.get("PATH"))


def run_example(cmd, env, cwd):
    """Run an example program on the hand-written trace: it must succeed and
    print the rank line of tiny_trace.json (rank 1, 2 steps, 2 streams)."""
    print("+ " + " ".join(cmd), flush=True)
    r = subprocess.run(cmd, env=env, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    out = r.stdout.decode("utf-8", "replace")
    print(out, end="")
    want = "rank 1: 2 steps, 2 GPU streams, span 1480000 ns"
    if r.returncode != 0 or want not in out:
        print(f"example failed (exit {r.returncode}) or did not print '{want}'")
        return 1
    return 0


def consumer_project(kind, tool, env):
    """Use from another project, as the READMEs describe: a fresh project
    outside this tree whose only source is the binding's example, depending
    on the binding by path (Rust) or through a replace directive (Go)."""
    work = os.path.join(env.get("FSDPA_BINDINGS_WORK", os.path.join(HERE, "work")), f"consumer-{kind}")
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    if kind == "rust":
        os.makedirs(os.path.join(work, "src"))
        with open(os.path.join(work, "Cargo.toml"), "w") as f:
            f.write('[package]\nname = "fsdpa-consumer"\nversion = "0.1.0"\nedition = "2021"\n\n'
                    '[dependencies]\nfsdpa = { path = "%s" }\n\n[workspace]\n'
                    % os.path.join(HERE, "rust", "fsdpa"))
        shutil.copy(os.path.join(HERE, "rust", "fsdpa", "examples", "findings.rs"),
                    os.path.join(work, "src", "main.rs"))
        e = dict(env, CARGO_TARGET_DIR=os.path.join(work, "target"))
        return run_example([tool, "run", "--offline", "--quiet", "--", TINY], e, work)
    with open(os.path.join(work, "go.mod"), "w") as f:
        f.write("module example.com/fsdpa-consumer\n\ngo 1.19\n\nrequire libfsdpa.dev/fsdpa v0.0.0\n\n"
                "replace libfsdpa.dev/fsdpa => %s\n" % os.path.join(HERE, "go"))
    shutil.copy(os.path.join(HERE, "go", "examples", "findings", "main.go"), os.path.join(work, "main.go"))
    return run_example([tool, "run", ".", TINY], env, work)


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    suite = sys.argv[1]
    env = default_env()
    if not os.path.exists(env["FSDPA_LIBRARY"]):
        print(f"libfsdpa not built: {env['FSDPA_LIBRARY']} is missing")
        return 1

    if suite == "python":
        choose_traces(env, suite)
        rc = run([sys.executable, "-m", "unittest", "discover", "-v",
                  "-s", os.path.join(HERE, "python", "tests"),
                  "-t", os.path.join(HERE, "python")], env, HERE)
        return rc or run_example([sys.executable, os.path.join(HERE, "python", "examples",
                                                               "print_findings.py"), TINY], env, HERE)

    if suite == "python-pytest":
        # Debian's interpreter with python3-pytest: a second Python and a
        # second runner over the same unittest-style tests.
        py = "/usr/bin/python3"
        if not os.access(py, os.X_OK):
            skip(f"{py} not found (install python3-pytest)")
        if subprocess.call([py, "-c", "import pytest"], stderr=subprocess.DEVNULL) != 0:
            skip(f"pytest is not installed for {py} (apt-get install python3-pytest)")
        choose_traces(env, suite)
        return run([py, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                    os.path.join(HERE, "python", "tests")], env, os.path.join(HERE, "python"))

    if suite == "rust":
        cargo = find("cargo", env)
        if not cargo:
            skip("cargo not found on PATH (install Rust with rustup)")
        if not find("pkg-config", env) and not env.get("FSDPA_LIB_DIR"):
            skip("neither pkg-config nor FSDPA_LIB_DIR is available to locate libfsdpa")
        if subprocess.call([cargo, "--version"], env=env, stdout=subprocess.DEVNULL) != 0:
            skip("cargo is on PATH but does not run (no default rustup toolchain?)")
        manifest = os.path.join(HERE, "rust", "Cargo.toml")
        choose_traces(env, suite)
        # the stable API alone, then with the experimental declarations too
        rc = run([cargo, "test", "--offline", "--workspace", "--all-targets",
                  "--manifest-path", manifest], env, os.path.join(HERE, "rust"))
        rc = rc or run([cargo, "test", "--offline", "--workspace", "--all-targets", "--features",
                        "experimental", "--manifest-path", manifest], env, os.path.join(HERE, "rust"))
        rc = rc or run_example([cargo, "run", "--offline", "--quiet", "--manifest-path", manifest,
                                "--example", "findings", "--", TINY], env, os.path.join(HERE, "rust"))
        return rc or consumer_project("rust", cargo, env)

    if suite == "go":
        go = find("go", env)
        if not go:
            skip("go not found on PATH (apt-get install golang-go)")
        if not find("pkg-config", env):
            skip("pkg-config not found: cgo locates libfsdpa with '#cgo pkg-config: fsdpa'")
        gcc = env.get("CC") or "gcc"
        if not find(gcc.split()[0], env):
            skip(f"no C compiler ({gcc}) for cgo")
        cwd = os.path.join(HERE, "go")
        choose_traces(env, suite)
        rc = run([go, "vet", "./..."], env, cwd)
        rc = rc or run([go, "test", "-count=1", "-v", "./..."], env, cwd)
        rc = rc or run_example([go, "run", "./examples/findings", TINY], env, cwd)
        return rc or consumer_project("go", go, env)

    sys.exit(f"unknown suite '{suite}'")


if __name__ == "__main__":
    sys.exit(main())
