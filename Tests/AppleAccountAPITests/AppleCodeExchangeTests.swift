import AppleAccountAPI
import AppleNotifications
import AppleRESTFake
import LifecycleCore
import TestSupport
import Testing

private let native = AppleTestCredentials.native

@Suite("Linking a sign-in: code exchange then id_token check", .serialized)
struct AppleCodeExchangeTests {
    func exchange(_ harness: AppleHarness) -> AppleCodeExchange {
        AppleCodeExchange(client: harness.client(), verifier: harness.identityVerifier(), now: harness.clock.now)
    }

    @Test("a code for the account yields its refresh token, the access token's expiry and the verified identity")
    func links() async throws {
        try await withAppleHarness { harness in
            let code = harness.fake.issueAuthorizationCode(clientID: native.id, subject: TestFixtures.subject)
            let linked = try await exchange(harness).link(
                code: AppleAuthorizationCode(code), redirectURI: nil, clientID: native.id,
                expectedSubject: TestFixtures.subject
            ).get()
            #expect(linked.identity.subject == TestFixtures.subject)
            #expect(linked.accessTokenExpiresAt == harness.clock.instant.adding(seconds: 3_600))
            #expect(harness.fake.isActive(refreshToken: linked.refreshToken.value))
            #expect(!"\(linked)".contains(linked.refreshToken.value))
            #expect(!"\(linked)".contains(TestFixtures.subject))
        }
    }

    @Test("a code of another user is refused as subject_mismatch and no token is handed on")
    func otherUser() async throws {
        try await withAppleHarness { harness in
            let code = harness.fake.issueAuthorizationCode(clientID: native.id, subject: "000555.someone.else")
            let result = await exchange(harness).link(
                code: AppleAuthorizationCode(code), redirectURI: nil, clientID: native.id,
                expectedSubject: TestFixtures.subject)
            #expect(
                result.failure
                    == .identityToken(
                        IdentityTokenError(.subjectMismatch, "the token's sub is not the account being linked")))
            #expect(result.failure?.code == "id_token_subject_mismatch")
        }
    }

    @Test(
        "an id_token with the wrong audience, issuer or an expiry in the past is refused",
        arguments: [
            (["aud": .string("com.example.other")], IdentityTokenError.Code.invalidAudience),
            (["iss": .string("https://appleid.apple.com.evil")], .invalidIssuer),
            (["exp": .integer(TestFixtures.issuedAt.secondsSinceEpoch - 3_600)], .expired),
        ] as [([String: JSONValue?], IdentityTokenError.Code)])
    func badIdentityToken(overrides: [String: JSONValue?], expected: IdentityTokenError.Code) async throws {
        try await withAppleHarness { harness in
            harness.fake.overrideIdentityTokenClaims(overrides)
            let code = harness.fake.issueAuthorizationCode(clientID: native.id, subject: TestFixtures.subject)
            let result = await exchange(harness).link(
                code: AppleAuthorizationCode(code), redirectURI: nil, clientID: native.id,
                expectedSubject: TestFixtures.subject)
            guard case .identityToken(let error)? = result.failure else {
                Issue.record("linked despite \(overrides)")
                return
            }
            #expect(error.code == expected)
        }
    }

    @Test("Apple's refusal of the exchange is passed on as is")
    func appleRefuses() async throws {
        try await withAppleHarness { harness in
            let result = await exchange(harness).link(
                code: AppleAuthorizationCode("expired-code"), redirectURI: nil, clientID: native.id,
                expectedSubject: TestFixtures.subject)
            #expect(result.failure == .apple(.invalidGrant))
            #expect(harness.fake.requests(to: .keys).isEmpty, "no key fetch without an id_token")
        }
    }
}

@Suite("Linking when Apple's key set is unavailable", .serialized)
struct AppleCodeExchangeKeysTests {
    @Test("a key set that cannot be fetched from /auth/keys refuses the id_token as retryable, not as forged")
    func keysDown() async throws {
        try await withAppleHarness { harness in
            harness.fake.setBehaviour(.serverError(status: 503), for: .keys)
            let code = harness.fake.issueAuthorizationCode(clientID: native.id, subject: TestFixtures.subject)
            let result = await AppleCodeExchange(
                client: harness.client(), verifier: harness.identityVerifier(), now: harness.clock.now
            ).link(
                code: AppleAuthorizationCode(code), redirectURI: nil, clientID: native.id,
                expectedSubject: TestFixtures.subject)
            guard case .identityToken(let error)? = result.failure else {
                Issue.record("linked without keys: \(result)")
                return
            }
            #expect(error.code == .unknownKid)
            #expect(error.isRetryable)
            #expect(error.description.contains("answered 503"))
            #expect(harness.fake.requests(to: .keys).count == 1)
        }
    }
}
