"""Analyzer on the hand-written trace whose numbers are known exactly
(bindings/testdata/README.md), feeding in several chunkings, errors, and
the structured-event path."""
import gc
import json
import unittest

import fsdpa

from . import support
from .support import BASE


def tiny_bytes():
    with open(support.TINY, "rb") as f:
        return f.read()


class TinyTraceTest(unittest.TestCase):
    def check_tiny(self, a):
        self.assertEqual(a.trace_info, fsdpa.TraceInfo(rank=1, world_size=2, base_time_ns=BASE))
        self.assertEqual(a.steps(), [fsdpa.Step(5, BASE, 1_000_000),
                                     fsdpa.Step(6, BASE + 1_000_000, 1_000_000)])
        self.assertEqual(a.steps()[0].name, "ProfilerStep#5")
        s7, s20 = a.streams()
        self.assertEqual(s7, fsdpa.Stream(device=0, stream=7, role="compute", kernels=3,
                                          comm_kernels=0, memops=1, busy_ns=460_000,
                                          first_ns=BASE + 20_000, last_ns=BASE + 1_500_000))
        self.assertEqual(s20, fsdpa.Stream(device=0, stream=20, role="communication", kernels=1,
                                           comm_kernels=1, memops=0, busy_ns=200_000,
                                           first_ns=BASE + 100_000, last_ns=BASE + 300_000))
        t = a.timeline()
        self.assertEqual((t.span_ns, t.busy_ns, t.activities), (1_480_000, 590_000, 5))
        self.assertAlmostEqual(t.density, 590_000 / 1_480_000, places=12)
        t0 = a.timeline(step=0)
        self.assertEqual((t0.span_ns, t0.busy_ns, t0.activities), (280_000, 280_000, 3))
        self.assertEqual(t0.density, 1.0)
        t20 = a.timeline(stream=20)
        self.assertEqual((t20.span_ns, t20.busy_ns, t20.activities), (200_000, 200_000, 1))
        # an empty window: no activity, so no span and no density
        empty = a.timeline(BASE + 2_000_000, BASE + 3_000_000)
        self.assertEqual((empty.span_ns, empty.density, empty.busy_ns), (None, None, 0))
        st = a.stats()
        self.assertEqual((st.events, st.kernels, st.gpu_memcpy, st.runtime), (13, 4, 1, 5))

    def test_feed_whole(self):
        with fsdpa.Analyzer("tiny") as a:
            a.feed(tiny_bytes())
            a.finish()
            self.check_tiny(a)

    def test_feed_chunkings(self):
        data = tiny_bytes()
        for chunk in (1, 7, 4096):
            with self.subTest(chunk=chunk), fsdpa.Analyzer() as a:
                for i in range(0, len(data), chunk):
                    a.feed(data[i:i + chunk])
                a.finish()
                self.check_tiny(a)

    def test_buffer_types(self):
        data = tiny_bytes()
        for conv in (bytearray, memoryview, lambda b: memoryview(bytearray(b))):
            with self.subTest(conv=conv), fsdpa.Analyzer() as a:
                half = len(data) // 2
                a.feed(conv(data[:half]))
                a.feed(conv(data[half:]))
                a.finish()
                self.check_tiny(a)

    def test_feed_file_and_read(self):
        with fsdpa.Analyzer(support.TINY) as a:
            a.feed_file(support.TINY)
            self.check_tiny(a)
        with fsdpa.Analyzer() as a, open(support.TINY, "rb") as f:
            a.read(f, chunk_size=100)
            a.finish()
            self.check_tiny(a)

    def test_queries_between_feeds(self):
        """The input decodes events in batches (when its 512 KiB window fills,
        or once its scanner has passed the end of the event array), so with
        all but the closing brace fed every event is queryable, although the
        document and finish() are still to come."""
        data = tiny_bytes()
        cut = data.rindex(b"}")
        with fsdpa.Analyzer() as a:
            a.feed(data[:cut])
            self.check_tiny(a)
            a.feed(data[cut:])
            a.finish()
            self.check_tiny(a)

    def test_report_dataclasses(self):
        with fsdpa.Analyzer() as a:
            a.feed_file(support.TINY)
            r = a.result(path="tiny")
        self.assertEqual(r.schema, "fsdpa.report/1")
        self.assertEqual(r.version, fsdpa.version())
        self.assertEqual(r.inputs[0].path, "tiny")
        self.assertEqual((r.inputs[0].rank, r.inputs[0].world_size), (1, 2))
        rank = r.ranks[0]
        self.assertEqual(rank.span_ns, 1_480_000)
        self.assertEqual([(s.name, s.start_ns, s.dur_ns) for s in rank.steps],
                         [("ProfilerStep#5", BASE, 1_000_000),
                          ("ProfilerStep#6", BASE + 1_000_000, 1_000_000)])
        self.assertEqual([(s.stream, s.role, s.kernels, s.busy_ns) for s in rank.streams],
                         [(7, "compute", 3, 460_000), (20, "communication", 1, 200_000)])
        # to_dict() is the JSON itself, and round-trips through json
        self.assertEqual(r.to_dict(), json.loads(r.json))
        self.assertEqual(rank.to_dict(), json.loads(r.json)["ranks"][0])
        # the sections 0.2 added are fields too, the JSON's objects
        for key in ("workload", "iterations", "comm_families", "sync_classes", "other_devices", "dataloader"):
            self.assertEqual(getattr(rank, key), json.loads(r.json)["ranks"][0][key], key)
        self.assertEqual((rank.iterations["source"], rank.iterations["count"]), ("ProfilerStep", 2))
        self.assertIn("idle_causes", rank.launch_gaps)
        for f in r.findings:
            self.assertIn(f.severity, ("info", "warning", "critical"))
            for rg in f.ranges:
                self.assertLessEqual(rg.start_ns, rg.end_ns)

    def test_text_and_html(self):
        with fsdpa.Analyzer() as a:
            a.feed_file(support.TINY)
            self.assertIn("ProfilerStep", a.report("text") + a.report("html"))
            with self.assertRaises(fsdpa.InvalidArgumentError):
                a.report("yaml")


