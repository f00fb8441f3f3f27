import Testing

@testable import LifecycleCore

@Suite("Erasure planning: jobs per rule, targets per category, retention purges")
struct ErasurePlannerTests {
    static let policyJSON = """
        { "id": "kr-pipa", "version": 3, "jurisdiction": "KR", "timezone": "Asia/Seoul",
          "rules": [
            {"on": ["account-deleted", "in-app-deletion"], "erase": ["profile", "content", "apple-tokens", "relay-email"],
             "after": "P0D", "within": "P5D", "basis": "PIPA Art. 21(1)"},
            {"on": ["consent-revoked"], "erase": ["apple-tokens"], "within": "P5D"},
            {"on": ["consent-revoked"], "erase": ["profile", "content"], "after": "P30D", "within": "P35D",
             "cancelIfRelinked": true}],
          "retain": [
            {"category": "payment-records", "for": "P5Y", "basis": "Electronic Commerce Act, Art. 6", "separate": true},
            {"category": "login-records", "for": "P3M", "basis": "Protection of Communications Secrets Act"}] }
        """

    static func policy() throws -> ErasurePolicy {
        try PolicyValidator.validate(Array(policyJSON.utf8), file: "policies/kr-pipa.json")
    }

    static let reference = "kr-pipa@3#0f1e2d"

    /// `self` is listed first for tokens and relay e-mail on purpose: the plan must still put it last.
    static let mapping: [String: [String]] = [
        "profile": ["app-db", "crm"],
        "content": ["app-db", "media-store"],
        "apple-tokens": ["self", "app-db"],
        "relay-email": ["self", "crm"],
        "payment-records": ["billing-archive"],
        "login-records": ["app-db"],
    ]

    static let event = ISO8601Format.parse("2026-04-28T10:00:00+09:00")!

    @Test("an account deletion schedules the deletion rule, with the union of targets and self last")
    func deletionJob() throws {
        let plan = ErasurePlanner.plan(
            policy: try Self.policy(), policyReference: Self.reference, categoryTargets: Self.mapping,
            trigger: .accountDeleted, eventTime: Self.event)
        #expect(plan.jobs.count == 1)
        let job = try #require(plan.jobs.first)
        #expect(job.origin == .rule(index: 0))
        #expect(job.ruleIndex == 0)
        #expect(job.categories == [.profile, .content, .appleTokens, .relayEmail])
        #expect(job.targets == ["app-db", "crm", "media-store", "self"])
        #expect(job.notBefore == Self.event)
        #expect(job.deadline.iso8601 == "2026-05-03T01:00:00.000Z")
        #expect(job.cancelIfRelinked == false)
        #expect(job.basis == "PIPA Art. 21(1)")
        #expect(job.policyReference == Self.reference)
        #expect(job.trigger == .accountDeleted)
        #expect(job.eventTime == Self.event)
    }

