import AppleNotifications
import Foundation
import HTTP1
import HTTPServer
import LifecycleCore
import LifecycleEngine
import LifecycleReconcile
import LifecycleStore
import Synchronization

/// `lifecycle serve` as an object: starts the listeners and background work over one ``ServiceContext``,
/// reloads on demand (SIGHUP: ``reload()``), and stops gracefully. Tests run it in-process on ephemeral ports.
///
/// Everything that depends on the configuration reads the context's ``ActiveConfiguration`` once per unit of
/// work — the notification endpoint per request, the outbox per delivery round, the erasure runner per round,
/// the admin API per request, the reconciler per run, the schedule per night — so a reload is one swap.
public final class ServiceRuntime: Sendable {
    public let context: ServiceContext
    public let configurationFile: String?
    /// Identifies this process in heartbeats and leases (``ProcessIdentity``: host, pid, start time), so a gap
    /// is judged per instance and a lock held by a process that is gone can be taken over.
    public let instanceID: String

    /// Executes due erasure steps in the background (`erasure` settings); also what the admin API's job
    /// routes call (``ErasureJobRunner/completeCallback(jobID:target:outcome:evidence:)``, ``ErasureJobRunner/retry(jobID:)``).
    public let erasureRunner: ErasureJobRunner
    private let publicServer: HTTPServer
    let outbox: OutboxDispatcher
    /// Revokes and verifies the Apple tokens of in-app deletions (`apple.revocation` settings).
    let revocations: AppleRevocationWorker
    /// Validates held Apple refresh tokens once a day (`apple.probe` settings).
    let probes: AppleTokenProber
    /// The poll workers of the Shared Signals poll streams (RFC 8936).
    let signalPolls: SignalPollWorkers
    private let reloads: Counter
    private let heartbeats: Counter
    private let lastHeartbeat: Gauge
    /// The admin listener, once `start()` built it (nil when `admin.enabled` is false).
    private let adminServer = Mutex<HTTPServer?>(nil)
    /// Where secrets such as `LIFECYCLE_ADMIN_TOKEN` are read from.
    private let environment: [String: String]
    /// systemd's `NOTIFY_SOCKET` (`Type=notify`): READY=1 once the listeners are up, STOPPING=1 at the drain.
    private let serviceManager: ServiceManagerNotifier
    private let background = Mutex<[Task<Void, Never>]>([])
    private let stopped = Mutex<Bool>(false)
    /// Set once the public listener accepts and the start heartbeat is written; only then does a stop record one.
    private let receiving = Mutex<Bool>(false)
    /// Whether the last heartbeat was skipped for want of Apple's key set (``recordHeartbeat(kind:)``).
    private let heartbeatsSkipped = Mutex<Bool>(false)
    /// Rung after a reload, so the schedule loop re-reads `reconcile.dailyAt`.
    private let rescheduled = WakeSignal()
    /// Rung after a reload, so the master-key rotation loop re-reads `keys.rotateEveryDays`.
    let rotationRescheduled = WakeSignal()

