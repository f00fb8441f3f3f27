import HTTP1
import HTTPServer
import LifecycleCrypto

/// The real ``AppleAccountClient``: form-encoded POSTs to `/auth/token` and `/auth/revoke` at
/// ``AppleRESTConfiguration/baseURL``, each with a client secret from ``ClientSecretMinter`` (Apple, "Generate
/// and validate tokens", "Revoke tokens").
///
/// Every finished call is reported to `observer` (endpoint, grant, client ID, outcome, status, duration), for
/// metrics; no token or secret is ever in what it reports or returns as an error.
public final class AppleRESTClient: AppleAccountClient {
    public let configuration: AppleRESTConfiguration
    public let secrets: ClientSecretMinter
    private let transport: AppleHTTPTransport
    private let observer: (@Sendable (AppleRequestRecord) -> Void)?

    public init(
        secrets: ClientSecretMinter, configuration: AppleRESTConfiguration = AppleRESTConfiguration(),
        observer: (@Sendable (AppleRequestRecord) -> Void)? = nil
    ) {
        self.secrets = secrets
        self.configuration = configuration
        self.transport = AppleHTTPTransport(configuration: configuration)
        self.observer = observer
    }

    public func exchange(
        code: AppleAuthorizationCode, redirectURI: String?, clientID: String
    ) async -> Result<AppleTokenResponse, AppleAPIError> {
        var fields: [(name: String, value: String)] = [
            ("grant_type", AppleGrant.authorizationCode.rawValue), ("code", code.value),
        ]
        if let redirectURI { fields.append(("redirect_uri", redirectURI)) }
        return await tokenCall(.authorizationCode, clientID: clientID, fields: fields)
    }

    public func refresh(
        _ refreshToken: AppleRefreshToken, clientID: String
    ) async -> Result<AppleTokenResponse, AppleAPIError> {
        await tokenCall(
            .refreshToken, clientID: clientID,
            fields: [("grant_type", AppleGrant.refreshToken.rawValue), ("refresh_token", refreshToken.value)])
    }

    public func revoke(_ token: AppleRevocableToken, clientID: String) async -> Result<Void, AppleAPIError> {
        await call(
            .revoke, grant: nil, clientID: clientID,
            fields: [("token", token.value), ("token_type_hint", token.typeHint)]
        ) { response in
            AppleResponseDecoder.revocation(
                status: response.status, retryAfter: response.headers["Retry-After"], body: response.body)
        }
    }

    private func tokenCall(
        _ grant: AppleGrant, clientID: String, fields: [(name: String, value: String)]
    ) async -> Result<AppleTokenResponse, AppleAPIError> {
        await call(.token, grant: grant, clientID: clientID, fields: fields) { response in
            AppleResponseDecoder.token(
                status: response.status, retryAfter: response.headers["Retry-After"], body: response.body,
                grant: grant)
        }
    }

    private func call<Success>(
        _ endpoint: AppleEndpoint, grant: AppleGrant?, clientID: String, fields: [(name: String, value: String)],
        decode: (HTTPClientResponse) -> Result<Success, AppleAPIError>
    ) async -> Result<Success, AppleAPIError> {
        let started = ContinuousClock.now
        var status: Int?
        let result: Result<Success, AppleAPIError>
        do throws(CryptoError) {
            let secret = try secrets.secret(for: clientID)
            let form = [("client_id", clientID), ("client_secret", secret.value)] + fields
            switch await transport.post(endpoint, form: form) {
            case .success(let response):
                status = response.status
                result = decode(response)
            case .failure(let error):
                result = .failure(error)
            }
        } catch {
            result = .failure(.clientSecretUnavailable(error.description))
        }
        if let observer {
            let outcome: String
            switch result {
            case .success: outcome = "ok"
            case .failure(let error): outcome = error.code
            }
            observer(
                AppleRequestRecord(
                    endpoint: endpoint, grant: grant, clientID: clientID, outcome: outcome, status: status,
                    duration: ContinuousClock.now - started))
        }
        return result
    }
}
