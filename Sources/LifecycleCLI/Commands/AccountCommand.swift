import Foundation
import HTTP1
import LifecycleCore
import LifecycleEngine
import LifecycleServer

/// `lifecycle account show|link|delete`: the account routes of the admin API from the command line, either
/// directly on the store (the same ``AccountOperations`` the routes call) or through a running service's
/// admin listener with `--url`; `account export`: the subject's personal values opened
/// (``PersonalDataExport``), on the store only.
struct AccountCommand: LifecycleCommand {
    static let name = "account"
    static let summary = "show an account, report a sign-in (link) or an in-app deletion (delete), export its data"
    static let syntax =
        ["show", "link", "delete"].map { action in
            CommandSyntax(
                "account", action: action,
                options: [.value("--app", "ID", required: true), .value("--sub", "SUB", required: true)]
                    + (action == "show" ? [] : [.value("--event-time", "TIME")])
                    + [.json, .config, .adminURL, .tokenFile, .logLevel])
        } + [
            CommandSyntax(
                "account", action: "export",
                options: [
                    .value("--app", "ID", required: true), .value("--sub", "SUB", required: true), .json, .config,
                    .logLevel,
                ])
        ]
    static let details = """
        show     state, e-mail forwarding, the whole history (applied, stale, duplicate, ignored and why),
                 the account's pending and dead outbox messages, and its erasure jobs with each step's
                 status, attempts and evidence (rows affected, verification count, response, last error)
        link     the app reports a Sign in with Apple sign-in: creates an unknown account, re-links a
                 consent-revoked one; refused for a deleted account (deletion is terminal)
        delete   the user deleted the account inside the app: the account becomes deleted, sessions end,
                 erasure is scheduled, and a held Apple token is revoked at Apple (then proved revoked)
        export   every personal value the service keeps about the sub (relay e-mails, raw JWS, Apple
                 refresh token: that one only shown as opening, it is a credential), opened with its data
                 key, and the state of those keys: for a data-subject access
                 request. After erasure the keys are destroyed and nothing opens; a store (or backup) whose
                 master key was rotated away opens nothing either. Works on the store only (no --url)

        options:
          --app ID          app id from the configuration (apps[].id)
          --sub SUB         the Apple sub (user identifier)
          --event-time TIME when the sign-in or deletion happened, RFC 3339 (default: now)
          --json            print the admin API's JSON document instead of text
          --config FILE     configuration (default: $LIFECYCLE_CONFIG, else lifecycle.json); without --url
                            the command works on its store
          --url URL         use a running service's admin listener instead, e.g. http://127.0.0.1:8081
          --token-file FILE admin bearer token for --url (default: $LIFECYCLE_ADMIN_TOKEN, else the
                            configuration's admin.tokenFile)

        The output contains the sub: it is for the operator, not for logs.
        exit status: 0 done, 1 refused (unknown app or account, account deleted), 2 could not run
        """

    enum Action: String {
        case show, link, delete
    }

    static func run(_ arguments: inout CommandArguments, io: CommandIO) async throws -> Int32 {
        let configFile = try configurationFile(&arguments, io: io)
        let app = try arguments.option("--app")
        let subject = try arguments.option("--sub")
        let eventTimeText = try arguments.option("--event-time")
        let json = arguments.flag("--json")
        let url = try arguments.option("--url")
        let tokenFile = try arguments.option("--token-file")
        let words = try arguments.positionals(max: 1)
        guard let app, !app.isEmpty else { throw UsageError("--app ID is required") }
        guard let subject, !subject.isEmpty else { throw UsageError("--sub SUB is required") }
        if words.first == "export" {
            // The syntax of export takes no --url, --token-file or --event-time: it works on the store.
            let configuration = try ServiceConfiguration.load(file: configFile, environment: io.environment)
            let context = try await ServiceContext.open(configuration: configuration, io: io)
            let document: JSONValue
            do {
                document = try await PersonalDataExport(store: context.store, vault: context.vault)
                    .document(app: app, subject: subject)
            } catch {
                await context.close()
                throw error
            }
            await context.close()
            io.print(json ? document.serialized(pretty: true) : PersonalDataExport.text(document))
            return ExitStatus.success
        }
        guard let word = words.first, let action = Action(rawValue: word) else {
            throw UsageError("say what to do: show, link, delete or export")
        }
        var eventTime: Instant? = nil
        if let eventTimeText {
            guard action != .show else { throw UsageError("--event-time applies to link and delete only") }
            guard let parsed = ISO8601Format.parse(eventTimeText) else {
                throw UsageError("--event-time \(eventTimeText) is not \(ISO8601Format.expectedForm)")
            }
            eventTime = parsed
        }
        if tokenFile != nil && url == nil { throw UsageError("--token-file goes with --url") }

        let result: Result<JSONValue, AdminError>
        if let url {
            let client = try AdminAPIClient(
                url: url, token: try AdminAPIClient.token(file: tokenFile, configFile: configFile, io: io))
            result = try await client.account(action, app: app, subject: subject, eventTime: eventTime)
        } else {
            result = try await LocalAdminOperation.run(configFile: configFile, io: io) { context in
                let operations = AccountOperations(context: context)
                switch action {
                case .show: return try await operations.show(app: app, subject: subject)
                case .link: return try await operations.link(app: app, subject: subject, eventTime: eventTime)
                case .delete: return try await operations.delete(app: app, subject: subject, eventTime: eventTime)
                }
            }
        }

        switch result {
        case .success(let document):
            io.print(json ? document.serialized(pretty: true) : AccountText.render(document))
            return ExitStatus.success
        case .failure(let error):
            if json { io.print(error.document.serialized(pretty: true)) }
            io.printError("lifecycle account \(action.rawValue): \(error.code): \(error.detail)")
            return [404, 409].contains(error.status) ? ExitStatus.negative : ExitStatus.failure
        }
    }
}
