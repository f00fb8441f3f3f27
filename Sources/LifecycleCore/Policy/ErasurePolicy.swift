/// A written erasure policy (`policies/*.json`, DESIGN.md §7): which categories are erased on which
/// account event and by when, and which are kept longer under which law.
///
/// Build one with ``PolicyValidator/validate(_:file:)``; it never exists unvalidated.
public struct ErasurePolicy: Hashable, Sendable {
    public var id: String
    public var version: Int
    /// Free text naming where the policy applies, e.g. `KR`, `EU`, `US-CA`.
    public var jurisdiction: String
    /// The IANA time zone deadlines are computed in (validated to exist).
    public var timeZoneIdentifier: String
    public var rules: [ErasureRule]
    public var retain: [RetentionRule]
    /// How far the law lets a request's deadline be extended (the `extension` member); nil allows none.
    public var extensionTerms: ExtensionTerms? = nil
    /// The file's bytes exactly as read: what the caller hashes (SHA-256) to freeze `id@version#hash` on
    /// each job. Hashing lives with the crypto module, not here.
    public var canonicalBytes: [UInt8]

    public init(
        id: String, version: Int, jurisdiction: String, timeZoneIdentifier: String, rules: [ErasureRule],
        retain: [RetentionRule], canonicalBytes: [UInt8]
    ) {
        self.id = id
        self.version = version
        self.jurisdiction = jurisdiction
        self.timeZoneIdentifier = timeZoneIdentifier
        self.rules = rules
        self.retain = retain
        self.canonicalBytes = canonicalBytes
    }

    /// `id@version`, the human part of the frozen reference (the caller appends `#sha256`).
    public var reference: String { "\(id)@\(version)" }

    /// The deletions (`account-deleted`, `in-app-deletion`) no rule names: such a request is acknowledged and
    /// erases none of the rules' categories; only the `retain[]` purges are scheduled (with none, it stays open
    /// in the ledger with no deadline to miss).
    public var uncoveredDeletions: [PolicyTrigger] {
        PolicyTrigger.allCases.filter { $0.isDeletion && rules(on: $0).isEmpty }
    }

    /// The rules that start on a trigger, in file order.
    public func rules(on trigger: PolicyTrigger) -> [ErasureRule] {
        rules.filter { $0.on.contains(trigger) }
    }
}

/// One `rules[]` entry: on these events, erase these categories no earlier than `after` and no later than
/// `within`, both measured from the event time.
public struct ErasureRule: Hashable, Sendable {
    public var on: [PolicyTrigger]
    public var erase: [DataCategory]
    /// Waiting period before erasure may start; `P0D` (the default) means at once.
    public var after: ISODuration
    /// The legal deadline, measured from the event (not from `after`). Required.
    public var within: ISODuration
    /// The legal basis, quoted in reports.
    public var basis: String?
    /// Whether a newer sign-in (re-link) cancels the job while it waits.
    public var cancelIfRelinked: Bool

    public init(
        on: [PolicyTrigger], erase: [DataCategory], after: ISODuration = .zero, within: ISODuration,
        basis: String? = nil, cancelIfRelinked: Bool = false
    ) {
        self.on = on
        self.erase = erase
        self.after = after
        self.within = within
        self.basis = basis
        self.cancelIfRelinked = cancelIfRelinked
    }
}

/// One `retain[]` entry: a category kept after erasure because another law requires it, then purged.
public struct RetentionRule: Hashable, Sendable {
    public var category: DataCategory
    /// How long, from the event, before its own purge job runs.
    public var period: ISODuration
    /// The law that requires keeping it. Required: a retention without a basis is not defensible.
    public var basis: String
    /// Whether it must be stored apart from live data (PIPA Art. 21(3)).
    public var separate: Bool

    public init(category: DataCategory, period: ISODuration, basis: String, separate: Bool = false) {
        self.category = category
        self.period = period
        self.basis = basis
        self.separate = separate
    }
}
