import COpenSSL

/// A failure inside a cryptographic primitive: a stable machine `code` plus human context.
///
/// The description carries OpenSSL's own reason string when there is one, never key material or input bytes.
public struct CryptoError: Error, Hashable, Sendable, CustomStringConvertible {
    /// Stable codes: scripts and tests match on these, so they never change meaning.
    public enum Code: String, Hashable, Sendable {
        case keyGenerationFailed = "key_generation_failed"
        case invalidKey = "invalid_key"
        case signingFailed = "signing_failed"
        case encodingFailed = "encoding_failed"
        case decodingFailed = "decoding_failed"
        case randomFailed = "random_failed"
        case digestFailed = "digest_failed"
        case encryptionFailed = "encryption_failed"
        /// A sealed value did not open: wrong key, wrong associated data, or altered bytes (the GCM tag failed).
        case authenticationFailed = "authentication_failed"
    }

    public let code: Code
    public let description: String

    public init(_ code: Code, _ description: String) {
        self.code = code
        self.description = description
    }

    /// Builds an error from the OpenSSL error queue and empties the queue, so a later, unrelated call never
    /// reports a stale failure (OpenSSL 3 `ERR_get_error(3)`).
    static func openSSL(_ code: Code, _ context: String) -> CryptoError {
        let reason = OpenSSLErrorQueue.drain()
        return CryptoError(code, reason.isEmpty ? context : "\(context): \(reason)")
    }
}

/// OpenSSL keeps a per-thread error queue; every failing call must leave it empty.
enum OpenSSLErrorQueue {
    /// Returns the first queued reason (if any) and clears the rest.
    static func drain() -> String {
        let first = ERR_get_error()
        defer { ERR_clear_error() }
        guard first != 0 else { return "" }
        var buffer = [CChar](repeating: 0, count: 256)
        ERR_error_string_n(first, &buffer, buffer.count)
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    static func clear() { ERR_clear_error() }
}
