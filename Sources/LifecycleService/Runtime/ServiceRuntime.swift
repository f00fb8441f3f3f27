import AppleNotifications
import Foundation
import HTTP
import LifecycleCore
import LifecycleStore
import Synchronization

/// `lifecycle serve` as an object: starts the listeners and background work over one ``ServiceContext``,
/// reloads on demand, and stops gracefully. Tests run it in-process on ephemeral ports.
public final class ServiceRuntime: Sendable {
    public let context: ServiceContext
    public let configurationFile: String?
    /// Identifies this process in heartbeats (host, pid, start time), so a gap is judged per instance.
    public let instanceID: String

    /// Executes due erasure steps in the background (`erasure` settings); also what the admin API's job
    /// routes call (``ErasureJobRunner/completeCallback(jobID:target:outcome:evidence:)``, ``ErasureJobRunner/retry(jobID:)``).
    public let erasureRunner: ErasureJobRunner
    private let ingestor: Reloadable<NotificationIngestor>
    private let publicServer: HTTPServer
    let outbox: OutboxDispatcher
    /// The admin listener, once `start()` built it (nil when `admin.enabled` is false).
    private let adminServer = Mutex<HTTPServer?>(nil)
    /// Where secrets such as `LIFECYCLE_ADMIN_TOKEN` are read from.
    private let environment: [String: String]
    private let background = Mutex<[Task<Void, Never>]>([])
    private let stopped = Mutex<Bool>(false)

    public init(
        context: ServiceContext, configurationFile: String? = nil,
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) {
        self.context = context
        self.environment = environment
        self.configurationFile = configurationFile
        self.instanceID =
            "\(ProcessInfo.processInfo.hostName):\(getpid()):\(context.clock.now().millisecondsSinceEpoch)"
        self.erasureRunner = ErasureJobRunner(
            configuration: context.configuration, store: context.store, log: context.log, metrics: context.metrics,
            clock: context.clock, owner: instanceID, webhookSigners: context.webhookSigners)
        let ingestor = Reloadable(context.ingestor)
        self.ingestor = ingestor
        let configuration = context.configuration
        let tls = context.tls
        let routes = PublicRoutes(
            notificationPath: configuration.publicListener.notificationPath,
            ingestor: { ingestor.current }, store: context.store, keys: context.keys,
            metrics: context.metrics,
            readinessDetails: {
                guard let tls else { return ["tls": "terminated upstream"] }
                return ["certificateDaysUntilExpiry": .integer(Int64(tls.daysUntilExpiry()))]
            })
        if let tls {
            context.metrics.describe(
                "lifecycle_tls_certificate_expiry_days", kind: "gauge",
                help: "Days until the public listener's certificate expires (negative once expired).")
            context.metrics.collect { [("lifecycle_tls_certificate_expiry_days", [], Double(tls.daysUntilExpiry()))] }
        }
        var serverConfiguration = Self.serverConfiguration(configuration.publicListener)
        if let tls { serverConfiguration.transport = .tls(tls) }
        publicServer = HTTPServer(configuration: serverConfiguration, handler: routes.handle)
        var endpoints: [String: (endpoint: WebhookEndpoint, signer: WebhookSigner)] = [:]
        for app in configuration.apps {
            if let url = app.webhook?.url, let endpoint = WebhookEndpoint(url: url),
                let signer = context.webhookSigners[app.id]
            {
                endpoints[app.id] = (endpoint, signer)
            }
        }
        outbox = OutboxDispatcher(
            store: context.store,
            delivery: WebhookDelivery(
                endpoints: endpoints, timeout: .milliseconds(configuration.outbox.timeoutMilliseconds),
                clock: context.clock),
            configuration: configuration.outbox, owner: instanceID, clock: context.clock, metrics: context.metrics,
            log: context.log, signal: context.outboxSignal)
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
        let admin = try AdminListener.makeServer(context: context, erasure: erasureRunner, environment: environment)
        if let error = await context.keys.refresh() {
            // Not fatal: readiness reports it, and the next unknown kid retries the fetch.
            log.log(.error, "keys.load_failed", [("error", .string(String(describing: error)))])
        }
        try await recordHeartbeat(kind: "start")
        try await recordMasterKeys()
        try publicServer.start()
        if let admin {
            adminServer.withLock { $0 = admin }
            try admin.start()
            log.info("admin.started", [("admin", .string("\(context.configuration.admin.host):\(adminPort ?? 0)"))])
        }
        log.info(
            "serve.started",
            [
                ("public", .string("\(context.configuration.publicListener.host):\(publicPort ?? 0)")),
                ("path", .string(context.configuration.publicListener.notificationPath)),
                ("store", .string(context.configuration.storage.redactedURL)), ("instance", .string(instanceID)),
            ])
        startBackground { [self] in await heartbeatLoop() }
        startMasterKeyWork()
        startBackground { [outbox] in await outbox.run() }
        for app in context.configuration.apps where app.erasure == nil {
            log.warning("erasure.unmapped_app", [("app", .string(app.id))])
        }
        if context.configuration.erasure.runInServe {
            startBackground { [erasureRunner] in await erasureRunner.run() }
            if let daily = context.configuration.reconcile.dailyAt,
                let zone = TimeZone(identifier: context.configuration.reconcile.timeZone)
            {
                let schedule = DailySchedule(hour: daily.hour, minute: daily.minute, timeZone: zone)
                startBackground { [self] in await scheduledReconcileLoop(schedule) }
            }
        }
    }

