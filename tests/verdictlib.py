"""What the Python checks of reports (tests/verdict_check.py, tests/advice_check.py, the *_ref.py
recomputations) share: where the sources, the CLI and the shared trace corpus are (the environment
meson sets, else the checkout's layout), running the CLI's JSON report, the generator's scenarios,
the corpus files, the verdicts' traces and their facts.py, and the exit protocol (0 = all as
stated, 1 = a difference, 2 = no CLI, 77 = nothing could be run).
Standard library only; it reads the library's output, never its code."""
import json
import os
import subprocess
import sys

ROOT = os.environ.get("FSDPA_SOURCE_ROOT") or os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CLI = os.environ.get("FSDPA_CLI")
CORPUS = os.environ.get("FSDPA_TRACE_CORPUS") or os.environ.get("FSDPA_DEFAULT_CORPUS") or \
    os.path.join(ROOT, "..", "shared", "traces")
TRACEGEN = os.path.join(ROOT, "tools", "tracegen", "tracegen.py")


def report(paths, strict=True):
    """`fsdpa analyze --format json` over paths, parsed.  An exit other than 0 / 1 (findings) raises
    when strict, else gives None (a rejected input)."""
    r = subprocess.run([CLI, "analyze", "--format", "json"] + paths, capture_output=True, text=True)
    if r.returncode not in (0, 1):
        if strict:
            raise RuntimeError("%s: exit %d: %s" % (paths, r.returncode, r.stderr.strip()[:300]))
        return None
    return json.loads(r.stdout)


def tracegen():
    """The generator as a module (scenario table, truth_path, rank_path)."""
    sys.path.insert(0, os.path.dirname(TRACEGEN))
    import tracegen as tg  # noqa: E402
    return tg


def generate(d, scenario, steps, layers, ranks=None):
    """Run tools/tracegen/tracegen.py for one scenario into a new folder of d; the trace paths, one
    a rank (ranks None: the scenario's default number, not passed)."""
    d = os.path.join(d, scenario)
    os.makedirs(d)
    out = os.path.join(d, scenario + ".json")
    cmd = [sys.executable, TRACEGEN, scenario, "-o", out, "--steps", str(steps), "--layers", str(layers)]
    if ranks is not None:
        cmd += ["--ranks", str(ranks)]
    subprocess.run(cmd, check=True, capture_output=True)
    return sorted(os.path.join(d, x) for x in os.listdir(d) if x.endswith(".json") and "truth" not in x)


def corpus_files():
    """Every .json / .json.gz of the corpus, walked in sorted order, or None without a corpus."""
    if not os.path.isdir(CORPUS):
        return None
    out = []
    for d, _, files in sorted(os.walk(CORPUS)):
        out.extend(os.path.join(d, f) for f in sorted(files) if f.endswith(".json") or f.endswith(".json.gz"))
    return out


def load_facts():
    """tests/verdicts/facts.py as a module, reading the traces its facts name from CORPUS: the
    verdicts' own loading and interval code, written without the library, so that a check judges the
    report by an independent recomputation."""
    sys.path.insert(0, os.path.join(ROOT, "tests", "verdicts"))
    import facts as f  # noqa: E402
    f.TRACES_ROOT[0] = CORPUS
    return f


VERDICTS = os.path.join(ROOT, "tests", "verdicts")


def heldout_names(vdir=VERDICTS):
    """The verdict files of the held-out half (tests/verdicts/HELDOUT): never used to tune rules,
    reported by the checks but not gated on."""
    try:
        with open(os.path.join(vdir, "HELDOUT")) as fh:
            return {l.strip() for l in fh if l.strip() and not l.startswith("#")}
    except FileNotFoundError:
        return set()


def verdicts(half="tuning", vdir=VERDICTS):
    """The verdict files as (file name, parsed verdict), sorted by name: half "tuning" (the default:
    what the checks gate on), "heldout" or "all"."""
    held = heldout_names(vdir)
    out = []
    for f in sorted(os.listdir(vdir)):
        if not f.endswith(".json"):
            continue
        if (half == "tuning" and f in held) or (half == "heldout" and f not in held):
            continue
        with open(os.path.join(vdir, f)) as fh:
            out.append((f, json.load(fh)))
    return out


