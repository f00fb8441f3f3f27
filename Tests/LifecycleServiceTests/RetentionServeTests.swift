import Foundation
import LifecycleCore
import TestSupport
import Testing

@testable import LifecycleEngine

/// The `retention` section as `serve` applies it: a purge at start and then daily, counted in `/metrics`,
/// taking the payloads of notifications older than `notificationPayloadDays` and keeping the rows, the
/// history and the account.
@Suite("Retention purge in serve")
struct RetentionServeTests {
    static let subjects = ["000001.retain.0001", "000002.retain.0002"]

    @Test(
        "serve purges nothing fresh at start; started 91 days later it clears the 90-day payloads, keeps the rows, history and accounts, and counts them"
    )
    func purgesExpiredPayloads() async throws {
        let fixture = try await ServeFixture()
        try await fixture.start()
        for subject in Self.subjects {
            #expect(
                try await fixture.post(fixture.notification(type: "consent-revoked", subject: subject)).status == 200)
        }
        #expect(
            await eventually(timeout: .seconds(20)) { !fixture.logEvents("retention.purged").isEmpty },
            "the purge runs at start")
        let first = try #require(fixture.logEvents("retention.purged").first)
        for kind in RetentionKind.allCases { #expect(first[kind.rawValue]?.integerValue == 0, "\(kind) at start") }
        #expect(try await fixture.metric("lifecycle_retention_purged_total", ["kind": "notification-payloads"]) == 0)
        #expect(await fixture.stop() == [0])

        let store = fixture.directory.file("lifecycle.sqlite")
        #expect(
            try StoreFile.count("SELECT count(*) FROM notifications WHERE sealed_raw_jws IS NOT NULL", in: store) == 2)

        // 91 days on: the payloads are past notificationPayloadDays (90); the history (730) is not.
        try await fixture.start(environment: ["LIFECYCLE_CLOCK_OFFSET_SECONDS": String(91 * 86_400)])
        #expect(
            await eventually(timeout: .seconds(20)) { fixture.logEvents("retention.purged").count == 2 },
            "the purge runs at the second start too")
        #expect(try await fixture.metric("lifecycle_retention_purged_total", ["kind": "notification-payloads"]) == 2)
        let second = try #require(fixture.logEvents("retention.purged").last)
        #expect(second["notification-payloads"]?.integerValue == 2)
        #expect(second["history"]?.integerValue == 0)
        #expect(try await fixture.metric("lifecycle_retention_last_run_timestamp_seconds") ?? 0 > 0)
        #expect(await fixture.stop() == [0])

        #expect(try StoreFile.count("SELECT count(*) FROM notifications", in: store) == 2, "the rows stay")
        #expect(
            try StoreFile.count(
                "SELECT count(*) FROM notifications WHERE sealed_raw_jws IS NOT NULL OR sealed_email IS NOT NULL",
                in: store) == 0)
        #expect(try StoreFile.count("SELECT count(*) FROM account_history", in: store) == 2, "the history stays")
        #expect(
            try StoreFile.count("SELECT count(*) FROM accounts WHERE state = 'consent-revoked'", in: store) == 2,
            "the accounts stay")
    }

    @Test("a retention shorter than its floor is refused with one line naming the key and why")
    func floorsRefused() async throws {
        let fixture = try await ServeFixture(extra: ["retention": ["historyDays": 365]])
        let outcome = try await fixture.lifecycle(["serve", "--config", fixture.configurationFile])
        #expect(outcome.status != 0)
        let lines = outcome.errors.split(separator: "\n")
        #expect(lines.count == 1, "\(outcome.errors)")
        #expect(outcome.errors.contains("retention.historyDays"), "\(outcome.errors)")
        #expect(outcome.errors.contains("730"), "\(outcome.errors)")
    }
}
