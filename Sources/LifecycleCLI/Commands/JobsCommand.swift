import Foundation
import LifecycleCore
import LifecycleEngine
import LifecycleServer
import LifecycleStore

/// `lifecycle jobs list|run|retry|complete`: the erasure jobs from the command line, for operators and cron.
struct JobsCommand: LifecycleCommand {
    static let name = "jobs"
    static let summary = "list, run, retry and complete scheduled erasure jobs"
    static let syntax = [
        CommandSyntax(
            "jobs", action: "list",
            options: [
                .value("--status", "STATUS"), .value("--app", "ID"), .value("--sub", "SUB"), .value("--limit", "N"),
                .json, .config, .adminURL, .tokenFile, .logLevel,
            ]),
        CommandSyntax("jobs", action: "run", options: [.flag("--once"), .config, .logLevel]),
        CommandSyntax(
            "jobs", action: "retry", positionals: "ID", count: 1...1,
            options: [.config, .adminURL, .tokenFile, .logLevel]),
        CommandSyntax(
            "jobs", action: "complete", positionals: "ID TARGET", count: 2...2,
            options: [
                .value("--outcome", "erased|unverifiable|failed"), .config, .adminURL,
                .tokenFile, .logLevel,
            ]),
    ]
    static let details = """
        list      jobs oldest first with their steps (status, attempts, evidence, last error code); accounts
                  appear as keyed pseudonyms. STATUS: scheduled, running, completed, failed, cancelled,
                  unverified. --app ID lists one app's jobs, --sub SUB one subject's (in every app, or in
                  --app ID), for a data-subject request. --json prints what GET /v1/jobs answers: {"jobs": [...], "next": id|null}.
        run       executes due steps (leases keep concurrent runners apart, so cron and serve may overlap);
                  --once stops when nothing is due, else it polls every erasure.pollMilliseconds.
        retry     sends a job's failed and unverified steps back to pending with the full retry schedule.
        complete  records the callback of a target that answered 202 (what POST
                  /v1/jobs/{id}/steps/{target}/complete does), default outcome erased.

        --url URL           list, retry and complete through a running service's admin listener instead of
                            the store (GET /v1/jobs and its routes), e.g. http://127.0.0.1:8081; run works
                            on the store only
        --token-file FILE   admin bearer token for --url (default: $LIFECYCLE_ADMIN_TOKEN, else the
                            configuration's admin.tokenFile)

        exit status: 0 done, 1 nothing to retry/complete, 2 could not run
        """

    static func run(_ arguments: inout CommandArguments, io: CommandIO) async throws -> Int32 {
        let configFile = try configurationFile(&arguments, io: io)
        let statusText = try arguments.option("--status")
        let app = try arguments.option("--app")
        let subject = try arguments.option("--sub")
        let limit = try arguments.integerOption("--limit", range: 1...100_000) ?? 1000
        let json = arguments.flag("--json")
        let once = arguments.flag("--once")
        let outcomeText = try arguments.option("--outcome")
        let url = try arguments.option("--url")
        let tokenFile = try arguments.option("--token-file")
        let words = try arguments.positionals(max: 3)
        let action = words.first ?? ""
        if tokenFile != nil && url == nil { throw UsageError("--token-file goes with --url") }
        var status: ErasureJobStatus?
        if let statusText {
            guard let parsed = ErasureJobStatus(rawValue: statusText) else {
                throw UsageError(
                    "--status \(statusText) is unknown; use "
                        + ErasureJobStatus.allCases.map(\.rawValue).joined(separator: ", "))
            }
            status = parsed
        }
        func jobID() throws(UsageError) -> Int64 {
            guard words.count > 1, let id = Int64(words[1]), id > 0 else {
                throw UsageError("\(action) needs a job ID")
            }
            return id
        }
        if let url {
            let client = try AdminAPIClient(
                url: url, token: try AdminAPIClient.token(file: tokenFile, configFile: configFile, io: io))
            return try await remote(
                action, words: words, jobID: jobID, filter: (status, app, subject), limit: limit, json: json,
                outcomeText: outcomeText, client: client, io: io)
        }
        let configuration = try ServiceConfiguration.load(file: configFile, environment: io.environment)
        let context = try await ServiceContext.open(configuration: configuration, io: io)
        let runner = ErasureJobRunner(
            configuration: configuration, store: context.store, log: context.log, metrics: context.metrics,
            clock: context.clock, owner: ProcessIdentity.current.description,
            webhookSigners: context.webhookSigners)
        do {
            let exit = try await perform(
                action, words: words, jobID: jobID, filter: (status, app, subject), limit: limit, json: json,
                once: once, outcomeText: outcomeText, runner: runner, context: context, io: io)
            await context.close()
            return exit
        } catch {
            await context.close()
            throw error
        }
    }

