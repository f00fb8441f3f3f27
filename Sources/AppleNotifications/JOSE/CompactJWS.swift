import LifecycleCore
import LifecycleCrypto

/// A JWS in compact serialisation (RFC 7515 §7.1): `BASE64URL(header) '.' BASE64URL(payload) '.'
/// BASE64URL(signature)`, split and decoded but not yet verified.
///
/// Parsing checks only structure. The payload is decoded from base64url here but parsed as JSON only after
/// the signature has been checked (``NotificationVerifier``).
public struct CompactJWS: Sendable {
    /// Limits on untrusted input, applied before any decoding.
    public struct Limits: Hashable, Sendable {
        /// Largest token accepted. Apple's tokens are under 1 KiB; 16 KiB leaves room for longer e-mail
        /// addresses and future claims while bounding the work an attacker can cause.
        public var maximumBytes: Int

        public init(maximumBytes: Int = 16_384) {
            self.maximumBytes = maximumBytes
        }
    }

    /// The protected header, a JSON object (RFC 7515 §4).
    public let header: JSONObject
    /// The decoded payload octets (the claims set as UTF-8 JSON, not yet trusted).
    public let payload: [UInt8]
    public let signature: [UInt8]
    /// `ASCII(BASE64URL(header) '.' BASE64URL(payload))`, the bytes the signature covers (RFC 7515 §5.2).
    public let signingInput: [UInt8]

    /// Splits and decodes `token`. The signature part may be empty (an unsecured `alg: none` token is
    /// structurally valid and is refused later as an unsupported algorithm, which names the real problem).
    public init<Bytes: Collection<UInt8>>(
        parsing token: Bytes, limits: Limits = Limits()
    ) throws(VerificationError) {
        guard token.count <= limits.maximumBytes else {
            throw VerificationError(.malformedJWS, "token is longer than \(limits.maximumBytes) bytes")
        }
        let bytes = Array(token)
        let parts = bytes.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        guard parts.count == 3 else {
            throw VerificationError(.malformedJWS, "a compact JWS has 3 dot-separated parts, found \(parts.count)")
        }
        guard !parts[0].isEmpty, !parts[1].isEmpty else {
            throw VerificationError(.malformedJWS, "header and payload must not be empty")
        }
        guard let headerBytes = Base64URL.decode(bytes: parts[0]) else {
            throw VerificationError(.malformedJWS, "header is not base64url")
        }
        guard let payload = Base64URL.decode(bytes: parts[1]) else {
            throw VerificationError(.malformedJWS, "payload is not base64url")
        }
        guard let signature = Base64URL.decode(bytes: parts[2]) else {
            throw VerificationError(.malformedJWS, "signature is not base64url")
        }
        guard case .object(let header)? = JSONValue.parseIfValid(headerBytes) else {
            throw VerificationError(.malformedJWS, "header is not a JSON object")
        }
        self.header = header
        self.payload = payload
        self.signature = signature
        self.signingInput = Array(bytes[..<parts[1].endIndex])
    }
}
