#!/usr/bin/env bash
# Prints a command that runs Debian bookworm's own node (18), which the
# WebAssembly module must work on: `node` where that is Debian's, else
# Debian's nodejs and libnode108 packages unpacked (apt-get download +
# dpkg -x, nothing installed) into DIR (default build-wasm-deps/node-debian),
# run with their library path.  A machine whose node comes from elsewhere
# (NodeSource) keeps it; the tests then run on both.
#   bash tools/wasm/debian-node.sh [DIR]
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
DIR=${1:-$ROOT/build-wasm-deps/node-debian}
debian_version() { apt-cache madison nodejs 2>/dev/null | awk -F'|' '$3 ~ /debian/ {gsub(/ /, "", $2); print $2; exit}'; }
if command -v node >/dev/null && [ "$(dpkg-query -W -f '${Version}' nodejs 2>/dev/null)" = "$(debian_version)" ]; then
  echo node; exit 0
fi
if [ ! -x "$DIR/usr/bin/node" ]; then
  v=$(debian_version)
  if [ -z "$v" ]; then apt-get update -qq >&2 || true; v=$(debian_version); fi
  [ -n "$v" ] || { echo "debian-node: no Debian nodejs in apt's lists (apt-get update)" >&2; exit 1; }
  rm -rf "$DIR.tmp"; mkdir -p "$DIR.tmp"
  # the newest Debian version first; an older one where a mirror lacks it
  got=
  for v in $(apt-cache madison nodejs | awk -F'|' '$3 ~ /debian/ {gsub(/ /, "", $2); print $2}'); do
    if (cd "$DIR.tmp" && apt-get download -qq "nodejs=$v" "libnode108=$v" >/dev/null 2>&1); then got=$v; break; fi
    rm -f "$DIR.tmp"/*.deb
  done
  [ -n "$got" ] || { echo "debian-node: apt-get download nodejs libnode108 failed" >&2; exit 1; }
  for d in "$DIR.tmp"/*.deb; do dpkg -x "$d" "$DIR.tmp"; done
  rm -f "$DIR.tmp"/*.deb
  rm -rf "$DIR"; mv "$DIR.tmp" "$DIR"
fi
arch=$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || gcc -print-multiarch)
echo "env LD_LIBRARY_PATH=$DIR/usr/lib/$arch $DIR/usr/bin/node"
