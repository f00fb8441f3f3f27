import FoundationEssentials
import Glibc
import LifecycleCrypto

/// A developer team as the stand-in knows it: team ID, a Sign in with Apple key (generated here, never
/// committed) and the client IDs grouped with it. Writes the `.p8` file a configuration points at, so a test
/// can start the real `lifecycle` process against ``FakeAppleAccountService``.
public struct FakeAppleTeam: Sendable {
    public var teamID: String
    public var keyID: String
    public var privateKey: P256PrivateKey
    public var clientIDs: Set<String>

    public init(
        teamID: String = "TEAMA1B2C3", keyID: String = "KEYA1B2C3D", privateKey: P256PrivateKey? = nil,
        clientIDs: Set<String>
    ) throws {
        self.teamID = teamID
        self.keyID = keyID
        self.privateKey = try privateKey ?? P256PrivateKey.generate()
        self.clientIDs = clientIDs
    }

    /// The fake's configuration for this team.
    public var configuration: FakeAppleAccountService.Configuration {
        FakeAppleAccountService.Configuration(
            teamID: teamID, keyID: keyID, publicKey: privateKey.publicKey, clientIDs: clientIDs)
    }

    /// Writes `AuthKey_<key ID>.p8` (PKCS#8 PEM, mode 0600, as Apple's download) into `directory`.
    @discardableResult
    public func writeKeyFile(to directory: String) throws -> String {
        let path = directory + "/AuthKey_\(keyID).p8"
        let pem = try privateKey.pemPKCS8()
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw FakeAppleTeamError(path: path, errno: errno) }
        defer { close(descriptor) }
        let written = pem.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
        guard written == pem.count else { throw FakeAppleTeamError(path: path, errno: errno) }
        return path
    }
}

public struct FakeAppleTeamError: Error, Hashable, Sendable {
    public var path: String
    public var errno: Int32
}
