import Testing

@testable import LifecycleCore

@Suite("ISO 8601 instants")
struct ISO8601FormatTests {
    @Test("formats Apple's millisecond event_time as a UTC instant")
    func formatsMilliseconds() {
        #expect(Instant(millisecondsSinceEpoch: 1_752_572_190_719).iso8601 == "2025-07-15T09:36:30.719Z")
        #expect(Instant(secondsSinceEpoch: 0).iso8601 == "1970-01-01T00:00:00.000Z")
        #expect(Instant(secondsSinceEpoch: -1).iso8601 == "1969-12-31T23:59:59.000Z")
    }

    @Test(
        "parses what it formats, offsets and bare epoch numbers",
        arguments: [
            ("2025-07-15T09:36:30.719Z", Int64(1_752_572_190_719)),
            ("2025-07-15T18:36:30.719+09:00", 1_752_572_190_719),
            ("2024-02-29", 1_709_164_800_000),
            ("1752572190719", 1_752_572_190_719),
            ("1508184845", 1_508_184_845_000),
        ])
    func parses(text: String, expected: Int64) {
        #expect(ISO8601Format.parse(text)?.millisecondsSinceEpoch == expected)
    }

    @Test(
        "rejects malformed instants",
        arguments: ["", "2025-13-01", "2023-02-29", "2025-07-15T25:00Z", "+5", "2025-07-15T09:36"])
    func rejects(text: String) {
        #expect(ISO8601Format.parse(text) == nil)
    }

    /// Regression: `.1234` (4 to 9 digits) built the range `4..<3` and trapped, taking `serve` down through
    /// the admin API and every command that takes a time.
    @Test(
        "1 to 9 fractional digits are accepted and truncated to milliseconds",
        arguments: [
            ("2026-01-01T00:00:00.1Z", Int64(100)), ("2026-01-01T00:00:00.12Z", 120),
            ("2026-01-01T00:00:00.123Z", 123), ("2026-01-01T00:00:00.1234Z", 123),
            ("2026-01-01T00:00:00.123456Z", 123), ("2026-01-01T00:00:00.999999999Z", 999),
            ("2026-01-01T00:00:00.000000001+00:00", 0),
        ])
    func fractionalDigitsUpToNine(text: String, millisecondsOfSecond: Int64) throws {
        let instant = try #require(ISO8601Format.parse(text))
        #expect(instant.millisecondsSinceEpoch == 1_767_225_600_000 + millisecondsOfSecond)
    }

    @Test(
        "more than 9 fractional digits, and an empty fraction, are refused",
        arguments: [
            "2026-01-01T00:00:00.1234567890Z", "2026-01-01T00:00:00.12345678901Z", "2026-01-01T00:00:00.123456789012Z",
            "2026-01-01T00:00:00.Z", "2026-01-01T00:00:00." + String(repeating: "1", count: 100_000) + "Z",
        ])
    func tooManyFractionalDigits(text: String) {
        #expect(ISO8601Format.parse(text) == nil)
    }

    @Test(
        "edge instants: leap second, years 0000 and 9999, offsets up to ±23:59 but not ±24:00",
        arguments: [
            ("2016-12-31T23:59:60Z", "2016-12-31T23:59:59.000Z"), ("0000-01-01T00:00:00Z", "0000-01-01T00:00:00.000Z"),
            ("9999-12-31T23:59:59.999Z", "9999-12-31T23:59:59.999Z"),
            ("2026-01-01T14:00:00+14:00", "2026-01-01T00:00:00.000Z"),
            ("2026-01-01T00:00:00-14:00", "2026-01-01T14:00:00.000Z"),
        ])
    func edgeInstants(text: String, formatted: String) {
        #expect(ISO8601Format.parse(text)?.iso8601 == formatted)
    }

    @Test(
        "offsets of 24 hours and seconds past 60 are refused",
        arguments: [
            "2026-01-01T00:00:00+24:00", "2026-01-01T00:00:00-24:00", "2026-01-01T00:00:61Z",
        ])
    func refusedEdges(text: String) {
        #expect(ISO8601Format.parse(text) == nil)
    }

    @Test("every instant from year 0000 to 9999 formats as 24 bytes that parse back to it")
    func formatRoundTrip() {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        let earliest = ISO8601Format.parse("0000-01-01T00:00:00Z")!.millisecondsSinceEpoch
        let span = UInt64(ISO8601Format.latest.millisecondsSinceEpoch - earliest + 1)
        var samples: [Int64] = [earliest, 0, 999, 86_399_999, ISO8601Format.latest.millisecondsSinceEpoch]
        for _ in 0..<20_000 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            samples.append(earliest + Int64((state >> 11) % span))
        }
        for ms in samples {
            let text = Instant(millisecondsSinceEpoch: ms).iso8601
            #expect(text.utf8.count == 24 && text.hasSuffix("Z"), "\(ms): \(text)")
            #expect(ISO8601Format.parse(text)?.millisecondsSinceEpoch == ms, "\(ms): \(text)")
        }
    }
}
