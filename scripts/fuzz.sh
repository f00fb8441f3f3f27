#!/usr/bin/env bash
# Runs every libFuzzer target of .build/fuzz/release/lifecycle-fuzz (built by `make fuzz`) and prints one
# line per target plus the totals. Each target runs for SECONDS; one that has not reached FUZZ_MIN_RUNS
# executions by then (default 1,000,000: a slow target, or a machine busy with other work) continues
# over the same corpus until it has, so every campaign covers at least that many inputs per target.
# Each target starts from its checked-in seeds in Fuzz/Corpus/<target> and works in
# .build/fuzz/corpus/<target> (kept between runs, never checked in); a crash or property failure leaves its
# input in .build/fuzz/artifacts/ and makes the campaign fail.
#
#   scripts/fuzz.sh SECONDS [TARGET...]      FUZZ_SECONDS_<target, - as _>=N sets one target's time
set -uo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
shift || true
minimum=${FUZZ_MIN_RUNS:-1000000}
binary=.build/fuzz/release/lifecycle-fuzz
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  mapfile -t targets < <(ls Fuzz/Corpus)
fi
mkdir -p .build/fuzz/artifacts .build/fuzz/logs

# run TARGET LOG OPTION...: one libFuzzer run; prints its executed inputs; returns its status.
run() {
  local target=$1 log=$2
  shift 2
  LIFECYCLE_FUZZ_TARGET=$target ASAN_OPTIONS=detect_leaks=0 "$binary" ".build/fuzz/corpus/$target" \
    "Fuzz/Corpus/$target" -timeout=10 -rss_limit_mb=2048 -max_len=4096 -print_final_stats=1 \
    -artifact_prefix=".build/fuzz/artifacts/$target-" "$@" >"$log" 2>&1
  local status=$?
  local runs
  runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' | tail -1)
  echo "${runs:-0}"
  return $status
}

printf '%-22s %8s %14s %10s %s\n' target seconds executions exec/s result
total=0
failed=0
for target in "${targets[@]}"; do
  override="FUZZ_SECONDS_${target//-/_}"
  time=${!override:-$seconds}
  mkdir -p ".build/fuzz/corpus/$target"
  started=$(date +%s)
  runs=$(run "$target" ".build/fuzz/logs/$target.log" -max_total_time="$time")
  status=$?
  if [ $status -eq 0 ] && [ "$runs" -lt "$minimum" ]; then
    more=$(run "$target" ".build/fuzz/logs/$target-more.log" -runs=$((minimum - runs)))
    status=$?
    runs=$((runs + more))
  fi
  elapsed=$(( $(date +%s) - started ))
  rate=$(( runs / (elapsed > 0 ? elapsed : 1) ))
  if [ $status -eq 0 ]; then result=ok; else result="FAILED ($status, see .build/fuzz/logs/$target*.log)"; failed=$((failed + 1)); fi
  printf '%-22s %8s %14s %10s %s\n' "$target" "$elapsed" "$runs" "$rate" "$result"
  total=$((total + runs))
done
printf '%-22s %8s %14s\n' total "" "$total"
if [ $failed -ne 0 ]; then
  echo "fuzz: $failed target(s) found a crash or property failure; inputs are in .build/fuzz/artifacts/"
  exit 1
fi
echo "fuzz: 0 crashes, 0 property failures"
