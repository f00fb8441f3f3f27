import Foundation
import LifecycleCore
import LifecycleEngine
import LifecycleReconcile
import LifecycleStore

/// `lifecycle reconcile`: compare the app's own records with what the service observed.
struct ReconcileCommand: LifecycleCommand {
    static let name = "reconcile"
    static let summary = "compare the app's records with what was observed; cron-friendly exit codes"
    static let syntax = [
        CommandSyntax(
            "reconcile",
            options: [
                .value("--app", "ID"), .value("--as-of", "TIME"), .value("--fail-on", "info|warning|critical"),
                .flag("--after-restore"), .json, .config, .logLevel,
            ])
    ]
    static let details = """
        For each app, streams the service's accounts and erasure jobs against the app's records (its "records"
        source: a SQL query against its SQLite or PostgreSQL database, or a JSONL/CSV export; a record with a
        "provider" of the app's signals carries that provider's own sub, matched to its account through the
        provider's recordSubject; absent or "apple": the sub as it is). An app without one is compared with
        nothing: it gets the findings of the service's own accounts (erasure-*, revocation-unverified,
        credentials-invalid) and of its own receiving (notification-gap, identifier-recycled), never
        retained-after-deletion, session-after-revocation, orphan-notification or
        unknown-to-service:
          critical  retained-after-deletion, erasure-overdue, erasure-failed, session-after-revocation
          warning   unverified-erasure, orphan-notification, notification-gap, revocation-unverified,
                    credentials-invalid (the daily Apple probe got invalid_grant: confirm on the device)
          info      unknown-to-service (the subject is registered as linked)
        notification-gap findings come from the service's own heartbeats (every app, with or without records):
        windows longer than reconcile.gapThresholdSeconds when no instance was receiving. Findings are stored
        (a second run updates them instead of duplicating them; ones not seen again are resolved) and listed
        by the admin API at GET /v1/findings. One run at a time across every process on the store; the lock
        records its holder as host:pid:start. A holder that ran on this host and no longer exists (killed,
        crashed; its pid gone or reused) is taken over at once; any other holder is named with its lease's end
        (reconcile.leaseSeconds, renewed while it makes progress), after which it is taken over.

        options:
          --app ID          only this app (default: every app)
          --as-of TIME      judge deadlines as of this instant, RFC 3339 or Unix time (default: now)
          --fail-on LEVEL   exit 1 when a finding at or above LEVEL exists (default: critical)
          --json            print the run as JSON (subjects as keyed pseudonyms, each with its provider)
          --after-restore   the app restored its own database from a backup: every retained-after-deletion
                            finding becomes a new erasure job at once (its deletion's rules under the app's
                            policy, due now, deadline counted from now), listed by lifecycle jobs list and
                            GET /v1/jobs; the run says how many (JSON: "afterRestore"); a rule whose job
                            is still scheduled or running gets no second one, so running it twice is safe

        exit status: 0 nothing at or above the threshold, 1 findings at or above it, 2 could not run
        (unreadable source, another run holds the lock, bad configuration)

        cron:   15 3 * * *  lifecycle reconcile --config /etc/lifecycle/lifecycle.json --fail-on critical
        """

    static func run(_ arguments: inout CommandArguments, io: CommandIO) async throws -> Int32 {
        let configFile = try configurationFile(&arguments, io: io)
        let app = try arguments.option("--app")
        let asOfText = try arguments.option("--as-of")
        let failOnText = try arguments.option("--fail-on") ?? "critical"
        let json = arguments.flag("--json")
        let afterRestore = arguments.flag("--after-restore")
        try arguments.finish()
        guard let failOn = FindingSeverity(rawValue: failOnText) else {
            throw UsageError("--fail-on must be info, warning or critical, got '\(failOnText)'")
        }
        var asOf = try io.clock().now()
        if let asOfText {
            guard let parsed = ISO8601Format.parse(asOfText) else {
                throw UsageError("--as-of \(asOfText) is not \(ISO8601Format.expectedForm)")
            }
            asOf = parsed
        }
        let configuration = try ServiceConfiguration.load(file: configFile, environment: io.environment)
        let context = try await ServiceContext.open(configuration: configuration, io: io)
        let reconciler = Reconciler(
            store: context.store, log: context.log, clock: context.clock, active: { context.current },
            owner: ProcessIdentity.current.description)
        let report: Reconciler.Report
        var scheduled: [Int64] = []
        do {
            report = try await reconciler.run(app: app, asOf: asOf)
            if afterRestore { scheduled = try await scheduleAgain(report, context: context) }
        } catch {
            await context.close()
            throw error
        }
        await context.close()
        if json {
            var document = render(report, pseudonymizer: context.pseudonymizer)
            if afterRestore, case .object(var object) = document {
                object["afterRestore"] = ["erasureJobs": .array(scheduled.map { .integer($0) })]
                document = .object(object)
            }
            io.print(document.serialized(pretty: true))
        } else {
            io.print(text(report, pseudonymizer: context.pseudonymizer))
            if afterRestore {
                io.print(
                    "after restore: \(scheduled.count) erasure jobs scheduled"
                        + (scheduled.isEmpty ? "" : " (\(scheduled.map(String.init).joined(separator: ", ")))"))
            }
        }
        let failing = report.findings.contains { $0.severity >= failOn }
        return failing ? ExitStatus.negative : ExitStatus.success
    }

