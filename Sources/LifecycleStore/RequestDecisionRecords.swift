import LifecycleCore

/// What the controller decided about a deletion request besides erasing it.
public enum RequestDecisionKind: String, Sendable, Hashable, CaseIterable {
    /// The deadline was extended (GDPR Art. 12(3), CCPA regulations §7021(b)); the request's open erasure jobs
    /// carry the new deadline.
    case `extension`
    /// A legal hold: the erasure is not run while it is in force (released when `releasedAt` is set).
    case hold
    /// The request was refused on a stated basis (CCPA regulations §7101(a): the basis for the denial); its
    /// open erasure jobs are cancelled with that reason.
    case refusal
}

/// One deletion request as its erasure jobs key it: the account, the policy trigger its event started and the
/// event time.
public struct DeletionRequestKey: Sendable, Hashable {
    public var app: String
    public var subject: String
    public var trigger: PolicyTrigger
    public var eventTime: Instant

    public init(app: String, subject: String, trigger: PolicyTrigger, eventTime: Instant) {
        self.app = app
        self.subject = subject
        self.trigger = trigger
        self.eventTime = eventTime
    }
}

/// A decision to record (``StoreWriter/recordRequestDecision(_:)``).
public struct NewRequestDecision: Sendable, Hashable {
    public var request: DeletionRequestKey
    public var kind: RequestDecisionKind
    /// The reason of an extension, the grounds of a hold, the basis of a refusal. Operator text: it must not
    /// hold the subject's identifiers.
    public var reason: String
    /// When the subject was told of the extension.
    public var noticeAt: Instant?
    /// The request's deadline before an extension.
    public var previousDeadline: Instant?
    /// The extended deadline.
    public var newDeadline: Instant?
    public var recordedAt: Instant

    public init(
        request: DeletionRequestKey, kind: RequestDecisionKind, reason: String, noticeAt: Instant? = nil,
        previousDeadline: Instant? = nil, newDeadline: Instant? = nil, recordedAt: Instant
    ) {
        self.request = request
        self.kind = kind
        self.reason = reason
        self.noticeAt = noticeAt
        self.previousDeadline = previousDeadline
        self.newDeadline = newDeadline
        self.recordedAt = recordedAt
    }
}

/// A `request_decisions` row.
public struct StoredRequestDecision: Sendable, Hashable {
    public var id: Int64
    public var decision: NewRequestDecision
    /// When a hold was released; nil while it is in force, and for the other kinds.
    public var releasedAt: Instant?
    public var releaseReason: String?

    public init(id: Int64, decision: NewRequestDecision, releasedAt: Instant?, releaseReason: String?) {
        self.id = id
        self.decision = decision
        self.releasedAt = releasedAt
        self.releaseReason = releaseReason
    }

    public var kind: RequestDecisionKind { decision.kind }
    public var request: DeletionRequestKey { decision.request }
}
