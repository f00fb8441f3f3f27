import AppleNotifications
import HTTP1
import LifecycleCore
import LifecycleCrypto
import LifecycleDevTools
import Synchronization

/// The request handling of ``FakeAppleAccountService``, shared between the server's handler and the test API.
final class FakeAppleCore: Sendable {
    struct State {
        var ledger: FakeAppleLedger
        var behaviours: [FakeAppleEndpoint: FakeAppleBehaviour] = [:]
        var keepsRevokedTokensValid = false
        var identityClaimOverrides: [String: JSONValue?] = [:]
        var requests: [FakeAppleRequest] = []
    }

    let configuration: FakeAppleAccountService.Configuration
    let now: @Sendable () -> Instant
    let state: Mutex<State>
    let jwks: JWKSet
    private let secretCheck: FakeClientSecretCheck
    private let identitySigner: NotificationSigner

    init(configuration: FakeAppleAccountService.Configuration, now: @escaping @Sendable () -> Instant) {
        self.configuration = configuration
        self.now = now
        state = Mutex(
            State(
                ledger: FakeAppleLedger(
                    codeLifetimeSeconds: configuration.codeLifetimeSeconds,
                    accessTokenLifetimeSeconds: configuration.accessTokenLifetimeSeconds)))
        secretCheck = FakeClientSecretCheck(
            teamID: configuration.teamID, keyID: configuration.keyID, publicKey: configuration.publicKey)
        identitySigner = NotificationSigner(privateKey: configuration.identityKey, keyID: configuration.identityKeyID)
        do {
            jwks = JWKSet(keys: [
                try JWK(keyID: configuration.identityKeyID, publicKey: configuration.identityKey.publicKey)
            ])
        } catch {
            fatalError("cannot export the fake's identity key: \(error)")
        }
    }

    /// The record of one request, filled in as it is handled.
    private struct Exchange {
        var record: FakeAppleRequest
        var response: HTTPResponse
    }

    func handle(_ request: HTTPRequest) async -> HTTPResponse {
        let endpoint = FakeAppleEndpoint.allCases.first { $0.path == request.path }
        let form = FakeFormDecoding.decode(request.body)
        var record = FakeAppleRequest(
            endpoint: endpoint, method: request.method, path: request.path, form: form ?? [:], status: 0,
            error: nil, clientSecretProblem: nil, revokedGrant: false)
        let response = await answer(request, endpoint: endpoint, form: form, record: &record)
        record.status = response.status.code
        state.withLock { $0.requests.append(record) }
        return response
    }

    private func answer(
        _ request: HTTPRequest, endpoint: FakeAppleEndpoint?, form: [String: String]?, record: inout FakeAppleRequest
    ) async -> HTTPResponse {
        guard let endpoint else { return .notFound() }
        let method = endpoint == .keys ? "GET" : "POST"
        if let refusal = HTTPResponse.rejectingMethod(request.method, allowed: [method]) { return refusal }
        switch state.withLock({ $0.behaviours[endpoint] ?? .normal }) {
        case .normal:
            break
        case .slow(let delay):
            try? await Task.sleep(for: delay)
        case .invalidClient:
            return oauthError("invalid_client", record: &record)
        case .serverError(let status):
            return HTTPResponse(
                status: (try? HTTPStatus(code: status)) ?? .internalServerError,
                headers: ["Content-Type": "text/html"], body: Array("<html>unavailable</html>".utf8))
        case .rateLimited(let retryAfter):
            var headers = HTTPHeaders()
            if let retryAfter { try? headers.add(name: "Retry-After", value: retryAfter) }
            return HTTPResponse(status: .tooManyRequests, headers: headers)
        case .raw(let status, let contentType, let body):
            var headers = HTTPHeaders()
            try? headers.add(name: "Content-Type", value: contentType)
            return HTTPResponse(status: (try? HTTPStatus(code: status)) ?? .ok, headers: headers, body: body)
        }
        if endpoint == .keys { return .json(bytes: jwks.encoded()) }

        let contentType = request.headers["Content-Type"]?.split(separator: ";").first
            .map { String($0.filter { $0 != " " && $0 != "\t" }).lowercased() }
        guard contentType == "application/x-www-form-urlencoded", let form else {
            return oauthError("invalid_request", record: &record)
        }
        guard let clientID = form["client_id"], let secret = form["client_secret"] else {
            return oauthError("invalid_request", record: &record)
        }
        let instant = now()
        guard configuration.clientIDs.contains(clientID) else { return oauthError("invalid_client", record: &record) }
        if let problem = secretCheck.problem(secret: secret, clientID: clientID, at: instant) {
            record.clientSecretProblem = problem
            return oauthError("invalid_client", record: &record)
        }
        switch endpoint {
        case .token: return token(form, clientID: clientID, at: instant, record: &record)
        case .revoke: return revoke(form, clientID: clientID, at: instant, record: &record)
        case .keys: return .json(bytes: jwks.encoded())
        }
    }

