/// Limits of report generation, with documented defaults (no magic numbers in the stages).
public struct ReportOptions: Hashable, Sendable {
    /// Most UTC days the events-per-day chart and table show (a leap year, so a yearly report fits).
    public var maximumChartDays: Int
    /// Accounts read per store page while collecting.
    public var collectionPageSize: Int

    public init(maximumChartDays: Int = 366, collectionPageSize: Int = 500) {
        self.maximumChartDays = maximumChartDays
        self.collectionPageSize = collectionPageSize
    }

    public static let `default` = ReportOptions()
}
