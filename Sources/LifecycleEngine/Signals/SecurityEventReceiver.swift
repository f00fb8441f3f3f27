import AppleNotifications
import LifecycleCore
import LifecycleCrypto
import SharedSignals

/// Everything one provider's endpoint needs, built with the configuration in force: the app, the provider's
/// settings, its verifier (over the provider's key cache), the bearer token a push must present and, for poll
/// delivery, the one the poll worker presents to the transmitter.
public struct SecurityEventReceiver: Sendable {
    public let app: String
    public let provider: SignalProviderConfiguration
    public let verifier: SecurityEventVerifier
    public let keys: JWKSCache
    /// The `Authorization: Bearer` token, nil when the provider has no `authorization`.
    let bearerToken: [UInt8]?
    /// Poll delivery: the `Authorization: Bearer` token of the polls (`stream.tokenFile`), nil for push.
    let pollToken: [UInt8]?

    init(
        app: String, provider: SignalProviderConfiguration, keys: JWKSCache, bearerToken: [UInt8]?,
        pollToken: [UInt8]? = nil
    ) {
        self.app = app
        self.pollToken = pollToken
        self.provider = provider
        self.keys = keys
        self.bearerToken = bearerToken
        verifier = SecurityEventVerifier(
            keys: keys,
            configuration: SecurityEventVerifier.Configuration(
                profile: provider.profile, issuer: provider.issuer, audiences: Set(provider.audiences),
                leewaySeconds: Int64(provider.leewaySeconds)))
    }

    /// Whether `authorization` (the request's header) carries the configured token: `Bearer` compared
    /// case-insensitively (RFC 9110 §11.1), the token in constant time.
    func authorizes(_ authorization: String?) -> Bool {
        guard let bearerToken else { return true }
        guard let authorization else { return false }
        let bytes = Array(authorization.utf8)
        guard bytes.count > 7, String(decoding: bytes[0..<7], as: UTF8.self).lowercased() == "bearer " else {
            return false
        }
        return ConstantTime.equals(Array(bytes[7...]), bearerToken)
    }

    /// Builds the receivers of every provider of `configuration`, by push path. Reads the bearer token files,
    /// so a missing one refuses the configuration before anything changes.
    static func all(
        _ configuration: ServiceConfiguration, keys: SignalKeyCaches, environment: [String: String]
    ) throws -> [String: SecurityEventReceiver] {
        var receivers: [String: SecurityEventReceiver] = [:]
        for app in configuration.apps {
            for (index, provider) in app.signals.enumerated() {
                let field = "apps[\(app.id)].signals[\(index)]"
                // The environment's token counts without a file too: `signals stream` hands it to the
                // transmitter either way, so a push must then carry it.
                let token: [UInt8]?
                do {
                    token = try SecretFile.read(
                        path: provider.authorizationSecretFile, variable: provider.pushTokenVariable(app: app.id),
                        environment: environment)
                } catch {
                    throw ConfigurationError(
                        file: "configuration", field: field + ".authorization.secretFile",
                        problem: String(describing: error), fix: "")
                }
                var pollToken: [UInt8]?
                if provider.stream.delivery == .poll {
                    let variable = provider.managementTokenVariable(app: app.id)
                    do {
                        pollToken = try SecretFile.read(
                            path: provider.stream.tokenFile, variable: variable, environment: environment)
                    } catch {
                        throw ConfigurationError(
                            file: "configuration", field: field + ".stream.tokenFile",
                            problem: String(describing: error), fix: "")
                    }
                    guard pollToken != nil else {
                        throw ConfigurationError(
                            file: "configuration", field: field + ".stream.tokenFile",
                            problem: "poll delivery needs the transmitter's bearer token",
                            fix: "set stream.tokenFile to a file holding it, or set \(variable)")
                    }
                }
                let cache = try keys.cache(for: provider, field: field + ".jwks")
                receivers[provider.path] = SecurityEventReceiver(
                    app: app.id, provider: provider, keys: cache, bearerToken: token, pollToken: pollToken)
            }
        }
        return receivers
    }
}
