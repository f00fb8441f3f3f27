import LifecycleCore

/// An `erasure_jobs` row and its `erasure_steps`, as both stores select and decode them. The store then
/// assembles them into a ``StoredErasureJob`` (the plan's targets are the steps' targets, in order).
struct ErasureJobRow {
    static let columns = """
        id, app, sub, trigger, event_time_ms, policy_reference, origin, categories, not_before_ms, deadline_ms,
        cancel_if_relinked, basis, created_at_ms, cancelled_at_ms, cancel_reason
        """

    static let stepColumns = """
        ordinal, target, status, attempts, next_attempt_at_ms, last_attempt_at_ms, finished_at_ms, rows_affected,
        verification_count, response_status, error_code, started_at_ms, keys_destroyed, hygiene
        """

    var id: Int64
    var app: String
    var subject: String
    var plan: ErasureJobPlan
    var createdAt: Instant
    var cancelledAt: Instant?
    var cancelReason: String?

    static func decode<Row: StoreRow>(_ row: Row) throws(Row.Failure) -> ErasureJobRow {
        guard let trigger = PolicyTrigger(canonicalName: row.text(3)) else {
            throw Row.unreadable("erasure_jobs", "trigger")
        }
        guard let origin = decodeOrigin(row.text(6)) else { throw Row.unreadable("erasure_jobs", "origin") }
        var categories: [DataCategory] = []
        for name in row.text(7).split(separator: ",") {
            guard let category = DataCategory(canonicalName: String(name)) else {
                throw Row.unreadable("erasure_jobs", "categories")
            }
            categories.append(category)
        }
        let plan = ErasureJobPlan(
            policyReference: row.text(5), trigger: trigger, eventTime: row.instant(4), origin: origin,
            categories: categories, targets: [], notBefore: row.instant(8), deadline: row.instant(9),
            cancelIfRelinked: row.bool(10), basis: row.optionalText(11))
        return ErasureJobRow(
            id: row.int64(0), app: row.text(1), subject: row.text(2), plan: plan, createdAt: row.instant(12),
            cancelledAt: row.optionalInstant(13), cancelReason: row.optionalText(14))
    }

    /// One step from ``stepColumns``, with when it started (for the running lease).
    static func decodeStep<Row: StoreRow>(_ row: Row) throws(Row.Failure) -> (step: ErasureStep, startedAt: Instant?) {
        guard let status = ErasureStepStatus(canonicalName: row.text(2)) else {
            throw Row.unreadable("erasure_steps", "status")
        }
        var errorCode: FailureCode?
        if let spelled = row.optionalText(10) {
            guard let code = FailureCode(rawValue: spelled) else { throw Row.unreadable("erasure_steps", "error_code") }
            errorCode = code
        }
        let evidence = ErasureStepEvidence(
            rowsAffected: row.optionalInt(7), verificationCount: row.optionalInt(8), responseStatus: row.optionalInt(9),
            errorCode: errorCode, keysDestroyed: row.optionalInt(12), hygiene: row.optionalText(13))
        let step = ErasureStep(
            target: row.text(1), status: status, attempts: row.int(3), nextAttemptAt: row.optionalInstant(4),
            lastAttemptAt: row.optionalInstant(5), finishedAt: row.optionalInstant(6), evidence: evidence)
        return (step, row.optionalInstant(11))
    }

    /// `rules[2]` or `retain[0]`, as ``ErasureJobOrigin/path`` writes it.
    static func decodeOrigin(_ text: String) -> ErasureJobOrigin? {
        for (prefix, make) in [
            ("rules[", { ErasureJobOrigin.rule(index: $0) }), ("retain[", { ErasureJobOrigin.retention(index: $0) }),
        ] as [(String, (Int) -> ErasureJobOrigin)] where text.hasPrefix(prefix) && text.hasSuffix("]") {
            guard let index = Int(text.dropFirst(prefix.count).dropLast()), index >= 0 else { return nil }
            return make(index)
        }
        return nil
    }
}
