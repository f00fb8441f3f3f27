/// One target's part of an erasure job as a value type: status, attempts, timing and the last evidence.
///
/// Pure: the runner calls ``start(at:)`` before an attempt and
/// ``record(stepResult:at:retry:random:)`` with what it observed, then stores the value and performs the
/// returned ``ErasureStepAction``.
public struct ErasureStep: Hashable, Sendable {
    public let target: String
    public private(set) var status: ErasureStepStatus
    /// Attempts started so far, the current one included.
    public private(set) var attempts: Int
    /// While pending: the earliest instant the next attempt may start.
    public private(set) var nextAttemptAt: Instant?
    public private(set) var lastAttemptAt: Instant?
    /// When the step reached a final status.
    public private(set) var finishedAt: Instant?
    /// The evidence of the latest result.
    public private(set) var evidence: ErasureStepEvidence

    /// A new step, pending until `notBefore`.
    public init(target: String, notBefore: Instant) {
        self.init(
            target: target, status: .pending, attempts: 0, nextAttemptAt: notBefore, lastAttemptAt: nil,
            finishedAt: nil, evidence: .none)
    }

    /// A step as the store saved it.
    public init(
        target: String, status: ErasureStepStatus, attempts: Int, nextAttemptAt: Instant?, lastAttemptAt: Instant?,
        finishedAt: Instant?, evidence: ErasureStepEvidence
    ) {
        self.target = target
        self.status = status
        self.attempts = attempts
        self.nextAttemptAt = nextAttemptAt
        self.lastAttemptAt = lastAttemptAt
        self.finishedAt = finishedAt
        self.evidence = evidence
    }

    /// Whether an attempt may start at `now`: pending and its attempt time has come.
    public func isDue(at now: Instant) -> Bool {
        switch status {
        case .pending: (nextAttemptAt ?? now) <= now
        case .running, .done, .waitingCallback, .failed, .unverified: false
        }
    }

    /// Marks an attempt as started. Returns false, changing nothing, unless the step ``isDue(at:)``.
    public mutating func start(at now: Instant) -> Bool {
        guard isDue(at: now) else { return false }
        status = .running
        attempts += 1
        lastAttemptAt = now
        nextAttemptAt = nil
        return true
    }

    /// Applies what the runner observed at `now` and decides what follows.
    ///
    /// - A running step takes any result but ``ErasureStepResult/callbackTimedOut``.
    /// - A step waiting for a callback takes the callback's outcome (`erased`, `unverifiable`, `failed`), a
    ///   repeated `accepted` (no change) or `callbackTimedOut` (final `unverified`).
    /// - A retryable failure goes back to `pending` after ``RetrySchedule/delay(afterAttempt:random:)`` for the
    ///   attempts made; when none is left, or the failure is not retryable, the step is `failed`.
    ///
    /// - Parameter random: a value in `[0, 1)` from the caller's generator, for the retry jitter.
    public mutating func record(
        stepResult: ErasureStepResult, at now: Instant, retry: RetrySchedule, random: Double
    ) -> ErasureStepAction {
        switch (status, stepResult) {
        case (.pending, _), (.done, _), (.failed, _), (.unverified, _), (.running, .callbackTimedOut):
            return .ignored
        case (.running, .accepted(let evidence)):
            self.evidence = evidence
            status = .waitingCallback
            return .awaitCallback
        case (.waitingCallback, .accepted):
            return .awaitCallback
        case (.running, .erased(let evidence)), (.waitingCallback, .erased(let evidence)):
            if let remaining = evidence.verificationCount, remaining > 0 {
                var failure = evidence
                failure.errorCode = failure.errorCode ?? .verificationNonzero
                return fail(failure, retryable: true, at: now, retry: retry, random: random)
            }
            return finish(.done, evidence, at: now)
        case (.running, .unverifiable(let evidence)), (.waitingCallback, .unverifiable(let evidence)):
            return finish(.unverified, evidence, at: now)
        case (.running, .failed(let evidence, let retryable)), (.waitingCallback, .failed(let evidence, let retryable)):
            return fail(evidence, retryable: retryable, at: now, retry: retry, random: random)
        case (.waitingCallback, .callbackTimedOut):
            return finish(.unverified, evidence, at: now)
        }
    }

    private mutating func finish(_ final: ErasureStepStatus, _ evidence: ErasureStepEvidence, at now: Instant)
        -> ErasureStepAction
    {
        self.evidence = evidence
        status = final
        finishedAt = now
        nextAttemptAt = nil
        return .finished(final)
    }

    private mutating func fail(
        _ evidence: ErasureStepEvidence, retryable: Bool, at now: Instant, retry: RetrySchedule, random: Double
    ) -> ErasureStepAction {
        guard retryable, let delay = retry.delay(afterAttempt: attempts, random: random) else {
            return finish(.failed, evidence, at: now)
        }
        self.evidence = evidence
        status = .pending
        let next = now.adding(milliseconds: delay)
        nextAttemptAt = next
        return .retry(at: next)
    }
}
