import AppleNotifications
import LifecycleCore
import LifecycleCrypto
import SharedSignals
import TestSupport
import Testing

/// The SET verifier against tokens signed by the test key: what RFC 8417 / SSF 1.0 require, and what the
/// Google RISC profile relaxes.
@Suite("Security Event Token verification")
struct SecurityEventVerifierTests {
    static let issuer = "https://idp.example.com/"
    static let audience = "https://receiver.example.com/"
    static let now = Instant(secondsSinceEpoch: 1_767_225_600)
    static let purged = "https://schemas.openid.net/secevent/risc/event-type/account-purged"
    let factory = TestTokenFactory()

    func verifier(_ profile: SignalProfile, audiences: Set<String> = [audience]) -> SecurityEventVerifier {
        SecurityEventVerifier(
            keys: factory.keyProvider,
            configuration: .init(profile: profile, issuer: Self.issuer, audiences: audiences))
    }

    static func claims(
        event: String = purged, body: JSONObject = [:], overrides: [String: JSONValue?] = [:]
    ) -> JSONObject {
        var claims: JSONObject = [
            "iss": .string(issuer), "aud": .string(audience), "iat": .integer(now.secondsSinceEpoch - 5),
            "jti": "set-1",
            "sub_id": ["format": "iss_sub", "iss": .string(issuer), "sub": "248289761001"],
            "events": .object([event: .object(body)]),
        ]
        for (name, value) in overrides { claims[name] = value }
        return claims
    }

    func token(claims: JSONObject = claims(), typ: String? = "secevent+jwt", alg: String = "RS256") -> [UInt8] {
        var header = factory.header(overrides: ["alg": .string(alg)])
        if let typ { header["typ"] = .string(typ) }
        return Array(factory.token(header: header, claims: claims).utf8)
    }

    @Test("an SSF SET verifies and names its account by provider and RFC 9493 subject")
    func verifies() async throws {
        let set = try await verifier(.ssf).verify(token(), at: Self.now).get()
        #expect(set.eventType == .accountPurged)
        #expect(set.jti == "set-1")
        #expect(set.eventTime == Instant(secondsSinceEpoch: Self.now.secondsSinceEpoch - 5))
        let account = try #require(set.subject?.providerSubject(provider: "okta"))
        #expect(account.accountKey == "okta:iss_sub:https%3A//idp.example.com/:248289761001")
        #expect(ProviderSubject(accountKey: account.accountKey) == account)
    }

    @Test("typ must be secevent+jwt for ssf; google-risc accepts none or JWT", arguments: [nil, "JWT", "jwt"])
    func explicitTyping(typ: String?) async {
        let refused = await verifier(.ssf).verify(token(typ: typ), at: Self.now)
        #expect(refused.failureCode == .malformedJWS)
        let accepted = await verifier(.googleRISC).verify(token(typ: typ), at: Self.now)
        #expect(accepted.failureCode == nil)
    }

    @Test("an expired SET is refused under ssf and accepted under google-risc, which never checks exp")
    func expiry() async {
        let expired = token(claims: Self.claims(overrides: ["exp": .integer(Self.now.secondsSinceEpoch - 3600)]))
        #expect(await verifier(.ssf).verify(expired, at: Self.now).failureCode == .expired)
        #expect(await verifier(.googleRISC).verify(expired, at: Self.now).failureCode == nil)
    }

    @Test(
        "each bad claim has its reason, in RFC 8935 terms",
        arguments: [
            (["iss": .string("https://evil.example/")], ReasonCode.invalidIssuer, "invalid_issuer"),
            (["aud": .string("https://other.example/")], .invalidAudience, "invalid_audience"),
            (["aud": .array(["a", "b"])], .invalidAudience, "invalid_audience"),
            (["jti": nil], .malformedClaims, "invalid_request"),
            (["iat": nil], .malformedClaims, "invalid_request"),
            (["iat": .integer(1_767_229_200)], .issuedInFuture, "authentication_failed"),
            // Before 1970: without toe or event_timestamp, iat is the event's time (found by the fuzz target).
            (["iat": .integer(-26)], .malformedClaims, "invalid_request"),
            (["events": .object([:])], .malformedEvent, "invalid_request"),
            (["sub_id": nil], .malformedEvent, "invalid_request"),
            (["sub_id": ["format": "iss_sub", "iss": "x"]], .malformedEvent, "invalid_request"),
        ] as [([String: JSONValue?], ReasonCode, String)])
    func badClaims(overrides: [String: JSONValue?], code: ReasonCode, err: String) async {
        let result = await verifier(.ssf).verify(token(claims: Self.claims(overrides: overrides)), at: Self.now)
        #expect(result.failureCode == code)
        #expect(code.rfc8935Error == err)
    }

