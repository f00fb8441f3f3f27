import Foundation
import LifecycleCore
import LifecycleCrypto

/// A Google service account's JSON key (as the Cloud console downloads it) and the self-signed JWT that
/// authorises Google's RISC API: RS256 under the key `private_key_id`, `iss` = `sub` = `client_email`, `aud`
/// the RISC management service, one hour (Google, "Protect user accounts with Cross-Account Protection",
/// "Generate an authorization token").
struct GoogleServiceAccount: Sendable {
    static let audience = "https://risc.googleapis.com/google.identity.risc.v1beta.RiscManagementService"
    static let lifetimeSeconds: Int64 = 3600

    let clientEmail: String
    let keyID: String
    let key: RSAPrivateKey

    /// Reads the key file; the error names the file and the member that is wrong, never the key.
    init(file: String) throws(StreamManagementError) {
        guard let data = FileManager.default.contents(atPath: file) else {
            throw StreamManagementError(
                "\(file): cannot read the service account key; download it from the Cloud console")
        }
        guard let json = JSONValue.parseIfValid(Array(data)), json.objectValue != nil else {
            throw StreamManagementError("\(file): the service account key is not JSON")
        }
        guard let email = json["client_email"]?.stringValue, !email.isEmpty else {
            throw StreamManagementError("\(file): client_email is missing")
        }
        guard let keyID = json["private_key_id"]?.stringValue, !keyID.isEmpty else {
            throw StreamManagementError("\(file): private_key_id is missing")
        }
        guard let pem = json["private_key"]?.stringValue else {
            throw StreamManagementError("\(file): private_key is missing")
        }
        do {
            key = try RSAPrivateKey(pem: Array(pem.utf8))
        } catch {
            throw StreamManagementError("\(file): private_key is not an RSA private key in PEM")
        }
        guard key.bitCount >= 2048 else {
            throw StreamManagementError("\(file): private_key has \(key.bitCount) bits; Google issues 2048-bit keys")
        }
        clientEmail = email
        self.keyID = keyID
    }

    /// The `Authorization` value of one call: `Bearer <JWT issued at now>`.
    func authorization(at now: Instant) throws(StreamManagementError) -> String {
        let header: JSONValue = ["alg": "RS256", "typ": "JWT", "kid": .string(keyID)]
        let claims: JSONValue = [
            "iss": .string(clientEmail), "sub": .string(clientEmail), "aud": .string(Self.audience),
            "iat": .integer(now.secondsSinceEpoch), "exp": .integer(now.secondsSinceEpoch + Self.lifetimeSeconds),
        ]
        let input = Base64URL.encode(header.encoded()) + "." + Base64URL.encode(claims.encoded())
        do {
            return "Bearer " + input + "." + Base64URL.encode(try key.signRS256(Array(input.utf8)))
        } catch {
            throw StreamManagementError("the service account key could not sign: \(error)")
        }
    }
}
