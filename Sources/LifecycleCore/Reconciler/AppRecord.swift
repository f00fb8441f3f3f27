/// One account as the app's own records show it (DESIGN.md §8: a SQL query or a JSONL/CSV export with `sub`
/// and optionally `provider`, `status` and `sessions`).
public struct AppRecord: Hashable, Sendable {
    /// The store's key of the account: the Apple `sub`, or, for a record naming another provider, the key its
    /// identifier maps to (``AppRecordKeys``), so the merge compares like with like.
    public var subject: String
    /// The app's own status text, if exported; see ``ReconcilerOptions/tombstoneStatuses``.
    public var status: String?
    /// Live sessions, if exported.
    public var sessions: Int?

    public init(subject: String, status: String? = nil, sessions: Int? = nil) {
        self.subject = subject
        self.status = status
        self.sessions = sessions
    }
}
