import Foundation
import Testing

@testable import LifecycleCore

/// The extension limits the shipped policies state, and the check every recorded extension passes.
@Suite("Deadline extensions")
struct ExtensionTermsTests {
    static func instant(_ text: String) -> Instant { ISO8601Format.parse(text)! }

    @Test("CCPA: 45 more days, 90 in all, notice within the first 45 days; anything else names its field")
    func ccpa() throws {
        let policy = try ShippedPolicyTests.load("us-ccpa.json")
        let terms = try #require(policy.extensionTerms)
        #expect(terms.basis.contains("§7021(b)"))
        let calculator = DeadlineCalculator(policy: policy)
        let event = Self.instant("2026-03-01T12:00:00Z")
        let deadline = event.adding(seconds: 45 * 86_400)
        let now = event.adding(seconds: 60 * 86_400)
        func check(_ newDays: Int64, notice noticeDays: Int64) -> ExtensionRefusal.Field? {
            do {
                try terms.check(
                    eventTime: event, deadline: deadline, newDeadline: event.adding(seconds: newDays * 86_400),
                    noticeAt: event.adding(seconds: noticeDays * 86_400), now: now, calculator: calculator)
                return nil
            } catch {
                return error.field
            }
        }
        #expect(check(90, notice: 44) == nil, "90 days in all with notice inside the first 45")
        #expect(check(91, notice: 44) == .deadline, "past 90 days")
        #expect(check(45, notice: 10) == .deadline, "not later than the deadline")
        #expect(check(80, notice: 46) == .noticeAt, "notice after the first 45 days")
        #expect(check(80, notice: -1) == .noticeAt, "notice before the request")
    }

    @Test("GDPR: two further months in the policy's calendar, notice within one month of the request")
    func gdpr() throws {
        let policy = try ShippedPolicyTests.load("default.json")
        let terms = try #require(policy.extensionTerms)
        let calculator = DeadlineCalculator(policy: policy)
        let event = Self.instant("2026-01-31T10:00:00Z")
        let deadline = calculator.instant(try ISODuration.parse("P1M"), after: event)
        let limit = calculator.instant(terms.further, after: deadline)
        let now = Self.instant("2026-06-01T00:00:00Z")
        #expect(throws: Never.self) {
            try terms.check(
                eventTime: event, deadline: deadline, newDeadline: limit, noticeAt: event.adding(seconds: 86_400),
                now: now, calculator: calculator)
        }
        #expect(throws: ExtensionRefusal.self) {
            try terms.check(
                eventTime: event, deadline: deadline, newDeadline: limit.adding(seconds: 1), noticeAt: event,
                now: now, calculator: calculator)
        }
        #expect(throws: ExtensionRefusal.self) {
            try terms.check(
                eventTime: event, deadline: deadline, newDeadline: limit, noticeAt: deadline.adding(seconds: 1),
                now: now, calculator: calculator)
        }
    }

    @Test("kr-pipa states no extension, so none is allowed")
    func korea() throws {
        #expect(try ShippedPolicyTests.load("kr-pipa.json").extensionTerms == nil)
    }

    @Test("an extension member that is incomplete or not an object is refused naming the field")
    func validation() throws {
        let rules = #""rules": [{"on": ["account-deleted"], "erase": ["profile"], "within": "P5D"}]"#
        for (member, path) in [
            (#""extension": {"noticeWithin": "P1M", "basis": "x"}"#, "extension.further"),
            (#""extension": {"further": "P1M", "noticeWithin": "P1M"}"#, "extension.basis"),
            (#""extension": {"further": "-P1M", "noticeWithin": "P1M", "basis": "x"}"#, "extension.further"),
            (#""extension": {"further": "P1M", "noticeWithin": "P1M", "basis": "x", "max": 1}"#, "extension.max"),
            (#""extension": "P2M""#, "extension"),
        ] {
            let json = #"{"id": "t", "version": 1, "jurisdiction": "EU", "timezone": "UTC", \#(rules), \#(member)}"#
            do {
                _ = try PolicyValidator.validate(Array(json.utf8), file: "t.json")
                Issue.record("accepted: \(member)")
            } catch {
                #expect(error.errors.map(\.path) == [path], "\(member): \(error.errors)")
            }
        }
    }
}
