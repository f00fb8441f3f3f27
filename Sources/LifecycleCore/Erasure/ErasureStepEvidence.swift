/// What a target reported on its last attempt: the per-target evidence a deletion-compliance report shows
/// (DOMAIN.md §6: rows affected, a re-query that finds nothing, a third party's acknowledgement).
///
/// Every field is optional because each target kind fills different ones: SQL targets the row and
/// verification counts, webhooks the HTTP status; a failure carries a stable error code (never a raw `sub`).
public struct ErasureStepEvidence: Hashable, Sendable {
    /// Rows the erasure statements changed (SQL targets).
    public var rowsAffected: Int?
    /// Rows the verification query still finds: 0 proves the erasure (SQL targets).
    public var verificationCount: Int?
    /// The HTTP status the target answered (webhook targets).
    public var responseStatus: Int?
    /// Why the attempt failed, e.g. `timed_out`, `http_500`, `verification_nonzero`.
    public var errorCode: FailureCode?
    /// Data keys the step destroyed (the `self` target: crypto-shredding of the service's sealed values).
    public var keysDestroyed: Int?
    /// What was done so that no pre-erasure byte remains in the files of the store or database erased from,
    /// e.g. `secure_delete, wal_checkpoint(TRUNCATE)` or `VACUUM users`; `none (…)` naming what may remain when
    /// the target was configured to do nothing (LifecycleEngine's `ErasureHygiene`); ``hygienePending`` until the `self` step's
    /// store has done it.
    public var hygiene: String?

    /// The ``hygiene`` of a `self` step whose store has not yet removed the remnants (done after the batch,
    /// or at the next start after a crash).
    public static let hygienePending = "pending"

    public init(
        rowsAffected: Int? = nil, verificationCount: Int? = nil, responseStatus: Int? = nil,
        errorCode: FailureCode? = nil,
        keysDestroyed: Int? = nil, hygiene: String? = nil
    ) {
        self.rowsAffected = rowsAffected
        self.verificationCount = verificationCount
        self.responseStatus = responseStatus
        self.errorCode = errorCode
        self.keysDestroyed = keysDestroyed
        self.hygiene = hygiene
    }

    public static let none = ErasureStepEvidence()
}
