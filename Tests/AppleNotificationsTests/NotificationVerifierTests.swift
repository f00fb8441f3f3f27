import AppleNotifications
import LifecycleCore
import LifecycleCrypto
import TestSupport
import Testing

/// Verification as of a fixed instant: five seconds after the fixtures' `iat`.
private let now = TestFixtures.issuedAt.adding(seconds: 5)

private func code(_ result: Result<VerifiedNotification, VerificationError>) -> ReasonCode? {
    if case .failure(let error) = result { return error.code }
    return nil
}

@Suite("Notification verification")
struct NotificationVerifierTests {
    let factory = TestTokenFactory()

    @Test("a token shaped like Apple's real traffic is accepted and decoded")
    func acceptsValidToken() async throws {
        let result = await factory.verifier().verify(jws: factory.token(), at: now)
        let notification = try result.get()
        #expect(notification.jti == TestFixtures.jti)
        #expect(notification.audience == TestFixtures.audience)
        #expect(notification.issuer == "https://appleid.apple.com")
        #expect(notification.keyID == TestKeys.keyID)
        #expect(notification.issuedAt == TestFixtures.issuedAt)
        #expect(notification.expiresAt == TestFixtures.issuedAt.adding(seconds: 86_400))
        #expect(notification.event.type == .consentRevoked)
        #expect(notification.event.subject == TestFixtures.subject)
        #expect(notification.event.eventTime.millisecondsSinceEpoch == TestFixtures.eventTimeMilliseconds)
        #expect(!notification.acceptedExpired)
    }

    @Test("alg none is refused as an unsupported algorithm")
    func refusesAlgNone() async {
        let token = factory.token(header: factory.header(overrides: ["alg": .string("none")]), signing: .none)
        #expect(code(await factory.verifier().verify(jws: token, at: now)) == .unsupportedAlgorithm)
    }

    @Test("HS256 keyed with the RSA public key is refused")
    func refusesKeyConfusion() async throws {
        let secret = try factory.key.publicKey.pem()
        let token = factory.token(
            header: factory.header(overrides: ["alg": .string("HS256")]), signing: .hs256(secret: secret))
        #expect(code(await factory.verifier().verify(jws: token, at: now)) == .unsupportedAlgorithm)
    }

    @Test("a PS256 token is refused even though its signature is valid for the key")
    func refusesPS256() async {
        let token = factory.token(header: factory.header(overrides: ["alg": .string("PS256")]), signing: .ps256)
        #expect(code(await factory.verifier().verify(jws: token, at: now)) == .unsupportedAlgorithm)
    }

    @Test("a PS256 signature relabelled RS256 fails the signature check")
    func refusesRelabelledPS256() async {
        let token = factory.token(signing: .ps256)
        #expect(code(await factory.verifier().verify(jws: token, at: now)) == .badSignature)
    }

    @Test("a missing alg or kid is refused with its own code")
    func refusesMissingHeaderMembers() async {
        let noAlg = factory.token(header: factory.header(overrides: ["alg": nil]))
        #expect(code(await factory.verifier().verify(jws: noAlg, at: now)) == .unsupportedAlgorithm)
        let noKid = factory.token(header: factory.header(overrides: ["kid": nil]))
        #expect(code(await factory.verifier().verify(jws: noKid, at: now)) == .missingKid)
    }

    @Test("a kid absent from the key set is refused")
    func refusesUnknownKid() async {
        let token = TestTokenFactory(keyID: "someone-elses-kid").token()
        let result = await factory.verifier().verify(jws: token, at: now)
        #expect(code(result) == .unknownKid)
        if case .failure(let error) = result { #expect(!error.isRetryable) }
    }

    @Test("a 1024-bit key is refused as weak even with a valid signature")
    func refusesWeakKey() async {
        let weak = TestTokenFactory(key: TestKeys.rsa1024, keyID: TestKeys.weakKeyID)
        #expect(weak.key.bitCount == 1024)
        #expect(code(await weak.verifier().verify(jws: weak.token(), at: now)) == .weakKey)
    }

    @Test("a token whose claims were changed after signing is refused")
    func refusesTamperedClaims() async {
        let parts = factory.token().split(separator: ".").map(String.init)
        let forged = TestTokenFactory.claims(audience: "com.attacker.app")
        let tampered = [parts[0], Base64URL.encode(JSONValue.object(forged).encoded()), parts[2]].joined(separator: ".")
        #expect(
            code(await factory.verifier(audiences: ["com.attacker.app"]).verify(jws: tampered, at: now))
                == .badSignature)
    }