    public init(
        context: ServiceContext, configurationFile: String? = nil,
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) {
        self.context = context
        self.environment = environment
        self.serviceManager = ServiceManagerNotifier(environment: environment)
        self.configurationFile = configurationFile
        self.instanceID = ProcessIdentity.current.description
        self.erasureRunner = ErasureJobRunner(context: context, owner: instanceID)
        let configuration = context.configuration
        let tls = context.tls
        let probes = AppleTokenProber(context: context)
        self.probes = probes
        let routes = PublicRoutes(
            notificationPath: configuration.publicListener.notificationPath,
            servesMetrics: configuration.publicListener.metrics, ingestor: { context.current.ingestor },
            signals: { context.current.signals },
            store: context.store, keys: context.keys,
            metrics: context.metrics, clock: context.clock,
            readinessDetails: {
                var details: JSONObject =
                    if let tls {
                        ["certificateDaysUntilExpiry": .integer(Int64(tls.daysUntilExpiry()))]
                    } else {
                        ["tls": "terminated upstream"]
                    }
                // Warnings leave the instance ready: notifications are still received.
                let warnings = probes.paused.map { paused in
                    JSONValue.string(
                        "apple probe paused for app \(paused.app): Apple answered \(paused.error); check its "
                            + "signInWithApple credentials (lifecycle apple check), then reload")
                }
                if !warnings.isEmpty { details["warnings"] = .array(warnings) }
                return details
            })
        if let tls {
            // A point in time in seconds, as Prometheus' base units ask (the blackbox exporter's
            // probe_ssl_earliest_cert_expiry too): alert on `... - time() < 30 * 86400`.
            let expiry = context.metrics.gauge(
                "lifecycle_tls_certificate_expiry_timestamp_seconds",
                help: "Unix time at which the public listener's certificate expires (its notAfter).")
            context.metrics.collect { [(expiry, [], tls.certificate.notAfter.timeIntervalSince1970.rounded())] }
        }
        var serverConfiguration = Self.serverConfiguration(configuration.publicListener)
        if let tls { serverConfiguration.transport = .tls(tls) }
        serverConfiguration.responseObserver = ResponseCounter.observer(listener: "public", metrics: context.metrics)
        publicServer = HTTPServer(configuration: serverConfiguration, handler: routes.handle)
        outbox = OutboxDispatcher(
            store: context.store,
            settings: {
                let active = context.current
                return (active.configuration.outbox, active.webhookDelivery)
            }, owner: instanceID, clock: context.clock, metrics: context.metrics, log: context.log,
            signal: context.outboxSignal)
        revocations = AppleRevocationWorker(context: context, owner: instanceID)
        signalPolls = SignalPollWorkers(context: context, environment: environment)
        reloads = context.metrics.counter(
            "lifecycle_config_reloads_total",
            help: "SIGHUP reloads of the configuration file, by result (applied, refused).")
        heartbeats = context.metrics.counter(
            "lifecycle_heartbeats_total", help: "Heartbeats this instance recorded in the store.")
        lastHeartbeat = context.metrics.gauge(
            "lifecycle_last_heartbeat_timestamp_seconds", help: "Unix time of this instance's last recorded heartbeat.")
    }

    static func serverConfiguration(_ listener: PublicListenerConfiguration) -> HTTPServerConfiguration {
        var server = HTTPServerConfiguration(host: listener.host, port: listener.port)
        server.limits.maxBodyLength = listener.maxBodyBytes
        server.maxConnections = listener.maxConnections
        server.headerReadTimeout = .milliseconds(listener.headerTimeoutMilliseconds)
        server.bodyReadTimeout = .milliseconds(listener.bodyTimeoutMilliseconds)
        server.idleTimeout = .milliseconds(listener.idleTimeoutMilliseconds)
        server.writeTimeout = .milliseconds(listener.writeTimeoutMilliseconds)
        return server
    }

    /// The public listener's port (the real one when the configuration asked for port 0).
    public var publicPort: Int? { publicServer.boundPort }

    /// The admin listener's port, nil while it is not running.
    public var adminPort: Int? { adminServer.withLock { $0 }?.boundPort }

