#!/usr/bin/env bash
# transport-floor.sh — the least a request costs this machine under `make bench-peer`'s load: wrk (the peer's
# load.sh, the same bodies, 16 connections, 1 thread, 10 s) against transport-floor.c, a server that answers
# every POST with an empty 200 and does nothing else. Prints each run's rate and the CPU per request of the
# server, of wrk and of the machine (/proc/stat), REPS times (default 3). README, "Performance", quotes it.
#
# Environment: REPS (3), DURATION (10), CONNECTIONS (16), THREADS (1, wrk's), SERVER_THREADS (2), WORKDIR
# (var/peer-bench, shared with bench-peer.sh), PEER_BENCH (the peer's folder; default ../shared/bench above).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
REPS="${REPS:-3}"
DURATION="${DURATION:-10}"
CONNECTIONS="${CONNECTIONS:-16}"
THREADS="${THREADS:-1}"
SERVER_THREADS="${SERVER_THREADS:-2}"
WORKDIR="${WORKDIR:-$ROOT/var/peer-bench}"
source "$ROOT/scripts/bench/lib.sh"
peer_setup transport-floor "$ROOT" "$WORKDIR"
work="$(mktemp -d)"
server=""
trap '[[ -n "$server" ]] && kill -KILL "$server" 2>/dev/null; rm -rf "$work"' EXIT
cc -O2 -Wall -Wextra -pthread -o "$work/transport-floor" "$ROOT/scripts/bench/transport-floor.c"
port="$(free_port)"
"$work/transport-floor" "$port" "$SERVER_THREADS" &
server=$!
disown "$server" 2>/dev/null || true
wait_http "http://127.0.0.1:$port/" || { echo "transport-floor: the server did not start" >&2; exit 1; }
hz="$(getconf CLK_TCK)"
echo "transport-floor: $(uname -m), $(machine_cores) cores, $(uptime | sed 's/.*load average/load average/'); $CONNECTIONS connections, $THREADS wrk thread, ${DURATION} s, $SERVER_THREADS server threads"
for rep in $(seq 1 "$REPS"); do
  s0="$(cpu_ticks "$server")"; read -r b0 t0 <<<"$(machine_ticks)"
  DURATION="$DURATION" CONNECTIONS="$CONNECTIONS" THREADS="$THREADS" OFFSET=0 \
    /usr/bin/time -f '%U %S' -o "$work/wrk-cpu" \
    bash "$PEER_BENCH/load.sh" "http://127.0.0.1:$port/notifications" "$DATA/notifications.jsonl" \
    >"$work/load.log" 2>&1 || { echo "transport-floor: wrk failed:" >&2; cat "$work/load.log" >&2; exit 1; }
  read -r b1 t1 <<<"$(machine_ticks)"; s1="$(cpu_ticks "$server")"
  "$PY" - "$work/load.log" "$((s1 - s0))" "$(awk 'END{print $1 + $2}' "$work/wrk-cpu")" "$((b1 - b0))" "$((t1 - t0))" "$hz" "$rep" "$(machine_cores)" <<'PY'
import json, sys
log, server, wrk, busy, total, hz, rep, cores = sys.argv[1:]
r = json.loads(next(l for l in open(log) if l.startswith("WRK_JSON "))[len("WRK_JSON "):])
n, hz = max(1, r["requests"]), int(hz)
us = lambda seconds: seconds * 1e6 / n
cores = int(cores)
print(f"  rep {rep}: {r['rps']:8.0f} req/s  p50 {r['lat_us']['p50'] / 1000:5.2f} ms  p99 {r['lat_us']['p99'] / 1000:5.2f} ms"
      f"  CPU per request: server {us(int(server) / hz):.0f} us, wrk {us(float(wrk)):.0f} us,"
      f" machine {us(int(busy) / hz):.0f} us ({cores * int(busy) / max(1, int(total)):.2f} of the cores busy)")
PY
done
