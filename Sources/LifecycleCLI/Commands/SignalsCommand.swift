import Foundation
import LifecycleCore
import LifecycleEngine
import LifecycleStore

/// `lifecycle signals stream create|show|update|verify`: the receiver's side of a Shared Signals transmitter's
/// stream management (SSF 1.0 §7 discovery, §8.1.1 the stream configuration, §8.1.4 verification), or of
/// Google's RISC API for a `google-risc` provider, over the service's own HTTPS client. `verify` then waits
/// for the verification event to reach the running `serve` and be stored.
struct SignalsCommand: LifecycleCommand {
    static let name = "signals"
    static let summary = "manage a Shared Signals / Google RISC stream: create, show, update, verify"
    static let syntax = [
        CommandSyntax(
            "signals", action: "stream", positionals: "create|show|update|verify", count: 1...1,
            options: [
                .value("--app", "ID", required: true), .value("--provider", "ID", required: true),
                .value("--stream-id", "ID"), .value("--event", "URI", repeatable: true),
                .value("--endpoint-url", "URL"), .value("--wait", "SECONDS"), .json, .config, .logLevel,
            ])
    ]
    static let details = """
        stream create   register this receiver with the transmitter: SSF POST to its configuration_endpoint
                        (found at stream.discovery) with delivery {method urn:ietf:rfc:8935, endpoint_url,
                        authorization_header} and events_requested; google-risc POST stream:update. With
                        stream.delivery poll (ssf): delivery {method urn:ietf:rfc:8936}; the transmitter
                        answers the poll endpoint (delivery.endpoint_url), which serve polls unless
                        stream.pollURL names another
        stream show     the transmitter's discovery document and stream configuration, and the last
                        verification and stream-updated events the service received from it
        stream update   send events_requested (and the delivery, when an endpoint URL is known) again:
                        SSF PATCH on the configuration_endpoint; google-risc POST stream:update
        stream verify   ask the transmitter for a verification event with a fresh random state (SSF
                        verification_endpoint; google-risc stream:verify), then wait for serve to receive it

        options:
          --app ID            app id from the configuration (apps[].id)
          --provider ID       the provider's id in the app's signals (google for google-risc by default)
          --stream-id ID      the transmitter's stream_id (default: stream.streamId, else the only stream
                              the transmitter lists for this receiver; google-risc has one)
          --event URI         an event type to request (repeatable; default: the provider's events, else
                              every account event type the service maps)
          --endpoint-url URL  push: the public URL the transmitter pushes to (default: stream.endpointURL)
          --wait SECONDS      verify: how long to wait for the verification event (default 30; 0 does not wait)
          --json              print one JSON document
          --config FILE       configuration (default: $LIFECYCLE_CONFIG, else lifecycle.json)

        The management API's credential: stream.tokenFile (SSF bearer token, also serve's for the polls, or
        LIFECYCLE_SIGNALS_MANAGEMENT_TOKEN_<APP>_<ID>) or stream.serviceAccountFile (google-risc). A private
        CA for the transmitter: SSL_CERT_FILE.
        exit status: 0 done (verify: the event was received), 1 verify: not received within --wait,
        2 could not run (bad option, configuration, the transmitter refused or could not be reached)
        """

    enum Action: String {
        case create, show, update, verify
    }

