#!/usr/bin/env bash
# `npm run test:node22`: the whole test suite (`npm test`, the services it starts included) under
# the Node.js 22 the images run, installed into a cache by scripts/node22.sh. Fails first if
# oidc-provider still reports an unsupported runtime on that Node.js. Arguments go to Jest.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
NODE_BIN="$(bash scripts/node22.sh)"
export PATH="$NODE_BIN:$PATH"
echo "test:node22: $(command -v node) $(node --version)" >&2

notice="$(cd services/auth && node --input-type=module -e "await import('oidc-provider')" 2>&1 >/dev/null)"
if [ -n "$notice" ]; then
  echo "test:node22: oidc-provider printed on $(node --version): $notice" >&2
  exit 1
fi
# npm itself is a Node script (#!/usr/bin/env node): it, Jest and every service child process
# (started with process.execPath) run on the Node.js now first in PATH.
npm test -- "$@"
