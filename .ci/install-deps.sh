#!/usr/bin/env bash
# Installs everything libfsdpa needs to build and test, from Debian packages
# only.  Used by README.md and by .ci/run.  Idempotent; needs root (or sudo).
set -euo pipefail
SUDO=""
if [ "$(id -u)" != 0 ]; then SUDO=sudo; fi
PKGS=(
  meson ninja-build pkg-config gcc g++          # build
  libsimdjson-dev libmimalloc-dev zlib1g-dev    # library dependencies
  check                                         # unit tests
  doxygen                                       # API docs (warnings are errors)
  python3                                       # generator, independent counts
  clang libclang-rt-14-dev                      # fuzzing (libFuzzer) and sanitizers
  abigail-tools                                 # ABI guard (abidw/abidiff)
  valgrind                                      # leak checks
  golang-go                                     # Go binding tests
  python3-pytest                                # Python binding tests (also run with unittest)
  python3-distributed                           # fsdpa.dask scale-out test (local cluster)
  chromium                                      # HTML report browser test
  python3-jsonschema                            # JSON report schema test (docs/report.schema.json)
  cargo rustc                                   # Rust binding tests (skipped if absent)
)
missing=()
for p in "${PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
# rustup-provided cargo counts as present
if command -v cargo >/dev/null 2>&1; then
  missing=("${missing[@]/cargo}"); missing=("${missing[@]/rustc}")
fi
missing=(${missing[@]+"${missing[@]}"})
if [ "${#missing[@]}" -gt 0 ]; then
  echo "installing: ${missing[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
