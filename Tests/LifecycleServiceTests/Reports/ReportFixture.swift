import Foundation
import LifecycleCore
import LifecycleStore

@testable import LifecycleEngine
@testable import LifecycleReports

/// A fixed report input: one week of deletion requests for app `shop`, generated at a fixed instant, with
/// jobs in every outcome (on time, late, overdue, failed, cancelled, retained, no job) and reconciler
/// findings. The raw subs and e-mails here must never appear in any rendered file.
enum ReportFixture {
    static let app = "shop"
    static let key = Array("fixed-report-pseudonym-key-for-golden-files".utf8)
    static let policy = "kr-pipa@1#9f2c4e8a1b7d3c5e6f708192a3b4c5d6e7f8091a2b3c4d5e6f708192a3b4c5d6"
    static let period = ReportPeriod(
        from: ISO8601Format.parse("2026-11-01T00:00:00Z")!, to: ISO8601Format.parse("2026-11-08T00:00:00Z")!)
    static let generatedAt = ISO8601Format.parse("2026-11-12T06:00:00Z")!

    /// Raw subjects and the relay addresses that belong to them (the e-mails are in the inputs' findings
    /// source data only as far as a report could ever leak them; they must appear nowhere).
    static let subjects = [
        "001111.aaaa1111aaaa1111aaaa1111aaaa1111.0101", "002222.bbbb2222bbbb2222bbbb2222bbbb2222.0202",
        "003333.cccc3333cccc3333cccc3333cccc3333.0303", "004444.dddd4444dddd4444dddd4444dddd4444.0404",
        "005555.eeee5555eeee5555eeee5555eeee5555.0505", "006666.ffff6666ffff6666ffff6666ffff6666.0606",
        "007777.abab7777abab7777abab7777abab7777.0707",
    ]
    static let emails = ["k7x2m9p4qz@privaterelay.appleid.com", "w3r8t1y6ub@privaterelay.appleid.com"]

    static func at(_ text: String) -> Instant { ISO8601Format.parse(text)! }

    static var pseudonymizer: KeyedSubjectPseudonymizer { KeyedSubjectPseudonymizer(key: key) }
    static var assembler: ReportAssembler {
        ReportAssembler(
            pseudonymizer: pseudonymizer, pseudonymKeyID: ReportKeys.keyID(key),
            retention: ReportRetention(storeDays: 35, targetDays: [app: ["app-db": 30]], rotateEveryDays: 90))
    }

    /// Two master keys: the first was rotated away on 6 November, the second is in force since then.
    static let masterKeys = [
        StoredMasterKey(
            id: "a1b2c3d4e5f60718", state: .retired, addedAt: at("2026-08-08T00:00:00Z"),
            retiredAt: at("2026-11-06T00:00:00Z")),
        StoredMasterKey(id: "0f1e2d3c4b5a6978", state: .current, addedAt: at("2026-11-06T00:00:00Z"), retiredAt: nil),
    ]

    /// The data key a subject's `self` step destroyed, under the master key in force at that moment.
    static func destroyedKey(_ subject: Int, scope: SubjectKeyScope, at time: String, master: String)
        -> StoredSubjectKey
    {
        StoredSubjectKey(
            app: app, subject: subjects[subject], scope: scope, wrappedKey: nil, masterKeyID: master,
            createdAt: at("2026-10-01T00:00:00Z"), destroyedAt: at(time))
    }

    static func event(
        _ subject: Int, _ kind: AccountInputKind, _ time: String, source: String = "notification",
        disposition: AccountDisposition = .applied
    ) -> ReportEvent {
        let instant = at(time)
        return ReportEvent(
            subject: subjects[subject], kind: kind, source: source, eventTime: instant,
            receivedAt: instant.adding(milliseconds: 1_250), disposition: disposition)
    }

