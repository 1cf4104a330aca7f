#!/usr/bin/env bash
# `npm run ha:verify`: the failover proof of deploy/README.md, "High availability", on one machine.
# Installs what is missing from Debian's packages (etcd, Patroni, PostgreSQL 15, HAProxy, PgBouncer),
# builds the repository, then runs scripts/ha/verify.mjs: three database nodes, each in a network
# namespace of its own, the four services behind PgBouncer and HAProxy, a steady load, a crash, a
# partition and a fail back, and the audit. Exits non-zero on any failure; removes its namespaces,
# processes and files either way (`--keep` leaves the run's directory with every log).
#
#   npm run ha:verify [-- --runs N] [-- --keep]
#
# Needs root (network namespaces, running PostgreSQL and PgBouncer as the `postgres` user).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
say() { echo "ha:verify: $*" >&2; }

[ "$(id -u)" -eq 0 ] || { say "needs root: network namespaces and the postgres user"; exit 1; }
missing=()
for tool in etcd:etcd-server patroni:patroni haproxy:haproxy pgbouncer:pgbouncer /usr/lib/postgresql/15/bin/postgres:postgresql-15 ip:iproute2 setpriv:util-linux psql:postgresql-client-15; do
  command -v "${tool%%:*}" >/dev/null 2>&1 || missing+=("${tool#*:}")
done
if [ ${#missing[@]} -gt 0 ]; then
  say "installing ${missing[*]} (apt-get)..."
  DEBIAN_FRONTEND=noninteractive apt-get update -qq
  # The packages' own services stay down: this run starts its own (and PostgreSQL's or HAProxy's
  # default service would take ports). policy-rc.d exit 101 for the install, as
  # scripts/ensure-debian-package.sh does; an existing one is left as it is.
  (
    if [ ! -e /usr/sbin/policy-rc.d ]; then
      printf '#!/bin/sh\nexit 101\n' > /usr/sbin/policy-rc.d && chmod +x /usr/sbin/policy-rc.d
      trap 'rm -f /usr/sbin/policy-rc.d' EXIT
    fi
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  )
fi
[ -d node_modules/standardwebhooks ] || { say "npm ci..."; npm ci --no-audit --no-fund >/dev/null; }
npx tsc -b
exec node scripts/ha/verify.mjs "$@"
