import LifecycleCore

/// "The reports of this app for this day are written": what the `serve` schedule records after writing
/// them, so that of several instances on one database exactly one writes a day's reports, and an instance
/// that reaches the schedule later the same day (a later clock, a restart) does not write them again.
public struct DailyReportRecord: Sendable, Hashable {
    /// The scheduled day, `yyyy-MM-dd` in the schedule's time zone.
    public var day: String
    public var app: String
    /// The instance that wrote them (`host:pid:start`).
    public var instance: String
    public var writtenAt: Instant

    public init(day: String, app: String, instance: String, writtenAt: Instant) {
        self.day = day
        self.app = app
        self.instance = instance
        self.writtenAt = writtenAt
    }
}
