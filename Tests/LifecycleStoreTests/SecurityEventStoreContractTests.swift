import LifecycleCore
import LifecycleStore
import Testing

/// What every ``Store`` promises about reading a provider's stream events back. Parameterised by
/// ``StoreFactory``.
@Suite("Store contract: security events")
struct SecurityEventStoreContractTests {
    static let verification = "https://schemas.openid.net/secevent/ssf/event-type/verification"

    static func event(_ jti: String, subject: String, at seconds: Int64, type: String = verification)
        -> NewSecurityEvent
    {
        let instant = Instant(secondsSinceEpoch: 1_767_225_600 + seconds)
        return NewSecurityEvent(
            app: "shop", provider: "idp", jti: jti, issuer: "https://idp.example/", audience: "https://rp.example/",
            subject: subject, eventTypeURI: type, eventTime: instant, issuedAt: instant, expiresAt: nil, keyID: "k1",
            receivedAt: instant, bodySHA256: String(repeating: "0", count: 64), sealedRawSET: nil, source: "signal")
    }

    @Test(
        "latestSecurityEvents: only the type and subject prefix asked for, newest first, at most the limit",
        arguments: StoreFactory.all)
    func latestByPrefix(factory: StoreFactory) async throws {
        try await withStore(factory) { store, _ in
            try await store.write { writer in
                _ = try writer.insertSecurityEvent(Self.event("a", subject: "idp:stream:verification:s1", at: 1))
                _ = try writer.insertSecurityEvent(Self.event("b", subject: "idp:stream:verification:s2", at: 2))
                _ = try writer.insertSecurityEvent(Self.event("c", subject: "okta:stream:verification:s3", at: 3))
                _ = try writer.insertSecurityEvent(
                    Self.event(
                        "d", subject: "idp:stream:stream-updated:paused", at: 4,
                        type: "https://schemas.openid.net/secevent/ssf/event-type/stream-updated"))
            }
            let found = try await store.read { reader in
                try reader.latestSecurityEvents(
                    app: "shop", typeURI: Self.verification, subjectPrefix: "idp:stream:verification:", limit: 10)
            }
            #expect(found.map(\.subject) == ["idp:stream:verification:s2", "idp:stream:verification:s1"])
            let one = try await store.read { reader in
                try reader.latestSecurityEvents(
                    app: "shop", typeURI: Self.verification, subjectPrefix: "idp:stream:verification:", limit: 1)
            }
            #expect(one.map(\.subject) == ["idp:stream:verification:s2"])
            let none = try await store.read { reader in
                try reader.latestSecurityEvents(
                    app: "blog", typeURI: Self.verification, subjectPrefix: "idp:", limit: 10)
            }
            #expect(none.isEmpty)
        }
    }
}