class ErrorTest(unittest.TestCase):
    def test_parse_error_offset(self):
        bad = b'{"traceEvents": [{"ph": "X", "name": "a", "ts": 1, "dur": }]}'
        with fsdpa.Analyzer("bad.json") as a:
            with self.assertRaises(fsdpa.ParseError) as cm:
                a.feed(bad)
                a.finish()
            e = cm.exception
            self.assertEqual(e.code, "FSDPA_EPARSE")
            self.assertEqual(e.status, -3)
            self.assertIsNotNone(e.offset)
            self.assertTrue(0 <= e.offset <= len(bad), e.offset)
            self.assertIn("bad.json", e.message)
            # after an input error the context refuses input but still answers
            with self.assertRaises(fsdpa.StateError):
                a.feed(b"[]")
            self.assertEqual(a.stats().kernels, 0)

    def test_truncated(self):
        with fsdpa.Analyzer() as a:
            a.feed(tiny_bytes()[:200])
            with self.assertRaises(fsdpa.TruncatedError) as cm:
                a.finish()
            self.assertIsInstance(cm.exception, fsdpa.FsdpaError)

    def test_not_a_trace(self):
        with fsdpa.Analyzer() as a:
            with self.assertRaises(fsdpa.NotATraceError):
                a.feed(b'{"hello": "world"}')
                a.finish()

    def test_feed_after_finish(self):
        with fsdpa.Analyzer() as a:
            a.feed(tiny_bytes())
            a.finish()
            with self.assertRaises(fsdpa.StateError):
                a.feed(b" ")

    def test_unknown_param_and_bad_step(self):
        with fsdpa.Analyzer() as a:
            with self.assertRaises(fsdpa.InvalidArgumentError) as cm:
                a.set_param("no.such.param", "1")
            self.assertIsNone(cm.exception.offset)
            a.feed_file(support.TINY)
            with self.assertRaises(fsdpa.InvalidArgumentError):
                a.timeline(step=99)

    def test_missing_file(self):
        with fsdpa.Analyzer() as a:
            with self.assertRaises(fsdpa.FileReadError) as cm:
                a.feed_file("/nonexistent/trace.json")
            self.assertIn("/nonexistent/trace.json", str(cm.exception))
        with self.assertRaises(fsdpa.FileReadError):
            fsdpa.analyze("/nonexistent/trace.json")

    def test_memory_cap(self):
        # the cap may already refuse the context itself, or the first events
        with self.assertRaises(fsdpa.LimitError) as cm:
            with fsdpa.Analyzer(max_memory_bytes=4096) as a:
                a.feed_file(support.TINY)
        self.assertEqual(cm.exception.code, "FSDPA_ELIMIT")

    def test_closed(self):
        a = fsdpa.Analyzer()
        a.close()
        a.close()
        with self.assertRaises(fsdpa.StateError):
            a.steps()

    def test_context_error_cleared_on_entry(self):
        """fsdpa_errmsg()/fsdpa_error_offset() belong to the last call: a
        successful call clears what a failed one left."""
        L = fsdpa._lib.lib
        with fsdpa.Analyzer("bad.json") as a:
            with self.assertRaises(fsdpa.InvalidArgumentError) as cm:
                a.set_param("no.such.param", "1")
            self.assertTrue(cm.exception.message)
            self.assertEqual(L.fsdpa_errmsg(a._ctx()).decode(), cm.exception.message)
            a.stats()
            self.assertEqual(L.fsdpa_errmsg(a._ctx()), b"")
            with self.assertRaises(fsdpa.ParseError) as cm:
                a.feed(b'{"traceEvents": [{"ph": "X", "ts": }]}')
                a.finish()
            self.assertIsNotNone(cm.exception.offset)
            self.assertEqual(L.fsdpa_error_offset(a._ctx()), cm.exception.offset)
            a.stats()
            self.assertEqual(L.fsdpa_errmsg(a._ctx()), b"")
            self.assertEqual(L.fsdpa_error_offset(a._ctx()), fsdpa.ABSENT)
        self.assertEqual(L.fsdpa_errmsg(None), b"")