    @Test("a token with a flipped signature byte is refused")
    func refusesTamperedSignature() async throws {
        let parts = factory.token().split(separator: ".").map(String.init)
        var signature = try #require(Base64URL.decode(parts[2]))
        signature[signature.count / 2] ^= 0x01
        let tampered = [parts[0], parts[1], Base64URL.encode(signature)].joined(separator: ".")
        #expect(code(await factory.verifier().verify(jws: tampered, at: now)) == .badSignature)
    }

    @Test("a token signed by another key under our kid is refused")
    func refusesForeignKey() async {
        let attacker = TestTokenFactory(key: TestKeys.fresh(), keyID: TestKeys.keyID)
        #expect(code(await factory.verifier().verify(jws: attacker.token(), at: now)) == .badSignature)
    }

    @Test("a wrong or missing issuer is refused")
    func refusesWrongIssuer() async {
        for issuer: JSONValue? in [.string("https://evil.example"), .string("https://appleid.apple.com/"), nil] {
            let token = factory.token(claims: TestTokenFactory.claims(overrides: ["iss": issuer]))
            #expect(code(await factory.verifier().verify(jws: token, at: now)) == .invalidIssuer)
        }
    }

    @Test("an audience that is not a configured client ID is refused")
    func refusesWrongAudience() async {
        let token = factory.token(claims: TestTokenFactory.claims(audience: "com.other.app"))
        #expect(code(await factory.verifier().verify(jws: token, at: now)) == .invalidAudience)
        let arrayAudience = factory.token(
            claims: TestTokenFactory.claims(overrides: ["aud": .array([.string(TestFixtures.audience)])]))
        #expect(code(await factory.verifier().verify(jws: arrayAudience, at: now)) == .invalidAudience)
    }

    @Test("any of several configured audiences is accepted")
    func acceptsAnyConfiguredAudience() async {
        let token = factory.token(claims: TestTokenFactory.claims(audience: "com.example.second"))
        let verifier = factory.verifier(audiences: [TestFixtures.audience, "com.example.second"])
        #expect(code(await verifier.verify(jws: token, at: now)) == nil)
    }

    @Test("an expired token is refused, within leeway accepted, and accepted as expired on replay")
    func expiry() async throws {
        let expiry = TestFixtures.issuedAt.adding(seconds: 86_400)
        let verifier = factory.verifier()
        let token = factory.token()
        #expect(code(await verifier.verify(jws: token, at: expiry.adding(seconds: 59))) == nil)
        #expect(code(await verifier.verify(jws: token, at: expiry.adding(seconds: 60))) == .expired)
        let replayed = try await verifier.verify(jws: token, at: expiry.adding(seconds: 3600), allowExpired: true).get()
        #expect(replayed.acceptedExpired)
    }

    @Test("a token without exp (as documented) is accepted")
    func acceptsMissingExp() async throws {
        let token = factory.token(claims: TestTokenFactory.claims(overrides: ["exp": nil]))
        let notification = try await factory.verifier().verify(jws: token, at: now).get()
        #expect(notification.expiresAt == nil)
    }

    @Test("a token issued beyond the leeway in the future is refused")
    func refusesFutureIssue() async {
        let token = factory.token(claims: TestTokenFactory.claims(issuedAt: now.adding(seconds: 61)))
        #expect(code(await factory.verifier().verify(jws: token, at: now)) == .issuedInFuture)
        let withinLeeway = factory.token(claims: TestTokenFactory.claims(issuedAt: now.adding(seconds: 60)))
        #expect(code(await factory.verifier().verify(jws: withinLeeway, at: now)) == nil)
    }

