#!/usr/bin/env bash
# `pip install .` as a user does it on a fresh Debian machine, offline, and
# the installed package used with no environment variable:
#   1. copy the tree (the files git tracks or would track: no build dirs)
#   2. python3 -m venv --system-site-packages V   (Debian's python3-mesonpy)
#   3. V/bin/pip install --no-build-isolation --no-index .
#   4. in V, from a directory outside the tree, with FSDPA_LIBRARY,
#      PYTHONPATH, LD_LIBRARY_PATH and FSDPA_CLI unset: import fsdpa and print
#      __version__ (= meson's project version = the wheel's version), check
#      what pip installed (the package, its libfsdpa.so.2 and CLI, py.typed;
#      no headers, pkg-config file, man page or test program), analyze
#      bindings/testdata/tiny_trace.json and print its findings, run
#      `python -m fsdpa --format json` on it (the same bytes as the binding's
#      report and the installed `fsdpa analyze`).
# Exits non-zero on any failure; the last line says which step failed, or ok.
#
#   bash .ci/pip-check.sh
# PIP_CHECK_PYTHON (default /usr/bin/python3), PIP_CHECK_JOBS (compile jobs,
# default 2), PIP_CHECK_KEEP=1 keeps the temporary directory.
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
PY=${PIP_CHECK_PYTHON:-/usr/bin/python3}
JOBS=${PIP_CHECK_JOBS:-2}
WORK=$(mktemp -d "${TMPDIR:-/tmp}/fsdpa-pip-check.XXXXXX") || { echo "pip-check: FAILED: mktemp"; exit 1; }
SRC=$WORK/src
VENV=$WORK/venv
TINY=$SRC/bindings/testdata/tiny_trace.json

cleanup() {
  if [ -n "${PIP_CHECK_KEEP:-}" ]; then echo "# kept $WORK"; else rm -rf "$WORK"; fi
}
trap cleanup EXIT
fail() { echo "pip-check: FAILED: $*"; exit 1; }
step() { echo "=== pip-check: $*"; }

# The installed package must work without the variables a build tree uses;
# pip reads no configuration of this machine (a fresh machine has none).
unset FSDPA_LIBRARY PYTHONPATH LD_LIBRARY_PATH FSDPA_CLI PYTHONHOME
export PIP_CONFIG_FILE=/dev/null PIP_DISABLE_PIP_VERSION_CHECK=1 PYTHONDONTWRITEBYTECODE=1

step "prerequisites"
[ -x "$PY" ] || fail "$PY not found (apt-get install python3)"
"$PY" -c 'import venv, ensurepip' 2>/dev/null || fail "venv/ensurepip missing for $PY (apt-get install python3-venv)"
MESONPY=$("$PY" -c 'import mesonpy; print(getattr(mesonpy, "__version__", "?"))' 2>/dev/null) \
  || fail "meson-python missing for $PY (apt-get install python3-mesonpy)"
command -v meson >/dev/null || fail "meson not found (apt-get install meson)"
command -v ninja >/dev/null || fail "ninja not found (apt-get install ninja-build)"
echo "python $("$PY" -c 'import platform; print(platform.python_version())'), meson-python $MESONPY, meson $(meson --version)"

step "copy the tree to $SRC"
mkdir -p "$SRC" || fail "mkdir $SRC"
if git -C "$ROOT" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  # tracked files and new ones git would track (what the next commit can
  # hold), not what .gitignore leaves out (build dirs)
  (cd "$ROOT" && git ls-files -z --cached --others --exclude-standard \
     | while IFS= read -r -d '' f; do [ -e "$f" ] || [ -L "$f" ] && printf '%s\0' "$f"; done \
     | tar --null --no-recursion -T - -cf -) | tar -C "$SRC" -xf - || fail "copying the tree"
else
  (cd "$ROOT" && tar --exclude='./build*' --exclude=./.git -cf - .) | tar -C "$SRC" -xf - \
    || fail "copying the tree"
fi
[ -f "$SRC/pyproject.toml" ] || fail "no pyproject.toml in the copy"

step "python3 -m venv --system-site-packages"
"$PY" -m venv --system-site-packages "$VENV" || fail "creating the virtualenv"
VPY=$VENV/bin/python

step "pip install --no-build-isolation --no-index ."
(cd "$SRC" && "$VPY" -m pip install --no-build-isolation --no-index --no-cache-dir \
   --config-settings=compile-args=-j"$JOBS" .) || fail "pip install"

