import Foundation

/// What a certificate says about itself that decides whether Apple's servers (App Transport Security) will
/// talk to an endpoint presenting it: validity window, key type and size, signature digest.
public struct TLSCertificateSummary: Sendable, Hashable {
    public enum KeyType: String, Sendable, Hashable {
        case rsa = "RSA"
        case ec = "EC"
        case ed25519 = "Ed25519"
        case other = "other"
    }

    /// The subject's common name, if any (for display only; host names are matched against the SAN).
    public var commonName: String?
    public var notBefore: Date
    public var notAfter: Date
    public var keyType: KeyType
    /// Key size in bits: the RSA modulus length or the EC curve size.
    public var keyBits: Int
    /// The signature algorithm's short name (`sha256WithRSAEncryption`, `ecdsa-with-SHA256`).
    public var signatureAlgorithm: String
    /// The signature's digest short name (`SHA256`, `SHA1`), nil when the algorithm has no separate digest
    /// (Ed25519).
    public var signatureDigest: String?

    /// Whole days from `now` until `notAfter`; negative once expired (rounded down).
    public func daysUntilExpiry(at now: Date = Date()) -> Int {
        Int((notAfter.timeIntervalSince(now) / 86_400).rounded(.down))
    }

    public func isExpired(at now: Date = Date()) -> Bool { notAfter < now }
    public func isNotYetValid(at now: Date = Date()) -> Bool { notBefore > now }

    /// SHA-1 and MD5 signatures are refused by ATS and by every current browser (RFC 9155 deprecates SHA-1 in
    /// TLS 1.2 signatures).
    public var hasWeakSignatureDigest: Bool {
        guard let digest = signatureDigest?.uppercased() else { return false }
        return digest == "SHA1" || digest == "MD5" || digest == "MD4"
    }

    /// RSA ≥ 2048 or EC ≥ 256 bits (ATS); Ed25519 counts as strong.
    public var hasStrongKey: Bool {
        switch keyType {
        case .rsa: keyBits >= TLSPolicy.minimumRSAKeyBits
        case .ec: keyBits >= TLSPolicy.minimumECKeyBits
        case .ed25519: true
        case .other: false
        }
    }

    /// `RSA 2048` / `EC 256`.
    public var keyDescription: String { "\(keyType.rawValue) \(keyBits)" }
}
