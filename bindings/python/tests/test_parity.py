"""The package and the CLI are one tool: the same inputs (a directory of
ranks, a file in it that is not a trace skipped with a warning, an empty
trace refused), the same parameter syntax ("30%" for a share), the same
errors (a query selecting what the trace does not have, traces that are not
one job), and `python -m fsdpa` taking the CLI's words."""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest
import warnings

import fsdpa

from . import support

SRC = os.environ.get("FSDPA_SOURCE_ROOT") or support.ROOT
SAMPLE = os.path.join(SRC, "tests", "data", "sample", "fsdp2_sample.json.gz")
TRACEGEN = os.path.join(SRC, "tools", "tracegen", "tracegen.py")


def cli(*args):
    r = subprocess.run([support.cli(), *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, check=False)
    return r.returncode, r.stdout, r.stderr.decode("utf-8", "replace")


class Parity(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="fsdpa-parity-")
        cls.job = os.path.join(cls.tmp, "job")
        os.mkdir(cls.job)
        subprocess.run([sys.executable, TRACEGEN, "straggler", "-o", os.path.join(cls.job, "st.json.gz"),
                        "--ranks", "2", "--steps", "2", "--layers", "2"], check=True, capture_output=True)
        for name in os.listdir(cls.job):
            if name.endswith(".truth.json"):
                os.remove(os.path.join(cls.job, name))
        with open(os.path.join(cls.job, "config.json"), "w") as f:
            json.dump({"lr": 0.1}, f)
        cls.rank0 = os.path.join(cls.job, "st.rank0.json.gz")
        cls.rank1 = os.path.join(cls.job, "st.rank1.json.gz")

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def test_directory_like_the_cli(self):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            rep = fsdpa.analyze(self.job, html=False)
        self.assertEqual(len([x for x in w if "skipped" in str(x.message)]), 1)
        self.assertIn("config.json", str(w[0].message))
        rc, out, err = cli("analyze", "-f", "json", self.job)
        self.assertEqual(rc, 0, err)
        self.assertEqual(rep.json, out.decode())
        self.assertEqual([i.path for i in rep.inputs], [self.rank0, self.rank1])
        # named explicitly, a non-trace is an error, as in the CLI (exit 3)
        with self.assertRaises(fsdpa.NotATraceError):
            fsdpa.analyze([self.rank0, os.path.join(self.job, "config.json")], html=False)
        empty_dir = os.path.join(self.tmp, "nothing")
        os.makedirs(empty_dir, exist_ok=True)
        with self.assertRaises(fsdpa.InvalidArgumentError):
            fsdpa.analyze(empty_dir, html=False)

    def test_percent_params(self):
        k = "overlap.exposed_min_share_ppm"
        a = fsdpa.analyze(SAMPLE, params={k: "50%"}, html=False)
        b = fsdpa.analyze(SAMPLE, params={k: 500000}, html=False)
        self.assertEqual(a.json, b.json)
        rc, out, _ = cli("analyze", "-f", "json", "--set", k + "=50%", SAMPLE)
        self.assertEqual(support.without_paths(a.json), support.without_paths(out.decode()))
        with fsdpa.Analyzer() as an:
            an.set_param(k, "12.5%")
            self.assertEqual(an.get_param(k), 125000)
            for bad in ("130%", "abc%", "1000001", "12.34567%"):
                with self.subTest(bad=bad), self.assertRaises(fsdpa.InvalidArgumentError):
                    an.set_param(k, bad)
            with self.assertRaises(fsdpa.InvalidArgumentError) as cm:
                an.set_param("overlap.exposed_min_share", 5)
            self.assertIn("did you mean 'overlap.exposed_min_share_ppm'?", str(cm.exception))
            # the parameter list says what a share takes
            share = [p for p in fsdpa.param_list() if p.name == k][0]
            self.assertEqual(share.max_value, 1000000)

    def test_feed_file_then_finish(self):
        with fsdpa.Analyzer() as a:
            a.feed_file(SAMPLE)
            a.finish()           # the input is whole: nothing to do
            a.finish()
            self.assertGreater(len(a.steps()), 0)
        with fsdpa.Analyzer() as a:
            with self.assertRaises(fsdpa.TruncatedError):
                a.feed(b'{"traceEvents":[{"ph":"X"')
                a.finish()
            with self.assertRaises(fsdpa.StateError):
                a.finish()

    def test_bad_selection_raises(self):
        with fsdpa.Analyzer() as a:
            a.feed_file(SAMPLE)
            with self.assertRaises(fsdpa.InvalidArgumentError):
                a.timeline(step=len(a.steps()))
            for q in (fsdpa.Query(device=99), fsdpa.Query(stream=12345), fsdpa.Query(device=0, stream=12345)):
                with self.subTest(q=q), self.assertRaises(fsdpa.InvalidArgumentError) as cm:
                    a.timeline(query=q)
                self.assertIn("out of range", str(cm.exception))
            # what the trace has still selects
            s = a.streams()[0]
            self.assertGreater(a.timeline(device=s.device, stream=s.stream).busy_ns, 0)

    def test_empty_trace(self):
        p = os.path.join(self.tmp, "empty.json")
        with open(p, "w") as f:
            f.write('{"traceEvents":[]}')
        with self.assertRaises(fsdpa.EmptyTraceError) as cm:
            fsdpa.analyze(p, html=False)
        self.assertIn("empty trace", str(cm.exception))
        self.assertIsInstance(cm.exception, fsdpa.NotATraceError)
        rep = fsdpa.analyze(p, html=False, allow_empty=True)
        self.assertEqual(rep.json, cli("analyze", "-f", "json", "--allow-empty", p)[1].decode())

    def test_not_one_job(self):
        with self.assertRaises(fsdpa.InvalidArgumentError) as cm:
            fsdpa.analyze([self.rank0, self.rank0], html=False)
        self.assertIn("rank 0 twice", str(cm.exception))
        with fsdpa.Analyzer(self.rank0) as a:
            a.feed_file(self.rank0)
            s = a.summary()
        with self.assertRaises(fsdpa.InvalidArgumentError) as cm:
            fsdpa.summary_merge([s, s])
        self.assertIn("rank 0 twice", str(cm.exception))
        self.assertEqual(cm.exception.input, 1)

    def test_python_m_fsdpa_takes_the_cli_words(self):
        env = dict(os.environ)
        for args, want in ((["--version"], "fsdpa " + fsdpa.version()), (["version"], "fsdpa " + fsdpa.version())):
            r = subprocess.run([sys.executable, "-m", "fsdpa", *args], stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, env=env, check=False)
            self.assertEqual((r.returncode, r.stdout.decode().strip()), (0, want), r.stderr)
        r = subprocess.run([sys.executable, "-m", "fsdpa", "-f", "json", SAMPLE], stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, env=env, check=False)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stdout, cli("analyze", "-f", "json", SAMPLE)[1])
        # without any CLI to run, --version still answers (the library's)
        env2 = dict(env, FSDPA_CLI="", PATH="/nonexistent")
        r = subprocess.run([sys.executable, "-m", "fsdpa", "--version"], stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, env=env2, check=False)
        self.assertEqual((r.returncode, r.stdout.decode().strip()), (0, "fsdpa " + fsdpa.version()), r.stderr)


if __name__ == "__main__":
    unittest.main()