    static func run(_ arguments: inout CommandArguments, io: CommandIO) async throws -> Int32 {
        let configFile = try configurationFile(&arguments, io: io)
        let appID = try arguments.option("--app") ?? ""
        let providerID = try arguments.option("--provider") ?? ""
        let streamID = try arguments.option("--stream-id")
        let events = try arguments.options("--event")
        let endpointURL = try arguments.option("--endpoint-url")
        let wait = try arguments.integerOption("--wait", range: 0...3600)
        let json = arguments.flag("--json")
        let words = try arguments.positionals(max: 2)
        guard words.count == 2, let action = Action(rawValue: words[1]) else {
            throw UsageError("say what to do with the stream: create, show, update or verify", usage: syntax[0].usage)
        }
        if !events.isEmpty || endpointURL != nil, action != .create, action != .update {
            throw UsageError("--event and --endpoint-url apply to create and update only", usage: syntax[0].usage)
        }
        if wait != nil, action != .verify { throw UsageError("--wait applies to verify only", usage: syntax[0].usage) }
        if streamID != nil, action == .create { throw UsageError("--stream-id does not apply to create") }
        if let endpointURL, !ServiceConfiguration.isPushEndpointURL(endpointURL) {
            throw UsageError("--endpoint-url \(endpointURL) is not an https:// URL (http:// only on loopback)")
        }
        for event in events where !event.contains(":") {
            throw UsageError("--event \(event) is not an event-type URI (e.g. \(SecurityEventType.accountPurged.uri))")
        }

        let configuration = try ServiceConfiguration.load(file: configFile, environment: io.environment)
        guard let app = configuration.apps.first(where: { $0.id == appID }) else {
            throw UsageError(
                "no app \(appID) in \(configFile); the apps are \(configuration.apps.map(\.id).joined(separator: ", "))"
            )
        }
        guard let provider = app.signals.first(where: { $0.id == providerID }) else {
            let known = app.signals.map(\.id)
            throw UsageError(
                "app \(appID) has no signals provider \(providerID)"
                    + (known.isEmpty
                        ? "; add one to apps[].signals" : "; its providers are \(known.joined(separator: ", "))"))
        }
        do {
            let manager = try SignalStreamManager(app: appID, provider: provider, environment: io.environment)
            switch action {
            case .create, .update:
                let document =
                    action == .create
                    ? try await manager.create(events: events, endpointURL: endpointURL)
                    : try await manager.update(streamID: streamID, events: events, endpointURL: endpointURL)
                if json {
                    io.print(document.serialized(sortedKeys: true, pretty: true))
                } else {
                    io.print("stream \(action == .create ? "created" : "updated") at \(appID)/\(providerID)")
                    io.print(StreamText.render(document))
                }
                return ExitStatus.success
            case .show:
                let metadata = try await manager.discover()
                let document = try await manager.show(streamID: streamID)
                let store = try await ServiceContext.openStore(configuration.storage)
                let latest: (verification: SignalStreamEvents.Received?, streamUpdated: SignalStreamEvents.Received?)
                do {
                    latest = try await SignalStreamEvents.latest(app: appID, provider: providerID, in: store)
                } catch {
                    await store.close()
                    throw error
                }
                await store.close()
                let received: JSONValue = [
                    "verification": latest.verification.map {
                        ["state": .string($0.value), "received_at": .string($0.receivedAt.iso8601)]
                    } ?? .null,
                    "stream_updated": latest.streamUpdated.map {
                        ["status": .string($0.value), "received_at": .string($0.receivedAt.iso8601)]
                    } ?? .null,
                ]
                if json {
                    let whole: JSONValue = ["discovery": metadata.json, "stream": document, "received": received]
                    io.print(whole.serialized(sortedKeys: true, pretty: true))
                } else {
                    io.print(
                        "transmitter \(metadata.issuer) (delivery \(metadata.deliveryMethods.joined(separator: ", ")))")
                    io.print(StreamText.render(document))
                    io.print(
                        "last verification received: "
                            + (latest.verification.map { "\($0.receivedAt.iso8601) (state \($0.value))" } ?? "none"))
                    io.print(
                        "last stream-updated received: "
                            + (latest.streamUpdated.map { "\($0.receivedAt.iso8601) (status \($0.value))" } ?? "none"))
                }
                return ExitStatus.success
            case .verify:
                let state = SignalStreamManager.makeState()
                let requestedAt = SystemClock().now()
                let id = try await manager.requestVerification(streamID: streamID, state: state)
                let seconds = wait ?? 30
                var receivedAt: Instant?
                if seconds > 0 {
                    let store = try await ServiceContext.openStore(configuration.storage)
                    let deadline = ContinuousClock.now + .seconds(seconds)
                    do {
                        while receivedAt == nil, ContinuousClock.now < deadline {
                            receivedAt = try await SignalStreamEvents.verification(
                                app: appID, provider: providerID, state: state, in: store)
                            if receivedAt == nil { try await Task.sleep(for: .milliseconds(200)) }
                        }
                    } catch {
                        await store.close()
                        throw error
                    }
                    await store.close()
                }
                if json {
                    let document: JSONValue = [
                        "stream_id": id.map(JSONValue.string) ?? .null, "state": .string(state),
                        "requested_at": .string(requestedAt.iso8601),
                        "received_at": receivedAt.map { .string($0.iso8601) } ?? .null,
                    ]
                    io.print(document.serialized(sortedKeys: true, pretty: true))
                } else {
                    io.print("verification requested\(id.map { " on stream \($0)" } ?? "") with state \(state)")
                }
                if let receivedAt {
                    if !json { io.print("verification received at \(receivedAt.iso8601)") }
                    return ExitStatus.success
                }
                if seconds == 0 { return ExitStatus.success }
                io.printError(
                    "lifecycle signals stream verify: the verification was not received within \(seconds) s; check that "
                        + "serve runs and that the transmitter reaches \(provider.stream.endpointURL ?? provider.path)")
                return ExitStatus.negative
            }
        } catch let error as StreamManagementError {
            // The transmitter refused or could not be reached: one line, and with --json one document.
            if json {
                let document: JSONValue = [
                    "error": ["code": "stream_management_failed", "message": .string(error.description)]
                ]
                io.print(document.serialized(sortedKeys: true, pretty: true))
            }
            io.printError("lifecycle signals stream \(action.rawValue): \(error.description.escapingControlCharacters)")
            return ExitStatus.failure
        }
    }
}

/// A stream configuration (SSF 1.0 §8.1.1) as `stream create|show|update` print it.
enum StreamText {
    static func render(_ document: JSONValue) -> String {
        var lines: [String] = []
        if let id = document["stream_id"]?.stringValue { lines.append("  stream_id: \(id)") }
        if let delivery = document["delivery"] {
            let method = delivery["method"]?.stringValue ?? delivery["delivery_method"]?.stringValue ?? "?"
            let url = delivery["endpoint_url"]?.stringValue ?? delivery["url"]?.stringValue ?? "?"
            lines.append("  delivery: \(method) \(url)")
        }
        for name in ["events_requested", "events_delivered"] {
            if let events = document[name]?.arrayValue {
                lines.append("  \(name): " + events.compactMap(\.stringValue).joined(separator: " "))
            }
        }
        if let interval = document["min_verification_interval"]?.integerValue {
            lines.append("  min_verification_interval: \(interval) s")
        }
        // The values are the transmitter's: escaped, so none can forge a line of the output.
        return lines.map(\.escapingControlCharacters).joined(separator: "\n")
    }
}
