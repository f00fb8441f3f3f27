import Foundation

/// `lifecycle serve`: run the service until SIGTERM/SIGINT.
struct ServeCommand: LifecycleCommand {
    static let name = "serve"
    static let summary = "run the notification endpoint, health/readiness/metrics and background work"
    static let help = """
        usage: lifecycle serve [--config FILE]

        Public listener (public.host:public.port; HTTPS when public.tls is set):
          POST <public.notificationPath>   Apple's server-to-server notifications (default /apple/notifications)
          GET  /healthz                    the process is alive
          GET  /readyz                     the store answers and a key set is loaded (503 otherwise); with
                                           TLS, days until the certificate expires
          GET  /metrics                    Prometheus text format
        Every 200 is sent only after the notification, its account transition and its outbox messages are
        committed to disk (SQLite synchronous=FULL; concurrent requests share one commit). The relay e-mail
        and the raw JWS are stored sealed (AES-256-GCM) under the subject's data key, itself wrapped by the
        master key of secrets.masterKeyFile (created 0600 when missing) or LIFECYCLE_MASTER_KEY.

        Admin listener (admin.host:admin.port, default 127.0.0.1:8081, bearer token from admin.tokenFile or
        LIFECYCLE_ADMIN_TOKEN): accounts, outbox, erasure jobs and findings; GET /openapi.json describes it.

        Background work: signed webhook delivery (outbox.*), erasure jobs (erasure.*, when erasure.runInServe;
        after each batch the store's log is truncated or its key table vacuumed, so no byte of what was
        erased stays in the files), a heartbeat every minute (for notification-gap findings), a look at the
        master key file every keys.fileCheckSeconds (a rotation elsewhere rewrote it), the completion of a
        master-key rotation a crash interrupted, the rotation itself when keys.rotateEveryDays is set, and,
        when reconcile.dailyAt is set, the nightly reconcile followed by the day's compliance reports.

        signals:
          SIGTERM, SIGINT   stop accepting, finish in-flight requests, exit 0
          SIGHUP            re-read apps and audiences, re-fetch the key set, reload the TLS certificate,
                            re-read the master key file (destroying keys the store has retired)

        Logs are JSON lines on standard error; subjects appear only as keyed pseudonyms.
        exit status: 0 after a clean stop, 2 when it cannot start (one line naming the problem, e.g. a key file
        without the master key in force in the store)
        """

    static func run(_ arguments: inout CommandArguments, io: CommandIO) async throws -> Int32 {
        // Dispatch signal sources register asynchronously: ignore the default actions first so a signal
        // arriving during start-up cannot kill the process half-way.
        for signalNumber in [SIGTERM, SIGINT, SIGHUP] { signal(signalNumber, SIG_IGN) }
        let configFile = try configurationFile(&arguments, io: io)
        try arguments.finish()
        let configuration = try ServiceConfiguration.load(file: configFile, environment: io.environment)
        let context = try await ServiceContext.open(configuration: configuration, environment: io.environment)
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
