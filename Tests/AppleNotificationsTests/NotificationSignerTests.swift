import AppleNotifications
import LifecycleCore
import LifecycleCrypto
import LifecycleDevTools
import TestSupport
import Testing

@Suite("Notification signer and dev key pair")
struct NotificationSignerTests {
    let event = AppleEvent(
        type: .emailDisabled, subject: TestFixtures.subject,
        eventTime: Instant(millisecondsSinceEpoch: TestFixtures.eventTimeMilliseconds), isPrivateEmail: false,
        email: "abc@privaterelay.appleid.com")

    @Test("signed notifications have real traffic's shape and verify")
    func realTrafficShape() async throws {
        let signer = NotificationSigner(privateKey: TestKeys.rsa2048, keyID: TestKeys.keyID)
        let token = try signer.sign(event: event, audience: TestFixtures.audience, issuedAt: TestFixtures.issuedAt)
        let verifier = TestTokenFactory().verifier()
        let report = await verifier.inspect(jws: token, at: TestFixtures.issuedAt)
        let notification = try #require(report.notification)
        #expect(notification.event == event)
        #expect(notification.expiresAt == TestFixtures.issuedAt.adding(seconds: 86_400))
        #expect(notification.jti.utf8.count == 22)
        #expect(Base64URL.decode(notification.jti)?.count == 16)
        #expect(report.header == .object(["alg": .string("RS256"), "kid": .string(TestKeys.keyID)]))
        // events is a JSON-encoded string, event_time in ms, is_private_email a string.
        let events = try #require(report.claims?["events"]?.stringValue)
        let inner = try #require(JSONValue.parseIfValid(Array(events.utf8)))
        #expect(inner["event_time"] == .integer(TestFixtures.eventTimeMilliseconds))
        #expect(inner["is_private_email"] == .string("false"))
    }

    @Test("each minted jti is fresh")
    func freshJTI() {
        #expect(NotificationSigner.makeJTI() != NotificationSigner.makeJTI())
    }

    @Test("a dev key pair written to a directory loads back and verifies through its JWKS file")
    func devKeyPairRoundTrip() async throws {
        let directory = try TemporaryDirectory()
        let pair = try DevKeyPair.generate()
        let (keyPath, jwksPath) = try pair.write(to: directory.file("dev"))
        #expect(keyPath.hasSuffix(DevKeyPair.privateKeyFileName))

        let loaded = try DevKeyPair.load(from: directory.file("dev"))
        #expect(loaded.keyID == pair.keyID)
        let token = try loaded.signer.sign(
            event: event, audience: TestFixtures.audience, issuedAt: TestFixtures.issuedAt)
        let cache = JWKSCache(fetcher: FileJWKSFetcher(path: jwksPath), now: ManualClock().now)
        let verifier = NotificationVerifier(keys: cache, configuration: .init(audiences: [TestFixtures.audience]))
        #expect(try await verifier.verify(jws: token, at: TestFixtures.issuedAt).get().keyID == pair.keyID)
    }

    @Test("the private key file is created readable by its owner only")
    func privateKeyMode() throws {
        let directory = try TemporaryDirectory()
        let (keyPath, _) = try DevKeyPair(keyID: "k", privateKey: TestKeys.rsa2048).write(to: directory.path)
        let attributes = try FileManagerAttributes.mode(of: keyPath)
        #expect(attributes == 0o600)
    }

    @Test("loading refuses a JWKS that does not match the private key")
    func mismatchedPair() throws {
        let directory = try TemporaryDirectory()
        try DevKeyPair(keyID: "a", privateKey: TestKeys.rsa2048).write(to: directory.path)
        let other = DevKeyPair(keyID: "b", privateKey: TestKeys.rsa1024)
        try other.write(to: directory.file("other"))
        // Put the other pair's JWKS next to the first private key.
        let jwks = try other.jwks().encoded()
        try jwks.write(to: directory.file(DevKeyPair.jwksFileName))
        #expect(throws: DevKeyPairError.self) { try DevKeyPair.load(from: directory.path) }
    }
}
