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
/// The settings and endpoints are read once per round from ``settings`` (the configuration in force), so a
/// reload changes the next round, never one in flight.
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

    /// Runs until the task is cancelled.
    package func run() async {
        while !Task.isCancelled {
            let delivered = await deliverDue()
            await refreshGauges()
            if delivered > 0 { continue }
            await signal.wait(timeout: await sleepBeforeNextPoll(settings().configuration))
        }
    }

    /// One round: claim what is due and deliver it. Returns how many messages were attempted.
    @discardableResult
    func deliverDue() async -> Int {
        let (configuration, delivery) = settings()
        let now = clock.now()
        let owner = self.owner
        let leaseUntil = now.adding(seconds: Int64(configuration.leaseSeconds))
        let limit = configuration.concurrency
        let claimed: [OutboxMessage]
        do {
            claimed = try await store.write { writer in
                try writer.claimOutbox(now: now, owner: owner, leaseUntil: leaseUntil, limit: limit)
            }
        } catch {
            log.log(.error, "outbox.claim_failed", [("error", .string(String(describing: error)))])
            return 0
        }
        await withTaskGroup(of: Void.self) { group in
            for message in claimed {
                group.addTask { await self.deliver(message, by: delivery, retrying: configuration.retrySchedule) }
            }
        }
        return claimed.count
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
