"""The list protocol (fsdpa_list) behind the binding's lists: ListView as a
sequence, a list as a snapshot that outlives later feeds and its context,
fsdpa_list_get()'s checks, and the versioned-struct rule (the library
copies min(caller's size, its own) and refuses a size below the first
released one)."""
import ctypes
import gc
import json
import unittest

import fsdpa
from fsdpa import _capi, _lib

from . import support

L = _lib.lib
EINVAL = _lib.STATUS["FSDPA_EINVAL"]
KINDS = _capi.ENUMS["fsdpa_list_kind"]


def kernel(stream, ts_ns, dur_ns, name="gemm"):
    return fsdpa.Event(ph="X", cat="kernel", name=name, pid=0, tid=stream, ts_ns=ts_ns,
                       dur_ns=dur_ns, stream=stream, device=0)


class ListViewTest(unittest.TestCase):
    def setUp(self):
        self.a = fsdpa.Analyzer()
        self.a.feed_file(support.TINY)

    def tearDown(self):
        self.a.close()

    def test_sequence(self):
        with self.a.steps(lazy=True) as v:
            self.assertIsInstance(v, fsdpa.ListView)
            self.assertIs(v.item_type, fsdpa.Step)
            self.assertEqual(L.fsdpa_list_type(v._h), KINDS["FSDPA_LIST_STEPS"])
            self.assertEqual(len(v), 2)
            whole = self.a.steps()
            self.assertEqual(list(v), whole)
            self.assertEqual(v[0], whole[0])
            self.assertEqual(v[-1], whole[1])
            self.assertEqual(v[::-1], whole[::-1])
            self.assertEqual(v[5:], [])
            with self.assertRaises(IndexError):
                v[2]
            with self.assertRaises(IndexError):
                v[-3]
            self.assertIn(whole[1], v)
        with self.assertRaises(ValueError):
            v[0]
        v.close()  # idempotent

    def test_every_list_kind(self):
        """Each list method returns the kind of list its item type is."""
        cases = [(self.a.steps(lazy=True), "FSDPA_LIST_STEPS"),
                 (self.a.streams(lazy=True), "FSDPA_LIST_STREAMS"),
                 (self.a.comm_split(lazy=True), "FSDPA_LIST_COMM_SPLITS"),
                 (self.a.fsdp_units(lazy=True), "FSDPA_LIST_FSDP_UNITS"),
                 (self.a.backward_steps(lazy=True), "FSDPA_LIST_BACKWARD_STEPS"),
                 (self.a.sync_waits(lazy=True), "FSDPA_LIST_SYNC_WAITS"),
                 (self.a.sync_calls(lazy=True), "FSDPA_LIST_SYNC_CALLS"),
                 (self.a.sync_steps(lazy=True), "FSDPA_LIST_SYNC_STEPS"),
                 (self.a.memory_devices(lazy=True), "FSDPA_LIST_MEMORY_DEVICES"),
                 (self.a.memory_series(4, lazy=True), "FSDPA_LIST_MEMORY_POINTS"),
                 (self.a.memory_steps(lazy=True), "FSDPA_LIST_MEMORY_STEPS")]
        for v, kind in cases:
            with self.subTest(kind=kind), v:
                self.assertEqual(L.fsdpa_list_type(v._h), KINDS[kind])
                self.assertIs(_capi.LIST_ITEMS[KINDS[kind]], v.item_type._c)
                self.assertEqual(list(v), v[:])
        # per step: the tiny trace has one row per ProfilerStep
        self.assertEqual([r.number for r in self.a.sync_steps()], [5, 6])
        self.assertEqual([r.number for r in self.a.memory_steps()], [5, 6])

    def test_snapshot_and_lifetime(self):
        """A list does not change when events are added, and it stays valid
        after its context is freed (strings included)."""
        v = self.a.streams(lazy=True)
        self.assertEqual(len(v), 2)
        self.a.add_event(kernel(33, 1_600_000, 5_000))
        self.assertEqual(len(v), 2)
        self.assertEqual([s.stream for s in v], [7, 20])
        self.assertEqual([s.stream for s in self.a.streams()], [7, 20, 33])
        params = fsdpa.ListView.from_call(lambda out: L.fsdpa_param_list(out))
        splits = self.a.comm_split(lazy=True)
        self.a.close()
        gc.collect()
        self.assertEqual([s.stream for s in v], [7, 20])
        self.assertEqual([s.name for s in splits], ["AllGather"])
        self.assertTrue(all(p.name and p.description for p in params))
        for x in (v, splits, params):
            x.close()

    def test_items_outlive_the_list(self):
        with fsdpa.Analyzer() as a:
            a.feed_file(support.sample_trace())
            v = a.sync_calls(lazy=True)
            rows = list(v)
            v.close()
            gc.collect()
            for r in rows:
                self.assertIsInstance(r.api, str)
            if rows:
                self.assertEqual(rows, a.sync_calls())

    def test_list_get_checks(self):
        with self.a.steps(lazy=True) as v:
            item = _capi.fsdpa_step()
            item.size = ctypes.sizeof(item)
            self.assertEqual(L.fsdpa_list_get(v._h, 2, ctypes.byref(item)), EINVAL)
            self.assertEqual(L.fsdpa_list_get(v._h, 0, None), EINVAL)
            self.assertEqual(L.fsdpa_list_get(None, 0, ctypes.byref(item)), EINVAL)
            self.assertEqual(L.fsdpa_list_get(v._h, 1, ctypes.byref(item)), 0)
            self.assertEqual((item.number, item.dur_ns), (6, 1_000_000))
        self.assertEqual(L.fsdpa_list_count(None), 0)
        self.assertEqual(L.fsdpa_list_type(None), 0)
        L.fsdpa_list_free(None)

    def test_wrong_kind_is_refused(self):
        h = _capi.list_p()
        self.assertEqual(L.fsdpa_step_list(self.a._ctx(), ctypes.byref(h)), 0)
        with self.assertRaises(TypeError):
            fsdpa.ListView(h, fsdpa.Stream)  # frees the list before raising


