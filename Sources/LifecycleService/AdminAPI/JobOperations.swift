import LifecycleCore
import LifecycleStore

/// Erasure jobs through the admin API: list, retry a failed job, and the asynchronous completion of a step
/// whose webhook target answered 202 (DESIGN.md §7).
struct JobOperations: Sendable {
    let context: ServiceContext
    let runner: ErasureJobRunner
    static let defaultLimit = 100

    /// Jobs in id order, of one status or all; with `app` and `subject`, only that subject's jobs (a store
    /// query by subject, `erasure_jobs_account`, not a scan), so an operator answering a data-subject request
    /// finds them. `app` and `subject` go together: the store has no per-app listing.
    /// - Throws: ``AdminError`` `invalid_status`, `invalid_query` (one of app and sub), `unknown_app`.
    func list(
        status: String?, app: String? = nil, subject: String? = nil, limit: Int?, after: Int64?
    ) async throws -> JSONValue {
        let pageSize = limit ?? Self.defaultLimit
        let rows = try await jobs(status: status, app: app, subject: subject, limit: pageSize, after: after)
        return [
            "jobs": .array(rows.map(describe)),
            "next": rows.count == pageSize ? rows.last.map { .integer($0.id) } ?? .null : .null,
        ]
    }

    /// The rows ``list(status:app:subject:limit:after:)`` describes.
    func jobs(
        status: String?, app: String?, subject: String?, limit pageSize: Int, after: Int64?
    ) async throws -> [StoredErasureJob] {
        var filter: ErasureJobStatus?
        if let status {
            guard let parsed = ErasureJobStatus(canonicalName: status) else {
                throw AdminError.badRequest(
                    "invalid_status",
                    "status must be one of \(ErasureJobStatus.allCases.map(\.canonicalName).joined(separator: ", "))")
            }
            filter = parsed
        }
        let status = filter
        let rows: [StoredErasureJob]
        switch (app, subject) {
        case (nil, nil):
            rows = try await context.store.read { reader in
                try reader.erasureJobs(status: status, limit: pageSize, afterID: after)
            }
        case (let app?, let subject?) where !subject.isEmpty:
            guard context.configuration.apps.contains(where: { $0.id == app }) else {
                throw AdminError(status: 404, code: "unknown_app", "no app with that id is configured")
            }
            let all = try await context.store.read { reader in try reader.erasureJobs(app: app, subject: subject) }
            rows = Array(
                all.filter { job in (status == nil || job.status == status) && job.id > (after ?? 0) }
                    .prefix(pageSize))
        default:
            throw AdminError.badRequest("invalid_query", "app and sub go together: give both, or neither")
        }
        return rows
    }

    func retry(id: Int64) async throws -> JSONValue {
        guard try await context.store.read({ try $0.erasureJob(id: id) }) != nil else {
            throw AdminError(status: 404, code: "unknown_job", "no erasure job with that id")
        }
        let reset = try await runner.retry(jobID: id)
        guard reset > 0 else {
            throw AdminError(status: 409, code: "nothing_to_retry", "the job has no failed or unverified step")
        }
        guard let job = try await context.store.read({ try $0.erasureJob(id: id) }) else {
            throw AdminError(status: 404, code: "unknown_job", "no erasure job with that id")
        }
        return describe(job)
    }

    /// Body (optional): `{"outcome": "erased"|"unverifiable"|"failed", "rowsAffected": n, "verificationCount": n}`.
    func complete(id: Int64, target: String, body: [UInt8]) async throws -> JSONValue {
        var outcome = ErasureJobRunner.CallbackOutcome.erased
        var evidence = ErasureStepEvidence.none
        if !body.isEmpty {
            guard let object = JSONValue.parseIfValid(body)?.objectValue else {
                throw AdminError(status: 422, code: "invalid_body", "the body must be a JSON object")
            }
            for (key, value) in object {
                switch (key, value) {
                case ("outcome", .string(let text)):
                    guard let parsed = ErasureJobRunner.CallbackOutcome(rawValue: text) else {
                        throw AdminError(
                            status: 422, code: "invalid_outcome", "outcome must be erased, unverifiable or failed")
                    }
                    outcome = parsed
                case ("rowsAffected", .integer(let count)) where count >= 0:
                    evidence.rowsAffected = Int(clamping: count)
                case ("verificationCount", .integer(let count)) where count >= 0:
                    evidence.verificationCount = Int(clamping: count)
                default:
                    throw AdminError(status: 422, code: "unknown_field", "unknown or invalid field \(key)")
                }
            }
        }
        switch try await runner.completeCallback(jobID: id, target: target, outcome: outcome, evidence: evidence) {
        case .recorded(let job): return describe(job)
        case .notFound:
            throw AdminError(status: 404, code: "unknown_step", "no such job, or the job has no step for that target")
        case .notWaiting(let status):
            throw AdminError(
                status: 409, code: "not_waiting", "the step is \(status.canonicalName), not waiting for a callback")
        }
    }

    private func describe(_ job: StoredErasureJob) -> JSONValue {
        JobsCommand.describeJSON(
            job, pseudonym: context.pseudonymizer.pseudonym(app: job.app, subject: job.subject))
    }
}
