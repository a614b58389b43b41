#!/usr/bin/env python3
"""A/B timing of whole commands, interleaved so that load changes hit every
variant alike.  For comparing two builds on a busy machine:

    python3 bench/ab.py 5 'old/tools/fsdpa/fsdpa analyze -o /dev/null T.json' \\
                          'new/tools/fsdpa/fsdpa analyze -o /dev/null T.json'

Prints, per command, min and median CPU (user+sys) and wall seconds and the
peak RSS (through /usr/bin/time, see run.py for why)."""
import os
import shlex
import statistics
import subprocess
import sys
import tempfile


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    n, cmds = int(sys.argv[1]), sys.argv[2:]
    res = {c: [] for c in cmds}
    with tempfile.NamedTemporaryFile("r") as tf:
        for _ in range(n):
            for c in cmds:
                t0 = os.times().elapsed
                p = subprocess.Popen(["/usr/bin/time", "-f", "%M", "-o", tf.name] + shlex.split(c),
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                _, _, ru = os.wait4(p.pid, 0)
                wall = os.times().elapsed - t0
                tf.seek(0)
                rss = int(tf.read().split()[-1]) * 1024
                res[c].append((ru.ru_utime + ru.ru_stime, wall, rss))
    for c in cmds:
        cpu = [x[0] for x in res[c]]
        wall = [x[1] for x in res[c]]
        print("cpu min %.3f med %.3f | wall min %.3f med %.3f | peak RSS %.1f MB | %s" % (
            min(cpu), statistics.median(cpu), min(wall), statistics.median(wall),
            max(x[2] for x in res[c]) / 1e6, c))


if __name__ == "__main__":
    main()
