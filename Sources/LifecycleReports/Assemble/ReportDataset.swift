import LifecycleCore

/// Everything one deletion-compliance report says, as a pure value: the collect stage builds it, the
/// renderers (JSON, CSV, HTML) turn it into bytes, the writer stores and signs them. Renderers take nothing
/// else, so a fixed dataset gives byte-identical files (golden-file tests).
///
/// Subjects appear only as keyed pseudonyms: the dataset never holds a raw `sub`, e-mail or token.
public struct ReportDataset: Hashable, Sendable {
    /// The JSON schema identifier; bump the number on an incompatible change (reports/README.md).
    public static let schema = "accountlifecycle.deletion-report/2"

    public var app: String
    public var period: ReportPeriod
    /// The instant outcomes are judged at (pending vs overdue).
    public var generatedAt: Instant
    /// Key id of the pseudonym key (first 8 bytes of SHA-256 of the key, hex): says which key a
    /// `report lookup` must use to find a subject.
    public var pseudonymKeyID: String
    /// Deletion requests with event time in the period, by event time then pseudonym.
    public var subjects: [ReportSubjectRow]
    /// One entry per UTC day of the period.
    public var eventsPerDay: [ReportDailyEvents]
    public var findings: ReportFindings
    public var summary: ReportSummary
    /// Nil until the writer places the report in its manifest.
    public var integrity: ReportIntegrity?

    public init(
        app: String, period: ReportPeriod, generatedAt: Instant, pseudonymKeyID: String, subjects: [ReportSubjectRow],
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
