import Foundation
import LifecycleCore
import TestSupport
import Testing

@testable import LifecycleReports

/// The spool a report's rows wait in between assembly and rendering: every member comes back as it went in,
/// rows come back in report order whatever order they went in, and a report rendered from the spool is the
/// report rendered from memory, byte for byte.
@Suite("report row spool")
struct ReportRowSpoolTests {
    /// A row with every optional member filled, nested ones included, and text that is not ASCII.
    static var fullRow: ReportSubjectRow {
        let at = ReportFixture.at
        var row = ReportSubjectRow(
            pseudonym: "ps_0123456789abcdef0123456789abcdef", eventType: "in-app-deletion", source: .inApp,
            eventTime: at("2026-11-03T10:00:00.123Z"), receivedAt: at("2026-11-03T10:00:01Z"),
            policy: ReportFixture.policy, deadline: at("2026-12-03T10:00:00Z"),
            targets: [
                ReportTargetOutcome(
                    target: "app-db", rule: "rules[0]", categories: ["profile", "content"], status: "done",
                    attempts: 3, firstAttemptAt: at("2026-11-04T00:00:00Z"), lastAttemptAt: at("2026-11-05T00:00:00Z"),
                    finishedAt: at("2026-11-05T00:00:01Z"), deadline: at("2026-12-03T10:00:00Z"), rowsAffected: 4,
                    verificationCount: 0, responseStatus: 202, errorCode: "timeout", keysDestroyed: 2,
                    hygiene: "secure_delete, wal_checkpoint(TRUNCATE) at 2026-11-05T00:00:01.000Z"),
                ReportTargetOutcome(
                    target: "crm", rule: "rules[1]", categories: [], status: "pending", attempts: 0,
                    firstAttemptAt: nil, lastAttemptAt: nil, finishedAt: nil, deadline: at("2026-12-01T00:00:00Z"),
                    rowsAffected: nil, verificationCount: nil, responseStatus: nil, errorCode: nil),
            ],
            verification: .unverified,
            retained: [
                ReportRetainedItem(
                    category: "payment-records", basis: "HGB § 257 (Aufbewahrungspflicht)",
                    purgeAt: at("2036-11-03T00:00:00Z"), status: "retained")
            ],
            outcome: .completedWithExceptions, onTime: false, completedAt: at("2026-11-05T00:00:01Z"),
            daysToComplete: 1.583)
        row.provider = "google"
        var copies = ReportRemainingCopies(
            backups: [
                ReportBackupCopy(store: "self", retentionDays: 30, erasedAt: at("2026-11-05T00:00:01Z")),
                ReportBackupCopy(store: "app-db", retentionDays: nil, erasedAt: nil),
            ],
            masterKey: ReportMasterKeyBound(
                id: "5b2ac18ac4d66439", retiredAt: at("2026-11-20T00:00:00Z"), rotationDueBy: nil))
        copies.backupsBeyondUseBy = at("2026-12-05T00:00:01Z")
        row.remainingCopies = copies
        row.appleRevocation = ReportAppleRevocation(
            status: "failed", revokedAt: nil, verifiedAt: at("2026-11-04T00:00:00Z"),
            advice: ReportAppleRevocation.failedAdvice)
        row.cancellation = ReportCancellation(
            cancelledAt: at("2026-11-06T00:00:00Z"), reason: "relinked (linked at 2026-11-06T00:00:00.000Z)",
            steps: ["app-db rules[2]", "crm rules[1]"])
        row.extension = ReportExtension(
            reason: "complexité — plusieurs systèmes", noticeAt: at("2026-11-10T00:00:00Z"),
            previousDeadline: at("2026-12-01T00:00:00Z"), newDeadline: at("2027-01-30T00:00:00Z"),
            recordedAt: at("2026-11-10T00:00:01Z"))
        row.holds = [
            ReportHold(
                grounds: "litigation 2026-17", heldAt: at("2026-11-07T00:00:00Z"),
                releasedAt: at("2026-11-08T00:00:00Z"), releaseReason: "settled"),
            ReportHold(
                grounds: "regulator inquiry", heldAt: at("2026-11-09T00:00:00Z"), releasedAt: nil, releaseReason: nil),
        ]
        row.denial = ReportDenial(basis: "Cal. Civ. Code §1798.105(d)(1)", deniedAt: at("2026-11-11T00:00:00Z"))
        return row
    }

    static func encoded(_ row: ReportSubjectRow) -> [UInt8] {
        var bytes: [UInt8] = []
        ReportRowCodec.encode(row, into: &bytes)
        return bytes
    }

