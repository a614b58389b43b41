#!/usr/bin/env bash
# CI stage: valgrind (memcheck, leak check) over the core and input suites
# and the fuzz corpus replays, in a build without sanitizers and without
# mimalloc (memcheck cannot see inside mimalloc's pages), with Check's fork
# off so that leaks are attributed: the meson suite 'valgrind' that
# fuzz/meson.build registers in such a build.  About 3 minutes.
set -uo pipefail
cd "$(dirname "$0")/.."
B=${VALGRIND_BUILD:-build-valgrind}
command -v valgrind >/dev/null 2>&1 || { echo "valgrind not installed"; exit 1; }
if [ ! -f "$B/build.ninja" ]; then
  meson setup "$B" -Dmimalloc=disabled -Dbindings=false -Ddocs=disabled >/dev/null || exit 1
fi
ninja -C "$B" tests/test_core tests/test_input tests/test_hardening tools/fsdpa/fsdpa \
  $(printf 'fuzz/%s_replay ' fuzz_feed fuzz_gzip fuzz_split fuzz_events fuzz_summary) >/dev/null || { ninja -C "$B"; exit 1; }
n=$(meson test -C "$B" --no-rebuild --list --suite valgrind 2>/dev/null | grep -c valgrind)
[ "$n" -gt 0 ] || { echo "no valgrind tests registered"; exit 1; }
meson test -C "$B" --no-rebuild --print-errorlogs --suite valgrind --num-processes 2
