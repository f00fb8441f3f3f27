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
}
