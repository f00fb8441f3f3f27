import LifecycleCore

/// One line of `apple check`: what was checked, for which client ID, the verdict, and the fix.
public struct AppleCheckItem: Sendable, Hashable {
    public typealias Status = CheckStatus

    /// Stable identifier for `--json` consumers: `client-secret` or `token-endpoint`.
    public var id: String
    /// The client ID the line is about.
    public var clientID: String
    public var status: Status
    /// What was checked and what was found, one line.
    public var detail: String
    /// What to change, for warnings and failures.
    public var fix: String?

    public init(id: String, clientID: String, status: Status, detail: String, fix: String? = nil) {
        self.id = id
        self.clientID = clientID
        self.status = status
        self.detail = detail
        self.fix = fix
    }
}
