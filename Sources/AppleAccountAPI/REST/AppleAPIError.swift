/// Every way a call to Apple's REST API can fail, closed: callers `switch` without `default`.
///
/// The OAuth cases are Apple's `ErrorResponse.error` values (Apple, "ErrorResponse"; RFC 6749 §5.2). None
/// carries response content: an error's text is safe to log and never contains a token, even when the server
/// echoed one back.
public enum AppleAPIError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The code or refresh token is invalid: expired, used, revoked, or issued to another client. After a
    /// password change or a revoked consent too, so it means "this grant no longer works", not "deleted".
    case invalidGrant
    /// Client authentication failed: the client secret (key, key ID, team ID, signature, expiry) or the client
    /// ID is wrong, or the redirect URI does not match. Throttling has also been reported as this.
    case invalidClient
    case invalidRequest
    case unauthorizedClient
    case unsupportedGrantType
    case invalidScope
    /// HTTP 429, with the `Retry-After` delay when it was given in seconds.
    case rateLimited(retryAfterSeconds: Int64?)
    /// HTTP 5xx.
    case serverError(status: Int)
    /// No complete answer within ``AppleRESTConfiguration/timeout``.
    case timeout
    /// Name resolution, connection, TLS or framing failed; the reason, without peer data.
    case transport(String)
    /// An answer that is not what Apple's API defines (status, JSON, a field); the reason names the field.
    case malformedResponse(String)
    /// The client secret could not be signed (an OpenSSL failure with a key that loaded).
    case clientSecretUnavailable(String)

    /// Stable machine code, e.g. the `outcome` label of `lifecycle_apple_requests_total`.
    public var code: String {
        switch self {
        case .invalidGrant: "invalid_grant"
        case .invalidClient: "invalid_client"
        case .invalidRequest: "invalid_request"
        case .unauthorizedClient: "unauthorized_client"
        case .unsupportedGrantType: "unsupported_grant_type"
        case .invalidScope: "invalid_scope"
        case .rateLimited: "rate_limited"
        case .serverError: "server_error"
        case .timeout: "timeout"
        case .transport: "transport"
        case .malformedResponse: "malformed_response"
        case .clientSecretUnavailable: "client_secret_unavailable"
        }
    }

    /// True for failures that say nothing about the credentials or the grant and may pass on a later try.
    public var isTransient: Bool {
        switch self {
        case .rateLimited, .serverError, .timeout, .transport: true
        case .invalidGrant, .invalidClient, .invalidRequest, .unauthorizedClient, .unsupportedGrantType,
            .invalidScope, .malformedResponse, .clientSecretUnavailable:
            false
        }
    }

    /// The OAuth `error` value → case, for exactly the six values Apple documents.
    static func oauth(_ value: String) -> AppleAPIError? {
        switch value {
        case "invalid_grant": .invalidGrant
        case "invalid_client": .invalidClient
        case "invalid_request": .invalidRequest
        case "unauthorized_client": .unauthorizedClient
        case "unsupported_grant_type": .unsupportedGrantType
        case "invalid_scope": .invalidScope
        default: nil
        }
    }

    public var description: String {
        switch self {
        case .invalidGrant: "invalid_grant: the code or refresh token is not valid (anymore)"
        case .invalidClient: "invalid_client: Apple refused the client authentication"
        case .invalidRequest: "invalid_request: Apple refused the request as malformed"
        case .unauthorizedClient: "unauthorized_client: the client may not use this grant type"
        case .unsupportedGrantType: "unsupported_grant_type: the grant type is not supported"
        case .invalidScope: "invalid_scope: the requested scope is invalid"
        case .rateLimited(let seconds):
            "rate_limited: HTTP 429" + (seconds.map { ", retry after \($0) s" } ?? "")
        case .serverError(let status): "server_error: HTTP \(status)"
        case .timeout: "timeout: no answer in time"
        case .transport(let reason): "transport: \(reason)"
        case .malformedResponse(let reason): "malformed_response: \(reason)"
        case .clientSecretUnavailable(let reason): "client_secret_unavailable: \(reason)"
        }
    }
}
