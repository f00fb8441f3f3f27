import Foundation

/// `lifecycle serve`: run the service until SIGTERM/SIGINT.
struct ServeCommand: LifecycleCommand {
    static let name = "serve"
    static let summary = "run the notification endpoint, health/readiness/metrics and background work"
    static let help = """
        usage: lifecycle serve [--config FILE]

        Serves the public listener from the configuration:
          POST <public.notificationPath>   Apple's server-to-server notifications (default /apple/notifications)
          GET  /healthz                    the process is alive
          GET  /readyz                     the store answers and a key set is loaded (503 otherwise)
          GET  /metrics                    Prometheus text format
        Every 200 is sent only after the notification is committed to disk (SQLite synchronous=FULL; writes
        from concurrent requests share one commit). Writes a heartbeat every minute so the reconciler can
        tell when nothing could have been received.

        signals:
          SIGTERM, SIGINT   stop accepting, finish in-flight requests, exit 0
          SIGHUP            re-read the configuration (apps and audiences) and re-fetch the key set

        Logs are JSON lines on standard error; subjects appear only as keyed pseudonyms.
        """

    static func run(_ arguments: inout CommandArguments, io: CommandIO) async throws -> Int32 {
        // Dispatch signal sources register asynchronously: ignore the default actions first so a signal
        // arriving during start-up cannot kill the process half-way.
        for signalNumber in [SIGTERM, SIGINT, SIGHUP] { signal(signalNumber, SIG_IGN) }
        let configFile = try configurationFile(&arguments, io: io)
        try arguments.finish()
        let configuration = try ServiceConfiguration.load(file: configFile, environment: io.environment)
        let context = try await ServiceContext.open(configuration: configuration)
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
