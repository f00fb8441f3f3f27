import Foundation
import LifecycleCore
import Testing

@testable import LifecycleServer

@Suite("Daily reconcile schedule")
struct DailyScheduleTests {
    @Test("03:00 in Seoul is 18:00 UTC the day before, and the next one is a day later")
    func seoul() throws {
        let schedule = DailySchedule(hour: 3, minute: 0, timeZone: try #require(TimeZone(identifier: "Asia/Seoul")))
        let first = schedule.next(after: try #require(ISO8601Format.parse("2026-11-29T12:00:00Z")))
        #expect(first.iso8601 == "2026-11-29T18:00:00.000Z")
        #expect(schedule.next(after: first).iso8601 == "2026-11-30T18:00:00.000Z")
    }

    @Test("local time is kept across a DST change (America/Los_Angeles, 2026-03-08)")
    func daylightSaving() throws {
        let schedule = DailySchedule(
            hour: 3, minute: 30, timeZone: try #require(TimeZone(identifier: "America/Los_Angeles")))
        let before = schedule.next(after: try #require(ISO8601Format.parse("2026-03-06T12:00:00Z")))
        #expect(before.iso8601 == "2026-03-07T11:30:00.000Z")  // 03:30 PST (UTC-8)
        let after = schedule.next(after: before)
        #expect(after.iso8601 == "2026-03-08T10:30:00.000Z")  // 03:30 PDT (UTC-7): same local time, 23 h later
    }

    @Test("a run belongs to the day of its zone: 03:00 in Seoul on the 30th is the 29th in UTC")
    func dayOfTheZone() throws {
        let seoul = DailySchedule(hour: 3, minute: 0, timeZone: try #require(TimeZone(identifier: "Asia/Seoul")))
        let run = seoul.next(after: try #require(ISO8601Format.parse("2026-11-29T12:00:00Z")))
        #expect(seoul.day(of: run) == "2026-11-30")
        let utc = DailySchedule(hour: 3, minute: 0, timeZone: try #require(TimeZone(identifier: "UTC")))
        #expect(utc.day(of: run) == "2026-11-29")
    }

    @Test("the last occurrence at or before an instant: the same day once passed, the day before until then")
    func previousOccurrence() throws {
        let schedule = DailySchedule(hour: 3, minute: 0, timeZone: try #require(TimeZone(identifier: "Asia/Seoul")))
        // 18:00 UTC is 03:00 the next day in Seoul.
        let at = try #require(ISO8601Format.parse("2026-11-29T18:00:00Z"))
        #expect(schedule.previous(atOrBefore: at) == at, "an occurrence is its own last one")
        #expect(schedule.previous(atOrBefore: at.adding(seconds: 60)) == at)
        #expect(schedule.previous(atOrBefore: at.adding(seconds: -1)).iso8601 == "2026-11-28T18:00:00.000Z")
        #expect(schedule.day(of: schedule.previous(atOrBefore: at.adding(seconds: 60))) == "2026-11-30")
    }

    @Test("across a DST change the last occurrence keeps its local time (America/Los_Angeles, 2026-03-08)")
    func previousAcrossDaylightSaving() throws {
        let schedule = DailySchedule(
            hour: 3, minute: 30, timeZone: try #require(TimeZone(identifier: "America/Los_Angeles")))
        // 2026-03-08 10:30 UTC is 03:30 PDT; an hour before it the last one is 03:30 PST the day before.
        let after = try #require(ISO8601Format.parse("2026-03-08T10:30:00Z"))
        #expect(schedule.previous(atOrBefore: after.adding(seconds: 5)) == after)
        #expect(schedule.previous(atOrBefore: after.adding(seconds: -3600)).iso8601 == "2026-03-07T11:30:00.000Z")
    }

    @Test("a local time the spring DST jump skips runs at the first instant after it, once that day, both ways")
    func skippedLocalTime() throws {
        // 2026-03-08 in Los Angeles: 02:00 PST jumps to 03:00 PDT; 02:30 does not exist that day.
        let schedule = DailySchedule(
            hour: 2, minute: 30, timeZone: try #require(TimeZone(identifier: "America/Los_Angeles")))
        let jumped = schedule.next(after: try #require(ISO8601Format.parse("2026-03-08T05:00:00Z")))
        #expect(jumped.iso8601 == "2026-03-08T10:00:00.000Z", "03:00 PDT, the first instant after 02:30")
        #expect(schedule.day(of: jumped) == "2026-03-08")
        #expect(schedule.previous(atOrBefore: jumped.adding(seconds: 5)) == jumped)
        #expect(schedule.previous(atOrBefore: jumped.adding(seconds: -5)).iso8601 == "2026-03-07T10:30:00.000Z")
        #expect(schedule.next(after: jumped).iso8601 == "2026-03-09T09:30:00.000Z")
    }

    @Test("a local time the autumn DST change repeats runs once that day, at its first occurrence, both ways")
    func repeatedLocalTime() throws {
        // 2026-11-01 in Los Angeles: 02:00 PDT falls back to 01:00 PST; 01:30 happens twice (08:30Z and 09:30Z).
        let schedule = DailySchedule(
            hour: 1, minute: 30, timeZone: try #require(TimeZone(identifier: "America/Los_Angeles")))
        let first = schedule.next(after: try #require(ISO8601Format.parse("2026-11-01T05:00:00Z")))
        #expect(first.iso8601 == "2026-11-01T08:30:00.000Z")
        let following = schedule.next(after: first)
        #expect(following.iso8601 == "2026-11-02T09:30:00.000Z", "not again at 09:30Z the same day")
        let repeated = try #require(ISO8601Format.parse("2026-11-01T09:45:00Z"))
        #expect(schedule.previous(atOrBefore: repeated) == first, "one occurrence that day")
    }
}
