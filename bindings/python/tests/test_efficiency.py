"""Devices, the kernel and op tables, MFU and the peaks through the binding:
a hand-built step with known answers (structured events, record_shapes
included), and the tables of a trace against the JSON report's."""
import json
import unittest

import fsdpa

from .support import TINY, cli_report

BF16 = '["c10::BFloat16", "c10::BFloat16"]'


def one_gemm_step():
    """One 1 ms ProfilerStep holding one bf16 4096^3 GEMM of 200 us on an H100."""
    a = fsdpa.Analyzer()
    a.set_device(0, "NVIDIA H100 80GB HBM3", sms=132, compute_major=9, compute_minor=0)
    X = "X"
    a.add_event(fsdpa.Event(ph=X, cat="user_annotation", name="ProfilerStep#1", pid=10, tid=1, ts_ns=0,
                            dur_ns=1_000_000))
    a.add_event(fsdpa.Event(ph=X, cat="cpu_op", name="aten::mm", pid=10, tid=1, ts_ns=1000, dur_ns=50,
                            input_dims="[[4096, 4096], [4096, 4096]]", input_types=BF16))
    a.add_event(fsdpa.Event(ph=X, cat="cuda_runtime", name="cudaLaunchKernel", pid=10, tid=1, ts_ns=1010,
                            dur_ns=5, correlation=1))
    a.add_event(fsdpa.Event(ph=X, cat="kernel", name="sm90_gemm", pid=0, tid=7, ts_ns=10_000,
                            dur_ns=200_000, correlation=1))
    return a


class TestEfficiency(unittest.TestCase):
    def test_known_answers(self):
        with one_gemm_step() as a:
            d = a.devices()
            self.assertEqual([(x.device, x.name, x.sms) for x in d], [(0, "NVIDIA H100 80GB HBM3", 132)])
            p = a.device_peak()
            self.assertEqual(p.model, "H100 SXM")
            self.assertAlmostEqual(p.bf16_tflops, 989.4)
            self.assertIsNone(a.device_peak(3).model or None)
            ops = a.ops()
            self.assertEqual(len(ops), 1)
            o = ops[0]
            flops = 2 * 4096 ** 3
            self.assertEqual((o.name, o.category, o.model, o.dtype), ("aten::mm", "gemm", "gemm", "bf16"))
            self.assertEqual(o.input_dims, "[[4096,4096],[4096,4096]]")
            self.assertEqual((o.flops, o.bytes, o.kernel_ns), (flops, 3 * 4096 * 4096 * 2, 200_000))
            self.assertAlmostEqual(o.tflops_per_s, flops / 200_000 / 1000)
            e = a.efficiency(step=0)
            self.assertEqual((e.window_ns, e.kernel_ns, e.gemm_ns, e.flops), (1_000_000, 200_000, 200_000, flops))
            self.assertAlmostEqual(e.mfu, flops / (989.4 * 1000) / 1_000_000)
            self.assertEqual([s.step for s in a.efficiency_steps()], [1])
            k = a.kernels()
            self.assertEqual([(x.name, x.kernel_class, x.count, x.total_ns) for x in k],
                             [("sm90_gemm", "compute", 1, 200_000)])
            with self.assertRaises(fsdpa.InvalidArgumentError):
                a.kernels(fsdp_unit=0)  # no FSDP units in this trace

    def test_tables_match_the_report(self):
        rep = json.loads(cli_report(TINY))["ranks"][0]
        with fsdpa.Analyzer() as a:
            a.feed_file(TINY)
            ks = a.kernels(max_rows=40)
            self.assertEqual([(k.name, k.count, k.total_ns, k.p50_ns) for k in ks],
                             [(k["name"], k["count"], k["total_ns"], k["p50_ns"]) for k in rep["kernels"]])
            ops = a.ops(max_rows=40)
            self.assertEqual([(o.name, o.category, o.count, o.kernel_ns) for o in ops],
                             [(o["name"], o["category"], o["count"], o["kernel_ns"]) for o in rep["ops"]])


if __name__ == "__main__":
    unittest.main()
