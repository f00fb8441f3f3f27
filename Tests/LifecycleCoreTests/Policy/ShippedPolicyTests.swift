import Foundation
import Testing

@testable import LifecycleCore

/// The policies shipped in `policies/` must validate: start-up refuses a policy that does not.
@Suite("Shipped policies")
struct ShippedPolicyTests {
    static let policiesDirectory = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()  // Policy
        .deletingLastPathComponent()  // LifecycleCoreTests
        .deletingLastPathComponent()  // Tests
        .deletingLastPathComponent()  // repository root
        .appendingPathComponent("policies")

    static func load(_ name: String) throws -> ErasurePolicy {
        let url = policiesDirectory.appendingPathComponent(name)
        let bytes = Array(try Data(contentsOf: url))
        return try PolicyValidator.validate(bytes, file: "policies/\(name)")
    }

    @Test("every shipped file validates", arguments: ["default.json", "kr-pipa.json", "us-ccpa.json"])
    func validates(name: String) throws {
        let policy = try Self.load(name)
        #expect(policy.id + ".json" == name)
        #expect(!policy.rules(on: .accountDeleted).isEmpty)
        #expect(!policy.rules(on: .inAppDeletion).isEmpty)
        #expect(policy.uncoveredDeletions.isEmpty, "serve would warn about a shipped policy")
        #expect(policy.rules.allSatisfy { $0.basis != nil }, "every shipped rule cites its basis")
    }

    @Test(
        "uncoveredDeletions names each kind of deletion no rule is on",
        arguments: [
            (#"["account-deleted"]"#, ["in-app-deletion"]), (#"["account-deleted", "in-app-deletion"]"#, []),
            (#"["consent-revoked"]"#, ["account-deleted", "in-app-deletion"]),
        ])
    func uncoveredDeletions(on: String, uncovered: [String]) throws {
        let json = """
            {"id": "p", "version": 1, "jurisdiction": "EU", "timezone": "UTC",
             "rules": [{"on": \(on), "erase": ["profile"], "within": "P1M"}]}
            """
        let policy = try PolicyValidator.validate(Array(json.utf8), file: "p.json")
        #expect(policy.uncoveredDeletions.map(\.rawValue) == uncovered)
    }

    @Test("no other file sits in policies/ unvalidated")
    func nothingElse() throws {
        let names = try FileManager.default.contentsOfDirectory(atPath: Self.policiesDirectory.path).sorted()
        #expect(names == ["default.json", "kr-pipa.json", "us-ccpa.json"])
    }

    @Test("kr-pipa: 5 days, a cancellable 30-day wait on revocation, Korean retention periods kept separately")
    func korea() throws {
        let policy = try Self.load("kr-pipa.json")
        #expect(policy.timeZoneIdentifier == "Asia/Seoul")
        #expect(policy.rules(on: .accountDeleted).map(\.within) == [ISODuration(days: 5)])
        // Which Korean rule and why: Art. 21 "without delay" read as 5 days, inside Decree Art. 43(3)'s 10 days.
        let basis = policy.rules(on: .accountDeleted).first?.basis ?? ""
        #expect(basis.contains("Art. 21(1)") && basis.contains("5 days"), "\(basis)")
        #expect(basis.contains("Enforcement Decree Art. 43(3)") && basis.contains("10 days"), "\(basis)")
        let waiting = policy.rules(on: .consentRevoked).filter(\.cancelIfRelinked)
        #expect(waiting.map(\.after) == [ISODuration(days: 30)])
        let retained = Dictionary(uniqueKeysWithValues: policy.retain.map { ($0.category, $0.period) })
        #expect(retained[.paymentRecords] == ISODuration(years: 5))
        #expect(retained[.complaintRecords] == ISODuration(years: 3))
        #expect(retained[.advertisingRecords] == ISODuration(months: 6))
        #expect(retained[.loginRecords] == ISODuration(months: 3))
        #expect(policy.retain.allSatisfy { $0.separate }, "PIPA Art. 21(3): stored separately")
        #expect(policy.retain.first { $0.category == .loginRecords }?.basis.contains("Communications Secrets") == true)
    }

    @Test("default is one calendar month; us-ccpa is 45 days in California time")
    func gdprAndCCPA() throws {
        let gdpr = try Self.load("default.json")
        #expect(gdpr.rules(on: .accountDeleted).map(\.within) == [ISODuration(months: 1)])
        #expect(gdpr.rules(on: .accountDeleted).first?.basis?.contains("Art. 12(3)") == true)
        let ccpa = try Self.load("us-ccpa.json")
        #expect(ccpa.timeZoneIdentifier == "America/Los_Angeles")
        #expect(ccpa.rules(on: .inAppDeletion).map(\.within) == [ISODuration(days: 45)])
        #expect(ccpa.rules(on: .accountDeleted).first?.basis?.contains("§7022") == true)
    }
}
