import AppleAccountAPI
import LifecycleCore
import SharedSignals

/// `apps[i].signals`: the app's non-Apple identity providers (OpenID Shared Signals transmitters, Google's
/// Cross-Account Protection). Apple's own settings stay in `clientIds` and the top-level `apple` section.
extension ServiceConfiguration {
    static let signalKeys = [
        "provider", "id", "issuer", "jwks", "audience", "path", "authorization", "events", "leewaySeconds",
        "jwksMinRefreshSeconds", "jwksFetchTimeoutSeconds", "stream", "recordSubject",
    ]
    static let signalStreamKeys = [
        "discovery", "delivery", "endpointURL", "streamId", "tokenFile", "serviceAccountFile", "googleAPI",
        "timeoutSeconds", "pollURL", "maxEvents", "pollIntervalMilliseconds", "pollBackoffMaxMilliseconds",
        "pollMaxResponseBytes",
    ]
    /// The members that only poll delivery reads.
    static let signalPollKeys = [
        "pollURL", "maxEvents", "pollIntervalMilliseconds", "pollBackoffMaxMilliseconds", "pollMaxResponseBytes",
    ]

    static func parseSignals(
        _ app: inout ConfigurationReader, appID: String, resolve: (String) -> String
    ) throws(ConfigurationError) -> [SignalProviderConfiguration] {
        var providers: [SignalProviderConfiguration] = []
        for var reader in try app.objects("signals") ?? [] {
            try reader.allow(signalKeys)
            let profileName = try reader.string("provider", fix: "ssf or google-risc")
            guard let profileName, let profile = SignalProfile(rawValue: profileName) else {
                throw reader.error(
                    "provider", profileName.map { "unknown provider \($0)" } ?? "missing",
                    fix: "use ssf (an OpenID Shared Signals transmitter) or google-risc (Cross-Account Protection)")
            }
            let defaultID = profile == .googleRISC ? "google" : nil
            let id = try reader.string("id", fix: "a short name such as \"okta\"") ?? defaultID
            guard let id, isIdentifier(id), id != "apple" else {
                throw reader.error(
                    "id", "missing or invalid",
                    fix: "use 1-32 lowercase letters, digits, - and _ (not \"apple\"), unique within the app")
            }
            if providers.contains(where: { $0.id == id }) {
                throw reader.error("id", "duplicate provider id \(id)", fix: "give each provider of the app its own id")
            }
            let defaultIssuer = profile == .googleRISC ? SignalProfile.googleIssuer : nil
            guard let issuer = try reader.string("issuer", fix: "the transmitter's iss") ?? defaultIssuer,
                !issuer.isEmpty
            else {
                throw reader.error("issuer", "missing", fix: "the transmitter's iss, e.g. https://idp.example.com/")
            }
            let defaultKeys = profile == .googleRISC ? SignalProfile.googleKeysURL : nil
            // Without `jwks` an SSF provider's keys are the discovery document's `jwks_uri`.
            var jwks =
                try reader.string("jwks", fix: "an https:// URL or a path, or leave it out to use the discovery's")
                ?? defaultKeys ?? ""
            if jwks.hasPrefix("http://") {
                throw reader.error(
                    "jwks", "plain http is refused", fix: "use https:// (keys fetched without TLS can be forged)")
            }
            if !jwks.isEmpty && !jwks.hasPrefix("https://") {
                jwks = resolve(jwks.hasPrefix("file:") ? String(jwks.dropFirst("file:".count)) : jwks)
            }
            guard let audiences = try reader.strings("audience", fix: "the aud values the transmitter sends"),
                !audiences.isEmpty
            else {
                throw reader.error(
                    "audience", "missing or empty",
                    fix: profile == .googleRISC
                        ? "list the app's OAuth client IDs (Google puts one in aud)"
                        : "list the aud values of the stream (SSF stream configuration aud)")
            }
            let path = try reader.string("path", default: "/signals/\(appID)/\(id)", fix: "an absolute path")
            guard path.hasPrefix("/"), !path.contains("?"), !path.contains("#"), !path.contains(" ") else {
                throw reader.error(
                    "path", "must be an absolute path without query", fix: "e.g. /signals/\(appID)/\(id)")
            }
            var secretFile: String?
            if var authorization = try reader.object("authorization") {
                try authorization.allow(["secretFile"])
                guard let file = try authorization.string("secretFile", fix: "a file holding the bearer token") else {
                    throw authorization.error(
                        "secretFile", "missing", fix: "a file holding the token the transmitter sends as Bearer")
                }
                try authorization.finish()
                secretFile = resolve(file)
            }
            let events = try reader.strings("events", fix: "event-type URIs")
            var provider = SignalProviderConfiguration(
                profile: profile, id: id, issuer: issuer, jwks: jwks, audiences: audiences, path: path,
                authorizationSecretFile: secretFile, events: events)
            provider.leewaySeconds = Int(
                try reader.integer("leewaySeconds", default: 60, range: 0...3600, fix: "seconds (default 60)"))
            provider.jwksMinRefreshSeconds = Int(
                try reader.integer(
                    "jwksMinRefreshSeconds", default: 300, range: 1...86_400, fix: "seconds (default 300)"))
            provider.jwksFetchTimeoutSeconds = Int(
                try reader.integer("jwksFetchTimeoutSeconds", default: 10, range: 1...120, fix: "seconds (default 10)"))
            if var stream = try reader.object("stream") {
                provider.stream = try parseSignalStream(&stream, provider: provider, appID: appID, resolve: resolve)
            }
            if var subject = try reader.object("recordSubject") {
                provider.recordSubject = try parseRecordSubject(&subject, issuer: issuer)
            }
            try reader.finish()
            providers.append(provider)
        }
        return providers
    }

