#!/usr/bin/env bash
# ABI guard: (1) the shared library exports only fsdpa_* symbols, all in the
# version script's node; (2) the exported symbol list equals the committed
# abi/symbols.txt (additions must be committed deliberately); (3) abidiff
# against the committed abi/libfsdpa.abi finds no change other than additions.
# Regenerate both after an intended change: .ci/abi-check.sh BUILD --update
# --exports-only runs check (1) alone, plus: every export is declared
# FSDPA_API in include/fsdpa/fsdpa.h (the meson test 'abi_exports').
set -euo pipefail
B=${1:-build}
LIB=$(ls "$B"/libfsdpa/libfsdpa.so.*.*.* | head -1)
LIB=$(cd "$(dirname "$LIB")" && pwd)/$(basename "$LIB")  # before the cd below
cd "$(dirname "$0")/.."
syms=$(nm -D --defined-only --with-symbol-versions "$LIB" | awk '{print $3}' | sort)
NODE=$(sed -n 's/^\(FSDPA_[0-9]*\) {.*/\1/p' libfsdpa/libfsdpa.map)
bad=$(echo "$syms" | grep -v -E "^fsdpa_[a-z0-9_]+@@$NODE\$|^$NODE\$" || true)
if [ -n "$bad" ]; then
  echo "exported symbols outside fsdpa_*@@$NODE:"; echo "$bad"; exit 1
fi
# Declarations inside #ifdef FSDPA_EXPERIMENTAL may change in any release:
# abidiff is told to ignore them.
SUPPR=$(mktemp)
trap 'rm -f "$SUPPR"' EXIT
awk '/^#ifdef FSDPA_EXPERIMENTAL/{on=1} on && /^#endif/{on=0} on' include/fsdpa/fsdpa.h |
  grep -oE 'fsdpa_[a-z0-9_]+ *\(' | tr -d ' (' | sort -u |
  while read -r f; do printf '[suppress_function]\n  name = %s\n' "$f"; done >"$SUPPR"
awk '/^#ifdef FSDPA_EXPERIMENTAL/{on=1} on && /^#endif/{on=0} on' include/fsdpa/fsdpa.h |
  grep -oE '\} fsdpa_[a-z0-9_]+;' | tr -d '};' | sort -u |
  while read -r t; do printf '[suppress_type]\n  name = %s\n' "$t"; done >>"$SUPPR"
if [ "${2:-}" = "--exports-only" ]; then
  declared=$(grep -oE 'FSDPA_API[^(]*[^a-z0-9_(]fsdpa_[a-z0-9_]+ *\(' include/fsdpa/fsdpa.h |
             grep -oE 'fsdpa_[a-z0-9_]+ *\($' | tr -d ' (' | sort -u)
  undeclared=$(comm -23 <(echo "$syms" | grep '^fsdpa_' | sed 's/@@.*//') <(echo "$declared"))
  if [ -n "$undeclared" ]; then
    echo "exported but not declared FSDPA_API in include/fsdpa/fsdpa.h:"; echo "$undeclared"; exit 1
  fi
  missing=$(comm -13 <(echo "$syms" | grep '^fsdpa_' | sed 's/@@.*//') <(echo "$declared"))
  if [ -n "$missing" ]; then
    echo "declared FSDPA_API but not exported:"; echo "$missing"; exit 1
  fi
  echo "exports ok: $(echo "$declared" | wc -l) fsdpa_* functions, all in $NODE and in the header"
  exit 0
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
  abidiff --no-added-syms --suppressions "$SUPPR" --headers-dir1 include/fsdpa --headers-dir2 include/fsdpa \
    abi/libfsdpa.abi "$LIB"
else
  echo "abidiff not installed (abigail-tools): type-level ABI comparison skipped"
fi
echo "ABI ok: $(echo "$syms" | grep -c fsdpa_) exported functions"
