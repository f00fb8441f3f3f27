/// A category kept after an account deletion because another law requires it (a policy `retain[]` entry),
/// and when it must be purged (DESIGN.md §7: "a retained category gets its own purge job when its retention
/// ends"). Reports list it as a retained item with its legal basis and purge date (DOMAIN.md §6).
public struct RetentionPlan: Hashable, Sendable {
    /// `id@version#sha256` of the policy.
    public var policyReference: String
    /// The index into the policy's `retain[]`.
    public var retentionIndex: Int
    public var category: DataCategory
    /// The deletion event the period runs from.
    public var eventTime: Instant
    /// Event time plus the retention period, in the policy's time zone.
    public var purgeAt: Instant
    /// The law that requires keeping it.
    public var basis: String
    /// Whether it must be stored apart from live data meanwhile (PIPA Art. 21(3)).
    public var separate: Bool
    /// The deletion trigger that started the retention.
    public var trigger: PolicyTrigger

    public init(
        policyReference: String, retentionIndex: Int, category: DataCategory, eventTime: Instant, purgeAt: Instant,
        basis: String, separate: Bool, trigger: PolicyTrigger
    ) {
        self.policyReference = policyReference
        self.retentionIndex = retentionIndex
        self.category = category
        self.eventTime = eventTime
        self.purgeAt = purgeAt
        self.basis = basis
        self.separate = separate
        self.trigger = trigger
    }

    /// The purge job that runs when the retention ends: not before and due at ``purgeAt``, never cancelled by
    /// a re-link (the account is deleted), targets from the same mapping as erasure jobs.
    public func purgeJob(categoryTargets: [String: [String]]) -> ErasureJobPlan {
        ErasureJobPlan(
            policyReference: policyReference, trigger: trigger, eventTime: eventTime,
            origin: .retention(index: retentionIndex), categories: [category],
            targets: ErasurePlanner.targets(for: [category], categoryTargets: categoryTargets), notBefore: purgeAt,
            deadline: purgeAt, cancelIfRelinked: false, basis: basis)
    }
}
