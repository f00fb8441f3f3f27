/// A policy in plain words: what is erased on each trigger and by when, and what is kept under which law
/// (`lifecycle policy explain`). Compliance staff read this, not the JSON.
///
/// With an example event time, each rule also shows its absolute window in the policy's time zone, computed
/// by the same ``DeadlineCalculator`` that schedules jobs, so the explanation cannot drift from behaviour.
public struct PolicyExplanation: Sendable {
    public let policy: ErasurePolicy
    public let exampleEventTime: Instant?

    public init(policy: ErasurePolicy, exampleEventTime: Instant? = nil) {
        self.policy = policy
        self.exampleEventTime = exampleEventTime
    }

    /// The explanation, one sentence per line.
    public var lines: [String] {
        let calculator = DeadlineCalculator(policy: policy)
        let zone = policy.timeZoneIdentifier
        var lines = [
            "Policy \(policy.id), version \(policy.version), jurisdiction \(policy.jurisdiction). "
                + "Deadlines are calendar dates in \(zone), counted from the event time."
        ]
        if let example = exampleEventTime {
            lines.append("Example event at \(calculator.localText(example)) \(zone) (\(example.iso8601)).")
        }

        var groups: [[PolicyTrigger]] = []
        for rule in policy.rules where !groups.contains(rule.on) { groups.append(rule.on) }
        for triggers in groups {
            lines.append("")
            lines.append("When " + Self.sentence(triggers.map(\.plainWords), joiner: "or") + ":")
            for rule in policy.rules where rule.on == triggers {
                lines.append("  - " + describe(rule, calculator: calculator))
            }
        }
        let uncovered = PolicyTrigger.allCases.filter { trigger in !policy.rules.contains { $0.on.contains(trigger) } }
        if !uncovered.isEmpty {
            lines.append("")
            lines.append(
                "When " + Self.sentence(uncovered.map(\.plainWords), joiner: "or")
                    + ": this policy erases nothing.")
        }

        lines.append("")
        if policy.retain.isEmpty {
            lines.append("Nothing is kept beyond these deadlines.")
        } else {
            lines.append("Kept after erasure because another law requires it, then purged:")
            for entry in policy.retain {
                var line = "  - \(entry.category.rawValue) for \(entry.period.plainWords) after the event"
                if entry.separate { line += ", stored separately from live data" }
                line += ". Basis: " + Self.sentenceEnding(entry.basis)
                if let example = exampleEventTime {
                    line +=
                        " Purge due \(calculator.localText(calculator.purgeDate(for: entry, eventTime: example))) \(zone)."
                }
                lines.append(line)
            }
        }
        return lines
    }

    public var text: String { lines.joined(separator: "\n") }

    private func describe(_ rule: ErasureRule, calculator: DeadlineCalculator) -> String {
        var line = "Erase " + Self.sentence(rule.erase.map(\.rawValue), joiner: "and")
        if rule.after.isZero {
            line += " at once, at the latest \(rule.within.plainWords) after the event"
        } else {
            line +=
                " no earlier than \(rule.after.plainWords) and at the latest \(rule.within.plainWords) after the event"
        }
        if rule.cancelIfRelinked { line += "; a new sign-in before then cancels it" }
        line += "."
        if let basis = rule.basis { line += " Basis: " + Self.sentenceEnding(basis) }
        if let example = exampleEventTime {
            let window = calculator.window(for: rule, eventTime: example)
            let zone = policy.timeZoneIdentifier
            line +=
                rule.after.isZero
                ? " Due by \(calculator.localText(window.deadline)) \(zone)."
                : " Not before \(calculator.localText(window.notBefore)), due by \(calculator.localText(window.deadline)) \(zone)."
        }
        return line
    }

    /// The text with a full stop, unless it already ends with one.
    private static func sentenceEnding(_ text: String) -> String {
        text.hasSuffix(".") ? text : text + "."
    }

    /// "a", "a or b", "a, b or c".
    private static func sentence(_ items: [String], joiner: String) -> String {
        switch items.count {
        case 0: return ""
        case 1: return items[0]
        default: return items.dropLast().joined(separator: ", ") + " \(joiner) " + items[items.count - 1]
        }
    }
}
