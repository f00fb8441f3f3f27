import LifecycleCore

/// Decodes the `events` claim into an ``AppleEvent``, accepting every shape Apple has been seen to send
/// (DOMAIN.md §1, where real traffic and the documentation disagree):
///
/// - `events` is a JSON-encoded **string** in real traffic, an **object** in the documentation and a
///   one-element **array** in a WWDC session. All three are accepted; an array of more or fewer than one
///   element is `malformed_event` (a notification carries exactly one event).
/// - `event_time` is **milliseconds** in real traffic and seconds in the documentation: values below 10^12
///   are seconds. A numeric string is accepted too. Negative or fractional values, and times after
///   9999-12-31, are refused.
/// - `is_private_email` is the string `"true"`/`"false"` or a JSON bool. Any other value decodes to nil
///   (unknown), not an error: it is an auxiliary field, and refusing an `account-delete` notification over
///   it would lose the one signal a deletion produces.
/// - `type` goes through `AppleEventType(wireValue:)`: both deletion spellings, unknown types kept verbatim.
/// - `sub` is required and non-empty.
public enum AppleEventDecoder {
    /// `event_time` values at or above this are milliseconds (10^12 ms is September 2001; 10^12 s would be
    /// the year 33 658, past ``latestEventTime``).
    public static let millisecondThreshold: Int64 = 1_000_000_000_000
    /// The latest `event_time` accepted, 9999-12-31T23:59:59.999Z: the last instant RFC 3339 can write, so
    /// every stored time formats, parses back and leaves room for deadline arithmetic.
    public static let latestEventTime = ISO8601Format.latest
    /// Longest numeric string accepted for `event_time` (Int64 has 19 digits).
    static let maximumTimeDigits = 18

    public static func decode(_ events: JSONValue) throws(VerificationError) -> AppleEvent {
        let members = try eventObject(events)
        guard case .string(let typeName)? = members["type"], !typeName.isEmpty else {
            throw VerificationError(.malformedEvent, "event has no string \"type\"")
        }
        guard case .string(let subject)? = members["sub"], !subject.isEmpty else {
            throw VerificationError(.malformedEvent, "event has no non-empty string \"sub\"")
        }
        guard let rawTime = members["event_time"] else {
            throw VerificationError(.malformedEvent, "event has no \"event_time\"")
        }
        let eventTime = try instant(fromEventTime: rawTime)
        var email: String?
        if case .string(let value)? = members["email"], !value.isEmpty { email = value }
        return AppleEvent(
            type: AppleEventType(wireValue: typeName), subject: subject, eventTime: eventTime,
            isPrivateEmail: members["is_private_email"].flatMap(privateEmailFlag), email: email)
    }

    private static func eventObject(_ events: JSONValue) throws(VerificationError) -> JSONObject {
        switch events {
        case .object(let members):
            return members
        case .string(let encoded):
            guard let inner = JSONValue.parseIfValid(Array(encoded.utf8)) else {
                throw VerificationError(.malformedEvent, "\"events\" string is not valid JSON")
            }
            if case .string = inner {
                throw VerificationError(.malformedEvent, "\"events\" is doubly encoded")
            }
            return try eventObject(inner)
        case .array(let elements):
            guard elements.count == 1 else {
                throw VerificationError(
                    .malformedEvent, "\"events\" array has \(elements.count) elements; exactly one is expected")
            }
            guard case .object(let members) = elements[0] else {
                throw VerificationError(.malformedEvent, "\"events\" array element is not an object")
            }
            return members
        case .null, .bool, .integer, .number:
            throw VerificationError(.malformedEvent, "\"events\" is not an object, string or array")
        }
    }

    /// Seconds below ``millisecondThreshold``, milliseconds at or above it.
    static func instant(fromEventTime value: JSONValue) throws(VerificationError) -> Instant {
        let number: Int64
        switch value {
        case .integer(let integer):
            number = integer
        case .number(let double):
            guard double.isFinite, double == double.rounded(.towardZero), abs(double) < 9.0e15 else {
                throw VerificationError(.malformedEvent, "\"event_time\" is not a whole number")
            }
            number = Int64(double)
        case .string(let text):
            let digits = Array(text.utf8)
            guard !digits.isEmpty, digits.count <= maximumTimeDigits,
                digits.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), let parsed = Int64(text)
            else {
                throw VerificationError(.malformedEvent, "\"event_time\" string is not a number")
            }
            number = parsed
        case .null, .bool, .array, .object:
            throw VerificationError(.malformedEvent, "\"event_time\" is not a number")
        }
        guard number >= 0 else { throw VerificationError(.malformedEvent, "\"event_time\" is negative") }
        let instant =
            number < millisecondThreshold
            ? Instant(secondsSinceEpoch: number) : Instant(millisecondsSinceEpoch: number)
        guard instant <= latestEventTime else {
            throw VerificationError(.malformedEvent, "\"event_time\" is after 9999-12-31")
        }
        return instant
    }

    /// `"true"`/`"false"` (any case) or a bool; nil for anything else (see the type's documentation).
    static func privateEmailFlag(_ value: JSONValue) -> Bool? {
        switch value {
        case .bool(let flag): flag
        case .string(let text):
            switch text.lowercased() {
            case "true": true
            case "false": false
            default: nil
            }
        case .null, .integer, .number, .array, .object: nil
        }
    }
}
