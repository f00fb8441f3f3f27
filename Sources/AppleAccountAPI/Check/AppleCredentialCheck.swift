import LifecycleCrypto

/// `apple check`: proves that Apple accepts an app's credentials without touching any user.
///
/// For each client ID it mints a client secret and exchanges a deliberately invalid authorization code. Apple
/// authenticates the client before it looks at the code (RFC 6749 §3.2.1), so `invalid_grant` means the secret
/// was accepted — team ID, key ID, key and client ID belong together — while `invalid_client` means one of them
/// is wrong. Any other answer is reported with what to do about it.
public struct AppleCredentialCheck: Sendable {
    public static let clientSecretID = "client-secret"
    public static let tokenEndpointID = "token-endpoint"
    /// Prefix of the made-up code; the rest is random, so it can never be a code Apple issued.
    public static let invalidCodePrefix = "lifecycle-apple-check."

    public let secrets: ClientSecretMinter
    public let client: any AppleAccountClient
    public let baseURL: String

    public init(secrets: ClientSecretMinter, client: any AppleAccountClient, baseURL: String) {
        self.secrets = secrets
        self.client = client
        self.baseURL = baseURL
    }

    /// The check with the real REST client.
    public init(client: AppleRESTClient) {
        self.init(secrets: client.secrets, client: client, baseURL: client.configuration.baseURL.description)
    }

    /// Checks every client ID of the credentials, in order.
    public func run(app: String? = nil) async -> AppleCheckReport {
        var items: [AppleCheckItem] = []
        for appleClient in secrets.credentials.clients {
            items.append(contentsOf: await check(appleClient))
        }
        return AppleCheckReport(
            app: app, baseURL: baseURL, teamID: secrets.credentials.teamID, keyID: secrets.credentials.keyID,
            items: items)
    }

    private func check(_ appleClient: AppleClient) async -> [AppleCheckItem] {
        let credentials = secrets.credentials
        let secretItem: AppleCheckItem
        do throws(CryptoError) {
            let secret = try secrets.secret(for: appleClient.id)
            let lifetime = secret.expiresAt.secondsSinceEpoch - secret.issuedAt.secondsSinceEpoch
            secretItem = AppleCheckItem(
                id: Self.clientSecretID, clientID: appleClient.id, status: .pass,
                detail: "ES256 client secret signed with key \(credentials.keyID) for team \(credentials.teamID), "
                    + "valid \(lifetime) s")
        } catch {
            return [
                AppleCheckItem(
                    id: Self.clientSecretID, clientID: appleClient.id, status: .fail,
                    detail: "cannot sign a client secret: \(error.description)",
                    fix: "use the AuthKey_\(credentials.keyID).p8 file downloaded from Apple, unmodified"),
                AppleCheckItem(
                    id: Self.tokenEndpointID, clientID: appleClient.id, status: .skipped,
                    detail: "not checked: no client secret"),
            ]
        }
        let code = AppleAuthorizationCode(Self.invalidCodePrefix + Hex.encode(SecureRandom.bytes(count: 16)))
        let answer = await client.exchange(code: code, redirectURI: nil, clientID: appleClient.id)
        return [secretItem, Self.classify(answer, client: appleClient, credentials: credentials, baseURL: baseURL)]
    }

    /// The verdict on Apple's answer to the invalid code (pure, so every branch is tested directly).
    public static func classify(
        _ answer: Result<AppleTokenResponse, AppleAPIError>, client appleClient: AppleClient,
        credentials: AppleCredentials, baseURL: String
    ) -> AppleCheckItem {
        let id = appleClient.id
        func item(_ status: AppleCheckItem.Status, _ detail: String, fix: String? = nil) -> AppleCheckItem {
            AppleCheckItem(id: tokenEndpointID, clientID: id, status: status, detail: detail, fix: fix)
        }
        let identity = appleClient.kind == .native ? "the app's bundle ID" : "a Services ID"
        switch answer {
        case .success:
            return item(
                .fail, "the token endpoint exchanged a made-up authorization code: it does not behave like Apple's",
                fix: "point the base URL at https://appleid.apple.com")
        case .failure(let error):
            switch error {
            case .invalidGrant:
                return item(
                    .pass,
                    "Apple accepted the client secret: a made-up authorization code was refused as invalid_grant")
            case .invalidClient:
                return item(
                    .fail, "Apple refused the client authentication (invalid_client)",
                    fix: "check that team ID \(credentials.teamID) owns the key, that key ID \(credentials.keyID) is "
                        + "the ID of this .p8 file (AuthKey_<key ID>.p8) with Sign in with Apple enabled, and that "
                        + "\(id) is \(identity) grouped with the key's primary App ID; if all match, Apple may be "
                        + "throttling: retry later")
            case .unauthorizedClient:
                return item(
                    .fail, "Apple says \(id) may not use the authorization_code grant (unauthorized_client)",
                    fix: "enable Sign in with Apple for \(id) in Certificates, IDs & Profiles → Identifiers")
            case .invalidRequest, .unsupportedGrantType, .invalidScope:
                return item(
                    .fail, "Apple refused the request itself (\(error.code))",
                    fix: "check that the base URL \(baseURL) is Apple's REST API (https://appleid.apple.com)")
            case .rateLimited(let seconds):
                return item(
                    .warning, "Apple throttled the check (HTTP 429); the credentials are not verified",
                    fix: "run the check again " + (seconds.map { "in \($0) s" } ?? "later"))
            case .serverError(let status):
                return item(
                    .warning, "Apple answered HTTP \(status); the credentials are not verified",
                    fix: "run the check again later (Apple's system status: developer.apple.com/system-status)")
            case .timeout:
                return item(
                    .fail, "no answer from \(baseURL) in time",
                    fix: "allow outbound HTTPS to \(baseURL) (firewall, proxy) or raise the timeout")
            case .transport(let reason):
                return item(
                    .fail, "cannot reach \(baseURL): \(reason)",
                    fix: "check DNS, outbound HTTPS to \(baseURL) and the trusted CA file")
            case .malformedResponse(let reason):
                return item(
                    .fail, "the answer from \(baseURL) is not Apple's REST API: \(reason)",
                    fix: "point the base URL at https://appleid.apple.com")
            case .clientSecretUnavailable(let reason):
                return item(
                    .fail, "cannot sign a client secret: \(reason)",
                    fix: "use the AuthKey_\(credentials.keyID).p8 file downloaded from Apple, unmodified")
            }
        }
    }
}
