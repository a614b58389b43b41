#!/usr/bin/env python3
"""The report's model of each trace against what an expert read in it
(tests/verdicts/*.json, written without the library): the workload labels and
mode (ranks[].workload), the iterations (ranks[].iterations: how they were
found and how many) and the GPU idle inside DataLoader __next__
(ranks[].dataloader); the workload also against the generator's scenarios (FSDP
version from the truth).

Agreement is required everywhere except on the traces listed in DISAGREE,
where the library's workload answer is pinned too, with the reason, so that a
change either way is seen.  Exit 0 = all as stated, 1 = a difference, 77 = no corpus
and no generator run possible.
"""
import json
import os
import sys
import tempfile

from verdictlib import CORPUS, ROOT, generate, report, run, tracegen, verdicts

# trace -> (library's labels, library's mode, why it differs from the verdict)
DISAGREE = {
    "hta/call_stack/backward_thread.json": (
        ["single_gpu"], "train",
        "one kernel on one device, no communication, distributedInfo rank 0 without a world size: "
        "the rule says single_gpu; the expert would not decide from a single kernel"),
    "kineto/before_fix_trace.json": (
        ["single_gpu"], "unknown",
        "one kernel named 'Kernel' on one device, no communication, no distributedInfo: the rule says "
        "single_gpu; the expert called the synthetic trace undecidable"),
}


def check_evidence(name, wl, bad):
    """Every label and the mode (unless unknown) carry a rule and a count > 0."""
    labels = set(wl["parallelism"]) - {"unknown"}
    if wl["mode"] != "unknown":
        labels.add(wl["mode"])
    have = {e["label"]: e for e in wl["evidence"]}
    for l in labels:
        e = have.get(l)
        if not e or not e["rule"] or e["count"] <= 0:
            bad.append("%s: label %s without evidence: %s" % (name, l, e))
    if set(have) != labels:
        bad.append("%s: evidence for labels not reported: %s" % (name, sorted(set(have) - labels)))


# the verdicts' words for how iterations are found -> the report's source
HOW = [("ProfilerStep", "ProfilerStep"), ("benchmark", "benchmark_annotation"),
       ("Optimizer.step", "optimizer_step"), ("engine step", "engine_step"),
       ("DataLoader", "dataloader"), ("none found", "none")]


def check_iterations(v, it, bad):
    how = v["iterations"]["how"]
    # the verdicts' own wording: "no ProfilerStep: Optimizer.step#...", "engine-step annotation ..."
    norm = how.replace("-", " ")
    if norm.startswith("no ProfilerStep"):
        norm = norm.split(":", 1)[-1].strip()
    want = next((src for p, src in HOW if norm.startswith(p)), None)
    if want is None:
        bad.append("%s: verdict iterations.how %r not understood" % (v["trace"], how))
        return
    got = (it["source"], it["count"], len(it["ranges"]))
    if got != (want, v["iterations"]["count"], v["iterations"]["count"]):
        bad.append("%s: iterations %s, the verdict says %s x %d" % (v["trace"], got, want, v["iterations"]["count"]))
    for r in it["ranges"]:
        if r["dur_ns"] < 0:
            bad.append("%s: iteration of negative length %s" % (v["trace"], r))


def check_dataloader(v, dl, bad):
    """The GPU idle inside DataLoader __next__ against the verdict's own
    recomputation of it (facts idle_in_dataloader*_ns), where it has one."""
    for f in v.get("facts", []):
        if f["name"] in ("idle_in_dataloader_ns", "idle_in_dataloader_steady_ns"):
            if dl["idle_in_dataloader_ns"] != f["value"]:
                bad.append("%s: idle_in_dataloader_ns %d, the verdict's fact %s is %d" %
                           (v["trace"], dl["idle_in_dataloader_ns"], f["name"], f["value"]))
            else:
                print("# %s: DataLoader idle %d ns as the verdict's %s" % (v["trace"], f["value"], f["name"]))


def corpus(bad, half="tuning"):
    if not os.path.isdir(CORPUS):
        print("# SKIP corpus part: no trace corpus at %s" % CORPUS)
        return 0
    n = 0
    for _, v in verdicts(half):
        if v.get("expect_rejected"):
            continue
        path = os.path.join(CORPUS, v["trace"])
        if not os.path.exists(path):
            bad.append("%s: trace missing from the corpus" % v["trace"])
            continue
        rank = report([path])["ranks"][0]
        wl = rank["workload"]
        check_iterations(v, rank["iterations"], bad)
        check_dataloader(v, rank["dataloader"], bad)
        got = (sorted(wl["parallelism"]), wl["mode"])
        want = (sorted(v["workload"]["parallelism"]), v["workload"]["mode"])
        check_evidence(v["trace"], wl, bad)
        n += 1
        if v["trace"] in DISAGREE:
            pinned = DISAGREE[v["trace"]]
            if got != (sorted(pinned[0]), pinned[1]):
                bad.append("%s: library now says %s (pinned %s, verdict %s)" % (v["trace"], got, pinned[:2], want))
            elif got == want:
                bad.append("%s: now agrees with the verdict: drop it from DISAGREE" % v["trace"])
            else:
                print("# %s: differs from the verdict %s as pinned: %s" % (v["trace"], want, pinned[2]))
            continue
        if got != want:
            bad.append("%s: labels/mode %s, the verdict says %s" % (v["trace"], got, want))
    print("# corpus: %d traces compared with their verdicts" % n)
    return n


def heldout(bad):
    """The held-out half (tests/verdicts/HELDOUT): compared and printed, not gated on."""
    mine = []
    n = corpus(mine, "heldout")
    for m in mine:
        print("# held out, differs: %s" % m)
    print("# held-out half: %d traces, %d differences (reported, not gated)" % (n, len(mine)))
    return n


def generator(bad):
    tg = tracegen()
    n = 0
    with tempfile.TemporaryDirectory() as d:
        for sc in ("fsdp2_healthy", "fsdp1_serialized", "launch_bound", "sync_stall", "allocator_thrash"):
            out, = generate(d, sc, steps=2, layers=2)
            truth = json.load(open(tg.truth_path(out)))
            wl = report([out])["ranks"][0]["workload"]
            check_evidence(sc, wl, bad)
            ver = truth["fsdp"]["version"]
            want = {"fsdp2": {"FSDP2"}, "fsdp1": {"FSDP1"}}.get(ver)
            labels = set(wl["parallelism"])
            if want and not want <= labels:
                bad.append("%s: FSDP version %s but labels %s" % (sc, ver, sorted(labels)))
            if not want and labels & {"FSDP1", "FSDP2"}:
                bad.append("%s: no FSDP but labels %s" % (sc, sorted(labels)))
            if "DDP" in labels:
                bad.append("%s: DDP label on a generator trace without DDP" % sc)
            n += 1
    print("# generator: %d scenarios" % n)
    return n


if __name__ == "__main__":
    sys.exit(run(corpus, heldout, generator))
