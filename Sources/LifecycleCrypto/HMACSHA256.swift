import COpenSSL

/// HMAC-SHA256 (RFC 2104): pseudonymous subject references and webhook signatures.
public enum HMACSHA256 {
    public static func authenticate(_ message: [UInt8], key: [UInt8]) -> [UInt8] {
        var output = [UInt8](repeating: 0, count: SHA256.byteCount)
        var length: UInt32 = 0
        let result = key.withUnsafeBytes { keyBytes in
            message.withUnsafeBytes { messageBytes in
                HMAC(
                    EVP_sha256(), keyBytes.baseAddress, Int32(keyBytes.count),
                    messageBytes.baseAddress?.assumingMemoryBound(to: UInt8.self), messageBytes.count,
                    &output, &length)
            }
        }
        precondition(result != nil && length == UInt32(SHA256.byteCount), "HMAC-SHA256 failed")
        return output
    }
}
