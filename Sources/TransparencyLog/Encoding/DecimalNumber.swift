/// ASCII decimal numbers as c2sp.org/tlog-checkpoint and tlog-proof write them: digits only, no sign, no
/// leading zeroes unless the number is `0`.
///
/// Parsing checks overflow on every step: sizes and indices come from files an attacker may have written,
/// and an overflowing multiplication would trap the whole process.
enum DecimalNumber {
    static func parse<Bytes: Collection<UInt8>>(_ text: Bytes) -> UInt64? {
        guard let first = text.first, !text.isEmpty else { return nil }
        if first == UInt8(ascii: "0") { return text.count == 1 ? 0 : nil }
        var value: UInt64 = 0
        for byte in text {
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
            let (times10, overflow1) = value.multipliedReportingOverflow(by: 10)
            let (sum, overflow2) = times10.addingReportingOverflow(UInt64(byte - UInt8(ascii: "0")))
            guard !overflow1, !overflow2 else { return nil }
            value = sum
        }
        return value
    }
}
