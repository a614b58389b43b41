#!/usr/bin/env python3
"""The README's examples run as written: the Python example of "Using it
from Python" from the repository root with the built library, and the C
program of "Using the library" compiled with the command the README gives
(pkg-config over the build tree's fsdpa-uninstalled.pc) and run on the
sample trace.

    FSDPA_SOURCE_ROOT=. FSDPA_BUILD_ROOT=build python3 tests/readme_examples.py

Exit 0 pass, 1 fail, 77 skip (no C compiler or pkg-config: said why)."""
import os
import re
import shutil
import subprocess
import sys
import tempfile

SRC = os.environ.get("FSDPA_SOURCE_ROOT") or os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BUILD = os.environ.get("FSDPA_BUILD_ROOT") or os.path.join(SRC, "build")
SAMPLE = os.path.join(SRC, "tests", "data", "sample", "fsdp2_sample.json.gz")


def block(text, heading, lang):
    """The first ```lang block after `## heading`."""
    i = text.index("## " + heading)
    m = re.compile(r"```%s\n(.*?)```" % lang, re.S).search(text, i)
    if not m:
        raise AssertionError("README: no %s block under %r" % (lang, heading))
    return m.group(1)


def fail(msg):
    print("# FAIL " + msg)
    sys.exit(1)


def check_python(readme):
    code = block(readme, "Using it from Python", "python")
    lines = [ln for ln in code.splitlines() if ln.strip()]
    if len(lines) != 5:
        fail("the Python example has %d lines, the README says five" % len(lines))
    san = os.environ.get("FSDPA_SANITIZE", "none")
    if san not in ("", "none"):
        # Python is not built with the sanitizer's runtime, which must be
        # loaded first: the example runs in the builds without one
        print("# SKIP the Python example: the library is built with -fsanitize=%s, which an "
              "uninstrumented python3 cannot load (it runs in every build without a sanitizer; "
              "the C example is built with the same -fsanitize here)" % san)
        return
    env = dict(os.environ)
    env["FSDPA_LIBRARY"] = os.path.join(BUILD, "libfsdpa", "libfsdpa.so.2")
    env["PYTHONPATH"] = os.path.join(SRC, "bindings", "python")
    r = subprocess.run([sys.executable, "-c", code], cwd=SRC, env=env, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, timeout=300)
    out = r.stdout.decode("utf-8", "replace")
    if r.returncode != 0:
        fail("the Python example exited %d: %s" % (r.returncode, r.stderr.decode("utf-8", "replace")[-2000:]))
    cli = subprocess.run([os.path.join(BUILD, "tools", "fsdpa", "fsdpa"), "analyze", "-f", "text", SAMPLE],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=300)
    # the directory's report names its file by the directory's path
    text = cli.stdout.decode().replace(SAMPLE, "tests/data/sample/fsdp2_sample.json.gz")
    if not out.startswith(text):
        fail("the Python example's text report is not the CLI's")
    if not re.search(r"^(critical|warning|info) [a-z-]+ \d+ ", out[len(text):], re.M):
        fail("the Python example printed no finding lines: " + out[len(text):][:300])
    print("# ok: the Python example runs as written (%d lines of output)" % out.count("\n"))


def check_c(readme):
    code = block(readme, "Using the library", "c")
    cc = shutil.which("cc") or shutil.which("gcc")
    pkg = shutil.which("pkg-config")
    if not cc or not pkg:
        print("# SKIP the C example: no %s" % ("C compiler" if not cc else "pkg-config"))
        sys.exit(77)
    cmds = re.search(r"\n    (cc -o example example\.c .*)\n    (LD_LIBRARY_PATH=.*)\n", readme)
    if not cmds:
        fail("README: no build command for the C example")
    with tempfile.TemporaryDirectory() as d:
        with open(os.path.join(d, "example.c"), "w") as f:
            f.write(code)
        build_cmd = cmds.group(1).replace("build/libfsdpa", os.path.join(BUILD, "libfsdpa"))
        san = os.environ.get("FSDPA_SANITIZE", "none")
        if san not in ("", "none"):
            # a program linking a sanitized library carries its runtime first
            build_cmd += " -fsanitize=" + san
        r = subprocess.run(build_cmd + " -Wall -Werror", shell=True, cwd=d, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, timeout=300)
        if r.returncode:
            fail("the C example does not compile as written (%s): %s" % (build_cmd, r.stderr.decode()[-3000:]))
        run_cmd = cmds.group(2).replace("build/libfsdpa", os.path.join(BUILD, "libfsdpa")) \
            .replace("tests/data/sample/fsdp2_sample.json.gz", SAMPLE)
        r = subprocess.run(run_cmd, shell=True, cwd=d, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=300)
        out = r.stdout.decode()
        if r.returncode or not out.startswith("GPU busy ") or "backward-prefetch-missing" not in out:
            fail("the C example's run: exit %d, %r %r" % (r.returncode, out[:400], r.stderr.decode()[:400]))
        r = subprocess.run(run_cmd.replace(SAMPLE, os.path.join(d, "missing.json")), shell=True, cwd=d,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=300)
        if r.returncode != 3:
            fail("the C example on a missing file exits %d, not 3" % r.returncode)
    print("# ok: the C example compiles with the README's command and runs")


def main():
    with open(os.path.join(SRC, "README.md"), encoding="utf-8") as f:
        readme = f.read()
    check_python(readme)
    check_c(readme)
    return 0


if __name__ == "__main__":
    sys.exit(main())