def verdict_traces(half="tuning"):
    """The corpus paths (relative to CORPUS) of the verdicts that expect a report, in the verdicts'
    sorted order."""
    return [v["trace"] for _, v in verdicts(half) if not v.get("expect_rejected")]


SEV = {"info": 0, "warning": 1, "critical": 2}


def finding_levels(rep):
    """id -> the highest severity (SEV) the report's findings give it."""
    out = {}
    for f in rep["findings"]:
        out[f["id"]] = max(out.get(f["id"], -1), SEV[f["severity"]])
    return out


def judge_findings(name, got, exp, forb, misses):
    """A verdict's expected findings (present, severity within bounds) and forbidden ones (absent, or
    below their min_severity) against got (finding_levels); appends one line per miss and returns
    (met, expectations)."""
    ok = n = 0
    for e in exp:
        n += 1
        s = got.get(e["id"])
        lo, hi = SEV[e.get("min_severity", "info")], SEV[e.get("max_severity", "critical")]
        if s is None:
            misses.append("%s: expected %s missing" % (name, e["id"]))
        elif not lo <= s <= hi:
            misses.append("%s: expected %s at %s..%s, got %s" % (name, e["id"], e.get("min_severity", "info"),
                                                                e.get("max_severity", "critical"),
                                                                [k for k, v in SEV.items() if v == s][0]))
        else:
            ok += 1
    for e in forb:
        n += 1
        s = got.get(e["id"])
        lim = SEV[e["min_severity"]] if "min_severity" in e else 0
        if s is not None and s >= lim:
            misses.append("%s: forbidden %s fires (%s)" % (name, e["id"], [k for k, v in SEV.items() if v == s][0]))
        else:
            ok += 1
    return ok, n


def score_verdict(v, report_of, misses):
    """(met, expectations) of one verdict: its findings for its trace, and its job's over the job's
    traces; report_of(paths) gives a parsed report or None (the report failed)."""
    got = report_of([os.path.join(CORPUS, v["trace"])])
    if got is None:
        misses.append("%s: the report failed" % v["trace"])
        return 0, 1
    ok, n = judge_findings(v["trace"], finding_levels(got), v.get("expected_findings", []),
                           v.get("forbidden_findings", []), misses)
    job = v.get("job")
    if job:
        jg = report_of([os.path.join(CORPUS, t) for t in job["traces"]])
        o2, n2 = judge_findings(v["trace"] + " (job)", finding_levels(jg) if jg else {},
                                job.get("expected_findings", []), job.get("forbidden_findings", []), misses)
        ok, n = ok + o2, n + n2
    return ok, n


def each_verdict_trace(judge):
    """A part for run() that reports on every verdict trace and hands it to judge(rel, path, rep),
    which gives None where the report has nothing to judge, else (differences, summary).  It counts
    every trace the CLI ran on as judged, and fails where none had anything to judge: a report that
    lost the part being recomputed must not pass as a skip."""
    def part(bad):
        if not os.path.isdir(CORPUS):
            print("# SKIP needs the corpus (FSDPA_TRACE_CORPUS)")
            return 0
        rels = verdict_traces()
        before = len(bad)
        checked = 0
        for rel in rels:
            path = os.path.join(CORPUS, rel)
            try:
                rep = report([path])
            except RuntimeError as e:
                bad.append(str(e))
                continue
            got = judge(rel, path, rep)
            if got is None:
                continue
            checked += 1
            diffs, summary = got
            if diffs:
                bad.append("%s: %s" % (rel, "; ".join(diffs)))
            else:
                print("ok   %s (%s)" % (rel, summary))
        print("%d traces checked, %d differ" % (checked, len(bad) - before))
        if not checked:
            bad.append("no verdict trace had anything to check")
        return len(rels)
    return part


def run(*parts):
    """main() of a check: each part(bad) appends its failures to bad and returns how many traces it
    judged; prints the failures and gives the exit status."""
    if not CLI or not os.access(CLI, os.X_OK):
        print("FSDPA_CLI must name the fsdpa executable", file=sys.stderr)
        return 2
    bad = []
    n = sum(part(bad) for part in parts)
    for b in bad:
        print("FAIL " + b)
    if not n:
        return 77
    return 1 if bad else 0
