import LifecycleCore
import LifecycleCrypto
import SharedSignals

/// The receiver's side of a transmitter's stream management, for `lifecycle signals stream …`: discovery
/// (SSF 1.0 §7), the stream configuration (SSF 1.0 §8.1.1: create with `POST`, read with `GET`, update with
/// `PATCH` on the `configuration_endpoint`) and the verification request (§8.1.4.2) — or, for `google-risc`,
/// Google's RISC API (`POST /v1beta/stream:update`, `GET /v1beta/stream`, `POST /v1beta/stream:verify`)
/// authorised by the service account's self-signed JWT.
public struct SignalStreamManager: Sendable {
    /// Google's push delivery method (RISC API `delivery.delivery_method`).
    static let googlePushMethod = "https://schemas.openid.net/secevent/risc/delivery-method/push"
    /// What Google's Cross-Account Protection sends when no `events` are configured.
    static let googleDefaultEvents = [
        "https://schemas.openid.net/secevent/risc/event-type/sessions-revoked",
        "https://schemas.openid.net/secevent/oauth/event-type/tokens-revoked",
        "https://schemas.openid.net/secevent/oauth/event-type/token-revoked",
        "https://schemas.openid.net/secevent/risc/event-type/account-disabled",
        "https://schemas.openid.net/secevent/risc/event-type/account-enabled",
        "https://schemas.openid.net/secevent/risc/event-type/account-credential-change-required",
        "https://schemas.openid.net/secevent/risc/event-type/verification",
    ]

    public let app: String
    public let provider: SignalProviderConfiguration
    let client: TransmitterClient
    let clock: any LifecycleClock
    /// The push bearer token handed to the transmitter as `delivery.authorization_header` (SSF 1.0 §8.1.1).
    let pushToken: [UInt8]?
    let managementToken: [UInt8]?
    let serviceAccount: GoogleServiceAccount?

    /// Reads the provider's credentials: the push token (`authorization.secretFile`), the management token
    /// (`stream.tokenFile`, or `LIFECYCLE_SIGNALS_MANAGEMENT_TOKEN_<APP>_<ID>`) or Google's service account.
    public init(
        app: String, provider: SignalProviderConfiguration, environment: [String: String],
        clock: any LifecycleClock = SystemClock()
    ) throws(StreamManagementError) {
        self.app = app
        self.provider = provider
        self.clock = clock
        client = TransmitterClient(timeout: .seconds(provider.stream.timeoutSeconds))
        do {
            pushToken = try SecretFile.read(
                path: provider.authorizationSecretFile, variable: provider.pushTokenVariable(app: app),
                environment: environment)
            managementToken = try SecretFile.read(
                path: provider.stream.tokenFile, variable: provider.managementTokenVariable(app: app),
                environment: environment)
        } catch {
            throw StreamManagementError(String(describing: error))
        }
        serviceAccount = try provider.stream.serviceAccountFile.map { file throws(StreamManagementError) in
            try GoogleServiceAccount(file: file)
        }
    }

    /// The transmitter's metadata, its issuer checked against the configured one.
    public func discover() async throws(StreamManagementError) -> TransmitterMetadata {
        let url = provider.stream.discovery
        let answer = try await client.send("GET", url, authorization: nil)
        try TransmitterClient.expect(answer, [200], call: "GET \(url)")
        return try TransmitterMetadata.decode(answer.json, url: url, expectedIssuer: provider.issuer)
    }

    /// The event types asked for: `events` given on the command line, else the provider's, else the default.
    func eventsRequested(_ given: [String]) -> [String] {
        if !given.isEmpty { return given }
        if let events = provider.events { return events }
        return provider.profile == .googleRISC ? Self.googleDefaultEvents : SecurityEventType.requestedByDefault
    }

    func endpoint(_ given: String?) throws(StreamManagementError) -> String {
        guard let url = given ?? provider.stream.endpointURL else {
            throw StreamManagementError(
                "apps[\(app)].signals[\(provider.id)].stream.endpointURL is not set; give the public https:// URL "
                    + "of \(provider.path) there or with --endpoint-url")
        }
        return url
    }