    @Test("a deletion retains each retain entry until event time plus its period, in the policy's zone")
    func deletionRetentions() throws {
        let plan = ErasurePlanner.plan(
            policy: try Self.policy(), policyReference: Self.reference, categoryTargets: Self.mapping,
            trigger: .inAppDeletion, eventTime: Self.event)
        #expect(plan.retentions.map(\.category) == [.paymentRecords, .loginRecords])
        #expect(plan.retentions.map(\.purgeAt.iso8601) == ["2031-04-28T01:00:00.000Z", "2026-07-28T01:00:00.000Z"])
        #expect(plan.retentions.map(\.separate) == [true, false])
        #expect(
            plan.retentions.map(\.basis) == [
                "Electronic Commerce Act, Art. 6", "Protection of Communications Secrets Act",
            ])
        #expect(plan.retentions.map(\.retentionIndex) == [0, 1])
        #expect(plan.retentions.allSatisfy { $0.trigger == .inAppDeletion && $0.policyReference == Self.reference })
    }

    @Test("a retention becomes its own purge job at its purge date, never cancelled by a re-link")
    func purgeJob() throws {
        let plan = ErasurePlanner.plan(
            policy: try Self.policy(), policyReference: Self.reference, categoryTargets: Self.mapping,
            trigger: .accountDeleted, eventTime: Self.event)
        let job = plan.retentions[0].purgeJob(categoryTargets: Self.mapping)
        #expect(job.origin == .retention(index: 0))
        #expect(job.ruleIndex == nil)
        #expect(job.categories == [.paymentRecords])
        #expect(job.targets == ["billing-archive"])
        #expect(job.notBefore == plan.retentions[0].purgeAt)
        #expect(job.deadline == plan.retentions[0].purgeAt)
        #expect(job.cancelIfRelinked == false)
        #expect(job.basis == "Electronic Commerce Act, Art. 6")
    }

    @Test("a revocation schedules both revocation rules with their own windows and retains nothing")
    func revocation() throws {
        let plan = ErasurePlanner.plan(
            policy: try Self.policy(), policyReference: Self.reference, categoryTargets: Self.mapping,
            trigger: .consentRevoked, eventTime: Self.event)
        #expect(plan.jobs.map(\.ruleIndex) == [1, 2])
        #expect(plan.jobs[0].targets == ["app-db", "self"])
        #expect(plan.jobs[0].notBefore == Self.event)
        #expect(plan.jobs[0].cancelIfRelinked == false)
        #expect(plan.jobs[0].basis == nil)
        #expect(plan.jobs[1].targets == ["app-db", "crm", "media-store"])
        #expect(plan.jobs[1].notBefore.iso8601 == "2026-05-28T01:00:00.000Z")
        #expect(plan.jobs[1].deadline.iso8601 == "2026-06-02T01:00:00.000Z")
        #expect(plan.jobs[1].cancelIfRelinked)
        #expect(plan.retentions.isEmpty)
    }

    @Test("targets are de-duplicated across categories and self appears once, last")
    func targetUnion() {
        let mapping = ["profile": ["self", "a", "b"], "content": ["b", "self", "c", "a"]]
        #expect(
            ErasurePlanner.targets(for: [.profile, .content], categoryTargets: mapping) == ["a", "b", "c", "self"])
        #expect(ErasurePlanner.targets(for: [.content], categoryTargets: mapping) == ["b", "c", "a", "self"])
        #expect(ErasurePlanner.targets(for: [.relayEmail], categoryTargets: mapping) == [])
    }
}

@Suite("Category-to-target mapping validation")
struct ErasureMappingValidationTests {
    let known: Set<String> = ["app-db", "crm", "media-store", "billing-archive"]

    @Test("a complete mapping has no problems")
    func complete() throws {
        let lines = ErasurePlanner.missingMappings(
            policy: try ErasurePlannerTests.policy(), categories: ErasurePlannerTests.mapping, knownTargets: known)
        #expect(lines == [])
    }

    @Test("an erased category without targets and a retained one with an empty list are each named with a fix")
    func missingCategories() throws {
        var mapping = ErasurePlannerTests.mapping
        mapping["content"] = nil
        mapping["login-records"] = []
        let lines = ErasurePlanner.missingMappings(
            policy: try ErasurePlannerTests.policy(), categories: mapping, knownTargets: known)
        #expect(
            lines == [
                "category \"content\" is erased by rules[0] of policy kr-pipa@3 but has no targets; "
                    + "fix: map \"content\" to at least one of: app-db, billing-archive, crm, media-store, self",
                "category \"login-records\" is purged after retention by retain[1] of policy kr-pipa@3 but has no "
                    + "targets; fix: map \"login-records\" to at least one of: app-db, billing-archive, crm, "
                    + "media-store, self",
            ])
    }

    @Test("a target name that is not defined is named once with its category")
    func unknownTarget() throws {
        var mapping = ErasurePlannerTests.mapping
        mapping["profile"] = ["app-db", "crm-prod", "crm-prod"]
        let lines = ErasurePlanner.missingMappings(
            policy: try ErasurePlannerTests.policy(), categories: mapping, knownTargets: known)
        #expect(
            lines == [
                "category \"profile\" names target \"crm-prod\", which is not defined; "
                    + "fix: define a target \"crm-prod\" or use one of: app-db, billing-archive, crm, media-store, self"
            ])
    }

    @Test("a misspelt category is reported instead of silently ignored")
    func unknownCategory() throws {
        var mapping = ErasurePlannerTests.mapping
        mapping["profiles"] = ["app-db"]
        let lines = ErasurePlanner.missingMappings(
            policy: try ErasurePlannerTests.policy(), categories: mapping, knownTargets: known)
        #expect(lines.count == 1)
        #expect(
            lines.first?.hasPrefix("category \"profiles\" is not a known category; fix: use one of: profile,") == true)
    }
}
