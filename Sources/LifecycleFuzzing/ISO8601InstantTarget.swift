import LifecycleCore

/// RFC 3339 / ISO 8601 instants: every `--at`, `--as-of`, `--from`, `eventTime` and manifest time.
///
/// Properties: an accepted text formats to the canonical `yyyy-MM-ddTHH:mm:ss.SSSZ`, which parses back to the
/// same instant; any instant of the years 0000–9999 taken from the input round-trips through format and
/// parse; a fraction of more than 9 digits is refused.
enum ISO8601InstantTarget {
    static let target = FuzzTarget(
        name: "iso8601-instant",
        summary: "ISO 8601 instants: parse-format-parse same instant, format-parse round trip for 0000-9999, "
            + "at most 9 fractional digits",
        check: check)

    /// 0000-01-01T00:00:00.000Z and 9999-12-31T23:59:59.999Z.
    static let earliest: Int64 = -62_167_219_200_000
    static let latest: Int64 = 253_402_300_799_999

    static func check(_ bytes: [UInt8]) throws(PropertyFailure) {
        let text = String(decoding: bytes, as: UTF8.self)
        if let instant = ISO8601Format.parse(text), (earliest...latest).contains(instant.millisecondsSinceEpoch) {
            let formatted = instant.iso8601
            try require(formatted.utf8.count == 24, "canonical form \(formatted) is not 24 characters")
            try require(ISO8601Format.parse(formatted) == instant, "\(formatted) does not parse back")
        }
        // In an accepted text the only "." is the one before the fraction.
        if ISO8601Format.parse(text) != nil, let dot = text.utf8.firstIndex(of: UInt8(ascii: ".")) {
            let digits = text.utf8[text.utf8.index(after: dot)...].prefix { $0 >= 0x30 && $0 <= 0x39 }.count
            try require(digits <= ISO8601Format.maximumFractionDigits, "a fraction of \(digits) digits was accepted")
        }
        var random = FuzzRandom(bytes: bytes)
        let span = UInt64(latest - earliest + 1)
        let milliseconds = earliest + Int64(random.next() % span)
        let instant = Instant(millisecondsSinceEpoch: milliseconds)
        try require(ISO8601Format.parse(instant.iso8601) == instant, "\(instant.iso8601) does not parse back")
    }
}
