#!/usr/bin/env python3
"""The fsdpa command line as its users meet it: options parsed as getopt_long
parses them (--opt=value and --opt value), values checked before anything is
read (exit 2, the message naming the option and the value), sizes with units,
shares as percentages, the output format from -o's name, a directory as the
traces in it, exit 3 for outputs that cannot be written, the text report as
wide as the terminal, the progress bar, --help for every command, and the
manual page and the shell completions made from the same tables.

  FSDPA_CLI=build/tools/fsdpa/fsdpa python3 tests/test_cli.py [-v]

meson test runs it with FSDPA_CLI, FSDPA_SOURCE_ROOT and FSDPA_CLI_COMPLETIONS
(the build directory of the generated completion scripts) set.
"""
import decimal
import fcntl
import gzip
import json
import os
import pty
import re
import select
import shutil
import struct
import subprocess
import sys
import tempfile
import termios
import time
import unittest

CLI = os.path.abspath(os.environ["FSDPA_CLI"]) if os.environ.get("FSDPA_CLI") else ""
SRC = os.environ.get("FSDPA_SOURCE_ROOT") or os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
COMPLETIONS = os.environ.get("FSDPA_CLI_COMPLETIONS", "")
SAMPLE = os.path.join(SRC, "tests", "data", "sample", "fsdp2_sample.json.gz")
MAN = os.path.join(SRC, "docs", "man", "fsdpa.1")

TMP = None        # module temp dir
RANK0 = RANK1 = NORANK = FSUM = None


def clean_env(extra=None):
    env = dict(os.environ)
    for k in ("COLUMNS", "NO_COLOR", "POSIXLY_CORRECT"):
        env.pop(k, None)
    env.update(extra or {})
    return env


def run(*args, env=None, cwd=None, stdin=None, stdout=subprocess.PIPE, timeout=300):
    p = subprocess.run([CLI, *args], input=stdin, stdout=stdout, stderr=subprocess.PIPE,
                       env=clean_env(env), cwd=cwd, timeout=timeout)
    return p.returncode, p.stdout if p.stdout is not None else b"", p.stderr.decode("utf-8", "replace")


def setUpModule():
    global TMP, RANK0, RANK1, NORANK, FSUM
    if not CLI or not os.access(CLI, os.X_OK):
        raise unittest.SkipTest("FSDPA_CLI does not name the built fsdpa")
    TMP = tempfile.mkdtemp(prefix="fsdpa-cli-")
    gen = os.path.join(TMP, "gen")
    os.mkdir(gen)
    tracegen = os.path.join(SRC, "tools", "tracegen", "tracegen.py")
    # two ranks of one job (distributedInfo.rank set), and a trace without a rank
    subprocess.run([sys.executable, tracegen, "straggler", "-o", os.path.join(gen, "st.json.gz"), "--ranks", "2",
                    "--steps", "2", "--layers", "2"], check=True, capture_output=True)
    subprocess.run([sys.executable, tracegen, "sync_stall", "-o", os.path.join(gen, "ss.json"), "--steps", "2",
                    "--layers", "2"], check=True, capture_output=True)
    RANK0 = os.path.join(gen, "st.rank0.json.gz")
    RANK1 = os.path.join(gen, "st.rank1.json.gz")
    NORANK = os.path.join(gen, "ss.json")
    FSUM = os.path.join(TMP, "sample.fsum")
    rc, _, err = run("summarize", SAMPLE, "-o", FSUM)
    assert rc == 0, err


def tearDownModule():
    if TMP:
        shutil.rmtree(TMP, ignore_errors=True)


def commands():
    """The commands `fsdpa --help` lists."""
    rc, out, _ = run("--help")
    text = out.decode()
    block = text.split("commands:\n", 1)[1].split("\n\n", 1)[0]
    return [line.split()[0] for line in block.splitlines() if line.strip()]


OPT_LINE = re.compile(r"^  (?:-(\w), |    )--([a-z][a-z-]*)(?: (\S+))?(?:  |$)")


def options(cmd):
    """[(short or None, long, metavar or None)] of `fsdpa help CMD`."""
    rc, out, _ = run("help", cmd)
    text = out.decode()
    block = text.split("\noptions:\n", 1)[1].split("\n\n", 1)[0]
    found = []
    for line in block.splitlines():
        m = OPT_LINE.match(line)
        if m:
            found.append((m.group(1), m.group(2), m.group(3)))
    return found


def read_tree(d):
    out = {}
    for root, _, names in os.walk(d):
        for n in names:
            p = os.path.join(root, n)
            with open(p, "rb") as f:
                out[os.path.relpath(p, d)] = f.read()
    return out


def width_of(text):
    text = re.sub(r"\x1b\[[0-9;]*m", "", text)
    return max(len(line) for line in text.splitlines())


class Help(unittest.TestCase):
    def test_main_help(self):
        rc, out, err = run("--help")
        self.assertEqual(rc, 0)
        self.assertTrue(out.startswith(b"usage: fsdpa <command>"))
        self.assertEqual(run("help")[:2], (0, out))
        self.assertEqual(run("-h")[:2], (0, out))
        rc, out2, err = run()
        self.assertEqual(rc, 2)
        self.assertEqual(out2, b"")
        self.assertEqual(err.encode(), out)  # no command: the same list, on stderr

    def test_every_command(self):
        cmds = commands()
        self.assertEqual(cmds, ["analyze", "annotate", "summarize", "merge", "diff", "params", "version", "help"])
        for cmd in cmds:
            with self.subTest(cmd=cmd):
                rc, out, err = run("help", cmd)
                self.assertEqual((rc, err), (0, ""))
                self.assertTrue(out.startswith(b"usage: fsdpa " + cmd.encode()), out[:80])
                self.assertEqual(run(cmd, "--help")[:2], (0, out))
                self.assertEqual(run(cmd, "-h")[:2], (0, out))
                opts = options(cmd)
                self.assertIn(("h", "help", None), opts)
                self.assertEqual(len({o[1] for o in opts}), len(opts), "an option listed twice")
                for line in out.decode().splitlines():
                    self.assertLessEqual(len(line), 90, line)

    def test_options_of_commands(self):
        longs = {cmd: {o[1] for o in options(cmd)} for cmd in commands()}
        self.assertEqual(longs["analyze"], {"format", "output", "fail-on", "set", "jobs", "low-memory", "color",
                                            "no-color", "no-progress", "html-step", "max-memory", "allow-empty",
                                            "help"})
        self.assertEqual(longs["annotate"], {"output", "dir", "gzip", "no-gzip", "set", "max-memory", "allow-empty",
                                             "help"})
        self.assertEqual(longs["summarize"], {"output", "rank", "set", "max-memory", "allow-empty", "help"})
        self.assertEqual(longs["merge"], {"format", "output", "summary", "fail-on", "help"})
        for cmd in ("params", "version", "help"):
            self.assertEqual(longs[cmd], {"help"})

    def test_unknown(self):
        rc, out, err = run("nope")
        self.assertEqual((rc, out), (2, b""))
        self.assertIn("unknown command 'nope'", err)
        rc, _, err = run("help", "nope")
        self.assertEqual(rc, 2)
        self.assertIn("'nope'", err)
        rc, _, err = run("--nope")
        self.assertEqual(rc, 2)
        self.assertIn("'--nope'", err)
        rc, _, err = run("analyze", "--nope", SAMPLE)
        self.assertEqual(rc, 2)
        self.assertIn("unknown option '--nope'", err)
        self.assertIn("fsdpa help analyze", err)
        rc, _, err = run("analyze", "-Q", SAMPLE)
        self.assertEqual(rc, 2)
        self.assertIn("'-Q'", err)

    def test_version(self):
        rc, out, _ = run("version")
        self.assertEqual(rc, 0)
        self.assertRegex(out.decode(), r"^fsdpa \d+\.\d+\.\d+\n$")
        self.assertEqual(run("--version")[:2], (0, out))

    def test_operand_counts(self):
        for args, word in ((["analyze"], "TRACE"), (["merge"], "SUMMARY"), (["summarize"], "TRACE"),
                           (["annotate", "-o", "x.json"], "TRACE"), (["summarize", "a", "b"], "one TRACE"),
                           (["params", "x"], "no operands"), (["version", "x"], "no operands"),
                           (["help", "analyze", "merge"], "one COMMAND"), (["__generate"], "man|bash|zsh"),
                           (["diff", "a"], "2 operands, BASE and NEW"), (["diff", "a", "b", "c"], "got 3")):
            with self.subTest(args=args):
                rc, out, err = run(*args)
                self.assertEqual((rc, out), (2, b""))
                self.assertIn(word, err)


