import Foundation
import LifecycleCore
import LifecycleStore

/// Delivers the transactional outbox: claims due messages with a lease (so two instances never deliver the
/// same message while its lease is live), sends them concurrently (at most one per account at a time, which
/// keeps each account's messages in order), and records the result. Failures are retried with capped
/// exponential backoff and full jitter; after the configured attempts a message is `dead`, visible in
/// metrics and the admin API, and can be retried by hand. At least once: a crash after sending but before
/// recording means a resend, which receivers de-duplicate by `webhook-id`.
///
/// The settings and endpoints are read from ``settings`` (the configuration in force) at each claim, so a
/// reload changes the messages claimed after it, never one in flight.
package final class OutboxDispatcher: Sendable {
    /// The outbox settings and the webhook endpoints in force.
    package typealias Settings = (configuration: OutboxConfiguration, delivery: WebhookDelivery)

    let store: any Store
    let settings: @Sendable () -> Settings
    let owner: String
    let clock: any LifecycleClock
    let metrics: MetricsRegistry
    let deliveries: Counter
    let deliveryDuration: Histogram
    let messages: Gauge
    let log: EventLog
    let random: @Sendable () -> Double
    let signal: WakeSignal

    package init(
        store: any Store, settings: @escaping @Sendable () -> Settings, owner: String, clock: any LifecycleClock,
        metrics: MetricsRegistry, log: EventLog, signal: WakeSignal,
        random: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) }
    ) {
        self.signal = signal
        self.store = store
        self.settings = settings
        self.owner = owner
        self.clock = clock
        self.metrics = metrics
        self.log = log
        self.random = random
        deliveries = metrics.counter(
            "lifecycle_outbox_deliveries_total",
            help: "Webhook delivery attempts, by message kind and result (delivered, retry, dead).")
        deliveryDuration = metrics.histogram(
            "lifecycle_outbox_delivery_duration_seconds", help: "Time to deliver one webhook, successful or not.",
            buckets: MetricsRegistry.latencyBuckets)
        messages = metrics.gauge("lifecycle_outbox_messages", help: "Outbox messages by status.")
    }

    /// New messages were committed: deliver now rather than at the next poll.
    func wake() { signal.notify() }

    /// Runs until the task is cancelled. Deliveries are pipelined: a claim of every free slot runs while
    /// the claimed messages are delivered, so a slow receiver holds one slot while the others keep delivering
    /// (instead of a whole round waiting for its slowest message), and the deliveries that end while a claim
    /// commits share the next claim. When a claim finds fewer messages than it asked for, nothing more is due:
    /// the loop waits for new messages (``wake()``) or the next due time before claiming again.
    package func run() async {
        await withTaskGroup(of: Event.self) { group in
            var inFlight = 0
            var claiming = false
            var waiting = false
            var mayHaveMore = true
            var gaugesRefreshed: UInt64?
            while !Task.isCancelled {
                let (configuration, delivery) = settings()
                let free = configuration.concurrency - inFlight
                if !claiming, mayHaveMore, free > 0 {
                    claiming = true
                    group.addTask {
                        let messages = await self.claim(limit: free, configuration)
                        return .claimed(messages, asked: free, delivery, configuration.retrySchedule)
                    }
                }
                if !mayHaveMore, !waiting {
                    waiting = true
                    let pause = await sleepBeforeNextPoll(configuration)
                    group.addTask {
                        await self.signal.wait(timeout: pause)
                        return .woken
                    }
                }
                // The gauges count every message (a scan of the outbox): each time the pipeline runs dry, and
                // while it is busy at most once a second.
                let now = clock.monotonicNanoseconds()
                let idle = inFlight == 0 && !claiming
                if idle || gaugesRefreshed.map({ now &- $0 >= 1_000_000_000 }) ?? true {
                    gaugesRefreshed = now
                    await refreshGauges()
                }
                // Never empty: a claim runs, a waiter waits, or (no free slot) deliveries are in flight.
                guard let event = await group.next() else { break }
                switch event {
                case .claimed(let messages, let asked, let delivery, let schedule):
                    claiming = false
                    mayHaveMore = messages.count == asked
                    for message in messages {
                        inFlight += 1
                        group.addTask {
                            await self.deliver(message, by: delivery, retrying: schedule)
                            return .deliveryEnded
                        }
                    }
                case .deliveryEnded:
                    inFlight -= 1
                case .woken:
                    waiting = false
                    mayHaveMore = true
                }
            }
            group.cancelAll()
        }
    }

    /// What ended in the pipeline's task group.
    private enum Event: Sendable {
        /// A claim, with the settings in force when it was made (its messages are delivered under them).
        case claimed([OutboxMessage], asked: Int, WebhookDelivery, RetrySchedule)
        case deliveryEnded
        case woken
    }

    /// Leases up to `limit` due messages for `leaseSeconds`; none when the store fails (logged).
    private func claim(limit: Int, _ configuration: OutboxConfiguration) async -> [OutboxMessage] {
        let now = clock.now()
        let owner = self.owner
        let leaseUntil = now.adding(seconds: Int64(configuration.leaseSeconds))
        do {
            return try await store.write { writer in
                try writer.claimOutbox(now: now, owner: owner, leaseUntil: leaseUntil, limit: limit)
            }
        } catch {
            log.log(.error, "outbox.claim_failed", [("error", .string(String(describing: error)))])
            return []
        }
    }

    private func deliver(_ message: OutboxMessage, by delivery: WebhookDelivery, retrying schedule: RetrySchedule)
        async
    {
        let started = clock.monotonicNanoseconds()
        let result = await delivery.deliver(message)
        let seconds = Double(clock.monotonicNanoseconds() - started) / 1e9
        deliveryDuration.observe([("kind", message.kind)], value: seconds)
        let at = clock.now()
        let owner = self.owner
        let outcome: String
        var recorded = true
        do {
            switch result {
            case .delivered(let status):
                outcome = "delivered"
                recorded = try await store.write { writer in
                    try writer.completeOutbox(id: message.id, owner: owner, at: at, statusCode: status)
                }
            case .failed(let error, let status):
                let delay = schedule.delay(afterAttempt: message.attempts, random: random())
                let next = delay.map { at.adding(milliseconds: $0) }
                outcome = next == nil ? "dead" : "retry"
                recorded = try await store.write { writer in
                    try writer.failOutbox(
                        id: message.id, owner: owner, error: error.rawValue, statusCode: status, nextAttemptAt: next,
                        at: at)
                }
                log.log(
                    next == nil ? .error : .warning, "outbox.\(outcome)", app: message.app, subject: message.subject,
                    [
                        ("id", .integer(message.id)), ("kind", .string(message.kind)),
                        ("error", .string(error.rawValue)),
                        ("attempts", .integer(Int64(message.attempts))),
                        ("next_attempt", next.map { .string($0.iso8601) } ?? .null),
                    ])
            }
        } catch {
            // The lease expires and the message is claimed again: at least once, never lost.
            log.log(
                .error, "outbox.record_failed",
                [("id", .integer(message.id)), ("error", .string(String(describing: error)))])
            return
        }
        if !recorded {
            // Another instance took the message after our lease ran out; it will record its own attempt.
            log.log(.warning, "outbox.lease_lost", [("id", .integer(message.id))])
        }
        deliveries.increment([("kind", message.kind), ("result", outcome)])
        if outcome == "delivered" {
            log.log(
                .info, "outbox.delivered", app: message.app, subject: message.subject,
                [("id", .integer(message.id)), ("kind", .string(message.kind))])
        }
    }

    private func sleepBeforeNextPoll(_ configuration: OutboxConfiguration) async -> Duration {
        let poll = Int64(configuration.pollMilliseconds)
        guard let due = try? await store.read({ reader in try reader.nextOutboxDue() }) else {
            return .milliseconds(poll)
        }
        let wait = due.millisecondsSinceEpoch - clock.now().millisecondsSinceEpoch
        return .milliseconds(max(1, min(poll, wait)))
    }

    private func refreshGauges() async {
        guard let counts = try? await store.read({ reader in try reader.outboxCounts() }) else { return }
        for (status, count) in counts {
            messages.set([("status", status.rawValue)], to: Double(count))
        }
    }
}
