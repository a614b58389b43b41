"""Paths and helpers shared by the binding tests (meson sets the variables;
bindings/run_suite.py sets them for runs by hand)."""
import json
import os
import re
import subprocess
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
BINDINGS = os.path.dirname(os.path.dirname(HERE))
ROOT = os.path.dirname(BINDINGS)
BUILD = os.environ.get("FSDPA_BUILD_ROOT") or os.path.join(ROOT, "build")
TINY = os.path.join(BINDINGS, "testdata", "tiny_trace.json")
BASE = 1_000_000_000_000   # baseTimeNanoseconds of tiny_trace.json


def abi_table():
    path = os.environ.get("FSDPA_ABI_JSON") or os.path.join(BUILD, "bindings", "abi.json")
    if not os.path.exists(path):
        raise AssertionError(f"ABI table {path} missing: build it with ninja (target "
                             "bindings/abi.json) or set FSDPA_ABI_JSON")
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def cli():
    return os.environ.get("FSDPA_CLI") or os.path.join(BUILD, "tools", "fsdpa", "fsdpa")


def cli_report(*paths):
    """`fsdpa analyze --format json PATHS` as text (raises on a non-zero exit)."""
    r = subprocess.run([cli(), "analyze", "--format", "json", "--no-progress", *paths],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, check=False)
    if r.returncode != 0:
        raise AssertionError(f"fsdpa analyze exited {r.returncode}: {r.stderr.decode()}")
    return r.stdout.decode("utf-8")


_PATH_RE = re.compile(r'("path": )"(?:[^"\\]|\\.)*"')


def without_paths(report_json):
    """The report text with every inputs[].path string blanked (the only
    part that may differ between front ends)."""
    return _PATH_RE.sub(r'\1""', report_json)


def sample_trace():
    return os.environ.get("FSDPA_SAMPLE_TRACE") or TINY


def big_trace():
    """The multi-MB trace, or None with a printed reason."""
    p = os.environ.get("FSDPA_BIG_TRACE")
    if not p:
        corpus = os.environ.get("FSDPA_TRACE_CORPUS") or os.environ.get("FSDPA_DEFAULT_CORPUS")
        if corpus:
            p = os.path.join(corpus, "hta", "trace_diff", "control", "control.json.gz")
    if not p or not os.path.exists(p):
        print(f"# SKIP big-trace test: no multi-MB trace ({p or 'FSDPA_BIG_TRACE unset'})")
        return None
    return p


def skip_unless(path, what):
    if path is None:
        raise unittest.SkipTest(f"{what} not available")