    /// Creates the stream (SSF 1.0 §8.1.1.1) or, for Google, sets it (`stream:update` creates or replaces).
    /// Returns the stream configuration the transmitter answered.
    /// A poll stream asks for `delivery` `{"method": "urn:ietf:rfc:8936"}` only: the transmitter supplies the
    /// poll endpoint in the answer's `delivery.endpoint_url` (SSF 1.0 §8.1.1).
    public func create(events: [String], endpointURL: String?) async throws(StreamManagementError) -> JSONValue {
        if provider.profile == .googleRISC {
            return try await googleUpdate(events: events, endpointURL: try endpoint(endpointURL))
        }
        let delivery: JSONObject
        if provider.stream.delivery == .poll {
            guard endpointURL == nil else {
                throw StreamManagementError(
                    "--endpoint-url is for push delivery; a poll stream's endpoint is the transmitter's")
            }
            delivery = ["method": .string(SignalStreamConfiguration.Delivery.poll.uri)]
        } else {
            delivery = try self.delivery(try endpoint(endpointURL))
        }
        let configuration = try await configurationEndpoint()
        let body: JSONObject = [
            "delivery": .object(delivery),
            "events_requested": .array(eventsRequested(events).map(JSONValue.string)),
            "description": .string("lifecycle \(app)/\(provider.id)"),
        ]
        let answer = try await client.send(
            "POST", configuration, body: .object(body), authorization: try managementAuthorization())
        try TransmitterClient.expect(answer, [200, 201], call: "POST \(configuration)")
        return try Self.streamDocument(answer.json, call: "POST \(configuration)")
    }

    /// The stream's configuration as the transmitter holds it (SSF 1.0 §8.1.1.2; Google `GET /v1beta/stream`).
    public func show(streamID: String?) async throws(StreamManagementError) -> JSONValue {
        if provider.profile == .googleRISC {
            let url = try googleURL("/v1beta/stream")
            let answer = try await client.send("GET", url, authorization: try managementAuthorization())
            try TransmitterClient.expect(answer, [200], call: "GET \(url)")
            return try Self.streamDocument(answer.json, call: "GET \(url)")
        }
        return try await stream(streamID)
    }

    /// Updates the stream's `events_requested` and delivery (SSF 1.0 §8.1.1.3 `PATCH`; Google `stream:update`).
    public func update(
        streamID: String?, events: [String], endpointURL: String?
    ) async throws(StreamManagementError) -> JSONValue {
        if provider.profile == .googleRISC {
            return try await googleUpdate(events: events, endpointURL: try endpoint(endpointURL))
        }
        let current = try await stream(streamID)
        guard let id = current["stream_id"]?.stringValue else {
            throw StreamManagementError("the transmitter's stream has no stream_id")
        }
        var body: JSONObject = [
            "stream_id": .string(id), "events_requested": .array(eventsRequested(events).map(JSONValue.string)),
        ]
        if provider.stream.delivery == .poll {
            body["delivery"] = ["method": .string(SignalStreamConfiguration.Delivery.poll.uri)]
        } else if let url = endpointURL ?? provider.stream.endpointURL {
            body["delivery"] = .object(try delivery(url))
        }
        let configuration = try await configurationEndpoint()
        let answer = try await client.send(
            "PATCH", configuration, body: .object(body), authorization: try managementAuthorization())
        try TransmitterClient.expect(answer, [200], call: "PATCH \(configuration)")
        return try Self.streamDocument(answer.json, call: "PATCH \(configuration)")
    }

    /// Asks the transmitter to send a verification event carrying `state` (SSF 1.0 §8.1.4.2; Google
    /// `stream:verify`). Returns the `stream_id` the request named (nil for Google, which has one stream).
    @discardableResult
    public func requestVerification(streamID: String?, state: String) async throws(StreamManagementError) -> String? {
        if provider.profile == .googleRISC {
            let url = try googleURL("/v1beta/stream:verify")
            let answer = try await client.send(
                "POST", url, body: ["state": .string(state)], authorization: try managementAuthorization())
            try TransmitterClient.expect(answer, [200, 204], call: "POST \(url)")
            return nil
        }
        let metadata = try await discover()
        guard let verification = metadata.verificationEndpoint else {
            throw StreamManagementError("\(provider.stream.discovery): the transmitter has no verification_endpoint")
        }
        let id = try await resolvedStreamID(streamID)
        let answer = try await client.send(
            "POST", verification, body: ["stream_id": .string(id), "state": .string(state)],
            authorization: try managementAuthorization())
        try TransmitterClient.expect(answer, [200, 202, 204], call: "POST \(verification)")
        return id
    }