    /// `--after-restore`: one new erasure job per `retained-after-deletion` finding, from the deletion that
    /// the account's tombstone records (``ErasureScheduler/scheduleAgain(app:subject:trigger:at:in:)``).
    static func scheduleAgain(_ report: Reconciler.Report, context: ServiceContext) async throws -> [Int64] {
        let scheduler = ErasureScheduler(configuration: context.configuration)
        let now = context.clock.now()
        var ids: [Int64] = []
        for app in report.apps {
            for finding in app.findings where finding.code == .retainedAfterDeletion {
                guard let subject = finding.subject else { continue }
                let appID = app.app
                ids += try await context.store.write { writer in
                    let account = try writer.account(app: appID, subject: subject)
                    let trigger: PolicyTrigger = account?.deletedBy == .inAppDeletion ? .inAppDeletion : .accountDeleted
                    return try scheduler.scheduleAgain(
                        app: appID, subject: subject, trigger: trigger, at: now, in: writer)
                }
            }
        }
        if !ids.isEmpty { context.log.info("reconcile.after_restore", [("erasureJobs", .integer(Int64(ids.count)))]) }
        return ids
    }

    static func render(_ report: Reconciler.Report, pseudonymizer: KeyedSubjectPseudonymizer) -> JSONValue {
        [
            "run": .integer(report.runID), "startedAt": .string(report.startedAt.iso8601),
            "finishedAt": .string(report.finishedAt.iso8601),
            "apps": .array(
                report.apps.map { app in
                    [
                        "app": .string(app.app), "recordsCompared": .bool(app.recordsCompared),
                        "recordsRead": .integer(Int64(app.recordsRead)),
                        "accountsRead": .integer(Int64(app.accountsRead)),
                        "registered": .integer(Int64(app.registered)),
                        "resolved": .integer(Int64(app.resolved)),
                        "findings": .array(
                            app.findings.map { findingJSON($0, app: app.app, pseudonymizer: pseudonymizer) }),
                    ]
                }),
        ]
    }

    static func findingJSON(_ finding: Finding, app: String, pseudonymizer: KeyedSubjectPseudonymizer) -> JSONValue {
        var object: JSONObject = [
            "code": .string(finding.code.rawValue), "severity": .string(finding.severity.rawValue),
            "detail": .string(finding.detail),
        ]
        if let subject = finding.subject {
            object["subject"] = .string(pseudonymizer.pseudonym(app: app, subject: subject))
            object["provider"] = .string(ProviderSubject.providerName(ofAccountKey: subject))
        }
        if let window = finding.window {
            object["window"] = ["from": .string(window.from.iso8601), "to": .string(window.to.iso8601)]
        }
        return .object(object)
    }

    static func text(_ report: Reconciler.Report, pseudonymizer: KeyedSubjectPseudonymizer) -> String {
        var lines = ["reconcile run \(report.runID): \(report.findings.count) findings"]
        for app in report.apps {
            lines.append(
                "\(app.app): "
                    + (app.recordsCompared ? "\(app.recordsRead) records" : "no records source (nothing compared)")
                    + ", \(app.accountsRead) accounts, \(app.registered) registered, \(app.resolved) resolved")
            for finding in app.findings.sorted(by: { $0.severity > $1.severity }) {
                let who =
                    finding.subject.map {
                        " \(pseudonymizer.pseudonym(app: app.app, subject: $0)) "
                            + "(\(ProviderSubject.providerName(ofAccountKey: $0)))"
                    } ?? ""
                lines.append("  \(finding.severity.rawValue) \(finding.code.rawValue)\(who): \(finding.detail)")
            }
        }
        return lines.joined(separator: "\n")
    }
}
