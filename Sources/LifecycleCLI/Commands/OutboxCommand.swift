import Foundation
import LifecycleCore
import LifecycleEngine
import LifecycleServer
import LifecycleStore

/// `lifecycle outbox list|retry`: the outbox routes of the admin API from the command line, on the store
/// (``OutboxOperations``) or through a running service with `--url`.
struct OutboxCommand: LifecycleCommand {
    static let name = "outbox"
    static let summary = "list outbox messages, or send a dead one round again"
    static let syntax = [
        CommandSyntax(
            "outbox", action: "list",
            options: [
                .value("--status", "pending|delivered|dead"), .value("--limit", "N"), .value("--after", "ID"), .json,
                .config, .adminURL, .tokenFile, .logLevel,
            ]),
        CommandSyntax(
            "outbox", action: "retry", positionals: "ID", count: 1...1,
            options: [.json, .config, .adminURL, .tokenFile, .logLevel]),
    ]
    static let details = """
        list    messages in id order with attempts, last error and status code (and the frozen payload
                with --json); page on with --after the last id shown
        retry   a dead message goes back to pending, due now, with a fresh retry schedule

        options:
          --config FILE     configuration (default: $LIFECYCLE_CONFIG, else lifecycle.json); without --url
                            the command works on its store
          --url URL         use a running service's admin listener instead, e.g. http://127.0.0.1:8081
          --token-file FILE admin bearer token for --url (default: $LIFECYCLE_ADMIN_TOKEN, else the
                            configuration's admin.tokenFile)

        The --json output contains subs: it is for the operator, not for logs.
        exit status: 0 done, 1 refused (unknown message, not dead), 2 could not run
        """

    static func run(_ arguments: inout CommandArguments, io: CommandIO) async throws -> Int32 {
        let configFile = try configurationFile(&arguments, io: io)
        let statusText = try arguments.option("--status")
        let limit = try arguments.integerOption("--limit", range: 1...OutboxOperations.Limits().maximumPageSize)
        let afterText = try arguments.option("--after")
        let json = arguments.flag("--json")
        let url = try arguments.option("--url")
        let tokenFile = try arguments.option("--token-file")
        let words = try arguments.positionals(max: 2)
        var status: OutboxStatus? = nil
        if let statusText {
            guard let parsed = OutboxStatus(rawValue: statusText) else {
                throw UsageError("--status must be pending, delivered or dead")
            }
            status = parsed
        }
        let after = try afterText.map { text throws(UsageError) in
            guard let id = OutboxQuery.identifier(text) else { throw UsageError("--after must be a message id") }
            return id
        }
        if tokenFile != nil && url == nil { throw UsageError("--token-file goes with --url") }

        enum Action {
            case list
            case retry(Int64)
        }
        let action: Action
        switch words.first {
        case "list":
            guard words.count == 1 else { throw UsageError("list takes no argument") }
            action = .list
        case "retry":
            guard words.count == 2, let id = OutboxQuery.identifier(words[1]) else {
                throw UsageError("retry needs the message id")
            }
            guard status == nil, limit == nil, after == nil else {
                throw UsageError("--status, --limit and --after apply to list only")
            }
            action = .retry(id)
        default:
            throw UsageError("say what to do: list or retry ID")
        }

        let result: Result<JSONValue, AdminError>
        if let url {
            let client = try AdminAPIClient(
                url: url, token: try AdminAPIClient.token(file: tokenFile, configFile: configFile, io: io))
            switch action {
            case .list: result = try await client.outboxList(status: status, limit: limit, after: after)
            case .retry(let id): result = try await client.outboxRetry(id: id)
            }
        } else {
            result = try await LocalAdminOperation.run(configFile: configFile, io: io) { context in
                let operations = OutboxOperations(context: context)
                switch action {
                case .list: return try await operations.list(status: status, limit: limit, after: after)
                case .retry(let id): return try await operations.retry(id: id)
                }
            }
        }

        switch result {
        case .success(let document):
            if json {
                io.print(document.serialized(pretty: true))
            } else {
                let messages = document["messages"]?.arrayValue ?? [document]
                for message in messages { io.print(line(message)) }
                if let next = document["next"]?.integerValue { io.print("more: --after \(next)") }
            }
            return ExitStatus.success
        case .failure(let error):
            if json { io.print(error.document.serialized(pretty: true)) }
            io.printError("lifecycle outbox: \(error.code): \(error.detail)")
            return [404, 409].contains(error.status) ? ExitStatus.negative : ExitStatus.failure
        }
    }

    /// One message as a line, without the payload or the sub.
    static func line(_ message: JSONValue) -> String {
        var text = "#\(message["id"]?.integerValue ?? 0) \(message["app"]?.stringValue ?? "-")"
        text += " \(message["kind"]?.stringValue ?? "-") \(message["status"]?.stringValue ?? "-")"
        text += ", \(message["attempts"]?.integerValue ?? 0) attempts"
        if let code = message["lastStatusCode"]?.integerValue { text += ", last status \(code)" }
        if let error = message["lastError"]?.stringValue { text += ", last error: \(error)" }
        return text
    }
}
