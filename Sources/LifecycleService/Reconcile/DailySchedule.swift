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
}
