#!/usr/bin/env bash
# ABI guard: (1) the shared library exports only fsdpa_* symbols, all in the
# version script's node; (2) the exported symbol list equals the committed
# abi/symbols.txt (additions must be committed deliberately); (3) abidiff
# against the committed abi/libfsdpa.abi finds no change other than additions.
# Regenerate both after an intended change: .ci/abi-check.sh BUILD --update
# (at a release; between releases --symbols records new exports alone)
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
if [ "${2:-}" = "--symbols" ]; then  # new exports only: keep the release's type baseline
  echo "$syms" > abi/symbols.txt
  echo "updated abi/symbols.txt"; exit 0
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
  rc=0
  out=$(abidiff --no-added-syms --suppressions "$SUPPR" --headers-dir1 include/fsdpa --headers-dir2 include/fsdpa \
    abi/libfsdpa.abi "$LIB") || rc=$?
  echo "$out"
  # Every public struct is size-first (the caller passes its size, the
  # library copies at the smaller one): members added past the end of the
  # released struct are additions.  abidiff calls that a change (status 4);
  # accept it when the report holds nothing else, so the release stays the
  # baseline.  (abidiff's own has_data_member_inserted_at suppression also
  # hides insertions in the middle, and crashes with a name_regexp.)
  if [ "$rc" = 4 ]; then
    echo "$out" | python3 -c '
import re, sys
old = None
for line in sys.stdin.read().splitlines():
    t = line.strip()
    m = re.match(r"type size changed from (\d+) to (\d+) \(in bits\)$", t)
    if m:
        old = int(m.group(1))
        continue
    m = re.match(r"\x27.*\x27, at offset (\d+) \(in bits\)( at .*)?$", t)
    if m and old is not None and int(m.group(1)) >= old:
        continue
    if (not t or re.match(r"(Functions|Variables) changes summary: 0 Removed, \d+ Changed.*, 0 Added", t)
            or re.match(r"\d+ functions? with some indirect sub-type changes?:$", t)
            or re.match(r"\[C\] .function .* has some indirect sub-type changes:$", t)
            or re.match(r"(parameter \d+ of type|in pointed to type|in unqualified underlying type|underlying type) .*:$", t)
            or re.match(r"\d+ data member insertions?:$", t)):
        continue
    sys.exit("not an addition at the end of a size-first struct: " + t)
' || exit 1
  elif [ "$rc" != 0 ]; then
    exit "$rc"
  fi
else
  echo "abidiff not installed (abigail-tools): type-level ABI comparison skipped"
fi
echo "ABI ok: $(echo "$syms" | grep -c fsdpa_) exported functions"
