import LifecycleCore

/// The synthetic population of `lifecycle bench reconcile`: N accounts the service observed and the app's
/// rows for them, with a realistic mix of states and a few thousand planted discrepancies per million.
///
/// Every account is a pure function of (seed, index), so generation streams (nothing is held in arrays, the
/// bench's peak memory is the reconciler's) and the same seed gives the same data on every run. Subjects
/// look like Apple's (`000123.<32 hex>.0456`, https://developer.apple.com/documentation/sign_in_with_apple)
/// with the index zero-padded in front, so index order is `sub` byte order.
package struct ReconcileBenchmarkPopulation: Sendable {
    /// Shares of each state and of each planted discrepancy, in parts per million. The defaults give the
    /// state mix of a mature app (most users linked) and about 4 000 findings per million accounts.
    struct Mix: Sendable {
        /// Accounts left `linked` (the rest of the million after the three below).
        var emailOffPerMillion: UInt64 = 50_000
        var consentRevokedPerMillion: UInt64 = 50_000
        var deletedPerMillion: UInt64 = 50_000
        /// Of the deleted: deleted inside the waiting period, erasure still scheduled (deadline ahead).
        var recentlyDeletedPerMillion: UInt64 = 200_000
        /// Of linked and e-mail-off: rows the app lost (`orphan-notification`).
        var orphanPerMillion: UInt64 = 1_000
        /// Of every account: an extra app row for a subject the service never saw (`unknown-to-service`).
        var unknownPerMillion: UInt64 = 1_000
        /// Of consent-revoked: the app still reports sessions (`session-after-revocation`).
        var sessionAfterRevocationPerMillion: UInt64 = 20_000
        /// Of erased deletions: the app row is still active (`retained-after-deletion`).
        var retainedPerMillion: UInt64 = 20_000
        /// Of erased deletions: the erasure job is still running past its deadline (`erasure-overdue`).
        var overduePerMillion: UInt64 = 5_000
        /// Of erased deletions: the erasure job failed (`erasure-failed`).
        var failedPerMillion: UInt64 = 5_000
    }

    /// What the service observed about one account.
    enum Kind: Sendable, Equatable {
        case linked, emailOff, consentRevoked
        /// Deleted inside the waiting period: erasure scheduled, deadline ahead.
        case recentlyDeleted
        /// Deleted long enough ago that erasure ran (``ErasureFate`` says how it ended).
        case erased
    }

    /// How an erasure job of an ``Kind/erased`` account ended.
    enum ErasureFate: Sendable, Equatable {
        case completed, running, failed
    }

    /// One app row: `users(apple_sub, status, sessions)`.
    struct AppRow: Sendable, Equatable {
        var subject: String
        var status: String
        var sessions: Int
    }

    /// One account as generated: the service's record, its erasure job, and what the app holds.
    struct Account: Sendable {
        var index: Int
        var subject: String
        var kind: Kind
        var record: AccountRecord
        /// Nil unless deleted.
        var erasure: ErasureJobPlan?
        var fate: ErasureFate
        /// The app's row for this subject, nil when the app holds none.
        var appRow: AppRow?
        /// A row for a subject the service never saw, planted next to this account.
        var unknownRow: AppRow?
        /// The findings this account must give, by code.
        var expected: [FindingCode]
    }

    static let erasureTarget = "app-db"
    static let waitingPeriodDays: Int64 = 7
    static let erasureWithinDays: Int64 = 30

    let count: Int
    let seed: UInt64
    let asOf: Instant
    let mix: Mix

    /// Coprime with `count`: multiplying by it permutes `0..<count` (``signupOrder(_:)``).
    private let signupStride: Int64

    init(count: Int, seed: UInt64, asOf: Instant, mix: Mix = Mix()) {
        self.count = count
        self.seed = seed
        self.asOf = asOf
        self.mix = mix
        func gcd(_ a: Int64, _ b: Int64) -> Int64 { b == 0 ? a : gcd(b, a % b) }
        var stride: Int64 = 1_000_003
        while gcd(stride, Int64(max(count, 1))) != 1 { stride += 1 }
        signupStride = stride
    }

    /// SplitMix64 (Steele, Lea, Flood, "Fast splittable pseudorandom number generators", OOPSLA 2014): a
    /// stateless hash of (seed, index, draw), so any account can be generated alone, in any order.
    static func draw(_ seed: UInt64, _ index: Int, _ stream: UInt64) -> UInt64 {
        var z = seed &+ UInt64(truncatingIfNeeded: index) &* 0x9E37_79B9_7F4A_7C15 &+ stream &* 0xD1B5_4A32_D192_ED03
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    private func perMillion(_ index: Int, _ stream: UInt64) -> UInt64 {
        Self.draw(seed, index, stream) % 1_000_000
    }

    /// `00000042.<32 hex>.0456`: the index first (8 digits, so index order is byte order), then hex and a
    /// suffix from the seed. `variant` makes a second, distinct subject for the same index.
    func subject(_ index: Int, variant: UInt64 = 0) -> String {
        let high = Self.draw(seed, index, 10 &+ variant * 3)
        let low = Self.draw(seed, index, 11 &+ variant * 3)
        let suffix = Self.draw(seed, index, 12 &+ variant * 3) % 10_000
        return padded(String(index), 8) + "." + padded(String(high, radix: 16), 16)
            + padded(String(low, radix: 16), 16) + "." + padded(String(suffix), 4)
    }

    private func padded(_ text: String, _ width: Int) -> String {
        text.count >= width ? text : String(repeating: "0", count: width - text.count) + text
    }

    private func daysAgo(_ index: Int, _ stream: UInt64, _ range: ClosedRange<Int64>) -> Instant {
        let span = UInt64(range.upperBound - range.lowerBound + 1) * 86_400
        let seconds = Int64(range.lowerBound * 86_400) + Int64(Self.draw(seed, index, stream) % span)
        return asOf.adding(seconds: -seconds)
    }

    func account(_ index: Int) -> Account {
        let subject = subject(index)
        let roll = perMillion(index, 1)
        let plant = perMillion(index, 2)
        let sessions = Int(Self.draw(seed, index, 3) % 4)
        let created = daysAgo(index, 4, 400...1500)
        let kind: Kind
        if roll < mix.emailOffPerMillion {
            kind = .emailOff
        } else if roll < mix.emailOffPerMillion + mix.consentRevokedPerMillion {
            kind = .consentRevoked
        } else if roll < mix.emailOffPerMillion + mix.consentRevokedPerMillion + mix.deletedPerMillion {
            kind = perMillion(index, 5) < mix.recentlyDeletedPerMillion ? .recentlyDeleted : .erased
        } else {
            kind = .linked
        }
        var record = AccountRecord(
            state: .linked, lastAppliedEventTime: created, emailForwarding: true, emailForwardingEventTime: nil,
            emailForwardingInput: nil, accessEventTime: nil, accessInput: nil, createdAt: created, updatedAt: created,
            deletedAt: nil, deletedBy: nil)
        var appRow: AppRow? = AppRow(subject: subject, status: "active", sessions: sessions)
        var erasure: ErasureJobPlan?
        var fate = ErasureFate.completed
        var expected: [FindingCode] = []
        switch kind {
        case .linked, .emailOff:
            if kind == .emailOff {
                let at = daysAgo(index, 6, 1...399)
                record.state = .emailOff
                record.emailForwarding = false
                record.emailForwardingEventTime = at
                record.emailForwardingInput = .emailDisabled
                record.lastAppliedEventTime = at
                record.updatedAt = at
            }
            if plant < mix.orphanPerMillion {
                appRow = nil
                expected.append(.orphanNotification)
            }
        case .consentRevoked:
            let at = daysAgo(index, 6, 1...399)
            record.state = .consentRevoked
            record.accessEventTime = at
            record.accessInput = .consentRevoked
            record.lastAppliedEventTime = at
            record.updatedAt = at
            let stillSignedIn = plant < mix.sessionAfterRevocationPerMillion
            appRow?.sessions = stillSignedIn ? 1 + sessions : 0
            if stillSignedIn { expected.append(.sessionAfterRevocation) }
        case .recentlyDeleted, .erased:
            let at =
                kind == .recentlyDeleted
                ? daysAgo(index, 6, 0...(Self.waitingPeriodDays - 1))
                : daysAgo(index, 6, (Self.erasureWithinDays + 10)...365)
            record.state = .deleted
            record.deletedAt = at
            record.deletedBy = .accountDeleted
            record.lastAppliedEventTime = at
            record.updatedAt = at
            erasure = ErasureJobPlan(
                policyReference: "bench@1#0", trigger: .accountDeleted, eventTime: at, origin: .rule(index: 0),
                categories: [.profile, .content], targets: [Self.erasureTarget],
                notBefore: at.adding(seconds: Self.waitingPeriodDays * 86_400),
                deadline: at.adding(seconds: Self.erasureWithinDays * 86_400), cancelIfRelinked: true,
                basis: "GDPR Art. 17(1)")
            if kind == .recentlyDeleted {
                // The app has not erased yet, and need not until the deadline.
                appRow?.sessions = 0
            } else if plant < mix.retainedPerMillion {
                appRow?.sessions = 0
                expected.append(.retainedAfterDeletion)
            } else {
                // Erased: a tombstone row kept so the account stays deleted, or no row at all.
                appRow =
                    Self.draw(seed, index, 7) % 2 == 0 ? AppRow(subject: subject, status: "deleted", sessions: 0) : nil
                if plant < mix.retainedPerMillion + mix.overduePerMillion {
                    fate = .running
                    expected.append(.erasureOverdue)
                } else if plant < mix.retainedPerMillion + mix.overduePerMillion + mix.failedPerMillion {
                    fate = .failed
                    expected.append(.erasureFailed)
                }
            }
        }
        var unknownRow: AppRow?
        if perMillion(index, 8) < mix.unknownPerMillion {
            unknownRow = AppRow(subject: self.subject(index, variant: 1), status: "active", sessions: sessions)
            expected.append(.unknownToService)
        }
        return Account(
            index: index, subject: subject, kind: kind, record: record, erasure: erasure, fate: fate, appRow: appRow,
            unknownRow: unknownRow, expected: expected)
    }

    /// The index an account's subject was generated from (its 8-digit prefix).
    static func index(ofSubject subject: String) -> Int? {
        Int(subject.prefix { $0 != "." })
    }

    /// A bijection of `0..<count` (multiplication by a number coprime with `count`), so the app's rows go in
    /// "sign-up order", unrelated to `sub` order, as in a real table, without holding a shuffled array.
    func signupOrder(_ position: Int) -> Int {
        Int((Int64(position) * signupStride) % Int64(count))
    }
}
