import Testing

@testable import LifecycleCore

@Suite("ISO 8601 durations")
struct ISODurationTests {
    @Test(
        "parses every designator in order",
        arguments: [
            ("P5D", ISODuration(days: 5)),
            ("P0D", ISODuration.zero),
            ("P1M", ISODuration(months: 1)),
            ("P5Y", ISODuration(years: 5)),
            ("P2W", ISODuration(weeks: 2)),
            ("PT12H", ISODuration(hours: 12)),
            ("P1Y2M3W4DT5H6M7S", ISODuration(years: 1, months: 2, weeks: 3, days: 4, hours: 5, minutes: 6, seconds: 7)),
            ("PT90M", ISODuration(minutes: 90)),
        ])
    func parses(text: String, expected: ISODuration) throws {
        #expect(try ISODuration.parse(text) == expected)
    }

    @Test(
        "rejects garbage",
        arguments: [
            "", "P", "PT", "P1DT", "5D", "p5d", "P5", "P1M2Y", "P1D1D", "P1.5D", "P+5D", "P 5D", "P5DX", "PT1D",
            "P999999999999999999999D", "P100001D",
        ])
    func rejectsGarbage(text: String) {
        #expect(throws: ISODuration.ParseError.malformed) { try ISODuration.parse(text) }
    }

    @Test("rejects negative durations", arguments: ["-P5D", "P-5D", "PT-1H"])
    func rejectsNegative(text: String) {
        #expect(throws: ISODuration.ParseError.negative) { try ISODuration.parse(text) }
    }

    @Test("renders canonical text and plain words")
    func renders() throws {
        #expect(try ISODuration.parse("P1Y6M").description == "P1Y6M")
        #expect(ISODuration(days: 1, hours: 2).description == "P1DT2H")
        #expect(ISODuration.zero.description == "P0D")
        #expect(ISODuration(years: 1, months: 6).plainWords == "1 year and 6 months")
        #expect(ISODuration(days: 45).plainWords == "45 days")
        #expect(ISODuration(weeks: 1, days: 2, hours: 3).plainWords == "1 week, 2 days and 3 hours")
    }
}
