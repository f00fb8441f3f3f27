import Testing

@testable import LifecycleCore

@Suite("Deletion-report statistics")
struct DeletionStatisticsTests {
    static let t0 = Instant(secondsSinceEpoch: 1_780_000_000)

    func at(days: Double) -> Instant { Self.t0.adding(milliseconds: Int64(days * 86_400_000)) }

    @Test("nearest rank: the median of an odd count is the middle value, of an even count the lower middle")
    func median() {
        #expect(DeletionStatistics.median([5, 1, 3]) == 3)
        #expect(DeletionStatistics.median([4, 1, 3, 2]) == 2)
        #expect(DeletionStatistics.median([7]) == 7)
        #expect(DeletionStatistics.median([]) == nil)
    }

    @Test("p95 is the value at rank ceil(0.95 × N)")
    func p95() {
        let hundred = (1...100).map(Double.init)
        #expect(DeletionStatistics.p95(hundred) == 95)
        let twenty = (1...20).map(Double.init).reversed().map { $0 }
        #expect(DeletionStatistics.p95(twenty) == 19)
        #expect(DeletionStatistics.p95([1, 2, 3, 4, 50]) == 50, "with 5 values the p95 is the maximum")
        #expect(DeletionStatistics.p95([]) == nil)
        #expect(DeletionStatistics.percentile(100, of: [3, 9, 1]) == 9)
        #expect(DeletionStatistics.percentile(1, of: [3, 9, 1]) == 1)
        #expect(DeletionStatistics.percentile(0, of: [3, 9, 1]) == nil)
    }

    @Test("days to complete count elapsed time from the event, only for completed cases")
    func daysToComplete() {
        let cases = [
            DeletionCase(eventTime: Self.t0, deadline: at(days: 5), completedAt: at(days: 1.5)),
            DeletionCase(eventTime: Self.t0, deadline: at(days: 5), completedAt: nil),
            DeletionCase(eventTime: at(days: 1), deadline: at(days: 6), completedAt: at(days: 8)),
        ]
        #expect(DeletionStatistics.daysToComplete(cases) == [1.5, 7])
        #expect(cases.map(\.isOnTime) == [true, false, false])
    }

    @Test("the on-time rate counts completed and overdue cases, not those still within their deadline")
    func onTimeRate() {
        let asOf = at(days: 10)
        let cases = [
            DeletionCase(eventTime: Self.t0, deadline: at(days: 5), completedAt: at(days: 5)),  // at the deadline
            DeletionCase(eventTime: Self.t0, deadline: at(days: 5), completedAt: at(days: 6)),  // late
            DeletionCase(eventTime: Self.t0, deadline: at(days: 5), completedAt: nil),  // overdue
            DeletionCase(eventTime: at(days: 9), deadline: at(days: 14), completedAt: nil),  // still open: left out
            DeletionCase(eventTime: at(days: 8), deadline: at(days: 13), completedAt: at(days: 9)),  // on time
        ]
        #expect(DeletionStatistics.onTimeRate(cases, asOf: asOf) == 0.5)
        #expect(DeletionStatistics.onTimeRate([cases[3]], asOf: asOf) == nil)
        #expect(DeletionStatistics.onTimeRate([], asOf: asOf) == nil)
        #expect(DeletionStatistics.onTimeRate([cases[0], cases[4]], asOf: asOf) == 1)
    }
}
