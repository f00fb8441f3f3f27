import AppleNotifications

/// JWK and JWKS decoding (RFC 7517), what the service reads from Apple's key endpoint.
///
/// Properties: a decoded set re-encodes and decodes to the same keys with nothing skipped; each key's
/// `n`/`e` either build an RSA public key through OpenSSL or are refused with an error, never a trap, and a
/// key that builds exports back to a JWK that builds the same key.
enum JWKSetTarget {
    static let target = FuzzTarget(
        name: "jwks",
        summary: "JWK/JWKS: decode-encode-decode same keys, OpenSSL key import refuses or round-trips, never traps",
        check: check)

    static func check(_ bytes: [UInt8]) throws(PropertyFailure) {
        guard let set = try? JWKSet(decoding: bytes) else { return }
        guard let again = try? JWKSet(decoding: set.encoded()) else {
            throw PropertyFailure("an encoded key set does not decode")
        }
        try require(again.keys == set.keys, "keys changed through encode-decode")
        try require(again.ecKeys == set.ecKeys, "P-256 keys changed through encode-decode")
        try require(again.skippedCount == 0, "an encoded key set has skipped entries")
        for key in set.keys.prefix(4) {
            guard let publicKey = try? key.publicKey() else { continue }
            guard let exported = try? JWK(keyID: key.keyID, publicKey: publicKey),
                let rebuilt = try? exported.publicKey()
            else { throw PropertyFailure("an imported RSA key does not export and import again") }
            try require(
                (try? JWK(keyID: key.keyID, publicKey: rebuilt)) == exported, "an RSA key changed through export")
        }
    }
}
