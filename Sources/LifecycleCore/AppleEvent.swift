/// One decoded Apple event (the `events` claim), after the real-traffic quirks have been normalised.
public struct AppleEvent: Hashable, Sendable {
    public var type: AppleEventType
    /// The Apple user identifier. PII-adjacent: never logged or reported raw.
    public var subject: String
    /// When the event happened at Apple. Real traffic sends milliseconds, the documentation seconds.
    public var eventTime: Instant
    /// Present on the e-mail types. Real traffic sends `"true"`/`"false"` strings, sometimes booleans.
    public var isPrivateEmail: Bool?
    /// The relay or shared e-mail address, when Apple includes one. PII: never logged or reported.
    public var email: String?

    public init(
        type: AppleEventType, subject: String, eventTime: Instant, isPrivateEmail: Bool? = nil,
        email: String? = nil
    ) {
        self.type = type
        self.subject = subject
        self.eventTime = eventTime
        self.isPrivateEmail = isPrivateEmail
        self.email = email
    }
}