    /// A job whose steps are all in `status`, finished at `finished` (when final).
    static func job(
        _ subject: Int, trigger: PolicyTrigger, eventTime: String, origin: ErasureJobOrigin = .rule(index: 0),
        categories: [DataCategory] = [.profile, .content], targets: [String] = ["app-db", "self"],
        withinDays: Int64 = 5, status: ErasureStepStatus, finished: String? = nil, attempts: Int = 1,
        evidence: ErasureStepEvidence = ErasureStepEvidence(rowsAffected: 1, verificationCount: 0),
        cancelledAt: String? = nil, basis: String? = "PIPA Art. 21(1)", cancelReason: String? = nil
    ) -> ReportSubjectJob {
        let event = at(eventTime)
        let deadline = event.adding(milliseconds: withinDays * ReportPeriod.millisecondsPerDay)
        let plan = ErasureJobPlan(
            policyReference: policy, trigger: trigger, eventTime: event, origin: origin, categories: categories,
            targets: targets, notBefore: event, deadline: deadline, cancelIfRelinked: trigger == .consentRevoked,
            basis: basis)
        let finishedAt = finished.map(at)
        let steps = targets.map { target in
            ErasureStep(
                target: target, status: status, attempts: attempts, nextAttemptAt: status == .pending ? event : nil,
                lastAttemptAt: attempts > 0 ? (finishedAt ?? event).adding(milliseconds: -2_000) : nil,
                finishedAt: status.isFinal ? finishedAt : nil, evidence: status == .pending ? .none : evidence)
        }
        return ReportSubjectJob(
            subject: subjects[subject],
            job: ErasureJob(plan: plan, steps: steps, cancelledAt: cancelledAt.map(at)),
            stepsStartedAt: targets.map { _ in attempts > 0 ? event.adding(milliseconds: 60_000) : nil },
            cancelReason: cancelReason)
    }

