"""fsdpa.diff(): the same bytes as `fsdpa diff -f json`, runs given as
paths, Reports, summaries and report texts, the gate on a run whose steps
were made slower, and the tables as DataFrames (pandas optional: the
DataFrame test skips, saying so, without it)."""
import json
import os
import subprocess
import sys
import tempfile
import unittest

import fsdpa

from .support import TINY, cli

try:
    import pandas
except ImportError:
    pandas = None


def slower(report_json, factor):
    """The report with every ProfilerStep `factor` times as long."""
    d = json.loads(report_json)
    for r in d["ranks"]:
        for s in r["steps"]:
            s["dur_ns"] = int(s["dur_ns"] * factor)
    return json.dumps(d)


class TestDiff(unittest.TestCase):
    def test_same_bytes_as_the_cli(self):
        d = fsdpa.diff(TINY, TINY)
        r = subprocess.run([cli(), "diff", "--no-progress", "-f", "json", TINY, TINY], stdout=subprocess.PIPE,
                           check=True)
        self.assertEqual(d.json, r.stdout.decode("utf-8"))
        self.assertFalse(d.regressed)
        self.assertEqual({m["status"] for m in d.job.values()}, {"same"})
        self.assertTrue(d.kernels)
        self.assertEqual({k["status"] for k in d.kernels}, {"same"})

    def test_runs_in_every_form(self):
        rep = fsdpa.analyze(TINY, html=False)
        with fsdpa.Analyzer(TINY) as a:
            a.feed_file(TINY)
            summary = a.summary()
        want = fsdpa.diff(TINY, TINY).json
        for base in (rep, rep.json, rep.json.encode(), summary, [TINY]):
            with self.subTest(kind=type(base).__name__):
                self.assertEqual(fsdpa.diff(base, TINY).json, want)
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "rank0.fsum")
            with open(path, "w") as f:
                f.write(summary)
            self.assertEqual(fsdpa.diff(path, TINY).json, want)
            self.assertEqual(fsdpa.diff(d, TINY).json, want)   # a directory of summaries

    def test_gate(self):
        rep = fsdpa.analyze(TINY, html=False).json
        slow = slower(rep, 1.5)
        d = fsdpa.diff(rep, slow, fail_on_regression=10)
        st = d.job["step_time_ns"]
        self.assertTrue(d.regressed)
        self.assertEqual(d.gate["crossed"], ["step_time_ns"])
        self.assertEqual(st["status"], "worse")
        self.assertGreater(st["change_pct"], 10)
        self.assertTrue(st["crossed_gate"])
        self.assertEqual(d.ranks[1]["step_time_ns"]["new"], st["new"])
        self.assertFalse(fsdpa.diff(rep, slow, fail_on_regression=60).regressed)
        self.assertIn("REGRESSED", d.text())
        self.assertTrue(d.html().startswith("<!DOCTYPE html>"))
        with self.assertRaises(fsdpa.InvalidArgumentError):
            fsdpa.diff(rep, slow, fail_on_regression=-1)
        with self.assertRaises(fsdpa.ParseError):
            fsdpa.diff(rep, '{"schema": "fsdpa.report/1", "ranks": [')

    def test_dataframes(self):
        d = fsdpa.diff(TINY, TINY)
        if pandas is None:
            with self.assertRaises(ImportError):
                d.kernels.to_pandas()
            raise unittest.SkipTest(f"pandas is not installed for {sys.executable} (apt-get install python3-pandas)")
        k = d.kernels.to_pandas()
        self.assertEqual(len(k), len(d.kernels))
        self.assertIn("base_total_ns", k.columns)
        self.assertEqual(list(k["status"].unique()), ["same"])
        o = d.ops.to_pandas()
        self.assertIn("new_tflops_per_s", o.columns)
        self.assertEqual(len(d.metrics.to_pandas()), 15)


if __name__ == "__main__":
    unittest.main()
