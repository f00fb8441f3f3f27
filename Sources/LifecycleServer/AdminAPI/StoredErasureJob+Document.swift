import LifecycleCore
import LifecycleStore

extension StoredErasureJob {
    /// The job as the admin API answers it (`GET /v1/jobs`, the account's `erasureJobs`, `jobs --json`; the
    /// `Job` schema of admin.openapi.json), with the account named by its pseudonym, never its sub.
    package func document(pseudonym: String) -> JSONValue {
        let stored = self
        let plan = stored.job.plan
        func optional(_ value: Int?) -> JSONValue { value.map { .integer(Int64($0)) } ?? .null }
        func time(_ value: Instant?) -> JSONValue { value.map { .string($0.iso8601) } ?? .null }
        let steps: [JSONValue] = stored.job.steps.enumerated().map { index, step in
            [
                "target": .string(step.target), "status": .string(step.status.canonicalName),
                "attempts": .integer(Int64(step.attempts)), "started_at": time(stored.stepsStartedAt[index]),
                "last_attempt_at": time(step.lastAttemptAt), "finished_at": time(step.finishedAt),
                "next_attempt_at": time(step.nextAttemptAt), "rows_affected": optional(step.evidence.rowsAffected),
                "verification_count": optional(step.evidence.verificationCount),
                "response_status": optional(step.evidence.responseStatus),
                "error_code": step.evidence.errorCode.map { .string($0.rawValue) } ?? .null,
                "keys_destroyed": optional(step.evidence.keysDestroyed),
                "hygiene": step.evidence.hygiene.map { .string($0) } ?? .null,
            ]
        }
        return [
            "id": .integer(stored.id), "status": .string(stored.status.rawValue), "app": .string(stored.app),
            "account": .string(pseudonym), "trigger": .string(plan.trigger.canonicalName),
            "origin": .string(plan.origin.path), "policy": .string(plan.policyReference),
            "categories": .array(plan.categories.map { .string($0.canonicalName) }),
            "event_time": .string(plan.eventTime.iso8601), "not_before": .string(plan.notBefore.iso8601),
            "deadline": .string(plan.deadline.iso8601), "cancel_if_relinked": .bool(plan.cancelIfRelinked),
            "basis": plan.basis.map { .string($0) } ?? .null, "created_at": .string(stored.createdAt.iso8601),
            "finished_at": time(stored.job.finishedAt), "cancelled_at": time(stored.job.cancelledAt),
            "cancel_reason": stored.cancelReason.map { .string($0) } ?? .null, "steps": .array(steps),
        ]
    }
}
