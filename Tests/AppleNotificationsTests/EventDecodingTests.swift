import AppleNotifications
import LifecycleCore
import TestSupport
import Testing

private let now = TestFixtures.issuedAt.adding(seconds: 5)

/// Verifies a token whose `events` claim is exactly `events`.
private func verify(events: JSONValue) async -> Result<VerifiedNotification, VerificationError> {
    let factory = TestTokenFactory()
    let token = factory.token(claims: TestTokenFactory.claims(overrides: ["events": events]))
    return await factory.verifier().verify(jws: token, at: now)
}

private func event(_ members: JSONObject) -> JSONValue { .string(JSONValue.object(members).encodedString) }

@Suite("Event decoding quirks (DOMAIN.md §1)")
struct EventDecodingTests {
    let base = TestTokenFactory.event()

    @Test("events as a JSON-encoded string (real traffic), an object (docs) or a one-element array (WWDC)")
    func acceptsThreeShapes() async throws {
        for shape: JSONValue in [.string(JSONValue.object(base).encodedString), .object(base), .array([.object(base)])]
        {
            let notification = try await verify(events: shape).get()
            #expect(notification.event.type == .consentRevoked)
            #expect(notification.event.subject == TestFixtures.subject)
        }
    }

    @Test(
        "events that are not exactly one event object are malformed_event",
        arguments: [
            JSONValue.array([]), .array([.object(["type": .string("consent-revoked")]), .object([:])]),
            .string("{not json"), .integer(3), .null, .array([.string("x")]), .string("\"{}\""),
        ])
    func refusesOtherShapes(events: JSONValue) async {
        guard case .failure(let error) = await verify(events: events) else {
            Issue.record("expected malformed_event")
            return
        }
        #expect(error.code == .malformedEvent)
    }

    @Test("a missing events claim is malformed_event")
    func refusesMissingEvents() async {
        let factory = TestTokenFactory()
        let token = factory.token(claims: TestTokenFactory.claims(overrides: ["events": nil]))
        guard case .failure(let error) = await factory.verifier().verify(jws: token, at: now) else {
            Issue.record("expected a failure")
            return
        }
        #expect(error.code == .malformedEvent)
    }

    @Test(
        "event_time below 10^12 is seconds, at or above is milliseconds, numeric strings accepted",
        arguments: [
            (JSONValue.integer(1_752_572_190_719), Int64(1_752_572_190_719)),
            (.integer(1_508_184_845), 1_508_184_845_000),
            (.string("1752572190719"), 1_752_572_190_719),
            (.string("1508184845"), 1_508_184_845_000),
            (.number(1_508_184_845), 1_508_184_845_000),
            (.integer(253_402_300_799), 253_402_300_799_000),
            (.integer(1_000_000_000_000), 1_000_000_000_000),
        ])
    func eventTimeUnits(value: JSONValue, milliseconds: Int64) async throws {
        let members = TestTokenFactory.event(eventTime: value)
        let notification = try await verify(events: event(members)).get()
        #expect(notification.event.eventTime.millisecondsSinceEpoch == milliseconds)
    }

    @Test(
        "event_time that is not a non-negative whole number is malformed_event",
        arguments: [
            JSONValue.string("+5"), .string("-5"), .string(""), .string("12a"), .integer(-1), .number(1.5), .bool(true),
            .string("99999999999999999999999"),
        ])
    func refusesBadEventTime(value: JSONValue) async {
        guard case .failure(let error) = await verify(events: event(TestTokenFactory.event(eventTime: value))) else {
            Issue.record("expected malformed_event")
            return
        }
        #expect(error.code == .malformedEvent)
    }

    @Test(
        "is_private_email: \"false\" is false, \"true\" is true, bools as given, anything else unknown",
        arguments: [
            (JSONValue.string("false"), Bool?.some(false)), (.string("true"), true), (.bool(false), false),
            (.bool(true), true), (.string("yes"), nil), (.integer(1), nil), (.string(""), nil),
        ])
    func privateEmailFlag(value: JSONValue, expected: Bool?) async throws {
        let members = TestTokenFactory.event(
            type: "email-enabled", extra: ["is_private_email": value, "email": .string("x@privaterelay.appleid.com")])
        let notification = try await verify(events: event(members)).get()
        #expect(notification.event.isPrivateEmail == expected)
        #expect(notification.event.email == "x@privaterelay.appleid.com")
    }

