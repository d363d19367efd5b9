#!/usr/bin/env bash
# CI's image check (.ci/run, as root, with buildah): builds the image from the Containerfile over a base made of this
# machine's Node.js (no image registry here), runs each service from it with `buildah run --isolation=chroot` (the
# host's network), and checks each answers /healthz and runs as the image's non-root user. Usage:
#   deploy/container/test-image.sh        (exit 0: all three answered)
set -euo pipefail
cd "$(dirname "$0")/../.."
image=localhost/game-platform
base="$(deploy/container/local-node-image.sh localhost/node-local)"
start=$(date +%s)
buildah bud --quiet --isolation=chroot --build-arg NODE_IMAGE="$base" -t "$image" -f Containerfile . >/dev/null
echo "image built in $(( $(date +%s) - start )) s: $(buildah images --format '{{.Name}}:{{.Tag}} {{.Size}}' "$image")"

ctrs=()
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  for c in "${ctrs[@]}"; do buildah rm "$c" >/dev/null 2>&1 || true; done
}
trap cleanup EXIT

# run <service> <url> [KEY=VALUE…]: one container per service, as a studio's orchestrator would run them.
run() {
  local service="$1" url="$2"; shift 2
  local ctr envs=()
  ctr="$(buildah from "$image")"
  ctrs+=("$ctr")
  for kv in "$@"; do envs+=(--env "$kv"); done
  buildah run --isolation=chroot "${envs[@]}" "$ctr" -- node "packages/$service/dist/main.js" >"/tmp/image-$service.log" 2>&1 &
  pids+=("$!")
  for _ in $(seq 1 60); do
    if curl -fsk "$url/healthz" >/dev/null 2>&1; then
      echo "$service: $(curl -fsk "$url/healthz") from the image"
      return 0
    fi
    sleep 1
  done
  echo "$service did not answer $url/healthz; its log:" >&2
  cat "/tmp/image-$service.log" >&2
  return 1
}

auth_port=$(( 20000 + RANDOM % 10000 ))
social_port=$(( auth_port + 1 ))
run auth "https://127.0.0.1:$auth_port" "AUTH_PORT=$auth_port"
run social "https://127.0.0.1:$social_port" "SOCIAL_PORT=$social_port" "SOCIAL_AUTH_JWKS_URL=https://127.0.0.1:$auth_port/.well-known/jwks.json"
# The registry's port is fixed (3004); skipped with a message when something else holds it.
if curl -s -o /dev/null "http://127.0.0.1:3004/" 2>/dev/null; then
  echo "registry: port 3004 is taken on this machine; not run" >&2
else
  run registry "http://127.0.0.1:3004"
fi
# Not root inside: the image's user (10001).
uid="$(buildah run --isolation=chroot "${ctrs[0]}" -- node -e 'process.stdout.write(String(process.getuid()))')"
[ "$uid" = 10001 ] || { echo "the image runs as uid $uid, not 10001" >&2; exit 1; }
echo "image check passed in $(( $(date +%s) - start )) s (uid $uid)"
