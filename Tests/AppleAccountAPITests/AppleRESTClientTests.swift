import AppleAccountAPI
import AppleRESTFake
import Glibc
import LifecycleCore
import LifecycleCrypto
import Synchronization
import TestSupport
import Testing

private let native = AppleTestCredentials.native
private let web = AppleTestCredentials.web

@Suite("Apple REST client against the stand-in on loopback TLS", .serialized)
struct AppleRESTClientTests {
    @Test("a code exchange returns tokens whose id_token verifies with the keys from /auth/keys")
    func exchange() async throws {
        try await withAppleHarness { harness in
            let tokens = try await harness.signIn(harness.client())
            let refreshToken = try #require(tokens.refreshToken)
            #expect(tokens.expiresIn == 3_600)
            #expect(harness.fake.isActive(refreshToken: refreshToken.value))
            #expect(harness.fake.isActive(accessToken: tokens.accessToken.value))
            let identity = try await harness.identityVerifier().verify(
                idToken: try #require(tokens.idToken).value, clientID: native.id,
                expectedSubject: TestFixtures.subject, at: harness.clock.instant
            ).get()
            #expect(identity.audience == native.id)
            let exchange = try #require(harness.fake.requests(to: .token).first)
            #expect(exchange.form["grant_type"] == "authorization_code")
            #expect(exchange.form["client_id"] == native.id)
            #expect(exchange.form["redirect_uri"] == nil)
            #expect(exchange.clientSecretProblem == nil)
            #expect(harness.fake.requests(to: .keys).count == 1)
        }
    }

    @Test("a web sign-in exchanges with its redirect_uri; a different one is invalid_client")
    func webRedirect() async throws {
        try await withAppleHarness { harness in
            let client = harness.client()
            let tokens = try await harness.signIn(client, as: web)
            #expect(tokens.refreshToken != nil)
            #expect(harness.fake.requests(to: .token).last?.form["redirect_uri"] == AppleTestCredentials.redirectURI)
            let code = harness.fake.issueAuthorizationCode(
                clientID: web.id, subject: TestFixtures.subject, redirectURI: AppleTestCredentials.redirectURI)
            let result = await client.exchange(
                code: AppleAuthorizationCode(code), redirectURI: "https://evil.example/cb", clientID: web.id)
            #expect(result.failure == .invalidClient)
        }
    }

