import AppleNotifications
import Foundation
import HTTP1
import HTTPServer
import LifecycleCore
import LifecycleDevTools
import LifecycleEngine

/// `lifecycle simulate`: play Apple locally. Signs a notification with the development key and POSTs it,
/// so the endpoint can be seen working without an Apple account (Apple offers no test trigger).
struct SimulateCommand: LifecycleCommand {
    static let name = "simulate"
    static let summary = "sign a notification with the local dev key and POST it to the endpoint"
    static let syntax = [
        CommandSyntax(
            "simulate",
            options: [
                .value("--type", "TYPE", required: true), .value("--sub", "SUB", required: true), .value("--app", "ID"),
                .value("--event-time", "TIME"), .value("--email", "ADDRESS"), .value("--url", "URL"),
                .value("--key-directory", "DIR"), .flag("--print"), .config,
            ])
    ]
    static let details = """
        TYPE is email-disabled, email-enabled, consent-revoked, account-delete, account-deleted, or any
        other string (sent as an unknown type). The token carries Apple's real-traffic shape: events as a
        JSON string, event_time in milliseconds, exp = iat + 24 h.

        options:
          --type TYPE            event type (required)
          --sub SUB              Apple user identifier to put in the event (required)
          --app ID               configured app whose first client ID becomes aud (default: the first app)
          --event-time TIME      RFC 3339 or Unix seconds/ms (default: now)
          --email ADDRESS        add email and is_private_email (relay addresses end in privaterelay.appleid.com)
          --url URL              where to POST (default: http://HOST:PORT/PATH of the config's public listener)
          --key-directory DIR    where apple-dev-key.pem and apple-dev-jwks.json are (default: the directory of
                                 the config's apple.jwks file, as written by `lifecycle dev-setup`)
          --print                print the request body instead of sending it
          --config FILE          configuration (default: $LIFECYCLE_CONFIG, else lifecycle.json)

        The endpoint accepts the token only if its config trusts the dev JWKS (apple.jwks), as the config made
        by `lifecycle dev-setup` does. exit status: 0 answered 200, 1 answered otherwise, 2 could not send
        """

    static func run(_ arguments: inout CommandArguments, io: CommandIO) async throws -> Int32 {
        let configFile = try configurationFile(&arguments, io: io)
        guard let type = try arguments.option("--type") else { throw UsageError("--type TYPE is required") }
        guard let subject = try arguments.option("--sub") else { throw UsageError("--sub SUB is required") }
        let appID = try arguments.option("--app")
        let eventTimeText = try arguments.option("--event-time")
        let email = try arguments.option("--email")
        let urlText = try arguments.option("--url")
        let keyDirectoryOption = try arguments.option("--key-directory")
        let printOnly = arguments.flag("--print")
        try arguments.finish()

        let configuration = try ServiceConfiguration.load(file: configFile, environment: io.environment)
        guard let app = appID.map({ id in configuration.apps.first { $0.id == id } }) ?? configuration.apps.first else {
            throw UsageError("no app \(appID ?? "") in \(configFile)")
        }
        let keyDirectory =
            keyDirectoryOption ?? URL(fileURLWithPath: configuration.apple.jwks).deletingLastPathComponent().path
        let pair = try DevKeyPair.load(from: keyDirectory)
        let now = try io.clock().now()
        var eventTime = now
        if let eventTimeText {
            guard let parsed = ISO8601Format.parse(eventTimeText) else {
                throw UsageError("--event-time \(eventTimeText) is not \(ISO8601Format.expectedForm)")
            }
            eventTime = parsed
        }
        let event = AppleEvent(
            type: AppleEventType(wireValue: type), subject: subject, eventTime: eventTime,
            isPrivateEmail: email.map { $0.hasSuffix("privaterelay.appleid.com") }, email: email)
        var claims = NotificationSigner.claims(
            event: event, audience: app.clientIDs[0], issuedAt: now, issuer: configuration.apple.issuer,
            jti: NotificationSigner.makeJTI(), lifetimeSeconds: NotificationSigner.defaultLifetimeSeconds)
        // Keep the type exactly as given (e.g. "account-delete"), as Apple's own spelling varies.
        var eventClaim = NotificationSigner.eventClaim(event)
        eventClaim["type"] = .string(type)
        claims["events"] = .string(JSONValue.object(eventClaim).encodedString)
        let jws = try pair.signer.sign(claims: claims)
        let body = NotificationBody.encode(jws: jws)
        if printOnly {
            io.print(String(decoding: body, as: UTF8.self))
            return ExitStatus.success
        }
        let target = try Target(
            urlText: urlText, host: configuration.publicListener.host, port: configuration.publicListener.port,
            path: configuration.publicListener.notificationPath)
        let client = HTTPClient(host: target.host, port: target.port, timeout: .seconds(10))
        let response: HTTPClientResponse
        do {
            response = try await client.post(target.path, headers: ["Content-Type": "application/json"], body: body)
        } catch {
            io.printError("lifecycle simulate: cannot reach \(target.description): \(error)")
            return ExitStatus.failure
        }
        io.print(
            "\(response.status) \(String(decoding: response.body, as: UTF8.self))".trimmingCharacters(in: .newlines))
        return response.status == 200 ? ExitStatus.success : ExitStatus.negative
    }

    /// A plain-HTTP destination: `--url http://host:port/path`, else the configured public listener.
    struct Target: CustomStringConvertible {
        var host: String
        var port: Int
        var path: String

        init(urlText: String?, host: String, port: Int, path: String) throws {
            guard let urlText else {
                self.host = host == "0.0.0.0" ? "127.0.0.1" : host
                self.port = port
                self.path = path
                return
            }
            guard let url = URL(string: urlText), url.scheme == "http", let urlHost = url.host else {
                throw UsageError("--url \(urlText) must be http://HOST[:PORT]/PATH (simulate speaks plain HTTP)")
            }
            self.host = urlHost == "localhost" ? "127.0.0.1" : urlHost
            self.port = url.port ?? 80
            self.path = url.path.isEmpty ? "/" : url.path
        }

        var description: String { "http://\(host):\(port)\(path)" }
    }
}
