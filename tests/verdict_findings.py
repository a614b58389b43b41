#!/usr/bin/env python3
"""The report's findings against the expert verdicts (tests/verdicts/*.json, written blind: without
the library's output or code): every expected finding present with a severity inside its bounds,
every forbidden one absent (or below its min_severity), on each trace and on each verdict's job.

The tuning half is gated on (exit 1 on any miss); the held-out half (tests/verdicts/HELDOUT: traces
no rule was tuned on) is scored and printed, never gated on, so its score stays an honest measure of
how the rules do on traces they were not written from.  Exit 0 = the tuning half is met, 1 = a miss,
77 = no corpus."""
import os
import sys

from verdictlib import CORPUS, report, run, score_verdict, verdicts


def report_of(paths):
    return report(paths, strict=False)


def half(name, gate):
    def part(bad):
        if not os.path.isdir(CORPUS):
            print("# SKIP needs the corpus (FSDPA_TRACE_CORPUS)")
            return 0
        misses = []
        met = total = traces = clean = 0
        for _, v in verdicts(name):
            if v.get("expect_rejected"):
                continue
            before = len(misses)
            ok, n = score_verdict(v, report_of, misses)
            met, total, traces = met + ok, total + n, traces + 1
            clean += len(misses) == before
        for m in misses:
            print("%s %s" % ("MISS" if gate else "# held out, miss:", m))
        print("# %s half: %d of %d expectations met; %d of %d traces without a miss%s" %
              (name, met, total, clean, traces, "" if gate else " (reported, not gated)"))
        if gate:
            bad.extend(misses)
        return traces
    return part


if __name__ == "__main__":
    sys.exit(run(half("tuning", True), half("heldout", False)))