    /// `signals[j].recordSubject`: how the app's records name the provider's accounts (`format`, and for
    /// `iss_sub` the `issuer`, by default the provider's).
    static func parseRecordSubject(
        _ reader: inout ConfigurationReader, issuer: String
    ) throws(ConfigurationError) -> ProviderRecordSubject {
        try reader.allow(["format", "issuer"])
        let formats = ProviderRecordSubject.formats.joined(separator: ", ")
        let format = try reader.string("format", default: "iss_sub", fix: formats)
        guard ProviderRecordSubject.formats.contains(format) else {
            throw reader.error(
                "format", "unknown subject format \(format)",
                fix: "use the RFC 9493 format the provider's SETs identify accounts in: \(formats)")
        }
        let given = try reader.string("issuer", fix: "the iss of the provider's iss_sub subjects")
        if given != nil, format != "iss_sub" {
            throw reader.error("issuer", "applies to format iss_sub only", fix: "remove it, or set format to iss_sub")
        }
        try reader.finish()
        return ProviderRecordSubject(format: format, issuer: format == "iss_sub" ? given ?? issuer : nil)
    }

    /// `signals[j].stream`: the transmitter's discovery URL, the delivery asked for and the management API's
    /// credentials (a bearer token file for `ssf`, a service account key for `google-risc`).
    static func parseSignalStream(
        _ reader: inout ConfigurationReader, provider: SignalProviderConfiguration, appID: String,
        resolve: (String) -> String
    ) throws(ConfigurationError) -> SignalStreamConfiguration {
        try reader.allow(signalStreamKeys)
        var stream = provider.stream
        if let discovery = try reader.string("discovery", fix: "the transmitter's https:// configuration URL") {
            guard case .success = AppleBaseURL.parse(discovery, field: reader.field("discovery"), what: "URL") else {
                throw reader.error(
                    "discovery", "\(discovery) is not an https:// URL without query",
                    fix: "e.g. https://idp.example.com/.well-known/ssf-configuration")
            }
            stream.discovery = discovery
        }
        let delivery = try reader.string("delivery", default: "push", fix: "push or poll")
        guard let method = SignalStreamConfiguration.Delivery(rawValue: delivery) else {
            throw reader.error(
                "delivery", "unknown delivery \(delivery)", fix: "use push (RFC 8935) or poll (RFC 8936, ssf only)")
        }
        if method == .poll, provider.profile == .googleRISC {
            throw reader.error(
                "delivery", "Google's RISC API delivers by push only",
                fix: "use push: Google POSTs to the provider's path")
        }
        stream.delivery = method
        if method == .push, let given = signalPollKeys.first(where: { reader.has($0) }) {
            throw reader.error(given, "applies to poll delivery only", fix: "remove it, or set delivery to poll")
        }
        if let url = try reader.string("endpointURL", fix: "the public URL of the provider's path") {
            guard method == .push else {
                throw reader.error(
                    "endpointURL", "poll delivery has no push endpoint",
                    fix: "remove it; set pollURL to the transmitter's poll endpoint, or leave it to the stream")
            }
            guard isPushEndpointURL(url) else {
                throw reader.error(
                    "endpointURL", "\(url) is not an https:// URL (http:// only on loopback)",
                    fix:
                        "the public https:// URL of \(provider.path), e.g. https://receiver.example.com\(provider.path)"
                )
            }
            stream.endpointURL = url
        }
        if let url = try reader.string("pollURL", fix: "the transmitter's https:// poll endpoint") {
            guard case .success = AppleBaseURL.parse(url, field: reader.field("pollURL"), what: "URL") else {
                throw reader.error(
                    "pollURL", "\(url) is not an https:// URL without query",
                    fix: "the transmitter's poll endpoint, e.g. https://idp.example.com/ssf/poll, or leave it out "
                        + "to use the stream's delivery.endpoint_url")
            }
            stream.pollURL = url
        }
        stream.maxEvents = Int(
            try reader.integer("maxEvents", default: 100, range: 1...1000, fix: "SETs per poll, 1-1000 (default 100)"))
        stream.pollIntervalMilliseconds = Int(
            try reader.integer(
                "pollIntervalMilliseconds", default: 10_000, range: 50...3_600_000,
                fix: "milliseconds between empty polls (default 10000)"))
        stream.pollBackoffMaxMilliseconds = Int(
            try reader.integer(
                "pollBackoffMaxMilliseconds", default: 300_000, range: 50...86_400_000,
                fix: "milliseconds, the longest wait after failed polls (default 300000)"))
        guard stream.pollBackoffMaxMilliseconds >= stream.pollIntervalMilliseconds else {
            throw reader.error(
                "pollBackoffMaxMilliseconds", "is below pollIntervalMilliseconds",
                fix: "give at least \(stream.pollIntervalMilliseconds)")
        }
        stream.pollMaxResponseBytes = Int(
            try reader.integer(
                "pollMaxResponseBytes", default: 4 << 20, range: 65_536...(256 << 20),
                fix: "bytes, the largest poll answer read (default 4194304)"))
        stream.streamID = try reader.string("streamId", fix: "the transmitter's stream_id")
        if let file = try reader.string("tokenFile", fix: "a file holding the management API's bearer token") {
            guard provider.profile == .ssf else {
                throw reader.error(
                    "tokenFile", "google-risc is authorised by a service account",
                    fix: "use serviceAccountFile instead")
            }
            stream.tokenFile = resolve(file)
        }
        if let file = try reader.string("serviceAccountFile", fix: "the service account's JSON key file") {
            guard provider.profile == .googleRISC else {
                throw reader.error(
                    "serviceAccountFile", "only google-risc is authorised by a service account",
                    fix: "use tokenFile for an SSF transmitter")
            }
            stream.serviceAccountFile = resolve(file)
        }
        if let api = try reader.string("googleAPI", fix: "https://risc.googleapis.com") {
            guard case .success = AppleBaseURL.parse(api, field: reader.field("googleAPI"), what: "URL") else {
                throw reader.error("googleAPI", "\(api) is not an https:// URL", fix: "https://risc.googleapis.com")
            }
            stream.googleAPI = api
        }
        stream.timeoutSeconds = Int(
            try reader.integer("timeoutSeconds", default: 10, range: 1...120, fix: "seconds (default 10)"))
        try reader.finish()
        return stream
    }

