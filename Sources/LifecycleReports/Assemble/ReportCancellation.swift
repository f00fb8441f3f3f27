import LifecycleCore

/// What a re-link cancelled of one deletion request: the user signed in again while jobs whose rule says
/// `cancelIfRelinked` were still waiting (DESIGN.md §5), so those jobs stopped, with the reason the scheduler
/// recorded. Jobs of other rules (e.g. token erasure, which no sign-in undoes) keep their own outcome.
public struct ReportCancellation: Hashable, Sendable {
    /// When the re-link cancelled the jobs (the latest when several were cancelled).
    public var cancelledAt: Instant?
    /// The reason recorded on the jobs, e.g. `relinked (linked at 2026-11-28T09:00:00.000Z)`.
    public var reason: String
    /// The cancelled steps, as `target rule` (e.g. `app-db rules[2]`), in job order.
    public var steps: [String]

    public init(cancelledAt: Instant?, reason: String, steps: [String]) {
        self.cancelledAt = cancelledAt
        self.reason = reason
        self.steps = steps
    }

    /// One line for the CSV and HTML renderers.
    public var summaryText: String {
        "\(steps.joined(separator: ", ")) cancelled at \(cancelledAt?.iso8601 ?? "?"): \(reason)"
    }
}
