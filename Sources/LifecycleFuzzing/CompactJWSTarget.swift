import AppleNotifications
import LifecycleCore
import LifecycleCrypto

/// Compact JWS parsing (RFC 7515 §7.1), the first step of verifying Apple's tokens.
///
/// Properties: a token over the size limit is refused before decoding; every refusal is `malformed_jws`;
/// an accepted token has exactly three parts, a JSON object header, and a signing input equal to its first
/// two parts; base64url decoding and encoding agree on the payload and signature.
enum CompactJWSTarget {
    static let target = FuzzTarget(
        name: "compact-jws",
        summary: "compact JWS: size limit first, only malformed_jws refusals, signing input = first two parts",
        check: check)

    static let limits = CompactJWS.Limits(maximumBytes: 2048)

    static func check(_ bytes: [UInt8]) throws(PropertyFailure) {
        let jws: CompactJWS
        do {
            jws = try CompactJWS(parsing: bytes, limits: limits)
        } catch {
            try require(error.code == .malformedJWS, "refused with \(error.code) instead of malformed_jws")
            return
        }
        try require(bytes.count <= limits.maximumBytes, "a token over the size limit was accepted")
        let parts = bytes.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        try require(parts.count == 3, "a token of \(parts.count) parts was accepted")
        try require(
            jws.signingInput == Array(bytes[..<parts[1].endIndex]), "signing input is not the first two parts")
        try require(
            Base64URL.decode(bytes: Array(Base64URL.encode(jws.payload).utf8)) == jws.payload,
            "payload does not survive base64url encode-decode")
        try require(
            Base64URL.decode(bytes: Array(Base64URL.encode(jws.signature).utf8)) == jws.signature,
            "signature does not survive base64url encode-decode")
        // The header is a JSON object and round-trips as one.
        let headerText = JSONValue.object(jws.header).serialized()
        try require(
            JSONValue.parseIfValid(Array(headerText.utf8))?.objectValue != nil, "header does not re-parse as an object")
    }
}
