/// What the runner observed for one attempt (or one callback) at one target. The runner classifies; the
/// step decides what follows (``ErasureStep/record(stepResult:at:retry:random:)``).
public enum ErasureStepResult: Hashable, Sendable {
    /// The target erased the data: a verification query counted 0, or a webhook answered 2xx or called back
    /// "done". A verification count above 0 is not an erasure: the step treats it as a retryable failure with
    /// the code ``FailureCode/verificationNonzero``.
    case erased(ErasureStepEvidence)
    /// The target accepted the request and will call back (HTTP 202).
    case accepted(ErasureStepEvidence)
    /// The target says it erased, but there is nothing to check it against (no verification query, a
    /// callback without outcome). Final and never counted as erased.
    case unverifiable(ErasureStepEvidence)
    /// The attempt failed. `retryable` is false for failures a retry cannot fix (e.g. a 4xx other than 408/429,
    /// a statement the database rejects); those fail the step at once.
    case failed(ErasureStepEvidence, retryable: Bool)
    /// An accepted request's callback did not arrive in time: the target acknowledged but never confirmed.
    case callbackTimedOut
}
