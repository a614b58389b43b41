#!/usr/bin/env bash
# CI stage: ThreadSanitizer.  A -Db_sanitize=thread build (gcc, no mimalloc,
# whose allocator TSan cannot see through) of the library and
# tests/test_threads.c: 8 threads, one context each, over generated and
# real traces, results compared with a single-threaded run.  Any data race
# report fails the stage.
set -uo pipefail
cd "$(dirname "$0")/.."
B=${TSAN_BUILD:-build-tsan}
if [ ! -f "$B/build.ninja" ]; then
  meson setup "$B" -Db_sanitize=thread -Db_lundef=false -Dmimalloc=disabled -Dbindings=false \
    -Ddocs=disabled >/dev/null || exit 1
fi
ninja -C "$B" tests/test_threads tools/fsdpa/fsdpa >/dev/null || { ninja -C "$B"; exit 1; }
export TSAN_OPTIONS=${TSAN_OPTIONS:-halt_on_error=1:second_deadlock_stack=1:exitcode=66}
meson test -C "$B" --no-rebuild --print-errorlogs test_threads
