import Testing

@testable import LifecycleCore

@Suite("Reconciler merge: the app's records against the service's accounts")
struct ReconcilerMergeTests {
    static let asOf = Instant(secondsSinceEpoch: 1_780_000_000)
    static let past = asOf.adding(seconds: -86_400)
    static let future = asOf.adding(seconds: 86_400)

    func findings(_ app: [AppRecord], _ observed: [ObservedAccount], options: ReconcilerOptions = .init())
        -> [Finding]
    {
        Array(
            ReconcilerMerge(
                appRecords: app.makeIterator(), observedAccounts: observed.makeIterator(), asOf: Self.asOf,
                options: options))
    }

    func codes(_ app: [AppRecord], _ observed: [ObservedAccount]) -> [String] {
        findings(app, observed).map { "\($0.subject ?? "-") \($0.code.canonicalName)" }
    }

    static let cleanApp = [
        AppRecord(subject: "001.a", status: "active", sessions: 1),
        AppRecord(subject: "001.b", sessions: 0),
        AppRecord(subject: "001.c"),
    ]
    static let cleanObserved = [
        ObservedAccount(subject: "001.a", state: .linked),
        ObservedAccount(
            subject: "001.b", state: .consentRevoked, erasureDeadline: Self.future, erasureStatus: .pending),
        ObservedAccount(subject: "001.c", state: .emailOff),
        // Deleted, erased on time, and gone from the app: nothing to say.
        ObservedAccount(
            subject: "001.d", state: .deleted, deletedAt: Self.past, erasureDeadline: Self.past,
            erasureStatus: .completed),
    ]

    @Test("a token Apple refused (invalid_grant) gives a credentials-invalid finding until access news arrives")
    func credentialsInvalid() {
        var suspected = ObservedAccount(subject: "001.a", state: .consentRevoked, revokedAt: Self.past)
        suspected.credentialsInvalidAt = Self.past
        let found = findings([AppRecord(subject: "001.a", sessions: 0)], [suspected])
        #expect(found.map(\.code) == [.credentialsInvalid])
        #expect(found.first?.detail.contains("getCredentialState") == true)
        #expect(found.first?.window == FindingWindow(from: Self.past, to: Self.asOf))
        var relinked = suspected
        relinked.state = .linked
        #expect(findings([AppRecord(subject: "001.a", sessions: 0)], [relinked]) == [])
    }

    @Test("a clean dataset gives no finding")
    func clean() {
        #expect(findings(Self.cleanApp, Self.cleanObserved) == [])
        #expect(findings([], []) == [])
    }

