/// Errors a store reports. Messages never contain bound values (subs, e-mails, tokens).
public enum StoreError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The database cannot be opened, read or written (disk full, permissions, corrupt file, server down).
    case unavailable(String)
    /// The schema on disk is newer than this build understands.
    case schemaTooNew(found: Int, supported: Int)
    case closed

    public var description: String {
        switch self {
        case .unavailable(let detail): "storage unavailable: \(detail)"
        case .schemaTooNew(let found, let supported):
            "database schema version \(found) is newer than this build supports (\(supported)); upgrade lifecycle"
        case .closed: "storage is closed"
        }
    }
}
