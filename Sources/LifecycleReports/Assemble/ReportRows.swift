/// A report's deletion requests in report order (event time, then pseudonym, then event type): held in memory
/// (a dataset built by hand, as the tests do) or read one at a time from a ``ReportRowSpool`` (what the
/// collect stage builds, so a large month's rows are not all in memory). The renderers, the log and the ledger
/// read both the same way.
public struct ReportRows: RandomAccessCollection, Hashable, Sendable, ExpressibleByArrayLiteral {
    private enum Storage: Sendable {
        case memory([ReportSubjectRow])
        case spool(ReportRowSpool)
    }

    private let storage: Storage

    public init(_ rows: [ReportSubjectRow]) { storage = .memory(rows) }

    public init(arrayLiteral rows: ReportSubjectRow...) { storage = .memory(rows) }

    public init(spool: ReportRowSpool) { storage = .spool(spool) }

    public var startIndex: Int { 0 }

    public var endIndex: Int {
        switch storage {
        case .memory(let rows): rows.count
        case .spool(let spool): spool.count
        }
    }

    public subscript(position: Int) -> ReportSubjectRow {
        switch storage {
        case .memory(let rows): rows[position]
        case .spool(let spool): spool.row(at: position)
        }
    }

    /// Throws when a row read from the spool was a stand-in for a record the disk failed to give back
    /// (``ReportRowSpool/row(at:)``); rows held in memory always read back. Call it before keeping or
    /// answering with anything made from the rows.
    public func checkRead() throws(ReportRowSpool.Failure) {
        if case .spool(let spool) = storage { try spool.checkRead() }
    }

    public static func == (lhs: ReportRows, rhs: ReportRows) -> Bool { lhs.elementsEqual(rhs) }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(count)
        for row in self { hasher.combine(row) }
    }
}
