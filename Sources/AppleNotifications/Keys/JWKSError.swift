import LifecycleCore

/// Why a key set could not be loaded: one line, kept to ``maximumDescriptionBytes``, since it quotes what a
/// discovery document or a key server said, and a signed request's refusal (503) can carry it.
public struct JWKSError: Error, Hashable, Sendable, CustomStringConvertible {
    public enum Code: String, Hashable, Sendable {
        case fetchFailed = "jwks_fetch_failed"
        case malformedJWKS = "malformed_jwks"
        case noUsableKeys = "jwks_no_usable_keys"
    }

    public var code: Code
    public var description: String

    public static let maximumDescriptionBytes = 1024

    public init(_ code: Code, _ description: String) {
        self.code = code
        self.description = description.quotedForError(maxBytes: Self.maximumDescriptionBytes)
    }
}
