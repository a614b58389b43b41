#!/usr/bin/env bash
# CI fuzzing stage: build the libFuzzer targets with clang (ASan + UBSan,
# UB fatal, coverage over the whole library) and run each target for
# SECONDS (argument, else $FUZZ_SECONDS, else 60) starting from the
# committed seed corpus (fuzz/corpus/<target>) and the crash regressions
# (tests/data/regress/<target>).  Any crash, leak, sanitizer report, timeout
# or failed check of a target fails the stage; the input is left in
# $FUZZ_BUILD/artifacts/<target>/ (fix the bug, then commit the input to
# tests/data/regress/<target>/ so every build replays it).  New coverage
# goes to a scratch corpus in the build directory, never into the source
# tree.  The seed is fixed (FUZZ_SEED, default 1) so a red stage can be
# rerun here exactly; exploring with fresh seeds is the long campaigns' job.
# A failing input is also printed (gzip, base64) so it survives the CI
# machine.  See docs/fuzzing.md for long runs and AFL++.
set -uo pipefail
cd "$(dirname "$0")/.."
SECS=${1:-${FUZZ_SECONDS:-60}}
B=${FUZZ_BUILD:-build-fuzz}
SEED=${FUZZ_SEED:-1}
TARGETS=(fuzz_feed fuzz_gzip fuzz_split fuzz_events fuzz_summary)

if ! command -v clang >/dev/null 2>&1; then
  echo "fuzz: clang not found (apt-get install clang libclang-rt-14-dev)"; exit 1
fi
if [ ! -f "$B/build.ninja" ]; then
  CC=clang CXX=clang++ meson setup "$B" -Dfuzzing=true -Dtests=disabled -Dbindings=false -Ddocs=disabled \
    -Dmimalloc=disabled -Db_sanitize=address,undefined -Db_lundef=false \
    -Dc_args=-fno-sanitize-recover=all -Dcpp_args=-fno-sanitize-recover=all >/dev/null || exit 1
fi
ninja -C "$B" $(printf 'fuzz/%s ' "${TARGETS[@]}") >/dev/null || { ninja -C "$B"; exit 1; }

export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1:symbolize=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}
failed=()
total_runs=0
for t in "${TARGETS[@]}"; do
  work="$B/corpus/$t"
  art="$B/artifacts/$t"
  mkdir -p "$work" "$art"
  dirs=("$work" "fuzz/corpus/$t")
  [ -d "tests/data/regress/$t" ] && dirs+=("tests/data/regress/$t")
  log="$B/artifacts/$t.log"
  "$B/fuzz/$t" -max_total_time="$SECS" -timeout=60 -rss_limit_mb=4096 -print_final_stats=1 -seed="$SEED" \
    -dict=fuzz/json.dict -artifact_prefix="$art/" "${dirs[@]}" >"$log" 2>&1
  rc=$?
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  last=$(grep -E '^#[0-9]+[[:space:]]+(DONE|INITED|pulse|NEW|REDUCE)' "$log" | tail -1 | sed -E 's/^#[0-9]+[[:space:]]+[A-Z]+[[:space:]]+//')
  echo "$t: exit $rc, ${runs:-0} runs in ${SECS}s, ${last:-no stats}"
  total_runs=$((total_runs + ${runs:-0}))
  if [ "$rc" -ne 0 ]; then
    failed+=("$t")
    grep -E 'ERROR|SUMMARY|fuzz check failed|runtime error|Test unit written' "$log" | head -20
    for a in "$art"/*; do
      [ -f "$a" ] || continue
      enc=$(gzip -9c "$a" | base64 -w 100)
      if [ "${#enc}" -le 32768 ]; then
        echo "--- $(basename "$a") ($(stat -c %s "$a") bytes; recover: base64 -d | gunzip > input)"
        echo "$enc"
        echo "---"
      fi
    done
  fi
done
echo "fuzz: ${#TARGETS[@]} targets, $total_runs runs, ${#failed[@]} failing${failed[*]:+: ${failed[*]}}"
[ "${#failed[@]}" -eq 0 ]
