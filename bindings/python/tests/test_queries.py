"""The analysis queries: exact values on the hand-written trace, and the same
numbers as the JSON report on the sample trace (the query and the report are
two roads to one definition); a zeroed query, FSDPA_QUERY_INIT,
fsdpa_query_init_sized() and no query (NULL) are the same whole-trace selection,
and a selector counts only when its bit is set."""
import ctypes
import unittest

import fsdpa
from fsdpa import _capi, _lib

from . import support

BITS = _capi.ENUMS["fsdpa_query_field"]


def every_query(a, **window):
    """Every query family of the Analyzer over one selection, by name."""
    out = {
        "timeline": a.timeline(**window), "launch_gaps": a.launch_gaps(**window),
        "launch_latency": a.launch_latency(**window), "launch_queue": a.launch_queue(**window),
        "overlap": a.overlap(**window), "split_collective": a.comm_split("collective", **window),
        "split_pg": a.comm_split("process_group", **window),
        "fsdp_units": a.fsdp_units(**window), "sync_waits": a.sync_waits(**window),
        "sync_calls": a.sync_calls(**window), "sync_steps": a.sync_steps(**window),
        "memory": a.memory(**window), "memory_devices": a.memory_devices(**window),
        "memory_steps": a.memory_steps(**window),
    }
    series = {k: v for k, v in window.items() if k != "device" and k != "stream"}
    out["memory_series"] = a.memory_series(16, **series)
    return out


def raw_query(**members):
    """An fsdpa_query built by hand: members set as given, `fields` too."""
    q = _capi.fsdpa_query()
    q.size = ctypes.sizeof(q)
    for k, v in members.items():
        setattr(q, k, v)
    return q


def raw_results(a, q):
    """The C query functions called directly with `q` (a pointer or None)."""
    out = {}
    for fname, cls in (("fsdpa_timeline_query", fsdpa.Timeline),
                       ("fsdpa_launch_gaps_query", fsdpa.LaunchGaps),
                       ("fsdpa_launch_latency_query", fsdpa.LaunchLatency),
                       ("fsdpa_launch_queue_query", fsdpa.LaunchQueue),
                       ("fsdpa_overlap_query", fsdpa.Overlap),
                       ("fsdpa_memory_query", fsdpa.MemorySummary)):
        out[fname] = a._one(fname, cls, q)
    for fname, cls in (("fsdpa_fsdp_unit_list", fsdpa.FsdpUnit),
                       ("fsdpa_sync_wait_list", fsdpa.SyncWait),
                       ("fsdpa_sync_call_list", fsdpa.SyncCall),
                       ("fsdpa_sync_step_list", fsdpa.SyncStep),
                       ("fsdpa_memory_device_list", fsdpa.MemoryDevice),
                       ("fsdpa_memory_step_list", fsdpa.MemoryStep)):
        out[fname] = a._list(fname, cls, q)
    out["fsdpa_comm_split_list"] = a._list("fsdpa_comm_split_list", fsdpa.CommSplit, q, 0)
    out["fsdpa_memory_series_list"] = a._list("fsdpa_memory_series_list", fsdpa.MemoryPoint, q,
                                              _lib.ABSENT, 16)
    return out


class WholeTraceQueryTest(unittest.TestCase):
    """No query, the zero query and the initialisers are one selection."""

    def check_trace(self, path):
        with fsdpa.Analyzer(path) as a:
            a.feed_file(path)
            none = every_query(a)
            self.assertEqual(every_query(a, query=fsdpa.Query()), none)
            init = _capi.fsdpa_query()
            _lib.lib.fsdpa_query_init_sized(init, ctypes.sizeof(init))
            by_null = raw_results(a, None)
            self.assertEqual(raw_results(a, ctypes.byref(init)), by_null)
            self.assertEqual(raw_results(a, ctypes.byref(raw_query())), by_null)
            # values in the selectors without their bits select nothing
            # (step 0, device 99, stream 12345, an empty window: all ignored)
            ignored = raw_query(t0_ns=support.BASE + 10 ** 15, t1_ns=1, step=0, device=99,
                                stream=12345)
            self.assertEqual(raw_results(a, ctypes.byref(ignored)), by_null)
            # and the binding's list methods give what the C calls give
            self.assertEqual(none["sync_calls"], by_null["fsdpa_sync_call_list"])
            self.assertEqual(none["timeline"], by_null["fsdpa_timeline_query"])
            # with its bit set the same step selects
            if a.steps():
                step0 = raw_query(step=0, fields=BITS["FSDPA_QUERY_STEP"])
                self.assertEqual(raw_results(a, ctypes.byref(step0)),
                                 raw_results(a, ctypes.byref(fsdpa.Query(step=0).to_c())))
                self.assertEqual(a.timeline(step=0),
                                 raw_results(a, ctypes.byref(step0))["fsdpa_timeline_query"])

    def test_tiny(self):
        self.check_trace(support.TINY)
        with fsdpa.Analyzer() as a:
            a.feed_file(support.TINY)
            # the selection changes the answer, so the comparisons above can fail
            self.assertNotEqual(a.timeline(step=0), a.timeline())

    def test_sample(self):
        self.check_trace(support.sample_trace())

    def test_query_fields(self):
        self.assertEqual(fsdpa.Query().fields, 0)
        self.assertTrue(fsdpa.Query().is_whole_trace())
        self.assertEqual(fsdpa.Query(step=0).fields, BITS["FSDPA_QUERY_STEP"])
        self.assertEqual(fsdpa.Query(t0_ns=0, t1_ns=5).fields,
                         BITS["FSDPA_QUERY_T0"] | BITS["FSDPA_QUERY_T1"])
        q = fsdpa.Query(t0_ns=1, t1_ns=2, step=3, device=4, stream=5)
        c = q.to_c()
        self.assertEqual(c.fields, sum(BITS.values()))
        self.assertEqual((c.t0_ns, c.t1_ns, c.step, c.device, c.stream), (1, 2, 3, 4, 5))
        self.assertEqual(c.size, ctypes.sizeof(_capi.fsdpa_query))
        # device 0 is a selection, not "unset"
        self.assertEqual(fsdpa.Query(device=0).fields, BITS["FSDPA_QUERY_DEVICE"])

    def test_query_and_keywords_exclusive(self):
        with fsdpa.Analyzer() as a:
            a.feed_file(support.TINY)
            self.assertEqual(a.timeline(query=fsdpa.Query(stream=20)), a.timeline(stream=20))
            with self.assertRaises(fsdpa.InvalidArgumentError):
                a.timeline(step=0, query=fsdpa.Query())


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
        # a windowed list keeps the entries and positions of the whole-trace one
        whole = [(u.name, u.phase) for u in self.a.fsdp_units()]
        if self.a.steps():
            self.assertEqual([(u.name, u.phase) for u in self.a.fsdp_units(step=0)], whole)
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
