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
    /// A stable machine code for a failure, e.g. `timeout`, `http-500`, `verification-nonzero`.
    public var errorCode: String?

    public init(
        rowsAffected: Int? = nil, verificationCount: Int? = nil, responseStatus: Int? = nil, errorCode: String? = nil
    ) {
        self.rowsAffected = rowsAffected
        self.verificationCount = verificationCount
        self.responseStatus = responseStatus
        self.errorCode = errorCode
    }

    public static let none = ErasureStepEvidence()
}
