import LifecycleCore

/// A configuration section of work that is retried with backoff (`maxAttempts`, `baseDelayMilliseconds`,
/// `maxDelayMilliseconds`: the outbox, the erasure runner, Apple revocations): its ``RetrySchedule`` is the
/// same doubling, capped schedule for each, derived here once.
public protocol RetryingWork {
    var maxAttempts: Int { get }
    var baseDelayMilliseconds: Int { get }
    var maxDelayMilliseconds: Int { get }
}

extension RetryingWork {
    public var retrySchedule: RetrySchedule {
        RetrySchedule(
            baseDelayMilliseconds: Int64(baseDelayMilliseconds), multiplier: 2,
            maximumDelayMilliseconds: Int64(maxDelayMilliseconds), maximumAttempts: maxAttempts)
    }
}
