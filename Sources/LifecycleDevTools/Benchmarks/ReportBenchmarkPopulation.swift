import LifecycleCore

/// The synthetic month of `lifecycle bench report`: N deletion requests of one app in one calendar month, each
/// planned by the real ``ErasurePlanner`` under the app's policy, with a realistic mix of how its erasure went.
///
/// Every request is a pure function of (seed, index) (SplitMix64, ``ReconcileBenchmarkPopulation/draw(_:_:_:)``),
/// so the store streams out of it and the same seed gives the same store and the same report on every run.
package struct ReportBenchmarkPopulation: Sendable {
    /// How a request's erasure went, in parts per million.
    enum Fate: Sendable, Equatable, CaseIterable {
        /// Every step done within the time allowed.
        case onTime
        /// Every step done, the last after the deadline.
        case late
        /// A step failed after its retries.
        case failed
        /// A step still being retried past the deadline (overdue).
        case retrying
        /// A step reported success the target could not prove.
        case unverified
        /// A legal hold in force: nothing ran.
        case held
        /// The deadline was extended and the erasure completed within the new one.
        case extended
        /// The request was refused on a stated basis: its open jobs cancelled.
        case denied
    }

    /// Shares of each fate, parts per million, in ``Fate`` order; on time takes the rest.
    static let fateShares: [(Fate, UInt64)] = [
        (.late, 30_000), (.failed, 8_000), (.retrying, 7_000), (.unverified, 2_000), (.held, 2_000),
        (.extended, 3_000), (.denied, 1_000),
    ]
    /// Shares of each trigger, parts per million; account-deleted takes the rest.
    static let inAppPerMillion: UInt64 = 200_000
    static let consentRevokedPerMillion: UInt64 = 100_000
    /// Of in-app deletions: no Apple token was held, so the revocation could not run.
    static let noTokenPerMillion: UInt64 = 30_000
    /// Of deletions: the notification arrived twice (a `duplicate` input in the history).
    static let duplicatePerMillion: UInt64 = 20_000
    /// Of failed and overdue requests: the ones the last reconcile reported (a finding each).
    static let findingPerMillion: UInt64 = 100_000

    let count: Int
    let seed: UInt64
    let period: ReportPeriod

    private func draw(_ index: Int, _ stream: UInt64) -> UInt64 {
        ReconcileBenchmarkPopulation.draw(seed, index, stream)
    }

    private func perMillion(_ index: Int, _ stream: UInt64) -> UInt64 { draw(index, stream) % 1_000_000 }

    /// `00000042.<32 hex>.0456`, index first so index order is `sub` byte order (as in the reconcile benchmark).
    func subject(_ index: Int) -> String {
        func padded(_ text: String, _ width: Int) -> String {
            text.count >= width ? text : String(repeating: "0", count: width - text.count) + text
        }
        return padded(String(index), 8) + "." + padded(String(draw(index, 10), radix: 16), 16)
            + padded(String(draw(index, 11), radix: 16), 16) + "." + padded(String(draw(index, 12) % 10_000), 4)
    }

    func trigger(_ index: Int) -> PolicyTrigger {
        let roll = perMillion(index, 1)
        if roll < Self.consentRevokedPerMillion { return .consentRevoked }
        if roll < Self.consentRevokedPerMillion + Self.inAppPerMillion { return .inAppDeletion }
        return .accountDeleted
    }

    /// Spread uniformly over the period, to the millisecond.
    func eventTime(_ index: Int) -> Instant {
        let span = UInt64(max(1, period.to.millisecondsSinceEpoch - period.from.millisecondsSinceEpoch))
        return Instant(millisecondsSinceEpoch: period.from.millisecondsSinceEpoch + Int64(draw(index, 2) % span))
    }

    /// Received a few seconds after the event.
    func receivedAt(_ index: Int) -> Instant {
        eventTime(index).adding(milliseconds: 200 + Int64(draw(index, 3) % 5_000))
    }

    func fate(_ index: Int) -> Fate {
        let roll = perMillion(index, 4)
        var bound: UInt64 = 0
        for (fate, share) in Self.fateShares {
            bound += share
            if roll < bound { return fate }
        }
        return .onTime
    }

    func hasDuplicate(_ index: Int) -> Bool { perMillion(index, 5) < Self.duplicatePerMillion }
    func revocationHadNoToken(_ index: Int) -> Bool { perMillion(index, 6) < Self.noTokenPerMillion }
    func hasFinding(_ index: Int) -> Bool {
        (fate(index) == .failed || fate(index) == .retrying) && perMillion(index, 7) < Self.findingPerMillion
    }

    /// Hours after the job's `notBefore` a step finished: within a day or two, as a runner under load.
    func hoursToFinish(_ index: Int, step: Int) -> Int64 { 1 + Int64(draw(index, 20 &+ UInt64(step)) % 40) }
    /// Days past the deadline a late request completed.
    func daysLate(_ index: Int) -> Int64 { 1 + Int64(draw(index, 8) % 12) }
}
