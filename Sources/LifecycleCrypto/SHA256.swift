import COpenSSL

/// SHA-256 (FIPS 180-4): report hash chains, content hashes of policies, JWS signing inputs.
public enum SHA256 {
    public static let byteCount = 32

    public static func hash(_ bytes: [UInt8]) -> [UInt8] {
        var output = [UInt8](repeating: 0, count: byteCount)
        var length: UInt32 = 0
        let status = bytes.withUnsafeBytes { input in
            EVP_Digest(input.baseAddress, input.count, &output, &length, EVP_sha256(), nil)
        }
        // SHA-256 over memory cannot fail short of memory exhaustion; treat that as fatal like an allocation.
        precondition(status == 1 && length == UInt32(byteCount), "EVP_Digest(SHA-256) failed")
        return output
    }

    public static func hash(_ text: String) -> [UInt8] { hash(Array(text.utf8)) }

    /// Lowercase hexadecimal, the form stored in reports and compared by `report verify`.
    public static func hexDigest(_ bytes: [UInt8]) -> String { Hex.encode(hash(bytes)) }

    public static func hexDigest(_ text: String) -> String { hexDigest(Array(text.utf8)) }
}
