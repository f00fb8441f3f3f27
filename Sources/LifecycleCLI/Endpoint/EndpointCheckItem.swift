import LifecycleCore

/// One line of the endpoint checklist.
public struct EndpointCheckItem: Sendable, Hashable {
    public typealias Status = CheckStatus

    /// Stable identifier for `--json` consumers (`url`, `dns`, `tcp`, `tls`, `legacy-protocols`, `chain`,
    /// `host-name`, `expiry`, `key`, `signature`, `ats`, `probe`).
    public var id: String
    public var status: Status
    /// What was checked and what was found, one line.
    public var detail: String
    /// What to change, for warnings and failures.
    public var fix: String?

    public init(id: String, status: Status, detail: String, fix: String? = nil) {
        self.id = id
        self.status = status
        self.detail = detail
        self.fix = fix
    }
}
