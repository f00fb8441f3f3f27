import LifecycleCore

/// A Security Event Token (RFC 8417) whose signature, issuer, audience and times were verified, with its event
/// decoded. Holds the subject identifier (personal: print it, never log it).
public struct SecurityEventToken: Hashable, Sendable {
    /// `jti`: unique per issuer (RFC 8417 §2.2), the de-duplication key.
    public var jti: String
    public var issuer: String
    /// The `aud` value that matched the configured audiences.
    public var audience: String
    public var issuedAt: Instant
    /// `exp` when present (not checked under ``SignalProfile/googleRISC``).
    public var expiresAt: Instant?
    public var keyID: String
    /// The event this SET carries (SSF 1.0 §4: one event per SET; further members of `events` are alternative
    /// URIs for the same event and are kept in ``otherEventTypes``).
    public var eventType: SecurityEventType
    public var otherEventTypes: [String]
    /// When the event happened: CAEP `event_timestamp` in the event, else the SET's `toe`, else `iat`.
    public var eventTime: Instant
    /// The subject, from `sub_id` (SSF 1.0 §4.1) or the event's `subject` (RISC, Google); nil only for a
    /// stream event (verification, stream-updated) that names none.
    public var subject: SubjectIdentifier?
    /// `reason` of the event when it is a string (RISC `account-disabled`: `hijacking`, `bulk-account`).
    public var reason: String?
    /// The `reason` values RISC 1.0 §2.3 defines for `account-disabled`.
    public static let registeredReasons: Set<String> = ["hijacking", "bulk-account"]
    /// ``reason`` as it may be logged: a registered value as it is, any other text `unregistered`. A
    /// transmitter is free to put a sentence there, and a sentence can name the person it is about.
    public var reasonForLog: String? {
        reason.map { Self.registeredReasons.contains($0) ? $0 : "unregistered" }
    }
    /// `state` of a verification event (SSF 1.0 §8.1.4.1), recorded so that `stream verify` can match it.
    public var state: String?
    /// `status` of a stream-updated event (SSF 1.0 §8.1.5: `enabled`, `paused`, `disabled`).
    public var status: String?
    /// `new-value` of an identifier-changed event (RISC 1.0 §2.5): the subject's new e-mail address or phone
    /// number. Personal, like the subject.
    public var newValue: String?

    public init(
        jti: String, issuer: String, audience: String, issuedAt: Instant, expiresAt: Instant?, keyID: String,
        eventType: SecurityEventType, otherEventTypes: [String], eventTime: Instant, subject: SubjectIdentifier?,
        reason: String?, state: String?, status: String? = nil, newValue: String? = nil
    ) {
        self.jti = jti
        self.issuer = issuer
        self.audience = audience
        self.issuedAt = issuedAt
        self.expiresAt = expiresAt
        self.keyID = keyID
        self.eventType = eventType
        self.otherEventTypes = otherEventTypes
        self.eventTime = eventTime
        self.subject = subject
        self.reason = reason
        self.state = state
        self.status = status
        self.newValue = newValue
    }
}
