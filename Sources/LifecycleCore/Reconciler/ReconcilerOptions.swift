/// What the reconciler's comparison may be told about the app's records.
public struct ReconcilerOptions: Hashable, Sendable {
    /// App `status` values meaning the row is a tombstone kept so the data stays deleted (CCPA §7022(e)), not
    /// the account's data: such a row is not "holding" a deleted `sub`, and is not registered when unknown.
    /// Compared exactly. Default: `deleted`.
    public var tombstoneStatuses: Set<String>

    public init(tombstoneStatuses: Set<String> = ["deleted"]) {
        self.tombstoneStatuses = tombstoneStatuses
    }
}
