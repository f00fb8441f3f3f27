/// Turns an account event into erasure jobs under a validated policy and the app's category-to-target
/// mapping (DESIGN.md §7). Pure: the caller stores the plan in the same transaction as the new account state.
public enum ErasurePlanner {
    /// The target name for the service's own PII (relay e-mail, stored tokens, raw JWS). Always erased last,
    /// and always known to the mapping validator.
    public static let selfTarget = "self"

    /// The jobs and retentions `trigger` at `eventTime` schedules.
    ///
    /// - Parameters:
    ///   - policyReference: the frozen `id@version#sha256` (the caller hashes ``ErasurePolicy/canonicalBytes``).
    ///   - categoryTargets: canonical category name to target names, from the app's configuration.
    /// - Returns: one job per rule whose `on` contains the trigger, instants from ``DeadlineCalculator`` in the
    ///   policy's zone; and, only for `account-deleted` / `in-app-deletion`, one ``RetentionPlan`` per
    ///   `retain[]` entry. A revocation retains nothing: the account still exists.
    public static func plan(
        policy: ErasurePolicy, policyReference: String, categoryTargets: [String: [String]],
        trigger: PolicyTrigger, eventTime: Instant
    ) -> ErasurePlan {
        let calculator = DeadlineCalculator(policy: policy)
        var jobs: [ErasureJobPlan] = []
        for (index, rule) in policy.rules.enumerated() where rule.on.contains(trigger) {
            let window = calculator.window(for: rule, eventTime: eventTime)
            jobs.append(
                ErasureJobPlan(
                    policyReference: policyReference, trigger: trigger, eventTime: eventTime,
                    origin: .rule(index: index), categories: rule.erase,
                    targets: targets(for: rule.erase, categoryTargets: categoryTargets),
                    notBefore: window.notBefore, deadline: window.deadline,
                    cancelIfRelinked: rule.cancelIfRelinked, basis: rule.basis))
        }
        var retentions: [RetentionPlan] = []
        if trigger.isDeletion {
            for (index, retention) in policy.retain.enumerated() {
                retentions.append(
                    RetentionPlan(
                        policyReference: policyReference, retentionIndex: index, category: retention.category,
                        eventTime: eventTime, purgeAt: calculator.purgeDate(for: retention, eventTime: eventTime),
                        basis: retention.basis, separate: retention.separate, trigger: trigger))
            }
        }
        return ErasurePlan(jobs: jobs, retentions: retentions)
    }

    /// The union of the targets of `categories`, de-duplicated in first-mention order, ``selfTarget`` last.
    public static func targets(for categories: [DataCategory], categoryTargets: [String: [String]]) -> [String] {
        var seen: Set<String> = []
        var ordered: [String] = []
        var includesSelf = false
        for category in categories {
            for target in categoryTargets[category.canonicalName] ?? [] {
                if target == selfTarget {
                    includesSelf = true
                } else if seen.insert(target).inserted {
                    ordered.append(target)
                }
            }
        }
        if includesSelf { ordered.append(selfTarget) }
        return ordered
    }
}
