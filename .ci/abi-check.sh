#!/usr/bin/env bash
# ABI guard: (1) the shared library exports only fsdpa_* symbols, all in the
# version script's node; (2) the exported symbol list equals the committed
# abi/symbols.txt (additions must be committed deliberately); (3) abidiff
# against the committed abi/libfsdpa.abi finds no change other than additions.
# Regenerate both after an intended change: .ci/abi-check.sh BUILD --update
set -euo pipefail
B=${1:-build}
LIB=$(ls "$B"/libfsdpa/libfsdpa.so.*.*.* | head -1)
cd "$(dirname "$0")/.."
syms=$(nm -D --defined-only --with-symbol-versions "$LIB" | awk '{print $3}' | sort)
bad=$(echo "$syms" | grep -v -E '^fsdpa_[a-z0-9_]+@@FSDPA_1\.0$|^FSDPA_1\.0$' || true)
if [ -n "$bad" ]; then
  echo "exported symbols outside fsdpa_*@@FSDPA_1.0:"; echo "$bad"; exit 1
fi
if [ "${2:-}" = "--update" ]; then
  echo "$syms" > abi/symbols.txt
  abidw --headers-dir include/fsdpa --drop-private-types --no-corpus-path --out-file abi/libfsdpa.abi "$LIB"
  echo "updated abi/symbols.txt and abi/libfsdpa.abi"; exit 0
fi
if ! diff <(cat abi/symbols.txt) <(echo "$syms"); then
  echo "exported symbols differ from abi/symbols.txt (run .ci/abi-check.sh $B --update if intended)"; exit 1
fi
if command -v abidiff >/dev/null 2>&1; then
  abidiff --no-added-syms --headers-dir1 include/fsdpa --headers-dir2 include/fsdpa abi/libfsdpa.abi "$LIB"
fi
echo "ABI ok: $(echo "$syms" | grep -c fsdpa_) exported functions"
