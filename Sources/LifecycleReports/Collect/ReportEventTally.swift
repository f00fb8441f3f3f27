import LifecycleCore
import LifecycleStore

/// A period's account inputs as the report counts them, without the inputs: by UTC day and type for the
/// events-per-day chart (duplicates and the types it leaves out not counted), and by disposition. The collector
/// counts each page's inputs here and lets them go, so a large month's inputs of every kind are never all in
/// memory; only the counts reach the assembler.
public struct ReportEventTally: Hashable, Sendable {
    /// Charted inputs by day (days since 1970-01-01 UTC) and type.
    var perDay: [Int64: [AccountInputKind: Int]] = [:]
    /// Every input in the period, by what became of it (an ignored input whatever the reason).
    var dispositions: [Disposition: Int] = [:]

    enum Disposition: Hashable, Sendable {
        case applied, stale, duplicate, ignored

        init(_ disposition: AccountDisposition) {
            switch disposition {
            case .applied: self = .applied
            case .stale: self = .stale
            case .duplicate: self = .duplicate
            case .ignored: self = .ignored
            }
        }
    }

    public init() {}

    /// The inputs of `events` whose event time lies in `period`, counted in.
    public mutating func count(_ events: [ReportEvent], period: ReportPeriod) {
        for event in events where period.contains(event.eventTime) {
            dispositions[Disposition(event.disposition), default: 0] += 1
            if event.disposition != .duplicate, ReportAssembler.chartedEventTypes.contains(event.kind) {
                perDay[Self.day(event.eventTime), default: [:]][event.kind, default: 0] += 1
            }
        }
    }

    /// How many charted inputs of `kind` the UTC day starting at `start` had.
    func count(day start: Instant, kind: AccountInputKind) -> Int { perDay[Self.day(start)]?[kind] ?? 0 }

    func count(_ disposition: Disposition) -> Int { dispositions[disposition] ?? 0 }

    private static func day(_ instant: Instant) -> Int64 {
        let milliseconds = instant.millisecondsSinceEpoch
        let (quotient, remainder) = milliseconds.quotientAndRemainder(dividingBy: ReportPeriod.millisecondsPerDay)
        return remainder < 0 ? quotient - 1 : quotient
    }
}
