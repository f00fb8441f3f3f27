import Dispatch
import Foundation

/// Turns process signals into async events: returns on SIGTERM or SIGINT, calls `onReload` on each SIGHUP.
/// The caller must already have set the signals to SIG_IGN (see ``ServeCommand``).
enum SignalWaiter {
    static func waitForTermination(onReload: @escaping @Sendable () async -> Void) async {
        let queue = DispatchQueue(label: "lifecycle.signals")
        let (termination, terminate) = AsyncStream<Void>.makeStream()
        var sources: [DispatchSourceSignal] = []
        for signalNumber in [SIGTERM, SIGINT] {
            let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: queue)
            source.setEventHandler { terminate.yield() }
            source.resume()
            sources.append(source)
        }
        let hangup = DispatchSource.makeSignalSource(signal: SIGHUP, queue: queue)
        hangup.setEventHandler { Task { await onReload() } }
        hangup.resume()
        sources.append(hangup)
        for await _ in termination { break }
        for source in sources { source.cancel() }
    }
}
