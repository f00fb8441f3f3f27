import AppleAccountAPI
import AppleNotifications
import AppleRESTFake
import FoundationEssentials
import Glibc
import HTTP1
import HTTPServer
import LifecycleCore
import LifecycleCrypto
import TestSupport
import Testing

private let native = AppleTestCredentials.native

/// A compact JWS over exactly these header and claims, ES256-signed with `key`; `der` sends the signature in
/// OpenSSL's DER form instead of r||s.
private func secret(
    header: JSONObject = ["alg": .string("ES256"), "kid": .string(AppleTestCredentials.keyID)],
    claims: JSONObject, key: P256PrivateKey = AppleTestCredentials.key, der: Bool = false
) throws -> String {
    let input =
        Base64URL.encode(JSONValue.object(header).encoded()) + "."
        + Base64URL.encode(JSONValue.object(claims).encoded())
    var signature = try key.signES256(Array(input.utf8))
    if der { signature = try #require(ECDSASignatureEncoding.der(fromJOSE: signature)) }
    return input + "." + Base64URL.encode(signature)
}

private func claims(at now: Instant, lifetime: Int64 = 600, _ overrides: [String: JSONValue?] = [:]) -> JSONObject {
    let iat = now.secondsSinceEpoch
    var claims: JSONObject = [
        "iss": .string(AppleTestCredentials.teamID), "iat": .integer(iat), "exp": .integer(iat + lifetime),
        "aud": .string("https://appleid.apple.com"), "sub": .string(native.id),
    ]
    for (name, value) in overrides { claims[name] = value }
    return claims
}

/// Sends a raw request to the fake with the project's HTTP client and returns status and decoded body.
private func send(
    _ harness: AppleHarness, method: String = "POST", path: String = "/auth/token", form: [(String, String)] = [],
    contentType: String = "application/x-www-form-urlencoded", rawBody: [UInt8]? = nil
) async throws -> (status: Int, error: String?, body: [UInt8]) {
    var headers = HTTPHeaders()
    try headers.add(name: "Content-Type", value: contentType)
    let client = HTTPClient(
        host: harness.baseURL.host, port: harness.baseURL.port, timeout: .seconds(5),
        tls: TLSClientConfiguration(trustedCAFile: harness.fake.caFile))
    let response = try await client.send(
        HTTPClientRequest(
            method: method, target: path, headers: headers,
            body: rawBody ?? FormURLEncoding.encode(form.map { (name: $0.0, value: $0.1) })))
    return (response.status, JSONValue.parseIfValid(response.body)?["error"]?.stringValue, response.body)
}

/// A refresh grant for a token the fake never issued: `invalid_grant` proves the client secret passed.
private func refresh(_ harness: AppleHarness, secret: String) async throws -> (status: Int, error: String?) {
    let answer = try await send(
        harness,
        form: [
            ("client_id", native.id), ("client_secret", secret), ("grant_type", "refresh_token"),
            ("refresh_token", "r.unknown"),
        ])
    return (answer.status, answer.error)
}

@Suite("The stand-in checks client secrets and requests as Apple does", .serialized)
struct FakeAppleServiceTests {
    @Test("a correct secret passes client authentication: an unknown refresh token is then invalid_grant")
    func correctSecret() async throws {
        try await withAppleHarness { harness in
            let answer = try await refresh(harness, secret: try secret(claims: claims(at: harness.clock.instant)))
            #expect(answer.status == 400)
            #expect(answer.error == "invalid_grant")
            #expect(harness.fake.requests.last?.clientSecretProblem == nil)
        }
    }

    @Test("exp - iat of exactly 15,777,000 s is accepted, one second more is refused")
    func lifetimeCeiling() async throws {
        try await withAppleHarness { harness in
            let now = harness.clock.instant
            let longest = try secret(claims: claims(at: now, lifetime: 15_777_000))
            let tooLong = try secret(claims: claims(at: now, lifetime: 15_777_001))
            let accepted = try await refresh(harness, secret: longest)
            let refused = try await refresh(harness, secret: tooLong)
            #expect(accepted.error == "invalid_grant")
            #expect(refused.error == "invalid_client")
        }
    }

    @Test(
        "each broken part of a secret is invalid_client with the reason recorded",
        arguments: [
            ("alg RS256", "alg"), ("no kid", "kid"), ("other kid", "kid"), ("DER signature", "64"),
            ("other key", "signature"), ("iss", "iss"), ("sub", "sub"), ("aud", "aud"), ("aud array", "aud"),
            ("exp string", "exp"), ("expired", "expired"), ("iat in the future", "future"), ("not a JWS", "JWS"),
        ])
    func brokenSecrets(name: String, reason: String) async throws {
        try await withAppleHarness { harness in
            let now = harness.clock.instant
            let token: String
            switch name {
            case "alg RS256":
                token = try secret(
                    header: ["alg": .string("RS256"), "kid": .string(AppleTestCredentials.keyID)],
                    claims: claims(at: now))
            case "no kid": token = try secret(header: ["alg": .string("ES256")], claims: claims(at: now))
            case "other kid":
                token = try secret(
                    header: ["alg": .string("ES256"), "kid": .string("KEYZZZZZZZ")], claims: claims(at: now))
            case "DER signature": token = try secret(claims: claims(at: now), der: true)
            case "other key": token = try secret(claims: claims(at: now), key: try P256PrivateKey.generate())
            case "iss": token = try secret(claims: claims(at: now, ["iss": .string("TEAMZZZZZZ")]))
            case "sub": token = try secret(claims: claims(at: now, ["sub": .string(AppleTestCredentials.web.id)]))
            case "aud": token = try secret(claims: claims(at: now, ["aud": .string("https://appleid.apple.com/")]))
            case "aud array":
                token = try secret(claims: claims(at: now, ["aud": .array([.string("https://appleid.apple.com")])]))
            case "exp string": token = try secret(claims: claims(at: now, ["exp": .string("tomorrow")]))
            case "expired": token = try secret(claims: claims(at: now.adding(seconds: -700)))
            case "iat in the future": token = try secret(claims: claims(at: now.adding(seconds: 120)))
            default: token = "not-a-jws"
            }
            let answer = try await refresh(harness, secret: token)
            #expect(answer.status == 400)
            #expect(answer.error == "invalid_client")
            let problem = try #require(harness.fake.requests.last?.clientSecretProblem)
            #expect(problem.contains(reason), "\(problem)")
        }
    }

    @Test("malformed requests: no secret, wrong content type, a repeated parameter, no or an unknown grant type")
    func malformedRequests() async throws {
        try await withAppleHarness { harness in
            let good = try secret(claims: claims(at: harness.clock.instant))
            let base = [("client_id", native.id), ("client_secret", good)]
            let cases: [(form: [(String, String)], contentType: String, raw: [UInt8]?, expected: String)] = [
                (
                    [("client_id", native.id), ("grant_type", "refresh_token")], FormURLEncoding.contentType, nil,
                    "invalid_request"
                ),
                (
                    base + [("grant_type", "refresh_token"), ("refresh_token", "x")], "application/json", nil,
                    "invalid_request"
                ),
                (
                    base + [("grant_type", "refresh_token"), ("grant_type", "refresh_token")],
                    FormURLEncoding.contentType, nil, "invalid_request"
                ),
                ([], FormURLEncoding.contentType, Array("client_id=%zz".utf8), "invalid_request"),
                (base, FormURLEncoding.contentType, nil, "invalid_request"),
                (base + [("grant_type", "password")], FormURLEncoding.contentType, nil, "unsupported_grant_type"),
                (base + [("grant_type", "authorization_code")], FormURLEncoding.contentType, nil, "invalid_request"),
            ]
            for entry in cases {
                let answer = try await send(
                    harness, form: entry.form, contentType: entry.contentType, rawBody: entry.raw)
                #expect(answer.status == 400)
                #expect(answer.error == entry.expected, "\(entry.form.map(\.0)) \(entry.contentType)")
            }
            let revoke = try await send(harness, path: "/auth/revoke", form: base)
            #expect(revoke.error == "invalid_request")
        }
    }

    @Test("routes: GET /auth/keys serves the JWKS, a wrong method is 405, an unknown path 404")
    func routes() async throws {
        try await withAppleHarness { harness in
            let keys = try await send(harness, method: "GET", path: "/auth/keys")
            #expect(keys.status == 200)
            #expect(try JWKSet(decoding: keys.body) == harness.fake.jwks)
            let getToken = try await send(harness, method: "GET", path: "/auth/token")
            let postKeys = try await send(harness, path: "/auth/keys")
            let other = try await send(harness, path: "/auth/other")
            #expect([getToken.status, postKeys.status, other.status] == [405, 405, 404])
            #expect(harness.fake.requests.map(\.status) == [200, 405, 405, 404])
        }
    }
}

@Suite("A fake team for end-to-end tests")
struct FakeAppleTeamTests {
    @Test("the team writes a 0600 .p8 that loads as credentials the fake accepts")
    func keyFile() async throws {
        let team = try FakeAppleTeam(clientIDs: [native.id])
        let directory = try TemporaryDirectory(prefix: "fake-team")
        let path = try team.writeKeyFile(to: directory.path)
        #expect(path.hasSuffix("/AuthKey_KEYA1B2C3D.p8"))
        var status = stat()
        #expect(stat(path, &status) == 0)
        #expect(status.st_mode & 0o777 == 0o600)
        let pem = try #require(FileManager.default.contents(atPath: path))
        let credentials = try AppleCredentials(
            teamID: team.teamID, keyID: team.keyID, privateKeyPEM: Array(pem), clients: [native])
        let clock = ManualClock()
        let fake = try FakeAppleAccountService(configuration: team.configuration, now: clock.now)
        let client = AppleRESTClient(
            secrets: try ClientSecretMinter(credentials: credentials, now: clock.now),
            configuration: AppleRESTConfiguration(
                baseURL: try AppleBaseURL.parse(fake.baseURL).get(), trustedCAFile: fake.caFile))
        let report = await AppleCredentialCheck(client: client).run()
        await fake.stop()
        #expect(report.credentialsAccepted)
    }
}
