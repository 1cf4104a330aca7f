#!/usr/bin/env bash
# Makes sure a tool from a Debian package is installed, for the checks that need one
# (scripts/ensure-chromium.sh, scripts/ensure-promtool.sh). Usage:
#   ensure-debian-package.sh <command or absolute path> <package> <what needs it> [apt-get install flags]
# Does nothing when the command exists; otherwise installs the package with apt-get as root or
# through sudo, or says what to run and exits 1. A package's
# own service is never started (policy-rc.d exit 101 for the install; an existing policy-rc.d, as
# Debian's container images have, is left as it is).
set -euo pipefail

TOOL=$1 PACKAGE=$2 WHY=$3 FLAGS=${4:-}
NAME="ensure-$(basename "$TOOL")"
if command -v "$TOOL" >/dev/null 2>&1; then
  exit 0
fi

if ! command -v apt-get >/dev/null 2>&1; then
  echo "$NAME: $TOOL is missing and apt-get is not available; install Debian's $PACKAGE package or its equivalent." >&2
  exit 1
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1; then
    SUDO="sudo"
  else
    echo "$NAME: $TOOL is missing; run as root: apt-get update && apt-get install -y $FLAGS $PACKAGE" >&2
    exit 1
  fi
fi

echo "$NAME: installing Debian's $PACKAGE package ($WHY)..." >&2
$SUDO env DEBIAN_FRONTEND=noninteractive apt-get update
if [ ! -e /usr/sbin/policy-rc.d ]; then
  $SUDO sh -c 'printf "#!/bin/sh\nexit 101\n" > /usr/sbin/policy-rc.d && chmod +x /usr/sbin/policy-rc.d'
  trap '$SUDO rm -f /usr/sbin/policy-rc.d' EXIT
fi
$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y $FLAGS "$PACKAGE"
"$TOOL" --version >&2
