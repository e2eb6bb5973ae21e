#!/usr/bin/env bash
# A new user's first hour with Vigil, scripted (issue 17): a fresh clone of what is committed, `npm install`,
# `npm start` as the README says, the README's first commands, then a CI-style policy gate with the `vigil` CLI on
# an image pushed to a local registry and matched against a local vulnerability feed. Every step must succeed
# (the gate must fail the image, as the default policy stops on a critical finding); the first step that does not
# ends the run with its output.
#
# Needs git, node/npm, curl, tar, sha256sum, docker-registry and skopeo (Debian: docker-registry skopeo).
# Usage: scripts/first-hour.sh [REPO]   (default: the repository this script is in; its committed HEAD is cloned)
set -euo pipefail

REPO=${1:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}
for tool in git node npm curl tar sha256sum docker-registry skopeo; do
  command -v "$tool" >/dev/null || { echo "first-hour: needs $tool (Debian: apt-get install -y ${tool/docker-registry/docker-registry})" >&2; exit 2; }
done

WORK=$(mktemp -d /tmp/vigil-first-hour.XXXXXX)
PIDS=()
# Each background job is started with setsid, so it leads its own process group: `npm start` runs the server as a
# grandchild (npm, sh, node) that a kill of npm alone leaves running, serving a deleted data dir after the script.
cleanup() {
  for pid in "${PIDS[@]}"; do kill -- "-$pid" 2>/dev/null || kill "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$WORK"
}
trap cleanup EXIT

START=$SECONDS
step() { echo; echo "== [first-hour +$((SECONDS - START))s] $*"; }
fail() { echo "first-hour: FAILED: $*" >&2; exit 1; }
free_port() { node -e "const s=require('net').createServer().listen(0,'127.0.0.1',()=>{console.log(s.address().port);s.close()})"; }
# Waits (bounded: SECONDS_LIMIT, default 120 s) until a URL answers 200; with a PID, stops early when that process
# has exited (the first `npm start` compiles the service and the web interface, which on a busy 2-core machine
# takes minutes, so its limit is long but a crash still ends the wait at once).
wait_for() {
  local url=$1 pid=${2:-} limit=${SECONDS_LIMIT:-120}
  local deadline=$((SECONDS + limit))
  while [ $SECONDS -lt $deadline ]; do
    curl -fsS -o /dev/null "$url" 2>/dev/null && return 0
    if [ -n "$pid" ] && ! kill -0 "$pid" 2>/dev/null; then return 1; fi
    sleep 0.5
  done
  return 1
}

step "fresh clone of $REPO"
git clone -q "$REPO" "$WORK/vigil"
cd "$WORK/vigil"
git log --oneline -1

step "npm install (the README's first command)"
npm install --no-audit --no-fund --loglevel=error

# --- a local vulnerability feed: one OSV record for the busybox the image below carries -----------------------
mkdir -p "$WORK/feed"
cat > "$WORK/feed/FIRST-HOUR-1.json" <<'JSON'
{
  "schema_version": "1.6.0",
  "id": "FIRST-HOUR-1",
  "modified": "2026-11-01T00:00:00Z",
  "published": "2026-10-01T00:00:00Z",
  "aliases": ["CVE-2099-0001"],
  "summary": "busybox: a made-up critical flaw for the first-hour walk-through",
  "severity": [{ "type": "CVSS_V3", "score": "CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H" }],
  "affected": [{
    "package": { "ecosystem": "Alpine:v3.19", "name": "busybox" },
    "ranges": [{ "type": "ECOSYSTEM", "events": [{ "introduced": "0" }, { "fixed": "1.36.1-r16" }] }]
  }]
}
JSON

# --- a local registry on plain HTTP at loopback, and an image pushed to it --------------------------------------
step "local registry and image"
REGISTRY_PORT=$(free_port)
REGISTRY=127.0.0.1:$REGISTRY_PORT
cat > "$WORK/registry.yml" <<YAML
version: 0.1
storage:
  filesystem:
    rootdirectory: $WORK/registry
http:
  addr: $REGISTRY
YAML
setsid docker-registry serve "$WORK/registry.yml" > "$WORK/registry.log" 2>&1 &
PIDS+=($!)
wait_for "http://$REGISTRY/v2/" || { cat "$WORK/registry.log"; fail "the local registry did not start"; }

