import LifecycleCore
import LifecycleStore
import SharedSignals

/// The stream events a provider's transmitter sent (SSF 1.0 §8.1.4 verification, §8.1.5 stream-updated), as
/// the inbox keeps them: under the provider's stream key, which carries the verification's `state` or the
/// stream's new `status`, so `lifecycle signals stream verify` and `show` find them without opening the
/// sealed SET. Neither value is personal: the state is the receiver's own random value.
public enum SignalStreamEvents {
    static let format = "stream"

    /// `<provider>:stream:verification:<state>`, `<provider>:stream:stream-updated:<status>`, or
    /// `<provider>:stream` for any other event that names no account.
    static func key(provider: String, token: SecurityEventToken) -> String {
        let values: [String] =
            switch token.eventType {
            case .verification: ["verification", token.state ?? ""]
            case .streamUpdated: ["stream-updated", token.status ?? ""]
            default: []
            }
        return ProviderSubject(provider: provider, format: format, values: values).accountKey
    }

    /// One stream event read back.
    public struct Received: Sendable, Hashable {
        /// The verification's `state` or the stream-updated `status`.
        public var value: String
        public var receivedAt: Instant
    }

    /// When the verification carrying `state` arrived, nil while it has not. Both URIs a verification has
    /// (SSF's and RISC's, which Google sends) are looked at.
    public static func verification(
        app: String, provider: String, state: String, in store: any Store
    ) async throws -> Instant? {
        let key = ProviderSubject(provider: provider, format: format, values: ["verification", state]).accountKey
        for uri in SecurityEventType.verification.allURIs {
            let found = try await store.read { reader in
                try reader.latestSecurityEvents(app: app, typeURI: uri, subjectPrefix: key, limit: 1)
            }
            if let first = found.first(where: { $0.subject == key }) { return first.receivedAt }
        }
        return nil
    }

    /// The newest verification and stream-updated events of the provider.
    public static func latest(
        app: String, provider: String, in store: any Store
    ) async throws -> (verification: Received?, streamUpdated: Received?) {
        func newest(_ type: SecurityEventType, _ kind: String) async throws -> Received? {
            let prefix = ProviderSubject(provider: provider, format: format, values: [kind]).accountKey + ":"
            var best: Received?
            for uri in type.allURIs {
                let found = try await store.read { reader in
                    try reader.latestSecurityEvents(app: app, typeURI: uri, subjectPrefix: prefix, limit: 1)
                }
                guard let first = found.first, let parsed = ProviderSubject(accountKey: first.subject),
                    parsed.values.count == 2
                else { continue }
                if best.map({ $0.receivedAt < first.receivedAt }) ?? true {
                    best = Received(value: parsed.values[1], receivedAt: first.receivedAt)
                }
            }
            return best
        }
        return (try await newest(.verification, "verification"), try await newest(.streamUpdated, "stream-updated"))
    }
}