    @Test("missing jti or iat, or non-numeric times, are malformed claims")
    func refusesMissingClaims() async {
        for overrides: [String: JSONValue?] in [
            ["jti": nil], ["iat": nil], ["jti": .string("")], ["exp": .string("soon")],
        ] {
            let token = factory.token(claims: TestTokenFactory.claims(overrides: overrides))
            #expect(code(await factory.verifier().verify(jws: token, at: now)) == .malformedClaims)
        }
    }

    @Test("an exp so large it would overflow milliseconds is malformed, not a crash")
    func refusesOverflowingTime() async {
        let token = factory.token(claims: TestTokenFactory.claims(overrides: ["exp": .integer(.max)]))
        #expect(code(await factory.verifier().verify(jws: token, at: now)) == .malformedClaims)
    }

    @Test(
        "structurally broken tokens are malformed_jws",
        arguments: ["", "abc", "a.b", "a.b.c.d", "!!.e30.", ".e30.sig", "e30..sig"])
    func refusesBrokenStructure(token: String) async {
        #expect(code(await factory.verifier().verify(jws: token, at: now)) == .malformedJWS)
    }

    @Test("a truncated token is refused")
    func refusesTruncatedToken() async {
        let token = factory.token()
        let cutInSignature = String(token.dropLast(10))
        #expect(code(await factory.verifier().verify(jws: cutInSignature, at: now)) == .badSignature)
        let cutInPayload = String(token.prefix(token.count / 2))
        #expect(code(await factory.verifier().verify(jws: cutInPayload, at: now)) == .malformedJWS)
    }

    @Test("a header that is not a JSON object is malformed_jws")
    func refusesNonObjectHeader() async {
        let token = factory.token(
            rawHeader: Array("[1]".utf8), rawClaims: JSONValue.object(TestTokenFactory.claims()).encoded())
        #expect(code(await factory.verifier().verify(jws: token, at: now)) == .malformedJWS)
    }

    @Test("a token longer than the limit is refused before decoding")
    func refusesOversizedToken() async {
        let verifier = NotificationVerifier(
            keys: factory.keyProvider,
            configuration: .init(audiences: [TestFixtures.audience], limits: .init(maximumBytes: 100)))
        #expect(code(await verifier.verify(jws: factory.token(), at: now)) == .malformedJWS)
    }

    @Test("error descriptions never contain the sub or the e-mail")
    func descriptionsCarryNoPII() async {
        let email = "abcdef@privaterelay.appleid.com"
        let event = TestTokenFactory.event(
            type: "email-disabled", extra: ["email": .string(email), "is_private_email": .string("true")])
        let cases: [JSONObject] = [
            TestTokenFactory.claims(event: event, audience: "com.other.app"),
            TestTokenFactory.claims(event: event, overrides: ["iss": .string("https://evil.example")]),
            TestTokenFactory.claims(event: event, issuedAt: now.adding(seconds: -200_000)),
            TestTokenFactory.claims(event: event, issuedAt: now.adding(seconds: 3600)),
        ]
        for claims in cases {
            guard
                case .failure(let error) = await factory.verifier().verify(jws: factory.token(claims: claims), at: now)
            else {
                Issue.record("expected a failure")
                continue
            }
            #expect(!error.description.contains(TestFixtures.subject))
            #expect(!error.description.contains(email))
        }
    }

    @Test("inspect returns header and claims with the verdict, also when the signature fails")
    func inspectReport() async throws {
        let verifier = factory.verifier()
        let good = await verifier.inspect(jws: factory.token(), at: now)
        #expect(good.isValid)
        #expect(good.signatureVerified)
        #expect(good.header?["alg"] == .string("RS256"))
        #expect(good.claims?["jti"] == .string(TestFixtures.jti))

        let forged = TestTokenFactory(key: TestKeys.fresh(), keyID: TestKeys.keyID).token()
        let bad = await verifier.inspect(jws: forged, at: now)
        #expect(!bad.isValid)
        #expect(!bad.signatureVerified)
        #expect(bad.error?.code == .badSignature)
        #expect(bad.claims?["aud"] == .string(TestFixtures.audience))

        let garbage = await verifier.inspect(jws: "not a token", at: now)
        #expect(garbage.header == nil && garbage.claims == nil)
        #expect(garbage.error?.code == .malformedJWS)
    }
}
