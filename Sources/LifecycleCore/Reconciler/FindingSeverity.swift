/// How bad a reconciler finding is, ordered `info < warning < critical` so `--fail-on <severity>` can
/// compare: the run exits non-zero when any finding is at or above the chosen severity (DESIGN.md §8).
public enum FindingSeverity: String, Hashable, Sendable, CaseIterable, Comparable {
    /// Worth knowing; the reconciler already acted (e.g. registered an unknown `sub`).
    case info = "info"
    /// Needs a look; no legal deadline is known to be broken.
    case warning = "warning"
    /// A deletion obligation is, or may be, broken.
    case critical = "critical"

    public init?(canonicalName: String) { self.init(rawValue: canonicalName) }

    public var canonicalName: String { rawValue }

    private var rank: Int {
        switch self {
        case .info: 0
        case .warning: 1
        case .critical: 2
        }
    }

    public static func < (lhs: FindingSeverity, rhs: FindingSeverity) -> Bool { lhs.rank < rhs.rank }
}
