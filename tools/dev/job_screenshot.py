#!/usr/bin/env python3
"""The screenshot of docs/job-view.png: the first screen of the HTML report
of an 8-rank job, made from nothing but this tree.

    python3 tools/dev/job_screenshot.py [--cli build/tools/fsdpa/fsdpa] [-o docs/job-view.png]

tools/tracegen writes the job (scenario `straggler`, 8 ranks: rank 2 starts
every step late, and its DataLoader starves its GPU), `fsdpa analyze -f html`
makes the page, headless Chromium takes the first 1400x1000 pixels of it:
the job table (a row per rank), then the findings grouped across ranks."""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cli", default=os.path.join(ROOT, "build", "tools", "fsdpa", "fsdpa"))
    ap.add_argument("--chromium", default=shutil.which("chromium") or "/usr/bin/chromium")
    ap.add_argument("-o", "--output", default=os.path.join(ROOT, "docs", "job-view.png"))
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as d:
        job = os.path.join(d, "job")
        os.mkdir(job)
        subprocess.run([sys.executable, os.path.join(ROOT, "tools", "tracegen", "tracegen.py"), "straggler",
                        "-o", os.path.join(job, "trace.json.gz"), "--ranks", "8", "--steps", "4", "--layers", "4"],
                       check=True, capture_output=True)
        for n in os.listdir(job):
            if n.endswith(".truth.json"):
                os.remove(os.path.join(job, n))
        page = os.path.join(d, "job.html")
        subprocess.run([args.cli, "analyze", "-f", "html", "-o", page, "job"], cwd=d, check=True)
        subprocess.run([args.chromium, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                        "--window-size=1400,1000", "--screenshot=" + os.path.abspath(args.output),
                        "file://" + page], check=True, capture_output=True, timeout=300)
    print(args.output)
    return 0


if __name__ == "__main__":
    sys.exit(main())
