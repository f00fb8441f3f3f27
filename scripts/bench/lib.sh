# lib.sh — sourced by the benchmark scripts (bench-peer.sh and those in bench/). The helpers that run Python
# use $PY, the peer venv's interpreter, which peer_setup sets.

# find_peer_bench NAME ROOT: sets PEER_BENCH to the reference peer's folder (the first shared/bench with
# setup.sh above ROOT) unless it is set, or exits 2 with one line naming NAME.
find_peer_bench() {
  local name="$1" root="$2" dir
  if [[ -z "${PEER_BENCH:-}" ]]; then
    dir="$root"
    while [[ "$dir" != "/" ]]; do
      dir="$(dirname "$dir")"
      if [[ -f "$dir/shared/bench/setup.sh" ]]; then PEER_BENCH="$dir/shared/bench"; break; fi
    done
  fi
  [[ -n "${PEER_BENCH:-}" && -f "$PEER_BENCH/setup.sh" ]] || {
    echo "$name: the reference peer (shared/bench with setup.sh) was not found above $root; set PEER_BENCH" >&2
    exit 2
  }
}

# peer_setup NAME ROOT WORKDIR: finds the peer (find_peer_bench), runs its setup.sh into WORKDIR once per
# machine (wrk, sqlite3, the venv, the deterministic data; idempotent, its output kept when VERBOSE_SETUP=1),
# and sets DATA (the generated bodies and jwks.json) and PY (the venv's interpreter).
peer_setup() {
  local name="$1" root="$2" workdir="$3"
  find_peer_bench "$name" "$root"
  mkdir -p "$workdir"
  workdir="$(cd "$workdir" && pwd)"
  if [[ "${VERBOSE_SETUP:-0}" == 1 ]]; then
    bash "$PEER_BENCH/setup.sh" "$workdir"
  else
    bash "$PEER_BENCH/setup.sh" "$workdir" >/dev/null
  fi
  DATA="$workdir/data"
  PY="$workdir/.venv/bin/python"
}

# lifecycle_bin NAME ROOT: sets BIN to $LIFECYCLE_BIN, else to the release build, built first unless
# BENCH_SKIP_BUILD=1; exits 2 with one line naming NAME when there is no executable there.
lifecycle_bin() {
  local name="$1" root="$2"
  if [[ "${BENCH_SKIP_BUILD:-0}" != 1 && -z "${LIFECYCLE_BIN:-}" ]]; then
    (cd "$root" && swift build -c release --product lifecycle)
  fi
  BIN="${LIFECYCLE_BIN:-$(cd "$root" && swift build -c release --show-bin-path)/lifecycle}"
  [[ -x "$BIN" ]] || {
    echo "$name: no lifecycle executable at $BIN (set LIFECYCLE_BIN to one, or run without BENCH_SKIP_BUILD)" >&2
    exit 2
  }
}

# kill_on_exit: every process whose PID a script appends to PIDS is killed and reaped when it exits, however.
PIDS=()
kill_on_exit() {
  trap 'for pid in "${PIDS[@]}"; do kill -KILL "$pid" 2>/dev/null || true; done
        for pid in "${PIDS[@]}"; do wait "$pid" 2>/dev/null || true; done' EXIT
}

# free_port: a port on 127.0.0.1 nothing listens on now.
free_port() {
  "$PY" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'
}

# wait_http URL: until anything answers HTTP at URL (20 s).
wait_http() {
  "$PY" - "$1" <<'PY'
import sys, time, urllib.request, urllib.error
deadline = time.time() + 20
while time.time() < deadline:
    try:
        urllib.request.urlopen(sys.argv[1], timeout=1).read()
        sys.exit(0)
    except urllib.error.HTTPError:
        sys.exit(0)
    except Exception:
        time.sleep(0.1)
sys.exit(1)
PY
}

# cpu_ticks PID...: user + system clock ticks of the processes and all their live descendants, with what their
# reaped children used (/proc/<pid>/stat utime, stime, cutime, cstime): a worker that exits during a run counts.
cpu_ticks() {
  "$PY" - "$@" <<'PY'
import os, sys
stats = {}
for entry in os.listdir("/proc"):
    if entry.isdigit():
        try:
            text = open(f"/proc/{entry}/stat").read()
        except OSError:
            continue
        fields = text[text.rindex(")") + 2:].split()
        stats[int(entry)] = (int(fields[1]), sum(int(value) for value in fields[11:15]))
roots = {int(p) for p in sys.argv[1:] if p}
total, frontier = 0, set(roots)
while frontier:
    total += sum(stats[p][1] for p in frontier if p in stats)
    frontier = {p for p, (parent, _) in stats.items() if parent in frontier and p not in roots}
    roots |= frontier
print(total)
PY
}

# machine_ticks: busy and total clock ticks of all CPUs so far (/proc/stat; idle, iowait and steal are not busy).
# (user, nice, system, idle, iowait, irq, softirq, steal; guest time is already inside user and nice.)
machine_ticks() { awk '/^cpu /{t=0; for(i=2;i<=9;i++) t+=$i; print t-$5-$6-$9, t}' /proc/stat; }

# machine_cores: the CPUs machine_ticks adds up (one cpuN line each in /proc/stat), so that busy / total ticks
# times it is the number of cores busy.
machine_cores() { grep -c '^cpu[0-9]' /proc/stat; }