class Parsing(unittest.TestCase):
    """getopt_long behaviour: --opt=value and --opt value for every option."""

    # (command, long option, value, other arguments): each value-taking
    # option of each command; "{d}" is a fresh directory in the run's cwd
    CASES = [
        ("analyze", "format", "json", lambda: [SAMPLE]),
        ("analyze", "format", "html", lambda: [SAMPLE]),
        ("analyze", "output", "r.json", lambda: [SAMPLE]),
        ("analyze", "fail-on", "warning", lambda: [SAMPLE]),
        ("analyze", "set", "overlap.exposed_min_share_ppm=50%", lambda: [SAMPLE]),
        ("analyze", "jobs", "2", lambda: [RANK0, RANK1]),
        ("analyze", "html-step", "1", lambda: ["-f", "html", SAMPLE]),
        ("analyze", "max-memory", "4G", lambda: [SAMPLE]),
        ("annotate", "output", "a.json", lambda: [SAMPLE]),
        ("annotate", "dir", "d", lambda: [SAMPLE]),
        ("annotate", "set", "launch.min_kernels=5", lambda: ["-o", "a.json", SAMPLE]),
        ("annotate", "max-memory", "1024M", lambda: ["-o", "a.json", SAMPLE]),
        ("summarize", "output", "s.fsum", lambda: [SAMPLE]),
        ("summarize", "rank", "3", lambda: [SAMPLE]),
        ("summarize", "set", "sync.min_share_ppm=2.5%", lambda: [SAMPLE]),
        ("summarize", "max-memory", "1.5G", lambda: [SAMPLE]),
        ("merge", "format", "json", lambda: [FSUM]),
        ("merge", "output", "m.json", lambda: [FSUM]),
        ("merge", "fail-on", "info", lambda: [FSUM]),
        ("diff", "format", "text", lambda: [SAMPLE, SAMPLE]),
        ("diff", "output", "d.json", lambda: [SAMPLE, FSUM]),
        ("diff", "fail-on-regression", "2.5%", lambda: [SAMPLE, SAMPLE]),
        ("diff", "min-change", "10", lambda: [SAMPLE, SAMPLE]),
        ("diff", "set", "launch.min_kernels=5", lambda: [SAMPLE, SAMPLE]),
        ("diff", "jobs", "2", lambda: [SAMPLE, SAMPLE]),
        ("diff", "max-memory", "4G", lambda: [SAMPLE, SAMPLE]),
    ]

    def outcome(self, args):
        d = tempfile.mkdtemp(dir=TMP)
        os.mkdir(os.path.join(d, "d"))
        rc, out, err = run(*args, cwd=d)
        files = read_tree(d)
        shutil.rmtree(d)
        return rc, out, err, files

    def test_cases_cover_every_value_option(self):
        wanted = {(cmd, o[1]) for cmd in commands() for o in options(cmd) if o[2]}
        covered = {(c[0], c[1]) for c in self.CASES}
        self.assertEqual(wanted - covered, set(), "options taking a value without a case here")

    def test_equals_and_separate_forms(self):
        shorts = {(cmd, o[1]): o[0] for cmd in commands() for o in options(cmd)}
        for cmd, opt, value, rest in self.CASES:
            with self.subTest(cmd=cmd, opt=opt, value=value):
                sep = self.outcome([cmd, "--" + opt, value, *rest()])
                eq = self.outcome([cmd, "--%s=%s" % (opt, value), *rest()])
                self.assertEqual(sep, eq)
                self.assertIn(sep[0], (0, 1), sep[2])
                # silent, but for --fail-on naming the findings that failed the run
                if sep[0] == 1:
                    self.assertTrue(sep[2].startswith("fsdpa: --fail-on %s: " % value), sep[2])
                else:
                    self.assertEqual(sep[2], "")
                if shorts.get((cmd, opt)):
                    s = shorts[(cmd, opt)]
                    self.assertEqual(self.outcome([cmd, "-" + s, value, *rest()]), sep)
                    self.assertEqual(self.outcome([cmd, "-" + s + value, *rest()]), sep)
                # options and operands in any order
                self.assertEqual(self.outcome([cmd, *rest(), "--" + opt, value]), sep)

    def test_comm_kernel_patterns(self):
        """--set comm.kernel_patterns takes globs (a string, passed through): a user family in
        comm_families, the overlap of the generator's second truth; the same bytes with -j and
        --low-memory; an empty value is no pattern."""
        tracegen = os.path.join(SRC, "tools", "tracegen", "tracegen.py")
        ep = os.path.join(TMP, "gen", "ep.json.gz")
        subprocess.run([sys.executable, tracegen, "ep_moe", "-o", ep, "--steps", "2", "--layers", "3"], check=True,
                       capture_output=True)
        with open(os.path.join(TMP, "gen", "ep.truth.json")) as fh:
            truth = json.load(fh)["ep"]
        pat = "comm.kernel_patterns=" + truth["user_pattern"]
        rc, plain, err = run("analyze", "--format", "json", ep)
        self.assertEqual(rc, 0, err)
        rc, out, err = run("analyze", "--format", "json", "--set", pat, ep)
        self.assertEqual(rc, 0, err)
        rank = json.loads(out)["ranks"][0]
        self.assertEqual(rank["comm_families"], truth["comm_families_user"])
        for k, v in truth["overlap_user"].items():
            self.assertEqual(rank["overlap"][k], v, k)
        self.assertEqual(json.loads(plain)["ranks"][0]["comm_families"], truth["comm_families"])
        self.assertEqual(run("analyze", "--format", "json", "--set", "comm.kernel_patterns=", ep)[1], plain)
        for extra in (["-j", "2"], ["--low-memory"]):
            two = run("analyze", "--format", "json", *extra, "--set", pat, ep, ep)
            self.assertEqual(two[0], 0, two[2])
            self.assertEqual(two[1], run("analyze", "--format", "json", "--set", pat, ep, ep)[1], extra)
        # a long list is not cut to the 32 bytes an integer value gets
        many = "comm.kernel_patterns=" + ",".join(["*nothing_%02d*" % i for i in range(10)] + [truth["user_pattern"]])
        self.assertEqual(json.loads(run("analyze", "--format", "json", "--set", many, ep)[1])["ranks"][0]["overlap"],
                         rank["overlap"])

    def test_options_take_effect(self):
        rc, out, _, _ = self.outcome(["analyze", "--format=html", SAMPLE])
        self.assertTrue(out.startswith(b"<!DOCTYPE html>"))
        rc, out, _, files = self.outcome(["analyze", "--output=r.json", SAMPLE])
        self.assertEqual(out, b"")
        self.assertEqual(json.loads(files["r.json"])["schema"], "fsdpa.report/1")
        rc, out, _, files = self.outcome(["summarize", "--rank=3", SAMPLE])
        self.assertEqual(json.loads(out)["ranks"][0]["input"]["rank"], 3)
        default = run("analyze", SAMPLE)[1]
        self.assertNotEqual(self.outcome(["analyze", "--set=overlap.exposed_min_share_ppm=50%", SAMPLE])[1], default)
        findings = json.loads(default)["findings"]
        self.assertTrue(findings)
        self.assertEqual(run("analyze", "--fail-on=info", SAMPLE)[0], 1)
        worst = max(["info", "warning", "critical"].index(f["severity"]) for f in findings)
        for i, sev in enumerate(["info", "warning", "critical"]):
            want = 1 if worst >= i else 0
            self.assertEqual(run("analyze", "--fail-on", sev, SAMPLE)[0], want, sev)
            self.assertEqual(run("analyze", "--low-memory", "--fail-on", sev, SAMPLE)[0], want, sev)
            self.assertEqual(run("merge", "--fail-on", sev, FSUM)[0], want, sev)
        # the job's findings: the cross-rank one counts too
        job = json.loads(run("analyze", RANK0, RANK1)[1])["findings"]
        worst = max(["info", "warning", "critical"].index(f["severity"]) for f in job)
        for i, sev in enumerate(["info", "warning", "critical"]):
            self.assertEqual(run("analyze", "-j", "2", "--fail-on", sev, RANK0, RANK1)[0], 1 if worst >= i else 0)

    def test_prefixes_and_flags(self):
        self.assertEqual(run("analyze", "--form", "json", SAMPLE)[:2], run("analyze", "-f", "json", SAMPLE)[:2])
        rc, _, err = run("analyze", "--no", SAMPLE)
        self.assertEqual(rc, 2)
        self.assertIn("ambiguous option '--no'", err)
        self.assertIn("--no-color", err)
        rc, _, err = run("analyze", "--color=yes", SAMPLE)
        self.assertEqual(rc, 2)
        self.assertIn("'--color' takes no value", err)
        for args, name in ((["-f"], "'-f'"), (["--format"], "'--format'"), (["-o"], "'-o'")):
            rc, out, err = run("analyze", SAMPLE, *args)
            self.assertEqual((rc, out), (2, b""))
            self.assertIn(name + " needs a value", err)

    def test_double_dash(self):
        rc, _, err = run("analyze", "--", "-x.json")
        self.assertEqual(rc, 3)
        self.assertIn("-x.json", err)

    def test_bad_choices(self):
        for args, bad in ((["analyze", "-f", "xml"], "'xml'"), (["analyze", "--fail-on=bad"], "'bad'"),
                          (["merge", "-f", "text"], "'text'"), (["merge", "--fail-on", "x"], "'x'")):
            with self.subTest(args=args):
                rc, out, err = run(*args, "/nonexistent/in.json")
                self.assertEqual((rc, out), (2, b""))
                self.assertIn(bad, err)
                self.assertIn(args[1].split("=")[0], err)


