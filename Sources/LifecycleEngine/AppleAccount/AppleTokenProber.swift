import AppleAccountAPI
import LifecycleCore
import LifecycleStore
import Synchronization

/// The daily probe of held Apple refresh tokens (Apple, "Generate and validate tokens"): Apple documents no
/// redelivery of its notifications, and a stored refresh token of a user who revoked consent or deleted the
/// Apple Account is refused with `invalid_grant` — the only outside truth about a notification that never
/// arrived.
///
/// For every app with `signInWithApple`, tokens are claimed in the store (``StoreWriter/claimAppleTokenProbes(app:now:limit:)``:
/// at most once a day per token, for every instance at once, each a day after its previous probe or its link,
/// so the probes are spread over the day as the links were), then validated with one `refresh_token` grant
/// each, no more than `apple.probe.maxPerSecond` per second. The answer decides:
/// - tokens issued: nothing to do until tomorrow;
/// - `invalid_grant`: a `credentials-invalid` input through the state machine, in one transaction — sessions
///   end, the dead token is dropped, nothing is scheduled for erasure (it is not proof of a deletion: a
///   password change does it too); the reconcile then reports a `credentials-invalid` finding for the app to
///   confirm with `getCredentialState` on the device;
/// - `invalid_client` (or `unauthorized_client`, an unsignable secret): no account changes; the claim is given
///   back, probing pauses for the app until the configuration is reloaded (SIGHUP) or `serve` restarts, and
///   the pause is an error line, `lifecycle_apple_probe_paused{app}` and a `/readyz` warning;
/// - 5xx, 429, a timeout: the claim is given back, the token tried again after `apple.probe.retrySeconds` (or
///   Apple's `Retry-After` when longer), so the day's probe is not lost.
///
/// A process that dies between a claim and its grant loses that token's probe for the day: the claim is the
/// once-a-day guarantee, and a second probe is what Apple asks not to receive.
public final class AppleTokenProber: Sendable {
    /// The probe settings, the Apple clients, and the account transitions in force.
    public typealias Settings = (
        configuration: AppleProbeConfiguration, apple: AppleAccountServices, apps: [String],
        transitions: AccountTransitionRecorder
    )

    let store: any Store
    let vault: SubjectKeyVault
    let settings: @Sendable () -> Settings
    let clock: any LifecycleClock
    let log: EventLog
    let committed: WakeSignal?
    let instruments: AppleProbeMetrics
    let transitionMetrics: AccountTransitionMetrics
    /// The apps whose probing is paused, with the refusal's code.
    private let pausedApps = Mutex<[String: String]>([:])
    /// When the next grant may be sent (monotonic nanoseconds): the rate limit.
    private let nextSlot = Mutex<UInt64>(0)

    package init(
        store: any Store, vault: SubjectKeyVault, settings: @escaping @Sendable () -> Settings,
        clock: any LifecycleClock, metrics: MetricsRegistry, log: EventLog, committed: WakeSignal? = nil
    ) {
        self.store = store
        self.vault = vault
        self.settings = settings
        self.clock = clock
        self.log = log
        self.committed = committed
        instruments = AppleProbeMetrics(metrics)
        transitionMetrics = AccountTransitionMetrics(metrics)
    }

    /// A prober under the configuration in force in `context`, which `serve` replaces on SIGHUP.
    public convenience init(context: ServiceContext) {
        self.init(
            store: context.store, vault: context.vault,
            settings: {
                let active = context.current
                return (
                    active.configuration.apple.probe, active.apple, active.configuration.apps.map(\.id),
                    active.transitions
                )
            }, clock: context.clock, metrics: context.metrics, log: context.log, committed: context.outboxSignal)
    }

    /// The apps whose probing is paused, each with the code Apple answered, sorted by app.
    public var paused: [(app: String, error: String)] {
        pausedApps.withLock { $0 }.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
    }

    /// Ends every pause: a reload may have fixed the credentials.
    public func resume() {
        let resumed = pausedApps.withLock { paused in
            defer { paused.removeAll() }
            return Array(paused.keys)
        }
        for app in resumed {
            instruments.paused.set([("app", app)], to: 0)
            log.info("apple.probe_resumed", [("app", .string(app))])
        }
    }

    /// The background loop of `serve`: probes every due token, then sleeps `pollSeconds`, until cancelled. A
    /// store failure is logged and retried on the next round.
    public func run() async {
        while !Task.isCancelled {
            do {
                try await runOnce()
            } catch {
                log.log(.error, "apple.probe_run_failed", [("error", .string(String(describing: error)))])
            }
            try? await Task.sleep(for: .seconds(settings().configuration.pollSeconds))
        }
    }