    @Test("aud may be an array holding one configured audience")
    func audienceArray() async {
        let claims = Self.claims(overrides: ["aud": .array(["https://other.example/", .string(Self.audience)])])
        #expect(await verifier(.ssf).verify(token(claims: claims), at: Self.now).failureCode == nil)
    }

    @Test("alg none, HS256 and a bad signature are refused before any claim is read")
    func signatures() async {
        #expect(await verifier(.ssf).verify(token(alg: "none"), at: Self.now).failureCode == .unsupportedAlgorithm)
        var forged = token()
        forged[forged.count - 3] ^= 0x01
        let result = await verifier(.ssf).verify(forged, at: Self.now)
        #expect(result.failureCode == .badSignature || result.failureCode == .malformedJWS)
    }

    @Test("Google's subject inside the event (subject_type iss-sub) is an iss_sub account; a token subject is none")
    func googleSubjects() async throws {
        var claims = Self.claims(
            event: "https://schemas.openid.net/secevent/risc/event-type/account-disabled",
            body: [
                "subject": ["subject_type": "iss-sub", "iss": "https://accounts.google.com/", "sub": "7375626A656374"],
                "reason": "hijacking",
            ], overrides: ["sub_id": nil])
        let set = try await verifier(.googleRISC).verify(token(claims: claims, typ: nil), at: Self.now).get()
        #expect(set.eventType == .accountDisabled)
        #expect(set.reason == "hijacking")
        #expect(
            set.subject?.providerSubject(provider: "google")?.values == [
                "https://accounts.google.com/", "7375626A656374",
            ])
        claims["events"] = [
            "https://schemas.openid.net/secevent/oauth/event-type/token-revoked": [
                "subject": [
                    "subject_type": "oauth_token", "token_type": "refresh_token",
                    "token_identifier_alg": "hash_base64_sha512_sha512", "token": "aGFzaA",
                ]
            ]
        ]
        let token = try await verifier(.googleRISC).verify(token(claims: claims, typ: nil), at: Self.now).get()
        #expect(token.eventType == .tokenRevoked)
        #expect(token.subject?.providerSubject(provider: "google") == nil)
    }

    @Test("RFC 9493 formats each give one account key; aliases take the first supported one")
    func formats() throws {
        let cases: [(JSONValue, String)] = [
            (["format": "email", "email": "User@Example.COM"], "p:email:user@example.com"),
            (["format": "opaque", "id": "a:b%c"], "p:opaque:a%3Ab%25c"),
            (["format": "account", "uri": "acct:u@example.com"], "p:account:acct%3Au@example.com"),
            (["format": "phone_number", "phone_number": "+12065550100"], "p:phone_number:+12065550100"),
            (
                ["format": "aliases", "identifiers": [["format": "x-unknown"], ["format": "opaque", "id": "7"]]],
                "p:opaque:7"
            ),
            (["format": "complex", "user": ["format": "opaque", "id": "8"]], "p:opaque:8"),
        ]
        for (value, key) in cases {
            #expect(try SubjectIdentifier(decoding: value).providerSubject(provider: "p")?.accountKey == key)
        }
        #expect(throws: VerificationError.self) { try SubjectIdentifier(decoding: ["format": "nope", "id": "1"]) }
    }

    @Test("two different subjects never share a key, even when their parts contain the separator")
    func keysAreInjective() {
        let first = ProviderSubject(provider: "p", format: "iss_sub", values: ["a:b", "c"]).accountKey
        let second = ProviderSubject(provider: "p", format: "iss_sub", values: ["a", "b:c"]).accountKey
        #expect(first != second)
        #expect(ProviderSubject.providerName(ofAccountKey: "001234.0123456789abcdef.0101") == "apple")
        #expect(ProviderSubject.providerName(ofAccountKey: first) == "p")
    }

    @Test("a later holder of an identifier has its own key, read back with its generation; a bad mark is no key")
    func holderGenerations() {
        let first = ProviderSubject(provider: "p", format: "email", values: ["a@example.com"])
        var second = first
        second.generation = 2
        #expect(first.accountKey == "p:email:a@example.com")
        #expect(second.accountKey == "p:email#2:a@example.com")
        #expect(ProviderSubject(accountKey: second.accountKey) == second)
        #expect(ProviderSubject(accountKey: second.accountKey)?.firstHolder == first)
        #expect(ProviderSubject(accountKey: second.accountKey)?.values.last == "a@example.com", "the :provider_sub")
        for bad in ["p:email#1:a", "p:email#:a", "p:email#02:a", "p:email#x:a"] {
            #expect(ProviderSubject(accountKey: bad) == nil, "\(bad)")
        }
    }

    @Test("identifier-changed: the new value in the subject's format, an e-mail lowercased; other formats none")
    func changedIdentifier() throws {
        let email = try SubjectIdentifier(decoding: ["format": "email", "email": "Old@Example.com"])
        #expect(
            email.changed(to: "New@Example.COM")?.providerSubject(provider: "p")?.accountKey
                == "p:email:new@example.com")
        #expect(email.changed(to: "OLD@example.com") == nil, "the same address is no change")
        let phone = try SubjectIdentifier(decoding: ["format": "phone_number", "phone_number": "+12065550100"])
        #expect(
            phone.changed(to: "+12065550111")?.providerSubject(provider: "p")?.accountKey
                == "p:phone_number:+12065550111")
        let opaque = try SubjectIdentifier(decoding: ["format": "opaque", "id": "7"])
        #expect(opaque.changed(to: "8") == nil)
    }
}

