/// How far a policy's law lets the controller extend the deadline of a deletion request, and by when the
/// subject must have been told (the policy's `extension` member). One mechanism for every law:
/// - GDPR Art. 12(3): "may be extended by two further months … The controller shall inform the data subject of
///   any such extension within one month of receipt of the request": `further` `P2M`, `noticeWithin` `P1M`;
/// - CCPA regulations §7021(b): "up to an additional 45 calendar days … for a maximum total of 90 calendar
///   days … provided that the business provides the consumer with notice and an explanation of the reason …
///   within the first 45 calendar days": `further` `P45D`, `noticeWithin` `P45D`.
/// A policy without it allows no extension.
public struct ExtensionTerms: Hashable, Sendable {
    /// The most the deadline may move past the request's own deadline, in the policy's calendar.
    public var further: ISODuration
    /// From the request's event time, the window in which the subject must be told.
    public var noticeWithin: ISODuration
    /// The law, quoted in the ledger beside each extension.
    public var basis: String

    public init(further: ISODuration, noticeWithin: ISODuration, basis: String) {
        self.further = further
        self.noticeWithin = noticeWithin
        self.basis = basis
    }
}

/// Why an extension a controller asks for is refused: the member it is about and a sentence naming the
/// limit, so the operator sees which value to change.
public struct ExtensionRefusal: Error, Hashable, Sendable {
    public enum Field: String, Sendable, Hashable {
        case deadline, noticeAt, reason
    }

    public var field: Field
    public var problem: String

    public init(field: Field, problem: String) {
        self.field = field
        self.problem = problem
    }
}

extension ExtensionTerms {
    /// Checks one extension of a request with event time `eventTime` and deadline `deadline` (before any
    /// extension): the new deadline lies after the old one and no later than `further` past it, and the
    /// notice was given between the event and both the end of `noticeWithin` and the old deadline, and not
    /// after `now`. Pure: the calendar is the policy's (``DeadlineCalculator``).
    public func check(
        eventTime: Instant, deadline: Instant, newDeadline: Instant, noticeAt: Instant, now: Instant,
        calculator: DeadlineCalculator
    ) throws(ExtensionRefusal) {
        let latest = calculator.instant(further, after: deadline)
        guard newDeadline > deadline else {
            throw ExtensionRefusal(
                field: .deadline, problem: "deadline must be later than the request's deadline \(deadline.iso8601)")
        }
        guard newDeadline <= latest else {
            throw ExtensionRefusal(
                field: .deadline,
                problem:
                    "deadline \(newDeadline.iso8601) is beyond the limit \(latest.iso8601) (\(further) past "
                    + "\(deadline.iso8601), \(basis))")
        }
        let noticeEnd = min(calculator.instant(noticeWithin, after: eventTime), deadline)
        guard noticeAt >= eventTime, noticeAt <= noticeEnd else {
            throw ExtensionRefusal(
                field: .noticeAt,
                problem:
                    "noticeAt \(noticeAt.iso8601) is outside the notice window \(eventTime.iso8601) to "
                    + "\(noticeEnd.iso8601) (\(noticeWithin) from the request, \(basis))")
        }
        guard noticeAt <= now else {
            throw ExtensionRefusal(field: .noticeAt, problem: "noticeAt \(noticeAt.iso8601) is in the future")
        }
    }
}
