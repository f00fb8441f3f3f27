import AppleAccountAPI
import AppleRESTFake
import LifecycleCore
import LifecycleCrypto
import TestSupport
import Testing

private let native = AppleTestCredentials.native
private let web = AppleTestCredentials.web

@Suite("apple check: an invalid code tells whether Apple accepts the credentials", .serialized)
struct AppleCredentialCheckTests {
    @Test("correct credentials: invalid_grant for every client ID, accepted, exit 0, and no token issued")
    func accepted() async throws {
        try await withAppleHarness { harness in
            let report = await AppleCredentialCheck(client: harness.client()).run(app: "shop")
            #expect(report.credentialsAccepted)
            #expect(report.exitCode == 0)
            #expect(report.items.map(\.id) == ["client-secret", "token-endpoint", "client-secret", "token-endpoint"])
            #expect(report.items.allSatisfy { $0.status == .pass })
            let exchanges = harness.fake.requests(to: .token)
            #expect(exchanges.map(\.clientID) == [native.id, web.id])
            #expect(exchanges.allSatisfy { $0.grantType == "authorization_code" && $0.error == "invalid_grant" })
            #expect(exchanges.allSatisfy { $0.form["code"]?.hasPrefix(AppleCredentialCheck.invalidCodePrefix) == true })
            let text = report.renderText()
            #expect(text.contains("✓ token-endpoint [com.example.shop]: Apple accepted the client secret"))
            #expect(text.contains("ACCEPTED"))
            #expect(report.renderJSON()["accepted"] == .bool(true))
        }
    }

    @Test("a key that is not the team's: invalid_client, ✗ with the fix naming team ID, key ID and client ID, exit 1")
    func wrongKey() async throws {
        try await withAppleHarness { harness in
            let credentials = AppleTestCredentials.credentials(key: try P256PrivateKey.generate())
            let report = await AppleCredentialCheck(client: harness.client(credentials: credentials)).run()
            #expect(!report.credentialsAccepted)
            #expect(report.exitCode == 1)
            let item = try #require(report.item("token-endpoint", clientID: native.id))
            #expect(item.status == .fail)
            #expect(item.detail.contains("invalid_client"))
            let fix = try #require(item.fix)
            #expect(fix.contains(AppleTestCredentials.teamID))
            #expect(fix.contains(AppleTestCredentials.keyID))
            #expect(fix.contains(native.id))
            #expect(report.renderText().contains("✗ token-endpoint [com.example.shop]"))
            #expect(report.renderText().contains("    fix: check that team ID"))
        }
    }

    @Test("a client ID Apple does not know for this key fails on its own line while the other passes")
    func oneWrongClient() async throws {
        try await withAppleHarness { harness in
            let credentials = AppleTestCredentials.credentials(
                clients: [native, AppleClient(id: "com.example.unrelated", kind: .web)])
            let report = await AppleCredentialCheck(client: harness.client(credentials: credentials)).run()
            #expect(report.item("token-endpoint", clientID: native.id)?.status == .pass)
            #expect(report.item("token-endpoint", clientID: "com.example.unrelated")?.status == .fail)
            #expect(!report.credentialsAccepted)
        }
    }

    @Test("Apple throttling or failing: a warning to retry, credentials not verified, exit 1")
    func transient() async throws {
        try await withAppleHarness { harness in
            harness.fake.setBehaviour(.rateLimited(retryAfter: "60"), for: .token)
            let throttled = await AppleCredentialCheck(client: harness.client()).run()
            #expect(throttled.item("token-endpoint", clientID: native.id)?.status == .warning)
            #expect(throttled.item("token-endpoint", clientID: native.id)?.fix == "run the check again in 60 s")
            #expect(throttled.exitCode == 1)
            harness.fake.setBehaviour(.serverError(status: 502), for: .token)
            let failing = await AppleCredentialCheck(client: harness.client()).run()
            #expect(failing.item("token-endpoint", clientID: web.id)?.status == .warning)
            #expect(failing.renderText().contains("! token-endpoint [com.example.shop.web]: Apple answered HTTP 502"))
            #expect(!failing.credentialsAccepted)
        }
    }

    @Test("an unreachable base URL fails with the reason and what to open")
    func unreachable() async throws {
        let harness = try AppleHarness()
        await harness.fake.stop()
        // A port that refuses, not the stopped fake's: another listener of the parallel suite may be given that.
        let refusing = try RefusingPort()
        let client = AppleRESTClient(
            secrets: harness.minter(),
            configuration: AppleRESTConfiguration(
                baseURL: try AppleBaseURL.parse("https://127.0.0.1:\(refusing.port)").get(),
                trustedCAFile: harness.fake.caFile, timeout: .seconds(2)))
        let report = await AppleCredentialCheck(client: client).run()
        withExtendedLifetime(refusing) {}
        let item = try #require(report.item("token-endpoint", clientID: native.id))
        #expect(item.status == .fail)
        #expect(item.detail.hasPrefix("cannot reach https://127.0.0.1:"))
        #expect(report.exitCode == 1)
    }

    @Test(
        "every answer Apple might give is classified, and only invalid_grant passes",
        arguments: [
            (Result<AppleTokenResponse, AppleAPIError>.failure(.invalidGrant), AppleCheckItem.Status.pass),
            (.failure(.invalidClient), .fail), (.failure(.invalidRequest), .fail),
            (.failure(.unauthorizedClient), .fail),
            (.failure(.unsupportedGrantType), .fail), (.failure(.invalidScope), .fail),
            (.failure(.rateLimited(retryAfterSeconds: nil)), .warning), (.failure(.serverError(status: 500)), .warning),
            (.failure(.timeout), .fail), (.failure(.transport("connect failed")), .fail),
            (.failure(.malformedResponse("not JSON")), .fail), (.failure(.clientSecretUnavailable("x")), .fail),
            (
                .success(
                    AppleTokenResponse(
                        accessToken: AppleAccessToken("a"), tokenType: "Bearer", expiresIn: 3_600, refreshToken: nil,
                        idToken: nil)), .fail
            ),
        ])
    func classification(answer: Result<AppleTokenResponse, AppleAPIError>, expected: AppleCheckItem.Status) {
        let item = AppleCredentialCheck.classify(
            answer, client: native, credentials: AppleTestCredentials.credentials(),
            baseURL: "https://appleid.apple.com")
        #expect(item.status == expected)
        #expect(item.id == "token-endpoint")
        #expect((item.fix == nil) == (expected == .pass), "every warning and failure says what to do")
    }
}