    private static func perform(
        _ action: String, words: [String], jobID: () throws(UsageError) -> Int64,
        filter: (status: ErasureJobStatus?, app: String?, subject: String?), limit: Int, json: Bool, once: Bool,
        outcomeText: String?, runner: ErasureJobRunner, context: ServiceContext, io: CommandIO
    ) async throws -> Int32 {
        switch action {
        case "list":
            // The admin API's own listing, so `--json` prints exactly what GET /v1/jobs answers.
            let operations = JobOperations(context: context, runner: runner)
            let status = filter.status?.canonicalName
            do {
                if json {
                    let document = try await operations.list(
                        status: status, app: filter.app, subject: filter.subject, limit: limit, after: nil)
                    io.print(document.serialized(pretty: true))
                } else {
                    let jobs = try await operations.jobs(
                        status: status, app: filter.app, subject: filter.subject, limit: limit, after: nil)
                    for job in jobs {
                        io.print(
                            describe(
                                job, pseudonym: context.pseudonymizer.pseudonym(app: job.app, subject: job.subject)))
                    }
                }
            } catch let error as AdminError {
                io.printError("lifecycle jobs list: \(error.code): \(error.detail)")
                return error.status == 404 ? ExitStatus.negative : ExitStatus.failure
            }
            return ExitStatus.success
        case "run":
            if once {
                let summary = try await runner.runOnce()
                let parts = ErasureStepStatus.allCases.compactMap { status in
                    summary.attempts[status].map { "\(status.canonicalName)=\($0)" }
                }
                io.print(
                    "ran \(summary.total) step attempts" + (parts.isEmpty ? "" : ": " + parts.joined(separator: " ")))
            } else {
                let signals = SignalWaiter.listen()
                let loop = Task { await runner.run() }
                await signals.waitForTermination(onReload: {})
                loop.cancel()
                await loop.value
            }
            return ExitStatus.success
        case "retry":
            let id = try jobID()
            let reset = try await runner.retry(jobID: id)
            io.print("job \(id): \(reset) steps sent back to pending")
            return reset > 0 ? ExitStatus.success : ExitStatus.negative
        case "complete":
            let id = try jobID()
            guard words.count == 3 else { throw UsageError("complete needs a job ID and a target") }
            var outcome = ErasureJobRunner.CallbackOutcome.erased
            if let outcomeText {
                guard let parsed = ErasureJobRunner.CallbackOutcome(rawValue: outcomeText) else {
                    throw UsageError("--outcome must be erased, unverifiable or failed")
                }
                outcome = parsed
            }
            switch try await runner.completeCallback(jobID: id, target: words[2], outcome: outcome) {
            case .recorded(let job):
                io.print("job \(id): step \(words[2]) recorded; job \(job.status.rawValue)")
                return ExitStatus.success
            case .notFound:
                io.printError("job \(id) has no step \(words[2])")
                return ExitStatus.negative
            case .notWaiting(let status):
                io.printError("job \(id) step \(words[2]) is \(status.canonicalName), not waiting for a callback")
                return ExitStatus.negative
            }
        default:
            throw UsageError("unknown action '\(action)'; use list, run, retry or complete")
        }
    }

    static func describe(_ stored: StoredErasureJob, pseudonym: String) -> String {
        describe(document: stored.document(pseudonym: pseudonym))
    }

    /// One job as a line, from the admin API's document of it: the same line on the store and with `--url`.
    static func describe(document job: JSONValue) -> String {
        func text(_ name: String) -> String { job[name]?.stringValue ?? "-" }
        let steps = (job["steps"]?.arrayValue ?? []).map { step in
            var text = "\(step["target"]?.stringValue ?? "-"):\(step["status"]?.stringValue ?? "-")"
            text += "/\(step["attempts"]?.integerValue ?? 0)"
            if let code = step["error_code"]?.stringValue { text += "(\(code))" }
            return text
        }
        var line =
            "\(job["id"]?.integerValue ?? 0) \(text("status")) app=\(text("app")) account=\(text("account")) "
            + "trigger=\(text("trigger")) origin=\(text("origin")) policy=\(text("policy")) "
            + "not-before=\(text("not_before")) deadline=\(text("deadline")) steps=\(steps.joined(separator: ","))"
        if let reason = job["cancel_reason"]?.stringValue { line += " cancelled=\"\(reason)\"" }
        return line
    }

    /// `list`, `retry` and `complete` through the admin API (`--url`).
    private static func remote(
        _ action: String, words: [String], jobID: () throws(UsageError) -> Int64,
        filter: (status: ErasureJobStatus?, app: String?, subject: String?), limit: Int, json: Bool,
        outcomeText: String?, client: AdminAPIClient, io: CommandIO
    ) async throws -> Int32 {
        let result: Result<JSONValue, AdminError>
        switch action {
        case "list":
            var query = ["limit=\(limit)"]
            if let status = filter.status { query.append("status=\(status.canonicalName)") }
            if let app = filter.app { query.append("app=\(PercentDecoding.encode(app))") }
            if let subject = filter.subject { query.append("sub=\(PercentDecoding.encode(subject))") }
            result = try await client.send("GET", "/v1/jobs?" + query.joined(separator: "&"), body: [])
        case "retry":
            result = try await client.send("POST", "/v1/jobs/\(try jobID())/retry", body: [])
        case "complete":
            let id = try jobID()
            guard words.count == 3 else { throw UsageError("complete needs a job ID and a target") }
            if let outcomeText, ErasureJobRunner.CallbackOutcome(rawValue: outcomeText) == nil {
                throw UsageError("--outcome must be erased, unverifiable or failed")
            }
            let body = JSONValue.object(["outcome": .string(outcomeText ?? "erased")]).serializedBytes()
            result = try await client.send(
                "POST", "/v1/jobs/\(id)/steps/\(PercentDecoding.encode(words[2]))/complete", body: body)
        case "run":
            throw UsageError("run works on the store: leave out --url")
        default:
            throw UsageError("unknown action '\(action)'; use list, run, retry or complete")
        }
        switch result {
        case .success(let document):
            if json {
                io.print(document.serialized(pretty: true))
            } else if action == "list" {
                for job in document["jobs"]?.arrayValue ?? [] { io.print(describe(document: job)) }
            } else {
                let what = action == "retry" ? "failed and unverified steps sent back to pending" : "step recorded"
                io.print("job \(document["id"]?.integerValue ?? 0): \(what); " + describe(document: document))
            }
            return ExitStatus.success
        case .failure(let error):
            io.printError("lifecycle jobs \(action): \(error.code): \(error.detail)")
            return [404, 409].contains(error.status) ? ExitStatus.negative : ExitStatus.failure
        }
    }
}
