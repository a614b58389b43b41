#!/usr/bin/env python3
"""Runs the ABI probe against the real library and against the grown copy
(tests/abi/meson.build): both must pass their own checks and print the same
dump, i.e. a caller of an older, smaller struct gets the same answers.

  compare.py PROBE_REAL PROBE_GROWN ARGS...
"""
import difflib
import subprocess
import sys


def run(cmd):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    sys.stderr.write(p.stderr)
    return p.returncode, p.stdout


def main():
    real, grown, args = sys.argv[1], sys.argv[2], sys.argv[3:]
    rc_r, out_r = run([real] + args)
    rc_g, out_g = run([grown, "--grown"] + args)
    ok = rc_r == 0 and rc_g == 0
    if rc_r:
        print("the probe fails against the real library (exit %d)" % rc_r)
    if rc_g:
        print("the probe fails against the grown library (exit %d): see FAIL lines above" % rc_g)
    if out_r != out_g:
        ok = False
        diff = list(difflib.unified_diff(out_r.splitlines(), out_g.splitlines(), "real", "grown", lineterm="", n=2))
        print("the grown library answers differently (%d diff lines; first 60):" % len(diff))
        print("\n".join(diff[:60]))
    else:
        print("# %d dump lines identical through the real and the grown library" % len(out_r.splitlines()))
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