    func startBackground(_ work: @escaping @Sendable () async -> Void) {
        background.withLock { $0.append(Task { await work() }) }
    }

    /// The liveness record the reconciler reads to find windows when nothing could have been received.
    private func recordHeartbeat(kind: String) async throws {
        let now = context.clock.now()
        let instance = instanceID
        try await context.store.write { writer in try writer.recordHeartbeat(instance: instance, at: now) }
        context.log.debug("heartbeat.\(kind)")
    }

    static let heartbeatInterval: Duration = .seconds(60)

    private func heartbeatLoop() async {
        while !Task.isCancelled {
            try? await Task.sleep(for: Self.heartbeatInterval)
            if Task.isCancelled { return }
            do {
                try await recordHeartbeat(kind: "tick")
                try await recordMasterKeys()
            } catch {
                context.log.log(.error, "heartbeat.failed", [("error", .string(String(describing: error)))])
            }
        }
    }

    /// Work that runs after each scheduled reconcile (the day's reports), in order.
    private let afterReconcile = Mutex<[@Sendable (Reconciler.Report) async -> Void]>([])

    /// Adds work to run after each scheduled reconcile (used for the daily compliance report).
    func onScheduledReconcile(_ work: @escaping @Sendable (Reconciler.Report) async -> Void) {
        afterReconcile.withLock { $0.append(work) }
    }

    /// The day's deletion-compliance report of every app, after the scheduled reconcile (DESIGN.md §9):
    /// the default period, the last 30 UTC days up to the end of today, as `lifecycle report generate` uses.
    ///
    /// Held by one instance at a time through ``Store/withExclusiveLock(named:_:)`` (``dailyReportLock``: a
    /// PostgreSQL advisory lock shared by every instance on the database, a `flock` beside a SQLite file):
    /// an instance that finds it taken logs `report.skipped` and leaves the work to the holder.
    func generateDailyReports() async {
        let context = self.context
        do {
            let ran = try await context.store.withExclusiveLock(named: Self.dailyReportLock) {
                let now = context.clock.now()
                let generator = try ReportGenerator(configuration: context.configuration, store: context.store)
                let period = try ReportCommand.period(fromText: nil, toText: nil, now: now)
                for app in context.configuration.apps {
                    let written = try await generator.generate(app: app.id, period: period, at: now)
                    context.log.log(
                        .info, "report.generated", app: app.id, [("files", .integer(Int64(written.files.count)))])
                }
                return true
            }
            if ran == nil {
                context.log.log(.info, "report.skipped", [("lock", .string(Self.dailyReportLock))])
            }
        } catch {
            context.log.log(.error, "report.failed", [("error", .string(String(describing: error)))])
        }
    }

