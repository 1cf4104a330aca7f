#!/usr/bin/env bash
# Makes sure `promtool` is installed: the alert rules under deploy/observability are checked and
# unit-tested with it (scripts/check-alerts.sh). Installs Debian's `prometheus` package, which ships
# promtool, only when promtool is missing; its server is not started (scripts/ensure-debian-package.sh).
set -euo pipefail
exec bash "$(dirname "$0")/ensure-debian-package.sh" promtool prometheus "for promtool" --no-install-recommends