    @Test("a code works once, for five minutes, for the client it was issued to")
    func codeRules() async throws {
        try await withAppleHarness { harness in
            let client = harness.client()
            let code = AppleAuthorizationCode(
                harness.fake.issueAuthorizationCode(clientID: native.id, subject: TestFixtures.subject))
            let first = await client.exchange(code: code, redirectURI: nil, clientID: native.id)
            #expect(first.failure == nil)
            #expect(await client.exchange(code: code, redirectURI: nil, clientID: native.id).failure == .invalidGrant)

            let late = AppleAuthorizationCode(
                harness.fake.issueAuthorizationCode(clientID: native.id, subject: TestFixtures.subject))
            harness.clock.advance(seconds: 301)
            #expect(await client.exchange(code: late, redirectURI: nil, clientID: native.id).failure == .invalidGrant)

            let foreign = AppleAuthorizationCode(
                harness.fake.issueAuthorizationCode(clientID: native.id, subject: TestFixtures.subject))
            #expect(await client.exchange(code: foreign, redirectURI: nil, clientID: web.id).failure == .invalidGrant)
            #expect(
                await client.exchange(code: AppleAuthorizationCode("made-up"), redirectURI: nil, clientID: native.id)
                    .failure == .invalidGrant)
        }
    }

    @Test("a refresh grant answers a new access token without a new refresh token")
    func refresh() async throws {
        try await withAppleHarness { harness in
            let client = harness.client()
            let refreshToken = try await harness.refreshToken(client)
            let refreshed = try await client.refresh(refreshToken, clientID: native.id).get()
            #expect(refreshed.refreshToken == nil)
            #expect(harness.fake.isActive(accessToken: refreshed.accessToken.value))
            #expect(harness.fake.requests(to: .token).last?.grantType == "refresh_token")
            #expect(await client.refresh(refreshToken, clientID: web.id).failure == .invalidGrant)
        }
    }

    @Test("revoking the refresh token ends the grant: the next refresh is invalid_grant, and the fake saw one revoke")
    func revokeRefreshToken() async throws {
        try await withAppleHarness { harness in
            let client = harness.client()
            let tokens = try await harness.signIn(client)
            let refreshToken = try #require(tokens.refreshToken)
            #expect(await client.revoke(.refresh(refreshToken), clientID: native.id).failure == nil)
            #expect(await client.refresh(refreshToken, clientID: native.id).failure == .invalidGrant)
            #expect(!harness.fake.isActive(accessToken: tokens.accessToken.value))
            let revokes = harness.fake.requests(to: .revoke)
            #expect(revokes.count == 1)
            #expect(revokes.first?.tokenTypeHint == "refresh_token")
            #expect(revokes.first?.revokedGrant == true)
        }
    }

    @Test("revoking with only the access token ends the grant too")
    func revokeAccessToken() async throws {
        try await withAppleHarness { harness in
            let client = harness.client()
            let tokens = try await harness.signIn(client)
            #expect(await client.revoke(.access(tokens.accessToken), clientID: native.id).failure == nil)
            #expect(harness.fake.requests(to: .revoke).first?.tokenTypeHint == "access_token")
            #expect(
                await client.refresh(try #require(tokens.refreshToken), clientID: native.id).failure == .invalidGrant)
        }
    }

    @Test("a revoke of an unknown, foreign or already revoked token answers 200 like Apple, so 200 proves nothing")
    func revokeProvesNothing() async throws {
        try await withAppleHarness { harness in
            let client = harness.client()
            let refreshToken = try await harness.refreshToken(client)
            #expect(await client.revoke(.refresh(AppleRefreshToken("unknown")), clientID: native.id).failure == nil)
            #expect(await client.revoke(.refresh(refreshToken), clientID: web.id).failure == nil)
            #expect(harness.fake.isActive(refreshToken: refreshToken.value), "another client cannot revoke it")
            #expect(await client.revoke(.refresh(refreshToken), clientID: native.id).failure == nil)
            #expect(await client.revoke(.refresh(refreshToken), clientID: native.id).failure == nil)
            #expect(harness.fake.requests(to: .revoke).map(\.revokedGrant) == [false, false, true, false])
        }
    }

    @Test("a fake that keeps revoked tokens valid answers 200 and the refresh still succeeds: unverified")
    func revokedButValid() async throws {
        try await withAppleHarness { harness in
            let client = harness.client()
            let refreshToken = try await harness.refreshToken(client)
            harness.fake.keepsRevokedTokensValid = true
            #expect(await client.revoke(.refresh(refreshToken), clientID: native.id).failure == nil)
            #expect(await client.refresh(refreshToken, clientID: native.id).failure == nil)
        }
    }

    @Test("a user who ends the authorization outside the app makes the refresh grant fail, with no notification")
    func outOfBandInvalidation() async throws {
        try await withAppleHarness { harness in
            let client = harness.client()
            let refreshToken = try await harness.refreshToken(client)
            let other = try await harness.refreshToken(client, subject: "000777.other.0001")
            #expect(harness.fake.invalidateAuthorizations(subject: TestFixtures.subject) == 1)
            #expect(await client.refresh(refreshToken, clientID: native.id).failure == .invalidGrant)
            #expect(await client.refresh(other, clientID: native.id).failure == nil)
        }
    }

    @Test("a secret signed with another key, or under another kid or team, is invalid_client, and the fake says why")
    func wrongCredentials() async throws {
        try await withAppleHarness { harness in
            let cases: [(AppleCredentials, String)] = [
                (AppleTestCredentials.credentials(key: try P256PrivateKey.generate()), "signature"),
                (AppleTestCredentials.credentials(keyID: "KEYZZZZZZZ"), "kid"),
                (AppleTestCredentials.credentials(teamID: "TEAMZZZZZZ"), "iss"),
            ]
            for (credentials, reason) in cases {
                let result = await harness.client(credentials: credentials).refresh(
                    AppleRefreshToken("r.0.x"), clientID: native.id)
                #expect(result.failure == .invalidClient)
                #expect(harness.fake.requests.last?.clientSecretProblem?.contains(reason) == true, "\(reason)")
            }
            let unknownClient = await harness.client().refresh(
                AppleRefreshToken("r.0.x"), clientID: "com.example.unknown")
            #expect(unknownClient.failure == .invalidClient)
        }
    }

    @Test("a secret that expired by the fake's clock is invalid_client")
    func expiredSecret() async throws {
        try await withAppleHarness { harness in
            let clock = harness.clock
            let client = harness.client(secretClock: { clock.instant.adding(seconds: -7_200) })
            #expect(await client.refresh(AppleRefreshToken("r.0.x"), clientID: native.id).failure == .invalidClient)
            #expect(harness.fake.requests.last?.clientSecretProblem == "expired")
        }
    }

    @Test("the fake's faults per endpoint: invalid_client, 5xx, 429 with Retry-After, a raw malformed 200")
    func faults() async throws {
        try await withAppleHarness { harness in
            let client = harness.client()
            let refreshToken = try await harness.refreshToken(client)
            harness.fake.setBehaviour(.invalidClient, for: .token)
            #expect(await client.refresh(refreshToken, clientID: native.id).failure == .invalidClient)
            #expect(await client.revoke(.refresh(refreshToken), clientID: native.id).failure == nil, "revoke is fine")
            harness.fake.setBehaviour(.serverError(status: 503), for: .revoke)
            #expect(
                await client.revoke(.refresh(refreshToken), clientID: native.id).failure == .serverError(status: 503))
            harness.fake.setBehaviour(.rateLimited(retryAfter: "30"), for: .token)
            #expect(
                await client.refresh(refreshToken, clientID: native.id).failure == .rateLimited(retryAfterSeconds: 30))
            harness.fake.setBehaviour(
                .raw(status: 200, contentType: "application/json", body: Array(#"{"access_token":5}"#.utf8)),
                for: .token)
            #expect(
                await client.refresh(refreshToken, clientID: native.id).failure
                    == .malformedResponse("access_token is not a string"))
        }
    }

    @Test("a slow answer past the client's timeout is timeout, and the same call within it succeeds")
    func slow() async throws {
        try await withAppleHarness { harness in
            let refreshToken = try await harness.refreshToken(harness.client())
            harness.fake.setBehaviour(.slow(.milliseconds(1_500)), for: .token)
            // The answer would have been a success: a timeout proves the client gave up before it.
            let result = await harness.client(timeout: .milliseconds(300)).refresh(refreshToken, clientID: native.id)
            #expect(result.failure == .timeout)
            #expect(
                await harness.client(timeout: .seconds(5)).refresh(refreshToken, clientID: native.id).failure == nil)
        }
    }

    @Test("a server whose certificate is not from the trusted CA is refused at the TLS handshake")
    func untrustedServer() async throws {
        try await withAppleHarness { harness in
            var configuration = harness.configuration()
            configuration.trustedCAFile = nil
            let client = AppleRESTClient(secrets: harness.minter(), configuration: configuration)
            guard
                case .transport(let reason)? = await client.refresh(AppleRefreshToken("r.0.x"), clientID: native.id)
                    .failure
            else {
                Issue.record("the handshake with an untrusted certificate succeeded")
                return
            }
            #expect(reason.contains("TLS"))
            #expect(harness.fake.requests.isEmpty, "nothing was sent")
        }
    }

    @Test("nothing listening is a transport error naming the failure")
    func nothingListening() async throws {
        let harness = try AppleHarness()
        await harness.fake.stop()
        // Not the stopped fake's own port: the parallel suite's next listener may be given it, and once was
        // (the call then failed in a TLS handshake with whatever answered).
        let refusing = try RefusingPort()
        let configuration = AppleRESTConfiguration(
            baseURL: try AppleBaseURL.parse("https://127.0.0.1:\(refusing.port)").get(),
            trustedCAFile: harness.fake.caFile,
            timeout: .seconds(2))
        let result = await AppleRESTClient(secrets: harness.minter(), configuration: configuration).refresh(
            AppleRefreshToken("r.0.x"), clientID: native.id)
        withExtendedLifetime(refusing) {}
        guard case .transport(let reason)? = result.failure else {
            Issue.record("expected a transport error, got \(result)")
            return
        }
        #expect(reason.contains("connect"))
    }

    @Test("the observer gets one record per call with endpoint, grant, outcome and status, and no token")
    func observer() async throws {
        try await withAppleHarness { harness in
            let records = Mutex<[AppleRequestRecord]>([])
            let client = harness.client(observer: { record in records.withLock { $0.append(record) } })
            let tokens = try await harness.signIn(client)
            let refreshToken = try #require(tokens.refreshToken)
            _ = await client.refresh(refreshToken, clientID: native.id)
            _ = await client.revoke(.refresh(refreshToken), clientID: native.id)
            _ = await client.refresh(refreshToken, clientID: native.id)
            let seen = records.withLock { $0 }
            #expect(seen.map(\.endpoint) == [.token, .token, .revoke, .token])
            #expect(seen.map(\.grant) == [.authorizationCode, .refreshToken, nil, .refreshToken])
            #expect(seen.map(\.outcome) == ["ok", "ok", "ok", "invalid_grant"])
            #expect(seen.map(\.status) == [200, 200, 200, 400])
            #expect(!"\(seen)".contains(refreshToken.value))
        }
    }

    @Test("no token, code or secret appears in any description of answers and errors, even echoed back")
    func redaction() async throws {
        try await withAppleHarness { harness in
            let client = harness.client()
            let tokens = try await harness.signIn(client)
            let secrets = [
                tokens.accessToken.value, try #require(tokens.refreshToken).value, try #require(tokens.idToken).value,
            ]
            var texts = ["\(tokens)", String(reflecting: tokens), "\(String(describing: tokens.refreshToken))"]
            var dumped = ""
            dump(tokens, to: &dumped)
            texts.append(dumped)
            let echo = #"{"error":"invalid_grant","error_description":"\#(secrets[1])"}"#
            harness.fake.setBehaviour(
                .raw(status: 400, contentType: "application/json", body: Array(echo.utf8)), for: .token)
            let failure = await client.refresh(try #require(tokens.refreshToken), clientID: native.id)
            texts.append("\(failure)")
            let weird = #"{"error":"\#(secrets[0])"}"#
            harness.fake.setBehaviour(
                .raw(status: 400, contentType: "application/json", body: Array(weird.utf8)), for: .token)
            texts.append("\(await client.refresh(try #require(tokens.refreshToken), clientID: native.id))")
            // Not even a part of a token: the first 16 characters after the first.
            for text in texts {
                for secret in secrets { #expect(!text.contains(secret.dropFirst().prefix(16)), "\(text)") }
            }
        }
    }
}
