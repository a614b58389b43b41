#!/usr/bin/env bash
# CI stage: the WebAssembly module and the viewer page.
#   bash .ci/wasm.sh [NATIVE_BUILD [BENCH_BUILD]]
#   (default build: its CLI is the reference; the bench row's native CLI is
#   BENCH_BUILD's, default NATIVE_BUILD, e.g. a release build)
# 1. tools/wasm/build.sh: simdjson and zlib from Debian's source packages,
#    Debian's emscripten, build-wasm/ (fsdpa.mjs + .wasm, fsdpa.d.ts,
#    package.json, fsdpa-worker.js, tools/viewer/fsdpa-viewer.html);
# 2. meson test -C build-wasm: the fuzz corpus and crash-regression replays
#    compiled for wasm32, under node (fuzz_split: the simd128 splitter
#    against the scalar one);
# 3. tests/wasm/node_test.mjs under node, and under Debian bookworm's node 18
#    when the machine's node is another (tools/wasm/debian-node.sh): the
#    module's reports against the native CLI's, byte for byte, on the sample
#    and the corpus;
# 4. tests/wasm/page_test.py: the page in headless Chromium (drag and drop,
#    findings, the CLI's HTML report, no console error);
# 5. the TypeScript declarations compile (tsc --strict) with a use of the API;
# 6. bench/wasm_bench.py: MB/s of node and Chromium against the native CLI
#    on the corpus' largest trace (printed; the targets are judged in
#    bench/README.md, not here).
# Exits non-zero when a build or a test fails.
set -uo pipefail
cd "$(dirname "$0")/.."
NATIVE=${1:-build}
BENCH=${2:-$NATIVE}
[ -x "$BENCH/tools/fsdpa/fsdpa" ] || BENCH=$NATIVE
B=${WASM_BUILD:-build-wasm}
CLI=$NATIVE/tools/fsdpa/fsdpa
fail=()
t0=$(date +%s)
lap() { echo "--- wasm: $1 ($(( $(date +%s) - t0 )) s so far)"; }

[ -x "$CLI" ] || { echo "wasm: no native CLI at $CLI (build $NATIVE first)"; exit 1; }
mkdir -p "$B"
bash tools/wasm/build.sh "$B" >"$B/wasm-build.log" 2>&1 || { tail -40 "$B/wasm-build.log"; echo "wasm: build failed"; exit 1; }
lap "built ($(stat -c %s "$B/bindings/wasm/fsdpa.wasm") bytes of wasm, page $(stat -c %s "$B/tools/viewer/fsdpa-viewer.html") bytes)"

meson test -C "$B" --print-errorlogs --num-processes 2 >"$B/meson-test.log" 2>&1 || {
  grep -E 'FAIL|check failed' "$B/meson-test.log" | head -20; fail+=("meson test (wasm32 fuzz replays)"); }
grep -E '^(Ok|Fail):' "$B/meson-test.log"
lap "fuzz replays under node"

nodes=(node)
n18=$(bash tools/wasm/debian-node.sh) || { echo "wasm: cannot get Debian's node"; fail+=(debian-node); n18=node; }
[ "$n18" != node ] && nodes+=("$n18")
for n in "${nodes[@]}"; do
  v=$($n --version)
  $n tests/wasm/node_test.mjs --module "$B/bindings/wasm/fsdpa.mjs" --cli "$CLI" --source . >"$B/node-test-$v.log" 2>&1
  rc=$?
  grep -E '^(not ok|# )' "$B/node-test-$v.log" | head -40
  tail -1 "$B/node-test-$v.log"
  [ $rc -eq 0 ] || fail+=("node test ($v)")
  lap "node test on $v"
done

python3 tests/wasm/page_test.py --page "$B/tools/viewer/fsdpa-viewer.html" --cli "$CLI" >"$B/page-test.log" 2>&1
rc=$?
grep -E '^(not ok|# )' "$B/page-test.log" | head -40
tail -1 "$B/page-test.log"
[ $rc -eq 0 ] || fail+=("page test (exit $rc)")   # 77 (no Chromium) fails here: CI installs it
lap "page test"

if command -v tsc >/dev/null; then
  rm -rf "$B/tscheck" && mkdir -p "$B/tscheck"
  cp tests/wasm/types_check.ts "$B/bindings/wasm/fsdpa.d.ts" "$B/tscheck/"
  (cd "$B/tscheck" && tsc --strict --noEmit --target es2020 --module es2022 --moduleResolution node \
      types_check.ts fsdpa.d.ts) || fail+=("tsc")
  lap "TypeScript declarations"
else
  echo "wasm: tsc not found (apt-get install node-typescript)"; fail+=("tsc missing")
fi

big=$(python3 - "${FSDPA_TRACE_CORPUS:-../shared/traces}" <<'PY'
import os, struct, sys
best = None
for d, _s, fs in os.walk(sys.argv[1]):
    for f in fs:
        if f.endswith((".json", ".json.gz")):
            p = os.path.join(d, f)
            n = os.path.getsize(p)
            if p.endswith(".gz"):
                with open(p, "rb") as fh:
                    fh.seek(-4, 2)
                    n = struct.unpack("<I", fh.read(4))[0]
            if not best or n > best[0]:
                best = (n, p)
print(best[1] if best else "")
PY
)
if [ -n "$big" ]; then
  nargs=(--node node); [ "$n18" != node ] && nargs+=(--node "$n18")
  python3 bench/wasm_bench.py --native "$BENCH" --wasm "$B" --repeat 3 "${nargs[@]}" "$big" || fail+=("bench")
  lap "bench row"
else
  echo "wasm: no corpus trace for the bench row (FSDPA_TRACE_CORPUS)"
fi

if [ "${#fail[@]}" -gt 0 ]; then echo "wasm: FAILED: ${fail[*]}"; exit 1; fi
echo "wasm: ok"