class VersionedStructTest(unittest.TestCase):
    """Sizes: min(caller's, library's) is copied, bytes past the library's
    struct are left alone, a size below the first released one is EINVAL."""

    def setUp(self):
        self.a = fsdpa.Analyzer()
        self.a.feed_file(support.TINY)

    def tearDown(self):
        self.a.close()

    def buffer(self, cls, extra):
        n = ctypes.sizeof(cls) + extra
        buf = (ctypes.c_ubyte * n)(*([0xAB] * n))
        ctypes.c_size_t.from_buffer(buf).value = n
        return buf

    def test_list_item_larger_and_smaller(self):
        with self.a.steps(lazy=True) as v:
            n = ctypes.sizeof(_capi.fsdpa_step)
            big = self.buffer(_capi.fsdpa_step, 16)
            self.assertEqual(L.fsdpa_list_get(v._h, 0, big), 0)
            step = _capi.fsdpa_step.from_buffer(big)
            self.assertEqual((step.number, step.start_ns, step.dur_ns),
                             (5, support.BASE, 1_000_000))
            self.assertEqual(step.size, n + 16, "the size field is the caller's")
            self.assertEqual(bytes(big[n:]), b"\xab" * 16, "bytes past the struct untouched")
            small = self.buffer(_capi.fsdpa_step, 0)
            ctypes.c_size_t.from_buffer(small).value = n - 8
            self.assertEqual(L.fsdpa_list_get(v._h, 0, small), EINVAL)
            self.assertEqual(bytes(small[8:]), b"\xab" * (n - 8), "nothing written on EINVAL")
            ctypes.c_size_t.from_buffer(small).value = 0   # "0 means current" is gone
            self.assertEqual(L.fsdpa_list_get(v._h, 0, small), EINVAL)

    def test_query_output_larger(self):
        n = ctypes.sizeof(_capi.fsdpa_timeline)
        big = self.buffer(_capi.fsdpa_timeline, 8)
        out = ctypes.cast(big, ctypes.POINTER(_capi.fsdpa_timeline))
        self.assertEqual(L.fsdpa_timeline_query(self.a._ctx(), None, out), 0)
        t = _capi.fsdpa_timeline.from_buffer(big)
        self.assertEqual((t.span_ns, t.busy_ns, t.activities), (1_480_000, 590_000, 5))
        self.assertEqual(bytes(big[n:]), b"\xab" * 8)

    def test_query_input_sizes(self):
        """A larger caller query is read up to the library's size (the
        extra bytes ignored); a smaller one than the first size is EINVAL."""
        n = ctypes.sizeof(_capi.fsdpa_query)
        big = (ctypes.c_ubyte * (n + 8))(*([0xFF] * (n + 8)))
        q = fsdpa.Query(step=0).to_c()
        ctypes.memmove(big, ctypes.byref(q), n)
        ctypes.c_size_t.from_buffer(big).value = n + 8
        out = _capi.fsdpa_timeline()
        out.size = ctypes.sizeof(out)
        qp = ctypes.cast(big, ctypes.POINTER(_capi.fsdpa_query))
        self.assertEqual(L.fsdpa_timeline_query(self.a._ctx(), qp, ctypes.byref(out)), 0)
        self.assertEqual(fsdpa.Timeline._from_c(out), self.a.timeline(step=0))
        q.size = n - 8
        self.assertEqual(L.fsdpa_timeline_query(self.a._ctx(), ctypes.byref(q),
                                                ctypes.byref(out)), EINVAL)
        self.assertTrue(L.fsdpa_errmsg(self.a._ctx()))


class ParamListTest(unittest.TestCase):
    def test_param_list(self):
        ps = fsdpa.param_list()
        self.assertTrue(ps)
        self.assertEqual(len({p.name for p in ps}), len(ps))
        with fsdpa.Analyzer() as a:
            for p in ps:
                with self.subTest(param=p.name):
                    self.assertLessEqual(p.min_value, p.default_value)
                    self.assertLessEqual(p.default_value, p.max_value)
                    self.assertEqual(a.get_param(p.name), p.default_value)
            p = ps[0]
            a.set_param(p.name, p.max_value)
            self.assertEqual(a.get_param(p.name), p.max_value)
            if p.max_value < (1 << 62):
                with self.assertRaises(fsdpa.InvalidArgumentError):
                    a.set_param(p.name, p.max_value + 1)
                self.assertEqual(a.get_param(p.name), p.max_value, "keeps its value")
            with self.assertRaises(fsdpa.InvalidArgumentError):
                a.get_param("no.such.param")

    def test_params_as_the_cli_prints_them(self):
        """params() is `fsdpa params` (`name=default  description` lines)."""
        import subprocess
        out = subprocess.run([support.cli(), "params"], stdout=subprocess.PIPE,
                             check=True).stdout.decode()
        cli = {}
        for line in out.splitlines():
            key, rest = line.split("=", 1)
            default, _, desc = rest.partition(" ")
            cli[key] = (default, desc.strip())
        self.assertEqual(fsdpa.params(), cli)
        self.assertEqual(list(fsdpa.params()), [p.name for p in fsdpa.param_list()])
        json.dumps(fsdpa.params())


if __name__ == "__main__":
    unittest.main()
