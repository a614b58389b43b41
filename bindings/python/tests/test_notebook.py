"""What a notebook uses: `to_pandas()` on every list result (and on the
findings), and `Report._repr_html_()`, the library's HTML report.  pandas is
optional: without it the DataFrame tests skip (saying so) and to_pandas()
must raise an ImportError that names it."""
import dataclasses
import html
import re
import subprocess
import sys
import unittest

import fsdpa
from fsdpa import lists

from . import support

try:
    import pandas
except ImportError:
    pandas = None

NO_PANDAS = f"pandas is not installed for {sys.executable} (apt-get install python3-pandas)"


def _need_pandas(test):
    if pandas is None:
        print(f"\n# SKIP {test.id()}: {NO_PANDAS}")
        test.skipTest(NO_PANDAS)


def list_results(a):
    """(name, result) of every list method of an Analyzer."""
    out = [("steps", a.steps()), ("streams", a.streams()),
           ("comm_split", a.comm_split()), ("comm_split_pg", a.comm_split("process_group")),
           ("fsdp_units", a.fsdp_units()), ("backward_steps", a.backward_steps()),
           ("sync_waits", a.sync_waits()), ("sync_calls", a.sync_calls()),
           ("sync_steps", a.sync_steps()), ("memory_devices", a.memory_devices()),
           ("memory_series", a.memory_series(16)), ("memory_steps", a.memory_steps())]
    if out[5][1]:
        out.append(("backward_units", a.backward_units(0)))
    return out


def columns(cls):
    return [f.name for f in dataclasses.fields(cls) if not f.name.startswith("_")]


class TablesTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.a = fsdpa.Analyzer(support.sample_trace())
        cls.a.feed_file(support.sample_trace())
        cls.tiny = fsdpa.Analyzer("tiny")
        cls.tiny.feed_file(support.TINY)

    @classmethod
    def tearDownClass(cls):
        cls.a.close()
        cls.tiny.close()

    def test_list_results_are_record_lists(self):
        """Every list method returns a RecordList (a list, equal to the plain
        list of its items) that knows its item type, so even an empty one has
        its columns."""
        for name, rows in list_results(self.a) + [("params", fsdpa.param_list())]:
            with self.subTest(name):
                self.assertIsInstance(rows, fsdpa.RecordList)
                self.assertIsInstance(rows, list)
                self.assertEqual(rows, list(rows))
                self.assertTrue(dataclasses.is_dataclass(rows.item_type))
                for r in rows:
                    self.assertIsInstance(r, rows.item_type)
        self.assertIsInstance(fsdpa.crossrank_ranks([self.a, self.tiny]), fsdpa.RecordList)

    def test_without_pandas(self):
        """With pandas not importable, to_pandas() raises ImportError naming
        pandas (sys.modules[...] = None makes `import pandas` fail)."""
        saved = sys.modules.get("pandas", "absent")
        sys.modules["pandas"] = None
        try:
            for obj in (self.tiny.steps(), self.tiny.findings(), fsdpa.param_list()):
                with self.assertRaises(ImportError) as cm:
                    obj.to_pandas()
                self.assertIn("pandas", str(cm.exception))
                self.assertEqual(str(cm.exception), lists.PANDAS_MISSING)
            with self.tiny.steps(lazy=True) as view, self.assertRaises(ImportError):
                view.to_pandas()
        finally:
            if saved == "absent":
                del sys.modules["pandas"]
            else:
                sys.modules["pandas"] = saved

    def test_to_pandas(self):
        """One row per item, one column per field, in order; every value
        the item's (absent = NA), nanoseconds exact."""
        _need_pandas(self)
        for name, rows in list_results(self.a) + list_results(self.tiny):
            with self.subTest(name):
                df = rows.to_pandas()
                self.assertIsInstance(df, pandas.DataFrame)
                self.assertEqual(list(df.columns), columns(rows.item_type))
                self.assertEqual(len(df), len(rows))
                for i, r in enumerate(rows):
                    for c, v in r.to_dict().items():
                        got = df[c].iloc[i]
                        if v is None:
                            self.assertTrue(got is None or pandas.isna(got), f"{name}[{i}].{c}")
                        elif isinstance(v, (tuple, list, dict)):
                            self.assertEqual(got, v, f"{name}[{i}].{c}")
                        else:
                            self.assertEqual(got, v, f"{name}[{i}].{c}")
                            self.assertEqual(type(got) is bool, type(v) is bool)

    def test_nanoseconds_stay_exact(self):
        """Absolute timestamps (~1e12 here, ~1e18 in real traces) are int64,
        or pandas' nullable Int64 where some are absent: never floats."""
        _need_pandas(self)
        steps = self.tiny.steps()
        df = steps.to_pandas()
        self.assertEqual(str(df["start_ns"].dtype), "int64")
        self.assertEqual(list(df["start_ns"]), [s.start_ns for s in steps])
        big = fsdpa.RecordList([fsdpa.Step(5, (1 << 62) + 1, 7), fsdpa.Step(None, None, 9)],
                               fsdpa.Step)
        df = big.to_pandas()
        self.assertEqual(str(df["start_ns"].dtype), "Int64")
        self.assertEqual(int(df["start_ns"].iloc[0]), (1 << 62) + 1)
        self.assertTrue(pandas.isna(df["start_ns"].iloc[1]))
        self.assertEqual(str(df["dur_ns"].dtype), "int64")

    def test_empty_lists_keep_their_columns(self):
        _need_pandas(self)
        empty = self.tiny.sync_calls()
        self.assertEqual(len(empty), 0)
        df = empty.to_pandas()
        self.assertEqual((len(df), list(df.columns)), (0, columns(fsdpa.SyncCall)))
        df = fsdpa.Findings().to_pandas()
        self.assertEqual(list(df.columns), columns(fsdpa.Finding))

    def test_list_view(self):
        """A lazy ListView gives the same DataFrame and stays open."""
        _need_pandas(self)
        with self.a.streams(lazy=True) as view:
            df = view.to_pandas()
            self.assertEqual(len(view), len(df))
            self.assertTrue(df.equals(self.a.streams().to_pandas()))

    def test_findings(self):
        """The findings' DataFrame has the JSON report's finding keys as
        columns and its values."""
        _need_pandas(self)
        report = fsdpa.analyze(support.sample_trace(), html=False)
        df = report.findings.to_pandas()
        self.assertEqual(list(df.columns), ["id", "severity", "rank", "step", "title", "detail",
                                            "advice", "cost_ns", "cost_bytes", "saving_ns",
                                            "saving_share", "evidence"])
        self.assertEqual(len(df), len(report.findings))
        want = [f.to_dict() for f in report.findings]
        for i, d in enumerate(want):
            for c, v in d.items():
                got = df[c].iloc[i]
                if v is None:
                    self.assertTrue(got is None or pandas.isna(got))
                else:
                    self.assertEqual(got, v)
        self.assertEqual(list(df["id"]), [f["id"] for f in report.to_dict()["findings"]])


