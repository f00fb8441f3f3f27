import LifecycleCore

/// The optional JSON body of `deletion`: `{"eventTime": RFC 3339}` (`link` takes more: ``LinkRequestBody``). Members this build does not
/// act on are refused rather than dropped, so a caller never believes something was stored that was not.
package enum AdminRequestBody {
    /// The `eventTime` the body gives, nil when the body is empty or leaves it out.
    package static func eventTime(from body: [UInt8]) throws(AdminError) -> Instant? {
        guard body.contains(where: { !isWhitespace($0) }) else { return nil }
        guard let document = JSONValue.parseIfValid(body), case .object(let members) = document else {
            throw AdminError.badRequest(.malformedBody, "the body must be a JSON object")
        }
        var eventTime: Instant? = nil
        for member in members {
            switch member.key {
            case "eventTime":
                eventTime = try instant(member.value)
            default:
                throw AdminError.unknownMember(member.key, accepted: ["eventTime"])
            }
        }
        return eventTime
    }

    /// An `eventTime` value.
    package static func instant(_ value: JSONValue) throws(AdminError) -> Instant {
        guard let text = value.stringValue, let instant = ISO8601Format.parse(text) else {
            throw AdminError.unprocessable(
                .invalidEventTime,
                "eventTime must be an RFC 3339 instant with at most 9 fractional digits, e.g. "
                    + "2025-07-15T09:36:30.719Z")
        }
        return instant
    }

    private static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
    }
}
