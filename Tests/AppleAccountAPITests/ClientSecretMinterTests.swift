import AppleAccountAPI
import LifecycleCore
import LifecycleCrypto
import TestSupport
import Testing

/// Splits a compact JWS into its decoded header and claims, and checks its ES256 signature.
private func decode(_ secret: AppleClientSecret, key: P256PublicKey) throws -> (header: JSONValue, claims: JSONValue) {
    let parts = secret.value.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
    try #require(parts.count == 3)
    let signature = try #require(Base64URL.decode(parts[2]))
    #expect(signature.count == 64)
    #expect(key.verifyES256(signature: signature, message: Array((parts[0] + "." + parts[1]).utf8)))
    return (
        try JSONValue.parse(try #require(Base64URL.decode(parts[0]))),
        try JSONValue.parse(try #require(Base64URL.decode(parts[1])))
    )
}

@Suite("Client secret minting")
struct ClientSecretMinterTests {
    let clock = ManualClock()

    func minter(_ policy: ClientSecretPolicy = ClientSecretPolicy()) throws -> ClientSecretMinter {
        try ClientSecretMinter(credentials: AppleTestCredentials.credentials(), policy: policy, now: clock.now)
    }

    @Test("the secret is an ES256 JWT with kid, iss = team, sub = client ID, aud = Apple, iat now, exp one hour on")
    func claims() throws {
        let secret = try minter().secret(for: AppleTestCredentials.native.id)
        let (header, claims) = try decode(secret, key: AppleTestCredentials.key.publicKey)
        #expect(header == .object(["alg": .string("ES256"), "kid": .string(AppleTestCredentials.keyID)]))
        let issuedAt = clock.instant.secondsSinceEpoch
        #expect(
            claims
                == .object([
                    "aud": .string("https://appleid.apple.com"), "exp": .integer(issuedAt + 3_600),
                    "iat": .integer(issuedAt), "iss": .string(AppleTestCredentials.teamID),
                    "sub": .string(AppleTestCredentials.native.id),
                ]))
        #expect(secret.clientID == AppleTestCredentials.native.id)
        #expect(secret.expiresAt.secondsSinceEpoch - secret.issuedAt.secondsSinceEpoch == 3_600)
    }

    @Test("one secret per client ID is reused until the renewal margin, then replaced")
    func caching() throws {
        let minter = try minter()
        let first = try minter.secret(for: AppleTestCredentials.native.id)
        let web = try minter.secret(for: AppleTestCredentials.web.id)
        #expect(web != first)
        clock.advance(seconds: 3_600 - 300 - 1)
        #expect(try minter.secret(for: AppleTestCredentials.native.id) == first)
        clock.advance(seconds: 1)
        let renewed = try minter.secret(for: AppleTestCredentials.native.id)
        #expect(renewed != first)
        #expect(renewed.issuedAt == clock.instant)
        #expect(try minter.secret(for: AppleTestCredentials.web.id) != web, "the web secret is as old")
    }

    @Test("a clock stepped back before the cached secret's iat gets a new secret")
    func clockStepsBack() throws {
        let minter = try minter()
        let first = try minter.secret(for: AppleTestCredentials.native.id)
        clock.advance(seconds: -10)
        let second = try minter.secret(for: AppleTestCredentials.native.id)
        #expect(second != first)
        #expect(second.issuedAt == clock.instant)
    }

    @Test("the maximum lifetime Apple allows is accepted; a longer one, or a margin not below it, is refused")
    func policyBounds() throws {
        let longest = try minter(ClientSecretPolicy(lifetimeSeconds: 15_777_000))
        let secret = try longest.secret(for: AppleTestCredentials.native.id)
        #expect(secret.expiresAt.secondsSinceEpoch - secret.issuedAt.secondsSinceEpoch == 15_777_000)
        for policy in [
            ClientSecretPolicy(lifetimeSeconds: 15_777_001), ClientSecretPolicy(lifetimeSeconds: 0),
            ClientSecretPolicy(lifetimeSeconds: 600, renewalMarginSeconds: 600),
            ClientSecretPolicy(lifetimeSeconds: 600, renewalMarginSeconds: -1),
        ] {
            let error = #expect(throws: AppleCredentialsError.self) { try minter(policy) }
            #expect(error?.field == "clientSecretLifetime")
        }
    }

    @Test("iat is whole seconds even when the clock has milliseconds")
    func wholeSeconds() throws {
        clock.set(Instant(millisecondsSinceEpoch: 1_752_572_191_999))
        let secret = try minter().secret(for: AppleTestCredentials.native.id)
        #expect(secret.issuedAt == Instant(secondsSinceEpoch: 1_752_572_191))
    }

    @Test("the secret's text forms are redacted")
    func redacted() throws {
        let secret = try minter().secret(for: AppleTestCredentials.native.id)
        var dumped = ""
        dump(secret, to: &dumped)
        for text in ["\(secret)", String(reflecting: secret), dumped, "\([secret])"] {
            #expect(!text.contains(secret.value))
            #expect(!text.contains("eyJ"))
        }
    }
}
