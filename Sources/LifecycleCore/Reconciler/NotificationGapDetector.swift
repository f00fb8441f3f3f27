/// Finds the windows in which no instance of the service was receiving notifications, from the heartbeats
/// each instance records (DESIGN.md §8 `notification-gap`). Apple publishes no retry schedule, so a window
/// with no instance up is assumed to have lost its notifications (DOMAIN.md §3) and the report says so.
public enum NotificationGapDetector {
    /// The gaps within `[from, to]`.
    ///
    /// All instances' heartbeats are merged: the service is down only when EVERY instance is. A gap is a
    /// stretch longer than `thresholdMilliseconds` with no heartbeat from any instance; its window runs from
    /// the last heartbeat before it (clipped to `from`) to the next one (clipped to `to`), the conservative
    /// reading: the service may have died right after the last beat.
    ///
    /// The latest heartbeat at or before `from` counts; without one, `from` itself is taken as the start, so
    /// a range starting where history was pruned does not open with a false gap. No heartbeat at all in a range
    /// longer than the threshold is one gap covering it. A silence running past `to` is a gap when the part
    /// inside the range alone exceeds the threshold.
    ///
    /// - Parameters:
    ///   - heartbeats: one list per instance (each in any order; they are sorted together).
    ///   - thresholdMilliseconds: the longest silence that is not a gap: a few heartbeat intervals, from
    ///     configuration.
    public static func gaps(heartbeats: [[Instant]], thresholdMilliseconds: Int64, from: Instant, to: Instant)
        -> [FindingWindow]
    {
        guard from < to else { return [] }
        let beats = heartbeats.joined().sorted()
        var last = beats.last(where: { $0 <= from }) ?? from
        var windows: [FindingWindow] = []
        func silence(_ start: Instant, _ end: Instant) -> Bool {
            end.millisecondsSinceEpoch - start.millisecondsSinceEpoch > thresholdMilliseconds
        }
        for beat in beats where beat > from {
            if beat > to { break }
            if silence(last, beat) {
                windows.append(FindingWindow(from: max(last, from), to: beat))
            }
            last = beat
        }
        if silence(last, to) {
            windows.append(FindingWindow(from: max(last, from), to: to))
        }
        return windows
    }

    /// The gaps as `notification-gap` findings.
    public static func findings(heartbeats: [[Instant]], thresholdMilliseconds: Int64, from: Instant, to: Instant)
        -> [Finding]
    {
        gaps(heartbeats: heartbeats, thresholdMilliseconds: thresholdMilliseconds, from: from, to: to).map {
            Finding(
                code: .notificationGap, subject: nil,
                detail: "no instance recorded a heartbeat from \($0.from.iso8601) to \($0.to.iso8601) "
                    + "(\($0.durationMilliseconds / 60_000) min); notifications sent then may be lost",
                window: $0)
        }
    }
}
