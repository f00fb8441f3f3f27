import LifecycleCrypto

/// What one app needs to call Apple's REST API: the team, the Sign in with Apple key (its ID and the `.p8`
/// private key) and the client IDs the key signs for (Apple, "Creating a client secret").
///
/// Checked when built, so a misconfiguration fails at startup naming the field, not as `invalid_client` later.
/// The description never shows the key.
public struct AppleCredentials: Sendable, CustomStringConvertible {
    /// Team ID and Key ID are ten characters from A–Z and 0–9 (Apple Developer account, Membership and Keys).
    public static let identifierLength = 10

    public let teamID: String
    public let keyID: String
    public let privateKey: P256PrivateKey
    /// At least one, no client ID twice.
    public let clients: [AppleClient]

    public init(teamID: String, keyID: String, privateKey: P256PrivateKey, clients: [AppleClient])
        throws(AppleCredentialsError)
    {
        try Self.checkIdentifier(teamID, field: "teamID", name: "team ID", whereFound: "Membership details")
        try Self.checkIdentifier(
            keyID, field: "keyID", name: "key ID", whereFound: "Certificates, IDs & Profiles → Keys")
        guard !clients.isEmpty else {
            throw AppleCredentialsError(
                field: "clients", "no client ID: add the bundle ID (native) or Services ID (web) this key signs for")
        }
        var seen = Set<String>()
        for client in clients {
            guard !client.id.isEmpty, client.id.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
                throw AppleCredentialsError(
                    field: "clients", "a client ID is empty or has spaces or non-ASCII characters")
            }
            guard seen.insert(client.id).inserted else {
                throw AppleCredentialsError(field: "clients", "client ID \(client.id) is listed twice")
            }
        }
        self.teamID = teamID
        self.keyID = keyID
        self.privateKey = privateKey
        self.clients = clients
    }

    /// Reads the `.p8` file's bytes (PKCS#8 PEM) as well.
    public init(teamID: String, keyID: String, privateKeyPEM: [UInt8], clients: [AppleClient])
        throws(AppleCredentialsError)
    {
        let key: P256PrivateKey
        do throws(CryptoError) {
            key = try P256PrivateKey(pem: privateKeyPEM)
        } catch {
            throw AppleCredentialsError(
                field: "privateKey", "\(error.description); use the AuthKey_<key ID>.p8 file downloaded from Apple")
        }
        try self.init(teamID: teamID, keyID: keyID, privateKey: key, clients: clients)
    }

    public func client(_ id: String) -> AppleClient? { clients.first { $0.id == id } }

    public var description: String {
        "AppleCredentials(team: \(teamID), key: \(keyID), clients: \(clients.map(\.description).joined(separator: ", ")))"
    }

    private static func checkIdentifier(
        _ value: String, field: String, name: String, whereFound: String
    ) throws(AppleCredentialsError) {
        let bytes = Array(value.utf8)
        let valid =
            bytes.count == identifierLength
            && bytes.allSatisfy { ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x41 && $0 <= 0x5A) }
        guard valid else {
            throw AppleCredentialsError(
                field: field,
                "\(name) \(AppleText.quoted(value)) must be \(identifierLength) characters A-Z/0-9; "
                    + "copy it from \(whereFound) in the Apple Developer account")
        }
    }
}
