"""fsdpa.dask: ranks summarized on a local Dask cluster of worker processes,
merged in a tree on the workers, give the very report fsdpa.analyze() gives
in one process; and the summary functions themselves (merge associativity,
errors)."""
import os
import subprocess
import sys
import tempfile
import unittest

import fsdpa
import fsdpa.dask as fdask

from . import support

GEN = os.path.join(support.ROOT, "tools", "tracegen", "tracegen.py")
RANKS = 4


def _generated():
    """Paths of a 4-rank straggler job (planted: rank 2, 1.5 ms), or None."""
    work = os.environ.get("FSDPA_BINDINGS_WORK") or tempfile.gettempdir()
    os.makedirs(work, exist_ok=True)
    out = os.path.join(work, "dask_straggler.json.gz")
    paths = [out[:-len(".json.gz")] + f".rank{r}.json.gz" for r in range(RANKS)]
    if not all(os.path.exists(p) for p in paths):
        if not os.path.exists(GEN):
            return None
        rc = subprocess.call([sys.executable, GEN, "straggler", "-o", out, "--ranks", str(RANKS),
                              "--steps", "3", "--seed", "3"], stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL)
        if rc != 0:
            return None
    return paths


class SummaryTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.paths = _generated()
        if not cls.paths:
            print("# SKIP tools/tracegen/tracegen.py could not generate the straggler job")
            raise unittest.SkipTest("tracegen not available")
        cls.sums = [fdask.summarize(p) for p in cls.paths]

    def test_merge_is_associative_and_equals_analyze(self):
        s = self.sums
        left = fdask.merge([fdask.merge([fdask.merge(s[:2]), s[2]]), s[3]])
        right = fdask.merge([s[0], fdask.merge([s[1], fdask.merge(s[2:])])])
        flat = fdask.merge(s)
        self.assertEqual(left, flat)
        self.assertEqual(right, flat)
        direct = fsdpa.analyze(self.paths)
        self.assertEqual(fdask.report_json(flat), direct.json)
        strag = direct.findings_by_id("straggler-rank")
        self.assertEqual(len(strag), 1)
        self.assertEqual(strag[0].rank, 2)

    def test_errors(self):
        with self.assertRaises(fsdpa.ParseError) as cm:
            fdask.merge([self.sums[0], b"{\"schema\": \"fsdpa.summary/1\", \"ranks\": [1]}"])
        self.assertIn("input 1", str(cm.exception))
        self.assertEqual(cm.exception.input, 1)
        with self.assertRaises(fsdpa.ParseError):
            fdask.report_json(self.sums[0][:100])
        with self.assertRaises(ValueError):
            fdask.merge([])


class DaskClusterTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        try:
            import distributed  # noqa: F401  (Debian: python3-distributed)
        except ImportError:
            print(f"# SKIP dask.distributed is not installed for {sys.executable} "
                  "(apt-get install python3-distributed; /usr/bin/python3 has it)")
            raise unittest.SkipTest("dask.distributed not installed")
        cls.paths = _generated()
        if not cls.paths:
            print("# SKIP tools/tracegen/tracegen.py could not generate the straggler job")
            raise unittest.SkipTest("tracegen not available")
        from distributed import Client, LocalCluster
        # worker processes (not threads): each loads libfsdpa itself, as on other hosts
        cls.cluster = LocalCluster(n_workers=3, threads_per_worker=1, processes=True,
                                   dashboard_address=None, silence_logs=40)
        cls.client = Client(cls.cluster)

    @classmethod
    def tearDownClass(cls):
        cls.client.close()
        cls.cluster.close()

    def test_cluster_report_equals_analyze(self):
        pids = self.client.run(os.getpid)
        self.assertEqual(len(pids), 3)
        self.assertNotIn(os.getpid(), pids.values())
        direct = fsdpa.analyze(self.paths)
        for split in (2, 3, 8):
            rep = fdask.analyze(self.paths, self.client, split_every=split)
            self.assertEqual(rep.json, direct.json, f"split_every={split}")
        strag = rep.findings_by_id("straggler-rank")
        self.assertEqual([f.rank for f in strag], [2])
        self.assertEqual(rep.cross_rank["straggler"]["mean_delay_ns"], 1500000)

    def test_pinned_workers_and_params(self):
        addrs = sorted(self.client.scheduler_info()["workers"])
        pin = [addrs[i % len(addrs)] for i in range(len(self.paths))]
        params = {"crossrank.min_delay_ns": 2000000}  # above the planted 1.5 ms
        rep = fdask.analyze(self.paths, self.client, workers=pin, params=params)
        self.assertEqual(rep.findings_by_id("straggler-rank"), [])
        self.assertEqual(rep.json, fsdpa.analyze(self.paths, params=params).json)


if __name__ == "__main__":
    unittest.main()
