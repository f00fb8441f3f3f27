#!/usr/bin/env bash
# store-floor.sh — the least the store's writes for a notification cost this machine, with nothing of the
# service around them: store-floor.c runs, on one thread with SQLite's C API, the writes `serve` makes per
# notification in the realistic configuration (statement-mix.sh counts them) against a fresh store that
# `lifecycle migrate` created, with the service's pragmas and a checkpoint past 1,000 log frames. Two modes:
# `product` (every statement of the mix) and `one-row` (only the notification row: the floor of any design that
# keeps one SQLite row per notification, synchronously). Each mode runs at 5 notifications a commit (the
# service's batches under the 16-connection load) and at 16 (one per connection). README, "Performance",
# quotes it.
#
# Environment: REPS (3), COUNT (20000 notifications a run), BATCHES ("5 16"), MODES ("product one-row"),
# DROP_INDEXES (indexes dropped from the fresh store before the runs, to measure a schema change; default
# none), WORKDIR (var/peer-bench), LIFECYCLE_BIN or BENCH_SKIP_BUILD=1 as for bench-peer.sh.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
REPS="${REPS:-3}"
COUNT="${COUNT:-20000}"
BATCHES="${BATCHES:-5 16}"
MODES="${MODES:-product one-row}"
DROP_INDEXES="${DROP_INDEXES:-}"
WORKDIR="${WORKDIR:-$ROOT/var/peer-bench}"
source "$ROOT/scripts/bench/lib.sh"
lifecycle_bin store-floor "$ROOT"
mkdir -p "$WORKDIR"
work="$(mktemp -d "$WORKDIR/store-floor.XXXXXX")"
trap 'rm -rf "$work"' EXIT
cc -O2 -Wall -Wextra -o "$work/store-floor" "$ROOT/scripts/bench/store-floor.c" -lsqlite3
printf '{"storage": {"url": "sqlite:template.sqlite"}, "apple": {"jwks": "/dev/null"},
  "apps": [{"id": "shop", "clientIds": ["com.example.siwa.service"]}]}\n' >"$work/store.json"
(cd "$work" && "$BIN" migrate --config store.json >/dev/null) || { echo "store-floor: lifecycle migrate failed" >&2; exit 1; }
for index in $DROP_INDEXES; do sqlite3 "$work/template.sqlite" "DROP INDEX $index"; done
echo "store-floor: $(uname -m), $(machine_cores) cores, $(uptime | sed 's/.*load average/load average/'); SQLite $(sqlite3 --version | cut -d' ' -f1); $COUNT notifications a run${DROP_INDEXES:+; dropped: $DROP_INDEXES}"
for rep in $(seq 1 "$REPS"); do
  for mode in $MODES; do
    for batch in $BATCHES; do
      rm -f "$work/run.sqlite" "$work/run.sqlite-wal" "$work/run.sqlite-shm"
      cp "$work/template.sqlite" "$work/run.sqlite"
      printf '  rep %s  ' "$rep"
      "$work/store-floor" "$work/run.sqlite" "$mode" "$COUNT" "$batch"
    done
  done
done