class MultiContextErrorTest(unittest.TestCase):
    """Calls with no single context report through fsdpa_error: the binding
    raises its exception with the error's status and message (and the index
    of the input, and the byte offset inside a summary)."""

    def test_bad_summary(self):
        with fsdpa.Analyzer() as a:
            a.feed_file(support.TINY)
            good = a.summary()
        bad = '{"schema": "fsdpa.summary/1", "ranks": [1]}'
        with self.assertRaises(fsdpa.ParseError) as cm:
            fsdpa.summary_merge([good, bad])
        e = cm.exception
        self.assertEqual((e.status, e.code, e.input), (-3, "FSDPA_EPARSE", 1))
        self.assertIn("input 1", e.message)
        self.assertIn(e.message, str(e))
        with self.assertRaises(fsdpa.ParseError) as cm:
            fsdpa.summary_report(good[:100])
        self.assertTrue(cm.exception.message)
        with self.assertRaises(fsdpa.ParseError):
            fsdpa.summary_findings(good[:100])

    def test_summary_parse_offset(self):
        """fsdpa_error.offset: "byte offset inside that summary
        (fsdpa_summary_merge(), fsdpa_summary_report())" for a summary that
        is not valid JSON."""
        with fsdpa.Analyzer() as a:
            a.feed_file(support.TINY)
            good = a.summary()
        with self.assertRaises(fsdpa.ParseError) as cm:
            fsdpa.summary_merge([good, "{x"])
        e = cm.exception
        self.assertEqual(e.input, 1)
        self.assertIsNotNone(e.offset, f"no offset in fsdpa_error for: {e.message}")
        self.assertTrue(0 <= e.offset <= 2, e.offset)
        with self.assertRaises(fsdpa.ParseError) as cm:
            fsdpa.summary_report("{x")
        self.assertIsNotNone(cm.exception.offset, cm.exception.message)

    def test_error_struct(self):
        """The fsdpa_error itself: filled on failure with the return value as
        its status; reset to "no error" by a successful call."""
        import ctypes
        from fsdpa import _capi
        L = fsdpa._lib.lib
        err = _capi.fsdpa_error()
        L.fsdpa_error_init_sized(ctypes.byref(err), ctypes.sizeof(err))
        self.assertEqual((err.size, err.status, err.input, err.offset, err.message),
                         (ctypes.sizeof(err), 0, fsdpa.ABSENT, fsdpa.ABSENT, b""))
        with fsdpa.Analyzer() as a:
            a.feed_file(support.TINY)
            ctxs = (_capi.ctx_p * 1)(a._ctx())
            st = L.fsdpa_report(ctxs, None, 1, None, None, None, ctypes.byref(err))
            self.assertEqual(st, fsdpa._lib.STATUS["FSDPA_EINVAL"])
            self.assertEqual(err.status, st)
            self.assertTrue(err.message)
            out, n = ctypes.c_void_p(), ctypes.c_size_t()
            st = L.fsdpa_report(ctxs, None, 1, None, ctypes.byref(out), ctypes.byref(n),
                                ctypes.byref(err))
            self.assertEqual(st, 0)
            L.fsdpa_free(out)
            self.assertEqual((err.status, err.message, err.input, err.offset),
                             (0, b"", fsdpa.ABSENT, fsdpa.ABSENT))
            # NULL: no details, same status
            self.assertEqual(L.fsdpa_report(ctxs, None, 1, None, None, None, None),
                             fsdpa._lib.STATUS["FSDPA_EINVAL"])
            # a size below the first one: EINVAL, nothing written
            small = _capi.fsdpa_error()
            small.size = 8
            self.assertEqual(L.fsdpa_report(ctxs, None, 1, None, ctypes.byref(out),
                                            ctypes.byref(n), ctypes.byref(small)),
                             fsdpa._lib.STATUS["FSDPA_EINVAL"])
            self.assertEqual((small.status, small.message), (0, b""))

    def test_closed_analyzer_in_a_job(self):
        a = fsdpa.Analyzer()
        a.close()
        for f in (fsdpa.report_text, fsdpa.report_findings, fsdpa.crossrank,
                  fsdpa.crossrank_ranks):
            with self.subTest(f=f.__name__), self.assertRaises(fsdpa.StateError):
                f([a])
        with self.assertRaises(fsdpa.InvalidArgumentError):
            fsdpa.report_findings([])


