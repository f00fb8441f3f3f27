import AppleNotifications
import LifecycleCore

/// Decoding Apple's `events` claim in every shape seen in the wild (object, JSON string, one-element array).
///
/// Properties: the three shapes of the same event decode identically; a decoded event has a non-empty
/// subject and a non-negative event time that formats and parses back; refusals are `malformed_event`.
enum AppleEventTarget {
    static let target = FuzzTarget(
        name: "apple-event",
        summary: "Apple events claim: object = JSON string = one-element array, sane subject and time",
        check: check)

    static func check(_ bytes: [UInt8]) throws(PropertyFailure) {
        guard let value = JSONValue.parseIfValid(bytes) else { return }
        let decoded: AppleEvent
        do {
            decoded = try AppleEventDecoder.decode(value)
        } catch {
            try require(error.code == .malformedEvent, "refused with \(error.code)")
            return
        }
        try require(!decoded.subject.isEmpty, "an event with an empty sub was accepted")
        try require(decoded.eventTime.millisecondsSinceEpoch >= 0, "a negative event time was accepted")
        if case .object(let members) = value {
            for shape in [JSONValue.string(value.serialized()), .array([.object(members)])] {
                guard let other = try? AppleEventDecoder.decode(shape), other == decoded else {
                    throw PropertyFailure("the \(shape.kindName) form of an accepted event decodes differently")
                }
            }
        }
        if let parsed = ISO8601Format.parse(decoded.eventTime.iso8601) {
            try require(parsed == decoded.eventTime, "an event time does not survive format-parse")
        }
    }
}