    /// Probes every token due now, app by app, batch after batch, until no app has one due; returns the probes
    /// made. Each token is claimed once a day at most, so this ends.
    @discardableResult
    public func runOnce() async throws -> Int {
        var probes = 0
        let settings = settings()
        guard settings.configuration.enabled else { return 0 }
        for app in settings.apps {
            guard let client = settings.apple.apps[app]?.client else { continue }
            while !Task.isCancelled, pausedApps.withLock({ $0[app] == nil }) {
                let now = clock.now()
                let limit = settings.configuration.maxPerSecond
                let claims = try await store.write { writer in
                    try writer.claimAppleTokenProbes(app: app, now: now, limit: limit)
                }
                if claims.isEmpty { break }
                for (index, claim) in claims.enumerated() {
                    if pausedApps.withLock({ $0[app] != nil }) {
                        // Refused mid-batch: the rest of the batch goes back untouched.
                        for rest in claims[index...] { try await release(rest, retryAt: nil) }
                        break
                    }
                    await waitForSlot(settings.configuration.maxPerSecond)
                    try await probe(claim, client: client, settings: settings)
                    probes += 1
                }
            }
        }
        return probes
    }

    /// Spaces grants `1 / maxPerSecond` apart on the monotonic clock.
    private func waitForSlot(_ maxPerSecond: Int) async {
        let spacing = 1_000_000_000 / UInt64(max(1, maxPerSecond))
        let now = clock.monotonicNanoseconds()
        let slot = nextSlot.withLock { next in
            let slot = max(next, now)
            next = slot + spacing
            return slot
        }
        if slot > now { try? await Task.sleep(for: .nanoseconds(Int64(slot - now))) }
    }

    private func probe(_ claim: AppleTokenProbeClaim, client: AppleRESTClient, settings: Settings) async throws {
        let (app, subject, vault) = (claim.app, claim.subject, vault)
        guard
            let token = try await store.read({ reader in try vault.appleToken(app: app, subject: subject, in: reader) })
        else {
            // Dropped or erased since the claim: nothing left to ask Apple about.
            return
        }
        let started = clock.monotonicNanoseconds()
        let answer = await client.refresh(AppleRefreshToken(token), clientID: claim.clientID)
        let seconds = Double(clock.monotonicNanoseconds() &- started) / 1e9
        let outcome: AppleProbeOutcome
        switch answer {
        case .success:
            outcome = .valid
        case .failure(.invalidGrant):
            outcome = .invalidGrant
            try await recordCredentialsInvalid(claim, transitions: settings.transitions)
        case .failure(let error) where error.isTransient:
            outcome = .retry
            var delay = Int64(settings.configuration.retrySeconds)
            if case .rateLimited(let retryAfter?) = error { delay = max(delay, retryAfter) }
            try await release(claim, retryAt: clock.now().adding(seconds: delay))
            log.log(
                .info, "apple.probe_retry", app: app, subject: subject,
                [("error", .string(error.code)), ("retryInSeconds", .integer(delay))])
        case .failure(let error):
            switch error {
            case .invalidClient, .unauthorizedClient, .clientSecretUnavailable:
                outcome = .clientRefused
                try await release(claim, retryAt: nil)
                pause(app, error: error.code)
            case .invalidGrant, .invalidRequest, .unsupportedGrantType, .invalidScope, .rateLimited, .serverError,
                .timeout, .transport, .malformedResponse:
                outcome = .failed
                log.log(.warning, "apple.probe_failed", app: app, subject: subject, [("error", .string(error.code))])
            }
        }
        instruments.probes.increment([("outcome", outcome.rawValue)])
        instruments.durationSeconds.observe([("outcome", outcome.rawValue)], value: max(0, seconds))
    }

    /// `invalid_grant`: the `credentials-invalid` input and its effects (sessions ended, the token dropped) in
    /// one transaction, as every other input is applied.
    private func recordCredentialsInvalid(
        _ claim: AppleTokenProbeClaim, transitions: AccountTransitionRecorder
    ) async throws {
        let now = clock.now()
        let context = TransitionContext(
            app: claim.app, subject: claim.subject,
            input: AccountInput(
                kind: .credentialsInvalid, eventTime: claim.claimedAt, receivedAt: now,
                identity: "apple-probe:\(claim.claimedAt.iso8601)"),
            source: "reconciler")
        let outcome = try await store.write { writer in try transitions.apply(context, in: writer) }
        committed?.notify()
        transitionMetrics.record(outcome)
        log.log(
            .warning, "apple.probe_credentials_invalid", app: claim.app, subject: claim.subject,
            [
                ("disposition", .string(outcome.disposition.canonicalName)),
                ("state", .string(outcome.state.canonicalName)),
            ])
    }

    private func release(_ claim: AppleTokenProbeClaim, retryAt: Instant?) async throws {
        _ = try await store.write { writer in try writer.releaseAppleTokenProbe(claim, retryAt: retryAt) }
    }

    private func pause(_ app: String, error: String) {
        let first = pausedApps.withLock { paused in
            defer { paused[app] = error }
            return paused[app] == nil
        }
        guard first else { return }
        instruments.paused.set([("app", app)], to: 1)
        log.log(
            .error, "apple.probe_paused",
            [
                ("app", .string(app)), ("error", .string(error)),
                (
                    "fix",
                    "check the app's signInWithApple credentials (lifecycle apple check), then reload (SIGHUP)"
                ),
            ])
    }
}