# From here on, outside the tree: nothing but the installed package is
# importable as fsdpa.
cd "$WORK" || fail "cd $WORK"

step "import fsdpa; print(fsdpa.__version__)"
VERSION=$("$VPY" -c 'import fsdpa; print(fsdpa.__version__)') || fail "import fsdpa"
echo "$VERSION"
MESON_VERSION=$("$PY" - "$SRC/meson.build" <<'PY'
import re, sys
print(re.search(r"project\([^)]*?\bversion:\s*'([^']+)'", open(sys.argv[1]).read(), re.S).group(1))
PY
) || fail "reading meson.build's version"
[ "$VERSION" = "$MESON_VERSION" ] || fail "fsdpa.__version__ $VERSION is not meson's project version $MESON_VERSION"

step "what pip installed"
"$VPY" - "$VENV" "$MESON_VERSION" <<'PY' || fail "the installed files"
import importlib.metadata as md, os, sys
import fsdpa, fsdpa._lib
venv, version = sys.argv[1], sys.argv[2]
dist = md.distribution("fsdpa")
assert dist.version == version, f"distribution version {dist.version} != {version}"
files = sorted(str(f) for f in dist.files)
for f in files:
    print("  " + f)
pkg = os.path.realpath(os.path.dirname(fsdpa.__file__))
assert pkg.startswith(os.path.realpath(venv) + os.sep), f"fsdpa imported from {pkg}, not the venv"
for want in ("fsdpa/__init__.py", "fsdpa/py.typed", "fsdpa/libfsdpa.so.2", "fsdpa/fsdpa"):
    assert want in files, f"{want} not installed"
bad = [f for f in files if f.endswith((".h", ".pc", ".1", ".a")) or "/include/" in f
       or "pkgconfig" in f or "man1" in f or "completion" in f or "site-functions" in f
       or "/tests/" in f or f.startswith("tests/") or ".mesonpy.libs" in f]
assert not bad, f"installed what the package must not carry: {bad}"
lib = os.path.realpath(fsdpa._lib.LOADED)
assert lib == os.path.join(pkg, "libfsdpa.so.2"), f"loaded {lib}, not the package's library"
print(f"fsdpa {fsdpa.__version__} from {pkg}, library {lib}")
PY

step "analyze bindings/testdata/tiny_trace.json"
"$VPY" - "$TINY" <<'PY' || fail "analyzing the tiny trace"
import sys
import fsdpa
report = fsdpa.analyze(sys.argv[1])
for f in report.findings:
    print(f"{f.severity:<8} {f.id:<24} rank {f.rank} step {f.step}  {f.title}")
assert report.findings, "the tiny trace has findings"
assert report.html and report._repr_html_(), "no HTML report"
with fsdpa.Analyzer("tiny") as a:
    a.feed_file(sys.argv[1])
    assert [s.number for s in a.steps()] == [5, 6], a.steps()
PY

step "python -m fsdpa --format json bindings/testdata/tiny_trace.json"
"$VPY" -m fsdpa --format json "$TINY" > "$WORK/m.json"; rc=$?
[ "$rc" -eq 0 ] || fail "python -m fsdpa exited $rc"
head -c 300 "$WORK/m.json"; echo
"$VENV/bin/fsdpa" analyze --format json "$TINY" > "$WORK/cli.json" || fail "the installed fsdpa analyze"
cmp "$WORK/m.json" "$WORK/cli.json" || fail "python -m fsdpa and fsdpa analyze differ"
"$VPY" - "$TINY" "$WORK/m.json" <<'PY' || fail "python -m fsdpa's report"
import json, sys
import fsdpa
text = open(sys.argv[2], encoding="utf-8").read()
assert json.loads(text)["schema"] == "fsdpa.report/1"
assert text == fsdpa.analyze(sys.argv[1], html=False).json, "not the binding's report"
PY
"$VPY" -m fsdpa --no-such-option "$TINY" >/dev/null 2>&1; rc=$?
[ "$rc" -eq 2 ] || fail "python -m fsdpa with a bad option exited $rc, not 2 (bad usage)"

echo "pip-check: ok: fsdpa $VERSION built by meson-python $MESONPY and installed offline into a fresh virtualenv; import, findings, python -m fsdpa"
