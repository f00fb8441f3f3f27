import AppleNotifications
import LifecycleCore
import LifecycleCrypto
import SharedSignals

/// Everything one provider's push endpoint needs, built with the configuration in force: the app, the
/// provider's settings, its verifier (over the provider's key cache) and the bearer token it must present.
public struct SecurityEventReceiver: Sendable {
    public let app: String
    public let provider: SignalProviderConfiguration
    public let verifier: SecurityEventVerifier
    public let keys: JWKSCache
    /// The `Authorization: Bearer` token, nil when the provider has no `authorization`.
    let bearerToken: [UInt8]?

    init(app: String, provider: SignalProviderConfiguration, keys: JWKSCache, bearerToken: [UInt8]?) {
        self.app = app
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
                var token: [UInt8]?
                if let file = provider.authorizationSecretFile {
                    let variable =
                        "LIFECYCLE_SIGNALS_TOKEN_"
                        + (app.id + "_" + provider.id).uppercased()
                        .replacingOccurrences(of: "-", with: "_")
                    do {
                        token = try SecretFile.read(path: file, variable: variable, environment: environment)
                    } catch {
                        throw ConfigurationError(
                            file: "configuration", field: field + ".authorization.secretFile",
                            problem: String(describing: error), fix: "")
                    }
                }
                let cache = try keys.cache(for: provider, field: field + ".jwks")
                receivers[provider.path] = SecurityEventReceiver(
                    app: app.id, provider: provider, keys: cache, bearerToken: token)
            }
        }
        return receivers
    }
}
