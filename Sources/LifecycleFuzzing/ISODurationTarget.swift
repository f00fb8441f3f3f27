import LifecycleCore

/// ISO 8601 durations (`P1Y6M`, `PT12H`), the periods policies are written in.
///
/// Properties: an accepted duration's canonical text parses back to the same duration; no component exceeds
/// ``ISODuration/componentLimit``; a text with a `-` is refused as negative.
enum ISODurationTarget {
    static let target = FuzzTarget(
        name: "iso-duration",
        summary: "ISO 8601 durations: parse-describe-parse same value, components within the limit, no negatives",
        check: check)

    static func check(_ bytes: [UInt8]) throws(PropertyFailure) {
        let text = String(decoding: bytes, as: UTF8.self)
        let duration: ISODuration
        do {
            duration = try ISODuration.parse(text)
        } catch {
            if text.contains("-") { try require(error == .negative, "a text with '-' refused as \(error)") }
            return
        }
        let components = [
            duration.years, duration.months, duration.weeks, duration.days, duration.hours, duration.minutes,
            duration.seconds,
        ]
        try require(
            components.allSatisfy { (0...ISODuration.componentLimit).contains($0) }, "a component is out of range")
        let canonical = duration.description
        guard let again = try? ISODuration.parse(canonical) else {
            throw PropertyFailure("canonical text \(canonical) does not parse")
        }
        try require(again == duration, "\(canonical) parses to another duration")
        try require(again.description == canonical, "canonical text is not stable")
    }
}
