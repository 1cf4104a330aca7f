#!/usr/bin/env bash
# Makes sure Debian's `chromium` package is installed: the /docs test drives it headless through
# playwright-core (test/docs). Installs it with apt-get only when /usr/bin/chromium is missing, as
# root or through sudo; otherwise says what to run.
set -euo pipefail

CHROMIUM=/usr/bin/chromium
if [ -x "$CHROMIUM" ]; then
  exit 0
fi

if ! command -v apt-get >/dev/null 2>&1; then
  echo "ensure-chromium: $CHROMIUM is missing and apt-get is not available; install Chromium so that $CHROMIUM exists." >&2
  exit 1
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1; then
    SUDO="sudo"
  else
    echo "ensure-chromium: $CHROMIUM is missing; run as root: apt-get update && apt-get install -y chromium" >&2
    exit 1
  fi
fi

echo "ensure-chromium: installing Debian's chromium package (needed by the /docs test)..." >&2
$SUDO env DEBIAN_FRONTEND=noninteractive apt-get update
$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y chromium
"$CHROMIUM" --version >&2
