import AppleNotifications
import LifecycleCore
import LifecycleCrypto
import TestSupport
import Testing

/// Verification five seconds after the token was issued.
private let now = TestFixtures.issuedAt.adding(seconds: 5)
private let clientID = TestFixtures.audience

/// Claims of an `id_token` as Apple's token endpoint issues it, with `overrides` (nil removes a claim).
private func idClaims(_ overrides: [String: JSONValue?] = [:]) -> JSONObject {
    var claims: JSONObject = [
        "iss": .string(AppleIdentity.issuer), "aud": .string(clientID), "sub": .string(TestFixtures.subject),
        "iat": .integer(TestFixtures.issuedAt.secondsSinceEpoch),
        "exp": .integer(TestFixtures.issuedAt.secondsSinceEpoch + 600),
        "auth_time": .integer(TestFixtures.issuedAt.secondsSinceEpoch),
    ]
    for (name, value) in overrides { claims[name] = value }
    return claims
}

private func code(_ result: Result<VerifiedIdentityToken, IdentityTokenError>) -> IdentityTokenError.Code? {
    if case .failure(let error) = result { return error.code }
    return nil
}

@Suite("id_token verification after a code exchange")
struct IdentityTokenVerifierTests {
    let factory = TestTokenFactory()
    var verifier: IdentityTokenVerifier { IdentityTokenVerifier(keys: factory.keyProvider) }

    @Test("an id_token for the client and the expected account is accepted, and its description hides sub")
    func accepts() async throws {
        let token = factory.token(claims: idClaims())
        let identity = try await verifier.verify(
            idToken: token, clientID: clientID, expectedSubject: TestFixtures.subject, at: now
        ).get()
        #expect(identity.subject == TestFixtures.subject)
        #expect(identity.audience == clientID)
        #expect(identity.keyID == TestKeys.keyID)
        #expect(identity.expiresAt == TestFixtures.issuedAt.adding(seconds: 600))
        #expect(!identity.description.contains(TestFixtures.subject))
        // Without an expected account, any valid sub is returned.
        let any = try await verifier.verify(idToken: token, clientID: clientID, expectedSubject: nil, at: now).get()
        #expect(any.subject == TestFixtures.subject)
    }

    @Test("a token for another account is refused without naming either sub")
    func subjectMismatch() async throws {
        let result = await verifier.verify(
            idToken: factory.token(claims: idClaims()), clientID: clientID, expectedSubject: "000999.other.0001",
            at: now)
        #expect(code(result) == .subjectMismatch)
        if case .failure(let error) = result {
            #expect(!error.description.contains(TestFixtures.subject))
            #expect(!error.description.contains("000999"))
        }
    }

    @Test(
        "claims Apple would not issue for this client are refused with their own code",
        arguments: [
            (["aud": .string("com.example.other")], IdentityTokenError.Code.invalidAudience),
            (["aud": .array([.string(clientID)])], .invalidAudience),
            (["aud": nil], .invalidAudience),
            (["iss": .string("https://evil.example")], .invalidIssuer),
            (["iss": nil], .invalidIssuer),
            (["exp": .integer(TestFixtures.issuedAt.secondsSinceEpoch - 120)], .expired),
            (["exp": nil], .malformedClaims),
            (["exp": .string("soon")], .malformedClaims),
            (["iat": .integer(TestFixtures.issuedAt.secondsSinceEpoch + 3_600)], .issuedInFuture),
            (["iat": nil], .malformedClaims),
            (["sub": nil], .malformedClaims),
            (["sub": .string("")], .malformedClaims),
            (["exp": .integer(.max)], .malformedClaims),
        ] as [([String: JSONValue?], IdentityTokenError.Code)])
    func refusesClaims(overrides: [String: JSONValue?], expected: IdentityTokenError.Code) async {
        let token = factory.token(claims: idClaims(overrides))
        let result = await verifier.verify(
            idToken: token, clientID: clientID, expectedSubject: TestFixtures.subject, at: now)
        #expect(code(result) == expected)
    }

