#!/usr/bin/env bash
# bench-peer.sh — durable ingest of `lifecycle serve` (release build) against the reference peer of
# ../shared/bench, in one run on one machine, as that folder's README sets out: the same wrk driver
# (load.sh), the same 50,000 bodies signed by three keys, 16 connections, 1 wrk thread, 10 s, a fresh database
# per run, repetitions interleaved (peer, product, product with the receiver down, peer, ...). Every server is
# smoke-checked first (smoke.py: 8 valid bodies answered 200, 14 invalid ones 4xx), and its stored rows are
# counted afterwards: every 200 must be stored. The product is killed with SIGKILL once the load ends, so the
# count is what survived a crash.
#
# Product configurations:
#   realistic      an app with a webhook to a live loopback receiver (scripts/bench/webhook-receiver.py,
#                  answers 200), an erasure mapping (a SQLite app database and a webhook target), a records
#                  source, the shipped default policy (policies/default.json), log level info
#   receiver-down  the same with nothing listening on the webhook's port (every delivery and erasure webhook
#                  fails and is retried)
#
# Environment: REPS (3), DURATION (10), CONNECTIONS (16), THREADS (1), CONFIGS ("realistic receiver-down"),
# WORKDIR (var/peer-bench: setup.sh's venv and data), PEER_BENCH (the peer's folder; default the first
# ../shared/bench above the repository), BENCH_SKIP_BUILD=1 (use the existing release build), LIFECYCLE_BIN (a
# lifecycle binary to measure instead of the release build, for an A/B of two builds). Output: every
# run, the medians and the ratios of medians; the files of each run stay in $WORKDIR/runs/<timestamp>.
# Each run also prints where the two cores went while wrk ran, in CPU microseconds per request: the server (the
# peer's gunicorn processes, or `serve`), wrk itself, the webhook receiver, and the machine as a whole (from
# /proc/stat), so the ceiling a ratio meets on this machine can be read off the same run.
# Exit status 1 when a smoke check fails, a request fails, or an acknowledged notification is missing.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
REPS="${REPS:-3}"
DURATION="${DURATION:-10}"
CONNECTIONS="${CONNECTIONS:-16}"
THREADS="${THREADS:-1}"
CONFIGS="${CONFIGS:-realistic receiver-down}"
WORKDIR="${WORKDIR:-$ROOT/var/peer-bench}"
mkdir -p "$WORKDIR"
WORKDIR="$(cd "$WORKDIR" && pwd)"

source "$ROOT/scripts/bench/lib.sh"
VERBOSE_SETUP=1 peer_setup bench-peer "$ROOT" "$WORKDIR"
lifecycle_bin bench-peer "$ROOT"

RUNS="$WORKDIR/runs/$(date -u +%Y%m%dT%H%M%SZ)"
mkdir -p "$RUNS"
RESULTS="$RUNS/results.tsv"
printf 'rep\tserver\trps\tp50_ms\tp99_ms\tp999_ms\trequests\tnon2xx\tsocket_errors\tstored\tmissing\tserver_cpu_us\twrk_cpu_us\treceiver_cpu_us\tmachine_cpu_us\tbusy_cores\n' >"$RESULTS"

# Every process started here is stopped on the way out, whatever happens.
kill_on_exit

count_rows() { sqlite3 "$1" "SELECT count(*) FROM $2"; }


source "$ROOT/scripts/bench/product-config.sh"

