import AppleNotifications
import LifecycleCore
import LifecycleCrypto

/// What Apple checks in a `client_secret` before anything else (Apple, "Creating a client secret"): a compact
/// JWS with header `alg` `ES256` and the configured `kid`, a valid ES256 signature (JOSE `r ‖ s`, RFC 7518 §3.4)
/// under the team's public key, and claims `iss` = team ID, `sub` = the `client_id` it came with,
/// `aud` = `https://appleid.apple.com`, integer `iat` and `exp` with `exp − iat` ≤ 15,777,000, `exp` in the
/// future and at most 15,777,000 s ahead, `iat` not in the future beyond a minute. Written independently of
/// the production minter, so the two cannot share a mistake.
struct FakeClientSecretCheck: Sendable {
    static let audience = "https://appleid.apple.com"
    static let maximumLifetimeSeconds: Int64 = 15_777_000
    static let clockSkewSeconds: Int64 = 60

    let teamID: String
    let keyID: String
    let publicKey: P256PublicKey

    /// Nil when the secret is accepted, otherwise why not (for the request log; the answer is invalid_client).
    func problem(secret: String, clientID: String, at now: Instant) -> String? {
        let jws: CompactJWS
        do throws(VerificationError) {
            jws = try CompactJWS(parsing: Array(secret.utf8))
        } catch {
            return "not a compact JWS: \(error.description)"
        }
        guard jws.header["alg"]?.stringValue == "ES256" else { return "alg is not ES256" }
        guard jws.header["kid"]?.stringValue == keyID else { return "kid is not the configured key ID" }
        guard jws.signature.count == 64 else { return "signature is \(jws.signature.count) bytes, not 64 (r||s)" }
        guard publicKey.verifyES256(signature: jws.signature, message: jws.signingInput) else {
            return "ES256 signature does not verify"
        }
        guard case .object(let claims)? = JSONValue.parseIfValid(jws.payload) else { return "claims are not JSON" }
        guard claims["iss"]?.stringValue == teamID else { return "iss is not the team ID" }
        guard claims["sub"]?.stringValue == clientID else { return "sub is not the client_id" }
        guard claims["aud"]?.stringValue == Self.audience else { return "aud is not \(Self.audience)" }
        guard let issuedAt = claims["iat"]?.integerValue, let expiresAt = claims["exp"]?.integerValue else {
            return "iat or exp is missing or not an integer"
        }
        let nowSeconds = now.secondsSinceEpoch
        guard expiresAt > issuedAt, expiresAt &- issuedAt <= Self.maximumLifetimeSeconds else {
            return "exp - iat is not within 1...\(Self.maximumLifetimeSeconds)"
        }
        guard expiresAt > nowSeconds else { return "expired" }
        guard expiresAt &- nowSeconds <= Self.maximumLifetimeSeconds else { return "exp is too far ahead" }
        guard issuedAt <= nowSeconds &+ Self.clockSkewSeconds else { return "iat is in the future" }
        return nil
    }
}
