import Testing

@testable import LifecycleCore

/// A bad policy and the one error it must produce.
struct BadPolicy: Sendable, CustomTestStringConvertible {
    var name: String
    var json: String
    var code: PolicyValidationError.Code
    var path: String
    var mentions: String

    var testDescription: String { name }
}

/// A valid policy with one rule field replaced.
private func withRule(_ rule: String, timezone: String = "Asia/Seoul") -> String {
    """
    {"id": "t", "version": 1, "jurisdiction": "KR", "timezone": "\(timezone)", "rules": [\(rule)]}
    """
}

private let validRule = #"{"on": ["account-deleted"], "erase": ["profile"], "within": "P5D"}"#

let badPolicies: [BadPolicy] = [
    BadPolicy(
        name: "misspelt rule key",
        json: withRule(#"{"on": ["consent-revoked"], "erase": ["profile"], "within": "P5D", "cancelIfRelink": true}"#),
        code: .unknownKey, path: "rules[0].cancelIfRelink", mentions: #"did you mean "cancelIfRelinked"?"#),
    BadPolicy(
        name: "unknown top-level key",
        json:
            #"{"id": "t", "version": 1, "jurisdiction": "KR", "timezone": "UTC", "rules": [\#(validRule)], "owner": "x"}"#,
        code: .unknownKey, path: "owner", mentions: "use one of: id, version, jurisdiction, timezone, rules, retain"),
    BadPolicy(
        name: "unknown category",
        json: withRule(#"{"on": ["account-deleted"], "erase": ["profile", "photos"], "within": "P5D"}"#),
        code: .unknownCategory, path: "rules[0].erase[1]", mentions: "use one of: profile, content, apple-tokens"),
    BadPolicy(
        name: "unknown retained category",
        json:
            #"{"id": "t", "version": 1, "jurisdiction": "KR", "timezone": "UTC", "rules": [\#(validRule)], "retain": [{"category": "payment-record", "for": "P5Y", "basis": "law"}]}"#,
        code: .unknownCategory, path: "retain[0].category", mentions: #"did you mean "payment-records"?"#),
    BadPolicy(
        name: "negative within",
        json: withRule(#"{"on": ["account-deleted"], "erase": ["profile"], "within": "-P5D"}"#),
        code: .negativeDuration, path: "rules[0].within", mentions: "remove the minus sign"),
    BadPolicy(
        name: "negative retention",
        json:
            #"{"id": "t", "version": 1, "jurisdiction": "KR", "timezone": "UTC", "rules": [\#(validRule)], "retain": [{"category": "login-records", "for": "P-3M", "basis": "law"}]}"#,
        code: .negativeDuration, path: "retain[0].for", mentions: "is negative"),
    BadPolicy(
        name: "garbage duration",
        json: withRule(#"{"on": ["account-deleted"], "erase": ["profile"], "within": "5 days"}"#),
        code: .malformedDuration, path: "rules[0].within", mentions: #"e.g. "P5D""#),
    BadPolicy(
        name: "rule without within",
        json: withRule(#"{"on": ["account-deleted"], "erase": ["profile"], "after": "P1D"}"#),
        code: .missingWithin, path: "rules[0].within", mentions: #"add "within""#),
    BadPolicy(
        name: "after longer than within",
        json: withRule(#"{"on": ["consent-revoked"], "erase": ["profile"], "after": "P40D", "within": "P35D"}"#),
        code: .afterExceedsWithin, path: "rules[0].after", mentions: #""after" (P40D) ends later than "within" (P35D)"#),
    BadPolicy(
        name: "30 days after but within one month, wrong from 30 January",
        json: withRule(
            #"{"on": ["consent-revoked"], "erase": ["profile"], "after": "P30D", "within": "P1M"}"#, timezone: "UTC"),
        code: .afterExceedsWithin, path: "rules[0].after", mentions: "for an event on 2023-01-30"),
    BadPolicy(
        name: "unknown trigger", json: withRule(#"{"on": ["account-delete"], "erase": ["profile"], "within": "P5D"}"#),
        code: .unknownTrigger, path: "rules[0].on[0]", mentions: #"did you mean "account-deleted"?"#),
    BadPolicy(
        name: "unknown time zone", json: withRule(validRule, timezone: "Asia/Seol"),
        code: .unknownTimeZone, path: "timezone", mentions: "use an IANA zone name"),
    BadPolicy(
        name: "version not a whole number",
        json: #"{"id": "t", "version": "1", "jurisdiction": "KR", "timezone": "UTC", "rules": [\#(validRule)]}"#,
        code: .invalidVersion, path: "version", mentions: "found a string"),
    BadPolicy(
        name: "no rules", json: #"{"id": "t", "version": 1, "jurisdiction": "KR", "timezone": "UTC", "rules": []}"#,
        code: .emptyList, path: "rules", mentions: "add at least one rule"),
    BadPolicy(
        name: "retention without basis",
        json:
            #"{"id": "t", "version": 1, "jurisdiction": "KR", "timezone": "UTC", "rules": [\#(validRule)], "retain": [{"category": "login-records", "for": "P3M"}]}"#,
        code: .missingField, path: "retain[0].basis", mentions: #""basis" is missing"#),
    BadPolicy(
        name: "category erased and retained",
        json:
            #"{"id": "t", "version": 1, "jurisdiction": "KR", "timezone": "UTC", "rules": [\#(validRule)], "retain": [{"category": "profile", "for": "P3M", "basis": "law"}]}"#,
        code: .erasedAndRetained, path: "retain[0].category", mentions: "remove it from rules[0].erase, or from retain"),
    BadPolicy(
        name: "not JSON", json: #"{"id": "t", "#, code: .malformedJSON, path: "(root)", mentions: "not valid JSON"),
    BadPolicy(
        name: "not an object", json: #"["id"]"#, code: .wrongType, path: "(root)", mentions: "write one JSON object"),
]

@Suite("Policy validation")
struct PolicyValidatorTests {
    @Test("a bad policy is rejected with one line naming the file, the field and the fix", arguments: badPolicies)
    func rejects(bad: BadPolicy) {
        let file = "policies/test.json"
        do {
            let policy = try PolicyValidator.validate(Array(bad.json.utf8), file: file)
            Issue.record("accepted: \(policy.reference)")
        } catch {
            #expect(error.errors.count == 1, "\(error)")
            let first = error.errors.first
            #expect(first?.code == bad.code)
            #expect(first?.path == bad.path)
            let line = first?.description ?? ""
            #expect(line.hasPrefix("\(file): \(bad.path): "), "\(line)")
            #expect(line.contains("; fix: "), "\(line)")
            #expect(line.contains(bad.mentions), "\(line)")
            #expect(!line.contains("\n"))
        }
    }

    @Test("the message reads as one exact line")
    func exactLine() {
        let json = withRule(#"{"on": ["account-deleted"], "erase": ["profile"], "after": "P1D"}"#)
        #expect(throws: PolicyValidationFailure.self) { try PolicyValidator.validate(Array(json.utf8), file: "p.json") }
        do {
            _ = try PolicyValidator.validate(Array(json.utf8), file: "p.json")
        } catch {
            #expect(
                error.description
                    == #"p.json: rules[0].within: the rule has no deadline; fix: add "within" with the legal deadline from the event, e.g. "within": "P5D""#
            )
        }
    }

    @Test("every problem is reported at once, in document order")
    func reportsAll() {
        let json = """
            {"id": "t", "version": 0, "jurisdiction": "KR", "timezone": "Mars/Olympus",
             "rules": [{"on": ["deleted"], "erase": ["profile"], "within": "P5D"},
                       {"on": ["consent-revoked"], "erase": ["fotos"]}]}
            """
        do {
            _ = try PolicyValidator.validate(Array(json.utf8), file: "p.json")
            Issue.record("accepted")
        } catch {
            #expect(
                error.errors.map(\.path) == [
                    "version", "timezone", "rules[0].on[0]", "rules[1].erase[0]", "rules[1].within",
                ])
        }
    }

    @Test("a valid policy decodes with defaults and keeps the bytes it was read from")
    func decodesValid() throws {
        let json = """
            {"id": "kr", "version": 3, "jurisdiction": "KR", "timezone": "Asia/Seoul",
             "rules": [{"on": ["account-deleted", "in-app-deletion"], "erase": ["profile", "relay-email"], "within": "P5D"},
                       {"on": ["consent-revoked"], "erase": ["content"], "after": "P30D", "within": "P35D",
                        "cancelIfRelinked": true, "basis": "PIPA Art. 21(1)"}],
             "retain": [{"category": "payment-records", "for": "P5Y", "basis": "ECA Art. 6", "separate": true}]}
            """
        let bytes = Array(json.utf8)
        let policy = try PolicyValidator.validate(bytes, file: "kr.json")
        #expect(policy.reference == "kr@3")
        #expect(policy.canonicalBytes == bytes)
        #expect(policy.rules[0].after == .zero)
        #expect(policy.rules[0].cancelIfRelinked == false)
        #expect(policy.rules[0].basis == nil)
        #expect(policy.rules[1].after == ISODuration(days: 30))
        #expect(policy.rules[1].cancelIfRelinked)
        #expect(
            policy.retain == [
                RetentionRule(
                    category: .paymentRecords, period: ISODuration(years: 5), basis: "ECA Art. 6", separate: true)
            ])
        #expect(policy.rules(on: .inAppDeletion).count == 1)
        #expect(policy.rules(on: .consentRevoked).map(\.erase) == [[.content]])
    }
}