    /// Loads keys, binds the listeners and starts background work. Returns once traffic is accepted.
    public func start() async throws {
        let log = context.log
        // Before anything binds: an enabled admin listener without a token refuses to start.
        context.activate(adminToken: try AdminListener.token(for: context.configuration, environment: environment))
        let admin = AdminListener.makeServer(context: context, erasure: erasureRunner)
        if let error = await context.keys.refresh() {
            // Not fatal: readiness reports it, and the key sets' retry (retryUnloadedKeySets) fetches again.
            log.log(.error, "keys.load_failed", [("error", .string(String(describing: error)))])
        }
        try await recordMasterKeys()
        try publicServer.start()
        if let admin {
            adminServer.withLock { $0 = admin }
            try admin.start()
            log.info("admin.started", [("admin", .string("\(context.configuration.admin.host):\(adminPort ?? 0)"))])
        }
        // A heartbeat says "this instance was receiving" (the reconcile's notification-gap reads them so): the
        // first is written once both listeners accept, never by a start that fails before (a taken admin port
        // included), which a restart loop on a broken configuration would otherwise repeat every few seconds
        // through an outage.
        try await recordHeartbeat(kind: "start")
        receiving.withLock { $0 = true }
        log.info(
            "serve.started",
            [
                ("public", .string("\(context.configuration.publicListener.host):\(publicPort ?? 0)")),
                ("path", .string(context.configuration.publicListener.notificationPath)),
                ("store", .string(context.configuration.storage.redactedURL)), ("instance", .string(instanceID)),
            ])
        warnAboutErasureGaps()
        let context = self.context
        for receiver in context.signals.allReceivers {
            // Each provider's key set is loaded now, without holding up start: a transmitter that is down
            // only delays its own SETs (503, which it retries), and the key sets' retry fetches again. A stop
            // does not wait for a fetch that hangs: the wait ends with the task, the fetch at its own timeout.
            startBackground {
                if case .failed(let error) = await receiver.keys.refreshIfUnloaded() {
                    log.log(
                        .error, "signal.keys_load_failed", app: receiver.app,
                        [("provider", .string(receiver.provider.id)), ("error", .string(String(describing: error)))])
                }
            }
        }
        startBackground { [self] in await retryUnloadedKeySets() }
        startBackground { [self] in await heartbeatLoop() }
        startMasterKeyWork()
        startBackground { [outbox] in await outbox.run() }
        startBackground { [revocations] in await revocations.run() }
        startBackground { [probes] in await probes.run() }
        // Runs in the rounds where the configuration in force says erasure.runInServe, so a reload can turn it
        // on or off.
        startBackground { [erasureRunner] in
            await erasureRunner.run(enabled: { context.configuration.erasure.runInServe })
        }
        // The nightly reconcile and its reports do not depend on erasure.runInServe: that flag is about the
        // erasure runner alone.
        startBackground { [self] in await scheduledReconcileLoop() }
        startBackground { [self] in await recoverReports() }
        startBackground { [context] in
            do {
                try await context.ingestor.restoreLastAccepted()
            } catch {
                context.log.log(
                    .error, "metrics.restore_failed",
                    [
                        ("metric", "lifecycle_last_accepted_notification_timestamp_seconds"),
                        ("error", .string(String(describing: error))),
                    ])
            }
        }
        startBackground { [self] in await retentionLoop() }
        signalPolls.reconcile()
        // Both listeners accept connections and background work runs: systemd may start what depends on us.
        tellServiceManager("READY=1\nSTATUS=serving", event: "ready")
    }

    /// One sd_notify message; a failure is logged once and changes nothing else (systemd then times the
    /// start out, which says more than a service that refused to run would).
    private func tellServiceManager(_ state: String, event: String) {
        do {
            if try serviceManager.notify(state) { context.log.debug("systemd.notified", [("state", .string(event))]) }
        } catch {
            context.log.log(
                .error, "systemd.notify_failed",
                [("state", .string(event)), ("error", .string(String(describing: error)))])
        }
    }

    /// One warning per app where a deletion would erase less than it asks for: no erasure mapping at all
    /// (`erasure.unmapped_app`), or a policy with no rule for a kind of deletion (`erasure.deletion_not_covered`).
    private func warnAboutErasureGaps() {
        for app in context.configuration.apps {
            guard let erasure = app.erasure else {
                context.log.warning("erasure.unmapped_app", [("app", .string(app.id))])
                continue
            }
            // A deletion of a kind the app's policy has no rule for erases none of its categories (only the
            // policy's retain[] purges are scheduled).
            guard let policy = context.configuration.policies[erasure.policyID], !policy.uncoveredDeletions.isEmpty
            else { continue }
            context.log.warning(
                "erasure.deletion_not_covered",
                [
                    ("app", .string(app.id)), ("policy", .string(policy.reference)),
                    ("triggers", .array(policy.uncoveredDeletions.map { .string($0.rawValue) })),
                ])
        }
    }

    func startBackground(_ work: @escaping @Sendable () async -> Void) {
        background.withLock { $0.append(Task { await work() }) }
    }

