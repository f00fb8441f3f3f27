/// Where an erasure job stands, derived from its steps (``ErasureJob/status``).
///
/// There is deliberately no "completed with exceptions" here: that is a report outcome (DOMAIN.md §6) for a
/// completed erasure whose policy also retained categories under another law, and the report derives it from
/// a `completed` job plus its ``RetentionPlan``s.
public enum ErasureJobStatus: String, Hashable, Sendable, CaseIterable {
    /// No attempt has started yet (waiting for `notBefore`, or due and not yet picked up).
    case scheduled = "scheduled"
    /// At least one attempt started and some step is not final.
    case running = "running"
    /// Every step is `done`: the only status that counts as erased.
    case completed = "completed"
    /// Every step is final and at least one `failed`.
    case failed = "failed"
    /// A re-link cancelled it before it finished.
    case cancelled = "cancelled"
    /// Every step is final, none failed, and at least one is `unverified` (or the job had no target at all):
    /// never reported as completed.
    case unverified = "unverified"

    public init?(canonicalName: String) { self.init(rawValue: canonicalName) }

    public var canonicalName: String { rawValue }

    /// Nothing more will happen to the job.
    public var isFinished: Bool {
        switch self {
        case .completed, .failed, .cancelled, .unverified: true
        case .scheduled, .running: false
        }
    }
}