    private func token(
        _ form: [String: String], clientID: String, at instant: Instant, record: inout FakeAppleRequest
    ) -> HTTPResponse {
        let outcome: Result<FakeAppleLedger.Issued, FakeAppleLedger.Failure>
        switch form["grant_type"] {
        case "authorization_code":
            guard let code = form["code"] else { return oauthError("invalid_request", record: &record) }
            outcome = state.withLock {
                $0.ledger.exchange(code: code, clientID: clientID, redirectURI: form["redirect_uri"], at: instant)
            }
        case "refresh_token":
            guard let refreshToken = form["refresh_token"] else {
                return oauthError("invalid_request", record: &record)
            }
            outcome = state.withLock { $0.ledger.refresh(refreshToken, clientID: clientID, at: instant) }
        case nil:
            return oauthError("invalid_request", record: &record)
        case .some:
            return oauthError("unsupported_grant_type", record: &record)
        }
        switch outcome {
        case .failure(let failure):
            return oauthError(failure.rawValue, record: &record)
        case .success(let issued):
            var body: JSONObject = [
                "access_token": .string(issued.accessToken), "token_type": .string("Bearer"),
                "expires_in": .integer(configuration.accessTokenLifetimeSeconds),
                "id_token": .string(identityToken(clientID: clientID, subject: issued.subject, at: instant)),
            ]
            if let refreshToken = issued.refreshToken { body["refresh_token"] = .string(refreshToken) }
            return .json(bytes: JSONValue.object(body).encoded())
        }
    }

    private func revoke(
        _ form: [String: String], clientID: String, at instant: Instant, record: inout FakeAppleRequest
    ) -> HTTPResponse {
        guard let token = form["token"] else { return oauthError("invalid_request", record: &record) }
        record.revokedGrant = state.withLock { state in
            state.keepsRevokedTokensValid ? false : state.ledger.revoke(token, clientID: clientID, at: instant)
        }
        // Apple answers 200 with an empty body whether or not the token was known.
        return HTTPResponse(status: .ok)
    }

    /// An `id_token` as Apple issues them: RS256 under the fake's key, `iss`, `aud` = client ID, `sub`, `iat`,
    /// `exp`, `auth_time`, then any overrides the test set.
    private func identityToken(clientID: String, subject: String, at instant: Instant) -> String {
        let issuedAt = instant.secondsSinceEpoch
        var claims: JSONObject = [
            "iss": .string(AppleIdentity.issuer), "aud": .string(clientID), "sub": .string(subject),
            "iat": .integer(issuedAt), "exp": .integer(issuedAt + configuration.identityTokenLifetimeSeconds),
            "auth_time": .integer(issuedAt),
        ]
        for (name, value) in state.withLock({ $0.identityClaimOverrides }) { claims[name] = value }
        do {
            return try identitySigner.sign(claims: claims)
        } catch {
            fatalError("cannot sign a fake id_token: \(error)")
        }
    }

    private func oauthError(_ error: String, record: inout FakeAppleRequest) -> HTTPResponse {
        record.error = error
        return .json(bytes: JSONValue.object(["error": .string(error)]).encoded(), status: .badRequest)
    }
}
