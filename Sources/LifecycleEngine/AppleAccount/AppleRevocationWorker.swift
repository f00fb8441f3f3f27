import AppleAccountAPI
import LifecycleCore
import LifecycleStore

/// Revokes the Apple tokens of deleted accounts and proves it (Apple, "Revoke tokens"; App Store Review
/// Guideline 5.1.1(v)). Works the `apple_revocations` queue a deletion's transaction filled: claims due rows
/// with a lease (so two instances never work one account at once), opens the account's sealed refresh token,
/// calls `/auth/revoke`, then makes one `refresh_token` grant that must answer `invalid_grant` — the only
/// proof, since `/auth/revoke` answers 200 even for a token Apple does not know. A token that still obtains
/// tokens is revoked again on the next attempt, up to `apple.revocation.verifyAttempts` revokes, then recorded
/// `unverified`. Failures are retried with backoff and survive restarts (the row stays `pending`; an expired
/// lease makes it claimable again). The final status clears the sealed token in the same transaction.
///
/// The service keeps no access tokens (they live an hour), so the refresh token is the one revoked; the
/// access-token fallback of `/auth/revoke` has nothing to send.
public final class AppleRevocationWorker: Sendable {
    /// The revocation settings and the Apple clients in force.
    public typealias Settings = (configuration: AppleRevocationConfiguration, apple: AppleAccountServices)

    let store: any Store
    let vault: SubjectKeyVault
    let settings: @Sendable () -> Settings
    let owner: String
    let clock: any LifecycleClock
    let log: EventLog
    let random: @Sendable () -> Double
    let instruments: AppleRevocationMetrics

