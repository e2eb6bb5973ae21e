#!/usr/bin/env bash
# Builds Vigil's container image from the Containerfile and proves it serves: the image's filesystem is exported
# and the server run from it with chroot (containers cannot run on the CI host: crun refuses its cgroup setup), as
# the image's user, until GET /v2/health/ready answers 200; then it must stop cleanly on SIGTERM.
# Needs root, podman and mmdebstrap (for the local Node 20 base images, see build-base-images.sh).
set -euo pipefail
cd "$(dirname "$0")/../.."
TAG=${VIGIL_IMAGE_TAG:-localhost/vigil:check}
PORT=${VIGIL_CHECK_PORT:-18229}
CA_BUNDLE=${CA_BUNDLE:-/etc/ssl/certs/ca-certificates.crt}

for base in localhost/vigil-node-build:20 localhost/vigil-node-runtime:20; do
  podman image exists "$base" || { bash deploy/container/build-base-images.sh; break; }
done

secret=()
[ -s "$CA_BUNDLE" ] && secret=(--secret "id=ca,src=$CA_BUNDLE")
echo "building $TAG"
podman build --quiet --isolation chroot --network host --format docker "${secret[@]}" \
  --build-arg BUILD_BASE=localhost/vigil-node-build:20 --build-arg RUNTIME_BASE=localhost/vigil-node-runtime:20 \
  -t "$TAG" . >/dev/null

fail() { echo "check-image: $*" >&2; exit 1; }
config() { podman image inspect --format "$1" "$TAG"; }
[ "$(config '{{.Config.User}}')" = vigil ] || fail "the image does not run as user vigil"
config '{{json .Config.Volumes}}' | grep -q '/var/lib/vigil' || fail "no volume for /var/lib/vigil"
config '{{json .Config.ExposedPorts}}' | grep -q '8228/tcp' || fail "port 8228 not exposed"
config '{{json .Config.Healthcheck}}' | grep -q 'health/ready' || fail "no health check on /v2/health/ready"
echo "image: $(podman image inspect --format '{{.Size}}' "$TAG" | awk '{printf "%.0f MB", $1/1e6}'), user vigil, volume /var/lib/vigil, port 8228, health check"

root=$(mktemp -d)
chmod 0755 "$root" # the image's user must reach its files through it
server_pid=
cleanup() {
  [ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null || true
  umount "$root/proc" 2>/dev/null || true
  rm -rf "$root"
}
trap cleanup EXIT
container=$(podman create "$TAG")
podman export "$container" | tar -x -C "$root"
podman rm "$container" >/dev/null 2>&1 || true

[ ! -e "$root/opt/vigil/node_modules/vitest" ] || fail "development packages (vitest) are in the image"
[ ! -e "$root/opt/vigil/src" ] || fail "TypeScript sources are in the image"
[ ! -e "$root/usr/bin/npm" ] || fail "npm is in the final image"
uid=$(awk -F: '$1 == "vigil" {print $3}' "$root/etc/passwd")
[ -n "$uid" ] || fail "no user vigil in /etc/passwd"

mount -t proc proc "$root/proc"
# The image's own environment (ENV), with the port and host of this check on top.
mapfile -t env < <(podman image inspect --format '{{range .Config.Env}}{{println .}}{{end}}' "$TAG" | sed '/^$/d')
log="$root/tmp/vigil.log"
chroot --userspec="$uid:$uid" "$root" /usr/bin/env -i "${env[@]}" VIGIL_HOST=127.0.0.1 VIGIL_PORT="$PORT" \
  VIGIL_ADMIN_PASSWORD=check-image-password VIGIL_FEED_SYNC_SCHEDULE=off \
  node /opt/vigil/dist/src/main.js >"$log" 2>&1 &
server_pid=$!

ready=
for _ in $(seq 1 120); do
  if curl -sf "http://127.0.0.1:$PORT/v2/health/ready" >/dev/null; then ready=1; break; fi
  kill -0 "$server_pid" 2>/dev/null || break
  sleep 0.5
done
[ -n "$ready" ] || { tail -20 "$log" >&2; fail "the server from the image did not become ready"; }
echo "ready: $(curl -s "http://127.0.0.1:$PORT/v2/health/ready")"
curl -sf -u admin:check-image-password "http://127.0.0.1:$PORT/v2/version" >/dev/null || fail "GET /v2/version failed"
curl -sf "http://127.0.0.1:$PORT/ui/" | grep -q 'vigil-style-nonce' || fail "/ui/ does not answer the web interface"
curl -sf "http://127.0.0.1:$PORT/metrics" | grep -q '^vigil_http_requests_total{' || fail "/metrics has no request counts"
[ -s "$root/var/lib/vigil/vigil.sqlite" ] || fail "no database in the data volume"

kill -TERM "$server_pid"
rc=0
wait "$server_pid" || rc=$?
server_pid=
[ "$rc" -eq 0 ] || { tail -20 "$log" >&2; fail "the server exited $rc on SIGTERM"; }
echo "container image check passed"