class Numbers(unittest.TestCase):
    def test_bad_numbers(self):
        # a trace that does not exist: a value wrongly accepted would read it and exit 3
        for cmd, args, opt, value in (
                ("analyze", ["-j", "4x"], "-j", "4x"),
                ("analyze", ["-j", "0"], "-j", "0"),
                ("analyze", ["-j", "-1"], "-j", "-1"),
                ("analyze", ["--jobs=-2"], "--jobs", "-2"),
                ("analyze", ["--jobs", " 4"], "--jobs", " 4"),
                ("analyze", ["--jobs", "+4"], "--jobs", "+4"),
                ("analyze", ["--jobs", "99999999999999999999"], "--jobs", "99999999999999999999"),
                ("analyze", ["--html-step", "x"], "--html-step", "x"),
                ("analyze", ["--html-step=-1"], "--html-step", "-1"),
                ("analyze", ["--html-step", "1.5"], "--html-step", "1.5"),
                ("summarize", ["--rank", "-1"], "--rank", "-1"),
                ("summarize", ["--rank=x"], "--rank", "x"),
                ("summarize", ["--rank="], "--rank", "''")):
            with self.subTest(args=args):
                rc, out, err = run(cmd, *args, "/nonexistent/trace.json")
                self.assertEqual((rc, out), (2, b""), err)
                self.assertIn(opt, err)
                self.assertIn(value if value == "''" else "'%s'" % value, err)

    def test_good_numbers(self):
        base = run("analyze", RANK0, RANK1)
        self.assertEqual(base[0], 0)
        for args in (["-j", "2"], ["-j2"], ["--jobs=2"], ["--jobs", "64"]):
            self.assertEqual(run("analyze", *args, RANK0, RANK1)[:2], base[:2], args)
        self.assertEqual(run("summarize", "--rank", "0", SAMPLE)[0], 0)