    /// The liveness record the reconciler reads to find windows when nothing could have been received. Written
    /// only while Apple's key set is loaded: without it every notification is answered 503, so the instance is
    /// not receiving, and a key outage longer than Apple's retries must read as a `notification-gap`, not be
    /// covered by heartbeats. The first skipped one logs `heartbeat.skipped`, the first written after them
    /// `heartbeat.resumed`: a line per change, not per tick.
    private func recordHeartbeat(kind: String) async throws {
        let hasKeys = context.keys.hasKeys
        let wasSkipped = heartbeatsSkipped.withLock { skipped in
            defer { skipped = !hasKeys }
            return skipped
        }
        guard hasKeys else {
            if !wasSkipped {
                context.log.warning(
                    "heartbeat.skipped",
                    [
                        ("kind", .string(kind)),
                        ("reason", "Apple's key set is not loaded: notifications are answered 503 until it is"),
                    ])
            }
            return
        }
        if wasSkipped { context.log.info("heartbeat.resumed", [("kind", .string(kind))]) }
        let now = context.clock.now()
        let instance = instanceID
        try await context.store.write { writer in try writer.recordHeartbeat(instance: instance, at: now) }
        heartbeats.increment()
        lastHeartbeat.set(to: Double(now.secondsSinceEpoch))
        context.log.debug("heartbeat.\(kind)")
    }

    /// A heartbeat every `reconcile.heartbeatSeconds` (default 60), shorter than the gap threshold.
    private func heartbeatLoop() async {
        while !Task.isCancelled {
            try? await Task.sleep(for: .seconds(context.configuration.reconcile.heartbeatSeconds))
            if Task.isCancelled { return }
            do {
                try await recordHeartbeat(kind: "tick")
                try await recordMasterKeys()
            } catch {
                context.log.log(.error, "heartbeat.failed", [("error", .string(String(describing: error)))])
            }
        }
    }

    /// `reconcile.dailyAt`: sleeps until the next local occurrence, reconciles every app, then writes the day's
    /// reports — also after a failed run, whose reports then carry the last completed run's findings. With
    /// several instances the run lock lets one of them reconcile; the others log `reconcile.scheduled_busy`
    /// and leave the reports to it. The schedule is read from the configuration in force and again after each
    /// reload; without `dailyAt` the loop only waits for a reload.
    ///
    /// An occurrence missed while no instance ran (a deploy or a reboot across `dailyAt`) is run at once when
    /// the loop starts, as a systemd timer with `Persistent=true` does: when an app's reports are recorded for
    /// an earlier day but not for the day of the last occurrence (``missedApps(day:)``), `reconcile.caught_up`
    /// is logged and that day's reconcile and reports run. Only the last occurrence is caught up, since each
    /// report covers the last 30 days; and each occurrence is tried at most once by this process, so a failed
    /// report waits for the next day rather than being retried in a loop.
    private func scheduledReconcileLoop() async {
        var attempted: Instant?
        while !Task.isCancelled {
            let settings = context.configuration.reconcile
            guard let daily = settings.dailyAt, let zone = TimeZone(identifier: settings.timeZone) else {
                await rescheduled.wait(timeout: .seconds(3600))
                continue
            }
            let schedule = DailySchedule(hour: daily.hour, minute: daily.minute, timeZone: zone)
            let now = context.clock.now()
            let last = schedule.previous(atOrBefore: now)
            if last != attempted {
                let day = schedule.day(of: last)
                let missed = await missedApps(day: day)
                if !missed.isEmpty {
                    attempted = last
                    context.log.info(
                        "reconcile.caught_up",
                        [
                            ("day", .string(day)), ("missedAt", .string(last.iso8601)),
                            ("apps", .array(missed.map { .string($0) })),
                        ])
                    await runScheduledDay(day, occurrence: last)
                    continue
                }
            }
            let next = schedule.next(after: now)
            context.log.info("reconcile.scheduled", [("at", .string(next.iso8601))])
            // Woken early by a reload: the schedule is read again.
            while !Task.isCancelled, context.clock.now() < next, context.configuration.reconcile == settings {
                let wait = next.millisecondsSinceEpoch - context.clock.now().millisecondsSinceEpoch
                await rescheduled.wait(timeout: .milliseconds(max(1, wait)))
            }
            if Task.isCancelled { return }
            guard context.configuration.reconcile == settings else { continue }
            attempted = next
            await runScheduledDay(schedule.day(of: next), occurrence: next)
        }
    }

