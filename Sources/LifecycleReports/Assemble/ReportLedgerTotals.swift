import LifecycleCore

/// The figures a business publishes about the deletion requests of a period, usually a calendar year (CCPA
/// regulations §7102(a)(1)(B)–(C): received, complied with in whole or in part, denied; the median or mean
/// days to respond). Derived from the report's rows, so the published numbers and the ledger agree.
public struct ReportLedgerTotals: Hashable, Sendable {
    public var received: Int
    /// Erased everywhere the policy names (``ReportResponse/complied``).
    public var compliedInWhole: Int
    /// Erased with categories kept under another law (``ReportResponse/compliedInPart``).
    public var compliedInPart: Int
    /// Refused on a recorded basis (``ReportResponse/denied``).
    public var denied: Int
    /// Withdrawn by the user signing in again (``ReportResponse/withdrawn``).
    public var withdrawn: Int
    /// Not answered yet.
    public var open: Int
    /// Nearest-rank median of the days from event to answer, over the answered requests; nil when none was.
    /// §7102 asks for it however few the requests, so no minimum sample applies; ``respondedSample`` says n.
    public var medianDaysToRespond: Double?
    public var respondedSample: Int

    /// In one pass: the rows may be read back from a spool one at a time.
    public init(rows: some Collection<ReportSubjectRow>) {
        var counts: [ReportResponse: Int] = [:]
        var days: [Double] = []
        for row in rows {
            counts[row.response, default: 0] += 1
            if let respondedAt = row.respondedAt {
                days.append(
                    Double(respondedAt.millisecondsSinceEpoch - row.eventTime.millisecondsSinceEpoch)
                        / Double(ReportPeriod.millisecondsPerDay))
            }
        }
        received = counts.values.reduce(0, +)
        compliedInWhole = counts[.complied] ?? 0
        compliedInPart = counts[.compliedInPart] ?? 0
        denied = counts[.denied] ?? 0
        withdrawn = counts[.withdrawn] ?? 0
        open = counts[.open] ?? 0
        respondedSample = days.count
        medianDaysToRespond = DeletionStatistics.median(days).map(ReportNumbers.rounded)
    }
}
