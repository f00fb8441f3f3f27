/// What the reconciler's comparison may be told about the app's records.
public struct ReconcilerOptions: Hashable, Sendable {
    /// App `status` values meaning the row is a tombstone kept so the data stays deleted (CCPA §7022(e)), not
    /// the account's data: such a row is not "holding" a deleted `sub`, and is not registered when unknown.
    /// Compared exactly. Default: `deleted`.
    public var tombstoneStatuses: Set<String>
    /// False when the app has no records source: the app's side is empty, so an account only the service knows
    /// is not an `orphan-notification`; the service's own findings per account (erasure, credentials,
    /// revocation) still come. Default: true.
    public var comparesRecords: Bool

    public init(tombstoneStatuses: Set<String> = ["deleted"], comparesRecords: Bool = true) {
        self.tombstoneStatuses = tombstoneStatuses
        self.comparesRecords = comparesRecords
    }
}
