import Dispatch
import Foundation

/// Turns process signals into async events: SIGTERM or SIGINT ends ``waitForTermination(onReload:)``, each
/// SIGHUP calls `onReload`. Reloads run one after another in arrival order (two quick SIGHUPs never
/// interleave, so the last file read is the one in force).
///
/// ``listen()`` ignores the signals' default actions and starts listening at once, before the caller's
/// start-up: a SIGTERM that arrives while `serve` is still starting (loading keys, binding, starting its
/// work) is kept and honoured as soon as the start completes, instead of being lost to `SIG_IGN` and leaving
/// a process that no longer answers the service manager's stop.
package final class SignalWaiter {
    private let sources: [DispatchSourceSignal]
    private let termination: AsyncStream<Void>
    private let hangups: AsyncStream<Void>
    private let hangup: AsyncStream<Void>.Continuation

    private init() {
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
        (self.sources, self.termination, self.hangups, self.hangup) = (sources, termination, hangups, hangup)
    }

    /// Sets SIGTERM, SIGINT and SIGHUP to `SIG_IGN` (so none can kill the process half-way: dispatch signal
    /// sources register asynchronously) and starts receiving them; they wait in order for
    /// ``waitForTermination(onReload:)``.
    package static func listen() -> SignalWaiter {
        for signalNumber in [SIGTERM, SIGINT, SIGHUP] { signal(signalNumber, SIG_IGN) }
        return SignalWaiter()
    }

    /// Returns at the first SIGTERM or SIGINT received since ``listen()`` (at once if one came already),
    /// after the reloads asked for before it have run.
    package func waitForTermination(onReload: @escaping @Sendable () async -> Void) async {
        let hangups = self.hangups
        let reloads = Task {
            for await _ in hangups { await onReload() }
        }
        for await _ in termination { break }
        for source in sources { source.cancel() }
        hangup.finish()
        await reloads.value
    }
}
