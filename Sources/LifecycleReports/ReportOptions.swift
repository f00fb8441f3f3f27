/// Limits of report generation, with documented defaults (no magic numbers in the stages).
public struct ReportOptions: Hashable, Sendable {
    /// Most UTC days the events-per-day chart and table show (a leap year, so a yearly report fits).
    public var maximumChartDays: Int
    /// Accounts read per store page while collecting.
    public var collectionPageSize: Int
    /// Fewest completion times a median is printed for. Below it the report gives the count and the slowest
    /// time instead: the median of two requests is one of them, not a statistic.
    public var minimumMedianSample: Int
    /// Fewest completion times a 95th percentile is printed for: with fewer than 20, the nearest-rank p95
    /// (rank ⌈0.95 × N⌉) is the largest value, so it would only repeat the slowest time.
    public var minimumP95Sample: Int
    /// Most requests the HTML page lists one by one. A period with more lists only its exceptions (completed
    /// late, overdue, failed or unproven, held, denied), at most this many, and sums up the retained items
    /// and remaining copies; the CSV and JSON files always hold every request. A page of a million request
    /// blocks is hundreds of megabytes no browser opens and no one reads.
    public var pageRequestLimit: Int

    public init(
        maximumChartDays: Int = 366, collectionPageSize: Int = 500, minimumMedianSample: Int = 5,
        minimumP95Sample: Int = 20, pageRequestLimit: Int = 1000
    ) {
        self.pageRequestLimit = pageRequestLimit
        self.maximumChartDays = maximumChartDays
        self.collectionPageSize = collectionPageSize
        self.minimumMedianSample = minimumMedianSample
        self.minimumP95Sample = minimumP95Sample
    }

    public static let `default` = ReportOptions()
}
