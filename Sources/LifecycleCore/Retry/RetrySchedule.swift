/// When to try again after a failed attempt: capped exponential backoff with **full jitter**.
///
/// Used by the outbox dispatcher (DESIGN.md §6: "at least once, exponential backoff with jitter, a dead state
/// after the configured attempts") and by the erasure job runner for each target.
///
/// After attempt `n` (1-based) fails, the next attempt waits a uniformly random delay in `[0, cap(n))` where
/// `cap(n) = min(maximumDelay, baseDelay × multiplier^(n-1))`. This is the "Full Jitter" algorithm of
/// Marc Brooker, "Exponential Backoff And Jitter", AWS Architecture Blog (4 March 2015): of the variants
/// measured there it does the least total work and spreads competing clients best. Full jitter was chosen
/// over "Decorrelated Jitter" because it depends only on the attempt number, not on the previous delay, so the
/// schedule needs no state beyond the attempt count the store already keeps, and one random value replays it
/// exactly in tests.
///
/// The random value is injected (the domain has no randomness source): the caller draws it from its
/// generator, tests pass fixed values.
public struct RetrySchedule: Hashable, Sendable {
    /// The cap after the first failed attempt. Default 1 second.
    public var baseDelayMilliseconds: Int64
    /// How much the cap grows per attempt. Default 2 (doubling); values below 1 are treated as 1.
    public var multiplier: Double
    /// No delay ever reaches this. Default 1 hour: a webhook receiver down for a night is retried hourly.
    public var maximumDelayMilliseconds: Int64
    /// Attempts in total, the first included; after the last one fails, ``delay(afterAttempt:random:)``
    /// answers nil and the item is dead (outbox) or failed (erasure step). Default 12.
    public var maximumAttempts: Int

    /// Negative delays are treated as 0, a maximum below the base is raised to the base, fewer than 1 attempt
    /// is treated as 1: configuration validation names such values; the schedule itself never misbehaves.
    public init(
        baseDelayMilliseconds: Int64 = 1_000, multiplier: Double = 2, maximumDelayMilliseconds: Int64 = 3_600_000,
        maximumAttempts: Int = 12
    ) {
        self.baseDelayMilliseconds = max(0, baseDelayMilliseconds)
        self.multiplier = multiplier.isFinite ? max(1, multiplier) : 1
        self.maximumDelayMilliseconds = max(self.baseDelayMilliseconds, maximumDelayMilliseconds)
        self.maximumAttempts = max(1, maximumAttempts)
    }

    /// The upper bound of the delay after attempt `n` fails, or nil when no attempt is left.
    ///
    /// Non-decreasing in `n` and never above ``maximumDelayMilliseconds``. Computed in floating point and
    /// clamped before converting, so a large `n` cannot overflow.
    public func cap(afterAttempt n: Int) -> Int64? {
        guard n >= 1, n < maximumAttempts else { return nil }
        let maximum = Double(maximumDelayMilliseconds)
        var cap = Double(baseDelayMilliseconds)
        var step = 1
        while step < n, cap < maximum {
            cap *= multiplier
            step += 1
        }
        return Int64(min(cap, maximum))
    }

    /// How long to wait, in milliseconds, after attempt `n` (1-based) failed; nil when attempts are
    /// exhausted (`n >= maximumAttempts`), which means dead (outbox) or failed (erasure step).
    ///
    /// - Parameter random: a value in `[0, 1)`; values outside are clamped into it. The same value always gives
    ///   the same delay.
    public func delay(afterAttempt n: Int, random: Double) -> Int64? {
        guard let cap = cap(afterAttempt: n) else { return nil }
        let unit = random.isNaN ? 0 : min(max(random, 0), 1.0.nextDown)
        return min(Int64((Double(cap) * unit).rounded(.down)), cap)
    }
}