    public init(
        store: any Store, vault: SubjectKeyVault, settings: @escaping @Sendable () -> Settings, owner: String,
        clock: any LifecycleClock, metrics: MetricsRegistry, log: EventLog,
        random: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) }
    ) {
        self.store = store
        self.vault = vault
        self.settings = settings
        self.owner = owner
        self.clock = clock
        self.log = log
        self.random = random
        instruments = AppleRevocationMetrics(metrics)
    }

    /// A worker under the configuration in force in `context`, which `serve` replaces on SIGHUP.
    public convenience init(context: ServiceContext, owner: String) {
        self.init(
            store: context.store, vault: context.vault,
            settings: {
                let active = context.current
                return (active.configuration.apple.revocation, active.apple)
            }, owner: owner, clock: context.clock, metrics: context.metrics, log: context.log)
    }

    /// The background loop of `serve`: works every due revocation, then sleeps `pollMilliseconds`, until
    /// cancelled. A store failure is logged and retried on the next round.
    public func run() async {
        while !Task.isCancelled {
            do {
                try await runOnce()
            } catch {
                log.log(.error, "apple.revocation_run_failed", [("error", .string(String(describing: error)))])
            }
            try? await Task.sleep(for: .milliseconds(settings().configuration.pollMilliseconds))
        }
    }

    /// Works every revocation due now, batch after batch, until a claim finds nothing; returns the attempts
    /// made. Each row's attempts are bounded by the retry schedule, so this ends.
    @discardableResult
    public func runOnce() async throws -> Int {
        var attempts = 0
        while !Task.isCancelled {
            let settings = settings()
            let now = clock.now()
            let leaseUntil = now.adding(milliseconds: Int64(settings.configuration.leaseSeconds) * 1000)
            let owner = owner
            let claimed = try await store.write { writer in
                try writer.claimAppleRevocations(now: now, owner: owner, leaseUntil: leaseUntil, limit: 8)
            }
            if claimed.isEmpty { break }
            for revocation in claimed {
                try await attempt(revocation, settings)
                attempts += 1
            }
        }
        try await refreshGauge()
        return attempts
    }

    /// What one attempt concluded.
    private enum Conclusion {
        case final(AppleRevocationStatus, revokedAt: Instant?, verifiedAt: Instant?, error: String?)
        case retry(revokedAt: Instant?, error: String)
    }

    private func attempt(_ revocation: StoredAppleRevocation, _ settings: Settings) async throws {
        let (app, subject) = (revocation.app, revocation.subject)
        let vault = vault
        let stored = try await store.read { reader in
            (
                try reader.appleToken(app: app, subject: subject),
                try vault.appleToken(app: app, subject: subject, in: reader)
            )
        }
        let conclusion: Conclusion
        if let row = stored.0, let token = stored.1 {
            conclusion = await revokeAndVerify(
                AppleRefreshToken(token), clientID: row.clientID, revocation: revocation, settings: settings)
        } else {
            // The token is gone (the queue never holds one the vault did not): nothing left to send.
            conclusion = .final(.noToken, revokedAt: nil, verifiedAt: nil, error: nil)
        }
        try await record(conclusion, revocation, settings)
    }

    private func revokeAndVerify(
        _ token: AppleRefreshToken, clientID: String, revocation: StoredAppleRevocation, settings: Settings
    ) async -> Conclusion {
        guard let client = settings.apple.apps[revocation.app]?.client else {
            return .retry(revokedAt: nil, error: "apple_not_configured")
        }
        switch await client.revoke(.refresh(token), clientID: clientID) {
        case .failure(let error):
            return .retry(revokedAt: nil, error: error.code)
        case .success:
            break
        }
        let revokedAt = clock.now()
        switch await client.refresh(token, clientID: clientID) {
        case .failure(.invalidGrant):
            return .final(.verified, revokedAt: revokedAt, verifiedAt: clock.now(), error: nil)
        case .failure(let error):
            // Revoked, not yet proved: the next attempt revokes again (harmless) and verifies.
            return .retry(revokedAt: revokedAt, error: error.code)
        case .success:
            if revocation.revokes + 1 >= settings.configuration.verifyAttempts {
                return .final(.unverified, revokedAt: revokedAt, verifiedAt: nil, error: "token_still_valid")
            }
            return .retry(revokedAt: revokedAt, error: "token_still_valid")
        }
    }

    private func record(
        _ conclusion: Conclusion, _ revocation: StoredAppleRevocation, _ settings: Settings
    ) async throws {
        let (id, owner, now) = (revocation.id, owner, clock.now())
        var final = conclusion
        var nextAttemptAt: Instant?
        if case .retry(let revokedAt, let error) = conclusion {
            if let delay = settings.configuration.retrySchedule.delay(
                afterAttempt: revocation.attempts, random: random())
            {
                nextAttemptAt = now.adding(milliseconds: delay)
            } else {
                // Out of attempts: a revoke Apple accepted but never proved is unverified, none at all failed.
                let accepted = revokedAt != nil || revocation.revokedAt != nil
                final = .final(
                    accepted ? .unverified : .failed, revokedAt: revokedAt, verifiedAt: nil, error: error)
            }
        }
        switch final {
        case .retry(let revokedAt, let error):
            let next = nextAttemptAt ?? now
            _ = try await store.write { writer in
                try writer.retryAppleRevocation(
                    id: id, owner: owner, revokedAt: revokedAt, error: error, nextAttemptAt: next)
            }
            instruments.attempts.increment([("outcome", "retry")])
            log.log(
                .info, "apple.revocation_retry", app: revocation.app, subject: revocation.subject,
                [("error", .string(error)), ("attempt", .integer(Int64(revocation.attempts)))])
        case .final(let status, let revokedAt, let verifiedAt, let error):
            let recorded = try await store.write { writer in
                try writer.finishAppleRevocation(
                    id: id, owner: owner, status: status, revokedAt: revokedAt, verifiedAt: verifiedAt, error: error,
                    at: now)
            }
            guard recorded else { return }
            instruments.attempts.increment([("outcome", status.rawValue)])
            let seconds =
                Double(now.millisecondsSinceEpoch - revocation.requestedAt.millisecondsSinceEpoch) / 1000
            instruments.completionSeconds.observe([("outcome", status.rawValue)], value: max(0, seconds))
            var fields: [(String, JSONValue)] = [("status", .string(status.rawValue))]
            if let error { fields.append(("error", .string(error))) }
            log.log(
                status == .verified ? .info : .warning, "apple.revocation", app: revocation.app,
                subject: revocation.subject, fields)
        }
    }

    private func refreshGauge() async throws {
        let counts = try await store.read { reader in try reader.appleRevocationCounts() }
        for (status, count) in counts {
            instruments.revocations.set([("status", status.rawValue)], to: Double(count))
        }
    }
}