# load NAME REP URL DB TABLE SERVER_PID [RECEIVER_PID]: smoke check, load, the row count before it, and the
# CPU each side used while wrk ran (DIR/cpu: server, wrk, receiver and machine ticks, and total machine ticks).
load() {
  local name="$1" rep="$2" url="$3" db="$4" table="$5" server="$6" receiver="${7:-}" dir="$RUNS/$1-$2"
  if ! "$PY" "$PEER_BENCH/smoke.py" "$url" --data "$DATA" --quiet >"$dir/smoke.log" 2>&1; then
    echo "bench-peer: $name (repetition $rep) failed its smoke check:" >&2
    cat "$dir/smoke.log" >&2
    exit 1
  fi
  local before
  before="$(count_rows "$db" "$table")"
  local status=0 server0 receiver0 machine0 server1 receiver1 machine1
  server0="$(cpu_ticks "$server")"
  receiver0="$(cpu_ticks "$receiver")"
  machine0="$(machine_ticks)"
  # wrk's own CPU: /usr/bin/time counts load.sh and what it waited for (wrk, and one short python3 summary).
  DURATION="$DURATION" CONNECTIONS="$CONNECTIONS" THREADS="$THREADS" OFFSET=0 \
    /usr/bin/time -f '%U %S' -o "$dir/wrk-cpu" \
    bash "$PEER_BENCH/load.sh" "$url" "$DATA/notifications.jsonl" >"$dir/load.log" 2>&1 || status=$?
  machine1="$(machine_ticks)"
  server1="$(cpu_ticks "$server")"
  receiver1="$(cpu_ticks "$receiver")"
  local wrk_seconds
  wrk_seconds="$(awk 'END{print $1 + $2}' "$dir/wrk-cpu")"
  echo "$((server1 - server0)) $wrk_seconds $((receiver1 - receiver0)) $machine0 $machine1 $(getconf CLK_TCK)" >"$dir/cpu"
  grep -q '^WRK_JSON ' "$dir/load.log" || { echo "bench-peer: wrk failed ($status):" >&2; cat "$dir/load.log" >&2; exit 1; }
  echo "$before" >"$dir/rows-before"
}

# finish NAME REP DB TABLE: after the server stopped, the count of stored rows against the 200s.
finish() {
  local name="$1" rep="$2" db="$3" table="$4" dir="$RUNS/$1-$2"
  local after
  after="$(count_rows "$db" "$table")"
  "$PY" - "$dir/load.log" "$(cat "$dir/rows-before")" "$after" "$rep" "$name" "$dir/cpu" "$(machine_cores)" >>"$RESULTS" <<'PY'
import json, sys
log, before, after, rep, name = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4], sys.argv[5]
cores = int(sys.argv[7])
server, wrk, receiver, busy0, total0, busy1, total1, hz = open(sys.argv[6]).read().split()
hz = int(hz)
line = next(l for l in open(log) if l.startswith("WRK_JSON "))
r = json.loads(line[len("WRK_JSON "):])
e, l = r["errors"], r["lat_us"]
sockets = e["connect"] + e["read"] + e["write"] + e["timeout"]
acknowledged = r["requests"] - e["status"]
stored = after - before
missing = max(0, acknowledged - stored)
per_request = lambda seconds: seconds * 1e6 / max(1, r["requests"])
busy, total = int(busy1) - int(busy0), int(total1) - int(total0)
print(f"{rep}\t{name}\t{r['rps']:.0f}\t{l['p50']/1000:.2f}\t{l['p99']/1000:.2f}\t{l['p999']/1000:.2f}\t"
      f"{r['requests']}\t{e['status']}\t{sockets}\t{stored}\t{missing}\t"
      f"{per_request(int(server) / hz):.0f}\t{per_request(float(wrk)):.0f}\t{per_request(int(receiver) / hz):.0f}\t"
      f"{per_request(busy / hz):.0f}\t{cores * busy / max(1, total):.2f}")
PY
  tail -1 "$RESULTS" | awk -F'\t' '{printf "  %-14s rep %s: %6s req/s  p50 %6s ms  p99 %6s ms  p99.9 %6s ms  %s requests, %s non-2xx, %s socket errors, %s stored, %s missing\n", $2, $1, $3, $4, $5, $6, $7, $8, $9, $10, $11}'
  tail -1 "$RESULTS" | awk -F'\t' '{printf "  %-14s        CPU per request: server %s us, wrk %s us, receiver %s us, machine %s us (%s of the cores busy)\n", "", $12, $13, $14, $15, $16}'
}

run_peer() {
  local rep="$1" dir="$RUNS/peer-$1" port
  mkdir -p "$dir"
  port="$(free_port)"
  bash "$PEER_BENCH/peer.sh" "$WORKDIR" "$port" "$dir/peer.db" >"$dir/server.log" 2>&1 &
  local pid=$!
  PIDS+=("$pid")
  wait_http "http://127.0.0.1:$port/notifications" || { echo "bench-peer: the peer did not start" >&2; cat "$dir/server.log" >&2; exit 1; }
  load peer "$rep" "http://127.0.0.1:$port/notifications" "$dir/peer.db" events "$pid"
  kill -TERM "$pid"
  wait "$pid" 2>/dev/null || true
  finish peer "$rep" "$dir/peer.db" events
}