    @Test(
        "types decode through AppleEventType, both deletion spellings, unknown kept verbatim",
        arguments: [
            ("email-disabled", AppleEventType.emailDisabled), ("email-enabled", .emailEnabled),
            ("consent-revoked", .consentRevoked), ("account-delete", .accountDeleted),
            ("account-deleted", .accountDeleted), ("account-suspended", .unknown("account-suspended")),
        ])
    func eventTypes(wire: String, expected: AppleEventType) async throws {
        let notification = try await verify(events: event(TestTokenFactory.event(type: wire))).get()
        #expect(notification.event.type == expected)
    }

    @Test("a missing or empty sub or type is malformed_event")
    func refusesMissingSubOrType() async {
        var noSub = base
        noSub["sub"] = nil
        var emptySub = base
        emptySub["sub"] = .string("")
        var noType = base
        noType["type"] = nil
        var noTime = base
        noTime["event_time"] = nil
        for members in [noSub, emptySub, noType, noTime] {
            guard case .failure(let error) = await verify(events: event(members)) else {
                Issue.record("expected malformed_event")
                continue
            }
            #expect(error.code == .malformedEvent)
        }
    }

    @Test("Apple's documentation example with its missing comma fails cleanly as malformed_claims")
    func documentationExampleMissingComma() async {
        // From "Processing changes for Sign in with Apple accounts": no comma after "is_private_email": "true".
        let claims = """
            {"iss": "https://appleid.apple.com", "aud": "\(TestFixtures.audience)", "iat": 1508184845,
             "jti": "abede...67890",
             "events": {"type": "email-enabled", "sub": "820417.faa325acbc78e1be1668ba852d492d8a.0219",
                        "email": "ep9ks2tnph@privaterelay.appleid.com", "is_private_email": "true"
                        "event_time": 1508184845}}
            """
        let factory = TestTokenFactory()
        let token = factory.token(
            rawHeader: JSONValue.object(factory.header()).encoded(), rawClaims: Array(claims.utf8))
        let report = await factory.verifier().inspect(jws: token, at: now)
        #expect(report.signatureVerified)
        #expect(report.claims == nil)
        #expect(report.error?.code == .malformedClaims)
    }

    @Test("the same documentation example with the comma restored is accepted as seconds")
    func documentationExampleFixed() async throws {
        let claims = """
            {"iss": "https://appleid.apple.com", "aud": "\(TestFixtures.audience)", "iat": 1752572191,
             "jti": "abede...67890",
             "events": {"type": "email-enabled", "sub": "820417.faa325acbc78e1be1668ba852d492d8a.0219",
                        "email": "ep9ks2tnph@privaterelay.appleid.com", "is_private_email": "true",
                        "event_time": 1508184845}}
            """
        let factory = TestTokenFactory()
        let token = factory.token(
            rawHeader: JSONValue.object(factory.header()).encoded(), rawClaims: Array(claims.utf8))
        let notification = try await factory.verifier().verify(jws: token, at: now).get()
        #expect(notification.event.type == .emailEnabled)
        #expect(notification.event.isPrivateEmail == true)
        #expect(notification.event.eventTime == Instant(secondsSinceEpoch: 1_508_184_845))
    }

    @Test("claims that are valid JSON but not an object, or not UTF-8, are malformed_claims")
    func refusesNonObjectClaims() async {
        let factory = TestTokenFactory()
        for raw in [Array("[]".utf8), Array("\"x\"".utf8), [0x7B, 0xFF, 0x7D]] {
            let token = factory.token(rawHeader: JSONValue.object(factory.header()).encoded(), rawClaims: raw)
            guard case .failure(let error) = await factory.verifier().verify(jws: token, at: now) else {
                Issue.record("expected malformed_claims")
                continue
            }
            #expect(error.code == .malformedClaims)
        }
    }

    /// Regression: an event_time of Int64.max milliseconds was accepted, and the deadline arithmetic of the
    /// erasure it scheduled overflowed.
    @Test(
        "event_time after 9999-12-31 is malformed_event; the last millisecond of 9999 is accepted",
        arguments: [
            (JSONValue.integer(Int64.max), false), (.integer(253_402_300_800_000), false),
            (.string("999999999999999999"), false), (.integer(999_999_999_999), false),
            (.integer(253_402_300_799_999), true),
        ])
    func eventTimeBound(value: JSONValue, accepted: Bool) throws {
        let members: JSONObject = ["type": "account-delete", "sub": "001", "event_time": value]
        let result = Result { () throws(VerificationError) in try AppleEventDecoder.decode(.object(members)) }
        switch result {
        case .success(let event): #expect(accepted && event.eventTime.iso8601 == "9999-12-31T23:59:59.999Z")
        case .failure(let error): #expect(!accepted && error.code == .malformedEvent)
        }
    }
}