class Sizes(unittest.TestCase):
    def passes(self, size):
        rc, _, err = run("analyze", "--max-memory", size, SAMPLE, stdout=subprocess.DEVNULL)
        self.assertIn(rc, (0, 3), err)
        return rc == 0

    def test_bad_sizes(self):
        for v in ("abc", "4X", "-1", "1.2.3", "4 G", "G", ".5G", "4GiBB", "4Gb2", "1e3", "0x10",
                  "99999999999999999999", "17179869184T"):
            with self.subTest(v=v):
                rc, out, err = run("analyze", "--max-memory", v, "/nonexistent/trace.json")
                self.assertEqual((rc, out), (2, b""), err)
                self.assertIn("--max-memory", err)
                self.assertIn("'%s'" % v, err)
        rc, _, err = run("analyze", "--max-memory=", SAMPLE)
        self.assertEqual(rc, 2)

    def test_units_are_powers_of_1024(self):
        # the least cap in bytes the sample is read under, then that cap in each unit
        lo, hi = 0, 256 << 20
        self.assertTrue(self.passes("%dB" % hi))
        self.assertFalse(self.passes("1B"))
        lo = 1
        while hi - lo > 1:
            mid = (lo + hi) // 2
            if self.passes("%dB" % mid):
                hi = mid
            else:
                lo = mid
        need = hi
        self.assertTrue(self.passes("%db" % need))
        self.assertFalse(self.passes("%dB" % (need - 1)))
        k = -(-need // 1024)
        m = -(-need // (1 << 20))
        for ok, sizes in ((True, ["%dK" % k, "%dk" % k, "%dKiB" % k, "%dM" % m, "%d" % m, "%dMiB" % m,
                                  "%dMB" % m]),
                          (False, ["%dK" % (k - 1), "%dM" % (m - 1), "%d" % (m - 1)])):
            for s in sizes:
                self.assertEqual(self.passes(s), ok, (s, need))
        d = decimal.Decimal
        # MiB / 2^k is a finite decimal, exact only with enough digits (the
        # default 28 would round it)
        decimal.getcontext().prec = 100
        for unit, div in (("G", 1 << 10), ("T", 1 << 20)):
            exact = format(d(need) / d(1 << 20) / d(div), "f")
            self.assertTrue(self.passes(exact + unit), exact + unit)
            below = format((d(need) - 1) / d(1 << 20) / d(div), "f")
            self.assertFalse(self.passes(below[:40] + unit), below + unit)
        self.assertTrue(self.passes("0"))  # no cap
        self.assertTrue(self.passes("1T"))

    def test_limit_message_speaks_cli(self):
        for cmd, extra in (("analyze", []), ("summarize", []), ("annotate", ["-o", os.path.join(TMP, "lim.json")])):
            with self.subTest(cmd=cmd):
                rc, _, err = run(cmd, "--max-memory=1K", *extra, SAMPLE)
                self.assertEqual(rc, 3)
                self.assertIn("--max-memory 1K", err)


class Set(unittest.TestCase):
    def test_percentages(self):
        def report(*sets):
            args = []
            for s in sets:
                args += ["--set", s]
            rc, out, err = run("analyze", *args, SAMPLE)
            self.assertEqual((rc, err), (0, ""), sets)
            return out

        k = "overlap.exposed_min_share_ppm"
        self.assertEqual(report(k + "=50%"), report(k + "=500000"))
        self.assertNotEqual(report(k + "=50%"), report())
        self.assertEqual(report(k + "=12.5%"), report(k + "=125000"))
        self.assertEqual(report(k + "=0.0001%"), report(k + "=1"))
        self.assertEqual(report(k + "=7.25000%"), report(k + "=72500"))
        self.assertEqual(report(k + "=0%"), report(k + "=0"))
        self.assertEqual(report("starvation.max_density_ppm=30%"), report("starvation.max_density_ppm=300000"))
        self.assertEqual(report("allocator.warmup_steps=-1"), report())

    def test_every_parameter_at_its_default(self):
        rc, out, _ = run("params")
        self.assertEqual(rc, 0)
        sets = []
        for line in out.decode().splitlines():
            m = re.match(r"^([a-z_.]+)=(-?\d+)  \S", line)
            self.assertTrue(m, line)
            sets += ["--set", "%s=%s" % m.groups()]
        self.assertGreater(len(sets), 20)
        self.assertEqual(run("analyze", *sets, SAMPLE)[:2], run("analyze", SAMPLE)[:2])

    def test_bad_sets(self):
        for value in ("nokey", "=5", "no.such_param=1", "launch.kernel_wait_ns=-1",
                      "launch.kernel_wait_ns=2305843009213693953", "launch.kernel_wait_ns=30%",
                      "launch.kernel_wait_ns=abc", "launch.kernel_wait_ns=", "overlap.exposed_min_share_ppm=30%%",
                      "overlap.exposed_min_share_ppm=12.34567%", "overlap.exposed_min_share_ppm=%",
                      "overlap.exposed_min_share_ppm=abc%", "overlap.exposed_min_share_ppm=-5%",
                      "overlap.exposed_min_share_ppm=1e3", "allocator.warmup_steps=-2",
                      "overlap.exposed_min_share_ppm=130%", "overlap.exposed_min_share_ppm=1000001",
                      "overlap.exposed_min_share_ppm=100.0001%"):
            for cmd in ("analyze", "annotate", "summarize"):
                with self.subTest(cmd=cmd, value=value):
                    rc, out, err = run(cmd, "--set", value, "-o", os.path.join(TMP, "unused"), "/nonexistent/t.json")
                    self.assertEqual((rc, out), (2, b""), err)
                    self.assertIn("--set", err)
                    self.assertIn("see 'fsdpa params'", err)
                    self.assertNotIn("fsdpa_", err)


    def test_share_bounds_and_suggestions(self):
        k = "overlap.exposed_min_share_ppm"
        self.assertEqual(run("analyze", "--set", k + "=100%", SAMPLE)[:2], run("analyze", "--set", k + "=1000000", SAMPLE)[:2])
        rc, _, err = run("analyze", "--set", k + "=130%", SAMPLE)
        self.assertEqual(rc, 2)
        self.assertIn("100%", err)
        # an unknown key names the nearest: a typo, or the section left out
        for typo in ("overlap.exposed_min_share_pm", "overlap.exposed_min_share", "exposed_min_share_ppm",
                     "OVERLAP.exposed_min_share_ppm"):
            with self.subTest(typo=typo):
                rc, _, err = run("analyze", "--set", typo + "=5%", SAMPLE)
                self.assertEqual(rc, 2)
                self.assertIn("did you mean '%s'?" % k, err)
        rc, _, err = run("analyze", "--set", "completely.different=5", SAMPLE)
        self.assertEqual(rc, 2)
        self.assertNotIn("did you mean", err)


class OneJob(unittest.TestCase):
    """What the traces of one job are: an empty trace is refused unless
    --allow-empty, a directory's file that is not a trace is skipped with a
    warning, and inputs that are not one job (a rank twice, two world sizes)
    are refused with the files named."""

    def setUp(self):
        self.d = tempfile.mkdtemp(dir=TMP)

    def tearDown(self):
        shutil.rmtree(self.d)

    def write(self, name, text):
        p = os.path.join(self.d, name)
        with open(p, "w") as f:
            f.write(text)
        return p

    def test_empty_traces(self):
        for text in ("[]", '{"traceEvents":[]}', '{"schemaVersion":1,"traceEvents":[ ]}'):
            p = self.write("e.json", text)
            for cmd in (["analyze"], ["analyze", "-f", "text"], ["analyze", "--low-memory"], ["summarize"],
                        ["annotate", "-o", os.path.join(self.d, "a.json")], ["analyze", "--fail-on", "info"]):
                with self.subTest(text=text, cmd=cmd):
                    rc, out, err = run(*cmd, p)
                    self.assertEqual((rc, out), (3, b""), err)
                    self.assertIn("e.json: empty trace", err)
                    self.assertIn("--allow-empty", err)
                    rc, out, err = run(*cmd, "--allow-empty", p)
                    self.assertEqual(rc, 0, err)
            # one empty rank among good ones fails the whole report too
            rc, out, err = run("analyze", RANK0, p)
            self.assertEqual((rc, out), (3, b""))

    def test_directory_skips_files_that_are_not_traces(self):
        job = os.path.join(self.d, "job")
        os.mkdir(job)
        shutil.copy(RANK0, os.path.join(job, "rank0.json.gz"))
        shutil.copy(RANK1, os.path.join(job, "rank1.json.gz"))
        with open(os.path.join(job, "config.json"), "w") as f:
            json.dump({"lr": 0.1, "epochs": 3}, f)
        want = run("analyze", RANK0, RANK1)[1].replace(RANK0.encode(), os.path.join(job, "rank0.json.gz").encode()) \
            .replace(RANK1.encode(), os.path.join(job, "rank1.json.gz").encode())
        for extra in ([], ["-j", "2"], ["--low-memory", "-j", "2"]):
            with self.subTest(extra=extra):
                rc, out, err = run("analyze", *extra, job)
                self.assertEqual(rc, 0, err)
                self.assertEqual(out, want)
                self.assertEqual(err.count("warning: skipped"), 1, err)
                self.assertIn("config.json: not a Kineto trace", err)
        out_dir = os.path.join(self.d, "annotated")
        rc, _, err = run("annotate", "-d", out_dir, job)
        self.assertEqual(rc, 0, err)
        self.assertIn("warning: skipped", err)
        self.assertEqual(sorted(os.listdir(out_dir)), ["rank0.json.gz", "rank1.json.gz"])
        # named on the command line, the same file is an error
        rc, out, err = run("analyze", RANK0, os.path.join(job, "config.json"))
        self.assertEqual((rc, out), (3, b""))
        self.assertIn("config.json: not a Kineto trace", err)
        # a broken trace in a directory is not skipped: it is an error
        with open(os.path.join(job, "rank2.json"), "w") as f:
            f.write('{"traceEvents":[{"ph":"X"')
        rc, out, err = run("analyze", job)
        self.assertEqual((rc, out), (3, b""))
        self.assertIn("rank2.json", err)
        # nothing left
        only = os.path.join(self.d, "only")
        os.mkdir(only)
        shutil.copy(os.path.join(job, "config.json"), only)
        rc, out, err = run("analyze", only)
        self.assertEqual((rc, out), (3, b""))
        self.assertIn("no traces to analyze", err)

    def test_not_one_job(self):
        # rank 0 twice: the same file, or two files
        for args in ([RANK0, RANK0], [RANK0, RANK1, RANK0], ["-j", "2", RANK0, RANK0], ["--low-memory", RANK0, RANK0]):
            with self.subTest(args=args):
                rc, out, err = run("analyze", *args)
                self.assertEqual((rc, out), (3, b""))
                self.assertIn("rank 0 twice", err)
                self.assertIn(RANK0, err)
        # two world sizes
        with gzip.open(RANK1) as f:
            t = json.load(f)
        t["distributedInfo"]["world_size"] = 8
        other = self.write("other_job.json", json.dumps(t))
        for extra in ([], ["--low-memory"]):
            rc, out, err = run("analyze", *extra, RANK0, other)
            self.assertEqual(rc, 0, err)
            self.assertIn("warning: the traces are not one job", err)
            self.assertIn("world size 2", err)
            self.assertIn("other_job.json", err)
        self.assertEqual(run("analyze", RANK0, RANK1)[2], "")
        # merge: the same summary twice, or two summaries of rank 0
        s0 = os.path.join(self.d, "r0.fsum")
        s0b = os.path.join(self.d, "r0b.fsum")
        so = os.path.join(self.d, "other.fsum")
        self.assertEqual(run("summarize", RANK0, "-o", s0)[0], 0)
        self.assertEqual(run("summarize", RANK0, "-o", s0b)[0], 0)
        self.assertEqual(run("summarize", other, "-o", so)[0], 0)
        for args, words in (([s0, s0], ["rank 0", "r0.fsum"]), ([s0, s0b], ["rank 0", "r0.fsum", "r0b.fsum"]),
                            (["--summary", s0, s0b], ["rank 0", "r0b.fsum"])):
            with self.subTest(args=args):
                rc, out, err = run("merge", *args)
                self.assertEqual((rc, out), (3, b""))
                for w in words:
                    self.assertIn(w, err)
                self.assertNotIn("input 0", err)
                self.assertNotIn("summary 1", err)

    def test_merge_errors_name_the_file(self):
        good = os.path.join(self.d, "good.fsum")
        self.assertEqual(run("summarize", RANK0, "-o", good)[0], 0)
        bad = self.write("bad.fsum", "garbage\n")
        wrong = self.write("wrong.fsum", '{"schema":"fsdpa.summary/9","ranks":[]}')
        for b in (bad, wrong):
            with self.subTest(b=b):
                rc, out, err = run("merge", good, b)
                self.assertEqual((rc, out), (3, b""))
                self.assertIn(b, err)
                self.assertNotIn("input 1", err)

    def test_annotate_makes_its_directory(self):
        out = os.path.join(self.d, "new", "deeper")
        rc, _, err = run("annotate", "-d", out, RANK0)
        self.assertEqual(rc, 0, err)
        self.assertEqual(os.listdir(out), [os.path.basename(RANK0)])
        blocker = self.write("file", "x")
        rc, _, err = run("annotate", "-d", os.path.join(blocker, "sub"), RANK0)
        self.assertEqual(rc, 3)


class FailOn(unittest.TestCase):
    def test_any_case(self):
        for word in ("WARNING", "Warning", "warning"):
            with self.subTest(word=word):
                self.assertEqual(run("analyze", "--fail-on", word, SAMPLE)[0], 1)
        self.assertEqual(run("analyze", "-f", "JSON", SAMPLE)[:2], run("analyze", "-f", "json", SAMPLE)[:2])

    def test_says_which_findings_crossed(self):
        rep = json.loads(run("analyze", SAMPLE)[1])
        order = {"info": 0, "warning": 1, "critical": 2}
        for sev in ("info", "warning", "critical"):
            crossed = [f for f in rep["findings"] if order[f["severity"]] >= order[sev]]
            for cmd, args in (("analyze", [SAMPLE]), ("analyze", ["--low-memory", SAMPLE]), ("merge", [FSUM])):
                with self.subTest(sev=sev, cmd=cmd, args=args):
                    rc, out, err = run(cmd, "--fail-on", sev, *args)
                    self.assertEqual(rc, 1 if crossed else 0)
                    self.assertTrue(out)
                    if not crossed:
                        self.assertEqual(err, "")
                        continue
                    self.assertIn("--fail-on %s" % sev, err)
                    for f in crossed:
                        self.assertIn("%s %s rank %d: %s" % (f["severity"], f["id"], f["rank"], f["title"]), err)
                    for f in rep["findings"]:
                        if f not in crossed:
                            self.assertNotIn(f["title"], err)


class OutputFormat(unittest.TestCase):
    def test_by_name(self):
        d = tempfile.mkdtemp(dir=TMP)
        want = {fmt: run("analyze", "-f", fmt, SAMPLE)[1] for fmt in ("json", "text", "html")}
        for name, fmt in (("r.html", "html"), ("r.json", "json"), ("r.txt", "text"), ("R.HTML", "html"),
                          ("r.Txt", "text")):
            with self.subTest(name=name):
                p = os.path.join(d, name)
                rc, out, err = run("analyze", "-o", p, SAMPLE)
                self.assertEqual((rc, out, err), (0, b"", ""))
                with open(p, "rb") as f:
                    self.assertEqual(f.read(), want[fmt])
        # a name that says no format is refused before anything is read (no
        # silent JSON in report.pdf); -f makes any name fine
        for name in ("r.pdf", "report", "r.html.bak", "r.out"):
            with self.subTest(name=name):
                p = os.path.join(d, name)
                rc, out, err = run("analyze", "-o", p, SAMPLE)
                self.assertEqual((rc, out), (2, b""))
                self.assertIn(name, err)
                self.assertIn("-f json|text|html", err)
                self.assertFalse(os.path.exists(p))
        for name, fmt in (("r.html", "json"), ("r.txt", "html"), ("r.json", "text"), ("r.pdf", "json")):
            p = os.path.join(d, name)
            self.assertEqual(run("analyze", "-f", fmt, "-o", p, SAMPLE)[0], 0)
            with open(p, "rb") as f:
                self.assertEqual(f.read(), want[fmt], (name, fmt))

    def test_low_memory_is_json(self):
        rc, _, err = run("analyze", "--low-memory", "-o", os.path.join(TMP, "lm.html"), RANK0, RANK1)
        self.assertEqual(rc, 2)
        self.assertIn("--low-memory", err)
        p = os.path.join(TMP, "lm.json")
        self.assertEqual(run("analyze", "--low-memory", "-j", "2", "-o", p, RANK0, RANK1)[0], 0)
        with open(p, "rb") as f:
            self.assertEqual(f.read(), run("analyze", RANK0, RANK1)[1])

    def test_merge_is_json(self):
        rc, _, err = run("merge", "-o", os.path.join(TMP, "m.txt"), FSUM)
        self.assertEqual(rc, 2)
        self.assertIn("JSON only", err)
        self.assertEqual(run("merge", "-o", os.path.join(TMP, "m.html"), FSUM)[0], 2)
        p = os.path.join(TMP, "m2.txt")
        self.assertEqual(run("merge", "-f", "json", "-o", p, FSUM)[0], 0)
        with open(p, "rb") as f:
            self.assertEqual(f.read(), run("analyze", "-f", "json", SAMPLE)[1])
        p = os.path.join(TMP, "m3.txt")
        self.assertEqual(run("merge", "--summary", "-o", p, FSUM)[0], 0)
        with open(p, "rb") as f:
            self.assertEqual(json.loads(f.read())["schema"], "fsdpa.summary/1")

    def test_dash_is_stdout(self):
        self.assertEqual(run("analyze", "-o", "-", SAMPLE)[:2], run("analyze", SAMPLE)[:2])


class Directories(unittest.TestCase):
    def setUp(self):
        self.d = tempfile.mkdtemp(dir=TMP)
        self.job = os.path.join(self.d, "job")
        os.mkdir(self.job)
        # byte order of names: a.json before b.json.gz; the rank numbers come from the traces
        with gzip.open(RANK0) as f, open(os.path.join(self.job, "a.json"), "wb") as g:
            g.write(f.read())
        shutil.copy(RANK1, os.path.join(self.job, "b.json.gz"))
        # not traces of the directory: a subdirectory (even one named like a trace), a
        # hidden file, other names, and the traces inside a subdirectory
        os.mkdir(os.path.join(self.job, "c.json"))
        os.mkdir(os.path.join(self.job, "sub"))
        shutil.copy(RANK0, os.path.join(self.job, "sub", "r.json.gz"))
        shutil.copy(RANK0, os.path.join(self.job, ".hidden.json"))
        for n in ("notes.txt", "x.json.bak", "json"):
            with open(os.path.join(self.job, n), "w") as f:
                f.write("not a trace\n")

    def tearDown(self):
        shutil.rmtree(self.d)

    def test_analyze_directory(self):
        explicit = run("analyze", os.path.join(self.job, "a.json"), os.path.join(self.job, "b.json.gz"))
        self.assertEqual(explicit[0], 0, explicit[2])
        self.assertEqual(run("analyze", self.job)[:3], explicit)
        self.assertEqual(run("analyze", self.job + "/")[:3], explicit)
        self.assertEqual(run("analyze", "-j", "2", self.job + "//")[:3], explicit)
        paths = [i["path"] for i in json.loads(explicit[1])["inputs"]]
        self.assertEqual(paths, [os.path.join(self.job, "a.json"), os.path.join(self.job, "b.json.gz")])
        # relative, as the shell's glob writes them
        rc, out, _ = run("analyze", "job", cwd=self.d)
        self.assertEqual([i["path"] for i in json.loads(out)["inputs"]], ["job/a.json", "job/b.json.gz"])
        # a directory among files
        both = run("analyze", SAMPLE, self.job)
        self.assertEqual(both[:2], run("analyze", SAMPLE, os.path.join(self.job, "a.json"),
                                       os.path.join(self.job, "b.json.gz"))[:2])

    def test_order_numbers_traces_without_rank(self):
        d = os.path.join(self.d, "norank")
        os.mkdir(d)
        for n in ("r10.json", "r2.json", "r1.json"):
            shutil.copy(NORANK, os.path.join(d, n))
        rc, out, _ = run("analyze", d)
        self.assertEqual(rc, 0)
        rep = json.loads(out)
        self.assertEqual([os.path.basename(i["path"]) for i in rep["inputs"]], ["r1.json", "r10.json", "r2.json"])
        self.assertEqual([i["rank"] for i in rep["inputs"]], [0, 1, 2])

    def test_empty_directory(self):
        for name, files in (("empty", []), ("others", ["notes.txt", "t.json.bak"])):
            with self.subTest(name=name):
                d = os.path.join(self.d, name)
                os.mkdir(d)
                for n in files:
                    open(os.path.join(d, n), "w").close()
                for cmd in (["analyze"], ["summarize"], ["annotate", "-d", self.d], ["merge"]):
                    rc, out, err = run(*cmd, d)
                    self.assertEqual((rc, out), (2, b""), cmd)
                    self.assertIn(d, err)
                    self.assertIn("no traces" if cmd[0] != "merge" else "no summaries", err)

    def test_summarize_directory(self):
        one = os.path.join(self.d, "one")
        os.mkdir(one)
        shutil.copy(SAMPLE, os.path.join(one, "s.json.gz"))
        rc, out, err = run("summarize", one)
        self.assertEqual(rc, 0, err)
        self.assertEqual(out, run("summarize", os.path.join(one, "s.json.gz"))[1])
        rc, out, err = run("summarize", self.job)
        self.assertEqual((rc, out), (2, b""))
        self.assertIn("one TRACE", err)

    def test_merge_directory(self):
        sums = os.path.join(self.d, "sums")
        os.mkdir(sums)
        for i, t in enumerate((RANK0, RANK1)):
            self.assertEqual(run("summarize", t, "-o", os.path.join(sums, "r%d.fsum" % i))[0], 0)
        open(os.path.join(sums, "README"), "w").close()
        explicit = run("merge", os.path.join(sums, "r0.fsum"), os.path.join(sums, "r1.fsum"))
        self.assertEqual(explicit[0], 0)
        self.assertEqual(run("merge", sums)[:2], explicit[:2])
        self.assertEqual(explicit[1], run("analyze", RANK0, RANK1)[1])

    def test_annotate_directory(self):
        out = os.path.join(self.d, "out")
        os.mkdir(out)
        rc, _, err = run("annotate", "-d", out, self.job)
        self.assertEqual(rc, 0, err)
        self.assertEqual(sorted(os.listdir(out)), ["a.json", "b.json.gz"])
        ref = os.path.join(self.d, "ref")
        os.mkdir(ref)
        run("annotate", "-d", ref, os.path.join(self.job, "a.json"), os.path.join(self.job, "b.json.gz"))
        self.assertEqual(read_tree(out), read_tree(ref))


class Errors(unittest.TestCase):
    C_WORDS = re.compile(r"\bfsdpa_[a-z_]+\(|\bFSDPA_E[A-Z]+|fsdpa_param_list")

    def test_unwritable_output_is_io(self):
        missing = "/nonexistent-dir/out"
        for args in (["analyze", "-o", missing + ".json", SAMPLE], ["analyze", "-o", TMP, SAMPLE],
                     ["summarize", "-o", missing + ".fsum", SAMPLE], ["merge", "-o", missing + ".json", FSUM],
                     ["merge", "--summary", "-o", TMP, FSUM], ["annotate", "-o", missing + ".json", SAMPLE],
                     ["annotate", "-d", os.path.join(SAMPLE, "sub"), SAMPLE], ["annotate", "-d", SAMPLE, SAMPLE]):
            with self.subTest(args=args):
                rc, out, err = run(*args)
                self.assertEqual((rc, out), (3, b""))
                self.assertIn("cannot write", err)
        if os.path.exists("/dev/full"):
            rc, _, err = run("analyze", "-f", "json", "-o", "/dev/full", SAMPLE)
            self.assertEqual(rc, 3)
            self.assertIn("/dev/full", err)
            with open("/dev/full", "wb") as full:
                for args in (["analyze", SAMPLE], ["summarize", SAMPLE], ["merge", FSUM]):
                    rc, _, err = run(*args, stdout=full)
                    self.assertEqual(rc, 3, args)
                    self.assertIn("standard output", err)

    def test_unreadable_input_is_io(self):
        bad = os.path.join(TMP, "bad.json")
        with open(bad, "w") as f:
            f.write('{"traceEvents": [{"ph": "X", ')
        notrace = os.path.join(TMP, "notrace.json")
        with open(notrace, "w") as f:
            f.write('{"hello": 1}')
        badsum = os.path.join(TMP, "bad.fsum")
        with open(badsum, "w") as f:
            f.write('{"schema": "nope"}')
        for args in (["analyze", "/nonexistent/t.json"], ["analyze", bad], ["analyze", notrace],
                     ["analyze", "--low-memory", bad], ["summarize", bad], ["annotate", "-o", bad + ".out", bad],
                     ["merge", "/nonexistent/s.fsum"], ["merge", badsum], ["merge", bad]):
            with self.subTest(args=args):
                rc, out, err = run(*args)
                self.assertEqual((rc, out), (3, b""))
                self.assertTrue(err.startswith("fsdpa: "), err)
                self.assertNotRegex(err, self.C_WORDS)

    def test_usage_messages_speak_cli(self):
        for args in (["analyze", "--set", "x=1", SAMPLE], ["analyze", "--set", "launch.kernel_wait_ns=-1", SAMPLE],
                     ["analyze", "-j", "x", SAMPLE], ["analyze", "--max-memory", "x", SAMPLE],
                     ["annotate", SAMPLE], ["annotate", "-o", "x", "-"], ["summarize"], ["nope"]):
            with self.subTest(args=args):
                rc, _, err = run(*args)
                self.assertEqual(rc, 2)
                self.assertNotRegex(err, self.C_WORDS)


def pty_pair(cols):
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 50, cols, 0, 0))
    return master, slave


