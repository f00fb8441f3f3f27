/// A non-negative ISO 8601 duration, `P#Y#M#W#DT#H#M#S` (ISO 8601-1:2019 §5.5.2.4), as policies write
/// waiting periods, deadlines and retention periods.
///
/// Years, months, weeks and days are calendar units, applied in the policy's time zone by
/// ``DeadlineCalculator``; hours, minutes and seconds are elapsed time. Only whole numbers are accepted:
/// a policy deadline has no use for `P0.5D`, and rejecting it keeps the arithmetic exact.
public struct ISODuration: Hashable, Sendable, CustomStringConvertible {
    public var years: Int
    public var months: Int
    public var weeks: Int
    public var days: Int
    public var hours: Int
    public var minutes: Int
    public var seconds: Int

    public init(
        years: Int = 0, months: Int = 0, weeks: Int = 0, days: Int = 0, hours: Int = 0, minutes: Int = 0,
        seconds: Int = 0
    ) {
        self.years = years
        self.months = months
        self.weeks = weeks
        self.days = days
        self.hours = hours
        self.minutes = minutes
        self.seconds = seconds
    }

    public static let zero = ISODuration()

    /// Why a duration text was refused; ``PolicyValidator`` turns it into a one-line message.
    public enum ParseError: Error, Hashable, Sendable {
        /// A leading `-` or a signed number: a deadline cannot lie before its event.
        case negative
        /// Anything else that is not `P#Y#M#W#DT#H#M#S`.
        case malformed
    }

    /// The largest value one component may hold (100 000, whatever the unit): far beyond any legal
    /// retention period, small enough that no calendar arithmetic overflows.
    public static let componentLimit = 100_000

    /// Parses the bytes of an ISO 8601 duration. Designators must appear in order, each at most once, at
    /// least one must be present, and `T` must be followed by a time component.
    public static func parse(_ text: String) throws(ParseError) -> ISODuration {
        let bytes = Array(text.utf8)
        guard let first = bytes.first else { throw .malformed }
        if first == UInt8(ascii: "-") || bytes.contains(UInt8(ascii: "-")) { throw .negative }
        guard first == UInt8(ascii: "P") else { throw .malformed }

        let dateUnits: [UInt8] = Array("YMWD".utf8)
        let timeUnits: [UInt8] = Array("HMS".utf8)
        var duration = ISODuration()
        var index = 1
        var inTime = false
        var nextUnit = 0  // index into the current unit list: designators must come in order
        var componentCount = 0
        var timeComponentCount = 0
        while index < bytes.count {
            if bytes[index] == UInt8(ascii: "T") {
                guard !inTime else { throw .malformed }
                inTime = true
                nextUnit = 0
                index += 1
                continue
            }
            var value = 0
            var digits = 0
            while index < bytes.count, bytes[index] >= UInt8(ascii: "0"), bytes[index] <= UInt8(ascii: "9") {
                let (times10, overflow1) = value.multipliedReportingOverflow(by: 10)
                let (sum, overflow2) = times10.addingReportingOverflow(Int(bytes[index] - UInt8(ascii: "0")))
                guard !overflow1, !overflow2, sum <= componentLimit else { throw .malformed }
                value = sum
                digits += 1
                index += 1
            }
            guard digits > 0, index < bytes.count else { throw .malformed }
            let units = inTime ? timeUnits : dateUnits
            guard let position = units[nextUnit...].firstIndex(of: bytes[index]) else { throw .malformed }
            switch (inTime, units[position]) {
            case (false, UInt8(ascii: "Y")): duration.years = value
            case (false, UInt8(ascii: "M")): duration.months = value
            case (false, UInt8(ascii: "W")): duration.weeks = value
            case (false, _): duration.days = value
            case (true, UInt8(ascii: "H")): duration.hours = value
            case (true, UInt8(ascii: "M")): duration.minutes = value
            case (true, _): duration.seconds = value
            }
            nextUnit = position + 1
            componentCount += 1
            if inTime { timeComponentCount += 1 }
            index += 1
        }
        guard componentCount > 0, !inTime || timeComponentCount > 0 else { throw .malformed }
        return duration
    }

    public var isZero: Bool { self == .zero }

    /// The canonical text, e.g. `P1Y6M`, `P5D`, `PT12H`; `P0D` for zero.
    public var description: String {
        var text = "P"
        for (value, unit) in [(years, "Y"), (months, "M"), (weeks, "W"), (days, "D")] where value != 0 {
            text += "\(value)\(unit)"
        }
        if hours != 0 || minutes != 0 || seconds != 0 {
            text += "T"
            for (value, unit) in [(hours, "H"), (minutes, "M"), (seconds, "S")] where value != 0 {
                text += "\(value)\(unit)"
            }
        }
        return text == "P" ? "P0D" : text
    }

    /// Plain English, e.g. "1 year and 6 months", "5 days"; "no time" for zero.
    public var plainWords: String {
        let parts = [
            (years, "year"), (months, "month"), (weeks, "week"), (days, "day"), (hours, "hour"),
            (minutes, "minute"), (seconds, "second"),
        ].compactMap { value, unit in value == 0 ? nil : "\(value) \(unit)\(value == 1 ? "" : "s")" }
        switch parts.count {
        case 0: return "no time"
        case 1: return parts[0]
        default: return parts.dropLast().joined(separator: ", ") + " and " + parts[parts.count - 1]
        }
    }
}
