import LifecycleCore

/// How the `effects` column of `account_history` spells a list of ``AccountEffect``: the canonical names
/// joined by commas, with the value an effect carries after a colon, so the list reads back exactly:
/// `terminate-sessions,drop-apple-tokens,schedule-policy:consent-revoked` or
/// `email-forwarding-changed:disabled`. No name, trigger or flag contains `,` or `:`.
enum StoredEffectNames {
    static let separator: Character = ","
    static let valueSeparator: Character = ":"

    static func encode(_ effects: [AccountEffect]) -> String {
        effects.map(encode).joined(separator: String(separator))
    }

    static func encode(_ effect: AccountEffect) -> String {
        switch effect {
        case .terminateSessions, .dropAppleTokens, .revokeAppleTokens, .cancelRelinkCancellableJobs:
            effect.canonicalName
        case .emailForwardingChanged(let enabled):
            effect.canonicalName + String(valueSeparator) + (enabled ? "enabled" : "disabled")
        case .schedulePolicy(let trigger):
            effect.canonicalName + String(valueSeparator) + trigger.canonicalName
        }
    }

    /// The effects of a stored list, or nil when one of them is not a name this build writes.
    static func decode(_ text: String) -> [AccountEffect]? {
        if text.isEmpty { return [] }
        var effects: [AccountEffect] = []
        for name in text.split(separator: separator, omittingEmptySubsequences: false) {
            guard let effect = decodeOne(name) else { return nil }
            effects.append(effect)
        }
        return effects
    }

    private static func decodeOne(_ text: Substring) -> AccountEffect? {
        let parts = text.split(separator: valueSeparator, maxSplits: 1, omittingEmptySubsequences: false)
        let name = String(parts[0])
        let value = parts.count == 2 ? String(parts[1]) : nil
        switch (name, value) {
        case (AccountEffect.terminateSessions.canonicalName, nil): return .terminateSessions
        case (AccountEffect.dropAppleTokens.canonicalName, nil): return .dropAppleTokens
        case (AccountEffect.revokeAppleTokens.canonicalName, nil): return .revokeAppleTokens
        case (AccountEffect.cancelRelinkCancellableJobs.canonicalName, nil): return .cancelRelinkCancellableJobs
        case (AccountEffect.emailForwardingChanged(enabled: true).canonicalName, "enabled"):
            return .emailForwardingChanged(enabled: true)
        case (AccountEffect.emailForwardingChanged(enabled: true).canonicalName, "disabled"):
            return .emailForwardingChanged(enabled: false)
        case (AccountEffect.schedulePolicy(trigger: .accountDeleted).canonicalName, let trigger?):
            return PolicyTrigger(canonicalName: trigger).map { .schedulePolicy(trigger: $0) }
        default: return nil
        }
    }
}
