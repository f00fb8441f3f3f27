/// Where one target's part of an erasure job stands.
///
/// `pending → running → done | waiting-callback | failed | unverified`, and back to `pending` with a later
/// attempt time while retries remain. `done`, `failed` and `unverified` are final.
public enum ErasureStepStatus: String, Hashable, Sendable, CaseIterable {
    /// Waiting for its turn: the job's `notBefore`, the next retry time, or (for `self`) the other targets.
    case pending = "pending"
    /// An attempt is in flight.
    case running = "running"
    /// Erased, with evidence: a verification query that counts 0, or a 2xx acknowledgement.
    case done = "done"
    /// The target accepted the request (HTTP 202) and will call back when finished (DESIGN.md §7).
    case waitingCallback = "waiting-callback"
    /// Attempts exhausted, or a failure that retrying cannot fix.
    case failed = "failed"
    /// The target reports the work done but nothing proves it: never counted as erased (DOMAIN.md §6).
    case unverified = "unverified"

    public init?(canonicalName: String) { self.init(rawValue: canonicalName) }

    public var canonicalName: String { rawValue }

    /// No further attempt will change it.
    public var isFinal: Bool {
        switch self {
        case .done, .failed, .unverified: true
        case .pending, .running, .waitingCallback: false
        }
    }
}
