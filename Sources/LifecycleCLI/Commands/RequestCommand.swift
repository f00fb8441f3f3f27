import Foundation
import LifecycleCore
import LifecycleEngine
import LifecycleServer

/// `lifecycle request extend|hold|release|refuse`: the request-decision routes of the admin API from the
/// command line, directly on the store (the same ``RequestDecisionOperations`` the routes call) or through a
/// running service's admin listener with `--url`.
struct RequestCommand: LifecycleCommand {
    static let name = "request"
    static let summary = "record an extension, a legal hold (and its release) or a refusal of a deletion request"
    static let actions: [(word: String, decision: RequestDecision, text: String)] = [
        ("extend", .extension, "--reason"), ("hold", .hold, "--grounds"), ("release", .release, "--reason"),
        ("refuse", .refusal, "--basis"),
    ]
    static let syntax = actions.map { action in
        CommandSyntax(
            "request", action: action.word,
            options: [
                .value("--app", "ID", required: true), .value("--sub", "SUB", required: true),
                .value(action.text, "TEXT", required: true),
            ]
                + (action.decision == .extension
                    ? [.value("--notice-at", "TIME", required: true), .value("--deadline", "TIME", required: true)]
                    : [])
                + [
                    .value("--event-time", "TIME"), .json, .config, .adminURL,
                    .tokenFile, .logLevel,
                ])
    }
    static let details = """
        A deletion request is the account's erasure of one event (its erasure jobs); the account's latest one
        unless --event-time names the event. Every decision is stored, shown in the request ledger (GET
        /v1/requests, report requests) and in the reports.

        extend   more time to answer, within the limit the policy's "extension" states (default policy,
                 GDPR Art. 12(3): up to two further months, the subject told within one month of the
                 request; us-ccpa, CCPA regulations §7021(b): 45 more days, the consumer told within the
                 first 45): --deadline is the new deadline, --notice-at when the subject was told, --reason
                 why. A deadline past the limit or a notice outside the window is refused, naming the option,
                 and so is an extension once a deadline it would move has passed (deadline_passed). One
                 extension per request
        hold     a legal hold on its --grounds: the erasure runner runs none of the request's steps while it
                 is in force (it survives restarts); the request then claims no on-time answer
        release  ends the hold (--reason why); the erasure runs at the runner's next poll
        refuse   refuses the request on its --basis (e.g. "Cal. Civ. Code §1798.105(d)(2): security
                 incident investigation"): its open erasure jobs are cancelled with that reason, the ledger's
                 denial carries it and the yearly totals count it as denied

        options:
          --app ID          app id from the configuration (apps[].id)
          --sub SUB         the Apple sub (user identifier)
          --event-time TIME the request's event time, RFC 3339 (default: the latest request)
          --reason, --grounds, --basis TEXT
                            the decision's text, at most 2,000 characters; never logged
          --notice-at TIME  extend: when the subject was told, RFC 3339
          --deadline TIME   extend: the new deadline, RFC 3339
          --json            print the admin API's JSON document instead of one line
          --config FILE     configuration (default: $LIFECYCLE_CONFIG, else lifecycle.json); without --url
                            the command works on its store
          --url URL         use a running service's admin listener instead, e.g. http://127.0.0.1:8081
          --token-file FILE admin bearer token for --url (default: $LIFECYCLE_ADMIN_TOKEN, else the
                            configuration's admin.tokenFile)

        exit status: 0 recorded, 1 refused (unknown app, account or request; closed, held or extended
        already; its deadline passed; outside the policy's limits), 2 could not run
        """

    static func run(_ arguments: inout CommandArguments, io: CommandIO) async throws -> Int32 {
        let configFile = try configurationFile(&arguments, io: io)
        let app = try arguments.option("--app")
        let subject = try arguments.option("--sub")
        let reason = try arguments.option("--reason")
        let grounds = try arguments.option("--grounds")
        let basis = try arguments.option("--basis")
        let noticeText = try arguments.option("--notice-at")
        let deadlineText = try arguments.option("--deadline")
        let eventTimeText = try arguments.option("--event-time")
        let json = arguments.flag("--json")
        let url = try arguments.option("--url")
        let tokenFile = try arguments.option("--token-file")
        let words = try arguments.positionals(max: 1)
        guard let word = words.first, let action = actions.first(where: { $0.word == word }) else {
            throw UsageError("say what to do: extend, hold, release or refuse")
        }
        guard let app, !app.isEmpty else { throw UsageError("--app ID is required") }
        guard let subject, !subject.isEmpty else { throw UsageError("--sub SUB is required") }
        guard let text = reason ?? grounds ?? basis else { throw UsageError("\(action.text) TEXT is required") }
        func instant(_ text: String?, _ option: String) throws -> Instant? {
            guard let text else { return nil }
            guard let parsed = ISO8601Format.parse(text) else {
                throw UsageError("\(option) \(text) is not \(ISO8601Format.expectedForm)")
            }
            return parsed
        }
        let body = RequestDecisionBody(
            text: text, eventTime: try instant(eventTimeText, "--event-time"),
            noticeAt: try instant(noticeText, "--notice-at"), deadline: try instant(deadlineText, "--deadline"))
        if tokenFile != nil && url == nil { throw UsageError("--token-file goes with --url") }

        let result: Result<JSONValue, AdminError>
        if let url {
            let client = try AdminAPIClient(
                url: url, token: try AdminAPIClient.token(file: tokenFile, configFile: configFile, io: io))
            result = try await client.requestDecision(action.decision, app: app, subject: subject, body: body)
        } else {
            result = try await LocalAdminOperation.run(configFile: configFile, io: io) { context in
                let checked = try RequestDecisionBody.parse(body.document(for: action.decision), for: action.decision)
                return try await RequestDecisionOperations(context: context).record(
                    action.decision, app: app, subject: subject, body: checked)
            }
        }
        switch result {
        case .success(let document):
            if json {
                io.print(document.serialized(pretty: true))
            } else {
                let deadline = document["newDeadline"]?.stringValue.map { ", deadline \($0)" } ?? ""
                io.print(
                    "\(action.decision.rawValue) recorded for the \(document["eventType"]?.stringValue ?? "") request "
                        + "of \(document["eventTime"]?.stringValue ?? "")\(deadline)")
            }
            return ExitStatus.success
        case .failure(let error):
            if json { io.print(error.document.serialized(pretty: true)) }
            io.printError("lifecycle request \(action.word): \(error.code): \(error.detail)")
            return [404, 409, 422].contains(error.status) ? ExitStatus.negative : ExitStatus.failure
        }
    }
}
