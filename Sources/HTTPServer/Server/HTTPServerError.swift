/// Why the server could not start.
public enum HTTPServerError: Error, Sendable, Hashable {
    /// `host` is not a numeric IPv4 or IPv6 address.
    case invalidAddress(String)
    /// A socket call failed; `errno` tells why (e.g. EADDRINUSE from bind).
    case socketFailed(operation: String, errno: Int32)
    /// `start()` was called twice.
    case alreadyStarted
}
