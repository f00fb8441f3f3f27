import Foundation
import LifecycleCore
import LifecycleEngine
import LifecycleServer
import LifecycleStore

/// `lifecycle serve`: run the service until SIGTERM/SIGINT.
struct ServeCommand: LifecycleCommand {
    static let name = "serve"
    static let summary = "run the notification endpoint, health/readiness, the admin API with metrics, background work"
    static let syntax = [CommandSyntax("serve", options: [.config, .logLevel])]
    static let details = """
        Public listener (public.host:public.port; HTTPS when public.tls is set):
          POST <public.notificationPath>   Apple's server-to-server notifications (default /apple/notifications)
          POST <apps[].signals[].path>     Security Event Tokens pushed by the app's other identity providers
                                           (RFC 8935, application/secevent+jwt; default /signals/<app>/<id>):
                                           202 once committed, 400 {"err","description"} with the RFC 8935 code
                                           (not served for a provider with stream.delivery poll)
          GET  /healthz                    the process is alive
          GET  /readyz                     the store answers and a key set is loaded (503 otherwise); with
                                           TLS, days until the certificate expires; "warnings" names an app
                                           whose Apple probe is paused (invalid_client); "signalKeys" the
                                           key count of each signals provider (not part of readiness)
          GET  /metrics                    only when public.metrics is true (default false: 404)
        Every 200 (202 for a security event) is sent only after the notification, its account transition and its outbox messages are
        committed to disk (SQLite synchronous=FULL; concurrent requests share one commit). The relay e-mail
        and the raw JWS are stored sealed (AES-256-GCM) under the subject's data key, itself wrapped by the
        master key of secrets.masterKeyFile (created 0600 when missing) or LIFECYCLE_MASTER_KEY.

        Admin listener (admin.host:admin.port, default 127.0.0.1:8081, bearer token from admin.tokenFile or
        LIFECYCLE_ADMIN_TOKEN): accounts, outbox, erasure jobs and findings; GET /openapi.json describes it;
        GET /metrics, Prometheus text format (a scrape job sends the token with its authorization setting).
        lifecycle_http_responses_total{listener,code} counts every answer of both listeners, the 413, 400 and
        408 the server gives before any route included.

        Background work: a poll worker per signals provider with stream.delivery poll (RFC 8936: POST
        {maxEvents, returnImmediately, ack, setErrs} to stream.pollURL or the stream's delivery.endpoint_url with
        the bearer token of stream.tokenFile; each SET stored as a push is, then acknowledged, or reported in
        setErrs; failed polls back off up to stream.pollBackoffMaxMilliseconds), signed webhook delivery
        (outbox.*), the Apple token revocation of in-app deletions
        (apple.revocation.*: /auth/revoke, then a refresh_token grant that must answer invalid_grant), the daily
        Apple probe of held refresh tokens (apple.probe.*: one refresh_token grant per token at most once per
        24 h across every instance, at most maxPerSecond a second; invalid_grant ends the account's sessions
        as credentials-invalid without assuming a deletion; invalid_client pauses the app's probing until a
        reload; 5xx, 429 and timeouts are retried after retrySeconds), erasure jobs (erasure.*, when
        erasure.runInServe; after each batch the store's log is truncated or its key table vacuumed, so no
        byte of what was erased stays in the files), a heartbeat every reconcile.heartbeatSeconds (default 60; for
        notification-gap findings, so none while Apple's key set is not loaded and every notification is
        answered 503; and to tell a rotation which master keys this instance holds), a look at
        the master key file every keys.fileCheckSeconds (a rotation elsewhere rewrote it: its keys are held at
        once if they include those the store needs), the completion of a master-key rotation a crash
        interrupted, the rotation itself when keys.rotateEveryDays is set (one instance at a time), and, when
        reconcile.dailyAt is set (whatever erasure.runInServe says), the reconcile at that time in
        reconcile.timeZone followed by every app's compliance reports for the day. The reports are written
        once per day: recorded in the store, so with several instances on one database one writes them and
        an instance that reaches the schedule later that day logs report.skipped; one that finds the
        reconcile held elsewhere waits out the holder's lease and runs the day itself if its reports are
        still not recorded then (the holder died). A day missed because no instance ran at dailyAt is run
        at the next start (reconcile.caught_up: an app recorded for an earlier day but not for the last
        dailyAt's; only that last day). At start, a report a crash interrupted is finished (its files'
        names, the log's lines and receipts; report.recovered).

        signals:
          SIGTERM, SIGINT   stop accepting, finish in-flight requests, exit 0
          SIGHUP            re-read the configuration file and put all of it in force at once: apps and
                            audiences, signals providers (paths, issuers, audiences, key sets, bearer
                            tokens), webhooks (URL and secret), each app's policy and erasure mapping (jobs
                            scheduled from then on follow it; scheduled jobs keep theirs), outbox, erasure,
                            reconcile, keys and schedule settings, the admin token, the log level, and the
                            master keys of the key file. A file that does not load, or a key file that cannot
                            be read or lacks the master key in force (or one still retiring), changes nothing
                            and says why in one reload.refused log line. Store, listener, admin binding, JWKS
                            source, pseudonym key and secrets.masterKeyFile need a restart (kept,
                            reload.restart_required). Then master keys the store has retired are destroyed in
                            the key file, the TLS certificate is reloaded and the key set re-fetched;
                            lifecycle_config_reloads_total{result="applied"|"refused"} counts it.

        environment:
          LIFECYCLE_DATABASE_URL           the store instead of storage.url, read the same way (a relative
                                           sqlite: path is from the configuration file's directory)
          LIFECYCLE_MASTER_KEY             the master keys (64 hex digits each, separated by spaces or commas)
                                           instead of secrets.masterKeyFile
          NOTIFY_SOCKET                    set by systemd for Type=notify (systemd/lifecycle.service): READY=1
                                           is sent once both listeners accept connections, STOPPING=1 when
                                           SIGTERM starts the drain (a path or an @abstract address)
          LIFECYCLE_CLOCK_OFFSET_SECONDS   for tests only: shifts this process's clock by whole seconds (the
                                           schedule, heartbeats, report dates, token times); logged as a
                                           warning when set. Never set it in production.

        Logs are JSON lines on standard error, at logLevel (--log-level LEVEL or LIFECYCLE_LOG_LEVEL override
        it, also across reloads); subjects appear only as keyed pseudonyms.

        With a SQLite store, serve holds PATH.lock-serve (shared, so several serve processes may share the
        file) for as long as it runs, which lifecycle restore waits for, creates the erasure journal
        PATH-erasures.jsonl when missing, and refuses to start while PATH.restore-pending says a restore has
        not finished re-applying erasures.

        exit status: 0 after a clean stop, 2 when it cannot start (one line naming the problem, e.g. a key file
        without the master key in force in the store, or an unfinished restore)
        """

