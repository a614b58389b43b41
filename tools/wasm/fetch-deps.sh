#!/usr/bin/env bash
# The WebAssembly build's C/C++ dependencies as Debian ships their sources:
# simdjson (its singleheader/simdjson.{h,cpp}) and zlib.  Debian's emscripten
# has a frozen cache (no -sUSE_ZLIB port) and no wasm builds of either
# library, so they are compiled from `apt-get source`, with Debian's patches
# applied, the same versions the native build links.
#
#   bash tools/wasm/fetch-deps.sh [DIR]     (default: build-wasm-deps)
#
# deb-src entries are derived from the machine's own apt sources (the
# deb822 *.sources files and one-line *.list files of its release, third-party
# suites left out) into a private apt state under DIR: the system's apt
# configuration and lists are not touched.  Prints DIR/simdjson and DIR/zlib
# (the directories meson's -Dwasm_simdjson= and -Dwasm_zlib= take).
# Idempotent: a DIR that already holds both is kept.  The versions are those
# of the installed libsimdjson-dev and zlib1g-dev (else apt's candidates).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
DIR=${1:-$ROOT/build-wasm-deps}
mkdir -p "$DIR"
DIR=$(cd "$DIR" && pwd)
if [ -f "$DIR/simdjson/simdjson.cpp" ] && [ -f "$DIR/zlib/inflate.c" ]; then
  echo "$DIR/simdjson"; echo "$DIR/zlib"; exit 0
fi
for t in apt-get dpkg-source; do
  command -v "$t" >/dev/null || { echo "fetch-deps: $t not found (apt-get install dpkg-dev)" >&2; exit 1; }
done
. /etc/os-release
CODENAME=${VERSION_CODENAME:?no VERSION_CODENAME in /etc/os-release}

APT=$DIR/apt
rm -rf "$APT"
mkdir -p "$APT/sources.list.d" "$APT/lists/partial" "$APT/archives/partial" "$APT/src"
# deb822 files: each stanza of this release's suites, as deb-src
for f in /etc/apt/sources.list.d/*.sources; do
  [ -f "$f" ] || continue
  python3 - "$f" "$CODENAME" >>"$APT/sources.list.d/derived.sources" <<'PY'
import sys
path, codename = sys.argv[1], sys.argv[2]
for stanza in open(path, encoding="utf-8").read().split("\n\n"):
    fields, order = {}, []
    for line in stanza.splitlines():
        if not line.strip() or line.lstrip().startswith("#") or line[0].isspace():
            continue
        k, _, v = line.partition(":")
        fields[k.strip()] = v.strip()
        order.append(k.strip())
    if "deb" not in fields.get("Types", "").split() or fields.get("Enabled", "yes") == "no":
        continue
    suites = [s for s in fields.get("Suites", "").split() if s == codename or s.startswith(codename + "-")]
    if not suites:
        continue
    fields["Types"], fields["Suites"] = "deb-src", " ".join(suites)
    print("\n".join(f"{k}: {fields[k]}" for k in order) + "\n")
PY
done
# one-line files
for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
  [ -f "$f" ] || continue
  awk -v c="$CODENAME" '$1 == "deb" {
      i = 2; if ($2 ~ /^\[/) { while ($i !~ /\]$/) i++; i++ }
      if ($(i+1) == c || index($(i+1), c "-") == 1) { sub(/^deb/, "deb-src"); print } }' "$f" \
    >>"$APT/sources.list.d/derived.list"
done
if ! grep -qs . "$APT/sources.list.d/derived.sources" "$APT/sources.list.d/derived.list"; then
  echo "fetch-deps: no apt source of $CODENAME found in /etc/apt" >&2; exit 1
fi
OPTS=(-o "Dir::Etc::SourceList=/dev/null" -o "Dir::Etc::SourceParts=$APT/sources.list.d"
      -o "Dir::State::Lists=$APT/lists" -o "Dir::Cache::Archives=$APT/archives"
      -o "Dir::Cache::pkgcache=" -o "Dir::Cache::srcpkgcache=" -o "APT::Sandbox::User=root")
apt-get "${OPTS[@]}" update -qq
cd "$APT/src"
# The source version of the -dev package the native build links (installed,
# else the one apt would install): the wasm module and the CLI then parse
# and inflate with the same code.
for dev in libsimdjson-dev zlib1g-dev; do
  want=$(dpkg-query -W -f '${source:Package}=${source:Version}' "$dev" 2>/dev/null || true)
  if [ -z "$want" ] || [ "${want#*=}" = "" ]; then
    v=$(apt-cache policy "$dev" | sed -n 's/^ *Candidate: //p')
    src=$(apt-cache show "$dev=$v" 2>/dev/null | sed -n 's/^Source: //p' | head -1)
    src=${src%% *}
    want="${src:-${dev%-dev}}=$v"
  fi
  apt-get "${OPTS[@]}" source -qq --download-only "$want"
done
for dsc in *.dsc; do dpkg-source --no-check -x "$dsc" >/dev/null; done
sj=$(ls -d simdjson-*/ | head -1); zl=$(ls -d zlib-*/ | head -1)
rm -rf "$DIR/simdjson" "$DIR/zlib"
mkdir -p "$DIR/simdjson"
cp "$sj/singleheader/simdjson.h" "$sj/singleheader/simdjson.cpp" "$DIR/simdjson/"
cp -r "$zl" "$DIR/zlib"
ls *.dsc | sed 's/\.dsc$//' >"$DIR/VERSIONS"
echo "fetch-deps: $(tr '\n' ' ' <"$DIR/VERSIONS")" >&2
echo "$DIR/simdjson"; echo "$DIR/zlib"
