#!/usr/bin/env bash
# statement-mix.sh — what the store runs per notification in bench-peer's realistic configuration: the release
# `lifecycle serve` under the peer's wrk load (load.sh, 16 connections, DURATION s, default 5) with
# sql-trace.c preloaded, which counts every sqlite3_step by its statement's SQL. After a clean stop it prints,
# per notification stored, how often each statement ran (the writer's and the readers' alike), the write
# transactions (BEGIN IMMEDIATE … COMMIT) per second and the write calls per transaction. README, "Benchmark",
# quotes it; it is a map for changing the store, not a rate (the counting costs a mutex per step).
#
# Environment: DURATION (5), CONNECTIONS (16), TOP (25 statements), WORKDIR (var/peer-bench), PEER_BENCH,
# LIFECYCLE_BIN (default the release build, built first unless BENCH_SKIP_BUILD=1).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
DURATION="${DURATION:-5}"
CONNECTIONS="${CONNECTIONS:-16}"
TOP="${TOP:-25}"
WORKDIR="${WORKDIR:-$ROOT/var/peer-bench}"

source "$ROOT/scripts/bench/lib.sh"
peer_setup statement-mix "$ROOT" "$WORKDIR"
source "$ROOT/scripts/bench/product-config.sh"
lifecycle_bin statement-mix "$ROOT"

work="$(mktemp -d "$WORKDIR/statement-mix.XXXXXX")"
kill_on_exit

cc -O2 -Wall -Wextra -shared -fPIC -o "$work/sql-trace.so" "$ROOT/scripts/bench/sql-trace.c" -ldl
port="$(free_port)"
hook="$(free_port)"
product_config "$work" "$port" "$hook"
"$PY" "$ROOT/scripts/bench/webhook-receiver.py" "$hook" "$work/webhooks-received" &
receiver=$!
PIDS+=("$receiver")
wait_http "http://127.0.0.1:$hook/" || { echo "statement-mix: the webhook receiver did not start" >&2; exit 1; }
(cd "$work" && SQL_TRACE_OUT="$work/trace.tsv" LD_PRELOAD="$work/sql-trace.so" exec "$BIN" serve --config lifecycle.json) \
  2>"$work/server.log" &
serve=$!
PIDS+=("$serve")
wait_http "http://127.0.0.1:$port/readyz" || { echo "statement-mix: serve did not start" >&2; cat "$work/server.log" >&2; exit 1; }

echo "statement-mix: $(uname -m), $(machine_cores) cores, $(uptime | sed 's/.*load average/load average/'); $CONNECTIONS connections, ${DURATION} s; files in $work"
DURATION="$DURATION" CONNECTIONS="$CONNECTIONS" THREADS=1 OFFSET=0 \
  bash "$PEER_BENCH/load.sh" "http://127.0.0.1:$port/notifications" "$DATA/notifications.jsonl" >"$work/load.log" 2>&1
# A clean stop: the tracer writes its counts at exit.
kill -TERM "$serve"
wait "$serve" || { echo "statement-mix: serve did not stop cleanly" >&2; exit 1; }
[[ -s "$work/trace.tsv" ]] || { echo "statement-mix: the tracer wrote nothing ($work/trace.tsv)" >&2; exit 1; }
stored="$(sqlite3 "$work/lifecycle.sqlite" 'SELECT count(*) FROM notifications')"

"$PY" - "$work/trace.tsv" "$stored" "$DURATION" "$TOP" "$work/load.log" <<'PY'
import json, sys
path, stored, duration, top, log = sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
wrk = next((json.loads(l[len("WRK_JSON "):]) for l in open(log) if l.startswith("WRK_JSON ")), None)
rows = []
for line in open(path):
    with_row, other, sql = line.rstrip("\n").split("\t", 2)
    rows.append((int(with_row) + int(other), " ".join(sql.split())))
count = {sql: steps for steps, sql in rows}
transactions = count.get("BEGIN IMMEDIATE", 0)
savepoints = count.get("SAVEPOINT group_commit_write", 0)
print(f"{stored} notifications stored" + (f", {wrk['rps']:.0f} req/s under the tracer" if wrk else ""))
print(f"write transactions: {transactions} ({transactions / duration:.0f} a second, one fsync each); "
      f"write calls in batches of two or more (a savepoint each): {savepoints}")
print(f"{'per notification':>16}  statement (first 110 characters)")
for steps, sql in sorted(rows, reverse=True)[:top]:
    print(f"{steps / max(1, stored):16.2f}  {sql[:110]}")
PY
