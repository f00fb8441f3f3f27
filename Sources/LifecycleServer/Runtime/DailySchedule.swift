import Foundation
import LifecycleCore

/// "Every day at HH:MM in this time zone": the next occurrence after a given instant, on the calendar of
/// that zone (so a DST change moves the UTC instant, not the local time; a local time skipped by a DST jump
/// runs at the first instant after it).
struct DailySchedule: Sendable {
    var hour: Int
    var minute: Int
    var timeZone: TimeZone

    func next(after instant: Instant) -> Instant {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let date = Date(timeIntervalSince1970: Double(instant.millisecondsSinceEpoch) / 1000)
        let components = DateComponents(hour: hour, minute: minute, second: 0)
        let next =
            calendar.nextDate(after: date, matching: components, matchingPolicy: .nextTime)
            ?? date.addingTimeInterval(86_400)
        return Instant(millisecondsSinceEpoch: Int64((next.timeIntervalSince1970 * 1000).rounded()))
    }

    /// The last occurrence at or before `instant`: the one `serve` may have missed if it was not running then.
    /// Found by stepping ``next(after:)`` forward from 26 hours before (no day of a zone is longer than 25), so
    /// a DST change is handled exactly as the forward schedule handles it.
    func previous(atOrBefore instant: Instant) -> Instant {
        var last = next(after: instant.adding(seconds: -26 * 3600))
        while true {
            let following = next(after: last)
            guard following <= instant else { return last }
            last = following
        }
    }

    /// The calendar day of `instant` in this zone, `yyyy-MM-dd`: the day a scheduled run belongs to.
    func day(of instant: Instant) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let date = Date(timeIntervalSince1970: Double(instant.millisecondsSinceEpoch) / 1000)
        let parts = calendar.dateComponents([.year, .month, .day], from: date)
        func padded(_ value: Int?, _ width: Int) -> String {
            let text = String(value ?? 0)
            return String(repeating: "0", count: max(0, width - text.count)) + text
        }
        return "\(padded(parts.year, 4))-\(padded(parts.month, 2))-\(padded(parts.day, 2))"
    }
}
