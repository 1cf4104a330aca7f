#!/usr/bin/env bash
# `npm run images:verify`: builds every target of deploy/Dockerfile with podman, runs the images as
# containers against PostgreSQL and drives a tenant's path through them (scripts/images/verify.mjs).
# Exits non-zero on any failure. deploy/README.md ("Checking the images") describes what it checks.
#
# Base image: the official one pinned in deploy/Dockerfile when an image registry answers, otherwise
# a local stand-in (scripts/images/standin-base.sh). Settings (environment):
#   DMS_BASE_IMAGE   use this base image as it is (skips the pull and the stand-in)
#   DATABASE_URL     PostgreSQL server to create the check's database on (its /postgres database is
#                    used to create and drop it); default postgres://postgres@127.0.0.1:5432/postgres,
#                    the embedded server when that does not answer
#   DMS_CACHE_DIR    cache of the Node.js binary and the stand-in root filesystem (~/.cache/dms)
#
# Intermediate build images stay as podman's build cache (re-runs take seconds); remove them with
# `podman image prune`.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
CACHE="${DMS_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/dms}"
started=$SECONDS
say() { echo "images:verify: $*" >&2; }

# --- Tools ------------------------------------------------------------------------------------
missing=()
for tool in podman:podman runc:runc debootstrap:debootstrap podman-compose:podman-compose; do
  command -v "${tool%%:*}" >/dev/null 2>&1 || missing+=("${tool#*:}")
done
if [ ${#missing[@]} -gt 0 ]; then
  [ "$(id -u)" -eq 0 ] || { say "missing ${missing[*]}; run as root or: apt-get install -y ${missing[*]}"; exit 1; }
  say "installing ${missing[*]} (apt-get)..."
  DEBIAN_FRONTEND=noninteractive apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
fi
[ -d node_modules/standardwebhooks ] || { say "npm ci (the check drives the containers with the repository's packages)..."; npm ci --no-audit --no-fund >/dev/null; }

# runc rather than crun (crun fails on this kind of host's hybrid cgroups) and bounded ulimits (the
# default ones cannot be set inside this sandbox), for podman run, build and podman-compose alike.
mkdir -p "$CACHE/build"
export CONTAINERS_CONF="$CACHE/build/containers.conf"
printf '[containers]\ndefault_ulimits = ["nofile=1024:1024", "nproc=1024:1024"]\n\n[engine]\nruntime = "runc"\n' > "$CONTAINERS_CONF"

# --- Base image -------------------------------------------------------------------------------
OFFICIAL="$(sed -n 's/^ARG NODE_IMAGE=//p' deploy/Dockerfile)"
NODE_VERSION="$(echo "$OFFICIAL" | sed -n 's/^node:\([0-9.]*\)-.*/\1/p')"
if [ -n "${DMS_BASE_IMAGE:-}" ]; then
  BASE="$DMS_BASE_IMAGE"; BASE_KIND="given"
elif timeout 300 podman pull -q "docker.io/library/$OFFICIAL" >/dev/null 2>&1; then
  BASE="docker.io/library/$OFFICIAL"; BASE_KIND="official"
else
  say "no image registry reachable: making a stand-in for $OFFICIAL"
  BASE="localhost/dms-node-standin:$NODE_VERSION-bookworm"; BASE_KIND="stand-in"
  bash scripts/images/standin-base.sh "$BASE"
fi
say "base image: $BASE ($BASE_KIND)"

# --- Canary secrets in the build context: files .dockerignore must keep out of every image. ----
# SECRETS_KEY doubles as the key the containers run with, so a leak of the real one is caught too.
canaries=()
plant() { [ -e "$1" ] && return 0; printf '%s\n' "$2" > "$1"; canaries+=("$1"); }
SECRETS_KEY="$(node -e 'process.stdout.write(require("crypto").randomBytes(32).toString("base64"))')"
CANARY="canary-$(node -e 'process.stdout.write(require("crypto").randomBytes(12).toString("hex"))')"
export SECRETS_KEY CANARY
trap 'rm -f "${canaries[@]}"' EXIT
plant .env "SECRETS_KEY=$SECRETS_KEY"
plant services/auth/.env "SECRETS_KEY=$SECRETS_KEY"
plant libs/secrets/signing.key "$CANARY"

# --- Build every target: the runtime stages of deploy/Dockerfile are the one list. --------------
mapfile -t TARGETS < <(sed -n 's/^FROM runtime AS \([a-z0-9-]*\)$/\1/p' deploy/Dockerfile)
[ ${#TARGETS[@]} -gt 0 ] || { say "no 'FROM runtime AS <target>' stage in deploy/Dockerfile"; exit 1; }
# npm inside the build reaches the registry as this host does: the host's CA bundle and an npmrc
# naming it are mounted for the RUN steps only (nothing of them is committed to a layer).
CA_FILE="${NODE_EXTRA_CA_CERTS:-/etc/ssl/certs/ca-certificates.crt}"
printf 'cafile=/run/dms-build/ca.crt\n' > "$CACHE/build/npmrc"
build_mounts=()
[ -f "$CA_FILE" ] && build_mounts=(-v "$CA_FILE:/run/dms-build/ca.crt:ro" -v "$CACHE/build/npmrc:/usr/local/etc/npmrc:ro")
for target in "${TARGETS[@]}"; do
  say "building $target..."
  t0=$SECONDS
  podman build --quiet --format docker --network host "${build_mounts[@]}" \
    --build-arg "NODE_IMAGE=$BASE" -f deploy/Dockerfile --target "$target" -t "localhost/dms-$target:local" . >/dev/null \
    || { say "build of $target failed"; exit 1; }
  say "built localhost/dms-$target:local in $((SECONDS - t0)) s"
done
rm -f "${canaries[@]}"; canaries=()

# --- Run and check the images, then docker-compose.yml under podman-compose ---------------------
node scripts/images/verify.mjs --base "$BASE ($BASE_KIND)" "${TARGETS[@]}"

compose_args=()
if [ "$BASE_KIND" != official ]; then
  # No registry for the official postgres and redis images either: stand-ins from Debian's packages.
  for service in postgres redis; do
    tag="$([ $service = postgres ] && echo 15 || echo 7)-bookworm"
    podman image exists "localhost/dms-standin-$service:$tag" && continue
    say "building the stand-in $service image (Debian's package)..."
    podman build --quiet --network host --build-arg "BASE=$BASE" --target "$service" \
      -f scripts/images/standin-services.Containerfile -t "localhost/dms-standin-$service:$tag" scripts/images >/dev/null
  done
  compose_args=(--standin)
fi
node scripts/images/compose-verify.mjs "${compose_args[@]}"
say "passed in $((SECONDS - started)) s"
