"""Typed findings (fsdpa_report_findings(), fsdpa_summary_findings()) are
the JSON report's `findings[]`: the same findings, in the same order, with
the same fields, evidence and ranges, and the same worst severity; the
Report the binding makes carries them (not re-read from the JSON)."""
import json
import os
import re
import unittest

import fsdpa

from . import support
from .test_dask import _generated

SEVERITIES = ("info", "warning", "critical")
MAX_CORPUS_BYTES = 3 * 1024 * 1024


def open_all(paths):
    out = []
    for p in paths:
        a = fsdpa.Analyzer(p)
        out.append(a)
        a.feed_file(p)
    return out


class TypedFindingsTest(unittest.TestCase):
    def assert_same_findings(self, paths):
        analyzers = open_all(paths)
        try:
            text = fsdpa.report_text(analyzers, paths)
            typed = fsdpa.report_findings(analyzers)
            summaries = [a.summary(p) for a, p in zip(analyzers, paths)]
        finally:
            for a in analyzers:
                a.close()
        theirs = json.loads(text)["findings"]
        self.assertIsInstance(typed, fsdpa.Findings)
        self.assertEqual([f.to_dict() for f in typed], theirs)
        # dataclass equality with the findings read from the text
        from_json = fsdpa.Report.from_json(text).findings
        self.assertEqual(list(typed), list(from_json))
        for f, j, d in zip(typed, from_json, theirs):
            self.assertEqual([(r.start_ns, r.end_ns) for r in f.ranges],
                             [(r["start_ns"], r["end_ns"]) for r in d["evidence"].get("ranges", [])],
                             f.id)
            self.assertIn(f.severity, SEVERITIES)
            # the report writes both keys on every finding, null where the
            # fix is not replayed, and the window beside it in the evidence
            self.assertIn("saving_ns", d, f.id)
            self.assertIn("saving_share", d, f.id)
            self.assertEqual((f.saving_ns, f.saving_share), (d["saving_ns"], d["saving_share"]), f.id)
            window = d["evidence"]["saving_window_ns"] if d["saving_ns"] is not None else None
            self.assertEqual((f.saving_window_ns, j.saving_window_ns), (window, window), f.id)
            if f.saving_ns is not None:
                self.assertGreater(f.saving_window_ns, 0, f.id)
        worst = max((d["severity"] for d in theirs), key=SEVERITIES.index) if theirs else None
        self.assertEqual(typed.worst, worst)
        self.assertEqual(from_json.worst, worst)
        # the same list from the merged summaries
        merged = fsdpa.summary_merge(summaries)
        by_summary = fsdpa.summary_findings(merged)
        self.assertEqual([f.to_dict() for f in by_summary], theirs)
        self.assertEqual(by_summary.worst, worst)
        return typed

    def test_tiny(self):
        typed = self.assert_same_findings([support.TINY])
        self.assertEqual([f.id for f in typed], ["gpu-starvation", "queued-idle-unexplained"])
        f, q = typed
        # the first of its two ProfilerSteps is warm-up (its 700 us of idle are
        # reported apart, launch_gaps.warmup); the steady step runs one kernel,
        # too few to judge above info.  Of its 190 us of idle the host held
        # 139 us (the cost); the 45 us between the last launch's return
        # (base+1155 us) and its kernel's start (base+1200 us) are waits the
        # trace does not place (longer than idle.dispatch_max_ns)
        self.assertEqual((f.rank, f.step, f.severity, f.cost_ns), (1, 6, "info", 139_000))
        self.assertEqual([(r.start_ns, r.end_ns) for r in f.ranges],
                         [(support.BASE + 1_000_000, support.BASE + 1_100_000),
                          (support.BASE + 1_110_000, support.BASE + 1_200_000)])
        self.assertEqual((q.rank, q.step, q.severity, q.cost_ns), (1, 6, "warning", 45_000))
        self.assertEqual([(r.start_ns, r.end_ns) for r in q.ranges],
                         [(support.BASE + 1_110_000, support.BASE + 1_200_000)])
        # both fixes are replayed over the judged step (ProfilerStep#6, 1 ms),
        # the saving recomputed through the dependency graph, not subtracted
        self.assertEqual([(x.saving_ns, x.saving_window_ns, x.saving_share) for x in typed],
                         [(990_000, 1_000_000, 0.99), (50_000, 1_000_000, 0.05)])

    def test_sample(self):
        self.assert_same_findings([support.sample_trace()])

    def test_two_ranks(self):
        self.assert_same_findings([support.TINY, support.sample_trace()])

    def test_straggler_job(self):
        """A 4-rank job with a planted straggler: the cross-rank finding is
        in the typed list too, job-wide fields included."""
        paths = _generated()
        if not paths:
            print("# SKIP tools/tracegen/tracegen.py could not generate the straggler job")
            self.skipTest("tracegen not available")
        typed = self.assert_same_findings(paths)
        strag = typed.by_id("straggler-rank")
        self.assertEqual([f.rank for f in strag], [2])

    def test_report_carries_typed_findings(self):
        """analyze(), Analyzer.result() and summary_report() build the
        report's findings from the typed list (their ranges are the typed
        ranges, not only evidence.ranges); to_dict() is the JSON's."""
        rep = fsdpa.analyze(support.sample_trace())
        theirs = json.loads(rep.json)["findings"]
        self.assertEqual([f.to_dict() for f in rep.findings], theirs)
        for f in rep.findings:
            self.assertIsNotNone(f._ranges)
        with fsdpa.Analyzer(support.TINY) as a:
            a.feed_file(support.TINY)
            r = a.result()
            self.assertEqual(list(r.findings), list(a.findings()))
            s = a.summary()
        self.assertEqual(list(fsdpa.summary_report(s).findings), list(r.findings))

    def test_corpus(self):
        """Every corpus trace up to 3 MB, and each two-rank family of the
        corpus as one job."""
        corpus = os.environ.get("FSDPA_TRACE_CORPUS") or os.environ.get("FSDPA_DEFAULT_CORPUS")
        if not corpus or not os.path.exists(os.path.join(corpus, "MANIFEST.tsv")):
            print(f"# SKIP no trace corpus ({corpus or 'FSDPA_TRACE_CORPUS unset'})")
            self.skipTest("no trace corpus")
        paths = []
        for root, _dirs, files in os.walk(corpus):
            for n in files:
                p = os.path.join(root, n)
                if (n.endswith(".json") or n.endswith(".json.gz")) and \
                        os.path.getsize(p) <= MAX_CORPUS_BYTES:
                    paths.append(p)
        checked = 0
        for p in sorted(paths):
            with self.subTest(trace=os.path.relpath(p, corpus)):
                try:
                    self.assert_same_findings([p])
                    checked += 1
                except (fsdpa.NotATraceError, fsdpa.ParseError):
                    pass   # not a Kineto trace (the CLI refuses it as well)
        jobs = 0
        with open(os.path.join(corpus, "MANIFEST.tsv"), encoding="utf-8") as f:
            for line in f:
                first = line.split("\t")[0]
                m = re.match(r"(.*)\{0,1\}(.*)$", first)
                if line.startswith("#") or not m:
                    continue
                pair = [os.path.join(corpus, m.group(1) + str(r) + m.group(2)) for r in (0, 1)]
                if all(os.path.exists(x) for x in pair):
                    with self.subTest(job=first):
                        self.assert_same_findings(pair)
                        jobs += 1
        print(f"\n# typed findings = JSON findings on {checked} corpus traces and {jobs} "
              "two-rank jobs")
        self.assertGreater(checked, 0)


if __name__ == "__main__":
    unittest.main()
