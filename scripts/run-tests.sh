#!/usr/bin/env bash
# The test phase of `make test`, after the build: the parallel suite, and beside it, in a test process of its
# own, the two-instance test followed by the testssl.sh scan.
#
#   scripts/run-tests.sh BUNDLE WIDTH
#
# BUNDLE is the built AccountLifecyclePackageTests.xctest, WIDTH the most test cases the suite runs at once.
# Run it under scripts/with-postgres.sh (the two-instance test needs PostgreSQL and is skipped, saying why,
# without it).
#
# - The two-instance test (two `serve` processes, most of its time spent waiting on them) starts first, so it
#   is not queued behind the rest.
# - The testssl.sh scan (one `serve`, a few hundred TLS handshakes one after another, about a core for 15 s)
#   runs when that test has finished, while the suite is still running, instead of after it.
# - Their output is printed after the suite's (.build/beside.log). Exits 0 when all three passed.
set -uo pipefail

if [ "$#" -ne 2 ]; then
  echo "usage: $0 BUNDLE WIDTH" >&2
  exit 64
fi
bundle=$1
width=$2
log=.build/beside.log

(
  "$bundle" --testing-library swift-testing --filter MultiInstanceTests >"$log" 2>&1
  two=$?
  LIFECYCLE_TESTSSL=1 "$bundle" --testing-library swift-testing --filter TestsslScanTests >>"$log" 2>&1
  scan=$?
  echo "two-instance test exit $two, testssl scan exit $scan" >>"$log"
  [ "$two" -eq 0 ] && [ "$scan" -eq 0 ]
) &
beside=$!

"$bundle" --testing-library swift-testing --experimental-maximum-parallelization-width "$width" \
  --skip MultiInstanceTests --skip TestsslScanTests
suite=$?
wait "$beside"
besideStatus=$?
cat "$log"
echo "make test: suite exit $suite, beside it: exit $besideStatus"
[ "$suite" -eq 0 ] && [ "$besideStatus" -eq 0 ]
