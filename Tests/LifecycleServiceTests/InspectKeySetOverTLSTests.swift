import AppleRESTFake
import Foundation
import LifecycleCore
import LifecycleCrypto
import TestSupport
import Testing

/// The real `lifecycle inspect` fetching an `https://` key set over the service's own TLS client (the one
/// client every outbound call uses): the peer is verified against OpenSSL's default trust store, which
/// `SSL_CERT_FILE` points at the test CA here, the way an operator points it at a private CA.
@Suite("lifecycle inspect with an https key set")
struct InspectKeySetOverTLSTests {
    static func fakeApple() throws -> FakeAppleAccountService {
        var configuration = FakeAppleAccountService.Configuration(
            teamID: "TEAMA1B2C3", keyID: "KEYA1B2C3D", publicKey: try P256PrivateKey.generate().publicKey,
            clientIDs: [TestFixtures.audience])
        // The key the test tokens are signed with, published at /auth/keys.
        configuration.identityKey = TestKeys.rsa2048
        configuration.identityKeyID = TestKeys.keyID
        return try FakeAppleAccountService(configuration: configuration)
    }

    @Test("a token verifies against keys fetched over TLS from a CA the trust store holds, and fails without it")
    func verifiesWithFetchedKeys() async throws {
        let fake = try Self.fakeApple()
        let directory = try TemporaryDirectory()
        let token = directory.file("token.txt")
        try Data(TestTokenFactory().token(claims: TestTokenFactory.claims()).utf8).write(
            to: URL(fileURLWithPath: token))
        let arguments = [
            "inspect", "--jwks", fake.baseURL + "/auth/keys", "--audience", TestFixtures.audience,
            "--at", "2025-07-15T09:37:00Z", token,
        ]

        let trusted = try await LifecycleProcess.run(arguments, environment: ["SSL_CERT_FILE": fake.caFile])
        #expect(trusted.status == 0, "\(trusted)")
        #expect(JSONValue.parseIfValid(Array(trusted.output.utf8))?["valid"] == true, "\(trusted)")

        // README, "inspect": a token that fails prints {"valid":false,"error":{"code":"bad_signature",…}} and
        // exits 1. The same token with its signature's first character changed.
        let compact = TestTokenFactory().token(claims: TestTokenFactory.claims())
        let parts = compact.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        let signature = parts[2]
        let flipped = (signature.first == "A" ? "B" : "A") + signature.dropFirst()
        try Data((parts[0] + "." + parts[1] + "." + flipped).utf8).write(to: URL(fileURLWithPath: token))
        let forged = try await LifecycleProcess.run(arguments, environment: ["SSL_CERT_FILE": fake.caFile])
        #expect(forged.status == 1, "\(forged)")
        let answer = JSONValue.parseIfValid(Array(forged.output.utf8))
        #expect(answer?["valid"] == false, "\(forged)")
        #expect(answer?["error"]?["code"] == "bad_signature", "\(forged)")

        let untrusted = try await LifecycleProcess.run(arguments, environment: ["SSL_CERT_FILE": "/nonexistent"])
        #expect(untrusted.status != 0, "\(untrusted)")
        #expect(untrusted.errors.contains("cannot load the key set"), "\(untrusted)")
        #expect(untrusted.errorLines.count == 1, "one line: \(untrusted)")
    }

    @Test("an https key set URL with a query is refused in one line before any request")
    func refusesQuery() async throws {
        let result = try await LifecycleProcess.run([
            "inspect", "--jwks", "https://127.0.0.1:9/auth/keys?x=1", "--audience", TestFixtures.audience, "-",
        ])
        #expect(result.status == 2, "\(result)")
        #expect(result.errors.contains("key set URL"), "\(result)")
        #expect(result.errorLines.count == 1, "\(result)")
    }
}
