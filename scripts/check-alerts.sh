#!/usr/bin/env bash
# `npm run alerts:check`: checks the alerting rules of deploy/observability with promtool (syntax,
# PromQL, templates) and runs their unit tests (rules.test.yml). Installs promtool first when it is
# missing (scripts/ensure-promtool.sh).
set -euo pipefail
cd "$(dirname "$0")/../deploy/observability"
bash ../../scripts/ensure-promtool.sh
promtool check rules rules.yml
promtool test rules rules.test.yml
