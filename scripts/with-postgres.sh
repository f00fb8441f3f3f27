#!/usr/bin/env bash
# Runs COMMAND... with a throwaway PostgreSQL cluster and LIFECYCLE_TEST_POSTGRES_URL pointing at it.
#
#   scripts/with-postgres.sh swift test
#
# - Installs the Debian `postgresql` package when no server binaries are found (needs root or sudo).
# - Creates a cluster in a temporary directory, owned by an unprivileged user (`postgres` when run as root,
#   initdb refuses root), listening only on 127.0.0.1 on a free port, trust authentication for loopback.
# - Exports LIFECYCLE_TEST_POSTGRES_URL=postgres://postgres@127.0.0.1:PORT/postgres, runs the command, and
#   stops the server and removes the directory on exit, whatever happens. Exits with the command's status.
#
# When LIFECYCLE_TEST_POSTGRES_URL is already set, runs the command against that server unchanged.
set -euo pipefail

if [ "$#" -eq 0 ]; then
  echo "usage: $0 COMMAND [ARGUMENT...]" >&2
  exit 64
fi

if [ -n "${LIFECYCLE_TEST_POSTGRES_URL:-}" ]; then
  exec "$@"
fi

find_bindir() {
  local dir
  for dir in $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V -r); do
    if [ -x "$dir/initdb" ] && [ -x "$dir/pg_ctl" ]; then echo "$dir"; return 0; fi
  done
  if command -v initdb >/dev/null 2>&1 && command -v pg_ctl >/dev/null 2>&1; then
    dirname "$(command -v initdb)"; return 0
  fi
  return 1
}

if ! bindir=$(find_bindir); then
  echo "with-postgres: installing postgresql from Debian"
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO=sudo
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq postgresql >/dev/null
  # The package starts its own cluster on 5432; this script never uses it.
  bindir=$(find_bindir)
fi

# A free loopback port: ask the kernel for one, then hand it to the server (a race with another process
# binding it in between is possible but harmless: pg_ctl then fails and the script says so).
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()' 2>/dev/null \
  || echo $((20000 + RANDOM % 20000)))

# The cluster lives in memory when it can (/dev/shm with 2 GB free): the tests create and drop thousands of
# tables, and on a disk file system the server spent most of its CPU in the kernel looking up directory and
# inode blocks for those files. LIFECYCLE_PG_PARENT overrides the parent directory.
parent=${LIFECYCLE_PG_PARENT:-}
if [ -z "$parent" ]; then
  parent=${TMPDIR:-/tmp}
  if [ -d /dev/shm ] && [ -w /dev/shm ] \
    && [ "$(df -Pk /dev/shm 2>/dev/null | awk 'NR==2 {print $4}')" -ge 2097152 ] 2>/dev/null; then
    parent=/dev/shm
  fi
fi
root=$(mktemp -d "$parent/lifecycle-pg.XXXXXX")
data="$root/data"
run_as=()
if [ "$(id -u)" -eq 0 ]; then
  user=postgres
  id "$user" >/dev/null 2>&1 || useradd --system --no-create-home "$user"
  chown "$user" "$root"
  chmod 700 "$root"
  run_as=(su "$user" -s /bin/sh -c)
else
  run_as=(sh -c)
fi

as_owner() {
  "${run_as[@]}" "$1"
}

cleanup() {
  status=$?
  as_owner "'$bindir/pg_ctl' -D '$data' -m immediate -w stop" >/dev/null 2>&1 || true
  rm -rf "$root"
  exit "$status"
}
trap cleanup EXIT INT TERM

as_owner "'$bindir/initdb' -D '$data' -A trust -U postgres -E UTF8 --locale=C.UTF-8 >'$root/initdb.log' 2>&1" \
  || { cat "$root/initdb.log" >&2; exit 1; }
# fsync off: the cluster is thrown away after the run. max_connections: tests run in parallel, each store
# with its own pool. wal_keep_size: no checkpoint (the server's or a test's) removes or recycles a segment
# written during the run, so a test that reads the WAL finds what was written there. autovacuum_naptime 5 s
# (default 60): a test's database fills from empty in seconds, faster than autovacuum analyses it at the
# default, and each `serve` connection keeps the generic plan PostgreSQL cached for a prepared statement after
# five executions, planned on the empty table's statistics until an ANALYZE invalidates it: the account lookup
# walked every account of the app (through `accounts_state`, an index schema migration 20 has since dropped) and the data-key insert scanned `subject_keys`. The
# two-instance test took 69 core-seconds alone with the default, 44 with 5 s. A long-lived server analyses
# a table as it grows (autovacuum_analyze_scale_factor), so there the plans follow the data.
if ! as_owner "'$bindir/pg_ctl' -D '$data' -l '$root/server.log' -w -t 60 \
    -o \"-h 127.0.0.1 -p $port -k '$root' -c max_connections=400 -c fsync=off -c full_page_writes=off -c wal_keep_size=4GB -c autovacuum_naptime=5\" start" \
    >/dev/null; then
  cat "$root/server.log" >&2
  exit 1
fi

export LIFECYCLE_TEST_POSTGRES_URL="postgres://postgres@127.0.0.1:$port/postgres"
echo "with-postgres: PostgreSQL $("$bindir/postgres" --version | awk '{print $3}') on 127.0.0.1:$port (LIFECYCLE_TEST_POSTGRES_URL)"
"$@"
