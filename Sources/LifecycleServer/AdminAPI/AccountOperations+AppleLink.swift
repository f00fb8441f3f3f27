import AppleAccountAPI
import AppleNotifications
import LifecycleCore
import LifecycleEngine
import LifecycleStore
import Synchronization

extension AccountOperations {
    /// The app reports a sign-in, optionally with the credential that lets the service keep the account's
    /// Apple refresh token (the token vault):
    ///
    /// - an authorization code: exchanged at Apple (``AppleCodeExchange``), and the `id_token` that comes back
    ///   checked — issuer, audience equal to the client ID, signature from Apple's key set, expiry, and `sub`
    ///   equal to this account's;
    /// - a refresh token the app holds: confirmed with one `refresh_token` grant, and the `id_token` Apple
    ///   returns with it, when it does, checked the same way.
    ///
    /// Only then, in one transaction, the `linked` input is applied and the refresh token stored, sealed under
    /// the subject's `apple-tokens` data key. Apple is called outside the transaction; when it refuses,
    /// nothing is applied or stored. A deleted account is refused (409) before Apple is called.
    /// - Throws: ``AdminError``: those of ``link(app:subject:eventTime:)``, `apple_not_configured`,
    ///   `invalid_client_id`, `apple_grant_refused`, `id_token_mismatch` (422), `apple_client_refused` (502),
    ///   `apple_unavailable` (503).
    package func link(app: String, subject: String, request: LinkRequestBody) async throws -> JSONValue {
        guard let credential = request.credential else {
            return try await link(app: app, subject: subject, eventTime: request.eventTime)
        }
        let active = context.current
        guard active.configuration.apps.contains(where: { $0.id == app }) else { throw AdminError.unknownApp(app) }
        guard let apple = active.apple.apps[app] else {
            throw AdminError.unprocessable(
                .appleNotConfigured,
                "app \(app) has no signInWithApple credentials in the configuration; add teamId, keyId, "
                    + "privateKeyFile and clients to keep Apple tokens")
        }
        let clientID = try Self.clientID(for: credential, named: request.clientID, in: apple.credentials, app: app)
        let existing = try await AdminError.mappingStoreFailures(log: log) {
            try await store.read { try $0.account(app: app, subject: subject) }
        }
        if existing?.state == .deleted {
            // Records the refused input and answers 409; Apple is not asked to issue tokens nobody may keep.
            return try await link(app: app, subject: subject, eventTime: request.eventTime)
        }
        let (token, source) = try await confirm(
            credential, clientID: clientID, subject: subject, apple: apple, app: app)
        let vault = context.vault
        let now = clock.now()
        let stored = Mutex(false)
        let outcome = try await applyLinked(app: app, subject: subject, eventTime: request.eventTime) {
            outcome, writer in
            guard outcome.state != .deleted else { return }
            let kept = try vault.storeAppleToken(
                token, clientID: clientID, source: source, app: app, subject: subject, at: now, in: writer)
            stored.withLock { $0 = kept }
        }
        if outcome.state == .deleted { throw AdminError.accountDeleted }
        log.log(
            .info, "apple.token_stored", app: app, subject: subject,
            [("source", .string(source.rawValue)), ("stored", .bool(stored.withLock { $0 }))])
        guard case .object(var document) = Self.document(app: app, subject: subject, outcome: outcome) else {
            return Self.document(app: app, subject: subject, outcome: outcome)
        }
        let row = try await AdminError.mappingStoreFailures(log: log) {
            try await store.read { try $0.appleToken(app: app, subject: subject) }
        }
        document["appleToken"] = .object(AdminDocuments.appleToken(app: app, subject: subject, stored: row))
        return .object(document)
    }

    /// Apple's confirmation of the credential: the refresh token to keep, or the refusal.
    private func confirm(
        _ credential: LinkRequestBody.Credential, clientID: String, subject: String, apple: AppleAccountServices.App,
        app: String
    ) async throws -> (String, AppleTokenSource) {
        let result: Result<String, AppleLinkError>
        let source: AppleTokenSource
        switch credential {
        case .authorizationCode(let code, let redirectURI):
            source = .authorizationCode
            result = await apple.exchange.link(
                code: AppleAuthorizationCode(code), redirectURI: redirectURI, clientID: clientID,
                expectedSubject: subject
            ).map(\.refreshToken.value)
        case .refreshToken(let token):
            source = .refreshToken
            switch await apple.client.refresh(AppleRefreshToken(token), clientID: clientID) {
            case .failure(let error):
                result = .failure(.apple(error))
            case .success(let response):
                if let idToken = response.idToken {
                    result = await apple.verifier.verify(
                        idToken: idToken.value, clientID: clientID, expectedSubject: subject, at: clock.now()
                    ).map { _ in token }.mapError { .identityToken($0) }
                } else {
                    result = .success(token)
                }
            }
        }
        switch result {
        case .success(let token):
            return (token, source)
        case .failure(let error):
            log.log(
                .warning, "apple.link_refused", app: app, subject: subject,
                [("source", .string(source.rawValue)), ("code", .string(error.code))])
            throw AdminError.appleLink(error)
        }
    }

    /// The client ID named in the body, else the app's only client of the kind the credential implies: web
    /// for a code with a `redirectUri` (Apple, "Generate and validate tokens"), native otherwise.
    static func clientID(
        for credential: LinkRequestBody.Credential, named: String?, in credentials: AppleCredentials, app: String
    ) throws(AdminError) -> String {
        if let named {
            guard credentials.client(named) != nil else {
                throw AdminError.unprocessable(
                    .invalidClientID, "clientId is not one of app \(app)'s signInWithApple clients")
            }
            return named
        }
        let kind: AppleClient.Kind
        if case .authorizationCode(_, redirectURI: .some) = credential { kind = .web } else { kind = .native }
        let candidates = credentials.clients.filter { $0.kind == kind }
        guard candidates.count == 1 else {
            throw AdminError.unprocessable(
                .invalidClientID,
                "app \(app) has \(candidates.count) \(kind.rawValue) clients; name the one the sign-in used in "
                    + "clientId")
        }
        return candidates[0].id
    }
}
