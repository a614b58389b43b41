#!/usr/bin/env bash
# Leak check of the C side through the Python binding: the Python tests
# (tiny trace, queries, lists, typed findings, report identity, the multi-MB
# trace in 4 KiB chunks)
# run under valgrind against a libfsdpa built without mimalloc (memcheck does
# not see mimalloc's own mmap arenas), then the loss records whose stack
# passes through libfsdpa are counted.
#
#   bindings/leakcheck.sh [BUILD_DIR]     (default /tmp/build-fsdpa-leakcheck)
#
# Exit status 0 if no definitely/indirectly lost block comes from libfsdpa.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
B=${1:-/tmp/build-fsdpa-leakcheck}
PY=${PYTHON:-/usr/bin/python3}
if [ ! -f "$B/build.ninja" ]; then
  meson setup "$B" "$ROOT" -Dmimalloc=disabled -Dtests=disabled -Dbindings=true >/dev/null
else
  meson configure "$B" -Dmimalloc=disabled -Dbindings=true >/dev/null
fi
ninja -C "$B" >/dev/null
export FSDPA_LIBRARY=$B/libfsdpa/libfsdpa.so.2 FSDPA_BUILD_ROOT=$B
export FSDPA_ABI_JSON=$B/bindings/abi.json FSDPA_CLI=$B/tools/fsdpa/fsdpa
export FSDPA_SAMPLE_TRACE=${FSDPA_SAMPLE_TRACE:-$ROOT/tests/data/sample/fsdp2_sample.json.gz}
[ -f "$FSDPA_SAMPLE_TRACE" ] || FSDPA_SAMPLE_TRACE=$ROOT/bindings/testdata/tiny_trace.json
export FSDPA_BIG_TRACE=${FSDPA_BIG_TRACE:-$ROOT/../shared/traces/hta/trace_diff/control/control.json.gz}
export PYTHONMALLOC=malloc PYTHONPATH=$ROOT/bindings/python PYTHONDONTWRITEBYTECODE=1
LOG=$B/leakcheck.valgrind.log
cd "$ROOT/bindings/python"
set +e
valgrind --leak-check=full --show-leak-kinds=all --num-callers=40 --log-file="$LOG" \
  "$PY" -m unittest tests.test_analyzer tests.test_queries tests.test_lists tests.test_findings \
  tests.test_report_identity tests.test_big_trace tests.test_abi
rc=$?
set -e
echo "valgrind log: $LOG"
grep -A6 "LEAK SUMMARY" "$LOG" | sed 's/^==[0-9]*== //'
echo "memcheck errors (invalid access, uninitialised): $(grep -c 'Invalid \(read\|write\)\|uninitialised' "$LOG" || true)"
"$PY" - "$LOG" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
recs = re.split(r"\n==\d+== \n", text)
out = {}
for r in recs:
    m = re.search(r"([\d,]+) (?:\(([\d,]+) direct, ([\d,]+) indirect\) )?bytes in ([\d,]+) blocks are (definitely|indirectly|possibly) lost", r)
    if not m:
        continue
    kind = m.group(5)
    mine = "libfsdpa.so" in r
    n = int(m.group(1).replace(",", ""))
    k = (kind, "libfsdpa" if mine else "elsewhere (python)")
    out[k] = (out.get(k, (0, 0))[0] + n, out.get(k, (0, 0))[1] + 1)
for (kind, where), (n, recs_) in sorted(out.items()):
    print(f"{kind:>10} lost, {where}: {n} bytes in {recs_} loss records")
bad = sum(n for (kind, where), (n, _) in out.items() if where == "libfsdpa" and kind != "possibly")
sys.exit(1 if bad else 0)
PY
leak_rc=$?
echo "unittest exit status under valgrind: $rc"
exit $(( rc || leak_rc ))
