/// Why a TLS certificate or key could not be put in service. `description` is one line that names the file,
/// for the operator reading the service's refusal to start (or to reload).
public struct TLSConfigurationError: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Reason: Sendable, Hashable {
        case unreadableCertificate
        case unreadablePrivateKey
        case keyDoesNotMatchCertificate
        case certificateExpired
        case certificateNotYetValid
        case weakKey
        case weakSignature
        case contextSetupFailed
    }

    public var reason: Reason
    public var message: String

    public init(_ reason: Reason, _ message: String) {
        self.reason = reason
        self.message = message
    }

    public var description: String { message }
}
