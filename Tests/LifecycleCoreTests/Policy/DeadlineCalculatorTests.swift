import Testing

@testable import LifecycleCore

@Suite("Deadlines in the policy's time zone")
struct DeadlineCalculatorTests {
    func deadline(_ duration: String, from event: String, in zone: String) throws -> String {
        let calculator = try #require(DeadlineCalculator(timeZoneIdentifier: zone))
        let start = try #require(ISO8601Format.parse(event))
        return calculator.instant(try ISODuration.parse(duration), after: start).iso8601
    }

    @Test("5 days in Asia/Seoul run across a month end to the same local time")
    func fiveDaysSeoul() throws {
        #expect(try deadline("P5D", from: "2026-04-28T10:00:00+09:00", in: "Asia/Seoul") == "2026-05-03T01:00:00.000Z")
        #expect(try deadline("P5D", from: "2026-12-29T23:30:00+09:00", in: "Asia/Seoul") == "2027-01-03T14:30:00.000Z")
    }

    @Test("months count on the local date: 31 March in Seoul is 30 March in UTC")
    func monthOnLocalDate() throws {
        // 2026-03-30T16:00Z is 31 March 01:00 in Seoul: one month later is 30 April (clamped) in Seoul.
        #expect(try deadline("P1M", from: "2026-03-30T16:00:00Z", in: "Asia/Seoul") == "2026-04-29T16:00:00.000Z")
        #expect(try deadline("P1M", from: "2026-03-30T16:00:00Z", in: "UTC") == "2026-04-30T16:00:00.000Z")
    }

    @Test("one calendar month from 31 January ends on the last day of February")
    func monthFromJanuary31() throws {
        #expect(
            try deadline("P1M", from: "2026-01-31T10:00:00+01:00", in: "Europe/Brussels") == "2026-02-28T09:00:00.000Z")
        #expect(
            try deadline("P1M", from: "2024-01-31T10:00:00+01:00", in: "Europe/Brussels") == "2024-02-29T09:00:00.000Z")
    }

    @Test("45 days across the spring DST change in Los Angeles keep the local wall time")
    func fortyFiveDaysAcrossDST() throws {
        // 20 Feb 09:00 PST (UTC-8) + 45 days = 6 April 09:00 PDT (UTC-7): 45 × 24 h would land at 10:00 PDT.
        #expect(
            try deadline("P45D", from: "2026-02-20T09:00:00-08:00", in: "America/Los_Angeles")
                == "2026-04-06T16:00:00.000Z")
        // And back across the autumn change: 1 Oct 09:00 PDT + 45 days = 15 Nov 09:00 PST.
        #expect(
            try deadline("P45D", from: "2026-10-01T09:00:00-07:00", in: "America/Los_Angeles")
                == "2026-11-15T17:00:00.000Z")
    }

    @Test("5 years from 29 February end on 28 February")
    func fiveYearsFromLeapDay() throws {
        #expect(try deadline("P5Y", from: "2024-02-29T12:00:00Z", in: "UTC") == "2029-02-28T12:00:00.000Z")
        #expect(try deadline("P4Y", from: "2024-02-29T12:00:00Z", in: "UTC") == "2028-02-29T12:00:00.000Z")
    }

    @Test("hours are elapsed time and the event's milliseconds carry over")
    func hoursAndMilliseconds() throws {
        // 8 March 2026 01:30 PST + 2 h of elapsed time = 04:30 PDT (the clock skips 02:00–03:00).
        #expect(
            try deadline("PT2H", from: "2026-03-08T01:30:00.250-08:00", in: "America/Los_Angeles")
                == "2026-03-08T11:30:00.250Z")
        #expect(try deadline("P0D", from: "2025-07-15T09:36:30.719Z", in: "Asia/Seoul") == "2025-07-15T09:36:30.719Z")
    }

    @Test("a rule's window counts both bounds from the event")
    func window() throws {
        let calculator = try #require(DeadlineCalculator(timeZoneIdentifier: "Asia/Seoul"))
        let rule = ErasureRule(
            on: [.consentRevoked], erase: [.profile], after: ISODuration(days: 30), within: ISODuration(days: 35))
        let window = calculator.window(for: rule, eventTime: try #require(ISO8601Format.parse("2026-01-10T00:00:00Z")))
        #expect(window.notBefore.iso8601 == "2026-02-09T00:00:00.000Z")
        #expect(window.deadline.iso8601 == "2026-02-14T00:00:00.000Z")
    }

    @Test("an unknown time zone gives no calculator")
    func unknownZone() {
        #expect(DeadlineCalculator(timeZoneIdentifier: "Asia/Seol") == nil)
        #expect(DeadlineCalculator(timeZoneIdentifier: "") == nil)
    }

    @Test("deadlines from instants at the ends of Int64 compute without trapping")
    func extremeInstantsSaturate() throws {
        let calculator = try #require(DeadlineCalculator(timeZoneIdentifier: "Europe/Brussels"))
        let longest = try ISODuration.parse("P100000Y100000M100000DT100000H100000M100000S")
        for milliseconds in [Int64.max, Int64.max - 1, Int64.min, 253_402_300_799_999] {
            let start = Instant(millisecondsSinceEpoch: milliseconds)
            _ = calculator.instant(longest, after: start)
            _ = calculator.instant(.zero, after: start)
        }
        let lastMillisecond = Instant(millisecondsSinceEpoch: 253_402_300_799_999)
        #expect(calculator.instant(longest, after: lastMillisecond) > lastMillisecond)
    }
}