    @Test("each seeded discrepancy gives exactly its finding and no other")
    func eachKind() {
        let app = [
            AppRecord(subject: "b-retained", sessions: 0),
            AppRecord(subject: "c-overdue", sessions: 0),
            AppRecord(subject: "f-session", status: "active", sessions: 2),
            AppRecord(subject: "g-unknown", status: "active"),
        ]
        let observed = [
            ObservedAccount(
                subject: "a-clean", state: .deleted, deletedAt: Self.past, erasureDeadline: Self.past,
                erasureStatus: .completed),
            ObservedAccount(
                subject: "b-retained", state: .deleted, deletedAt: Self.past.adding(seconds: -86_400),
                erasureDeadline: Self.past, erasureStatus: .completed),
            ObservedAccount(
                subject: "c-overdue", state: .consentRevoked, erasureDeadline: Self.past, erasureStatus: .pending),
            ObservedAccount(subject: "d-failed", state: .deleted, erasureDeadline: Self.future, erasureStatus: .failed),
            ObservedAccount(
                subject: "e-unverified", state: .deleted, erasureDeadline: Self.past, erasureStatus: .unverified),
            ObservedAccount(subject: "f-session", state: .consentRevoked, revokedAt: Self.past),
            ObservedAccount(subject: "h-orphan", state: .emailOff),
        ]
        let result = findings(app, observed)
        #expect(
            result.map { "\($0.subject ?? "-") \($0.code.canonicalName) \($0.severity.canonicalName)" } == [
                "b-retained retained-after-deletion critical",
                "c-overdue erasure-overdue critical",
                "d-failed erasure-failed critical",
                "e-unverified unverified-erasure warning",
                "f-session session-after-revocation critical",
                "g-unknown unknown-to-service info",
                "h-orphan orphan-notification warning",
            ])
        #expect(result[0].window == FindingWindow(from: Self.past, to: Self.asOf))
        #expect(result[1].window == FindingWindow(from: Self.past, to: Self.asOf))
        #expect(result[4].window == FindingWindow(from: Self.past, to: Self.asOf))
        #expect(
            result.allSatisfy { finding in !finding.detail.contains(finding.subject ?? "\u{0}") }, "no sub in details")
    }

    @Test("a deleted account the app still holds before its deadline, or only as a tombstone, is not retained")
    func retainedBoundaries() {
        let observed = [
            ObservedAccount(subject: "x", state: .deleted, erasureDeadline: Self.future, erasureStatus: .pending),
            ObservedAccount(subject: "y", state: .deleted, erasureDeadline: Self.past, erasureStatus: .completed),
            ObservedAccount(subject: "z", state: .deleted, erasureDeadline: Self.asOf, erasureStatus: .completed),
        ]
        let app = [
            AppRecord(subject: "x"), AppRecord(subject: "y", status: "deleted"), AppRecord(subject: "z"),
        ]
        #expect(codes(app, observed) == [])
        #expect(codes([AppRecord(subject: "t", status: "deleted")], []) == [], "an app tombstone is not registered")
        #expect(
            findings(app, observed, options: ReconcilerOptions(tombstoneStatuses: [])).map(\.code)
                == [.retainedAfterDeletion])
    }

    @Test("live sessions matter only for revoked or deleted accounts; deleted-and-late gives both findings")
    func sessions() {
        let observed = [
            ObservedAccount(subject: "a", state: .linked),
            ObservedAccount(subject: "b", state: .emailOff),
            ObservedAccount(
                subject: "c", state: .deleted, deletedAt: Self.past, erasureDeadline: Self.past,
                erasureStatus: .completed),
        ]
        let app = [
            AppRecord(subject: "a", sessions: 3), AppRecord(subject: "b", sessions: 1),
            AppRecord(subject: "c", sessions: 1),
        ]
        #expect(codes(app, observed) == ["c retained-after-deletion", "c session-after-revocation"])
    }

    @Test(
        "subjects on only one side are found at the beginning, in the middle and at the end",
        arguments: [
            (["a", "m", "z"], ["m"], ["a unknown-to-service", "z unknown-to-service"]),
            (["m"], ["a", "m", "z"], ["a orphan-notification", "z orphan-notification"]),
            (
                ["a", "c", "e"], ["b", "c", "d", "f"],
                [
                    "a unknown-to-service", "b orphan-notification", "d orphan-notification", "e unknown-to-service",
                    "f orphan-notification",
                ]
            ),
            ([], ["a", "b"], ["a orphan-notification", "b orphan-notification"]),
            (["a", "b"], [], ["a unknown-to-service", "b unknown-to-service"]),
        ])
    func oneSided(app: [String], observed: [String], expected: [String]) {
        #expect(
            codes(app.map { AppRecord(subject: $0) }, observed.map { ObservedAccount(subject: $0, state: .linked) })
                == expected)
    }

    @Test("subjects compare in byte order, as a database's binary collation sorts them")
    func byteOrder() {
        // "Z" (0x5A) sorts before "a" (0x61); "é" as one scalar (0xC3 0xA9) after "z".
        let subjects = ["001.Z", "001.a", "001.z", "001.\u{E9}"]
        #expect(
            codes(
                subjects.map { AppRecord(subject: $0) }, subjects.map { ObservedAccount(subject: $0, state: .linked) })
                == [])
        #expect(ReconcilerMerge<[AppRecord].Iterator, [ObservedAccount].Iterator>.precedes("Z", "a"))
    }

    @Test("a subject repeated on one side is read once")
    func duplicates() {
        let app = [AppRecord(subject: "a"), AppRecord(subject: "a"), AppRecord(subject: "b")]
        let observed = [ObservedAccount(subject: "b", state: .linked), ObservedAccount(subject: "b", state: .linked)]
        #expect(codes(app, observed) == ["a unknown-to-service"])
    }

    @Test("an unsorted input stops the merge with one critical finding instead of wrong results")
    func unsorted() {
        let app = [AppRecord(subject: "a"), AppRecord(subject: "c"), AppRecord(subject: "b")]
        let observed = [ObservedAccount(subject: "a", state: .linked), ObservedAccount(subject: "c", state: .linked)]
        let result = findings(app, observed)
        #expect(result.map(\.code) == [.unsortedInput])
        #expect(result.first?.severity == .critical)
        #expect(result.first?.detail.contains("app records") == true)
        let reversed = findings(
            [], [ObservedAccount(subject: "b", state: .deleted), ObservedAccount(subject: "a", state: .deleted)])
        #expect(reversed.map(\.code) == [.unsortedInput])
    }

    /// An endless-looking input that counts how far it was read.
    struct CountingRecords: IteratorProtocol {
        var produced = 0
        let limit: Int
        let counter: Counter
        final class Counter {
            var value = 0
        }
        mutating func next() -> AppRecord? {
            guard produced < limit else { return nil }
            produced += 1
            counter.value = produced
            let digits = String(produced)
            return AppRecord(subject: String(repeating: "0", count: 9 - digits.count) + digits)
        }
    }

    @Test("findings come out lazily: the first one is ready after reading only a few records")
    func lazy() {
        let counter = CountingRecords.Counter()
        var merge = ReconcilerMerge(
            appRecords: CountingRecords(limit: 1_000_000, counter: counter),
            observedAccounts: [ObservedAccount]().makeIterator(), asOf: Self.asOf)
        let first = merge.next()
        #expect(first?.code == .unknownToService)
        #expect(counter.value <= 2)
        var count = 1
        while count < 1000, merge.next() != nil { count += 1 }
        #expect(counter.value <= 1001)
    }
}

@Suite("Finding severities and codes")
struct FindingSeverityTests {
    @Test("severities order info < warning < critical, for --fail-on")
    func order() {
        #expect(FindingSeverity.info < .warning)
        #expect(FindingSeverity.warning < .critical)
        #expect(FindingSeverity.allCases.sorted() == [.info, .warning, .critical])
        #expect([FindingSeverity.warning, .info, .critical].max() == .critical)
    }

    @Test("each code carries its documented severity")
    func codeSeverities() {
        let table: [FindingCode: FindingSeverity] = [
            .retainedAfterDeletion: .critical, .erasureOverdue: .critical, .erasureFailed: .critical,
            .unverifiedErasure: .warning, .sessionAfterRevocation: .critical, .unknownToService: .info,
            .orphanNotification: .warning, .notificationGap: .warning, .credentialsInvalid: .warning,
            .unsortedInput: .critical, .revocationUnverified: .warning, .identifierRecycled: .critical,
        ]
        #expect(Set(table.keys) == Set(FindingCode.allCases))
        for (code, severity) in table { #expect(code.severity == severity, "\(code)") }
    }

    @Test("codes round-trip through their stable names", arguments: FindingCode.allCases)
    func names(code: FindingCode) {
        #expect(FindingCode(canonicalName: code.canonicalName) == code)
    }
}
