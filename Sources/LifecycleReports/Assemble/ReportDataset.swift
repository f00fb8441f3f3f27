import LifecycleCore

/// Everything one deletion-compliance report says, as a pure value: the collect stage builds it, the
/// renderers (JSON, CSV, HTML) turn it into bytes, the writer stores and signs them. Renderers take nothing
/// else, so a fixed dataset gives byte-identical files (golden-file tests).
///
/// Subjects appear only as keyed pseudonyms: the dataset never holds a raw `sub`, e-mail or token.
public struct ReportDataset: Hashable, Sendable {
    /// The JSON schema identifier; bump the number on an incompatible change (reports/README.md).
    public static let schema = "accountlifecycle.deletion-report/5"

    public var app: String
    public var period: ReportPeriod
    /// The instant outcomes are judged at (pending vs overdue).
    public var generatedAt: Instant
    /// Key id of the pseudonym key (first 8 bytes of SHA-256 of the key, hex): says which key a
    /// `report lookup` must use to find a subject.
    public var pseudonymKeyID: String
    /// Deletion requests with event time in the period, by event time then pseudonym (then event type).
    public var subjects: ReportRows
    /// One entry per UTC day of the period.
    public var eventsPerDay: [ReportDailyEvents]
    public var findings: ReportFindings
    public var summary: ReportSummary
    /// Nil until the writer places the report in its manifest.
    public var integrity: ReportIntegrity?
    /// Everything received in the period, by what became of it (``ReportInputCounts``).
    public var inputs: ReportInputCounts = .none
    /// Key id of the pseudonym key of the logs, `jobs list` and the admin API: equal to ``pseudonymKeyID``
    /// when they share one key (the default), so the same person has the same pseudonym there and here.
    public var operationsPseudonymKeyID: String = ""

    /// The fewest completion times a median and a 95th percentile are stated for (``ReportOptions``).
    public var minimumMedianSample: Int = ReportOptions.default.minimumMedianSample
    public var minimumP95Sample: Int = ReportOptions.default.minimumP95Sample
    /// Most requests the HTML page lists one by one (``ReportOptions/pageRequestLimit``).
    public var pageRequestLimit: Int = ReportOptions.default.pageRequestLimit

    /// True when the HTML page lists every request; false when there are more than it lists one by one, and
    /// it shows the exceptions and sums up the rest (the CSV and JSON hold every request either way).
    public var pageListsEveryRequest: Bool { subjects.count <= pageRequestLimit }

    /// The end of what the report can have seen: the period's end, or the generation time while the period
    /// is still running (a report cannot speak of a time after it was written).
    public var coveredUntil: Instant { min(period.to, generatedAt) }

    public init(
        app: String, period: ReportPeriod, generatedAt: Instant, pseudonymKeyID: String, subjects: ReportRows,
        eventsPerDay: [ReportDailyEvents], findings: ReportFindings, summary: ReportSummary,
        integrity: ReportIntegrity?
    ) {
        self.app = app
        self.period = period
        self.generatedAt = generatedAt
        self.pseudonymKeyID = pseudonymKeyID
        self.subjects = subjects
        self.eventsPerDay = eventsPerDay
        self.findings = findings
        self.summary = summary
        self.integrity = integrity
    }
}
