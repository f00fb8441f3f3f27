import LifecycleCore

/// Erasure policy files (`policies/*.json`), validated by ``PolicyValidator``.
///
/// Properties: a refusal lists at least one problem, each on one line naming the file; an accepted policy
/// validates again from its canonical bytes to the same policy; its deadlines for events across the years
/// 0000–9999 compute without trapping and never end before the event.
enum PolicyFileTarget {
    static let target = FuzzTarget(
        name: "policy-file",
        summary: "policy files: one-line errors naming the file, canonical bytes re-validate equal, deadlines "
            + "never trap or precede the event",
        check: check)

    static let file = "fuzz-policy.json"

    static func check(_ bytes: [UInt8]) throws(PropertyFailure) {
        let policy: ErasurePolicy
        do {
            policy = try PolicyValidator.validate(bytes, file: file)
        } catch {
            try require(!error.errors.isEmpty, "a refusal without a problem")
            for problem in error.errors {
                let line = problem.description
                try require(!line.contains("\n"), "a problem spans lines: \(line)")
                try require(line.hasPrefix(file), "a problem does not name the file: \(line)")
            }
            return
        }
        guard let again = try? PolicyValidator.validate(policy.canonicalBytes, file: file) else {
            throw PropertyFailure("the canonical bytes of an accepted policy do not validate")
        }
        try require(again == policy, "the canonical bytes validate to another policy")
        let calculator = DeadlineCalculator(policy: policy)
        var random = FuzzRandom(bytes: bytes)
        let event = Instant(
            millisecondsSinceEpoch: ISO8601InstantTarget.earliest
                + Int64(random.next() % UInt64(ISO8601InstantTarget.latest - ISO8601InstantTarget.earliest)))
        for rule in policy.rules {
            let window = calculator.window(for: rule, eventTime: event)
            try require(window.notBefore >= event && window.deadline >= event, "a deadline precedes its event")
        }
        for retention in policy.retain {
            try require(calculator.purgeDate(for: retention, eventTime: event) >= event, "a purge precedes its event")
        }
    }
}
