#!/usr/bin/env bash
# Makes sure Debian's `chromium` package is installed: the /docs test drives it headless through
# playwright-core (test/docs). Installs it only when /usr/bin/chromium is missing
# (scripts/ensure-debian-package.sh).
set -euo pipefail
exec bash "$(dirname "$0")/ensure-debian-package.sh" /usr/bin/chromium chromium "needed by the /docs test"
