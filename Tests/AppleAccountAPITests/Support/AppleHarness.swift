import AppleAccountAPI
import AppleNotifications
import AppleRESTFake
import LifecycleCore
import LifecycleCrypto
import TestSupport

/// Credentials shaped like a real app's, with a P-256 key generated once per test process.
enum AppleTestCredentials {
    static let teamID = "TEAMA1B2C3"
    static let keyID = "KEYA1B2C3D"
    static let native = AppleClient(id: "com.example.shop", kind: .native)
    static let web = AppleClient(id: "com.example.shop.web", kind: .web)
    static let redirectURI = "https://shop.example.com/apple/callback"

    static let key: P256PrivateKey = {
        do { return try P256PrivateKey.generate() } catch { fatalError("cannot generate a P-256 key: \(error)") }
    }()

    static func credentials(
        teamID: String = teamID, keyID: String = keyID, key: P256PrivateKey = key,
        clients: [AppleClient] = [native, web]
    ) -> AppleCredentials {
        do {
            return try AppleCredentials(teamID: teamID, keyID: keyID, privateKey: key, clients: clients)
        } catch {
            fatalError("test credentials are invalid: \(error)")
        }
    }
}

/// The stand-in for Apple on loopback over TLS, and real clients pointed at it, all on one manual clock.
final class AppleHarness: Sendable {
    let clock = ManualClock()
    let fake: FakeAppleAccountService
    let baseURL: AppleBaseURL

    init() throws {
        let clock = self.clock
        fake = try FakeAppleAccountService(
            configuration: FakeAppleAccountService.Configuration(
                teamID: AppleTestCredentials.teamID, keyID: AppleTestCredentials.keyID,
                publicKey: AppleTestCredentials.key.publicKey,
                clientIDs: [AppleTestCredentials.native.id, AppleTestCredentials.web.id]),
            now: clock.now)
        baseURL = try AppleBaseURL.parse(fake.baseURL).get()
    }

    func configuration(timeout: Duration = .seconds(30)) -> AppleRESTConfiguration {
        AppleRESTConfiguration(baseURL: baseURL, trustedCAFile: fake.caFile, timeout: timeout)
    }

    func minter(
        credentials: AppleCredentials = AppleTestCredentials.credentials(),
        policy: ClientSecretPolicy = ClientSecretPolicy(), now: (@Sendable () -> Instant)? = nil
    ) -> ClientSecretMinter {
        do {
            return try ClientSecretMinter(credentials: credentials, policy: policy, now: now ?? clock.now)
        } catch {
            fatalError("test secret policy is invalid: \(error)")
        }
    }

    func client(
        credentials: AppleCredentials = AppleTestCredentials.credentials(), timeout: Duration = .seconds(30),
        secretClock: (@Sendable () -> Instant)? = nil, observer: (@Sendable (AppleRequestRecord) -> Void)? = nil
    ) -> AppleRESTClient {
        AppleRESTClient(
            secrets: minter(credentials: credentials, now: secretClock), configuration: configuration(timeout: timeout),
            observer: observer)
    }

    /// Verifies `id_token`s against the fake's key set, fetched from its `/auth/keys` over TLS.
    func identityVerifier() -> IdentityTokenVerifier {
        IdentityTokenVerifier(
            keys: JWKSCache(fetcher: AppleKeysFetcher(configuration: configuration()), now: clock.now))
    }

    /// A sign-in on a device followed by its code exchange: the tokens a linked account holds.
    func signIn(
        _ client: AppleRESTClient, subject: String = TestFixtures.subject,
        as appleClient: AppleClient = AppleTestCredentials.native
    ) async throws -> AppleTokenResponse {
        let redirect = appleClient.kind == .web ? AppleTestCredentials.redirectURI : nil
        let code = fake.issueAuthorizationCode(clientID: appleClient.id, subject: subject, redirectURI: redirect)
        return try await client.exchange(
            code: AppleAuthorizationCode(code), redirectURI: redirect, clientID: appleClient.id
        ).get()
    }
}

extension AppleHarness {
    struct MissingToken: Error {}

    /// The refresh token of a fresh sign-in.
    func refreshToken(
        _ client: AppleRESTClient, subject: String = TestFixtures.subject,
        as appleClient: AppleClient = AppleTestCredentials.native
    ) async throws -> AppleRefreshToken {
        guard let token = try await signIn(client, subject: subject, as: appleClient).refreshToken else {
            throw MissingToken()
        }
        return token
    }
}

/// Runs `body` with a fresh harness and always stops the fake.
func withAppleHarness(_ body: (AppleHarness) async throws -> Void) async throws {
    let harness = try AppleHarness()
    do {
        try await body(harness)
    } catch {
        await harness.fake.stop()
        throw error
    }
    await harness.fake.stop()
}

extension Result {
    /// The failure, or nil on success (for `#expect(result.failure == .invalidGrant)`).
    var failure: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}
