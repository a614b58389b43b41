#!/usr/bin/env bash
# Build the WebAssembly module and the viewer page:
#   bash tools/wasm/build.sh [BUILDDIR]        (default build-wasm)
# Fetches simdjson and zlib from Debian's source packages once
# (tools/wasm/fetch-deps.sh), configures BUILDDIR with Debian's emscripten
# (tools/wasm/emscripten.ini, release) and builds: BUILDDIR/bindings/wasm/
# holds the npm-style package (fsdpa.mjs, fsdpa.wasm, fsdpa.d.ts,
# package.json, fsdpa-worker.js), BUILDDIR/tools/viewer/fsdpa-viewer.html
# the page.
set -euo pipefail
cd "$(dirname "$0")/../.."
B=${1:-build-wasm}
command -v emcc >/dev/null || { echo "wasm build: emcc not found (apt-get install emscripten)" >&2; exit 1; }
mapfile -t deps < <(bash tools/wasm/fetch-deps.sh "${WASM_DEPS:-build-wasm-deps}")
if [ ! -f "$B/build.ninja" ]; then
  meson setup "$B" --cross-file tools/wasm/emscripten.ini --buildtype=release -Dwerror=true \
    -Dwasm_simdjson="${deps[0]}" -Dwasm_zlib="${deps[1]}"
fi
ninja -C "$B"