def drain(master, proc, timeout=120):
    """Everything the program writes to the pty until it exits."""
    data = b""
    end = time.time() + timeout
    while time.time() < end:
        r, _, _ = select.select([master], [], [], 0.1)
        if r:
            try:
                chunk = os.read(master, 65536)
            except OSError:
                break
            if not chunk:
                break
            data += chunk
        elif proc.poll() is not None:
            r, _, _ = select.select([master], [], [], 0.1)
            if not r:
                break
    return data


class Width(unittest.TestCase):
    def text(self, columns=None, *args):
        env = {"COLUMNS": columns} if columns is not None else None
        rc, out, err = run("analyze", "-f", "text", *args, SAMPLE, env=env)
        self.assertEqual((rc, err), (0, ""))
        return out.decode()

    def test_columns(self):
        default = self.text()
        self.assertLessEqual(width_of(default), 100)
        self.assertGreater(width_of(default), 90)
        for cols in (60, 75, 200):
            t = self.text(str(cols))
            self.assertLessEqual(width_of(t), cols, cols)
            self.assertGreater(width_of(t), min(cols, 150) - 10, cols)
        self.assertEqual(self.text("10"), self.text("40"))
        self.assertLessEqual(width_of(self.text("40")), 40)
        self.assertEqual(self.text("5000"), self.text("1000"))
        for bad in ("abc", "0", "-5", "", "80x"):
            self.assertEqual(self.text(bad), default, bad)
        p = os.path.join(TMP, "w.txt")
        self.assertEqual(run("analyze", "-o", p, SAMPLE, env={"COLUMNS": "60"})[0], 0)
        with open(p) as f:
            self.assertEqual(f.read(), self.text("60"))

    def test_json_and_html_do_not_depend_on_width(self):
        for fmt in ("json", "html"):
            a = run("analyze", "-f", fmt, SAMPLE, env={"COLUMNS": "45"})[1]
            self.assertEqual(a, run("analyze", "-f", fmt, SAMPLE, env={"COLUMNS": "300"})[1], fmt)

    def on_tty(self, cols, env=None):
        master, slave = pty_pair(cols)
        proc = subprocess.Popen([CLI, "analyze", SAMPLE], stdout=slave, stderr=subprocess.DEVNULL,
                                env=clean_env(env))
        os.close(slave)
        data = drain(master, proc)
        proc.wait()
        os.close(master)
        self.assertEqual(proc.returncode, 0)
        return data.decode("utf-8", "replace").replace("\r\n", "\n")

    def test_terminal_width(self):
        t = self.on_tty(70)
        self.assertTrue(t.startswith("== rank 0") or "\x1b[" in t[:20], t[:80])  # text on a terminal
        self.assertLessEqual(width_of(t), 70)
        self.assertGreater(width_of(t), 60)
        self.assertLessEqual(width_of(self.on_tty(70, {"COLUMNS": "120"})), 120)
        self.assertGreater(width_of(self.on_tty(70, {"COLUMNS": "120"})), 100)


