import LifecycleCore

/// Where an outbox message stands. A claimed message stays `pending`: its lease, not its status, says a
/// runner is working on it, so an expired lease needs no clean-up to make it claimable again.
public enum OutboxStatus: String, Sendable, Hashable, CaseIterable {
    /// Waiting for delivery, or being delivered under a lease.
    case pending
    /// The receiver acknowledged it (a 2xx): done.
    case delivered
    /// Given up after the configured attempts; stays for reports until retried by hand.
    case dead
}

/// A message to enqueue in the same transaction as the state change that caused it (DESIGN.md §6).
public struct NewOutboxMessage: Sendable, Hashable {
    public var app: String
    /// The account's `sub`: messages of one (app, sub) are delivered in enqueue order.
    public var subject: String
    /// The event type the receiver sees, e.g. `account.sessions.terminate`.
    public var kind: String
    /// The body the service built (JSON); the store keeps it as text and never reads it.
    public var payload: String
    /// The `webhook-id` every delivery of this message carries (``WebhookMessageID``): unique across stores,
    /// fixed here so every retry sends the same one. The store refuses a second message with the same id.
    public var messageID: String
    /// The first attempt is not made before this instant.
    public var availableAt: Instant
    /// When the message was enqueued; the same as ``availableAt`` unless given.
    public var createdAt: Instant

    public init(
        app: String, subject: String, kind: String, payload: String, messageID: String, availableAt: Instant,
        createdAt: Instant? = nil
    ) {
        self.app = app
        self.subject = subject
        self.kind = kind
        self.payload = payload
        self.messageID = messageID
        self.availableAt = availableAt
        self.createdAt = createdAt ?? availableAt
    }
}

/// A stored outbox message with its delivery bookkeeping.
public struct OutboxMessage: Sendable, Hashable {
    /// The store's row id: the order of enqueueing, and the id the admin API and CLI name a message by.
    public var id: Int64
    /// The `webhook-id` of every delivery (``NewOutboxMessage/messageID``).
    public var messageID: String
    public var app: String
    public var subject: String
    public var kind: String
    public var payload: String
    public var status: OutboxStatus
    /// Claims so far (each claim is one delivery attempt); reset to 0 by a manual retry.
    public var attempts: Int
    public var createdAt: Instant
    /// The next attempt is not made before this instant.
    public var availableAt: Instant
    /// The runner that claimed it last; cleared when a failure sends it back to `pending`.
    public var leaseOwner: String?
    /// The lease is live while `now < leasedUntil`; nil when not leased.
    public var leasedUntil: Instant?
    /// When the last attempt finished (delivered or failed).
    public var lastAttemptAt: Instant?
    /// The last failure, as the dispatcher described it (never a `sub`, e-mail or token).
    public var lastError: String?
    /// The HTTP status of the last attempt, when there was a response.
    public var lastStatusCode: Int?
    public var deliveredAt: Instant?

    public init(
        id: Int64, messageID: String, app: String, subject: String, kind: String, payload: String,
        status: OutboxStatus, attempts: Int, createdAt: Instant, availableAt: Instant, leaseOwner: String?,
        leasedUntil: Instant?, lastAttemptAt: Instant?, lastError: String?, lastStatusCode: Int?,
        deliveredAt: Instant?
    ) {
        self.id = id
        self.messageID = messageID
        self.app = app
        self.subject = subject
        self.kind = kind
        self.payload = payload
        self.status = status
        self.attempts = attempts
        self.createdAt = createdAt
        self.availableAt = availableAt
        self.leaseOwner = leaseOwner
        self.leasedUntil = leasedUntil
        self.lastAttemptAt = lastAttemptAt
        self.lastError = lastError
        self.lastStatusCode = lastStatusCode
        self.deliveredAt = deliveredAt
    }
}
