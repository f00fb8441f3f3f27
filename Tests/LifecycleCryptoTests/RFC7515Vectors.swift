import FoundationEssentials
import LifecycleCrypto

/// The ES256 example of RFC 7515 Appendix A.3: the P-256 key of A.3.1 (as a JWK) and the JWS it signs.
enum RFC7515A3 {
    static let x = "f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU"
    static let y = "x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0"
    static let d = "jpsQnnGQmL-YBIffH1136cspYG6-0iY7X1fCE9-E9LI"
    static let signingInput =
        "eyJhbGciOiJFUzI1NiJ9.eyJpc3MiOiJqb2UiLA0KICJleHAiOjEzMDA4MTkzODAsDQogImh0dHA6Ly9leGFtcGxlLmNvbS9pc19yb290Ijp0cnVlfQ"
    static let signature = "DtEhU3ljbEg8L38VWAfUAqOyKAM6-Xx-F4GawxaepmXFCgfTjDxw5djxLa8ISlSApmWQxfKTUJqPP3-Kg6NU1Q"

    static func bytes(_ base64url: String) -> [UInt8] { Base64URL.decode(base64url)! }

    static var publicKey: P256PublicKey { try! P256PublicKey(x: bytes(x), y: bytes(y)) }

    /// The A.3 key as the PKCS#8 PEM file Apple ships (`AuthKey_….p8`): PrivateKeyInfo (RFC 5208) holding the
    /// SEC 1 ECPrivateKey (RFC 5915) with its public point, written out octet by octet.
    static var pkcs8PEM: [UInt8] {
        let header: [UInt8] = [
            0x30, 0x81, 0x87, 0x02, 0x01, 0x00,  // PrivateKeyInfo, version 0
            0x30, 0x13, 0x06, 0x07, 0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x02, 0x01,  // id-ecPublicKey
            0x06, 0x08, 0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x03, 0x01, 0x07,  // prime256v1
            0x04, 0x6D, 0x30, 0x6B, 0x02, 0x01, 0x01, 0x04, 0x20,  // ECPrivateKey, version 1, privateKey
        ]
        let publicPrefix: [UInt8] = [0xA1, 0x44, 0x03, 0x42, 0x00, 0x04]  // [1] publicKey BIT STRING, uncompressed
        let der = header + bytes(d) + publicPrefix + bytes(x) + bytes(y)
        let base64 = Data(der).base64EncodedString()
        var lines = ["-----BEGIN PRIVATE KEY-----"]
        var rest = Substring(base64)
        while !rest.isEmpty {
            lines.append(String(rest.prefix(64)))
            rest = rest.dropFirst(64)
        }
        lines.append("-----END PRIVATE KEY-----")
        return Array((lines.joined(separator: "\n") + "\n").utf8)
    }
}
