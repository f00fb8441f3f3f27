extension ErasurePlanner {
    /// Problems in an app's category-to-target mapping for a policy, one line each naming the category and
    /// the fix; empty when the mapping is complete. DESIGN.md §7: a mapping that does not validate stops
    /// start-up, because a category with nowhere to erase it would silently never be erased.
    ///
    /// Reports, in this order:
    /// - each category the policy erases (`rules[].erase`) or purges after retention (`retain[].category`)
    ///   that has no targets (missing or an empty list);
    /// - each target name, in any mapped category, that is neither in `knownTargets` nor ``selfTarget``;
    /// - each mapped category name that is not a known ``DataCategory`` (a typo would otherwise leave the
    ///   intended category unmapped without a word).
    ///
    /// - Parameters:
    ///   - categories: canonical category name to target names, as configured for the app.
    ///   - knownTargets: the target names the configuration defines (``selfTarget`` is always known).
    public static func missingMappings(
        policy: ErasurePolicy, categories: [String: [String]], knownTargets: Set<String>
    ) -> [String] {
        var lines: [String] = []
        var needed: [(DataCategory, String)] = []
        for (index, rule) in policy.rules.enumerated() {
            for category in rule.erase where !needed.contains(where: { $0.0 == category }) {
                needed.append((category, "erased by rules[\(index)]"))
            }
        }
        for (index, retention) in policy.retain.enumerated()
        where !needed.contains(where: { $0.0 == retention.category }) {
            needed.append((retention.category, "purged after retention by retain[\(index)]"))
        }
        let known = knownTargets.union([selfTarget])
        let knownList = known.sorted().joined(separator: ", ")
        for (category, use) in needed where (categories[category.canonicalName] ?? []).isEmpty {
            lines.append(
                "category \"\(category.canonicalName)\" is \(use) of policy \(policy.reference) but has no targets; "
                    + "fix: map \"\(category.canonicalName)\" to at least one of: \(knownList)")
        }
        for name in categories.keys.sorted() {
            var reported: Set<String> = []
            for target in categories[name] ?? [] where !known.contains(target) && reported.insert(target).inserted {
                lines.append(
                    "category \"\(name)\" names target \"\(target)\", which is not defined; "
                        + "fix: define a target \"\(target)\" or use one of: \(knownList)")
            }
        }
        for name in categories.keys.sorted() where DataCategory(canonicalName: name) == nil {
            lines.append(
                "category \"\(name)\" is not a known category; "
                    + "fix: use one of: \(DataCategory.canonicalNames.joined(separator: ", "))")
        }
        return lines
    }
}
