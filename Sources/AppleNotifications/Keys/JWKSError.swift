/// Why a key set could not be loaded.
public struct JWKSError: Error, Hashable, Sendable, CustomStringConvertible {
    public enum Code: String, Hashable, Sendable {
        case fetchFailed = "jwks_fetch_failed"
        case malformedJWKS = "malformed_jwks"
        case noUsableKeys = "jwks_no_usable_keys"
    }

    public var code: Code
    public var description: String

    public init(_ code: Code, _ description: String) {
        self.code = code
        self.description = description
    }
}
