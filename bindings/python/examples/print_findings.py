#!/usr/bin/env python3
"""Print the findings of a trace (one trace per rank):

    python3 bindings/python/examples/print_findings.py TRACE [TRACE ...]

with the package installed (`pip install .`), or from a build tree:

    FSDPA_LIBRARY=build/libfsdpa/libfsdpa.so.2 PYTHONPATH=bindings/python \
        python3 bindings/python/examples/print_findings.py TRACE [TRACE ...]
"""
import sys

import fsdpa


def main(paths):
    if not paths:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    try:
        report = fsdpa.analyze(paths)
    except fsdpa.FsdpaError as e:
        print(f"print_findings: {e}", file=sys.stderr)
        return 3
    for rank in report.ranks:
        print(f"rank {rank.rank}: {len(rank.steps)} steps, {len(rank.streams)} GPU streams, "
              f"span {rank.span_ns} ns")
    if not report.findings:
        print("no findings")
    for f in report.findings:
        step = "-" if f.step is None else f.step
        print(f"{f.severity:<8} {f.id:<26} rank {f.rank} step {step:>3}  {f.title}")
        print(f"         {f.detail}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