class EventTest(unittest.TestCase):
    def test_events_match_json(self):
        """The same trace as structured events gives the same streams, steps
        and timeline as the JSON text."""
        with open(support.TINY, encoding="utf-8") as f:
            doc = json.load(f)
        with fsdpa.Analyzer() as a:
            a.set_trace_info(rank=1, world_size=2, base_time_ns=BASE)
            for e in doc["traceEvents"]:
                args = e.get("args", {})
                a.add_event(fsdpa.Event(
                    ph=e["ph"], cat=e.get("cat"), name=e.get("name"), pid=e.get("pid"),
                    tid=e.get("tid"),
                    ts_ns=round(e["ts"] * 1000) if "ts" in e else None,
                    dur_ns=round(e["dur"] * 1000) if "dur" in e else None,
                    correlation=args.get("correlation"), external_id=args.get("External id"),
                    stream=args.get("stream"), device=args.get("device"),
                    bytes=args.get("bytes"), in_msg_nelems=args.get("In msg nelems"),
                    out_msg_nelems=args.get("Out msg nelems"), group_size=args.get("Group size"),
                    collective=args.get("Collective name"), dtype=args.get("dtype"),
                    label=args.get("name") if e["ph"] == "M" else None))
            TinyTraceTest.check_tiny(self, a)


class AllocatorTest(unittest.TestCase):
    def test_everything_freed(self):
        alloc = fsdpa.CountingAllocator()
        a = fsdpa.Analyzer(_allocator=alloc)
        a.feed_file(support.TINY)
        a.result()
        self.assertGreater(alloc.calls, 0)
        self.assertGreater(alloc.live_bytes, 0)
        a.close()
        self.assertEqual((alloc.live_bytes, alloc.live_blocks), (0, 0))

    def test_finalizer_frees(self):
        alloc = fsdpa.CountingAllocator()
        a = fsdpa.Analyzer(_allocator=alloc)
        a.feed(tiny_bytes())
        del a
        gc.collect()
        self.assertEqual((alloc.live_bytes, alloc.live_blocks), (0, 0))


class ModuleTest(unittest.TestCase):
    def test_params(self):
        p = fsdpa.params()
        self.assertTrue(p)
        for name, (default, _desc) in p.items():
            self.assertRegex(name, r"^[a-z_]+\.[a-z0-9_.]+$")
            self.assertTrue(default)

    def test_found_without_fsdpa_library(self):
        """Without $FSDPA_LIBRARY the library is found the way an installed one
        is, by ctypes.util.find_library("fsdpa") (here through
        LD_LIBRARY_PATH, which find_library searches as it does ldconfig's
        cache)."""
        import os
        import subprocess
        import sys
        loaded = fsdpa._lib.lib._name
        if not os.path.isabs(loaded):
            self.skipTest("the library was not loaded from a path")
        env = dict(os.environ)
        env.pop("FSDPA_LIBRARY", None)
        env["LD_LIBRARY_PATH"] = os.path.dirname(loaded)
        code = ("import ctypes.util, fsdpa; "
                "print(ctypes.util.find_library('fsdpa'), fsdpa._lib.lib._name, fsdpa.version())")
        out = subprocess.run([sys.executable, "-c", code], env=env, check=True,
                             stdout=subprocess.PIPE).stdout.decode().split()
        self.assertEqual(out[0], out[1])
        self.assertEqual(out[0], fsdpa._lib.SONAME, out)
        self.assertEqual(out[2], fsdpa.version())

    def test_version(self):
        self.assertRegex(fsdpa.version(), r"^\d+\.\d+\.\d+")
        self.assertEqual(tuple(int(x) for x in fsdpa.version().split(".")[:2]),
                         fsdpa._lib.HEADER_VERSION[:2])


if __name__ == "__main__":
    unittest.main()