    @Test("every member of a row comes back as it went in")
    func roundTrip() throws {
        let rows = Array(ReportFixture.dataset.subjects) + [Self.fullRow]
        #expect(rows.count > 3)
        for row in rows {
            let decoded = try Self.encoded(row).withUnsafeBytes { try ReportRowCodec.decode($0) }
            #expect(decoded == row)
        }
        // The full row really fills what it says it fills, so the comparison covers those members.
        let full = Self.fullRow
        #expect(full.extension != nil && full.denial != nil && full.holds.count == 2 && full.cancellation != nil)
        #expect(full.remainingCopies?.masterKey != nil && full.appleRevocation?.advice != nil)
    }

    @Test("a cut or altered record is refused, never read as another row")
    func malformed() throws {
        let bytes = Self.encoded(Self.fullRow)
        for length in 0..<bytes.count {
            #expect(throws: ReportRowCodec.Malformed.self) {
                try Array(bytes.prefix(length)).withUnsafeBytes { try ReportRowCodec.decode($0) }
            }
        }
        #expect(throws: ReportRowCodec.Malformed.self) {
            try (bytes + [0]).withUnsafeBytes { try ReportRowCodec.decode($0) }
        }
    }

    @Test("rows come back in report order, ties by pseudonym then event type, however they went in")
    func order() throws {
        let directory = try TemporaryDirectory()
        var rows = Array(ReportFixture.dataset.subjects)
        // Three requests at one instant: order decided by pseudonym, then by event type.
        for (pseudonym, type) in [
            ("ps_b", "account-deleted"), ("ps_a", "in-app-deletion"), ("ps_a", "account-deleted"),
        ] {
            var row = Self.fullRow
            row.pseudonym = pseudonym
            row.eventType = type
            rows.append(row)
        }
        let expected = rows.sorted {
            ($0.eventTime, $0.pseudonym, $0.eventType) < ($1.eventTime, $1.pseudonym, $1.eventType)
        }
        let builder = try ReportRowSpool.Builder(directories: [directory.path])
        for row in rows.reversed() { try builder.append(row) }
        let spooled = ReportRows(spool: try builder.finish())
        #expect(Array(spooled) == expected)
        #expect(spooled.count == expected.count && spooled[spooled.count - 1] == expected.last)
        #expect(
            spooled.filter { $0.eventTime == Self.fullRow.eventTime }.map { "\($0.pseudonym) \($0.eventType)" } == [
                "ps_a account-deleted", "ps_a in-app-deletion", "ps_b account-deleted",
            ])
        // Unlinked at once: a crash leaves nothing in the reports directory.
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty)
    }

    @Test("a spool is made in the first directory that takes one; none taking one is one line naming each")
    func directories() throws {
        let directory = try TemporaryDirectory()
        let builder = try ReportRowSpool.Builder(directories: ["/dev/null/reports", directory.path])
        try builder.append(Self.fullRow)
        #expect(Array(ReportRows(spool: try builder.finish())) == [Self.fullRow])
        let error = #expect(throws: ReportRowSpool.Failure.self) {
            try ReportRowSpool.Builder(directories: ["/dev/null/reports", "/dev/null/tmp"])
        }
        let message = error?.description ?? ""
        #expect(message.contains("/dev/null/reports") && message.contains("/dev/null/tmp"), "\(message)")
        #expect(!message.contains("\n") && message.contains("fix: make reports.directory writable"))
    }

    @Test("a report rendered from the spool is the report rendered from memory, byte for byte")
    func rendersTheSame() throws {
        let directory = try TemporaryDirectory()
        let memory = ReportFixture.dataset
        // More requests than the page lists one by one, so the page sums up and lists exceptions too.
        var large = memory
        var rows: [ReportSubjectRow] = []
        for index in 0..<40 {
            var row = memory.subjects[index % memory.subjects.count]
            row.pseudonym = "ps_\(String(index, radix: 16))"
            row.eventTime = row.eventTime.adding(milliseconds: Int64(index % 7))
            rows.append(row)
        }
        rows.sort { ($0.eventTime, $0.pseudonym, $0.eventType) < ($1.eventTime, $1.pseudonym, $1.eventType) }
        large.subjects = ReportRows(rows)
        large.pageRequestLimit = 10
        for dataset in [memory, large] {
            let builder = try ReportRowSpool.Builder(directories: [directory.path])
            for row in dataset.subjects.shuffled() { try builder.append(row) }
            var spooled = dataset
            spooled.subjects = ReportRows(spool: try builder.finish())
            #expect(spooled == dataset)
            #expect(Self.files(spooled) == Self.files(dataset))
        }
    }

    static func files(_ dataset: ReportDataset) -> [String] {
        let json = String(decoding: ReportJSONRenderer.render(dataset), as: UTF8.self)
        var csv: [UInt8] = []
        ReportCSVRenderer.render(dataset) { csv += $0 }
        return [ReportHTMLRenderer.page(dataset), json, String(decoding: csv, as: UTF8.self)]
    }
}
