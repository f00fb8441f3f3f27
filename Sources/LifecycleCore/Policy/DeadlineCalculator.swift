import Foundation

/// Turns policy durations into absolute instants in the policy's time zone (DESIGN.md §7: deadlines are
/// computed once, from `event_time`, and stored).
///
/// Calendar units use the Gregorian calendar in that zone: years and months keep the day of month and
/// clamp to the month's end (Jan 31 + P1M = Feb 28 or 29; Feb 29 + P5Y = Feb 28), days and weeks keep the
/// local wall-clock time across daylight-saving changes (an event at 10:00 is due at 10:00 local time).
/// A wall time that does not exist on the target day (spring-forward gap) moves forward past the gap, as
/// Foundation does. Hours, minutes and seconds are then added as elapsed time, as ISO 8601 and
/// `java.time` do. Milliseconds of the event are carried over unchanged.
public struct DeadlineCalculator: Sendable {
    public let timeZone: TimeZone
    private let calendar: Calendar

    public init(timeZone: TimeZone) {
        self.timeZone = timeZone
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        self.calendar = calendar
    }

    /// Nil when the IANA identifier is unknown.
    public init?(timeZoneIdentifier: String) {
        guard let zone = TimeZone(identifier: timeZoneIdentifier) else { return nil }
        self.init(timeZone: zone)
    }

    /// The calculator for a validated policy.
    public init(policy: ErasurePolicy) {
        self.init(timeZone: TimeZone(identifier: policy.timeZoneIdentifier) ?? TimeZone(secondsFromGMT: 0)!)
    }

    /// The instant `duration` after `start`.
    public func instant(_ duration: ISODuration, after start: Instant) -> Instant {
        let (wholeSeconds, millis) = start.millisecondsSinceEpoch.quotientAndRemainder(dividingBy: 1000)
        let base = Date(timeIntervalSince1970: TimeInterval(wholeSeconds))
        var calendarPart = DateComponents()
        calendarPart.year = duration.years
        calendarPart.month = duration.months
        calendarPart.day = duration.weeks * 7 + duration.days
        let shifted = calendar.date(byAdding: calendarPart, to: base) ?? base
        let elapsed = Int64(duration.hours) * 3600 + Int64(duration.minutes) * 60 + Int64(duration.seconds)
        // Saturating: an instant near the ends of Int64 (a hostile or corrupt event time) must give the
        // latest representable deadline, not an overflow trap.
        let shiftedSeconds = Self.saturating(shifted.timeIntervalSince1970.rounded())
        let seconds = shiftedSeconds.addingReportingOverflow(elapsed)
        let milliseconds = seconds.overflow ? nil : seconds.partialValue.multipliedReportingOverflow(by: 1000)
        guard let milliseconds, !milliseconds.overflow else {
            return Instant(millisecondsSinceEpoch: elapsed >= 0 ? .max : .min)
        }
        let total = milliseconds.partialValue.addingReportingOverflow(millis)
        return Instant(millisecondsSinceEpoch: total.overflow ? .max : total.partialValue)
    }

    /// `Int64(value)` without trapping: out-of-range values clamp, NaN reads as 0.
    private static func saturating(_ value: Double) -> Int64 {
        if value.isNaN { return 0 }
        if value >= 9_223_372_036_854_775_807.0 { return .max }
        if value <= -9_223_372_036_854_775_808.0 { return .min }
        return Int64(value)
    }

    /// The window a rule gives a job started by an event: not before `after`, due by `within`.
    public func window(for rule: ErasureRule, eventTime: Instant) -> ErasureWindow {
        ErasureWindow(
            notBefore: instant(rule.after, after: eventTime), deadline: instant(rule.within, after: eventTime))
    }

    /// When a retained category's own purge is due.
    public func purgeDate(for retention: RetentionRule, eventTime: Instant) -> Instant {
        instant(retention.period, after: eventTime)
    }

    /// The local wall-clock reading of an instant in this zone, `yyyy-MM-dd HH:mm`, for explanations.
    public func localText(_ instant: Instant) -> String {
        let date = Date(timeIntervalSince1970: TimeInterval(instant.millisecondsSinceEpoch / 1000))
        let parts = calendar.dateComponents([.year, .month, .day, .hour, .minute], from: date)
        func pad(_ value: Int?, _ width: Int) -> String {
            let digits = String(value ?? 0)
            return String(repeating: "0", count: max(0, width - digits.count)) + digits
        }
        return "\(pad(parts.year, 4))-\(pad(parts.month, 2))-\(pad(parts.day, 2)) "
            + "\(pad(parts.hour, 2)):\(pad(parts.minute, 2))"
    }
}

/// Absolute bounds of one erasure job.
public struct ErasureWindow: Hashable, Sendable {
    /// Erasure must not start before this (the waiting period, cancellable by a re-link).
    public var notBefore: Instant
    /// Erasure must be complete by this.
    public var deadline: Instant

    public init(notBefore: Instant, deadline: Instant) {
        self.notBefore = notBefore
        self.deadline = deadline
    }
}
