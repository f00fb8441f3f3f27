import Dispatch
import Foundation

/// Turns process signals into async events: returns on SIGTERM or SIGINT, calls `onReload` on each SIGHUP.
/// Reloads run one after another in arrival order (two quick SIGHUPs never interleave, so the last file read
/// is the one in force). The caller must already have set the signals to SIG_IGN (see ``ServeCommand``).
package enum SignalWaiter {
    package static func waitForTermination(onReload: @escaping @Sendable () async -> Void) async {
        let queue = DispatchQueue(label: "lifecycle.signals")
        let (termination, terminate) = AsyncStream<Void>.makeStream()
        let (hangups, hangup) = AsyncStream<Void>.makeStream()
        var sources: [DispatchSourceSignal] = []
        for signalNumber in [SIGTERM, SIGINT] {
            let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: queue)
            source.setEventHandler { terminate.yield() }
            source.resume()
            sources.append(source)
        }
        let hangupSource = DispatchSource.makeSignalSource(signal: SIGHUP, queue: queue)
        hangupSource.setEventHandler { hangup.yield() }
        hangupSource.resume()
        sources.append(hangupSource)
        let reloads = Task {
            for await _ in hangups { await onReload() }
        }
        for await _ in termination { break }
        for source in sources { source.cancel() }
        hangup.finish()
        await reloads.value
    }
}
