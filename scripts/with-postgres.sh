#!/usr/bin/env bash
# Usage: scripts/with-postgres.sh CMD [ARGS...]
# Starts a throwaway PostgreSQL cluster on 127.0.0.1, runs CMD with VIGIL_TEST_DATABASE_URL pointing at it
# (role vigil/vigil with CREATEDB), then stops the cluster and deletes it. Exits with CMD's exit code.
set -euo pipefail

if [ $# -eq 0 ]; then
  echo "usage: $0 CMD [ARGS...]" >&2
  exit 2
fi

log() { echo "[with-postgres] $*" >&2; }

find_bindir() { ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1; }

PGBIN=$(find_bindir || true)
if [ -z "$PGBIN" ]; then
  if [ "$(id -u)" -ne 0 ]; then
    log "PostgreSQL is not installed under /usr/lib/postgresql and we are not root; install the 'postgresql' package."
    exit 1
  fi
  log "PostgreSQL not found; installing it with apt-get"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -q
  apt-get install -y -q --no-install-recommends postgresql </dev/null
  PGBIN=$(find_bindir)
fi

# PostgreSQL refuses to run as root, so the server side runs as the postgres system user when we are root.
# The subshell cds into the temp dir because postgres may not be able to read the caller's cwd.
as_pg() {
  if [ "$(id -u)" -eq 0 ]; then
    (cd "$TMP" && runuser -u postgres -- "$@")
  else
    (cd "$TMP" && "$@")
  fi
}

TMP=$(mktemp -d -t vigil-pg.XXXXXX)
DATA="$TMP/data"
SOCK="$TMP/sock"
mkdir "$SOCK"
if [ "$(id -u)" -eq 0 ]; then chown -R postgres: "$TMP"; fi

CHILD=
cleanup() {
  local rc=$?
  # On a signal, stop CMD before pulling the database from under it.
  if [ -n "$CHILD" ] && kill -0 "$CHILD" 2>/dev/null; then kill -TERM "$CHILD" 2>/dev/null || true; wait "$CHILD" || true; fi
  if [ -f "$DATA/postmaster.pid" ]; then
    log "stopping cluster"
    # immediate: the data is thrown away, no need for a shutdown checkpoint.
    as_pg "$PGBIN/pg_ctl" -D "$DATA" -m immediate -w stop >/dev/null 2>&1 || true
  fi
  rm -rf "$TMP"
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

log "initdb ($("$PGBIN/postgres" --version)) in $DATA"
# Local (socket) connections are trusted so we can create the role; TCP needs the password.
as_pg "$PGBIN/initdb" -D "$DATA" -U postgres -E UTF8 --locale=C.UTF-8 \
  --auth-local=trust --auth-host=scram-sha-256 >"$TMP/initdb.log" 2>&1 \
  || { cat "$TMP/initdb.log" >&2; exit 1; }

# Durability is pointless for a throwaway cluster; test files run in parallel, each with a pool of up to 10.
cat >>"$DATA/postgresql.conf" <<EOF
listen_addresses = '127.0.0.1'
unix_socket_directories = '$SOCK'
fsync = off
synchronous_commit = off
full_page_writes = off
max_connections = 300
EOF

# Start and wait for readiness: 0 ready, 1 postmaster died, 2 timed out.
start_pg() {
  as_pg "$PGBIN/pg_ctl" -D "$DATA" -l "$TMP/postgres.log" -o "-p $PORT" -W start >/dev/null
  for i in $(seq 1 150); do # up to ~30 s
    "$PGBIN/pg_isready" -q -h "$SOCK" -p "$PORT" && return 0
    # The postmaster removes its pid file when it dies; give it a second to create it first.
    [ "$i" -gt 5 ] && [ ! -f "$DATA/postmaster.pid" ] && return 1
    sleep 0.2
  done
  return 2
}

# A port counts as taken if something accepts a TCP connection on it.
port_free() { ! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
PORT=${VIGIL_PG_PORT:-55432}
for attempt in 1 2 3 4 5; do
  while ! port_free "$PORT"; do PORT=$((PORT + 1)); done
  log "starting on 127.0.0.1:$PORT"
  rc=0; start_pg || rc=$?
  [ "$rc" -eq 0 ] && break
  # Another process may have taken the port between the check and the bind: try the next one.
  if [ "$rc" -eq 1 ] && grep -q "could not bind" "$TMP/postgres.log" && [ "$attempt" -lt 5 ]; then
    log "port $PORT was taken meanwhile; retrying"; PORT=$((PORT + 1)); continue
  fi
  log "postgres did not become ready ($([ "$rc" -eq 1 ] && echo exited || echo timeout)):"
  cat "$TMP/postgres.log" >&2
  exit 1
done

as_pg "$PGBIN/psql" -q -v ON_ERROR_STOP=1 -h "$SOCK" -p "$PORT" -U postgres -d postgres \
  -c "CREATE ROLE vigil LOGIN CREATEDB PASSWORD 'vigil'" \
  -c "GRANT pg_signal_backend TO vigil"
# pg_signal_backend: DROP DATABASE ... WITH (FORCE) of a scratch database must also end an autovacuum worker that
# happens to be in it, which a plain role may not signal.

export VIGIL_TEST_DATABASE_URL="postgres://vigil:vigil@127.0.0.1:$PORT/postgres"
log "ready; VIGIL_TEST_DATABASE_URL=$VIGIL_TEST_DATABASE_URL"
log "running: $*"
# In the background so that a signal interrupts `wait` at once (bash defers traps until a foreground child ends);
# <&0 keeps stdin, which background jobs would otherwise get as /dev/null.
"$@" <&0 &
CHILD=$!
rc=0; wait "$CHILD" || rc=$?
CHILD=
log "command exited with $rc"
exit "$rc"
