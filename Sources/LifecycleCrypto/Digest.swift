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

/// Lowercase hexadecimal encoding.
public enum Hex {
    private static let digits = Array("0123456789abcdef".utf8)

    public static func encode(_ bytes: [UInt8]) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count * 2)
        for byte in bytes {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Decodes upper- or lowercase hex; nil on odd length or any other character.
    public static func decode(_ text: String) -> [UInt8]? {
        let bytes = Array(text.utf8)
        guard bytes.count % 2 == 0 else { return nil }
        func nibble(_ c: UInt8) -> UInt8? {
            switch c {
            case 0x30...0x39: c - 0x30
            case 0x61...0x66: c - 0x61 + 10
            case 0x41...0x46: c - 0x41 + 10
            default: nil
            }
        }
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count / 2)
        var index = 0
        while index < bytes.count {
            guard let high = nibble(bytes[index]), let low = nibble(bytes[index + 1]) else { return nil }
            out.append(high << 4 | low)
            index += 2
        }
        return out
    }
}
