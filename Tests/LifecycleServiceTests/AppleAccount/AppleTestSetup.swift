import AppleRESTFake
import Foundation
import LifecycleCore
import TestSupport

/// A stand-in Apple on loopback over TLS (its CA made when it starts) for one developer team, and the
/// `signInWithApple` section of a configuration that points at it. The real `lifecycle` process trusts the
/// fake's CA through `SSL_CERT_FILE` (``environment``), the way an operator trusts a private CA.
struct AppleTestSetup: Sendable {
    static let teamID = "TEAMA1B2C3"
    static let keyID = "KEYA1B2C3D"
    static let nativeClientID = ServeFixture.clientID
    static let webClientID = ServeFixture.clientID + ".web"

    let team: FakeAppleTeam
    let fake: FakeAppleAccountService

    /// `now` is the fake's clock: the serve process's (real time plus its test offset).
    init(now: @escaping @Sendable () -> Instant = FakeAppleAccountService.systemNow) throws {
        team = try FakeAppleTeam(
            teamID: Self.teamID, keyID: Self.keyID, clientIDs: [Self.nativeClientID, Self.webClientID])
        var configuration = team.configuration
        // Every id_token the fake signs must verify against the fake's own /auth/keys.
        configuration.identityKeyID = "fake-apple-id-1"
        fake = try FakeAppleAccountService(configuration: configuration, now: now)
    }

    /// The environment that makes the process trust the fake's certificate.
    var environment: [String: String] { ["SSL_CERT_FILE": fake.caFile] }

    /// Writes the team's `.p8` (mode 0600) into `directory` and returns the app's `signInWithApple` section.
    func signInWithApple(directory: String, keyID: String? = nil) throws -> JSONValue {
        let path = try team.writeKeyFile(to: directory)
        return [
            "teamId": .string(team.teamID), "keyId": .string(keyID ?? team.keyID),
            "privateKeyFile": .string(path),
            "clients": [
                ["id": .string(Self.nativeClientID), "kind": "native"],
                ["id": .string(Self.webClientID), "kind": "web"],
            ],
        ]
    }

    /// The `apple` section: the notification key set of the serve fixture, and the REST API at the fake, with
    /// a timeout long enough for a fake that answers from a test process whose threads a whole parallel suite
    /// keeps busy (none of these tests waits for a timeout).
    var appleSection: JSONValue {
        ["jwks": "jwks.json", "restBaseURL": .string(fake.baseURL), "restTimeoutSeconds": 30]
    }
}
