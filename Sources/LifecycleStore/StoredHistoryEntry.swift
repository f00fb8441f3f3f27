import LifecycleCore

/// One stored line of an account's history: the machine's ``AccountHistoryEntry`` plus where the input came
/// from, as ``StoreReader/history(app:subject:)`` returns it.
public struct StoredHistoryEntry: Sendable, Hashable {
    /// Increasing in insertion order; the order history is read back in.
    public var id: Int64
    public var entry: AccountHistoryEntry
    /// `notification` (HTTP), `replay` (`lifecycle ingest`), `admin` (an operator command) or `reconciler`.
    public var source: String
    /// The inbox row the input came from, when it came from one.
    public var notificationID: Int64?

    public init(id: Int64, entry: AccountHistoryEntry, source: String, notificationID: Int64?) {
        self.id = id
        self.entry = entry
        self.source = source
        self.notificationID = notificationID
    }
}
