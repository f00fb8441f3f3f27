import Testing

@testable import LifecycleCore

@Suite("Notification gaps from heartbeats")
struct NotificationGapDetectorTests {
    static let start = Instant(secondsSinceEpoch: 1_780_000_000)
    static let minute: Int64 = 60
    static let threshold: Int64 = 5 * 60_000

    func at(minutes: Int64) -> Instant { Self.start.adding(seconds: minutes * Self.minute) }

    /// A heartbeat every minute over `[from, to]` minutes.
    func beats(_ from: Int64, _ to: Int64) -> [Instant] { (from...to).map { at(minutes: $0) } }

    func gaps(_ heartbeats: [[Instant]], from: Int64 = 0, to: Int64 = 240) -> [FindingWindow] {
        NotificationGapDetector.gaps(
            heartbeats: heartbeats, thresholdMilliseconds: Self.threshold, from: at(minutes: from), to: at(minutes: to))
    }

    @Test("heartbeats that stop for 2 hours give one gap covering those 2 hours")
    func twoHourStop() {
        let result = gaps([beats(0, 60) + beats(180, 240)])
        #expect(result == [FindingWindow(from: at(minutes: 60), to: at(minutes: 180))])
        #expect(result.first?.durationMilliseconds == Int64(2 * 3_600_000))
    }

    @Test("two instances taking turns leave no gap: the service is down only when every instance is")
    func alternatingInstances() {
        let first = beats(0, 60) + beats(120, 180)
        let second = beats(58, 122) + beats(178, 240)
        #expect(gaps([first, second]) == [])
        #expect(
            gaps([first]) == [
                FindingWindow(from: at(minutes: 60), to: at(minutes: 120)),
                FindingWindow(from: at(minutes: 180), to: at(minutes: 240)),
            ])
    }

    @Test("a silence of exactly the threshold is not a gap; one millisecond more is")
    func thresholdBoundary() {
        #expect(gaps([beats(0, 10) + beats(15, 240)]) == [])
        let late = at(minutes: 15).adding(milliseconds: 1)
        #expect(gaps([beats(0, 10) + [late] + beats(16, 240)]) == [FindingWindow(from: at(minutes: 10), to: late)])
    }

    @Test("silence at the start or the end of the range is a gap clipped to the range")
    func edges() {
        #expect(
            gaps([beats(30, 200)]) == [
                FindingWindow(from: at(minutes: 0), to: at(minutes: 30)),
                FindingWindow(from: at(minutes: 200), to: at(minutes: 240)),
            ])
        // A heartbeat before the range counts: the service was up until then.
        #expect(gaps([[at(minutes: -1)] + beats(3, 240)]) == [])
        #expect(
            gaps([[at(minutes: -20)] + beats(30, 240)]) == [FindingWindow(from: at(minutes: 0), to: at(minutes: 30))])
        // Heartbeats after the range do not close a gap inside it early.
        #expect(
            gaps([beats(0, 230) + beats(300, 310)]) == [FindingWindow(from: at(minutes: 230), to: at(minutes: 240))])
    }

    @Test("no heartbeat at all is one gap over the whole range; an empty range has none")
    func noHeartbeats() {
        #expect(gaps([]) == [FindingWindow(from: at(minutes: 0), to: at(minutes: 240))])
        #expect(gaps([[], []]) == [FindingWindow(from: at(minutes: 0), to: at(minutes: 240))])
        #expect(gaps([], from: 10, to: 10) == [])
        #expect(gaps([], from: 0, to: 4) == [])
    }

    @Test("gaps become notification-gap findings without a subject")
    func findings() {
        let result = NotificationGapDetector.findings(
            heartbeats: [beats(0, 60) + beats(180, 240)], thresholdMilliseconds: Self.threshold,
            from: at(minutes: 0), to: at(minutes: 240))
        #expect(result.count == 1)
        #expect(result.first?.code == .notificationGap)
        #expect(result.first?.severity == .warning)
        #expect(result.first?.subject == nil)
        #expect(result.first?.window == FindingWindow(from: at(minutes: 60), to: at(minutes: 180)))
        #expect(result.first?.detail.contains("(120 min)") == true)
    }
}
