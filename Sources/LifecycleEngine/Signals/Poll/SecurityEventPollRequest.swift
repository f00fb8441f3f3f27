import LifecycleCore

/// One poll of a transmitter's poll endpoint (RFC 8936 §2.1): how many SETs the receiver takes now, whether the
/// transmitter may hold the request open, and the outcome of the SETs of earlier answers — `ack` for each one
/// stored durably (or already stored), `setErrs` for each one that can never be accepted.
public struct SecurityEventPollRequest: Sendable, Hashable {
    /// One SET refused (RFC 8936 §2.4): `err` as RFC 8935 §2.4 names it, and a description for its operator.
    public struct SetError: Sendable, Hashable {
        public var err: String
        public var description: String

        public init(err: String, description: String) {
            self.err = err
            self.description = description
        }
    }

    /// `maxEvents`; 0 asks for no SET (RFC 8936 §2.1: acknowledge only).
    public var maxEvents: Int
    /// `returnImmediately`: true, so a poll never waits in the transmitter for SETs to arrive; the worker waits
    /// between empty polls itself, under its own deadline.
    public var returnImmediately: Bool
    /// `ack`, in the order the SETs were stored.
    public var ack: [String]
    /// `setErrs` by `jti`, in the order the SETs were refused.
    public var setErrs: [(jti: String, error: SetError)]

    public init(
        maxEvents: Int, returnImmediately: Bool = true, ack: [String] = [],
        setErrs: [(jti: String, error: SetError)] = []
    ) {
        self.maxEvents = maxEvents
        self.returnImmediately = returnImmediately
        self.ack = ack
        self.setErrs = setErrs
    }

    /// Whether the request reports anything: a poll that does must be answered before its SETs are forgotten.
    public var reportsOutcomes: Bool { !ack.isEmpty || !setErrs.isEmpty }

    /// The JSON body (RFC 8936 §2.1 Figure 4 and §2.4 Figure 7).
    public var json: JSONValue {
        var body: JSONObject = [
            "maxEvents": .integer(Int64(maxEvents)), "returnImmediately": .bool(returnImmediately),
        ]
        if !ack.isEmpty { body["ack"] = .array(ack.map(JSONValue.string)) }
        if !setErrs.isEmpty {
            body["setErrs"] = .object(
                JSONObject(
                    members: setErrs.map { entry in
                        (
                            key: entry.jti,
                            value: [
                                "err": .string(entry.error.err), "description": .string(entry.error.description),
                            ]
                        )
                    }))
        }
        return .object(body)
    }

    public static func == (left: Self, right: Self) -> Bool { left.json == right.json }
    public func hash(into hasher: inout Hasher) { hasher.combine(json) }
}
