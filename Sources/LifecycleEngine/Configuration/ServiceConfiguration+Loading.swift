import AppleAccountAPI
import Foundation
import LifecycleCore

extension ServiceConfiguration {
    /// The configuration file used when neither `--config` nor `LIFECYCLE_CONFIG` names one.
    public static let defaultFile = "lifecycle.json"

    /// Reads and validates a configuration file, then applies environment overrides.
    public static func load(
        file: String, environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws(ConfigurationError) -> ServiceConfiguration {
        guard let data = FileManager.default.contents(atPath: file) else {
            let exists = FileManager.default.fileExists(atPath: file)
            throw ConfigurationError(
                file: file, field: "", problem: exists ? "cannot be read" : "not found",
                fix: exists
                    ? "check its permissions"
                    : "copy lifecycle.example.json to \(file), or pass --config FILE / set LIFECYCLE_CONFIG")
        }
        let document: JSONValue
        do {
            document = try JSONValue.parse(data)
        } catch {
            throw ConfigurationError(file: file, field: "", problem: "not valid JSON (\(error))", fix: "fix the syntax")
        }
        let base = URL(fileURLWithPath: file).deletingLastPathComponent().path
        var configuration = try parse(document, file: file, baseDirectory: base)
        // Read as `storage.url` is: the same schemes, a relative `sqlite:` path from the file's directory.
        if let url = environment["LIFECYCLE_DATABASE_URL"], !url.isEmpty {
            guard let resolved = storageURL(url, baseDirectory: base) else {
                throw ConfigurationError(
                    file: "environment", field: "LIFECYCLE_DATABASE_URL", problem: "unsupported storage URL scheme",
                    fix: "use sqlite:PATH or postgres://USER:PASSWORD@HOST/DATABASE")
            }
            configuration.storage.url = resolved
        }
        return configuration
    }

    /// A storage URL as the store opens it: `sqlite:` with its path resolved against `baseDirectory`, or a
    /// PostgreSQL URL as it is; nil for any other scheme.
    static func storageURL(_ url: String, baseDirectory: String) -> String? {
        if url.hasPrefix("sqlite:") {
            return "sqlite:" + resolve(String(url.dropFirst("sqlite:".count)), against: baseDirectory)
        }
        return url.hasPrefix("postgres://") || url.hasPrefix("postgresql://") ? url : nil
    }

    /// `path` as the configuration means it: absolute as it is, else from `baseDirectory` (the file's).
    static func resolve(_ path: String, against baseDirectory: String) -> String {
        path.hasPrefix("/") || baseDirectory.isEmpty || baseDirectory == "." ? path : baseDirectory + "/" + path
    }

    /// Parses a configuration document. Relative paths are resolved against `baseDirectory`.
    public static func parse(
        _ document: JSONValue, file: String, baseDirectory: String
    ) throws(ConfigurationError) -> ServiceConfiguration {
        func resolve(_ path: String) -> String { Self.resolve(path, against: baseDirectory) }
        var root = try ConfigurationReader(file: file, path: "", value: document)
        try root.allow(
            [
                "storage", "public", "admin", "apple", "apps", "outbox", "reports", "pseudonymKeyFile", "logLevel",
                "policiesDirectory", "erasure", "reconcile", "retention", "secrets", "keys",
            ])

        var storageReader = try root.objectOrEmpty("storage")
        try storageReader.allow(["url", "busyTimeoutMilliseconds", "maxBatch"])
        let configuredURL = try storageReader.string(
            "url", default: "sqlite:var/lifecycle.sqlite", fix: "use sqlite:PATH, e.g. sqlite:var/lifecycle.sqlite")
        guard let storageURL = Self.storageURL(configuredURL, baseDirectory: baseDirectory) else {
            throw storageReader.error(
                "url", "unsupported storage URL scheme",
                fix: "use sqlite:PATH or postgres://USER@HOST/DATABASE (password from LIFECYCLE_DATABASE_URL)")
        }
        let storage = StorageConfiguration(
            url: storageURL,
            busyTimeoutMilliseconds: Int(
                try storageReader.integer(
                    "busyTimeoutMilliseconds", default: 5000, range: 0...600_000, fix: "use milliseconds")),
            maxBatch: Int(
                try storageReader.integer(
                    "maxBatch", default: 256, range: 1...10_000, fix: "use a count of writes per commit")))
        try storageReader.finish()

        var publicReader = try root.objectOrEmpty("public")
        try publicReader.allow([
            "host", "port", "notificationPath", "maxBodyBytes", "headerTimeoutMilliseconds", "bodyTimeoutMilliseconds",
            "idleTimeoutMilliseconds", "writeTimeoutMilliseconds", "maxConnections", "tls", "metrics",
        ])
        let path = try publicReader.string(
            "notificationPath", default: "/apple/notifications",
            fix: "use an absolute path such as /apple/notifications")
        guard path.hasPrefix("/"), !path.contains("?"), !path.contains("#") else {
            throw publicReader.error(
                "notificationPath", "must be an absolute path without query", fix: "e.g. /apple/notifications")
        }
        var tls: TLSConfiguration?
        if var tlsReader = try publicReader.object("tls") {
            try tlsReader.allow(["certificateFile", "privateKeyFile"])
            guard let certificate = try tlsReader.string("certificateFile", fix: "path to a PEM certificate chain"),
                let key = try tlsReader.string("privateKeyFile", fix: "path to the PEM private key")
            else {
                throw publicReader.error(
                    "tls", "needs both certificateFile and privateKeyFile", fix: "or remove tls to serve plain HTTP")
            }
            try tlsReader.finish()
            tls = TLSConfiguration(certificateFile: resolve(certificate), privateKeyFile: resolve(key))
        }
        let publicListener = PublicListenerConfiguration(
            host: try publicReader.string("host", default: "0.0.0.0", fix: "an IP address to bind"),
            port: Int(try publicReader.integer("port", default: 8080, range: 0...65535, fix: "a TCP port")),
            notificationPath: path,
            maxBodyBytes: Int(
                try publicReader.integer(
                    "maxBodyBytes", default: 65_536, range: 1024...16_777_216, fix: "use bytes (default 65536)")),
            headerTimeoutMilliseconds: Int(
                try publicReader.integer(
                    "headerTimeoutMilliseconds", default: 10_000, range: 100...300_000, fix: "use milliseconds")),
            bodyTimeoutMilliseconds: Int(
                try publicReader.integer(
                    "bodyTimeoutMilliseconds", default: 10_000, range: 100...300_000, fix: "use milliseconds")),
            idleTimeoutMilliseconds: Int(
                try publicReader.integer(
                    "idleTimeoutMilliseconds", default: 60_000, range: 100...3_600_000, fix: "use milliseconds")),
            writeTimeoutMilliseconds: Int(
                try publicReader.integer(
                    "writeTimeoutMilliseconds", default: 10_000, range: 100...300_000, fix: "use milliseconds")),
            maxConnections: Int(
                try publicReader.integer("maxConnections", default: 1024, range: 1...100_000, fix: "a count")),
            tls: tls,
            metrics: try publicReader.bool("metrics", default: false))
        try publicReader.finish()

        var adminReader = try root.objectOrEmpty("admin")
        try adminReader.allow(["enabled", "host", "port", "tokenFile"])
        let admin = AdminListenerConfiguration(
            enabled: try adminReader.bool("enabled", default: true),
            host: try adminReader.string("host", default: "127.0.0.1", fix: "an IP address to bind"),
            port: Int(try adminReader.integer("port", default: 8081, range: 0...65535, fix: "a TCP port")),
            tokenFile: try adminReader.string("tokenFile", fix: "path to a file holding the bearer token").map(resolve))
        try adminReader.finish()

        var appleReader = try root.objectOrEmpty("apple")
        try appleReader.allow([
            "jwks", "issuer", "leewaySeconds", "jwksMinRefreshSeconds", "jwksFetchTimeoutSeconds", "restBaseURL",
            "restTimeoutSeconds", "revocation", "probe",
        ])
        var jwks = try appleReader.string(
            "jwks", default: "https://appleid.apple.com/auth/keys", fix: "an https:// URL, a file: URL or a path")
        if !jwks.hasPrefix("https://") && !jwks.hasPrefix("http://") {
            jwks = resolve(jwks.hasPrefix("file:") ? String(jwks.dropFirst("file:".count)) : jwks)
        }
        var apple = AppleConfiguration(
            jwks: jwks,
            issuer: try appleReader.string(
                "issuer", default: "https://appleid.apple.com", fix: "Apple's issuer is https://appleid.apple.com"),
            leewaySeconds: Int(
                try appleReader.integer("leewaySeconds", default: 60, range: 0...3600, fix: "use seconds (default 60)")),
            jwksMinRefreshSeconds: Int(
                try appleReader.integer(
                    "jwksMinRefreshSeconds", default: 300, range: 1...86_400, fix: "use seconds (default 300)")),
            jwksFetchTimeoutSeconds: Int(
                try appleReader.integer(
                    "jwksFetchTimeoutSeconds", default: 10, range: 1...120, fix: "use seconds (default 10)")))
        let restBaseURL = try appleReader.string(
            "restBaseURL", default: defaultAppleRESTBaseURL, fix: "Apple's REST API is https://appleid.apple.com")
        switch AppleBaseURL.parse(restBaseURL, field: "restBaseURL", what: "REST base URL") {
        case .success(let url): apple.restBaseURL = url
        case .failure(let error):
            throw appleReader.error("restBaseURL", error.description, fix: "use https://appleid.apple.com")
        }
        apple.restTimeoutSeconds = Int(
            try appleReader.integer("restTimeoutSeconds", default: 10, range: 1...120, fix: "use seconds (default 10)"))
        var revocationReader = try appleReader.objectOrEmpty("revocation")
        try revocationReader.allow([
            "maxAttempts", "baseDelayMilliseconds", "maxDelayMilliseconds", "verifyAttempts", "leaseSeconds",
            "pollMilliseconds",
        ])
        apple.revocation.maxAttempts = Int(
            try revocationReader.integer("maxAttempts", default: 12, range: 1...100, fix: "attempts (default 12)"))
        apple.revocation.baseDelayMilliseconds = Int(
            try revocationReader.integer(
                "baseDelayMilliseconds", default: 5_000, range: 0...86_400_000, fix: "milliseconds (default 5000)"))
        apple.revocation.maxDelayMilliseconds = Int(
            try revocationReader.integer(
                "maxDelayMilliseconds", default: 3_600_000, range: 0...604_800_000,
                fix: "milliseconds (default 3600000)"))
        apple.revocation.verifyAttempts = Int(
            try revocationReader.integer("verifyAttempts", default: 2, range: 1...10, fix: "revokes (default 2)"))
        apple.revocation.leaseSeconds = Int(
            try revocationReader.integer("leaseSeconds", default: 60, range: 1...3_600, fix: "seconds (default 60)"))
        apple.revocation.pollMilliseconds = Int(
            try revocationReader.integer(
                "pollMilliseconds", default: 1_000, range: 10...60_000, fix: "milliseconds (default 1000)"))
        try revocationReader.finish()
        var probeReader = try appleReader.objectOrEmpty("probe")
        try probeReader.allow(["enabled", "maxPerSecond", "retrySeconds", "pollSeconds"])
        apple.probe.enabled = try probeReader.bool("enabled", default: true)
        apple.probe.maxPerSecond = Int(
            try probeReader.integer(
                "maxPerSecond", default: 5, range: 1...1_000, fix: "refresh_token grants per second (default 5)"))
        apple.probe.retrySeconds = Int(
            try probeReader.integer("retrySeconds", default: 3_600, range: 1...86_400, fix: "seconds (default 3600)"))
        apple.probe.pollSeconds = Int(
            try probeReader.integer("pollSeconds", default: 60, range: 1...3_600, fix: "seconds (default 60)"))
        try probeReader.finish()
        try appleReader.finish()

        var apps: [AppConfiguration] = []
        var seenClientIDs: [String: String] = [:]
        for var appReader in try root.objects("apps") ?? [] {
            try appReader.allow(
                ["id", "clientIds", "webhook", "records", "signInWithApple", "signals"] + appErasureKeys)
            guard let id = try appReader.string("id", fix: "a short name such as \"shop\""),
                id.utf8.allSatisfy({
                    $0 == 0x2D || $0 == 0x5F || (0x30...0x39).contains($0) || (0x61...0x7A).contains($0)
                })
            else {
                throw appReader.error("id", "missing or invalid", fix: "use lowercase letters, digits, - and _")
            }
            let signals = try parseSignals(&appReader, appID: id, resolve: resolve)
            let clientIDs =
                try appReader.strings("clientIds", fix: "the bundle ID / Services ID Apple sends as aud") ?? []
            // An app of other providers only may leave Apple out; an app with neither receives nothing.
            guard !clientIDs.isEmpty || !signals.isEmpty else {
                throw appReader.error(
                    "clientIds", "missing or empty",
                    fix: "list the bundle ID / Services ID Apple sends as aud, or configure signals providers")
            }
            for clientID in clientIDs {
                if let other = seenClientIDs[clientID] {
                    throw appReader.error(
                        "clientIds", "\(clientID) is already listed by app \(other)", fix: "route each aud to one app")
                }
                seenClientIDs[clientID] = id
            }
            if apps.contains(where: { $0.id == id }) {
                throw appReader.error("id", "duplicate app id \(id)", fix: "give each app its own id")
            }
            var webhook: WebhookConfiguration?
            if var webhookReader = try appReader.object("webhook") {
                try webhookReader.allow(["url", "secretFile"])
                guard let url = try webhookReader.string("url", fix: "the receiver's http:// or https:// URL"),
                    url.hasPrefix("http://") || url.hasPrefix("https://")
                else {
                    throw webhookReader.error(
                        "url", "missing or not an http(s) URL", fix: "e.g. https://backend.internal/hooks/lifecycle")
                }
                let secretFile = try webhookReader.string(
                    "secretFile", fix: "path to a file holding the signing secret")
                try webhookReader.finish()
                webhook = WebhookConfiguration(url: url, secretFile: secretFile.map(resolve))
            }
            let erasure = try parseAppErasure(&appReader, hasWebhook: webhook != nil, resolve: resolve)
            let records = try parseRecordSource(&appReader, resolve: resolve)
            let signInWithApple = try parseAppleAccount(&appReader, clientIDs: clientIDs, resolve: resolve)
            try appReader.finish()
            apps.append(
                AppConfiguration(
                    id: id, clientIDs: clientIDs, webhook: webhook, erasure: erasure, records: records,
                    signInWithApple: signInWithApple, signals: signals))
        }
        if apps.isEmpty {
            throw ConfigurationError(
                file: file, field: "apps", problem: "no app configured",
                fix: "add {\"id\": \"shop\", \"clientIds\": [\"com.example.shop\"]}")
        }

        try checkSignalPaths(apps, notificationPath: publicListener.notificationPath, file: file)

        var outboxReader = try root.objectOrEmpty("outbox")
        try outboxReader.allow([
            "maxAttempts", "baseDelayMilliseconds", "maxDelayMilliseconds", "leaseSeconds", "concurrency",
            "timeoutMilliseconds", "pollMilliseconds",
        ])
        let outbox = OutboxConfiguration(
            maxAttempts: Int(try outboxReader.integer("maxAttempts", default: 12, range: 1...100, fix: "a count")),
            baseDelayMilliseconds: Int(
                try outboxReader.integer(
                    "baseDelayMilliseconds", default: 1000, range: 1...3_600_000, fix: "milliseconds")),
            maxDelayMilliseconds: Int(
                try outboxReader.integer(
                    "maxDelayMilliseconds", default: 3_600_000, range: 1...86_400_000, fix: "milliseconds")),
            leaseSeconds: Int(try outboxReader.integer("leaseSeconds", default: 60, range: 1...3600, fix: "seconds")),
            concurrency: Int(try outboxReader.integer("concurrency", default: 8, range: 1...256, fix: "a count")),
            timeoutMilliseconds: Int(
                try outboxReader.integer(
                    "timeoutMilliseconds", default: 10_000, range: 100...120_000, fix: "milliseconds")),
            pollMilliseconds: Int(
                try outboxReader.integer("pollMilliseconds", default: 5_000, range: 10...600_000, fix: "milliseconds")))
        try outboxReader.finish()

        let pseudonymKeyPath = try root.string(
            "pseudonymKeyFile", default: "var/secrets/pseudonym.key", fix: "a path to a key file")
        let pseudonymKeyFile = resolve(pseudonymKeyPath)

        var reportsReader = try root.objectOrEmpty("reports")
        try reportsReader.allow(["directory", "signingKeyFile", "pseudonymKeyFile"])
        // One key by default, so a report names a person by the pseudonym the logs, `jobs list` and the admin
        // API print; a key of its own only when the operator names one.
        let reports = ReportsConfiguration(
            directory: resolve(try reportsReader.string("directory", default: "reports", fix: "a directory path")),
            signingKeyFile: resolve(
                try reportsReader.string(
                    "signingKeyFile", default: "var/secrets/report-ed25519.pem", fix: "a path to a PEM key file")),
            pseudonymKeyFile: resolve(
                try reportsReader.string("pseudonymKeyFile", default: pseudonymKeyPath, fix: "a path to a key file")))
        try reportsReader.finish()
        let levelName = try root.string("logLevel", default: "info", fix: "debug, info, warning or error")
        guard let logLevel = LogLevel(rawValue: levelName) else {
            throw root.error("logLevel", "unknown level \(levelName)", fix: "use debug, info, warning or error")
        }
        let policiesDirectory = resolve(
            try root.string("policiesDirectory", default: "policies", fix: "a directory of policy files"))
        let erasureRunner = try parseErasureRunner(&root)
        let reconcile = try parseReconcile(&root)
        let retention = try parseRetention(&root, reconcile: reconcile)
        var secretsReader = try root.objectOrEmpty("secrets")
        try secretsReader.allow(["masterKeyFile"])
        var secrets = SecretsConfiguration()
        secrets.masterKeyFile = resolve(
            try secretsReader.string(
                "masterKeyFile", default: secrets.masterKeyFile, fix: "a path to the master key file (mode 0600)"))
        try secretsReader.finish()
        var keysReader = try root.objectOrEmpty("keys")
        try keysReader.allow(["rotateEveryDays", "fileCheckSeconds", "rewrapBatchSize", "instanceWaitSeconds"])
        var keys = KeysConfiguration()
        keys.rotateEveryDays = try keysReader.optionalInteger(
            "rotateEveryDays", range: 1...3650, fix: "days between master-key rotations"
        ).map { Int($0) }
        keys.fileCheckSeconds = Int(
            try keysReader.integer("fileCheckSeconds", default: 5, range: 1...3600, fix: "seconds"))
        keys.rewrapBatchSize = Int(
            try keysReader.integer("rewrapBatchSize", default: 500, range: 1...100_000, fix: "a count"))
        keys.instanceWaitSeconds = Int(
            try keysReader.integer("instanceWaitSeconds", default: 120, range: 0...86_400, fix: "seconds"))
        try keysReader.finish()
        try root.finish()
        var configuration = ServiceConfiguration(
            storage: storage, publicListener: publicListener, admin: admin, apple: apple, apps: apps, outbox: outbox,
            reports: reports, pseudonymKeyFile: pseudonymKeyFile, logLevel: logLevel, baseDirectory: baseDirectory)
        configuration.policiesDirectory = policiesDirectory
        configuration.policies = try loadPolicies(apps: apps, directory: policiesDirectory, file: file)
        configuration.erasure = erasureRunner
        configuration.reconcile = reconcile
        configuration.retention = retention
        configuration.secrets = secrets
        configuration.keys = keys
        return configuration
    }
}
