/// The event types of OpenID Shared Signals transmitters this service knows, by their URI: CAEP 1.0 §3, RISC
/// 1.0 §2, the OAuth token events of the RISC profile, and the stream events of SSF 1.0 §8.1. Any other URI
/// is kept verbatim as ``unknown(_:)``: stored, answered 202 and counted, never refused (RFC 8935 §2.2 asks
/// only that the SET be valid, not that its event be understood).
public enum SecurityEventType: Hashable, Sendable {
    case accountPurged
    case accountDisabled
    case accountEnabled
    case accountCredentialChangeRequired
    case credentialCompromise
    case identifierChanged
    case identifierRecycled
    /// RISC `sessions-revoked`, deprecated in favour of CAEP `session-revoked` but still sent.
    case sessionsRevoked
    case sessionRevoked
    case credentialChange
    case tokenClaimsChange
    case assuranceLevelChange
    case deviceComplianceChange
    case tokenRevoked
    case tokensRevoked
    /// SSF 1.0 §8.1.4 `verification` (and the RISC spelling Google's `stream:verify` sends): the receiver
    /// proves it receives, echoing nothing but recording the `state`.
    case verification
    case streamUpdated
    case unknown(String)

    static let risc = "https://schemas.openid.net/secevent/risc/event-type/"
    static let caep = "https://schemas.openid.net/secevent/caep/event-type/"
    static let oauth = "https://schemas.openid.net/secevent/oauth/event-type/"
    static let ssf = "https://schemas.openid.net/secevent/ssf/event-type/"

    /// Every known type with its URIs; the first URI is the one written back.
    static let known: [(type: SecurityEventType, uris: [String])] = [
        (.accountPurged, [risc + "account-purged"]),
        (.accountDisabled, [risc + "account-disabled"]),
        (.accountEnabled, [risc + "account-enabled"]),
        (.accountCredentialChangeRequired, [risc + "account-credential-change-required"]),
        (.credentialCompromise, [risc + "credential-compromise"]),
        (.identifierChanged, [risc + "identifier-changed"]),
        (.identifierRecycled, [risc + "identifier-recycled"]),
        (.sessionsRevoked, [risc + "sessions-revoked"]),
        (.sessionRevoked, [caep + "session-revoked"]),
        (.credentialChange, [caep + "credential-change"]),
        (.tokenClaimsChange, [caep + "token-claims-change"]),
        (.assuranceLevelChange, [caep + "assurance-level-change"]),
        (.deviceComplianceChange, [caep + "device-compliance-change"]),
        (.tokenRevoked, [oauth + "token-revoked"]),
        (.tokensRevoked, [oauth + "tokens-revoked"]),
        (.verification, [ssf + "verification", risc + "verification"]),
        (.streamUpdated, [ssf + "stream-updated"]),
    ]

    /// The event types a new stream asks for when the provider lists no `events` (SSF 1.0 §8.1.1
    /// `events_requested`): every known account event. Stream events (verification, stream-updated) are
    /// delivered without being asked for (SSF 1.0 §8.1.4, §8.1.5).
    public static var requestedByDefault: [String] {
        known.filter { $0.type != .verification && $0.type != .streamUpdated }.map { $0.uris[0] }
    }

    /// Decodes an event-type URI, compared exactly (RFC 8417 §2.2: the URIs are case-sensitive).
    public init(uri: String) {
        self = Self.known.first { $0.uris.contains(uri) }?.type ?? .unknown(uri)
    }

    /// The URI as a transmitter sends it.
    public var uri: String {
        if case .unknown(let raw) = self { return raw }
        return Self.known.first { $0.type == self }?.uris.first ?? ""
    }

    /// Every URI of the type (a verification has SSF's and RISC's); the unknown type's own.
    public var allURIs: [String] {
        if case .unknown(let raw) = self { return [raw] }
        return Self.known.first { $0.type == self }?.uris ?? []
    }

    /// The last path segment (`account-purged`), for metrics and logs; `unknown` for every unknown URI so a
    /// hostile transmitter cannot grow the label set.
    public var shortName: String {
        switch self {
        case .unknown: "unknown"
        default: String(uri.split(separator: "/").last ?? "unknown")
        }
    }

    public var isKnown: Bool {
        if case .unknown = self { return false }
        return true
    }

    /// What the event does to the account it names: the mapping into the per-account state machine
    /// (README, "Security events").
    public var effect: SecurityEventEffect {
        switch self {
        case .accountPurged: .input(.accountDeleted)
        case .accountDisabled: .input(.accessSuspended)
        case .accountEnabled: .input(.linked)
        case .credentialChange, .accountCredentialChangeRequired, .sessionRevoked, .sessionsRevoked:
            .input(.sessionsRevoked)
        case .tokenRevoked, .tokensRevoked: .input(.credentialsInvalid)
        case .verification: .verification
        case .identifierChanged, .identifierRecycled, .credentialCompromise, .tokenClaimsChange,
            .assuranceLevelChange, .deviceComplianceChange, .streamUpdated, .unknown:
            .recorded
        }
    }
}

/// What a security event does once it is stored.
public enum SecurityEventEffect: Hashable, Sendable {
    /// One input of the named account's state machine.
    case input(AccountInputKind)
    /// A stream verification (SSF 1.0 §8.1.4): recorded with its `state`, no account changes.
    case verification
    /// Recorded as evidence, no account changes (yet): identifier changes, compromise reports, CAEP claim
    /// and compliance changes, stream updates and unknown types.
    case recorded
}
