# peer-bench.sh — sourced by the benchmark scripts: sets PEER_BENCH to the reference peer's folder (the first
# shared/bench with setup.sh above ROOT) unless it is set, or exits 2 with one line naming NAME.
#   find_peer_bench NAME ROOT
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
