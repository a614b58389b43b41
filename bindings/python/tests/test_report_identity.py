"""The binding's JSON report is byte-for-byte the CLI's
(`fsdpa analyze --format json`), modulo the inputs[].path strings, whether
the trace is read by the library, fed from Python in chunks, or analyzed as
several ranks."""
import subprocess
import unittest

import fsdpa

from . import support


def fed_in_chunks(path, chunk):
    with fsdpa.Analyzer(path) as a, open(path, "rb") as f:
        a.read(f, chunk_size=chunk)
        a.finish()
        return a.report("json")


class ReportIdentityTest(unittest.TestCase):
    def assert_same(self, mine, cli):
        self.assertTrue(cli.startswith("{"), cli[:200])
        if support.without_paths(mine) != support.without_paths(cli):
            a, b = support.without_paths(mine), support.without_paths(cli)
            i = next((k for k in range(min(len(a), len(b))) if a[k] != b[k]), min(len(a), len(b)))
            self.fail(f"reports differ at byte {i}: binding ...{a[max(0, i - 80):i + 80]!r}... "
                      f"CLI ...{b[max(0, i - 80):i + 80]!r}...")

    def test_tiny(self):
        self.assert_same(fsdpa.analyze(support.TINY).json, support.cli_report(support.TINY))

    def test_sample(self):
        path = support.sample_trace()
        print(f"\n# sample trace: {path}")
        cli = support.cli_report(path)
        self.assert_same(fsdpa.analyze(path).json, cli)
        # the same path string gives the very same bytes, path included
        self.assertEqual(fsdpa.analyze(path).json, cli)
        self.assert_same(fed_in_chunks(path, 4096), cli)
        self.assert_same(fed_in_chunks(path, 65521), cli)

    def test_multi_rank(self):
        path = support.sample_trace()
        cli = support.cli_report(support.TINY, path)
        rep = fsdpa.analyze([support.TINY, path])
        self.assert_same(rep.json, cli)
        self.assertEqual(len(rep.inputs), 2)
        # inputs come in rank order, whatever order they were given in: the
        # tiny trace says rank 1, the sample rank 0
        self.assertEqual([i.rank for i in rep.inputs], [0, 1])
        self.assertEqual(rep.inputs[1].path, support.TINY)
        self.assertEqual(fsdpa.analyze([path, support.TINY]).json, rep.json)

    def test_params_reach_the_analyses(self):
        """`--set` on the CLI and params= in Python give the same report."""
        path = support.sample_trace()
        name = "launch.kernel_wait_ns"
        if name not in fsdpa.params():
            self.skipTest(f"parameter {name} not defined by this library")
        cli = subprocess.run([support.cli(), "analyze", "--format", "json", "--no-progress",
                              "--set", f"{name}=1000", path], stdout=subprocess.PIPE,
                             check=True).stdout.decode()
        self.assert_same(fsdpa.analyze(path, params={name: 1000}).json, cli)


if __name__ == "__main__":
    unittest.main()