    /// The name of the exclusive lock the daily reports are generated under.
    static let dailyReportLock = "daily-report"

    /// `reconcile.dailyAt`: sleeps until the next local occurrence, reconciles every app, then runs the
    /// follow-up work. With several instances the run lock lets one of them do it; the others log `busy`.
    private func scheduledReconcileLoop(_ schedule: DailySchedule) async {
        while !Task.isCancelled {
            let now = context.clock.now()
            let next = schedule.next(after: now)
            context.log.info("reconcile.scheduled", [("at", .string(next.iso8601))])
            try? await Task.sleep(for: .milliseconds(next.millisecondsSinceEpoch - now.millisecondsSinceEpoch))
            if Task.isCancelled { return }
            do {
                let report = try await Reconciler(context: context, owner: instanceID).run(asOf: context.clock.now())
                for work in afterReconcile.withLock({ $0 }) { await work(report) }
            } catch {
                context.log.log(
                    .warning, "reconcile.scheduled_run_failed", [("error", .string(String(describing: error)))])
            }
        }
    }

    /// SIGHUP: re-read the configuration (apps, audiences, log-level changes take effect; listener and
    /// storage changes need a restart and are reported) and re-fetch the key set. A configuration that does
    /// not validate is refused and the running one is kept.
    public func reload() async {
        let log = context.log
        if let file = configurationFile {
            do {
                let fresh = try ServiceConfiguration.load(file: file)
                let current = context.configuration
                if fresh.storage.url != current.storage.url || fresh.publicListener.port != current.publicListener.port
                    || fresh.publicListener.host != current.publicListener.host
                {
                    log.warning("reload.restart_required", [("reason", "listener or storage settings changed")])
                }
                let verifier = NotificationVerifier(
                    keys: context.keys,
                    configuration: NotificationVerifier.Configuration(
                        issuer: fresh.apple.issuer, audiences: fresh.allClientIDs,
                        leewaySeconds: Int64(fresh.apple.leewaySeconds)))
                let next = NotificationIngestor(
                    configuration: fresh, verifier: verifier, store: context.store, log: log,
                    metrics: context.metrics, clock: context.clock, transitions: context.transitions,
                    committed: context.outboxSignal, vault: context.vault)
                ingestor.replace(with: next)
                log.info("reload.configuration", [("apps", .integer(Int64(fresh.apps.count)))])
            } catch {
                log.log(.error, "reload.refused", [("error", .string(String(describing: error)))])
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
        await reloadMasterKeys()
        if let error = await context.keys.refresh() {
            log.log(.error, "reload.keys_failed", [("error", .string(String(describing: error)))])
        } else {
            log.info("reload.keys", [("keys", .integer(Int64(context.keys.statistics.keyCount)))])
        }
    }

    /// Stops accepting, lets in-flight requests finish and answer, stops background work, records the stop
    /// and closes the store. Idempotent.
    public func stop() async {
        let first = stopped.withLock { stopped in
            defer { stopped = true }
            return !stopped
        }
        guard first else { return }
        await publicServer.shutdown()
        if let admin = adminServer.withLock({ $0 }) { await admin.shutdown() }
        let tasks = background.withLock { tasks in
            defer { tasks = [] }
            return tasks
        }
        for task in tasks { task.cancel() }
        for task in tasks { await task.value }
        try? await recordHeartbeat(kind: "stop")
        let instance = instanceID
        let now = context.clock.now()
        try? await context.store.write {
            try $0.recordInstanceMasterKeys(instance: instance, masterKeyIDs: nil, at: now)
        }
        context.log.info("serve.stopped")
        await context.close()
    }
}