    static var inputs: ReportInputs {
        let events = [
            // 0: account deleted, erased in 1.5 days; payment records kept 5 years.
            event(0, .accountDeleted, "2026-11-01T09:00:00Z"),
            // 0: Apple resent the same deletion under a new jti: a duplicate, counted nowhere.
            event(0, .accountDeleted, "2026-11-01T09:00:00Z", disposition: .duplicate),
            // 1: in-app deletion erased in 3 days.
            event(1, .inAppDeletion, "2026-11-02T10:30:00Z", source: "admin"),
            // 2: consent revoked, erased late (6 days for a 5-day deadline).
            event(2, .consentRevoked, "2026-11-03T12:00:00Z"),
            // 3: account deleted, still running past its deadline: overdue.
            event(3, .accountDeleted, "2026-11-04T08:00:00Z"),
            // 4: in-app deletion whose webhook target failed, within its deadline (7-day rule).
            event(4, .inAppDeletion, "2026-11-07T20:00:00Z", source: "admin"),
            // 5: a revocation whose notification was lost, found by the reconciler; its token erasure ran at
            // once, the rest was cancelled by a re-link.
            event(5, .consentRevoked, "2026-11-05T07:15:00Z", source: "reconciler"),
            event(5, .linked, "2026-11-06T07:15:00Z"),
            // 0: an e-mail change after the deletion, ignored; an out-of-order resend, stale.
            event(0, .emailDisabled, "2026-11-02T08:00:00Z", disposition: .ignored(.accountDeleted)),
            event(6, .emailDisabled, "2026-11-02T15:00:00Z", disposition: .stale),
            // 6: e-mail forwarding switched off and on again: charted, not a deletion request.
            event(6, .emailDisabled, "2026-11-03T15:00:00Z"),
            event(6, .emailEnabled, "2026-11-05T15:00:00Z"),
            // 6: an in-app deletion before the period: not in this report.
            event(6, .inAppDeletion, "2026-10-30T15:00:00Z", source: "admin"),
        ]
        let jobs = [
            job(
                0, trigger: .accountDeleted, eventTime: "2026-11-01T09:00:00Z", status: .done,
                finished: "2026-11-02T21:00:00Z"),
            job(
                0, trigger: .accountDeleted, eventTime: "2026-11-01T09:00:00Z", origin: .retention(index: 0),
                categories: [.paymentRecords], targets: ["app-db"], withinDays: 1826, status: .pending, attempts: 0,
                basis: "Electronic Commerce Act, Art. 6"),
            job(
                1, trigger: .inAppDeletion, eventTime: "2026-11-02T10:30:00Z", status: .done,
                finished: "2026-11-05T10:30:00Z", attempts: 2),
            job(
                2, trigger: .consentRevoked, eventTime: "2026-11-03T12:00:00Z", categories: [.appleTokens],
                targets: ["self"], status: .done, finished: "2026-11-09T12:00:00Z",
                evidence: ErasureStepEvidence(rowsAffected: 1)),
            job(
                3, trigger: .accountDeleted, eventTime: "2026-11-04T08:00:00Z", status: .pending, attempts: 3,
                evidence: ErasureStepEvidence(errorCode: .timedOut)),
            job(
                4, trigger: .inAppDeletion, eventTime: "2026-11-07T20:00:00Z", targets: ["backend"], withinDays: 7,
                status: .failed, finished: "2026-11-08T02:00:00Z", attempts: 12,
                evidence: ErasureStepEvidence(responseStatus: 500, errorCode: .httpStatus(500))),
            job(
                5, trigger: .consentRevoked, eventTime: "2026-11-05T07:15:00Z", categories: [.appleTokens],
                targets: ["self"], status: .done, finished: "2026-11-05T07:16:00Z",
                evidence: ErasureStepEvidence(rowsAffected: 1)),
            job(
                5, trigger: .consentRevoked, eventTime: "2026-11-05T07:15:00Z", origin: .rule(index: 2),
                withinDays: 35, status: .pending, attempts: 0, cancelledAt: "2026-11-06T07:15:00Z",
                cancelReason: "relinked (linked at 2026-11-06T07:15:00.000Z)"),
        ]
        let findings = ReportFindingRun(
            ranAt: at("2026-11-12T03:00:00Z"),
            findings: [
                Finding(
                    code: .erasureOverdue, subject: subjects[3], detail: "erasure of rules[0] is past its deadline",
                    window: FindingWindow(from: at("2026-11-09T08:00:00Z"), to: at("2026-11-12T03:00:00Z"))),
                Finding(
                    code: .notificationGap, subject: nil,
                    detail: "no instance was receiving for 42 minutes <check the load balancer & TLS>",
                    window: FindingWindow(from: at("2026-11-06T01:00:00Z"), to: at("2026-11-06T01:42:00Z"))),
                Finding(code: .unknownToService, subject: subjects[6], detail: "the app holds a sub never linked"),
            ], recordsCompared: true, recordsRead: 1_204)
        let keys = [
            subjects[0]: [
                destroyedKey(0, scope: .notifications, at: "2026-11-02T21:00:00Z", master: "a1b2c3d4e5f60718")
            ],
            subjects[1]: [
                destroyedKey(1, scope: .notifications, at: "2026-11-05T10:30:00Z", master: "a1b2c3d4e5f60718")
            ],
            subjects[2]: [destroyedKey(2, scope: .appleTokens, at: "2026-11-09T12:00:00Z", master: "0f1e2d3c4b5a6978")],
        ]
        var inputs = ReportInputs(
            app: app, period: period, generatedAt: generatedAt, events: events, jobs: jobs, findingRun: findings,
            subjectKeys: keys, masterKeys: masterKeys)
        // 1: its Apple token revoked and proved revoked within the minute; 4: no token was held.
        inputs.appleRevocations = [
            subjects[1]: StoredAppleRevocation(
                id: 1, app: app, subject: subjects[1], status: .verified, attempts: 1, revokes: 1,
                requestedAt: at("2026-11-02T10:30:00Z"), availableAt: at("2026-11-02T10:30:00Z"), leaseOwner: nil,
                leasedUntil: nil, revokedAt: at("2026-11-02T10:30:01Z"), verifiedAt: at("2026-11-02T10:30:02Z"),
                finishedAt: at("2026-11-02T10:30:02Z"), lastError: nil),
            subjects[4]: StoredAppleRevocation(
                id: 2, app: app, subject: subjects[4], status: .noToken, attempts: 0, revokes: 0,
                requestedAt: at("2026-11-07T20:00:00Z"), availableAt: at("2026-11-07T20:00:00Z"), leaseOwner: nil,
                leasedUntil: nil, revokedAt: nil, verifiedAt: nil, finishedAt: at("2026-11-07T20:00:00Z"),
                lastError: nil),
        ]
        // Every notification stored in the period by type, one of a type the service does not know.
        inputs.notificationTypes = [
            "account-deleted": 3, "consent-revoked": 1, "email-disabled": 3, "email-enabled": 1,
            "account-suspended": 1,
        ]
        return inputs
    }

    /// The dataset with a fixed integrity block, as the golden files hold it.
    static var dataset: ReportDataset {
        var dataset = assembler.assemble(inputs)
        dataset.integrity = ReportIntegrity(
            sequence: 3, previousManifestLineSHA256: String(repeating: "ab", count: 32),
            signingKeyID: "0123456789abcdef",
            manifest: ReportManifestLine.fileName)
        return dataset
    }
}