/// ES256 transmitters: the P-256 keys of a JWKS verify ES256 SETs, and only those.
@Suite("Security Event Tokens signed ES256")
struct SecurityEventES256Tests {
    static let ecKey: P256PrivateKey = {
        do { return try P256PrivateKey.generate() } catch { fatalError("no P-256 key: \(error)") }
    }()

    static func es256(claims: JSONObject, kid: String = "ec-1", alg: String = "ES256") throws -> [UInt8] {
        let header: JSONValue = ["alg": .string(alg), "kid": .string(kid), "typ": "secevent+jwt"]
        let input = Base64URL.encode(header.encoded()) + "." + Base64URL.encode(JSONValue.object(claims).encoded())
        let signature = try ecKey.signES256(Array(input.utf8))
        return Array((input + "." + Base64URL.encode(signature)).utf8)
    }

    func verifier(_ keys: any KeyProvider) -> SecurityEventVerifier {
        SecurityEventVerifier(
            keys: keys,
            configuration: .init(
                profile: .ssf, issuer: SecurityEventVerifierTests.issuer,
                audiences: [SecurityEventVerifierTests.audience]))
    }

    @Test("an ES256 SET verifies with the transmitter's P-256 key from its JWKS, through the key cache")
    func verifiesThroughCache() async throws {
        let jwks = JWKSet(keys: [])
        var set = jwks
        set.ecKeys = [try ECJWK(keyID: "ec-1", publicKey: Self.ecKey.publicKey)]
        let decoded = try JWKSet(decoding: set.encoded())
        #expect(decoded.ecKeys == set.ecKeys)
        let cache = JWKSCache(
            fetcher: FakeJWKSFetcher(response: .success(set.encoded())), now: { SecurityEventVerifierTests.now })
        let token = try Self.es256(claims: SecurityEventVerifierTests.claims())
        let result = await verifier(cache).verify(token, at: SecurityEventVerifierTests.now)
        #expect(result.failureCode == nil, "\(result)")
        #expect(cache.keyIDs == ["ec-1"])
    }

    @Test("the algorithm belongs to the key: ES256 with an RSA kid, or RS256 with a P-256 kid, is refused")
    func algorithmFollowsKey() async throws {
        let keys = StaticKeyProvider(
            keys: [TestKeys.keyID: TestKeys.rsa2048.publicKey], p256Keys: ["ec-1": Self.ecKey.publicKey])
        let claims = SecurityEventVerifierTests.claims()
        let wrongKey = try Self.es256(claims: claims, kid: TestKeys.keyID)
        #expect(
            await verifier(keys).verify(wrongKey, at: SecurityEventVerifierTests.now).failureCode
                == .unsupportedAlgorithm)
        let relabelled = try Self.es256(claims: claims, alg: "RS256")
        #expect(
            await verifier(keys).verify(relabelled, at: SecurityEventVerifierTests.now).failureCode
                == .unsupportedAlgorithm)
        var forged = try Self.es256(claims: claims)
        forged[forged.count - 2] ^= 0x01
        let result = await verifier(keys).verify(forged, at: SecurityEventVerifierTests.now).failureCode
        #expect(result == .badSignature || result == .malformedJWS)
    }
}

extension Result where Failure == VerificationError {
    /// The reason code of a failure, nil for a success.
    var failureCode: ReasonCode? {
        if case .failure(let error) = self { return error.code }
        return nil
    }
}
