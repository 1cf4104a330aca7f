#!/usr/bin/env bash
# Makes sure `promtool` is installed: the alert rules under deploy/observability are checked and
# unit-tested with it (scripts/check-alerts.sh). Installs Debian's `prometheus` package (which ships
# promtool) with apt-get only when promtool is missing, as root or through sudo; otherwise says what
# to run. The package's own service is never started here (no init system in CI or containers).
set -euo pipefail

if command -v promtool >/dev/null 2>&1; then
  exit 0
fi

if ! command -v apt-get >/dev/null 2>&1; then
  echo "ensure-promtool: promtool is missing and apt-get is not available; install Prometheus's promtool." >&2
  exit 1
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1; then
    SUDO="sudo"
  else
    echo "ensure-promtool: promtool is missing; run as root: apt-get update && apt-get install -y --no-install-recommends prometheus" >&2
    exit 1
  fi
fi

echo "ensure-promtool: installing Debian's prometheus package (for promtool)..." >&2
$SUDO env DEBIAN_FRONTEND=noninteractive apt-get update
# policy-rc.d exit 101: the package's post-install does not start a Prometheus server. One that
# already exists (Debian's container images have one) is left as it is.
if [ ! -e /usr/sbin/policy-rc.d ]; then
  $SUDO sh -c 'printf "#!/bin/sh\nexit 101\n" > /usr/sbin/policy-rc.d && chmod +x /usr/sbin/policy-rc.d'
  trap '$SUDO rm -f /usr/sbin/policy-rc.d' EXIT
fi
$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends prometheus
promtool --version >&2