    static func run(_ arguments: inout CommandArguments, io: CommandIO) async throws -> Int32 {
        // Listening before anything else: a signal arriving during start-up neither kills the process
        // half-way nor is lost; a SIGTERM then stops the service as soon as it has started.
        let signals = SignalWaiter.listen()
        let configFile = try configurationFile(&arguments, io: io)
        try arguments.finish()
        let configuration = try ServiceConfiguration.load(file: configFile, environment: io.environment)
        let clock = try SystemClock.fromEnvironment(io.environment)
        let instanceLock = try holdStore(configuration.storage, clock: clock)
        defer { if let instanceLock { SQLiteInstanceLock.release(instanceLock) } }
        // serve always logs: at the configured level, or the one asked for with --log-level / LIFECYCLE_LOG_LEVEL.
        let context = try await ServiceContext.open(
            configuration: configuration, clock: clock, logSink: io.logSink, logLevel: io.logLevel,
            environment: io.environment)
        if clock.offsetMilliseconds != 0 {
            context.log.warning(
                "clock.offset",
                [
                    ("variable", .string(SystemClock.offsetVariable)),
                    ("seconds", .integer(clock.offsetMilliseconds / 1000)), ("purpose", "testing only"),
                ])
        }
        let runtime = ServiceRuntime(context: context, configurationFile: configFile)
        do {
            try await runtime.start()
        } catch {
            // In the log as well as on the command's last line, for whoever reads serve's log alone (journald).
            context.log.log(.error, "serve.start_failed", [("error", .string(String(oneLine: error)))])
            await runtime.stop()
            throw error
        }
        await signals.waitForTermination(onReload: { await runtime.reload() })
        await runtime.stop()
        return ExitStatus.success
    }

    /// On SQLite: refuses a store whose restore has not finished re-applying erasures, takes the shared side of
    /// the instance lock for the life of the process (``SQLiteInstanceLock``: `lifecycle restore` waits for
    /// every serve to stop), and creates the erasure journal when missing, so it begins before any backup.
    static func holdStore(_ storage: StorageConfiguration, clock: any LifecycleClock) throws -> Int32? {
        guard let database = storage.sqlitePath else { return nil }
        if let pending = StoreRestore.pendingRestore(database: database) {
            throw StoreRestore.Refusal(description: pending)
        }
        let directory = URL(fileURLWithPath: database).deletingLastPathComponent().path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        guard let lock = try SQLiteInstanceLock.holdShared(database: database) else {
            throw StoreRestore.Refusal(
                description: "\(database): lifecycle restore is replacing the store; start serve when it has finished")
        }
        do {
            try ErasureJournal(database: database).create(at: clock.now())
        } catch {
            SQLiteInstanceLock.release(lock)
            throw error
        }
        return lock
    }
}