    /// A push endpoint the transmitter is given: `https://`, or `http://` to a loopback address (a transmitter
    /// on the same machine, a test).
    public static func isPushEndpointURL(_ url: String) -> Bool {
        if case .success = AppleBaseURL.parse(url, what: "URL") { return true }
        for loopback in [
            "http://127.0.0.1:", "http://127.0.0.1/", "http://localhost:", "http://localhost/", "http://[::1]:",
        ]
        where url.hasPrefix(loopback) {
            return !url.contains(where: { $0 == "?" || $0 == "#" || $0 == "@" || $0 == " " })
        }
        return false
    }

    /// Refuses a push path used twice, or one that the public listener already answers.
    static func checkSignalPaths(_ apps: [AppConfiguration], notificationPath: String, file: String)
        throws(ConfigurationError)
    {
        var seen: [String: String] = [:]
        let reserved = [notificationPath, "/healthz", "/readyz", "/metrics"]
        for app in apps {
            for (index, provider) in app.signals.enumerated() {
                let field = "apps[\(app.id)].signals[\(index)].path"
                if reserved.contains(provider.path) {
                    throw ConfigurationError(
                        file: file, field: field, problem: "\(provider.path) is already served by the public listener",
                        fix: "use /signals/\(app.id)/\(provider.id)")
                }
                if let other = seen[provider.path] {
                    throw ConfigurationError(
                        file: file, field: field, problem: "\(provider.path) is also the path of \(other)",
                        fix: "give each provider its own path")
                }
                seen[provider.path] = "\(app.id)/\(provider.id)"
            }
        }
    }

    static func isIdentifier(_ text: String) -> Bool {
        (1...32).contains(text.utf8.count)
            && text.utf8.allSatisfy {
                $0 == 0x2D || $0 == 0x5F || (0x30...0x39).contains($0) || (0x61...0x7A).contains($0)
            }
    }

    /// The app and provider whose push path is `path`.
    public func signalProvider(atPath path: String) -> (app: AppConfiguration, provider: SignalProviderConfiguration)? {
        for app in apps {
            if let provider = app.signals.first(where: { $0.path == path }) { return (app, provider) }
        }
        return nil
    }
}