class HtmlTest(unittest.TestCase):
    def test_report_html_is_the_cli_html(self):
        """analyze() keeps the HTML report: the bytes `fsdpa analyze --format
        html` writes for the same paths (the generator line carries the same
        version), and _repr_html_ shows exactly that page."""
        path = support.sample_trace()
        report = fsdpa.analyze(path)
        r = subprocess.run([support.cli(), "analyze", "--format", "html", "--no-progress", path],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        self.assertEqual(r.returncode, 0, r.stderr.decode())
        self.assertEqual(report.html, r.stdout.decode("utf-8"))
        self.assertTrue(report.html.startswith("<!DOCTYPE html>"))
        shown = report._repr_html_()
        m = re.fullmatch(r'<iframe [^>]*srcdoc="([^"]*)"></iframe>', shown, re.S)
        self.assertIsNotNone(m, shown[:300])
        self.assertEqual(html.unescape(m.group(1)), report.html)
        self.assertNotIn("<script", m.group(1))   # all of it inside the attribute

    def test_analyzer_result(self):
        with fsdpa.Analyzer(support.TINY) as a:
            a.feed_file(support.TINY)
            r = a.result()
            self.assertEqual(r.html, a.report("html"))
            self.assertIn("fsdpa", r.html)
            self.assertIsNone(a.result(html=False).html)
            self.assertIsNone(a.result(html=False)._repr_html_())

    def test_no_html(self):
        """Reports without the events (from JSON, from a summary, or with
        html=False) have no HTML: _repr_html_ returns None, and Jupyter
        shows the repr instead."""
        self.assertIsNone(fsdpa.analyze(support.TINY, html=False)._repr_html_())
        with fsdpa.Analyzer(support.TINY) as a:
            a.feed_file(support.TINY)
            summary = a.summary(support.TINY)
        self.assertIsNone(fsdpa.summary_report(summary).html)
        self.assertIsNone(fsdpa.summary_report(summary)._repr_html_())
        self.assertIsNone(fsdpa.Report.from_json(fsdpa.analyze(support.TINY).json)._repr_html_())

    def test_html_does_not_change_the_report(self):
        """The JSON and findings of analyze() are the same with and without
        the HTML."""
        path = support.sample_trace()
        a, b = fsdpa.analyze(path), fsdpa.analyze(path, html=False)
        self.assertEqual(a.json, b.json)
        self.assertEqual(a.findings, b.findings)
        self.assertEqual(a, b)


if __name__ == "__main__":
    unittest.main()
