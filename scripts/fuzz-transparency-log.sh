#!/usr/bin/env bash
# Fuzzes every TransparencyLog parser of outside input (signed notes, checkpoints, tlog-proof receipts,
# verifier keys, tile paths, tiles, entry bundles) with libFuzzer and AddressSanitizer, through
# TransparencyLogParsing.parseAll.
#
#   scripts/fuzz-transparency-log.sh [SECONDS]     (default 60)
#
# SwiftPM cannot build one target with -sanitize=fuzzer, so this compiles the TransparencyLog and
# LifecycleCrypto sources as one module with swiftc in a temporary directory. Exits non-zero on a crash; the
# crashing input is left in that directory and its path printed.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-60}"
work="$(mktemp -d)"
mkdir -p "$work/src" "$work/corpus"
cp Sources/LifecycleCrypto/*.swift "$work/src/"
for file in $(find Sources/TransparencyLog -name '*.swift'); do
  sed '/^import LifecycleCrypto$/d' "$file" > "$work/src/tl_$(basename "$file")"
done
cat > "$work/harness.swift" <<'SWIFT'
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    _ = TransparencyLogParsing.parseAll(Array(UnsafeBufferPointer(start: data, count: size)))
    return 0
}
SWIFT
fixtures=Tests/TransparencyLogTests/Fixtures
python3 - "$fixtures" "$work/corpus" <<'PY'
import json, sys
v = json.load(open(sys.argv[1] + "/signed-note-vectors.json"))
out = sys.argv[2]
open(out + "/note", "w").write(v["text"] + "\n" + v["peterSignature"] + v["enochSignature"])
open(out + "/vkey", "w").write(v["peterVerifierKey"])
open(out + "/checkpoint", "w").write(v["sumdbCheckpoints"][0])
open(out + "/tile", "w").write("tile/2/x001/x234/067.p/17")
open(out + "/proof", "w").write("c2sp.org/tlog-proof@v1\nextra YWdl\nindex 73894\n"
    "gSKyXoYZUgZ6jduWYrkDOARinOMGJveXjgMkBTcdPlQ=\n\n" + v["sumdbCheckpoints"][1])
open(out + "/bundle", "wb").write(b"\x00\x03abc\x00\x00\x00\x01z")
PY
swiftc -O -sanitize=fuzzer,address -parse-as-library -module-name FuzzTransparencyLog \
  -Xcc -fmodule-map-file=Sources/COpenSSL/module.modulemap -I Sources/COpenSSL \
  "$work"/src/*.swift "$work/harness.swift" -o "$work/fuzz" -lssl -lcrypto
cd "$work"
./fuzz -max_total_time="$seconds" -max_len=4096 -print_final_stats=1 corpus
echo "no crash in ${seconds}s; work directory: $work"