class Progress(unittest.TestCase):
    def stderr_on_tty(self, args, feed=None, pause=0.0):
        master, slave = pty_pair(100)
        proc = subprocess.Popen([CLI, "analyze", *args], stdin=subprocess.PIPE if feed else subprocess.DEVNULL,
                                stdout=subprocess.DEVNULL, stderr=slave, env=clean_env())
        os.close(slave)
        if feed:
            half = len(feed) // 2
            proc.stdin.write(feed[:half])
            proc.stdin.flush()
            time.sleep(pause)
            proc.stdin.write(feed[half:])
            proc.stdin.close()
        data = drain(master, proc)
        proc.wait()
        os.close(master)
        self.assertEqual(proc.returncode, 0, data)
        return data.decode("utf-8", "replace")

    def test_small_input_no_bar(self):
        self.assertNotIn("reading", self.stderr_on_tty([SAMPLE]))

    def test_large_decompressed_input(self):
        # small on disk, 64 MiB and more inflated (the gzip trailer says so)
        with open(SAMPLE, "rb") as f:
            raw = gzip.decompress(f.read())
        end = raw.rindex(b"}")
        padded = os.path.join(TMP, "padded.json.gz")
        with open(padded, "wb") as f:
            f.write(gzip.compress(raw[:end] + b" " * (65 << 20) + raw[end:], 6))
        self.assertLess(os.path.getsize(padded), 64 << 20)
        self.assertIn("reading [", self.stderr_on_tty([padded]))
        self.assertNotIn("reading", self.stderr_on_tty(["--no-progress", padded]))

    def test_slow_input(self):
        with open(SAMPLE, "rb") as f:
            data = f.read()
        self.assertIn("reading", self.stderr_on_tty(["-"], feed=data, pause=1.5))
        self.assertNotIn("reading", self.stderr_on_tty(["--no-progress", "-"], feed=data, pause=1.5))


