import AppleRESTFake
import Foundation
import LifecycleCore
import TestSupport
import Testing

/// The token vault through the real `lifecycle serve`: the app reports a sign-in on the admin API with its
/// authorization code or a refresh token, the service calls the stand-in Apple over TLS, and what it keeps is
/// observed from outside (admin API, `/metrics`, the bytes of every file in the service's directory).
@Suite("Apple token vault through lifecycle serve")
struct AppleTokenVaultServeTests {
    static let subject = "001234.0a1b2c3d4e5f60718293a4b5c6d7e8f9.0955"
    static var linkPath: String { "/v1/apps/shop/accounts/\(subject)/link" }

    /// `PUT /v1/apps/shop/accounts/{subject}/link` with a sign-in's authorization code.
    static func putLink(_ fixture: ServeFixture, code: String) async throws -> (status: Int, json: JSONValue?) {
        try await fixture.admin("PUT", linkPath, body: body(["authorizationCode": .string(code)]))
    }

    /// After Apple refused a link: nothing was applied or stored, and once Apple answers as it should the same
    /// code links the account.
    static func expectNothingStoredThenLinked(
        _ fixture: ServeFixture, _ setup: AppleTestSetup, code: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        #expect(
            try await fixture.admin("GET", "/v1/apps/shop/accounts/\(subject)").status == 404,
            sourceLocation: sourceLocation)
        setup.fake.setBehaviour(.normal, for: .token)
        let retried = try await putLink(fixture, code: code)
        #expect(
            retried.status == 200 && retried.json?["appleToken"]?["state"] == "held", "\(retried)",
            sourceLocation: sourceLocation)
    }
    static var tokenPath: String { "/v1/apps/shop/accounts/\(subject)/apple-token" }

    /// A serve fixture whose app `shop` has Sign in with Apple credentials for the fake, started.
    static func start(_ setup: AppleTestSetup, restBaseURL: String? = nil) async throws -> ServeFixture {
        let fixture = try await ServeFixture(environment: setup.environment)
        let section = try setup.signInWithApple(directory: fixture.directory.path)
        try fixture.updateConfiguration { root in
            var apple = setup.appleSection
            if let restBaseURL { apple = apple.adding("restBaseURL", .string(restBaseURL)) }
            root["apple"] = apple
            root["apps"] = [
                ServeFixture.app()
                    .adding(
                        "clientIds", [.string(AppleTestSetup.nativeClientID), .string(AppleTestSetup.webClientID)]
                    )
                    .adding("signInWithApple", section)
            ]
        }
        try await fixture.start()
        return fixture
    }

    static func body(_ object: JSONObject) -> [UInt8] { Array(JSONValue.object(object).serialized().utf8) }

    @Test(
        "a sign-in's code is exchanged at Apple, the id_token checked, and the refresh token kept sealed: held, never in plaintext on disk, counted"
    )
    func codeExchange() async throws {
        let setup = try AppleTestSetup()
        let fixture = try await Self.start(setup)
        let code = setup.fake.issueAuthorizationCode(clientID: AppleTestSetup.nativeClientID, subject: Self.subject)
        let linked = try await Self.putLink(fixture, code: code)
        #expect(linked.status == 200, "\(linked)")
        #expect(linked.json?["state"] == "linked")
        #expect(linked.json?["appleToken"]?["state"] == "held", "\(linked)")
        let refreshToken = try #require(setup.fake.refreshTokens(subject: Self.subject).first)
        #expect(setup.fake.isActive(refreshToken: refreshToken))

        let state = try await fixture.admin("GET", Self.tokenPath)
        #expect(state.status == 200, "\(state)")
        #expect(state.json?["state"] == "held")
        #expect(state.json?["clientId"] == .string(AppleTestSetup.nativeClientID))
        #expect(state.json?["linkedVia"] == "authorization-code")
        #expect(state.json?["linkedAt"]?.stringValue != nil)

        // The code and the tokens appear in no answer, no log line and no file of the service.
        #expect(await fixture.stop() == [0])
        for answer in [linked.json, state.json] {
            let text = answer?.serialized() ?? ""
            #expect(!text.contains(refreshToken) && !text.contains(code))
        }
        let files = try ForensicScan.files(in: fixture.directory.path)
        #expect(files.contains { $0.name == "lifecycle.sqlite" })
        #expect(ForensicScan.filesContaining(refreshToken, in: files) == [], "refresh token in plaintext")
        #expect(ForensicScan.filesContaining(code, in: files) == [], "authorization code in plaintext")
        #expect(files.contains { $0.name == "serve.log" }, "the log is among the files scanned")
        #expect(fixture.logEvents("apple.token_stored").count == 1)

        // The data-subject export lists the sealed token as opening, without showing it.
        let export = try await fixture.lifecycle([
            "account", "export", "--app", "shop", "--sub", Self.subject, "--config", fixture.configurationFile,
        ])
        #expect(export.status == 0, "\(export)")
        #expect(
            export.output.contains("apple_tokens.sealed_refresh_token: <opens; a credential, not shown>"), "\(export)")
        #expect(!export.output.contains(refreshToken))
        await setup.fake.stop()
    }

    @Test("a web sign-in's code with its redirectUri is exchanged under the app's web client ID (Services ID)")
    func webSignIn() async throws {
        let setup = try AppleTestSetup()
        let fixture = try await Self.start(setup)
        let redirect = "https://shop.example.com/apple/callback"
        let code = setup.fake.issueAuthorizationCode(
            clientID: AppleTestSetup.webClientID, subject: Self.subject, redirectURI: redirect)
        let linked = try await fixture.admin(
            "PUT", Self.linkPath,
            body: Self.body(["authorizationCode": .string(code), "redirectUri": .string(redirect)]))
        #expect(linked.status == 200, "\(linked)")
        #expect(linked.json?["appleToken"]?["clientId"] == .string(AppleTestSetup.webClientID), "\(linked)")
        #expect(setup.fake.requests(to: .token).first?.form["redirect_uri"] == redirect)
        // A client ID the app does not have is refused before Apple is asked.
        let unknown = try await fixture.admin(
            "PUT", Self.linkPath,
            body: Self.body(["authorizationCode": "c1.0.fake", "clientId": "com.example.unrelated"]))
        #expect(unknown.status == 422 && unknown.json?["error"] == "invalid_client_id", "\(unknown)")
        #expect(setup.fake.requests(to: .token).count == 1)
        _ = await fixture.stop()
        await setup.fake.stop()
    }

    @Test("the metric counts each Apple call by endpoint and outcome")
    func metric() async throws {
        let setup = try AppleTestSetup()
        let fixture = try await Self.start(setup)
        let code = setup.fake.issueAuthorizationCode(clientID: AppleTestSetup.nativeClientID, subject: Self.subject)
        #expect(
            try await Self.putLink(fixture, code: code).status
                == 200)
        let reused = try await Self.putLink(fixture, code: code)
        #expect(
            reused.status == 422 && reused.json?["error"] == "apple_grant_refused", "a code is single use: \(reused)")
        #expect(
            try await fixture.metric("lifecycle_apple_requests_total", ["endpoint": "token", "outcome": "ok"]) == 1)
        #expect(
            try await fixture.metric(
                "lifecycle_apple_requests_total", ["endpoint": "token", "outcome": "invalid_grant"])
                == 1)
        #expect(try await fixture.metric("lifecycle_apple_requests_total", ["endpoint": "keys", "outcome": "ok"]) == 1)
        _ = await fixture.stop()
        await setup.fake.stop()
    }

    @Test(
        "a refresh token the app holds is confirmed with one refresh_token grant, then kept: held, linked via refresh-token"
    )
    func refreshTokenLink() async throws {
        let setup = try AppleTestSetup()
        let fixture = try await Self.start(setup)
        let token = try #require(
            setup.fake.issueRefreshToken(clientID: AppleTestSetup.nativeClientID, subject: Self.subject))
        let linked = try await fixture.admin("PUT", Self.linkPath, body: Self.body(["refreshToken": .string(token)]))
        #expect(linked.status == 200, "\(linked)")
        #expect(linked.json?["appleToken"]?["linkedVia"] == "refresh-token")
        let grants = setup.fake.requests(to: .token)
        #expect(grants.map(\.grantType) == ["refresh_token"])
        #expect(grants.first?.error == nil)
        let state = try await fixture.admin("GET", Self.tokenPath)
        #expect(state.json?["state"] == "held")
        _ = await fixture.stop()
        let files = try ForensicScan.files(in: fixture.directory.path)
        #expect(ForensicScan.filesContaining(token, in: files) == [])

        // A refresh token Apple no longer honours is refused and changes nothing.
        try await fixture.start()
        let other = try #require(
            setup.fake.issueRefreshToken(clientID: AppleTestSetup.nativeClientID, subject: "000777.other"))
        setup.fake.invalidateAuthorizations(subject: "000777.other")
        let refused = try await fixture.admin(
            "PUT", "/v1/apps/shop/accounts/000777.other/link", body: Self.body(["refreshToken": .string(other)]))
        #expect(refused.status == 422 && refused.json?["error"] == "apple_grant_refused", "\(refused)")
        #expect(try await fixture.admin("GET", "/v1/apps/shop/accounts/000777.other").status == 404)
        _ = await fixture.stop()
        await setup.fake.stop()
    }

    @Test(
        "a code that Apple answers with another user's id_token is refused 422 id_token_mismatch and nothing is stored")
    func otherSubject() async throws {
        let setup = try AppleTestSetup()
        let fixture = try await Self.start(setup)
        let code = setup.fake.issueAuthorizationCode(
            clientID: AppleTestSetup.nativeClientID, subject: "000555.someone.else")
        let refused = try await Self.putLink(fixture, code: code)
        #expect(refused.status == 422, "\(refused)")
        #expect(refused.json?["error"] == "id_token_mismatch")
        #expect(refused.json?["description"]?.stringValue?.contains("subject_mismatch") == true, "\(refused)")
        #expect(try await fixture.admin("GET", "/v1/apps/shop/accounts/\(Self.subject)").status == 404)
        #expect(try await fixture.admin("GET", Self.tokenPath).status == 404)
        _ = await fixture.stop()
        let issued = try #require(setup.fake.refreshTokens(subject: "000555.someone.else").first)
        let files = try ForensicScan.files(in: fixture.directory.path)
        #expect(ForensicScan.filesContaining(issued, in: files) == [], "the other user's token is not kept")
        #expect(!fixture.log.contains("000555.someone.else"), "no sub in the log")
        await setup.fake.stop()
    }

    @Test("Apple failing or unreachable: 503 apple_unavailable, nothing applied, and the next try works")
    func unavailable() async throws {
        let setup = try AppleTestSetup()
        let fixture = try await Self.start(setup)
        setup.fake.setBehaviour(.serverError(status: 503), for: .token)
        let code = setup.fake.issueAuthorizationCode(clientID: AppleTestSetup.nativeClientID, subject: Self.subject)
        let failing = try await Self.putLink(fixture, code: code)
        #expect(failing.status == 503 && failing.json?["error"] == "apple_unavailable", "\(failing)")
        try await Self.expectNothingStoredThenLinked(fixture, setup, code: code)
        _ = await fixture.stop()
        await setup.fake.stop()

        let down = try await Self.start(setup, restBaseURL: "https://127.0.0.1:1")
        let unreachable = try await down.admin(
            "PUT", "/v1/apps/shop/accounts/001999.x/link", body: Self.body(["authorizationCode": "c123.0.fake"]))
        #expect(unreachable.status == 503 && unreachable.json?["error"] == "apple_unavailable", "\(unreachable)")
        #expect(
            try await down.metric("lifecycle_apple_requests_total", ["endpoint": "token", "outcome": "transport"]) == 1)
        _ = await down.stop()
    }

    @Test("Apple refusing this service's client (invalid_client): 502 apple_client_refused, nothing applied or stored")
    func clientRefused() async throws {
        let setup = try AppleTestSetup()
        let fixture = try await Self.start(setup)
        setup.fake.setBehaviour(.invalidClient, for: .token)
        let code = setup.fake.issueAuthorizationCode(clientID: AppleTestSetup.nativeClientID, subject: Self.subject)
        let refused = try await Self.putLink(fixture, code: code)
        #expect(refused.status == 502 && refused.json?["error"] == "apple_client_refused", "\(refused)")
        #expect(
            refused.json?["description"]?.stringValue?.contains("lifecycle apple check") == true,
            "the answer names the fix: \(refused)")
        #expect(!String(describing: refused).contains(code), "the code is never echoed")
        #expect(!fixture.log.contains(code), "the code reached the log")
        try await Self.expectNothingStoredThenLinked(fixture, setup, code: code)
        _ = await fixture.stop()
        await setup.fake.stop()
    }

    @Test("an account without a token is not held; an in-app deletion revokes a held token and the vault says so")
    func states() async throws {
        let setup = try AppleTestSetup()
        let fixture = try await Self.start(setup)
        #expect(try await fixture.admin("PUT", Self.linkPath).status == 200)
        let none = try await fixture.admin("GET", Self.tokenPath)
        #expect(none.status == 200 && none.json?["state"] == "not-held", "\(none)")
        #expect(none.json?["linkedAt"] == nil)
        let code = setup.fake.issueAuthorizationCode(clientID: AppleTestSetup.nativeClientID, subject: Self.subject)
        #expect(
            try await Self.putLink(fixture, code: code).status
                == 200)
        #expect(try await fixture.admin("POST", "/v1/apps/shop/accounts/\(Self.subject)/deletion").status == 200)
        let revoked = await eventually(timeout: .seconds(20)) {
            (try? await fixture.admin("GET", Self.tokenPath))?.json?["state"] == "revoked"
        }
        #expect(revoked, "the in-app deletion's revocation never showed in the vault")
        let code2 = setup.fake.issueAuthorizationCode(clientID: AppleTestSetup.nativeClientID, subject: Self.subject)
        let deleted = try await fixture.admin(
            "PUT", Self.linkPath, body: Self.body(["authorizationCode": .string(code2)]))
        #expect(deleted.status == 409 && deleted.json?["error"] == "account_deleted", "\(deleted)")
        #expect(
            setup.fake.requests(to: .token).filter { $0.grantType == "authorization_code" }.count == 1,
            "a deleted account's code is not exchanged")
        _ = await fixture.stop()
        await setup.fake.stop()
    }
}
