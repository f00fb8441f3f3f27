#!/usr/bin/env bash
# receipt-floor.sh [N] [PARENT] — the file system's floor under a month's report receipts: N (default
# 1,000,000) files of a receipt's size created in one directory under PARENT (default var/), then one syncfs,
# as `lifecycle bench report` writes them, by a minimal C loop (receipt-floor.c) that computes nothing. The
# directory is removed afterwards (not timed). README, "Performance", quotes it.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
source "$ROOT/scripts/bench/lib.sh"
N="${1:-1000000}"
PARENT="${2:-$ROOT/var}"
mkdir -p "$PARENT"
work="$(mktemp -d "$PARENT/receipt-floor.XXXXXX")"
trap 'rm -rf "$work"' EXIT
cc -O2 -Wall -Wextra -o "$work/receipt-floor" "$ROOT/scripts/bench/receipt-floor.c"
echo "receipt-floor: $(uname -m), $(machine_cores) cores, $(df -T "$PARENT" | awk 'NR==2{print $2}') at $PARENT, $(uptime | sed 's/.*load average/load average/')"
"$work/receipt-floor" "$work/receipts" "$N"
