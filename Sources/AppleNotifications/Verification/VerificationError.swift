import LifecycleCore

/// Why a notification was refused: a stable ``ReasonCode`` plus a description for humans.
///
/// The description names the failing check and, where useful, non-personal values (`alg`, `kid`, `iss`,
/// `aud`); it never contains the token, the `sub` or an e-mail address, so it is safe to log and return.
public struct VerificationError: Error, Hashable, Sendable, CustomStringConvertible {
    public var code: ReasonCode
    public var description: String
    /// True when the failure may be ours, not the sender's: the key set could not be fetched. The HTTP layer
    /// answers 5xx for these so that Apple retries (DOMAIN.md §3) instead of dropping the event with a 400.
    public var isRetryable: Bool

    public init(_ code: ReasonCode, _ description: String, isRetryable: Bool = false) {
        self.code = code
        self.description = description
        self.isRetryable = isRetryable
    }
}
