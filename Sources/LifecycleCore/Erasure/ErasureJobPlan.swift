/// One erasure job to schedule: the frozen answer to "what must be erased where, by when, under which rule"
/// for one account event (DESIGN.md §7, DOMAIN.md §6).
///
/// Everything a report needs is fixed here at scheduling time: absolute instants (never recomputed from
/// "days left") and the policy reference `id@version#sha256`, so a report can always say which rules a job
/// ran under.
public struct ErasureJobPlan: Hashable, Sendable {
    /// `id@version#sha256` of the policy the job was planned from.
    public var policyReference: String
    /// The event that started the job.
    public var trigger: PolicyTrigger
    /// The event time the instants were computed from.
    public var eventTime: Instant
    /// Which policy entry the job comes from.
    public var origin: ErasureJobOrigin
    /// The categories to erase, in the rule's order.
    public var categories: [DataCategory]
    /// The targets that hold those categories, de-duplicated in first-mention order, with
    /// ``ErasurePlanner/selfTarget`` always last: the service's own copy (relay e-mail, tokens) goes only after
    /// the app's targets, and its tombstone keeps the data deleted (CCPA §7022(e)).
    public var targets: [String]
    /// Erasure must not start before this (the rule's `after`, a waiting period a re-link may cancel).
    public var notBefore: Instant
    /// Erasure must be complete by this (the rule's `within`).
    public var deadline: Instant
    /// Whether a newer sign-in cancels the job while it is not finished.
    public var cancelIfRelinked: Bool
    /// The legal basis, quoted in reports.
    public var basis: String?

    public init(
        policyReference: String, trigger: PolicyTrigger, eventTime: Instant, origin: ErasureJobOrigin,
        categories: [DataCategory], targets: [String], notBefore: Instant, deadline: Instant,
        cancelIfRelinked: Bool, basis: String?
    ) {
        self.policyReference = policyReference
        self.trigger = trigger
        self.eventTime = eventTime
        self.origin = origin
        self.categories = categories
        self.targets = targets
        self.notBefore = notBefore
        self.deadline = deadline
        self.cancelIfRelinked = cancelIfRelinked
        self.basis = basis
    }

    /// The index into the policy's `rules[]` for an erasure job; nil for a retention purge.
    public var ruleIndex: Int? {
        switch origin {
        case .rule(let index): index
        case .retention: nil
        }
    }
}

/// The policy entry a job was planned from.
public enum ErasureJobOrigin: Hashable, Sendable {
    /// `rules[index]`: erasure after an account event.
    case rule(index: Int)
    /// `retain[index]`: the purge of a category kept under another law, when its retention ends.
    case retention(index: Int)

    /// `rules[2]` / `retain[0]`: the JSON path, for reports and messages.
    public var path: String {
        switch self {
        case .rule(let index): "rules[\(index)]"
        case .retention(let index): "retain[\(index)]"
        }
    }
}
