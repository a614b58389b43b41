#!/usr/bin/env bash
# Writes the JSON, text and HTML reports of every corpus trace and of every
# generator scenario (plus a multi-rank straggler job) into OUTDIR, so that a
# refactor can be checked byte for byte: run it before and after, then
# `diff -r` the two directories (the `version` field differs across releases:
# compare with --ignore-version).
#   tools/dev/report_baseline.sh CLI OUTDIR [--ignore-version]
set -euo pipefail
CLI=$1; OUT=$2; IGN=${3:-}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
CORPUS=${FSDPA_TRACE_CORPUS:-$ROOT/../shared/traces}
mkdir -p "$OUT/gen"
strip() { if [ "$IGN" = --ignore-version ]; then sed -E 's/"(version|library_version)": ?"[0-9][^"]*"/"\1": "X"/g; s/fsdpa [0-9]+\.[0-9]+\.[0-9]+/fsdpa X/g'; else cat; fi; }
run() {  # name files...
  local name=$1; shift
  for f in json text html; do
    "$CLI" analyze --format $f "$@" 2>"$OUT/$name.$f.err" | strip >"$OUT/$name.$f" || echo "exit $?" >>"$OUT/$name.$f.err"
  done
}
GEN=${GEN_DIR:-$OUT/gen}
for s in $(python3 "$ROOT/tools/tracegen/tracegen.py" --help | sed -n 's/^  \([a-z0-9_]*\)  .*/\1/p'); do
  [ -f "$GEN/$s.json.gz" ] || python3 "$ROOT/tools/tracegen/tracegen.py" "$s" -o "$GEN/$s.json.gz" --steps 3 --layers 4 >/dev/null
  run "gen_$s" "$GEN/$s.json.gz"
done
[ -f "$GEN/strag.rank0.json.gz" ] || python3 "$ROOT/tools/tracegen/tracegen.py" straggler -o "$GEN/strag.json.gz" --ranks 3 --steps 3 --layers 4 >/dev/null
run gen_straggler3 "$GEN"/strag.rank*.json.gz
if [ -d "$CORPUS" ]; then
  find "$CORPUS" -name '*.json' -o -name '*.json.gz' | sort | while read -r t; do
    sz=$(stat -c %s "$t"); [ "$sz" -gt 80000000 ] && continue
    n=$(echo "${t#$CORPUS/}" | tr '/' '_')
    run "corpus_$n" "$t"
  done
  run corpus_hta_trace_filter_2ranks "$CORPUS"/hta/trace_filter/sampled_rank-{0,1}.json.gz
fi
echo "reports in $OUT"