run_product() {
  local config="$1" rep="$2" dir="$RUNS/$1-$2" port hook receiver=""
  mkdir -p "$dir"
  port="$(free_port)"
  hook="$(free_port)"
  product_config "$dir" "$port" "$hook"
  if [[ "$config" == realistic ]]; then
    "$PY" "$ROOT/scripts/bench/webhook-receiver.py" "$hook" "$dir/webhooks-received" &
    receiver=$!
    PIDS+=("$receiver")
    wait_http "http://127.0.0.1:$hook/" || { echo "bench-peer: the webhook receiver did not start" >&2; exit 1; }
  fi
  (cd "$dir" && exec "$BIN" serve --config lifecycle.json) 2>"$dir/server.log" &
  local pid=$!
  PIDS+=("$pid")
  wait_http "http://127.0.0.1:$port/readyz" || { echo "bench-peer: serve did not start" >&2; cat "$dir/server.log" >&2; exit 1; }
  load "$config" "$rep" "http://127.0.0.1:$port/notifications" "$dir/lifecycle.sqlite" notifications "$pid" "$receiver"
  # A crash, not a shutdown: what counts is what was durable when the 200 went out.
  kill -KILL "$pid"
  wait "$pid" 2>/dev/null || true
  if [[ -n "$receiver" ]]; then
    kill -TERM "$receiver"
    wait "$receiver" 2>/dev/null || true
  fi
  finish "$config" "$rep" "$dir/lifecycle.sqlite" notifications
}

echo "bench-peer: $REPS repetitions of peer, ${CONFIGS// /, }; $CONNECTIONS connections, $THREADS wrk thread, ${DURATION} s"
echo "bench-peer: $(uname -m), $(machine_cores) cores, $(uptime | sed 's/.*load average/load average/'); runs in $RUNS"
for rep in $(seq 1 "$REPS"); do
  run_peer "$rep"
  for config in $CONFIGS; do run_product "$config" "$rep"; done
done
echo "bench-peer: done, $(uptime | sed 's/.*load average/load average/')"

"$PY" - "$RESULTS" "$CONFIGS" <<'PY'
import csv, statistics, sys
rows = list(csv.DictReader(open(sys.argv[1]), delimiter="\t"))
servers = ["peer"] + sys.argv[2].split()
median = {}
print(f"{'server':14s} {'median req/s':>12s} {'p50 ms':>8s} {'p99 ms':>8s}  (medians of {len(rows) // len(servers)} runs)")
for s in servers:
    runs = [r for r in rows if r["server"] == s]
    m = {k: statistics.median(float(r[k]) for r in runs) for k in ("rps", "p50_ms", "p99_ms")}
    median[s] = m
    print(f"{s:14s} {m['rps']:12.0f} {m['p50_ms']:8.2f} {m['p99_ms']:8.2f}")
print(f"{'CPU per request':14s} {'server us':>12s} {'wrk us':>8s} {'recv us':>8s} {'machine us':>10s} {'busy':>5s}  (medians)")
for s in servers:
    runs = [r for r in rows if r["server"] == s]
    m = {k: statistics.median(float(r[k]) for r in runs)
         for k in ("server_cpu_us", "wrk_cpu_us", "receiver_cpu_us", "machine_cpu_us", "busy_cores")}
    print(f"{s:14s} {m['server_cpu_us']:12.0f} {m['wrk_cpu_us']:8.0f} {m['receiver_cpu_us']:8.0f} "
          f"{m['machine_cpu_us']:10.0f} {m['busy_cores']:5.2f}")
for s in servers[1:]:
    print(f"ratio {s} / peer (medians of req/s): {median[s]['rps'] / median['peer']['rps']:.2f}")
if "realistic" in median and "receiver-down" in median:
    print(f"ratio receiver-down / realistic: {median['receiver-down']['rps'] / median['realistic']['rps']:.2f}")
missing = sum(int(r["missing"]) for r in rows)
failed = sum(int(r["non2xx"]) + int(r["socket_errors"]) for r in rows)
print(f"acknowledged notifications missing: {missing}; failed requests: {failed}")
sys.exit(1 if missing or failed else 0)
PY
