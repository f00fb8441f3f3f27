import COpenSSL

/// Comparison whose running time does not depend on where two secrets differ (`CRYPTO_memcmp(3)`), for
/// bearer tokens and MACs. The length is not secret and is compared first.
public enum ConstantTime {
    public static func equals(_ lhs: [UInt8], _ rhs: [UInt8]) -> Bool {
        guard lhs.count == rhs.count else { return false }
        guard !lhs.isEmpty else { return true }
        return lhs.withUnsafeBytes { a in
            rhs.withUnsafeBytes { b in CRYPTO_memcmp(a.baseAddress, b.baseAddress, a.count) == 0 }
        }
    }
}
