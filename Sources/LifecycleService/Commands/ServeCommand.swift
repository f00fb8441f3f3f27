import Foundation

/// `lifecycle serve`: run the service until SIGTERM/SIGINT.
struct ServeCommand: LifecycleCommand {
    static let name = "serve"
    static let summary = "run the notification endpoint, health/readiness/metrics and background work"
    static let syntax = [CommandSyntax("serve", options: [.config, .logLevel])]
    static let details = """
        Public listener (public.host:public.port; HTTPS when public.tls is set):
          POST <public.notificationPath>   Apple's server-to-server notifications (default /apple/notifications)
          GET  /healthz                    the process is alive
          GET  /readyz                     the store answers and a key set is loaded (503 otherwise); with
                                           TLS, days until the certificate expires
          GET  /metrics                    Prometheus text format
        Every 200 is sent only after the notification, its account transition and its outbox messages are
        committed to disk (SQLite synchronous=FULL; concurrent requests share one commit).

        Admin listener (admin.host:admin.port, default 127.0.0.1:8081, bearer token from admin.tokenFile or
        LIFECYCLE_ADMIN_TOKEN): accounts, outbox, erasure jobs and findings; GET /openapi.json describes it.

        Background work: signed webhook delivery (outbox.*), erasure jobs (erasure.*, when erasure.runInServe),
        a heartbeat every reconcile.heartbeatSeconds (default 60; for notification-gap findings), and, when
        reconcile.dailyAt is set (whatever erasure.runInServe says), the reconcile at that time in
        reconcile.timeZone followed by every app's compliance reports for the day. The reports are written
        once per day: recorded in the store, so with several instances on one database one writes them and
        an instance that reaches the schedule later that day logs report.skipped.

        signals:
          SIGTERM, SIGINT   stop accepting, finish in-flight requests, exit 0
          SIGHUP            re-read the configuration file and put all of it in force at once: apps and
                            audiences, webhooks (URL and secret), each app's policy and erasure mapping (jobs
                            scheduled from then on follow it; scheduled jobs keep theirs), outbox, erasure,
                            reconcile and schedule settings, the admin token, the log level. A file that does
                            not load changes nothing and says why in one reload.refused log line. Store,
                            listener, admin binding, JWKS source and pseudonym key need a restart (kept,
                            reload.restart_required). Then the TLS certificate is reloaded and the key set
                            re-fetched; lifecycle_config_reloads_total{result="applied"|"refused"} counts it.

        environment:
          LIFECYCLE_CLOCK_OFFSET_SECONDS   for tests only: shifts this process's clock by whole seconds (the
                                           schedule, heartbeats, report dates, token times); logged as a
                                           warning when set. Never set it in production.

        Logs are JSON lines on standard error, at logLevel (--log-level LEVEL or LIFECYCLE_LOG_LEVEL override
        it, also across reloads); subjects appear only as keyed pseudonyms.
        exit status: 0 after a clean stop, 2 when it cannot start (one line naming the problem)
        """

    static func run(_ arguments: inout CommandArguments, io: CommandIO) async throws -> Int32 {
        // Dispatch signal sources register asynchronously: ignore the default actions first so a signal
        // arriving during start-up cannot kill the process half-way.
        for signalNumber in [SIGTERM, SIGINT, SIGHUP] { signal(signalNumber, SIG_IGN) }
        let configFile = try configurationFile(&arguments, io: io)
        try arguments.finish()
        let configuration = try ServiceConfiguration.load(file: configFile, environment: io.environment)
        let clock = try SystemWallClock.fromEnvironment(io.environment)
        // serve always logs: at the configured level, or the one asked for with --log-level / LIFECYCLE_LOG_LEVEL.
        let context = try await ServiceContext.open(
            configuration: configuration, clock: clock, logSink: io.logSink, logLevel: io.logLevel)
        if clock.offsetMilliseconds != 0 {
            context.log.warning(
                "clock.offset",
                [
                    ("variable", .string(SystemWallClock.offsetVariable)),
                    ("seconds", .integer(clock.offsetMilliseconds / 1000)), ("purpose", "testing only"),
                ])
        }
        let runtime = ServiceRuntime(context: context, configurationFile: configFile)
        do {
            try await runtime.start()
        } catch {
            await runtime.stop()
            throw error
        }
        await SignalWaiter.waitForTermination(onReload: { await runtime.reload() })
        await runtime.stop()
        return ExitStatus.success
    }
}
