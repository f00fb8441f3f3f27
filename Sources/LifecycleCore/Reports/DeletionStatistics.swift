/// The summary numbers of a deletion-compliance report (DOMAIN.md §6: on-time rate, median and p95 days to
/// complete; CCPA §7102 asks for the median or mean days to respond).
///
/// Percentiles use the **nearest-rank** method: the p-th percentile of N sorted values is the value at rank
/// ⌈p/100 × N⌉ (1-based). It always answers a value that was actually observed, never an interpolation, so an
/// auditor can find the request behind it; the median is the 50th percentile by the same rule (for an even
/// count, the lower of the two middle values).
public enum DeletionStatistics {
    /// The nearest-rank `percentile` (0 < p ≤ 100) of `values`; nil when there are none.
    public static func percentile(_ percentile: Double, of values: [Double]) -> Double? {
        guard !values.isEmpty, percentile > 0, percentile <= 100 else { return nil }
        let sorted = values.sorted()
        let rank = Int((percentile / 100 * Double(sorted.count)).rounded(.up))
        return sorted[min(max(rank, 1), sorted.count) - 1]
    }

    /// The nearest-rank median (50th percentile) of `values`; nil when there are none.
    public static func median(_ values: [Double]) -> Double? { percentile(50, of: values) }

    /// The nearest-rank 95th percentile of `values`; nil when there are none.
    public static func p95(_ values: [Double]) -> Double? { percentile(95, of: values) }

    /// Days from event to completion of the completed cases, in input order.
    public static func daysToComplete(_ cases: [DeletionCase]) -> [Double] {
        cases.compactMap(\.daysToComplete)
    }

    /// The share of decided cases completed by their deadline, in `[0, 1]`; nil when none is decided.
    ///
    /// A case is decided once it is completed or its deadline has passed at `asOf`: a request still within
    /// its deadline is neither on time nor late yet, so it is left out rather than counted either way.
    public static func onTimeRate(_ cases: [DeletionCase], asOf: Instant) -> Double? {
        var decided = 0
        var onTime = 0
        for item in cases where item.completedAt != nil || item.deadline < asOf {
            decided += 1
            if item.isOnTime { onTime += 1 }
        }
        return decided == 0 ? nil : Double(onTime) / Double(decided)
    }
}
