#!/usr/bin/env python3
"""Advice follows the workload (docs/report-contract.md): on every trace of the
shared corpus and every generator scenario, no finding's advice talks about
something the report's own workload (ranks[].workload) and DataLoader count
(ranks[].dataloader.calls) say the trace does not contain:

  - FSDP, fully_shard, forward/backward prefetch, reshard  only with an FSDP1 or FSDP2 label
  - DDP, bucket_cap_mb, gradient_as_bucket_view, find_unused_parameters  only with DDP
  - TorchRec, embedding all-to-all  only with embedding_all_to_all
  - DataLoader, num_workers, persistent_workers  only when DataLoader __next__ ranges exist
  - "train" / "training"  only in mode train
  - KV cache  only in mode decode or mixed (an LLM serving decode steps)

Exit 0 = every advice within its workload, 1 = a sentence outside it, 77 = neither
corpus nor generator could be run.
"""
import os
import re
import sys
import tempfile

from verdictlib import CORPUS, corpus_files, generate, report, run, tracegen

# prefetch of parameters; a DataLoader's prefetch_factor / "prefetching" batches is not FSDP's
FSDP = re.compile(r"FSDP|fully_shard|\w*_prefetch\b(?<!prefetch_factor)|(forward|backward) prefetch|reshard", re.I)
DDP = re.compile(r"\bDDP\b|bucket_cap_mb|gradient_as_bucket_view|find_unused_parameters")
EMB = re.compile(r"TorchRec|embedding all-to-all", re.I)
LOADER = re.compile(r"DataLoader|num_workers|persistent_workers")
TRAIN = re.compile(r"\btrain(ing)?\b", re.I)
KV = re.compile(r"KV cache", re.I)

# finding ids whose wording lives in a room being reworded in parallel: their
# sentences outside the workload are printed, not failed, until it lands
PENDING = {}  # finding id -> why its advice is not judged yet


def check(name, rep, bad):
    """Each finding's advice against the workload of the rank it is about."""
    ranks = {r.get("rank"): r for r in rep["ranks"]}
    for f in rep["findings"]:
        rk = ranks.get(f.get("rank"))
        if rk is None:
            rk = rep["ranks"][0]
        wl = rk["workload"]
        labels = set(wl["parallelism"])
        loader = (rk.get("dataloader") or {}).get("calls", 0) > 0
        adv = f.get("advice") or ""
        where = "%s: %s (labels %s, mode %s)" % (name, f["id"], sorted(labels), wl["mode"])
        rules = [(FSDP, bool(labels & {"FSDP1", "FSDP2"}), "FSDP advice without an FSDP label"),
                 (DDP, "DDP" in labels, "DDP advice without DDP"),
                 (EMB, "embedding_all_to_all" in labels, "embedding advice without embedding_all_to_all"),
                 (LOADER, loader, "DataLoader advice without DataLoader ranges"),
                 (TRAIN, wl["mode"] == "train", "training wording outside mode train"),
                 (KV, wl["mode"] in ("decode", "mixed"), "KV cache advice outside decode")]
        for rx, allowed, what in rules:
            m = rx.search(adv)
            if m and not allowed:
                if f["id"] in PENDING:
                    print("# pending (%s): %s: %s" % (PENDING[f["id"]], where, what))
                    continue
                bad.append("%s: %s: '...%s...'" % (where, what, adv[max(0, m.start() - 40):m.end() + 40]))


def corpus(bad):
    files = corpus_files()
    if files is None:
        print("# SKIP corpus part: no trace corpus at %s" % CORPUS)
        return 0
    n = 0
    for path in files:
        rep = report([path], strict=False)
        if rep is None:
            continue  # rejected inputs have no advice
        check(os.path.relpath(path, CORPUS), rep, bad)
        n += 1
    # ranks of one job together, so that cross-rank findings are judged too
    for group in (("hta/trace_filter/sampled_rank-0.json.gz", "hta/trace_filter/sampled_rank-1.json.gz"),):
        paths = [os.path.join(CORPUS, g) for g in group]
        if not all(os.path.exists(p) for p in paths):
            bad.append("%s: missing from the corpus" % (group,))
            continue
        rep = report(paths, strict=False)
        if rep is None:
            bad.append("%s: the CLI rejected the ranks together" % (group,))
            continue
        check(" + ".join(group), rep, bad)
        n += 1
    print("# corpus: %d traces and rank groups" % n)
    return n


def generator(bad):
    n = 0
    with tempfile.TemporaryDirectory() as d:
        for sc in sorted(tracegen().SCENARIOS):
            paths = generate(d, sc, steps=3, layers=2, ranks=2 if sc == "straggler" else 1)
            rep = report(paths, strict=False)
            if rep is None:
                bad.append("%s: the CLI rejected the generator's trace" % sc)
                continue
            check(sc, rep, bad)
            n += 1
    print("# generator: %d scenarios" % n)
    return n


if __name__ == "__main__":
    sys.exit(run(corpus, generator))