    /// The apps whose reports are recorded as written for a day before `day` and not for `day`: the ones an
    /// earlier instance served on the schedule that missed it. An app never written for (a first start, an app
    /// just added) waits for the schedule. A store that cannot be read gives none, logged.
    private func missedApps(day: String) async -> [String] {
        let apps = context.configuration.apps.map(\.id)
        do {
            return try await context.store.read { reader in
                try apps.filter { app in
                    guard let last = try reader.lastDailyReportDay(app: app) else { return false }
                    return last < day
                }
            }
        } catch {
            context.log.log(.error, "reconcile.catch_up_failed", [("error", .string(String(describing: error)))])
            return []
        }
    }

    /// The apps whose reports are not recorded as written for `day`; every app when the store cannot be read.
    private func unwrittenApps(day: String) async -> [String] {
        let apps = context.configuration.apps.map(\.id)
        do {
            return try await context.store.read { reader in
                try apps.filter { try reader.dailyReport(day: day, app: $0) == nil }
            }
        } catch {
            context.log.log(
                .error, "report.check_failed", [("day", .string(day)), ("error", .string(String(describing: error)))])
            return apps
        }
    }

    /// One scheduled day: the reconcile of every app, then the day's reports.
    ///
    /// When another process holds the reconcile (`reconcile.scheduled_busy`), its lease is waited out, at most
    /// `reconcile.leaseSeconds` plus a second: a `serve` that holds it writes the day's reports itself, and once
    /// they are recorded (looked at every 2 s) nothing more is done (`report.skipped`). When some app's are not
    /// recorded by then (the holder died on another host, where its process cannot be checked, or it was a
    /// `lifecycle reconcile` from cron), the day is run once more here, taking the lock over once its lease has
    /// run out; busy again, it is left (`report.skipped`).
    ///
    /// A stop (SIGTERM) ends it wherever it is: the reconcile is recorded as failed, a report before its manifest
    /// line leaves nothing (`report.stopped`), and the next start's catch-up runs what is left.
    private func runScheduledDay(_ day: String, occurrence: Instant, afterBusy: Bool = false) async {
        do {
            _ = try await Reconciler(
                store: context.store, log: context.log, clock: context.clock,
                active: { [context] in context.current },
                owner: instanceID
            ).run(asOf: context.clock.now())
        } catch Reconciler.Failure.busy(let holder) {
            context.log.info(
                "reconcile.scheduled_busy", [("day", .string(day)), ("holder", .string(holder.owner))])
            func skipped(_ reason: String) {
                context.log.info("report.skipped", [("day", .string(day)), ("reason", .string(reason))])
            }
            guard !afterBusy else { return skipped("another instance still runs the reconcile") }
            // Looked at every 2 s, so a holder that is done early ends the wait early.
            let lease = Int64(context.configuration.reconcile.leaseSeconds) * 1000
            let end = min(holder.leasedUntil, context.clock.now().adding(milliseconds: lease)).adding(seconds: 1)
            while true {
                guard await !unwrittenApps(day: day).isEmpty else { return skipped("another instance wrote them") }
                let left = end.millisecondsSinceEpoch - context.clock.now().millisecondsSinceEpoch
                if left <= 0 { break }
                do { try await Task.sleep(for: .milliseconds(min(left, 2000))) } catch { return }
            }
            return await runScheduledDay(day, occurrence: occurrence, afterBusy: true)
        } catch {
            context.log.log(
                .warning, "reconcile.scheduled_run_failed", [("error", .string(String(describing: error)))])
        }
        guard !Task.isCancelled else { return }
        await writeDailyReports(day: day, since: occurrence)
    }

