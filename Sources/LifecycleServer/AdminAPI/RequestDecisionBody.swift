import LifecycleCore

/// The JSON body of the request decisions (`…/request/extension|hold|release|refusal`): the text the decision
/// rests on under its own name (`reason` of an extension or a release, `grounds` of a hold, `basis` of a
/// refusal), an extension's `noticeAt` and `deadline`, and optionally the `eventTime` of the request meant
/// (default: the account's latest deletion request). Members the decision does not take are refused, never
/// dropped.
package struct RequestDecisionBody: Sendable, Hashable {
    package var text: String
    package var eventTime: Instant?
    package var noticeAt: Instant?
    package var deadline: Instant?

    /// Longest accepted text: a sentence citing the law, not a document.
    package static let maximumTextLength = 2_000

    package init(text: String, eventTime: Instant? = nil, noticeAt: Instant? = nil, deadline: Instant? = nil) {
        self.text = text
        self.eventTime = eventTime
        self.noticeAt = noticeAt
        self.deadline = deadline
    }

    /// The member that holds the decision's text.
    package static func textMember(_ decision: RequestDecision) -> String {
        switch decision {
        case .extension, .release: "reason"
        case .hold: "grounds"
        case .refusal: "basis"
        }
    }

    package static func parse(_ bytes: [UInt8], for decision: RequestDecision) throws(AdminError) -> RequestDecisionBody
    {
        guard let document = JSONValue.parseIfValid(bytes), case .object(let members) = document else {
            throw AdminError.badRequest(.malformedBody, "the body must be a JSON object")
        }
        let textName = textMember(decision)
        var allowed = [textName, "eventTime"]
        if decision == .extension { allowed += ["noticeAt", "deadline"] }
        var body = RequestDecisionBody(text: "")
        for member in members {
            guard allowed.contains(member.key) else {
                throw AdminError.unknownMember(member.key, accepted: allowed)
            }
        }
        guard let text = members[textName]?.stringValue,
            !text.allSatisfy({ $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" }),
            // Code points, as the OpenAPI `maxLength` counts them (JSON Schema), not grapheme clusters, which
            // combining marks can make any size.
            text.unicodeScalars.count <= maximumTextLength
        else {
            throw AdminError.unprocessable(
                .invalidReason, "\(textName) must be a non-empty string of at most \(maximumTextLength) characters")
        }
        body.text = text
        if let value = members["eventTime"] { body.eventTime = try AdminRequestBody.instant(value) }
        if decision == .extension {
            guard let value = members["noticeAt"]?.stringValue, let instant = ISO8601Format.parse(value) else {
                throw AdminError.unprocessable(
                    .invalidNoticeAt, "noticeAt must be the RFC 3339 instant the subject was told of the extension")
            }
            body.noticeAt = instant
            guard let value = members["deadline"]?.stringValue, let instant = ISO8601Format.parse(value) else {
                throw AdminError.unprocessable(
                    .invalidDeadline, "deadline must be the new deadline as an RFC 3339 instant")
            }
            body.deadline = instant
        }
        return body
    }
}

/// The four decisions an operator records about a deletion request.
package enum RequestDecision: String, Sendable, Hashable, CaseIterable {
    case `extension`, hold, release, refusal
}

extension RequestDecisionBody {
    /// The body as the admin route takes it, so `lifecycle request` sends (or checks) exactly what the API does.
    package func document(for decision: RequestDecision) -> [UInt8] {
        var members: JSONObject = [Self.textMember(decision): .string(text)]
        if let eventTime { members["eventTime"] = .string(eventTime.iso8601) }
        if let noticeAt { members["noticeAt"] = .string(noticeAt.iso8601) }
        if let deadline { members["deadline"] = .string(deadline.iso8601) }
        return JSONValue.object(members).serializedBytes()
    }
}
