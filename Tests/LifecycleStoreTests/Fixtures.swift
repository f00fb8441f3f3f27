import Foundation
import LifecycleCore
import LifecycleStore

/// Realistic records, shaped like Apple's real traffic (millisecond `event_time`, `exp` = `iat` + 1 day).
enum Fixtures {
    static let receivedAt = Instant(millisecondsSinceEpoch: 1_752_572_191_000)

    static func notification(
        jti: String = "jti-0001", app: String = "shop", sub: String = "001234.5f8e2a.0957",
        type: AppleEventType = .consentRevoked, eventTimeMs: Int64 = 1_752_572_190_719,
        isPrivateEmail: Bool? = nil, email: String? = nil, source: String = "notification"
    ) -> NewNotification {
        let issuedAt = Instant(millisecondsSinceEpoch: 1_752_572_190_000)
        let verified = VerifiedNotification(
            jti: jti, audience: "com.example.shop", issuer: "https://appleid.apple.com", issuedAt: issuedAt,
            expiresAt: issuedAt.adding(seconds: 86_400), keyID: "rs0M3kOV9p",
            event: AppleEvent(
                type: type, subject: sub, eventTime: Instant(millisecondsSinceEpoch: eventTimeMs),
                isPrivateEmail: isPrivateEmail, email: email))
        return NewNotification(
            app: app, notification: verified, receivedAt: receivedAt,
            bodySHA256: "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
            sealedEmail: email.map { sealed($0) },
            sealedRawJWS: sealed("eyJraWQiOiJyczBNM2tPVjlwIiwiYWxnIjoiUlMyNTYifQ.e30.c2ln"),
            source: source)
    }

    /// Stand-in sealed bytes: the store keeps them as they come (sealing is the service's part).
    static func sealed(_ text: String) -> [UInt8] {
        [1] + Array(text.utf8).reversed()
    }

    static func rejection(
        reason: ReasonCode = .badSignature, bodySize: Int = 812, audience: String? = "com.example.shop",
        source: String = "notification"
    ) -> NewRejection {
        NewRejection(
            reason: reason, receivedAt: receivedAt, bodySize: bodySize,
            bodySHA256: "2c26b46b68ffc68ff99b453c1d30413413422d706483bfa0f98a5e886266e7ae", audience: audience,
            source: source)
    }
}

/// A body error that tests throw on purpose.
struct PlannedFailure: Error, Equatable {
    var index: Int
}

extension Fixtures {
    static func instant(_ offsetSeconds: Int64) -> Instant {
        receivedAt.adding(seconds: offsetSeconds)
    }

    /// A deleted account with every optional field set, each to a different value.
    static let fullAccount = AccountRecord(
        state: .deleted, lastAppliedEventTime: instant(-10), emailForwarding: false,
        emailForwardingEventTime: instant(-300), emailForwardingInput: .emailDisabled, accessEventTime: instant(-200),
        accessInput: .credentialsInvalid, createdAt: instant(-4_000), updatedAt: instant(-5), deletedAt: instant(-10),
        deletedBy: .inAppDeletion)

    /// A new account that has heard nothing but its first sign-in: every optional field empty.
    static let sparseAccount = AccountRecord(
        state: .linked, lastAppliedEventTime: instant(-60), emailForwarding: true, emailForwardingEventTime: nil,
        emailForwardingInput: nil, accessEventTime: nil, accessInput: nil, createdAt: instant(0),
        updatedAt: instant(0), deletedAt: nil, deletedBy: nil)

    static func outboxMessage(
        app: String = "shop", subject: String = "001234.5f8e2a.0957", kind: String = "account.sessions.terminate",
        availableAt: Instant = receivedAt, messageID: String? = nil
    ) -> NewOutboxMessage {
        NewOutboxMessage(
            app: app, subject: subject, kind: kind, payload: #"{"type":"\#(kind)","sub":"\#(subject)"}"#,
            messageID: messageID ?? "msg_test_\(UUID().uuidString.lowercased())", availableAt: availableAt)
    }
}
