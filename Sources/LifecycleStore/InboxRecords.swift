import LifecycleCore

/// A verified notification about to be stored. `app` is the configured app the audience routed to.
///
/// The store never keeps a personal value in the clear: the event's e-mail address is dropped here, and the
/// caller passes it, and the raw JWS, sealed under the subject's data key (nil when there is none to keep,
/// or when the subject's data has been erased and must stay so).
public struct NewNotification: Sendable, Hashable {
    public var app: String
    /// The verified notification, its event's `email` always nil (it travels sealed in ``sealedEmail``).
    public private(set) var notification: VerifiedNotification
    public var receivedAt: Instant
    /// SHA-256 (hex) of the raw request body, for evidence without keeping a second copy.
    public var bodySHA256: String
    /// The relay e-mail address, sealed (``SealedColumn/notificationEmail``).
    public var sealedEmail: [UInt8]?
    /// The compact JWS as received, sealed (``SealedColumn/notificationToken``).
    public var sealedRawJWS: [UInt8]?
    /// How it arrived: `notification` (HTTP), `replay` (`lifecycle ingest`).
    public var source: String

    public init(
        app: String, notification: VerifiedNotification, receivedAt: Instant, bodySHA256: String,
        sealedEmail: [UInt8]?, sealedRawJWS: [UInt8]?, source: String
    ) {
        var notification = notification
        notification.event.email = nil
        self.app = app
        self.notification = notification
        self.receivedAt = receivedAt
        self.bodySHA256 = bodySHA256
        self.sealedEmail = sealedEmail
        self.sealedRawJWS = sealedRawJWS
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
    /// As verified, without the e-mail address (see ``sealedEmail``).
    public var notification: VerifiedNotification
    public var receivedAt: Instant
    public var bodySHA256: String
    public var source: String
    /// The sealed relay e-mail and raw JWS; nil once erased.
    public var sealedEmail: [UInt8]?
    public var sealedRawJWS: [UInt8]?

    public init(
        id: Int64, app: String, notification: VerifiedNotification, receivedAt: Instant, bodySHA256: String,
        source: String, sealedEmail: [UInt8]? = nil, sealedRawJWS: [UInt8]? = nil
    ) {
        self.id = id
        self.app = app
        self.notification = notification
        self.receivedAt = receivedAt
        self.bodySHA256 = bodySHA256
        self.source = source
        self.sealedEmail = sealedEmail
        self.sealedRawJWS = sealedRawJWS
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
