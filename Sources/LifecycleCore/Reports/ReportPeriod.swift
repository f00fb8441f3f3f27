/// The half-open span `[from, to)` a report covers: deletion requests whose event time falls inside it.
/// Half-open so consecutive reports (one day, the next day) neither overlap nor leave a gap.
public struct ReportPeriod: Hashable, Sendable {
    public static let millisecondsPerDay: Int64 = 86_400_000

    /// Days a report covers when no period is given (`report generate` without `--from`/`--to`, the daily
    /// reports of `serve`, the demo).
    public static let defaultDays: Int64 = 30

    public var from: Instant
    public var to: Instant

    public init(from: Instant, to: Instant) {
        self.from = from
        self.to = to
    }

    /// The ``defaultDays`` whole UTC days up to and including the day `now` falls on.
    public static func recent(asOf now: Instant) -> ReportPeriod {
        let to = startOfDay(now).adding(milliseconds: millisecondsPerDay)
        return ReportPeriod(from: to.adding(milliseconds: -defaultDays * millisecondsPerDay), to: to)
    }

    public func contains(_ instant: Instant) -> Bool { from <= instant && instant < to }

    /// The start (00:00 UTC) of every UTC day the period touches, oldest first, at most `limit` of them.
    public func days(limit: Int) -> [Instant] {
        var day = Self.startOfDay(from)
        var result: [Instant] = []
        while day < to && result.count < limit {
            result.append(day)
            day = day.adding(milliseconds: Self.millisecondsPerDay)
        }
        return result
    }

    /// 00:00 UTC of the day `instant` falls on.
    public static func startOfDay(_ instant: Instant) -> Instant {
        let ms = instant.millisecondsSinceEpoch
        let remainder = ((ms % millisecondsPerDay) + millisecondsPerDay) % millisecondsPerDay
        return Instant(millisecondsSinceEpoch: ms - remainder)
    }

    /// `yyyy-MM-dd` of the UTC day `instant` falls on.
    public static func dayName(_ instant: Instant) -> String { String(instant.iso8601.prefix(10)) }
}
