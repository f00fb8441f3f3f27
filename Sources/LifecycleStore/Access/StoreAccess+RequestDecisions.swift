import LifecycleCore
import LifecycleSQL

/// Extensions, legal holds and refusals of deletion requests (``RequestDecisionKind``). Each is one row, and
/// its effect on the request's erasure jobs is written in the same transaction: an extension moves the open
/// jobs' deadline, a refusal cancels them with its basis, a hold keeps
/// ``StoreAccess/claimErasureSteps(now:owner:leaseUntil:limit:)`` off them until released.
extension StoreAccess {
    static var requestDecisionColumns: String {
        """
        id, app, sub, trigger, event_time_ms, kind, reason, notice_at_ms, previous_deadline_ms, new_deadline_ms,
        recorded_at_ms, released_at_ms, release_reason
        """
    }

    func decodeDecision(_ row: Row) throws -> StoredRequestDecision {
        guard let trigger = PolicyTrigger(canonicalName: row.text(3)) else {
            throw Row.unreadable("request_decisions", "trigger")
        }
        guard let kind = RequestDecisionKind(rawValue: row.text(5)) else {
            throw Row.unreadable("request_decisions", "kind")
        }
        let request = DeletionRequestKey(
            app: row.text(1), subject: row.text(2), trigger: trigger, eventTime: row.instant(4))
        return StoredRequestDecision(
            id: row.int64(0),
            decision: NewRequestDecision(
                request: request, kind: kind, reason: row.text(6), noticeAt: row.optionalInstant(7),
                previousDeadline: row.optionalInstant(8), newDeadline: row.optionalInstant(9),
                recordedAt: row.instant(10)),
            releasedAt: row.optionalInstant(11), releaseReason: row.optionalText(12))
    }

    func requestDecisions(app: String, subject: String) throws(StoreError) -> [StoredRequestDecision] {
        try sql {
            try connection.fetchAll(
                "SELECT \(Self.requestDecisionColumns) FROM request_decisions WHERE app = $1 AND sub = $2 ORDER BY id",
                [app, subject]
            ) { row in try decodeDecision(row) }
        }
    }

    func recordRequestDecision(_ decision: NewRequestDecision) throws(StoreError) -> Int64 {
        try sql { () throws -> Int64 in
            let request = decision.request
            guard
                let id = try connection.fetchInt64(
                    """
                    INSERT INTO request_decisions (
                        app, sub, trigger, event_time_ms, kind, reason, notice_at_ms, previous_deadline_ms,
                        new_deadline_ms, recorded_at_ms
                    ) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
                    RETURNING id
                    """,
                    [
                        request.app, request.subject, request.trigger.canonicalName,
                        request.eventTime.millisecondsSinceEpoch, decision.kind.rawValue, decision.reason,
                        decision.noticeAt?.millisecondsSinceEpoch, decision.previousDeadline?.millisecondsSinceEpoch,
                        decision.newDeadline?.millisecondsSinceEpoch, decision.recordedAt.millisecondsSinceEpoch,
                    ])
            else { throw Connection.failure("request decision insert returned no id") }
            let openJobs = """
                app = $1 AND sub = $2 AND trigger = $3 AND event_time_ms = $4 AND origin LIKE 'rules[%'
                    AND status NOT IN ('completed', 'cancelled')
                """
            let key: [any SQLBindable] = [
                request.app, request.subject, request.trigger.canonicalName, request.eventTime.millisecondsSinceEpoch,
            ]
            switch decision.kind {
            case .extension:
                if let newDeadline = decision.newDeadline {
                    try connection.run(
                        "UPDATE erasure_jobs SET deadline_ms = $5 WHERE \(openJobs) AND deadline_ms < $5",
                        key + [newDeadline.millisecondsSinceEpoch])
                }
            case .refusal:
                let ids = try connection.fetchAll("SELECT id FROM erasure_jobs WHERE \(openJobs) ORDER BY id", key) {
                    row in row.int64(0)
                }
                for jobID in ids {
                    try connection.run(
                        """
                        UPDATE erasure_jobs SET status = 'cancelled', cancelled_at_ms = $1, finished_at_ms = $1,
                            cancel_reason = $2
                        WHERE id = $3
                        """,
                        [decision.recordedAt.millisecondsSinceEpoch, "refused: \(decision.reason)", jobID])
                    try connection.run(
                        "UPDATE erasure_steps SET lease_owner = NULL, leased_until_ms = NULL WHERE job_id = $1",
                        [jobID])
                }
            case .hold:
                break
            }
            return id
        }
    }

    func releaseRequestHold(_ request: DeletionRequestKey, at instant: Instant, reason: String) throws(StoreError)
        -> Int
    {
        try sql {
            try connection.fetchCount(
                """
                UPDATE request_decisions SET released_at_ms = $5, release_reason = $6
                WHERE app = $1 AND sub = $2 AND trigger = $3 AND event_time_ms = $4 AND kind = 'hold'
                    AND released_at_ms IS NULL
                RETURNING 1
                """,
                [
                    request.app, request.subject, request.trigger.canonicalName,
                    request.eventTime.millisecondsSinceEpoch, instant.millisecondsSinceEpoch, reason,
                ])
        }
    }
}
