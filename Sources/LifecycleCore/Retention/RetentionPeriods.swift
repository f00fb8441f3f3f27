/// How long the store keeps each ``RetentionKind``, in days, and the instant before which a record of a kind
/// has expired.
///
/// The defaults keep what a deletion-compliance report shows for at least 24 months (history and findings:
/// CCPA regulations §7101 keep records of consumer requests and how they were answered for 24 months) and keep
/// personal payloads and operational rows only as long as troubleshooting needs them. The minimums are the
/// floors below which a report or the reconciler would lose what it reads.
public struct RetentionPeriods: Sendable, Equatable {
    public private(set) var days: [RetentionKind: Int]

    public init(days: [RetentionKind: Int] = [:]) {
        var merged = Self.defaultDays
        for (kind, value) in days { merged[kind] = value }
        self.days = merged
    }

    public subscript(kind: RetentionKind) -> Int { days[kind] ?? Self.defaultDays[kind] ?? 0 }

    /// Records of `kind` older than this (by the time the kind is aged by) have expired at `now`.
    public func cutoff(_ kind: RetentionKind, asOf now: Instant) -> Instant {
        now.adding(seconds: -Int64(self[kind]) * 86_400)
    }

    public static let defaultDays: [RetentionKind: Int] = [
        .notificationPayloads: 90, .rejections: 90, .outbox: 30, .history: 730, .findings: 730, .heartbeats: 400,
    ]

    /// The shortest period accepted for each kind, and why (for the configuration's error line).
    public static func minimum(_ kind: RetentionKind) -> (days: Int, reason: String) {
        switch kind {
        case .history, .findings:
            (730, "deletion-compliance reports and records of requests are kept at least 24 months (CCPA §7101)")
        case .heartbeats: (30, "the reconciler reads heartbeats to find notification gaps")
        case .notificationPayloads, .rejections, .outbox: (1, "a record is kept at least a day")
        }
    }
}
