import LifecycleCore

/// A transmitter's answer to a poll (RFC 8936 §2.2): `sets`, an object whose members are the SETs handed out
/// now keyed by their `jti`, and `moreAvailable`, true when the transmitter holds more than it returned. Decoded
/// from the bytes as read, since they come from outside: anything but that shape is refused with one line that
/// quotes none of the answer (a SET may carry personal data; a hostile answer may carry anything).
public struct SecurityEventPollAnswer: Sendable, Hashable {
    /// The longest `jti` taken (bytes). Longer keys refuse the answer: a `jti` goes back in `ack` and `setErrs`.
    public static let maximumJTIBytes = 256

    /// The SETs in the order the answer lists them.
    public var sets: [(jti: String, set: [UInt8])]
    public var moreAvailable: Bool

    public init(sets: [(jti: String, set: [UInt8])], moreAvailable: Bool) {
        self.sets = sets
        self.moreAvailable = moreAvailable
    }

    /// The answer in `bytes`, or why it is not one.
    public static func decode(_ bytes: [UInt8]) -> Result<SecurityEventPollAnswer, SecurityEventPollAnswerError> {
        let json: JSONValue
        do throws(JSONParseError) {
            json = try JSONValue.parse(bytes)
        } catch {
            return .failure(
                SecurityEventPollAnswerError("the answer is not JSON (\(error.reason) at byte \(error.offset))"))
        }
        guard let object = json.objectValue else {
            return .failure(SecurityEventPollAnswerError("the answer is \(json.kindName), not a JSON object"))
        }
        guard let setsValue = object["sets"] else {
            return .failure(SecurityEventPollAnswerError("the answer has no sets (RFC 8936 §2.2 requires it)"))
        }
        guard let members = setsValue.objectValue else {
            return .failure(SecurityEventPollAnswerError("sets is \(setsValue.kindName), not an object of jti to SET"))
        }
        var sets: [(jti: String, set: [UInt8])] = []
        sets.reserveCapacity(members.count)
        for (index, member) in members.members.enumerated() {
            guard !member.key.isEmpty, member.key.utf8.count <= maximumJTIBytes else {
                return .failure(
                    SecurityEventPollAnswerError(
                        "member \(index) of sets has a jti of \(member.key.utf8.count) bytes (1-\(maximumJTIBytes))"))
            }
            guard let set = member.value.stringValue, !set.isEmpty else {
                return .failure(
                    SecurityEventPollAnswerError(
                        "member \(index) of sets is \(member.value.kindName), not a compact SET string"))
            }
            sets.append((member.key, Array(set.utf8)))
        }
        var moreAvailable = false
        if let more = object["moreAvailable"], more != .null {
            guard let flag = more.boolValue else {
                return .failure(SecurityEventPollAnswerError("moreAvailable is \(more.kindName), not true or false"))
            }
            moreAvailable = flag
        }
        return .success(SecurityEventPollAnswer(sets: sets, moreAvailable: moreAvailable))
    }

    /// The answer as a transmitter would send it.
    public var json: JSONValue {
        [
            "sets": .object(
                JSONObject(members: sets.map { (key: $0.jti, value: .string(String(decoding: $0.set, as: UTF8.self))) })
            ),
            "moreAvailable": .bool(moreAvailable),
        ]
    }

    public static func == (left: Self, right: Self) -> Bool { left.json == right.json }
    public func hash(into hasher: inout Hasher) { hasher.combine(json) }
}

/// Why a poll answer was refused: one line naming what is wrong, never the answer's content.
public struct SecurityEventPollAnswerError: Error, Sendable, Hashable, CustomStringConvertible {
    public var description: String

    public init(_ description: String) { self.description = description }
}