class Generated(unittest.TestCase):
    """The manual page and the completions come from the option table."""

    def gen(self, what):
        rc, out, err = run("__generate", what)
        self.assertEqual((rc, err), (0, ""))
        return out.decode()

    def test_man_page_is_committed(self):
        with open(MAN) as f:
            committed = f.read()
        self.assertEqual(self.gen("man"), committed,
                         "docs/man/fsdpa.1 is not what the tables make: regenerate it with "
                         "`fsdpa __generate man > docs/man/fsdpa.1`")

    def test_man_page_lints(self):
        groff = shutil.which("groff")
        if not groff:
            self.skipTest("no groff")
        p = subprocess.run([groff, "-man", "-ww", "-z"], input=self.gen("man").encode(), capture_output=True)
        self.assertEqual((p.returncode, p.stderr), (0, b""))

    def test_man_page_documents_every_option(self):
        man = self.gen("man")
        synopsis = man.split(".SH SYNOPSIS\n", 1)[1].split(".SH ", 1)[0]
        for cmd in commands():
            self.assertIn(".B fsdpa %s\n" % cmd, synopsis)
            section = man.split(".SS %s\n" % cmd, 1)[1]
            section = re.split(r"^\.S[SH] ", section, maxsplit=1, flags=re.M)[0]
            for short, long, metavar in options(cmd):
                if long == "help":
                    continue
                header = ("\\fB\\-%s\\fR, " % short if short else "") + "\\fB\\-\\-%s\\fR" % long.replace("-", "\\-")
                if metavar:
                    header += " \\fI%s\\fR" % metavar
                self.assertIn(".TP\n" + header + "\n", section, (cmd, long))
        text = "".join(l for l in man.splitlines(True) if not l.startswith('.\\"'))
        self.assertNotIn("__generate", text)  # hidden
        self.assertNotIn("fsdpa_", text)

    def test_generate_unknown(self):
        rc, out, err = run("__generate", "fish")
        self.assertEqual((rc, out), (2, b""))
        self.assertIn("'fish'", err)

    def test_built_completions_are_generated(self):
        if not COMPLETIONS:
            self.skipTest("FSDPA_CLI_COMPLETIONS not set")
        for name, what in (("fsdpa", "bash"), ("_fsdpa", "zsh")):
            with open(os.path.join(COMPLETIONS, name)) as f:
                self.assertEqual(f.read(), self.gen(what), name)

    def bash_script(self):
        p = os.path.join(TMP, "fsdpa.bash")
        with open(p, "w") as f:
            f.write(self.gen("bash"))
        return p

    def complete(self, words, cwd=None):
        """COMPREPLY for the command line `words` (the last one being completed)."""
        quoted = " ".join("'%s'" % w.replace("'", "'\\''") for w in words)
        script = ('source "$1"; COMP_WORDS=(%s); COMP_CWORD=%d; _fsdpa; printf "%%s\\n" "${COMPREPLY[@]}"'
                  % (quoted, len(words) - 1))
        p = subprocess.run(["bash", "--norc", "--noprofile", "-c", script, "bash", self.bash_script()],
                           capture_output=True, cwd=cwd, text=True)
        self.assertEqual(p.returncode, 0, p.stderr)
        return sorted(w for w in p.stdout.split("\n") if w)

    def test_bash_syntax(self):
        p = subprocess.run(["bash", "-n", self.bash_script()], capture_output=True)
        self.assertEqual((p.returncode, p.stderr), (0, b""))

    def test_zsh_syntax(self):
        zsh = shutil.which("zsh")
        if not zsh:
            self.skipTest("no zsh")
        p = os.path.join(TMP, "_fsdpa")
        with open(p, "w") as f:
            f.write(self.gen("zsh"))
        r = subprocess.run([zsh, "-n", p], capture_output=True)
        self.assertEqual((r.returncode, r.stderr), (0, b""))

    def test_bash_offers_every_option(self):
        for cmd in commands():
            with self.subTest(cmd=cmd):
                want = sorted(["--" + o[1] for o in options(cmd)] + ["-" + o[0] for o in options(cmd) if o[0]])
                self.assertEqual(self.complete(["fsdpa", cmd, "-"]), want)

    def test_zsh_knows_every_option(self):
        z = self.gen("zsh")
        self.assertTrue(z.startswith("#compdef fsdpa\n"))
        for cmd in commands():
            block = z.split("\n    %s)\n" % cmd, 1)[1].split(";;", 1)[0]
            for short, long, metavar in options(cmd):
                self.assertIn("--%s%s" % (long, "=" if metavar else ""), block, (cmd, long))
                if short:
                    self.assertIn("-%s%s," % (short, "+" if metavar else ""), block, (cmd, short))

    def test_bash_values(self):
        self.assertEqual(self.complete(["fsdpa", "an"]), ["analyze", "annotate"])
        self.assertEqual(self.complete(["fsdpa", "-"]), ["--help", "--version", "-h"])
        self.assertEqual(self.complete(["fsdpa", "analyze", "--fo"]), ["--format"])
        self.assertEqual(self.complete(["fsdpa", "analyze", "--format", ""]), ["html", "json", "text"])
        self.assertEqual(self.complete(["fsdpa", "analyze", "-f", "j"]), ["json"])
        self.assertEqual(self.complete(["fsdpa", "analyze", "--format", "=", "h"]), ["html"])
        self.assertEqual(self.complete(["fsdpa", "analyze", "--format", "="]), ["html", "json", "text"])
        self.assertEqual(self.complete(["fsdpa", "merge", "--fail-on", "c"]), ["critical"])
        self.assertEqual(self.complete(["fsdpa", "merge", "-f", ""]), ["json"])
        self.assertEqual(self.complete(["fsdpa", "help", "s"]), ["summarize"])
        self.assertEqual(self.complete(["fsdpa", "analyze", "-j", ""]), [])
        self.assertEqual(self.complete(["fsdpa", "analyze", "--max-memory", ""]), [])
        rc, out, _ = run("params")
        params = sorted(line.split("=", 1)[0] + "=" for line in out.decode().splitlines())
        self.assertEqual(self.complete(["fsdpa", "summarize", "--set", ""]), params)
        self.assertEqual(self.complete(["fsdpa", "analyze", "--set", "starvation.max_d"]),
                         ["starvation.max_density_ppm="])
        self.assertEqual(self.complete(["fsdpa", "analyze", "--set", "starvation.max_density_ppm", "="]), [])
        d = tempfile.mkdtemp(dir=TMP)
        for n in ("a.json", "b.json.gz", "c.txt", "d.fsum"):
            open(os.path.join(d, n), "w").close()
        os.mkdir(os.path.join(d, "sub"))
        self.assertEqual(self.complete(["fsdpa", "analyze", ""], cwd=d), ["a.json", "b.json.gz", "sub"])
        self.assertEqual(self.complete(["fsdpa", "annotate", "-d", ""], cwd=d), ["sub"])
        self.assertEqual(self.complete(["fsdpa", "merge", ""], cwd=d), ["a.json", "b.json.gz", "c.txt", "d.fsum", "sub"])
        self.assertEqual(self.complete(["fsdpa", "analyze", "-o", "c"], cwd=d), ["c.txt"])


if __name__ == "__main__":
    unittest.main()
