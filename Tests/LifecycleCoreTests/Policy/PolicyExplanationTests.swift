import Testing

@testable import LifecycleCore

@Suite("Policy explanation")
struct PolicyExplanationTests {
    static let policy = ErasurePolicy(
        id: "kr-pipa", version: 2, jurisdiction: "KR", timeZoneIdentifier: "Asia/Seoul",
        rules: [
            ErasureRule(
                on: [.accountDeleted, .inAppDeletion], erase: [.profile, .content], within: ISODuration(days: 5),
                basis: "PIPA Art. 21(1)"),
            ErasureRule(
                on: [.accountDeleted, .inAppDeletion], erase: [.relayEmail], within: ISODuration(days: 1)),
        ],
        retain: [
            RetentionRule(
                category: .paymentRecords, period: ISODuration(years: 5), basis: "Electronic Commerce Act, Art. 6",
                separate: true)
        ],
        canonicalBytes: [])

    @Test("says in plain words what happens on each trigger, by when and under which law")
    func plainWords() {
        let text = PolicyExplanation(policy: Self.policy).text
        #expect(
            text == """
                Policy kr-pipa, version 2, jurisdiction KR. Deadlines are calendar dates in Asia/Seoul, counted from the event time.

                When the user's Apple Account is deleted or the user deletes the account in the app:
                  - Erase profile and content at once, at the latest 5 days after the event. Basis: PIPA Art. 21(1).
                  - Erase relay-email at once, at the latest 1 day after the event.

                When the user stops using Sign in with Apple with the app: this policy erases nothing.

                Kept after erasure because another law requires it, then purged:
                  - payment-records for 5 years after the event, stored separately from live data. Basis: Electronic Commerce Act, Art. 6.
                """)
    }

    @Test("with an example event, shows absolute dates in the policy's time zone")
    func example() {
        let event = ISO8601Format.parse("2026-01-29T15:30:00Z")!  // 30 January 00:30 in Seoul
        let lines = PolicyExplanation(policy: Self.policy, exampleEventTime: event).lines
        #expect(lines[1] == "Example event at 2026-01-30 00:30 Asia/Seoul (2026-01-29T15:30:00.000Z).")
        #expect(lines.contains { $0.hasSuffix("Due by 2026-02-04 00:30 Asia/Seoul.") })
        #expect(lines.contains { $0.hasSuffix("Purge due 2031-01-30 00:30 Asia/Seoul.") })
    }

    @Test("a waiting period reads as a window that a re-link cancels")
    func waitingPeriod() {
        var policy = Self.policy
        policy.rules = [
            ErasureRule(
                on: [.consentRevoked], erase: [.content], after: ISODuration(days: 30), within: ISODuration(days: 35),
                cancelIfRelinked: true)
        ]
        let text = PolicyExplanation(policy: policy).text
        #expect(
            text.contains(
                "Erase content no earlier than 30 days and at the latest 35 days after the event; a new sign-in before then cancels it."
            ))
        #expect(
            text.contains(
                "When the user's Apple Account is deleted or the user deletes the account in the app: this policy erases nothing."
            ))
    }
}
