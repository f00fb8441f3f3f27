import Foundation
import LifecycleCore
import Testing

/// `lifecycle reconcile` as cron runs it (README, "Nightly reconcile"): the exit status against `--fail-on`,
/// and `reconcile.tombstoneStatuses` deciding which app rows are suppression records, on a store a real
/// `serve` wrote.
@Suite("lifecycle reconcile exit status and tombstones")
struct ReconcileCommandExitTests {
    static let known = "000101.known.0001"

    /// Every finding code of a `reconcile --json` output, with how often it appears.
    static func codes(_ output: String) -> [String: Int] {
        var counts: [String: Int] = [:]
        func walk(_ value: JSONValue) {
            switch value {
            case .object(let object):
                if let code = object["code"]?.stringValue, object["severity"] != nil { counts[code, default: 0] += 1 }
                for member in object { walk(member.value) }
            case .array(let items): items.forEach(walk)
            default: break
            }
        }
        if let parsed = JSONValue.parseIfValid(Array(output.utf8)) { walk(parsed) }
        return counts
    }

    @Test(
        "exit 1 only for findings at or above --fail-on (default critical); a tombstoneStatuses row is no account, another status is"
    )
    func failOnLevelsAndTombstones() async throws {
        let fixture = try await ServeFixture(
            apps: [ServeFixture.app(records: ["type": "jsonl", "path": "records.jsonl"])])
        try await fixture.start()
        // Known to the service, not to the app: orphan-notification, a warning.
        #expect(
            try await fixture.post(fixture.notification(type: "consent-revoked", subject: Self.known)).status == 200)
        #expect(await fixture.stop() == [0])

        func reconcile(_ records: [String], _ extra: [String] = []) async throws -> (
            status: Int32, codes: [String: Int]
        ) {
            try (records.joined(separator: "\n") + "\n").write(
                toFile: fixture.directory.file("records.jsonl"), atomically: true, encoding: .utf8)
            let run = try await fixture.lifecycle(
                ["reconcile", "--json", "--config", fixture.configurationFile] + extra)
            #expect(run.status != 2, "\(run)")
            return (run.status, Self.codes(run.output))
        }

        // An unknown subject (info), a tombstone (nothing), the orphan (warning); no notification-gap before the
        // store's first serve.
        let unknown = #"{"sub": "000201.app.0001"}"#
        let tombstone = #"{"sub": "000301.gone.0001", "status": "deleted"}"#
        let first = try await reconcile([unknown, tombstone])
        #expect(first.status == 0, "warning and info are below the default critical")
        #expect(first.codes == ["unknown-to-service": 1, "orphan-notification": 1], "\(first.codes)")
        // The unknown subject is registered now; the orphan stays.
        let warning = try await reconcile([unknown, tombstone], ["--fail-on", "warning"])
        #expect(warning.status == 1, "the orphan is a warning")
        #expect(warning.codes == ["orphan-notification": 1], "\(warning.codes)")