    /// SIGHUP. Re-reads the configuration file and builds the whole configuration in force from it — apps and
    /// audiences, account transitions with their outbox and erasure effects (each app's policy: jobs scheduled
    /// from now on follow it, scheduled ones keep theirs), webhook signers and endpoints, the erasure runner's
    /// and the outbox's settings, the admin token, the schedules (reconcile, master-key rotation), the log
    /// level, and the master keys of `secrets.masterKeyFile` — and swaps it in at once. A file that does not
    /// load (unreadable, invalid, a missing secret, a master key file that cannot be read or lacks a key the
    /// store needs) changes nothing: one `reload.refused` line says why. Settings bound at start (store,
    /// listeners, JWKS source, pseudonym key, where the master keys come from) keep their running values and
    /// `reload.restart_required` names them. Then the master keys the store has retired are destroyed in the
    /// key file (``settleMasterKeys(reason:)``), the TLS certificate is reloaded and the key set re-fetched;
    /// `lifecycle_config_reloads_total{result}` counts the reload once all of that is done.
    public func reload() async {
        let log = context.log
        var result: String?
        if let file = configurationFile {
            do {
                let fresh = try ServiceConfiguration.load(file: file, environment: environment)
                let (next, kept) = fresh.keepingStartupSettings(of: context.configuration)
                let masterKeys = try await context.vault.readMasterKeys(checkingAgainst: context.store)
                let active = try context.prepare(
                    next, adminToken: try AdminListener.token(for: next, environment: environment),
                    environment: environment)
                context.activate(active, masterKeys: masterKeys)
                signalPolls.reconcile()
                rescheduled.notify()
                rotationRescheduled.notify()
                context.outboxSignal.notify()
                probes.resume()
                if !kept.isEmpty {
                    log.warning(
                        "reload.restart_required",
                        [("kept", .array(kept.map { .string($0) })), ("reason", "bound when serve started")])
                }
                log.info("reload.configuration", [("apps", .integer(Int64(next.apps.count)))])
                warnAboutErasureGaps()
                await settleMasterKeys(reason: "reload")
                result = "applied"
            } catch {
                log.log(.error, "reload.refused", [("error", .string(Self.oneLine(error)))])
                result = "refused"
            }
        }
        if let tls = context.tls {
            do {
                try tls.reload()
                log.info("reload.certificate", [("daysUntilExpiry", .integer(Int64(tls.daysUntilExpiry())))])
            } catch {
                log.log(.error, "reload.certificate_refused", [("error", .string(error.message))])
            }
        }
        if let error = await context.keys.refresh() {
            log.log(.error, "reload.keys_failed", [("error", .string(String(describing: error)))])
        } else {
            log.info("reload.keys", [("keys", .integer(Int64(context.keys.statistics.keyCount)))])
        }
        if let result { reloads.increment([("result", result)]) }
    }

    /// An error as one line (a description never spans lines in a log field): as a command prints it.
    static func oneLine(_ error: any Error) -> String { String(oneLine: error) }

    /// Stops accepting, lets in-flight requests finish and answer, stops background work, records the stop
    /// and closes the store. Idempotent.
    public func stop() async {
        let first = stopped.withLock { stopped in
            defer { stopped = true }
            return !stopped
        }
        guard first else { return }
        tellServiceManager("STOPPING=1\nSTATUS=draining", event: "stopping")
        await publicServer.shutdown()
        if let admin = adminServer.withLock({ $0 }) { await admin.shutdown() }
        // Before the store closes: each poll worker reports the outcomes of the SETs it stored.
        await signalPolls.stopAll()
        let tasks = background.withLock { tasks in
            defer { tasks = [] }
            return tasks
        }
        for task in tasks { task.cancel() }
        for task in tasks { await task.value }
        let received = receiving.withLock { $0 }
        if received { try? await recordHeartbeat(kind: "stop") }
        let instance = instanceID
        let now = context.clock.now()
        try? await context.store.write {
            try $0.recordInstanceMasterKeys(instance: instance, masterKeyIDs: nil, at: now)
        }
        // A start that failed before the public listener accepted logged `serve.start_failed`: it never ran, so
        // no `serve.stopped` pairs with a `serve.started` that was never logged.
        if received { context.log.info("serve.stopped") }
        await context.close()
    }
}
