/// The verdict of one line of a checklist the operator runs (`endpoint check`, `apple check`): one set of
/// verdicts and symbols, so every checklist reads and parses (`--json`) the same way.
public enum CheckStatus: String, Sendable, Hashable {
    case pass
    /// Not verified, but nothing to fix now (e.g. the peer could not answer the question).
    case warning
    case fail
    /// Not run because an earlier check it depends on failed.
    case skipped

    /// ✓ pass, ! warning, ✗ fail, - skipped.
    public var symbol: String {
        switch self {
        case .pass: "✓"
        case .warning: "!"
        case .fail: "✗"
        case .skipped: "-"
        }
    }
}