# A minimal Alpine 3.19 filesystem with an apk database naming busybox 1.36.1-r15, saved as `docker save` does.
ROOTFS=$WORK/image/rootfs
mkdir -p "$ROOTFS/etc" "$ROOTFS/lib/apk/db" "$WORK/image/archive"
printf 'NAME="Alpine Linux"\nID=alpine\nVERSION_ID=3.19.1\nPRETTY_NAME="Alpine Linux v3.19"\n' > "$ROOTFS/etc/os-release"
printf 'P:busybox\nV:1.36.1-r15\nA:x86_64\nL:GPL-2.0-only\no:busybox\nT:Size optimized toolbox of many common UNIX utilities\n\n' > "$ROOTFS/lib/apk/db/installed"
tar --sort=name --owner=0 --group=0 --numeric-owner --mtime=@0 -cf "$WORK/image/layer.tar" -C "$ROOTFS" .
LAYER=$(sha256sum "$WORK/image/layer.tar" | cut -d' ' -f1)
mkdir -p "$WORK/image/archive/$LAYER"
cp "$WORK/image/layer.tar" "$WORK/image/archive/$LAYER/layer.tar"
cat > "$WORK/image/config.json" <<JSON
{"architecture":"amd64","os":"linux","config":{"Cmd":["/bin/sh"]},"rootfs":{"type":"layers","diff_ids":["sha256:$LAYER"]},"history":[{"created":"2026-11-01T00:00:00Z","created_by":"first-hour walk-through"}]}
JSON
CONFIG=$(sha256sum "$WORK/image/config.json" | cut -d' ' -f1)
cp "$WORK/image/config.json" "$WORK/image/archive/$CONFIG.json"
printf '[{"Config":"%s.json","RepoTags":["demo/app:1.0"],"Layers":["%s/layer.tar"]}]' "$CONFIG" "$LAYER" > "$WORK/image/archive/manifest.json"
tar -cf "$WORK/app.tar" -C "$WORK/image/archive" .
skopeo copy --quiet --dest-tls-verify=false "docker-archive:$WORK/app.tar" "docker://$REGISTRY/demo/app:1.0"
echo "pushed $REGISTRY/demo/app:1.0"

# --- npm start, as the README says: the generated administrator password is read from the log ------------------
step "npm start"
PORT=$(free_port)
URL=http://127.0.0.1:$PORT
VIGIL_PORT=$PORT VIGIL_DATA_DIR=$WORK/data VIGIL_FEED_SOURCES=local=$WORK/feed VIGIL_REGISTRY_ALLOW=127.0.0.1/32 \
  setsid npm start > "$WORK/vigil.log" 2>&1 &
PIDS+=($!)
SECONDS_LIMIT=900 wait_for "$URL/v2/health" "${PIDS[-1]}" || { tail -50 "$WORK/vigil.log"; fail "the service did not answer /v2/health"; }
PASSWORD=$(grep -o "generated password: [^ \"]*" "$WORK/vigil.log" | head -1 | cut -d' ' -f3)
[ -n "$PASSWORD" ] || { tail -50 "$WORK/vigil.log"; fail "no generated administrator password in the log"; }
echo "service at $URL, administrator password read from the log"

step "the README's first commands"
curl -fsS -u "admin:$PASSWORD" "$URL/v2/account" | grep -q '"name":"admin"' || fail "GET /v2/account with HTTP Basic"
curl -fsS -d "username=admin&password=$PASSWORD" "$URL/v2/oauth/token" | grep -q '"access_token"' || fail "POST /v2/oauth/token"
KEY=$(curl -fsS -u "admin:$PASSWORD" -H 'content-type: application/json' -d '{"name":"ci-bot-key"}' "$URL/v2/user/api-keys" |
  node -e 'let s="";process.stdin.on("data",(d)=>(s+=d)).on("end",()=>console.log(JSON.parse(s).value))')
[ -n "$KEY" ] && [ "$KEY" != undefined ] || fail "POST /v2/user/api-keys gave no key"
curl -fsS -u "_api_key:$KEY" "$URL/v2/account" | grep -q '"name":"admin"' || fail "GET /v2/account with the API key"
curl -fsS -u "admin:$PASSWORD" -X POST "$URL/v2/system/feeds?wait=true" > /dev/null || fail "POST /v2/system/feeds?wait=true"
echo "account, token, API key and feed sync answered as documented"

step "a CI gate with the vigil CLI"
export VIGIL_URL=$URL
export XDG_CONFIG_HOME=$WORK/config
npx --no-install vigil login --api-key "$KEY" --name first-hour
npx --no-install vigil image add "$REGISTRY/demo/app:1.0" --wait --timeout 300
npx --no-install vigil image vulns "$REGISTRY/demo/app:1.0"
# The gate: a critical finding, which the default policy stops on. Both must fail the build with exit code 1.
set +e
npx --no-install vigil image vulns "$REGISTRY/demo/app:1.0" --fail-on high -o json > "$WORK/vulns.json"
VULNS_RC=$?
npx --no-install vigil image check "$REGISTRY/demo/app:1.0" --fail-based-on-results
CHECK_RC=$?
set -e
[ "$VULNS_RC" -eq 1 ] || fail "vigil image vulns --fail-on high exited $VULNS_RC, expected 1"
grep -q 'FIRST-HOUR-1' "$WORK/vulns.json" || fail "the JSON findings do not name FIRST-HOUR-1"
[ "$CHECK_RC" -eq 1 ] || fail "vigil image check --fail-based-on-results exited $CHECK_RC, expected 1 (policy STOP)"

step "the README's archive upload"
curl -fsS -u "admin:$PASSWORD" -H 'content-type: application/x-tar' --data-binary "@$WORK/app.tar" \
  "$URL/v2/images/archives?tag=$REGISTRY/demo/app:archive" | grep -q '"image_digest"' || fail "POST /v2/images/archives"

step "done: every step of the first hour worked (in $((SECONDS - START)) s)"
