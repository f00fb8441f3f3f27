import LifecycleCore

/// A verified notification about to be stored. `app` is the configured app the audience routed to.
public struct NewNotification: Sendable, Hashable {
    public var app: String
    public var notification: VerifiedNotification
    public var receivedAt: Instant
    /// SHA-256 (hex) of the raw request body, for evidence without keeping a second copy.
    public var bodySHA256: String
    /// The compact JWS as received; scrubbed by the `self` erasure target later.
    public var rawJWS: String
    /// How it arrived: `notification` (HTTP), `replay` (`lifecycle ingest`).
    public var source: String

    public init(
        app: String, notification: VerifiedNotification, receivedAt: Instant, bodySHA256: String, rawJWS: String,
        source: String
    ) {
        self.app = app
        self.notification = notification
        self.receivedAt = receivedAt
        self.bodySHA256 = bodySHA256
        self.rawJWS = rawJWS
        self.source = source
    }
}

/// What ``StoreWriter/insertNotification(_:)`` did.
public enum InboxInsertion: Sendable, Hashable {
    /// Stored as a new row with this id.
    case inserted(id: Int64)
    /// Already present under the same `jti`; the id of the earlier row.
    case duplicateJTI(existingID: Int64)
    /// Already present under a different `jti` with the same (app, sub, type, event_time).
    case duplicateEvent(existingID: Int64)
}

/// A stored inbox row.
public struct StoredNotification: Sendable, Hashable {
    public var id: Int64
    public var app: String
    public var notification: VerifiedNotification
    public var receivedAt: Instant
    public var bodySHA256: String
    public var source: String

    public init(
        id: Int64, app: String, notification: VerifiedNotification, receivedAt: Instant, bodySHA256: String,
        source: String
    ) {
        self.id = id
        self.app = app
        self.notification = notification
        self.receivedAt = receivedAt
        self.bodySHA256 = bodySHA256
        self.source = source
    }
}

/// An attempt that failed verification. No body content is kept: only its size and hash.
public struct NewRejection: Sendable, Hashable {
    public var reason: ReasonCode
    public var receivedAt: Instant
    public var bodySize: Int
    public var bodySHA256: String
    /// The audience when it could be read (an unknown audience is itself a rejection reason).
    public var audience: String?
    public var source: String

    public init(
        reason: ReasonCode, receivedAt: Instant, bodySize: Int, bodySHA256: String, audience: String? = nil,
        source: String
    ) {
        self.reason = reason
        self.receivedAt = receivedAt
        self.bodySize = bodySize
        self.bodySHA256 = bodySHA256
        self.audience = audience
        self.source = source
    }
}

public struct StoredRejection: Sendable, Hashable {
    public var id: Int64
    public var rejection: NewRejection
    public init(id: Int64, rejection: NewRejection) {
        self.id = id
        self.rejection = rejection
    }
}
