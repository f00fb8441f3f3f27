/// What the caller must do after recording a result, SwiftNIO style: the step decides, the caller acts
/// (stores the new state, schedules the retry, reports).
public enum ErasureStepAction: Hashable, Sendable {
    /// Try again no earlier than this instant.
    case retry(at: Instant)
    /// Wait for the target's callback.
    case awaitCallback
    /// The step reached a final status (`done`, `failed` or `unverified`).
    case finished(ErasureStepStatus)
    /// The result does not apply to the step's current status (a duplicate or late callback, a result for a
    /// step that is not running, a cancelled job): nothing changed.
    case ignored
}
