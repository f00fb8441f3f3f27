import AppleAccountAPI
import AppleNotifications
import Foundation
import LifecycleCore
import LifecycleEngine

/// `lifecycle inspect`: verify one notification offline and print what it says.
struct InspectCommand: LifecycleCommand {
    static let name = "inspect"
    static let summary = "verify one notification offline and print its header, claims and event as JSON"
    static let syntax = [
        CommandSyntax(
            "inspect", positionals: "[FILE|-]", count: 0...1,
            options: [
                .value("--jwks", "FILE|URL"), .value("--audience", "ID", repeatable: true), .value("--at", "TIME"),
                .flag("--allow-expired"), .config,
            ])
    ]
    static let details = """
        Verifies one notification exactly as the live endpoint does (RS256 only, key by kid, iss, aud, exp,
        iat) and prints JSON:
          {"valid":true,"header":{…},"claims":{…},"event":{"type":…,"sub":…,"event_time":"…Z",…}}
          {"valid":false,"error":{"code":"bad_signature","description":"…"},"header":…,"claims":…}
        The input is a request body ({"payload":"<JWS>"} or payload=<JWS>) or a bare compact JWS, read from
        FILE or standard input ("-" or no argument).

        options:
          --jwks FILE|URL   key set to verify against (default: apple.jwks from the config, else Apple's
                            https://appleid.apple.com/auth/keys); an https URL is fetched over TLS 1.2+
                            with the server verified against OpenSSL's default trust store (SSL_CERT_FILE
                            points it at a private CA)
          --audience ID     accepted aud (client ID); repeatable (default: every clientIds in the config)
          --at TIME         verify as of this instant: RFC 3339 (2025-07-15T09:36:30Z) or Unix seconds/ms;
                            for evidence and replays of archived tokens (default: now)
          --allow-expired   report an expired but otherwise valid token as valid, with "acceptedExpired"
          --config FILE     configuration to take defaults from (default: $LIFECYCLE_CONFIG, lifecycle.json)

        The output contains the sub (and any e-mail) of the token: it is for the operator, not for logs.
        exit status: 0 valid, 1 invalid, 2 could not run (unreadable input, bad options)
        """

    static func run(_ arguments: inout CommandArguments, io: CommandIO) async throws -> Int32 {
        let configFile = try configurationFile(&arguments, io: io)
        var jwks = try arguments.option("--jwks")
        var audiences = try arguments.options("--audience")
        let atText = try arguments.option("--at")
        let allowExpired = arguments.flag("--allow-expired")
        let input = try arguments.positionals(max: 1).first ?? "-"

        if jwks == nil || audiences.isEmpty, FileManager.default.fileExists(atPath: configFile) {
            let configuration = try ServiceConfiguration.load(file: configFile, environment: io.environment)
            jwks = jwks ?? configuration.apple.jwks
            if audiences.isEmpty { audiences = configuration.allClientIDs.sorted() }
        }
        guard !audiences.isEmpty else {
            throw UsageError("no audience to accept: pass --audience ID (the client ID Apple puts in aud) or --config")
        }
        let sourceText = jwks ?? AppleIdentity.keysURL
        guard let source = JWKSSource(sourceText) else {
            throw UsageError("--jwks \(sourceText) is neither a file nor an https:// URL")
        }
        let clock = try io.clock()
        var at = clock.now()
        if let atText {
            guard let parsed = ISO8601Format.parse(atText) else {
                throw UsageError("--at \(atText) is not \(ISO8601Format.expectedForm)")
            }
            at = parsed
        }
        let bytes = try readInput(input, io: io)

        let fetcher: any JWKSFetcher
        switch source.makeFetcher() {
        case .success(let made): fetcher = made
        case .failure(let error):
            throw UsageError("--jwks: \(error.description)")
        }
        let keys = JWKSCache(fetcher: fetcher, now: { clock.now() })
        if let error = await keys.refresh() {
            io.printError("lifecycle inspect: cannot load the key set from \(source): \(error)")
            return ExitStatus.failure
        }
        let verifier = NotificationVerifier(
            keys: keys, configuration: NotificationVerifier.Configuration(audiences: Set(audiences)))
        let report: VerificationReport
        switch NotificationBody.extractJWS(fromBodyOrToken: bytes) {
        case .success(let jws): report = await verifier.inspect(jws: jws, at: at, allowExpired: allowExpired)
        case .failure(let error):
            report = VerificationReport(header: nil, claims: nil, signatureVerified: false, result: .failure(error))
        }
        io.print(render(report).serialized(pretty: true))
        return report.isValid ? ExitStatus.success : ExitStatus.negative
    }

    static func readInput(_ input: String, io: CommandIO) throws -> [UInt8] {
        if input == "-" { return Array(io.readStandardInput()) }
        guard let data = FileManager.default.contents(atPath: input) else {
            throw UsageError("cannot read \(input)")
        }
        return Array(data)
    }

    static func render(_ report: VerificationReport) -> JSONValue {
        var output: JSONObject = ["valid": .bool(report.isValid)]
        switch report.result {
        case .success(let notification):
            if notification.acceptedExpired { output["acceptedExpired"] = true }
        case .failure(let error):
            output["error"] = ["code": .string(error.code.rawValue), "description": .string(error.description)]
        }
        if let header = report.header { output["header"] = header }
        if let claims = report.claims { output["claims"] = claims }
        if let notification = report.notification { output["event"] = eventJSON(notification) }
        return .object(output)
    }

    static func eventJSON(_ notification: VerifiedNotification) -> JSONValue {
        let event = notification.event
        var object: JSONObject = [
            "type": .string(event.type.canonicalName), "known": .bool(event.type.isKnown),
            "sub": .string(event.subject), "event_time": .string(event.eventTime.iso8601),
            "aud": .string(notification.audience), "jti": .string(notification.jti),
            "iat": .string(notification.issuedAt.iso8601),
        ]
        if let expires = notification.expiresAt { object["exp"] = .string(expires.iso8601) }
        if let isPrivate = event.isPrivateEmail { object["is_private_email"] = .bool(isPrivate) }
        if let email = event.email { object["email"] = .string(email) }
        return .object(object)
    }
}