    /// A fresh verification `state`: 16 random bytes, base64url (SSF 1.0 §8.1.4.2 leaves its form to the
    /// receiver; it must not be guessable, or a forged verification would pass).
    public static func makeState() -> String { Base64URL.encode(SecureRandom.bytes(count: 16)) }

    // MARK: SSF

    private func delivery(_ url: String) throws(StreamManagementError) -> JSONObject {
        var delivery: JSONObject = [
            "method": .string(provider.stream.delivery.uri), "endpoint_url": .string(url),
        ]
        if let pushToken {
            delivery["authorization_header"] = .string("Bearer " + String(decoding: pushToken, as: UTF8.self))
        }
        return delivery
    }

    private func configurationEndpoint() async throws(StreamManagementError) -> String {
        let metadata = try await discover()
        guard let endpoint = metadata.configurationEndpoint else {
            throw StreamManagementError(
                "\(provider.stream.discovery): the transmitter has no configuration_endpoint (streams are set up "
                    + "in its console)")
        }
        return endpoint
    }

    /// The receiver's stream: the one named, else `stream.streamId`, else the only one the transmitter lists.
    private func stream(_ given: String?) async throws(StreamManagementError) -> JSONValue {
        let configuration = try await configurationEndpoint()
        let id = given ?? provider.stream.streamID
        let answer = try await client.send(
            "GET", configuration, query: id.map { [("stream_id", $0)] } ?? [],
            authorization: try managementAuthorization())
        try TransmitterClient.expect(answer, [200], call: "GET \(configuration)")
        if let streams = answer.json?.arrayValue {
            guard id == nil else {
                throw StreamManagementError("GET \(configuration) answered a list for one stream_id")
            }
            switch streams.count {
            case 0:
                throw StreamManagementError(
                    "the transmitter has no stream for this receiver; run 'lifecycle signals stream create'")
            case 1: return try Self.streamDocument(streams[0], call: "GET \(configuration)")
            default:
                throw StreamManagementError(
                    "the transmitter lists \(streams.count) streams for this receiver; give --stream-id or set stream.streamId"
                )
            }
        }
        return try Self.streamDocument(answer.json, call: "GET \(configuration)")
    }

    private func resolvedStreamID(_ given: String?) async throws(StreamManagementError) -> String {
        if let id = given ?? provider.stream.streamID { return id }
        guard let id = try await stream(nil)["stream_id"]?.stringValue else {
            throw StreamManagementError("the transmitter's stream has no stream_id")
        }
        return id
    }

    static func streamDocument(_ json: JSONValue?, call: String) throws(StreamManagementError) -> JSONValue {
        guard let json, json.objectValue != nil else {
            throw StreamManagementError(
                "\(call.quotedForError(maxBytes: TransmitterClient.maximumQuotedURLBytes)) did not answer a JSON stream configuration"
            )
        }
        return json
    }

    // MARK: Google

    private func googleUpdate(events: [String], endpointURL: String) async throws(StreamManagementError) -> JSONValue {
        let url = try googleURL("/v1beta/stream:update")
        let body: JSONValue = [
            "delivery": ["delivery_method": .string(Self.googlePushMethod), "url": .string(endpointURL)],
            "events_requested": .array(eventsRequested(events).map(JSONValue.string)),
        ]
        let answer = try await client.send("POST", url, body: body, authorization: try managementAuthorization())
        try TransmitterClient.expect(answer, [200], call: "POST \(url)")
        // Google answers `{}`: the configuration is what was sent.
        return answer.json.flatMap { $0.objectValue?.isEmpty == false ? $0 : nil } ?? body
    }

    private func googleURL(_ path: String) throws(StreamManagementError) -> String {
        var base = provider.stream.googleAPI
        while base.hasSuffix("/") { base.removeLast() }
        return base + path
    }

    private func managementAuthorization() throws(StreamManagementError) -> String? {
        switch provider.profile {
        case .googleRISC:
            guard let serviceAccount else {
                throw StreamManagementError(
                    "apps[\(app)].signals[\(provider.id)].stream.serviceAccountFile is not set; Google's RISC API "
                        + "is authorised by a service account key")
            }
            return try serviceAccount.authorization(at: clock.now())
        case .ssf:
            return managementToken.map { "Bearer " + String(decoding: $0, as: UTF8.self) }
        }
    }
}