    @Test("exp within the leeway still verifies; one second past it does not")
    func leeway() async {
        let token = factory.token(claims: idClaims())
        let expiry = TestFixtures.issuedAt.adding(seconds: 600)
        let justInside = await verifier.verify(
            idToken: token, clientID: clientID, expectedSubject: nil, at: expiry.adding(seconds: 59))
        #expect(code(justInside) == nil)
        let outside = await verifier.verify(
            idToken: token, clientID: clientID, expectedSubject: nil, at: expiry.adding(seconds: 60))
        #expect(code(outside) == .expired)
    }

    @Test("the algorithm is pinned to RS256: none, HS256 with the public key and PS256 are refused before claims")
    func algorithmPinned() async throws {
        let secret = try factory.key.publicKey.pem()
        let tokens = [
            factory.token(
                header: factory.header(overrides: ["alg": .string("none")]), claims: idClaims(), signing: .none),
            factory.token(
                header: factory.header(overrides: ["alg": .string("HS256")]), claims: idClaims(),
                signing: .hs256(secret: secret)),
            factory.token(
                header: factory.header(overrides: ["alg": .string("PS256")]), claims: idClaims(), signing: .ps256),
            factory.token(header: factory.header(overrides: ["alg": .string("ES256")]), claims: idClaims()),
            factory.token(header: factory.header(overrides: ["alg": nil]), claims: idClaims()),
        ]
        for token in tokens {
            let result = await verifier.verify(idToken: token, clientID: clientID, expectedSubject: nil, at: now)
            #expect(code(result) == .unsupportedAlgorithm)
        }
    }

    @Test("a forged signature, an unknown kid, a missing kid, a weak key, crit and garbage are refused")
    func structuralRefusals() async {
        let forged = factory.token(claims: idClaims(), signing: .signature(SecureRandom.bytes(count: 256)))
        #expect(
            code(await verifier.verify(idToken: forged, clientID: clientID, expectedSubject: nil, at: now))
                == .badSignature)
        let unknown = factory.token(header: factory.header(overrides: ["kid": .string("rotated")]), claims: idClaims())
        #expect(
            code(await verifier.verify(idToken: unknown, clientID: clientID, expectedSubject: nil, at: now))
                == .unknownKid)
        let noKid = factory.token(header: factory.header(overrides: ["kid": nil]), claims: idClaims())
        #expect(
            code(await verifier.verify(idToken: noKid, clientID: clientID, expectedSubject: nil, at: now))
                == .missingKid)
        let crit = factory.token(
            header: factory.header(overrides: ["crit": .array([.string("exp")])]), claims: idClaims())
        #expect(
            code(await verifier.verify(idToken: crit, clientID: clientID, expectedSubject: nil, at: now))
                == .malformedJWS)
        let weak = TestTokenFactory(key: TestKeys.rsa1024, keyID: TestKeys.weakKeyID)
        let weakVerifier = IdentityTokenVerifier(keys: weak.keyProvider)
        #expect(
            code(
                await weakVerifier.verify(
                    idToken: weak.token(claims: idClaims()), clientID: clientID, expectedSubject: nil, at: now))
                == .weakKey)
        for garbage in ["", "a.b", "a.b.c.d", "!!!.???.***", String(repeating: "A", count: 20_000)] {
            #expect(
                code(await verifier.verify(idToken: garbage, clientID: clientID, expectedSubject: nil, at: now))
                    == .malformedJWS)
        }
    }

    @Test("a key set that cannot be loaded makes the failure retryable")
    func unavailableKeys() async {
        let cache = JWKSCache(
            fetcher: FakeJWKSFetcher(response: .failure(JWKSError(.fetchFailed, "down"))), now: { now })
        let result = await IdentityTokenVerifier(keys: cache).verify(
            idToken: factory.token(claims: idClaims()), clientID: clientID, expectedSubject: nil, at: now)
        guard case .failure(let error) = result else {
            Issue.record("verified without keys")
            return
        }
        #expect(error.code == .unknownKid)
        #expect(error.isRetryable)
    }
}
