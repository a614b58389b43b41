"""The analysis queries: exact values on the hand-written trace, and the same
numbers as the JSON report on the sample trace (the query and the report are
two roads to one definition)."""
import unittest

import fsdpa

from . import support


class TinyQueriesTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.a = fsdpa.Analyzer()
        cls.a.feed_file(support.TINY)

    @classmethod
    def tearDownClass(cls):
        cls.a.close()

    def test_overlap(self):
        # comm C = [100,300) us; compute P = [20,120) u [150,200) u [1200,1500) us
        o = self.a.overlap()
        self.assertEqual((o.comm_ns, o.compute_ns, o.overlap_ns, o.exposed_comm_ns),
                         (200_000, 450_000, 70_000, 130_000))
        self.assertAlmostEqual(o.overlap_pct, 35.0)
        self.assertEqual((o.comm_kernels, o.compute_kernels), (1, 3))
        # the second step has no communication: absent, not 0
        o1 = self.a.overlap(step=1)
        self.assertEqual((o1.comm_ns, o1.overlap_ns, o1.exposed_comm_ns, o1.overlap_pct),
                         (None, None, None, None))
        self.assertEqual(o1.compute_ns, 300_000)

    def test_comm_split(self):
        (ag,) = self.a.comm_split()
        self.assertEqual((ag.name, ag.count, ag.comm_ns, ag.overlap_ns, ag.exposed_ns),
                         ("AllGather", 1, 200_000, 70_000, 130_000))
        with self.assertRaises(fsdpa.InvalidArgumentError):
            self.a.comm_split(by="dtype")

    def test_launch_gaps_consistent_with_timeline(self):
        g = self.a.launch_gaps()
        t = self.a.timeline()
        self.assertEqual((g.span_ns, g.busy_ns), (t.span_ns, t.busy_ns))
        self.assertEqual(g.idle_ns, g.host_wait_ns + g.kernel_wait_ns + g.other_ns)
        self.assertEqual(len(g.edges_ns), fsdpa._capi.FSDPA_GAP_EDGES)
        self.assertEqual(sum(g.counts), g.gaps)

    def test_no_memory_events(self):
        m = self.a.memory()
        self.assertIsNone(m.peak_allocated_bytes)
        self.assertIsNone(m.fragmentation)
        self.assertEqual(self.a.memory_devices(), [])
        self.assertEqual(self.a.memory_series(8), [])
        self.assertEqual(self.a.sync_waits(), [])

    def test_fsdp_absent(self):
        self.assertIsNone(self.a.fsdp_version())
        self.assertEqual(self.a.fsdp_units(), [])
        self.assertEqual(self.a.backward().pattern, "unknown")


class SampleQueriesTest(unittest.TestCase):
    """Queries over the whole trace against the report's rank section."""

    @classmethod
    def setUpClass(cls):
        cls.path = support.sample_trace()
        cls.a = fsdpa.Analyzer(cls.path)
        cls.a.feed_file(cls.path)
        cls.rank = cls.a.result().to_dict()["ranks"][0]

    @classmethod
    def tearDownClass(cls):
        cls.a.close()

    def test_overlap_matches_report(self):
        o, r = self.a.overlap(), self.rank["overlap"]
        for k in ("comm_ns", "compute_ns", "overlap_ns", "exposed_comm_ns"):
            self.assertEqual(getattr(o, k), r[k], k)

    def test_launch_gaps_match_report(self):
        g, r = self.a.launch_gaps(), self.rank["launch_gaps"]
        for k in ("span_ns", "busy_ns", "gaps", "p50_ns", "p90_ns", "p99_ns", "max_ns",
                  "idle_ns", "host_wait_ns"):
            if k in r:
                self.assertEqual(getattr(g, k), r[k], k)
        self.assertEqual(list(g.counts), r["histogram"]["counts"])

    def test_backward_and_units_match_report(self):
        fsdp = self.rank["fsdp"]
        v = self.a.fsdp_version()
        self.assertEqual(f"fsdp{v}" if v else None, fsdp["version"])
        self.assertEqual(self.a.backward().pattern, fsdp["backward"]["pattern"])
        units = {(u.name, u.phase): u for u in self.a.fsdp_units()}
        for ru in fsdp["units"]:
            u = units[(ru["name"], ru["phase"])]
            self.assertEqual((u.comm_ns, u.compute_ns, u.exposed_ns),
                             (ru["comm_ns"], ru["compute_ns"], ru["exposed_ns"]))
        steps = self.a.backward_steps()
        if steps:
            units0 = self.a.backward_units(0)
            self.assertEqual(len(units0), steps[0].units)
            self.assertEqual([u.position for u in units0], list(range(len(units0))))

    def test_sync_waits_match_report(self):
        mine = [(w.api, w.count, w.total_ns, w.max_ns) for w in self.a.sync_waits()]
        theirs = [(w["api"], w["count"], w["total_ns"], w["max_ns"]) for w in self.rank["sync_waits"]]
        self.assertEqual(mine, theirs)
        calls = self.a.sync_calls()
        self.assertEqual(len(calls), sum(w.count for w in self.a.sync_waits()))

    def test_memory_matches_report(self):
        m, r = self.a.memory(), self.rank["allocator"]
        for k in ("malloc_calls", "free_calls", "steady_state_malloc_calls", "warmup_steps",
                  "peak_allocated_bytes", "peak_reserved_bytes"):
            self.assertEqual(getattr(m, k), r[k], k)
        series = self.a.memory_series(16)
        self.assertLessEqual(len(series), 16)
        for p in series:
            self.assertLess(p.t0_ns, p.t1_ns)

    def test_summary_round_trip(self):
        """summary -> merge -> report gives the same report as the traces."""
        s = self.a.summary(self.path)
        merged = fsdpa.summary_merge([s])
        self.assertEqual(fsdpa.summary_report(merged).json, fsdpa.analyze(self.path).json)
        with self.assertRaises(fsdpa.ParseError) as cm:
            fsdpa.summary_merge(["{not a summary"])
        self.assertTrue(cm.exception.message)

    def test_annotate(self):
        """The findings written into a copy of the trace: the copy reads back
        to the same report, and holds the events annotate_events() lists."""
        import os
        import tempfile
        events = fsdpa.annotate_events([self.a])
        titles = {e["name"] for e in events if e.get("cat") == "fsdpa"}
        report = self.a.result()
        for f in report.findings:
            self.assertIn(f.title, titles)
        with tempfile.TemporaryDirectory() as d:
            out = os.path.join(d, "annotated.json")
            fsdpa.annotate_file([self.a], 0, self.path, out)
            with fsdpa.Analyzer(self.path) as b:
                b.feed_file(out)
                copy = b.result().to_dict()
        orig = report.to_dict()
        # the copy holds exactly the added events more; the analysis is the same
        self.assertEqual(copy["inputs"][0]["events"], orig["inputs"][0]["events"] + len(events))
        del copy["inputs"], orig["inputs"]
        self.assertEqual(copy, orig)

    def test_crossrank_two_ranks(self):
        with fsdpa.Analyzer() as b:
            b.feed_file(self.path)
            cr = fsdpa.crossrank([self.a, b])
            ranks = fsdpa.crossrank_ranks([self.a, b])
        self.assertEqual(cr.ranks, 2)
        self.assertEqual(len(ranks), 2)


if __name__ == "__main__":
    unittest.main()