        // The app now holds the known subject; a new unknown one is the only finding, an info.
        let held = [unknown, tombstone, "{\"sub\": \"\(Self.known)\"}"]
        let belowWarning = try await reconcile(held + [#"{"sub": "000202.app.0002"}"#], ["--fail-on", "warning"])
        #expect(belowWarning.status == 0, "\(belowWarning.codes)")
        #expect(belowWarning.codes == ["unknown-to-service": 1], "\(belowWarning.codes)")
        let registered = held + [#"{"sub": "000202.app.0002"}"#, #"{"sub": "000203.app.0003"}"#]
        let atInfo = try await reconcile(registered, ["--fail-on", "info"])
        #expect(atInfo.status == 1, "\(atInfo.codes)")
        #expect(atInfo.codes == ["unknown-to-service": 1], "\(atInfo.codes)")

        // Another tombstone status: "deleted" is now an ordinary row, an account the service never saw.
        try fixture.updateConfiguration { $0["reconcile"] = ["tombstoneStatuses": ["closed"]] }
        let retagged = try await reconcile(registered + [#"{"sub": "000302.closed.0001", "status": "closed"}"#])
        #expect(retagged.codes == ["unknown-to-service": 1], "only the deleted row: \(retagged.codes)")
    }

    @Test(
        "critical findings exit 1: sessions the app reports for a revoked subject, and an erasure job past its deadline"
    )
    func criticalFindings() async throws {
        let deleted = "000501.deleted.0001"
        let revoked = "000502.revoked.0002"
        let app = ServeFixture.app(
            erasureTargets: ServeFixture.sqliteTarget("app.sqlite"),
            records: ["type": "jsonl", "path": "records.jsonl"])
        // The runner is off, so the deletion's job stays scheduled and its deadline (one month) can pass.
        let fixture = try await ServeFixture(apps: [app], extra: ["erasure": ["runInServe": false]])
        try fixture.createAppDatabase("app.sqlite", subjects: [])
        try await fixture.start()
        #expect(try await fixture.post(fixture.notification(type: "account-delete", subject: deleted)).status == 200)
        #expect(try await fixture.post(fixture.notification(type: "consent-revoked", subject: revoked)).status == 200)
        #expect(await fixture.stop() == [0])
        try (#"{"sub": "\#(revoked)", "status": "active", "sessions": 2}"# + "\n").write(
            toFile: fixture.directory.file("records.jsonl"), atomically: true, encoding: .utf8)

        let now = try await fixture.lifecycle(["reconcile", "--json", "--config", fixture.configurationFile])
        #expect(now.status == 1, "a critical finding at the default threshold: \(now)")
        let found = Self.codes(now.output)
        #expect(found["session-after-revocation"] == 1, "\(found)")
        #expect(found["erasure-overdue"] == nil, "the deadline has not passed yet: \(found)")

        // Forty days on (the processes' clock moved forward): the job is overdue.
        let later = try await fixture.lifecycle(
            ["reconcile", "--json", "--config", fixture.configurationFile],
            environment: ["LIFECYCLE_CLOCK_OFFSET_SECONDS": String(40 * 86_400)])
        #expect(later.status == 1, "\(later)")
        let overdue = Self.codes(later.output)
        #expect(overdue["erasure-overdue"] == 1, "\(overdue)")
        #expect(overdue["session-after-revocation"] == 1, "still reported: \(overdue)")
    }

    /// README, "Nightly reconcile": an erasure job that failed after its retries (`erasure-failed`, critical) and
    /// one that ran without a verification query (`unverified-erasure`) are findings of the service's own jobs,
    /// reported for apps without a records source too: neither app here has one.
    @Test(
        "an erasure that fails after its retries and one nothing verifies are findings, without a records source; the critical one exits 1"
    )
    func erasureFindingsWithoutRecords() async throws {
        let failing = "000601.failing.0001"
        let unchecked = "000602.unchecked.0002"
        let users = ["DELETE FROM users WHERE apple_sub = :sub"]
        let shop = ServeFixture.app(
            erasureTargets: [
                "app-db": [
                    "type": "sqlite", "path": "missing/app.sqlite", "statements": .array(users.map { .string($0) }),
                    "verify": "SELECT count(*) FROM users WHERE apple_sub = :sub",
                ]
            ])
        let blog = ServeFixture.app(
            id: "blog", clientID: "com.example.blog",
            erasureTargets: [
                "app-db": ["type": "sqlite", "path": "app.sqlite", "statements": .array(users.map { .string($0) })]
            ])
        let fixture = try await ServeFixture(
            apps: [shop, blog],
            extra: [
                "erasure": [
                    "maxAttempts": 2, "baseDelayMilliseconds": 1, "maxDelayMilliseconds": 10, "pollMilliseconds": 100,
                ]
            ])
        try fixture.createAppDatabase("app.sqlite", subjects: [unchecked])
        try await fixture.start()
        #expect(try await fixture.post(fixture.notification(type: "account-delete", subject: failing)).status == 200)
        // A live account only the service knows: with records it would be an orphan-notification.
        #expect(
            try await fixture.post(fixture.notification(type: "email-disabled", subject: "000603.live.0003")).status
                == 200)
        #expect(
            try await fixture.post(
                fixture.notification(type: "account-delete", subject: unchecked, audience: "com.example.blog")
            ).status == 200)
        @Sendable func status(_ app: String) async -> String? {
            let listed = try? await fixture.lifecycle([
                "jobs", "list", "--app", app, "--json", "--config", fixture.configurationFile,
            ])
            return listed.flatMap { JSONValue.parseIfValid(Array($0.output.utf8))?["jobs"]?.arrayValue?.first }?[
                "status"]?.stringValue
        }
        let ended = await eventually(timeout: .seconds(30)) {
            let shop = await status("shop")
            let blog = await status("blog")
            return shop == "failed" && blog == "unverified"
        }
        #expect(ended, "\(fixture.log.suffix(2000))")
        #expect(await fixture.stop() == [0])

        let run = try await fixture.lifecycle(["reconcile", "--json", "--config", fixture.configurationFile])
        #expect(run.status == 1, "erasure-failed is critical: \(run)")
        let found = Self.codes(run.output)
        #expect(found["erasure-failed"] == 1, "\(found)")
        #expect(found["unverified-erasure"] == 1, "\(found)")
        #expect(found["orphan-notification"] == nil, "nothing is compared without records: \(found)")
    }

    @Test("a records file the reconcile cannot read exits 2 with one bounded line, and its run's row keeps it bounded")
    func unreadableRecordsAreQuotedBounded() async throws {
        let fixture = try await ServeFixture(apps: [ServeFixture.app(records: ["type": "csv", "path": "records.csv"])])
        // A header of 5,000 columns (55 KB, under the 64 KiB line limit), none of them `sub`: the refusal lists
        // what it found.
        let header = (0..<5_000).map { "column\($0)" }.joined(separator: ",")
        try (header + "\n").write(toFile: fixture.directory.file("records.csv"), atomically: true, encoding: .utf8)
        let run = try await fixture.lifecycle(["reconcile", "--config", fixture.configurationFile])
        #expect(run.status == 2, "\(run)")
        #expect(run.errors.contains("header has no \"sub\" column"), "\(run.errors.prefix(2000))")
        let longest = run.errorLines.map(\.utf8.count).max() ?? 0
        #expect(longest <= 4096, "a line of \(longest) bytes")
        let stored = try StoreFile.count(
            "SELECT max(length(error)) FROM reconcile_runs WHERE status = 'failed'",
            in: fixture.directory.file("lifecycle.sqlite"))
        #expect((1...2200).contains(stored), "the run's error is \(stored) characters")
    }
}
