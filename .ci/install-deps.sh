#!/usr/bin/env bash
# Installs what libfsdpa needs, from Debian packages only.  Idempotent; needs
# root (or sudo).
#
#   bash .ci/install-deps.sh         build: the library, the CLI, the docs' inputs
#   bash .ci/install-deps.sh wasm    the WebAssembly build, node and Chromium tests
#   bash .ci/install-deps.sh test    build + everything .ci/run uses (tests,
#                                    sanitizers, fuzzing, ABI guard, bindings,
#                                    the WebAssembly build and its tests)
set -euo pipefail
SUDO=""
if [ "$(id -u)" != 0 ]; then SUDO=sudo; fi
BUILD=(
  meson ninja-build pkg-config gcc g++          # build (meson brings python3)
  libsimdjson-dev libmimalloc-dev zlib1g-dev    # library dependencies
)
TEST=(
  check                                         # unit tests
  doxygen                                       # API docs (warnings are errors)
  clang libclang-rt-14-dev                      # clang build, fuzzing (libFuzzer), sanitizers
  abigail-tools                                 # ABI guard (abidw/abidiff)
  valgrind                                      # leak checks
  golang-go                                     # Go binding tests
  python3-pytest                                # Python binding tests (also run with unittest)
  python3-venv python3-mesonpy python3-pip      # pip install . check (offline, Debian's meson-python)
  python3-pandas python3-mypy                   # the binding's to_pandas() and type-hint tests
  python3-distributed                           # fsdpa.dask scale-out test (local cluster)
  chromium                                      # HTML report browser test
  python3-jsonschema                            # JSON report schema test (docs/report.schema.json)
  cargo rustc                                   # Rust binding tests (skipped if absent)
)
WASM=(
  emscripten                                    # the WebAssembly build (tools/wasm/)
  dpkg-dev                                      # dpkg-source: simdjson and zlib from `apt-get source`
  node-acorn node-cjs-module-lexer node-undici  # what Debian's node 18 loads from /usr/share/nodejs
  node-typescript                               # tsc: the module's TypeScript declarations compile
)
case "${1:-build}" in
  build) PKGS=("${BUILD[@]}") ;;
  test) PKGS=("${BUILD[@]}" "${TEST[@]}" "${WASM[@]}") ;;
  wasm) PKGS=("${WASM[@]}" chromium) ;;
  *) echo "usage: $0 [build|test|wasm]" >&2; exit 2 ;;
esac
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
