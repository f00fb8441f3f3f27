import LifecycleCrypto

/// A subject's pseudonym: HMAC-SHA256 under a secret key over `app`, a NUL separator and `sub`, in hex,
/// truncated to 128 bits. Stable for one key (so logs and reports correlate), meaningless without it (so a
/// leaked log does not reveal which Apple account it concerns), and app-scoped (the same person in two apps
/// gets two pseudonyms, as Apple's `sub` itself is team-scoped).
public struct KeyedSubjectPseudonymizer: SubjectPseudonymizer {
    private let key: [UInt8]

    public init(key: [UInt8]) {
        self.key = key
    }

    public func pseudonym(app: String, subject: String) -> String {
        let mac = HMACSHA256.authenticate(Array(app.utf8) + [0] + Array(subject.utf8), key: key)
        return "ps_" + Hex.encode(Array(mac.prefix(16)))
    }
}
